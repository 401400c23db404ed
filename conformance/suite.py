"""The shipped conformance suite: every resolvable plan, on every backend you name.

Validate a backend with one line (it needs only the backend's import path)::

    pytest --pyargs conformance.suite --plancheck-backend mypkg.mod:Backend

or, in the project's pytest configuration, ``addopts = --plancheck-backend
mypkg.mod:Backend`` (the plugin then adds this module to every run); add
``-n auto`` for pytest-xdist.  ``plancheck run --backend mypkg.mod:Backend``
does the same with a progress line, the per-operation table and an exit code.

For each backend x plan of :func:`oracle.resolvable_plans` (restricted with
``--plancheck-op``) the module holds four tests, each a thin wrapper of a
*check function* that other code (``tests/test_mutants.py``) calls directly:

``test_boundary_examples`` -> :func:`check_boundary`
    every deterministic call of :func:`conformance.generate.strategies.boundary_examples`
    (together they hit every applicable boundary class), then every witness
    call of :func:`conformance.generate.witnesses.witness_calls` (together they hit
    every applicable result class), then the signalling-NaN calls of
    :func:`conformance.generate.signalling_nans.signalling_nan_examples` (bit-copy
    operations only);
``test_generated_calls`` -> :func:`check_generated`
    hypothesis search over :func:`conformance.generate.strategies.calls`;
``test_invalid_calls`` -> :func:`check_invalid`
    one call per validation rule of the plan's family
    (:func:`conformance.generate.validation.invalid_examples`), then a hypothesis
    search over :func:`conformance.generate.strategies.invalid_calls` (plans with an
    error path only);
``test_corpus`` -> :func:`check_corpus_plan`
    the TestFloat-style corpus of :mod:`conformance.generate.corpus` for Float32
    elementwise plans, vectorised, level 1 (``ci``, ``dev``) or 2 (``thorough``).

A check never stops at its first failure: every boundary example and corpus
case is judged, and the hypothesis search shrinks the first call of each new
deviation class (:mod:`conformance.findings.finding`), sets the class aside and
searches on.  The :class:`Checker` records each class once, with its count
and smallest example; at the end a check with any class raises
:class:`NonConformance` (the first class's report, one line per other
class), which the plugin turns into a failure, or an expected failure when a
known deviation covers every class.  Calls needing a capability feature the
backend does not support (:mod:`conformance.model.capabilities`) are counted, not
judged.  A call that runs past the per-call timeout aborts the check at once
(:class:`HungCall`, no shrinking: every retry would hang too); the oracle's
own failures raise :class:`~conformance.judge.runner.OracleError` and are
reported as oracle errors.

Profiles (:data:`PROFILES`): ``ci`` derandomized, no database, few examples;
``dev`` random with a local database (``.hypothesis/plancheck``); ``thorough``
many examples and corpus level 2.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.database import DirectoryBasedExampleDatabase

from conformance.classes.result import result_classes_hit
from conformance.findings.finding import Finding, findings_of
from conformance.generate import corpus as corpus_module
from conformance.generate.signalling_nans import signalling_nan_examples
from conformance.generate.strategies import boundary_examples, calls, invalid_calls
from conformance.generate.validation import invalid_examples
from conformance.generate.witnesses import witness_calls
from conformance.judge.runner import (
    OracleError,
    Outcome,
    expectation_of,
    run_call,
)
from conformance.model.calls import Call
from conformance.model.capabilities import features_of
from conformance.report import FailureReport, failure_report, oracle_error_report
from oracle import DType, OperationPlan, binary32
from oracle.expectation import Conformance

__all__ = [
    "CHECKS",
    "PROFILES",
    "Checker",
    "HungCall",
    "NonConformance",
    "Profile",
    "check_boundary",
    "check_corpus_plan",
    "check_generated",
    "check_invalid",
    "check_plan",
]


# ---------------------------------------------------------------------------
# Profiles
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Profile:
    """How hard the suite searches: examples per plan and corpus level."""

    name: str
    max_examples: int  #: generated valid calls per (backend, plan)
    invalid_examples: int  #: generated invalid calls per (backend, plan)
    corpus_level: int
    derandomize: bool
    database: bool

    def settings(self, examples: int, shrink: bool = True, key: str = "") -> settings:
        phases = [Phase.explicit, Phase.reuse, Phase.generate, Phase.target]
        if shrink:
            phases.append(Phase.shrink)
        database = None
        if self.database:
            database = DirectoryBasedExampleDatabase(".hypothesis/plancheck")
        return settings(
            max_examples=examples,
            derandomize=self.derandomize,
            database=database,
            deadline=None,
            phases=phases,
            suppress_health_check=list(HealthCheck),
            report_multiple_bugs=False,
            print_blob=False,
        )


PROFILES: dict[str, Profile] = {
    "ci": Profile("ci", max_examples=20, invalid_examples=8, corpus_level=1,
                  derandomize=True, database=False),
    "dev": Profile("dev", max_examples=100, invalid_examples=40, corpus_level=1,
                   derandomize=False, database=True),
    "thorough": Profile("thorough", max_examples=1000, invalid_examples=300, corpus_level=2,
                        derandomize=False, database=True),
}  # fmt: skip

for _profile in PROFILES.values():  # usable as --hypothesis-profile plancheck-NAME too
    settings.register_profile(
        f"plancheck-{_profile.name}", _profile.settings(_profile.max_examples)
    )


# ---------------------------------------------------------------------------
# Failures
# ---------------------------------------------------------------------------


class NonConformance(AssertionError):
    """The backend does not conform; the message is the full failure report."""

    def __init__(self, report: FailureReport, more: str = "") -> None:
        super().__init__(report.text() + more)
        self.report = report


class HungCall(BaseException):
    """A backend call ran past the timeout: the check stops at once.

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
    _counting: bool = True
    _seen: set[Call] = field(default_factory=set)

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
            return run_call(self.backend, call, self.ulp_budget, timeout=self.timeout,
                            expectation=expectation)  # fmt: skip
        finally:
            if self.inflight is not None:
                self.inflight(self.test, None)

    def _record_coverage(self, call: Call, outcome: Outcome) -> None:
        """Count the input classes of *call* and the result classes of its expected value."""
        try:
            classes = call.classes
        except Exception as error:
            raise OracleError(call, error, "conformance.classes.boundary.classes_hit") from error
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
            with contextlib.suppress(Exception):  # coverage of a call not judged: best effort
                self.skipped_hits.update(c.name for c in call.classes)
            with contextlib.suppress(Exception):
                self.skipped_result_hits.update(c.name for c in result_classes_hit(call))
        return False

    def judge(self, call: Call) -> list[Finding]:
        """Run and count *call*; its findings (empty when it conforms or is not
        judged).  Every finding is recorded in :attr:`classes`; a call that
        timed out raises :class:`HungCall` after it is recorded.

        While not counting (hypothesis shrinking) a call only improves the
        examples of classes already recorded: it adds no class and no count.
        """
        if not self.supports(call):
            return []
        outcome = self.run(call)
        counting = self._counting and call not in self._seen
        if counting:
            self._seen.add(call)
            self._record_coverage(call, outcome)
            self.examples += 1
        self.max_ulp = max(self.max_ulp, self._seen_ulp(outcome))
        if outcome.ok:
            if counting:
                self.passed += 1
            return []
        findings = findings_of(outcome)
        if counting:
            self.failed += 1
        self.killing_call = self.killing_call or call
        report = self.record_findings(outcome, findings, counting)
        if outcome.timed_out:
            raise HungCall(report or failure_report(outcome, self.label, self.test))
        return findings

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
                }
            if counting:
                entry["count"] += 1
            if finding.ulp is not None:
                entry["max_ulp"] = max(entry["max_ulp"] or 0, finding.ulp)
            if size < entry["size"]:
                if report is None:
                    report = failure_report(outcome, self.label, self.test)
                entry["size"], entry["example"], entry["rule"] = size, report, finding.rule
                entry["call"] = outcome.call
                if entry["known"] is None:
                    self._keep(report)
        return report

    def reports(self, limit: int = 5) -> list[FailureReport]:
        """The examples of the recorded classes (new ones first), else the kept reports."""
        entries = sorted(self.classes.values(), key=lambda e: e["known"] is not None)
        examples = [e["example"] for e in entries if e["example"] is not None]
        return (examples or self.failures)[:limit]

    def new_classes(self) -> list[dict[str, Any]]:
        """The recorded classes no known deviation covers."""
        return [entry for entry in self.classes.values() if entry["known"] is None]

    def raise_findings(self) -> None:
        """:class:`NonConformance` with the first class's example and one line per
        other class, when any class was recorded."""
        if not self.classes:
            return
        entries = sorted(self.classes.values(), key=lambda e: e["known"] is not None)
        first = entries[0]["example"]
        self.killing_call = entries[0]["call"] or self.killing_call
        lines = [
            f"  {e['operation']}@{e['class']}: {e['kind']}, {e['count']} calls"
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
                    **{k: v for k, v in entry.items() if k != "call"},
                    "example": entry["example"].as_dict() if entry["example"] else None,
                }
                for entry in self.classes.values()
            ],
            "not_supported": dict(self.not_supported),
            "coverage": {
                "calls": self.calls,
                "hits": dict(self.hits),
                "result_hits": dict(self.result_hits),
                "skipped": sum(self.not_supported.values()),
                "skipped_hits": dict(self.skipped_hits),
                "skipped_result_hits": dict(self.skipped_result_hits),
            },
            "duration": round(time.perf_counter() - self.started, 3),
        }


