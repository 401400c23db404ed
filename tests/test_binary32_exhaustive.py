"""Opt-in long sweeps of oracle.binary32 (select with ``pytest -m exhaustive``).

Default runs deselect this module (``-m 'not exhaustive'`` in the project's
pytest options).  Run it with, for example::

    python -m pytest tests/test_binary32_exhaustive.py -m exhaustive -n auto

Measured on one (shared) core: the 2**32 sweep about 5 minutes (256 chunks
of 2**24, ~1 GiB peak memory per worker), the scalar round trip over 2**22
patterns about 3 minutes, the 10**7-pair arithmetic check per operation
about 4 seconds.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import numpy as np
import pytest

from oracle.binary32 import (
    FloatClass,
    classify_bits,
    from_bits,
    round_float64_array,
    round_fraction,
    to_bits,
)

pytestmark = pytest.mark.exhaustive

CHUNK = 2**24
QUIET_BIT = np.uint32(0x00400000)


def _nan_mask(bits: np.ndarray) -> np.ndarray:
    return (bits & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)


@pytest.mark.exhaustive
@pytest.mark.parametrize("chunk", range(2**32 // CHUNK))
def test_every_bit_pattern_round_trips_through_float64(chunk):
    """All 2**32 patterns: binary32 -> binary64 (exact) -> round_float64_array.

    Widening is exact, so rounding back must return the same pattern.  NaNs
    come back quiet with their sign and payload: a signalling pattern returns
    with the quiet bit set (the widening already quiets it on x86-64/AArch64,
    and round_float64_array always produces a quiet NaN).  A strided sample
    of each chunk also checks that the scalar from_bits gives the same
    binary64 value as numpy's widening.
    """
    bits = np.arange(chunk * CHUNK, (chunk + 1) * CHUNK, dtype=np.uint64).astype(np.uint32)
    with np.errstate(all="ignore"):
        widened = bits.view(np.float32).astype(np.float64)
    narrowed = round_float64_array(widened).view(np.uint32)
    nan = _nan_mask(bits)
    expected = np.where(nan, bits | QUIET_BIT, bits)
    wrong = np.flatnonzero(narrowed != expected)
    assert wrong.size == 0, [(hex(bits[i]), hex(narrowed[i])) for i in wrong[:5]]

    sample = np.arange(0, CHUNK, 4099)
    for b, w in zip(bits[sample].tolist(), widened[sample].tolist(), strict=True):
        scalar = from_bits(b)
        if math.isnan(w):
            assert math.isnan(scalar)
        else:
            assert struct.pack("<d", scalar) == struct.pack("<d", w), hex(b)


def _spread_patterns(log2_count: int, seed: int) -> np.ndarray:
    low_bits = 32 - log2_count
    top = np.arange(2**log2_count, dtype=np.uint32) << np.uint32(low_bits)
    rng = np.random.default_rng(seed)
    return top | rng.integers(0, 2**low_bits, size=top.size, dtype=np.uint32)


def _exact_value(bits: int) -> Fraction:
    biased, fraction = (bits >> 23) & 0xFF, bits & 0x7FFFFF
    if biased == 0:
        value = Fraction(fraction, 2**149)
    else:
        value = (2**23 + fraction) * Fraction(2) ** (biased - 150)
    return -value if bits >> 31 else value


@pytest.mark.exhaustive
@pytest.mark.parametrize("chunk", range(16))
def test_scalar_round_trip_through_the_exact_value(chunk):
    """from_bits -> exact Fraction -> round_fraction -> to_bits, 2**22 patterns.

    Every sign x exponent x top-13-fraction-bits prefix occurs once (the
    default suite does 2**16 of these).
    """
    patterns = _spread_patterns(22, seed=11)[chunk::16].tolist()
    for bits in patterns:
        if (bits & 0x7F800000) == 0x7F800000:
            continue
        value = _exact_value(bits)
        assert to_bits(round_fraction(value, negative_zero=bits >> 31 == 1)) == bits
        assert to_bits(from_bits(bits)) == bits


# ---------------------------------------------------------------------------
# 10**7 arithmetic pairs against numpy float32
# ---------------------------------------------------------------------------

SPECIAL_BITS = np.array(
    [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001,
     0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x80800000, 0x7F7FFFFF,
     0xFF7FFFFF, 0x3F800000, 0xBF800000, 0x3F800001, 0x3F7FFFFF, 0x4B800000],
    np.uint32,
)  # fmt: skip


def _pairs(count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Uniform patterns, near-equal pairs, exponent-targeted pairs, specials."""
    third = count // 3
    a = rng.integers(0, 2**32, count, dtype=np.uint32)
    b = rng.integers(0, 2**32, count, dtype=np.uint32)
    # near-equal magnitudes (cancellation, quotients near 1), random signs
    delta = rng.integers(-64, 65, third).astype(np.int64)
    b[:third] = (a[:third].astype(np.int64) + delta).clip(0, 2**32 - 1).astype(np.uint32)
    b[:third] ^= rng.integers(0, 2, third, dtype=np.uint32) << np.uint32(31)
    # exponent-targeted: products/quotients near underflow, 2**-149 and overflow
    targeted = slice(third, 2 * third)
    exponent_a = rng.integers(-127, 128, third)
    target = np.where(rng.integers(0, 2, third) == 0, rng.integers(-155, -118, third),
                      rng.integers(122, 131, third))  # fmt: skip
    divide = rng.integers(0, 2, third) == 1
    exponent_b = np.where(divide, exponent_a - target, target - exponent_a).clip(-127, 127)
    keep = np.uint32(0x807FFFFF)  # sign and fraction stay random
    a[targeted] = (a[targeted] & keep) | ((exponent_a + 127).astype(np.uint32) << np.uint32(23))
    b[targeted] = (b[targeted] & keep) | ((exponent_b + 127).astype(np.uint32) << np.uint32(23))
    # specials against everything
    a[::97] = rng.choice(SPECIAL_BITS, a[::97].size)
    b[::89] = rng.choice(SPECIAL_BITS, b[::89].size)
    return a.view(np.float32), b.view(np.float32)


