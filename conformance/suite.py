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
    every deterministic call of :func:`conformance.strategies.boundary_examples`
    (together they hit every applicable boundary class);
``test_generated_calls`` -> :func:`check_generated`
    hypothesis search over :func:`conformance.strategies.calls`;
``test_invalid_calls`` -> :func:`check_invalid`
    hypothesis search over :func:`conformance.strategies.invalid_calls`
    (plans with an error path only);
``test_corpus`` -> :func:`check_corpus_plan`
    the TestFloat-style corpus of :mod:`conformance.corpus` for Float32
    elementwise plans, vectorised, level 1 (``ci``, ``dev``) or 2 (``thorough``).

A failing call raises :class:`NonConformance` *inside* the hypothesis test,
with the full :class:`~conformance.report.FailureReport` as its message, so
shrinking keeps the report minimal.  A call that runs past the per-call
timeout aborts the test at once (:class:`HungCall`, no shrinking: every retry
would hang too); the oracle's own failures raise
:class:`~conformance.runner.OracleError` and are reported as oracle errors.

Profiles (:data:`PROFILES`): ``ci`` derandomized, no database, few examples;
``dev`` random with a local database (``.hypothesis/plancheck``); ``thorough``
many examples and corpus level 2.
"""

from __future__ import annotations

import functools
import math
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.database import DirectoryBasedExampleDatabase

from oracle import DType, OperationPlan, Tensor, binary32
from oracle.expectation import Conformance

from . import corpus as corpus_module
from .calls import Call
from .report import FailureReport, failure_report, oracle_error_report
from .runner import (
    CallTimeout,
    OracleError,
    Outcome,
    call_with_timeout,
    expectation_of,
    run_call,
)
from .strategies import boundary_examples, calls, invalid_calls

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
    deviation: Any = None  #: the known deviation (plugin.Deviation) covering this check
    xfail: str | None = None  #: set when a failure was turned into an expected failure
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
    killing_call: Call | None = None
    started: float = field(default_factory=time.perf_counter)
    _counting: bool = True

    @property
    def ulp_budget(self) -> int:
        return int(self.ulp_budgets.get(self.plan.operation, 0))

    # -- one call ---------------------------------------------------------------

    def run(self, call: Call) -> Outcome:
        """Run *call*; OracleError when the oracle fails (the backend is not judged)."""
        if self.inflight is not None:
            self.inflight(self.test, call)
        return run_call(self.backend, call, self.ulp_budget, timeout=self.timeout)

    def _record_coverage(self, call: Call) -> None:
        try:
            classes = call.classes
        except Exception as error:
            raise OracleError(call, error, "conformance.boundaries.classes_hit") from error
        self.calls += 1
        self.hits.update(c.name for c in classes)

    def _seen_ulp(self, outcome: Outcome) -> int:
        if not outcome.ok:
            return max((m.ulp for m in outcome.verdict.mismatches if m.ulp is not None), default=0)
        actual, expectation = outcome.actual, outcome.expectation
        if actual is None or actual.dtype is not DType.Float32:
            return 0
        worst = 0
        if expectation.bounds is not None:
            for interval, value in zip(expectation.bounds, actual.values):
                if interval.exact is not None and math.isfinite(value):
                    distance = binary32.ulp_distance(binary32.round_fraction(interval.exact), value)
                    worst = max(worst, distance or 0)
        elif self.ulp_budget and expectation.conformance is Conformance.CORRECTLY_ROUNDED:
            assert expectation.result is not None
            for e, a in zip(expectation.result.values, actual.values):
                worst = max(worst, binary32.ulp_distance(e, a) or 0)
        return worst

    def judge(self, call: Call) -> Outcome:
        """Run and count *call*; :class:`NonConformance` when it fails,
        :class:`HungCall` when it timed out."""
        outcome = self.run(call)
        counting = self._counting
        if counting:
            self._record_coverage(call)
            self.examples += 1
        self.max_ulp = max(self.max_ulp, self._seen_ulp(outcome))
        if outcome.ok:
            if counting:
                self.passed += 1
            return outcome
        report = failure_report(outcome, self.label, self.test)
        self.killing_call = call
        if outcome.timed_out:
            self.failed += 1
            self._keep(report)
            raise HungCall(report)
        raise NonConformance(report)

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
            "failures": [f.as_dict() for f in self.failures],
            "oracle_errors": [f.as_dict() for f in self.oracle_errors],
            "coverage": {"calls": self.calls, "hits": dict(self.hits)},
            "duration": round(time.perf_counter() - self.started, 3),
        }


# ---------------------------------------------------------------------------
# The check functions
# ---------------------------------------------------------------------------

#: the boundary check lists this many failing calls in full
_SHOWN_FAILURES = 3


def check_boundary(checker: Checker) -> None:
    """Every boundary example of the plan; all are run, failures are collected."""
    failing: list[FailureReport] = []
    count = 0
    for call in boundary_examples(checker.plan):
        try:
            checker.judge(call)
        except NonConformance as failure:
            checker.failed += 1
            count += 1
            checker._keep(failure.report)
            failing.append(failure.report)
        except OracleError as error:
            checker.oracle_failure(error)
    if failing:
        more = ""
        if count > 1:
            others = "\n\n".join(r.text() for r in failing[1:_SHOWN_FAILURES])
            more = f"\n\n{others}" if others else ""
            if count > _SHOWN_FAILURES:
                more += f"\n\n... and {count - _SHOWN_FAILURES} more failing boundary examples"
        raise NonConformance(failing[0], more)
    if checker.oracle_errors:
        raise OracleFailed(checker.oracle_errors)


def _search(checker: Checker, strategy: Any, examples: int) -> None:
    """Hypothesis search: count until the first failure, then let it shrink."""

    def body(call: Call) -> None:
        try:
            checker.judge(call)
        except NonConformance:
            checker._counting = False  # shrinking runs: not counted
            raise

    body._hypothesis_internal_add_digest = (  # type: ignore[attr-defined]
        f"plancheck {checker.kind} {checker.plan.describe()}".encode()
    )
    test = settings(checker.profile.settings(examples, checker.shrink))(given(strategy)(body))
    try:
        test()
    except NonConformance as failure:  # the minimal failing call, after shrinking
        checker.failed += 1
        checker._keep(failure.report)
        raise NonConformance(failure.report) from None
    except OracleError as error:
        checker.oracle_failure(error)
        raise OracleFailed(checker.oracle_errors) from None
    finally:
        checker._counting = True


def check_generated(checker: Checker) -> None:
    """Hypothesis search over valid calls of the plan."""
    _search(checker, calls(checker.plan), checker.profile.max_examples)


def has_invalid_calls(plan: OperationPlan) -> bool:
    return not invalid_calls(plan).is_empty


def check_invalid(checker: Checker) -> None:
    """Hypothesis search over calls that must raise."""
    strategy = invalid_calls(checker.plan)
    if strategy.is_empty:
        return
    _search(checker, strategy, checker.profile.invalid_examples)


# -- the corpus -------------------------------------------------------------------


@functools.lru_cache(maxsize=4)
def _corpus_reference(plan: OperationPlan, level: int) -> tuple[np.ndarray, np.ndarray | None]:
    """The oracle's results on the corpus (and its exact-point mask), cached."""
    values, exact = [], []
    for call in corpus_module.corpus_calls(plan, level):
        try:
            expectation = expectation_of(call)
        except Exception as error:
            raise OracleError(call, error) from error
        if expectation.result is None:
            raise OracleError(call, ValueError(f"no result expected: {expectation}"))
        values.append(expectation.result.to_numpy())
        if expectation.exact_points is not None:
            exact.append(np.array(expectation.exact_points, dtype=bool))
    expected = np.concatenate(values)
    return expected, (np.concatenate(exact) if exact else None)