# ---------------------------------------------------------------------------
# The check functions
# ---------------------------------------------------------------------------


def _call_size(call: Call) -> int:
    """How big a call is (tensor elements plus arguments): examples prefer small calls."""
    return sum(getattr(a, "size", 0) for a in call.args) + len(call.args)


def check_boundary(checker: Checker) -> None:
    """Every boundary example of the plan, every witness call of its result
    classes, every signalling-NaN call: all are judged (no stop at a failure),
    findings are recorded per class; NonConformance at the end if any."""
    plan = checker.plan
    try:
        witnesses = witness_calls(plan)
    except Exception as error:  # missing or damaged witness data: plancheck's own failure
        raise RuntimeError(f"the witness calls of {plan.describe()}: {error}") from error
    _judge_all(checker, (*boundary_examples(plan), *witnesses, *signalling_nan_examples(plan)))


def _judge_all(checker: Checker, deterministic: Any, finish: bool = True) -> None:
    """Judge every call of *deterministic*; oracle errors are raised at the end,
    and so are the findings when *finish* (else a search goes on and raises them)."""
    for call in deterministic:
        try:
            checker.judge(call)
        except OracleError as error:
            checker.oracle_failure(error)
    if finish:
        checker.raise_findings()
    if checker.oracle_errors:
        raise OracleFailed(checker.oracle_errors)


