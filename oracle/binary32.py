"""IEEE 754 binary32 arithmetic from first principles.

This module is the project's single source of truth for what a binary32
("float32") value *is*: how an exact real number is rounded to it, how its
bit pattern is laid out, how far apart two values are in units in the last
place, and which class a value belongs to.  It depends only on the standard
library, numpy and gmpy2 (mpmath is recognised as an input type when it is
installed), and on nothing else in the project.

Values are carried as Python floats.  Every binary32 value is exactly
representable in binary64, so a float *holding* a binary32 value loses
nothing; the functions that produce binary32 values guarantee that the float
they return is exactly such a value.

Rounding is always IEEE 754 round-to-nearest, ties-to-even, with gradual
underflow (subnormals; never flush-to-zero) and overflow to infinity.  The
rounding is done with exact integer arithmetic on a numerator/denominator
pair; no intermediate is ever rounded by a float conversion.

Format summary (binary32)::

    bit 31      sign
    bits 30-23  biased exponent E (bias 127); E = 0 for zeros and
                subnormals, E = 255 for infinities and NaNs
    bits 22-0   fraction field F; in a NaN, bit 22 set means quiet

    normal     (-1)**s * (2**23 + F) * 2**(E - 150)     1 <= E <= 254
    subnormal  (-1)**s * F * 2**-149                    E == 0

NaN handling: Python floats are binary64, so a binary32 quiet NaN is
represented by the binary64 NaN that the platform's float->double conversion
produces (the sign and the fraction bits are kept, shifted into the top of
the binary64 fraction).  On common hardware (x86-64 SSE, AArch64) that
conversion *quiets* a signalling NaN, so a plain float cannot carry a
binary32 signalling NaN.  :class:`SignallingNaN` -- a float subclass whose
value is that quiet NaN and which keeps the original pattern in ``.bits`` --
carries one: :func:`from_bits_exact` returns it for signalling patterns,
:func:`to_bits` returns its ``.bits``, and :func:`negate` / :func:`absolute`
(the IEEE sign-bit operations) keep it signalling.  :func:`from_bits` still
returns a plain (quiet) float for every pattern.
"""

from __future__ import annotations

import enum
import math
import numbers
import struct
from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

__all__ = [
    "BITS_DEFAULT_NAN",
    "BITS_NEGATIVE_INF",
    "BITS_POSITIVE_INF",
    "EMAX",
    "EMIN",
    "EPSILON",
    "MAX_FINITE",
    "MIN_NORMAL",
    "MIN_SUBNORMAL",
    "PRECISION",
    "SIGN_BIT",
    "FloatClass",
    "SignallingNaN",
    "absolute",
    "binary32_context",
    "bits_array",
    "classify",
    "classify_bits",
    "from_bits",
    "from_bits_exact",
    "from_ordinal",
    "is_binary32",
    "negate",
    "next_down",
    "next_up",
    "ordinal",
    "ordinal_array",
    "round_float64_array",
    "round_fraction",
    "round_mpfr",
    "round_to_binary32",
    "to_bits",
    "ulp",
    "ulp_distance",
    "ulp_distance_array",
]

# ---------------------------------------------------------------------------
# Format parameters and constants
# ---------------------------------------------------------------------------

PRECISION: int = 24
"""Significand precision in bits, including the implicit leading bit."""

EMIN: int = -126
"""Exponent of the smallest normal binade: MIN_NORMAL == 2**EMIN."""

EMAX: int = 127
"""Exponent of the largest finite binade: MAX_FINITE < 2**(EMAX + 1)."""

_BIAS = EMAX  # 127
_FRACTION_BITS = PRECISION - 1  # 23
_FRACTION_MASK = (1 << _FRACTION_BITS) - 1  # 0x007FFFFF
_EXPONENT_MASK = 0xFF << _FRACTION_BITS  # 0x7F800000
_QUIET_BIT = 1 << (_FRACTION_BITS - 1)  # 0x00400000
_MAGNITUDE_MASK = 0x7FFFFFFF
# Exponent of the quantum (the weight of the last significand bit) of
# subnormals and of the smallest normal binade: 2**-149.
_QUANTUM_MIN = EMIN - _FRACTION_BITS  # -149
# Exponent of the quantum of the largest binade: 2**104.
_QUANTUM_MAX = EMAX - _FRACTION_BITS  # 104

SIGN_BIT: int = 0x80000000
BITS_POSITIVE_INF: int = 0x7F800000
BITS_NEGATIVE_INF: int = SIGN_BIT | BITS_POSITIVE_INF  # 0xFF800000
BITS_DEFAULT_NAN: int = 0x7FC00000
"""The canonical positive quiet NaN (fraction field = quiet bit only)."""

MAX_FINITE: float = math.ldexp((1 << PRECISION) - 1, _QUANTUM_MAX)
"""(2 - 2**-23) * 2**127 = 3.4028234663852886e+38, bits 0x7F7FFFFF."""

MIN_NORMAL: float = math.ldexp(1.0, EMIN)
"""2**-126 = 1.1754943508222875e-38, bits 0x00800000."""