OPERATIONS = {
    "add": (np.add, lambda x, y: x + y),
    "sub": (np.subtract, lambda x, y: x - y),
    "mul": (np.multiply, lambda x, y: x * y),
    "div": (np.divide, lambda x, y: x / y),
    "sqrt": (lambda x, _y: np.sqrt(x), None),
}


def _exact_proxy_sqrt(q: Fraction) -> Fraction:
    """A rational rounding like sqrt(q) (q > 0): isqrt with 27+ bits and a sticky bit."""
    n, d = q.numerator, q.denominator
    k = max(0, (56 - n.bit_length() + d.bit_length()) // 2 + 1)
    scaled, remainder = divmod(n << (2 * k), d)
    s = math.isqrt(scaled)
    if remainder == 0 and s * s == scaled:
        return Fraction(s, 2**k)
    return Fraction(2 * s + 1, 2 ** (k + 1))


def _validate_with_fractions(name, a, b, reference_bits, count, rng):
    """Check the float64-route reference against exact Fractions on a subsample.

    Only finite operands whose exact result is nonzero are sampled (and b != 0
    for div, a > 0 for sqrt): there the reference is plainly "round the exact
    value once".  Specials and exact zeros follow the same IEEE rules in
    binary64 and binary32 and are checked against explicit Fraction-based
    rules in tests/test_binary32.py.
    """
    with np.errstate(all="ignore"):  # signalling NaNs warn when widened
        x, y = a.astype(np.float64), b.astype(np.float64)
    usable = np.isfinite(x) & np.isfinite(y)
    if name == "div":
        usable &= (y != 0) & (x != 0)
    elif name == "sqrt":
        usable &= x > 0
    elif name == "mul":
        usable &= (x != 0) & (y != 0)
    else:
        usable &= x != (-y if name == "add" else y)
    indices = rng.choice(np.flatnonzero(usable), size=count, replace=False)
    exact_op = OPERATIONS[name][1]
    for i in indices.tolist():
        fx, fy = Fraction(float(x[i])), Fraction(float(y[i]))
        exact = _exact_proxy_sqrt(fx) if name == "sqrt" else exact_op(fx, fy)
        assert exact != 0
        assert to_bits(round_fraction(exact)) == int(reference_bits[i]), (name, x[i], y[i])


@pytest.mark.exhaustive
@pytest.mark.parametrize("name", list(OPERATIONS))
def test_arithmetic_agrees_with_numpy_float32_on_ten_million_pairs(name):
    """10**7 operand pairs per operation, vectorised, against numpy float32.

    The reference is computed in binary64 and rounded to binary32 with
    round_float64_array (first-principles integer rounding):

    * mul: the product of two binary32 values (24-bit significands) has at
      most 48 significant bits and magnitude in [2**-298, 2**256], so it is
      *exact* in binary64 (53 bits, normal from 2**-1022): one rounding.
    * add, sub, div, sqrt: binary64 rounds once, then round_float64_array
      rounds again.  That double rounding is innocuous: S. A. Figueroa,
      "When is double rounding innocuous?", ACM SIGNUM Newsletter 30(3),
      1995, 21-26, proves that rounding the exact result to nearest at p'
      bits and then at p bits equals rounding it once at p bits for +, -
      (p' >= 2p + 1), *, / (p' >= 2p) and sqrt (p' >= 2p + 2); here
      53 >= 2 * 24 + 2 = 50 covers all five.  binary64 neither
      overflows nor underflows for these binary32 operations (results lie in
      [2**-277, 2**129] or are 0), so it keeps its full 53 bits; binary32
      subnormal results have fewer than 24 bits, which only widens the
      margin.
    * Special values (NaN, +-inf, +-0) follow identical IEEE rules in both
      formats, so the binary64 route gives the binary32 special results.

    Since that is a theorem rather than first principles, a 10**5 subsample
    per operation is re-checked with exact Fractions rounded by
    round_fraction.  NaN results are compared by NaN-ness only (payload and
    sign unspecified), everything else bit-exactly, signed zeros included.
    """
    numpy_op, _ = OPERATIONS[name]
    rng = np.random.default_rng(list(OPERATIONS).index(name) + 1000)
    total, per_chunk, validated = 10**7, 10**6, 0
    for _chunk in range(total // per_chunk):
        a, b = _pairs(per_chunk, rng)
        if name == "sqrt":  # mostly non-negative radicands
            bits = a.view(np.uint32).copy()
            bits[np.arange(bits.size) % 8 != 0] &= np.uint32(0x7FFFFFFF)
            a = bits.view(np.float32)
        with np.errstate(all="ignore"):
            actual = numpy_op(a, b).view(np.uint32)
            wide = numpy_op(a.astype(np.float64), b.astype(np.float64))
        reference = round_float64_array(wide).view(np.uint32)
        nan = _nan_mask(reference)
        assert np.array_equal(nan, _nan_mask(actual)), name
        wrong = np.flatnonzero((actual != reference) & ~nan)
        assert wrong.size == 0, [(a[i], b[i], hex(actual[i]), hex(reference[i])) for i in wrong[:5]]
        if validated < 10**5:
            _validate_with_fractions(name, a, b, reference, 10**4, rng)
            validated += 10**4
    assert validated == 10**5


@pytest.mark.exhaustive
def test_operand_generator_covers_every_class():
    a, b = _pairs(10**6, np.random.default_rng(0))
    for operand in (a, b):
        seen = {classify_bits(x) for x in operand.view(np.uint32)[::7].tolist()}
        assert seen == set(FloatClass)
