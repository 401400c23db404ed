"""The pieces of the validation rules' faulty calls, shared by the family modules.

Each family module's ``validation_rules(plan)`` hook yields its family's faulty
calls as :data:`Fault` triples (rule name, operands, parameters) built from
these: ordinary tensors and weak scalars of a plan (:func:`plan_operands`) and the
axis faults every axis-taking family shares (:func:`axis_faults`,
:func:`empty_group`).  :mod:`conformance.generate.validation` turns the triples
into calls whose ``raises`` the oracle decides.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from oracle import DType, OperandPlan, OperationPlan, SimpleDType, Tensor
from oracle.planner import OperandRole

__all__ = [
    "Fault",
    "axis_faults",
    "empty_group",
    "plan_operands",
    "tensor",
    "tensor_dtype",
    "tensor_positions",
]

F32, I32, BOOL = DType.Float32, DType.Int32, DType.Bool

#: one faulty call: (rule name, operands, parameters)
Fault = tuple[str, list[Any], dict[str, Any]]


def tensor_dtype(operand: OperandPlan) -> SimpleDType:
    """The storage dtype of a tensor *operand* of a plan.

    ValueError for a weak scalar, whose plan names no dtype (``OperandPlan.dtype``
    is None exactly for those).
    """
    if operand.dtype is None:
        raise ValueError(f"a weak scalar operand has no storage dtype: {operand!r}")
    return operand.dtype


def tensor(dtype: SimpleDType, shape: tuple[int, ...]) -> Tensor:
    """A tensor of *shape* with small distinct ordinary values (1, 2, 3, ...)."""
    size = math.prod(shape)
    if dtype is BOOL:
        values: tuple[Any, ...] = tuple(i % 2 == 0 for i in range(size))
    elif dtype is I32:
        values = tuple(range(1, size + 1))
    else:
        values = tuple(float(i) for i in range(1, size + 1))
    return Tensor(dtype, shape, values)


def _weak_value(plan: OperationPlan, position: int) -> Any:
    """An ordinary weak scalar for *position* (its kind read from the plan)."""
    kind = plan.operands[position].dtype
    name = getattr(kind, "name", str(kind)).lower()
    if "bool" in name:
        return True
    if "int" in name:
        return 1
    return 1.0


def plan_operands(plan: OperationPlan, shapes: dict[int, tuple[int, ...]]) -> list[Any]:
    """The plan's operands: tensors of the given *shapes*, ordinary weak scalars."""
    found: list[Any] = []
    for position, operand in enumerate(plan.operands):
        if operand.role is OperandRole.WEAK_SCALAR:
            found.append(_weak_value(plan, position))
        else:
            found.append(tensor(tensor_dtype(operand), shapes.get(position, (2,))))
    return found


def tensor_positions(plan: OperationPlan) -> list[int]:
    return [i for i, o in enumerate(plan.operands) if o.role is OperandRole.TENSOR]


_BAD_AXIS_TYPES: tuple[Any, ...] = (1.0, True, [0], "0")


def axis_faults(plan: OperationPlan, extra: dict[str, Any], tuples: bool) -> Iterator[Fault]:
    x = plan_operands(plan, {0: (2, 3)})
    for axis in (2, -3):
        yield f"axis {axis} out of range for 2 dimensions", x, {"axis": axis, **extra}
    for axis in _BAD_AXIS_TYPES:
        yield f"axis {axis!r} is not an int", x, {"axis": axis, **extra}
    if tuples:
        yield "axis (0, -2) names one dimension twice", x, {"axis": (0, -2), **extra}
        yield "axis (0, 2) has a member out of range", x, {"axis": (0, 2), **extra}
        yield "axis (0, 1.0) has a member that is not an int", x, {"axis": (0, 1.0), **extra}
    else:
        yield "a tuple axis where one int is required", x, {"axis": (0,), **extra}


def empty_group(plan: OperationPlan, extra: dict[str, Any]) -> Iterator[Fault]:
    empty = plan_operands(plan, {0: (0, 3)})
    yield "an extremum over an empty group (axis None)", empty, {"axis": None, **extra}
    yield "an extremum over an empty group (axis 0)", empty, {"axis": 0, **extra}
