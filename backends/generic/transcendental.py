"""Correctly rounded functions: exp, exp2, log, log2, sin, cos, tanh, erf, rsqrt,
sigmoid, silu, softplus, gelu, elu and floating pow.

Special values (NaN, ±inf, ±0) come from a table, one row per function.  Every
other input is evaluated exactly-then-rounded by :func:`correctly_rounded`: the
function's formula is evaluated in mpmath at 64, 128, 256, ... bits, and the
result is accepted as soon as the whole interval ``value * (1 ± 2**-(p - 20))``
rounds to one binary32 value, i.e. once the value is farther from every
rounding boundary than a generous error bound.  The bound is an assumption
about mpmath, not a proof: each formula below is a few mpmath operations, each
accurate to a few units in the p-th bit, and the formulas are arranged so that
no step amplifies an error by more than about 2**10 in the range where the
result is not 0 or inf; 20 untrusted bits leave room to spare.  The tests
compare against MPFR, which is certified.

A value that *is* a rounding boundary never converges that way, so exact
points are computed exactly first: exp2 at integers, and pow whenever the
power is a dyadic rational with a short odd part (the only powers that can be
binary32 numbers or midpoints between them).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import mpmath

from .binary32 import INF, NAN, is_nan, mpf_parts, round_dyadic, round_ratio, sign_bit
from .elementwise import elementwise_kernel, int_pow

__all__ = ["KERNELS", "correctly_rounded", "power"]

LADDER = (64, 128, 256, 512, 1024, 2048, 4096)  #: working precisions, in bits
UNTRUSTED_BITS = 20  #: low bits of a p-bit evaluation not relied on


def _round_if_certain(value: Any, trusted_bits: int) -> float | None:
    """round(value) when every value within a relative 2**-trusted_bits rounds alike."""
    man, exp = mpf_parts(value)
    slack = abs(man)  # |value| * 2**-trusted_bits, in units of 2**(exp - trusted_bits)
    low = round_dyadic((man << trusted_bits) - slack, exp - trusted_bits)
    high = round_dyadic((man << trusted_bits) + slack, exp - trusted_bits)
    return low if low == high else None


def correctly_rounded(formula: Callable[..., Any], *args: float) -> float:
    """The binary32 rounding of ``formula(*args)`` evaluated exactly (see the module doc)."""
    for precision in LADDER:
        with mpmath.workprec(precision):
            value = formula(*(mpmath.mpf(a) for a in args))
        result = _round_if_certain(value, precision - UNTRUSTED_BITS)
        if result is not None:
            return result
    raise ArithmeticError(f"no certain binary32 rounding of {formula} at {args}")


# -- formulas (mpmath, at the working precision) ------------------------------------


def _power(x: Any, y: Any) -> Any:
    """x**y for x > 0 as exp(y * log x), with extra bits for a large |y * log x|."""
    with mpmath.extraprec(max(0, int(mpmath.mag(y))) + 10):
        return mpmath.exp(y * mpmath.log(x))


def _sigmoid(x: Any) -> Any:
    return 1 / (1 + mpmath.exp(-x))


def _silu(x: Any) -> Any:
    return x / (1 + mpmath.exp(-x))


def _softplus(x: Any) -> Any:
    return mpmath.log1p(mpmath.exp(x))


def _gelu(x: Any) -> Any:
    """x/2 * (1 + erf(x/sqrt 2)), written with erfc so negative x does not cancel.

    The rounding of x/sqrt 2 is amplified by about x**2 in erfc: at most 2**9
    while gelu(x) is above the underflow threshold (x > -15); below it every
    nearby argument leaves the value far under 2**-150.
    """
    return x / 2 * mpmath.erfc(-x / mpmath.sqrt(2))


def _elu(x: Any) -> Any:
    return x if x > 0 else mpmath.expm1(x)


def _odd(zero: float) -> float:
    return zero  # f(±0) = ±0


def _pole(zero: float) -> float:
    return math.copysign(INF, zero)  # f(±0) = ±inf


# name: (formula, f(+inf), f(-inf), f(±0) from the zero (None: the formula), NaN for x < 0)
_FUNCTIONS: dict[str, tuple[Callable, float, float, Callable[[float], float] | None, bool]] = {
    "exp": (mpmath.exp, INF, 0.0, lambda z: 1.0, False),
    "log": (mpmath.log, INF, NAN, lambda z: -INF, True),
    "log2": (lambda x: mpmath.log(x, 2), INF, NAN, lambda z: -INF, True),
    "sin": (mpmath.sin, NAN, NAN, _odd, False),
    "cos": (mpmath.cos, NAN, NAN, lambda z: 1.0, False),
    "tanh": (mpmath.tanh, 1.0, -1.0, _odd, False),
    "erf": (mpmath.erf, 1.0, -1.0, _odd, False),
    "rsqrt": (lambda x: 1 / mpmath.sqrt(x), 0.0, NAN, _pole, True),
    "sigmoid": (_sigmoid, 1.0, 0.0, lambda z: 0.5, False),
    "silu": (_silu, INF, -0.0, _odd, False),
    "softplus": (_softplus, INF, 0.0, None, False),
    "gelu": (_gelu, INF, -0.0, _odd, False),
    "elu": (_elu, INF, -1.0, _odd, False),
}


def _unary(name: str) -> Callable[[float], float]:
    formula, at_pos_inf, at_neg_inf, at_zero, negative_is_nan = _FUNCTIONS[name]

    def rule(x: float) -> float:
        if is_nan(x):
            return x
        if x == INF:
            return at_pos_inf
        if x == -INF:
            return at_neg_inf
        if x == 0 and at_zero is not None:
            return at_zero(x)
        if negative_is_nan and x < 0:
            return NAN
        return correctly_rounded(formula, x)

    rule.__name__ = name
    return rule


# -- exp2 and pow: exact points first ---------------------------------------------------


def exp2(x: float) -> float:
    """2**x: exact (hence correctly rounded, 2**-150 ties to +0) at integers."""
    if is_nan(x):
        return x
    if math.isinf(x):
        return INF if x > 0 else 0.0
    if x == math.floor(x):
        return round_dyadic(1, int(x))
    return correctly_rounded(_power, 2.0, x)


def _dyadic(v: float) -> tuple[int, int]:
    """``(odd, exponent)`` with ``v == odd * 2**exponent`` for a finite non-zero float."""
    numerator, denominator = v.as_integer_ratio()
    zeros = (numerator & -numerator).bit_length() - 1
    return numerator >> zeros, zeros - (denominator.bit_length() - 1)


def _is_odd_integer(y: float) -> bool:
    return math.isfinite(y) and y == math.floor(y) and int(y) % 2 == 1


def _exact_power(x: float, y: float) -> float | None:
    """round(x**y) for x > 0 when x**y is a dyadic rational with a short odd part, else None.

    With x = m * 2**e and y = n * 2**k (m, n odd), take -k exact square roots of
    x when k < 0 (None if one is inexact), leaving base b = r * 2**f and an
    integer exponent N.  For r = 1 the power is 2**(f*N); for |N| <= 64 it is a
    small rational.  Otherwise (r >= 3, |N| > 64) x**y is irrational, not
    dyadic (N < 0) or has an odd part r**N > 2**25: neither a binary32 value nor
    a midpoint, so the precision ladder decides it.
    """
    r, f = _dyadic(x)
    n, k = _dyadic(y)
    while k < 0:
        root = math.isqrt(r)
        if root * root != r or f % 2:
            return None
        r, f, k = root, f // 2, k + 1
    exponent = n << k
    if r == 1:
        return round_dyadic(1, f * exponent)
    if abs(exponent) > 64:
        return None
    if exponent > 0:
        return round_dyadic(r**exponent, f * exponent)
    scale = f * exponent  # x**y = 2**scale / r**-exponent
    denominator = r**-exponent
    if scale >= 0:
        return round_ratio(1 << scale, denominator)
    return round_ratio(1, denominator << -scale)


def _pow_special(x: float, y: float) -> float | None:
    """C99 Annex F pow special cases (F.9.4.4), or None for an ordinary finite case."""
    if y == 0 or x == 1:
        return 1.0
    if is_nan(x) or is_nan(y):
        return NAN
    if x == 0:
        if y < 0:
            return math.copysign(INF, x) if _is_odd_integer(y) else INF
        return x if _is_odd_integer(y) else 0.0
    if math.isinf(y):
        if x == -1:
            return 1.0
        return INF if (abs(x) > 1) == (y > 0) else 0.0
    if math.isinf(x):
        magnitude = INF if y > 0 else 0.0
        return -magnitude if x < 0 and _is_odd_integer(y) else magnitude
    if x < 0 and y != math.floor(y):
        return NAN
    return None


def power(x: float, y: float) -> float:
    """Floating pow: C99/IEEE special cases, otherwise |x|**y correctly rounded."""
    special = _pow_special(x, y)
    if special is not None:
        return special
    magnitude = _exact_power(abs(x), y)
    if magnitude is None:
        magnitude = correctly_rounded(_power, abs(x), y)
    return -magnitude if sign_bit(x) and _is_odd_integer(y) else magnitude


KERNELS: dict[str, Callable[..., Any]] = {
    **{name: elementwise_kernel(name, _unary(name)) for name in _FUNCTIONS},
    "exp2": elementwise_kernel("exp2", exp2),
    "pow": elementwise_kernel("pow", power, int_pow),
}