MIN_SUBNORMAL: float = math.ldexp(1.0, _QUANTUM_MIN)
"""2**-149 = 1.401298464324817e-45, bits 0x00000001."""

EPSILON: float = math.ldexp(1.0, -_FRACTION_BITS)
"""2**-23: the distance from 1.0 to the next larger binary32 value."""

_INF = math.inf
_NAN = math.nan

# ---------------------------------------------------------------------------
# Rounding exact values
# ---------------------------------------------------------------------------


def _floor_log2(n: int, d: int) -> int:
    """Return e with 2**e <= n/d < 2**(e+1), for positive integers n, d."""
    e = n.bit_length() - d.bit_length()
    # Now 2**(e-1) < n/d < 2**(e+1); one comparison settles which half.
    if e >= 0:
        if n < d << e:
            e -= 1
    elif n << -e < d:
        e -= 1
    return e


def _round_half_even(n: int, d: int) -> int:
    """Return the integer nearest to n/d (n >= 0, d > 0), ties to even."""
    q, r = divmod(n, d)
    twice_r = 2 * r
    if twice_r > d or (twice_r == d and q & 1):
        q += 1
    return q


def _round_ratio(n: int, d: int, negative_zero: bool) -> float:
    """Round the exact rational n/d (d > 0) to binary32.

    The result's sign is the sign of n/d; if n == 0 the result is -0.0 when
    *negative_zero* is true and +0.0 otherwise.
    """
    if n == 0:
        return -0.0 if negative_zero else 0.0
    negative = n < 0
    n = -n if negative else n
    magnitude = _round_positive_ratio(n, d)
    return -magnitude if negative else magnitude


def _round_positive_ratio(n: int, d: int) -> float:
    """Round the exact positive rational n/d to a non-negative binary32."""
    e = _floor_log2(n, d)
    if e > EMAX:
        # n/d >= 2**128, which is beyond MAX_FINITE + ulp/2: overflow.
        return _INF
    if e < _QUANTUM_MIN - 1:
        # n/d < 2**-150 = MIN_SUBNORMAL / 2: rounds to zero.
        return 0.0
    # The weight of the last significand bit: 2**(e-23) in a normal binade,
    # fixed at 2**-149 for subnormals and the smallest normal binade.
    quantum = max(e - _FRACTION_BITS, _QUANTUM_MIN)
    if quantum >= 0:
        significand = _round_half_even(n, d << quantum)
    else:
        significand = _round_half_even(n << -quantum, d)
    # significand <= 2**24; it equals 2**24 only when rounding carried into
    # the next binade, which is still exactly representable unless that
    # binade is 2**128, i.e. the IEEE overflow rule.
    if quantum == _QUANTUM_MAX and significand >> PRECISION:
        return _INF
    # significand has at most 25 bits and quantum lies in [-149, 104]:
    # ldexp is exact here (it only sets the binary64 exponent).
    return math.ldexp(float(significand), quantum)


def round_fraction(q: numbers.Rational, *, negative_zero: bool = False) -> float:
    """Round an exact rational to the nearest binary32 value.

    *q* is any :class:`numbers.Rational` (``Fraction``, ``int``, ``gmpy2.mpq``
    ...).  The result is a Python float holding exactly the binary32 value
    nearest to *q*, ties to even, with gradual underflow and overflow to
    +-inf (values of magnitude >= 2**128 - 2**103 overflow; anything smaller
    rounds to at most MAX_FINITE).

    A nonzero *q* that underflows keeps its sign (``-2**-200`` gives -0.0).
    An exact zero has no sign, so the caller supplies it: the result is -0.0
    if *negative_zero* is true and +0.0 otherwise (for example the exact
    product of -0 and a positive number is ``Fraction(0)`` with
    ``negative_zero=True``).  *negative_zero* is ignored for nonzero *q*.
    """
    return _round_ratio(int(q.numerator), int(q.denominator), negative_zero)


def round_to_binary32(x: Any) -> float:
    """Round the exact value of *x* once to the nearest binary32 value.

    Accepted inputs and how their exact value is taken:

    * ``int``, ``bool``, numpy integer and bool scalars, ``gmpy2.mpz``: the
      integer itself (``2**24 + 1`` gives 16777216.0; ``10**400`` gives inf);
    * ``Fraction``, ``gmpy2.mpq``, any other :class:`numbers.Rational`: the
      exact rational;
    * ``float`` and numpy floating scalars (including ``longdouble``): the
      exact binary value they hold (a float with a 53-bit significand is
      rounded once, from its exact value);
    * ``mpmath.mpf`` and ``gmpy2.mpfr``: the exact binary value they hold,
      whatever their precision.

    Rounding is to nearest, ties to even, with subnormals and overflow to
    +-inf.  NaN gives ``float('nan')`` (its payload is not kept), +-inf
    stays +-inf, a signed floating zero keeps its sign, an exact zero from an
    integer or a rational gives +0.0 (see :func:`round_fraction` to choose
    the sign of an exact zero), and a nonzero value that underflows keeps its
    sign.  Other types raise :class:`TypeError`.
    """
    kind, payload = _exact_value(x)
    if kind == "ratio":
        n, d = payload
        return _round_ratio(n, d, False)
    return payload


