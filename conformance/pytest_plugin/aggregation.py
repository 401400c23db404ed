"""Aggregation: every item's record, sent by the worker that ran it, on the controller.

A worker attaches its checker's record to the item's report as JSON text
(pytest-xdist's channel cannot carry every Python value); the controller adds
it to the conformance table, the deviation classes, the failure, crash and
oracle-error lists, the not-supported counts and the coverage rows, and
decides the run's result from them.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from typing import Any

import pytest

from conformance.findings.authority import fails_the_run
from conformance.findings.deviations import Deviation
from conformance.findings.finding import group
from conformance.findings.refusals import former_class
from conformance.pytest_plugin.fields import StateFields

__all__ = ["CHECKER", "COVERAGE_KINDS", "Aggregation"]

#: where an item keeps its Checker (the record is read after the call)
CHECKER = pytest.StashKey[Any]()

#: the checks whose calls count towards coverage
COVERAGE_KINDS = ("boundary", "generated", "invalid")


class Aggregation(StateFields):
    """What the controller makes of every finished item's record (a mixin of
    :class:`~conformance.pytest_plugin.state.PlancheckState`)."""

    def known_reason(
        self,
        label: str,
        operation: str,
        plan: str,
        cls: str,
        raised: str | None = None,
        authority: str | None = None,
    ) -> str | None:
        """The reason of the first known deviation covering a class (whose calls raised
        *raised*, an unexpected exception's; resting on *authority*), or None."""
        for deviation in self.deviations:
            if deviation.covers(label, operation, plan, cls, raised, authority):
                return deviation.reason or deviation.selector
        return None

    def deviation_for(self, label: str, plan: Any) -> Deviation | None:
        return next((d for d in self.deviations if d.matches(label, plan)), None)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: Any, call: Any) -> Any:
        report = yield
        checker = item.stash.get(CHECKER, None)
        if checker is not None and call.when == "call":
            record = checker.record()
            record["xfail"] = getattr(checker, "xfail", None)
            if getattr(checker, "error_text", None):
                record["error_text"] = checker.error_text
            # as JSON text: pytest-xdist's channel (execnet) cannot carry every Python
            # value a record holds, e.g. a weak int below -2**31 such as -(2**64)
            report.plancheck = json.dumps(record)
        return report

    def pytest_runtest_logreport(self, report: Any) -> None:
        if self.is_worker:
            return
        record = getattr(report, "plancheck", None)
        if isinstance(record, str):
            record = json.loads(record)
        if record is None:
            if report.failed and report.when in ("setup", "teardown", "???"):
                case = self.case_of(report.nodeid)
                if case is None:
                    return
                record = {"backend": case.label, "operation": case.plan.operation,
                          "plan": case.plan.describe(), "kind": case.kind,
                          "test": report.nodeid, "status": "error"}  # fmt: skip
                self.errors.append(f"{report.nodeid}: {report.when} failed")
            else:
                return
        if hasattr(report, "wasxfail"):  # every class known: a crash or hang too
            outcome = "xfailed"
        elif record.get("status") == "crash":
            outcome = "crashed"
        elif record.get("status") == "error":
            outcome = "error"
        else:
            outcome = report.outcome
        self.table.add(record, outcome)
        self.finished += 1
        if record.get("status") == "error" and record.get("error_text"):
            self.errors.append(f"{report.nodeid}: {record['error_text']}")
        failures = record.get("failures", [])
        for entry in record.get("classes", []):
            entry = dict(entry, known=self.known_reason(
                entry["backend"], entry["operation"], entry["plan"], entry["class"],
                entry.get("raised"), entry.get("authority")))  # fmt: skip
            entry["judged"] = fails_the_run(entry["class"], entry.get("authority"), self.judged)
            self.class_records.append(entry)
        for message, count in (record.get("not_measured") or {}).items():
            self.not_measured.setdefault(record["backend"], Counter())[
                (record["operation"], message)
            ] += count
        for why, count in (record.get("not_judged") or {}).items():
            self.not_judged.setdefault(record["backend"], Counter())[why] += count
        if "refused_features" in record:
            refused, supported = self.refusal_evidence.setdefault(
                (record["backend"], record["operation"]), (set(), set())
            )
            refused.update(record["refused_features"])
            supported.update(record.get("supported_features", ()))
        skipped = record.get("not_supported") or {}
        if skipped:
            self.not_supported.setdefault(record["backend"], Counter()).update(skipped)
        if outcome == "crashed":
            self.crashes.extend(failures)
        elif outcome == "xfailed":
            self.xfailed.extend(dict(f, xfail=record.get("xfail")) for f in failures[:1])
        elif outcome == "failed":
            self.failures.extend(failures[:3])
        self.oracle_errors.extend(record.get("oracle_errors", [])[:3])
        coverage = record.get("coverage")
        if coverage and record.get("kind") in COVERAGE_KINDS:
            row = self.coverage_rows.setdefault(record["backend"], {}).setdefault(
                record["plan"], [0, Counter(), Counter()]
            )
            row[0] += coverage["calls"]
            row[1].update(coverage["hits"])
            row[2].update(coverage.get("result_hits", {}))
            skipped_row = self.coverage_skipped.setdefault(record["backend"], {}).setdefault(
                record["plan"], [0, Counter(), Counter()]
            )
            skipped_row[0] += coverage.get("skipped", 0)
            skipped_row[1].update(coverage.get("skipped_hits", {}))
            skipped_row[2].update(coverage.get("skipped_result_hits", {}))
        self._write()

    def found_nonconformance(self) -> bool:
        """Whether some finished item found a new deviation class (or crashed, hung)."""
        statuses = {row.status for b in self.table.backends() for _, row in self.table.rows(b)}
        return bool(statuses & {"FAIL", "TIMEOUT", "CRASH"})

    def _result(self, status: int) -> str:
        """conforms / not conforming / oracle errors / failed / pytest exit status N."""
        if status == 0:
            return "conforms"
        if status == pytest.ExitCode.INTERRUPTED:
            return "not conforming (interrupted)" if self.found_nonconformance() else (
                "incomplete (interrupted)"
            )  # fmt: skip
        if status == pytest.ExitCode.USAGE_ERROR and self.respelled_deviations():
            return "usage error (known deviations spelt as classes were spelt before)"
        if status != 1:
            return f"pytest exit status {status}"
        if self.stale_fails() and not self.found_nonconformance():
            return "stale known deviations (strict)"
        statuses = {row.status for b in self.table.backends() for _, row in self.table.rows(b)}
        if (
            statuses - {"conforms", "xfail", "differs", "not measured", "ORACLE ERROR"}
            or self._coverage_blames_backend()
            or self.new_classes_found()
        ):
            return "not conforming"
        if "ORACLE ERROR" in statuses or self.oracle_errors:
            return "oracle errors"
        return "failed"  # something outside the suite failed

    def stale_deviations(self) -> list[dict[str, str]]:
        """Listed deviations that covered none of the classes found (of selected plans),
        but for those :meth:`respelled_deviations` names anew."""
        respelled = {entry["selector"] for entry in self.respelled_deviations()}
        covered = self.covered_deviations()
        stale = []
        for deviation in self.deviations:
            matched = [c for c in self.collected.values() if deviation.matches(c.label, c.plan)]
            if matched and deviation not in covered and deviation.selector not in respelled:
                stale.append({"selector": deviation.selector, "reason": deviation.reason})
        return stale

    def respelled_deviations(self) -> list[dict[str, str]]:
        """Listed deviations spelt as a class found in this run was spelt before
        unexpected exceptions were named after refused features only
        (:mod:`conformance.findings.refusals`): an entry ``OP@FEATURE`` that covered
        nothing, while a ``raises-<Exception>`` class of OP holds calls whose first
        feature is FEATURE.  Each is a usage error naming the class's spelling now
        (``selector``, ``now``, ``reason``): the entry would otherwise go stale
        silently while the class it meant fails the run as new."""
        found = []
        covered = self.covered_deviations() if self.deviations else set()
        for deviation in self.deviations:
            if deviation.cls is None or deviation in covered:
                continue
            for record in self.class_records:
                formerly = {former_class(f) for f in record.get("features_needed") or ()}
                if deviation.cls in formerly and deviation.covers(
                    record["backend"], record["operation"], record["plan"], deviation.cls
                ):
                    now = dataclasses.replace(deviation, cls=record["class"]).selector
                    found.append({"selector": deviation.selector, "now": now,
                                  "reason": deviation.reason})  # fmt: skip
                    break
        return found

    def stale_fails(self) -> bool:
        """Whether the run fails on listed deviations that no longer fail: strict mode
        (``--plancheck-xfail-strict true``, ``plancheck_xfail_strict = true``, ``plancheck
        run --xfail-strict``), as pytest's ``xfail_strict`` fails an xpass.  Only a
        finished run judges staleness: an interrupted or collect-only one has not
        met the deviations it did not reach."""
        if not self.config.option.plancheck_xfail_strict:
            return False
        if self.config.option.collectonly or self.interrupted():
            return False
        return bool(self.stale_deviations())

    def deviation_classes(self) -> list[Any]:
        """The run's deviation classes (:func:`conformance.findings.finding.group`)."""

        return group(self.class_records, self.refusal_evidence, self.known_reason)

    def new_classes_found(self) -> bool:
        """Whether the run's classes, named with every check's evidence, include one of a
        judged authority that no known deviation covers (an item may have been an
        expected failure under the name its own check gave a class)."""
        return any(found.known is None and found.judged for found in self.deviation_classes())

    def covered_deviations(self) -> set[Deviation]:
        """The listed deviations that cover some class of the run (each class counts for
        the first deviation covering it)."""
        covered = set()
        for found in self.deviation_classes():
            for plan in found.plans:
                for deviation in self.deviations:
                    if deviation.covers(
                        found.backend, found.operation, plan, found.cls, found.raised,
                        found.authority,
                    ):  # fmt: skip
                        covered.add(deviation)
                        break
        return covered
