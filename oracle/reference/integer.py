"""Exact reference semantics of the Int32 elementwise operations.

Each function takes Python ints in the Int32 range [-2**31, 2**31 - 1] and
returns the *exact* integer result, unbounded: the plan says where a result
is narrowed to Int32 and the driver checks it there (leaving the range is an
OverflowError, never a wrap or a saturation).  The exception is :func:`pow`,
which is checked itself, because the policy makes the Int32 power's own
result the narrowing point and because an unchecked power could be
astronomically large.

Operands are validated: a non-integer, or a bool (Bool never takes part in
numeric promotion), is a TypeError; an integer outside Int32 a ValueError.
numpy integer scalars are accepted and treated as the int they hold.
"""

from __future__ import annotations

import builtins
import numbers

from oracle.errors import describe, integer_text
from oracle.tensor import INT32_MAX, INT32_MIN

__all__ = [
    "INT32_MAX",
    "INT32_MIN",
    "POW_EXPONENT_MAX",
    "add",
    "elementwise_mul",
    "mul",
    "pow",
    "relu",
    "sub",
]

POW_EXPONENT_MAX: int = 2**31 - 1
"""The largest weak exponent of an Int32 power (the policy's [0, 2**31 - 1])."""

# The largest exponent for which some |base| >= 2 stays in range: (-2)**31 ==
# INT32_MIN.  For |base| >= 2 and exponent >= 32, |base**exponent| >= 2**32,
# which lies outside Int32 on either side.
_LAST_FITTING_EXPONENT = 31


def _operand(operation: str, position: int, x: object) -> int:
    """Return *x* as an int in the Int32 range, or raise TypeError/ValueError."""
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise TypeError(
            f"{operation}: operand {position} must be an Int32 integer (not bool); "
            f"got {describe(x)}"
        )
    value = int(x)
    if not INT32_MIN <= value <= INT32_MAX:
        raise ValueError(
            f"{operation}: operand {position} = {value} lies outside the Int32 range "
            f"[{INT32_MIN}, {INT32_MAX}]"
        )
    return value


def add(x: int, y: int) -> int:
    """The exact sum ``x + y`` (in [-2**32, 2**32 - 2]; unchecked)."""
    return _operand("add", 0, x) + _operand("add", 1, y)


def sub(x: int, y: int) -> int:
    """The exact difference ``x - y`` (in [-2**32 + 1, 2**32 - 1]; unchecked)."""
    return _operand("sub", 0, x) - _operand("sub", 1, y)


def mul(x: int, y: int) -> int:
    """The exact product ``x * y`` (at most 2**62 in magnitude; unchecked)."""
    return _operand("mul", 0, x) * _operand("mul", 1, y)


#: elementwise_mul is mul under another name (the registry lists both).
elementwise_mul = mul


def relu(x: int) -> int:
    """``max(x, 0)``: always in range, exact."""
    return builtins.max(_operand("relu", 0, x), 0)


def pow(base: int, exponent: int) -> int:
    """The exact power ``base ** exponent``, checked against Int32.

    *exponent* is the plan's weak integer exponent, in [0, 2**31 - 1]
    (ValueError outside; TypeError for a non-integer or bool).  The result is
    returned when it lies in [-2**31, 2**31 - 1]; otherwise OverflowError is
    raised, naming the base and the exponent.

    Exact cases that hold for every exponent: ``0 ** 0 == 1`` and
    ``0 ** e == 0`` for ``e >= 1``; ``1 ** e == 1``; ``(-1) ** e`` is 1 for
    even and -1 for odd ``e``.  For ``|base| >= 2``, ``|base ** e| >= 2**e``,
    so every ``e >= 32`` overflows and is refused without computing anything;
    ``e == 31`` fits only for ``base == -2`` (``(-2)**31 == -2**31``).  For
    ``e <= 31`` the power has at most 31 * 31 bits and is computed exactly,
    then checked, so no huge power is ever materialised.
    """
    base = _operand("pow", 0, base)
    if isinstance(exponent, bool) or not isinstance(exponent, numbers.Integral):
        raise TypeError(
            f"pow: operand 1 (exponent) must be an integer (not bool); got {describe(exponent)}"
        )
    exponent = int(exponent)
    if not 0 <= exponent <= POW_EXPONENT_MAX:
        raise ValueError(
            f"pow: operand 1 (exponent) = {integer_text(exponent)} lies outside the Int32 power's "
            f"exponent range [0, {POW_EXPONENT_MAX}]"
        )
    if base in (0, 1):
        return 1 if exponent == 0 else base
    if base == -1:
        return -1 if exponent & 1 else 1
    if exponent > _LAST_FITTING_EXPONENT:
        raise _overflow(base, exponent, "|base| >= 2 and exponent >= 32 give |result| >= 2**32")
    result = base**exponent
    if not INT32_MIN <= result <= INT32_MAX:
        raise _overflow(base, exponent, f"the exact result is {result}")
    return result


def _overflow(base: int, exponent: int, reason: str) -> OverflowError:
    return OverflowError(
        f"pow: Int32 {base} ** {exponent} overflows: {reason}, outside the Int32 range "
        f"[{INT32_MIN}, {INT32_MAX}]"
    )
