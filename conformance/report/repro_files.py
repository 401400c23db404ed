"""Large calls in files beside the report: every printed repro line stays short.

A failure report's ``reproduce:`` and ``python:`` lines hold the whole call; for a
call with large tensors they run to many kilobytes (a 1,025-element sort's is 13.5
kB).  A line longer than :data:`~conformance.findings.failure.REPRO_LIMIT` characters
is printed as ``plancheck repro --backend X @FILE`` instead, the call's exact JSON in
*FILE*: ``<report stem>.calls/<operation>-<digest>.json`` beside the (first) report
file.  The file's name is a digest of its content, so rewriting the report after
every test item writes each file once; the report's own ``call`` field keeps the call
as well.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterable, MutableMapping
from pathlib import Path
from typing import Any

from conformance.findings.failure import REPRO_LIMIT, FailureReport

__all__ = ["attach_repro_files", "calls_directory", "long_repro"]


def calls_directory(report: Path) -> Path:
    """Where the large calls of the run reporting to *report* go: ``<stem>.calls`` in
    the report's directory (``out.json`` -> ``out.calls/``)."""
    return report.parent / f"{report.stem}.calls"


def long_repro(example: MutableMapping[str, Any]) -> bool:
    """Whether a failure report (as a dict) prints a repro line longer than the bound."""
    return any(len(str(example.get(key) or "")) > REPRO_LIMIT for key in ("repro", "python"))


def _write_call(directory: Path, operation: str, call: Any) -> Path:
    text = json.dumps(call, separators=(",", ":"))
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", operation)[:60] or "call"
    path = directory / f"{safe}-{digest}.json"
    if path.exists():
        return path
    directory.mkdir(exist_ok=True)
    descriptor, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
    return path


def attach_repro_files(examples: Iterable[MutableMapping[str, Any]], report: Path | None) -> None:
    """For each failure report dict in *examples* whose repro line is longer than the
    bound and that holds its call: write the call beside *report* (no report: nothing
    is written, the printed line says where the call is), record the file in
    ``repro_file`` and render ``text`` anew.  OSError when the file cannot be written
    (the caller treats it as it treats the report's own write)."""
    if report is None:
        return
    directory = calls_directory(report)
    for example in examples:
        if not example or not long_repro(example) or not isinstance(example.get("call"), dict):
            continue
        if not example.get("repro_file"):
            path = _write_call(directory, str(example.get("operation", "call")), example["call"])
            example["repro_file"] = str(path)
        example["text"] = FailureReport.from_dict(example).text()
