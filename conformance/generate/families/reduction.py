"""The reduction family and its relatives over one axis: reduce, arg, scan, sort, topk.

:func:`measure` records the axis classes, the sum, product and extremum
classes of every group, and the order classes of sort and topk.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

from conformance.classes.boundary import (
    F32,
    LENGTHS,
    LONG_ROW,
    MAX_RANK,
    OFF_LAST_AXIS_EXTREMA,
    B,
    Boundary,
    PlanFacts,
    plan_facts,
)
from conformance.generate.accumulator_witnesses import witness as accumulator_witness
from conformance.generate.families.measures import Invalid as _Invalid
from conformance.generate.families.measures import (
    _extremum_classes,
    _order_classes,
    _product_classes,
    _sum_classes,
    accumulation_classes,
)
from conformance.generate.families.shapes import (
    add_axes,
    add_extremum_lanes,
    add_length,
    add_rank,
    add_several_axes,
)
from conformance.generate.int32_partials import witness as int32_partial_witness
from conformance.generate.order_values import (
    cancelling_terms,
    distinct_row,
    integer_terms,
    product_factors,
    product_witness,
    sum_witness,
    tied_row,
)
from conformance.generate.primitives import (
    _AXIS_ERRORS,
    _SHAPES,
    _finish,
    _fits,
    _make,
    _operand_dtype,
    _tensor,
    _tensor_of,
)
from conformance.generate.rule_operands import Fault, axis_faults, empty_group, plan_operands
from conformance.model.calls import Call, Family, ParameterKind
from oracle import Accumulation, DType, OperationPlan, Tensor, binary32


def _axis_ok(axis: Any, ndim: int) -> bool:
    return (
        isinstance(axis, (int, np.integer))
        and not isinstance(axis, (bool, np.bool_))
        and -ndim <= int(axis) < ndim
    )


def _normalised_axes(axis: Any, kind: ParameterKind, ndim: int, hits: set[Boundary]) -> tuple:
    if axis is None and kind in (ParameterKind.AXES, ParameterKind.OPTIONAL_AXIS):
        hits.add(B.AXIS_NONE)
        return tuple(range(ndim))
    if isinstance(axis, tuple) and kind is ParameterKind.AXES:
        if not axis:
            hits.add(B.AXIS_EMPTY_TUPLE)
        if len(axis) >= 2:
            hits.add(B.AXIS_MULTIPLE)
        axes = axis
    else:
        axes = (axis,)
    if not all(_axis_ok(a, ndim) for a in axes):
        hits.add(B.ERROR_BAD_AXIS)
        raise _Invalid
    if any(int(a) < 0 for a in axes):
        hits.add(B.AXIS_NEGATIVE)
    normalised = tuple(int(a) % ndim for a in axes)
    if len(set(normalised)) != len(normalised):
        hits.add(B.ERROR_BAD_AXIS)
        raise _Invalid
    return normalised


def _groups(tensor: Tensor, axes: Sequence[int]) -> list[list[Any]]:
    """The tensor's values grouped over *axes*, each group in logical order."""
    index = np.arange(tensor.size).reshape(tensor.shape)
    kept = [a for a in range(tensor.ndim) if a not in axes]
    moved = np.transpose(index, (*kept, *sorted(axes)))
    reduced = math.prod(tensor.shape[a] for a in axes)
    outer = math.prod(tensor.shape[a] for a in kept)
    flat = moved.reshape(outer, reduced)
    return [[tensor.values[i] for i in row] for row in flat.tolist()]


