"""The check functions of the suite: what each of a plan's four checks judges.

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
judged.  A call that runs past the per-call timeout or kills the backend's process
aborts a hypothesis search at once (:class:`HungCall`, no shrinking: every retry
would hang too); a deterministic list of calls (boundary, witness and invalid
examples) goes on after it with a fresh host and raises it at the end (up to
:data:`MAX_STOPPED_IN_A_ROW` in a row, :data:`MAX_STOPPED_CALLS` in all), so a crash
hides no call behind it; the oracle's
own failures raise :class:`~conformance.judge.runner.OracleError` and are
reported as oracle errors.

Profiles (:data:`PROFILES`): ``ci`` derandomized, no database, few examples;
``dev`` random with a local database (``.hypothesis/plancheck``); ``thorough``
many examples and corpus level 2.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings

from conformance.generate import corpus as corpus_module
from conformance.generate.signalling_nans import signalling_nan_examples
from conformance.generate.strategies import boundary_examples, calls, invalid_calls
from conformance.generate.validation import invalid_examples
from conformance.generate.witnesses import witness_calls
from conformance.judge.checker import Checker, HungCall, NonConformance, OracleFailed
from conformance.judge.corpus_check import check_corpus_plan
from conformance.judge.reproducible import without_local_constants
from conformance.judge.runner import (
    OracleError,
)
from conformance.model.calls import Call
from oracle import OperationPlan

__all__ = [
    "CHECKS",
    "applies",
    "boundary_calls",
    "check_boundary",
    "check_corpus_plan",
    "check_generated",
    "check_invalid",
    "check_plan",
    "has_invalid_calls",
    "search",
    "search_digest",
]


# ---------------------------------------------------------------------------
# The check functions
# ---------------------------------------------------------------------------


def check_boundary(checker: Checker) -> None:
    """Every boundary example of the plan, every witness call of its result
    classes, every signalling-NaN call: all are judged (no stop at a failure),
    findings are recorded per class; NonConformance at the end if any."""
    _judge_all(checker, boundary_calls(checker.plan))


def boundary_calls(plan: OperationPlan) -> tuple[Call, ...]:
    """The deterministic valid calls of *plan*: its boundary examples, the witness
    calls of its result classes and its signalling-NaN calls (what ``test_boundary``
    judges and ``plancheck diff`` compares).  RuntimeError when the witness data is
    missing or damaged (plancheck's own failure)."""
    try:
        witnesses = witness_calls(plan)
    except Exception as error:
        raise RuntimeError(f"the witness calls of {plan.describe()}: {error}") from error
    return (*boundary_examples(plan), *witnesses, *signalling_nan_examples(plan))


def search_digest(kind: str, plan: OperationPlan) -> bytes:
    """What a search of check *kind* on *plan* adds to hypothesis' derandomized digest."""
    return f"plancheck {kind} {plan.describe()}".encode()


#: the visitors of the searches under way (innermost last): see :func:`search`
_VISITORS: list[Callable[[Call], None]] = []


def _searched(call: Call) -> None:
    """The body of every hypothesis search plancheck makes: it hands the drawn call
    to the visitor of the search under way."""
    _VISITORS[-1](call)


def search(strategy: Any, chosen: Any, kind: str, plan: OperationPlan,
           visit: Callable[[Call], None]) -> None:  # fmt: skip
    """One hypothesis search of check *kind* on *plan* under the settings *chosen*,
    each drawn call handed to *visit* (which may raise, as a test body does).

    Every search -- ``plancheck run``'s checks and ``plancheck diff`` -- runs the one
    body :func:`_searched`, so hypothesis' derandomized seed (a digest of the body's
    source and :func:`search_digest`) is the same for both: ``diff`` compares the
    calls ``run`` judges.  No local constants are drawn
    (:func:`~conformance.judge.reproducible.without_local_constants`): the calls do
    not depend on what was imported either.
    """
    body = types.FunctionType(_searched.__code__, _searched.__globals__, "_searched")
    body._hypothesis_internal_add_digest = search_digest(kind, plan)  # type: ignore[attr-defined]
    _VISITORS.append(visit)
    try:
        with without_local_constants():
            chosen(given(strategy)(body))()
    finally:
        _VISITORS.pop()


#: a deterministic list of calls stops at this many hangs or crashes in a row (a backend
#: that hangs on every call is stopped soon: each hang costs the per-call timeout) ...
MAX_STOPPED_IN_A_ROW = 3
#: ... or at this many in all (paddle 3.3.1's Int32 pow hangs on the 5 boundary calls
#: whose exponent is 2**31 - 1, spread over the 30 of its plan, the result-class witness
#: INT32_AT_MAX among them)
MAX_STOPPED_CALLS = 8


def _judge_all(checker: Checker, deterministic: Any, finish: bool = True) -> None:
    """Judge every call of *deterministic*; oracle errors are raised at the end,
    and so are the findings when *finish* (else a search goes on and raises them).

    A call that hangs or crashes (:class:`HungCall`: the host is killed, the next call
    starts a fresh one) does not end the list: the calls after it are judged too, so
    a crash never hides the classes and the coverage of the calls behind it (a known
    crash in a ``--xfail`` run leaves the coverage whole).  The hang is kept in
    :attr:`Checker.stopped` and raised when the check ends; the
    :data:`MAX_STOPPED_IN_A_ROW`-th in a row, or the :data:`MAX_STOPPED_CALLS`-th of the
    check, stops the check at once.
    """
    in_a_row = 0
    for call in deterministic:
        try:
            checker.judge(call)
        except OracleError as error:
            checker.oracle_failure(error)
        except HungCall as hung:
            checker.stopped.append(hung)
            in_a_row += 1
            if in_a_row >= MAX_STOPPED_IN_A_ROW or len(checker.stopped) >= MAX_STOPPED_CALLS:
                raise checker.stopped[0] from None  # the first, as at the end of the list
            continue
        in_a_row = 0
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

    chosen = settings(checker.profile.settings(examples, checker.shrink))

    def test() -> None:
        search(strategy, chosen, checker.kind, checker.plan, body)

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
