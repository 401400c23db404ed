"""Structured operations: matmul, conv_general, gather, scatter, scatter_add,
select, clamp and the internal sort/topk plans.

Every shape, parameter and index is validated before anything is computed;
copying operations (gather, scatter, select, sort/topk values) move values
without touching their bits.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import product
from typing import Any

from oracle import Arithmetic, OperationPlan
from oracle.conv_geometry import conv_geometry

from . import convert
from .binary32 import is_nan
from .elementwise import add, elementwise_kernel, maximum, minimum, mul
from .limits import check_size
from .reductions import accumulate
from .shapes import axis_slices, check_bool, check_int, normalize_axis, strides
from .tensor import GenericTensor

__all__ = ["KERNELS"]

# -- matmul ---------------------------------------------------------------------------


def matmul(backend: Any, plan: OperationPlan, a: Any, b: Any) -> GenericTensor:
    """(M, K) x (K, N): each product rounded (Float32) or exact (Int32), then summed
    over k ascending from +0 per the plan's accumulation (see reductions.accumulate)."""
    (a_shape, a_values), (b_shape, b_values) = (
        convert.operand(plan, 0, a),
        convert.operand(plan, 1, b),
    )
    if len(a_shape) != 2 or len(b_shape) != 2 or a_shape[1] != b_shape[0]:
        raise ValueError(
            f"matmul: needs (M, K) and (K, N) matrices, got shapes {a_shape} and {b_shape}"
        )
    (m, k), n = a_shape, b_shape[1]
    check_size("matmul", m * n, m * n * k)
    product_of = mul if plan.compute is Arithmetic.BINARY32 else (lambda x, y: x * y)
    values = [
        accumulate(plan, [product_of(a_values[i * k + p], b_values[p * n + j]) for p in range(k)])
        for i in range(m)
        for j in range(n)
    ]
    return backend.result(plan, (m, n), values)


# -- conv_general -----------------------------------------------------------------------


def _dilated(extent: int, dilation: int) -> int:
    return (extent - 1) * dilation + 1 if extent > 0 else 0


def _input_position(
    out_pos: Sequence[int],
    win_pos: Sequence[int],
    lhs_spatial: Sequence[int],
    strides_: Sequence[int],
    padding: Sequence[tuple[int, int]],
    lhs_dil: Sequence[int],
    rhs_dil: Sequence[int],
) -> tuple[int, ...] | None:
    """The lhs spatial index a window tap reads, or None for padding or a dilation hole."""
    index = []
    for o, w, n, s, (low, _), ld, rd in zip(
        out_pos, win_pos, lhs_spatial, strides_, padding, lhs_dil, rhs_dil
    ):
        c = o * s + w * rd - low  # coordinate in the dilated (unpadded) lhs
        if c < 0 or c >= _dilated(n, ld) or c % ld:
            return None
        index.append(c // ld)
    return tuple(index)


def conv_general(
    backend: Any,
    plan: OperationPlan,
    lhs: Any,
    rhs: Any,
    window_strides: Any = None,
    padding: Any = None,
    lhs_dilation: Any = None,
    rhs_dilation: Any = None,
    feature_group_count: Any = 1,
) -> GenericTensor:
    """Cross-correlation; terms round(x * w) added from +0, window positions in
    row-major order (outer) and the group's input channels ascending (inner);
    padding and dilation holes contribute round(0 * w).  Parameters, errors and
    extents: :func:`oracle.conv_geometry.conv_geometry`."""
    (l_shape, l_values), (r_shape, r_values) = (
        convert.operand(plan, 0, lhs),
        convert.operand(plan, 1, rhs),
    )
    g = conv_geometry(
        l_shape, r_shape, window_strides, padding, lhs_dilation, rhs_dilation, feature_group_count
    )
    check_size("conv_general", g.output_elements, g.terms)
    strides_, pads, l_dil, r_dil = g.window_strides, g.padding, g.lhs_dilation, g.rhs_dilation
    batch, out_channels, out_spatial = g.batch, g.out_channels, g.output_spatial
    group_in, group_out = g.group_in_channels, g.group_out_channels
    l_step, r_step = strides(l_shape), strides(r_shape)
    values = []
    for b, oc, out_pos in product(
        range(batch), range(out_channels), product(*map(range, out_spatial))
    ):
        first_channel = (oc // group_out) * group_in
        total = 0.0
        for win_pos in product(*map(range, r_shape[2:])):
            at = _input_position(out_pos, win_pos, l_shape[2:], strides_, pads, l_dil, r_dil)
            for c in range(group_in):
                w = r_values[sum(i * s for i, s in zip((oc, c, *win_pos), r_step))]
                x = 0.0
                if at is not None:
                    x = l_values[sum(i * s for i, s in zip((b, first_channel + c, *at), l_step))]
                total = add(total, mul(x, w))
        values.append(total)
    return backend.result(plan, (batch, out_channels, *out_spatial), values)


# -- gather, scatter, scatter_add ----------------------------------------------------------


def _check_indices(operation: str, indices: Sequence[int], extent: int) -> None:
    for index in indices:
        if not 0 <= index < extent:
            raise IndexError(f"{operation}: index {index} is outside [0, {extent})")


def _targets(shape: tuple[int, ...], axis: int, indices: Sequence[int]) -> list[int]:
    """Flat positions of *shape* addressed by the gather-shaped result, row-major."""
    outer, extent, inner = math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1 :])
    return [
        (o * extent + i) * inner + r for o in range(outer) for i in indices for r in range(inner)
    ]


