"""Tests for oracle.reference.exact: the exact binary32 elementwise rules.

Three kinds of evidence, each independent of the code under test:

* hand-derived IEEE 754 facts, including every elementwise edge case that
  reference-semantics.md names (expected values are written as exact
  binary32 constants or bit patterns worked out by hand);
* hypothesis properties over every binary32 class, built from bit patterns,
  compared with numpy's hardware float32 arithmetic (NaN-ness compared
  instead of NaN bits, except for the bit-copy operations);
* a vectorised agreement run of add/sub/mul/div/sqrt with numpy over about
  50,000 structured pairs: all combinations of boundary values, halfway
  (ties-to-even) sums and products at binade boundaries and in the
  subnormal range, overflow by one ULP, and random patterns of every class.

Signalling NaNs cannot be carried in a Python float (see oracle.binary32), so
the bit-copy checks use quiet NaNs with various payloads and both signs.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from oracle.binary32 import MAX_FINITE, MIN_NORMAL, MIN_SUBNORMAL, from_bits, to_bits
from oracle.reference import exact

INF = math.inf
NAN = math.nan
MAX = MAX_FINITE
TINY = MIN_SUBNORMAL
MAX_SUBNORMAL = from_bits(0x007FFFFF)
ONE_UP = from_bits(0x3F800001)  # 1 + 2**-23
ONE_DOWN = from_bits(0x3F7FFFFF)  # 1 - 2**-24
NAN_PAYLOAD = from_bits(0x7FC12345)
NEG_NAN_PAYLOAD = from_bits(0xFFC0BEEF)


def f32_bits(x: float) -> int:
    """binary32 bits by the platform's double->float conversion (not to_bits)."""
    return struct.unpack("<I", struct.pack("<f", x))[0]


def same(got: float, want: float) -> bool:
    """Both NaN, or the same binary32 bit pattern (so +0 and -0 differ)."""
    if math.isnan(got) or math.isnan(want):
        return math.isnan(got) and math.isnan(want)
    return f32_bits(got) == f32_bits(want)


def np32(x: float) -> np.float32:
    return np.float32(x)


# ---------------------------------------------------------------------------
# Hand-derived facts
# ---------------------------------------------------------------------------

