"""Materialising operands in the dtype their OperandPlan names.

A tensor operand already in its ``convert_to`` dtype is used as is; an Int32
tensor converted to Float32 rounds each exact integer once.  A weak scalar
becomes one value of ``convert_to``: for Float32, one correct rounding of the
scalar's *exact* value (a huge int gives ±inf, a Fraction rounds exactly, a
binary64 float rounds from its exact binary64 value); for Int32, the integer
itself (the planner has already checked its range).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from oracle import DType, OperandPlan, OperandRole, OperationPlan

from ..parameters import unreadable_weak_scalar
from .binary32 import round_ratio

__all__ = ["INT32_MAX", "INT32_MIN", "checked_int32", "operand", "to_float32", "weak_value"]

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1


def checked_int32(operation: str, value: int) -> int:
    """*value* when it lies in Int32, else OverflowError (never wraps)."""
    if not INT32_MIN <= value <= INT32_MAX:
        raise OverflowError(
            f"{operation}: the exact Int32 result {value} lies outside [{INT32_MIN}, {INT32_MAX}]"
        )
    return value


def to_float32(value: Any) -> float:
    """One correct rounding of a real number's exact value to binary32."""
    if isinstance(value, numbers.Integral):  # int, bool, numpy integers
        return round_ratio(int(value), 1)
    if isinstance(value, numbers.Rational):  # Fraction
        return round_ratio(int(value.numerator), int(value.denominator))
    if not isinstance(value, numbers.Real):  # numpy.bool_, the planner's one non-Real scalar
        return 1.0 if value else 0.0
    if math.isnan(value) or math.isinf(value):
        return float(value)
    # float, numpy floating and gmpy2.mpfr: their exact binary value; a Real of another
    # type has no exact value to round (the oracle's TypeError, not an AttributeError)
    as_integer_ratio = getattr(value, "as_integer_ratio", None)
    if as_integer_ratio is None:
        raise TypeError(f"a weak scalar of type {type(value).__name__} has no exact value")
    numerator, denominator = as_integer_ratio()
    if numerator == 0:
        return math.copysign(0.0, float(value))
    return round_ratio(numerator, denominator)


def weak_value(operand_plan: OperandPlan, value: Any) -> Any:
    """A weak scalar materialised once as its ``convert_to`` dtype."""
    if operand_plan.convert_to is DType.Int32:
        return int(value)
    return to_float32(value)


def _tensor_values(operand_plan: OperandPlan, values: tuple[Any, ...]) -> tuple[Any, ...]:
    if operand_plan.dtype is operand_plan.convert_to:
        return values
    if operand_plan.dtype is DType.Int32 and operand_plan.convert_to is DType.Float32:
        return tuple(round_ratio(v, 1) for v in values)
    raise NotImplementedError(
        f"Generic has no conversion from {operand_plan.dtype!r} to {operand_plan.convert_to!r}"
    )


def operand(plan: OperationPlan, position: int, value: Any) -> tuple[tuple[int, ...], tuple]:
    """``(shape, flat values)`` of dtype-policy operand *position*, materialised."""
    operand_plan = plan.operands[position]
    if operand_plan.role is OperandRole.WEAK_SCALAR:
        try:
            return (), (weak_value(operand_plan, value),)
        except Exception as error:  # the scalar's own __int__ or as_integer_ratio
            raise unreadable_weak_scalar(plan.operation, position, value, error) from error
    return value.shape, _tensor_values(operand_plan, value.values)