def _exact_value(x: Any) -> tuple[str, Any]:
    """Decompose *x* into ("ratio", (n, d)) or ("float", special_value).

    "float" is returned for NaN, infinities and zeros of floating types, whose
    binary32 result is known without rounding.
    """
    if isinstance(x, float):
        return _exact_float(x)
    if isinstance(x, (int, np.integer, np.bool_, gmpy2.mpz)):
        return "ratio", (int(x), 1)
    if isinstance(x, Fraction):
        return "ratio", (x.numerator, x.denominator)
    if isinstance(x, np.floating):
        return _exact_numpy_floating(x)
    if isinstance(x, gmpy2.mpfr):
        return _exact_mpfr(x)
    if _is_mpmath_mpf(x):
        return _exact_mpmath(x)
    if isinstance(x, numbers.Rational):
        return "ratio", (int(x.numerator), int(x.denominator))
    raise TypeError(
        f"round_to_binary32: cannot take the exact value of {type(x).__name__!s} "
        f"{x!r}; expected int, Fraction, float, a numpy real scalar, "
        "mpmath.mpf or a gmpy2 mpz/mpq/mpfr"
    )


def _exact_float(x: float) -> tuple[str, Any]:
    if math.isnan(x):
        return "float", _NAN
    if math.isinf(x) or x == 0.0:
        return "float", x
    return "ratio", x.as_integer_ratio()


def _exact_numpy_floating(x: np.floating) -> tuple[str, Any]:
    if np.isnan(x):
        return "float", _NAN
    if np.isinf(x):
        return "float", _INF if x > 0 else -_INF
    if x == 0:
        return "float", -0.0 if np.signbit(x) else 0.0
    n, d = x.as_integer_ratio()
    return "ratio", (int(n), int(d))


def _exact_mpfr(x: Any) -> tuple[str, Any]:
    if gmpy2.is_nan(x):
        return "float", _NAN
    if gmpy2.is_infinite(x):
        return "float", _INF if x > 0 else -_INF
    if gmpy2.is_zero(x):
        return "float", -0.0 if gmpy2.is_signed(x) else 0.0
    n, d = x.as_integer_ratio()
    return "ratio", (int(n), int(d))


def _is_mpmath_mpf(x: Any) -> bool:
    cls = type(x)
    return cls.__name__ == "mpf" and cls.__module__.startswith("mpmath")


def _exact_mpmath(x: Any) -> tuple[str, Any]:
    import mpmath  # noqa: PLC0415 (only reached with an mpmath value)

    if mpmath.isnan(x):
        return "float", _NAN
    if mpmath.isinf(x):
        return "float", _INF if x > 0 else -_INF
    # abs(x) == mantissa * 2**exponent exactly; mpmath's man_exp is unsigned
    mantissa, exponent = x.man_exp
    mantissa, exponent = abs(int(mantissa)), int(exponent)
    if x < 0:
        mantissa = -mantissa
    if mantissa == 0:
        return "float", 0.0  # mpmath has no negative zero
    if exponent >= 0:
        return "ratio", (mantissa << exponent, 1)
    return "ratio", (mantissa, 1 << -exponent)


# ---------------------------------------------------------------------------
# Representability and bit patterns
# ---------------------------------------------------------------------------


def _as_float(x: Any, caller: str) -> float:
    """Return *x* as a Python float, refusing anything that would round."""
    if isinstance(x, float):
        return x
    if isinstance(x, np.float32) and x != x:
        return from_bits_exact(int(x.view(np.uint32)))  # keeps a signalling NaN
    if isinstance(x, np.floating) and x.dtype.itemsize <= 8:
        return float(x)  # float16/32/64 -> binary64 is exact
    raise TypeError(f"{caller}: expected a float, got {type(x).__name__} {x!r}")


def is_binary32(x: float) -> bool:
    """Return True if the float *x* is exactly a binary32 value.

    True for +-0, +-inf and every NaN (NaN-ness is representable; the payload
    is not examined), and for finite values whose significand fits in 24 bits
    and whose exponent lies in the binary32 range including subnormals.
    numpy float16/float32/float64 scalars are accepted.
    """
    x = _as_float(x, "is_binary32")
    if math.isnan(x) or math.isinf(x) or x == 0.0:
        return True
    return _encode_magnitude(abs(x)) is not None


def _encode_magnitude(magnitude: float) -> int | None:
    """Bit pattern of a positive finite float, or None if not binary32."""
    n, d = magnitude.as_integer_ratio()  # reduced, d = 2**k: n is odd if k > 0
    top = n.bit_length() - d.bit_length()  # floor(log2(magnitude))
    if top > EMAX:
        return None
    # magnitude must be an integer multiple of its binade's quantum.
    quantum = max(top - _FRACTION_BITS, _QUANTUM_MIN)
    if quantum >= 0:
        if d != 1 or n & ((1 << quantum) - 1):
            return None
        significand = n >> quantum
    else:
        k = d.bit_length() - 1
        if k > -quantum:
            return None
        significand = n << (-quantum - k)
    if top < EMIN:  # subnormal: exponent field 0, magnitude = F * 2**-149
        return significand
    # normal: significand in [2**23, 2**24) carries the implicit bit
    return (top + _BIAS) << _FRACTION_BITS | (significand & _FRACTION_MASK)


