"""Tests for oracle.binary32: binary32 rounding, bits, ordinals, ULPs, classes.

Every reference used here is computed independently of the code under test:
exact values of bit patterns come from the IEEE formula on integers
(:func:`exact_value`), cross-checks use numpy's hardware float32 cast and
arithmetic, gmpy2 (MPFR) in its own binary32 emulation, and exact
``Fraction`` arithmetic.  The only hard-coded outputs are hand-derived IEEE
facts (``2**24 + 1 -> 2**24``, ``2**128 - 2**103 -> inf``, ...).

The long sweeps (all 2**32 patterns, 10**7 arithmetic pairs) live in
test_binary32_exhaustive.py and run only with ``-m exhaustive``.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction

import gmpy2
import mpmath
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from oracle.binary32 import (
    BITS_DEFAULT_NAN,
    BITS_NEGATIVE_INF,
    BITS_POSITIVE_INF,
    EMAX,
    EMIN,
    EPSILON,
    MAX_FINITE,
    MIN_NORMAL,
    MIN_SUBNORMAL,
    PRECISION,
    SIGN_BIT,
    FloatClass,
    binary32_context,
    bits_array,
    classify,
    classify_bits,
    from_bits,
    from_ordinal,
    is_binary32,
    next_down,
    next_up,
    ordinal,
    ordinal_array,
    round_float64_array,
    round_fraction,
    round_mpfr,
    round_to_binary32,
    to_bits,
    ulp,
    ulp_distance,
    ulp_distance_array,
)

INF = math.inf
NAN = math.nan
QUIET_BIT = 0x00400000

# ---------------------------------------------------------------------------
# Independent helpers
# ---------------------------------------------------------------------------


def exact_value(bits: int) -> Fraction:
    """Exact value of a non-NaN binary32 pattern by the IEEE formula.

    The +-inf patterns give +-2**128, the value the next binade would start
    at; midpoint tests use it as the virtual neighbour of MAX_FINITE.
    """
    biased = (bits >> 23) & 0xFF
    fraction = bits & 0x7FFFFF
    if biased == 0:
        value = Fraction(fraction, 2**149)
    else:
        value = (2**23 + fraction) * Fraction(2) ** (biased - 150)
    return -value if bits >> 31 else value


def f64_bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def same(x: float, y: float) -> bool:
    """True if both are NaN, or both have the same binary64 bits (sign too)."""
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return f64_bits(x) == f64_bits(y)


def numpy_round(x: float) -> float:
    """numpy's (hardware) float64 -> float32 cast of x, back as a float."""
    with np.errstate(all="ignore"):
        return float(np.array([x], np.float64).astype(np.float32)[0])


def numpy_from_bits(bits: int) -> float:
    return float(np.array([bits], np.uint32).view(np.float32)[0])


def gmpy2_round(value: int | Fraction) -> float:
    """Round an exact int or Fraction with MPFR in the binary32 context."""
    exact = gmpy2.mpq(value.numerator, value.denominator)
    with binary32_context():
        return float(gmpy2.mpfr(exact))


def spread_patterns(log2_count: int, seed: int = 0) -> np.ndarray:
    """2**log2_count uint32 patterns: every top-bits prefix once, random low bits.

    The top log2_count bits (sign, exponent, leading fraction bits) run
    through all values, so every sign x exponent x class combination occurs.
    """
    low_bits = 32 - log2_count
    top = np.arange(2**log2_count, dtype=np.uint32) << np.uint32(low_bits)
    rng = np.random.default_rng(seed)
    low = rng.integers(0, 2**low_bits, size=top.size, dtype=np.uint32)
    return top | low


def is_nan_bits(bits: int) -> bool:
    return (bits & 0x7FFFFFFF) > BITS_POSITIVE_INF


binary32_floats = st.floats(width=32)
finite_binary32 = st.floats(width=32, allow_nan=False, allow_infinity=False)
binary32_by_bits = (
    st.integers(0, 2**32 - 1).filter(lambda b: not is_nan_bits(b)).map(numpy_from_bits)
)
non_nan_binary32 = binary32_by_bits | st.floats(width=32, allow_nan=False)


# ---------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------


def test_constants_are_the_ieee_binary32_parameters():
    info = np.finfo(np.float32)
    assert (PRECISION, EMIN, EMAX) == (24, -126, 127)
    assert info.nmant + 1 == PRECISION
    assert (info.minexp, info.maxexp - 1) == (EMIN, EMAX)
    assert MAX_FINITE == (2 - 2**-23) * 2.0**127 == float(info.max)
    assert MIN_NORMAL == 2.0**-126 == float(info.smallest_normal)
    assert MIN_SUBNORMAL == 2.0**-149 == float(info.smallest_subnormal)
    assert EPSILON == 2.0**-23 == float(info.eps)
    for value in (MAX_FINITE, MIN_NORMAL, MIN_SUBNORMAL, EPSILON):
        assert type(value) is float


def test_bit_constants_match_numpy_reinterpretation():
    specials = np.array([INF, -INF, MAX_FINITE, MIN_NORMAL, MIN_SUBNORMAL, -0.0], np.float32)
    assert specials.view(np.uint32).tolist() == [
        BITS_POSITIVE_INF,
        BITS_NEGATIVE_INF,
        0x7F7FFFFF,
        0x00800000,
        0x00000001,
        SIGN_BIT,
    ]
    assert (BITS_POSITIVE_INF, BITS_NEGATIVE_INF) == (0x7F800000, 0xFF800000)
    assert (BITS_DEFAULT_NAN, SIGN_BIT) == (0x7FC00000, 0x80000000)
    assert math.isnan(numpy_from_bits(BITS_DEFAULT_NAN))
    assert to_bits(MAX_FINITE) == 0x7F7FFFFF
    assert to_bits(INF) == BITS_POSITIVE_INF and to_bits(-INF) == BITS_NEGATIVE_INF


# ---------------------------------------------------------------------------
# Rounding: hand-derived IEEE facts
# ---------------------------------------------------------------------------

TIE_CASES = [
    # (exact value, expected binary32 value): spacing 2 above 2**24, 4 above 2**25
    (2**24 + 1, 2.0**24),
    (2**24 + 3, 2.0**24 + 4),
    (2**25 + 2, 2.0**25),
    (2**25 + 6, 2.0**25 + 8),
    (-(2**24 + 1), -(2.0**24)),
    (-(2**24 + 3), -(2.0**24 + 4)),
    (2**24 + 1 + Fraction(1, 2**100), 2.0**24 + 2),
    (2**24 + 1 - Fraction(1, 2**100), 2.0**24),
    (1 + Fraction(1, 2**24), 1.0),
    (1 + Fraction(3, 2**24), 1 + 2.0**-22),
    (2 - Fraction(1, 2**24), 2.0),  # between 2 - 2**-23 (odd) and 2 (even)
    (2 - Fraction(3, 2**25), 2 - 2.0**-23),  # a quarter ulp above 2 - 2**-23: down
]


