"""The real error in ulps: the measure of the published libm accuracy surveys.

For a result ``y`` of a plan at input ``x`` the *real error* is
``|y - f(x)| / ulp(f(x))``: the distance to the exact mathematical value, in
units in the last place of the binary32 binade of that exact value
(``ulp(v) = 2**(max(e, -126) - 23)`` for ``2**e <= |v| < 2**(e+1)``, and
``2**-149`` at 0).  A correctly rounded result has a real error of at most
0.5; glibc documents expf at 0.5016 ulp, which plancheck's integer distance
to the correctly rounded value prints as 1.

Two evaluations of the exact value:

* :func:`errors` -- vectorised, for every result of a sweep that is not
  correctly rounded: the exact value from the oracle's float64 formula
  (:func:`oracle.vectorised.float64_value`, relative error at most the stated
  ``B u`` of the oracle, about ``2**-50``: below ``2**-26`` ulp of binary32),
  so the largest error and the input that attains it are found exactly
  enough to rank them.  One case is ambiguous in float64: a value that is
  exactly a power of two there (``sigmoid(80)`` is 1.0 in float64, just below
  1 in truth), whose binade is unknown; such elements are settled by mpmath
  when they could be the worst (a few per chunk), otherwise bounded above;
* :func:`real_error` -- at one input (the worst one), from mpmath at
  :data:`PRECISION` bits: the figure the tables print (at least 4
  significant digits).

A result of the wrong NaN-ness has no real error (it is counted apart); an
infinite result for a finite exact value, or a finite one for an infinite
value, has an infinite error.  Bool results (logical_not) have none.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import mpmath
import numpy as np

from oracle import vectorised as V
from oracle.binary32 import round_to_binary32
from oracle.reference.exact import LEAKY_RELU_SLOPE

__all__ = ["PRECISION", "errors", "exact_float64", "input_value", "real_error", "ulp"]

#: mpmath's working precision, bits, for the printed figure
PRECISION = 128
_SLOPE = float(LEAKY_RELU_SLOPE)


def exact_float64(op: str, x: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """float64 values of the exact ``op(x)`` for float32 *x* (*expected*: the certified
    float32 results there, which are the exact values for the representable operations)."""
    x64 = np.asarray(x, dtype=np.float32).astype(np.float64)
    with np.errstate(all="ignore"):
        if op in V.ROUNDED_OPS:
            value = V.float64_value(op, x)
            if op == "elu":  # elu(x) = x for x > 0 (the formula serves x <= 0 only)
                value = np.where(x64 > 0, x64, value)
            return value
        if op == "sqrt":
            return np.sqrt(x64)  # correctly rounded float64: 2**-53 relative
        if op == "recip":
            return 1.0 / x64
        if op == "leaky_relu":
            return np.where(x64 < 0, x64 * _SLOPE, x64)  # the product is exact in float64
    return np.asarray(expected, dtype=np.float64)  # neg, abs, sign, floor ...: exact


def ulp(value: np.ndarray) -> np.ndarray:
    """The binary32 ulp of the binade of each float64 *value* (``2**-149`` at 0 and below
    ``2**-126``; the binades above 2**128 continue the pattern)."""
    _, exponent = np.frexp(np.abs(value))  # |v| = m 2**exponent, 1/2 <= m < 1
    exponent = np.where(value == 0, -125, exponent)
    return np.ldexp(1.0, np.maximum(exponent - 1, -126) - 23)


def errors(actual: np.ndarray, exact: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(``|actual - exact| / ulp(exact)`` elementwise, mask of the *ambiguous* ones).

    Infinite where either side is infinite and they differ.  Where the float64 value
    is exactly a power of two the exact value may lie just below it, in the binade of
    half the ulp: the error there is taken in that lower binade (an upper bound, exact
    when the value is below; twice the truth when it is at or above) and the element is
    flagged ambiguous, for :func:`real_error` to settle.
    """
    a = np.asarray(actual, dtype=np.float32).astype(np.float64)
    v = np.asarray(exact, dtype=np.float64)
    finite = np.isfinite(v)
    with np.errstate(all="ignore"):
        mantissa, _ = np.frexp(np.abs(v))
        ambiguous = finite & (mantissa == 0.5) & (np.abs(v) > 2.0**-126)
        spacing = ulp(np.where(finite, v, 0.0))
        spacing[ambiguous] *= 0.5
        out = np.abs(a - v) / spacing
    out[~np.isfinite(a) | ~finite] = np.inf
    out[a == v] = 0.0
    ambiguous &= out > 0
    return out, ambiguous


def _exact_mp(op: str, x: float) -> mpmath.mpf | None:
    """The exact value of *op* at the binary32 value *x* at :data:`PRECISION` bits."""
    m = mpmath.mpf(x)
    formulas: dict[str, Callable[[mpmath.mpf], mpmath.mpf]] = {
        "exp": mpmath.exp,
        "exp2": lambda t: mpmath.power(2, t),
        "log": mpmath.log,
        "log2": lambda t: mpmath.log(t, 2),
        "sin": mpmath.sin,
        "cos": mpmath.cos,
        "tanh": mpmath.tanh,
        "erf": mpmath.erf,
        "rsqrt": lambda t: 1 / mpmath.sqrt(t),
        "sigmoid": lambda t: 1 / (1 + mpmath.exp(-t)),
        "silu": lambda t: t / (1 + mpmath.exp(-t)),
        "softplus": lambda t: mpmath.log1p(mpmath.exp(t)),
        "gelu": lambda t: t / 2 * mpmath.erfc(-t / mpmath.sqrt(2)),
        "elu": lambda t: t if t > 0 else mpmath.expm1(t),
        "sqrt": mpmath.sqrt,
        "recip": lambda t: 1 / t,
        "leaky_relu": lambda t: t if t >= 0 else t * mpmath.mpf(_SLOPE),
    }
    if op not in formulas:
        return None
    return formulas[op](m)


def real_error(op: str, x: float, actual: float, expected: float) -> float:
    """The real error of result *actual* of *op* at the binary32 (or converted Int32)
    input *x*, from mpmath at :data:`PRECISION` bits (*expected*, the certified result,
    is the exact value of the representable operations)."""
    if math.isnan(actual) or math.isnan(expected):
        return math.nan
    with mpmath.workprec(PRECISION):
        exact = None if math.isinf(x) else _exact_mp(op, x)
        if exact is None:
            exact = mpmath.mpf(expected)
        if not mpmath.isfinite(exact) or math.isinf(actual):
            return 0.0 if mpmath.mpf(actual) == exact else math.inf
        magnitude = abs(exact)
        e = -126 if magnitude == 0 else max(int(mpmath.floor(mpmath.log(magnitude, 2))), -126)
        # log2 may land a hair off an exact power of two: settle the binade exactly
        if magnitude != 0 and e > -126 and mpmath.ldexp(1, e) > magnitude:
            e -= 1
        elif magnitude != 0 and mpmath.ldexp(1, e + 1) <= magnitude:
            e += 1
        return float(abs(mpmath.mpf(actual) - exact) / mpmath.ldexp(1, e - 23))


def input_value(plan_dtype: str, pattern: int) -> float:
    """The Float32 value a plan evaluates at bit pattern *pattern*: the pattern itself for
    Float32, the Int32 value rounded once to binary32 for Int32."""
    if plan_dtype == "Int32":
        n = pattern - (1 << 32) if pattern >= 1 << 31 else pattern
        return float(round_to_binary32(n))
    return float(np.array([pattern], np.uint32).view(np.float32)[0])
