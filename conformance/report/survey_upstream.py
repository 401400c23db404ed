"""The upstream status of the survey's headline classes: ``docs/survey-upstream.json``.

For each class a library's headline names, the survey records what its maintainers
already know (issue 28, item 5; the search is described in ``docs/survey-method.md``):

* ``known issue`` -- a report in the library's tracker of the same behaviour
  (``owner/repo#number``, its state and a one-line quote);
* ``documented`` -- the library's documentation states the behaviour (link, quote);
* ``not found`` -- the queries that were run, and a stand-alone reproduction a
  maintainer can paste into a new issue (the library, numpy and the standard library
  only; it prints the library's result and the correct value with their bits, then
  ``deviates: True`` -- or dies by a signal when the class is a crash);
* ``out of scope`` -- the headline item is not the library's deviation under issue 27's
  policy (a plancheck convention, an operation the library does not have, an adapter's
  composition), with the reason.

This module loads and checks that file (:func:`load`), gives the survey its column
(:func:`by_class`, :func:`cell`) and runs the reproductions against an interpreter
(:func:`run_reproduction`; ``python -m conformance.report.survey_upstream --python
/path/to/python`` runs every one whose library that interpreter imports).  It imports
nothing of the libraries itself.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_PATH",
    "STATUSES",
    "Entry",
    "Ran",
    "UpstreamDataError",
    "by_class",
    "cell",
    "load",
    "main",
    "run_reproduction",
]

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "docs" / "survey-upstream.json"
STATUSES = ("known issue", "documented", "not found", "out of scope")
#: a tracker reference: owner/repo#number
_ISSUE_REF = re.compile(r"^[\w.-]+/[\w.-]+#\d+$")
#: the import name of each reproduction's library (what ``--python`` must import)
IMPORT_NAMES = {
    "numpy": "numpy",
    "torch": "torch",
    "jax": "jax",
    "tensorflow": "tensorflow",
    "onnxruntime": "onnxruntime",
    "paddle": "paddle",
    "array_api_strict": "array_api_strict",
    "mlx": "mlx.core",
}
_EXPECTS = ("deviates", "signal")


class UpstreamDataError(ValueError):
    """``docs/survey-upstream.json`` breaks its contract; the message names the entry."""


@dataclass(frozen=True)
class Entry:
    """One headline item of one library and what its maintainers know of it."""

    backend: str
    headline: str
    classes: tuple[str, ...]
    status: str
    references: tuple[Mapping[str, Any], ...]
    related: tuple[Mapping[str, Any], ...]
    queries: tuple[Mapping[str, str], ...]
    reproduction: Mapping[str, Any] | None
    note: str | None

    @property
    def label(self) -> str:
        return f"{self.backend}: {self.headline}"


@dataclass(frozen=True)
class Ran:
    """What a reproduction did: its exit status (negative: killed by that signal), its
    output, and whether it showed the deviation as its entry expects."""

    returncode: int
    output: str
    shown: bool


def _check(entry: Mapping[str, Any], where: str) -> Entry:
    status = entry.get("status")
    if status not in STATUSES:
        raise UpstreamDataError(f"{where}: status {status!r} is not one of {STATUSES}")
    refs = tuple(entry.get("references") or ())
    for ref in (*refs, *(entry.get("related") or ())):
        if ref.get("kind") == "issue" and not _ISSUE_REF.match(str(ref.get("ref"))):
            raise UpstreamDataError(
                f"{where}: issue reference {ref.get('ref')!r} is not owner/repo#N"
            )
        if not ref.get("url") or not ref.get("quote"):
            raise UpstreamDataError(
                f"{where}: reference {ref.get('ref')!r} needs a url and a quote"
            )
    kinds = {ref.get("kind") for ref in refs}
    if status == "known issue" and "issue" not in kinds:
        raise UpstreamDataError(f"{where}: 'known issue' needs an issue reference (owner/repo#N)")
    if status == "documented" and "documentation" not in kinds:
        raise UpstreamDataError(f"{where}: 'documented' needs a documentation reference")
    reproduction = entry.get("reproduction")
    if status == "not found":
        if not entry.get("queries"):
            raise UpstreamDataError(f"{where}: 'not found' needs the queries that were run")
        if not reproduction:
            raise UpstreamDataError(f"{where}: 'not found' needs a stand-alone reproduction")
    if status == "out of scope" and not entry.get("note"):
        raise UpstreamDataError(f"{where}: 'out of scope' needs a note saying why")
    if reproduction is not None:
        if reproduction.get("library") not in IMPORT_NAMES:
            raise UpstreamDataError(f"{where}: reproduction library {reproduction.get('library')!r}"
                                    f" is not one of {sorted(IMPORT_NAMES)}")  # fmt: skip
        if reproduction.get("expect") not in _EXPECTS:
            raise UpstreamDataError(f"{where}: reproduction expect must be one of {_EXPECTS}")
        if not str(reproduction.get("source", "")).strip():
            raise UpstreamDataError(f"{where}: reproduction has no source")
    return Entry(
        backend=str(entry["backend"]),
        headline=str(entry["headline"]),
        classes=tuple(entry.get("classes") or ()),
        status=status,
        references=refs,
        related=tuple(entry.get("related") or ()),
        queries=tuple(entry.get("queries") or ()),
        reproduction=reproduction,
        note=entry.get("note"),
    )


def load(path: Path = DEFAULT_PATH) -> tuple[Entry, ...]:
    """Every entry of *path*, checked (:class:`UpstreamDataError` names a broken one).

    An entry's ``classes`` may be empty only when it is ``out of scope``."""
    data = json.loads(Path(path).read_text())
    if data.get("format") != "plancheck-survey-upstream/1":
        raise UpstreamDataError(
            f"{path}: format {data.get('format')!r} is not plancheck-survey-upstream/1"
        )
    entries = []
    for number, raw in enumerate(data.get("entries") or ()):
        entry = _check(raw, f"{path} entry {number} ({raw.get('backend')}: {raw.get('headline')})")
        if not entry.classes and entry.status != "out of scope":
            raise UpstreamDataError(f"{entry.label}: names no class")
        entries.append(entry)
    return tuple(entries)


