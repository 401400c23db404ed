"""Reductions: reduce_sum/prod/max/min(x, axis=None, keepdims=False), argmax/argmin, cumsum.

Orders (shared with the Generic backend):

* Floating ``reduce_sum`` (``Accumulation.FLOATING``): the built-in order --
  ascending logical (row-major) order of the reduced elements, starting from
  +0, every addition rounded in the plan's accumulator dtype (float32, or
  float64 for a Float64 accumulator), then one rounding to Float32.
  ``numpy.sum`` is *not* that order (pairwise summation), so the sum runs
  either as a loop of vectorised column additions (many outputs) or as
  ``numpy.add.accumulate`` along the contiguous last axis of column blocks
  that start with the running sum (few outputs); ``add.accumulate`` is the
  sequential recurrence ``out[i] = out[i-1] + in[i]`` (the tests check it
  against an explicit loop).
* Int32 ``reduce_sum`` (``EXACT_INTEGER``): exact in int64 (no partial sum of
  fewer than 2**32 Int32 terms can leave int64), only the final value checked.
* ``reduce_prod``: the same sequential machinery with products from 1.
* ``reduce_max``/``reduce_min``: the first NaN in logical order wins, its bits
  kept; otherwise the extreme under the total order with ``-0 < +0``
  (integer keys of the bit patterns).
* ``argmax``/``argmin``: the first NaN, else the first index of the extreme,
  with ``-0`` and ``+0`` tying; Int32 result, a flat index for ``axis=None``.
* ``cumsum``: inclusive prefix sums from +0, each rounded to binary32
  (``add.accumulate`` plus +0, which turns the only difference -- a prefix of
  ``-0`` terms -- into the +0 that the +0 start gives).

Axes: ``None`` (all), an int or a tuple of ints, negative allowed; duplicates
and out-of-range axes raise ValueError, a non-integer axis TypeError, a
non-bool ``keepdims`` TypeError, an empty max/min/argmax/argmin ValueError --
all before allocation.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from oracle import Accumulation, DType, OperationPlan

from ..parameters import read_flag
from .convert import F32, F64, I32, I64, check_int32_range, materialise, normalise_axes
from .convert import normalise_axis as _normalise_axis
from .elementwise import new_array

__all__ = ["KERNELS", "sequential_reduce"]

#: with at least this many outputs the sum runs as a loop over the reduced elements
_COLUMN_LOOP_MIN_OUTPUTS = 256
#: reduced elements per add.accumulate block
_BLOCK = 1 << 14


def _keepdims(operation: str, keepdims: Any) -> bool:
    return read_flag(operation, "keepdims", keepdims)


def _layout(
    operation: str, x: np.ndarray, axis: Any, keepdims: Any
) -> tuple[np.ndarray, tuple[int, ...]]:
    """``(data, result_shape)``: *data* is 2-D (outputs, reduced) in logical order."""
    axes = normalise_axes(operation, axis, x.ndim)
    keep = _keepdims(operation, keepdims)
    kept = [i for i in range(x.ndim) if i not in axes]
    outer = tuple(x.shape[i] for i in kept)
    reduced = math.prod(x.shape[i] for i in axes)
    data = np.transpose(x, kept + list(axes)).reshape(math.prod(outer), reduced)
    shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape)) if keep else outer
    return data, shape


def sequential_reduce(
    data: np.ndarray, ufunc: np.ufunc, start: float, dtype: np.dtype
) -> np.ndarray:
    """Row-wise ``start (op) d[0] (op) d[1] ...`` of 2-D *data*, each step rounded in *dtype*."""
    outputs, reduced = data.shape
    acc = np.full(outputs, start, dtype=dtype)
    if reduced == 0 or outputs == 0:
        return acc
    with np.errstate(all="ignore"):
        if outputs >= _COLUMN_LOOP_MIN_OUTPUTS or reduced <= 2:
            columns = np.ascontiguousarray(data.T)
            for column in columns:
                ufunc(acc, column, out=acc)
            return acc
        rows = np.ascontiguousarray(data)
        work = np.empty((outputs, min(reduced, _BLOCK)), dtype=dtype)
        for first in range(0, reduced, _BLOCK):
            block = rows[:, first : first + _BLOCK]
            part = work[:, : block.shape[1]]
            part[...] = block  # exact (float32 -> float32 or float64)
            ufunc(acc, part[:, 0], out=part[:, 0])  # the running value comes first
            ufunc.accumulate(part, axis=1, out=part)  # then the sequential recurrence
            acc = part[:, -1].copy()
    return acc


def reduce_sum(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> np.ndarray:
    v = np.asarray(materialise(plan, 0, x))
    data, shape = _layout(plan.operation, v, axis, keepdims)
    if plan.accumulation is Accumulation.EXACT_INTEGER:
        total = data.sum(axis=1, dtype=I64)
        if total.size:
            check_int32_range(plan.operation, int(total.min()), int(total.max()))
        out = new_array(backend, shape, I32)
        out.reshape(-1)[...] = total
        return out
    dtype = F64 if plan.accumulator_dtype is DType.Float64 else F32
    out = new_array(backend, shape, F32)
    out.reshape(-1)[...] = sequential_reduce(data, np.add, 0.0, dtype)  # one rounding
    return out


def reduce_prod(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> np.ndarray:
    v = np.asarray(materialise(plan, 0, x))
    data, shape = _layout(plan.operation, v, axis, keepdims)
    out = new_array(backend, shape, F32)
    out.reshape(-1)[...] = sequential_reduce(data, np.multiply, 1.0, F32)
    return out


_MAGNITUDE = np.int32(0x7FFFFFFF)


def _order_keys(bits: np.ndarray) -> np.ndarray:
    """Signed-magnitude binary32 bits -> int32 keys ordered like the values (-0 < +0).

    The map is its own inverse.
    """
    return bits ^ ((bits >> 31) & _MAGNITUDE)


def _require_nonempty(operation: str, data: np.ndarray) -> None:
    if data.shape[1] == 0:
        raise ValueError(f"{operation}: cannot reduce an empty set of elements (no identity)")


def _extreme(
    backend: Any, plan: OperationPlan, x: Any, axis: Any, keepdims: Any, largest: bool
) -> np.ndarray:
    v = np.asarray(materialise(plan, 0, x))
    data, shape = _layout(plan.operation, v, axis, keepdims)
    _require_nonempty(plan.operation, data)
    bits = np.ascontiguousarray(data).view(np.int32)
    keys = _order_keys(bits)
    best = keys.max(axis=1) if largest else keys.min(axis=1)
    result = _order_keys(best)
    nan = np.isnan(data)
    has_nan = nan.any(axis=1)
    if has_nan.any():
        rows = np.flatnonzero(has_nan)
        first = nan[rows].argmax(axis=1)
        result[rows] = bits[rows, first]
    out = new_array(backend, shape, F32)
    out.reshape(-1).view(np.int32)[...] = result
    return out


def reduce_max(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> np.ndarray:
    return _extreme(backend, plan, x, axis, keepdims, largest=True)


def reduce_min(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> np.ndarray:
    return _extreme(backend, plan, x, axis, keepdims, largest=False)


def _arg(backend: Any, plan: OperationPlan, x: Any, axis: Any, largest: bool) -> np.ndarray:
    v = np.asarray(materialise(plan, 0, x))
    shape: tuple[int, ...]
    if axis is None:
        data, shape = v.reshape(1, v.size), ()
    else:
        axis = _normalise_axis(plan.operation, axis, v.ndim)
        data, shape = _layout(plan.operation, v, axis, False)
    _require_nonempty(plan.operation, data)
    with np.errstate(all="ignore"):
        unsigned_zero = data + np.float32(0.0)  # -0 -> +0: the zeros tie
    keys = _order_keys(np.ascontiguousarray(unsigned_zero).view(np.int32))
    index = keys.argmax(axis=1) if largest else keys.argmin(axis=1)  # first occurrence
    nan = np.isnan(data)
    has_nan = nan.any(axis=1)
    if has_nan.any():
        rows = np.flatnonzero(has_nan)
        index[rows] = nan[rows].argmax(axis=1)
    out = new_array(backend, shape, I32)
    out.reshape(-1)[...] = index
    return out


def argmax(backend: Any, plan: OperationPlan, x: Any, axis: Any = None) -> np.ndarray:
    return _arg(backend, plan, x, axis, largest=True)


def argmin(backend: Any, plan: OperationPlan, x: Any, axis: Any = None) -> np.ndarray:
    return _arg(backend, plan, x, axis, largest=False)


def cumsum(backend: Any, plan: OperationPlan, x: Any, axis: Any) -> np.ndarray:
    v = np.asarray(materialise(plan, 0, x))
    axis = _normalise_axis(plan.operation, axis, v.ndim)
    out = new_array(backend, v.shape, F32)
    if out.size:
        with np.errstate(all="ignore"):
            np.add.accumulate(v, axis=axis, dtype=F32, out=out)
            np.add(out, np.float32(0.0), out=out)  # the +0 start: -0 prefixes become +0
    return out


KERNELS = {
    "reduce_sum": reduce_sum,
    "reduce_prod": reduce_prod,
    "reduce_max": reduce_max,
    "reduce_min": reduce_min,
    "argmax": argmax,
    "argmin": argmin,
    "cumsum": cumsum,
}
