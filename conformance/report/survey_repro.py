"""Regenerate the published keys of a reproduction module from its report (issue 28).

A module ``docs/backends/<backend>_repro.py`` whose reproductions are built by
``repro_common.reproductions`` lists the classes it reproduces in ``PUBLISHED``
(``operation@class``, spelt as the report spells them).  After a re-measurement the
list must be exactly the report's classes (``tests/test_survey_reproductions.py``);
:func:`republish` rewrites it from the report, grouped by the class's kind, and leaves
the rest of the module alone.  All eight surveyed libraries' modules are generated
(2026-12-06); a module without a ``PUBLISHED`` list (one written by hand, e.g. outside
this repository) is not touched: :class:`NotGenerated` says so.

``plancheck survey`` republishes every surveyed library's module that exists
(:func:`republish_all`), so the survey, the known-deviations files and the modules
always follow the same reports.  ``python -m conformance.report.survey_repro
docs/backends/numpy-native_repro.py ...`` rewrites each named module in place and
prints what changed.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["NotGenerated", "published_block", "report_keys", "republish", "republish_all"]

_PUBLISHED = re.compile(r"^PUBLISHED: list\[str\] = \[\n.*?^\]\n", re.MULTILINE | re.DOTALL)
#: the kinds in the order the list groups them (a class spelling's head)
_KINDS = ("crash", "missing-exception", "wrong-exception", "warning", "wrong-value")


class NotGenerated(ValueError):
    """The module has no ``PUBLISHED`` list (or no ``REPORT``): it does not select its
    classes from a report this tool can rewrite, so it is left as it is."""


def report_keys(report: Path) -> list[str]:
    """Every ``operation@class`` of *report*'s deviation classes, sorted."""
    data = json.loads(report.read_text(encoding="utf-8"))
    return sorted({f"{c['operation']}@{c['class']}" for c in data["deviation_classes"]})


def _kind(key: str) -> str:
    head = key.partition("@")[2].partition(":")[0]
    return head if head in _KINDS else "other"


def published_block(keys: Sequence[str]) -> str:
    """The ``PUBLISHED`` assignment of *keys*, grouped by kind with a comment a group."""
    lines = ["PUBLISHED: list[str] = ["]
    for kind in (*_KINDS, "other"):
        group = sorted(k for k in keys if _kind(k) == kind)
        if group:
            lines.append(f"    # {kind.replace('-', ' ')}")
            lines += [f'    "{k}",' for k in group]
    return "\n".join([*lines, "]"]) + "\n"


def _report_name(text: str) -> str:
    for node in ast.parse(text).body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "REPORT" for t in node.targets)
            and isinstance(node.value, ast.Constant)
        ):
            return str(node.value.value)
    raise NotGenerated("the module names no REPORT")


def republish(module: Path) -> tuple[set[str], set[str]]:
    """Rewrite *module*'s ``PUBLISHED`` from the report it names; (added, removed) keys."""
    text = module.read_text(encoding="utf-8")
    match = _PUBLISHED.search(text)
    if match is None:
        raise NotGenerated(f"{module}: no `PUBLISHED: list[str] = [...]` (hand-written)")
    old = set(re.findall(r'"([^"]+@[^"]+)"', match[0]))
    keys = report_keys(module.with_name(_report_name(text)))
    rewritten = text[: match.start()] + published_block(keys) + text[match.end() :]
    if rewritten != text:
        module.write_text(rewritten, encoding="utf-8")
    return set(keys) - old, old - set(keys)


def republish_all(reports: Path, backends: Sequence[str]) -> dict[str, tuple[set[str], set[str]]]:
    """Republish ``reports/<backend>_repro.py`` for each of *backends* that has one and
    whose report exists; (added, removed) keys by backend.  A backend without a module,
    or whose module is not generated (:class:`NotGenerated`), is left out."""
    changes: dict[str, tuple[set[str], set[str]]] = {}
    for backend in backends:
        module = reports / f"{backend}_repro.py"
        if not module.is_file() or not (reports / f"{backend}.json").is_file():
            continue
        try:
            changes[backend] = republish(module)
        except NotGenerated:
            continue
    return changes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="+", type=Path)
    arguments = parser.parse_args(argv)
    status = 0
    for module in arguments.modules:
        try:
            added, removed = republish(module)
        except NotGenerated as error:
            print(f"{module}: {error}", file=sys.stderr)
            status = 1
            continue
        print(f"{module}: +{len(added)} -{len(removed)} keys")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