def _reduction(call: Call, facts: PlanFacts, operands, parameters, hits) -> None:
    x = operands[0]
    kind = facts.axis_kind()
    assert kind is not None
    axis = parameters.get("axis")
    if facts.family in (Family.SCAN, Family.SORT, Family.TOPK) and x.ndim == 0:
        hits.add(B.ERROR_BAD_AXIS)
        raise _Invalid
    if x.ndim == 0 and (axis is None or axis == ()):
        hits.add(B.AXIS_NONE if axis is None else B.AXIS_EMPTY_TUPLE)
        axes: tuple = ()
    else:
        axes = _normalised_axes(axis, kind, x.ndim, hits)
    if any(
        name in parameters and not isinstance(parameters[name], bool)
        for name in ("keepdims", "descending", "largest")
    ):
        hits.add(B.ERROR_BAD_PARAMETER)
        raise _Invalid
    if parameters.get("keepdims") is True:
        hits.add(B.KEEPDIMS)
    groups = _groups(x, axes)
    accumulation = facts.plan.accumulation
    rule = facts.extremum_rule
    if rule is not None:
        if any(not g for g in groups):
            hits.add(B.ERROR_EMPTY_EXTREMUM)
            raise _Invalid
        ties = accumulation in (Accumulation.ARGMAX, Accumulation.ARGMIN)
        strided = x.ndim >= 2 and x.ndim - 1 not in axes
        for g in groups:
            found: set[Boundary] = set()
            _extremum_classes(g, rule, found, track_ties=ties)
            hits |= found
            if strided:
                hits |= {OFF_LAST_AXIS_EXTREMA[c] for c in found if c in OFF_LAST_AXIS_EXTREMA}
        return
    if facts.family in (Family.SORT, Family.TOPK):
        descending = bool(parameters.get("descending", False))
        k = None
        if facts.family is Family.TOPK:
            descending = bool(parameters.get("largest", True))
            if not descending:
                hits.add(B.TOPK_SMALLEST)
            k = parameters.get("k")
            n = x.shape[axes[0]]
            if k == 0:
                hits.add(B.TOPK_K_ZERO)
            if k == n:
                hits.add(B.TOPK_K_ALL)
            if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= n:
                hits.add(B.ERROR_BAD_PARAMETER)
                raise _Invalid
        elif descending:
            hits.add(B.SORT_DESCENDING)
        for g in groups:
            _order_classes(g, descending, k, hits)
        return
    off_last_axis = x.ndim >= 2 and x.ndim - 1 not in axes
    for g in groups:
        if accumulation is Accumulation.SEQUENTIAL_BINARY32_PRODUCT:
            _product_classes(g, hits)
        else:
            _sum_classes(g, hits)
        accumulation_classes(facts.plan, g, hits, off_last_axis=off_last_axis)


FAMILIES = frozenset({Family.REDUCE, Family.ARG, Family.SCAN, Family.SORT, Family.TOPK})


def measure(
    call: Call, facts: PlanFacts, operands: Sequence[Any], parameters: dict, hits: set
) -> None:
    """Add the classes of *call* to *hits* (raises Invalid for a refused structure)."""
    _reduction(call, facts, operands, parameters, hits)
    _shape_classes(facts, operands[0], parameters, hits)


def _shape_classes(facts: PlanFacts, x: Tensor, parameters: dict, hits: set[Boundary]) -> None:
    """The rank, axis, length and layout classes of a valid call of a row family."""
    add_rank(x.ndim, hits)
    axis = parameters.get("axis")
    written = () if axis is None else axis if isinstance(axis, tuple) else (axis,)
    add_axes(written, x.ndim, hits)
    axes = tuple(range(x.ndim)) if axis is None else tuple(int(a) % x.ndim for a in written)
    add_length(math.prod(x.shape[a] for a in axes), hits)
    if facts.family is Family.REDUCE:
        keepdims = parameters.get("keepdims") is True
        add_several_axes(x.shape, axes, keepdims, x.values, hits)
    rule = facts.extremum_rule
    if rule is not None and x.size:
        ties = facts.family is Family.ARG
        for group in _groups(x, axes):
            add_extremum_lanes(group, rule, ties, hits)
    if facts.family is Family.TOPK and B.TOPK_TIE_AT_CUTOFF in hits:
        k, n = parameters.get("k"), x.shape[axes[0]]
        if n > LONG_ROW and isinstance(k, int) and 0 < k < n:
            hits.add(B.TOPK_LONG_ROW_TIE)


# -- generation: valid calls, invalid calls, structural examples -----------------------


