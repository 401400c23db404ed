"""The mutant catalogue's structured faults: accumulations (sums, products, scans,
extrema, arg), matmul and conv, indexing, ordering and selection.

Each decorated kernel registers one mutant in :data:`conformance.mutants.MUTANTS`
(and as an attribute of :mod:`conformance.mutants`), which imports this module.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from backends.cpu import KERNELS
from backends.cpu.convert import F32, F64, I32, I64, materialise
from backends.cpu.elementwise import new_array
from conformance.mutants import (
    _float_inputs,
    _result,
    kernel,
)
from oracle import DType, OperationPlan

# ---------------------------------------------------------------------------
# Accumulations
# ---------------------------------------------------------------------------


def _reduced(plan: OperationPlan, x: Any, axis: Any, keepdims: Any) -> tuple[np.ndarray, Any]:
    from backends.cpu.reductions import _layout

    v = np.asarray(materialise(plan, 0, x))
    return _layout(plan.operation, v, axis, keepdims)


@kernel(
    "reduce_sum",
    name="reduce_sum_float32_accumulator",
    fault="Float32 accumulation when a Float64 accumulator was requested",
)
def _sum_f32(backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False):
    if plan.accumulator_dtype is not DType.Float64:
        return KERNELS["reduce_sum"](backend, plan, x, axis, keepdims)
    from backends.cpu.reductions import sequential_reduce

    data, shape = _reduced(plan, x, axis, keepdims)
    out = new_array(backend, shape, F32)
    out.reshape(-1)[...] = sequential_reduce(data, np.add, 0.0, F32)
    return out


@kernel(
    "reduce_sum",
    name="reduce_sum_int32_checks_partial_sums",
    fault="Int32 reduce_sum raises when a partial sum leaves Int32 (the final sum fits)",
)
def _sum_partials(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> Any:
    if plan.output is DType.Int32:
        data, _ = _reduced(plan, x, axis, keepdims)
        partial = np.cumsum(data.astype(I64), axis=1)
        if partial.size and (partial.max() > 2**31 - 1 or partial.min() < -(2**31)):
            raise OverflowError("reduce_sum: a partial sum leaves Int32")
    return KERNELS["reduce_sum"](backend, plan, x, axis, keepdims)


@kernel(
    "reduce_prod",
    name="reduce_prod_float64_accumulator",
    fault="reduce_prod accumulates in float64 and rounds once (not sequential binary32)",
)
def _prod64(backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False):
    data, shape = _reduced(plan, x, axis, keepdims)
    out = new_array(backend, shape, F32)
    with np.errstate(all="ignore"):
        out.reshape(-1)[...] = np.prod(data.astype(F64), axis=1).astype(F32)
    return out


@kernel(
    "cumsum",
    name="cumsum_parallel_scan",
    fault="cumsum by a Hillis-Steele parallel scan (a different association than sequential)",
)
def _scan(backend: Any, plan: OperationPlan, x: Any, axis: Any) -> Any:
    from backends.cpu.convert import normalise_axis

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


@kernel(
    "cumsum",
    name="cumsum_starts_at_first_term",
    fault="cumsum starts from the first term, not +0 (a prefix of -0 terms stays -0)",
)
def _cumsum_zero(backend: Any, plan: OperationPlan, x: Any, axis: Any) -> Any:
    from backends.cpu.convert import normalise_axis

    v = np.asarray(materialise(plan, 0, x))
    axis = normalise_axis(plan.operation, axis, v.ndim)
    out = new_array(backend, v.shape, F32)
    if out.size:
        with np.errstate(all="ignore"):
            np.add.accumulate(v, axis=axis, dtype=F32, out=out)
    return out


@kernel("reduce_max", name="reduce_max_ignores_nan", fault="reduce_max ignores NaN (nanmax)")
def _nanmax(backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False):
    out = KERNELS["reduce_max"](backend, plan, x, axis, keepdims)
    data, _ = _reduced(plan, x, axis, keepdims)
    if data.shape[1]:
        with np.errstate(all="ignore"), __import__("warnings").catch_warnings():
            __import__("warnings").simplefilter("ignore")
            ignoring = np.nanmax(data, axis=1)
        finite = ~np.isnan(ignoring)
        out.reshape(-1)[finite] = ignoring[finite]
    return out


@kernel(
    "reduce_max",
    name="reduce_max_zero_order",
    fault="reduce_max keeps the first of equal values: reduce_max([-0, +0]) = -0",
)
def _max_zero(backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False):
    data, shape = _reduced(plan, x, axis, keepdims)
    if data.shape[1] == 0:
        return KERNELS["reduce_max"](backend, plan, x, axis, keepdims)
    out = new_array(backend, shape, F32)
    with np.errstate(all="ignore"):
        out.reshape(-1)[...] = np.maximum.reduce(data, axis=1)
    return out


@kernel(
    "reduce_min",
    name="reduce_min_canonical_nan",
    fault="reduce_min returns the canonical NaN, not the first NaN's bits",
)
def _min_nan(backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False):
    out = KERNELS["reduce_min"](backend, plan, x, axis, keepdims)
    out[np.isnan(out)] = np.float32(np.nan)
    return out


def _arg_input(plan: OperationPlan, x: Any, axis: Any) -> tuple[np.ndarray, Any]:
    v = np.asarray(materialise(plan, 0, x))
    if axis is None:
        return v.reshape(1, v.size), ()
    from backends.cpu.convert import normalise_axis

    axis = normalise_axis(plan.operation, axis, v.ndim)
    return _reduced(plan, x, axis, False)


@kernel("argmax", name="argmax_last_wins", fault="argmax ties go to the last index")
def _argmax_last(backend: Any, plan: OperationPlan, x: Any, axis: Any = None) -> Any:
    from backends.cpu.reductions import _order_keys

    data, shape = _arg_input(plan, x, axis)
    if data.shape[1] == 0:
        return KERNELS["argmax"](backend, plan, x, axis)
    with np.errstate(all="ignore"):
        keys = _order_keys(np.ascontiguousarray(data + np.float32(0.0)).view(np.int32))
    index = data.shape[1] - 1 - keys[:, ::-1].argmax(axis=1)  # the last of equal maxima
    nan = np.isnan(data)
    rows = nan.any(axis=1)
    index[rows] = nan[rows].argmax(axis=1)  # the first NaN still wins
    return _result(backend, index.reshape(shape), I32)


@kernel("argmax", name="argmax_ignores_nan", fault="argmax ignores NaN (nanargmax)")
def _argmax_nan(backend: Any, plan: OperationPlan, x: Any, axis: Any = None) -> Any:
    data, shape = _arg_input(plan, x, axis)
    if data.shape[1] == 0 or np.isnan(data).all(axis=1).any():
        return KERNELS["argmax"](backend, plan, x, axis)
    index = np.nanargmax(data, axis=1)
    return _result(backend, index.reshape(shape), I32)


@kernel(
    "argmin",
    name="argmin_orders_zeros",
    fault="argmin treats -0 as smaller than +0 (the zeros do not tie)",
)
def _argmin_zero(backend: Any, plan: OperationPlan, x: Any, axis: Any = None) -> Any:
    from backends.cpu.reductions import _order_keys

    data, shape = _arg_input(plan, x, axis)
    if data.shape[1] == 0:
        return KERNELS["argmin"](backend, plan, x, axis)
    keys = _order_keys(np.ascontiguousarray(data).view(np.int32))
    index = keys.argmin(axis=1)
    nan = np.isnan(data)
    rows = nan.any(axis=1)
    index[rows] = nan[rows].argmax(axis=1)
    return _result(backend, index.reshape(shape), I32)


# ---------------------------------------------------------------------------
# matmul and conv
# ---------------------------------------------------------------------------


@kernel(
    "matmul",
    name="matmul_fused_multiply_add",
    fault="matmul products are not rounded (fused multiply-add, float64 products)",
)
def _matmul_fma(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    if plan.output is not DType.Float32:
        return KERNELS["matmul"](backend, plan, a, b)
    x, y = _float_inputs(plan, (a, b))
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


@kernel(
    "matmul",
    name="matmul_float32_accumulator",
    fault="matmul accumulates in Float32 when a Float64 accumulator was requested",
)
def _matmul_f32(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    if plan.accumulator_dtype is not DType.Float64:
        return KERNELS["matmul"](backend, plan, a, b)
    from backends.cpu.structured import _matmul_shapes, float_matmul

    x, y = _float_inputs(plan, (a, b))
    m, _, n = _matmul_shapes(plan.operation, x, y)
    out = new_array(backend, (m, n), F32)
    return float_matmul(x, y, F32, out)


@kernel(
    "matmul", name="matmul_int32_wraps", fault="Int32 matmul wraps around instead of OverflowError"
)
def _matmul_wraps(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    if plan.output is not DType.Int32:
        return KERNELS["matmul"](backend, plan, a, b)
    from backends.cpu.structured import _matmul_shapes

    x, y = _float_inputs(plan, (a, b))
    m, _, n = _matmul_shapes(plan.operation, x, y)
    with np.errstate(all="ignore"):
        wide = (x.astype(I64) @ y.astype(I64)) & 0xFFFFFFFF
    return _result(backend, wide.astype(np.uint32).view(I32).reshape(m, n), I32)


@kernel(
    "conv_general",
    name="conv_fused_multiply_add",
    fault="conv_general adds each exact product with one rounding (fma), not round(x * w)",
)
def _conv_fma(backend: Any, plan: OperationPlan, lhs: Any, rhs: Any, *parameters: Any) -> Any:
    from backends.cpu import structured

    x = np.asarray(materialise(plan, 0, lhs))
    w = np.asarray(materialise(plan, 1, rhs))
    parameters = (*parameters, *(None, None, None, None, 1)[len(parameters) :])
    g = structured._conv_geometry(plan.operation, x, w, *parameters)
    groups, batch, out_channels = g["groups"], g["batch"], g["out_channels"]
    group_channels, out_spatial = g["group_channels"], g["out_spatial"]
    per_group = out_channels // groups
    out = new_array(backend, (batch, out_channels, *out_spatial), F32)
    acc = np.zeros((batch, groups, per_group, *out_spatial), F32)
    if acc.size and group_channels:
        padded = structured._padded_input(x, g)
        xp = padded.reshape(batch, groups, group_channels, *padded.shape[2:])
        weights = w.reshape(groups, per_group, group_channels, *g["window"])
        ones = (1,) * len(out_spatial)
        with np.errstate(all="ignore"):
            for position in np.ndindex(*g["window"]):
                index = [slice(None)] * 3
                for p, rd, s, n in zip(position, g["rhs_dilation"], g["strides"], out_spatial):
                    index.append(slice(p * rd, p * rd + (n - 1) * s + 1, s))
                view = xp[tuple(index)]
                for c in range(group_channels):
                    weight = weights[(slice(None), slice(None), c, *position)]
                    term = view[:, :, c, None].astype(F64) * weight.reshape(
                        1, groups, per_group, *ones
                    ).astype(F64)  # exact: no rounding of the product
                    acc = (acc.astype(F64) + term).astype(F32)
    out[...] = acc.reshape(out.shape)
    return out


# ---------------------------------------------------------------------------
# Indexing, ordering, selection
# ---------------------------------------------------------------------------


@kernel(
    "gather",
    name="gather_negative_indices_wrap",
    fault="gather accepts negative indices and wraps them (numpy take), no IndexError",
)
def _gather_wrap(backend: Any, plan: OperationPlan, data: Any, indices: Any, axis: Any) -> Any:
    from backends.cpu.convert import normalise_axis

    d = np.asarray(materialise(plan, 0, data))
    i = np.asarray(materialise(plan, 1, indices))
    axis = normalise_axis(plan.operation, axis, d.ndim)
    if i.size and (i.max() >= d.shape[axis] or i.min() < -d.shape[axis]):
        return KERNELS["gather"](backend, plan, data, indices, axis)
    return _result(backend, np.take(d, i, axis=axis))


@kernel(
    "scatter",
    name="scatter_duplicates_last_wins",
    fault="scatter accepts duplicate indices (the last update wins), no ValueError",
)
def _scatter_dup(
    backend: Any, plan: OperationPlan, base: Any, indices: Any, updates: Any, axis: Any
) -> Any:
    from backends.cpu.structured import _flat_updates, _scatter_operands

    b, i, u, axis = _scatter_operands(plan, base, indices, updates, axis)
    out = new_array(backend, b.shape, F32)
    out[...] = b
    flat = i.reshape(-1)
    np.moveaxis(out, axis, 0)[flat] = _flat_updates(b, i, u, axis)
    return out


@kernel(
    "scatter_add",
    name="scatter_add_reversed_order",
    fault="scatter_add applies the updates of a repeated index in reverse order",
)
def _scatter_add_rev(
    backend: Any, plan: OperationPlan, base: Any, indices: Any, updates: Any, axis: Any
) -> Any:
    from backends.cpu.structured import _flat_updates, _scatter_operands

    b, i, u, axis = _scatter_operands(plan, base, indices, updates, axis)
    out = new_array(backend, b.shape, F32)
    out[...] = b
    target = np.moveaxis(out, axis, 0)
    source = _flat_updates(b, i, u, axis)
    flat = i.reshape(-1)
    with np.errstate(all="ignore"):
        for position in range(flat.size - 1, -1, -1):
            target[flat[position]] = target[flat[position]] + source[position]
    return out


@kernel(
    "select",
    name="select_arithmetic_blend",
    fault="select as cond * t + (1 - cond) * f: NaNs leak from the other branch, -0 lost",
)
def _select_blend(backend: Any, plan: OperationPlan, cond: Any, on_true: Any, on_false: Any):
    c, t, f = _float_inputs(plan, (cond, on_true, on_false))
    with np.errstate(all="ignore"):
        c = c.astype(F32)
        return _result(backend, c * t + (np.float32(1.0) - c) * f)


def _sort_keys(x: np.ndarray) -> np.ndarray:
    from backends.cpu.structured import _sort_keys as keys

    return keys(x)


@kernel(
    "_sort_indices",
    name="sort_unstable",
    fault="sort is not stable: equal keys come out in reverse order",
)
def _sort_unstable(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = -1, descending: Any = False
) -> Any:
    from backends.cpu.convert import normalise_axis

    v = np.asarray(materialise(plan, 0, x))
    axis = normalise_axis(plan.operation, axis, v.ndim)
    keys = _sort_keys(v)
    if descending:
        keys = -keys
    flipped = np.flip(keys, axis=axis)
    order = np.argsort(flipped, axis=axis, kind="stable")
    order = v.shape[axis] - 1 - order
    return _result(backend, order, I32)


@kernel(
    "_sort_values",
    name="sort_nans_first",
    fault="NaNs sort first in ascending order (and last descending)",
)
def _sort_nan(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = -1, descending: Any = False
) -> Any:
    from backends.cpu.convert import normalise_axis

    v = np.asarray(materialise(plan, 0, x))
    axis = normalise_axis(plan.operation, axis, v.ndim)
    keys = _sort_keys(v)
    keys[np.isnan(v)] = -(2**31) - 1  # below every non-NaN key
    if descending:
        keys = -keys
    order = np.argsort(keys, axis=axis, kind="stable")
    return _result(backend, np.take_along_axis(v, order, axis=axis))


@kernel(
    "_topk_values",
    name="topk_nans_not_largest",
    fault="topk(largest=True) treats NaN as the smallest value (NaNs never selected first)",
)
def _topk_nan(
    backend: Any, plan: OperationPlan, x: Any, k: Any, axis: Any = -1, largest: Any = True
) -> Any:
    from backends.cpu.convert import normalise_axis

    v = np.asarray(materialise(plan, 0, x))
    axis = normalise_axis(plan.operation, axis, v.ndim)
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or not 0 <= k <= v.shape[axis]:
        return KERNELS["_topk_values"](backend, plan, x, k, axis, largest)
    keys = _sort_keys(v)
    keys[np.isnan(v)] = -(2**31) - 1 if largest else 2**31
    order = np.argsort(-keys if largest else keys, axis=axis, kind="stable")
    order = np.take(order, np.arange(int(k)), axis=axis)
    return _result(backend, np.take_along_axis(v, order, axis=axis))


@kernel("_topk_indices", name="topk_ties_prefer_later", fault="topk breaks ties by the later index")
def _topk_ties(
    backend: Any, plan: OperationPlan, x: Any, k: Any, axis: Any = -1, largest: Any = True
) -> Any:
    from backends.cpu.convert import normalise_axis

    v = np.asarray(materialise(plan, 0, x))
    axis = normalise_axis(plan.operation, axis, v.ndim)
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or not 0 <= k <= v.shape[axis]:
        return KERNELS["_topk_indices"](backend, plan, x, k, axis, largest)
    keys = _sort_keys(v)
    if largest:
        keys = -keys
    flipped = np.flip(keys, axis=axis)
    order = v.shape[axis] - 1 - np.argsort(flipped, axis=axis, kind="stable")
    return _result(backend, np.take(order, np.arange(int(k)), axis=axis), I32)