def by_class(entries: Sequence[Entry], backend: str) -> dict[str, Entry]:
    """``operation@class`` -> its entry, for one backend's classes (the survey's column)."""
    return {key: e for e in entries if e.backend == backend for key in e.classes}


def cell(entry: Entry | None) -> str:
    """The Markdown of the upstream column for one class ('' when no entry names it)."""
    if entry is None:
        return ""
    if entry.status in ("known issue", "documented"):
        links = ", ".join(
            f"[{ref['ref'] if ref['kind'] == 'issue' else 'docs'}]({ref['url']})"
            for ref in entry.references
        )
        return f"{entry.status}: {links}"
    if entry.status == "not found":
        return "not found: reproduction in docs/survey-upstream.json"
    return "out of scope"


def run_reproduction(entry: Entry, python: str = sys.executable, timeout: float = 300) -> Ran:
    """Run *entry*'s reproduction with *python* (a separate process: a crash is its own).

    Shown means: the last output line is ``deviates: True`` (``expect: deviates``), or the
    process was killed by a signal (``expect: signal``)."""
    if entry.reproduction is None:
        raise UpstreamDataError(f"{entry.label}: has no reproduction to run")
    done = subprocess.run(
        [python, "-c", entry.reproduction["source"]],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    output = done.stdout + done.stderr
    if entry.reproduction["expect"] == "signal":
        shown = done.returncode < 0
    else:
        lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
        shown = done.returncode == 0 and bool(lines) and lines[-1] == "deviates: True"
    return Ran(done.returncode, output, shown)


def _importable(python: str, module: str) -> bool:
    probe = subprocess.run([python, "-c", f"import {module}"], capture_output=True, timeout=300)
    return probe.returncode == 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run every reproduction whose library *--python* imports; exit 1 when one does not
    show its deviation, 0 when all shown (libraries it cannot import are listed, skipped)."""
    parser = argparse.ArgumentParser(prog="python -m conformance.report.survey_upstream")
    parser.add_argument("--python", default=sys.executable, help="interpreter to run them with")
    parser.add_argument("--path", type=Path, default=DEFAULT_PATH)
    args = parser.parse_args(argv)
    entries = [e for e in load(args.path) if e.reproduction is not None]
    available: dict[str, bool] = {}
    failed = 0
    for entry in entries:
        library = entry.reproduction["library"]  # type: ignore[index]
        if library not in available:
            available[library] = _importable(args.python, IMPORT_NAMES[library])
        if not available[library]:
            print(f"skipped (no {library}): {entry.label}")
            continue
        ran = run_reproduction(entry, args.python)
        failed += not ran.shown
        print(f"{'shown' if ran.shown else 'NOT SHOWN'} (exit {ran.returncode}): {entry.label}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
