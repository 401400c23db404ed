"""Exact reference semantics of the structured operations.

* :func:`matmul` -- (M, K) x (K, N); every product rounded to binary32 first
  (no fused multiply-add), then FLOATING accumulation (a
  :class:`~oracle.expectation.Bounded` acceptance set from
  :func:`~oracle.reference.accumulate.floating_sum_interval`) or, for Int32,
  EXACT_INTEGER (exact products and sum, only the final value checked);
* :func:`conv_general` -- N-d cross-correlation with strides, (low, high)
  padding, lhs (input) and rhs (kernel) dilation and feature groups; each
  output is a SEQUENTIAL_BINARY32 sum from +0 of round(x * w) over the window
  positions in row-major order (outer) and the group's input channels
  ascending (inner); padding and dilation holes contribute round(+0 * w);
* :func:`gather`, :func:`scatter` -- bit copies along one axis (numpy.take
  shapes); :func:`scatter_add` -- adds each update to a copy of the base in
  ascending logical order of the updates, rounding after every addition;
* :func:`_sort_values`, :func:`_sort_indices`, :func:`_topk_values`,
  :func:`_topk_indices` -- stable sorts along one axis where the NaNs form one
  class placed last ascending and first descending and -0 equals +0.

Every function takes the resolved plan first, then its forward arguments with
the dtype operands already materialised as :class:`~oracle.tensor.Tensor` in
the plan's ``convert_to`` dtypes.  Bad calls raise before anything is
computed: ValueError naming the shapes (shape mismatch, bad axis, bad conv
parameters, duplicate scatter indices, k out of range), IndexError for an
index outside [0, n), TypeError for a parameter of the wrong type;
OverflowError only for an Int32 matmul result outside Int32.  See
``docs/semantics/structured.md``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

from ..conv_geometry import conv_geometry
from ..errors import integer_text
from ..expectation import Bounded
from ..limits import check_size
from ..plan import Accumulation, OperationPlan
from ..tensor import Tensor
from .accumulate import (
    add32,
    check_bool,
    check_int,
    check_operand,
    floating_accumulator,
    floating_sum_interval,
    lines_along,
    mul32,
    narrow_int32,
    normalize_axis,
    require_accumulation,
)

__all__ = [
    "_sort_indices",
    "_sort_values",
    "_topk_indices",
    "_topk_values",
    "conv_general",
    "gather",
    "matmul",
    "scatter",
    "scatter_add",
]


# ---------------------------------------------------------------------------
# matmul
# ---------------------------------------------------------------------------


def matmul(plan: OperationPlan, a: Tensor, b: Tensor) -> Tensor | Bounded:
    """(M, K) @ (K, N): Bounded for FLOATING, an exact Int32 Tensor for EXACT_INTEGER.

    Each term is round32(a[i, k] * b[k, j]); K = 0 gives +0 (Float32) or 0.
    Operands that are not 2-D, or whose inner extents differ, are a
    ValueError naming both shapes.
    """
    operation = "matmul"
    kind = require_accumulation(operation, plan, Accumulation.FLOATING, Accumulation.EXACT_INTEGER)
    a = check_operand(operation, plan, 0, a)
    b = check_operand(operation, plan, 1, b)
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError(
            f"{operation}: operands must be 2-D, (M, K) and (K, N); got shapes {a.shape} "
            f"and {b.shape}"
        )
    (m, k), (k2, n) = a.shape, b.shape
    if k != k2:
        raise ValueError(
            f"{operation}: inner extents differ: shapes {a.shape} and {b.shape} ({k} != {k2})"
        )
    check_size(operation, m * n, m * n * k)
    rows = [a.values[i * k : (i + 1) * k] for i in range(m)]
    columns = [b.values[j::n] for j in range(n)]
    if kind is Accumulation.EXACT_INTEGER:
        results = []
        for i, row in enumerate(rows):
            for j, column in enumerate(columns):
                exact = sum(x * y for x, y in zip(row, column))
                results.append(narrow_int32(operation, exact, f"at output index {(i, j)}"))
        return Tensor(plan.output, (m, n), tuple(results))
    accumulator = floating_accumulator(operation, plan)
    intervals = tuple(
        floating_sum_interval([mul32(x, y) for x, y in zip(row, column)], accumulator)
        for row in rows
        for column in columns
    )
    return Bounded((m, n), intervals)


# ---------------------------------------------------------------------------
# conv_general
# ---------------------------------------------------------------------------


def conv_general(
    plan: OperationPlan,
    lhs: Tensor,
    rhs: Tensor,
    window_strides: Sequence[int] | None = None,
    padding: Sequence[Sequence[int]] | None = None,
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    feature_group_count: int = 1,
) -> Tensor:
    """Cross-correlation of lhs [batch, in, *spatial] with rhs [out, in // groups, *window].

    Per spatial dimension d, with input extent n, lhs dilation a, padding
    (low, high), window extent k, rhs dilation r and stride s: the dilated
    input has extent (n - 1) * a + 1 (0 when n = 0), the padded one
    P = dilated + low + high (negative padding crops; P < 0 is a ValueError),
    the dilated window K = (k - 1) * r + 1, and the output extent is
    (P - K) // s + 1 when P >= K, else 0.  Output position o and window
    position w read padded position o * s + w * r, i.e. dilated position
    p = o * s + w * r - low, which is the input element p // a when
    0 <= p < dilated and p % a == 0, and a hole or padding (+0) otherwise.

    Output channel c_out belongs to group g = c_out // (out // groups) and
    reads input channels g * (in // groups) + c for c ascending.  Each output
    element is the sum from +0, rounded after every addition, of
    round(x * w) over the window positions in row-major order (outer) and
    c (inner).  Defaults: strides, dilations 1, padding (0, 0).  The
    parameters, their checks and errors, and the extents are
    :func:`oracle.conv_geometry.conv_geometry`'s; the sums are computed here.
    """
    operation = "conv_general"
    require_accumulation(operation, plan, Accumulation.SEQUENTIAL_BINARY32)
    lhs = check_operand(operation, plan, 0, lhs)
    rhs = check_operand(operation, plan, 1, rhs)
    g = conv_geometry(
        lhs.shape,
        rhs.shape,
        window_strides,
        padding,
        lhs_dilation,
        rhs_dilation,
        feature_group_count,
    )
    check_size(operation, g.output_elements, g.terms)
    strides, pads, lhs_dil, rhs_dil = g.window_strides, g.padding, g.lhs_dilation, g.rhs_dilation
    batch, out_channels, group_in = g.batch, g.out_channels, g.group_in_channels
    out_spatial, dilated = g.output_spatial, g.dilated_input
    lhs_strides = _row_major_strides(lhs.shape)
    rhs_strides = _row_major_strides(rhs.shape)
    per_group_out = g.group_out_channels
    window_positions = list(itertools.product(*(range(k) for k in g.window)))
    results = []
    for n in range(batch):
        for c_out in range(out_channels):
            first_channel = (c_out // per_group_out) * group_in
            for o in itertools.product(*(range(e) for e in out_spatial)):
                total = 0.0
                for w in window_positions:
                    lhs_offset = _input_offset(
                        o, w, strides, rhs_dil, pads, lhs_dil, dilated, lhs_strides
                    )
                    rhs_offset = c_out * rhs_strides[0] + sum(
                        i * s for i, s in zip(w, rhs_strides[2:])
                    )
                    for c in range(group_in):
                        x = (
                            0.0
                            if lhs_offset is None
                            else lhs.values[
                                n * lhs_strides[0]
                                + (first_channel + c) * lhs_strides[1]
                                + lhs_offset
                            ]
                        )
                        weight = rhs.values[rhs_offset + c * rhs_strides[1]]
                        total = add32(total, mul32(x, weight))
                results.append(total)
    return Tensor(plan.output, (batch, out_channels, *out_spatial), tuple(results))


def _row_major_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides = []
    step = 1
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return tuple(reversed(strides))


def _input_offset(
    o: tuple[int, ...],
    w: tuple[int, ...],
    strides: tuple[int, ...],
    rhs_dil: tuple[int, ...],
    pads: tuple[tuple[int, int], ...],
    lhs_dil: tuple[int, ...],
    dilated: tuple[int, ...],
    lhs_strides: tuple[int, ...],
) -> int | None:
    """The spatial flat offset read by output o and window w, None for padding/holes."""
    offset = 0
    for d in range(len(o)):
        p = o[d] * strides[d] + w[d] * rhs_dil[d] - pads[d][0]
        if not 0 <= p < dilated[d] or p % lhs_dil[d]:
            return None
        offset += (p // lhs_dil[d]) * lhs_strides[2 + d]
    return offset


# ---------------------------------------------------------------------------
# gather / scatter / scatter_add
# ---------------------------------------------------------------------------


def _check_indices(
    operation: str, indices: Tensor, extent: int, axis: int, shape: tuple[int, ...]
) -> None:
    for flat, i in enumerate(indices.values):
        if not 0 <= i < extent:
            raise IndexError(
                f"{operation}: index {i} at indices position {indices.index(flat)} is out of "
                f"range [0, {extent}) for axis {axis} of shape {shape}"
            )


def _take_targets(
    shape: tuple[int, ...], axis: int, indices: Tensor
) -> tuple[tuple[int, ...], list[int]]:
    """numpy.take's result shape, and the flat source index of every result element."""
    outer = math.prod(shape[:axis])
    inner = math.prod(shape[axis + 1 :])
    extent = shape[axis]
    if not inner or not indices.size:
        outer = 0  # an empty result: no need to walk the outer positions
    sources = [
        (o * extent + j) * inner + i
        for o in range(outer)
        for j in indices.values
        for i in range(inner)
    ]
    return (*shape[:axis], *indices.shape, *shape[axis + 1 :]), sources


def gather(plan: OperationPlan, data: Tensor, indices: Tensor, axis: object) -> Tensor:
    """numpy.take(data, indices, axis): the index array's shape replaces *axis*; bit copies."""
    operation = "gather"
    data = check_operand(operation, plan, 0, data)
    indices = check_operand(operation, plan, 1, indices)
    axis = normalize_axis(operation, axis, data.shape)
    _check_indices(operation, indices, data.shape[axis], axis, data.shape)
    check_size(
        operation, math.prod(data.shape[:axis]) * indices.size * math.prod(data.shape[axis + 1 :])
    )
    out_shape, sources = _take_targets(data.shape, axis, indices)
    return Tensor(plan.output, out_shape, tuple(data.values[s] for s in sources))


def _scatter_targets(
    operation: str, base: Tensor, indices: Tensor, updates: Tensor, axis: object
) -> list[int]:
    axis = normalize_axis(operation, axis, base.shape)
    expected, targets = _take_targets(base.shape, axis, indices)
    if updates.shape != expected:
        raise ValueError(
            f"{operation}: updates must have the gather-result shape {expected} of base shape "
            f"{base.shape}, indices shape {indices.shape} and axis {axis}; got updates shape "
            f"{updates.shape}"
        )
    _check_indices(operation, indices, base.shape[axis], axis, base.shape)
    return targets


def scatter(
    plan: OperationPlan, base: Tensor, indices: Tensor, updates: Tensor, axis: object
) -> Tensor:
    """A copy of *base* with ``take(result, indices, axis)`` replaced by *updates* (bit copies).

    Validation order: types, axis, the updates shape (ValueError), index range
    (IndexError), then distinctness (ValueError).
    """
    operation = "scatter"
    base = check_operand(operation, plan, 0, base)
    indices = check_operand(operation, plan, 1, indices)
    updates = check_operand(operation, plan, 2, updates)
    targets = _scatter_targets(operation, base, indices, updates, axis)
    seen: dict[int, int] = {}
    for flat, i in enumerate(indices.values):
        if i in seen:
            raise ValueError(
                f"{operation}: index {i} occurs at indices positions "
                f"{indices.index(seen[i])} and {indices.index(flat)} (shape {indices.shape}); "
                "scatter indices must be distinct (use scatter_add to combine)"
            )
        seen[i] = flat
    out = list(base.values)
    for target, value in zip(targets, updates.values):
        out[target] = value
    return Tensor(plan.output, base.shape, tuple(out))


def scatter_add(
    plan: OperationPlan, base: Tensor, indices: Tensor, updates: Tensor, axis: object
) -> Tensor:
    """A copy of *base* plus every update, in ascending logical order of *updates*.

    Duplicate indices are allowed.  Each addition is a binary32 addition
    (the base element's own value, -0 included, is where a target starts);
    untouched elements are bit copies of *base*.
    """
    operation = "scatter_add"
    require_accumulation(operation, plan, Accumulation.SEQUENTIAL_BINARY32)
    base = check_operand(operation, plan, 0, base)
    indices = check_operand(operation, plan, 1, indices)
    updates = check_operand(operation, plan, 2, updates)
    targets = _scatter_targets(operation, base, indices, updates, axis)
    out = list(base.values)
    for target, value in zip(targets, updates.values):
        out[target] = add32(out[target], value)
    return Tensor(plan.output, base.shape, tuple(out))


# ---------------------------------------------------------------------------
# sort / topk
# ---------------------------------------------------------------------------


def _ascending_key(v: float) -> tuple[bool, float]:
    nan = math.isnan(v)
    return (nan, 0.0 if nan else v)  # -0.0 == 0.0: signed zeros tie


def _descending_key(v: float) -> tuple[bool, float]:
    nan = math.isnan(v)
    return (not nan, 0.0 if nan else -v)


def _order(values: list[float], descending: bool) -> list[int]:
    """The stable permutation: NaNs last ascending, first descending; equal values keep order."""
    key = _descending_key if descending else _ascending_key
    return sorted(range(len(values)), key=lambda i: key(values[i]))


_WHOLE_LINE = object()  # sort: no k, the whole line


def _sorted_lines(
    operation: str,
    plan: OperationPlan,
    x: object,
    axis: object,
    flag: tuple[str, object],
    k: object = _WHOLE_LINE,
) -> tuple[Tensor, tuple[int, ...], list[tuple[list[int], list[int], list[int]]]]:
    """Validate (operand, axis, k, flag) and compute every line's order.

    *flag* is ("descending", value) for sort and ("largest", value) for topk,
    which both mean the descending order when true.
    """
    x = check_operand(operation, plan, 0, x)
    axis = normalize_axis(operation, axis, x.shape)
    extent = x.shape[axis]
    count = extent
    if k is not _WHOLE_LINE:
        count = check_int(operation, "k", k)
        if not 0 <= count <= extent:
            raise ValueError(
                f"{operation}: k = {integer_text(count)} must lie in [0, {extent}] "
                f"(the extent of axis {axis} of shape {x.shape})"
            )
    descending = check_bool(operation, *flag)
    out_shape = tuple(count if d == axis else n for d, n in enumerate(x.shape))
    lines = []
    for source, target in zip(lines_along(x.shape, axis), lines_along(out_shape, axis)):
        order = _order([x.values[i] for i in source], descending)[:count]
        lines.append((source, target, order))
    return x, out_shape, lines


def _values_result(
    plan: OperationPlan, x: Tensor, out_shape: tuple[int, ...], lines: Any
) -> Tensor:
    out: list[Any] = [None] * math.prod(out_shape)
    for source, target, order in lines:
        for t, position in zip(target, order):
            out[t] = x.values[source[position]]  # the very object: a bit copy
    return Tensor(plan.output, out_shape, tuple(out))


def _indices_result(plan: OperationPlan, out_shape: tuple[int, ...], lines: Any) -> Tensor:
    out: list[Any] = [None] * math.prod(out_shape)
    for _, target, order in lines:
        for t, position in zip(target, order):
            out[t] = position
    return Tensor(plan.output, out_shape, tuple(out))


def _sort_values(
    plan: OperationPlan, x: Tensor, axis: object = -1, descending: object = False
) -> Tensor:
    """Stable sort along *axis*; NaNs last (ascending) or first (descending); bit copies."""
    flag = ("descending", descending)
    x, out_shape, lines = _sorted_lines("_sort_values", plan, x, axis, flag)
    return _values_result(plan, x, out_shape, lines)


def _sort_indices(
    plan: OperationPlan, x: Tensor, axis: object = -1, descending: object = False
) -> Tensor:
    """The Int32 positions along *axis* of :func:`_sort_values`'s order."""
    flag = ("descending", descending)
    _, out_shape, lines = _sorted_lines("_sort_indices", plan, x, axis, flag)
    return _indices_result(plan, out_shape, lines)


def _topk_values(
    plan: OperationPlan, x: Tensor, k: object, axis: object = -1, largest: object = True
) -> Tensor:
    """The first *k* of the descending (largest) or ascending order along *axis*."""
    flag = ("largest", largest)
    x, out_shape, lines = _sorted_lines("_topk_values", plan, x, axis, flag, k)
    return _values_result(plan, x, out_shape, lines)


def _topk_indices(
    plan: OperationPlan, x: Tensor, k: object, axis: object = -1, largest: object = True
) -> Tensor:
    """The Int32 positions along *axis* of :func:`_topk_values`'s elements."""
    flag = ("largest", largest)
    _, out_shape, lines = _sorted_lines("_topk_indices", plan, x, axis, flag, k)
    return _indices_result(plan, out_shape, lines)
