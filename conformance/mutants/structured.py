"""The structured faults: accumulations (sums, products, scans, extrema, arg),
matmul and conv, indexing, ordering and selection.

:data:`FAULTS` is the table of these mutants (name, operation, fault, kernel),
in the order of ``docs/mutants.md``; each kernel needs code of its own (no two
differ only by a constant).  They reuse the CPU backend's private helpers
(layouts, order keys, conv geometry), so a fault changes exactly one step of
the correct kernel.  The catalogue (:mod:`conformance.mutants.catalogue`)
collects the table; this module knows nothing of it.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from backends.cpu import KERNELS
from backends.cpu import structured as cpu_structured
from backends.cpu.convert import F32, F64, I32, I64, materialise, normalise_axis
from backends.cpu.elementwise import new_array
from backends.cpu.reductions import _layout, _order_keys, sequential_reduce
from conformance.mutants.kernels import float_inputs, result_array
from conformance.mutants.mutant import Mutant, kernel_fault
from oracle import DType, OperationPlan
from oracle.conv_geometry import conv_geometry

__all__ = ["FAULTS"]

# ---------------------------------------------------------------------------
# Accumulations
# ---------------------------------------------------------------------------


def _reduced(plan: OperationPlan, x: Any, axis: Any, keepdims: Any) -> tuple[np.ndarray, Any]:
    """The operand as (groups, terms) and the result's shape (the CPU kernel's layout)."""
    v = np.asarray(materialise(plan, 0, x))
    return _layout(plan.operation, v, axis, keepdims)


def _reduce_sum_float32_accumulator(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> Any:
    if plan.accumulator_dtype is not DType.Float64:
        return KERNELS["reduce_sum"](backend, plan, x, axis, keepdims)
    data, shape = _reduced(plan, x, axis, keepdims)
    out = new_array(backend, shape, F32)
    out.reshape(-1)[...] = sequential_reduce(data, np.add, 0.0, F32)
    return out


def _reduce_sum_int32_checks_partial_sums(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> Any:
    if plan.output is DType.Int32:
        data, _ = _reduced(plan, x, axis, keepdims)
        partial = np.cumsum(data.astype(I64), axis=1)
        if partial.size and (partial.max() > 2**31 - 1 or partial.min() < -(2**31)):
            raise OverflowError("reduce_sum: a partial sum leaves Int32")
    return KERNELS["reduce_sum"](backend, plan, x, axis, keepdims)


def _reduce_prod_float64_accumulator(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> Any:
    data, shape = _reduced(plan, x, axis, keepdims)
    out = new_array(backend, shape, F32)
    with np.errstate(all="ignore"):
        out.reshape(-1)[...] = np.prod(data.astype(F64), axis=1).astype(F32)
    return out


def _cumsum_parallel_scan(backend: Any, plan: OperationPlan, x: Any, axis: Any) -> Any:
    v = np.asarray(materialise(plan, 0, x))
    axis = normalise_axis(plan.operation, axis, v.ndim)
    out = new_array(backend, v.shape, F32)
    work = np.moveaxis(v.astype(F32).copy(), axis, -1)
    step = 1
    with np.errstate(all="ignore"):
        while step < work.shape[-1]:
            shifted = work.copy()
            shifted[..., step:] = work[..., step:] + work[..., :-step]
            work = shifted
            step *= 2
        work = work + np.float32(0.0)
    out[...] = np.moveaxis(work, -1, axis)
    return out


def _cumsum_starts_at_first_term(backend: Any, plan: OperationPlan, x: Any, axis: Any) -> Any:
    v = np.asarray(materialise(plan, 0, x))
    axis = normalise_axis(plan.operation, axis, v.ndim)
    out = new_array(backend, v.shape, F32)
    if out.size:
        with np.errstate(all="ignore"):
            np.add.accumulate(v, axis=axis, dtype=F32, out=out)
    return out


def _reduce_max_ignores_nan(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> Any:
    out = KERNELS["reduce_max"](backend, plan, x, axis, keepdims)
    data, _ = _reduced(plan, x, axis, keepdims)
    if data.shape[1]:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy warns of all-NaN groups
            ignoring = np.nanmax(data, axis=1)
        finite = ~np.isnan(ignoring)
        out.reshape(-1)[finite] = ignoring[finite]
    return out


def _reduce_max_zero_order(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> Any:
    data, shape = _reduced(plan, x, axis, keepdims)
    if data.shape[1] == 0:
        return KERNELS["reduce_max"](backend, plan, x, axis, keepdims)
    out = new_array(backend, shape, F32)
    with np.errstate(all="ignore"):
        out.reshape(-1)[...] = np.maximum.reduce(data, axis=1)
    return out


def _reduce_min_canonical_nan(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> Any:
    out = KERNELS["reduce_min"](backend, plan, x, axis, keepdims)
    out[np.isnan(out)] = np.float32(np.nan)
    return out


def _arg_input(plan: OperationPlan, x: Any, axis: Any) -> tuple[np.ndarray, Any]:
    v = np.asarray(materialise(plan, 0, x))
    if axis is None:
        return v.reshape(1, v.size), ()
    axis = normalise_axis(plan.operation, axis, v.ndim)
    return _reduced(plan, x, axis, False)


def _argmax_last_wins(backend: Any, plan: OperationPlan, x: Any, axis: Any = None) -> Any:
    data, shape = _arg_input(plan, x, axis)
    if data.shape[1] == 0:
        return KERNELS["argmax"](backend, plan, x, axis)
    with np.errstate(all="ignore"):
        keys = _order_keys(np.ascontiguousarray(data + np.float32(0.0)).view(np.int32))
    index = data.shape[1] - 1 - keys[:, ::-1].argmax(axis=1)  # the last of equal maxima
    nan = np.isnan(data)
    rows = nan.any(axis=1)
    index[rows] = nan[rows].argmax(axis=1)  # the first NaN still wins
    return result_array(backend, index.reshape(shape), I32)


def _argmax_ignores_nan(backend: Any, plan: OperationPlan, x: Any, axis: Any = None) -> Any:
    data, shape = _arg_input(plan, x, axis)
    if data.shape[1] == 0 or np.isnan(data).all(axis=1).any():
        return KERNELS["argmax"](backend, plan, x, axis)
    index = np.nanargmax(data, axis=1)
    return result_array(backend, index.reshape(shape), I32)


def _argmin_orders_zeros(backend: Any, plan: OperationPlan, x: Any, axis: Any = None) -> Any:
    data, shape = _arg_input(plan, x, axis)
    if data.shape[1] == 0:
        return KERNELS["argmin"](backend, plan, x, axis)
    keys = _order_keys(np.ascontiguousarray(data).view(np.int32))
    index = keys.argmin(axis=1)
    nan = np.isnan(data)
    rows = nan.any(axis=1)
    index[rows] = nan[rows].argmax(axis=1)
    return result_array(backend, index.reshape(shape), I32)


# ---------------------------------------------------------------------------
# matmul and conv
# ---------------------------------------------------------------------------


def _matmul_fused_multiply_add(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    if plan.output is not DType.Float32:
        return KERNELS["matmul"](backend, plan, a, b)
    x, y = float_inputs(plan, (a, b))
    if x.ndim != 2 or y.ndim != 2 or x.shape[1] != y.shape[0]:
        return KERNELS["matmul"](backend, plan, a, b)
    out = new_array(backend, (x.shape[0], y.shape[1]), F32)
    acc_dtype = F64 if plan.accumulator_dtype is DType.Float64 else F32
    acc = np.zeros(out.shape, acc_dtype)
    with np.errstate(all="ignore"):
        for k in range(x.shape[1]):
            exact = np.multiply.outer(x[:, k].astype(F64), y[k].astype(F64))
            acc = (acc.astype(F64) + exact).astype(acc_dtype)  # one rounding per step
    out[...] = acc
    return out


def _matmul_float32_accumulator(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    if plan.accumulator_dtype is not DType.Float64:
        return KERNELS["matmul"](backend, plan, a, b)
    x, y = float_inputs(plan, (a, b))
    m, _, n = cpu_structured._matmul_shapes(plan.operation, x, y)
    out = new_array(backend, (m, n), F32)
    return cpu_structured.float_matmul(x, y, F32, out)


def _matmul_int32_wraps(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    if plan.output is not DType.Int32:
        return KERNELS["matmul"](backend, plan, a, b)
    x, y = float_inputs(plan, (a, b))
    m, _, n = cpu_structured._matmul_shapes(plan.operation, x, y)
    with np.errstate(all="ignore"):
        wide = (x.astype(I64) @ y.astype(I64)) & 0xFFFFFFFF
    return result_array(backend, wide.astype(np.uint32).view(I32).reshape(m, n), I32)


def _conv_fused_multiply_add(
    backend: Any, plan: OperationPlan, lhs: Any, rhs: Any, *parameters: Any
) -> Any:
    x = np.asarray(materialise(plan, 0, lhs))
    w = np.asarray(materialise(plan, 1, rhs))
    g = conv_geometry(x.shape, w.shape, *parameters)
    groups, batch, out_channels = g.feature_group_count, g.batch, g.out_channels
    group_channels, out_spatial = g.group_in_channels, g.output_spatial
    per_group = out_channels // groups
    out = new_array(backend, g.output_shape, F32)
    acc = np.zeros((batch, groups, per_group, *out_spatial), F32)
    if acc.size and group_channels:
        padded = cpu_structured._padded_input(x, g)
        xp = padded.reshape(batch, groups, group_channels, *padded.shape[2:])
        weights = w.reshape(groups, per_group, group_channels, *g.window)
        ones = (1,) * len(out_spatial)
        with np.errstate(all="ignore"):
            for position in np.ndindex(*g.window):
                index = [slice(None)] * 3
                for p, rd, s, n in zip(position, g.rhs_dilation, g.window_strides, out_spatial):
                    index.append(slice(p * rd, p * rd + (n - 1) * s + 1, s))
                view = xp[tuple(index)]
                for c in range(group_channels):
                    weight_index = (slice(None), slice(None), c, *position)
                    weight = weights[weight_index]
                    term = view[:, :, c, None].astype(F64) * weight.reshape(
                        1, groups, per_group, *ones
                    ).astype(F64)  # exact: no rounding of the product
                    acc = (acc.astype(F64) + term).astype(F32)
    out[...] = acc.reshape(out.shape)
    return out


# ---------------------------------------------------------------------------
# Indexing, ordering, selection
# ---------------------------------------------------------------------------


def _gather_negative_indices_wrap(
    backend: Any, plan: OperationPlan, data: Any, indices: Any, axis: Any
) -> Any:
    d = np.asarray(materialise(plan, 0, data))
    i = np.asarray(materialise(plan, 1, indices))
    axis = normalise_axis(plan.operation, axis, d.ndim)
    if i.size and (i.max() >= d.shape[axis] or i.min() < -d.shape[axis]):
        return KERNELS["gather"](backend, plan, data, indices, axis)
    return result_array(backend, np.take(d, i, axis=axis))


def _scatter_duplicates_last_wins(
    backend: Any, plan: OperationPlan, base: Any, indices: Any, updates: Any, axis: Any
) -> Any:
    b, i, u, axis = cpu_structured._scatter_operands(plan, base, indices, updates, axis)
    out = new_array(backend, b.shape, F32)
    out[...] = b
    flat = i.reshape(-1)
    np.moveaxis(out, axis, 0)[flat] = cpu_structured._flat_updates(b, i, u, axis)
    return out


def _scatter_add_reversed_order(
    backend: Any, plan: OperationPlan, base: Any, indices: Any, updates: Any, axis: Any
) -> Any:
    b, i, u, axis = cpu_structured._scatter_operands(plan, base, indices, updates, axis)
    out = new_array(backend, b.shape, F32)
    out[...] = b
    target = np.moveaxis(out, axis, 0)
    source = cpu_structured._flat_updates(b, i, u, axis)
    flat = i.reshape(-1)
    with np.errstate(all="ignore"):
        for position in range(flat.size - 1, -1, -1):
            target[flat[position]] = target[flat[position]] + source[position]
    return out


def _select_arithmetic_blend(
    backend: Any, plan: OperationPlan, cond: Any, on_true: Any, on_false: Any
) -> Any:
    c, t, f = float_inputs(plan, (cond, on_true, on_false))
    with np.errstate(all="ignore"):
        c = c.astype(F32)
        return result_array(backend, c * t + (np.float32(1.0) - c) * f)


def _sort_unstable(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = -1, descending: Any = False
) -> Any:
    v = np.asarray(materialise(plan, 0, x))
    axis = normalise_axis(plan.operation, axis, v.ndim)
    keys = cpu_structured._sort_keys(v)
    if descending:
        keys = -keys
    flipped = np.flip(keys, axis=axis)
    order = np.argsort(flipped, axis=axis, kind="stable")
    order = v.shape[axis] - 1 - order
    return result_array(backend, order, I32)


def _sort_nans_first(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = -1, descending: Any = False
) -> Any:
    v = np.asarray(materialise(plan, 0, x))
    axis = normalise_axis(plan.operation, axis, v.ndim)
    keys = cpu_structured._sort_keys(v)
    keys[np.isnan(v)] = -(2**31) - 1  # below every non-NaN key
    if descending:
        keys = -keys
    order = np.argsort(keys, axis=axis, kind="stable")
    return result_array(backend, np.take_along_axis(v, order, axis=axis))


def _valid_k(k: Any, extent: int) -> bool:
    return isinstance(k, (int, np.integer)) and not isinstance(k, bool) and bool(0 <= k <= extent)


def _topk_nans_not_largest(
    backend: Any, plan: OperationPlan, x: Any, k: Any, axis: Any = -1, largest: Any = True
) -> Any:
    v = np.asarray(materialise(plan, 0, x))
    axis = normalise_axis(plan.operation, axis, v.ndim)
    if not _valid_k(k, v.shape[axis]):
        return KERNELS["_topk_values"](backend, plan, x, k, axis, largest)
    keys = cpu_structured._sort_keys(v)
    keys[np.isnan(v)] = -(2**31) - 1 if largest else 2**31
    order = np.argsort(-keys if largest else keys, axis=axis, kind="stable")
    order = np.take(order, np.arange(int(k)), axis=axis)
    return result_array(backend, np.take_along_axis(v, order, axis=axis))


def _topk_ties_prefer_later(
    backend: Any, plan: OperationPlan, x: Any, k: Any, axis: Any = -1, largest: Any = True
) -> Any:
    v = np.asarray(materialise(plan, 0, x))
    axis = normalise_axis(plan.operation, axis, v.ndim)
    if not _valid_k(k, v.shape[axis]):
        return KERNELS["_topk_indices"](backend, plan, x, k, axis, largest)
    keys = cpu_structured._sort_keys(v)
    if largest:
        keys = -keys
    flipped = np.flip(keys, axis=axis)
    order = v.shape[axis] - 1 - np.argsort(flipped, axis=axis, kind="stable")
    return result_array(backend, np.take(order, np.arange(int(k)), axis=axis), I32)


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------

#: the structured mutants, in catalogue order
FAULTS: tuple[Mutant, ...] = (
    # accumulations
    kernel_fault(
        "reduce_sum_float32_accumulator",
        "reduce_sum",
        "Float32 accumulation when a Float64 accumulator was requested",
        _reduce_sum_float32_accumulator,
    ),
    kernel_fault(
        "reduce_sum_int32_checks_partial_sums",
        "reduce_sum",
        "Int32 reduce_sum raises when a partial sum leaves Int32 (the final sum fits)",
        _reduce_sum_int32_checks_partial_sums,
    ),
    kernel_fault(
        "reduce_prod_float64_accumulator",
        "reduce_prod",
        "reduce_prod accumulates in float64 and rounds once (not sequential binary32)",
        _reduce_prod_float64_accumulator,
    ),
    kernel_fault(
        "cumsum_parallel_scan",
        "cumsum",
        "cumsum by a Hillis-Steele parallel scan (a different association than sequential)",
        _cumsum_parallel_scan,
    ),
    kernel_fault(
        "cumsum_starts_at_first_term",
        "cumsum",
        "cumsum starts from the first term, not +0 (a prefix of -0 terms stays -0)",
        _cumsum_starts_at_first_term,
    ),
    kernel_fault(
        "reduce_max_ignores_nan",
        "reduce_max",
        "reduce_max ignores NaN (nanmax)",
        _reduce_max_ignores_nan,
    ),
    kernel_fault(
        "reduce_max_zero_order",
        "reduce_max",
        "reduce_max keeps the first of equal values: reduce_max([-0, +0]) = -0",
        _reduce_max_zero_order,
    ),
    kernel_fault(
        "reduce_min_canonical_nan",
        "reduce_min",
        "reduce_min returns the canonical NaN, not the first NaN's bits",
        _reduce_min_canonical_nan,
    ),
    kernel_fault(
        "argmax_last_wins",
        "argmax",
        "argmax ties go to the last index",
        _argmax_last_wins,
    ),
    kernel_fault(
        "argmax_ignores_nan",
        "argmax",
        "argmax ignores NaN (nanargmax)",
        _argmax_ignores_nan,
    ),
    kernel_fault(
        "argmin_orders_zeros",
        "argmin",
        "argmin treats -0 as smaller than +0 (the zeros do not tie)",
        _argmin_orders_zeros,
    ),
    # matmul and conv
    kernel_fault(
        "matmul_fused_multiply_add",
        "matmul",
        "matmul products are not rounded (fused multiply-add, float64 products)",
        _matmul_fused_multiply_add,
    ),
    kernel_fault(
        "matmul_float32_accumulator",
        "matmul",
        "matmul accumulates in Float32 when a Float64 accumulator was requested",
        _matmul_float32_accumulator,
    ),
    kernel_fault(
        "matmul_int32_wraps",
        "matmul",
        "Int32 matmul wraps around instead of OverflowError",
        _matmul_int32_wraps,
    ),
    kernel_fault(
        "conv_fused_multiply_add",
        "conv_general",
        "conv_general adds each exact product with one rounding (fma), not round(x * w)",
        _conv_fused_multiply_add,
    ),
    # indexing, ordering, selection
    kernel_fault(
        "gather_negative_indices_wrap",
        "gather",
        "gather accepts negative indices and wraps them (numpy take), no IndexError",
        _gather_negative_indices_wrap,
    ),
    kernel_fault(
        "scatter_duplicates_last_wins",
        "scatter",
        "scatter accepts duplicate indices (the last update wins), no ValueError",
        _scatter_duplicates_last_wins,
    ),
    kernel_fault(
        "scatter_add_reversed_order",
        "scatter_add",
        "scatter_add applies the updates of a repeated index in reverse order",
        _scatter_add_reversed_order,
    ),
    kernel_fault(
        "select_arithmetic_blend",
        "select",
        "select as cond * t + (1 - cond) * f: NaNs leak from the other branch, -0 lost",
        _select_arithmetic_blend,
    ),
    kernel_fault(
        "sort_unstable",
        "_sort_indices",
        "sort is not stable: equal keys come out in reverse order",
        _sort_unstable,
    ),
    kernel_fault(
        "sort_nans_first",
        "_sort_values",
        "NaNs sort first in ascending order (and last descending)",
        _sort_nans_first,
    ),
    kernel_fault(
        "topk_nans_not_largest",
        "_topk_values",
        "topk(largest=True) treats NaN as the smallest value (NaNs never selected first)",
        _topk_nans_not_largest,
    ),
    kernel_fault(
        "topk_ties_prefer_later",
        "_topk_indices",
        "topk breaks ties by the later index",
        _topk_ties_prefer_later,
    ),
)