# (operation, operands, expected); NAN means "any NaN".
FACTS = [
    # add: ties to even, signed zeros, overflow, invalid
    ("add", (1.0, 2.0**-24), 1.0),  # halfway between 1 and 1 + 2**-23: even is 1
    ("add", (ONE_UP, 2.0**-24), 1 + 2.0**-22),  # halfway, even is 1 + 2**-22
    ("add", (1.0, 2.0**-24 + 2.0**-47), ONE_UP),  # just above halfway
    ("add", (ONE_DOWN, 2.0**-25), 1.0),  # halfway at the binade boundary: up to even 1
    ("add", (2.0**24, 1.0), 2.0**24),  # 2**24 + 1 is halfway: even 2**24
    ("add", (2.0**24, 3.0), 2.0**24 + 4),  # 2**24 + 3 halfway: even 2**24 + 4
    ("add", (MAX, 2.0**103), INF),  # halfway to 2**128: overflow
    ("add", (MAX, from_bits(0x72FFFFFF)), MAX),  # just below halfway: stays
    ("add", (-MAX, -(2.0**103)), -INF),
    ("add", (MAX, MAX), INF),
    ("add", (MIN_NORMAL, -TINY), MAX_SUBNORMAL),  # exact subnormal result
    ("add", (TINY, TINY), 2 * TINY),
    ("add", (3.0, -3.0), 0.0),  # x + (-x) = +0
    ("add", (-3.0, 3.0), 0.0),
    ("add", (-TINY, TINY), 0.0),
    ("add", (-0.0, -0.0), -0.0),
    ("add", (-0.0, 0.0), 0.0),
    ("add", (0.0, -0.0), 0.0),
    ("add", (-0.0, 5.0), 5.0),
    ("add", (-0.0, -TINY), -TINY),
    ("add", (INF, -INF), NAN),
    ("add", (-INF, INF), NAN),
    ("add", (INF, INF), INF),
    ("add", (-INF, MAX), -INF),
    ("add", (NAN, 1.0), NAN),
    ("add", (INF, NAN), NAN),
    # sub
    ("sub", (-0.0, 0.0), -0.0),
    ("sub", (0.0, 0.0), 0.0),
    ("sub", (-0.0, -0.0), 0.0),
    ("sub", (0.0, -0.0), 0.0),
    ("sub", (7.0, 7.0), 0.0),
    ("sub", (-7.0, -7.0), 0.0),
    ("sub", (INF, INF), NAN),
    ("sub", (INF, -INF), INF),
    ("sub", (1.0, 2.0**-25), 1.0),  # half the spacing 2**-24 below 1: tie, even is 1
    ("sub", (1.0, 2.0**-24), ONE_DOWN),
    ("sub", (ONE_UP, 1.0), 2.0**-23),
    ("sub", (from_bits(0x00800001), MIN_NORMAL), TINY),
    ("sub", (-MAX, 2.0**103), -INF),
    ("sub", (NAN, NAN), NAN),
    # mul
    ("mul", (-0.0, 5.0), -0.0),
    ("mul", (5.0, -0.0), -0.0),
    ("mul", (-0.0, -0.0), 0.0),
    ("mul", (-0.0, -5.0), 0.0),
    ("mul", (0.0, INF), NAN),
    ("mul", (-INF, -0.0), NAN),
    ("mul", (-INF, 2.0), -INF),
    ("mul", (-INF, -TINY), INF),
    ("mul", (MAX, 2.0), INF),
    ("mul", (MAX, -ONE_UP), -INF),
    ("mul", (MAX, ONE_DOWN), from_bits(0x7F7FFFFE)),
    ("mul", (2.0**-75, 2.0**-75), 0.0),  # exactly half of 2**-149: even is 0
    ("mul", (-(2.0**-75), 2.0**-75), -0.0),  # underflow keeps the sign
    ("mul", (2.0**-75, 2.0**-75 * ONE_UP), TINY),  # just above half
    ("mul", (1.5, TINY), 2 * TINY),  # 1.5 quanta: tie, even is 2
    ("mul", (2.5, TINY), 2 * TINY),  # 2.5 quanta: tie, even is 2
    ("mul", (3.5, TINY), 4 * TINY),
    ("mul", (-(2.0**-100), 2.0**-100), -0.0),
    ("mul", (0.5, MIN_NORMAL), from_bits(0x00400000)),  # exact subnormal
    ("mul", (ONE_UP, ONE_UP), from_bits(0x3F800002)),  # 1 + 2**-22 + 2**-46: down
    ("mul", (NAN, 0.0), NAN),
    # div
    ("div", (1.0, 0.0), INF),
    ("div", (-1.0, 0.0), -INF),
    ("div", (1.0, -0.0), -INF),
    ("div", (-TINY, -0.0), INF),
    ("div", (0.0, 0.0), NAN),
    ("div", (-0.0, 0.0), NAN),
    ("div", (INF, INF), NAN),
    ("div", (-INF, INF), NAN),
    ("div", (-INF, 2.0), -INF),
    ("div", (INF, -0.0), -INF),
    ("div", (1.0, INF), 0.0),
    ("div", (-1.0, INF), -0.0),
    ("div", (1.0, -INF), -0.0),
    ("div", (0.0, -3.0), -0.0),
    ("div", (-0.0, -3.0), 0.0),
    ("div", (1.0, 3.0), from_bits(0x3EAAAAAB)),
    ("div", (2.0, 3.0), from_bits(0x3F2AAAAB)),
    ("div", (TINY, 2.0), 0.0),  # half a quantum: even is 0
    ("div", (-TINY, 2.0), -0.0),
    ("div", (3 * TINY, 2.0), 2 * TINY),  # 1.5 quanta: even is 2
    ("div", (MAX, 0.5), INF),
    ("div", (MIN_NORMAL, MAX), 0.0),  # 2**-254-ish: underflow
    ("div", (1.0, NAN), NAN),
    # recip
    ("recip", (0.0,), INF),
    ("recip", (-0.0,), -INF),
    ("recip", (INF,), 0.0),
    ("recip", (-INF,), -0.0),
    ("recip", (TINY,), INF),
    ("recip", (2.0**-128,), INF),  # 2**128 overflows
    ("recip", (2.0**-127,), 2.0**127),
    ("recip", (MAX,), 2.0**-128),  # 2**-128 * (1 + 2**-24 + ...): 1/8 quantum above
    ("recip", (-4.0,), -0.25),
    ("recip", (3.0,), from_bits(0x3EAAAAAB)),
    ("recip", (NAN,), NAN),
    # rem (C fmod)
    ("rem", (-6.0, 3.0), -0.0),
    ("rem", (6.0, -3.0), 0.0),
    ("rem", (-6.0, -3.0), -0.0),
    ("rem", (7.0, 3.0), 1.0),
    ("rem", (7.0, -3.0), 1.0),
    ("rem", (-7.0, 3.0), -1.0),
    ("rem", (5.5, 2.0), 1.5),
    ("rem", (-5.5, 2.0), -1.5),
    ("rem", (1.0, 0.0), NAN),
    ("rem", (1.0, -0.0), NAN),
    ("rem", (0.0, 0.0), NAN),
    ("rem", (INF, 1.0), NAN),
    ("rem", (-INF, INF), NAN),
    ("rem", (3.0, INF), 3.0),
    ("rem", (-3.0, -INF), -3.0),
    ("rem", (-0.0, INF), -0.0),
    ("rem", (-0.0, 5.0), -0.0),
    ("rem", (0.0, -5.0), 0.0),
    ("rem", (MAX, TINY), 0.0),
    ("rem", (MAX, 3.0), 0.0),  # (2**24 - 1) * 2**104 and 3 | 2**24 - 1
    ("rem", (MAX, 5.0), 0.0),  # 5 | 2**24 - 1 as well (2**24 = 16**6 = 1 mod 5)
    ("rem", (MAX, 7.0), 0.0),  # 2**24 - 1 = 4095 * 4097 and 7 | 4095
    ("rem", (MAX, 11.0), 9.0),  # 2**24 - 1 = 4 and 2**104 = 2**4 = 5 (mod 11); 4 * 5 = 9
    ("rem", (TINY, MAX), TINY),
    ("rem", (-3 * TINY, 2 * TINY), -TINY),
    ("rem", (NAN, 1.0), NAN),
    ("rem", (1.0, NAN), NAN),
    # sqrt
    ("sqrt", (-0.0,), -0.0),
    ("sqrt", (0.0,), 0.0),
    ("sqrt", (INF,), INF),
    ("sqrt", (-INF,), NAN),
    ("sqrt", (-1.0,), NAN),
    ("sqrt", (-TINY,), NAN),
    ("sqrt", (NAN,), NAN),
    ("sqrt", (4.0,), 2.0),
    ("sqrt", (0.25,), 0.5),
    ("sqrt", (2.0,), from_bits(0x3FB504F3)),
    ("sqrt", (2.0**-148,), 2.0**-74),
    ("sqrt", (TINY,), from_bits(0x1A3504F3)),  # sqrt(2**-149) = sqrt(2) * 2**-75
    ("sqrt", (MAX,), from_bits(0x5F7FFFFF)),  # 2**64 * sqrt(1 - 2**-24): just below 2**64
    ("sqrt", (ONE_UP,), 1.0),  # 1 + 2**-24 - ...: just below halfway
    ("sqrt", (from_bits(0x3F800002),), ONE_UP),  # 1 + 2**-23 - 2**-47 - ...: nearest
    ("sqrt", (ONE_DOWN,), ONE_DOWN),  # 1 - 2**-25 - ...: below halfway to 1
    # sign
    ("sign", (-0.0,), 0.0),
    ("sign", (0.0,), 0.0),
    ("sign", (TINY,), 1.0),
    ("sign", (-TINY,), -1.0),
    ("sign", (INF,), 1.0),
    ("sign", (-INF,), -1.0),
    ("sign", (NAN,), NAN),
    # floor, ceil, round
    ("floor", (0.5,), 0.0),
    ("floor", (-0.5,), -1.0),
    ("floor", (-0.0,), -0.0),
    ("floor", (-TINY,), -1.0),
    ("floor", (TINY,), 0.0),
    ("floor", (2.0**23 - 0.5,), 2.0**23 - 1),
    ("floor", (-(2.0**23 - 0.5),), -(2.0**23)),
    ("floor", (2.0**24 + 2,), 2.0**24 + 2),
    ("floor", (-INF,), -INF),
    ("floor", (NAN,), NAN),
    ("ceil", (-0.5,), -0.0),
    ("ceil", (-0.0,), -0.0),
    ("ceil", (-ONE_DOWN,), -0.0),
    ("ceil", (0.5,), 1.0),
    ("ceil", (TINY,), 1.0),
    ("ceil", (-1.5,), -1.0),
    ("ceil", (INF,), INF),
    ("ceil", (NAN,), NAN),
    ("round", (2.5,), 2.0),
    ("round", (3.5,), 4.0),
    ("round", (-2.5,), -2.0),
    ("round", (1.5,), 2.0),
    ("round", (-1.5,), -2.0),
    ("round", (0.5,), 0.0),
    ("round", (-0.5,), -0.0),
    ("round", (-0.25,), -0.0),
    ("round", (-TINY,), -0.0),
    ("round", (TINY,), 0.0),
    ("round", (from_bits(0x3EFFFFFF),), 0.0),  # the largest value below 1/2
    ("round", (from_bits(0x3F000001),), 1.0),  # the smallest value above 1/2
    ("round", (2.0**23 - 0.5,), 2.0**23),  # 8388607.5: tie, even is 8388608
    ("round", (2.0**23 - 1.5,), 2.0**23 - 2),  # 8388606.5: tie, even is 8388606
    ("round", (-0.0,), -0.0),
    ("round", (-INF,), -INF),
    ("round", (MAX,), MAX),
    ("round", (NAN,), NAN),
    # maximum, minimum (IEEE 754-2019)
    ("maximum", (0.0, -0.0), 0.0),
    ("maximum", (-0.0, 0.0), 0.0),
    ("maximum", (-0.0, -0.0), -0.0),
    ("minimum", (0.0, -0.0), -0.0),
    ("minimum", (-0.0, 0.0), -0.0),
    ("minimum", (0.0, 0.0), 0.0),
    ("maximum", (NAN, 1.0), NAN),
    ("maximum", (1.0, NAN), NAN),
    ("maximum", (-INF, NAN), NAN),
    ("minimum", (NAN, INF), NAN),
    ("minimum", (-INF, NAN), NAN),
    ("maximum", (-INF, INF), INF),
    ("minimum", (-INF, INF), -INF),
    ("maximum", (-TINY, -0.0), -0.0),
    ("minimum", (TINY, 0.0), 0.0),
    ("maximum", (ONE_DOWN, 1.0), 1.0),
    # clamp
    ("clamp", (5.0, 3.0, 1.0), 1.0),  # lo > hi gives hi
    ("clamp", (0.0, 3.0, 1.0), 1.0),
    ("clamp", (2.0, -INF, INF), 2.0),
    ("clamp", (-2.0, -1.0, 1.0), -1.0),
    ("clamp", (2.0, -1.0, 1.0), 1.0),
    ("clamp", (-0.0, 0.0, 1.0), 0.0),
    ("clamp", (0.0, -1.0, -0.0), -0.0),
    ("clamp", (NAN, 0.0, 1.0), NAN),
    ("clamp", (0.5, NAN, 1.0), NAN),
    ("clamp", (0.5, 0.0, NAN), NAN),
    ("clamp", (INF, 0.0, MAX), MAX),
    # relu
    ("relu", (-0.0,), 0.0),
    ("relu", (0.0,), 0.0),
    ("relu", (-TINY,), 0.0),
    ("relu", (-INF,), 0.0),
    ("relu", (TINY,), TINY),
    ("relu", (INF,), INF),
    ("relu", (NAN,), NAN),
    # leaky_relu (slope 0.01f)
    ("leaky_relu", (-0.0,), -0.0),
    ("leaky_relu", (0.0,), 0.0),
    ("leaky_relu", (3.0,), 3.0),
    ("leaky_relu", (INF,), INF),
    ("leaky_relu", (-INF,), -INF),
    ("leaky_relu", (-1.0,), -exact.LEAKY_RELU_SLOPE),
    ("leaky_relu", (-100.0,), -1.0),  # 0.99999997764...: nearer 1 than 1 - 2**-24
    ("leaky_relu", (-TINY,), -0.0),  # 0.01 quanta underflows, sign kept
    ("leaky_relu", (-(2.0**-142),), -TINY),  # 1.28 quanta
    ("leaky_relu", (NAN,), NAN),
]