@pytest.mark.parametrize(("exact", "expected"), TIE_CASES)
def test_ties_round_to_even(exact, expected):
    assert same(round_to_binary32(exact), expected)
    assert same(round_fraction(Fraction(exact)), expected)


OVERFLOW_THRESHOLD = 2**128 - 2**103  # MAX_FINITE + half an ulp of the top binade


def test_overflow_threshold_both_sides():
    below = Fraction(OVERFLOW_THRESHOLD) - Fraction(1, 10**30)
    for sign in (1, -1):
        assert round_to_binary32(sign * OVERFLOW_THRESHOLD) == sign * INF
        assert round_to_binary32(sign * (OVERFLOW_THRESHOLD - 1)) == sign * MAX_FINITE
        assert round_to_binary32(sign * below) == sign * MAX_FINITE
        assert round_to_binary32(sign * float(OVERFLOW_THRESHOLD)) == sign * INF
        just_below = math.nextafter(float(OVERFLOW_THRESHOLD), 0.0)
        assert round_to_binary32(sign * just_below) == sign * MAX_FINITE
        assert round_to_binary32(sign * 2**128) == sign * INF
        assert round_to_binary32(sign * 10**400) == sign * INF
        assert round_to_binary32(Fraction(sign * 10**400, 7)) == sign * INF
        assert round_to_binary32(sign * MAX_FINITE) == sign * MAX_FINITE


def test_underflow_rounds_to_zero_with_the_sign_of_the_value():
    half_min = Fraction(1, 2**150)
    assert same(round_fraction(half_min), 0.0)  # tie between 0 (even) and 2**-149
    assert same(round_fraction(-half_min), -0.0)
    assert same(round_fraction(half_min + Fraction(1, 2**400)), MIN_SUBNORMAL)
    assert same(round_fraction(3 * half_min), 2 * MIN_SUBNORMAL)  # 1.5 quanta: tie, even 2
    assert same(round_fraction(5 * half_min), 2 * MIN_SUBNORMAL)  # 2.5 quanta: tie, even 2
    assert same(round_fraction(Fraction(3, 2**151)), MIN_SUBNORMAL)  # 0.75 quanta
    assert same(round_to_binary32(-(2.0**-200)), -0.0)
    assert same(round_to_binary32(Fraction(-1, 2**200)), -0.0)
    assert same(round_to_binary32(Fraction(-1, 10**400)), -0.0)
    assert same(round_to_binary32(Fraction(1, 10**400)), 0.0)
    assert same(round_to_binary32(5e-324), 0.0)
    assert same(round_to_binary32(-5e-324), -0.0)
    assert same(round_to_binary32(2.0**-150 * (1 + 2**-52)), MIN_SUBNORMAL)
    # the largest subnormal rounds up into MIN_NORMAL from half a quantum above
    largest_subnormal = Fraction(2**23 - 1, 2**149)
    assert same(round_fraction(largest_subnormal + half_min), MIN_NORMAL)


def test_zero_signs():
    assert same(round_to_binary32(0), 0.0)
    assert same(round_to_binary32(False), 0.0)
    assert same(round_to_binary32(Fraction(0)), 0.0)
    assert same(round_to_binary32(0.0), 0.0)
    assert same(round_to_binary32(-0.0), -0.0)
    assert same(round_fraction(Fraction(0)), 0.0)
    assert same(round_fraction(Fraction(0), negative_zero=True), -0.0)
    # negative_zero only matters for an exact zero
    assert same(round_fraction(Fraction(1), negative_zero=True), 1.0)
    assert same(round_fraction(Fraction(1, 2**200), negative_zero=True), 0.0)
    assert same(round_fraction(Fraction(-1, 2**200), negative_zero=False), -0.0)


def test_non_finite_floats():
    assert math.isnan(round_to_binary32(NAN))
    assert math.isnan(round_to_binary32(-NAN))
    assert round_to_binary32(INF) == INF and round_to_binary32(-INF) == -INF


@pytest.mark.parametrize(
    ("value", "bits"),
    [
        (Fraction(1, 3), 0x3EAAAAAB),  # 0.0101...: significand 0xAAAAAA|AA.. rounds up
        (Fraction(2, 3), 0x3F2AAAAB),
        (Fraction(-1, 3), 0xBEAAAAAB),
        (0.1, 0x3DCCCCCD),
        (Fraction(1, 10), 0x3DCCCCCD),
        (16777217, 0x4B800000),  # 2**24 + 1 -> 2**24
        (Fraction(1, 2**149), 0x00000001),
    ],
)
def test_hand_derived_bit_patterns(value, bits):
    assert to_bits(round_to_binary32(value)) == bits


def test_floats_with_53_bit_significands_round_once():
    # 1 + 2**-24 is the midpoint of 1 and 1 + 2**-23; anything above rounds up.
    assert round_to_binary32(1 + 2.0**-24) == 1.0
    assert round_to_binary32(1 + 2.0**-24 + 2.0**-52) == 1 + EPSILON
    assert round_to_binary32(1 + 2.0**-24 - 2.0**-52) == 1.0
    assert round_to_binary32(1 + 3 * 2.0**-24) == 1 + 2 * EPSILON
    assert round_to_binary32(2 - 2.0**-52) == 2.0  # all 53 bits set
    # below the midpoint 1 + 2**-23 + 2**-24 of 1 + 2**-23 and 1 + 2**-22: down
    assert round_to_binary32(1 + 2.0**-23 + 2.0**-25 + 2.0**-52) == 1 + EPSILON


# ---------------------------------------------------------------------------
# Midpoints of every binade, the subnormal range and the overflow boundary
# ---------------------------------------------------------------------------

MIDPOINT_FRACTIONS = (0, 1, 2, 3, 0x3FFFFF, 0x400000, 0x400001, 0x7FFFFE, 0x7FFFFF)


def _neighbour_pairs():
    """(b, b + 1) for every biased exponent 0..254 and chosen fraction fields."""
    for biased in range(255):
        for fraction in MIDPOINT_FRACTIONS:
            yield biased << 23 | fraction
    for fraction in range(4, 256):  # the low subnormal range densely
        yield fraction


