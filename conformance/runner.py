"""Run one :class:`~conformance.calls.Call` on a backend and judge it.

:func:`run_call` converts the call's Tensor operands to the backend's native
form, executes the operation, converts the result back and checks it against
``oracle.expected`` (or checks the exception the backend raised).  What the
backend does wrong -- a wrong value, a wrong exception, an unexpected
exception type, a result that is not a tensor of the plan's dtype and shape --
becomes a failing :class:`Outcome`; the oracle's own failures propagate, so
they are never blamed on the backend.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from oracle import Expectation, Tensor, Verdict, expected

from .calls import Call

__all__ = ["Outcome", "agree", "expectation_of", "run_call"]


@dataclass(frozen=True)
class Outcome:
    """The verdict on one call, with what the backend returned or raised."""

    call: Call
    expectation: Expectation
    verdict: Verdict
    actual: Tensor | None = None
    raised: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.verdict.ok


def expectation_of(call: Call) -> Expectation:
    """The oracle's Expectation for *call*."""
    return expected(call.operation, *call.args, accumulator_dtype=call.accumulator_dtype)


def _keywords(call: Call) -> dict[str, Any]:
    return {} if call.accumulator_dtype is None else {"accumulator_dtype": call.accumulator_dtype}


def run_call(backend: Any, call: Call, ulp_budget: int = 0) -> Outcome:
    """Execute *call* on *backend* and judge the result against the oracle."""
    expectation = expectation_of(call)
    native_args = [backend.from_tensor(a) if isinstance(a, Tensor) else a for a in call.args]
    try:
        native = backend.execute(call.operation, *native_args, **_keywords(call))
    except Exception as error:  # judged below: the oracle decides if it was required
        return Outcome(call, expectation, expectation.check_raised(error), raised=error)
    try:
        actual = backend.to_tensor(native)
    except Exception as error:
        verdict = Verdict(
            False,
            f"{call.operation}: backend returned {type(native).__name__}, which its "
            f"to_tensor refused: {type(error).__name__}: {error}",
        )
        return Outcome(call, expectation, verdict, raised=error)
    if not isinstance(actual, Tensor):
        verdict = Verdict(False, f"{call.operation}: to_tensor returned {actual!r}, not a Tensor")
        return Outcome(call, expectation, verdict)
    return Outcome(call, expectation, expectation.check(actual, ulp_budget), actual=actual)


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