def _fact_id(fact) -> str:
    name, args, _ = fact
    return f"{name}{args}"


@pytest.mark.parametrize(("name", "args", "expected"), FACTS, ids=[_fact_id(f) for f in FACTS])
def test_hand_derived_fact(name, args, expected):
    got = getattr(exact, name)(*args)
    assert type(got) is float
    assert same(got, expected), f"{name}{args} = {got!r}, expected {expected!r}"


PREDICATE_FACTS = [
    ("eq", (-0.0, 0.0), True),
    ("eq", (NAN, NAN), False),
    ("eq", (NAN, 1.0), False),
    ("eq", (INF, INF), True),
    ("eq", (TINY, 0.0), False),
    ("ne", (NAN, NAN), True),
    ("ne", (NAN, 1.0), True),
    ("ne", (-0.0, 0.0), False),
    ("ne", (1.0, ONE_UP), True),
    ("lt", (-0.0, 0.0), False),
    ("lt", (0.0, -0.0), False),
    ("lt", (NAN, 1.0), False),
    ("lt", (1.0, NAN), False),
    ("lt", (-INF, INF), True),
    ("lt", (-TINY, -0.0), True),
    ("le", (0.0, -0.0), True),
    ("le", (-0.0, 0.0), True),
    ("le", (NAN, NAN), False),
    ("le", (INF, NAN), False),
    ("le", (ONE_UP, 1.0), False),
    ("logical_not", (0.0,), True),
    ("logical_not", (-0.0,), True),
    ("logical_not", (NAN,), False),
    ("logical_not", (TINY,), False),
    ("logical_not", (-INF,), False),
]


