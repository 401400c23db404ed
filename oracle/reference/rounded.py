"""Certified correctly rounded binary32 references for the transcendental class.

Every function here is a *scalar* rule: it takes Python floats holding exact
binary32 values (any NaN, +-0, +-inf, subnormals) and returns a pair
``(value, exact)``:

* ``value`` is a Python float holding the binary32 value nearest to the exact
  mathematical result (to nearest, ties to even, gradual underflow, overflow to
  +-inf), i.e. the function of the exact binary32 inputs rounded *once*;
* ``exact`` is True when the mathematical result *is* that binary32 value:
  exact points (``exp(0) = 1``, ``log(1) = +0``, ``exp2(3) = 8``,
  ``rsqrt(4) = 0.5``, ``pow(2, 3) = 8``, ``erf(-0) = -0``, ...), the limits
  at infinite operands (``exp(-inf) = +0``, ``tanh(+inf) = 1``,
  ``sigmoid(-inf) = +0``), poles (``log(0) = -inf``, ``rsqrt(-0) = -inf``,
  ``pow(+0, -1) = +inf``) and every NaN result (an invalid operation has no
  value to approximate: a backend must return a NaN).  A result that was
  rounded -- including overflow to +-inf and underflow to +-0 or to a
  subnormal -- has ``exact`` False.

Broadcasting and the materialisation of operands as binary32 belong to the
driver.  Operands are validated: a non-float is a :class:`TypeError`, a float
that is not exactly a binary32 value a :class:`ValueError`.

Method 1: functions MPFR provides (exp, exp2, log, log2, sin, cos, tanh, erf,
rsqrt = ``rec_sqrt``, elu = ``expm1`` on x <= 0, pow)
---------------------------------------------------------------------------

MPFR rounds every function correctly in every rounding mode, at any
precision, in its current exponent range.  :func:`oracle.binary32.binary32_context`
is MPFR's documented binary32 emulation idiom: precision 24, exponent range
emin = -148, emax = 128 and ``subnormalize=True``.  gmpy2 computes the result
at precision 24 with MPFR's wide exponent range, then calls
``mpfr_check_range`` (overflow to +-inf and underflow below 2**-149, using
the ternary value so that an exact 2**-150 ties to +0 while a value just above
it goes to 2**-149) and ``mpfr_subnormalize`` with the ternary value of the
first rounding (MPFR re-rounds to the subnormal quantum 2**-149 *without*
double rounding: a 24-bit result that is itself a midpoint of the coarser
format is resolved by the sign of the first rounding error).  The tests
check this on every such trap among 600 inputs of exp2 near 2**-126 and
2**-140 (155 traps; re-rounding the 24-bit value would be wrong for 78), and
on the subnormal ranges of every sweep against mpmath.  The result is
therefore the correctly rounded binary32 value, and its ternary value (gmpy2's
``mpfr.rc``) is 0 exactly when the mathematical result is that value -- which
is how ``exact`` is decided, also for pow's perfect powers (``pow(4, 0.5) =
2``, ``pow(4097, 2)`` is inexact: the midpoint 16785409 ties to 16785408).

MPFR's own Ziv loops terminate because MPFR detects the exact cases of each
function itself (the only ones are those listed in the docstrings below).

Two MPFR conventions differ from the reference semantics and are decided
explicitly before MPFR is called: ``rec_sqrt(-0)`` is +inf in MPFR but
``rsqrt(-0) = -inf`` here (IEEE 754-2019 rSqrt), and pow's special cases are
implemented from C99 Annex F (see :func:`pow`; they coincide with MPFR's).

Method 2: composites (sigmoid, silu, softplus, gelu) -- a Ziv loop over
directed-rounding enclosures
-----------------------------------------------------------------------------

For working precision p = 64, 128, 256, ... (doubling, at most
:data:`MAX_PRECISION` bits) the formula is evaluated twice with MPFR: once with
every step rounded so that the result can only move *down* (a lower bound
``lo``) and once so that it can only move *up* (``hi``).  Each step is a
function that MPFR rounds correctly in the requested direction and that is
monotone on the enclosure, so the true value ``v`` satisfies
``lo <= v <= hi`` (interval arithmetic whose endpoints are exact MPFR
numbers).  Both endpoints are rounded to binary32 with
:func:`oracle.binary32.round_mpfr` (exact rounding of an exact binary value).
If they give the same binary32 value (same bit pattern, so signed zeros are
distinguished), every real number in ``[lo, hi]`` -- ``v`` included -- rounds
to it, because rounding to nearest is monotone: that value is the certified
result.  Otherwise p is doubled.

The working contexts use gmpy2's widest exponent range (|E| about 2**30).  MPFR
overflows to the largest finite number when rounding down and to +inf when
rounding up, and underflows to +0 when rounding down and to the smallest
positive number when rounding up, so the enclosure stays valid when an
intermediate (``exp(3e38)``, ``erfc(2e38)``) leaves the range; such results
are then far outside the binary32 range and both endpoints round to the same
+-0 (or to the same finite value for ``softplus`` and ``gelu`` of huge
positive x).  Endpoints whose exponent is beyond the binary32 range by a
margin are replaced by +-2**-152 or +-2**130 (which round to the same
binary32 value) before :func:`round_mpfr`, which would otherwise expand them
into enormous integers.

Formulas and enclosure widths.  u = 2**(1-p) bounds the relative error of
one directed rounding at precision p; "each side" is the relative distance of
an endpoint from the exact value, "width" is (hi - lo) / |v|, to first order
in u (the O(u**2) terms are negligible for p >= 64):

* ``sigmoid(x) = 1 / (1 + t)``, ``t = exp(-x)`` (``-x`` is exact): ``t`` is
  off by u each side, ``1 + t`` (positive terms, no cancellation) by 2u, the
  reciprocal by 3u: width <= 6u.
* ``silu(x) = x * sigmoid(x)``: the product with the exact x adds u each
  side: width <= 8u.
* ``softplus(x) = log1p(exp(x))`` for x <= 0 and ``x + log1p(exp(-x))`` for
  x > 0 (the same function; the second form keeps ``exp`` from overflowing).
  ``log1p`` has condition number t / ((1 + t) log1p(t)) <= 1 on t > 0, so the
  log1p is off by 2u each side and the width is <= 4u for x <= 0; for x > 0
  the sum of two positive terms adds u each side: width <= 6u.
* ``gelu(x) = x/2 * erfc(w)``, ``w = -x/sqrt 2``, equal to
  ``x/2 * (1 + erf(x/sqrt 2))`` without its cancellation for negative x.
  ``1/sqrt 2`` is enclosed with ``rec_sqrt`` and ``w`` is off by 2u each
  side; ``erfc`` is decreasing, so its enclosure is ``[erfc(w_hi),
  erfc(w_lo)]`` rounded outwards, off by ``2u kappa(w) + u`` each side with
  ``kappa(w) = |w erfc'(w) / erfc(w)|``.  From ``erfc(w) > 2 exp(-w**2) /
  (sqrt(pi) (w + sqrt(w**2 + 2)))`` (w > 0): kappa(w) < 2 w**2 + 1 for
  w > 0, and kappa(w) < 2|w| exp(-w**2) / sqrt(pi) < 1/2 for w <= 0.  ``x/2``
  is exact and the product adds u: width <= (4 kappa(w) + 4) u, i.e. < 6u for
  x >= 0 and < (8 w**2 + 8) u for x < 0 -- below 840u = 2**9.8 u wherever
  gelu(x) does not round to zero (w < 10.2), so p = 64 leaves more than 53
  correct bits there.

Termination.  Every width above tends to 0 as p grows (for intermediates
within MPFR's range), so the loop stops at the first p at which the
enclosure fits between two consecutive rounding boundaries of binary32 (the
midpoints between neighbours, +-(2**128 - 2**103) for overflow, and 0 between
-0 and +0).  It can fail to stop only when the exact value *is* such a boundary:

* sigmoid, silu, softplus: for finite rational x != 0, ``exp(-x)`` is
  transcendental (Lindemann-Weierstrass), hence so are ``1/(1 + exp(-x))``
  and ``x/(1 + exp(-x))``; and ``log(1 + exp(x)) = r`` rational would give
  ``exp(r) - exp(x) - exp(0) = 0`` with distinct algebraic exponents r, x, 0,
  which Lindemann-Weierstrass forbids (r = 0 would need exp(x) = 0).  So no
  finite x != 0 gives a rational value -- neither a binary32 value nor a
  midpoint, both of which are dyadic rationals.  The exact zeros of silu and
  gelu (x = +-0) and sigmoid(+-0) = 1/2 are decided before the loop.
* gelu: ``gelu(x)`` is a dyadic rational iff ``erfc(-x/sqrt 2)`` is rational.
  Transcendence of erf at non-zero algebraic points is not a known theorem
  (Siegel-Shidlovskii covers ``sqrt(pi)/2 * erf``, not erf itself), so this
  case is *detected* instead: the loop stops with :class:`CertificationError`
  at :data:`MAX_PRECISION` bits, which would mean the exact value is within
  about 2**-8000 (relative) of a binary32 rounding boundary.  No binary32 input
  is known to do that; the flag ``exact`` is False for gelu(x), x != 0 finite,
  on the same (universally believed) assumption.  The same assumption is the
  basis of MPFR's erf, whose ternary value reports every non-zero finite
  erf(x) as inexact.

The independent cross-check of all of this is
:mod:`oracle.reference.rounded_mpmath` (mpmath only, different formulas where
possible), compared with this module in ``tests/test_reference_rounded.py``.
The semantics of every function, with executable examples, are in
``docs/semantics/correctly-rounded.md``.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable

import gmpy2

from oracle.binary32 import binary32_context, round_mpfr, to_bits
from oracle.reference.exact import binary32_operand

__all__ = [
    "BINARY",
    "FUNCTIONS",
    "MAX_PRECISION",
    "UNARY",
    "CertificationError",
    "cos",
    "elu",
    "erf",
    "exp",
    "exp2",
    "gelu",
    "log",
    "log2",
    "pow",
    "rsqrt",
    "sigmoid",
    "silu",
    "sin",
    "softplus",
    "tanh",
]

MAX_PRECISION: int = 8192
"""The largest working precision (bits) the Ziv loop tries before giving up."""

_START_PRECISION = 64
_INF = math.inf
_NAN = math.nan

Result = tuple[float, bool]


class CertificationError(ArithmeticError):
    """The Ziv loop could not separate the exact value from a rounding boundary.

    Raised (never silently ignored) when :data:`MAX_PRECISION` bits did not
    suffice; it names the function and the operand so that the case can be
    studied.  No binary32 operand is known to trigger it.
    """


# ---------------------------------------------------------------------------
# Operands and contexts
# ---------------------------------------------------------------------------


def _mpfr(x: float) -> gmpy2.mpfr:
    """The exact mpfr of a float (53 bits hold every binary32 value)."""
    return gmpy2.mpfr(x, 53)


# One binary32 context, used through its methods (ctx.exp(x) computes in ctx).
_B32 = binary32_context()


def _directed_contexts(precision: int) -> tuple[gmpy2.context, gmpy2.context]:
    """(round-down, round-up) contexts at *precision* with the widest exponent range."""
    cached = _DIRECTED.get(precision)
    if cached is None:
        common = {
            "precision": precision,
            "emin": gmpy2.get_emin_min(),
            "emax": gmpy2.get_emax_max(),
            "subnormalize": False,
            "trap_underflow": False,
            "trap_overflow": False,
            "trap_inexact": False,
            "trap_invalid": False,
            "trap_erange": False,
            "trap_divzero": False,
        }
        cached = (
            gmpy2.context(round=gmpy2.RoundDown, **common),
            gmpy2.context(round=gmpy2.RoundUp, **common),
        )
        _DIRECTED[precision] = cached
    return cached


_DIRECTED: dict[int, tuple[gmpy2.context, gmpy2.context]] = {}


# ---------------------------------------------------------------------------
# Method 1: one correctly rounded MPFR call in the binary32 context
# ---------------------------------------------------------------------------


def _native(function: str, *operands: float) -> Result:
    """``function`` of the exact operands, rounded once to binary32 by MPFR."""
    result = getattr(_B32, function)(*(_mpfr(x) for x in operands))
    value = float(result)  # exact: 24 bits and a binary32 exponent
    if math.isnan(value):
        return _NAN, True
    return value, result.rc == 0


def exp(x: float) -> Result:
    """e**x.  Exact only at exp(+-0) = 1 and the limits exp(-inf) = +0,
    exp(+inf) = +inf; overflow (x > 88.72...) and underflow are inexact."""
    return _native("exp", binary32_operand("exp", 0, x))


def exp2(x: float) -> Result:
    """2**x.  Exact for integer x in [-149, 127] and the limits; exp2(-150) is
    the midpoint 2**-150 and ties to +0 (inexact)."""
    return _native("exp2", binary32_operand("exp2", 0, x))


def log(x: float) -> Result:
    """Natural logarithm.  log(+-0) = -inf (pole, exact), log(1) = +0 (exact),
    log(+inf) = +inf, log(x < 0) = log(-inf) = NaN."""
    return _native("log", binary32_operand("log", 0, x))


def log2(x: float) -> Result:
    """Base-2 logarithm.  Exact for x = 2**k (the integer k), plus the poles and
    limits of :func:`log`."""
    return _native("log2", binary32_operand("log2", 0, x))


def sin(x: float) -> Result:
    """Sine (exact argument reduction).  sin(+-0) = +-0 exact, sin(+-inf) = NaN."""
    return _native("sin", binary32_operand("sin", 0, x))


def cos(x: float) -> Result:
    """Cosine (exact argument reduction).  cos(+-0) = 1 exact, cos(+-inf) = NaN."""
    return _native("cos", binary32_operand("cos", 0, x))


def tanh(x: float) -> Result:
    """Hyperbolic tangent.  tanh(+-0) = +-0 and tanh(+-inf) = +-1 exact; large
    finite |x| rounds to +-1 (inexact)."""
    return _native("tanh", binary32_operand("tanh", 0, x))


def erf(x: float) -> Result:
    """Error function.  erf(+-0) = +-0 and erf(+-inf) = +-1 exact."""
    return _native("erf", binary32_operand("erf", 0, x))


def rsqrt(x: float) -> Result:
    """1/sqrt(x), rounded once.  rsqrt(+0) = +inf, rsqrt(-0) = -inf (IEEE
    rSqrt; MPFR's rec_sqrt gives +inf), rsqrt(+inf) = +0, negative -> NaN.
    Exact exactly at the even powers of two (rsqrt(4) = 0.5)."""
    x = binary32_operand("rsqrt", 0, x)
    if x == 0.0:
        return math.copysign(_INF, x), True
    return _native("rec_sqrt", x)


def elu(x: float) -> Result:
    """x if x > 0 else expm1(x) (alpha = 1).  elu(+-0) = +-0, elu(-inf) = -1,
    elu(+inf) = +inf, all exact; every x > 0 is exact."""
    x = binary32_operand("elu", 0, x)
    if x > 0.0:
        return x, True
    return _native("expm1", x)  # NaN, -inf, -0 and negatives: MPFR's expm1


def _is_integer(y: float) -> bool:
    return math.isfinite(y) and y == math.floor(y)


def _is_odd_integer(y: float) -> bool:
    # binary32 values of magnitude >= 2**24 are even integers
    return _is_integer(y) and builtins.abs(y) < 2.0**24 and int(y) % 2 == 1


def pow(x: float, y: float) -> Result:
    """x**y, rounded once, with the special cases of C99 Annex F.9.4.4.

    In this order (each special result is exact):

    1. pow(x, +-0) = 1 for every x, even NaN;
    2. pow(+1, y) = 1 for every y, even NaN;
    3. otherwise a NaN operand gives NaN;
    4. pow(-1, +-inf) = 1;
    5. pow(x, +inf) = +0 for |x| < 1 and +inf for |x| > 1;
       pow(x, -inf) = +inf for |x| < 1 and +0 for |x| > 1 (x = +-0 included);
    6. pow(+inf, y) = +0 for y < 0 and +inf for y > 0;
       pow(-inf, y) = -0 for y a negative odd integer, +0 for other y < 0,
       -inf for y a positive odd integer, +inf for other y > 0;
    7. pow(+-0, y) = +-inf for y a negative odd integer (pole, so
       pow(-0, -1) = -inf), +inf for other y < 0 (even integer or not an
       integer), +-0 for y a positive odd integer (pow(-0, 3) = -0), +0 for
       other y > 0;
    8. pow(x, y) = NaN for finite x < 0 and finite non-integer y;
    9. otherwise (finite non-zero x, finite non-zero y; x < 0 only with an
       integer y, whose parity gives the sign) MPFR's correctly rounded
       mpfr_pow in the binary32 context; ``exact`` is its ternary value, so
       integer powers and perfect powers such as pow(2, 3) = 8,
       pow(0.25, -1.5) = 8 and pow(-2, -149) = -2**-149 are exact, while
       rounded ones, overflow and underflow are not.
    """
    x = binary32_operand("pow", 0, x)
    y = binary32_operand("pow", 1, y)
    if y == 0.0:
        return 1.0, True
    if x == 1.0:
        return 1.0, True
    if math.isnan(x) or math.isnan(y):
        return _NAN, True
    if math.isinf(y):
        magnitude = builtins.abs(x)
        if magnitude == 1.0:
            return 1.0, True
        return (0.0 if (magnitude < 1.0) == (y > 0.0) else _INF), True
    if math.isinf(x):
        if x > 0.0:
            return (_INF if y > 0.0 else 0.0), True
        odd = _is_odd_integer(y)
        if y > 0.0:
            return (-_INF if odd else _INF), True
        return (-0.0 if odd else 0.0), True
    if x == 0.0:
        odd = _is_odd_integer(y)
        if y < 0.0:
            return (math.copysign(_INF, x) if odd else _INF), True
        return (x if odd else 0.0), True
    if x < 0.0 and not _is_integer(y):
        return _NAN, True
    return _native("pow", x, y)


# ---------------------------------------------------------------------------
# Method 2: Ziv loop over directed-rounding enclosures
# ---------------------------------------------------------------------------

Enclosure = Callable[[float, gmpy2.context, gmpy2.context], tuple[gmpy2.mpfr, gmpy2.mpfr]]

# Beyond these MPFR exponents (|v| < 2**e <= 2**-152, or |v| >= 2**(e-1) >= 2**130)
# an endpoint rounds to +-0 or +-inf; it is clamped before round_mpfr expands it.
_TINY_EXP = -152
_HUGE_EXP = 131
_TINY = gmpy2.mpfr(2.0**-153, 53)
_HUGE = gmpy2.mpfr(2.0**130, 53)


def _round_end(v: gmpy2.mpfr) -> float:
    """round_mpfr of an enclosure endpoint, cheap for far out-of-range exponents."""
    if gmpy2.is_regular(v):
        e = gmpy2.get_exp(v)  # 2**(e-1) <= |v| < 2**e
        if e <= _TINY_EXP:
            v = -_TINY if v < 0 else _TINY
        elif e >= _HUGE_EXP:
            v = -_HUGE if v < 0 else _HUGE
    return round_mpfr(v)


def _ziv(operation: str, x: float, enclosure: Enclosure) -> Result:
    """Round the exact value enclosed by *enclosure* once, certified (inexact)."""
    precision = _START_PRECISION
    while precision <= MAX_PRECISION:
        down, up = _directed_contexts(precision)
        lo, hi = enclosure(x, down, up)
        if not lo <= hi:
            raise AssertionError(f"{operation}({x!r}): inverted enclosure [{lo}, {hi}]")
        rounded_lo, rounded_hi = _round_end(lo), _round_end(hi)
        if to_bits(rounded_lo) == to_bits(rounded_hi):
            return rounded_lo, False
        precision *= 2
    raise CertificationError(
        f"{operation}({x!r}) (bits {to_bits(x):#010x}): the exact value could not be "
        f"separated from a binary32 rounding boundary at {MAX_PRECISION} bits"
    )


def _times(
    x: gmpy2.mpfr, lo: gmpy2.mpfr, hi: gmpy2.mpfr, down: gmpy2.context, up: gmpy2.context
) -> tuple[gmpy2.mpfr, gmpy2.mpfr]:
    """Enclosure of x * [lo, hi] for an exact point x."""
    if x >= 0:
        return down.mul(x, lo), up.mul(x, hi)
    return down.mul(x, hi), up.mul(x, lo)


def _sigmoid_enclosure(
    x: float, down: gmpy2.context, up: gmpy2.context
) -> tuple[gmpy2.mpfr, gmpy2.mpfr]:
    minus_x = _mpfr(-x)
    t_lo, t_hi = down.exp(minus_x), up.exp(minus_x)  # exp is increasing
    s_lo, s_hi = down.add(1, t_lo), up.add(1, t_hi)
    return down.div(1, s_hi), up.div(1, s_lo)  # 1/s is decreasing on s > 0


def _silu_enclosure(
    x: float, down: gmpy2.context, up: gmpy2.context
) -> tuple[gmpy2.mpfr, gmpy2.mpfr]:
    lo, hi = _sigmoid_enclosure(x, down, up)
    return _times(_mpfr(x), lo, hi, down, up)


def _softplus_enclosure(
    x: float, down: gmpy2.context, up: gmpy2.context
) -> tuple[gmpy2.mpfr, gmpy2.mpfr]:
    if x <= 0.0:
        mx = _mpfr(x)
        t_lo, t_hi = down.exp(mx), up.exp(mx)
        return down.log1p(t_lo), up.log1p(t_hi)  # log1p is increasing
    minus_x = _mpfr(-x)
    t_lo, t_hi = down.exp(minus_x), up.exp(minus_x)
    l_lo, l_hi = down.log1p(t_lo), up.log1p(t_hi)
    mx = _mpfr(x)
    return down.add(mx, l_lo), up.add(mx, l_hi)


_TWO = gmpy2.mpfr(2, 53)


def _gelu_enclosure(
    x: float, down: gmpy2.context, up: gmpy2.context
) -> tuple[gmpy2.mpfr, gmpy2.mpfr]:
    r_lo, r_hi = down.rec_sqrt(_TWO), up.rec_sqrt(_TWO)  # 1/sqrt(2)
    w_lo, w_hi = _times(_mpfr(-x), r_lo, r_hi, down, up)  # -x/sqrt(2)
    e_lo, e_hi = down.erfc(w_hi), up.erfc(w_lo)  # erfc is decreasing
    return _times(_mpfr(x / 2), e_lo, e_hi, down, up)  # x/2 is exact in binary64


def sigmoid(x: float) -> Result:
    """1 / (1 + e**-x).  sigmoid(+-0) = 1/2 (exact), sigmoid(-inf) = +0,
    sigmoid(+inf) = 1 (exact limits); x >= 17.33 rounds to 1 and very
    negative x underflows to subnormals and +0 (inexact)."""
    x = binary32_operand("sigmoid", 0, x)
    if math.isnan(x):
        return _NAN, True
    if math.isinf(x):
        return (1.0 if x > 0.0 else 0.0), True
    if x == 0.0:
        return 0.5, True
    return _ziv("sigmoid", x, _sigmoid_enclosure)


def silu(x: float) -> Result:
    """x * sigmoid(x).  silu(+-0) = +-0, silu(-inf) = -0, silu(+inf) = +inf
    (exact); very negative x gives -subnormals and -0 (inexact)."""
    x = binary32_operand("silu", 0, x)
    if math.isnan(x):
        return _NAN, True
    if math.isinf(x):
        return (_INF if x > 0.0 else -0.0), True
    if x == 0.0:
        return x, True
    return _ziv("silu", x, _silu_enclosure)


def softplus(x: float) -> Result:
    """log(1 + e**x), no threshold, no beta.  softplus(-inf) = +0 and
    softplus(+inf) = +inf (exact); softplus(+-0) = log 2 rounded (inexact);
    every finite result is inexact."""
    x = binary32_operand("softplus", 0, x)
    if math.isnan(x):
        return _NAN, True
    if math.isinf(x):
        return (_INF if x > 0.0 else 0.0), True
    return _ziv("softplus", x, _softplus_enclosure)


def gelu(x: float) -> Result:
    """x/2 * (1 + erf(x/sqrt 2)), the erf form.  gelu(+-0) = +-0,
    gelu(-inf) = -0, gelu(+inf) = +inf (exact); gelu(-10) is about -7.6e-23."""
    x = binary32_operand("gelu", 0, x)
    if math.isnan(x):
        return _NAN, True
    if math.isinf(x):
        return (_INF if x > 0.0 else -0.0), True
    if x == 0.0:
        return x, True
    return _ziv("gelu", x, _gelu_enclosure)


UNARY: dict[str, Callable[[float], Result]] = {
    "exp": exp,
    "exp2": exp2,
    "log": log,
    "log2": log2,
    "sin": sin,
    "cos": cos,
    "tanh": tanh,
    "erf": erf,
    "rsqrt": rsqrt,
    "sigmoid": sigmoid,
    "silu": silu,
    "softplus": softplus,
    "gelu": gelu,
    "elu": elu,
}
"""The unary functions by operation name."""

BINARY: dict[str, Callable[[float, float], Result]] = {"pow": pow}
"""The binary functions by operation name."""

FUNCTIONS: dict[str, Callable[..., Result]] = {**UNARY, **BINARY}
"""Every function of this module by operation name."""