def to_bits(x: float) -> int:
    """Return the 32-bit pattern (an int in [0, 2**32)) of the binary32 *x*.

    *x* must be exactly a binary32 value (see :func:`is_binary32`), otherwise
    :class:`ValueError` is raised; round first with :func:`round_to_binary32`.
    Zeros keep their sign (-0.0 gives 0x80000000).  A NaN is converted with
    ``struct.pack('f')``, i.e. by the platform's double->float conversion,
    which keeps the sign and the top fraction bits of a quiet NaN (a NaN
    produced by :func:`from_bits` from a quiet pattern round-trips exactly).
    A :class:`SignallingNaN` gives its ``.bits``; a numpy float32 scalar
    gives its own bits.  numpy float16/float32/float64 scalars are accepted.
    """
    x = _as_float(x, "to_bits")
    if isinstance(x, SignallingNaN):
        return x.bits
    if math.isnan(x):
        return struct.unpack("<I", struct.pack("<f", x))[0]
    sign = SIGN_BIT if math.copysign(1.0, x) < 0 else 0
    magnitude = abs(x)
    if magnitude == _INF:
        return sign | BITS_POSITIVE_INF
    if magnitude == 0.0:
        return sign
    bits = _encode_magnitude(magnitude)
    if bits is None:
        raise ValueError(
            f"to_bits: {x!r} is not exactly representable in binary32 (the nearest "
            f"binary32 value is {round_to_binary32(x)!r}; use round_to_binary32 first)"
        )
    return sign | bits


def from_bits(b: int) -> float:
    """Return the binary32 value with bit pattern *b* (an int in [0, 2**32)).

    Finite values and infinities are decoded arithmetically and are exact.
    NaN patterns are converted with ``struct.unpack('f')``: the sign and the
    fraction bits are kept in the resulting binary64 NaN, but a *signalling*
    NaN pattern (quiet bit 0x00400000 clear) is quieted by the conversion on
    common hardware, so ``to_bits(from_bits(b))`` may return
    ``b | 0x00400000`` for those.  Raises :class:`ValueError` outside
    [0, 2**32) and :class:`TypeError` for non-integers.
    """
    if isinstance(b, float) or not isinstance(b, (int, np.integer)):
        raise TypeError(f"from_bits: expected an int bit pattern, got {type(b).__name__} {b!r}")
    b = int(b)
    if not 0 <= b < 1 << 32:
        raise ValueError(f"from_bits: bit pattern {b:#x} is outside [0, 2**32)")
    biased = (b & _EXPONENT_MASK) >> _FRACTION_BITS
    fraction = b & _FRACTION_MASK
    if biased == 0xFF:
        if fraction:
            return struct.unpack("<f", b.to_bytes(4, "little"))[0]
        magnitude = _INF
    elif biased == 0:
        magnitude = math.ldexp(float(fraction), _QUANTUM_MIN)
    else:
        significand = fraction | 1 << _FRACTION_BITS
        magnitude = math.ldexp(float(significand), biased - _BIAS - _FRACTION_BITS)
    return -magnitude if b & SIGN_BIT else magnitude


class SignallingNaN(float):
    """A float NaN that carries the bit pattern of a binary32 signalling NaN.

    ``SignallingNaN(bits)`` requires a signalling pattern (exponent field all
    ones, fraction nonzero with the quiet bit 0x00400000 clear) and is
    otherwise a ValueError.  The float value is the quiet NaN the platform's
    conversion makes of it, so arithmetic treats it as IEEE arithmetic
    treats a signalling operand (the result is a plain quiet NaN), while the
    bit-copy paths -- :func:`to_bits`, :func:`negate`, :func:`absolute`,
    and any code that passes the object itself along (selection, gather,
    sort) -- keep the exact pattern.  ``repr`` names the pattern;
    ``str`` is ``'nan'`` as for any NaN; pickling keeps the bits.
    """

    __slots__ = ("bits",)
    bits: int

    def __new__(cls, bits: int) -> SignallingNaN:
        if isinstance(bits, (bool, float)) or not isinstance(bits, (int, np.integer)):
            raise TypeError(f"SignallingNaN: expected an int bit pattern, got {bits!r}")
        pattern = int(bits)
        if not 0 <= pattern < 1 << 32 or classify_bits(pattern) is not FloatClass.SIGNALING_NAN:
            raise ValueError(f"SignallingNaN: {pattern:#x} is not a binary32 signalling NaN")
        quiet = struct.unpack("<f", pattern.to_bytes(4, "little"))[0]
        self = super().__new__(cls, quiet)
        self.bits = pattern
        return self

    def __reduce__(self) -> tuple[type, tuple[int]]:
        return (type(self), (self.bits,))

    def __repr__(self) -> str:
        return f"SignallingNaN(0x{self.bits:08X})"

    def __str__(self) -> str:
        return "nan"