@pytest.mark.parametrize(
    ("name", "args", "expected"), PREDICATE_FACTS, ids=[_fact_id(f) for f in PREDICATE_FACTS]
)
def test_predicate_fact(name, args, expected):
    got = getattr(exact, name)(*args)
    assert type(got) is bool
    assert got is expected


BIT_COPY_FACTS = [
    ("neg", (0x00000000,), 0x80000000),
    ("neg", (0x80000000,), 0x00000000),
    ("neg", (0xFF800000,), 0x7F800000),
    ("neg", (0x00000001,), 0x80000001),
    ("neg", (0x7FC12345,), 0xFFC12345),
    ("neg", (0xFFC0BEEF,), 0x7FC0BEEF),
    ("neg", (0x7FFFFFFF,), 0xFFFFFFFF),
    ("abs", (0x80000000,), 0x00000000),
    ("abs", (0xFF800000,), 0x7F800000),
    ("abs", (0x807FFFFF,), 0x007FFFFF),
    ("abs", (0xFFC00001,), 0x7FC00001),
    ("abs", (0x7FC12345,), 0x7FC12345),
    ("abs", (0xFFFFFFFF,), 0x7FFFFFFF),
]


@pytest.mark.parametrize(
    ("name", "args", "expected"), BIT_COPY_FACTS, ids=[_fact_id(f) for f in BIT_COPY_FACTS]
)
def test_bit_copy_fact(name, args, expected):
    got = getattr(exact, name)(*(from_bits(b) for b in args))
    assert f32_bits(got) == expected


def test_leaky_relu_slope_is_0_01f():
    assert to_bits(exact.LEAKY_RELU_SLOPE) == 0x3C23D70A
    assert float(np.float32(0.01)) == exact.LEAKY_RELU_SLOPE
    assert Fraction(exact.LEAKY_RELU_SLOPE) == Fraction(10737418, 2**30)


def test_nan_results_are_quiet_nans():
    for got in (exact.add(INF, -INF), exact.sqrt(-1.0), exact.rem(INF, 1.0), exact.sign(NAN)):
        assert math.isnan(got)
        assert f32_bits(got) & 0x7FC00000 == 0x7FC00000


