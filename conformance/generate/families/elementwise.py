"""The elementwise family: broadcasting operations, one result element per row of inputs.

:func:`measure` records the input classes a call hits (broadcasting, the
rounding or Int32 range of exact results, elementwise extremum ties).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

from conformance.classes.boundary import (
    BINARY32_EXACT_INTEGERS,
    ELEMENTWISE_EXTREMA,
    F32,
    I32,
    INT32_MAX,
    INT32_MIN,
    MAX_RANK,
    B,
    Boundary,
    PlanFacts,
    plan_facts,
)
from conformance.classes.witness_tables import (
    _EXACT_FLOAT,
    _EXACT_INT,
    _exact_fraction,
    weak_representatives,
)
from conformance.generate.families.measures import Invalid as _Invalid
from conformance.generate.families.measures import (
    _extremum_classes,
    _int_result_classes,
    rounding_classes,
)
from conformance.generate.families.shapes import add_broadcast_layout, add_lanes, add_rank
from conformance.generate.primitives import (
    _SHAPES,
    _broadcast_shapes,
    _elementwise_shaped,
    _finish,
    _make,
    _operand_dtype,
    _tensor,
    _tensor_of,
    _weak_values,
)
from conformance.generate.rule_operands import Fault, plan_operands, tensor_positions
from conformance.model.calls import Call, Family
from oracle import Arithmetic, OperandRole, OperationPlan, Tensor, binary32, operation_facts


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


def _copied_values(facts: PlanFacts, rows: Sequence[Sequence[Any]]) -> list[Any]:
    """The input value each output element copies (select: the chosen branch,
    a unary bit copy: its operand), in flat output order."""
    if facts.bool_positions:
        return [row[1] if row[0] else row[2] for row in rows]
    return [row[0] for row in rows]


def _elementwise(call: Call, facts: PlanFacts, operands: Sequence[Any], hits: set[Boundary]):
    rows = _broadcast_rows(operands, hits)
    plan = facts.plan
    shapes = [o.shape for o in operands if isinstance(o, Tensor)]
    out_shape = tuple(np.broadcast_shapes(*shapes)) if shapes else ()
    add_rank(len(out_shape), hits)
    add_broadcast_layout(shapes, out_shape, hits)
    if operation_facts(plan.operation).nan_bit_copy:
        add_lanes(_copied_values(facts, rows), hits)
    float_rule = plan.compute is Arithmetic.BINARY32 and plan.operation in _EXACT_FLOAT
    int_rule = plan.compute is Arithmetic.INT32_EXACT_CHECKED and plan.operation in _EXACT_INT
    extrema = ELEMENTWISE_EXTREMA.get(plan.operation, ())
    if facts.bool_positions:
        conditions = {row[facts.bool_positions[0]] for row in rows}
        if conditions == {True, False}:
            hits.add(B.CONDITION_MIXED)
    exact_ints: list[int | None] = []
    pow_pairs: list[tuple[int, int]] = []
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
            if plan.operation == "pow":
                exact_ints.append(exact_int)
                pow_pairs.append((int(row[0]), int(row[1])))
        for first, second, rule in extrema:
            _extremum_classes([row[first], row[second]], rule, hits, track_ties=False)
    if pow_pairs:
        _narrowed_exponent_classes(pow_pairs, exact_ints, hits)


def _narrowed_exponent_classes(
    pairs: Sequence[tuple[int, int]], results: Sequence[int | None], hits: set[Boundary]
) -> None:
    """POW_ODD_EXPONENT_ABOVE_2_24: some (base, exponent) pair is -1 to an odd exponent
    above 2**24 (binary32 rounds it to an even one, so a float fast path gives +1 for
    -1) and every result of the call fits Int32 (the call returns)."""
    if not all(r is not None and INT32_MIN <= r <= INT32_MAX for r in results):
        return
    if any(b == -1 and e > BINARY32_EXACT_INTEGERS and e % 2 for b, e in pairs):
        hits.add(B.POW_ODD_EXPONENT_ABOVE_2_24)


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


#: the lengths of the axes of the rank examples (a rank-r output has the first r)
_RANK_SHAPE = (2, 3, 2, 2, 2, 2)
#: the broadcasting layouts: the shapes of the first two tensor operands
_LAYOUTS: tuple[tuple[str, tuple[int, ...], tuple[int, ...]], ...] = (
    ("a leading length-1 axis stretched", (1, 3), (2, 3)),
    ("operands of different ranks", (3,), (2, 3)),
    ("both operands stretched", (2, 1), (1, 3)),
)
#: the output length of the lanes examples: two full 16-element blocks and a tail of 3
_LANES_LENGTH = 35
#: the quiet NaNs of the lanes examples (a payload, the sign bit set)
_QUIET_NANS = (0x7FC00001, 0xFFD2A4C6)


def _varied(dtype: Any, size: int, weak: bool) -> tuple[Any, ...]:
    """Values that differ by position (so a layout fault shows), safe for every
    operation: nonzero, small, and Int32 ones 1 when a weak scalar could overflow."""
    if dtype is F32:
        return tuple((-1.0) ** i * (0.5 + (i % 13) * 0.25) for i in range(size))
    if dtype is I32:
        return tuple(1 if weak else 1 + i % 3 for i in range(size))
    return tuple(i % 2 == 0 for i in range(size))


def _varied_call(plan: OperationPlan, shapes: Sequence[tuple[int, ...]], note: str) -> Call:
    """A call whose tensor operands have *shapes* (in order) and varied values."""
    weak = weak_representatives(plan)
    has_weak = bool(plan_facts(plan).weak_positions)
    shapes_iter = iter(shapes)
    operands: list[Any] = []
    for position, operand in enumerate(plan.operands):
        if operand.role is OperandRole.WEAK_SCALAR:
            operands.append(weak[position][0])
            continue
        shape = next(shapes_iter)
        values = _varied(operand.dtype, math.prod(shape), has_weak)
        operands.append(_tensor_of(operand.dtype, values, shape))
    return _make(plan, operands, note=note)


def _lanes_call(plan: OperationPlan, facts: PlanFacts) -> Call:
    """Quiet NaNs copied to the full blocks and the tail of a 35-element output
    (select: into the branch the condition chooses there).  Its signalling twin
    is :mod:`conformance.generate.signalling_nans`' (which replaces every NaN of
    a bit-copy example): a repro line cannot carry a signalling pattern, so no
    boundary example holds one."""
    base = _varied_call(plan, [(_LANES_LENGTH,)] * facts.tensor_count, "")
    condition = facts.bool_positions[0] if facts.bool_positions else None
    args = list(base.operands)
    for position in facts.float_positions:
        # select's x is copied where the condition (True at even i) holds, y elsewhere
        odd = condition is not None and position != condition + 1
        main, tail = (5, 33) if odd else (4, 34)
        bits = list(base.operands[position].bits())
        bits[main], bits[tail] = _QUIET_NANS
        args[position] = Tensor.from_bits(F32, (_LANES_LENGTH,), bits)
    return _make(plan, args, note="NaNs in the 16-element blocks and the tail of 35 outputs")


def shape_examples(plan: OperationPlan, facts: PlanFacts) -> list[Call]:
    """Ranks 0 to 6 of the output, the broadcasting layouts (two or more tensors)
    and, for an operation that copies NaN bits, NaNs in the blocks and the tail
    of a long output."""
    count = facts.tensor_count
    out = [
        _varied_call(plan, [_RANK_SHAPE[:rank]] * count, f"rank-{rank} operands")
        for rank in range(MAX_RANK + 1)
    ]
    if count >= 2:
        for note, first, second in _LAYOUTS:
            out.append(_varied_call(plan, [first, second, *[(2, 3)] * (count - 2)], note))
    if facts.float_positions and operation_facts(plan.operation).nan_bit_copy:
        out.append(_lanes_call(plan, facts))
    return out


def embed_group(plan: OperationPlan, group: list[Any], note: str, options: dict) -> Call | None:
    """Elementwise operations have no group: None."""
    return None


def pass_through(plan: OperationPlan, values: Sequence[float], note: str) -> Call | None:
    """None: an elementwise plan's result classes come from the palette search."""
    return None


# -- validation rules: one faulty call each (conformance.generate.validation) ---------


def validation_rules(plan: OperationPlan) -> Iterator[Fault]:
    """The faulty calls of the elementwise validation rules: shapes that do not broadcast."""
    positions = tensor_positions(plan)
    if len(positions) >= 2:
        for position in positions:
            shapes = {p: (2,) for p in positions}
            shapes[position] = (3,)
            yield (
                f"shapes do not broadcast (operand {position} is (3,), the others (2,))",
                plan_operands(plan, shapes),
                {},
            )
