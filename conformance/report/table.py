"""The conformance table: per backend and operation, what a run measured.

:class:`ConformanceTable` aggregates the per-item records of a run (plans,
examples run, pass, fail, corpus cases, the largest ULP distance seen, and the
items that failed, were known deviations, timed out, crashed or met an oracle
error) and prints the per-operation table with one verdict line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from conformance.report.terminal_table import ALARMING_STYLES, render_table

__all__ = ["ConformanceTable", "counted", "failing_calls"]


_COUNTERS = ("examples", "passed", "failed", "corpus_cases", "corpus_failed")
_EVENTS = ("failed_items", "xfailed_items", "differing_items", "timeouts", "crashes",
           "oracle_errors", "errors")  # fmt: skip


@dataclass
class _Row:
    plans: set[str] = field(default_factory=set)
    items: int = 0
    examples: int = 0
    passed: int = 0
    failed: int = 0
    corpus_cases: int = 0
    corpus_failed: int = 0
    max_ulp: int = 0
    failed_items: int = 0
    xfailed_items: int = 0
    #: items whose only classes rest on authorities the run does not judge (``--judge``)
    differing_items: int = 0
    #: calls the adapter could not map onto its library (backends.errors.NotMeasured)
    not_measured: int = 0
    timeouts: int = 0
    crashes: int = 0
    oracle_errors: int = 0
    errors: int = 0

    @property
    def status(self) -> str:
        if self.crashes:
            return "CRASH"
        if self.timeouts:
            return "TIMEOUT"
        if self.oracle_errors and not self.failed_items:
            return "ORACLE ERROR"
        if self.failed_items or self.errors:
            return "FAIL"
        if self.xfailed_items:
            return "xfail"
        if self.differing_items:
            return "differs"
        if self.not_measured and not (self.examples or self.corpus_cases):
            return "not measured"
        return "conforms"

    def as_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in asdict(self).items() if k != "plans"}
        data["plans"] = len(self.plans)
        data["status"] = self.status
        return data


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``1 plan``, ``3 plans``; *plural* where adding an s is wrong (``deviation classes``)."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def failing_calls(examples: int, corpus: int) -> str:
    """``N failing calls (E examples, C corpus cases)``: the one spelling of a failure
    count in calls, everywhere a run prints one."""
    total = examples + corpus
    if not total:
        return "0 failing calls"
    parts = counted(examples, "example")
    if corpus:
        parts += f", {counted(corpus, 'corpus case')}"
    return f"{counted(total, 'failing call')} ({parts})"


#: the row statuses of an operation that fails nothing (``differs``: only differences from
#: authorities the run does not judge; ``not measured``: the adapter could map no call)
_CONFORMING = ("conforms", "xfail", "differs", "not measured")


def _conforms(known: int) -> str:
    if not known:
        return "every operation conforms"
    return f"conforms except {known} known deviation class{'es' if known != 1 else ''}"


class ConformanceTable:
    """Per backend and operation: plans, examples run, pass, fail, max ULP seen."""

    def __init__(self) -> None:
        self._rows: dict[str, dict[str, _Row]] = {}

    def _row(self, backend: str, operation: str) -> _Row:
        return self._rows.setdefault(backend, {}).setdefault(operation, _Row())

    def add(self, record: Mapping[str, Any], outcome: str = "passed") -> None:
        """Add one finished item: its plancheck *record* and pytest *outcome*
        (``passed``, ``failed``, ``xfailed``, ``crashed``, ``error``).  An item whose
        every class is a known deviation is ``xfailed``, a crash or a hang too: it
        counts as an expected failure, never as a crash or a timeout."""
        row = self._row(record["backend"], record["operation"])
        if record.get("plan"):
            row.plans.add(record["plan"])
        row.items += 1
        for name in _COUNTERS:
            setattr(row, name, getattr(row, name) + int(record.get(name, 0)))
        row.max_ulp = max(row.max_ulp, int(record.get("max_ulp") or 0))
        row.not_measured += sum(int(n) for n in (record.get("not_measured") or {}).values())
        status = record.get("status", "")
        if outcome == "crashed" or (status == "crash" and outcome != "xfailed"):
            row.crashes += 1
        elif status == "timeout" and outcome != "xfailed":
            row.timeouts += 1
        elif status == "oracle-error":
            row.oracle_errors += 1
        elif status == "differs" and outcome == "passed":
            row.differing_items += 1
        elif outcome == "xfailed":
            row.xfailed_items += 1
        elif outcome == "failed":
            row.failed_items += 1
        elif outcome == "error":
            row.errors += 1

    def backends(self) -> list[str]:
        return list(self._rows)

    def rows(self, backend: str) -> list[tuple[str, _Row]]:
        return sorted(self._rows.get(backend, {}).items())

    def conforms(self) -> bool:
        return all(row.status in _CONFORMING for b in self._rows for _, row in self.rows(b))

    def as_dict(self) -> dict[str, Any]:
        return {
            backend: {op: row.as_dict() for op, row in self.rows(backend)} for backend in self._rows
        }

    def totals(self, backend: str) -> dict[str, Any]:
        rows = [row for _, row in self.rows(backend)]
        return {
            "operations": len(rows),
            "plans": sum(len(r.plans) for r in rows),
            "examples": sum(r.examples for r in rows),
            "passed": sum(r.passed for r in rows),
            "failed": sum(r.failed for r in rows),
            "corpus_cases": sum(r.corpus_cases for r in rows),
            "corpus_failed": sum(r.corpus_failed for r in rows),
            "failed_items": sum(r.failed_items for r in rows),
            "max_ulp": max((r.max_ulp for r in rows), default=0),
            "not_conforming": [op for op, r in self.rows(backend) if r.status not in
                               _CONFORMING],
        }  # fmt: skip

    _HEADER = ("operation", "plans", "examples", "pass", "fail", "corpus", "max ULP", "result")

    def _cells(self, backend: str) -> list[tuple[str, ...]]:
        cells: list[tuple[str, ...]] = []
        for op, row in self.rows(backend):
            corpus = f"{row.corpus_cases}" + (f" ({row.corpus_failed} failing)" if row.corpus_failed
                                             else "")  # fmt: skip
            cells.append(
                (op, str(len(row.plans)), str(row.examples), str(row.passed), str(row.failed),
                 corpus if row.corpus_cases else "-", str(row.max_ulp), row.status)
            )  # fmt: skip
        return cells

    def format_text(
        self,
        backend: str,
        complete: bool = True,
        known: int = 0,
        colour: bool = False,
        classes: int | None = None,
        differences: int = 0,
    ) -> str:
        """The per-operation table of *backend* as fixed-width text (drawn by rich,
        :mod:`conformance.report.terminal_table`), then one verdict line.

        An incomplete run (interrupted) never claims that every operation
        conforms, and neither does a run whose only failures are *known*
        deviation classes: it ``conforms except N known deviation classes``.
        Every count names its unit: the ``fail`` column counts failing
        examples (generated and boundary calls), the corpus column failing
        corpus cases, and the verdict line their sum as failing calls, then the
        number of deviation *classes* when it is given.  *colour* draws alarming
        results in colour (ANSI codes: a terminal only).
        """
        table = render_table(
            self._HEADER, self._cells(backend), right=range(1, len(self._HEADER) - 1),
            styles=ALARMING_STYLES, colour=colour,
        )  # fmt: skip
        return f"{table}\n{self.verdict_line(backend, complete, known, classes, differences)}"

    def verdict_line(
        self, backend: str, complete: bool = True, known: int = 0, classes: int | None = None,
        differences: int = 0,
    ) -> str:  # fmt: skip
        """The verdict under the table: what was checked, the failing calls (examples
        plus corpus cases) and classes, and the verdict itself; *differences*: the
        classes of authorities the run does not judge (they never fail it)."""
        total = self.totals(backend)
        checked = (
            f"{counted(total['operations'], 'operation')}, {counted(total['plans'], 'plan')}: "
            f"{counted(total['examples'], 'example')} and "
            f"{counted(total['corpus_cases'], 'corpus case')} checked, "
            f"{failing_calls(total['failed'], total['corpus_failed'])}"
        )
        if classes is not None and (classes or total["failed"] or total["corpus_failed"]):
            checked += f" in {counted(classes, 'deviation class', 'deviation classes')}"
        if not total["not_conforming"]:
            verdict = (
                _conforms(known)
                if complete
                else "INCOMPLETE (interrupted): no verdict; nothing non-conforming so far"
            )
        else:
            verdict = f"NOT CONFORMING: {', '.join(total['not_conforming'])}" + (
                "" if complete else " (INCOMPLETE: interrupted)"
            )
        unmeasured = [op for op, row in self.rows(backend) if row.status == "not measured"]
        if unmeasured:
            verdict += f"; not measured: {', '.join(unmeasured)}"
        if differences:
            verdict += (
                f" ({counted(differences, 'difference')} from authorities not judged, "
                "reported only)"
            )
        return f"{checked}; {verdict}"

    def to_markdown(self, backend: str) -> str:
        header = "| " + " | ".join(self._HEADER) + " |"
        rule = "| --- | " + " | ".join("---:" for _ in self._HEADER[1:-1]) + " | --- |"
        rows = ["| " + " | ".join(f"`{c[0]}`" if i == 0 else c[i] for i in range(len(c))) + " |"
                for c in self._cells(backend)]  # fmt: skip
        return "\n".join([header, rule, *rows])
