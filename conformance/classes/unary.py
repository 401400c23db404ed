"""The results of a unary plan around its inputs, from the vectorised certified oracle.

A *unary plan* is one of the plans ``conformance.exhaustive.plan_ids()``
certifies: a Float32 unary operation on Float32 input (``exp:Float32``), or an
activation on Int32 input converted to Float32 (``exp:Int32``).  This module
gives, for arrays of inputs of such a plan:

* :func:`reference` -- the certified results (:mod:`oracle.vectorised`);
* :func:`neighbours` -- the next input below and above each input (the next
  binary32 value, or ``n - 1`` and ``n + 1`` for Int32);
* :func:`kinds` -- the *kind* of each Float32 result (:class:`Kind`): what the
  result-class edges and the witness search compare;
* :func:`midpoint_distance` -- how far ``f(x)`` is from the nearest binary32
  rounding midpoint, in ULPs of the result (for the correctly rounded
  operations and the exact-class operations whose result is a rounding:
  sqrt, recip, leaky_relu).
"""

from __future__ import annotations

import enum
from collections.abc import Callable

import numpy as np

from oracle import DType, OperandRole, OperationPlan
from oracle import vectorised as V
from oracle.dtypes import INT32_MAX, INT32_MIN
from oracle.reference.exact import LEAKY_RELU_SLOPE

__all__ = [
    "ROUNDING_FORMULAS",
    "Kind",
    "is_unary",
    "kinds",
    "measures_midpoint",
    "midpoint_distance",
    "neighbours",
    "reference",
]

F32, I32 = DType.Float32, DType.Int32
_MAGNITUDE = np.uint32(0x7FFFFFFF)


class Kind(enum.IntEnum):
    """The kind of one Float32 result."""

    POSITIVE_ZERO = 0
    NEGATIVE_ZERO = 1
    SUBNORMAL = 2
    NORMAL = 3  #: a normal value other than +-1 and +-MAX_FINITE
    MAX_FINITE = 4
    ONE = 5  #: +-1
    POSITIVE_INF = 6
    NEGATIVE_INF = 7
    NAN = 8


ZEROS = (Kind.POSITIVE_ZERO, Kind.NEGATIVE_ZERO)
INFINITIES = (Kind.POSITIVE_INF, Kind.NEGATIVE_INF)
NORMALS = (Kind.NORMAL, Kind.MAX_FINITE, Kind.ONE)
FINITE_NONZERO = (Kind.SUBNORMAL, *NORMALS)


def is_unary(plan: OperationPlan) -> bool:
    """Whether *plan* is one of the unary plans the exhaustive machinery certifies."""
    if plan.operation not in V.OPS or len(plan.operands) != 1:
        return False
    operand = plan.operands[0]
    if operand.role is not OperandRole.TENSOR:
        return False
    return operand.dtype is F32 or (operand.dtype is I32 and plan.operation in V.ACTIVATIONS)


def _int_input(plan: OperationPlan) -> bool:
    return plan.operands[0].dtype is I32


def reference(plan: OperationPlan, inputs: np.ndarray) -> np.ndarray:
    """The certified results of unary *plan* on a float32 or int32 array."""
    if _int_input(plan):
        return V.certified_int32(plan.operation, np.asarray(inputs).astype(np.int32))
    return V.certified(plan.operation, np.asarray(inputs).astype(np.float32))


def neighbours(plan: OperationPlan, inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The next input below and above each element (the element itself at a domain end)."""
    if _int_input(plan):
        n = np.asarray(inputs).astype(np.int64)
        return (
            np.maximum(n - 1, INT32_MIN).astype(np.int32),
            np.minimum(n + 1, INT32_MAX).astype(np.int32),
        )
    x = np.asarray(inputs).astype(np.float32)
    with np.errstate(over="ignore"):
        return (
            np.nextafter(x, np.float32(-np.inf), dtype=np.float32),
            np.nextafter(x, np.float32(np.inf), dtype=np.float32),
        )


def kinds(results: np.ndarray) -> np.ndarray:
    """The :class:`Kind` of each float32 result, as an int8 array."""
    bits = np.ascontiguousarray(results, dtype=np.float32).view(np.uint32)
    magnitude = bits & _MAGNITUDE
    negative = bits > _MAGNITUDE
    kind = np.full(bits.shape, Kind.NORMAL, np.int8)
    kind[magnitude == 0] = Kind.POSITIVE_ZERO
    kind[(magnitude == 0) & negative] = Kind.NEGATIVE_ZERO
    kind[(magnitude > 0) & (magnitude < 0x00800000)] = Kind.SUBNORMAL
    kind[magnitude == 0x7F7FFFFF] = Kind.MAX_FINITE
    kind[magnitude == 0x3F800000] = Kind.ONE
    kind[magnitude == 0x7F800000] = Kind.POSITIVE_INF
    kind[(magnitude == 0x7F800000) & negative] = Kind.NEGATIVE_INF
    kind[magnitude > 0x7F800000] = Kind.NAN
    return kind


def _leaky_relu64(x: np.ndarray) -> np.ndarray:
    return np.where(x < 0, x * float(LEAKY_RELU_SLOPE), x)  # 24 x 24 bits: exact


#: float64 formulas of the exact-class operations whose result is still a rounding
#: (one correctly rounded IEEE float64 operation, or an exact product)
ROUNDING_FORMULAS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "sqrt": np.sqrt,
    "recip": lambda x: 1.0 / x,
    "leaky_relu": _leaky_relu64,
}


def measures_midpoint(plan: OperationPlan) -> bool:
    """Whether :func:`midpoint_distance` is defined for unary *plan*."""
    return plan.output is F32 and (
        plan.operation in V.ROUNDED_OPS or plan.operation in ROUNDING_FORMULAS
    )


def midpoint_distance(plan: OperationPlan, inputs: np.ndarray) -> np.ndarray:
    """|f(x) - nearest rounding midpoint| in ULPs of the result, from a float64 formula.

    For the correctly rounded operations the formula is the vectorised
    oracle's (``vectorised.float64_value``), whose stated error bound
    (``vectorised.error_bound``) is below ``2**-21`` ULP of the result for
    every operation but gelu, whose bound reaches about ``2**-19.8`` ULP; for
    sqrt, recip and leaky_relu it is :data:`ROUNDING_FORMULAS` (within
    ``2**-29`` ULP, leaky_relu exactly).  NaN where nothing is measured:
    zero, infinite and NaN results and results at or beyond ``2**128``.
    """
    if _int_input(plan):
        x = V.int32_to_float32(np.asarray(inputs).astype(np.int32))
    else:
        x = np.asarray(inputs).astype(np.float32)
    if plan.operation in ROUNDING_FORMULAS:
        with np.errstate(all="ignore"):
            y = ROUNDING_FORMULAS[plan.operation](x.astype(np.float64))
    else:
        y = V.float64_value(plan.operation, x)
    with np.errstate(all="ignore"):
        a = np.abs(y)
        exponent = np.floor(np.log2(np.where(a > 0, a, 1.0)))
        quantum = np.exp2(np.maximum(exponent, -126.0) - 23.0)
        scaled = a / quantum
        distance = np.abs(scaled - np.floor(scaled) - 0.5)
    distance[~np.isfinite(y) | (a == 0) | (a >= 2.0**128)] = np.nan
    return distance
