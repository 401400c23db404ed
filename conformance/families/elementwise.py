"""The elementwise family: broadcasting operations, one result element per row of inputs.

:func:`measure` records the input classes a call hits (broadcasting, the
rounding or Int32 range of exact results, elementwise extremum ties).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from oracle import Arithmetic, OperandRole, OperationPlan, Tensor, binary32

from ..boundaries import (
    _EXACT_FLOAT,
    _EXACT_INT,
    ELEMENTWISE_EXTREMA,
    F32,
    I32,
    B,
    Boundary,
    PlanFacts,
    _exact_fraction,
)
from ..calls import Call, Family
from .measures import Invalid as _Invalid
from .measures import (
    _extremum_classes,
    _int_result_classes,
    rounding_classes,
)


def _broadcast_rows(operands: Sequence[Any], hits: set[Boundary]) -> list[tuple[Any, ...]]:
    shapes = [o.shape for o in operands if isinstance(o, Tensor)]
    try:
        shape = np.broadcast_shapes(*shapes) if shapes else ()
    except ValueError:
        hits.add(B.ERROR_SHAPE_MISMATCH)
        raise _Invalid from None
    if len(set(shapes)) > 1:
        hits.add(B.SHAPE_BROADCAST)
    columns = []
    for operand in operands:
        if isinstance(operand, Tensor):
            index = np.broadcast_to(np.arange(operand.size).reshape(operand.shape), shape)
            columns.append([operand.values[i] for i in index.reshape(-1).tolist()])
        else:
            columns.append([operand] * math.prod(shape))
    return list(zip(*columns))


def _materialise_row(plan: OperationPlan, row: Sequence[Any]) -> list[Any]:
    out = []
    for operand_plan, value in zip(plan.operands, row):
        if operand_plan.convert_to is F32 and not (
            isinstance(value, float) and binary32.is_binary32(value)
        ):
            value = binary32.round_to_binary32(value)
        elif operand_plan.convert_to is I32 and operand_plan.role is OperandRole.WEAK_SCALAR:
            value = int(value)
        out.append(value)
    return out


def _elementwise(call: Call, facts: PlanFacts, operands: Sequence[Any], hits: set[Boundary]):
    rows = _broadcast_rows(operands, hits)
    plan = facts.plan
    float_rule = plan.compute is Arithmetic.BINARY32 and plan.operation in _EXACT_FLOAT
    int_rule = plan.compute is Arithmetic.INT32_EXACT_CHECKED and plan.operation in _EXACT_INT
    extrema = ELEMENTWISE_EXTREMA.get(plan.operation, ())
    if facts.bool_positions:
        conditions = {row[facts.bool_positions[0]] for row in rows}
        if conditions == {True, False}:
            hits.add(B.CONDITION_MIXED)
    for raw in rows:
        row = _materialise_row(plan, raw)
        if float_rule:
            x, y = (_exact_fraction(v) for v in row)
            if x is not None and y is not None:
                exact = _EXACT_FLOAT[plan.operation](x, y)
                if exact is not None:
                    hits |= rounding_classes(exact)
        elif int_rule:
            exact_int = _EXACT_INT[plan.operation](int(row[0]), int(row[1]))
            if exact_int is not None:
                _int_result_classes(exact_int, hits)
        for first, second, rule in extrema:
            _extremum_classes([row[first], row[second]], rule, hits, track_ties=False)


FAMILIES = frozenset({Family.ELEMENTWISE})


def measure(
    call: Call, facts: PlanFacts, operands: Sequence[Any], parameters: dict, hits: set
) -> None:
    """Add the classes of *call* to *hits* (raises Invalid for a refused structure)."""
    _elementwise(call, facts, operands, hits)