def from_bits_exact(b: int) -> float:
    """Like :func:`from_bits`, but a signalling NaN pattern is kept exactly.

    Signalling patterns give a :class:`SignallingNaN` (``to_bits`` of it is
    *b*); every other pattern gives the plain float :func:`from_bits` gives,
    so ``to_bits(from_bits_exact(b)) == b`` for every *b* in [0, 2**32).
    """
    value = from_bits(b)
    if value != value and not int(b) & _QUIET_BIT:
        return SignallingNaN(b)
    return value


def negate(x: float) -> float:
    """IEEE 754 ``negate``: *x* with its sign bit flipped and nothing else.

    A bit operation, not arithmetic: a NaN keeps its payload and a signalling
    NaN stays signalling (``negate(SignallingNaN(0x7F800001))`` has bits
    0xFF800001).  ValueError for a float that is not a binary32 value.
    """
    return from_bits_exact(to_bits(x) ^ SIGN_BIT)


def absolute(x: float) -> float:
    """IEEE 754 ``abs``: *x* with its sign bit cleared and nothing else.

    Like :func:`negate`, a bit operation that keeps NaN payloads and
    signalling NaNs exactly.
    """
    return from_bits_exact(to_bits(x) & _MAGNITUDE_MASK)


# ---------------------------------------------------------------------------
# The ordered binary32 line: ordinals, neighbours, ULPs
# ---------------------------------------------------------------------------


def ordinal(x: float) -> int:
    """Return the position of the binary32 *x* on the ordered binary32 line.

    The key is monotone: a < b (as reals) iff ordinal(a) < ordinal(b).  Both
    zeros map to 0, positive values to their bit pattern (so MIN_SUBNORMAL is
    1 and +inf is 0x7F800000), and ``ordinal(-x) == -ordinal(x)``.  Raises
    :class:`ValueError` for NaN (which has no place on the line) and for
    floats that are not binary32 values.
    """
    x = _as_float(x, "ordinal")
    if math.isnan(x):
        raise ValueError("ordinal: NaN has no position on the binary32 line")
    bits = to_bits(x)
    magnitude = bits & _MAGNITUDE_MASK
    return -magnitude if bits & SIGN_BIT else magnitude


def from_ordinal(n: int) -> float:
    """Inverse of :func:`ordinal`: ordinal 0 gives +0.0.

    Raises :class:`ValueError` if ``abs(n) > 0x7F800000`` (beyond +-inf).
    """
    n = int(n)
    if abs(n) > BITS_POSITIVE_INF:
        limit = BITS_POSITIVE_INF
        raise ValueError(f"from_ordinal: {n} is outside [-{limit:#x}, {limit:#x}] (+-inf)")
    if n < 0:
        return from_bits(SIGN_BIT | -n)
    return from_bits(n)


def next_up(x: float) -> float:
    """IEEE 754 nextUp: the least binary32 value greater than *x*.

    ``next_up(+-0) == MIN_SUBNORMAL``, ``next_up(-MIN_SUBNORMAL) == -0.0``,
    ``next_up(MAX_FINITE) == inf``, ``next_up(inf) == inf``,
    ``next_up(-inf) == -MAX_FINITE``; a NaN is returned unchanged.  *x* must
    be a binary32 value (:class:`ValueError` otherwise).
    """
    x = _as_float(x, "next_up")
    if math.isnan(x):
        return x
    if x == 0.0:
        return MIN_SUBNORMAL
    n = ordinal(x)
    if n == BITS_POSITIVE_INF:
        return x
    if n == -1:
        return -0.0
    return from_ordinal(n + 1)


def next_down(x: float) -> float:
    """IEEE 754 nextDown: the greatest binary32 value less than *x*.

    Defined as ``-next_up(-x)``: ``next_down(+-0) == -MIN_SUBNORMAL``,
    ``next_down(MIN_SUBNORMAL) == +0.0``, ``next_down(-inf) == -inf``; a NaN
    is returned unchanged.
    """
    x = _as_float(x, "next_down")
    if math.isnan(x):
        return x
    return -next_up(-x)


def ulp_distance(a: float, b: float) -> int | None:
    """Return the number of binary32 steps between *a* and *b*.

    ``abs(ordinal(a) - ordinal(b))``: 0 for equal values, 1 for neighbours
    (``ulp_distance(MAX_FINITE, inf) == 1``).  +0 and -0 are at distance 0:
    callers for whom signed zero matters must compare signs separately.  Two
    NaNs are at distance 0 (NaN payloads are ignored); if exactly one
    argument is NaN the distance is undefined and None is returned.
    """
    a_nan = math.isnan(_as_float(a, "ulp_distance"))
    b_nan = math.isnan(_as_float(b, "ulp_distance"))
    if a_nan or b_nan:
        return 0 if a_nan and b_nan else None
    return abs(ordinal(a) - ordinal(b))


