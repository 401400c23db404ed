"""An independent second reference for the correctly rounded class (mpmath only).

Same API as :mod:`oracle.reference.rounded`: every function takes Python
floats holding binary32 values and returns ``(value, exact)``, the binary32
value nearest to the exact mathematical result and whether the result *is*
that value.  Nothing here uses MPFR (mpmath may use gmpy2's *integers* as its
big-integer backend; its transcendental algorithms are its own), and the
special cases, the exact points and, where it costs nothing, the formulas are
written independently of :mod:`.rounded`, so that agreement between the two
modules is evidence for both.  It is slower and meant for cross-checking.

Method
------

Exact cases are decided by number theory, not by a ternary value:

* a result that is rational is computed *exactly* (``fractions.Fraction``)
  and rounded once with :func:`oracle.binary32.round_fraction`; ``exact`` is
  then the comparison of the rounded value with the exact one.  The rational
  results at finite binary32 operands are: exp(0) = cos(0) = 1, sin, tanh,
  erf, silu, gelu and elu at +-0 (the zero itself), sigmoid(0) = 1/2,
  log(1) = 0, elu(x > 0) = x, exp2 at integers, log2 at powers of two,
  rsqrt at even powers of two, and pow(x, y) when x is a perfect 2**j-th power
  for the denominator 2**j of y (see :func:`pow`);
* every other finite result is irrational (Lindemann-Weierstrass for exp,
  log, sin, cos, tanh, sigmoid, silu, softplus and expm1 at non-zero rational
  points; ``2**(p/q)`` and ``log2`` of a non-power of two by unique
  factorisation; ``x**(-n)`` with an odd base factor is not dyadic), except
  that for erf and gelu irrationality is assumed (it is not a known theorem),
  and for pow(x, n) with a large integer n and an odd part of x above 1,
  which is rational but has more than 25 significant bits, so it is neither a
  binary32 value nor a binary32 rounding boundary.

Irrational results are evaluated with mpmath at a working precision P (first
:data:`BASE_PRECISION` = 256 bits) and *trusted* to a relative error of
2**-(P - SLACK), SLACK = 32 bits: mpmath's elementary and error functions are
accurate to about an ulp of P, each formula below adds at most a handful of
roundings without cancellation, and where an input error is amplified (gelu's
erfc argument, whose relative error is multiplied by about 2 w**2 for large
w) the working precision is raised by the amplification first.  The result
``v`` is accepted only if ``v * (1 - 2**-(P-SLACK))`` and
``v * (1 + 2**-(P-SLACK))`` (computed exactly) round to the same binary32 value
with :func:`oracle.binary32.round_to_binary32`; otherwise P is doubled, up to
:data:`MAX_PRECISION`, and then :class:`CertificationError` is raised.  The
check can only keep failing when the exact value is a rounding boundary,
which the analysis above excludes (or, for erf and gelu, detects).  Values
whose magnitude is below 2**-152 or above 2**130 round to +-0 or +-inf without
the check (their relative error cannot bridge that margin).

Formulas (chosen to differ from :mod:`.rounded` where that is free):
sigmoid is ``1/(1 + e**-x)`` for x > 0 and ``e**x/(1 + e**x)`` for x < 0;
silu is ``x/(1 + e**-x)``; softplus is ``log1p(e**x)`` everywhere (mpmath has
no overflow); gelu is ``x/2 * erfc(-x/sqrt 2)`` for x < 0 and
``x - x/2 * erfc(x/sqrt 2)`` for x > 0 (the subtraction loses at most a bit:
the subtrahend is at most half of x); elu is ``expm1`` for x < 0; pow
uses mpmath's ``power``; rsqrt is ``1/sqrt(x)``; log2 is ``log(x, 2)``.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from fractions import Fraction

import mpmath
import numpy as np

from oracle.binary32 import is_binary32, round_fraction, round_to_binary32, to_bits

__all__ = [
    "BASE_PRECISION",
    "BINARY",
    "FUNCTIONS",
    "MAX_PRECISION",
    "SLACK",
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

BASE_PRECISION: int = 256
"""The first working precision in bits."""

MAX_PRECISION: int = 16384
"""The last working precision tried before :class:`CertificationError`."""

SLACK: int = 32
"""Bits of a P-bit mpmath result that are *not* trusted."""

_INF = math.inf
_NAN = math.nan

# A private context: the global mpmath.mp precision is never touched.
_mp = mpmath.MPContext()

Result = tuple[float, bool]


class CertificationError(ArithmeticError):
    """The result could not be separated from a binary32 rounding boundary."""


def _operand(operation: str, position: int, x: object) -> float:
    if isinstance(x, float):
        value = x
    elif isinstance(x, np.floating) and x.dtype.itemsize <= 8:
        value = float(x)
    else:
        raise TypeError(
            f"{operation}: operand {position} must be a float holding a binary32 value; "
            f"got {type(x).__name__} {x!r}"
        )
    if not is_binary32(value):
        raise ValueError(f"{operation}: operand {position} = {value!r} is not a binary32 value")
    return value


def _exact(q: Fraction) -> Result:
    """Round an exact rational result once; exact iff nothing was lost."""
    rounded = round_fraction(q)
    return rounded, math.isfinite(rounded) and Fraction(rounded) == q


def _power_of_two(x: float) -> int | None:
    """k if the positive finite x is exactly 2**k, else None."""
    mantissa, e = math.frexp(x)
    return e - 1 if mantissa == 0.5 else None


# ---------------------------------------------------------------------------
# Certified rounding of an approximation
# ---------------------------------------------------------------------------


def _magnitude(v: mpmath.mpf) -> int:
    """t with 2**(t-1) <= |v| < 2**t for a non-zero finite mpf."""
    mantissa, exponent = v.man_exp
    return int(exponent) + builtins.abs(int(mantissa)).bit_length()


def _round_certified(v: mpmath.mpf, trusted: int) -> float | None:
    """The binary32 rounding of every value within 2**-trusted of v (relative),
    or None when they do not all round alike."""
    if not _mp.isfinite(v) or v == 0:
        return None
    negative = v < 0
    t = _magnitude(v)
    if t <= -152:  # |exact| < 2**-152 * (1 + 2**-trusted) < 2**-150: rounds to zero
        return -0.0 if negative else 0.0
    if t >= 131:  # |exact| > 2**130 * (1 - 2**-trusted) > 2**128: overflows
        return -_INF if negative else _INF
    delta = _mp.ldexp(_mp.fabs(v), -trusted)
    lo = round_to_binary32(_mp.fsub(v, delta, exact=True))
    hi = round_to_binary32(_mp.fadd(v, delta, exact=True))
    return lo if to_bits(lo) == to_bits(hi) else None


def _certify(operation: str, operands: tuple[float, ...], evaluate: Callable) -> Result:
    """Evaluate at rising precision until the rounding is certain (inexact result)."""
    precision = BASE_PRECISION
    while precision <= MAX_PRECISION:
        value = evaluate(precision)
        rounded = _round_certified(value, precision - SLACK)
        if rounded is not None:
            return rounded, False
        precision *= 2
    raise CertificationError(
        f"{operation}{operands!r}: not separated from a binary32 rounding boundary "
        f"at {MAX_PRECISION} bits"
    )


def _at(function: Callable, x: float) -> Callable:
    """An evaluator of function(mpf(x)) at a given precision."""

    def evaluate(precision: int) -> mpmath.mpf:
        with _mp.workprec(precision):
            return function(_mp.mpf(x))

    return evaluate


# ---------------------------------------------------------------------------
# The functions
# ---------------------------------------------------------------------------


def exp(x: float) -> Result:
    x = _operand("exp", 0, x)
    if math.isnan(x):
        return _NAN, True
    if math.isinf(x):
        return (_INF if x > 0 else 0.0), True
    if x == 0:
        return 1.0, True
    return _certify("exp", (x,), _at(_mp.exp, x))


def exp2(x: float) -> Result:
    x = _operand("exp2", 0, x)
    if math.isnan(x):
        return _NAN, True
    if math.isinf(x):
        return (_INF if x > 0 else 0.0), True
    if x == math.floor(x):  # 2**n is rational
        if x > 200:
            return _INF, False
        if x < -200:
            return 0.0, False
        return _exact(Fraction(2) ** int(x))
    return _certify("exp2", (x,), _at(lambda v: _mp.power(2, v), x))


def _log_specials(x: float) -> Result | None:
    if math.isnan(x) or x < 0:
        return _NAN, True
    if x == 0:
        return -_INF, True
    if math.isinf(x):
        return _INF, True
    return None


def log(x: float) -> Result:
    x = _operand("log", 0, x)
    special = _log_specials(x)
    if special is not None:
        return special
    if x == 1:
        return 0.0, True
    return _certify("log", (x,), _at(_mp.log, x))


def log2(x: float) -> Result:
    x = _operand("log2", 0, x)
    special = _log_specials(x)
    if special is not None:
        return special
    k = _power_of_two(x)
    if k is not None:
        return float(k), True  # |k| <= 149 is a binary32 integer
    return _certify("log2", (x,), _at(lambda v: _mp.log(v, 2), x))


def sin(x: float) -> Result:
    x = _operand("sin", 0, x)
    if not math.isfinite(x):
        return _NAN, True
    if x == 0:
        return x, True
    return _certify("sin", (x,), _at(_mp.sin, x))


def cos(x: float) -> Result:
    x = _operand("cos", 0, x)
    if not math.isfinite(x):
        return _NAN, True
    if x == 0:
        return 1.0, True
    return _certify("cos", (x,), _at(_mp.cos, x))


def _odd_function(name: str, function: Callable) -> Callable[[float], Result]:
    """tanh and erf: f(+-0) = +-0, f(+-inf) = +-1."""

    def rule(x: float) -> Result:
        x = _operand(name, 0, x)
        if math.isnan(x):
            return _NAN, True
        if math.isinf(x):
            return math.copysign(1.0, x), True
        if x == 0:
            return x, True
        return _certify(name, (x,), _at(function, x))

    rule.__name__ = rule.__qualname__ = name
    return rule


tanh = _odd_function("tanh", lambda v: _mp.tanh(v))
erf = _odd_function("erf", lambda v: _mp.erf(v))


def rsqrt(x: float) -> Result:
    x = _operand("rsqrt", 0, x)
    if math.isnan(x) or x < 0:
        return _NAN, True
    if x == 0:
        return math.copysign(_INF, x), True
    if math.isinf(x):
        return 0.0, True
    k = _power_of_two(x)
    if k is not None and k % 2 == 0:
        return math.ldexp(1.0, -k // 2), True
    return _certify("rsqrt", (x,), _at(lambda v: 1 / _mp.sqrt(v), x))


def _sigmoid_formula(v: mpmath.mpf) -> mpmath.mpf:
    if v > 0:
        return 1 / (1 + _mp.exp(-v))
    e = _mp.exp(v)
    return e / (1 + e)


def sigmoid(x: float) -> Result:
    x = _operand("sigmoid", 0, x)
    if math.isnan(x):
        return _NAN, True
    if math.isinf(x):
        return (1.0 if x > 0 else 0.0), True
    if x == 0:
        return 0.5, True
    return _certify("sigmoid", (x,), _at(_sigmoid_formula, x))


def silu(x: float) -> Result:
    x = _operand("silu", 0, x)
    if math.isnan(x):
        return _NAN, True
    if math.isinf(x):
        return (_INF if x > 0 else -0.0), True
    if x == 0:
        return x, True
    return _certify("silu", (x,), _at(lambda v: v / (1 + _mp.exp(-v)), x))


def softplus(x: float) -> Result:
    x = _operand("softplus", 0, x)
    if math.isnan(x):
        return _NAN, True
    if math.isinf(x):
        return (_INF if x > 0 else 0.0), True
    return _certify("softplus", (x,), _at(lambda v: _mp.log1p(_mp.exp(v)), x))


def _gelu_evaluator(x: float) -> Callable:
    # The relative error of w = |x|/sqrt(2) is amplified by erfc about 2 w**2 + 2
    # times: raise the precision by twice the magnitude of x (plus guard bits).
    extra = 2 * max(0, math.frexp(x)[1]) + 8

    def evaluate(precision: int) -> mpmath.mpf:
        with _mp.workprec(precision + extra):
            v = _mp.mpf(x)
            if x < 0:
                result = v / 2 * _mp.erfc(-v / _mp.sqrt(2))
            else:
                result = v - v / 2 * _mp.erfc(v / _mp.sqrt(2))
        return result

    return evaluate


def gelu(x: float) -> Result:
    x = _operand("gelu", 0, x)
    if math.isnan(x):
        return _NAN, True
    if math.isinf(x):
        return (_INF if x > 0 else -0.0), True
    if x == 0:
        return x, True
    return _certify("gelu", (x,), _gelu_evaluator(x))


def elu(x: float) -> Result:
    x = _operand("elu", 0, x)
    if math.isnan(x):
        return _NAN, True
    if x > 0 or x == 0:  # x itself, +inf and the signed zeros included
        return x, True
    if math.isinf(x):
        return -1.0, True
    return _certify("elu", (x,), _at(_mp.expm1, x))


# ---------------------------------------------------------------------------
# pow
# ---------------------------------------------------------------------------


def _integral(y: float) -> bool:
    return math.isfinite(y) and y == math.floor(y)


def _odd(y: float) -> bool:
    return _integral(y) and Fraction(y).numerator % 2 == 1


def _pow_special(x: float, y: float) -> Result | None:
    """C99 F.9.4.4, written as a decision list independent of .rounded."""
    if y == 0 or x == 1:
        return 1.0, True
    if math.isnan(x) or math.isnan(y):
        return _NAN, True
    ax = builtins.abs(x)
    if y == _INF:
        return (1.0 if ax == 1 else (_INF if ax > 1 else 0.0)), True
    if y == -_INF:
        return (1.0 if ax == 1 else (0.0 if ax > 1 else _INF)), True
    if x == _INF:
        return (_INF if y > 0 else 0.0), True
    if x == -_INF:
        magnitude = _INF if y > 0 else 0.0
        return (-magnitude if _odd(y) else magnitude), True
    if x == 0:
        magnitude = _INF if y < 0 else 0.0
        negative = _odd(y) and math.copysign(1.0, x) < 0
        return (-magnitude if negative else magnitude), True
    if x < 0 and not _integral(y):
        return _NAN, True
    return None


def _rational_power(ax: float, y: float) -> tuple[int, int, int] | None:
    """(s, t, n) with ax**y == (s * 2**t)**n, s odd, if ax**y is rational, else None.

    With ax = m * 2**k (m odd) and y = n / 2**j (n odd or j = 0), ax**y is
    rational iff ax has a rational 2**j-th root, i.e. iff j square roots of m
    are exact and 2**j divides k.
    """
    m, d = ax.as_integer_ratio()
    k = -(d.bit_length() - 1)
    while m % 2 == 0:
        m //= 2
        k += 1
    n, dy = y.as_integer_ratio()
    for _ in range(dy.bit_length() - 1):
        root = math.isqrt(m)
        if root * root != m or k % 2:
            return None
        m, k = root, k // 2
    return m, k, n


def pow(x: float, y: float) -> Result:
    """x**y: C99 special cases; exact rational powers computed exactly; the rest
    evaluated with mpmath after an over/underflow pre-check (y * log2|x|)."""
    x = _operand("pow", 0, x)
    y = _operand("pow", 1, y)
    special = _pow_special(x, y)
    if special is not None:
        return special
    negative = x < 0 and _odd(y)
    ax = builtins.abs(x)
    sign = -1 if negative else 1
    rational = _rational_power(ax, y)
    if rational is not None:
        s, t, n = rational
        if s == 1:  # a power of two
            e = t * n
            if e > 200:
                return math.copysign(_INF, sign), False
            if e < -200:
                return math.copysign(0.0, sign), False
            return _exact(sign * Fraction(2) ** e)
        if n > 0 and s.bit_length() * n <= 512:
            return _exact(sign * Fraction(s) ** n * Fraction(2) ** (t * n))
        # otherwise: not dyadic (n < 0) or more than 256 odd bits: neither a
        # binary32 value nor a rounding boundary, so approximation is safe.
    with _mp.workprec(64):
        scale = _mp.mpf(y) * _mp.log(_mp.mpf(ax), 2)  # log2 of the magnitude
    if scale > 131:
        return math.copysign(_INF, sign), False
    if scale < -153:
        return math.copysign(0.0, sign), False

    def evaluate(precision: int) -> mpmath.mpf:
        with _mp.workprec(precision):
            return sign * _mp.power(_mp.mpf(ax), _mp.mpf(y))

    return _certify("pow", (x, y), evaluate)


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
BINARY: dict[str, Callable[[float, float], Result]] = {"pow": pow}
FUNCTIONS: dict[str, Callable[..., Result]] = {**UNARY, **BINARY}