#: a hypothesis search shrinks at most this many new classes (later ones are still
#: recorded with their first example)
MAX_SHRUNK_CLASSES = 8


class _NewClass(AssertionError):
    """Raised inside a hypothesis test body for a call showing the class being shrunk."""


def _search(checker: Checker, strategy: Any, examples: int) -> None:
    """Hypothesis search that keeps looking after a failure.

    Each pass runs the profile's budget; a call showing a class not yet found
    raises inside the test, so hypothesis shrinks it (only calls showing that
    same class count as failing while it shrinks) and the minimal call becomes
    the class's example.  The next pass sets that class aside and goes on,
    until a pass finds nothing new (or :data:`MAX_SHRUNK_CLASSES` were
    shrunk; later classes are recorded unshrunk).  Calls are counted once,
    however many passes meet them; shrinking runs are not counted.
    """
    target: list[str] = []  # the class this pass is shrinking ([] while searching)
    set_aside: set[str] = set()

    def body(call: Call) -> None:
        if target:
            if any(f.cls == target[0] for f in checker.judge(call)):
                raise _NewClass(target[0])
            return
        new = [f.cls for f in checker.judge(call) if f.cls not in set_aside]
        if new and len(set_aside) < MAX_SHRUNK_CLASSES:
            target.append(new[0])
            checker._counting = False  # shrinking runs: not counted
            raise _NewClass(new[0])

    body._hypothesis_internal_add_digest = (  # type: ignore[attr-defined]
        f"plancheck {checker.kind} {checker.plan.describe()}".encode()
    )
    test = settings(checker.profile.settings(examples, checker.shrink))(given(strategy)(body))
    try:
        while True:
            target.clear()
            set_aside.update(entry["class"] for entry in checker.classes.values())
            try:
                test()
            except _NewClass:
                checker._counting = True
                continue
            except Exception as error:  # e.g. hypothesis' ExceptionGroup around a _NewClass
                members = getattr(error, "exceptions", ())
                if not any(isinstance(m, _NewClass) for m in members):
                    raise
                checker._counting = True
                continue
            break
    except OracleError as error:
        checker.oracle_failure(error)
        raise OracleFailed(checker.oracle_errors) from None
    finally:
        checker._counting = True
    checker.raise_findings()


def check_generated(checker: Checker) -> None:
    """Hypothesis search over valid calls of the plan."""
    _search(checker, calls(checker.plan), checker.profile.max_examples)


def has_invalid_calls(plan: OperationPlan) -> bool:
    return bool(invalid_examples(plan)) or not invalid_calls(plan).is_empty


