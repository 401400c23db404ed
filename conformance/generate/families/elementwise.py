"""The elementwise family: broadcasting operations, one result element per row of inputs.

:func:`measure` records the input classes a call hits (broadcasting, the
rounding or Int32 range of exact results, elementwise extremum ties).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

from conformance.classes.boundary import (
    ELEMENTWISE_EXTREMA,
    F32,
    I32,
    B,
    Boundary,
    PlanFacts,
    plan_facts,
)
from conformance.classes.witness_tables import (
    _EXACT_FLOAT,
    _EXACT_INT,
    _exact_fraction,
)
from conformance.generate.families.measures import Invalid as _Invalid
from conformance.generate.families.measures import (
    _extremum_classes,
    _int_result_classes,
    rounding_classes,
)
from conformance.generate.primitives import (
    _SHAPES,
    _broadcast_shapes,
    _elementwise_shaped,
    _finish,
    _make,
    _operand_dtype,
    _tensor,
    _weak_values,
)
from conformance.model.calls import Call, Family
from oracle import Arithmetic, OperandRole, OperationPlan, Tensor, binary32


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


# -- generation: valid calls, invalid calls, structural examples -----------------------


@st.composite
def _elementwise_calls(draw: Any, plan: OperationPlan) -> Call:
    tensor_positions = [i for i, o in enumerate(plan.operands) if o.role is OperandRole.TENSOR]
    if len(tensor_positions) >= 2:
        shapes = _broadcast_shapes(draw, len(tensor_positions))
    else:
        shapes = (draw(_SHAPES),)
    weak = _weak_values(draw, plan)
    operands: list[Any] = []
    shape_of = dict(zip(tensor_positions, shapes))
    for position, _ in enumerate(plan.operands):
        if position in shape_of:
            operands.append(draw(_tensor(_operand_dtype(plan, position), shape_of[position])))
        else:
            operands.append(weak[position])
    return _finish(draw, plan, operands, {})


def _mismatched_shapes(draw: Any, count: int) -> list[tuple[int, ...]]:
    shape = list(draw(array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3)))
    axis = draw(st.integers(0, len(shape) - 1))
    shape[axis] = max(shape[axis], 2)
    other = list(shape)
    other[axis] = shape[axis] + draw(st.integers(1, 2))
    shapes = [tuple(shape)] * count
    shapes[draw(st.integers(0, count - 1))] = tuple(other)
    if len(set(shapes)) == 1:  # pragma: no cover - count >= 2 always differs
        shapes[0] = tuple(other)
    return shapes


@st.composite
def _invalid_elementwise_shapes(draw: Any, plan: OperationPlan) -> Call:
    tensor_positions = [i for i, o in enumerate(plan.operands) if o.role is OperandRole.TENSOR]
    shapes = dict(zip(tensor_positions, _mismatched_shapes(draw, len(tensor_positions))))
    if len(set(shapes.values())) == 1:
        assume(False)
    weak = _weak_values(draw, plan)
    operands = [
        draw(_tensor(_operand_dtype(plan, i), shapes[i])) if i in shapes else weak[i]
        for i in range(len(plan.operands))
    ]
    return _make(plan, operands, raises=(ValueError,), note="shapes do not broadcast")


@functools.cache
def valid_calls(plan: OperationPlan) -> st.SearchStrategy[Call]:
    """Valid calls whose arguments select exactly *plan* (cached per plan)."""
    return _elementwise_calls(plan)


@functools.cache
def invalid_calls(plan: OperationPlan) -> st.SearchStrategy[Call] | None:
    """Calls of *plan* with one structural fault (None: the plan has none)."""
    return _invalid_elementwise_shapes(plan) if plan_facts(plan).tensor_count >= 2 else None


def structural_examples(
    plan: OperationPlan, facts: PlanFacts, tensor: Callable[..., Tensor]
) -> list[Call]:
    """Shapes, parameters and error paths of *plan* as deterministic calls; *tensor*
    makes ordinary tensors (``tensor(shape, dtype=operand 0's, start=1.0)``)."""
    out: list[Call] = []
    count = facts.tensor_count
    out.append(_elementwise_shaped(plan, [()] * count, "0-d operands"))
    out.append(_elementwise_shaped(plan, [(0,)] * count, "empty operands"))
    if count >= 2:
        shapes = [(2, 1), *[(3,)] * (count - 1)]
        out.append(_elementwise_shaped(plan, shapes, "broadcasting operands"))
        shapes = [(2,), *[(3,)] * (count - 1)]
        out.append(
            _elementwise_shaped(plan, shapes, "shapes that do not broadcast", raises=(ValueError,))
        )
    return out
