"""The shape and order faults: what kernels get wrong past a size, rank or layout threshold.

Kernels switch algorithm by size, rank and layout -- SIMD lanes with a tail
loop, blocked and pairwise combination, parallel splits, gemm tiles, heap
top-k, quicksort above 16 elements, a strided path off the last axis -- and
each fault here is the CPU kernel with one such switch gone wrong.  Every
fault is dormant below its threshold (a Float64 sum narrowed through fewer bits:
away from a binary32 midpoint), so only the shape classes
(docs/shape-classes.md), the order witnesses
(:mod:`conformance.generate.order_values`) and the Float64-accumulator witnesses
(:mod:`conformance.generate.accumulator_witnesses`) reach it; a few need
boundary pairs (Int32 MIN + MIN, a weak float against an ordinary base).

:data:`FAULTS` is the table (name, operation, fault, kernel), in the order of
``docs/mutants.md``; the catalogue (:mod:`conformance.mutants.catalogue`)
collects it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from backends.cpu import KERNELS
from backends.cpu import structured as cpu_structured
from backends.cpu.convert import F32, F64, I32, I64, materialise, normalise_axis
from backends.cpu.elementwise import new_array
from backends.cpu.reductions import _layout, sequential_reduce
from conformance.mutants.kernels import float_inputs, result_array, round_to_bits
from conformance.mutants.mutant import Kernel, Mutant, kernel_fault
from oracle import DType, OperandRole, OperationPlan
from oracle.conv_geometry import conv_geometry

__all__ = ["FAULTS"]

#: the SIMD block of the lane and tail faults
_BLOCK = 16


# ---------------------------------------------------------------------------
# Orders of sequential accumulations
# ---------------------------------------------------------------------------


def _rows(plan: OperationPlan, x: Any, axis: Any, keepdims: Any) -> tuple[np.ndarray, Any]:
    """The operand as (groups, terms) in logical order, and the result's shape."""
    return _layout(plan.operation, np.asarray(materialise(plan, 0, x)), axis, keepdims)


def _sequential(row: np.ndarray, ufunc: np.ufunc) -> np.float32:
    """*row* combined left to right from its first element (the identity if empty)."""
    if not len(row):
        return F32.type(1.0 if ufunc is np.multiply else 0.0)
    return ufunc.accumulate(np.asarray(row, dtype=F32), dtype=F32)[-1]


def _lanes(row: np.ndarray, ufunc: np.ufunc, lanes: int) -> np.float32:
    """*lanes* partial results (element i in lane i % lanes) combined at the end."""
    return _sequential(np.asarray([_sequential(row[i::lanes], ufunc) for i in range(lanes)]), ufunc)


def _pairwise(row: np.ndarray, ufunc: np.ufunc) -> np.float32:
    work = list(row.astype(F32))
    while len(work) > 1:
        pairs = [ufunc(work[i], work[i + 1]) for i in range(0, len(work) - 1, 2)]
        work = [*pairs, work[-1]] if len(work) % 2 else pairs
    return F32.type(work[0])


def _halves(row: np.ndarray, ufunc: np.ufunc) -> np.float32:
    half = len(row) // 2
    return ufunc(_sequential(row[:half], ufunc), _sequential(row[half:], ufunc))


def _reordered_reduction(
    operation: str, above: int, combine: Callable[[np.ndarray, np.ufunc], np.float32]
) -> Kernel:
    """reduce_prod whose groups of more than *above* terms are combined by *combine*."""

    def kernel(
        backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
    ) -> Any:
        data, shape = _rows(plan, x, axis, keepdims)
        if data.shape[1] <= above:
            return KERNELS[operation](backend, plan, x, axis, keepdims)
        out = new_array(backend, shape, F32)
        with np.errstate(all="ignore"):
            out.reshape(-1)[...] = [combine(row, np.multiply) for row in data]
        return out

    return kernel


