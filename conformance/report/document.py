"""The run document on disk: JSON (with its schema), Markdown or HTML.

:class:`ReportWriter` writes the run document every time it is given a new
state -- the plugin calls it after each finished test item, so an interrupted
or crashed run keeps what it measured.  The JSON form follows
``conformance/report.schema.json`` (:func:`validate_report`).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from conformance.report.html import render_html
from conformance.report.markdown import markdown_report
from conformance.report.table import ConformanceTable

__all__ = [
    "REPORT_FORMAT",
    "ReportWriter",
    "merge_unique",
    "now",
    "report_schema",
    "validate_report",
]

REPORT_FORMAT = "plancheck-report/1"
#: the folder that holds plancheck's packages (a checkout or site-packages), with its
#: separator: a report names plancheck's own files below it -- an adapter's source in a
#: library's traceback, a large call written beside a report inside the checkout -- so
#: that a report measured in one checkout names no path of that machine
CHECKOUT = str(Path(__file__).resolve().parents[2]) + os.sep


class ReportWriter:
    """Writes the run document to *path*: ``.json`` (the document itself), ``.html``
    (:func:`conformance.report.html.render_html`), anything else Markdown.

    The directory must exist and be writable: a typo in a path is a usage error
    (:class:`FileNotFoundError` here, :class:`PermissionError` for a directory it
    cannot write in), never a silently created directory tree.  Concurrent runs
    writing the same report each write a complete one (the last one wins).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.parent.is_dir():
            raise FileNotFoundError(f"{self.path}: the directory {self.path.parent} does not exist")
        if self.path.is_dir():
            raise IsADirectoryError(f"{self.path}: is a directory, not a report file")
        try:  # a directory we cannot write to is a usage error now, not a traceback later
            os.unlink(self._temporary()[1])
        except OSError as error:
            raise PermissionError(
                f"{self.path}: cannot write in {self.path.parent}: {error.strerror or error}"
            ) from None

    def _temporary(self) -> tuple[int, str]:
        """A new temp file beside the report, created exclusively (``O_EXCL``: never
        through a symlink, never one another run is writing)."""
        return tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp",
                                dir=self.path.parent)  # fmt: skip

    def write(self, document: Mapping[str, Any], table: ConformanceTable) -> None:
        """Write the document atomically: a unique temp file in the same directory,
        then ``os.replace`` (a symlink at *path* is replaced, never followed).
        OSError when the disk is full or the directory became unwritable."""
        suffix = self.path.suffix.lower()
        if suffix == ".json":
            text = json.dumps(document, indent=1, default=str)
        elif suffix == ".html":
            text = render_html(document)
        else:
            text = markdown_report(document, table)
        text = text.replace(CHECKOUT, "")  # plancheck's own files, relative to its root
        descriptor, name = self._temporary()
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(name, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(name)
            raise


def report_schema() -> dict[str, Any]:
    """The JSON Schema of the JSON report (``conformance/report.schema.json``)."""
    text = resources.files("conformance").joinpath("report.schema.json").read_text("utf-8")
    return json.loads(text)


def validate_report(document: Mapping[str, Any]) -> None:
    """Raise ``jsonschema.ValidationError`` unless *document* follows the report schema."""
    jsonschema.validate(document, report_schema())


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def merge_unique(entries: Iterable[Mapping[str, Any]], key: str = "test") -> list[dict[str, Any]]:
    seen: dict[Any, dict[str, Any]] = {}
    for entry in entries:
        seen.setdefault(entry.get(key), dict(entry))
    return list(seen.values())