def _axes(draw: Any, ndim: int, kind: str) -> Any:
    """A valid axis argument for *ndim* dimensions (None / int / tuple by *kind*)."""
    options = ["none"] if kind in ("axes", "optional") else []
    if ndim:
        options.append("int")
    if kind == "axes":
        options.append("tuple")
    choice = draw(st.sampled_from(options))
    if choice == "none":
        return None
    if choice == "int":
        return draw(st.integers(-ndim, ndim - 1))
    chosen = draw(st.permutations(range(ndim)))[: draw(st.integers(0, ndim))]
    return tuple(a - ndim if draw(st.booleans()) else a for a in chosen)


def _reduced_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, tuple):
        return tuple(a % ndim for a in axis)
    return (axis % ndim,)


@st.composite
def _reduction_calls(draw: Any, plan: OperationPlan) -> Call:
    facts = plan_facts(plan)
    family = facts.family
    shape = list(draw(_SHAPES))
    if family in (Family.SCAN, Family.SORT, Family.TOPK) and not shape:
        shape = [draw(st.integers(0, 4))]
    kind = {Family.REDUCE: "axes", Family.ARG: "optional"}.get(family, "int")
    axis = _axes(draw, len(shape), kind)
    if facts.extremum_rule is not None:
        for a in _reduced_axes(axis, len(shape)):  # every group non-empty
            shape[a] = max(shape[a], 1)
    shape_t = tuple(shape)
    x = draw(_tensor(_operand_dtype(plan, 0), shape_t))
    parameters: dict[str, Any] = {"axis": axis}
    if family is Family.REDUCE:
        parameters["keepdims"] = draw(st.booleans())
    elif family is Family.SORT:
        parameters["descending"] = draw(st.booleans())
    elif family is Family.TOPK:
        n = shape_t[axis % len(shape_t)]
        parameters = {"k": draw(st.integers(0, n)), "axis": axis, "largest": draw(st.booleans())}
    return _finish(draw, plan, [x], parameters)


