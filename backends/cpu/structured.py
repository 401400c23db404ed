"""Structured operations: matmul, conv_general, gather/scatter, select, clamp, sort/topk.

* ``matmul(a, b)`` (2-D): every product ``a[i,k] * b[k,j]`` is rounded to
  binary32 first, then added over k ascending from +0 in the plan's
  accumulator dtype (float32 or float64), one final rounding to Float32.
  BLAS sgemm fuses/reassociates and float64 dgemm skips the product
  rounding, so neither is used for Float32: the kernel is a loop over k of
  rank-1 updates ``acc += round32(a[:, k] * b[k, :])`` on row blocks of
  about :data:`MATMUL_BLOCK` elements (in cache; nothing of size M*K*N is
  formed); for few outputs and long k it runs ``add.accumulate`` along k
  instead.  Int32 x Int32 is exact: when every ``sum_k |a_ik| * max|b|`` is
  below 2**53 one float64 dgemm is exact (every partial sum, in any order,
  with or without FMA, is an integer below 2**53); otherwise the operands are
  split into 16-bit halves, four exact dgemms give the parts, which are
  combined modulo 2**64 in int64 and validated against a float64 estimate.
  Only the final value is checked against Int32.
* ``conv_general(lhs, rhs, window_strides=None, padding=None, lhs_dilation=None,
  rhs_dilation=None, feature_group_count=1)``: cross-correlation; lhs is
  ``[batch, in_channels, *spatial]``, rhs ``[out_channels, in_channels // groups,
  *window]``; padding a (low, high) pair per spatial dimension (negative
  values crop).  Each term ``round32(x * w)`` is added from +0 in the order
  window positions row-major (outer), input channels of the group ascending
  (inner), vectorised over batch, output channels and output positions.
  Padding and dilation holes hold +0, so they contribute ``round32(0 * w)``.
  The parameters are checked, and the extents derived, by the oracle's
  :func:`oracle.conv_geometry.conv_geometry` (the errors are the oracle's).
* ``gather(data, indices, axis)``: ``numpy.take``; every index must lie in
  ``[0, n)`` (IndexError otherwise, negatives included).  Bits are copied.
* ``scatter(base, indices, updates, axis)``: updates has the gather-result
  shape (ValueError otherwise); indices in range (IndexError), then distinct
  (ValueError).  ``scatter_add``: duplicates allowed; updates are added in
  ascending logical order, one rounded addition each (rounds of distinct
  targets, by occurrence rank -- never ``numpy.add.at``).
* ``select(cond, on_true, on_false)``: numpy broadcasting, bit copies.
* ``clamp(x, lo, hi) = minimum(maximum(x, lo), hi)`` (IEEE 754-2019 rules),
  weak bounds materialised as Float32 first; bounds are not validated.
* ``_sort_values/_sort_indices(x, axis=-1, descending=False)``,
  ``_topk_values/_topk_indices(x, k, axis=-1, largest=True)``: stable sorts
  of integer keys in which -0 == +0 and every NaN is one class above +inf
  (last ascending, first descending); descending sorts the negated keys
  stably, so equal elements keep their original order.  Indices are Int32.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from oracle import Accumulation, DType, OperationPlan
from oracle.conv_geometry import ConvGeometry, conv_geometry

from ..parameters import read_flag, read_int
from .convert import (
    F32,
    F64,
    I32,
    I64,
    broadcast_shape,
    check_int32_range,
    materialise,
    normalise_axis,
)
from .elementwise import ieee_maximum, ieee_minimum, new_array

__all__ = ["KERNELS", "MATMUL_BLOCK", "float_matmul", "int_matmul"]

#: target elements of one matmul row block (acc and products each fit in L2)
MATMUL_BLOCK = 1 << 15
#: below this many outputs, matmul accumulates along k with add.accumulate
_FEW_OUTPUTS = 64
_K_BLOCK = 1 << 12


# ---------------------------------------------------------------------------
# matmul
# ---------------------------------------------------------------------------


def _matmul_shapes(operation: str, a: np.ndarray, b: np.ndarray) -> tuple[int, int, int]:
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(
            f"{operation}: needs (M, K) and (K, N) matrices, got shapes {a.shape} and {b.shape}"
        )
    return a.shape[0], a.shape[1], b.shape[1]


def float_matmul(a: np.ndarray, b: np.ndarray, dtype: np.dtype, out: np.ndarray) -> np.ndarray:
    """Sequential-k matmul of float32 *a*, *b* into float32 *out*, accumulating in *dtype*."""
    m, k, n = a.shape[0], a.shape[1], b.shape[1]
    if m * n == 0:
        return out
    if k == 0:
        out.fill(0.0)
        return out
    with np.errstate(all="ignore"):
        if m * n < _FEW_OUTPUTS and k > 1:
            return _matmul_along_k(a, b, dtype, out)
        a_columns = np.ascontiguousarray(a.T)  # row k holds a[:, k]
        b_rows = np.ascontiguousarray(b)
        rows = max(1, min(m, MATMUL_BLOCK // max(n, 1)))
        product = np.empty((rows, n), F32)
        for first in range(0, m, rows):
            last = min(m, first + rows)
            acc = np.zeros((last - first, n), dtype)
            term = product[: last - first]
            for kk in range(k):
                np.multiply(a_columns[kk, first:last, None], b_rows[kk], out=term)
                np.add(acc, term, out=acc)
            out[first:last] = acc
    return out


def _matmul_along_k(a: np.ndarray, b: np.ndarray, dtype: np.dtype, out: np.ndarray) -> np.ndarray:
    m, k, n = a.shape[0], a.shape[1], b.shape[1]
    bt = np.ascontiguousarray(b.T)  # (N, K)
    acc = np.zeros((m, n), dtype)
    for first in range(0, k, _K_BLOCK):
        last = min(k, first + _K_BLOCK)
        terms = a[:, None, first:last] * bt[None, :, first:last]  # (M, N, block) float32
        work = np.empty((m, n, last - first + 1), dtype)
        work[:, :, 0] = acc
        work[:, :, 1:] = terms
        np.add.accumulate(work, axis=2, out=work)
        acc = work[:, :, -1].copy()
    out[...] = acc
    return out


_EXACT_DGEMM = 2**53
U64 = np.dtype(np.uint64)


def int_matmul(operation: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Exact int64 ``a @ b`` of int32 matrices, checked to Int32 (OverflowError)."""
    m, k, n = a.shape[0], a.shape[1], b.shape[1]
    if m * n == 0 or k == 0:
        return np.zeros((m, n), I64)
    a64 = a.astype(I64)
    b64 = b.astype(I64)
    max_b = int(np.abs(b64).max())
    row_bound = int(np.abs(a64).sum(axis=1).max()) * max_b
    if row_bound < _EXACT_DGEMM:
        exact = a64.astype(F64) @ b64.astype(F64)
        wide = exact.astype(I64)
    else:
        wide = _split_matmul(operation, a64, b64)
    check_int32_range(operation, int(wide.min()), int(wide.max()))
    return wide