@pytest.mark.parametrize("nan", [NAN_PAYLOAD, NEG_NAN_PAYLOAD, from_bits(0x7FFFFFFF)])
def test_select_copies_the_chosen_operand_bits(nan):
    assert f32_bits(exact.select(True, nan, 1.0)) == f32_bits(nan)
    assert f32_bits(exact.select(False, 1.0, nan)) == f32_bits(nan)
    assert f32_bits(exact.select(False, nan, -0.0)) == 0x80000000
    assert f32_bits(exact.select(np.bool_(True), -0.0, nan)) == 0x80000000


def test_select_never_reads_the_other_branch():
    assert exact.select(True, 2.0, object()) == 2.0
    assert exact.select(False, "unread", -3.0) == -3.0


@pytest.mark.parametrize("cond", [1, 0, 1.0, None, "yes"])
def test_select_condition_must_be_bool(cond):
    with pytest.raises(TypeError, match="select: operand 0 must be a bool"):
        exact.select(cond, 1.0, 2.0)


def test_operands_are_validated_with_operation_and_position():
    with pytest.raises(TypeError, match=r"add: operand 1 must be a float"):
        exact.add(1.0, 2)
    with pytest.raises(ValueError, match=r"mul: operand 0 = 0.1 is not exactly a binary32"):
        exact.mul(0.1, 1.0)
    with pytest.raises(ValueError, match=r"clamp: operand 2"):
        exact.clamp(0.0, 0.0, 1e300)
    with pytest.raises(TypeError, match=r"neg: operand 0"):
        exact.neg(True)
    # numpy float scalars holding binary32 values are accepted
    assert exact.add(np.float32(1.5), np.float64(0.25)) == 1.75


# ---------------------------------------------------------------------------
# Strategies: every binary32 class, from bit patterns
# ---------------------------------------------------------------------------

SPECIAL_BITS = [
    0x00000000,  # +0
    0x00000001,  # MIN_SUBNORMAL
    0x00000002,
    0x007FFFFF,  # largest subnormal
    0x00800000,  # MIN_NORMAL
    0x00800001,
    0x3F7FFFFF,  # 1 - 2**-24
    0x3F800000,  # 1
    0x3F800001,  # 1 + 2**-23
    0x3FC00000,  # 1.5
    0x4B000000,  # 2**23
    0x4B800000,  # 2**24
    0x7F7FFFFE,
    0x7F7FFFFF,  # MAX_FINITE
    0x7F800000,  # inf
    0x7FC00000,  # default NaN
    0x7FC12345,  # NaN with payload
    0x7FFFFFFF,  # NaN, all payload bits
]

signs = st.sampled_from([0, 0x80000000])
magnitude_bits = st.one_of(
    st.sampled_from(SPECIAL_BITS),
    st.integers(0, 0x007FFFFF),  # zeros and subnormals
    st.integers(0x00800000, 0x7F7FFFFF),  # normals
    st.integers(0x3F000000, 0x40800000),  # [0.5, 4]: ordinary arithmetic, roundings
    st.integers(0x7F7FFF00, 0x7F7FFFFF),  # near MAX_FINITE
    st.integers(0x7FC00000, 0x7FFFFFFF),  # quiet NaNs with payloads
    st.integers(0x7F800001, 0x7FBFFFFF),  # signalling patterns (carried quieted)
)
binary32_bits = st.builds(lambda s, m: s | m, signs, magnitude_bits)
binary32_values = binary32_bits.map(from_bits)
positive_finite_bits = st.one_of(
    st.sampled_from([b for b in SPECIAL_BITS if 0 < b < 0x7F800000]),
    st.integers(1, 0x007FFFFF),
    st.integers(0x00800000, 0x7F7FFFFF),
    st.integers(0x3F000000, 0x40800000),
    st.integers(0x7F7FFF00, 0x7F7FFFFF),
)
positive_finite = positive_finite_bits.map(from_bits)
nonzero_finite = st.builds(lambda s, m: from_bits(s | m), signs, positive_finite_bits)
finite_values = nonzero_finite | st.sampled_from([0.0, -0.0])


@st.composite
def close_pairs(draw):
    """Pairs with nearby magnitudes, so sums cancel and exponents align."""
    x_bits = draw(binary32_bits)
    delta = draw(st.integers(-(2**12), 2**12) | st.integers(-(2**25), 2**25))
    y_magnitude = min(max((x_bits & 0x7FFFFFFF) + delta, 0), 0x7F800000)
    y_bits = draw(signs) | y_magnitude
    return from_bits(x_bits), from_bits(y_bits)


pairs = st.tuples(binary32_values, binary32_values) | close_pairs()


def numpy_agrees(got: float, want: np.float32) -> bool:
    """NaN-ness, or bit equality with numpy's float32 result."""
    want_bits = int(np.array(want, dtype=np.float32).view(np.uint32))
    want_nan = (want_bits & 0x7FFFFFFF) > 0x7F800000
    if math.isnan(got) or want_nan:
        return math.isnan(got) and want_nan
    return f32_bits(got) == want_bits


