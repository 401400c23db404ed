"""Correctly rounded Float32 transcendentals: float64 formulas + MPFR for hard cases.

numpy's float32 ufuncs are not correctly rounded (errors of 1-3 ulp).  Every
kernel here instead

1. evaluates a float64 formula ``y`` of the function at the exact float32
   input, with a proven relative error bound ``|y - f| <= E * 2**-53 * |f|``;
2. rounds ``y`` to binary32 (numpy's float64 -> float32 cast: one IEEE
   rounding, subnormals and overflow included);
3. finds every element whose ``y`` lies within ``TOLERANCE_ULPS`` float64
   ulps of ``y`` of a binary32 *rounding boundary* -- a midpoint between two
   adjacent binary32 values, which includes ``2**128 - 2**103`` (the overflow
   threshold) and the subnormal midpoints ``(k + 1/2) * 2**-149`` -- and
   recomputes exactly those (rare) elements with MPFR through gmpy2.

Step 3 is sound: if ``y`` is farther than ``|y - f|`` from every midpoint,
``f`` and ``y`` lie strictly between the same two midpoints and round to the
same binary32 value.  In the normal binary32 range the midpoints are the
float64 values whose 29 low significand bits are ``2**28``, so the test is
``|low29(y) - 2**28| <= T`` with ``T = TOLERANCE_ULPS + 2`` (the ulp of
``y`` is at least ``|y| * 2**-53``; a midpoint never lies next to a binade
edge, because binade edges are binary32 values).  Below ``2**-126`` the
binary32 grid is the fixed ``2**-149``, so ``z = |y| * 2**149`` (exact) is
tested against ``k + 1/2`` with the relative tolerance.

Error bounds (``u = 2**-53``; ``L`` is the error of one numpy float64 libm
call -- exp, exp2, log, log2, sin, cos, tanh, expm1, log1p, power -- which we
*assume* to be ``L = 4u`` (2 ulp).  It is a premise, not a citation: on this
machine numpy's float64 exp, exp2, tanh, expm1, log1p and power are numpy's
own SIMD kernels, not glibc's (they differ from ``math.exp`` ... on about 5%
of sampled inputs), and numpy documents no bound for them.  Measured against
MPFR the largest errors are 1.56u (tanh), 1.13u (exp), 1.12u (exp2, power),
below 1u for the others; ``tests/test_vectorised_premises.py`` re-checks
every call at its worst known input with a margin of 2):

=========================  =========================================  ==========
function                   float64 formula                            bound
=========================  =========================================  ==========
exp exp2 log log2 sin cos  one libm call on the exact input            L
tanh, elu (expm1)
rsqrt                      1 / sqrt(x): two IEEE roundings             2u
pow (general case)         power(|x|, y), sign applied exactly          L
sigmoid                    x>=0: 1/(1+e^-x);  x<0: e^x/(1+e^x)         2L + 2u
silu                       x / (1+e^-x);  x<0: x*e^x / (1+e^x)         2L + 3u
softplus                   max(x,0) + log1p(exp(-|x|))                 2L + 1u
erf                        t<1: t*P(t^2); 1<=t<4: 1 - e^(-t^2) G(t)   35u
                           (t >= 4: exactly +-1, see erf64)
gelu                       x>=0: x/2 (1+erf); x<0: x/2 erfc(|x|/sqrt2)  205u
=========================  =========================================  ==========

(``P``, ``G``: :mod:`backends.cpu.erf_tables`, ``E_P <= 34u``,
``E_G <= 28u``.  erf for 1 <= t < 4: erfc = e^(-t^2) G(t) is within
L + 29u and erfc/erf <= 0.187 there, so erf is within 0.187 * 33u + 1u.
gelu never rounds its argument before an exponential: ``e^(-t^2)`` is
``exp(-x*x/2)`` with ``x*x/2`` exact, and G's logarithmic derivative is
below 1 in magnitude, so the rounded ``t = |x|/sqrt 2`` costs 2u (36u in
all for x < 0, t >= 1); the worst case is x < 0 with t < 1, where
``1 - erf(t) >= 0.157`` amplifies the 37u of ``erf(t)`` by at most 5.37,
giving 199u + 2u.)  The largest bound, 205u, is far below the detection
tolerance: ``TOLERANCE_ULPS = 2**13`` (relative ``2**-40``), a safety factor
of about 20 over ``2 * 205 + 2``.  With that
tolerance about 3 elements in 10**5 go to MPFR.

The hard cases are recomputed in :func:`oracle.binary32.binary32_context`
(precision 24, subnormals, overflow to inf; MPFR functions are correctly
rounded, exact cases included) for exp, exp2, log, log2, sin, cos, tanh,
erf, expm1, rec_sqrt and pow, and with a Ziv loop (precision doubling from
64 bits, a stated relative error bound per formula, accepted when both ends
of the error interval round to the same binary32 value) for the composite
functions sigmoid, silu, softplus and gelu.

exp and exp2 work in pieces of ``CHUNK`` inputs and skip the formula for a
piece that lies wholly on a plateau: at or beyond a ``SATURATION`` bound
(+0, +inf) or within ``ROUNDS_TO_ONE`` of zero (1), each with its proof beside
the table -- two reductions a piece, which an exhaustive sweep's runs of
consecutive bit patterns repay many times over.

Special values are set explicitly (exp(0) = 1, erf(-0) = -0,
sigmoid(-inf) = +0, silu(-inf) = -0, gelu(-inf) = -0, softplus(-inf) = +0,
elu(-0) = -0, the C99 Annex F cases of pow).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

from oracle import Arithmetic, OperationPlan
from oracle.binary32 import binary32_context
from oracle.vectorised import NUMPY_UFUNCS, ROUNDED_OPS

from . import erf_tables
from .convert import F32, F64, broadcast_shape, materialise, round_rational
from .elementwise import int_pow, new_array

__all__ = [
    "KERNELS",
    "TOLERANCE_ULPS",
    "erf64",
    "erfc_scaled64",
    "float64_formula",
    "near_rounding_boundary",
]

#: detection tolerance in float64 ulps of y (relative 2**-40); see the module docstring.
TOLERANCE_ULPS = 2**13
_TOLERANCE_REL = TOLERANCE_ULPS * 2.0**-53
_LOW29 = np.int64((1 << 29) - 1)
_THRESHOLD = TOLERANCE_ULPS + 2
_LOW_START = np.int64((1 << 28) - _THRESHOLD)
_WINDOW = np.int64(2 * _THRESHOLD)
_MIN_NORMAL32 = 2.0**-126
_SUBNORMAL_SCALE = 2.0**149
#: below 2**-151 a value is more than 50% away from the least midpoint 2**-150
_NEVER_NEAR_BELOW = 2.0**-151
#: elements per piece of float64 work (2**16 measured faster than 2**14 and 2**15 for every
#: operation timed, alone and in the hosted sweep: ``benchmarks/bench_exhaustive.py --chunks``)
CHUNK = 1 << 16


def _normal_only(y: np.ndarray) -> bool:
    """Whether every |y| of the non-empty float64 array *y* is at least 2**-126, decided
    by its two extremes: all of one sign (a NaN makes both extremes NaN: False)."""
    if not y.size:
        return False
    least, most = float(y.min()), float(y.max())
    return least >= _MIN_NORMAL32 or most <= -_MIN_NORMAL32


def near_rounding_boundary(y: np.ndarray) -> np.ndarray:
    """Mask of float64 values within the tolerance of a binary32 rounding boundary.

    Normal binary32 range: ``|low29(y) - 2**28| <= T`` is computed as
    ``(bits - (2**28 - T)) mod 2**29 <= 2 T`` (the borrow of the subtraction
    never reaches the low 29 bits).  +-inf and every NaN that comes from a
    float32 input or from float64 arithmetic have zero low bits, so they are
    never flagged.  Below 2**-126 the fixed 2**-149 grid is tested instead, down to
    2**-151: a value below that is more than 50% away from the least midpoint 2**-150
    and rounds to zero; the normal-range test may still flag one (a few in 10**5 by
    chance), which only sends it to the exact fallback.
    """
    low = y.view(np.int64) - _LOW_START
    low &= _LOW29
    hard = low <= _WINDOW
    if _normal_only(y):  # the subnormal test below would change nothing
        return hard
    a = np.abs(y)
    small = (a < _MIN_NORMAL32) & (a >= _NEVER_NEAR_BELOW)
    if small.any():
        z = a[small] * _SUBNORMAL_SCALE  # exact
        frac = z - np.floor(z)
        hard[small] = np.abs(frac - 0.5) <= z * (_TOLERANCE_REL * 1.001) + 2.0**-1000
    return hard


# ---------------------------------------------------------------------------
# float64 erf / erfc from the tables
# ---------------------------------------------------------------------------

_P = erf_tables.P
_G_TABLE = np.array(erf_tables.G, dtype=F64).T.copy()  # [coefficient, piece]
_G_SCALE = float(erf_tables.G_SCALE)
_G_FIRST = erf_tables.G_FIRST
_G_UPPER = float(erf_tables.G_FIRST + erf_tables.G_PIECES) / erf_tables.G_SCALE  # 12
#: erf(t) > 1 - 2**-26 for t >= 4 (erfc(4) < 1.6e-8): it rounds to 1, never near a midpoint
_ERF_ONE = 4.0
#: erfc(t) < 2**-56 for t >= 6: x/2 * (2 - erfc) rounds to x
_GELU_IDENTITY = 6.0
_INV_SQRT2 = 0.7071067811865476  # 1/sqrt(2) rounded to binary64 (relative error < 2**-53)


def _horner(coefficients: tuple[float, ...], u: np.ndarray) -> np.ndarray:
    acc = np.full_like(u, coefficients[-1])
    for c in coefficients[-2::-1]:
        acc *= u
        acc += c
    return acc


def _erf_over_t(s: np.ndarray) -> np.ndarray:
    """erf(t) / t for ``s = t*t`` in [0, 1)."""
    return _horner(_P, 2.0 * s - 1.0)


def erfc_scaled64(t: np.ndarray) -> np.ndarray:
    """``exp(t*t) * erfc(t)`` for t in [1, 12) (float64, within 28 ulp)."""
    scaled = _G_SCALE * t  # exact
    k = scaled.astype(np.int64)  # floor for t >= 1
    np.clip(k, _G_FIRST, _G_FIRST + erf_tables.G_PIECES - 1, out=k)
    u = 2.0 * scaled - (2 * k + 1).astype(F64)  # exact (Sterbenz)
    k -= _G_FIRST
    table = _G_TABLE
    acc = table[-1].take(k)
    for row in table[-2::-1]:
        acc *= u
        acc += row.take(k)
    return acc


def erf64(x: np.ndarray) -> np.ndarray:
    """float64 erf of float64 *x* holding float32 values (``x*x`` must be exact)."""
    t = np.abs(x)
    out = np.array(x, dtype=F64)  # NaN stays NaN
    small = t < 1.0
    if small.any():
        xs = x[small]
        out[small] = xs * _erf_over_t(xs * xs)
    mid = (t >= 1.0) & (t < _ERF_ONE)
    if mid.any():
        xm = x[mid]
        erfc = np.exp(-(xm * xm)) * erfc_scaled64(t[mid])
        out[mid] = np.copysign(1.0 - erfc, xm)
    big = t >= _ERF_ONE
    out[big] = np.copysign(1.0, x[big])
    return out


def _gelu64(x: np.ndarray) -> np.ndarray:
    t = np.abs(x) * _INV_SQRT2
    out = np.array(x, dtype=F64)  # NaN stays NaN; x where erfc(t) is negligible
    small = t < 1.0
    if small.any():
        xs = x[small]
        e = t[small] * _erf_over_t(0.5 * (xs * xs))  # erf(|t|) >= 0
        out[small] = 0.5 * xs * np.where(xs >= 0, 1.0 + e, 1.0 - e)
    positive = x >= 0
    mid = (t >= 1.0) & np.where(positive, t < _GELU_IDENTITY, t < _G_UPPER)
    if mid.any():
        xm = x[mid]
        erfc = np.exp(-0.5 * (xm * xm)) * erfc_scaled64(t[mid])
        out[mid] = 0.5 * xm * np.where(xm >= 0, 2.0 - erfc, erfc)
    # x < 0 and t >= 12 (x < -16.97, -inf included): |gelu| < 1e-63 -> -0
    out[~positive & (t >= _G_UPPER)] = -0.0
    return out


# ---------------------------------------------------------------------------
# float64 formulas (input: float64 holding float32 values)
# ---------------------------------------------------------------------------


def _sigmoid64(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0, e) / (1.0 + e)


def _silu64(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))
    y = np.where(x >= 0, x, x * e) / (1.0 + e)
    y[x == -np.inf] = -0.0
    return y


def _softplus64(x: np.ndarray) -> np.ndarray:
    y = np.log1p(np.exp(-np.abs(x)))
    positive = x > 0
    y[positive] += x[positive]
    y[np.isnan(x)] = np.nan
    return y


def _elu64(x: np.ndarray) -> np.ndarray:
    y = np.expm1(x)
    positive = x > 0
    y[positive] = x[positive]
    y[x == 0] = x[x == 0]  # elu(-0) = -0
    return y


def _rsqrt64(x: np.ndarray) -> np.ndarray:
    return 1.0 / np.sqrt(x)


def float64_formula(name: str) -> Callable[[np.ndarray], np.ndarray]:
    """The float64 formula behind function *name* (exposed for the tests)."""
    return _FORMULAS[name]


_FORMULAS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    # one numpy float64 call: the operations of the oracle's name table that are rounded
    **{name: ufunc for name, ufunc in NUMPY_UFUNCS.items() if name in ROUNDED_OPS},
    "erf": erf64,
    "rsqrt": _rsqrt64,
    "sigmoid": _sigmoid64,
    "silu": _silu64,
    "softplus": _softplus64,
    "gelu": _gelu64,
    "elu": _elu64,
}


# ---------------------------------------------------------------------------
# MPFR fallbacks
# ---------------------------------------------------------------------------


def _direct(function: Callable[[Any], Any]) -> Callable[[np.ndarray], np.ndarray]:
    """Correct rounding by one MPFR call in the binary32 context."""

    def fallback(xs: np.ndarray) -> np.ndarray:
        with binary32_context():
            return np.array([float(function(gmpy2.mpfr(float(v)))) for v in xs], dtype=F32)

    return fallback


def _ziv(
    formula: Callable[[Any], Any], slack_bits: Callable[[float], int]
) -> Callable[[np.ndarray], np.ndarray]:
    """Correct rounding of a composite formula by a Ziv loop.

    At precision p every operation of *formula* is correctly rounded, and the
    formula's relative error is at most ``2**(slack_bits(x) - p)``; the value
    is accepted when both ends of that interval round to the same binary32.
    """

    def one(x: float) -> np.float32:
        slack = slack_bits(x)
        precision = 64
        while precision <= 1 << 14:
            with gmpy2.context(precision=precision):
                value = formula(gmpy2.mpfr(x))
            if not gmpy2.is_finite(value):
                return np.float32(float(value))
            if value == 0:
                return np.float32(math.copysign(0.0, float(value)))
            exact = Fraction(*value.as_integer_ratio())
            error = abs(exact) / (1 << (precision - slack))
            low, high = exact - error, exact + error
            low_rounded = round_rational(low.numerator, low.denominator)
            high_rounded = round_rational(high.numerator, high.denominator)
            if low_rounded.view(np.uint32) == high_rounded.view(np.uint32) and low * high > 0:
                return low_rounded
            precision *= 2
        raise RuntimeError(f"Ziv loop did not converge for input {x!r}")

    def fallback(xs: np.ndarray) -> np.ndarray:
        return np.array([one(float(v)) for v in xs], dtype=F32)

    return fallback


def _mp_sigmoid(x: Any) -> Any:
    return 1 / (1 + gmpy2.exp(-x))


def _mp_silu(x: Any) -> Any:
    return x / (1 + gmpy2.exp(-x))


def _mp_softplus(x: Any) -> Any:
    if x > 0:
        return x + gmpy2.log1p(gmpy2.exp(-x))
    return gmpy2.log1p(gmpy2.exp(x))


def _mp_gelu(x: Any) -> Any:
    t = abs(x) * gmpy2.sqrt(gmpy2.mpfr(0.5))
    if x >= 0:
        return x / 2 * (1 + gmpy2.erf(t))
    return x / 2 * gmpy2.erfc(t)


def _gelu_slack(x: float) -> int:
    # erfc's relative condition number at t = |x|/sqrt 2 is at most 2 t^2 + 2 = x^2 + 2;
    # t carries 2 roundings, the rest 3 more.
    return 4 + int(x * x + 2).bit_length()


_FALLBACKS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "exp": _direct(gmpy2.exp),
    "exp2": _direct(gmpy2.exp2),
    "log": _direct(gmpy2.log),
    "log2": _direct(gmpy2.log2),
    "sin": _direct(gmpy2.sin),
    "cos": _direct(gmpy2.cos),
    "tanh": _direct(gmpy2.tanh),
    "erf": _direct(gmpy2.erf),
    "rsqrt": _direct(gmpy2.rec_sqrt),
    "elu": _direct(gmpy2.expm1),  # only negative inputs reach the fallback
    "sigmoid": _ziv(_mp_sigmoid, lambda x: 4),
    "silu": _ziv(_mp_silu, lambda x: 4),
    "softplus": _ziv(_mp_softplus, lambda x: 4),
    "gelu": _ziv(_mp_gelu, _gelu_slack),
}


# ---------------------------------------------------------------------------
# The driver and the kernels
# ---------------------------------------------------------------------------


#: silu and gelu: f(x) = x/2 + e with 0 < e < x**2 <= 2**-150 for 0 < |x| <= 2**-75
#: (silu(x) - x/2 = (x/2) tanh(x/2), gelu(x) - x/2 = (x/2) erf(x/sqrt 2))
_HALF_NEAR_ZERO = ("silu", "gelu")
_TINY = 2.0**-75


def _settle_tiny(x: np.ndarray, y: np.ndarray, hard: np.ndarray) -> None:
    """Replace *y* on the tiny inputs of silu/gelu by a float64 value that rounds right.

    f(x) lies strictly above x/2 (exact in float64) and, since e < 2**-150 is
    below half the binary32 spacing there, strictly below the next binary32
    rounding boundary above x/2; so does the float64 successor of x/2, which
    therefore rounds to the same binary32 value as f(x).  This keeps every odd
    subnormal (x/2 on a midpoint) out of the slow fallback.
    """
    tiny = (x != 0) & (np.abs(x) <= _TINY)
    if tiny.any():
        y[tiny] = np.nextafter(0.5 * x[tiny], np.inf)
        hard &= ~tiny


#: the saturation interval of an increasing function: every float32 input at or below *low*
#: rounds to the same binary32 value as f(low), every one at or above *high* to f(high), and
#: neither f(low) nor f(high) is near a rounding boundary -- so the input is clamped to
#: [low, high] before the float64 formula, which keeps numpy's float64 exp off its slow path
#: for arguments past +-708 (an overflow or underflow costs it 4-40 ns an element against
#: about 1 ns).  exp: e**89 = 4.49e38 is past the overflow threshold 2**128 - 2**103
#: (3.40e38), so every x >= 89 is +inf; e**-105 = 2.51e-46 is below 2**-151 (3.50e-46),
#: half the midpoint 2**-150 between +0 and the least subnormal, so every x <= -105 is
#: +0, and :func:`near_rounding_boundary` does not even look at it.  exp2: 2**128 is past
#: the threshold (+inf), 2**-152 is below 2**-151 (+0).  NaN stays NaN (np.clip keeps
#: it), -inf is clamped to *low* (+0), +inf to *high* (+inf).
SATURATION: dict[str, tuple[float, float]] = {
    "exp": (-105.0, 89.0),
    "exp2": (-152.0, 128.0),
}


#: the interval around zero on which an exp-like function rounds to 1: for f(x) = e**(c x)
#: with 0 < c <= 1 (exp: c = 1, exp2: c = ln 2) and t = c |x| with 0 < t <= 2**-25,
#: 1 < e**t <= 1 + t + t**2 < 1 + 2**-24, below the midpoint between 1 and its successor
#: 1 + 2**-23; and e**-t > 1 - t >= 1 - 2**-25, above the midpoint between 1 and its
#: predecessor 1 - 2**-24 (strictly: e**-t > 1 - t for t > 0).  So every input with
#: |x| <= 2**-25 rounds to 1, as +-0 does.
ROUNDS_TO_ONE: dict[str, float] = {"exp": 2.0**-25, "exp2": 2.0**-25}


@functools.cache
def _saturated(name: str) -> tuple[np.float32, np.float32]:
    """f at the two :data:`SATURATION` bounds, rounded: the float64 formula is far from a
    rounding boundary there (the table's proof), so its rounding is the result."""
    with np.errstate(all="ignore"):
        values = _FORMULAS[name](np.array(SATURATION[name], F64)).astype(F32)
    return values[0], values[1]


def _plateau_value(name: str, low: float, high: float) -> np.float32 | None:
    """The one binary32 value every input of a float32 piece whose extremes are *low*
    and *high* rounds to, where the whole piece lies on a plateau of *name* (at or
    beyond a :data:`SATURATION` bound, or within :data:`ROUNDS_TO_ONE` of zero), else
    None.  A NaN makes both extremes NaN, never a plateau.  An exhaustive sweep's pieces
    are runs of consecutive bit patterns, most of them on a plateau: this keeps them out
    of the float64 formula."""
    below, above = SATURATION[name]
    if high <= below:  # f(below) rounds as every input at or below it (the clamp's proof)
        return _saturated(name)[0]
    if low >= above:
        return _saturated(name)[1]
    tiny = ROUNDS_TO_ONE[name]
    if -tiny <= low and high <= tiny:
        return np.float32(1.0)
    return None


def correctly_rounded(name: str, values: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Function *name* of the float32 array *values*, correctly rounded (float32)."""
    formula = _FORMULAS[name]
    saturation = SATURATION.get(name)
    flat = np.ascontiguousarray(values, dtype=F32).reshape(-1)
    if out is None:
        out = np.empty(np.shape(values), F32)
    result = out.reshape(-1)
    if saturation is not None and flat.size > CHUNK:  # the whole array on one plateau?
        head = flat[:CHUNK]  # not unless its first piece is (two cheap reductions)
        if _plateau_value(name, float(head.min()), float(head.max())) is not None:
            plateau = _plateau_value(name, float(flat.min()), float(flat.max()))
            if plateau is not None:
                result[:] = plateau
                return out
    hard_positions = []
    with np.errstate(all="ignore"):
        for start in range(0, flat.size, CHUNK):
            x = flat[start : start + CHUNK]
            if saturation is not None:
                low, high = float(x.min()), float(x.max())  # a piece is never empty
                plateau = _plateau_value(name, low, high)
                if plateau is not None:
                    result[start : start + CHUNK] = plateau
                    continue
                if not saturation[0] <= low <= high <= saturation[1]:  # a NaN fails too
                    x = np.clip(x, *saturation)
            x = x.astype(F64)
            y = formula(x)
            hard = near_rounding_boundary(y)
            if name in _HALF_NEAR_ZERO:
                _settle_tiny(x, y, hard)
            result[start : start + CHUNK] = y
            if hard.any():
                hard_positions.append(np.flatnonzero(hard) + start)
    if hard_positions:
        positions = np.concatenate(hard_positions)
        result[positions] = _FALLBACKS[name](flat[positions])
    return out


def _unary(name: str) -> Callable[..., np.ndarray]:
    def kernel(backend: Any, plan: OperationPlan, x: Any) -> np.ndarray:
        v = np.asarray(materialise(plan, 0, x))
        out = new_array(backend, v.shape, F32)
        return correctly_rounded(name, v, out)

    kernel.__name__ = name
    return kernel


# -- floating pow ------------------------------------------------------------


def _pow_fallback(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    with binary32_context():
        return np.array(
            [float(gmpy2.mpfr(float(a)) ** gmpy2.mpfr(float(b))) for a, b in zip(xs, ys)],
            dtype=F32,
        )


def _pow_special(xd: np.ndarray, yd: np.ndarray, z: np.ndarray) -> np.ndarray:
    """C99 Annex F pow for the elements that are not (positive finite) ** finite.

    *z* holds ``power(|x|, y)`` for them; the result is written over it.
    """
    ay = np.abs(yd)
    y_finite = ay < np.inf
    y_integer = (np.floor(yd) == yd) & y_finite
    y_odd = y_integer & (ay < 2.0**53) & (np.fmod(yd, 2.0) != 0)
    ax = np.abs(xd)
    negative = xd < 0
    z[negative & y_odd] *= -1.0  # (-|x|)**odd
    z[negative & ~y_integer] = np.nan  # negative base, non-integer exponent
    y_negative = yd < 0
    y_positive = yd > 0
    zero = xd == 0
    z = np.where(zero & y_negative, np.where(y_odd, np.copysign(np.inf, xd), np.inf), z)
    z = np.where(zero & y_positive, np.where(y_odd, np.copysign(0.0, xd), 0.0), z)
    minus_inf = xd == -np.inf
    z = np.where(minus_inf & y_negative, np.where(y_odd, -0.0, 0.0), z)
    z = np.where(minus_inf & y_positive, np.where(y_odd, -np.inf, np.inf), z)
    plus_inf = xd == np.inf
    z = np.where(plus_inf & y_negative, 0.0, z)
    z = np.where(plus_inf & y_positive, np.inf, z)
    y_inf = ~y_finite & ~np.isnan(yd) & (ax < np.inf)  # finite x, y = +-inf
    z = np.where(y_inf & (ax == 1), 1.0, z)
    z = np.where(y_inf & (ax < 1), np.where(yd > 0, 0.0, np.inf), z)
    z = np.where(y_inf & (ax > 1), np.where(yd > 0, np.inf, 0.0), z)
    z = np.where(np.isnan(xd) | np.isnan(yd), np.nan, z)
    return np.where((yd == 0) | (xd == 1), 1.0, z)  # these two beat NaN


def float_pow(x: np.ndarray, y: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Correctly rounded binary32 pow with the C99 Annex F special cases, into *out*.

    A positive finite base with a finite exponent is the general case:
    ``power(x, y)`` in float64 within L, then the boundary test (exact
    results such as ``pow(x, 0) = 1`` or ``pow(1, y) = 1`` are within L of a
    binary32 value, far from any midpoint, so they need no special case).
    Everything else -- a negative, zero, infinite or NaN base, an infinite or
    NaN exponent -- goes through :func:`_pow_special`; a negative finite base
    with a finite integer exponent is ``+-|x|**y`` and is boundary-tested too.
    """
    shape = out.shape
    xs = np.ascontiguousarray(np.broadcast_to(x, shape), dtype=F32).reshape(-1)
    ys = np.ascontiguousarray(np.broadcast_to(y, shape), dtype=F32).reshape(-1)
    result = out.reshape(-1)
    hard_positions = []
    with np.errstate(all="ignore"):
        for start in range(0, result.size, CHUNK):
            xd = xs[start : start + CHUNK].astype(F64)
            yd = ys[start : start + CHUNK].astype(F64)
            z = np.power(np.abs(xd), yd)
            simple = (xd > 0) & (xd < np.inf) & (np.abs(yd) < np.inf)
            hard = near_rounding_boundary(z)
            if not simple.all():
                other = np.flatnonzero(~simple)
                xo, yo = xd[other], yd[other]
                general = (xo < 0) & (xo > -np.inf) & (np.floor(yo) == yo) & (yo != 0)
                hard[other] &= general  # only +-|x|**integer is tested among these
                z[other] = _pow_special(xo, yo, z[other])
            result[start : start + CHUNK] = z
            if hard.any():
                hard_positions.append(np.flatnonzero(hard) + start)
    if hard_positions:
        positions = np.concatenate(hard_positions)
        result[positions] = _pow_fallback(xs[positions], ys[positions])
    return out


def pow_(backend: Any, plan: OperationPlan, base: Any, exponent: Any) -> np.ndarray:
    """pow: exact checked Int32 branch, or correctly rounded Float32."""
    if plan.compute is Arithmetic.INT32_EXACT_CHECKED:
        return int_pow(backend, plan, base, exponent)
    x = materialise(plan, 0, base)
    y = materialise(plan, 1, exponent)
    shape = broadcast_shape(plan.operation, np.shape(x), np.shape(y))
    out = new_array(backend, shape, F32)
    return float_pow(np.asarray(x), np.asarray(y), out)


KERNELS = {name: _unary(name) for name in _FORMULAS}
KERNELS["pow"] = pow_
