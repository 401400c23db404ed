"""Elementwise operations: one short rule per operation, applied after broadcasting.

Float32 rules take and return Python floats holding binary32 values; each
arithmetic step is one binary64 operation followed by one rounding to
binary32 (correct by Figueroa's theorem, see :mod:`.binary32`), with IEEE
singularities handled before Python could raise.  Int32 rules are exact over
the integers; the kernel checks the result where the plan says
INT32_EXACT_CHECKED.  Predicates return Python bools.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from oracle import Arithmetic, OperationPlan

from . import convert
from .binary32 import INF, NAN, abs_bits, is_nan, neg_bits, round_float, round_ratio, sign_bit
from .limits import check_size
from .shapes import broadcast, broadcast_shapes

__all__ = ["KERNELS", "elementwise_kernel", "int_pow", "maximum", "minimum"]

# -- Float32 arithmetic ------------------------------------------------------


def add(x: float, y: float) -> float:
    return round_float(x + y)


def sub(x: float, y: float) -> float:
    return round_float(x - y)


def mul(x: float, y: float) -> float:
    return round_float(x * y)


def div(x: float, y: float) -> float:
    """IEEE division: x/±0 is ±inf by the signs, 0/0 and NaN/0 are NaN."""
    if y == 0:
        if x == 0 or is_nan(x):
            return NAN
        return INF if sign_bit(x) == sign_bit(y) else -INF
    return round_float(x / y)


def recip(x: float) -> float:
    return div(1.0, x)


def sqrt(x: float) -> float:
    """sqrt(-0) = -0; negative (including -inf) is NaN."""
    return NAN if x < 0 else round_float(math.sqrt(x))


def rem(x: float, y: float) -> float:
    """C fmod: exact, the dividend's sign; fmod(±inf, y) = fmod(x, ±0) = NaN, fmod(x, ±inf) = x."""
    if is_nan(x) or is_nan(y) or math.isinf(x) or y == 0:
        return NAN
    if math.isinf(y):
        return x
    return math.fmod(x, y)  # exact: the remainder is representable in the operands' format


def maximum(x: float, y: float) -> float:
    """IEEE 754-2019 maximum: NaN if either is NaN; -0 < +0."""
    if is_nan(x):
        return x
    if is_nan(y):
        return y
    if x == y:
        return y if sign_bit(x) else x
    return x if x > y else y


def minimum(x: float, y: float) -> float:
    """IEEE 754-2019 minimum: NaN if either is NaN; -0 < +0."""
    if is_nan(x):
        return x
    if is_nan(y):
        return y
    if x == y:
        return x if sign_bit(x) else y
    return x if x < y else y


def sign(x: float) -> float:
    """+1 or -1; +0 for both zeros; NaN stays NaN."""
    if is_nan(x):
        return x
    return 1.0 if x > 0 else -1.0 if x < 0 else 0.0


def _to_integral(function: Callable[[float], int]) -> Callable[[float], float]:
    """A rounding-to-integer rule keeping NaN, ±inf and the sign of a zero result."""

    def rule(x: float) -> float:
        if is_nan(x) or math.isinf(x):
            return x
        return math.copysign(float(function(x)), x)

    return rule


floor = _to_integral(math.floor)
ceil = _to_integral(math.ceil)
round_half_even = _to_integral(round)  # Python's round(float) is exact, ties to even


def relu(x: float) -> float:
    return maximum(x, 0.0)


#: leaky_relu's fixed slope 0.01f, the binary32 nearest to 1/100 (bits 0x3C23D70A).
LEAKY_SLOPE = round_ratio(1, 100)


def leaky_relu(x: float) -> float:
    return x if x >= 0 else round_float(LEAKY_SLOPE * x)


# -- Int32 arithmetic (exact; the kernel narrows) ------------------------------


def int_pow(base: int, exponent: int) -> int:
    """Exact ``base ** exponent`` for exponent >= 0 (0**0 = 1).

    A power beyond 2**32 in magnitude is never built: with |base| >= 2 an
    exponent >= 32 leaves Int32 (while (-2)**31 is exactly INT32_MIN).
    """
    if abs(base) >= 2 and exponent >= 32:
        raise OverflowError(f"pow: {base}**{exponent} lies outside the Int32 range")
    return base**exponent


# -- kernels ---------------------------------------------------------------------


def _rule_for(
    operation: str, plan: OperationPlan, float_rule: Callable, int_rule: Callable | None
) -> Callable:
    if plan.compute is Arithmetic.BINARY32:
        return float_rule
    if int_rule is None:
        raise NotImplementedError(f"Generic has no {plan.compute.value} rule for {operation}")
    if plan.compute is Arithmetic.INT32_EXACT:
        return int_rule
    return lambda *values: convert.checked_int32(operation, int_rule(*values))


def elementwise_kernel(
    operation: str, float_rule: Callable, int_rule: Callable | None = None
) -> Callable[..., Any]:
    """The kernel applying *float_rule* (or *int_rule* on an Int32 plan) per element."""

    def kernel(backend: Any, plan: OperationPlan, *args: Any) -> Any:
        operands = [convert.operand(plan, p, a) for p, a in enumerate(args)]
        shape = broadcast_shapes(operation, *(s for s, _ in operands))
        check_size(operation, math.prod(shape), math.prod(shape))
        columns = [broadcast(values, s, shape) for s, values in operands]
        rule = _rule_for(operation, plan, float_rule, int_rule)
        values = [rule(*elements) for elements in zip(*columns)]
        return backend.result(plan, shape, values)

    kernel.__name__ = operation
    return kernel


_RULES: dict[str, tuple[Callable, Callable | None]] = {
    # name: (Float32 rule, Int32 rule)
    "add": (add, lambda a, b: a + b),
    "sub": (sub, lambda a, b: a - b),
    "mul": (mul, lambda a, b: a * b),
    "elementwise_mul": (mul, lambda a, b: a * b),
    "div": (div, None),
    "rem": (rem, None),
    "maximum": (maximum, None),
    "minimum": (minimum, None),
    "eq": (lambda x, y: x == y, None),
    "ne": (lambda x, y: x != y, None),
    "lt": (lambda x, y: x < y, None),
    "le": (lambda x, y: x <= y, None),
    "logical_not": (lambda x: x == 0, None),
    "neg": (neg_bits, None),
    "abs": (abs_bits, None),
    "sign": (sign, None),
    "recip": (recip, None),
    "sqrt": (sqrt, None),
    "floor": (floor, None),
    "ceil": (ceil, None),
    "round": (round_half_even, None),
    "relu": (relu, lambda a: max(a, 0)),
    "leaky_relu": (leaky_relu, None),
}

KERNELS: dict[str, Callable[..., Any]] = {
    name: elementwise_kernel(name, float_rule, int_rule)
    for name, (float_rule, int_rule) in _RULES.items()
}