BINARY_NUMPY = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "rem": np.fmod,
}
UNARY_NUMPY = {
    "sqrt": np.sqrt,
    "floor": np.floor,
    "ceil": np.ceil,
    "round": np.rint,
    "sign": np.sign,
    "recip": np.reciprocal,
}


BINARY_PREDICATES_NUMPY = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
}
EXTREMA_NUMPY = {"maximum": np.maximum, "minimum": np.minimum}


@given(pair=pairs)
@example(pair=(-6.0, 3.0))
@example(pair=(MAX, 2.0**103))
@example(pair=(NAN, NAN))
@example(pair=(-0.0, 0.0))
def test_binary_operations_match_numpy(pair):
    x, y = pair
    x32, y32 = np32(x), np32(y)
    failures = []
    with np.errstate(all="ignore"):
        for name, reference in BINARY_NUMPY.items():
            got, want = getattr(exact, name)(x, y), reference(x32, y32)
            if not numpy_agrees(got, want):
                failures.append((name, got, want))
        # numpy's maximum(+0, -0) depends on the argument order; that pair is
        # checked against the IEEE rule in test_derived_rules_and_signed_zeros.
        if not (x == 0.0 and y == 0.0):
            for name, reference in EXTREMA_NUMPY.items():
                got, want = getattr(exact, name)(x, y), reference(x32, y32)
                if not numpy_agrees(got, want):
                    failures.append((name, got, want))
        for name, reference in BINARY_PREDICATES_NUMPY.items():
            got, want = getattr(exact, name)(x, y), bool(reference(x32, y32))
            if got is not want:
                failures.append((name, got, want))
    assert not failures, f"({x!r}, {y!r}): (operation, oracle, numpy) {failures}"


@given(x=binary32_values)
@example(x=-0.5)
@example(x=2.5)
@example(x=-0.0)
def test_unary_operations_match_numpy(x):
    x32 = np32(x)
    failures = []
    with np.errstate(all="ignore"):
        for name, reference in UNARY_NUMPY.items():
            got, want = getattr(exact, name)(x), reference(x32)
            if not numpy_agrees(got, want):
                failures.append((name, got, want))
        # leaky_relu: x if x >= 0 else the float32 product with 0.01f
        want = x32 if x32 >= 0 else np.float32(exact.LEAKY_RELU_SLOPE) * x32
        if not numpy_agrees(exact.leaky_relu(x), want):
            failures.append(("leaky_relu", exact.leaky_relu(x), want))
        if exact.logical_not(x) is not bool(np.logical_not(x32)):
            failures.append(("logical_not", exact.logical_not(x), np.logical_not(x32)))
        # bit-copy operations: the NaN payload and sign bits must match too
        array = np.array([x], dtype=np.float32)
        for name, reference in (("neg", np.negative), ("abs", np.abs)):
            got, want_bits = getattr(exact, name)(x), int(reference(array).view(np.uint32)[0])
            if f32_bits(got) != want_bits:
                failures.append((name, hex(f32_bits(got)), hex(want_bits)))
    assert not failures, f"({x!r}): (operation, oracle, numpy) {failures}"


@given(cond=st.booleans(), pair=pairs)
@example(cond=True, pair=(0.0, -0.0))
@example(cond=False, pair=(-0.0, 0.0))
def test_derived_rules_and_signed_zeros(cond, pair):
    x, y = pair
    assert exact.select(cond, x, y) is (x if cond else y)
    assert same(exact.sub(x, y), exact.add(x, exact.neg(y)))
    assert same(exact.add(x, y), exact.add(y, x))
    assert same(exact.mul(x, y), exact.mul(y, x))
    assert same(exact.recip(x), exact.div(1.0, x))
    assert same(exact.relu(x), exact.maximum(x, 0.0))
    assert same(exact.clamp(x, y, 1.0), exact.minimum(exact.maximum(x, y), 1.0))
    assert same(exact.clamp(1.0, x, y), exact.minimum(exact.maximum(1.0, x), y))
    # IEEE maximum/minimum are symmetric, zeros included: -0 < +0
    high, low = exact.maximum(x, y), exact.minimum(x, y)
    assert same(high, exact.maximum(y, x)) and same(low, exact.minimum(y, x))
    if x == 0.0 and y == 0.0:
        negative = math.copysign(1, x) < 0, math.copysign(1, y) < 0
        assert same(high, -0.0 if all(negative) else 0.0)
        assert same(low, -0.0 if any(negative) else 0.0)


@given(x=finite_values, y=nonzero_finite)
@example(x=-6.0, y=3.0)
@example(x=MAX, y=TINY)
def test_rem_is_exact_with_the_dividend_sign(x, y):
    r = exact.rem(x, y)
    fx, fy, fr = Fraction(x), Fraction(y), Fraction(r)
    quotient = (fx - fr) / fy
    assert quotient.denominator == 1  # x - r is an integer multiple of y
    assert abs(fr) < abs(fy)
    assert math.copysign(1, r) == math.copysign(1, x)  # zeros included
    assert same(exact.rem(x, exact.neg(y)), r)


