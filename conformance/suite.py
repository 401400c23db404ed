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
import os
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
    cache_dir: str | None = None  #: where corpus references may be cached on disk
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
#: the corpus check lists this many failing cases after the full report of the first
_SHOWN_CORPUS_CASES = 8


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


#: corpus levels whose oracle results are kept in the on-disk cache (level 2 is ~30 MB a plan)
CACHED_LEVELS = (1,)


@functools.cache
def _oracle_digest() -> str:
    """A hash of everything the corpus reference depends on (sources and library versions)."""
    import hashlib
    from pathlib import Path

    import gmpy2
    import mpmath

    import oracle

    digest = hashlib.sha256()
    root = Path(oracle.__file__).parent
    for path in sorted([*root.rglob("*.py"), Path(corpus_module.__file__)]):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    for version in (np.__version__, gmpy2.version(), mpmath.__version__):
        digest.update(str(version).encode())
    return digest.hexdigest()[:20]


def _cache_file(cache_dir: Any, plan: OperationPlan, level: int) -> Any:
    import hashlib
    from pathlib import Path

    name = hashlib.sha256(f"{plan.describe()} level {level}".encode()).hexdigest()[:16]
    return Path(cache_dir) / f"{_oracle_digest()}-{name}.npz"


#: corpus cases per backend call
CORPUS_CHUNK = 4096


def _float32_tensor(array: np.ndarray) -> Tensor:
    """A 1-D Float32 Tensor of a float32 array, without per-element validation.

    Every element of a float32 array is a binary32 value, and ``tolist()``
    widens each exactly, so the checks of ``Tensor()`` cannot fail here; they
    would cost more than the backend call itself on the corpus.
    """
    tensor = object.__new__(Tensor)
    object.__setattr__(tensor, "dtype", DType.Float32)
    object.__setattr__(tensor, "shape", (len(array),))
    object.__setattr__(tensor, "values", tuple(array.tolist()))
    return tensor


def _to_array(tensor: Tensor) -> np.ndarray:
    """A Float32 or Bool tensor's values as a flat numpy array, bit for bit.

    The float64 -> float32 cast is exact for binary32 values and keeps NaN
    signs and payloads (a Tensor holds binary32 NaNs widened exactly).
    """
    if tensor.dtype is DType.Float32:
        return np.asarray(tensor.values, dtype=np.float64).astype(np.float32)
    if tensor.dtype is DType.Bool:
        return np.asarray(tensor.values, dtype=np.bool_)
    return tensor.to_numpy().reshape(-1)


def _corpus_calls(plan: OperationPlan, level: int) -> Any:
    """The corpus of *plan* as calls on 1-D tensors of :data:`CORPUS_CHUNK` cases
    (:func:`conformance.corpus.corpus_calls`, built without re-validating values)."""
    from .calls import forward_arguments

    operands = corpus_module.level_operands(level, len(plan.operands))
    total = len(operands[0])
    for start in range(0, total, CORPUS_CHUNK):
        tensors = [_float32_tensor(o[start : start + CORPUS_CHUNK]) for o in operands]
        yield Call(
            plan.operation,
            forward_arguments(plan.operation, tensors),
            None,
            plan,
            note=f"corpus level {level} cases {start}..{start + tensors[0].size - 1}",
        )


@functools.lru_cache(maxsize=2)
def _cached_chunks(plan: OperationPlan, level: int) -> tuple[Call, ...]:
    return tuple(_corpus_calls(plan, level))


def _chunks(plan: OperationPlan, level: int) -> Any:
    """The corpus as calls (kept in memory for level 1 only)."""
    if level in CACHED_LEVELS:
        return _cached_chunks(plan, level)
    return _corpus_calls(plan, level)


def _compute_reference(plan: OperationPlan, level: int) -> tuple[np.ndarray, np.ndarray | None]:
    values, exact = [], []
    for call in _chunks(plan, level):
        try:
            expectation = expectation_of(call)
        except Exception as error:
            raise OracleError(call, error) from error
        if expectation.result is None:
            raise OracleError(call, ValueError(f"no result expected: {expectation}"))
        values.append(_to_array(expectation.result))
        if expectation.exact_points is not None:
            exact.append(np.array(expectation.exact_points, dtype=bool))
    expected = np.concatenate(values)
    return expected, (np.concatenate(exact) if exact else None)


@functools.lru_cache(maxsize=4)
def _corpus_reference(
    plan: OperationPlan, level: int, cache_dir: str | None = None
) -> tuple[np.ndarray, np.ndarray | None]:
    """The oracle's results on the corpus (and its exact-point mask).

    Cached in memory and, for :data:`CACHED_LEVELS` when *cache_dir* is given
    (the plugin passes pytest's cache directory), on disk under a key that
    hashes the oracle's sources and library versions.
    """
    path = _cache_file(cache_dir, plan, level) if cache_dir and level in CACHED_LEVELS else None
    if path is not None and path.exists():
        try:
            with np.load(path) as data:
                expected = data["expected"]
                exact = data["exact"] if "exact" in data.files else None
            if expected.size == corpus_module.case_count(level, len(plan.operands)):
                return expected, exact
        except (OSError, ValueError, KeyError):
            pass  # a damaged entry: recompute it
    expected, exact = _compute_reference(plan, level)
    if path is not None:
        arrays = {"expected": expected} if exact is None else {"expected": expected, "exact": exact}
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.npz")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            np.savez(tmp, **arrays)
            os.replace(tmp, path)
        except OSError:
            pass  # the cache is an optimisation only
    return expected, exact


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
    expected, exact = _corpus_reference(plan, level, checker.cache_dir)
    pieces = []
    backend = checker.backend
    for chunk in _chunks(plan, level):
        if checker.inflight is not None:
            checker.inflight(checker.test, chunk)

        def execute(chunk: Call = chunk) -> Any:
            native = backend.execute(plan.operation, *(backend.from_tensor(a) for a in chunk.args))
            return backend.to_tensor(native)

        try:
            actual = call_with_timeout(execute, checker.timeout)
            if not isinstance(actual, Tensor) or actual.shape != chunk.args[0].shape:
                raise TypeError(f"not a result of the chunk's shape: {actual!r}"[:200])
            pieces.append(_to_array(actual))
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
        _first_failing_element(checker, next(iter(_chunks(plan, level))))
        raise AssertionError(reasons)  # pragma: no cover - the element check raises first
    first = result.mismatches[0]
    call = _single_case(plan, first.operands, f"corpus level {level} case {first.index}")
    shown = result.mismatches[:_SHOWN_CORPUS_CASES]
    more = (
        f"\n\ncorpus level {level}: {result.failures} of {result.cases} cases do not conform; "
        f"the first {len(shown)}:\n" + "\n".join(str(m) for m in shown)
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
    from .plugin import state_of

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
    from .plugin import run_check

    run_check(checker, check)