@st.composite
def _invalid_reduction(draw: Any, plan: OperationPlan) -> Call:
    facts = plan_facts(plan)
    family = facts.family
    shape = draw(array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    ndim = len(shape)
    kinds = ["axis"]
    if family is Family.REDUCE and ndim >= 1:
        kinds.append("duplicate")
    if facts.extremum_rule is not None:
        kinds.append("empty")
    kind = draw(st.sampled_from(kinds))
    parameters: dict[str, Any] = {}
    raises = _AXIS_ERRORS
    if kind == "axis":
        axis = draw(st.one_of(st.integers(ndim, ndim + 2), st.integers(-ndim - 2, -ndim - 1)))
        note = f"axis {axis} out of range for {ndim} dimensions"
    elif kind == "duplicate":
        a = draw(st.integers(0, ndim - 1))
        axis = (a, a - ndim)
        note = f"axis {axis} names one axis twice"
    else:
        shape = list(shape)
        axis = draw(st.one_of(st.none(), st.integers(0, ndim - 1)))
        shape[0 if axis is None else axis] = 0
        shape = tuple(shape)
        raises = (ValueError,)
        note = "an extremum over an empty group"
    x = draw(_tensor(_operand_dtype(plan, 0), tuple(shape)))
    parameters["axis"] = axis
    if family is Family.REDUCE:
        parameters["keepdims"] = False
    elif family is Family.TOPK:
        parameters = {"k": 0, "axis": axis, "largest": True}
    elif family is Family.SORT:
        parameters["descending"] = False
    return _make(plan, [x], parameters, raises=raises, note=note)


@functools.cache
def valid_calls(plan: OperationPlan) -> st.SearchStrategy[Call]:
    """Valid calls whose arguments select exactly *plan* (cached per plan)."""
    return _reduction_calls(plan)


@functools.cache
def invalid_calls(plan: OperationPlan) -> st.SearchStrategy[Call] | None:
    """Calls of *plan* with one structural fault (None: the plan has none)."""
    return _invalid_reduction(plan)


def structural_examples(
    plan: OperationPlan, facts: PlanFacts, tensor: Callable[..., Tensor]
) -> list[Call]:
    """Shapes, parameters and error paths of *plan* as deterministic calls; *tensor*
    makes ordinary tensors (``tensor(shape, dtype=operand 0's, start=1.0)``)."""
    family = facts.family
    out: list[Call] = []
    if family in (Family.REDUCE, Family.ARG):
        extremum = facts.extremum_rule is not None

        def reduce_call(x: Tensor, axis: Any, keepdims: bool = False, **kw: Any) -> Call:
            parameters: dict[str, Any] = {"axis": axis}
            if family is Family.REDUCE:
                parameters["keepdims"] = keepdims
            return _make(plan, [x], parameters, **kw)

        out.append(reduce_call(tensor(()), None, note="0-d input"))
        out.append(reduce_call(tensor((2, 3)), None, note="axis None"))
        out.append(reduce_call(tensor((2, 3)), -1, note="negative axis"))
        out.append(reduce_call(tensor((2, 0)), 0, note="empty input, non-empty groups"))
        out.append(reduce_call(tensor((2, 3)), 2, raises=_AXIS_ERRORS, note="axis out of range"))
        if family is Family.REDUCE:
            out.append(reduce_call(tensor((2, 2, 2)), (0, -1), note="two axes"))
            out.append(reduce_call(tensor((2, 2)), (), note="no axes"))
            out.append(reduce_call(tensor((2, 3)), 1, True, note="keepdims"))
            out.append(
                reduce_call(tensor((2, 3)), (1, -1), raises=_AXIS_ERRORS, note="a repeated axis")
            )
            if not extremum:
                out.append(reduce_call(tensor((0,)), None, note="an empty reduction"))
            out.append(
                reduce_call(tensor((2,)), None, 1, raises=(TypeError,), note="keepdims=1")  # type: ignore[arg-type]
            )
        if extremum:
            out.append(
                reduce_call(tensor((0,)), None, raises=(ValueError,), note="an extremum of nothing")
            )
        return out

    def row_call(
        x: Tensor,
        axis: int,
        *,
        k: int = 1,
        largest: bool = True,
        descending: bool = False,
        **kw: Any,
    ) -> Call:
        parameters: dict[str, Any] = {"axis": axis}
        if family is Family.TOPK:
            parameters = {"k": k, "axis": axis, "largest": largest}
        elif family is Family.SORT:
            parameters["descending"] = descending
        return _make(plan, [x], parameters, **kw)

    out.append(row_call(tensor((2, 3)), -1, note="negative axis"))
    out.append(row_call(tensor((0,)), 0, k=0, note="empty input"))
    out.append(row_call(tensor((2, 3)), 2, raises=_AXIS_ERRORS, note="axis out of range"))
    if family is Family.SORT:
        out.append(row_call(tensor((3,)), 0, descending=True, note="descending"))
        bad_flag = {"axis": 0, "descending": 1}
        out.append(_make(plan, [tensor((3,))], bad_flag, raises=(TypeError,), note="descending=1"))
    if family is Family.TOPK:
        out.append(row_call(tensor((3,)), 0, k=2, largest=False, note="smallest"))
        out.append(row_call(tensor((3,)), 0, k=0, note="k = 0"))
        out.append(row_call(tensor((3,)), 0, k=3, note="k = n"))
        no_k = {"k": None, "axis": 0, "largest": True}
        out.append(_make(plan, [tensor((3,))], no_k, raises=(TypeError,), note="k=None"))
    return out


#: the lengths of the axes of the rank and axis examples (a rank-r input has the first r;
#: unequal lengths, so that an axis mix-up changes the result's shape)
_RANK_SHAPE = (3, 2, 4, 2, 2, 2)


def _row_values(plan: OperationPlan, n: int, seed: int) -> tuple[Any, ...]:
    """Order-sensitive finite values for *n* terms of *plan*'s accumulation."""
    accumulation = plan.accumulation
    if _operand_dtype(plan, 0) is not F32:
        return integer_terms(n, seed)
    if accumulation is Accumulation.SEQUENTIAL_BINARY32_PRODUCT:
        return product_factors(n, seed)
    rule = plan_facts(plan).extremum_rule
    if rule is not None:
        return distinct_row(n, seed, largest_last=rule == "max")
    if plan_facts(plan).family in (Family.SORT, Family.TOPK):
        return tied_row(n, seed)
    return cancelling_terms(n, seed)


#: the quiet NaN of the extremum lane examples (a payload)
_NAN_PAYLOAD_BITS = 0x7FC00001


def _extremum_lane_examples(plan: OperationPlan, facts: PlanFacts) -> list[Call]:
    """Extremum groups of 33 and 17 (two and one full 16-element blocks and a
    tail): a NaN in the blocks, a NaN in the tail, and the extreme at 7 and again
    at 18 (a later element in a lower lane)."""
    largest = facts.extremum_rule == "max"
    out = []
    for n, where, note in ((33, 5, "blocks"), (33, 32, "tail"), (17, 16, "tail")):
        row = list(distinct_row(n, where, largest_last=largest))
        row[where] = binary32.from_bits(_NAN_PAYLOAD_BITS)
        out.append(_extremum_call(plan, facts, row, f"a NaN in the {note} of {n} terms"))
    row = list(distinct_row(40, 7, largest_last=largest))
    row[7] = row[18] = row[-1]
    row[-1] = sorted(row)[len(row) // 2]
    out.append(_extremum_call(plan, facts, row, "the extreme at 7 and in a lower lane at 18"))
    return out


#: the columns of the strided extremum examples, written for the maximum (the minimum's
#: negate every nonzero number): a NaN later, +0 after -0, -0 after +0, NaNs of different
#: bits, a repeated extreme, a NaN in the last row
_STRIDED_COLUMNS: tuple[tuple[float, ...], ...] = (
    (1.0, math.nan, 2.0, 3.0),
    (-0.0, 0.0, -1.0, -2.0),
    (0.0, -0.0, -1.0, -2.0),
    (1.0, binary32.from_bits(_NAN_PAYLOAD_BITS), binary32.from_bits(0xFFC00000), 0.0),
    (1.0, 3.0, 2.0, 3.0),
    (1.0, 2.0, 3.0, math.nan),
)


def _strided_extremum_examples(plan: OperationPlan, facts: PlanFacts) -> list[Call]:
    """The extremum rules off the last axis (STRIDED_EXTREMUM): the columns of
    :data:`_STRIDED_COLUMNS` down axis 0 of a 4 x 6 input, and down the middle axis of
    a 2 x 4 x 3 one (the same six columns), where a kernel's strided path folds whole
    rows from the first."""
    sign = 1.0 if facts.extremum_rule == "max" else -1.0
    columns = [[v if v == 0 or math.isnan(v) else sign * v for v in c] for c in _STRIDED_COLUMNS]
    rows = len(columns[0])
    flat2 = [columns[c][r] for r in range(rows) for c in range(len(columns))]
    flat3 = [columns[3 * i + c][r] for i in range(2) for r in range(rows) for c in range(3)]
    out = []
    for values, shape, axis in ((flat2, (rows, 6), 0), (flat3, (2, rows, 3), 1)):
        parameters: dict[str, Any] = {"axis": axis}
        if facts.family is Family.REDUCE:
            parameters["keepdims"] = False
        note = f"NaNs and signed zeros down axis {axis} of a {len(shape)}-d input (strided)"
        out.append(_make(plan, [_tensor_of(F32, values, shape)], parameters, note=note))
    return out


def _extremum_call(plan: OperationPlan, facts: PlanFacts, row: list[float], note: str) -> Call:
    parameters: dict[str, Any] = {"axis": 0}
    if facts.family is Family.REDUCE:
        parameters["keepdims"] = False
    return _make(plan, [_tensor_of(F32, row)], parameters, note=note)


def _order_witness(plan: OperationPlan, n: int) -> tuple[Any, ...] | None:
    """For a sequential accumulation, *n* terms whose sequential result differs
    from every other plausible order (:mod:`conformance.generate.order_values`);
    for a FLOATING sum with a Float64 accumulator, *n* terms on which every way of
    not honouring it is rejected (:mod:`conformance.generate.accumulator_witnesses`;
    None below 3 terms); for an EXACT_INTEGER sum, *n* Int32 terms whose total fits
    while a partial sum of every parallel order leaves Int32
    (:mod:`conformance.generate.int32_partials`; None below 4 terms)."""
    if plan.accumulation is Accumulation.EXACT_INTEGER:
        return int32_partial_witness(n)
    if plan.accumulation is Accumulation.SEQUENTIAL_BINARY32:
        return sum_witness(n)
    if plan.accumulation is Accumulation.SEQUENTIAL_BINARY32_PRODUCT:
        return product_witness(n)
    if plan.accumulator_dtype is DType.Float64:
        return accumulator_witness(n)
    return None


def _off_last_axis(plan: OperationPlan, witness: Sequence[float], note: str) -> Call:
    """*witness* down both columns of an n x 2 input, reduced over axis 0 (a strided
    reduction, off the last axis)."""
    n = len(witness)
    x = _tensor_of(F32, [v for v in witness for _ in range(2)], (n, 2))
    return _make(plan, [x], {"axis": 0, "keepdims": False}, note=note)


def shape_examples(plan: OperationPlan, facts: PlanFacts) -> list[Call]:
    """The shape classes of a row family as deterministic calls: one row of every
    LENGTH, every axis of ranks 1 to 6 (both spellings), several axes with
    keepdims both ways (reduce), a long top-k row with a tie at the cut-off, the
    lanes and the strided path of extrema."""
    family = facts.family
    dtype = _operand_dtype(plan, 0)

    def call(shape: tuple[int, ...], axis: Any, note: str, seed: int, **extra: Any) -> Call:
        x = _tensor_of(dtype, _row_values(plan, math.prod(shape), seed), shape)
        parameters: dict[str, Any] = {"axis": axis}
        if family is Family.REDUCE:
            parameters["keepdims"] = extra.get("keepdims", False)
        elif family is Family.SORT:
            parameters["descending"] = extra.get("descending", False)
        elif family is Family.TOPK:
            n = shape[axis] if isinstance(axis, int) else math.prod(shape)
            k = extra.get("k", max(1, n // 3))
            parameters = {"k": k, "axis": axis, "largest": True}
        return _make(plan, [x], parameters, note=note)

    out = []
    for n in LENGTHS:
        witness = _order_witness(plan, n)
        if witness is None:
            out.append(call((n,), 0, f"a row of {n} terms", n))
            continue
        x = _tensor_of(dtype, witness)
        parameters: dict[str, Any] = {"axis": 0}
        if family is Family.REDUCE:
            parameters["keepdims"] = False
        kind = (
            "a Float64-accumulator"
            if plan.accumulator_dtype is DType.Float64
            else "an Int32 partial-sum"
            if plan.accumulation is Accumulation.EXACT_INTEGER
            else "an order"
        )
        out.append(_make(plan, [x], parameters, note=f"{kind} witness of {n} terms"))
        if plan.accumulator_dtype is DType.Float64:
            note = f"{kind} witness of {n} terms off the last axis"
            out.append(_off_last_axis(plan, witness, note))
    for rank in range(1, MAX_RANK + 1):
        shape = _RANK_SHAPE[:rank]
        for axis in range(-rank, rank):
            out.append(call(shape, axis, f"axis {axis} of a rank-{rank} input", rank))
    if family in (Family.REDUCE, Family.ARG):
        out.append(call((), None, "a rank-0 input", 0))
    if facts.extremum_rule is not None:
        out += _extremum_lane_examples(plan, facts)
        out += _strided_extremum_examples(plan, facts)
    if family is Family.REDUCE:
        out.append(call((3, 2, 4), (0, 2), "two axes, keepdims", 1, keepdims=True))
        out.append(call((3, 2, 4), (-1, 0), "two axes, dropped", 2, keepdims=False))
    if family is Family.TOPK:
        row = list(distinct_row(LONG_ROW + 8, 3))
        k = 10
        row[-1] = sorted(row, reverse=True)[k]  # ties the new k-th largest, in the tail
        x = _tensor_of(dtype, row)
        parameters = {"k": k, "axis": 0, "largest": True}
        out.append(_make(plan, [x], parameters, note="a long row with a tie at the cut-off"))
    return out


def embed_group(plan: OperationPlan, group: list[Any], note: str, options: dict) -> Call | None:
    """A call whose one reduced/scanned/sorted row is *group* (None: the values do not
    fit the operand); *options* give top-k's ``k`` and ``largest`` and sort's
    ``descending``."""
    family = plan_facts(plan).family
    dtype0 = _operand_dtype(plan, 0)
    if not _fits(dtype0, group):
        return None
    x = _tensor_of(dtype0, group)
    parameters: dict[str, Any] = {"axis": None if family in (Family.REDUCE, Family.ARG) else 0}
    if family is Family.REDUCE:
        parameters["keepdims"] = False
    if family is Family.SORT:
        parameters["descending"] = options["descending"]
    if family is Family.TOPK:
        k = len(group) if options["k"] is None else options["k"]
        parameters = {"k": k, "axis": 0, "largest": options["largest"]}
    return _make(plan, [x], parameters, note=note)


def pass_through(plan: OperationPlan, values: Sequence[float], note: str) -> Call | None:
    """A call whose results are the Float32 *values*: reduce and scan over the
    length-1 axis of a column, sort of the row, top-k of all of it (None for arg,
    whose results are indices, or a non-Float32 operand)."""
    family = plan_facts(plan).family
    if _operand_dtype(plan, 0) is not F32 or family is Family.ARG:
        return None
    n = len(values)
    if family in (Family.REDUCE, Family.SCAN):
        parameters: dict[str, Any] = {"axis": 1}
        if family is Family.REDUCE:
            parameters["keepdims"] = False
        return _make(plan, [_tensor_of(F32, values, (n, 1))], parameters, note=note)
    if family is Family.SORT:
        parameters = {"axis": -1, "descending": False}
    else:
        parameters = {"k": n, "axis": -1, "largest": True}
    return _make(plan, [_tensor_of(F32, values)], parameters, note=note)


# -- validation rules: one faulty call each (conformance.generate.validation) ---------


def _reduce(plan: OperationPlan) -> Iterator[Fault]:
    yield from axis_faults(plan, {"keepdims": False}, tuples=True)
    x = plan_operands(plan, {0: (2, 3)})
    yield "keepdims is not a bool", x, {"axis": None, "keepdims": 1}
    if plan.operation in ("reduce_max", "reduce_min"):
        yield from empty_group(plan, {"keepdims": False})


def _arg(plan: OperationPlan) -> Iterator[Fault]:
    yield from axis_faults(plan, {}, tuples=False)
    yield from empty_group(plan, {})


def _scan(plan: OperationPlan) -> Iterator[Fault]:
    yield from axis_faults(plan, {}, tuples=False)
    yield "axis None where an int is required", plan_operands(plan, {0: (2, 3)}), {"axis": None}


def _sort(plan: OperationPlan) -> Iterator[Fault]:
    yield from axis_faults(plan, {"descending": False}, tuples=False)
    x = plan_operands(plan, {0: (2, 3)})
    yield "descending is not a bool", x, {"axis": -1, "descending": 1}


def _topk(plan: OperationPlan) -> Iterator[Fault]:
    yield from axis_faults(plan, {"k": 1, "largest": True}, tuples=False)
    x = plan_operands(plan, {0: (2, 3)})
    for k, why in ((None, "k is None"), (1.0, "k is a float"), (True, "k is a bool"),
                   (-1, "k = -1 is below 0"), (4, "k = 4 exceeds the extent 3")):  # fmt: skip
        yield why, x, {"k": k, "axis": -1, "largest": True}
    yield "largest is not a bool", x, {"k": 1, "axis": -1, "largest": 1}


#: family -> the faulty calls of its validation rules
_RULES = {
    Family.REDUCE: _reduce,
    Family.ARG: _arg,
    Family.SCAN: _scan,
    Family.SORT: _sort,
    Family.TOPK: _topk,
}


def validation_rules(plan: OperationPlan) -> Iterator[Fault]:
    """The faulty calls of the validation rules of *plan*'s row family: axes, flags,
    ``k``, extrema of an empty group."""
    return _RULES[plan_facts(plan).family](plan)
