"""Building blocks of faulty kernels, shared by the fault modules.

A faulty kernel has the CPU backend's kernel signature
``kernel(backend, plan, *operands)`` and allocates its result through
:func:`result_array` (so the allocation count stays honest).  The builders
here take the part in which faults differ -- a numpy function, a flag -- as
their parameter, so a fault table row names its fault by that constant:

* :func:`float32_elementwise` -- ``function(*float32 operands)`` for the
  plans with a Float32 result, the CPU kernel for the others (relu on Int32,
  the Int32 plans of mul and sub);
* :func:`flushing_subnormals` -- the CPU kernel's result with its subnormals
  flushed to zero (of the result's sign, or +0).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from backends.cpu import KERNELS
from backends.cpu.convert import F32, F64, materialise
from backends.cpu.elementwise import new_array
from conformance.mutants.mutant import Kernel
from oracle import DType, OperationPlan

__all__ = [
    "TINY",
    "U32",
    "bits",
    "float32_elementwise",
    "float_inputs",
    "flushing_subnormals",
    "result_array",
    "round_to_bits",
    "toward_zero",
]

U32 = np.dtype(np.uint32)
#: the smallest normal binary32 magnitude, 2**-126 (below it, nonzero values are subnormal)
TINY = np.float32(2.0**-126)


def bits(a: np.ndarray) -> np.ndarray:
    """The binary32 bit patterns of *a* (as uint32)."""
    return np.ascontiguousarray(a, dtype=F32).view(U32)


def float_inputs(plan: OperationPlan, args: Any) -> list[np.ndarray]:
    """The tensor operands of *plan* in their ``convert_to`` dtypes, as arrays."""
    return [np.asarray(materialise(plan, i, a)) for i, a in enumerate(args[: len(plan.operands)])]


def result_array(backend: Any, values: Any, dtype: np.dtype = F32) -> np.ndarray:
    """A new result array of *dtype* holding *values* (one counted allocation)."""
    out = new_array(backend, np.shape(values), dtype)
    out[...] = values
    return out


def round_to_bits(x: np.ndarray, significant_bits: int) -> np.ndarray:
    """float64 *x* rounded to *significant_bits* bits (nearest even; Veltkamp splitting)."""
    factor = float(2 ** (53 - significant_bits) + 1)
    with np.errstate(all="ignore"):
        t = x * factor
        return np.where(np.isfinite(t), t - (t - x), x)


def toward_zero(exact: np.ndarray) -> np.ndarray:
    """float64 values rounded to binary32 toward zero (overflow gives +-MAX_FINITE)."""
    with np.errstate(all="ignore"):
        nearest = exact.astype(F32)
        away = np.abs(nearest.astype(F64)) > np.abs(exact)
        toward = np.nextafter(nearest, np.float32(0.0), dtype=F32)
        return np.where(away & np.isfinite(exact), toward, nearest).astype(F32)


def float32_elementwise(function: Callable[..., Any]) -> Kernel:
    """An elementwise kernel computing ``function(*operands)`` its own (faulty) way.

    The operands reach *function* materialised (Float32 arrays and scalars, a
    Bool condition as a bool array), floating-point exceptions silenced; its
    value is rounded to binary32.  A plan whose result is not Float32 gets the
    CPU kernel of ``plan.operation``: the fault is a floating-point one.
    """

    def kernel(backend: Any, plan: OperationPlan, *args: Any) -> np.ndarray:
        if plan.output is not DType.Float32:
            return KERNELS[plan.operation](backend, plan, *args)
        operands = float_inputs(plan, args)
        with np.errstate(all="ignore"):
            values = np.asarray(function(*operands)).astype(F32)
        return result_array(backend, values)

    return kernel


def flushing_subnormals(*, keep_sign: bool) -> Kernel:
    """The CPU kernel of ``plan.operation`` with every subnormal Float32 result flushed.

    *keep_sign*: a flushed result is a zero of its own sign (a flush-to-zero
    mode); otherwise it is +0.
    """

    def kernel(backend: Any, plan: OperationPlan, *args: Any) -> Any:
        out = KERNELS[plan.operation](backend, plan, *args)
        if out.dtype == F32:
            subnormal = (out != 0) & (np.abs(out) < TINY)
            zero = np.float32(0.0)
            out[subnormal] = np.copysign(zero, out[subnormal]) if keep_sign else zero
        return out

    return kernel