def _cumsum_blocks_of_16(backend: Any, plan: OperationPlan, x: Any, axis: Any) -> Any:
    v = np.asarray(materialise(plan, 0, x))
    out = KERNELS["cumsum"](backend, plan, x, axis)
    axis = normalise_axis(plan.operation, axis, v.ndim)
    if v.shape[axis] <= _BLOCK:
        return out
    work = np.moveaxis(v.astype(F32), axis, -1)
    result = np.empty_like(work)
    carry = np.zeros(work.shape[:-1], F32)
    with np.errstate(all="ignore"):
        for first in range(0, work.shape[-1], _BLOCK):
            local = np.add.accumulate(work[..., first : first + _BLOCK], axis=-1, dtype=F32)
            result[..., first : first + _BLOCK] = local + carry[..., None]
            carry = result[..., min(first + _BLOCK, work.shape[-1]) - 1].copy()
    out[...] = np.moveaxis(result, -1, axis)
    return out


def _conv_blocks_of_32(
    backend: Any, plan: OperationPlan, lhs: Any, rhs: Any, *parameters: Any
) -> Any:
    """conv_general summing the terms of an output in blocks of 32 (K-blocking)."""
    x = np.asarray(materialise(plan, 0, lhs))
    w = np.asarray(materialise(plan, 1, rhs))
    g = conv_geometry(x.shape, w.shape, *parameters)
    groups, batch, out_channels = g.feature_group_count, g.batch, g.out_channels
    group_channels, out_spatial = g.group_in_channels, g.output_spatial
    if group_channels * math.prod(g.window) <= 32:
        return KERNELS["conv_general"](backend, plan, lhs, rhs, *parameters)
    per_group = out_channels // groups
    out = new_array(backend, g.output_shape, F32)
    total = np.zeros((batch, groups, per_group, *out_spatial), F32)
    block = np.zeros_like(total)
    if total.size:
        padded = cpu_structured._padded_input(x, g)
        xp = padded.reshape(batch, groups, group_channels, *padded.shape[2:])
        weights = w.reshape(groups, per_group, group_channels, *g.window)
        ones = (1,) * len(out_spatial)
        count = 0
        with np.errstate(all="ignore"):
            for position in np.ndindex(*g.window):
                index = [slice(None)] * 3
                for p, rd, s, n in zip(position, g.rhs_dilation, g.window_strides, out_spatial):
                    index.append(slice(p * rd, p * rd + (n - 1) * s + 1, s))
                view = xp[tuple(index)]
                for c in range(group_channels):
                    weight_index = (slice(None), slice(None), c, *position)
                    weight = weights[weight_index]
                    term = (
                        view[:, :, c, None] * weight.reshape(1, groups, per_group, *ones)
                    ).astype(F32)
                    block = (block + term).astype(F32)
                    count += 1
                    if count % 32 == 0:
                        total, block = (total + block).astype(F32), np.zeros_like(block)
            total = (total + block).astype(F32)
    out[...] = total.reshape(out.shape)
    return out


def _scatter_add_per_target(
    combine: Callable[[np.float32, np.ndarray], np.float32],
) -> Kernel:
    """scatter_add summing each target's updates with *combine(base, updates)*."""

    def kernel(
        backend: Any, plan: OperationPlan, base: Any, indices: Any, updates: Any, axis: Any
    ) -> Any:
        b, i, u, axis = cpu_structured._scatter_operands(plan, base, indices, updates, axis)
        if b.ndim != 1:
            return KERNELS["scatter_add"](backend, plan, base, indices, updates, axis)
        out = new_array(backend, b.shape, F32)
        out[...] = b
        flat, source = i.reshape(-1), u.reshape(-1).astype(F32)
        with np.errstate(all="ignore"):
            for t in np.unique(flat):
                out[t] = combine(out[t], source[flat == t])
        return out

    return kernel


def _halves_from_base(base: np.float32, updates: np.ndarray) -> np.float32:
    if len(updates) < 4:
        return _sequential(np.concatenate(([base], updates)), np.add)
    half = len(updates) // 2
    first = _sequential(np.concatenate(([base], updates[:half])), np.add)
    return np.add(first, _sequential(updates[half:], np.add))


