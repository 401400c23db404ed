"""The checker: judges the calls of one (backend, plan, check) and keeps what it saw.

A :class:`Checker` runs each call on the backend (:mod:`conformance.judge.runner`),
classifies every disagreement into deviation classes (:mod:`conformance.findings`),
records each class once with its count and smallest example, and raises at the end:
:class:`NonConformance` (the backend is wrong), :class:`HungCall` (a call ran past
the timeout or killed its process: a search stops at once, no shrinking; a deterministic
list goes on and raises it at the end) or :class:`OracleFailed`
(plancheck's own oracle failed).
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from backends.errors import NotMeasured
from conformance.classes.result import result_classes_hit
from conformance.findings.authority import (
    AUTHORITIES,
    authority_fields,
    fails_the_run,
    unsourced_rule,
)
from conformance.findings.failure import FailureReport, failure_report, oracle_error_report
from conformance.findings.finding import Finding, findings_of
from conformance.findings.host_classes import HOST_RULES
from conformance.findings.refusals import refusal_class, refusal_evidence
from conformance.generate.families import classes_hit
from conformance.host.client import BackendHost
from conformance.judge.profiles import PROFILES, Profile
from conformance.judge.runner import (
    OracleError,
    Outcome,
    Problem,
    expectation_of,
    run_call,
)
from conformance.judge.stateful import record_earlier
from conformance.model.calls import Call
from conformance.model.capabilities import features_of
from conformance.model.sanitize import terminal_text
from oracle import DType, OperationPlan, binary32
from oracle.expectation import Conformance

__all__ = ["HOST_RULES", "Checker", "HungCall", "NonConformance", "OracleFailed", "host_findings"]


# ---------------------------------------------------------------------------
# Failures
# ---------------------------------------------------------------------------


class NonConformance(AssertionError):
    """The backend does not conform; the message is the full failure report."""

    def __init__(self, report: FailureReport, more: str = "") -> None:
        super().__init__(report.text() + more)
        self.report = report


class HungCall(BaseException):
    """A backend call ran past the timeout or killed its host: a hypothesis search stops
    at once; a deterministic list of calls goes on with a fresh host and raises it at the
    end (:attr:`Checker.stopped`, ``conformance.judge.checks``).

    A BaseException, so hypothesis does not shrink it (every retry of a hung
    call would hang again).
    """

    def __init__(self, report: FailureReport) -> None:
        super().__init__(report.text())
        self.report = report


class OracleFailed(Exception):
    """One or more oracle errors in a check that found no backend failure."""

    def __init__(self, reports: list[FailureReport]) -> None:
        more = f"\n(and {len(reports) - 1} more oracle errors)" if len(reports) > 1 else ""
        super().__init__(reports[0].text() + more)
        self.reports = reports


def host_findings(outcome: Outcome) -> list[Finding]:
    """The findings only a backend host observes: a crash of the host, and the classes of
    :attr:`~conformance.judge.runner.Outcome.environment`."""
    call = outcome.call
    plan_object = getattr(outcome.expectation, "plan", None) or call.plan
    plan = plan_object.describe() if plan_object is not None else "(unknown)"
    found = []
    if outcome.problem == Problem.CRASH:
        found.append(Finding(call.operation, plan, "crash", "crash",
                             "the backend must not kill its process"))  # fmt: skip
    for cls in outcome.environment:
        family = cls.split(":", 1)[0]
        kind = "aliasing" if family.startswith("result-") else "environment"
        found.append(Finding(call.operation, plan, kind, cls, HOST_RULES.get(family, "")))
    return found


def composed_operations(backend: Any) -> dict[str, str]:
    """The operations *backend* composes from several library operations (operation ->
    how): a host's ``composed`` field, an in-process backend's ``composed_operations``."""
    if isinstance(backend, BackendHost):
        with contextlib.suppress(Exception):
            return backend.composed
        return {}
    declared = getattr(backend, "composed_operations", None)
    if not isinstance(declared, Mapping):
        return {}
    return {str(k): str(v) for k, v in declared.items()}


def _signatures(entry: Mapping[str, Any]) -> dict[str, list[list[str]]]:
    """``{"features_needed": [...]}``: the feature sets of a ``raises-`` entry's calls
    (the run's grouping weighs them against every check's evidence); empty for
    other entries."""
    found = sorted(sorted(features) for features in entry.get("by_features") or ())
    return {"features_needed": found} if found else {}


def _call_size(call: Call) -> int:
    """How big a call is (tensor elements plus arguments): examples prefer small calls."""
    return sum(getattr(a, "size", 0) for a in call.args) + len(call.args)


# ---------------------------------------------------------------------------
# The checker: runs calls, keeps the statistics of one (backend, plan, check)
# ---------------------------------------------------------------------------


@dataclass
class Checker:
    """Judges calls of one *plan* on one *backend* and counts what it saw.

    *label* names the backend in reports (the ``--plancheck-backend`` text);
    *ulp_budgets* maps operation names to a ULP budget for correctly rounded
    operations; *timeout* bounds each backend call (seconds, None: none);
    *inflight* (optional) is told every call before it runs, so a crash can
    be traced to its call.
    """

    backend: Any
    label: str
    plan: OperationPlan
    kind: str = ""
    profile: Profile = PROFILES["ci"]
    ulp_budgets: Mapping[str, int] = field(default_factory=dict)
    timeout: float | None = 10.0
    shrink: bool = True
    test: str = ""
    inflight: Any = None
    deviation: Any = None  #: the first known deviation (plugin.Deviation) matching the plan
    xfail: str | None = None  #: set when a failure was turned into an expected failure
    cache_dir: str | None = None  #: where corpus references may be cached on disk
    #: capability features the backend does not support: calls needing one are not judged
    unsupported: frozenset[str] = frozenset()
    #: ``known(finding) -> reason | None``: the known deviation covering a finding
    known: Callable[[Finding], str | None] | None = None
    #: the traceback of plancheck's own failure inside the check (the plugin reports it)
    error_text: str = ""
    #: operation -> how the adapter composes it from several library operations (the
    #: backend's ``composed_operations``): its classes are marked as the composition's
    composed: Mapping[str, str] = field(default_factory=dict)
    #: (message) -> calls the adapter refused with backends.errors.NotMeasured: not judged,
    #: not classes of the library
    not_measured: Counter = field(default_factory=Counter)
    #: the authorities judged (``--judge``): a class of another is a difference that does
    #: not fail the check
    judged: frozenset[str] = frozenset(AUTHORITIES)
    #: why -> calls not judged because the rule they break rests on no source
    not_judged: Counter = field(default_factory=Counter)
    #: statistics
    examples: int = 0
    passed: int = 0
    failed: int = 0
    corpus_cases: int = 0
    corpus_failed: int = 0
    max_ulp: int = 0
    failures: list[FailureReport] = field(default_factory=list)
    oracle_errors: list[FailureReport] = field(default_factory=list)
    status: str = "not run"
    calls: int = 0
    hits: Counter = field(default_factory=Counter)
    #: result classes (:mod:`conformance.classes.result`) hit by the judged calls
    result_hits: Counter = field(default_factory=Counter)
    killing_call: Call | None = None
    started: float = field(default_factory=time.perf_counter)
    #: feature -> calls not judged because they need it
    not_supported: Counter = field(default_factory=Counter)
    #: boundary classes hit by the calls not judged (excused in the coverage matrix)
    skipped_hits: Counter = field(default_factory=Counter)
    #: result classes of the calls not judged (excused in the coverage matrix)
    skipped_result_hits: Counter = field(default_factory=Counter)
    #: (plan, class) -> the class record: kind, rule, count, size, example report
    classes: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    #: the calls of a deterministic list that hung or crashed, the check going on after
    #: each (``conformance.judge.checks``): the first is raised when the check ends
    stopped: list[HungCall] = field(default_factory=list)
    _counting: bool = True
    _seen: set[Call] = field(default_factory=set)
    #: the counted calls judged conforming (a later pair of calls may fail one of them)
    _passed: set[Call] = field(default_factory=set)
    #: the counted calls a result was due for, and those of them that raised instead:
    #: the evidence of which features the backend refused (:meth:`name_refusals`)
    _due: list[Call] = field(default_factory=list)
    _raised: set[Call] = field(default_factory=set)

    def __post_init__(self) -> None:
        if not self.composed:
            self.composed = composed_operations(self.backend)

    @property
    def ulp_budget(self) -> int:
        return int(self.ulp_budgets.get(self.plan.operation, 0))

    # -- one call ---------------------------------------------------------------

    def run(self, call: Call) -> Outcome:
        """Run *call*; OracleError when the oracle fails (the backend is not judged).

        *inflight* is told the call when the backend's part starts and None when it
        is over (the plugin's watchdog is armed only in between).
        """
        try:
            expectation = expectation_of(call)
        except Exception as error:
            raise OracleError(call, error) from error
        if self.inflight is not None:
            self.inflight(self.test, call)
        try:
            outcome = run_call(self.backend, call, self.ulp_budget, timeout=self.timeout,
                               expectation=expectation)  # fmt: skip
        finally:
            if self.inflight is not None:
                self.inflight(self.test, None)
        record_earlier(self, host_findings)  # a pair's classes (conformance.judge.stateful)
        return outcome

    def _record_coverage(self, call: Call, outcome: Outcome) -> None:
        """Count the input classes of *call* and the result classes of its expected value."""
        try:
            classes = classes_hit(call)
        except Exception as error:
            raise OracleError(call, error, "conformance.generate.families.classes_hit") from error
        try:
            results = call._cache.get("result_classes")  # the same call on another backend
            if results is None:
                results = call._cache["result_classes"] = result_classes_hit(
                    call, outcome.expectation
                )
        except Exception as error:
            where = "conformance.classes.result.result_classes_hit"
            raise OracleError(call, error, where) from error
        self.calls += 1
        self.hits.update(c.name for c in classes)
        self.result_hits.update(c.name for c in results)

    def _seen_ulp(self, outcome: Outcome) -> int:
        """The largest ULP distance from the reference in *outcome* (exact and correctly
        rounded results; a FLOATING accumulation is judged by its interval only)."""
        if not outcome.ok:
            return max((m.ulp for m in outcome.verdict.mismatches if m.ulp is not None), default=0)
        actual, expectation = outcome.actual, outcome.expectation
        if (
            actual is None
            or actual.dtype is not DType.Float32
            or not self.ulp_budget
            or expectation.conformance is not Conformance.CORRECTLY_ROUNDED
            or expectation.result is None
        ):
            return 0  # a conforming exact or budget-free result is at distance 0
        return max(
            (
                binary32.ulp_distance(e, a) or 0
                for e, a in zip(expectation.result.values, actual.values)
            ),
            default=0,
        )

    def supports(self, call: Call) -> bool:
        """Whether *call* is judged; when it needs an unsupported feature it is
        counted under each such feature instead (once per distinct call)."""
        if not self.unsupported:
            return True
        needed = features_of(call) & self.unsupported
        if not needed:
            return True
        if self._counting and call not in self._seen:
            self._seen.add(call)
            self.not_supported.update(needed)
            self._excuse(call)
        return False

    def _excuse(self, call: Call) -> None:
        """Count the classes *call* hits as excused in the coverage matrix (a call that
        is not judged: unsupported, not measured or resting on no source)."""
        with contextlib.suppress(Exception):  # coverage of a call not judged: best effort
            self.skipped_hits.update(c.name for c in classes_hit(call))
        with contextlib.suppress(Exception):
            self.skipped_result_hits.update(c.name for c in result_classes_hit(call))

    def sourced(self, call: Call) -> bool:
        """Whether *call* rests on a rule some source supports; a call that must raise
        only by a rule none does (:func:`~conformance.findings.authority.unsourced_rule`)
        is counted under that rule, not judged."""
        why = unsourced_rule(call)
        if why is None:
            return True
        if self._counting and call not in self._seen:
            self._seen.add(call)
            self.not_judged[why] += 1
            self._excuse(call)
        return False

    def judge(self, call: Call) -> list[Finding]:
        """Run and count *call*; its findings (empty when it conforms or is not
        judged).  Every finding is recorded in :attr:`classes`; a call that
        timed out raises :class:`HungCall` after it is recorded.

        While not counting (hypothesis shrinking) a call only improves the
        examples of classes already recorded: it adds no class and no count.
        """
        if not self.supports(call) or not self.sourced(call):
            return []
        outcome = self.run(call)
        counting = self._counting and call not in self._seen
        if isinstance(outcome.raised, NotMeasured):
            if counting:
                self._seen.add(call)
                self.not_measured[terminal_text(str(outcome.raised), 300)] += 1
                self._excuse(call)
            return []
        if counting:
            self._seen.add(call)
            self._record_coverage(call, outcome)
            self.examples += 1
            if outcome.expectation.error is None:
                self._due.append(call)
        self.max_ulp = max(self.max_ulp, self._seen_ulp(outcome))
        if outcome.ok:
            if counting:
                self.passed += 1
                self._passed.add(call)
            return []
        findings = findings_of(outcome) + host_findings(outcome)
        if counting:
            self.failed += 1
            if any(f.kind == "unexpected exception" for f in findings):
                self._raised.add(call)
        self.killing_call = self.killing_call or call
        report = self.record_findings(outcome, findings, counting)
        if outcome.timed_out or outcome.problem == Problem.CRASH:
            raise HungCall(report or failure_report(outcome, self.label, self.test))
        return findings

    def fail_passed(self, call: Call) -> None:
        """Count *call*, judged conforming when it returned, as failing: a later call
        showed that its result changed or is shared (:mod:`conformance.judge.stateful`)."""
        if call in self._passed:
            self._passed.discard(call)
            self.passed -= 1
            self.failed += 1

    def record_findings(
        self, outcome: Outcome, findings: list[Finding], counting: bool = True
    ) -> FailureReport | None:
        """Add *findings* of *outcome* to :attr:`classes`; the call's report when it
        became the example of some class (the smallest call seen per class)."""
        size = _call_size(outcome.call)
        report: FailureReport | None = None
        for finding in findings:
            key = (finding.plan, finding.cls)
            entry = self.classes.get(key)
            if entry is None:
                if not counting:
                    continue
                entry = self.classes[key] = {
                    "backend": self.label,
                    "operation": finding.operation,
                    "plan": finding.plan,
                    "class": finding.cls,
                    "kind": finding.kind,
                    "rule": finding.rule,
                    "count": 0,
                    "max_ulp": None,
                    "size": size + 1,
                    "example": None,
                    "call": None,
                    "raised": type(outcome.raised).__name__ if outcome.raised is not None else None,
                    "known": self.known(finding) if self.known is not None else None,
                    **authority_fields(finding.cls, finding.operation, self.plan),
                    "composed": self.composed.get(finding.operation),
                    "worst": None,
                }
            if counting:
                entry["count"] += 1
            if finding.worst is not None and (
                entry["worst"] is None or (finding.worst["ulp"] or 0) > (entry["worst"]["ulp"] or 0)
            ):
                entry["worst"] = finding.worst
            if finding.ulp is not None:
                entry["max_ulp"] = max(entry["max_ulp"] or 0, finding.ulp)
            if size < entry["size"]:
                if report is None:
                    report = failure_report(outcome, self.label, self.test)
                entry["size"], entry["example"], entry["rule"] = size, report, finding.rule
                entry["call"] = outcome.call
                if entry["known"] is None:
                    self._keep(report)
            if finding.kind == "unexpected exception" and finding.cls.startswith("raises-"):
                report = self._record_signature(entry, finding, outcome, size, counting, report)
        return report

    def _record_signature(
        self, entry: dict[str, Any], finding: Finding, outcome: Outcome, size: int,
        counting: bool, report: FailureReport | None,
    ) -> FailureReport | None:  # fmt: skip
        """Count an unexpected exception under the features its call needs (the class
        is named by :meth:`name_refusals`), keeping each feature set's smallest call."""
        signatures = entry.setdefault("by_features", {})
        sub = signatures.get(finding.features)
        if sub is None:
            if not counting:
                return report
            sub = signatures[finding.features] = {"count": 0, "size": size + 1, "example": None,
                                                  "call": None}  # fmt: skip
        if counting:
            sub["count"] += 1
        if size < sub["size"]:
            report = report or failure_report(outcome, self.label, self.test)
            sub.update(size=size, example=report, call=outcome.call)
        return report

    def name_refusals(self) -> None:
        """Class each unexpected exception under the first feature of its call the
        backend refused in this check, else leave it ``raises-<Exception>``
        (:mod:`conformance.findings.refusals`).  Idempotent; each class keeps the
        smallest call of the ones it holds as its example."""
        pending = [(key, entry) for key, entry in self.classes.items() if entry.get("by_features")]
        if not pending:
            return
        refused, _ = refusal_evidence(self._due, self._raised)
        for key, entry in pending:
            plan, cls = key
            signatures = entry["by_features"]
            for features, sub in list(signatures.items()):
                target = refusal_class(features, refused, cls[len("raises-") :])
                if target == cls:
                    continue
                del signatures[features]
                # the last one takes the calls counted outside any feature set (a corpus
                # chunk's cases that were not run one by one)
                moved = sub["count"] if signatures else entry["count"]
                entry["count"] -= moved
                self._merge_refusal(entry, plan, target, moved, sub)
            if not signatures:
                del self.classes[key]
            elif all(sub["call"] is not entry["call"] for sub in signatures.values()):
                smallest = min(signatures.values(), key=lambda sub: sub["size"])
                entry.update(size=smallest["size"], example=smallest["example"],
                             call=smallest["call"])  # fmt: skip

    def _evidence(self) -> dict[str, list[str]]:
        """The check's evidence of refused and supported features (the run's grouping
        weighs every check's)."""
        refused, supported = refusal_evidence(self._due, self._raised)
        return {"refused_features": sorted(refused), "supported_features": sorted(supported)}

    def _merge_refusal(
        self, entry: dict[str, Any], plan: str, target: str, count: int, sub: dict[str, Any]
    ) -> None:
        """Add *count* calls of a ``raises-`` *entry* (their smallest: *sub*) to the
        class *target* of *plan*."""
        into = self.classes.get((plan, target))
        if into is None:
            into = self.classes[(plan, target)] = {
                **entry, "class": target, "count": 0, "size": sub["size"] + 1, "example": None,
                "call": None, "by_features": {},
                **authority_fields(target, entry["operation"], self.plan),
            }  # fmt: skip
            finding = Finding(entry["operation"], plan, entry["kind"], target, entry["rule"],
                              raised=entry["raised"])  # fmt: skip
            into["known"] = self.known(finding) if self.known is not None else None
        into["count"] += count
        if sub["example"] is not None and sub["size"] < into["size"]:
            into.update(size=sub["size"], example=sub["example"], call=sub["call"])

    def reports(self, limit: int = 5) -> list[FailureReport]:
        """The examples of the recorded classes (new ones first), else the kept reports."""
        entries = sorted(self.classes.values(), key=lambda e: e["known"] is not None)
        examples = [e["example"] for e in entries if e["example"] is not None]
        return (examples or self.failures)[:limit]

    def known_as_refusal(self, entry: Mapping[str, Any]) -> str | None:
        """The known deviation covering a ``raises-<type>`` *entry* under a name the run
        may give it, or None.

        This check names an unexpected exception after a feature only on its own
        evidence (:meth:`name_refusals`); the run's grouping weighs every check of the
        operation (:func:`conformance.findings.finding.group`) and may name the same
        calls after a feature another check saw refused -- the name the report prints
        and a known-deviations file written from it lists.  So the item does not fail
        on a name the run will not use: the entry counts as known here when, for every
        feature set its calls need, some feature this check did not see supported (the
        run names a class only after a feature no check got a result for) is covered
        by a known deviation (``OP@FEATURE``).  The run's verdict stays the run's: a
        class the run names ``raises-<type>`` and no deviation covers fails it
        (:meth:`~conformance.pytest_plugin.aggregation.Aggregation.new_classes_found`).
        """
        if self.known is None or not str(entry["class"]).startswith("raises-"):
            return None
        signatures = entry.get("by_features") or {}
        if not signatures:
            return None
        _, supported = refusal_evidence(self._due, self._raised)
        reasons = []
        for features in signatures:
            reason = None
            for feature in sorted(set(features) - supported):
                finding = Finding(entry["operation"], entry["plan"], entry["kind"], feature,
                                  entry["rule"], raised=entry["raised"])  # fmt: skip
                reason = self.known(finding)
                if reason is not None:
                    reasons.append(f"{reason} (as {entry['operation']}@{feature})")
                    break
            if reason is None:
                return None
        return "; ".join(dict.fromkeys(reasons))

    def new_classes(self) -> list[dict[str, Any]]:
        """The recorded classes no known deviation covers, of a judged authority (the
        others are differences that do not fail) -- and a hang, a crash or an unreadable
        result whatever ``--judge`` says (:func:`~conformance.findings.authority.fails_the_run`:
        no result could be judged).  A ``raises-<type>`` class a known deviation covers
        under a feature's name the run may give it (:meth:`known_as_refusal`) is not new
        here: the item is an expected failure, the run decides."""
        self.name_refusals()
        for entry in self.classes.values():
            if entry["known"] is None:
                entry["known"] = self.known_as_refusal(entry)
        return [
            entry
            for entry in self.classes.values()
            if entry["known"] is None
            and fails_the_run(entry["class"], entry.get("authority"), self.judged)
        ]

    def raise_findings(self) -> None:
        """:class:`NonConformance` with the first class's example and one line per
        other class, when any class was recorded -- or the first :class:`HungCall` of
        :attr:`stopped` (a hang or a crash the check went on after): the item's status
        is then the hang's or the crash's, as if the check had stopped there."""
        record_earlier(self, host_findings)
        self.name_refusals()
        if self.stopped:
            raise self.stopped[0]
        if not self.classes:
            return
        entries = sorted(self.classes.values(), key=lambda e: e["known"] is not None)
        first = entries[0]["example"]
        self.killing_call = entries[0]["call"] or self.killing_call
        lines = [
            f"  {e['operation']}@{e['class']}: {e['kind']}, {e['count']} calls"
            + f" [{(e.get('clause') or {}).get('label') or e.get('authority')}]"
            + (
                ""
                if fails_the_run(e["class"], e.get("authority"), self.judged)
                else " [not judged]"
            )
            + (f" [known: {e['known']}]" if e["known"] is not None else "")
            for e in entries
        ]
        more = f"\n\ndeviation classes of this check ({len(entries)}):\n" + "\n".join(lines)
        raise NonConformance(first, more)

    def _keep(self, report: FailureReport, limit: int = 5) -> None:
        if len(self.failures) < limit:
            self.failures.append(report)

    def oracle_failure(self, error: OracleError) -> FailureReport:
        report = oracle_error_report(error, self.label, self.test)
        if len(self.oracle_errors) < 5:
            self.oracle_errors.append(report)
        return report

    # -- the record the plugin sends to the controller -------------------------

    def record(self) -> dict[str, Any]:
        self.name_refusals()
        return {
            "backend": self.label,
            "operation": self.plan.operation,
            "plan": self.plan.describe(),
            "kind": self.kind,
            "test": self.test,
            "status": self.status,
            "examples": self.examples,
            "passed": self.passed,
            "failed": self.failed,
            "corpus_cases": self.corpus_cases,
            "corpus_failed": self.corpus_failed,
            "max_ulp": self.max_ulp,
            "failures": [f.as_dict() for f in self.reports()],
            "oracle_errors": [f.as_dict() for f in self.oracle_errors],
            "classes": [
                {
                    **{k: v for k, v in entry.items() if k not in ("call", "by_features")},
                    "example": entry["example"].as_dict() if entry["example"] else None,
                    **_signatures(entry),
                }
                for entry in self.classes.values()
            ],
            "not_supported": dict(self.not_supported),
            "not_measured": dict(self.not_measured),
            "not_judged": dict(self.not_judged),
            **self._evidence(),
            "coverage": {
                "calls": self.calls,
                "hits": dict(self.hits),
                "result_hits": dict(self.result_hits),
                # not judged: unsupported, not measured, resting on no source
                "skipped": sum(self.not_supported.values())
                + sum(self.not_measured.values())
                + sum(self.not_judged.values()),
                "skipped_hits": dict(self.skipped_hits),
                "skipped_result_hits": dict(self.skipped_result_hits),
            },
            "duration": round(time.perf_counter() - self.started, 3),
        }
