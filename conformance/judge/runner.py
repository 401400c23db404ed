"""Run one :class:`~conformance.model.calls.Call` on a backend and judge it.

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

Two hygiene rules are judged on every call, whatever its verdict: a call
that emits an IEEE warning (any ``RuntimeWarning``, which is what numpy's
overflow/invalid/divide/underflow warnings are) breaks "IEEE exceptions never
raise or warn" (:attr:`Outcome.warnings`), and a call that changes the bits
of one of its inputs breaks "a call never modifies its inputs"
(:attr:`Outcome.modified`).  Inputs are compared through the backend's own
exchange -- ``to_numpy`` when it has the optional fast exchange, else
``to_tensor`` -- right after conversion and again after the call.

The backend host: when *backend* is a :class:`conformance.host.client.BackendHost`
(what the plugin, the CLI and the sweep pass), the backend's part of the call
runs in the host process (:mod:`conformance.host.server`): the operands cross as
raw bits, the result comes back as raw bits, the exception as its class names
and message (rebuilt by :func:`conformance.host.wire.rebuild_exception`), the
warnings of the calling thread only; the host's observations of the
floating-point environment, numpy's state and the result's memory become
:attr:`Outcome.environment`.  A call past *timeout* kills the host
(``timeout``), a host that dies is ``crash``; either way the next call starts a
fresh host.  A backend *object* is still judged in this process (the in-process
path below: the mutation catalogue's checks and unit tests use it).

Timeouts (in-process path): in the main thread of a Unix process the call runs under
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
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from conformance.host.client import BackendHost, HostCrashed, HostTimeout
from conformance.host.wire import decode_tensor, encode_tensor, rebuild_exception
from conformance.model.calls import Call
from oracle import Expectation, Tensor, Verdict, expected
from oracle.limits import OracleLimitError

__all__ = [
    "CallTimeout",
    "OracleError",
    "Outcome",
    "Problem",
    "Watchdog",
    "agree",
    "call_with_timeout",
    "expectation_of",
    "input_snapshot",
    "is_real_interrupt",
    "run_call",
    "watch_interrupts",
    "wire_arguments",
]


class OracleError(Exception):
    """The oracle (or the suite) failed on a call: never the backend's fault.

    A call too large for the oracle (:class:`oracle.limits.OracleLimitError`)
    is one too: the oracle *declined* it (:attr:`declined`), and the message
    says so rather than reading like a crash.
    """

    def __init__(self, call: Call, error: BaseException, where: str = "oracle.expected") -> None:

        self.declined = isinstance(error, OracleLimitError)
        if self.declined:
            super().__init__(f"oracle declined (too large): {error}")
        else:
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
    WARNING = "warning"
    INPUT_MODIFIED = "input modified"
    CRASH = "crash"
    ENVIRONMENT = "environment"


@dataclass(frozen=True)
class Outcome:
    """The verdict on one call, with what the backend returned or raised.

    *problem* is None for a conforming call, else one of :class:`Problem`
    (``warning`` or ``input modified`` when only a hygiene rule is broken).
    *warnings* lists the IEEE warnings the call emitted (``"Category:
    message"``), *modified* the positions of the arguments it changed,
    *environment* the finding classes the backend host observed around the call
    (``fp-environment:flush-to-zero``, ``numpy-state:error-state``,
    ``result-changed-after-return``, ...).
    """

    call: Call
    expectation: Expectation
    verdict: Verdict
    actual: Tensor | None = None
    raised: BaseException | None = None
    problem: str | None = None
    native: Any = None
    warnings: tuple[str, ...] = ()
    modified: tuple[int, ...] = ()
    environment: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.verdict.ok and not self.warnings and not self.modified and not self.environment

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


def input_snapshot(backend: Any, native: Any) -> bytes | tuple[Any, ...] | None:
    """The exact content of one converted argument, read back through the backend
    (None when the backend cannot read it back: nothing is judged then)."""
    try:
        to_numpy = getattr(backend, "to_numpy", None)
        if to_numpy is not None:
            array = np.ascontiguousarray(to_numpy(native))
            return (array.dtype.str, array.shape, array.tobytes())
        tensor = backend.to_tensor(native)
    except Exception:
        return None
    if not isinstance(tensor, Tensor):
        return None
    return (tensor.dtype, tensor.shape, tensor.bits() if tensor.dtype.name == "Float32"
            else tensor.values)  # fmt: skip


def ieee_warnings(caught: list[warnings.WarningMessage]) -> tuple[str, ...]:
    """The IEEE warnings among *caught* (every RuntimeWarning), as ``Category: message``."""
    found = [
        f"{w.category.__name__}: {w.message}"
        for w in caught
        if issubclass(w.category, RuntimeWarning)
    ]
    return tuple(dict.fromkeys(found))


class Watchdog:
    """The last resort against a call the per-call timeout cannot reach.

    The timeout is a SIGALRM (or an abandoned thread): a backend that loops in C
    without returning to the interpreter, swallows every BaseException or
    resets ``ITIMER_REAL`` outlives it.  The watchdog is a daemon thread:
    :meth:`arm` when a call's backend part starts, :meth:`disarm` when it ends;
    a call armed for more than *limit* seconds makes it run *expire* (which
    records the hang and ends the process: with pytest-xdist the controller
    reports the hung call and replaces the worker).
    """

    def __init__(self, limit: float, expire: Callable[[], None]) -> None:
        self.limit = limit
        self.expire = expire
        self._started: float | None = None
        self._lock = threading.Lock()
        thread = threading.Thread(target=self._watch, name="plancheck-watchdog", daemon=True)
        thread.start()

    def arm(self) -> None:
        with self._lock:
            self._started = time.monotonic()

    def disarm(self) -> None:
        with self._lock:
            self._started = None

    def _watch(self) -> None:
        pause = min(0.25, self.limit / 4)
        while True:
            time.sleep(pause)
            with self._lock:
                started = self._started
            if started is not None and time.monotonic() - started > self.limit:
                self.expire()
                return


#: set by the handlers of :func:`watch_interrupts` when the user interrupts the run
_INTERRUPTED = threading.Event()


def _on_interrupt(signum: int, frame: Any) -> None:
    _INTERRUPTED.set()
    raise KeyboardInterrupt(f"signal {signum}")


def watch_interrupts() -> Callable[[], None]:
    """Install SIGINT and SIGTERM handlers that mark the run as interrupted and raise
    KeyboardInterrupt (main thread only; elsewhere nothing changes); returns the
    function that restores the previous handlers.

    A backend that raises KeyboardInterrupt (or SystemExit, or any other
    BaseException) inside a call is then judged like any other exception it
    raises -- a finding about that call -- while a real interrupt still ends
    the run, and SIGTERM ends it the same way (the report says incomplete).
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    names = [name for name in ("SIGINT", "SIGTERM") if hasattr(signal, name)]
    previous = {name: signal.getsignal(getattr(signal, name)) for name in names}
    for name in names:
        signal.signal(getattr(signal, name), _on_interrupt)

    def restore() -> None:
        if threading.current_thread() is threading.main_thread():
            for name, handler in previous.items():
                signal.signal(getattr(signal, name), handler)
        _INTERRUPTED.clear()

    return restore


def is_real_interrupt(error: BaseException) -> bool:
    """Whether *error* must end the run rather than be judged: a timeout of ours, a
    KeyboardInterrupt from a real signal, or a KeyboardInterrupt when no handler of
    :func:`watch_interrupts` tells the two apart."""
    if isinstance(error, CallTimeout):
        return True
    if not isinstance(error, KeyboardInterrupt):
        return False
    return _INTERRUPTED.is_set() or signal.getsignal(signal.SIGINT) is not _on_interrupt


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
    if isinstance(backend, BackendHost):
        return _run_hosted(backend, call, ulp_budget, timeout, expectation)
    before = _allocations(backend)
    snapshots: dict[int, tuple[Any, Any]] = {}
    caught: list[warnings.WarningMessage] = []

    def execute() -> Any:
        native_args = [backend.from_tensor(a) if isinstance(a, Tensor) else a for a in call.args]
        for position, value in enumerate(call.args):
            if isinstance(value, Tensor):
                snapshots[position] = (native_args[position], None)
        for position, (native, _) in snapshots.items():
            snapshots[position] = (native, input_snapshot(backend, native))
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            try:
                return backend.execute(call.operation, *native_args, **_keywords(call))
            finally:
                caught.extend(seen)

    def hygiene(outcome: Outcome) -> Outcome:
        modified = tuple(
            position
            for position, (native, before_bits) in snapshots.items()
            if before_bits is not None and input_snapshot(backend, native) != before_bits
        )
        found = ieee_warnings(caught)
        if not found and not modified:
            return outcome
        verdict, problem = outcome.verdict, outcome.problem
        if verdict.ok:
            what = [f"emitted {w}" for w in found]
            what += [f"modified its argument {p}" for p in modified]
            verdict = Verdict(False, f"{call.operation}: the call {'; '.join(what)}")
            problem = Problem.WARNING if found else Problem.INPUT_MODIFIED
        return Outcome(outcome.call, outcome.expectation, verdict, outcome.actual, outcome.raised,
                       problem, outcome.native, found, modified)  # fmt: skip

    try:
        native = call_with_timeout(execute, timeout)
    except CallTimeout as error:
        verdict = Verdict(False, f"{call.operation}: the backend's call timed out: {error}")
        return Outcome(call, expectation, verdict, raised=error, problem=Problem.TIMEOUT)
    except BaseException as error:  # judged: the oracle decides if it was required
        if is_real_interrupt(error):
            raise
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
        elif before is not None and (after := _allocations(backend) or 0) > before:
            verdict = Verdict(
                False,
                f"{call.operation}: raised {type(error).__name__} as required, but only after "
                f"allocating a result ({after - before} allocation(s)): every "
                f"planning, shape and index error must come before any allocation",
            )
            problem = Problem.ALLOCATION_BEFORE_ERROR
        return hygiene(Outcome(call, expectation, verdict, raised=error, problem=problem))

    def convert() -> Any:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            try:
                return backend.to_tensor(native)
            finally:
                caught.extend(seen)

    try:
        actual = call_with_timeout(convert, timeout)
    except CallTimeout as error:
        verdict = Verdict(False, f"{call.operation}: the backend's to_tensor timed out: {error}")
        return Outcome(call, expectation, verdict, raised=error, problem=Problem.TIMEOUT)
    except BaseException as error:
        if is_real_interrupt(error):
            raise
        verdict = Verdict(
            False,
            f"{call.operation}: backend returned {type(native).__name__}, which its "
            f"to_tensor refused: {type(error).__name__}: {error}",
        )
        return hygiene(Outcome(call, expectation, verdict, raised=error,
                               problem=Problem.WRONG_TYPE, native=native))  # fmt: skip
    if not isinstance(actual, Tensor):
        verdict = Verdict(False, f"{call.operation}: to_tensor returned {actual!r}, not a Tensor")
        return hygiene(Outcome(call, expectation, verdict, problem=Problem.WRONG_TYPE,
                               native=native))  # fmt: skip
    verdict, problem = _judge_value(call, expectation, actual, ulp_budget)
    return hygiene(Outcome(call, expectation, verdict, actual=actual, problem=problem))


def wire_arguments(args: tuple[Any, ...]) -> list[Any]:
    """A call's arguments as they cross to the host (Tensors as raw bits)."""
    return [("tensor", encode_tensor(a)) if isinstance(a, Tensor) else a for a in args]


def _judge_value(call: Call, expectation: Expectation, actual: Tensor,
                 ulp_budget: int) -> tuple[Verdict, str | None]:  # fmt: skip
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
    return verdict, problem


def _judge_raised(call: Call, expectation: Expectation, error: BaseException,
                  allocated: int) -> tuple[Verdict, str | None]:  # fmt: skip
    try:
        verdict = expectation.check_raised(error)
    except Exception as oracle_error:
        raise OracleError(call, oracle_error, "Expectation.check_raised") from oracle_error
    if not verdict.ok:
        problem = Problem.UNEXPECTED_EXCEPTION if expectation.error is None else (
            Problem.WRONG_EXCEPTION)  # fmt: skip
        return verdict, problem
    if allocated > 0:
        verdict = Verdict(
            False,
            f"{call.operation}: raised {type(error).__name__} as required, but only after "
            f"allocating a result ({allocated} allocation(s)): every "
            f"planning, shape and index error must come before any allocation",
        )
        return verdict, Problem.ALLOCATION_BEFORE_ERROR
    return verdict, None


def _run_hosted(host: BackendHost, call: Call, ulp_budget: int, timeout: float | None,
                expectation: Expectation) -> Outcome:  # fmt: skip
    """:func:`run_call` with the backend in its host process."""
    try:
        reply = host.run(call.operation, wire_arguments(call.args), _keywords(call), timeout,
                         tag=(call, expectation))  # fmt: skip
    except HostTimeout as error:
        verdict = Verdict(False, f"{call.operation}: the backend's call timed out: {error}")
        return Outcome(call, expectation, verdict, raised=CallTimeout(str(error)),
                       problem=Problem.TIMEOUT)  # fmt: skip
    except HostCrashed as error:
        verdict = Verdict(False, f"{call.operation}: the backend crashed: {error}")
        return Outcome(call, expectation, verdict, raised=error, problem=Problem.CRASH)
    stage = reply["stage"]
    actual: Tensor | None = None
    raised: BaseException | None = None
    native: Any = None
    if stage == "execute":
        raised = rebuild_exception(reply["raised"])
        before, after = reply.get("allocations_before"), reply.get("allocations_after")
        allocated = (after or 0) - before if before is not None else 0
        verdict, problem = _judge_raised(call, expectation, raised, allocated)
    elif stage == "to_tensor":
        raised = rebuild_exception(reply["raised"])
        native = reply.get("native_type")
        verdict = Verdict(
            False,
            f"{call.operation}: backend returned {native}, which its "
            f"to_tensor refused: {type(raised).__name__}: {raised}",
        )
        problem = Problem.WRONG_TYPE
    elif stage == "not_tensor":
        verdict = Verdict(
            False, f"{call.operation}: to_tensor returned {reply['not_tensor']}, not a Tensor"
        )
        problem = Problem.WRONG_TYPE
    else:
        actual = decode_tensor(reply["result"])
        verdict, problem = _judge_value(call, expectation, actual, ulp_budget)
    found = tuple(dict.fromkeys(reply.get("warnings", ())))
    modified = tuple(reply.get("modified", ()))
    environment = tuple(reply.get("environment", ()))
    if verdict.ok and (found or modified or environment):
        what = [f"emitted {w}" for w in found]
        what += [f"modified its argument {p}" for p in modified]
        what += [f"left {e}" for e in environment]
        verdict = Verdict(False, f"{call.operation}: the call {'; '.join(what)}")
        problem = (Problem.WARNING if found else Problem.INPUT_MODIFIED if modified
                   else Problem.ENVIRONMENT)  # fmt: skip
    return Outcome(call, expectation, verdict, actual, raised, problem, native, found,
                   modified, environment)  # fmt: skip


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