def _first_32_only(base: np.float32, updates: np.ndarray) -> np.float32:
    return _sequential(np.concatenate(([base], updates[:32])), np.add)


# ---------------------------------------------------------------------------
# Accumulators off the fast path
# ---------------------------------------------------------------------------


def _matmul_float32_tiles_above_64(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    if plan.accumulator_dtype is not DType.Float64:
        return KERNELS["matmul"](backend, plan, a, b)
    x, y = float_inputs(plan, (a, b))
    m, k, n = cpu_structured._matmul_shapes(plan.operation, x, y)
    if k <= 64 or m < 2 or n < 2:
        return KERNELS["matmul"](backend, plan, a, b)
    out = new_array(backend, (m, n), F32)
    return cpu_structured.float_matmul(x, y, F32, out)


def _reduce_sum_float32_off_last_axis(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> Any:
    v = np.asarray(materialise(plan, 0, x))
    strided = isinstance(axis, int) and v.ndim >= 2 and axis % v.ndim != v.ndim - 1
    if plan.accumulator_dtype is not DType.Float64 or not strided:
        return KERNELS["reduce_sum"](backend, plan, x, axis, keepdims)
    data, shape = _rows(plan, x, axis, keepdims)
    out = new_array(backend, shape, F32)
    out.reshape(-1)[...] = sequential_reduce(data, np.add, 0.0, F32)
    return out


def _strided(x: Any, axis: Any) -> bool:
    """Whether a reduction over *axis* leaves the input's last axis (the strided path)."""
    return isinstance(axis, int) and np.ndim(x) >= 2 and axis % np.ndim(x) != np.ndim(x) - 1


def _float64_reduce_sum(
    off_last_axis: bool, above: int, combine: Callable[[np.ndarray], Any]
) -> Kernel:
    """reduce_sum with a Float64 accumulator whose groups of more than *above* terms,
    on the last axis (or, with *off_last_axis*, on another), are summed by
    *combine(row)* instead."""

    def kernel(
        backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
    ) -> Any:
        v = np.asarray(materialise(plan, 0, x))
        if plan.accumulator_dtype is not DType.Float64 or _strided(v, axis) != off_last_axis:
            return KERNELS["reduce_sum"](backend, plan, x, axis, keepdims)
        data, shape = _rows(plan, x, axis, keepdims)
        if data.shape[1] <= above:
            return KERNELS["reduce_sum"](backend, plan, x, axis, keepdims)
        out = new_array(backend, shape, F32)
        with np.errstate(all="ignore"):
            out.reshape(-1)[...] = [combine(row) for row in data]
        return out

    return kernel


def _float64_matmul(above: int, combine: Callable[[np.ndarray], Any]) -> Kernel:
    """matmul with a Float64 accumulator whose outputs of more than *above* terms
    (K, each a product rounded to binary32) are summed by *combine(terms)* instead."""

    def kernel(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
        if plan.accumulator_dtype is not DType.Float64:
            return KERNELS["matmul"](backend, plan, a, b)
        x, y = float_inputs(plan, (a, b))
        m, k, n = cpu_structured._matmul_shapes(plan.operation, x, y)
        if k <= above:
            return KERNELS["matmul"](backend, plan, a, b)
        out = new_array(backend, (m, n), F32)
        with np.errstate(all="ignore"):
            for i in range(m):
                terms = x[i, :, None].astype(F32) * y.astype(F32)  # (K, N), rounded products
                out[i] = [combine(terms[:, j]) for j in range(n)]
        return out

    return kernel


def _blocks_stored_float32(block: int) -> Callable[[np.ndarray], np.float32]:
    """Blocks of *block* terms summed in float64, the running total kept in Float32."""

    def combine(row: np.ndarray) -> np.float32:
        total = F32.type(0.0)
        for first in range(0, len(row), block):
            total = F32.type(F64.type(total) + np.sum(row[first : first + block], dtype=F64))
        return total

    return combine


def _narrowed_through(bits: int) -> Callable[[np.ndarray], np.float32]:
    """The float64 sum rounded to *bits* significant bits, then to binary32."""

    def combine(row: np.ndarray) -> np.float32:
        return F32.type(round_to_bits(np.asarray([np.sum(row, dtype=F64)]), bits)[0])

    return combine


def _float32_lanes(lanes: int) -> Callable[[np.ndarray], np.float32]:
    """*lanes* Float32 partial sums combined at the end (the accumulator ignored)."""
    return lambda row: _lanes(row, np.add, lanes)


# ---------------------------------------------------------------------------
# Lanes and tails
# ---------------------------------------------------------------------------


def _main_part(n: int) -> int:
    return _BLOCK * (n // _BLOCK)


def _extremum_ignoring_tail(operation: str) -> Kernel:
    """reduce_max/min (and argmax/argmin) that skip the tail past the last full
    16-element block of groups longer than 16."""

    def kernel(backend: Any, plan: OperationPlan, x: Any, axis: Any = None, *rest: Any) -> Any:
        v = np.asarray(materialise(plan, 0, x))
        if v.ndim == 0 or not (axis is None or isinstance(axis, int)):
            return KERNELS[operation](backend, plan, x, axis, *rest)
        axes = tuple(range(v.ndim)) if axis is None else (normalise_axis(operation, axis, v.ndim),)
        n = math.prod(v.shape[a] for a in axes)
        if n <= _BLOCK or n % _BLOCK == 0 or len(axes) != 1:
            return KERNELS[operation](backend, plan, x, axis, *rest)
        kept = np.take(v, np.arange(_main_part(n)), axis=axes[0])
        return KERNELS[operation](backend, plan, kept, axis, *rest)

    return kernel


def _arg_lanes(operation: str, pick: Callable[[np.ndarray, int], int]) -> Kernel:
    """argmax/argmin over one axis whose groups longer than 16 are resolved by
    *pick(group, correct_index)* (a lane-wise kernel's combination step)."""

    def kernel(backend: Any, plan: OperationPlan, x: Any, axis: Any = None) -> Any:
        out = KERNELS[operation](backend, plan, x, axis)
        v = np.asarray(materialise(plan, 0, x))
        if v.ndim == 0 or not (axis is None or isinstance(axis, int)):
            return out
        work = (
            v.reshape(1, -1)
            if axis is None
            else np.moveaxis(v, axis, -1).reshape(-1, v.shape[axis])
        )
        if work.shape[1] <= _BLOCK:
            return out
        flat = out.reshape(-1)
        for g, group in enumerate(work):
            flat[g] = pick(group, int(flat[g]))
        return out

    return kernel


def _lowest_lane(largest: bool) -> Callable[[np.ndarray, int], int]:
    """Ties of the extreme resolved by the lowest lane (position mod 16), not index."""

    def pick(group: np.ndarray, correct: int) -> int:
        if np.isnan(group).any():
            return correct
        extreme = group.max() if largest else group.min()
        positions = np.flatnonzero(group == extreme)
        lanes = positions % _BLOCK
        return int(positions[np.argmin(lanes)])  # the first of the lowest lane

    return pick


def _nans_in_blocks_ignored(largest: bool) -> Callable[[np.ndarray, int], int]:
    """NaNs in the full 16-element blocks missed (a vector compare), the tail's seen."""

    def pick(group: np.ndarray, correct: int) -> int:
        main = _main_part(len(group))
        if not np.isnan(group[:main]).any():
            return correct
        tail = np.flatnonzero(np.isnan(group[main:]))
        if tail.size:
            return main + int(tail[0])
        blocks = np.where(np.isnan(group[:main]), -np.inf if largest else np.inf, group[:main])
        return int(np.argmax(blocks) if largest else np.argmin(blocks))

    return pick


def _sort_ties_reversed_above_16(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = -1, descending: Any = False
) -> Any:
    v = np.asarray(materialise(plan, 0, x))
    axis_n = normalise_axis(plan.operation, axis, max(v.ndim, 1))
    if v.ndim == 0 or v.shape[axis_n] <= _BLOCK:
        return KERNELS["_sort_indices"](backend, plan, x, axis, descending)
    keys = cpu_structured._sort_keys(v)
    if descending:
        keys = -keys
    flipped = np.flip(keys, axis=axis_n)
    order = v.shape[axis_n] - 1 - np.argsort(flipped, axis=axis_n, kind="stable")
    return result_array(backend, order, I32)


def _topk_heap_ties_above_32(
    backend: Any, plan: OperationPlan, x: Any, k: Any, axis: Any = -1, largest: Any = True
) -> Any:
    v = np.asarray(materialise(plan, 0, x))
    if v.ndim == 0 or not isinstance(k, int) or isinstance(k, bool):
        return KERNELS["_topk_indices"](backend, plan, x, k, axis, largest)
    axis_n = normalise_axis(plan.operation, axis, v.ndim)
    if v.shape[axis_n] <= 32 or not 0 <= k <= v.shape[axis_n]:
        return KERNELS["_topk_indices"](backend, plan, x, k, axis, largest)
    keys = cpu_structured._sort_keys(v)
    if largest:
        keys = -keys
    flipped = np.flip(keys, axis=axis_n)
    order = v.shape[axis_n] - 1 - np.argsort(flipped, axis=axis_n, kind="stable")
    return result_array(backend, np.take(order, np.arange(k), axis=axis_n), I32)


def _bit_copy_quieting(operation: str, where: str) -> Kernel:
    """neg/abs/select whose outputs past 32 elements go through float64 in the
    *where* part ("main": the full 16-element blocks, "tail": past them), which
    quiets a signalling NaN."""

    def kernel(backend: Any, plan: OperationPlan, *args: Any) -> Any:
        out = KERNELS[operation](backend, plan, *args)
        if out.dtype != F32 or out.size <= 32:
            return out
        flat = out.reshape(-1)
        main = _main_part(flat.size)
        part = slice(0, main) if where == "main" else slice(main, flat.size)
        flat[part] = flat[part].astype(F64).astype(F32)
        return out

    return kernel


def _select_tail_swapped(
    backend: Any, plan: OperationPlan, cond: Any, on_true: Any, on_false: Any
) -> Any:
    out = KERNELS["select"](backend, plan, cond, on_true, on_false)
    if out.size <= 32:
        return out
    swapped = KERNELS["select"](backend, plan, cond, on_false, on_true)
    flat, other = out.reshape(-1), swapped.reshape(-1)
    main = _main_part(flat.size)
    flat[main:] = other[main:]
    return out


# ---------------------------------------------------------------------------
# Axes, ranks, keepdims, broadcasting
# ---------------------------------------------------------------------------


def _cumsum_negative_axis_off_by_one(backend: Any, plan: OperationPlan, x: Any, axis: Any) -> Any:
    v = np.asarray(materialise(plan, 0, x))
    if isinstance(axis, int) and axis <= -2 and v.ndim >= 2:
        axis = min(v.ndim + axis + 1, v.ndim - 1)  # counts -k from the wrong end
    return KERNELS["cumsum"](backend, plan, x, axis)


def _reduce_min_rank_above_4_axis_mod_4(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> Any:
    v = np.asarray(materialise(plan, 0, x))
    if v.ndim >= 5 and isinstance(axis, int) and -v.ndim <= axis < v.ndim:
        axis = (axis % v.ndim) % 4  # a kernel template for at most four dimensions
    return KERNELS["reduce_min"](backend, plan, x, axis, keepdims)


def _reduce_prod_keepdims_several_axes(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> Any:
    out = KERNELS["reduce_prod"](backend, plan, x, axis, keepdims)
    if keepdims is True and isinstance(axis, tuple) and len(axis) >= 2:
        ndim = np.ndim(np.asarray(materialise(plan, 0, x)))
        first = min(a % ndim for a in axis)
        shape = tuple(n for i, n in enumerate(out.shape) if i == first or out.shape[i] != 1)
        return out.reshape(shape)  # only the first reduced axis kept as length 1
    return out


def _reduce_prod_several_axes_transposed(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> Any:
    v = np.asarray(materialise(plan, 0, x))
    if not (isinstance(axis, tuple) and len(axis) >= 2):
        return KERNELS["reduce_prod"](backend, plan, x, axis, keepdims)
    axes = sorted(a % v.ndim for a in axis)
    swapped = np.swapaxes(v, axes[0], axes[-1])  # the last reduced axis visited outermost
    return KERNELS["reduce_prod"](backend, plan, swapped, axis, keepdims)


def _sub_broadcast_by_tiling(backend: Any, plan: OperationPlan, *args: Any) -> Any:
    operands = float_inputs(plan, args)
    shapes = [np.shape(o) for o in operands]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        return KERNELS["sub"](backend, plan, *args)
    if plan.output is not DType.Float32 or len(set(shapes)) == 1:
        return KERNELS["sub"](backend, plan, *args)
    tiled = []
    for o in operands:
        inner = np.ndim(o) == len(shape) and any(
            s == 1 and t > 1 for s, t in zip(np.shape(o)[1:], shape[1:])
        )
        tiled.append(np.resize(o, shape) if inner else o)  # flat tiling, not broadcasting
    with np.errstate(all="ignore"):
        return result_array(backend, np.subtract(*tiled).astype(F32))


def _maximum_ranks_aligned_left(backend: Any, plan: OperationPlan, *args: Any) -> Any:
    operands = float_inputs(plan, args)
    ranks = [np.ndim(o) for o in operands]
    if len(set(ranks)) == 1 or min(ranks) == 0:
        return KERNELS["maximum"](backend, plan, *args)
    top = max(ranks)
    padded = [np.reshape(o, (*np.shape(o), *(1,) * (top - np.ndim(o)))) for o in operands]
    return result_array(backend, np.maximum(*padded), I32 if plan.output is DType.Int32 else F32)


def _exp_rank_above_4_transposed(backend: Any, plan: OperationPlan, x: Any) -> Any:
    out = KERNELS["exp"](backend, plan, x)
    if out.ndim >= 5:
        out[...] = np.ascontiguousarray(out.T).reshape(out.shape)  # strides of the reverse order
    return out


# ---------------------------------------------------------------------------
# Boundary pairs
# ---------------------------------------------------------------------------


def _add_int32_overflow_test_misses_zero(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    if plan.output is not DType.Int32:
        return KERNELS["add"](backend, plan, a, b)
    x, y = (np.asarray(v).astype(I64) for v in float_inputs(plan, (a, b)))
    wrapped = ((x + y + 2**31) % 2**32 - 2**31).astype(I64)
    overflow = ((x > 0) & (y > 0) & (wrapped < 0)) | ((x < 0) & (y < 0) & (wrapped > 0))
    if np.any(overflow):
        raise OverflowError("add: Int32 overflow")
    return result_array(
        backend, np.broadcast_to(wrapped, np.broadcast_shapes(x.shape, y.shape)), I32
    )


def _mul_weak_float_unrounded(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    weak = [i for i, o in enumerate(plan.operands) if o.role is OperandRole.WEAK_SCALAR]
    if plan.output is not DType.Float32 or not weak or not isinstance((a, b)[weak[0]], float):
        return KERNELS["mul"](backend, plan, a, b)
    scalar = (a, b)[weak[0]]  # the Python float itself, never rounded to binary32
    tensor = float_inputs(plan, (a, b))[1 - weak[0]]
    with np.errstate(all="ignore"):
        return result_array(backend, (np.asarray(tensor, F64) * scalar).astype(F32))


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------

#: the shape and order mutants, in catalogue order
FAULTS: tuple[Mutant, ...] = (
    # orders of sequential accumulations
    kernel_fault(
        "cumsum_blocks_of_16",
        "cumsum",
        "rows longer than 16 scanned in blocks of 16, each block's carry added to its prefix sums",
        _cumsum_blocks_of_16,
    ),
    kernel_fault(
        "reduce_prod_8_lanes",
        "reduce_prod",
        "groups longer than 8 multiplied in 8 lanes combined at the end",
        _reordered_reduction("reduce_prod", 8, lambda row, ufunc: _lanes(row, ufunc, 8)),
    ),
    kernel_fault(
        "reduce_prod_pairwise_above_32",
        "reduce_prod",
        "groups longer than 32 multiplied pairwise",
        _reordered_reduction("reduce_prod", 32, _pairwise),
    ),
    kernel_fault(
        "reduce_prod_halves_above_64",
        "reduce_prod",
        "groups longer than 64 split in two halves multiplied in parallel",
        _reordered_reduction("reduce_prod", 64, _halves),
    ),
    kernel_fault(
        "conv_blocks_of_32",
        "conv_general",
        "outputs of more than 32 terms summed in blocks of 32 (K-blocking), blocks added",
        _conv_blocks_of_32,
    ),
    kernel_fault(
        "scatter_add_duplicates_in_halves",
        "scatter_add",
        "a target with 4 or more updates sums the second half apart and adds it last",
        _scatter_add_per_target(_halves_from_base),
    ),
    kernel_fault(
        "scatter_add_first_32_updates",
        "scatter_add",
        "a target keeps only its first 32 updates (a fixed-size duplicate buffer)",
        _scatter_add_per_target(_first_32_only),
    ),
    # accumulators off the fast path
    kernel_fault(
        "matmul_float32_tiles_above_64",
        "matmul",
        "a Float64 accumulator honoured only up to K = 64: longer gemm tiles accumulate in Float32",
        _matmul_float32_tiles_above_64,
    ),
    kernel_fault(
        "reduce_sum_float32_off_last_axis",
        "reduce_sum",
        "a Float64 accumulator honoured on the last axis only: the strided path sums in Float32",
        _reduce_sum_float32_off_last_axis,
    ),
    kernel_fault(
        "reduce_sum_float32_lanes_above_16",
        "reduce_sum",
        "a Float64 accumulator ignored on the SIMD path: last-axis groups longer than 16 "
        "summed in 16 Float32 lanes",
        _float64_reduce_sum(False, 16, _float32_lanes(16)),
    ),
    kernel_fault(
        "reduce_sum_float64_blocks_of_8_stored_float32",
        "reduce_sum",
        "a Float64 accumulator kept within blocks of 8 only: the running total of a "
        "last-axis group is stored as Float32 between blocks",
        _float64_reduce_sum(False, 8, _blocks_stored_float32(8)),
    ),
    kernel_fault(
        "reduce_sum_float64_blocks_of_16_stored_float32_off_last_axis",
        "reduce_sum",
        "the strided path keeps a Float64 accumulator within blocks of 16 only, the "
        "running total stored as Float32 between blocks",
        _float64_reduce_sum(True, 16, _blocks_stored_float32(16)),
    ),
    kernel_fault(
        "reduce_sum_float64_narrowed_through_25_bits",
        "reduce_sum",
        "the Float64 sum of a last-axis group narrowed to Float32 through 25 bits "
        "(double rounding)",
        _float64_reduce_sum(False, 0, _narrowed_through(25)),
    ),
    kernel_fault(
        "reduce_sum_float64_narrowed_through_40_bits_off_last_axis",
        "reduce_sum",
        "the strided path narrows its Float64 sum to Float32 through 40 bits (double rounding)",
        _float64_reduce_sum(True, 0, _narrowed_through(40)),
    ),
    kernel_fault(
        "matmul_float64_k_blocks_of_32_stored_float32",
        "matmul",
        "a Float64 accumulator kept within K-blocks of 32 only: the output tile is stored "
        "as Float32 between blocks",
        _float64_matmul(32, _blocks_stored_float32(32)),
    ),
    kernel_fault(
        "matmul_float64_narrowed_through_32_bits",
        "matmul",
        "the Float64 sum of an output narrowed to Float32 through 32 bits (double rounding)",
        _float64_matmul(0, _narrowed_through(32)),
    ),
    # lanes and tails
    kernel_fault(
        "reduce_max_skips_tail",
        "reduce_max",
        "groups longer than 16 skip the elements past their last full 16-element block",
        _extremum_ignoring_tail("reduce_max"),
    ),
    kernel_fault(
        "argmin_skips_tail",
        "argmin",
        "groups longer than 16 skip the elements past their last full 16-element block",
        _extremum_ignoring_tail("argmin"),
    ),
    kernel_fault(
        "argmax_ties_by_lane",
        "argmax",
        "groups longer than 16: 16 lanes combined preferring the lowest lane on a tie",
        _arg_lanes("argmax", _lowest_lane(True)),
    ),
    kernel_fault(
        "argmin_misses_nans_in_blocks",
        "argmin",
        "groups longer than 16: NaNs in the full 16-element blocks missed, the tail's seen",
        _arg_lanes("argmin", _nans_in_blocks_ignored(False)),
    ),
    kernel_fault(
        "sort_ties_reversed_above_16",
        "_sort_indices",
        "rows longer than 16 (the quicksort path) order equal keys last index first",
        _sort_ties_reversed_above_16,
    ),
    kernel_fault(
        "topk_heap_ties_above_32",
        "_topk_indices",
        "rows longer than 32 (the heap path) prefer the later of equal keys",
        _topk_heap_ties_above_32,
    ),
    kernel_fault(
        "neg_tail_quiets_signalling_nans",
        "neg",
        "outputs longer than 32: the tail past the last 16-element block goes through float64",
        _bit_copy_quieting("neg", "tail"),
    ),
    kernel_fault(
        "abs_blocks_quiet_signalling_nans",
        "abs",
        "outputs longer than 32: the full 16-element blocks go through float64",
        _bit_copy_quieting("abs", "main"),
    ),
    kernel_fault(
        "select_tail_swapped",
        "select",
        "outputs longer than 32: the tail past the last 16-element block takes the other branch",
        _select_tail_swapped,
    ),
    # axes, ranks, keepdims, broadcasting
    kernel_fault(
        "cumsum_negative_axis_off_by_one",
        "cumsum",
        "a negative axis other than -1 counted one too far (axis -k as ndim - k + 1)",
        _cumsum_negative_axis_off_by_one,
    ),
    kernel_fault(
        "reduce_min_rank_above_4",
        "reduce_min",
        "inputs of rank 5 or more: the axis taken modulo 4 (a four-dimensional template)",
        _reduce_min_rank_above_4_axis_mod_4,
    ),
    kernel_fault(
        "reduce_prod_keepdims_several_axes",
        "reduce_prod",
        "keepdims with two or more axes keeps only the first reduced axis",
        _reduce_prod_keepdims_several_axes,
    ),
    kernel_fault(
        "reduce_prod_several_axes_transposed",
        "reduce_prod",
        "two or more axes: the terms visited with the last reduced axis outermost",
        _reduce_prod_several_axes_transposed,
    ),
    kernel_fault(
        "sub_broadcast_by_tiling",
        "sub",
        "an operand stretched along an inner length-1 axis is tiled flat instead of broadcast",
        _sub_broadcast_by_tiling,
    ),
    kernel_fault(
        "maximum_ranks_aligned_left",
        "maximum",
        "operands of different ranks aligned at the left (trailing ones appended)",
        _maximum_ranks_aligned_left,
    ),
    kernel_fault(
        "exp_rank_above_4_transposed",
        "exp",
        "outputs of rank 5 or more written in the reverse axis order",
        _exp_rank_above_4_transposed,
    ),
    # boundary pairs
    kernel_fault(
        "add_int32_overflow_test_misses_zero",
        "add",
        "Int32 overflow tested on the wrapped sum's sign: MIN + MIN wraps to 0 and passes",
        _add_int32_overflow_test_misses_zero,
    ),
    kernel_fault(
        "mul_weak_float_unrounded",
        "mul",
        "a weak float multiplies in float64 without being rounded to binary32 first",
        _mul_weak_float_unrounded,
    ),
)
