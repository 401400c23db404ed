"""Plan resolvers: the promotion rules the operation table is built from.

Every built-in operation resolves with one :class:`PromotionRule`, which holds
up to two :class:`Branch` values -- the integer branch, taken when all numeric
operands are Int32 (and the weak scalars allow it), and the floating branch,
which materialises every numeric operand as Float32.  Operands in
*kept_positions* (select's Bool condition, gather's Int32 indices) are
materialised in their own dtype on either branch.

Rules see only validated operands: each tensor operand as its SimpleDType
(already checked against the overload's domain) and each weak scalar as its
real Python value.
"""

from __future__ import annotations

import enum
import numbers
from dataclasses import dataclass
from typing import TypeGuard

from . import errors
from .dtypes import INT32_MAX, INT32_MIN, DType, SimpleDType
from .plan import Accumulation, Arithmetic, OperandPlan, OperandRole, OperationPlan

__all__ = ["Branch", "PromotionRule", "WeakIntegers", "is_weak_integer", "is_weak_scalar"]


def is_weak_scalar(value: object) -> TypeGuard[numbers.Real]:
    """True for a real Python number: a ``numbers.Real`` (int, float, bool,
    Fraction, numpy integer and floating scalars).

    ``numpy.bool_`` is not a ``numbers.Real`` and is therefore not a weak
    scalar (the specification's non-real weak scalar, a TypeError).
    """
    return isinstance(value, numbers.Real)


def is_weak_integer(value: object) -> TypeGuard[numbers.Integral]:
    """True when a weak scalar selects the integer kind: integral and not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


class WeakIntegers(enum.Enum):
    """What a weak integer scalar does on an operation with an integer branch."""

    #: it keeps the integer branch and must fit Int32, else OverflowError.
    CHECKED = "checked"
    #: only an exponent in [0, 2**31 - 1] keeps the integer branch; any other
    #: integer selects the floating branch (pow's rule).
    EXPONENT = "exponent"


@dataclass(frozen=True)
class Branch:
    """The compute, accumulation and output of one side of a rule."""

    compute: Arithmetic
    output: SimpleDType
    accumulation: Accumulation | None = None

    @property
    def accumulator_dtype(self) -> SimpleDType | None:
        """The policy default: Float32 for floating accumulation, else none."""
        return DType.Float32 if self.accumulation is Accumulation.FLOATING else None


@dataclass(frozen=True)
class PromotionRule:
    """Choose the integer or the floating branch and build the plan."""

    floating: Branch
    integer: Branch | None = None
    weak_integers: WeakIntegers = WeakIntegers.CHECKED
    kept_positions: tuple[int, ...] = ()

    def __call__(self, operation: str, *operands: object) -> OperationPlan:
        branch = self.integer if self._takes_integer_branch(operands) else self.floating
        assert branch is not None
        numeric_dtype = DType.Int32 if branch is self.integer else DType.Float32
        plans = []
        for position, operand in enumerate(operands):
            if isinstance(operand, SimpleDType):
                target = operand if position in self.kept_positions else numeric_dtype
                plans.append(OperandPlan(OperandRole.TENSOR, operand, target))
                continue
            # on the integer branch every weak operand is a weak integer
            # (_takes_integer_branch); the floating branch has no range
            if is_weak_integer(operand) and numeric_dtype is DType.Int32:
                value = int(operand)
                if not INT32_MIN <= value <= INT32_MAX:
                    raise errors.weak_integer_range(operation, position, value)
            plans.append(OperandPlan(OperandRole.WEAK_SCALAR, None, numeric_dtype))
        return OperationPlan(
            operation=operation,
            operands=tuple(plans),
            compute=branch.compute,
            accumulation=branch.accumulation,
            accumulator_dtype=branch.accumulator_dtype,
            output=branch.output,
        )

    def _takes_integer_branch(self, operands: tuple[object, ...]) -> bool:
        if self.integer is None:
            return False
        for position, operand in enumerate(operands):
            if position in self.kept_positions:
                continue
            if isinstance(operand, SimpleDType):
                if operand is not DType.Int32:
                    return False
            elif not is_weak_integer(operand):
                return False
            elif self.weak_integers is WeakIntegers.EXPONENT and not (
                0 <= int(operand) <= INT32_MAX
            ):
                return False
        return True
