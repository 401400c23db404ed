"""Faults on three kernel paths: Int32 partial sums, extrema off the last axis, and
weak exponents binary32 cannot hold (issue 30).

* **Int32 partial sums.**  An EXACT_INTEGER accumulation checks only the final
  narrowing to Int32.  A parallel kernel keeps each part's running sum -- a half
  on a thread, a SIMD lane, a block, a node of a pairwise tree, a K-block of a
  gemm -- in Int32 and range-checks every add (OverflowError although the exact
  total fits), or adds with saturation (NEON ``vqaddq_s32``: a wrong total).
  Dormant below a length; the Int32 partial-sum witnesses
  (:mod:`conformance.generate.int32_partials`) reach them.
* **Extrema off the last axis.**  reduce_max/min and argmax/argmin over axes that
  leave the last axis alone take a kernel's strided path, which folds whole rows
  from the first with a compare-and-select: a NaN in a later row is dropped (or a
  later NaN's bits win), a -0 after a +0 (or the reverse) is kept, a tie goes to
  the later index, zeros are ordered.  Dormant on the last axis; the strided
  extremum examples (STRIDED_EXTREMUM) reach them.
* **Weak exponents binary32 cannot hold.**  Int32 pow by a weak exponent above
  2**24 (where only bases -1, 0 and 1 stay in range) through a float fast path:
  the exponent is converted to binary32, and an odd one rounds to an even one,
  so pow(-1, 2**24 + 1) = +1.  The boundary pairs of -1 with odd exponents in
  (2**24, 2**31 - 1] (POW_ODD_EXPONENT_ABOVE_2_24) reach it.

Every fault is dormant below its threshold, so only the classes of
docs/shape-classes.md reach it.  :data:`FAULTS` is the table (name, operation,
fault, kernel), in the order of ``docs/mutants.md``; the catalogue
(:mod:`conformance.mutants.catalogue`) collects it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from backends.cpu import KERNELS
from backends.cpu import structured as cpu_structured
from backends.cpu.convert import F32, I64, materialise, normalise_axis
from backends.cpu.reductions import _layout
from conformance.mutants.kernels import result_array
from conformance.mutants.mutant import Kernel, Mutant, kernel_fault
from oracle import Accumulation, Arithmetic, OperationPlan
from oracle.dtypes import INT32_MAX, INT32_MIN

__all__ = ["FAULTS"]

I32 = np.dtype(np.int32)

# ---------------------------------------------------------------------------
# Int32 partial sums
# ---------------------------------------------------------------------------

#: ``combine(terms) -> total`` over a 1-D int64 row (raises or saturates as it goes)
Combine = Callable[[np.ndarray], int]


def _checked(running: np.ndarray, operation: str) -> np.ndarray:
    """*running* (int64 partial sums) after the range check a checked Int32 add makes."""
    if running.size and (running.min() < INT32_MIN or running.max() > INT32_MAX):
        raise OverflowError(f"{operation}: an Int32 partial sum leaves the range")
    return running


def _lanes_checked(lanes: int, operation: str) -> Combine:
    """*lanes* running sums (element i in lane i % lanes), each add checked, the lane
    totals then added in turn, checked."""

    def combine(row: np.ndarray) -> int:
        padded = np.zeros(-(-len(row) // lanes) * lanes, I64)
        padded[: len(row)] = row
        running = _checked(np.cumsum(padded.reshape(-1, lanes), axis=0), operation)
        return int(_checked(np.cumsum(running[-1]), operation)[-1])

    return combine


def _blocks_checked(block: int, operation: str) -> Combine:
    """Blocks of *block* terms, each block's running sum checked, the block totals
    then added in turn, checked (a thread per block)."""

    def combine(row: np.ndarray) -> int:
        totals = [
            int(_checked(np.cumsum(row[i : i + block]), operation)[-1])
            for i in range(0, len(row), block)
        ]
        return int(_checked(np.cumsum(np.asarray(totals, I64)), operation)[-1])

    return combine


def _halves_checked(operation: str) -> Combine:
    """Two halves on two threads, each running sum checked, then added, checked."""

    def combine(row: np.ndarray) -> int:
        half = len(row) // 2
        first = int(_checked(np.cumsum(row[:half]), operation)[-1])
        second = int(_checked(np.cumsum(row[half:]), operation)[-1])
        return int(_checked(np.asarray([first + second], I64), operation)[0])

    return combine


def _pairwise_checked(operation: str) -> Combine:
    """A pairwise tree, every node checked (an odd last element carried up)."""

    def combine(row: np.ndarray) -> int:
        work = row.astype(I64)
        while len(work) > 1:
            even = len(work) // 2 * 2
            pairs = _checked(work[0:even:2] + work[1:even:2], operation)
            work = np.concatenate((pairs, work[-1:])) if len(work) % 2 else pairs
        return int(work[0]) if len(work) else 0

    return combine


def _lanes_saturating(lanes: int) -> Combine:
    """*lanes* lanes whose adds saturate at the Int32 limits (NEON ``vqaddq_s32``),
    the lane totals then added in turn, saturating."""

    def combine(row: np.ndarray) -> int:
        padded = np.zeros(-(-len(row) // lanes) * lanes, I64)
        padded[: len(row)] = row
        acc = np.zeros(lanes, I64)
        for chunk in padded.reshape(-1, lanes):
            acc = np.clip(acc + chunk, INT32_MIN, INT32_MAX)
        total = 0
        for lane in acc.tolist():
            total = min(max(total + lane, INT32_MIN), INT32_MAX)
        return total

    return combine


def _int32_reduce_sum(above: int, combine: Combine) -> Kernel:
    """Int32 reduce_sum whose groups of more than *above* terms are summed by
    *combine* (the final narrowing checked as the CPU kernel does)."""

    def kernel(backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False):
        if plan.accumulation is not Accumulation.EXACT_INTEGER:
            return KERNELS["reduce_sum"](backend, plan, x, axis, keepdims)
        data, shape = _layout(plan.operation, np.asarray(materialise(plan, 0, x)), axis, keepdims)
        if data.shape[1] <= above:
            return KERNELS["reduce_sum"](backend, plan, x, axis, keepdims)
        totals = np.asarray([combine(row) for row in data.astype(I64)], I64)
        _checked(totals, plan.operation)
        return result_array(backend, totals.reshape(shape), I32)

    return kernel


def _int32_matmul(above: int, combine: Combine) -> Kernel:
    """Int32 matmul whose outputs of more than *above* terms (K) sum their exact
    products by *combine*."""

    def kernel(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
        if plan.accumulation is not Accumulation.EXACT_INTEGER:
            return KERNELS["matmul"](backend, plan, a, b)
        x = np.asarray(materialise(plan, 0, a)).astype(I64)
        y = np.asarray(materialise(plan, 1, b)).astype(I64)
        m, k, n = cpu_structured._matmul_shapes(plan.operation, x, y)
        if k <= above:
            return KERNELS["matmul"](backend, plan, a, b)
        totals = np.asarray(
            [[combine(x[i] * y[:, j]) for j in range(n)] for i in range(m)], I64
        ).reshape(m, n)
        _checked(totals, plan.operation)
        return result_array(backend, totals, I32)

    return kernel


# ---------------------------------------------------------------------------
# Extrema off the last axis
# ---------------------------------------------------------------------------

#: ``select(row, best) -> bool mask`` of the kept positions whose running extreme
#: the next row replaces
Select = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _strided_axes(operation: str, x: np.ndarray, axis: Any) -> bool:
    """Whether reducing *x* over *axis* leaves its last axis (the strided path)."""
    if x.ndim < 2 or axis is None:
        return False
    axes = axis if isinstance(axis, tuple) else (axis,)
    try:
        normalised = {normalise_axis(operation, a, x.ndim) for a in axes}
    except (TypeError, ValueError, IndexError):
        return False
    return bool(normalised) and x.ndim - 1 not in normalised


def _strided_fold(x: np.ndarray, select: Select) -> tuple[np.ndarray, np.ndarray]:
    """Fold the rows of *x* (outputs, reduced) from the first: the running extreme
    and its index, replaced where ``select(row, best)``."""
    best = x[:, 0].copy()
    index = np.zeros(x.shape[0], np.int64)
    with np.errstate(all="ignore"):
        for j in range(1, x.shape[1]):
            replace = select(x[:, j], best)
            best = np.where(replace, x[:, j], best)
            index[replace] = j
    return best, index


def _strided_extremum(operation: str, select: Select) -> Kernel:
    """reduce_max/min whose strided path folds rows with *select*."""

    def kernel(backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False):
        v = np.asarray(materialise(plan, 0, x))
        if not _strided_axes(operation, v, axis):
            return KERNELS[operation](backend, plan, x, axis, keepdims)
        data, shape = _layout(operation, v, axis, keepdims)
        if data.shape[1] == 0:
            return KERNELS[operation](backend, plan, x, axis, keepdims)
        best, _ = _strided_fold(data, select)
        return result_array(backend, best.reshape(shape))

    return kernel


def _strided_arg(operation: str, select: Select) -> Kernel:
    """argmax/argmin whose strided path (an int axis other than the last) folds rows
    with *select* and keeps the index of the running extreme."""

    def kernel(backend: Any, plan: OperationPlan, x: Any, axis: Any = None) -> Any:
        v = np.asarray(materialise(plan, 0, x))
        if not isinstance(axis, int) or not _strided_axes(operation, v, axis):
            return KERNELS[operation](backend, plan, x, axis)
        data, shape = _layout(operation, v, axis, False)
        if data.shape[1] == 0:
            return KERNELS[operation](backend, plan, x, axis)
        _, index = _strided_fold(data, select)
        return result_array(backend, index.reshape(shape), I32)

    return kernel


def _signed_keys(a: np.ndarray) -> np.ndarray:
    """int64 keys ordered like the binary32 values with -0 < +0 (NaNs unordered here)."""
    bits = np.ascontiguousarray(a, dtype=F32).view(np.int32).astype(I64)
    return np.where(bits < 0, -(bits & 0x7FFFFFFF) - 1, bits)


def _greater(row: np.ndarray, best: np.ndarray) -> np.ndarray:
    return row > best


def _less(row: np.ndarray, best: np.ndarray) -> np.ndarray:
    return row < best


def _greater_or_later_nan(row: np.ndarray, best: np.ndarray) -> np.ndarray:
    """Signed zeros ordered right (-0 < +0), but every later NaN replaces the running one."""
    ordered = ~np.isnan(best) & (_signed_keys(row) > _signed_keys(best))
    return np.isnan(row) | ordered


def _greater_or_equal(row: np.ndarray, best: np.ndarray) -> np.ndarray:
    return (row >= best) | (np.isnan(row) & ~np.isnan(best))


def _less_signed_zeros(row: np.ndarray, best: np.ndarray) -> np.ndarray:
    nan = np.isnan(row) & ~np.isnan(best)
    return nan | (~np.isnan(best) & ~np.isnan(row) & (_signed_keys(row) < _signed_keys(best)))


# ---------------------------------------------------------------------------
# Weak exponents binary32 cannot hold
# ---------------------------------------------------------------------------


def _pow_float32_exponent_above_2_24(
    backend: Any, plan: OperationPlan, base: Any, exponent: Any
) -> Any:
    """Int32 pow whose exponents above 2**24 take a binary32 fast path: powf of the
    base and the exponent converted to binary32, an infinite result an overflow."""
    e = exponent if isinstance(exponent, int) else None
    if plan.compute is not Arithmetic.INT32_EXACT_CHECKED or e is None or e <= 2**24:
        return KERNELS["pow"](backend, plan, base, exponent)
    b = np.asarray(materialise(plan, 0, base))
    with np.errstate(all="ignore"):
        wide = np.power(b.astype(F32), F32.type(e))  # the exponent rounded to binary32
    if not np.all(np.isfinite(wide)) or np.any(np.abs(wide) > INT32_MAX):
        raise OverflowError(f"{plan.operation}: the Int32 result leaves the range")
    return result_array(backend, wide.astype(I64), I32)


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------

#: the kernel-path mutants, in catalogue order
FAULTS: tuple[Mutant, ...] = (
    # Int32 partial sums
    kernel_fault(
        "reduce_sum_int32_16_lanes_checked",
        "reduce_sum",
        "Int32 groups longer than 16 summed in 16 lanes, every lane add range-checked "
        "(OverflowError although the total fits)",
        _int32_reduce_sum(16, _lanes_checked(16, "reduce_sum")),
    ),
    kernel_fault(
        "reduce_sum_int32_halves_checked",
        "reduce_sum",
        "Int32 groups longer than 64 split in two halves on two threads, each running sum "
        "range-checked",
        _int32_reduce_sum(64, _halves_checked("reduce_sum")),
    ),
    kernel_fault(
        "reduce_sum_int32_blocks_of_128_checked",
        "reduce_sum",
        "Int32 groups longer than 128 summed in blocks of 128 (a thread each), each block's "
        "running sum range-checked",
        _int32_reduce_sum(128, _blocks_checked(128, "reduce_sum")),
    ),
    kernel_fault(
        "reduce_sum_int32_pairwise_checked",
        "reduce_sum",
        "Int32 groups longer than 32 summed by a pairwise tree, every node range-checked",
        _int32_reduce_sum(32, _pairwise_checked("reduce_sum")),
    ),
    kernel_fault(
        "reduce_sum_int32_8_lanes_saturating",
        "reduce_sum",
        "Int32 groups longer than 8 summed in 8 lanes with saturating adds (NEON vqaddq_s32): "
        "a partial sum past the range is clipped, the total wrong",
        _int32_reduce_sum(8, _lanes_saturating(8)),
    ),
    kernel_fault(
        "matmul_int32_k_blocks_of_32_checked",
        "matmul",
        "Int32 matmul with K > 32 accumulates K-blocks of 32 in a checked Int32 tile",
        _int32_matmul(32, _blocks_checked(32, "matmul")),
    ),
    kernel_fault(
        "matmul_int32_split_k_halves_checked",
        "matmul",
        "Int32 matmul with K > 64 split in two halves of K (split-K), each running sum "
        "range-checked",
        _int32_matmul(64, _halves_checked("matmul")),
    ),
    # extrema off the last axis
    kernel_fault(
        "reduce_max_strided_compare_select",
        "reduce_max",
        "off the last axis, rows folded from the first by select(x > m): a NaN in a later "
        "row is dropped, +0 after -0 keeps -0",
        _strided_extremum("reduce_max", _greater),
    ),
    kernel_fault(
        "reduce_min_strided_compare_select",
        "reduce_min",
        "off the last axis, rows folded from the first by select(x < m): a NaN in a later "
        "row is dropped, -0 after +0 keeps +0",
        _strided_extremum("reduce_min", _less),
    ),
    kernel_fault(
        "reduce_max_strided_last_nan",
        "reduce_max",
        "off the last axis, every later NaN replaces the running one: the last NaN's bits, "
        "not the first's",
        _strided_extremum("reduce_max", _greater_or_later_nan),
    ),
    kernel_fault(
        "argmax_strided_drops_nan",
        "argmax",
        "off the last axis, rows folded by x > m: the index of a NaN in a later row is lost",
        _strided_arg("argmax", _greater),
    ),
    kernel_fault(
        "argmax_strided_ties_last",
        "argmax",
        "off the last axis, rows folded by x >= m: a tie (tied zeros too) goes to the later index",
        _strided_arg("argmax", _greater_or_equal),
    ),
    kernel_fault(
        "argmin_strided_orders_zeros",
        "argmin",
        "off the last axis, rows compared by sign-aware keys: -0 after +0 wins the tie of zeros",
        _strided_arg("argmin", _less_signed_zeros),
    ),
    # weak exponents binary32 cannot hold
    kernel_fault(
        "pow_int32_float32_exponent_above_2_24",
        "pow",
        "Int32 pow by a weak exponent above 2**24 through binary32 powf: an odd exponent "
        "rounds to an even one, pow(-1, 2**24 + 1) = +1",
        _pow_float32_exponent_above_2_24,
    ),
)