def _signed_value(bits: int, sign: int) -> float:
    if bits == BITS_POSITIVE_INF:
        return sign * INF
    return math.copysign(float(exact_value(bits)), sign)


@pytest.mark.parametrize("sign", [1, -1])
def test_midpoints_of_every_binade_round_to_even(sign):
    count = 0
    for low in _neighbour_pairs():
        high = low + 1  # the next value up; 0x7F800000 stands for 2**128
        lower, upper = exact_value(low), exact_value(high)
        midpoint = (lower + upper) / 2
        nudge = (upper - lower) / 2**40
        even = low if low % 2 == 0 else high  # even significand = even pattern
        expected = _signed_value(even, sign)
        assert same(round_fraction(sign * midpoint), expected), hex(low)
        assert same(round_fraction(sign * (midpoint - nudge)), _signed_value(low, sign))
        assert same(round_fraction(sign * (midpoint + nudge)), _signed_value(high, sign))
        # a midpoint has at most 25 significant bits: binary64 holds it exactly
        as_float = float(sign * midpoint)
        assert Fraction(as_float) == sign * midpoint
        assert same(round_to_binary32(as_float), expected)
        assert same(numpy_round(as_float), expected)
        count += 1
    assert count == 255 * len(MIDPOINT_FRACTIONS) + 252


# ---------------------------------------------------------------------------
# Agreement with numpy's cast and with MPFR
# ---------------------------------------------------------------------------


@settings(max_examples=300)
@given(st.floats())
@example(NAN)
@example(-0.0)
@example(float(OVERFLOW_THRESHOLD))
@example(2.0**-150)
@example(1.7976931348623157e308)
def test_floats_agree_with_numpy_cast(x):
    assert same(round_to_binary32(x), numpy_round(x))


dropped_low_bits = st.integers(0, 2**29 - 1) | st.sampled_from(
    [0, 1, 2**28 - 1, 2**28, 2**28 + 1, 2**29 - 1]
)


@settings(max_examples=300)
@given(binary32_by_bits, dropped_low_bits)
def test_floats_between_binary32_neighbours_agree_with_numpy_cast(x, low):
    """binary64 values x + (low bits below the binary32 ulp): ties included."""
    if math.isinf(x):
        return
    y = struct.unpack("<d", struct.pack("<Q", f64_bits(x) | low))[0]
    assert same(round_to_binary32(y), numpy_round(y))


integers = (
    st.integers()
    | st.integers(-(2**130), 2**130)
    | st.builds(lambda m, e: m << e, st.integers(-(2**30), 2**30), st.integers(0, 140))
)


@settings(max_examples=200)
@given(integers)
@example(OVERFLOW_THRESHOLD)
@example(OVERFLOW_THRESHOLD - 1)
@example(2**24 + 1)
def test_integers_agree_with_mpfr_and_numpy(n):
    result = round_to_binary32(n)
    assert same(result, gmpy2_round(n))
    if abs(n) <= 2**53:  # exactly a binary64 value: numpy's cast is a reference
        assert same(result, numpy_round(float(n)))


def _scaled_fraction(numerator: int, denominator: int, scale: int) -> Fraction:
    return Fraction(numerator, denominator) * Fraction(2) ** scale


fractions = st.fractions() | st.builds(
    _scaled_fraction,
    st.integers(-(2**80), 2**80),
    st.integers(1, 2**80),
    st.integers(-200, 160),
)


@settings(max_examples=200)
@given(fractions)
def test_fractions_agree_with_mpfr(q):
    assert same(round_fraction(q), gmpy2_round(q))
    if q != 0:
        assert same(round_to_binary32(q), gmpy2_round(q))


# ---------------------------------------------------------------------------
# Input types
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.longdouble])
def test_numpy_floating_scalars_use_their_exact_value(dtype):
    info = np.finfo(dtype)
    values = [dtype(1) / dtype(3), dtype(0.1), info.max, info.smallest_subnormal, info.eps]
    for value in values:
        n, d = value.as_integer_ratio()
        assert same(round_to_binary32(value), round_fraction(Fraction(int(n), int(d))))
    assert same(round_to_binary32(dtype(-0.0)), -0.0)
    assert math.isnan(round_to_binary32(dtype("nan")))
    assert round_to_binary32(dtype("-inf")) == -INF


@pytest.mark.parametrize(
    "dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64]
)
def test_numpy_integer_scalars(dtype):
    for value in (np.iinfo(dtype).max, np.iinfo(dtype).min, 0, 1):
        assert same(round_to_binary32(dtype(value)), gmpy2_round(int(value)))
    assert round_to_binary32(np.bool_(True)) == 1.0


def test_mpmath_values():
    with mpmath.workprec(200):
        third = mpmath.mpf(1) / 3
    mantissa, exponent = third.man_exp
    exact = Fraction(int(mantissa)) * Fraction(2) ** int(exponent)
    negative = -third
    assert same(round_to_binary32(negative), -round_fraction(exact))
    assert same(round_to_binary32(third), round_fraction(exact))
    assert same(round_to_binary32(third), round_fraction(Fraction(1, 3)))
    assert same(round_to_binary32(mpmath.mpf(2) ** -200), 0.0)
    assert same(round_to_binary32(-(mpmath.mpf(2) ** -200)), -0.0)
    assert round_to_binary32(mpmath.mpf(2) ** 200) == INF
    assert same(round_to_binary32(mpmath.mpf(0)), 0.0)
    assert same(round_to_binary32(mpmath.mpf(2**24 + 1)), 2.0**24)
    assert math.isnan(round_to_binary32(mpmath.nan))
    assert round_to_binary32(mpmath.inf) == INF
    assert round_to_binary32(-mpmath.inf) == -INF


def test_gmpy2_values():
    third = gmpy2.mpfr(gmpy2.mpq(1, 3), 300)
    assert same(round_to_binary32(third), round_fraction(Fraction(1, 3)))
    assert same(round_to_binary32(gmpy2.mpz(2**24 + 1)), 2.0**24)
    assert same(round_to_binary32(gmpy2.mpq(-1, 3)), round_fraction(Fraction(-1, 3)))
    assert same(round_to_binary32(gmpy2.mpfr("-0")), -0.0)
    assert same(round_to_binary32(gmpy2.mpfr("0")), 0.0)
    assert math.isnan(round_to_binary32(gmpy2.mpfr("nan")))
    assert round_to_binary32(gmpy2.mpfr("-inf")) == -INF
    assert round_to_binary32(gmpy2.mpz(10) ** 400) == INF


