"""Reductions: reduce_sum, reduce_prod, reduce_max, reduce_min, argmax, argmin, cumsum.

Every reduction visits the reduced elements of one output position in
ascending logical (row-major) order.  Sums start from +0 and products from 1.

reduce_sum on a Float32 plan (FLOATING accumulation) uses the documented
built-in order shared with the CPU backend: ascending logical order from +0,
each addition rounded in the plan's accumulator dtype (binary32, or binary64
for a Float64 accumulator), then one final rounding to Float32.  On an Int32
plan (EXACT_INTEGER) the sum is exact and only the final value is checked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from oracle import Accumulation, DType, OperationPlan

from . import convert
from .binary32 import is_nan, round_float
from .elementwise import add, maximum, minimum, mul
from .shapes import axis_slices, check_bool, normalize_axes, normalize_axis, reduction_groups
from .tensor import GenericTensor

__all__ = ["KERNELS", "accumulate"]


def _binary64_add(acc: float, term: float) -> float:
    return acc + term  # one binary64 rounding; never raises (inf - inf is NaN)


def accumulate(plan: OperationPlan, terms: Sequence[Any]) -> Any:
    """A FLOATING or EXACT_INTEGER sum of *terms* in ascending order (the built-in order)."""
    if plan.accumulation is Accumulation.EXACT_INTEGER:
        return convert.checked_int32(plan.operation, sum(terms))
    step = _binary64_add if plan.accumulator_dtype is DType.Float64 else add
    total = 0.0
    for term in terms:
        total = step(total, term)
    return round_float(total)


def _product(plan: OperationPlan, terms: Sequence[float]) -> float:
    total = 1.0
    for term in terms:
        total = mul(total, term)
    return total


def _first_nan_or(pick: Callable[[float, float], float]) -> Callable[..., float]:
    """An extremum in logical order where the first NaN wins with its bits."""

    def reduce(plan: OperationPlan, terms: Sequence[float]) -> float:
        best = terms[0]
        for term in terms:
            if is_nan(term):
                return term
            best = pick(best, term)
        return best

    return reduce


def _output_shape(shape: tuple[int, ...], axes: tuple[int, ...], keepdims: bool) -> tuple[int, ...]:
    if keepdims:
        return tuple(1 if a in axes else n for a, n in enumerate(shape))
    return tuple(n for a, n in enumerate(shape) if a not in axes)


def _groups_or_empty_error(
    operation: str, shape: tuple[int, ...], axes: tuple[int, ...], empty_allowed: bool
) -> list[list[int]]:
    groups = reduction_groups(shape, axes)
    reduced = 1
    for a in axes:
        reduced *= shape[a]
    if reduced == 0 and not empty_allowed:
        raise ValueError(f"{operation}: cannot reduce an empty set of elements of shape {shape}")
    return groups


def _reduction(operation: str, combine: Callable, empty_allowed: bool) -> Callable[..., Any]:
    def kernel(
        backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
    ) -> GenericTensor:
        shape, values = convert.operand(plan, 0, x)
        axes = normalize_axes(operation, axis, len(shape))
        keepdims = check_bool(operation, "keepdims", keepdims)
        groups = _groups_or_empty_error(operation, shape, axes, empty_allowed)
        result = [combine(plan, [values[i] for i in group]) for group in groups]
        return backend.result(plan, _output_shape(shape, axes, keepdims), result)

    kernel.__name__ = operation
    return kernel


def _prefers(maximising: bool) -> Callable[[float, float], bool]:
    """Whether a candidate beats the current best: NaN first, then strictly better
    (-0 and +0 tie, so the first index of the extreme value is kept)."""

    def better(candidate: float, best: float) -> bool:
        if is_nan(best):
            return False
        if is_nan(candidate):
            return True
        return candidate > best if maximising else candidate < best

    return better


def _arg_reduction(operation: str, maximising: bool) -> Callable[..., Any]:
    better = _prefers(maximising)

    def winner(values: Sequence[float]) -> int:
        best = 0
        for index in range(1, len(values)):
            if better(values[index], values[best]):
                best = index
        return best

    def kernel(backend: Any, plan: OperationPlan, x: Any, axis: Any = None) -> GenericTensor:
        shape, values = convert.operand(plan, 0, x)
        axes: tuple[int, ...]
        out_shape: tuple[int, ...]
        if axis is None:
            axes, out_shape = tuple(range(len(shape))), ()
        else:
            axes = (normalize_axis(operation, axis, len(shape)),)
            out_shape = _output_shape(shape, axes, keepdims=False)
        groups = _groups_or_empty_error(operation, shape, axes, empty_allowed=False)
        result = [winner([values[i] for i in group]) for group in groups]
        return backend.result(plan, out_shape, result)

    kernel.__name__ = operation
    return kernel


def cumsum(backend: Any, plan: OperationPlan, x: Any, axis: Any) -> GenericTensor:
    """Inclusive prefix sums along *axis*, from +0, each addition rounded to binary32."""
    shape, values = convert.operand(plan, 0, x)
    axis = normalize_axis("cumsum", axis, len(shape))
    result = list(values)
    for line in axis_slices(shape, axis):
        total = 0.0
        for i in line:
            total = add(total, values[i])
            result[i] = total
    return backend.result(plan, shape, result)


KERNELS: dict[str, Callable[..., Any]] = {
    "reduce_sum": _reduction("reduce_sum", accumulate, empty_allowed=True),
    "reduce_prod": _reduction("reduce_prod", _product, empty_allowed=True),
    "reduce_max": _reduction("reduce_max", _first_nan_or(maximum), empty_allowed=False),
    "reduce_min": _reduction("reduce_min", _first_nan_or(minimum), empty_allowed=False),
    "argmax": _arg_reduction("argmax", maximising=True),
    "argmin": _arg_reduction("argmin", maximising=False),
    "cumsum": cumsum,
}