def ulp(x: float | int | Fraction) -> float:
    """Return the binary32 unit in the last place at *x*.

    This is the spacing of the binary32 values in the binade of ``abs(x)``
    (the distance from ``abs(x)`` to the next larger-magnitude value when *x*
    is a binary32 value): ``ulp(1.0) == 2**-23``, ``ulp(0) == MIN_SUBNORMAL``
    (as for every subnormal and for MIN_NORMAL's binade),
    ``ulp(MAX_FINITE) == 2**104``.  *x* need not be a binary32 value (it may
    be any float, int or Fraction); magnitudes at or beyond 2**128 get the
    top binade's 2**104.  ``ulp(+-inf)`` is inf and ``ulp(nan)`` is nan.
    """
    if isinstance(x, (float, np.floating)):
        x = _as_float(x, "ulp")
        if math.isnan(x) or math.isinf(x):
            return abs(x)
        if x == 0.0:
            return MIN_SUBNORMAL
        n, d = abs(x).as_integer_ratio()
    else:
        q = Fraction(x)
        if q == 0:
            return MIN_SUBNORMAL
        n, d = abs(q.numerator), q.denominator
    e = min(max(_floor_log2(n, d), EMIN), EMAX)
    return math.ldexp(1.0, e - _FRACTION_BITS)


# ---------------------------------------------------------------------------
# Classification
# ---------------------------------------------------------------------------


class FloatClass(enum.Enum):
    """The IEEE 754 ``class`` of a binary32 value (NaNs carry no sign)."""

    NEGATIVE_INF = "negative_inf"
    NEGATIVE_NORMAL = "negative_normal"
    NEGATIVE_SUBNORMAL = "negative_subnormal"
    NEGATIVE_ZERO = "negative_zero"
    POSITIVE_ZERO = "positive_zero"
    POSITIVE_SUBNORMAL = "positive_subnormal"
    POSITIVE_NORMAL = "positive_normal"
    POSITIVE_INF = "positive_inf"
    QUIET_NAN = "quiet_nan"
    SIGNALING_NAN = "signaling_nan"


_NEGATIVE_CLASSES = {
    "inf": FloatClass.NEGATIVE_INF,
    "normal": FloatClass.NEGATIVE_NORMAL,
    "subnormal": FloatClass.NEGATIVE_SUBNORMAL,
    "zero": FloatClass.NEGATIVE_ZERO,
}
_POSITIVE_CLASSES = {
    "inf": FloatClass.POSITIVE_INF,
    "normal": FloatClass.POSITIVE_NORMAL,
    "subnormal": FloatClass.POSITIVE_SUBNORMAL,
    "zero": FloatClass.POSITIVE_ZERO,
}


def classify_bits(b: int) -> FloatClass:
    """Classify the binary32 bit pattern *b* (an int in [0, 2**32)).

    A NaN is QUIET_NAN when its fraction's top bit (0x00400000) is set and
    SIGNALING_NAN otherwise, whatever its sign.
    """
    b = int(b)
    if not 0 <= b < 1 << 32:
        raise ValueError(f"classify_bits: bit pattern {b:#x} is outside [0, 2**32)")
    biased = (b & _EXPONENT_MASK) >> _FRACTION_BITS
    fraction = b & _FRACTION_MASK
    if biased == 0xFF and fraction:
        return FloatClass.QUIET_NAN if fraction & _QUIET_BIT else FloatClass.SIGNALING_NAN
    if biased == 0xFF:
        kind = "inf"
    elif biased:
        kind = "normal"
    else:
        kind = "subnormal" if fraction else "zero"
    return (_NEGATIVE_CLASSES if b & SIGN_BIT else _POSITIVE_CLASSES)[kind]


def classify(x: float) -> FloatClass:
    """Classify the binary32 value *x* (a float holding a binary32 value).

    Equivalent to ``classify_bits(to_bits(x))``.  A plain Python float cannot
    carry a binary32 signalling NaN (see the module docstring), so only a
    :class:`SignallingNaN` (or a numpy float32 scalar) classifies as
    SIGNALING_NAN; every plain float NaN is QUIET_NAN.  Raises
    :class:`ValueError` for floats that are not binary32 values.
    """
    return classify_bits(to_bits(x))


# ---------------------------------------------------------------------------
# gmpy2 (MPFR) emulation of binary32
# ---------------------------------------------------------------------------


