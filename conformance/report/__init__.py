"""Reports of a run: the failure report of a call, the conformance table, the file.

The public front of the reporting layer:

* **One call.**  :class:`FailureReport` and :func:`failure_report`
  (:mod:`conformance.findings.failure`); the exact JSON of a call and the
  ``plancheck repro`` line (:mod:`conformance.model.codec`); :func:`reproduce`,
  which every printed ``python:`` snippet calls.
* **One run.**  :class:`ConformanceTable` (:mod:`conformance.report.table`)
  aggregates per-item records per backend and operation; the deviation
  classes as Markdown lines (:mod:`conformance.report.markdown`).
* **The file.**  :class:`ReportWriter` (:mod:`conformance.report.document`)
  writes the run document as JSON (schema ``conformance/report.schema.json``,
  :func:`validate_report`), Markdown or HTML (:mod:`conformance.report.html`).
"""

from conformance.findings.failure import (
    FailureReport,
    failure_report,
    format_outcome,
    oracle_error_report,
    python_snippet,
    show_value,
)
from conformance.model.codec import (
    call_from_json,
    call_to_json,
    decode_call,
    decode_value,
    encode_call,
    encode_value,
    repro_command,
)
from conformance.report.document import REPORT_FORMAT, ReportWriter, report_schema, validate_report
from conformance.report.markdown import classes_table_markdown, markdown_report
from conformance.report.reproduce import reproduce, reproduce_file
from conformance.report.table import ConformanceTable

__all__ = [
    "REPORT_FORMAT",
    "ConformanceTable",
    "FailureReport",
    "ReportWriter",
    "call_from_json",
    "call_to_json",
    "classes_table_markdown",
    "decode_call",
    "decode_value",
    "encode_call",
    "encode_value",
    "failure_report",
    "format_outcome",
    "markdown_report",
    "oracle_error_report",
    "python_snippet",
    "report_schema",
    "repro_command",
    "reproduce",
    "reproduce_file",
    "show_value",
    "validate_report",
]