@given(x=positive_finite)
@example(x=TINY)
@example(x=MAX)
def test_sqrt_is_the_correctly_rounded_root(x):
    r = exact.sqrt(x)
    fx = Fraction(x)
    below = Fraction(from_bits(to_bits(r) - 1))
    above = Fraction(from_bits(to_bits(r) + 1))
    # r is nearest: the midpoints to its neighbours bracket sqrt(x)
    assert ((below + Fraction(r)) / 2) ** 2 <= fx <= ((above + Fraction(r)) / 2) ** 2


# ---------------------------------------------------------------------------
# Vectorised agreement with numpy on ~50,000 structured pairs
# ---------------------------------------------------------------------------

BOUNDARY_MAGNITUDES = [
    0x00000000,
    0x00000001,
    0x00000002,
    0x00000003,
    0x00400000,
    0x007FFFFE,
    0x007FFFFF,
    0x00800000,
    0x00800001,
    0x00FFFFFF,
    0x01000000,
    0x1F800000,  # 2**-64
    0x33800000,  # 2**-24
    0x34000000,  # 2**-23
    0x3DCCCCCD,  # 0.1f
    0x3EAAAAAB,  # 1/3
    0x3F7FFFFF,
    0x3F800000,
    0x3F800001,
    0x3FC00000,
    0x40000000,
    0x40400000,
    0x4B000000,  # 2**23
    0x4B7FFFFF,
    0x4B800000,  # 2**24
    0x5F800000,  # 2**64
    0x7EFFFFFF,
    0x7F000000,  # 2**127
    0x7F7FFFFE,
    0x7F7FFFFF,
    0x7F800000,
    0x7FC00000,
    0x7FC12345,
]
BOUNDARY_BITS = np.array(
    [m | s for m in BOUNDARY_MAGNITUDES for s in (0, 0x80000000)], dtype=np.uint32
)


