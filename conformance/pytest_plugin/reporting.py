"""Reporting: the header, the run document, the report file and the terminal summary."""

from __future__ import annotations

import time
from typing import Any

from conformance.findings.authority import AUTHORITIES
from conformance.host.first_call import allowance_of
from conformance.model.versions import backend_version, plancheck_version
from conformance.pytest_plugin.fields import StateFields
from conformance.pytest_plugin.terminal_summary import header_lines, write_summary
from conformance.report import REPORT_FORMAT
from conformance.report.coverage_summary import excused_by
from conformance.report.markdown import authority_counts
from conformance.report.repro_files import attach_repro_files

__all__ = ["Reporting"]


class Reporting(StateFields):
    """The run document, the report file and the terminal (a mixin of
    :class:`~conformance.pytest_plugin.state.PlancheckState`)."""

    def pytest_sessionstart(self, session: Any) -> None:
        if self.is_worker or not self.labels:
            return
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            for line in header_lines(self):
                reporter.write_line(line)

    def document(self) -> dict[str, Any]:

        elapsed = time.time() - self.started
        classes = self.class_dicts()
        totals = {label: self.table.totals(label) for label in self.table.backends()}
        examples = sum(t["examples"] for t in totals.values())
        return {
            "format": REPORT_FORMAT,
            "complete": self.complete,
            "result": self.result,
            "started": self.started_text,
            "updated": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "elapsed_s": round(elapsed, 2),
            "examples_per_s": round(examples / elapsed, 1) if elapsed > 0 else None,
            "profile": self.profile.name,
            "plancheck_version": plancheck_version(),
            "seed": self.seed,
            "backends": self.labels,
            "backend_versions": {
                label: backend_version(self.backend(label)) for label in self.labels
            },
            # the library's whole configuration, recorded in its host (issue 28, item 4)
            "configuration": {
                label: getattr(self.backend(label), "configuration", None) for label in self.labels
            },
            "operations": self.ops,
            "options": {
                "unsupported": {label: sorted(self.unsupported_by(label)) for label in self.labels},
                "ulp_budgets": self.ulp_budgets,
                "timeout_s": self.timeout,
                "first_call_allowance_s": {b: allowance_of(self.backend(b)) for b in self.labels},
                "xfail": [d.selector for d in self.deviations],
                "judge": [a for a in AUTHORITIES if a in self.judged],
            },
            "collected_items": self.collected_items,
            "finished_items": self.finished,
            "totals": totals,
            "table": self.table.as_dict(),
            "failures": self.failures,
            "crashes": self.crashes,
            "oracle_errors": self.oracle_errors,
            "xfailed": self.xfailed,
            "deviation_classes": classes,
            "not_supported": {label: dict(c) for label, c in self.not_supported.items()},
            "not_measured": {
                label: self.not_measured_entries(label) for label in self.not_measured
            },
            "not_judged": {label: dict(c) for label, c in self.not_judged.items()},
            "authority_counts": {
                label: authority_counts([c for c in classes if c["backend"] == label])
                for label in self.table.backends()
            },
            "stale_xfail": self.stale_deviations(),
            "respelled_xfail": self.respelled_deviations(),
            "errors": self.errors,
            "coverage": self.coverage_summary,
        }

    def class_dicts(self) -> list[dict[str, Any]]:
        """The run's deviation classes as report entries, each example whose repro line
        is longer than :data:`~conformance.findings.failure.REPRO_LIMIT` with its call
        in a file beside the report (:func:`~conformance.report.repro_files.attach_repro_files`;
        the failures, known ones and crashes too)."""
        classes = [c.as_dict() for c in self.deviation_classes()]
        examples = [c["example"] for c in classes] + self.failures + self.xfailed + self.crashes
        try:
            attach_repro_files(examples, self.report_path)
        except OSError as error:  # the run goes on; the session ends with the reason
            self.report_error = f"a large call could not be written beside the report: {error}"
        return classes

    def excused_by(self, label: str) -> list[str]:
        """What excused backend *label*'s coverage pairs (the coverage line names it)."""
        return excused_by(
            self.not_supported.get(label) or (),
            sum((self.not_measured.get(label) or {}).values()),
            sum((self.not_judged.get(label) or {}).values()),
        )

    def not_measured_entries(self, label: str) -> list[dict[str, Any]]:
        """The calls of backend *label* its adapter could not map, per operation and
        message: ``operation``, ``message``, ``count``."""
        counts: dict[tuple[str, str], int] = self.not_measured.get(label) or {}
        return [
            {"operation": operation, "message": message, "count": count}
            for (operation, message), count in sorted(counts.items())
        ]

    def _write(self) -> None:
        """Write every report file (``--plancheck-report``, repeatable) from one document."""
        if not self._writers:
            return
        document = self.document()
        for writer in self._writers:
            self.writing = writer.path  # named by the message when the write fails
            writer.write(document, self.table)

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: Any) -> None:

        write_summary(self, terminalreporter, exitstatus)
