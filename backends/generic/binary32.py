"""Generic's own binary32: one correct rounding of an exact value, and bit copies.

A Float32 value is carried as a Python float holding an exact binary32 value.
Every rounding here starts from an *exact* value -- an integer times a power
of two (:func:`round_dyadic`), a ratio of integers (:func:`round_ratio`), an
mpmath number (:func:`round_mpf`) or a binary64 float (:func:`round_float`) --
and rounds it once: to nearest, ties to even, with subnormals and overflow to
infinity.  Nothing here raises for an IEEE exception.

Written independently of ``oracle.binary32`` so that the oracle can check it.
The one name taken from it is :class:`~oracle.binary32.SignallingNaN`, the
exchange format's carrier of a binary32 signalling NaN (a plain float cannot
hold one): the sign-bit operations build a new one with the flipped or
cleared sign, and every other copy passes the object itself along.

Binary64 as a stepping stone: for binary32 operands, binary64 ``+ - * /`` and
``math.sqrt`` followed by one rounding to binary32 equal the correctly rounded
binary32 result, because 53 >= 2 * 24 + 2 (S. A. Figueroa, "When is double
rounding innocuous?", SIGNUM Newsletter 30(3), 1995).  Binary64 can neither
overflow nor go subnormal on such an operation, so the theorem applies as is.
"""

from __future__ import annotations

import math
import struct
from typing import Any

from oracle.binary32 import SignallingNaN

__all__ = [
    "INF",
    "NAN",
    "abs_bits",
    "is_nan",
    "mpf_parts",
    "neg_bits",
    "round_dyadic",
    "round_float",
    "round_mpf",
    "round_ratio",
    "sign_bit",
]

PRECISION = 24  #: significand bits, the hidden bit included
MIN_EXPONENT = -149  #: the exponent of the smallest subnormal, 2**-149
OVERFLOW_EXPONENT = 128  #: every value >= 2**128 after rounding is infinite

INF = math.inf
NAN = math.nan

_SIGN_64 = 1 << 63
_SIGN_32 = 1 << 31
#: binary64 fraction bits a binary32 NaN (widened to binary64) always has clear.
_BELOW_BINARY32_FRACTION = (1 << 29) - 1


def _bits64(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def _from_bits64(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def is_nan(x: float) -> bool:
    return x != x


def sign_bit(x: float) -> bool:
    """True when the sign bit is set (-0.0, negative values, negative NaNs)."""
    return bool(_bits64(x) & _SIGN_64)


def neg_bits(x: float) -> float:
    """*x* with its sign bit flipped and every other bit kept (signalling NaNs included)."""
    if isinstance(x, SignallingNaN):
        return SignallingNaN(x.bits ^ _SIGN_32)
    return _from_bits64(_bits64(x) ^ _SIGN_64)


def abs_bits(x: float) -> float:
    """*x* with its sign bit cleared and every other bit kept (signalling NaNs included)."""
    if isinstance(x, SignallingNaN):
        return SignallingNaN(x.bits & ~_SIGN_32)
    return _from_bits64(_bits64(x) & ~_SIGN_64)


def round_dyadic(n: int, e: int) -> float:
    """The binary32 value nearest to ``n * 2**e`` (ties to even).

    A negative *n* that rounds to zero gives -0.0; ``n == 0`` gives +0.0.
    *e* may be arbitrarily large in magnitude.
    """
    magnitude = _round_magnitude(abs(n), e)
    return -magnitude if n < 0 else magnitude


def _round_magnitude(n: int, e: int) -> float:
    if n == 0:
        return 0.0
    width = n.bit_length()
    top = width - 1 + e  # floor(log2(n * 2**e))
    if top >= OVERFLOW_EXPONENT:
        return INF
    quantum = max(top - (PRECISION - 1), MIN_EXPONENT)  # exponent of the last kept bit
    shift = quantum - e
    if shift > width:  # n * 2**e < 2**(quantum - 1): below half the quantum
        return 0.0
    if shift <= 0:
        return math.ldexp(n << -shift, quantum)  # exact: at most PRECISION bits
    kept, dropped, half = n >> shift, n & ((1 << shift) - 1), 1 << (shift - 1)
    if dropped > half or (dropped == half and kept & 1):
        kept += 1
    if kept.bit_length() + quantum > OVERFLOW_EXPONENT:  # rounded up to 2**128
        return INF
    return math.ldexp(kept, quantum)


def round_ratio(numerator: int, denominator: int) -> float:
    """The binary32 value nearest to ``numerator / denominator`` (denominator > 0).

    The quotient is taken to at least PRECISION + 2 bits with a sticky bit for
    a non-zero remainder, which decides every tie exactly as the full ratio.
    """
    if denominator <= 0:
        raise ValueError(f"round_ratio needs a positive denominator, got {denominator}")
    magnitude = abs(numerator)
    scale = PRECISION + 2 + denominator.bit_length() - magnitude.bit_length()
    if scale >= 0:
        quotient, remainder = divmod(magnitude << scale, denominator)
    else:
        quotient, remainder = divmod(magnitude, denominator << -scale)
    quotient |= remainder != 0
    return round_dyadic(-quotient if numerator < 0 else quotient, -scale)


def round_float(x: float) -> float:
    """The binary32 value nearest to the exact binary64 value *x*.

    ±0 and ±inf are returned unchanged; a NaN is kept when it is a widened
    binary32 NaN, else replaced by the default NaN.
    """
    if x != x:
        return x if not _bits64(x) & _BELOW_BINARY32_FRACTION else NAN
    if x == 0 or x in (INF, -INF):
        return x
    mantissa, exponent = math.frexp(x)  # x == mantissa * 2**exponent, exactly
    return round_dyadic(int(math.ldexp(mantissa, 53)), exponent - 53)


def mpf_parts(value: Any) -> tuple[int, int]:
    """``(n, e)`` with a finite mpmath ``mpf`` equal to ``n * 2**e`` exactly (n signed)."""
    man, exp = value.man_exp  # man_exp gives |mantissa|
    return (-int(man) if value < 0 else int(man)), int(exp)


def round_mpf(value: Any) -> float:
    """The binary32 value nearest to a finite mpmath ``mpf``."""
    return round_dyadic(*mpf_parts(value))