def _single_case(plan: OperationPlan, bits: tuple[int, ...], note: str) -> Call:
    from .calls import forward_arguments

    tensors = [Tensor(DType.Float32, (1,), (binary32.from_bits(b),)) for b in bits]
    return Call(plan.operation, forward_arguments(plan.operation, tensors), None, plan, note=note)


def _first_failing_element(checker: Checker, chunk: Call, limit: int = 512) -> None:
    """Judge single elements of a chunk the backend failed on (raises at the first failure)."""
    tensors = [a for a in chunk.args if isinstance(a, Tensor)]
    for index in range(min(limit, tensors[0].size)):
        bits = tuple(t.bits()[index] for t in tensors)
        checker.judge(_single_case(checker.plan, bits, f"{chunk.note}, case {index}"))


def check_corpus_plan(checker: Checker) -> None:
    """The deterministic corpus of a Float32 elementwise plan, checked vectorised."""
    plan, level = checker.plan, checker.profile.corpus_level
    expected, exact = _corpus_reference(plan, level)
    pieces = []
    backend = checker.backend
    for chunk in corpus_module.corpus_calls(plan, level):
        if checker.inflight is not None:
            checker.inflight(checker.test, chunk)

        def execute(chunk: Call = chunk) -> Any:
            native = backend.execute(plan.operation, *(backend.from_tensor(a) for a in chunk.args))
            return backend.to_tensor(native)

        try:
            actual = call_with_timeout(execute, checker.timeout)
            if not isinstance(actual, Tensor) or actual.shape != chunk.args[0].shape:
                raise TypeError(f"not a result of the chunk's shape: {actual!r}"[:200])
            pieces.append(actual.to_numpy())
        except (Exception, CallTimeout):
            # find one element that fails on its own, for a minimal report
            _first_failing_element(checker, chunk)
            outcome = run_call(backend, chunk, checker.ulp_budget, timeout=checker.timeout)
            report = failure_report(outcome, checker.label, checker.test)
            checker._keep(report)
            checker.failed += 1
            raise NonConformance(report) from None
    actual_all = np.concatenate(pieces) if pieces else np.zeros(0, np.float32)
    result = corpus_module.check_corpus(
        plan,
        lambda *operands: actual_all,
        lambda *operands: (expected, exact) if exact is not None else expected,
        level=level,
        ulp_budget=checker.ulp_budget,
    )
    checker.corpus_cases += result.cases
    checker.corpus_failed += result.failures
    worst = [m.ulp for m in result.mismatches if m.ulp is not None]
    checker.max_ulp = max(checker.max_ulp, result.max_ulp, *worst)
    if result.ok:
        return
    if result.mismatches and result.mismatches[0].index < 0:
        reasons = "the backend's corpus results have the wrong dtype or shape"
        _first_failing_element(checker, next(corpus_module.corpus_calls(plan, level)))
        raise AssertionError(reasons)  # pragma: no cover - the element check raises first
    first = result.mismatches[0]
    call = _single_case(plan, first.operands, f"corpus level {level} case {first.index}")
    more = (
        f"\n\ncorpus level {level}: {result.failures} of {result.cases} cases do not conform; "
        f"the first {len(result.mismatches)}:\n" + "\n".join(str(m) for m in result.mismatches)
    )
    checker._counting = False
    try:
        outcome = checker.run(call)
    finally:
        checker._counting = True
    if outcome.ok:  # the backend fails only inside a batch: report the corpus case itself
        outcome = run_call(backend, call, checker.ulp_budget, timeout=checker.timeout)
    report = failure_report(outcome, checker.label, checker.test)
    if outcome.ok:
        report.problem = "wrong value (only inside the corpus batch)"
        report.summary = str(result).splitlines()[0]
    checker.killing_call = call
    checker._keep(report)
    raise NonConformance(report, more)


#: check name -> check function, in the order :func:`check_plan` runs them
CHECKS: dict[str, Callable[[Checker], None]] = {
    "boundary": check_boundary,
    "corpus": check_corpus_plan,
    "invalid": check_invalid,
    "generated": check_generated,
}


def applies(kind: str, plan: OperationPlan) -> bool:
    """Whether check *kind* has anything to run for *plan*."""
    if kind == "corpus":
        return plan in corpus_module.corpus_plans()
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
    from .plugin import state_of

    return state_of(config)


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
    from .plugin import run_check

    run_check(checker, check)