@pytest.mark.parametrize("value", ["1.0", 1j, Decimal(1), None, [1.0]])
def test_unsupported_types_raise_type_error(value):
    with pytest.raises(TypeError, match="round_to_binary32"):
        round_to_binary32(value)


# ---------------------------------------------------------------------------
# round_float64_array: the vectorised first-principles cast
# ---------------------------------------------------------------------------


def _numpy_cast_bits(values: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return values.astype(np.float32).view(np.uint32)


def _assert_matches_numpy_cast(values: np.ndarray) -> None:
    ours = round_float64_array(values).view(np.uint32)
    theirs = _numpy_cast_bits(values)
    nan = np.isnan(values)
    mismatch = np.flatnonzero((ours != theirs) & ~nan)
    assert mismatch.size == 0, [
        (values[i].hex(), hex(ours[i]), hex(theirs[i])) for i in mismatch[:5]
    ]
    # NaNs: quiet, the input's sign, the top 22 payload bits (independent formula)
    in_bits = values.view(np.uint64)[nan]
    expected = (
        ((in_bits >> np.uint64(32)) & np.uint64(SIGN_BIT))
        | np.uint64(0x7FC00000)
        | ((in_bits >> np.uint64(29)) & np.uint64(0x3FFFFF))
    ).astype(np.uint32)
    assert np.array_equal(ours[nan], expected)


def _structured_float64(rng: np.random.Generator, size: int) -> np.ndarray:
    """float64 values around the binary32 range with forced tie patterns."""
    exponent = rng.integers(-160, 131, size=size)  # IEEE exponent of the leading bit
    fraction = rng.integers(0, 2**52, size=size, dtype=np.uint64)
    # bits dropped by the rounding: 29 normally, more for subnormal results
    dropped = np.clip(29 + np.maximum(-126 - exponent, 0), 29, 53).astype(np.uint64)
    half = np.uint64(1) << (dropped - np.uint64(1))
    mask = (np.uint64(1) << dropped) - np.uint64(1)
    kind = rng.integers(0, 6, size=size)
    low = np.select(
        [kind == 0, kind == 1, kind == 2, kind == 3, kind == 4],
        [half, half - np.uint64(1), half + np.uint64(1), np.uint64(0), mask],
        fraction,
    )
    fraction = np.where(dropped <= 52, (fraction & ~mask) | (low & mask), fraction)
    fraction &= np.uint64(2**52 - 1)
    biased = (exponent + 1023).astype(np.uint64)
    sign = rng.integers(0, 2, size=size, dtype=np.uint64) << np.uint64(63)
    return (sign | (biased << np.uint64(52)) | fraction).view(np.float64)


def test_round_float64_array_matches_numpy_on_millions_of_patterns():
    rng = np.random.default_rng(20240601)
    uniform = rng.integers(0, 2**64, size=2_000_000, dtype=np.uint64).view(np.float64)
    _assert_matches_numpy_cast(uniform)
    _assert_matches_numpy_cast(_structured_float64(rng, 1_000_000))
    specials = np.array(
        [0.0, -0.0, INF, -INF, NAN, -NAN, MAX_FINITE, -MAX_FINITE, MIN_NORMAL, MIN_SUBNORMAL,
         float(OVERFLOW_THRESHOLD), math.nextafter(float(OVERFLOW_THRESHOLD), 0.0),
         2.0**-150, math.nextafter(2.0**-150, 1.0), 3 * 2.0**-150, 5e-324, -5e-324,
         2.2250738585072014e-308, 1.7976931348623157e308, 2.0**128, 1 + 2.0**-24],
        np.float64,
    )  # fmt: skip
    nan_payloads = np.array(
        [0x7FF0000000000001, 0xFFF0000000000001, 0x7FF4000000000000, 0x7FFFFFFFFFFFFFFF],
        np.uint64,
    ).view(np.float64)
    _assert_matches_numpy_cast(np.concatenate([specials, nan_payloads]))


CONTIGUOUS_CENTRES = [
    1 + 2.0**-24,  # tie in the middle of a normal binade
    2.0**-126 - 2.0**-150,  # tie between the largest subnormal and MIN_NORMAL
    2.0**-150,  # tie between 0 and MIN_SUBNORMAL
    3 * 2.0**-150,  # subnormal tie
    float(OVERFLOW_THRESHOLD),  # overflow threshold
    MAX_FINITE,
]


@pytest.mark.parametrize("centre", CONTIGUOUS_CENTRES)
def test_round_float64_array_bit_exact_on_contiguous_ranges(centre):
    """Every binary64 pattern within 2**18 of a boundary, both signs."""
    for signed in (centre, -centre):
        start = f64_bits(signed) - 2**18
        patterns = np.arange(start, start + 2**19, dtype=np.uint64)
        values = patterns.view(np.float64)
        ours = round_float64_array(values).view(np.uint32)
        assert np.array_equal(ours, _numpy_cast_bits(values))


def test_round_float64_array_shapes_and_types():
    values = np.arange(24, dtype=np.float64).reshape(4, 6)[:, ::2] / 3  # not contiguous
    result = round_float64_array(values)
    assert result.dtype == np.float32 and result.shape == (4, 3)
    assert np.array_equal(result.view(np.uint32), _numpy_cast_bits(values))
    assert not np.shares_memory(result, values)
    assert round_float64_array(np.float64(1) / 3).shape == ()
    assert bits_array(np.float32(1.0)).shape == ()
    assert ulp_distance_array(np.float32(1.0), np.float32(2.0)).shape == ()
    with pytest.raises(TypeError, match="float64"):
        round_float64_array(np.zeros(3, np.float32))
    with pytest.raises(TypeError, match="float64"):
        round_float64_array(np.zeros(3, np.int64))


@settings(max_examples=100)
@given(st.lists(st.floats(), min_size=1, max_size=40))
def test_round_float64_array_agrees_with_scalar_rounding(values):
    """Two independent implementations: vectorised bit surgery vs exact ratios."""
    result = round_float64_array(np.array(values, np.float64))
    for x, r in zip(values, result.tolist(), strict=True):
        assert same(r, round_to_binary32(x))


# ---------------------------------------------------------------------------
# Bit patterns
# ---------------------------------------------------------------------------


def test_from_bits_matches_numpy_reinterpretation():
    patterns = spread_patterns(14, seed=1)
    floats = patterns.view(np.float32)
    for bits, value in zip(patterns.tolist(), floats.tolist(), strict=True):
        decoded = from_bits(bits)
        assert same(decoded, value), hex(bits)
        if not is_nan_bits(bits):
            assert Fraction(decoded) == exact_value(bits) or math.isinf(decoded)


@pytest.mark.parametrize("chunk", range(2))
def test_round_trip_through_the_exact_value(chunk):
    """from_bits -> exact Fraction -> round_fraction -> to_bits on 2**16 patterns.

    Every combination of sign, exponent and the top 7 fraction bits occurs
    (the exhaustive module repeats this over 2**22 patterns).
    """
    patterns = spread_patterns(16, seed=2)[chunk::2].tolist()
    checked = 0
    for bits in patterns:
        if (bits & 0x7F800000) == 0x7F800000:
            continue  # inf and NaN: test_non_finite_bit_patterns
        negative = bool(bits & SIGN_BIT)
        value = exact_value(bits)
        assert to_bits(round_fraction(value, negative_zero=negative)) == bits
        decoded = from_bits(bits)
        assert to_bits(decoded) == bits
        assert is_binary32(decoded)
        checked += 1
    assert checked > 0.99 * len(patterns)


def test_non_finite_bit_patterns():
    assert from_bits(BITS_POSITIVE_INF) == INF and from_bits(BITS_NEGATIVE_INF) == -INF
    assert to_bits(from_bits(BITS_POSITIVE_INF)) == BITS_POSITIVE_INF
    assert to_bits(NAN) == BITS_DEFAULT_NAN  # Python's nan is the positive quiet NaN
    for sign in (0, SIGN_BIT):
        for payload in (0, 1, 0x12345, 0x3FFFFF):
            quiet = sign | 0x7FC00000 | payload
            assert math.isnan(from_bits(quiet))
            assert to_bits(from_bits(quiet)) == quiet  # quiet NaNs round-trip exactly
            assert math.copysign(1.0, from_bits(quiet)) == (-1.0 if sign else 1.0)
            if payload:
                signalling = sign | 0x7F800000 | payload
                assert math.isnan(from_bits(signalling))
                # the float conversion may quiet a signalling NaN (documented)
                assert to_bits(from_bits(signalling)) in (signalling, signalling | QUIET_BIT)


@pytest.mark.parametrize(
    "value", [0.1, 1 + 2.0**-24, 2.0**-150, 3 * 2.0**-150, 1e39, 2.0**128, 5e-324, -(2**24 + 1.0)]
)
def test_to_bits_rejects_values_that_are_not_binary32(value):
    assert not is_binary32(value)
    with pytest.raises(ValueError, match="not exactly representable in binary32") as info:
        to_bits(value)
    assert repr(round_to_binary32(value)) in str(info.value)


def test_from_bits_rejects_bad_patterns():
    for bad in (-1, 2**32, 2**40):
        with pytest.raises(ValueError, match="outside"):
            from_bits(bad)
    for bad in (1.0, "1", None):
        with pytest.raises(TypeError):
            from_bits(bad)
    assert from_bits(np.uint32(0x3F800000)) == 1.0
    assert to_bits(np.float32(1.5)) == 0x3FC00000
    with pytest.raises(TypeError):
        to_bits("1.0")


@settings(max_examples=300)
@given(st.floats() | binary32_floats)
def test_is_binary32_matches_a_numpy_round_trip(x):
    with np.errstate(all="ignore"):
        survives = float(np.float32(x)) == x
    assert is_binary32(x) == (math.isnan(x) or survives)
    assert is_binary32(x) == (math.isnan(x) or round_to_binary32(x) == x)


# ---------------------------------------------------------------------------
# Ordinals, neighbours and ULP distances
# ---------------------------------------------------------------------------


def test_ordinal_landmarks():
    assert ordinal(0.0) == ordinal(-0.0) == 0
    assert ordinal(MIN_SUBNORMAL) == 1 and ordinal(-MIN_SUBNORMAL) == -1
    assert ordinal(MIN_NORMAL) == 0x00800000
    assert ordinal(1.0) == 0x3F800000
    assert ordinal(MAX_FINITE) == 0x7F7FFFFF
    assert ordinal(INF) == 0x7F800000 and ordinal(-INF) == -0x7F800000
    with pytest.raises(ValueError, match="NaN"):
        ordinal(NAN)
    with pytest.raises(ValueError, match="not exactly representable"):
        ordinal(0.1)


@settings(max_examples=200)
@given(non_nan_binary32, non_nan_binary32)
def test_ordinal_is_monotone_and_odd(a, b):
    assert (a < b) == (ordinal(a) < ordinal(b))
    assert (a == b) == (ordinal(a) == ordinal(b))
    assert ordinal(-a) == -ordinal(a)
    back = from_ordinal(ordinal(a))
    assert back == a and (a != 0 or same(back, 0.0))


def _twos_complement_key(values: np.ndarray) -> np.ndarray:
    """The classic sortable-int trick, written independently of the module."""
    signed = values.view(np.int32).astype(np.int64)
    return np.where(signed < 0, -(2**31) - signed, signed)


def test_ordinal_array_matches_the_twos_complement_key():
    patterns = spread_patterns(16, seed=3)
    patterns = patterns[~np.isnan(patterns.view(np.float32))]
    values = patterns.view(np.float32)
    keys = ordinal_array(values)
    assert keys.dtype == np.int64
    assert np.array_equal(keys, _twos_complement_key(values))
    assert keys[::97].tolist() == [ordinal(x) for x in values[::97].tolist()]


def test_from_ordinal_range():
    assert same(from_ordinal(0), 0.0)
    assert from_ordinal(0x7F800000) == INF and from_ordinal(-0x7F800000) == -INF
    assert from_ordinal(-1) == -MIN_SUBNORMAL
    for bad in (0x7F800001, -0x7F800001):
        with pytest.raises(ValueError, match="outside"):
            from_ordinal(bad)


def test_next_up_and_next_down_landmarks():
    assert same(next_up(-MIN_SUBNORMAL), -0.0)
    assert next_up(0.0) == MIN_SUBNORMAL and next_up(-0.0) == MIN_SUBNORMAL
    assert next_up(MAX_FINITE) == INF and next_up(INF) == INF
    assert next_up(-INF) == -MAX_FINITE
    assert next_up(1.0) == 1 + EPSILON
    assert next_up(next_down(MIN_NORMAL)) == MIN_NORMAL
    assert next_down(MIN_NORMAL) == MIN_NORMAL - MIN_SUBNORMAL
    assert same(next_down(MIN_SUBNORMAL), 0.0)
    assert next_down(0.0) == -MIN_SUBNORMAL and next_down(-0.0) == -MIN_SUBNORMAL
    assert next_down(-INF) == -INF and next_down(-MAX_FINITE) == -INF
    assert next_down(1.0) == 1 - EPSILON / 2
    assert math.isnan(next_up(NAN)) and math.isnan(next_down(NAN))
    with pytest.raises(ValueError):
        next_up(0.1)
    with pytest.raises(ValueError):
        next_down(1 + 2.0**-30)


@settings(max_examples=200)
@given(non_nan_binary32)
def test_next_up_and_next_down_match_numpy_nextafter(x):
    x32 = np.float32(x)
    with np.errstate(all="ignore"):
        up = float(np.nextafter(x32, np.float32(INF)))
        down = float(np.nextafter(x32, np.float32(-INF)))
    assert same(next_up(x), up)
    assert same(next_down(x), down)


def test_ulp_distance_landmarks():
    assert ulp_distance(0.0, -0.0) == 0
    assert ulp_distance(MIN_SUBNORMAL, -MIN_SUBNORMAL) == 2
    assert ulp_distance(MAX_FINITE, INF) == 1
    assert ulp_distance(-INF, INF) == 2 * 0x7F800000
    assert ulp_distance(1.0, 1 + EPSILON) == 1
    assert ulp_distance(1.0, 1 - EPSILON / 2) == 1
    assert ulp_distance(NAN, NAN) == 0
    assert ulp_distance(NAN, 1.0) is None and ulp_distance(1.0, NAN) is None
    assert ulp_distance(NAN, INF) is None


@settings(max_examples=150)
@given(non_nan_binary32, st.integers(0, 30))
def test_ulp_distance_counts_next_up_steps(a, steps):
    b, taken = a, 0
    while taken < steps and b != INF:
        b, taken = next_up(b), taken + 1
    assert ulp_distance(a, b) == taken == ulp_distance(b, a)


def test_ulp_distance_array_matches_scalars_and_handles_nans():
    patterns = spread_patterns(14, seed=4)
    rng = np.random.default_rng(5)
    a = patterns.view(np.float32)
    b = rng.permutation(patterns).view(np.float32)
    distance = ulp_distance_array(a, b)
    assert distance.dtype == np.int64
    expected = [ulp_distance(x, y) for x, y in zip(a.tolist(), b.tolist(), strict=True)]
    assert distance.tolist() == [-1 if d is None else d for d in expected]
    independent = np.abs(_twos_complement_key(a) - _twos_complement_key(b))
    both_finite = ~np.isnan(a) & ~np.isnan(b)
    assert np.array_equal(distance[both_finite], independent[both_finite])
    column = np.array([[1.0], [NAN], [-0.0]], np.float32)
    row = np.array([[1.0, NAN, 0.0, INF]], np.float32)
    grid = ulp_distance_array(column, row)
    assert grid.shape == (3, 4)
    assert grid.tolist() == [
        [0, -1, 0x3F800000, 0x7F800000 - 0x3F800000],
        [-1, 0, -1, -1],
        [0x3F800000, -1, 0, 0x7F800000],
    ]
    with pytest.raises(TypeError, match="float32"):
        ulp_distance_array(np.zeros(2), np.zeros(2, np.float32))


# ---------------------------------------------------------------------------
# ULP
# ---------------------------------------------------------------------------


def test_ulp_landmarks():
    assert ulp(1.0) == 2.0**-23 and ulp(-1.0) == 2.0**-23
    assert ulp(1 - EPSILON / 2) == 2.0**-24
    assert ulp(0.0) == ulp(-0.0) == ulp(0) == MIN_SUBNORMAL
    assert ulp(MIN_SUBNORMAL) == ulp(MIN_NORMAL) == MIN_SUBNORMAL
    assert ulp(2 * MIN_NORMAL) == 2 * MIN_SUBNORMAL
    assert ulp(MAX_FINITE) == 2.0**104
    assert ulp(1e39) == 2.0**104  # beyond the format: the top binade's spacing
    assert ulp(INF) == INF and ulp(-INF) == INF and math.isnan(ulp(NAN))
    assert ulp(Fraction(1, 3)) == 2.0**-25
    assert ulp(2**24 + 1) == 2.0


@settings(max_examples=200)
@given(finite_binary32)
def test_ulp_is_the_gap_to_the_next_magnitude(x):
    magnitude = abs(x)
    if magnitude == MAX_FINITE:
        return
    gap = next_up(magnitude) - magnitude  # exact in binary64
    assert ulp(x) == gap
    assert ulp(x) == abs(float(np.spacing(np.float32(x))))


@settings(max_examples=200)
@given(st.floats(min_value=2.0**-126, max_value=2.0**128, exclude_max=True))
def test_ulp_of_any_value_in_the_normal_range(x):
    _, exponent = math.frexp(x)  # x = m * 2**exponent, 0.5 <= m < 1
    assert ulp(x) == 2.0 ** (exponent - 1 - 23)
    assert ulp(Fraction(x)) == ulp(x) == ulp(-x)


# ---------------------------------------------------------------------------
# Classification
# ---------------------------------------------------------------------------


def _numpy_class(bits: int, value: np.float32) -> FloatClass:
    negative = bool(np.signbit(value))
    if np.isnan(value):
        return FloatClass.QUIET_NAN if bits & QUIET_BIT else FloatClass.SIGNALING_NAN
    if np.isinf(value):
        return FloatClass.NEGATIVE_INF if negative else FloatClass.POSITIVE_INF
    if value == 0:
        return FloatClass.NEGATIVE_ZERO if negative else FloatClass.POSITIVE_ZERO
    if abs(value) < np.finfo(np.float32).smallest_normal:
        return FloatClass.NEGATIVE_SUBNORMAL if negative else FloatClass.POSITIVE_SUBNORMAL
    return FloatClass.NEGATIVE_NORMAL if negative else FloatClass.POSITIVE_NORMAL


def test_classify_bits_matches_numpy_predicates():
    patterns = np.concatenate(
        [
            spread_patterns(14, seed=6),
            np.array([0, SIGN_BIT, 1, SIGN_BIT | 1, 0x7F800000, 0xFF800000, 0x7F800001,
                      0xFFC00000, 0x7FBFFFFF], np.uint32),
        ]
    )  # fmt: skip
    seen = set()
    for bits, value in zip(patterns.tolist(), patterns.view(np.float32), strict=True):
        expected = _numpy_class(bits, value)
        assert classify_bits(bits) is expected, hex(bits)
        seen.add(expected)
        if expected is not FloatClass.SIGNALING_NAN:
            assert classify(from_bits(bits)) is expected
    assert seen == set(FloatClass)


def test_classify_floats():
    assert classify(-0.0) is FloatClass.NEGATIVE_ZERO
    assert classify(0.0) is FloatClass.POSITIVE_ZERO
    assert classify(-MIN_SUBNORMAL) is FloatClass.NEGATIVE_SUBNORMAL
    assert classify(MIN_NORMAL) is FloatClass.POSITIVE_NORMAL
    assert classify(MIN_NORMAL - MIN_SUBNORMAL) is FloatClass.POSITIVE_SUBNORMAL
    assert classify(-INF) is FloatClass.NEGATIVE_INF
    assert classify(NAN) is FloatClass.QUIET_NAN
    assert classify_bits(0x7F800001) is FloatClass.SIGNALING_NAN
    assert classify_bits(0xFF800001) is FloatClass.SIGNALING_NAN
    with pytest.raises(ValueError, match="not exactly representable"):
        classify(0.1)
    with pytest.raises(ValueError, match="outside"):
        classify_bits(2**32)


# ---------------------------------------------------------------------------
# gmpy2 emulation
# ---------------------------------------------------------------------------


def test_binary32_context_parameters():
    ctx = binary32_context()
    assert (ctx.precision, ctx.emin, ctx.emax) == (24, -148, 128)
    assert ctx.subnormalize and ctx.round == gmpy2.RoundToNearest
    assert not (ctx.trap_overflow or ctx.trap_underflow or ctx.trap_invalid or ctx.trap_divzero)
    assert binary32_context() is not ctx  # a fresh context each call
    with ctx:
        assert float(gmpy2.mpfr(2) ** 128) == INF
        assert float(gmpy2.mpfr(2) ** -149) == MIN_SUBNORMAL
        assert float(gmpy2.mpfr(2) ** -150) == 0.0  # tie to even at the bottom
        assert float(gmpy2.mpfr(gmpy2.mpq(3, 2**150))) == 2 * MIN_SUBNORMAL  # 1.5: tie, even
        # every intermediate is rounded: 2**-150 itself already becomes +0
        assert float(gmpy2.mpfr(3) * gmpy2.mpfr(2) ** -150) == 0.0


exponents = st.integers(-149, 127)
scaled_binary32 = st.builds(
    lambda m, e: math.ldexp(float(m), e - 23) if e > -126 else math.ldexp(float(m), -149),
    st.integers(-(2**24) + 1, 2**24 - 1),
    exponents,
).filter(is_binary32)


@settings(max_examples=150)
@given(scaled_binary32, scaled_binary32)
def test_binary32_context_arithmetic_matches_exact_rounding(a, b):
    ctx = binary32_context()
    x, y = Fraction(a), Fraction(b)
    with ctx:
        ma, mb = gmpy2.mpfr(a), gmpy2.mpfr(b)
        pairs = [(ma * mb, x * y), (ma + mb, x + y), (ma - mb, x - y)]
        if b != 0:
            pairs.append((ma / mb, x / y))
        if a > 0:
            pairs.append((gmpy2.sqrt(ma), None))
    for got, exact in pairs:
        if exact is None:  # sqrt: the exact-sqrt proxy defined with the arithmetic tests
            exact = exact_sqrt_proxy(x)
        if exact != 0:
            assert same(float(got), round_fraction(exact))


@settings(max_examples=200)
@given(fractions.filter(lambda q: q != 0), st.integers(25, 300))
def test_round_mpfr_matches_mpfr_rounding(q, precision):
    wide = gmpy2.mpfr(gmpy2.mpq(q.numerator, q.denominator), precision)
    with binary32_context():
        narrowed = float(gmpy2.mpfr(wide))  # MPFR's own single rounding
    assert same(round_mpfr(wide), narrowed)
    n, d = wide.as_integer_ratio()
    assert same(round_mpfr(wide), round_fraction(Fraction(int(n), int(d))))


def test_round_mpfr_specials():
    assert same(round_mpfr(gmpy2.mpfr("-0")), -0.0)
    assert math.isnan(round_mpfr(gmpy2.mpfr("nan")))
    assert round_mpfr(gmpy2.mpfr("-inf")) == -INF
    assert same(round_mpfr(-(gmpy2.mpfr(2) ** -200)), -0.0)
    with pytest.raises(TypeError, match="mpfr"):
        round_mpfr(1.0)


# ---------------------------------------------------------------------------
# bits_array
# ---------------------------------------------------------------------------


def test_bits_array_is_a_reinterpretation():
    patterns = np.concatenate(
        [spread_patterns(14, seed=7), np.array([0x7F800001, 0xFFBFFFFF], np.uint32)]
    )
    values = patterns.view(np.float32)
    bits = bits_array(values)
    assert bits.dtype == np.uint32 and np.array_equal(bits, patterns)  # sNaNs kept
    assert not np.shares_memory(bits, values)
    finite = np.isfinite(values)
    assert bits[finite][::31].tolist() == [to_bits(x) for x in values[finite][::31].tolist()]
    strided = values.reshape(2, -1)[:, ::3]
    assert np.array_equal(bits_array(strided), patterns.reshape(2, -1)[:, ::3])
    with pytest.raises(TypeError, match="float32"):
        bits_array(np.zeros(3))


# ---------------------------------------------------------------------------
# Exact arithmetic rounded once vs numpy float32 arithmetic
# ---------------------------------------------------------------------------


def _negative(x: float) -> bool:
    return math.copysign(1.0, x) < 0


def ref_add(a: float, b: float) -> float:
    """IEEE addition of binary32 a and b: exact sum rounded once."""
    if math.isnan(a) or math.isnan(b):
        return NAN
    if math.isinf(a) or math.isinf(b):
        if math.isinf(a) and math.isinf(b) and _negative(a) != _negative(b):
            return NAN
        return a if math.isinf(a) else b
    # IEEE 754 6.3: an exact zero sum is +0 in round-to-nearest, except -0 + -0
    return round_fraction(Fraction(a) + Fraction(b), negative_zero=_negative(a) and _negative(b))


def ref_sub(a: float, b: float) -> float:
    return ref_add(a, -b)  # IEEE defines a - b as a + (-b), signed zeros included


def ref_mul(a: float, b: float) -> float:
    if math.isnan(a) or math.isnan(b):
        return NAN
    negative = _negative(a) != _negative(b)
    if math.isinf(a) or math.isinf(b):
        if a == 0 or b == 0:
            return NAN
        return -INF if negative else INF
    return round_fraction(Fraction(a) * Fraction(b), negative_zero=negative)


def ref_div(a: float, b: float) -> float:
    if math.isnan(a) or math.isnan(b):
        return NAN
    if (math.isinf(a) and math.isinf(b)) or (a == 0 and b == 0):
        return NAN
    negative = _negative(a) != _negative(b)
    if math.isinf(a) or b == 0:
        return -INF if negative else INF
    if math.isinf(b):
        return -0.0 if negative else 0.0
    return round_fraction(Fraction(a) / Fraction(b), negative_zero=negative)


def exact_sqrt_proxy(q: Fraction) -> Fraction:
    """A rational that rounds to binary32 exactly as sqrt(q) does (q > 0).

    s = isqrt(floor(q * 4**k)) with k chosen so s has at least 27 bits, so
    sqrt(q) lies in [s, s + 1) / 2**k.  If sqrt(q) is exactly s / 2**k that
    is returned; otherwise (2s + 1) / 2**(k + 1), strictly inside the same
    interval (a sticky bit).  No binary32 value or midpoint (a multiple of at
    least 4 units of 2**-k at 27+ bits) lies strictly inside the interval, so
    both round alike.
    """
    n, d = q.numerator, q.denominator
    k = max(0, (56 - n.bit_length() + d.bit_length()) // 2 + 1)
    scaled, remainder = divmod(n << (2 * k), d)
    s = math.isqrt(scaled)
    assert s.bit_length() >= 27
    if remainder == 0 and s * s == scaled:
        return Fraction(s, 2**k)
    return Fraction(2 * s + 1, 2 ** (k + 1))


def ref_sqrt(a: float, _unused: float = 0.0) -> float:
    if math.isnan(a) or a == 0 or a == INF:
        return a  # sqrt(+-0) = +-0, sqrt(inf) = inf
    if a < 0:
        return NAN
    return round_fraction(exact_sqrt_proxy(Fraction(a)))


SPECIAL_BITS = [
    0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001,
    0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x80800000, 0x7F7FFFFF,
    0xFF7FFFFF, 0x3F800000, 0xBF800000, 0x3F800001, 0x3F7FFFFF, 0x4B800000, 0x1F800000,
    0x5F800000, 0x00400000,
]  # fmt: skip


def _operand_pairs(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Deterministic binary32 operand pairs mixing every class and hard cases.

    All special x special combinations; specials x random values; uniform
    random patterns; near-equal pairs (cancellation, quotients near 1); and
    exponent-targeted pairs whose exact products and quotients land in the
    subnormal range, around the underflow threshold or around overflow.
    """
    rng = np.random.default_rng(seed)
    specials = np.array(SPECIAL_BITS, np.uint32)
    cross_a = np.repeat(specials, specials.size)
    cross_b = np.tile(specials, specials.size)
    quarter = (count - cross_a.size) // 4

    uniform_a = rng.integers(0, 2**32, quarter, dtype=np.uint32)
    uniform_b = rng.integers(0, 2**32, quarter, dtype=np.uint32)
    uniform_b[: quarter // 4] = rng.choice(specials, quarter // 4)

    near_a = rng.integers(0, 2**32, quarter, dtype=np.uint32)
    delta = rng.integers(-40, 41, quarter).astype(np.int64)
    near_b = (near_a.astype(np.int64) + delta).clip(0, 2**32 - 1).astype(np.uint32)
    near_b ^= rng.integers(0, 2, quarter, dtype=np.uint32) << np.uint32(31)

    rest = count - cross_a.size - 3 * quarter
    exponent_a = rng.integers(-127, 128, rest)
    target = np.where(rng.integers(0, 2, rest) == 0, rng.integers(-155, -118, rest),
                      rng.integers(122, 131, rest))  # fmt: skip
    divide = rng.integers(0, 2, rest) == 1  # target a quotient or a product exponent
    exponent_b = np.where(divide, exponent_a - target, target - exponent_a).clip(-127, 127)
    sign_a = rng.integers(0, 2, rest, dtype=np.uint32) << np.uint32(31)
    sign_b = rng.integers(0, 2, rest, dtype=np.uint32) << np.uint32(31)
    fraction_a = rng.integers(0, 2**23, rest, dtype=np.uint32)
    fraction_b = rng.integers(0, 2**23, rest, dtype=np.uint32)
    # biased exponent 0 (from -127) gives subnormal operands
    targeted_a = sign_a | ((exponent_a + 127).astype(np.uint32) << np.uint32(23)) | fraction_a
    targeted_b = sign_b | ((exponent_b + 127).astype(np.uint32) << np.uint32(23)) | fraction_b

    a = np.concatenate([cross_a, uniform_a, near_a, targeted_a])
    b = np.concatenate([cross_b, uniform_b, near_b, targeted_b])
    return a.view(np.float32), b.view(np.float32)


OPERATIONS: dict[str, tuple[Callable[..., np.ndarray], Callable[..., float]]] = {
    "add": (np.add, ref_add),
    "sub": (np.subtract, ref_sub),
    "mul": (np.multiply, ref_mul),
    "div": (np.divide, ref_div),
    "sqrt": (lambda a, _b: np.sqrt(a), ref_sqrt),
}


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_exact_arithmetic_rounded_once_agrees_with_numpy_float32(name):
    """5 * 10**4 operand pairs per operation (2.5 * 10**5 in all), every class included."""
    numpy_op, reference = OPERATIONS[name]
    a, b = _operand_pairs(50_000, seed=list(OPERATIONS).index(name))
    if name == "sqrt":  # mostly non-negative radicands; every class still occurs first
        bits = a.view(np.uint32)
        keep_sign = np.arange(bits.size) % 8 == 0
        bits = np.where(keep_sign, bits, bits & np.uint32(0x7FFFFFFF)).astype(np.uint32)
        a = np.concatenate([np.array(SPECIAL_BITS, np.uint32), bits]).view(np.float32)
        b = np.zeros_like(a)
    classes = {classify_bits(x) for x in a.view(np.uint32).tolist()}
    assert classes == set(FloatClass)  # every class occurs as an operand
    with np.errstate(all="ignore"):
        actual = numpy_op(a, b).astype(np.float64).tolist()
    mismatches = []
    for x, y, got in zip(a.tolist(), b.tolist(), actual, strict=True):
        expected = reference(x, y)
        if not same(got, expected):
            mismatches.append((x, y, got, expected))
    assert not mismatches, mismatches[:10]
