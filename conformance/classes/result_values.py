"""The values behind a call's result: element by element and group by group.

:mod:`conformance.classes.result` measures result classes from these:

* :func:`elementwise_rows` -- the operand values of each element of an
  elementwise call, under numpy broadcasting (a weak scalar repeats);
* :func:`groups` -- the reduced groups of a tensor over an ``axis`` parameter
  (None, an int or a tuple), in logical order;
* :func:`exact_integer_results` -- the exact, unnarrowed results of an Int32
  integer plan (what tells a result at the Int32 limit from one past it).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from conformance.model.calls import Call, Family, family_of
from oracle import Tensor
from oracle.evaluate import REFERENCES, broadcast_shapes

__all__ = ["elementwise_rows", "exact_integer_results", "groups"]


def _broadcast(operand: Any, shape: tuple[int, ...]) -> list[Any]:
    if not isinstance(operand, Tensor):
        return [operand] * math.prod(shape)
    index = np.arange(operand.size).reshape(operand.shape)
    return [operand.values[i] for i in np.broadcast_to(index, shape).reshape(-1).tolist()]


def elementwise_rows(operation: str, operands: Sequence[Any]) -> Iterator[tuple[Any, ...]]:
    """The operand values of each result element, in row-major order of the broadcast shape.

    ValueError when the shapes do not broadcast.
    """
    shape = broadcast_shapes(
        operation, [o.shape if isinstance(o, Tensor) else () for o in operands]
    )
    columns = [_broadcast(o, shape) for o in operands]
    return zip(*columns) if columns else iter(())


def groups(tensor: Tensor, axis: Any) -> list[list[Any]]:
    """The reduced groups of *tensor* over *axis* (None, an int or a tuple), in order."""
    if axis is None:
        axes = tuple(range(tensor.ndim))
    elif isinstance(axis, (tuple, list)):
        axes = tuple(a % tensor.ndim for a in axis)
    else:
        axes = (int(axis) % max(tensor.ndim, 1),) if tensor.ndim else ()
    kept = [d for d in range(tensor.ndim) if d not in axes]
    index = np.arange(tensor.size).reshape(tensor.shape).transpose([*kept, *axes])
    reduced = math.prod(tensor.shape[d] for d in axes)
    rows = index.reshape(-1, reduced).tolist() if reduced else []
    return [[tensor.values[i] for i in row] for row in rows]


def exact_integer_results(call: Call) -> list[int | None]:
    """The exact (unnarrowed) results of an Int32 integer plan, element by element.

    Elementwise plans use the oracle's own integer rule; an EXACT_INTEGER
    reduction sums each group (reduce_sum) and matmul takes exact dot
    products.  None for an element the rule refuses to compute (integer pow
    of a result far outside Int32).  NotImplementedError for any other plan
    (a new operation of this kind needs its line here).
    """
    plan = call.plan
    family = family_of(call.operation)
    operands = [int(o) if not isinstance(o, Tensor) else o for o in call.operands]
    if family is Family.ELEMENTWISE:
        rule = REFERENCES[call.operation].int_rule
        return [_checked(rule, row) for row in elementwise_rows(call.operation, operands)]
    if family is Family.REDUCE and call.operation == "reduce_sum":
        (tensor,) = _tensors(call.operation, operands)
        return [sum(g) for g in groups(tensor, call.parameters.get("axis"))]
    if family is Family.MATMUL:
        a, b = _tensors(call.operation, operands)
        (m, k), (_, n) = a.shape, b.shape
        return [
            sum(a.values[i * k + t] * b.values[t * n + j] for t in range(k))
            for i in range(m)
            for j in range(n)
        ]
    raise NotImplementedError(f"{plan.describe()}: no exact integer result measurement")


def _tensors(operation: str, operands: Sequence[int | Tensor]) -> list[Tensor]:
    """The operands of a reduction or a matmul, each a Tensor; TypeError naming the first
    that is a scalar (these operations take no weak scalar operand)."""
    for position, operand in enumerate(operands):
        if not isinstance(operand, Tensor):
            raise TypeError(
                f"{operation}: operand {position} is the scalar {operand!r}; "
                f"this exact integer result needs a Tensor there"
            )
    return [o for o in operands if isinstance(o, Tensor)]


def _checked(rule: Any, row: Sequence[Any]) -> int | None:
    """The rule's exact result, or None when the rule itself refuses to compute it
    (integer pow raises OverflowError before any narrowing)."""
    try:
        return rule(*row)
    except OverflowError:
        return None
