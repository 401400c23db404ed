"""Run one :class:`~conformance.calls.Call` on a backend and judge it.

:func:`run_call` converts the call's Tensor operands to the backend's native
form, executes the operation, converts the result back and checks it against
``oracle.expected`` (or checks the exception the backend raised).  What the
backend does wrong -- a wrong value, a wrong exception, an unexpected
exception type, a result that is not a tensor of the plan's dtype and shape,
a call that does not return within *timeout* seconds, an allocation before a
required error -- becomes a failing :class:`Outcome` whose ``problem`` names
the kind of fault.  The oracle's own failures are raised as
:class:`OracleError` (the original exception is its ``__cause__``), so they
are never blamed on the backend.

Timeouts: in the main thread of a Unix process the call runs under
``signal.setitimer`` and a hung call is interrupted (Python code and
interruptible system calls; a C loop that never returns to the interpreter is
interrupted when it does).  Elsewhere the call runs in a daemon thread that
is abandoned when it does not finish in time.
"""

from __future__ import annotations

import contextlib
import math
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from oracle import Expectation, Tensor, Verdict, expected

from .calls import Call

__all__ = [
    "CallTimeout",
    "OracleError",
    "Outcome",
    "Problem",
    "agree",
    "call_with_timeout",
    "expectation_of",
    "run_call",
]


class OracleError(Exception):
    """The oracle (or the suite) failed on a call: never the backend's fault."""

    def __init__(self, call: Call, error: BaseException, where: str = "oracle.expected") -> None:
        super().__init__(f"{where} raised {type(error).__name__}: {error}")
        self.call = call
        self.error = error
        self.where = where


class CallTimeout(BaseException):
    """Raised inside a backend call that ran past its timeout.

    A BaseException, so a backend's ``except Exception`` cannot swallow it
    (and hypothesis does not try to shrink it).
    """


class Problem:
    """The kinds of non-conformance an :class:`Outcome` can carry (string constants)."""

    WRONG_VALUE = "wrong value"
    WRONG_EXCEPTION = "wrong exception"
    MISSING_EXCEPTION = "missing exception"
    UNEXPECTED_EXCEPTION = "unexpected exception"
    WRONG_TYPE = "wrong type"
    WRONG_SHAPE_OR_DTYPE = "wrong shape or dtype"
    TIMEOUT = "timeout"
    ALLOCATION_BEFORE_ERROR = "allocation before error"


@dataclass(frozen=True)
class Outcome:
    """The verdict on one call, with what the backend returned or raised.

    *problem* is None for a conforming call, else one of :class:`Problem`.
    """

    call: Call
    expectation: Expectation
    verdict: Verdict
    actual: Tensor | None = None
    raised: BaseException | None = None
    problem: str | None = None
    native: Any = None

    @property
    def ok(self) -> bool:
        return self.verdict.ok

    @property
    def timed_out(self) -> bool:
        return self.problem == Problem.TIMEOUT


def expectation_of(call: Call) -> Expectation:
    """The oracle's Expectation for *call*."""
    return expected(call.operation, *call.args, accumulator_dtype=call.accumulator_dtype)


def _keywords(call: Call) -> dict[str, Any]:
    return {} if call.accumulator_dtype is None else {"accumulator_dtype": call.accumulator_dtype}


# ---------------------------------------------------------------------------
# Timeouts
# ---------------------------------------------------------------------------


def _on_alarm(signum: int, frame: Any) -> None:
    raise CallTimeout()


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _can_alarm() -> bool:
    return (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # nobody else's timer
    )