def binary32_context() -> gmpy2.context:
    """Return a new gmpy2 context whose arithmetic is binary32 arithmetic.

    Every operation performed in this context (``with binary32_context():``)
    returns the correctly rounded binary32 result, subnormals included.

    Derivation: MPFR writes a nonzero number as m * 2**E with
    0.5 <= m < 1, so its exponent E is one more than the IEEE exponent of the
    leading bit (IEEE 1.0 = 2**0 is MPFR 0.5 * 2**1).

    * precision = 24 = PRECISION.
    * emax = EMAX + 1 = 128: the largest finite value (2 - 2**-23) * 2**127
      is 0.11...1 * 2**128; results beyond it overflow to inf, following the
      IEEE rule because MPFR rounds first, then checks the range.
    * emin = -148: the smallest subnormal 2**-149 is 0.5 * 2**-148.  With
      ``subnormalize=True`` MPFR re-rounds results with E below EMIN + 1 =
      -125 (MPFR exponent of MIN_NORMAL = 0.5 * 2**-125) to the fixed 2**-149
      quantum, which is gradual underflow; ties go to even there as well.

    Round to nearest (ties to even); no traps, so overflow, underflow and
    invalid operations return inf, zero and NaN rather than raising.
    """
    return gmpy2.context(
        precision=PRECISION,
        emin=_QUANTUM_MIN + 1,
        emax=EMAX + 1,
        subnormalize=True,
        round=gmpy2.RoundToNearest,
        trap_underflow=False,
        trap_overflow=False,
        trap_inexact=False,
        trap_invalid=False,
        trap_erange=False,
        trap_divzero=False,
    )


def round_mpfr(x: Any) -> float:
    """Round the exact value of the mpfr *x* (any precision) to binary32.

    One correct rounding of the exact binary value *x* holds (to nearest,
    ties to even, subnormals, overflow to +-inf), computed exactly from
    ``x.as_integer_ratio()``, so the result does not depend on the current
    gmpy2 context.  NaN gives nan, +-inf and +-0 keep their sign.

    Note for oracle writers: rounding a value that was itself already rounded
    to some working precision is a *double* rounding of the true result; a
    certified oracle must make sure the working result is far enough from a
    binary32 rounding boundary (a midpoint) before relying on this.
    """
    if not isinstance(x, gmpy2.mpfr):
        raise TypeError(f"round_mpfr: expected a gmpy2.mpfr, got {type(x).__name__} {x!r}")
    kind, payload = _exact_mpfr(x)
    if kind == "ratio":
        n, d = payload
        return _round_ratio(n, d, False)
    return payload


# ---------------------------------------------------------------------------
# Vectorised numpy helpers (integer arithmetic on bit patterns)
# ---------------------------------------------------------------------------


def _require_dtype(a: Any, dtype: type, caller: str) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype != dtype:
        raise TypeError(f"{caller}: expected a {np.dtype(dtype).name} array, got dtype {a.dtype}")
    return a


def bits_array(a: np.ndarray) -> np.ndarray:
    """Return the bit patterns of a float32 array as a new uint32 array.

    A pure reinterpretation of the storage (NaN payloads and signalling NaNs
    are kept exactly); the result has *a*'s shape.  Raises
    :class:`TypeError` unless ``a.dtype`` is float32.
    """
    a = _require_dtype(a, np.float32, "bits_array")
    # ascontiguousarray makes 0-d arrays 1-d: restore the shape
    return np.ascontiguousarray(a).view(np.uint32).reshape(a.shape).copy()


def ordinal_array(a: np.ndarray) -> np.ndarray:
    """Vectorised :func:`ordinal` of a float32 array, as int64.

    Non-NaN entries get exactly ``ordinal(x)``.  NaN entries get a value of
    magnitude greater than 0x7F800000 (their bits with the sign applied);
    this is meaningless as a position, so mask NaNs (``np.isnan``) first or
    use :func:`ulp_distance_array`, which does.
    """
    bits = bits_array(a).astype(np.int64)
    magnitude = bits & _MAGNITUDE_MASK
    return np.where(bits & SIGN_BIT, -magnitude, magnitude)


