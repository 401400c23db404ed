"""A library's known-deviations file, written from its report (issue 28).

``docs/backends/<backend>.xfail`` lists what ``plancheck run --backend NAME --xfail
FILE`` should expect: after a re-measurement it is the report's classes, one line a
class, its ``selector`` (the form ``--xfail`` reads) and, as the reason, its kind,
authority and count.  ``python -m conformance.report.survey_xfail docs/backends/NAME.json``
rewrites ``NAME.xfail`` beside the report; ``plancheck survey`` rewrites every surveyed
library's (:func:`write_xfail`).

A class a library shows only in some runs -- an intermittent hang, whose call races the
per-call timeout -- cannot be read from one report: the measured run is one draw.  Such
classes are kept, each with its evidence as the reason, in ``NAME.intermittent`` beside
the report (the same ``selector: reason`` lines, written by whoever saw the other runs);
they are appended under a header of their own, so ``--xfail`` passes whichever of them
a run meets.  A line there names a class as ``--xfail`` reads it: an operation without
plans covers every plan of it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["main", "write_xfail", "xfail_text"]


def xfail_text(report: Mapping[str, Any], backend: str, intermittent: str = "") -> str:
    """The known-deviations file of *backend*'s classes in *report*, followed by the
    *intermittent* classes (the text of ``NAME.intermittent``: its lines as they are,
    comments included) under their own header."""
    versions = report.get("backend_versions") or {}
    lines = [
        f"# Known deviations of `{backend}` ({versions.get(backend, '?')}), generated from "
        f"docs/backends/{backend}.json",
        f"# (measured {str(report.get('started', '?'))[:10]}, profile "
        f"{report.get('profile', '?')}) by `python -m conformance.report.survey_xfail`.",
        f"# `plancheck run --backend {backend} --profile {report.get('profile', 'ci')} --xfail "
        f"docs/backends/{backend}.xfail` lists them apart.",
        "# Format: selector: reason (the class's kind, authority and calls).",
        "",
    ]
    for c in report.get("deviation_classes") or ():
        if c.get("backend", backend) != backend:
            continue
        composed = ", the adapter's composition" if c.get("composed") else ""
        reason = (
            f"{c.get('kind', '?')} ({c.get('authority', '?')}{composed}), {c.get('count')} calls"
        )
        selector = c.get("selector") or f"{c['operation']}@{c['class']}"  # every plan
        lines.append(f"{selector}: {reason}")
    if intermittent.strip():
        lines += [
            "",
            f"# Intermittent classes (docs/backends/{backend}.intermittent): a run may or may "
            "not show them;",
            "# the measured run above is one draw.  Each reason is the evidence.",
            *intermittent.strip().splitlines(),
        ]
    return "\n".join(lines) + "\n"


def write_xfail(path: Path) -> int:
    """Rewrite ``NAME.xfail`` beside the report *path* (with ``NAME.intermittent``
    appended where there is one); how many classes the report has."""
    report = json.loads(path.read_text(encoding="utf-8"))
    backend = (report.get("backends") or [path.stem])[0]
    target = path.with_suffix(".xfail")
    extra = path.with_suffix(".intermittent")
    intermittent = extra.read_text(encoding="utf-8") if extra.is_file() else ""
    text = xfail_text(report, backend, intermittent)
    if not target.is_file() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")
    return len(report.get("deviation_classes") or ())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", type=Path)
    arguments = parser.parse_args(argv)
    for path in arguments.reports:
        count = write_xfail(path)
        print(f"{path.with_suffix('.xfail')}: {count} classes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
