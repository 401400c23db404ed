"""Coverage of a run: a plan whose every class-hitting check ran must hit every
applicable class (:mod:`conformance.report.coverage_summary`); a gap fails the run.

Collecting is not a run (``--collect-only``/``--co``): no check ran, so there is no
coverage verdict and the session keeps pytest's own exit status.  Nor is a run
stopped by Ctrl-C: what did not run is not a gap of the backend's (the summary
says the run was interrupted; :mod:`conformance.pytest_plugin.terminal_summary`).
"""

from __future__ import annotations

from typing import Any

from conformance.judge.checks import applies
from conformance.pytest_plugin.aggregation import COVERAGE_KINDS
from conformance.pytest_plugin.fields import StateFields
from conformance.report.coverage_summary import summarise

__all__ = ["CoverageCheck"]


class CoverageCheck(StateFields):
    """Whether every applicable class was hit, per backend (a mixin of
    :class:`~conformance.pytest_plugin.state.PlancheckState`)."""

    def _coverage(self) -> None:
        """Fill ``coverage_summary`` per backend; a gap clears ``coverage_complete``."""
        if self.config.option.collectonly or self.interrupted():
            return
        order = {p: i for i, p in enumerate(self.all_plans)}
        for label in self.labels:
            selected: dict[Any, set[str]] = {}
            for case in self.collected.values():
                if case.label == label and case.kind in COVERAGE_KINDS:
                    selected.setdefault(case.plan, set()).add(case.kind)
            # a plan is held to full coverage only when every check of it that
            # hits classes was selected: `-k generated` or one node id runs a
            # part on purpose, and its gaps are not the backend's
            required = sorted(
                (plan for plan, kinds in selected.items()
                 if all(kind in kinds for kind in COVERAGE_KINDS if applies(kind, plan))),
                key=order.__getitem__,
            )  # fmt: skip
            self.partially_selected[label] = len(selected) - len(required)
            if not required:
                continue
            summary = summarise(
                required, self.coverage_rows.get(label, {}), self.coverage_skipped.get(label, {})
            )
            summary["excused_by"] = self.excused_by(label)
            self.coverage_summary[label] = summary
            if summary["missing"]:
                self.coverage_complete = False

    #: set when pytest reports a KeyboardInterrupt (Ctrl-C, or SIGTERM through
    #: conformance.judge.runner.watch_interrupts)
    keyboard_interrupt = False

    def pytest_keyboard_interrupt(self, excinfo: Any) -> None:
        self.keyboard_interrupt = True

    def interrupted(self) -> bool:
        """Whether the session was stopped by Ctrl-C (SIGINT) or SIGTERM."""
        return self.keyboard_interrupt

    def _coverage_blames_backend(self) -> bool:
        """Coverage gaps other than those of operations the oracle failed on."""
        excused = {
            (label, op)
            for label in self.table.backends()
            for op, row in self.table.rows(label)
            if row.status == "ORACLE ERROR"
        }
        return any(
            (label, line.partition("(")[0]) not in excused
            for label, summary in self.coverage_summary.items()
            for line in summary["missing"]
        )