def ulp_distance_array(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Vectorised :func:`ulp_distance` of two broadcastable float32 arrays.

    Returns int64 distances ``abs(ordinal(a) - ordinal(b))``, with 0 where
    both entries are NaN and -1 (standing in for ``None``) where exactly one
    is NaN.  +0 and -0 are at distance 0.
    """
    a = _require_dtype(a, np.float32, "ulp_distance_array")
    b = _require_dtype(b, np.float32, "ulp_distance_array")
    a_nan = _isnan_bits(bits_array(a))
    b_nan = _isnan_bits(bits_array(b))
    distance = np.abs(ordinal_array(a) - ordinal_array(b))
    distance = np.where(a_nan & b_nan, 0, distance)
    return np.where(a_nan ^ b_nan, -1, distance).astype(np.int64)


def _isnan_bits(bits: np.ndarray) -> np.ndarray:
    return (bits & np.uint32(_MAGNITUDE_MASK)) > np.uint32(BITS_POSITIVE_INF)


# binary64 layout constants used by round_float64_array
_F64_FRACTION_BITS = 52
_F64_BIAS = 1023
_F64_MAGNITUDE_MASK = (1 << 63) - 1
_F64_BITS_INF = 0x7FF << _F64_FRACTION_BITS
# Bits dropped when a binary64 significand (53 bits) is cut to 24 bits.
_F64_DROPPED = _F64_FRACTION_BITS - _FRACTION_BITS  # 29
# binary64 bits of 2**-126 (MIN_NORMAL): below it binary32 results are subnormal.
_F64_BITS_MIN_NORMAL = (_F64_BIAS + EMIN) << _F64_FRACTION_BITS
# Shifting a binary64 magnitude right by 29 leaves the binary64 exponent field
# at bit 23; subtracting this re-biases it from 1023 to 127.
_REBIAS = (_F64_BIAS - _BIAS) << _FRACTION_BITS


def round_float64_array(a: np.ndarray) -> np.ndarray:
    """Round every float64 of *a* to binary32, from the bit patterns alone.

    A first-principles re-implementation of the float64 -> float32 cast with
    uint64 integer arithmetic (no floating-point conversion is used), to
    cross-check numpy's own cast: round to nearest, ties to even; results of
    magnitude >= 2**128 - 2**103 become +-inf; subnormal binary32 results are
    produced (gradual underflow); float64 subnormals and anything of
    magnitude <= 2**-150 become a zero of the input's sign; zeros keep their
    sign; +-inf stay.  A NaN becomes a *quiet* NaN with the input's sign and
    the top 22 bits of its binary64 payload (fraction bits 51..29), which is
    what x86-64 and AArch64 hardware do.  Returns a new float32 array of the
    same shape; raises :class:`TypeError` unless ``a.dtype`` is float64.
    """
    a = _require_dtype(a, np.float64, "round_float64_array")
    bits = np.ascontiguousarray(a).reshape(-1).view(np.uint64)  # a 1-D view
    magnitude = bits & np.uint64(_F64_MAGNITUDE_MASK)
    result = _round_normal_range(magnitude)
    small = magnitude < np.uint64(_F64_BITS_MIN_NORMAL)
    result[small] = _round_below_min_normal(magnitude[small])
    nan = magnitude > np.uint64(_F64_BITS_INF)
    result[nan] = _quiet_nan_magnitudes(magnitude[nan])
    result |= ((bits >> np.uint64(63)) << np.uint64(31)).astype(np.uint32)
    return result.view(np.float32).reshape(a.shape)


def _round_half_even_shift(value: np.ndarray, shift: np.ndarray | int) -> np.ndarray:
    """value / 2**shift rounded to nearest, ties to even (uint64, 1 <= shift < 64)."""
    shifts = np.asarray(shift, dtype=np.uint64)  # one shift, or one per element
    one = np.uint64(1)
    kept = value >> shifts
    dropped = value & ((one << shifts) - one)
    half = one << (shifts - one)
    round_up = (dropped > half) | ((dropped == half) & ((kept & one) == one))
    return kept + round_up.astype(np.uint64)


def _round_normal_range(magnitude: np.ndarray) -> np.ndarray:
    """binary32 magnitude bits of binary64 magnitudes >= 2**-126 (uint32).

    The binary64 exponent and fraction fields are contiguous, so rounding
    the whole magnitude to a multiple of 2**29 rounds the significand, and a
    carry out of the fraction field increments the exponent field (and from
    the top binade reaches 0x7F800000, i.e. inf).  Everything at or above
    2**128 - 2**103 ends at or beyond the inf pattern and is clamped there.
    Entries below 2**-126 (and NaNs) get garbage; the caller replaces them.
    """
    rounded = _round_half_even_shift(magnitude, _F64_DROPPED)
    rounded = np.minimum(rounded - np.uint64(_REBIAS), np.uint64(BITS_POSITIVE_INF))
    return rounded.astype(np.uint32)


def _round_below_min_normal(magnitude: np.ndarray) -> np.ndarray:
    """binary32 magnitude bits of binary64 magnitudes < 2**-126: subnormal or 0.

    The result is the significand rounded to the fixed quantum 2**-149: with
    the leading bit at 2**E (E < -126) that drops 29 + (-126 - E) bits, capped
    at 63 (a 53-bit significand shifted that far rounds to 0).  binary64
    subnormals (< 2**-1022) always round to 0.  Rounding up from the largest
    subnormal gives 0x00800000, MIN_NORMAL, as it should.
    """
    exponent = (magnitude >> np.uint64(_F64_FRACTION_BITS)).astype(np.int64) - _F64_BIAS
    implicit_bit = np.uint64(1 << _F64_FRACTION_BITS)
    significand = (magnitude & (implicit_bit - np.uint64(1))) | implicit_bit
    # binary64 subnormals (exponent field 0) get exponent -1023 and the cap of
    # 63, so the implicit bit wrongly set for them does not matter: they give 0.
    shift = np.minimum(_F64_DROPPED + (EMIN - exponent), 63)
    return _round_half_even_shift(significand, shift).astype(np.uint32)


def _quiet_nan_magnitudes(magnitude: np.ndarray) -> np.ndarray:
    """binary32 quiet-NaN magnitude bits keeping the top binary64 payload bits."""
    payload = (magnitude >> np.uint64(_F64_DROPPED)) & np.uint64(_FRACTION_MASK)
    return payload.astype(np.uint32) | np.uint32(BITS_POSITIVE_INF | _QUIET_BIT)
