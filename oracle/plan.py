"""The immutable plan records of the operation dtype policy.

An :class:`OperationPlan` is the complete, backend-independent dtype decision
for one operation invocation: how each positional operand is materialised
(:class:`OperandPlan`), the per-element :class:`Arithmetic`, the
term-combination :class:`Accumulation` with its accumulator dtype, and the
result dtype.  Plans are frozen dataclasses, hashable and comparable by value;
the dtypes inside them compare by identity.

A plan carries no autograd field: only a result of exactly ``DType.Float32`` is
differentiable (:func:`is_differentiable`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .dtypes import DType, SimpleDType

__all__ = [
    "Accumulation",
    "Arithmetic",
    "OperandPlan",
    "OperandRole",
    "OperationPlan",
    "is_differentiable",
]


class OperandRole(enum.Enum):
    """How one positional operand reaches the planner."""

    TENSOR = "tensor"  #: supplied as its storage SimpleDType
    WEAK_SCALAR = "weak_scalar"  #: supplied as a real Python value, no dtype of its own


class Arithmetic(enum.Enum):
    """Per-element compute semantics, applied before any combination of terms."""

    #: IEEE 754 binary32, round to nearest even, no wider intermediates,
    #: no reassociation, no fused contraction.
    BINARY32 = "binary32"
    #: exact integer arithmetic; OverflowError when the exact result leaves Int32.
    INT32_EXACT_CHECKED = "int32_exact_checked"
    #: exact integer arithmetic whose result is known to stay in Int32 range.
    INT32_EXACT = "int32_exact"


class Accumulation(enum.Enum):
    """How several computed terms are combined into one result element."""

    #: combine in the plan's accumulator_dtype, association order chosen by the backend.
    FLOATING = "floating"
    #: add in ascending logical order, rounding to binary32 after every addition.
    SEQUENTIAL_BINARY32 = "sequential_binary32"
    #: multiply in ascending logical order, rounding to binary32 after every product.
    SEQUENTIAL_BINARY32_PRODUCT = "sequential_binary32_product"
    #: the reference Float32 maximum (NaN and signed-zero rules) in logical order.
    MAXIMUM = "maximum"
    #: the reference Float32 minimum (NaN and signed-zero rules) in logical order.
    MINIMUM = "minimum"
    #: MAXIMUM, keeping the first winning logical ordinal.
    ARGMAX = "argmax"
    #: MINIMUM, keeping the first winning logical ordinal.
    ARGMIN = "argmin"
    #: exact integer combination; only the final narrowing to Int32 is checked.
    EXACT_INTEGER = "exact_integer"


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise TypeError(message)


@dataclass(frozen=True)
class OperandPlan:
    """One positional operand: its role, source dtype and compute dtype.

    *dtype* is the source storage SimpleDType for a tensor and ``None`` for a
    weak scalar; *convert_to* is the SimpleDType the operand is materialised in.
    """

    role: OperandRole
    dtype: SimpleDType | None
    convert_to: SimpleDType

    def __post_init__(self) -> None:
        _require(isinstance(self.role, OperandRole), f"role must be an OperandRole: {self.role!r}")
        if self.role is OperandRole.TENSOR:
            _require(
                isinstance(self.dtype, SimpleDType),
                f"a tensor operand's dtype must be a SimpleDType, got {self.dtype!r}",
            )
        else:
            _require(self.dtype is None, f"a weak scalar's dtype must be None, got {self.dtype!r}")
        _require(
            isinstance(self.convert_to, SimpleDType),
            f"convert_to must be a SimpleDType, got {self.convert_to!r}",
        )


@dataclass(frozen=True)
class OperationPlan:
    """The complete dtype decision for one operation invocation."""

    operation: str
    operands: tuple[OperandPlan, ...]
    compute: Arithmetic
    accumulation: Accumulation | None
    accumulator_dtype: SimpleDType | None
    output: SimpleDType

    def __post_init__(self) -> None:
        _require(isinstance(self.operation, str), f"operation must be a str: {self.operation!r}")
        _require(
            isinstance(self.operands, tuple)
            and all(isinstance(o, OperandPlan) for o in self.operands),
            f"operands must be a tuple of OperandPlan, got {self.operands!r}",
        )
        _require(
            isinstance(self.compute, Arithmetic), f"compute must be an Arithmetic: {self.compute!r}"
        )
        _require(
            self.accumulation is None or isinstance(self.accumulation, Accumulation),
            f"accumulation must be an Accumulation or None: {self.accumulation!r}",
        )
        _require(
            self.accumulator_dtype is None or isinstance(self.accumulator_dtype, SimpleDType),
            f"accumulator_dtype must be a SimpleDType or None: {self.accumulator_dtype!r}",
        )
        _require(
            isinstance(self.output, SimpleDType), f"output must be a SimpleDType: {self.output!r}"
        )

    @property
    def roles(self) -> tuple[OperandRole, ...]:
        return tuple(operand.role for operand in self.operands)

    def describe(self) -> str:
        """One line: ``add(Int32->Float32, Float32) binary32 -> Float32``."""
        parts = []
        for operand in self.operands:
            source = "weak" if operand.dtype is None else operand.dtype.name
            target = operand.convert_to.name
            parts.append(source if source == target else f"{source}->{target}")
        accumulation = ""
        if self.accumulation is not None:
            accumulation = f" acc={self.accumulation.value}"
            if self.accumulator_dtype is not None:
                accumulation += f"[{self.accumulator_dtype.name}]"
        return (
            f"{self.operation}({', '.join(parts)}) {self.compute.value}{accumulation}"
            f" -> {self.output.name}"
        )


def is_differentiable(plan: OperationPlan) -> bool:
    """The framework-wide autograd rule: only an exact Float32 result participates."""
    return plan.output is DType.Float32