def _tie_pairs(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """x + y exactly halfway between neighbours, many at binade boundaries."""
    biased = rng.integers(2, 254, size=n, dtype=np.uint32)
    fraction = rng.integers(0, 2**23, size=n, dtype=np.uint32)
    # a quarter of them at the top of a binade (fraction all ones), where the
    # carry of the round-up reaches the next binade
    fraction[: n // 4] = 0x7FFFFF
    fraction[n // 4 : n // 2] = 0
    x = (biased << np.uint32(23)) | fraction
    # y is half an ulp of x: biased exponent 24 lower, or a subnormal half-ulp
    half_ulp_biased = biased.astype(np.int64) - 24
    y = np.where(
        half_ulp_biased >= 1,
        (np.maximum(half_ulp_biased, 1).astype(np.uint32) << np.uint32(23)),
        np.uint32(1) << np.clip(half_ulp_biased + 22, 0, 22).astype(np.uint32),
    ).astype(np.uint32)
    sign = rng.integers(0, 2, size=n, dtype=np.uint32) << np.uint32(31)
    flip = rng.integers(0, 2, size=n, dtype=np.uint32) << np.uint32(31)
    return x | sign, y | (sign ^ flip)


def _subnormal_product_pairs(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Products and quotients landing in or near the subnormal range."""
    ex = rng.integers(-149, 60, size=n)
    target = rng.integers(-160, -120, size=n)
    ey = target - ex
    mx = rng.integers(2**23, 2**24, size=n)
    my = rng.integers(2**23, 2**24, size=n)
    mx[: n // 3] = 2**23 + 2**22  # 1.5 * 2**k: exact halves of the quantum
    x = np.ldexp(mx.astype(np.float64), ex - 23)
    y = np.ldexp(my.astype(np.float64), np.clip(ey, -126, 127) - 23)
    with np.errstate(all="ignore"):
        xs = x.astype(np.float32).view(np.uint32)
        ys = y.astype(np.float32).view(np.uint32)
    return xs, ys


def _subnormal_sum_pairs(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Sums and differences of values in the lowest binades: subnormal results."""
    x = rng.integers(0, 0x01800000, size=n, dtype=np.uint32)
    delta = rng.integers(-(2**23), 2**23, size=n)
    y = np.clip(x.astype(np.int64) + delta, 0, 0x01800000).astype(np.uint32)
    sign = rng.integers(0, 2, size=n, dtype=np.uint32) << np.uint32(31)
    opposite = np.where(rng.random(n) < 0.75, np.uint32(0x80000000), np.uint32(0))
    return x | sign, y | (sign ^ opposite)


def _overflow_pairs() -> tuple[np.ndarray, np.ndarray]:
    """MAX_FINITE and its neighbours against half-ulp and one-ulp steps."""
    tops = [0x7F7FFFFF, 0x7F7FFFFE, 0x7F000000, 0x7EFFFFFF]
    steps = [0x73000000, 0x72FFFFFF, 0x73000001, 0x73800000, 0x3F800000, 0x3F800001,
             0x3F7FFFFF, 0x40000000, 0x7F7FFFFF, 0x00000001]  # fmt: skip
    xs, ys = [], []
    for t in tops:
        for s in steps:
            for sign in (0, 0x80000000):
                xs.append(t | sign)
                ys.append(s | sign)
    return np.array(xs, dtype=np.uint32), np.array(ys, dtype=np.uint32)


def _random_pairs(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every exponent equally likely (so subnormals, MAX and NaN are common)."""

    def draw() -> np.ndarray:
        biased = rng.integers(0, 256, size=n, dtype=np.uint32)
        fraction = rng.integers(0, 2**23, size=n, dtype=np.uint32)
        sign = rng.integers(0, 2, size=n, dtype=np.uint32) << np.uint32(31)
        bits = sign | (biased << np.uint32(23)) | fraction
        # NaN patterns are carried quieted
        nan = biased == 255
        bits[nan & (fraction != 0)] |= np.uint32(0x00400000)
        return bits

    x = draw()
    y = draw()
    # a third are close in magnitude to x, for cancellation
    close = slice(0, n // 3)
    delta = rng.integers(-(2**24), 2**24, size=n // 3)
    y[close] = (y[close] & np.uint32(0x80000000)) | np.clip(
        (x[close] & np.uint32(0x7FFFFFFF)).astype(np.int64) + delta, 0, 0x7F800000
    ).astype(np.uint32)
    return x, y


@pytest.fixture(scope="module")
def structured_pairs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(20240601)
    grid_x = np.repeat(BOUNDARY_BITS, BOUNDARY_BITS.size)
    grid_y = np.tile(BOUNDARY_BITS, BOUNDARY_BITS.size)
    parts = [
        (grid_x, grid_y),
        _tie_pairs(rng, 8000),
        _subnormal_product_pairs(rng, 8000),
        _subnormal_sum_pairs(rng, 4000),
        _overflow_pairs(),
    ]
    used = sum(p[0].size for p in parts)
    parts.append(_random_pairs(rng, 50_000 - used))
    x = np.concatenate([p[0] for p in parts]).view(np.float32)
    y = np.concatenate([p[1] for p in parts]).view(np.float32)
    return x, y


def _oracle(name: str, *columns: np.ndarray) -> np.ndarray:
    function = getattr(exact, name)
    values = [function(*args) for args in zip(*(c.tolist() for c in columns))]
    return np.array(values, dtype=np.float32)


def _assert_agree(got: np.ndarray, want: np.ndarray, x: np.ndarray, y=None) -> None:
    got_bits, want_bits = got.view(np.uint32), want.view(np.uint32)
    both_nan = np.isnan(got) & np.isnan(want)
    bad = np.flatnonzero(~both_nan & (got_bits != want_bits))
    if bad.size:
        i = bad[0]
        operands = f"{x[i]!r}" if y is None else f"{x[i]!r}, {y[i]!r}"
        raise AssertionError(
            f"{bad.size} disagreements; first at ({operands}): oracle {got[i]!r} "
            f"({got_bits[i]:#010x}), numpy {want[i]!r} ({want_bits[i]:#010x})"
        )


def _halfway_sums(x: np.ndarray, y: np.ndarray) -> int:
    """How many x + y are exactly halfway between two binary32 neighbours.

    Uses float64, where the sum is exact whenever the two-sum error is 0.
    """
    with np.errstate(all="ignore"):
        x64, y64 = x.astype(np.float64), y.astype(np.float64)
        s64 = x64 + y64
        exact_sum = np.isfinite(s64) & (s64 - x64 == y64) & (s64 - y64 == x64)
        r = s64.astype(np.float32)
        r64 = r.astype(np.float64)
        toward = np.where(s64 > r64, np.float32(np.inf), np.float32(-np.inf))
        neighbour = np.nextafter(r, toward).astype(np.float64)
        halfway = (r64 != s64) & (np.abs(s64 - r64) == np.abs(neighbour - s64))
    return int(np.count_nonzero(exact_sum & np.isfinite(r) & halfway))


def test_structured_pairs_cover_the_interesting_results(structured_pairs):
    x, y = structured_pairs
    assert x.size == 50_000
    with np.errstate(all="ignore"):
        total, product = x + y, x * y
    finite = np.isfinite(x) & np.isfinite(y)
    assert _halfway_sums(x, y) > 8000  # ties to even
    assert np.count_nonzero((total != 0) & (np.abs(total) < MIN_NORMAL)) > 2000
    assert np.count_nonzero(finite & np.isinf(total)) > 20  # overflow by rounding
    assert np.count_nonzero(finite & np.isinf(product)) > 1000
    assert np.count_nonzero((product != 0) & (np.abs(product) < MIN_NORMAL)) > 2000
    assert np.count_nonzero(finite & (total == 0) & np.signbit(total)) >= 1  # (-0) + (-0)
    assert np.count_nonzero(finite & (total == 0) & ~np.signbit(total)) > 50  # x + (-x)
    assert np.count_nonzero(np.isnan(x) | np.isnan(y)) > 500


@pytest.mark.parametrize(
    ("name", "reference"),
    [("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide)],
)
def test_vectorised_binary_agreement(structured_pairs, name, reference):
    x, y = structured_pairs
    with np.errstate(all="ignore"):
        want = reference(x, y)
    _assert_agree(_oracle(name, x, y), want, x, y)


def test_vectorised_sqrt_agreement(structured_pairs):
    x, y = structured_pairs
    values = np.unique(np.concatenate([x, y]).view(np.uint32)).view(np.float32)
    with np.errstate(all="ignore"):
        want = np.sqrt(values)
    _assert_agree(_oracle("sqrt", values), want, values)