def check_invalid(checker: Checker) -> None:
    """One call per validation rule of the plan, then a hypothesis search over
    calls that must raise."""
    strategy = invalid_calls(checker.plan)
    _judge_all(checker, invalid_examples(checker.plan), finish=strategy.is_empty)
    if not strategy.is_empty:
        _search(checker, strategy, checker.profile.invalid_examples)


# -- the corpus (conformance.judge.corpus_check) ----------------------------------------


#: names that moved to conformance.judge.corpus_check, still readable here (diff.py reads some)
_CORPUS_NAMES = frozenset(
    "CACHED_LEVELS CORPUS_CHUNK _cache_file _cached_chunks _chunks _compute_reference "
    "_content_digest _corpus_calls _corpus_reference _oracle_digest _single_case "
    "_to_array".split()
)


def __getattr__(name: str) -> Any:
    if name in _CORPUS_NAMES:
        from conformance.judge import corpus_check

        return getattr(corpus_check, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def check_corpus_plan(checker: Checker) -> None:
    """The corpus of a Float32 elementwise plan (:mod:`conformance.judge.corpus_check`)."""
    from conformance.judge.corpus_check import (
        check_corpus_plan as check,  # it builds on this module
    )

    check(checker)


#: check name -> check function, in the order :func:`check_plan` runs them
CHECKS: dict[str, Callable[[Checker], None]] = {
    "boundary": check_boundary,
    "corpus": check_corpus_plan,
    "invalid": check_invalid,
    "generated": check_generated,
}


@functools.cache
def _corpus_plans() -> frozenset[OperationPlan]:
    return frozenset(corpus_module.corpus_plans())


@functools.cache
def applies(kind: str, plan: OperationPlan) -> bool:
    """Whether check *kind* has anything to run for *plan*."""
    if kind == "corpus":
        return plan in _corpus_plans()
    if kind == "invalid":
        return has_invalid_calls(plan)
    return True


def check_plan(make_checker: Callable[[str], Checker], plan: OperationPlan,
               kinds: tuple[str, ...] = tuple(CHECKS)) -> str | None:  # fmt: skip
    """Run the checks of *plan* in order; the name of the first that fails, or None.

    *make_checker(kind)* returns a fresh :class:`Checker` for the plan.
    """
    for kind in kinds:
        if not applies(kind, plan):
            continue
        try:
            CHECKS[kind](make_checker(kind))
        except (NonConformance, HungCall):
            return kind
    return None


# ---------------------------------------------------------------------------
# The pytest tests (parametrized by the plancheck plugin's options)
# ---------------------------------------------------------------------------


def _state(config: Any) -> Any:
    from conformance.pytest_plugin import state_of

    return state_of(config)


#: the parameter of a suite test with no case in the selection (deselected by the plugin)
EMPTY = "plancheck: no case"


def pytest_generate_tests(metafunc: Any) -> None:
    if "plancheck_case" not in metafunc.fixturenames:
        return
    state = _state(metafunc.config)
    kind = metafunc.function.plancheck_kind
    if state is None or not state.labels:
        reason = "conformance.suite needs --plancheck-backend NAME|module:attribute"
        metafunc.parametrize(
            "plancheck_case", [pytest.param(None, marks=pytest.mark.skip(reason=reason))],
            ids=["no-backend"],
        )  # fmt: skip
        return
    cases = state.cases(kind)
    if not cases:  # e.g. no selected plan has invalid calls: the plugin deselects this
        metafunc.parametrize("plancheck_case", [EMPTY], ids=["none"])
        return
    metafunc.parametrize("plancheck_case", cases, ids=[case.id for case in cases])


@pytest.fixture
def plancheck_checker(request: Any, plancheck_case: Any) -> Checker:
    """The Checker of this test item (the plugin reads its record afterwards)."""
    return _state(request.config).checker(request.node, plancheck_case)


def _kind(kind: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    def mark(function: Callable[..., None]) -> Callable[..., None]:
        function.plancheck_kind = kind  # type: ignore[attr-defined]
        return function

    return mark


@_kind("boundary")
def test_boundary_examples(plancheck_checker: Checker) -> None:
    _state_run(plancheck_checker, check_boundary)


@_kind("generated")
def test_generated_calls(plancheck_checker: Checker) -> None:
    _state_run(plancheck_checker, check_generated)


@_kind("invalid")
def test_invalid_calls(plancheck_checker: Checker) -> None:
    _state_run(plancheck_checker, check_invalid)


@_kind("corpus")
def test_corpus(plancheck_checker: Checker) -> None:
    _state_run(plancheck_checker, check_corpus_plan)


def _state_run(checker: Checker, check: Callable[[Checker], None]) -> None:
    from conformance.pytest_plugin import run_check

    run_check(checker, check)