def _split_matmul(operation: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Exact product from 16-bit halves (every dgemm below has integer partials < 2**53)."""
    k = a.shape[1]
    total_mod = None
    estimate = None
    for first in range(0, k, 1 << 20):  # K * 2**32 < 2**53 per chunk
        a_part = a[:, first : first + (1 << 20)]
        b_part = b[first : first + (1 << 20)]
        a_high, a_low = a_part >> 16, a_part & 0xFFFF  # a = a_high * 2**16 + a_low
        b_high, b_low = b_part >> 16, b_part & 0xFFFF
        ah, al = a_high.astype(F64), a_low.astype(F64)
        bh, bl = b_high.astype(F64), b_low.astype(F64)
        hh = (ah @ bh).astype(I64)
        mid = (ah @ bl).astype(I64) + (al @ bh).astype(I64)
        ll = (al @ bl).astype(I64)
        # exact modulo 2**64 (unsigned arithmetic wraps by definition)
        chunk_mod = (
            hh.view(U64) * np.uint64(1 << 32) + mid.view(U64) * np.uint64(1 << 16) + ll.view(U64)
        )
        chunk_estimate = hh.astype(F64) * 2.0**32 + mid.astype(F64) * 2.0**16 + ll.astype(F64)
        total_mod = chunk_mod if total_mod is None else total_mod + chunk_mod
        estimate = chunk_estimate if estimate is None else estimate + chunk_estimate
    assert total_mod is not None and estimate is not None
    if np.abs(estimate).max() >= 2.0**62:  # the exact value is beyond 2**61: not Int32
        worst = np.unravel_index(int(np.abs(estimate).argmax()), estimate.shape)
        raise OverflowError(
            f"{operation}: the exact Int32 result at {tuple(int(i) for i in worst)} "
            f"(about {estimate[worst]:.6g}) lies outside Int32"
        )
    return total_mod.view(I64)  # |exact| < 2**63: the residue is the exact value


def matmul(backend: Any, plan: OperationPlan, a: Any, b: Any) -> np.ndarray:
    x = np.asarray(materialise(plan, 0, a))
    y = np.asarray(materialise(plan, 1, b))
    m, _, n = _matmul_shapes(plan.operation, x, y)
    if plan.accumulation is Accumulation.EXACT_INTEGER:
        wide = int_matmul(plan.operation, x, y)
        out = new_array(backend, (m, n), I32)
        np.copyto(out, wide, casting="unsafe")
        return out
    dtype = F64 if plan.accumulator_dtype is DType.Float64 else F32
    out = new_array(backend, (m, n), F32)
    return float_matmul(x, y, dtype, out)


# ---------------------------------------------------------------------------
# conv_general
# ---------------------------------------------------------------------------


def _padded_input(lhs: np.ndarray, geometry: ConvGeometry) -> np.ndarray:
    """lhs with +0 dilation holes and +0 padding (negative padding crops)."""
    x = lhs
    for d, (ld, (low, high)) in enumerate(zip(geometry.lhs_dilation, geometry.padding)):
        axis = d + 2
        size = x.shape[axis]
        if ld > 1 and size:
            shape = list(x.shape)
            shape[axis] = (size - 1) * ld + 1
            spread = np.zeros(shape, F32)
            index = [slice(None)] * x.ndim
            index[axis] = slice(None, None, ld)
            spread[tuple(index)] = x
            x = spread
        if low < 0 or high < 0:
            index = [slice(None)] * x.ndim
            index[axis] = slice(max(-low, 0), x.shape[axis] - max(-high, 0))
            x = x[tuple(index)]
        if low > 0 or high > 0:
            widths = [(0, 0)] * x.ndim
            widths[axis] = (max(low, 0), max(high, 0))
            x = np.pad(x, widths)  # zeros are +0
    return np.ascontiguousarray(x, dtype=F32)


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
) -> np.ndarray:
    x = np.asarray(materialise(plan, 0, lhs))
    w = np.asarray(materialise(plan, 1, rhs))
    g = conv_geometry(
        x.shape, w.shape, window_strides, padding, lhs_dilation, rhs_dilation, feature_group_count
    )
    groups, batch, per_group = g.feature_group_count, g.batch, g.group_out_channels
    group_channels, out_spatial = g.group_in_channels, g.output_spatial
    out = new_array(backend, g.output_shape, F32)
    acc = np.zeros((batch, groups, per_group, *out_spatial), F32)
    if acc.size and group_channels:
        xp = _padded_input(x, g)
        xp = xp.reshape(batch, groups, group_channels, *xp.shape[2:])
        weights = w.reshape(groups, per_group, group_channels, *g.window)
        term = np.empty_like(acc)
        spatial_ones = (1,) * len(out_spatial)
        with np.errstate(all="ignore"):
            for position in np.ndindex(*g.window):
                index = [slice(None)] * 3
                for p, rd, s, n in zip(position, g.rhs_dilation, g.window_strides, out_spatial):
                    start = p * rd
                    index.append(slice(start, start + (n - 1) * s + 1, s))
                window_view = xp[tuple(index)]  # (batch, groups, group_channels, *out)
                for c in range(group_channels):
                    lhs_part = window_view[:, :, c, None]  # (batch, groups, 1, *out)
                    # a name for the index: mypy takes w[(a, *p)] for 3.11's w[a, *p]
                    at = (slice(None), slice(None), c, *position)
                    w_part = weights[at]
                    np.multiply(lhs_part, w_part.reshape(1, groups, per_group, *spatial_ones),
                                out=term)  # fmt: skip
                    np.add(acc, term, out=acc)
    out[...] = acc.reshape(out.shape)
    return out


# ---------------------------------------------------------------------------
# gather / scatter / scatter_add
# ---------------------------------------------------------------------------


def _check_indices(operation: str, indices: np.ndarray, extent: int) -> None:
    if indices.size == 0:
        return
    low, high = int(indices.min()), int(indices.max())
    if low < 0 or high >= extent:
        bad = low if low < 0 else high
        raise IndexError(f"{operation}: index {bad} is out of range [0, {extent})")


def gather(backend: Any, plan: OperationPlan, data: Any, indices: Any, axis: Any) -> np.ndarray:
    d = np.asarray(materialise(plan, 0, data))
    i = np.asarray(materialise(plan, 1, indices))
    axis = normalise_axis(plan.operation, axis, d.ndim)
    _check_indices(plan.operation, i, d.shape[axis])
    out = new_array(backend, d.shape[:axis] + i.shape + d.shape[axis + 1 :], F32)
    np.take(d, i, axis=axis, out=out)
    return out


def _scatter_operands(
    plan: OperationPlan, base: Any, indices: Any, updates: Any, axis: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    b = np.asarray(materialise(plan, 0, base))
    i = np.asarray(materialise(plan, 1, indices))
    u = np.asarray(materialise(plan, 2, updates))
    axis = normalise_axis(plan.operation, axis, b.ndim)
    expected = b.shape[:axis] + i.shape + b.shape[axis + 1 :]
    if u.shape != expected:
        raise ValueError(
            f"{plan.operation}: updates of shape {u.shape} do not match base {b.shape} "
            f"with indices {i.shape} on axis {axis} (expected {expected})"
        )
    _check_indices(plan.operation, i, b.shape[axis])
    return b, i, u, axis


def _flat_updates(b: np.ndarray, i: np.ndarray, u: np.ndarray, axis: int) -> np.ndarray:
    """Updates as (index position, *base shape without axis)."""
    grouped = u.reshape((*b.shape[:axis], i.size, *b.shape[axis + 1 :]))
    return np.moveaxis(grouped, axis, 0)


def scatter(
    backend: Any, plan: OperationPlan, base: Any, indices: Any, updates: Any, axis: Any
) -> np.ndarray:
    b, i, u, axis = _scatter_operands(plan, base, indices, updates, axis)
    flat = i.reshape(-1)
    values, counts = np.unique(flat, return_counts=True)
    if values.size != flat.size:
        repeated = int(values[counts > 1][0])
        positions = [int(p) for p in np.flatnonzero(flat == repeated)[:2]]
        raise ValueError(
            f"{plan.operation}: index {repeated} occurs at flat indices positions "
            f"{positions[0]} and {positions[1]}; scatter indices must be distinct "
            f"(use scatter_add to combine)"
        )
    out = new_array(backend, b.shape, F32)
    out[...] = b
    np.moveaxis(out, axis, 0)[flat] = _flat_updates(b, i, u, axis)
    return out


def scatter_add(
    backend: Any, plan: OperationPlan, base: Any, indices: Any, updates: Any, axis: Any
) -> np.ndarray:
    b, i, u, axis = _scatter_operands(plan, base, indices, updates, axis)
    flat = i.reshape(-1)
    out = new_array(backend, b.shape, F32)
    out[...] = b
    if flat.size == 0:
        return out
    target = np.moveaxis(out, axis, 0)
    source = _flat_updates(b, i, u, axis)
    # occurrence rank of each update among equal indices, in ascending position
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    positions = np.arange(flat.size)
    starts = np.ones(flat.size, dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    first_of_group = np.maximum.accumulate(np.where(starts, positions, 0))
    rank = np.empty(flat.size, dtype=np.int64)
    rank[order] = positions - first_of_group
    with np.errstate(all="ignore"):
        for level in range(int(rank.max()) + 1):
            chosen = np.flatnonzero(rank == level)  # distinct targets, ascending positions
            where = flat[chosen]
            target[where] = target[where] + source[chosen]
    return out


# ---------------------------------------------------------------------------
# select / clamp
# ---------------------------------------------------------------------------


def select(backend: Any, plan: OperationPlan, cond: Any, on_true: Any, on_false: Any) -> np.ndarray:
    c = np.asarray(materialise(plan, 0, cond))
    t = np.asarray(materialise(plan, 1, on_true))
    f = np.asarray(materialise(plan, 2, on_false))
    shape = broadcast_shape(plan.operation, c.shape, t.shape, f.shape)
    out = new_array(backend, shape, F32)
    np.copyto(out, f)
    np.copyto(out, t, where=c)
    return out


def clamp(backend: Any, plan: OperationPlan, x: Any, lo: Any, hi: Any) -> np.ndarray:
    v = np.asarray(materialise(plan, 0, x))
    low = np.asarray(materialise(plan, 1, lo))
    high = np.asarray(materialise(plan, 2, hi))
    shape = broadcast_shape(plan.operation, v.shape, low.shape, high.shape)
    out = new_array(backend, shape, F32)
    raised = np.empty(shape, F32)
    ieee_maximum(v, low, raised)
    ieee_minimum(raised, high, out)
    return out


# ---------------------------------------------------------------------------
# sort / topk
# ---------------------------------------------------------------------------

_NAN_KEY = 2**31  # above every non-NaN key


def _sort_keys(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        unsigned_zero = x + np.float32(0.0)  # -0 -> +0
    bits = np.ascontiguousarray(unsigned_zero).view(np.int32)
    keys = (bits ^ ((bits >> 31) & np.int32(0x7FFFFFFF))).astype(I64)
    keys[np.isnan(x)] = _NAN_KEY
    return keys


def _stable_order(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    keys = _sort_keys(x)
    if descending:
        np.negative(keys, out=keys)
    return np.argsort(keys, axis=axis, kind="stable")


def _sort(
    backend: Any, plan: OperationPlan, x: Any, axis: Any, descending: Any, values: bool
) -> np.ndarray:
    v = np.asarray(materialise(plan, 0, x))
    axis = normalise_axis(plan.operation, axis, v.ndim)
    descending = read_flag(plan.operation, "descending", descending)
    order = _stable_order(v, axis, descending)
    if values:
        out = new_array(backend, v.shape, F32)
        out[...] = np.take_along_axis(v, order, axis=axis)
    else:
        out = new_array(backend, v.shape, I32)
        out[...] = order
    return out


def sort_values(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = -1, descending: Any = False
) -> np.ndarray:
    return _sort(backend, plan, x, axis, descending, values=True)


def sort_indices(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = -1, descending: Any = False
) -> np.ndarray:
    return _sort(backend, plan, x, axis, descending, values=False)


def _topk(
    backend: Any, plan: OperationPlan, x: Any, k: Any, axis: Any, largest: Any, values: bool
) -> np.ndarray:
    v = np.asarray(materialise(plan, 0, x))
    axis = normalise_axis(plan.operation, axis, v.ndim)
    k = read_int(plan.operation, "k", k)
    if not 0 <= k <= v.shape[axis]:
        raise ValueError(f"{plan.operation}: k={k} is outside [0, {v.shape[axis]}]")
    largest = read_flag(plan.operation, "largest", largest)
    order = np.take(_stable_order(v, axis, descending=largest), np.arange(k), axis=axis)
    shape = (*v.shape[:axis], k, *v.shape[axis + 1 :])
    if values:
        out = new_array(backend, shape, F32)
        out[...] = np.take_along_axis(v, order, axis=axis)
    else:
        out = new_array(backend, shape, I32)
        out[...] = order
    return out


def topk_values(
    backend: Any, plan: OperationPlan, x: Any, k: Any, axis: Any = -1, largest: Any = True
) -> np.ndarray:
    return _topk(backend, plan, x, k, axis, largest, values=True)


def topk_indices(
    backend: Any, plan: OperationPlan, x: Any, k: Any, axis: Any = -1, largest: Any = True
) -> np.ndarray:
    return _topk(backend, plan, x, k, axis, largest, values=False)


KERNELS = {
    "matmul": matmul,
    "conv_general": conv_general,
    "gather": gather,
    "scatter": scatter,
    "scatter_add": scatter_add,
    "select": select,
    "clamp": clamp,
    "_sort_values": sort_values,
    "_sort_indices": sort_indices,
    "_topk_values": topk_values,
    "_topk_indices": topk_indices,
}