def gather(backend: Any, plan: OperationPlan, data: Any, indices: Any, axis: Any) -> GenericTensor:
    """numpy.take: the index array's shape replaces *axis*; bits are copied."""
    (d_shape, d_values), (i_shape, i_values) = (
        convert.operand(plan, 0, data),
        convert.operand(plan, 1, indices),
    )
    axis = normalize_axis("gather", axis, len(d_shape))
    _check_indices("gather", i_values, d_shape[axis])
    check_size("gather", math.prod(d_shape[:axis]) * len(i_values) * math.prod(d_shape[axis + 1 :]))
    values = [d_values[t] for t in _targets(d_shape, axis, i_values)]
    return backend.result(plan, d_shape[:axis] + i_shape + d_shape[axis + 1 :], values)


def _scatter_targets(
    operation: str, plan: OperationPlan, base: Any, indices: Any, updates: Any, axis: Any
) -> tuple[tuple[int, ...], list[Any], list[int], tuple[Any, ...], tuple[Any, ...]]:
    (b_shape, b_values), (i_shape, i_values), (u_shape, u_values) = (
        convert.operand(plan, p, v) for p, v in enumerate((base, indices, updates))
    )
    axis = normalize_axis(operation, axis, len(b_shape))
    expected = b_shape[:axis] + i_shape + b_shape[axis + 1 :]
    if u_shape != expected:
        raise ValueError(
            f"{operation}: updates of shape {u_shape} must have the shape {expected} of base "
            f"{b_shape} with axis {axis} replaced by indices {i_shape}"
        )
    _check_indices(operation, i_values, b_shape[axis])
    return b_shape, list(b_values), _targets(b_shape, axis, i_values), u_values, i_values


def scatter(
    backend: Any, plan: OperationPlan, base: Any, indices: Any, updates: Any, axis: Any
) -> GenericTensor:
    """A copy of base with updates written at distinct indices (bits copied)."""
    shape, values, targets, updates_, index_values = _scatter_targets(
        "scatter", plan, base, indices, updates, axis
    )
    if len(set(index_values)) != len(index_values):
        raise ValueError(f"scatter: indices must be distinct, got {list(index_values)}")
    for target, update in zip(targets, updates_):
        values[target] = update
    return backend.result(plan, shape, values)


def scatter_add(
    backend: Any, plan: OperationPlan, base: Any, indices: Any, updates: Any, axis: Any
) -> GenericTensor:
    """A copy of base plus each update in ascending logical order, rounding every addition."""
    shape, values, targets, updates_, _ = _scatter_targets(
        "scatter_add", plan, base, indices, updates, axis
    )
    for target, update in zip(targets, updates_):
        values[target] = add(values[target], update)
    return backend.result(plan, shape, values)


# -- sort and topk ------------------------------------------------------------------------


def _stable_order(line: Sequence[float], descending: bool) -> list[int]:
    """Stable positions: NaNs one class (last ascending, first descending), -0 == +0.

    ``sorted(..., reverse=True)`` keeps equal elements in their original order.
    """

    def key(position: int) -> tuple[bool, float]:
        value = line[position]
        return (True, 0.0) if is_nan(value) else (False, value)

    return sorted(range(len(line)), key=key, reverse=descending)


#: sort's k: the whole line (topk's k is validated; None there is a TypeError)
_WHOLE_LINE = object()


def _ordered(
    backend: Any,
    plan: OperationPlan,
    x: Any,
    axis: Any,
    flag: str,
    descending: Any,
    k: Any,
    take_indices: bool,
) -> GenericTensor:
    """The first *k* (all for sort) of each line's stable order, as values or positions.

    Checked in the oracle's order: operand, axis, k, then the flag."""
    operation = plan.operation
    shape, values = convert.operand(plan, 0, x)
    axis = normalize_axis(operation, axis, len(shape))
    extent = shape[axis]
    count = extent if k is _WHOLE_LINE else check_int(operation, "k", k)
    if not 0 <= count <= extent:
        raise ValueError(f"{operation}: k = {count} must lie in [0, {extent}]")
    descending = check_bool(operation, flag, descending)
    out_shape = (*shape[:axis], count, *shape[axis + 1 :])
    result: list[Any] = [None] * math.prod(out_shape)
    for line, out_line in zip(axis_slices(shape, axis), axis_slices(out_shape, axis)):
        order = _stable_order([values[i] for i in line], descending)[:count]
        for slot, position in zip(out_line, order):
            result[slot] = position if take_indices else values[line[position]]
    return backend.result(plan, out_shape, result)


def _sort(take_indices: bool) -> Callable[..., Any]:
    def kernel(
        backend: Any, plan: OperationPlan, x: Any, axis: Any = -1, descending: Any = False
    ) -> GenericTensor:
        return _ordered(backend, plan, x, axis, "descending", descending, _WHOLE_LINE, take_indices)

    return kernel


def _topk(take_indices: bool) -> Callable[..., Any]:
    def kernel(
        backend: Any, plan: OperationPlan, x: Any, k: Any, axis: Any = -1, largest: Any = True
    ) -> GenericTensor:
        return _ordered(backend, plan, x, axis, "largest", largest, k, take_indices)

    return kernel


def _select(cond: bool, on_true: float, on_false: float) -> float:
    return on_true if cond else on_false  # the other branch is never read


def _clamp(x: float, lo: float, hi: float) -> float:
    return minimum(maximum(x, lo), hi)  # bounds are not validated: lo > hi gives hi


KERNELS: dict[str, Callable[..., Any]] = {
    "matmul": matmul,
    "conv_general": conv_general,
    "gather": gather,
    "scatter": scatter,
    "scatter_add": scatter_add,
    "select": elementwise_kernel("select", _select),
    "clamp": elementwise_kernel("clamp", _clamp),
    "_sort_values": _sort(take_indices=False),
    "_sort_indices": _sort(take_indices=True),
    "_topk_values": _topk(take_indices=False),
    "_topk_indices": _topk(take_indices=True),
}