def call_with_timeout(function: Callable[[], Any], timeout: float | None) -> Any:
    """``function()``, or :class:`CallTimeout` when it runs past *timeout* seconds.

    None or a non-positive timeout: no limit.
    """
    if timeout is None or timeout <= 0:
        return function()
    if _can_alarm():
        try:
            with _alarm(timeout):
                return function()
        except CallTimeout:
            raise CallTimeout(f"no result within {timeout:g} s") from None
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = function()
        except BaseException as error:  # handed to the caller below
            box["error"] = error

    worker = threading.Thread(target=target, name="plancheck-call", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise CallTimeout(f"no result within {timeout:g} s (the call's thread was abandoned)")
    if "error" in box:
        raise box["error"]
    return box["result"]


# ---------------------------------------------------------------------------
# Running one call
# ---------------------------------------------------------------------------


def _allocations(backend: Any) -> int | None:
    count = getattr(backend, "allocations", None)
    return count if isinstance(count, int) and not isinstance(count, bool) else None


def run_call(
    backend: Any,
    call: Call,
    ulp_budget: int = 0,
    *,
    timeout: float | None = None,
    expectation: Expectation | None = None,
) -> Outcome:
    """Execute *call* on *backend* and judge the result against the oracle.

    *timeout* (seconds, None for none) bounds the backend's part of the call
    (conversions included); *expectation* may be passed when the caller
    already has it.  Raises :class:`OracleError` when the oracle fails.
    """
    if expectation is None:
        try:
            expectation = expectation_of(call)
        except Exception as error:
            raise OracleError(call, error) from error
    before = _allocations(backend)

    def execute() -> Any:
        native_args = [backend.from_tensor(a) if isinstance(a, Tensor) else a for a in call.args]
        return backend.execute(call.operation, *native_args, **_keywords(call))

    try:
        native = call_with_timeout(execute, timeout)
    except CallTimeout as error:
        verdict = Verdict(False, f"{call.operation}: the backend's call timed out: {error}")
        return Outcome(call, expectation, verdict, raised=error, problem=Problem.TIMEOUT)
    except (Exception, SystemExit) as error:  # judged: the oracle decides if it was required
        try:
            verdict = expectation.check_raised(error)
        except Exception as oracle_error:
            raise OracleError(call, oracle_error, "Expectation.check_raised") from oracle_error
        problem = None
        if not verdict.ok:
            if expectation.error is None:
                problem = Problem.UNEXPECTED_EXCEPTION
            else:
                problem = Problem.WRONG_EXCEPTION
        elif before is not None and (_allocations(backend) or 0) > before:
            verdict = Verdict(
                False,
                f"{call.operation}: raised {type(error).__name__} as required, but only after "
                f"allocating a result ({_allocations(backend) - before} allocation(s)): every "
                f"planning, shape and index error must come before any allocation",
            )
            problem = Problem.ALLOCATION_BEFORE_ERROR
        return Outcome(call, expectation, verdict, raised=error, problem=problem)
    try:
        actual = call_with_timeout(lambda: backend.to_tensor(native), timeout)
    except CallTimeout as error:
        verdict = Verdict(False, f"{call.operation}: the backend's to_tensor timed out: {error}")
        return Outcome(call, expectation, verdict, raised=error, problem=Problem.TIMEOUT)
    except Exception as error:
        verdict = Verdict(
            False,
            f"{call.operation}: backend returned {type(native).__name__}, which its "
            f"to_tensor refused: {type(error).__name__}: {error}",
        )
        return Outcome(call, expectation, verdict, raised=error, problem=Problem.WRONG_TYPE,
                       native=native)  # fmt: skip
    if not isinstance(actual, Tensor):
        verdict = Verdict(False, f"{call.operation}: to_tensor returned {actual!r}, not a Tensor")
        return Outcome(call, expectation, verdict, problem=Problem.WRONG_TYPE, native=native)
    try:
        verdict = expectation.check(actual, ulp_budget)
    except Exception as error:
        raise OracleError(call, error, "Expectation.check") from error
    problem = None
    if not verdict.ok:
        if expectation.error is not None:
            problem = Problem.MISSING_EXCEPTION
        elif not verdict.mismatches:
            problem = Problem.WRONG_SHAPE_OR_DTYPE
        else:
            problem = Problem.WRONG_VALUE
    return Outcome(call, expectation, verdict, actual=actual, problem=problem)


def agree(first: Tensor, second: Tensor, nan_bits: bool) -> bool:
    """Whether two results are the same bit for bit, NaN-ness standing in for
    NaN bits unless *nan_bits* (the operation copies NaN bits)."""
    if first.dtype is not second.dtype or first.shape != second.shape:
        return False
    if nan_bits or first == second:
        return first == second
    for a, b, a_bits, b_bits in zip(first.values, second.values, first.bits(), second.bits()):
        both_nan = isinstance(a, float) and math.isnan(a) and math.isnan(b)
        if a_bits != b_bits and not both_nan:
            return False
    return True
