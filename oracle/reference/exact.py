"""Exact reference semantics of the binary32 elementwise operations.

Every function here is a *scalar* rule: it takes Python floats that hold
exact binary32 values (any NaN, +-0, +-inf, subnormals) and returns a Python
float holding an exact binary32 value, or a bool for the predicates.
Broadcasting, the materialisation of operands per plan and Int32 narrowing
belong to the driver that calls these functions.

How results are computed:

* every finite result of an arithmetic operation is computed *exactly*
  (integer or :class:`fractions.Fraction` arithmetic on the operands' exact
  values) and rounded once with :func:`oracle.binary32.round_fraction`: to
  nearest, ties to even, gradual underflow, overflow to +-inf.  No Python
  float arithmetic (binary64, which could round twice) produces a result;
  float *comparisons* are used, and they are exact;
* the IEEE 754-2019 special cases (NaN operands, infinities, zeros and the
  sign of an exact zero) are decided explicitly before any arithmetic;
* a result that must be NaN is the quiet NaN ``float('nan')``: its payload
  and sign are unspecified by the reference semantics.  The bit-copy
  operations :func:`neg`, :func:`abs` and :func:`select` are the exception:
  they work on the bit pattern and keep a NaN's payload.

Operands are validated: a non-float is a :class:`TypeError` and a float that
is not exactly a binary32 value a :class:`ValueError`, each naming the
operation and the operand position.  numpy float16/float32/float64 scalars
are accepted and treated as the float they hold.

The project's semantics document, ``docs/semantics/elementwise.md``, states
each rule with executable examples and records the decisions taken where the
reference semantics are silent.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from oracle.binary32 import (
    absolute,
    from_bits,
    from_bits_exact,
    is_binary32,
    negate,
    round_fraction,
)
from oracle.errors import describe

__all__ = [
    "LEAKY_RELU_SLOPE",
    "abs",
    "add",
    "binary32_operand",
    "ceil",
    "clamp",
    "div",
    "elementwise_mul",
    "eq",
    "floor",
    "le",
    "leaky_relu",
    "logical_not",
    "lt",
    "maximum",
    "minimum",
    "mul",
    "ne",
    "neg",
    "recip",
    "relu",
    "rem",
    "round",
    "select",
    "sign",
    "sqrt",
    "sub",
]

LEAKY_RELU_SLOPE: float = from_bits(0x3C23D70A)
"""The fixed leaky_relu slope 0.01f: the binary32 value nearest to 0.01,
bits 0x3C23D70A, exactly 0.00999999977648258209228515625."""

_SLOPE_EXACT = Fraction(*LEAKY_RELU_SLOPE.as_integer_ratio())
_INF = math.inf
# Every binary32 value of magnitude >= 2**23 is an integer.
_INTEGRAL_FROM = 1 << 23


def _nan() -> float:
    """A fresh quiet NaN: the result of an operation whose NaN is unspecified."""
    return math.nan


# ---------------------------------------------------------------------------
# Operand validation and exact decomposition
# ---------------------------------------------------------------------------


def binary32_operand(operation: str, position: int, x: object) -> float:
    """Return *x* as a float holding a binary32 value, or raise.

    TypeError for anything but a float (or a numpy float16/32/64 scalar);
    ValueError for a float that is not exactly a binary32 value.
    """
    if isinstance(x, float):
        value = x
    elif isinstance(x, np.float32):
        value = from_bits_exact(int(x.view(np.uint32)))  # keeps a signalling NaN
    elif isinstance(x, np.floating) and x.dtype.itemsize <= 8:
        value = float(x)  # exact: float16/32/64 -> binary64
    else:
        raise TypeError(
            f"{operation}: operand {position} must be a float holding a binary32 value; "
            f"got {describe(x)}"
        )
    if not is_binary32(value):
        raise ValueError(
            f"{operation}: operand {position} = {float.__repr__(value)} is not exactly a "
            f"binary32 value; the driver must materialise operands as Float32 first"
        )
    return value


def _signbit(x: float) -> bool:
    """The sign bit of a non-NaN float (True for -0.0 and negative values)."""
    return math.copysign(1.0, x) < 0


def _exact(x: float) -> Fraction:
    """The exact rational value of a finite float."""
    n, d = x.as_integer_ratio()
    return Fraction(n, d)


def _round(q: Fraction, negative_zero: bool = False) -> float:
    """Round the exact rational *q* once to binary32 (the only rounding step)."""
    return round_fraction(q, negative_zero=negative_zero)


# ---------------------------------------------------------------------------
# Correctly rounded arithmetic
# ---------------------------------------------------------------------------


def _add(x: float, y: float, subtract: bool) -> float:
    """x + y, or x - y when *subtract*, for validated operands.

    Subtraction is the addition of the negated y: y's sign (of an infinity,
    a zero or its exact value) is flipped logically, never by arithmetic.
    """
    if math.isnan(x) or math.isnan(y):
        return _nan()
    y_negative = _signbit(y) != subtract
    if math.isinf(y):
        if math.isinf(x) and _signbit(x) != y_negative:
            return _nan()  # inf + -inf: invalid
        return -_INF if y_negative else _INF
    if math.isinf(x):
        return x
    # Exact sum on integers: both denominators are powers of two.
    xn, xd = x.as_integer_ratio()
    yn, yd = y.as_integer_ratio()
    if subtract:
        yn = -yn
    denominator = builtins.max(xd, yd)
    total = Fraction(xn * (denominator // xd) + yn * (denominator // yd), denominator)
    # An exact zero sum is +0 in round-to-nearest, except (-0) + (-0) = -0.
    # A nonzero sum of binary32 values is a multiple of 2**-149, so it never
    # underflows to zero: this is the only way to get a zero result.
    negative_zero = x == 0.0 and y == 0.0 and _signbit(x) and y_negative
    return _round(total, negative_zero)


def add(x: float, y: float) -> float:
    """IEEE binary32 addition, correctly rounded (ties to even).

    NaN if either operand is NaN or for ``inf + -inf``; an infinity plus
    anything finite is that infinity.  An exact zero sum is +0
    (``x + -x == +0``, ``-0 + +0 == +0``) except ``-0 + -0 == -0``.  A
    finite sum beyond the binary32 range overflows to +-inf.
    """
    return _add(binary32_operand("add", 0, x), binary32_operand("add", 1, y), False)


def sub(x: float, y: float) -> float:
    """IEEE binary32 subtraction: ``x - y`` is ``x + (-y)``, correctly rounded.

    NaN if either operand is NaN or for ``inf - inf``.  An exact zero
    difference is +0 (``x - x == +0``, ``-0 - -0 == +0``) except
    ``-0 - +0 == -0``.
    """
    return _add(binary32_operand("sub", 0, x), binary32_operand("sub", 1, y), True)


def mul(x: float, y: float) -> float:
    """IEEE binary32 multiplication, correctly rounded.

    The sign of a non-NaN result is the XOR of the operands' signs, zeros
    included (``-0 * 5 == -0``, ``-0 * -0 == +0``).  NaN if either operand is
    NaN or for ``0 * inf``; ``inf * finite nonzero`` is a signed infinity.
    A tiny product that underflows keeps its sign (``-2**-100 * 2**-100 ==
    -0``); a huge one overflows to +-inf.
    """
    x = binary32_operand("mul", 0, x)
    y = binary32_operand("mul", 1, y)
    if math.isnan(x) or math.isnan(y):
        return _nan()
    negative = _signbit(x) != _signbit(y)
    if math.isinf(x) or math.isinf(y):
        if x == 0.0 or y == 0.0:
            return _nan()  # 0 * inf: invalid
        return -_INF if negative else _INF
    xn, xd = x.as_integer_ratio()
    yn, yd = y.as_integer_ratio()
    return _round(Fraction(xn * yn, xd * yd), negative)


#: elementwise_mul is mul under another name (the registry lists both).
elementwise_mul = mul


def div(x: float, y: float) -> float:
    """IEEE binary32 division, correctly rounded.

    The sign of a non-NaN result is the XOR of the operands' signs.  NaN if
    either operand is NaN, for ``0 / 0`` and for ``inf / inf``.  A finite
    nonzero ``x / +-0`` is a signed infinity (divide-by-zero, never raised);
    ``inf / finite`` is a signed infinity, ``finite / inf`` and ``0 / y`` a
    signed zero.  Underflow keeps the sign; overflow gives +-inf.
    """
    x = binary32_operand("div", 0, x)
    y = binary32_operand("div", 1, y)
    return _div(x, y)


def _div(x: float, y: float) -> float:
    if math.isnan(x) or math.isnan(y):
        return _nan()
    negative = _signbit(x) != _signbit(y)
    signed_inf = -_INF if negative else _INF
    signed_zero = -0.0 if negative else 0.0
    if math.isinf(x):
        return _nan() if math.isinf(y) else signed_inf
    if math.isinf(y):
        return signed_zero
    if y == 0.0:
        return _nan() if x == 0.0 else signed_inf
    if x == 0.0:
        return signed_zero
    xn, xd = x.as_integer_ratio()
    yn, yd = y.as_integer_ratio()
    return _round(Fraction(xn * yd, xd * yn), negative)


def recip(x: float) -> float:
    """The reciprocal ``1 / x``, correctly rounded (one rounding of 1/x).

    ``recip(+-0) == +-inf``, ``recip(+-inf) == +-0``, NaN gives NaN.  The
    reciprocal of a value below 2**-128 overflows to +-inf (for example
    ``recip(2**-149) == inf``) and that of a value above 2**126 is
    subnormal.
    """
    return _div(1.0, binary32_operand("recip", 0, x))


def rem(x: float, y: float) -> float:
    """The C ``fmod`` remainder ``x - trunc(x / y) * y``, computed exactly.

    The result is always exactly representable (so no rounding happens) and
    has the sign of the dividend *x*, zeros included (``rem(-6, 3) == -0``,
    ``rem(-0, 5) == -0``).  NaN if either operand is NaN, if ``x`` is
    infinite, or if ``y`` is zero; ``rem(x, +-inf) == x`` for finite ``x``.
    The divisor's sign never matters: ``rem(x, -y) == rem(x, y)``.
    """
    x = binary32_operand("rem", 0, x)
    y = binary32_operand("rem", 1, y)
    if math.isnan(x) or math.isnan(y) or math.isinf(x) or y == 0.0:
        return _nan()
    if math.isinf(y) or x == 0.0:
        return x
    dividend = builtins.abs(_exact(x))
    divisor = builtins.abs(_exact(y))
    remainder = dividend - (dividend // divisor) * divisor  # in [0, divisor)
    negative = _signbit(x)
    result = _round(-remainder if negative else remainder, negative)
    # fmod is exact: the remainder is an integer multiple of the smaller
    # operand's quantum and smaller than both operands.
    assert _exact(result) == (-remainder if negative else remainder)
    return result


def sqrt(x: float) -> float:
    """IEEE square root, correctly rounded.

    ``sqrt(+-0) == +-0`` (``sqrt(-0) == -0``), ``sqrt(+inf) == +inf``, NaN
    for NaN and for every negative value including ``-inf``.  A finite
    positive operand is written as ``m * 2**(2k)``; the integer square root
    of ``m`` scaled by an even power of two to at least 27 bits gives the
    truncated root ``r``, and the remainder decides exactness.  When the root
    is inexact it lies strictly inside ``(r, r + 1)``, an interval that
    contains no binary32 value and no rounding midpoint at that scale, so
    rounding ``r + 1/2`` (the sticky bit) once rounds the true root.
    """
    x = binary32_operand("sqrt", 0, x)
    if math.isnan(x):
        return _nan()
    if x == 0.0:
        return x  # keeps the sign of zero
    if x < 0.0:
        return _nan()
    if math.isinf(x):
        return x
    numerator, denominator = x.as_integer_ratio()  # denominator == 2**k
    significand = numerator
    exponent = -(denominator.bit_length() - 1)  # x == significand * 2**exponent
    if exponent & 1:
        significand <<= 1
        exponent -= 1
    # Scale by 4**shift so the root has at least 27 bits: three more than
    # binary32's 24, enough that every rounding midpoint of the root is an
    # integer at this scale.
    shift = max(0, (54 - significand.bit_length() + 1) // 2)
    scaled = significand << (2 * shift)
    root = math.isqrt(scaled)
    half_units = 2 * root + (root * root != scaled)  # 2 * (root + sticky / 2)
    half_exponent = exponent // 2 - shift - 1  # sqrt(x) ~= half_units * 2**half_exponent
    if half_exponent >= 0:
        value = Fraction(half_units << half_exponent)
    else:
        value = Fraction(half_units, 1 << -half_exponent)
    return _round(value)


# ---------------------------------------------------------------------------
# Bit-copy operations
# ---------------------------------------------------------------------------


def neg(x: float) -> float:
    """Negation: flips the sign bit and nothing else (a bit-copy operation).

    ``neg(+0) == -0``, ``neg(-inf) == +inf``; a NaN keeps its payload and
    has its sign bit flipped, and a signalling NaN stays signalling.
    """
    return negate(binary32_operand("neg", 0, x))


def abs(x: float) -> float:
    """Absolute value: clears the sign bit and nothing else (a bit copy).

    ``abs(-0) == +0``, ``abs(-inf) == +inf``; a NaN keeps its payload and
    its sign bit is cleared, and a signalling NaN stays signalling.
    """
    return absolute(binary32_operand("abs", 0, x))


def select(cond: bool, on_true: float, on_false: float) -> float:
    """``on_true`` if *cond* else ``on_false``, returned unchanged (bit copy).

    The chosen operand is returned as the very object passed in, so NaN
    payloads and signed zeros are kept; the other operand is never read
    (not even validated).  *cond* must be a bool (or numpy bool); anything
    else is a TypeError, so that a truthy number is never mistaken for a
    condition.
    """
    if not isinstance(cond, (bool, np.bool_)):
        raise TypeError(f"select: operand 0 must be a bool; got {describe(cond)}")
    if cond:
        return binary32_operand("select", 1, on_true)
    return binary32_operand("select", 2, on_false)


# ---------------------------------------------------------------------------
# Sign and integral rounding
# ---------------------------------------------------------------------------


def sign(x: float) -> float:
    """The sign function: +1.0 for x > 0, -1.0 for x < 0 (infinities too).

    Both zeros give +0 (``sign(-0) == +0``); NaN gives NaN.
    """
    x = binary32_operand("sign", 0, x)
    if math.isnan(x):
        return _nan()
    if x == 0.0:
        return 0.0
    return 1.0 if x > 0.0 else -1.0


def _to_integral(operation: str, x: float, rule: Callable[[Fraction], int]) -> float:
    """Round *x* to an integer with *rule* (an exact Fraction -> int map).

    NaN gives NaN; infinities, zeros and values of magnitude >= 2**23 (which
    are integers already) are returned unchanged.  A zero result takes the
    sign of *x* (the sign of a value never changes by rounding it to an
    integer).
    """
    x = binary32_operand(operation, 0, x)
    if math.isnan(x):
        return _nan()
    if math.isinf(x) or x == 0.0 or builtins.abs(x) >= _INTEGRAL_FROM:
        return x
    # |result| <= 2**23: exactly representable, the rounding below is exact.
    return _round(Fraction(rule(_exact(x))), _signbit(x))


def floor(x: float) -> float:
    """The largest integer not greater than *x* (IEEE roundToIntegralTowardNegative).

    Zeros and infinities are returned unchanged; ``floor(0.5) == +0``,
    ``floor(-0.5) == -1``; NaN gives NaN.
    """
    return _to_integral("floor", x, math.floor)


def ceil(x: float) -> float:
    """The smallest integer not less than *x* (IEEE roundToIntegralTowardPositive).

    Signed zero is kept: ``ceil(-0.5) == -0``, ``ceil(-0) == -0``,
    ``ceil(0.5) == 1``; NaN gives NaN.
    """
    return _to_integral("ceil", x, math.ceil)


def round(x: float) -> float:
    """The nearest integer, halfway cases to even (IEEE roundToIntegralTiesToEven).

    ``round(2.5) == 2``, ``round(3.5) == 4``, ``round(-0.5) == -0``,
    ``round(-0.4) == -0``, ``round(0.5) == +0``; zeros and infinities are
    returned unchanged; NaN gives NaN.
    """
    # builtins.round of a Fraction is exact and rounds halves to even.
    return _to_integral("round", x, builtins.round)


# ---------------------------------------------------------------------------
# Ordered selections: maximum, minimum, clamp, relu, leaky_relu
# ---------------------------------------------------------------------------


def _maximum(x: float, y: float) -> float:
    if math.isnan(x) or math.isnan(y):
        return _nan()
    if x == y:
        # Equal nonzero values are identical; of two zeros +0 is larger.
        return y if _signbit(x) else x
    return x if x > y else y


def _minimum(x: float, y: float) -> float:
    if math.isnan(x) or math.isnan(y):
        return _nan()
    if x == y:
        # Equal nonzero values are identical; of two zeros -0 is smaller.
        return x if _signbit(x) else y
    return x if x < y else y


def maximum(x: float, y: float) -> float:
    """IEEE 754-2019 ``maximum``: the larger operand, NaN-propagating.

    NaN if either operand is NaN (not numpy's ``fmax``, which ignores NaN);
    ``-0 < +0``, so ``maximum(+0, -0) == maximum(-0, +0) == +0``.
    """
    return _maximum(binary32_operand("maximum", 0, x), binary32_operand("maximum", 1, y))


def minimum(x: float, y: float) -> float:
    """IEEE 754-2019 ``minimum``: the smaller operand, NaN-propagating.

    NaN if either operand is NaN; ``-0 < +0``, so
    ``minimum(+0, -0) == minimum(-0, +0) == -0``.
    """
    return _minimum(binary32_operand("minimum", 0, x), binary32_operand("minimum", 1, y))


def clamp(x: float, lo: float, hi: float) -> float:
    """``minimum(maximum(x, lo), hi)`` with the IEEE maximum/minimum rules.

    The bounds are not validated: ``lo > hi`` gives ``hi``.  NaN in any
    operand gives NaN.  Signed zeros follow from the rules:
    ``clamp(-0, +0, 1) == +0``, ``clamp(+0, -1, -0) == -0``.
    """
    x = binary32_operand("clamp", 0, x)
    lo = binary32_operand("clamp", 1, lo)
    hi = binary32_operand("clamp", 2, hi)
    return _minimum(_maximum(x, lo), hi)


def relu(x: float) -> float:
    """``maximum(x, +0)``: ``relu(-0) == +0``, ``relu(NaN)`` is NaN, negatives give +0."""
    return _maximum(binary32_operand("relu", 0, x), 0.0)


def leaky_relu(x: float) -> float:
    """``x`` if ``x >= 0`` else ``round(LEAKY_RELU_SLOPE * x)``.

    The slope is the binary32 0.01f (bits 0x3C23D70A), and the product is
    one correct rounding.  ``-0 >= 0`` holds, so ``leaky_relu(-0) == -0``;
    ``leaky_relu(-inf) == -inf``; a negative product that underflows is -0
    (``leaky_relu(-2**-149) == -0``); NaN gives NaN.
    """
    x = binary32_operand("leaky_relu", 0, x)
    if math.isnan(x):
        return _nan()
    if x >= 0.0:
        return x
    if math.isinf(x):
        return x
    return _round(_SLOPE_EXACT * _exact(x), True)


# ---------------------------------------------------------------------------
# Predicates
# ---------------------------------------------------------------------------


def eq(x: float, y: float) -> bool:
    """IEEE ``compareQuietEqual``: False when either is NaN; ``-0 == +0``."""
    return binary32_operand("eq", 0, x) == binary32_operand("eq", 1, y)


def ne(x: float, y: float) -> bool:
    """IEEE ``compareQuietNotEqual``, the negation of :func:`eq`.

    True when either is NaN (``ne(NaN, NaN)`` is True); ``ne(-0, +0)`` is
    False.
    """
    return binary32_operand("ne", 0, x) != binary32_operand("ne", 1, y)


def lt(x: float, y: float) -> bool:
    """IEEE ``compareQuietLess``: False when either is NaN; ``lt(-0, +0)`` is False."""
    return binary32_operand("lt", 0, x) < binary32_operand("lt", 1, y)


def le(x: float, y: float) -> bool:
    """IEEE ``compareQuietLessEqual``: False when either is NaN; ``le(+0, -0)`` is True."""
    return binary32_operand("le", 0, x) <= binary32_operand("le", 1, y)


def logical_not(x: float) -> bool:
    """``x == 0``: True for +0 and -0, False for NaN and every other value."""
    return binary32_operand("logical_not", 0, x) == 0.0
