"""Tests for oracle.reference.accumulate: reductions and the FLOATING acceptance set.

Evidence, independent of the code under test:

* hand-derived edge cases for every rule of reference-semantics.md;
* hypothesis properties against numpy: float32 sequential loops (cumsum,
  reduce_prod, sequential and pairwise sums), numpy max/argmax and float64
  sums rounded to float32;
* soundness of the FLOATING interval by brute force: every evaluation order
  (all binary trees over all subsets, n <= 5 terms) simulated with numpy
  float32 or float64 arithmetic and rounded to float32 must be accepted;
* tightness: for Float64 accumulation of well-conditioned terms the interval
  is at most one ULP wider than the enumerated set, and it never exceeds the
  outward Higham interval [down(S - gamma_{n-1} W), up(S + gamma_{n-1} W)].
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from oracle import DType, resolve_operation_plan
from oracle.binary32 import (
    MAX_FINITE,
    MIN_NORMAL,
    MIN_SUBNORMAL,
    from_bits,
    next_down,
    next_up,
    ordinal,
    round_fraction,
    to_bits,
)
from oracle.expectation import Bounded, Interval
from oracle.reference import accumulate as acc
from oracle.tensor import Tensor

F32, F64, I32 = DType.Float32, DType.Float64, DType.Int32
INF, NAN = math.inf, math.nan
MAX = MAX_FINITE
TINY = MIN_SUBNORMAL
NAN_A = from_bits(0x7FC12345)
NAN_B = from_bits(0xFFC0BEEF)

SUM32 = resolve_operation_plan("reduce_sum", F32)
SUM64 = resolve_operation_plan("reduce_sum", F32, accumulator_dtype=F64)
SUM_I = resolve_operation_plan("reduce_sum", I32)
PROD = resolve_operation_plan("reduce_prod", F32)
MAXP = resolve_operation_plan("reduce_max", F32)
MINP = resolve_operation_plan("reduce_min", F32)
ARGMAX = resolve_operation_plan("argmax", F32)
ARGMIN = resolve_operation_plan("argmin", F32)
CUMSUM = resolve_operation_plan("cumsum", F32)


def t32(data) -> Tensor:
    return Tensor.from_nested(data, F32)


def ti32(data) -> Tensor:
    return Tensor.from_nested(data, I32)


def f32_bits(x: float) -> int:
    return int(np.array([x], dtype=np.float32).view(np.uint32)[0])


def same(got: float, want: float) -> bool:
    """NaN-ness for NaNs, otherwise equal bit patterns (+0 and -0 differ)."""
    if math.isnan(got) or math.isnan(want):
        return math.isnan(got) and math.isnan(want)
    return to_bits(got) == to_bits(want)


def same_bits(a: Tensor, b_values, shape=None) -> bool:
    return (shape is None or a.shape == shape) and a.bits() == tuple(to_bits(v) for v in b_values)


# ---------------------------------------------------------------------------
# Brute force: every evaluation order
# ---------------------------------------------------------------------------


def all_orders(terms: list[float], accumulator) -> list[float]:
    """Every result of every binary tree over the terms, in the accumulator, then to float32.

    Subtrees are memoised per subset of term positions; unordered splits
    (addition commutes) are enumerated with the lowest position on the left.
    """
    kind = np.float32 if accumulator is F32 else np.float64
    values = [kind(t) for t in terms]
    memo: dict[int, dict[bytes, np.floating]] = {}

    def results(mask: int) -> dict[bytes, np.floating]:
        if mask in memo:
            return memo[mask]
        members = [i for i in range(len(terms)) if mask >> i & 1]
        if len(members) == 1:
            out = {values[members[0]].tobytes(): values[members[0]]}
        else:
            out = {}
            first, rest = members[0], members[1:]
            for size in range(len(rest)):
                for chosen in itertools.combinations(rest, size):
                    left = 1 << first | sum(1 << c for c in chosen)
                    for x in results(left).values():
                        for y in results(mask & ~left).values():
                            z = kind(x + y)
                            out[z.tobytes()] = z
        memo[mask] = out
        return out

    if not terms:
        return [0.0]
    with np.errstate(all="ignore"):
        return [float(np.float32(v)) for v in results((1 << len(terms)) - 1).values()]


def test_all_orders_counts_every_tree():
    # 5 distinct terms whose every partial sum is exact: 2**5 - 1 subsets,
    # and the enumeration must visit (2*5 - 3)!! = 105 trees without error.
    assert sorted(all_orders([1.0, 2.0, 4.0, 8.0, 16.0], F32)) == [31.0]
    # rounding differs by order: (2**24 + 1) + 1 = 2**24, 2**24 + (1 + 1) = 2**24 + 2
    assert sorted(all_orders([2.0**24, 1.0, 1.0], F32)) == [2.0**24, 2.0**24 + 2]


# ---------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------

rounding_rich = st.builds(
    lambda m, e, s: s * math.ldexp(m, e),
    st.integers(1, 2**24 - 1),
    st.integers(-40, 0),
    st.sampled_from([1.0, -1.0]),
)
near_overflow = st.builds(
    lambda m, s: s * math.ldexp(m, 104), st.integers(2**22, 2**24 - 1), st.sampled_from([1.0, -1.0])
)
subnormal = st.builds(
    lambda m, s: s * math.ldexp(m, -149), st.integers(1, 2**24 - 1), st.sampled_from([1.0, -1.0])
)
specials = st.sampled_from([0.0, -0.0, INF, -INF, NAN, MAX, -MAX, TINY, -TINY, 1.0, -1.0])
any_float32 = st.floats(width=32)
term = st.one_of(rounding_rich, near_overflow, subnormal, specials, any_float32)
terms_lists = st.lists(term, max_size=5)
positive_terms = st.lists(
    st.builds(lambda m, e: math.ldexp(m, e), st.integers(1, 2**24 - 1), st.integers(-60, 20)),
    min_size=1,
    max_size=5,
)


# ---------------------------------------------------------------------------
# Axis normalisation and argument types
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("axis", "expected"),
    [(None, (0, 1, 2)), (0, (0,)), (-1, (2,)), ((2, 0), (0, 2)), ((-3, 1), (0, 1)), ((), ())],
)
def test_normalize_axes(axis, expected):
    assert acc.normalize_axes("op", axis, (2, 3, 4)) == expected


def test_normalize_axes_accepts_numpy_integers():
    assert acc.normalize_axes("op", np.int64(-1), (2, 3)) == (1,)
    assert acc.normalize_axes("op", (np.int32(0),), (2, 3)) == (0,)


@pytest.mark.parametrize("axis", [(0, -2), (1, 1)])
def test_duplicate_axes_are_a_value_error_naming_the_shape(axis):
    with pytest.raises(ValueError, match=r"more than once.*\(2, 3\)"):
        acc.normalize_axes("reduce_sum", axis, (2, 3))


@pytest.mark.parametrize("axis", [2, -3, (0, 2)])
def test_out_of_range_axis_is_a_value_error_naming_the_shape(axis):
    with pytest.raises(ValueError, match=r"out of range for shape \(2, 3\)"):
        acc.normalize_axes("reduce_sum", axis, (2, 3))


@pytest.mark.parametrize("axis", [1.0, True, np.bool_(False), "0", [0], (0, 1.0), (True,)])
def test_wrong_axis_types_are_type_errors(axis):
    with pytest.raises(TypeError):
        acc.normalize_axes("reduce_sum", axis, (2, 3))


def test_zero_dimensional_tensors():
    x = Tensor.scalar(-0.0, F32)
    assert acc.normalize_axes("op", None, ()) == ()
    assert acc.normalize_axes("op", (), ()) == ()
    with pytest.raises(ValueError, match="0-d"):
        acc.normalize_axes("op", 0, ())
    assert acc.reduce_prod(PROD, x).values == (-0.0,)
    assert math.copysign(1, acc.reduce_prod(PROD, x).values[0]) < 0
    bounded = acc.reduce_sum(SUM32, x)
    assert bounded.shape == () and bounded.intervals[0].accepts(-0.0)
    with pytest.raises(ValueError):
        acc.cumsum(CUMSUM, x, 0)
    assert acc.argmax(ARGMAX, x) == Tensor.scalar(0, I32)


@pytest.mark.parametrize("keepdims", [1, None, "yes"])
def test_keepdims_must_be_bool(keepdims):
    with pytest.raises(TypeError, match="keepdims"):
        acc.reduce_max(MAXP, t32([1.0]), keepdims=keepdims)


def test_operand_dtype_and_kind_are_checked():
    with pytest.raises(TypeError, match="Float32"):
        acc.reduce_sum(SUM32, ti32([1]))
    with pytest.raises(TypeError, match="Tensor"):
        acc.reduce_max(MAXP, [1.0])
    with pytest.raises(ValueError, match="accumulation"):
        acc.reduce_max(MINP, t32([1.0]))


def test_validation_happens_before_overflow():
    # a bad axis is reported even though the sum would overflow
    with pytest.raises(ValueError):
        acc.reduce_sum(SUM_I, ti32([2**31 - 1, 1]), axis=1)


def test_keepdims_shapes():
    x = t32([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert acc.reduce_max(MAXP, x, axis=1, keepdims=True).shape == (2, 1)
    assert acc.reduce_max(MAXP, x, keepdims=True).shape == (1, 1)
    assert acc.reduce_sum(SUM32, x, axis=(0, 1), keepdims=True).shape == (1, 1)
    assert acc.reduce_prod(PROD, x, axis=()).values == x.values


# ---------------------------------------------------------------------------
# reduce_sum: EXACT_INTEGER
# ---------------------------------------------------------------------------


def test_int32_partial_sums_may_leave_int32():
    x = ti32([2**31 - 1, 2**31 - 1, -(2**31 - 1)])
    assert acc.reduce_sum(SUM_I, x) == Tensor.scalar(2**31 - 1, I32)
    y = ti32([-(2**31), -(2**31), 2**31 - 1, 1])
    assert acc.reduce_sum(SUM_I, y) == Tensor.scalar(-(2**31), I32)


@pytest.mark.parametrize("values", [[2**31 - 1, 1], [-(2**31), -1]])
def test_int32_final_value_outside_int32_overflows(values):
    with pytest.raises(OverflowError, match="outside"):
        acc.reduce_sum(SUM_I, ti32(values))


def test_int32_empty_and_axis_sums():
    assert acc.reduce_sum(SUM_I, Tensor(I32, (0,), ())) == Tensor.scalar(0, I32)
    assert acc.reduce_sum(SUM_I, Tensor(I32, (2, 0), ()), axis=1) == ti32([0, 0])
    x = ti32([[1, 2, 3], [4, 5, 6]])
    assert acc.reduce_sum(SUM_I, x, axis=0) == ti32([5, 7, 9])
    assert acc.reduce_sum(SUM_I, x, axis=-1, keepdims=True) == ti32([[6], [15]])


@given(st.lists(st.integers(-(2**31), 2**31 - 1), max_size=8))
def test_int32_sum_matches_python(values):
    exact = sum(values)
    if -(2**31) <= exact < 2**31:
        assert acc.reduce_sum(SUM_I, ti32(values)).values == (exact,)
    else:
        with pytest.raises(OverflowError):
            acc.reduce_sum(SUM_I, ti32(values))


# ---------------------------------------------------------------------------
# reduce_sum / floating_sum_interval: special cases
# ---------------------------------------------------------------------------


def interval(terms, accumulator=F32) -> Interval:
    return acc.floating_sum_interval(terms, accumulator)


@pytest.mark.parametrize("accumulator", [F32, F64])
def test_empty_sum_is_exactly_positive_zero(accumulator):
    iv = interval([], accumulator)
    assert iv.accepts(0.0) and not iv.accepts(-0.0) and not iv.accepts(TINY)
    bounded = acc.reduce_sum(SUM32, Tensor(F32, (0, 3), ()), axis=0)
    assert bounded.shape == (3,) and all(
        i.accepts(0.0) and not i.accepts(-0.0) for i in bounded.intervals
    )


@pytest.mark.parametrize("accumulator", [F32, F64])
def test_zero_terms(accumulator):
    only_negative = interval([-0.0, -0.0, -0.0], accumulator)
    assert only_negative.accepts(-0.0) and only_negative.accepts(0.0)
    assert not only_negative.accepts(TINY) and not only_negative.accepts(-TINY)
    mixed = interval([-0.0, 0.0, -0.0], accumulator)
    assert mixed.accepts(0.0) and not mixed.accepts(-0.0)
    assert mixed.lo == mixed.hi == 0.0
    single = interval([-0.0], accumulator)
    assert single.accepts(-0.0) and single.accepts(0.0)


@pytest.mark.parametrize("accumulator", [F32, F64])
def test_exact_cancellation_is_positive_zero(accumulator):
    iv = interval([1.5, -1.5], accumulator)
    assert (iv.lo, iv.hi) == (0.0, 0.0)
    assert iv.accepts(0.0) and not iv.accepts(-0.0)
    # zeros alongside nonzero terms do not matter
    iv = interval([-0.0, 3.0, -0.0, -3.0], accumulator)
    assert iv.accepts(0.0) and not iv.accepts(-0.0)


@pytest.mark.parametrize("accumulator", [F32, F64])
@pytest.mark.parametrize(
    "terms", [[NAN], [1.0, NAN_A], [INF, -INF], [-INF, 2.0, INF], [INF, NAN], [MAX, INF, -INF]]
)
def test_must_be_nan(terms, accumulator):
    iv = interval(terms, accumulator)
    assert iv.nan and iv.accepts(NAN) and iv.accepts(NAN_B)
    for value in (0.0, -0.0, 1.0, INF, -INF, MAX):
        assert not iv.accepts(value)


@pytest.mark.parametrize("accumulator", [F32, F64])
def test_one_infinity_gives_that_infinity(accumulator):
    iv = interval([1.0, INF, -MAX], accumulator)
    assert iv.accepts(INF) and not iv.nan and not iv.accepts(MAX) and not iv.accepts(-INF)
    iv = interval([-INF, -INF, 5.0], accumulator)
    assert iv.accepts(-INF) and not iv.nan and not iv.accepts(INF)


def test_infinity_and_overflowing_partial_sums_of_the_other_sign():
    # Float32: -MAX + -MAX overflows to -inf, and inf + -inf is NaN
    terms = [INF, -MAX, -MAX]
    assert set(map(math.isnan, all_orders(terms, F32))) == {True, False}
    iv = interval(terms, F32)
    assert iv.accepts(INF) and iv.nan
    # Float64 never overflows here
    iv = interval(terms, F64)
    assert iv.accepts(INF) and not iv.nan


def test_float32_overflow_of_a_partial_sum():
    terms = [MAX, MAX, -MAX]
    assert sorted(all_orders(terms, F32)) == [MAX, INF]
    iv = interval(terms, F32)
    assert iv.accepts(MAX) and iv.accepts(INF) and not iv.nan
    assert not iv.accepts(-INF)
    # Float64 accumulation: the sum is exact, one value
    iv = interval(terms, F64)
    assert (iv.lo, iv.hi) == (MAX, MAX)


def test_overflow_in_both_directions_allows_nan():
    terms = [MAX, MAX, -MAX, -MAX]
    results = all_orders(terms, F32)
    assert any(math.isnan(r) for r in results) and INF in results and -INF in results
    iv = interval(terms, F32)
    assert iv.nan and iv.lo == -INF and iv.hi == INF
    iv = interval(terms, F64)
    assert (iv.lo, iv.hi, iv.nan) == (0.0, 0.0, False)


def test_final_rounding_overflow_with_float64_accumulation():
    iv = interval([MAX, MAX], F64)
    assert (iv.lo, iv.hi) == (INF, INF)
    # the exact sum rounds to MAX: half an ULP above MAX is the threshold
    half_ulp = math.ldexp(1.0, 102)
    iv = interval([MAX, half_ulp], F64)
    assert (iv.lo, iv.hi) == (MAX, MAX)
    iv = interval([MAX, 2 * half_ulp], F64)  # exactly the threshold: ties go to inf
    assert (iv.lo, iv.hi) == (INF, INF)


def test_no_spurious_overflow_for_a_dominant_term():
    # MAX plus small terms never overflows: the small terms are lost or exact
    for terms in ([MAX, 1.0, 1.0], [MAX, 2.0**100, 2.0**100], [-MAX, -TINY, 2.0**99]):
        iv = interval(terms, F32)
        assert not math.isinf(iv.lo) and not math.isinf(iv.hi)
        for r in all_orders(terms, F32):
            assert iv.accepts(r)


def test_infinity_only_when_some_order_overflows():
    """Issue 15 item 8: 2**104 + 1 + 0x7F7FFFFE is MAX_FINITE in every order."""
    terms = [2.0**104, 1.0, from_bits(0x7F7FFFFE)]
    assert sorted(set(all_orders(terms, F32))) == [MAX]
    iv = interval(terms, F32)
    assert iv.accepts(MAX) and not iv.accepts(INF) and iv.hi == MAX
    negated = interval([-t for t in terms], F32)
    assert negated.accepts(-MAX) and not negated.accepts(-INF)
    # one more 2**104 can overflow: (2**104 + 2**104) + 0x7F7FFFFE is the threshold
    terms = [2.0**104, 2.0**104, from_bits(0x7F7FFFFE)]
    assert INF in all_orders(terms, F32) and interval(terms, F32).accepts(INF)


def _near_overflow_vectors(seed: int, count: int) -> list[list[float]]:
    """Seeded vectors of 2 to 5 terms whose positive sum lies within a few
    ULPs of FLT_MAX: 1 to 4 random terms (top binades, about an ULP of the
    top binade, or small), then one positive term that brings the sum of the
    positive terms to MAX_FINITE + k * 2**102 (k in [-8, 4])."""
    rng = random.Random(seed)
    vectors = []
    while len(vectors) < count:
        terms = []
        for _ in range(rng.randrange(1, 5)):
            kind = rng.random()
            if kind < 0.4:  # the top binades
                magnitude = math.ldexp(rng.randrange(2**23, 2**24), rng.randrange(100, 104))
            elif kind < 0.7:  # about an ULP of the top binade
                magnitude = math.ldexp(rng.randrange(2**23, 2**24), rng.randrange(78, 82))
            else:  # small
                magnitude = math.ldexp(rng.randrange(1, 2**24), rng.randrange(-20, 20))
            terms.append(magnitude if rng.random() < 0.85 else -magnitude)
        target = Fraction(MAX) + rng.randrange(-8, 5) * Fraction(2**102)
        rest = round_fraction(target - sum(Fraction(t) for t in terms if t > 0))
        if 0 < rest <= MAX:
            terms.insert(rng.randrange(len(terms) + 1), rest)
            vectors.append(terms)
    return vectors


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_infinity_and_nan_acceptance_is_exact_for_small_near_overflow_sums(seed):
    """Every order enumerated: +inf, -inf and NaN are accepted exactly when one gives them."""
    overflowing = 0
    for terms in _near_overflow_vectors(seed, 250):
        results = all_orders(terms, F32)
        iv = interval(terms, F32)
        assert iv.accepts(INF) == (INF in results), terms
        assert iv.accepts(-INF) == (-INF in results), terms
        assert iv.nan == any(math.isnan(r) for r in results), terms
        assert all(iv.accepts(r) for r in results), terms
        overflowing += INF in results or -INF in results
    assert 20 <= overflowing <= 230  # the vectors do test both answers


def test_overflow_with_an_infinite_term_is_exact():
    # +inf with negative terms: NaN only if the negatives alone can reach -inf
    terms = [INF, -(2.0**104), -1.0, -from_bits(0x7F7FFFFE)]
    results = all_orders(terms, F32)
    assert not any(math.isnan(r) for r in results)
    assert not interval(terms, F32).nan
    terms = [INF, -(2.0**104), -(2.0**104), -from_bits(0x7F7FFFFE)]
    assert any(math.isnan(r) for r in all_orders(terms, F32))
    assert interval(terms, F32).nan


def test_repeated_values_are_decided_exactly_beyond_twelve_terms():
    """The sub-multiset search handles many equal terms; checked by a sequential sum."""
    third = from_bits(0x7E2AAAAB)  # about MAX / 3
    assert interval([third] * 3, F32).accepts(INF) == (INF in all_orders([third] * 3, F32))
    many = [from_bits(0x7D4CCCCC)] * 20  # 20 x (just under MAX / 20)
    iv = interval(many, F32)
    total = np.float32(0)
    with np.errstate(all="ignore"):
        for t in many:
            total = np.float32(total + np.float32(t))
    assert iv.accepts(float(total))


def test_single_terms_are_exact():
    for t in (1.0, -TINY, MAX, -MAX, MIN_NORMAL):
        for accumulator in (F32, F64):
            iv = interval([t], accumulator)
            assert (iv.lo, iv.hi, iv.nan) == (t, t, False) and iv.exact == Fraction(t)


def test_exact_sums_are_single_points():
    # every partial sum is exactly representable: one result in every order
    iv = interval([1.0, 2.0, 3.0, -0.5], F32)
    assert (iv.lo, iv.hi) == (5.5, 5.5)
    iv = interval([2.0**-30, 1.0], F64)  # exact in binary64, rounds to 1 in binary32
    assert (iv.lo, iv.hi) == (1.0, 1.0)
    iv = interval([2.0**-30, 1.0], F32)  # 1 + 2**-30 rounds to 1 in every order
    assert (iv.lo, iv.hi) == (1.0, 1.0)
    iv = interval([1.0, 2.0**-30, 2.0**-30], F32)
    assert (iv.lo, iv.hi) == (1.0, 1.0)


def test_cancellation_float32_and_float64_accumulators_differ():
    terms = [2.0**24, 1.0, -(2.0**24)]
    assert sorted(all_orders(terms, F32)) == [0.0, 1.0]
    assert all_orders(terms, F64) == [1.0]
    iv32, iv64 = interval(terms, F32), interval(terms, F64)
    assert iv32.accepts(0.0) and iv32.accepts(1.0) and not iv32.accepts(-0.0)
    assert (iv64.lo, iv64.hi) == (1.0, 1.0)
    # a Float64 accumulation keeps the 1 that Float32 loses
    terms = [1e8, 1.0, -1e8, 1.0]
    assert set(all_orders(terms, F32)) == {0.0, 1.0, 2.0}
    assert all_orders(terms, F64) == [2.0]
    assert (interval(terms, F64).lo, interval(terms, F64).hi) == (2.0, 2.0)


def test_gapped_true_set_is_filled_in():
    # [2**100, 1, -2**100] in Float64: exactly {0, 1}; the interval is the hull
    terms = [2.0**100, 1.0, -(2.0**100)]
    assert sorted(all_orders(terms, F64)) == [0.0, 1.0]
    iv = interval(terms, F64)
    assert iv.accepts(0.0) and iv.accepts(1.0) and iv.accepts(0.5)


def test_same_sign_terms_clamp_at_the_largest_term():
    iv = interval([1.0, 2.0**-25, 2.0**-25, 2.0**-25], F32)
    assert iv.lo == 1.0
    iv = interval([-1.0, -(2.0**-25), -(2.0**-25)], F32)
    assert iv.hi == -1.0


def test_subnormal_sums_are_exact():
    iv = interval([TINY, TINY, -3 * TINY, 5 * TINY], F32)
    assert (iv.lo, iv.hi) == (4 * TINY, 4 * TINY)


def test_exact_field_and_reduce_sum_shape():
    x = t32([[1.0, 2.0**-30], [3.0, -3.0]])
    bounded = acc.reduce_sum(SUM32, x, axis=1)
    assert isinstance(bounded, Bounded) and bounded.shape == (2,)
    assert bounded.intervals[0].exact == 1 + Fraction(1, 2**30)
    assert bounded.intervals[1].exact == 0
    assert acc.reduce_sum(SUM64, x, axis=0, keepdims=True).shape == (1, 2)


def test_floating_sum_interval_argument_checks():
    with pytest.raises(TypeError, match="term 1"):
        interval([1.0, 2])
    with pytest.raises(ValueError, match="binary32"):
        interval([0.1])
    with pytest.raises(NotImplementedError):
        acc.floating_sum_interval([1.0], DType.Int32)
    assert interval([np.float32(1.5)]).lo == 1.5


def test_growth_bound_is_an_upper_bound_of_the_compounded_roundoff():
    u = Fraction(1, 2**24)
    for k in (0, 1, 2, 3, 100, 1000):
        assert acc._growth(k, u) >= (1 + u) ** k
    # beyond k*u = 1/2 the exponential form is used; (1 + u)**k <= e**(k*u)
    for k in (2**22, 2**23, 2**23 + 1, 2**24 + 10, 2**30):
        assert acc._growth(k, u) >= Fraction(math.exp(k * 2.0**-24)) * (1 + Fraction(1, 10**12))


# ---------------------------------------------------------------------------
# floating_sum_interval: soundness, Higham containment, tightness
# ---------------------------------------------------------------------------


def higham_interval(terms: list[float], accumulator) -> tuple[float, float]:
    """The outward interval of Higham's bound gamma_{n-1} * sum|t| (finite terms)."""
    nonzero = [Fraction(t) for t in terms if t != 0]
    exact = sum(nonzero, Fraction(0))
    n = len(nonzero)
    u = Fraction(1, 2**24 if accumulator is F32 else 2**53)
    gamma = (n - 1) * u / (1 - (n - 1) * u) if n > 1 else Fraction(0)
    error = gamma * sum(abs(t) for t in nonzero)
    return acc.round_down32(exact - error), acc.round_up32(exact + error)


@given(terms_lists, st.sampled_from([F32, F64]))
def test_every_evaluation_order_is_accepted(terms, accumulator):
    iv = interval(terms, accumulator)
    for result in all_orders(terms, accumulator):
        assert iv.accepts(result), (terms, accumulator, result, iv)


@given(terms_lists, st.sampled_from([F32, F64]))
def test_the_correctly_rounded_exact_sum_is_accepted(terms, accumulator):
    if any(math.isnan(t) for t in terms) or (INF in terms and -INF in terms):
        return
    iv = interval(terms, accumulator)
    if INF in terms or -INF in terms:
        assert iv.accepts(INF if INF in terms else -INF)
        return
    exact = sum(map(Fraction, terms), Fraction(0))
    assert iv.exact == exact
    assert iv.accepts(round_fraction(exact))  # an exact zero rounds to +0


@given(terms_lists, st.sampled_from([F32, F64]))
def test_nan_only_when_the_rules_say(terms, accumulator):
    iv = interval(terms, accumulator)
    must_be_nan = any(math.isnan(t) for t in terms) or (INF in terms and -INF in terms)
    if must_be_nan:
        assert iv.nan and not iv.lo <= iv.hi
    elif accumulator is F64:
        assert not iv.nan
    if iv.nan and not must_be_nan:
        # only Float32 partial sums overflowing both ways can give NaN
        assert accumulator is F32
        assert sum(t for t in terms if t > 0) * (1 + 2**-20) >= MAX
        assert sum(t for t in terms if t < 0) * (1 + 2**-20) <= -MAX


@given(terms_lists, st.sampled_from([F32, F64]))
def test_negative_zero_only_for_all_negative_zero_terms(terms, accumulator):
    iv = interval(terms, accumulator)
    all_negative_zero = bool(terms) and all(t == 0 and math.copysign(1, t) < 0 for t in terms)
    assert iv.accepts(-0.0) == all_negative_zero


@given(terms_lists, st.sampled_from([F32, F64]))
def test_interval_is_inside_the_outward_higham_interval(terms, accumulator):
    if not all(math.isfinite(t) for t in terms):
        return
    iv = interval(terms, accumulator)
    if math.isinf(iv.lo) or math.isinf(iv.hi):
        return  # overflow possible: the finite bound does not apply
    lo, hi = higham_interval(terms, accumulator)
    assert lo <= iv.lo <= iv.hi <= hi


@given(positive_terms, st.sampled_from([1.0, -1.0]))
def test_float64_accumulation_is_at_most_one_ulp_wider(terms, sign):
    terms = [sign * t for t in terms]
    iv = interval(terms, F64)
    results = all_orders(terms, F64)
    lo, hi = min(results), max(results)
    excess = ordinal(lo) - ordinal(iv.lo) + ordinal(iv.hi) - ordinal(hi)
    assert 0 <= excess <= 1, (terms, iv, results)


@given(st.lists(rounding_rich, min_size=2, max_size=5))
def test_float64_accumulation_of_well_conditioned_mixed_terms(terms):
    exact = sum(map(Fraction, terms))
    weight = sum(abs(Fraction(t)) for t in terms)
    if exact == 0 or weight / abs(exact) > 2**16:
        return
    iv = interval(terms, F64)
    results = all_orders(terms, F64)
    excess = ordinal(min(results)) - ordinal(iv.lo) + ordinal(iv.hi) - ordinal(max(results))
    assert 0 <= excess <= 1


def _excess(terms, accumulator) -> int:
    iv = interval(terms, accumulator)
    results = all_orders(terms, accumulator)
    return ordinal(min(results)) - ordinal(iv.lo) + ordinal(iv.hi) - ordinal(max(results))


def _measured(seed: int, signed: bool) -> dict:
    rng = random.Random(seed)
    widths = {F32: [], F64: []}
    for _ in range(150):
        terms = [
            (rng.choice([-1, 1]) if signed else 1)
            * math.ldexp(rng.randrange(1, 2**24), rng.randrange(-30, -17))
            for _ in range(rng.randrange(2, 6))
        ]
        for accumulator in (F32, F64):
            widths[accumulator].append(_excess(terms, accumulator))
    return widths


def test_measured_width():
    """The widths quoted in docs/semantics/structured.md (seeded, 150 lists each).

    Terms m * 2**e (m < 2**24, e in [-30, -18]), 2 to 5 of them; the excess
    of the interval over the enumerated true hull, both ends, in ULPs.
    """
    positive = _measured(20240531, signed=False)
    assert max(positive[F64]) == 0
    assert max(positive[F32]) == 5 and sum(positive[F32]) / 150 < 1.5
    mixed = _measured(7, signed=True)
    assert max(mixed[F64]) == 0
    assert max(mixed[F32]) == 54
    assert sorted(mixed[F32])[75] <= 2  # the median


@given(st.lists(any_float32.filter(math.isfinite), max_size=8), st.sampled_from([F32, F64]))
def test_numpy_orders_are_accepted(terms, accumulator):
    """Sequential, reversed, sorted and numpy's pairwise summation in the accumulator."""
    kind = np.float32 if accumulator is F32 else np.float64
    iv = interval(terms, accumulator)
    array = np.array(terms, dtype=kind)
    with np.errstate(all="ignore"):
        candidates = [np.float32(np.sum(array))]
        for order in (array, array[::-1], np.sort(array), np.sort(array)[::-1]):
            total = kind(0) if len(order) == 0 else order[0]
            for value in order[1:]:
                total = kind(total + value)
            candidates.append(np.float32(total))
    for c in candidates:
        assert iv.accepts(float(c)), (terms, accumulator, c, iv)


# ---------------------------------------------------------------------------
# Directed roundings
# ---------------------------------------------------------------------------


def test_directed_roundings():
    third = Fraction(1, 3)
    down, up = acc.round_down32(third), acc.round_up32(third)
    assert Fraction(down) < third < Fraction(up) and next_up(down) == up
    assert acc.round_down32(Fraction(1)) == acc.round_up32(Fraction(1)) == 1.0
    assert acc.round_down32(-third) == -up and acc.round_up32(-third) == -down
    assert acc.round_down32(Fraction(2) ** 200) == MAX
    assert acc.round_up32(Fraction(2) ** 200) == INF
    assert acc.round_up32(-(Fraction(2) ** 200)) == -MAX
    assert acc.round_down32(-(Fraction(2) ** 200)) == -INF
    assert acc.round_up32(Fraction(MAX) + 1) == INF
    assert acc.round_down32(Fraction(1, 2**200)) == 0.0
    assert acc.round_up32(Fraction(1, 2**200)) == TINY
    assert acc.round_down32(-Fraction(1, 2**200)) == -TINY
    assert same(acc.round_up32(-Fraction(1, 2**200)), 0.0)
    assert same(acc.round_down32(Fraction(0)), 0.0) and same(acc.round_up32(Fraction(0)), 0.0)
    assert acc.round_down32(next_down(1.0)) == next_down(1.0)


@given(st.fractions(min_value=-(2**130), max_value=2**130))
def test_directed_roundings_bracket(x):
    down, up = acc.round_down32(x), acc.round_up32(x)
    assert down <= x <= up if math.isfinite(down) and math.isfinite(up) else True
    if math.isfinite(down) and math.isfinite(up) and Fraction(down) != x:
        assert next_up(down) == up


# ---------------------------------------------------------------------------
# binary32 steps
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "want"),
    [
        (-0.0, -0.0, -0.0),
        (-0.0, 0.0, 0.0),
        (1.0, -1.0, 0.0),
        (INF, -INF, NAN),
        (INF, 1.0, INF),
        (-INF, -INF, -INF),
        (MAX, MAX, INF),
        (TINY, -TINY, 0.0),
        (2.0**24, 1.0, 2.0**24),
        (2.0**24 + 2, 1.0, 2.0**24 + 4),
        (NAN_A, 1.0, NAN),
    ],
)
def test_add32(a, b, want):
    assert same(acc.add32(a, b), want) and same(acc.add32(b, a), want)


@pytest.mark.parametrize(
    ("a", "b", "want"),
    [
        (0.0, INF, NAN),
        (-0.0, 5.0, -0.0),
        (-0.0, -5.0, 0.0),
        (-TINY, 0.5, -0.0),
        (TINY, 0.75, TINY),
        (MAX, 2.0, INF),
        (1.0 + 2.0**-12, 1.0 + 2.0**-12, 1.0 + 2.0**-11),
    ],
)
def test_mul32(a, b, want):
    assert same(acc.mul32(a, b), want) and same(acc.mul32(b, a), want)


@given(any_float32, any_float32)
def test_add32_and_mul32_match_numpy(a, b):
    with np.errstate(all="ignore"):
        assert same(acc.add32(a, b), float(np.float32(a) + np.float32(b)))
        assert same(acc.mul32(a, b), float(np.float32(a) * np.float32(b)))


# ---------------------------------------------------------------------------
# reduce_prod
# ---------------------------------------------------------------------------


def test_reduce_prod_edge_cases():
    assert acc.reduce_prod(PROD, Tensor(F32, (0,), ())).values == (1.0,)
    assert acc.reduce_prod(PROD, Tensor(F32, (2, 0), ()), axis=1).values == (1.0, 1.0)
    assert same(acc.reduce_prod(PROD, t32([-0.0])).values[0], -0.0)  # 1 * -0
    assert same(acc.reduce_prod(PROD, t32([-0.0, -1.0])).values[0], 0.0)
    assert same(acc.reduce_prod(PROD, t32([INF, 0.0])).values[0], NAN)
    assert same(acc.reduce_prod(PROD, t32([-TINY, 0.5])).values[0], -0.0)
    # ascending order with rounding after every step: MAX * 2 overflows first
    assert acc.reduce_prod(PROD, t32([MAX, 2.0, 0.5])).values == (INF,)
    assert acc.reduce_prod(PROD, t32([MAX, 0.5, 2.0])).values == (MAX,)
    x = t32([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert acc.reduce_prod(PROD, x, axis=0) == t32([4.0, 10.0, 18.0])
    assert acc.reduce_prod(PROD, x, axis=-1, keepdims=True) == t32([[6.0], [120.0]])


@st.composite
def float32_arrays(draw, max_dims=3, max_side=3, elements=any_float32):
    shape = tuple(draw(st.lists(st.integers(0, max_side), max_size=max_dims)))
    values = draw(st.lists(elements, min_size=math.prod(shape), max_size=math.prod(shape)))
    return np.array(values, dtype=np.float32).reshape(shape)


@st.composite
def array_and_axes(draw, elements=any_float32):
    array = draw(float32_arrays(elements=elements))
    ndim = array.ndim
    choice = draw(st.sampled_from(["none", "int", "tuple"]))
    if choice == "none" or ndim == 0:
        return array, None
    if choice == "int":
        return array, draw(st.integers(-ndim, ndim - 1))
    axes = draw(st.lists(st.integers(0, ndim - 1), unique=True))
    return array, tuple(a - ndim if draw(st.booleans()) else a for a in axes)


def numpy_reduce(array, axis, step, start):
    """A float32 loop over the reduced elements in ascending logical order."""
    ndim = array.ndim
    axes = tuple(range(ndim)) if axis is None else ((axis,) if isinstance(axis, int) else axis)
    axes = tuple(sorted(a % ndim for a in axes)) if ndim else ()
    kept = [d for d in range(ndim) if d not in axes]
    moved = np.transpose(array, kept + list(axes))
    out_shape = tuple(array.shape[d] for d in kept)
    flat = moved.reshape(math.prod(out_shape), -1) if math.prod(out_shape) else None
    results = []
    with np.errstate(all="ignore"):
        for row in flat if flat is not None else []:
            total = np.float32(start)
            for v in row:
                total = step(total, v)
            results.append(float(total))
    return out_shape, results


@given(array_and_axes())
def test_reduce_prod_matches_a_numpy_float32_loop(case):
    array, axis = case
    got = acc.reduce_prod(PROD, Tensor.from_numpy(array), axis=axis)
    shape, want = numpy_reduce(array, axis, lambda a, b: np.float32(a * b), 1.0)
    assert got.shape == shape
    assert all(same(g, w) for g, w in zip(got.values, want))


@given(array_and_axes(), st.sampled_from([F32, F64]))
def test_reduce_sum_accepts_numpy_sequential_sums(case, accumulator):
    array, axis = case
    plan = SUM32 if accumulator is F32 else SUM64
    got = acc.reduce_sum(plan, Tensor.from_numpy(array), axis=axis)
    kind = np.float32 if accumulator is F32 else np.float64
    shape, want = numpy_reduce(array, axis, lambda a, b: kind(kind(a) + kind(b)), 0.0)
    assert got.shape == shape
    for iv, w in zip(got.intervals, want):
        assert iv.accepts(float(np.float32(w)))


# ---------------------------------------------------------------------------
# reduce_max / reduce_min
# ---------------------------------------------------------------------------


def test_first_nan_wins_with_its_bits():
    x = t32([1.0, NAN_A, INF, NAN_B])
    for plan, op in ((MAXP, acc.reduce_max), (MINP, acc.reduce_min)):
        assert op(plan, x).bits() == (0x7FC12345,)
        assert op(plan, t32([NAN_B, NAN_A])).bits() == (0xFFC0BEEF,)


def test_signed_zeros_in_max_and_min():
    for values in ([-0.0, 0.0], [0.0, -0.0], [-0.0, -0.0, 0.0, -0.0]):
        assert acc.reduce_max(MAXP, t32(values)).bits() == (0x00000000,)
        assert acc.reduce_min(MINP, t32(values)).bits() == (0x80000000,)
    assert acc.reduce_max(MAXP, t32([-0.0, -1.0])).bits() == (0x80000000,)
    assert acc.reduce_min(MINP, t32([0.0, 1.0])).bits() == (0x00000000,)


def test_max_min_values_and_axes():
    x = t32([[1.0, -INF, 3.0], [-2.0, 5.0, INF]])
    assert acc.reduce_max(MAXP, x) == Tensor.scalar(INF, F32)
    assert acc.reduce_min(MINP, x) == Tensor.scalar(-INF, F32)
    assert acc.reduce_max(MAXP, x, axis=0) == t32([1.0, 5.0, INF])
    assert acc.reduce_min(MINP, x, axis=(1,), keepdims=True) == t32([[-INF], [-2.0]])


def test_max_keeps_the_very_float_object():
    nan = from_bits(0x7FC0BEEF)
    x = Tensor(F32, (2,), (1.0, nan))
    assert acc.reduce_max(MAXP, x).values[0] is x.values[1]


@pytest.mark.parametrize(
    ("shape", "axis"), [((0,), None), ((3, 0), 1), ((0, 3), 0), ((0, 0), 1), ((2, 0), (0, 1))]
)
def test_empty_extreme_reductions_are_value_errors(shape, axis):
    x = Tensor(F32, shape, ())
    for plan, op in ((MAXP, acc.reduce_max), (MINP, acc.reduce_min)):
        with pytest.raises(ValueError, match="empty"):
            op(plan, x, axis=axis)
    if not isinstance(axis, tuple):
        for plan, op in ((ARGMAX, acc.argmax), (ARGMIN, acc.argmin)):
            with pytest.raises(ValueError, match="empty"):
                op(plan, x, axis=axis)


def test_empty_output_of_a_nonempty_reduction_is_fine():
    x = Tensor(F32, (0, 3), ())
    assert acc.reduce_max(MAXP, x, axis=1).shape == (0,)
    assert acc.argmin(ARGMIN, x, axis=1) == Tensor(I32, (0,), ())


@given(array_and_axes(elements=st.floats(width=32, allow_nan=False)))
def test_max_min_match_numpy_without_nan(case):
    array, axis = case
    if array.size == 0:
        return
    x = Tensor.from_numpy(array)
    np_axis = axis
    for op, plan, ref in ((acc.reduce_max, MAXP, np.max), (acc.reduce_min, MINP, np.min)):
        try:
            want = np.asarray(ref(array, axis=np_axis))
        except ValueError:
            with pytest.raises(ValueError):
                op(plan, x, axis=axis)
            continue
        got = op(plan, x, axis=axis)
        assert got.shape == want.shape
        # == treats -0 and +0 alike; the brute-force test below checks zero signs
        assert list(got.values) == want.ravel().tolist()


@given(float32_arrays(max_dims=2), st.data())
def test_max_min_first_nan_and_zero_signs_by_brute_force(array, data):
    if array.size == 0 or array.ndim == 0:
        return
    axis = data.draw(st.integers(-array.ndim, array.ndim - 1))
    x = Tensor.from_numpy(array)
    moved = np.moveaxis(array, axis, -1)
    lines = moved.reshape(-1, moved.shape[-1])
    got_max = acc.reduce_max(MAXP, x, axis=axis).bits()
    got_min = acc.reduce_min(MINP, x, axis=axis).bits()
    bits = lines.view(np.uint32)
    for line, line_bits, gmax, gmin in zip(lines, bits, got_max, got_min):
        nans = [int(b) for v, b in zip(line, line_bits) if np.isnan(v)]
        if nans:
            assert gmax == gmin == nans[0]
            continue
        values = [float(v) for v in line]
        top, bottom = max(values), min(values)
        if top == 0:
            positive_zero = any(v == 0 and math.copysign(1, v) > 0 for v in values)
            assert gmax == (0 if positive_zero else 0x80000000)
        else:
            assert gmax == to_bits(top)
        if bottom == 0:
            negative_zero = any(v == 0 and math.copysign(1, v) < 0 for v in values)
            assert gmin == (0x80000000 if negative_zero else 0)
        else:
            assert gmin == to_bits(bottom)


# ---------------------------------------------------------------------------
# argmax / argmin
# ---------------------------------------------------------------------------


def test_argmax_argmin_rules():
    assert acc.argmax(ARGMAX, t32([1.0, NAN, 3.0, NAN])).values == (1,)
    assert acc.argmin(ARGMIN, t32([1.0, -INF, NAN_B])).values == (2,)
    assert acc.argmax(ARGMAX, t32([-0.0, 0.0])).values == (0,)  # -0 and +0 tie
    assert acc.argmin(ARGMIN, t32([0.0, -0.0])).values == (0,)
    assert acc.argmax(ARGMAX, t32([2.0, 5.0, 5.0])).values == (1,)
    assert acc.argmin(ARGMIN, t32([-INF, -INF])).values == (0,)
    x = t32([[1.0, 9.0, 3.0], [9.0, -1.0, 0.0]])
    got = acc.argmax(ARGMAX, x)
    assert got.dtype is I32 and got.shape == () and got.values == (1,)  # flat index
    assert acc.argmin(ARGMIN, x) == Tensor.scalar(4, I32)
    assert acc.argmax(ARGMAX, x, axis=0) == ti32([1, 0, 0])
    assert acc.argmin(ARGMIN, x, axis=-1) == ti32([0, 1])


@pytest.mark.parametrize("axis", [(0,), 0.0, True])
def test_arg_axis_must_be_an_int_or_none(axis):
    with pytest.raises(TypeError):
        acc.argmax(ARGMAX, t32([[1.0]]), axis=axis)


@given(float32_arrays(max_dims=2), st.data())
def test_argmax_argmin_match_numpy(array, data):
    if array.size == 0:
        return
    axis = (
        None if array.ndim == 0 else data.draw(st.none() | st.integers(-array.ndim, array.ndim - 1))
    )
    x = Tensor.from_numpy(array)
    for op, plan, ref in ((acc.argmax, ARGMAX, np.argmax), (acc.argmin, ARGMIN, np.argmin)):
        want = np.asarray(ref(array, axis=axis))
        got = op(plan, x, axis=axis)
        assert got.shape == want.shape and list(got.values) == want.ravel().tolist()


# ---------------------------------------------------------------------------
# cumsum
# ---------------------------------------------------------------------------


def test_cumsum_edge_cases():
    assert acc.cumsum(CUMSUM, t32([-0.0]), 0).bits() == (0x00000000,)  # +0 + -0
    assert acc.cumsum(CUMSUM, t32([-0.0, -0.0]), 0).bits() == (0, 0)
    assert acc.cumsum(CUMSUM, t32([1.0, -1.0, -0.0]), -1).bits() == (to_bits(1.0), 0, 0)
    got = acc.cumsum(CUMSUM, t32([INF, -INF, 1.0]), 0).values
    assert got[0] == INF and math.isnan(got[1]) and math.isnan(got[2])
    # each prefix is rounded: 2**24 + 1 + 1 stays at 2**24
    assert acc.cumsum(CUMSUM, t32([2.0**24, 1.0, 1.0]), 0).values == (2.0**24,) * 3
    assert acc.cumsum(CUMSUM, t32([MAX, MAX, -MAX]), 0).values == (MAX, INF, INF)
    x = t32([[1.0, 2.0], [3.0, 4.0]])
    assert acc.cumsum(CUMSUM, x, 0) == t32([[1.0, 2.0], [4.0, 6.0]])
    assert acc.cumsum(CUMSUM, x, -1) == t32([[1.0, 3.0], [3.0, 7.0]])
    assert acc.cumsum(CUMSUM, Tensor(F32, (2, 0), ()), 1) == Tensor(F32, (2, 0), ())


@pytest.mark.parametrize(("axis", "error"), [(None, TypeError), (1.0, TypeError), (2, ValueError)])
def test_cumsum_axis_errors(axis, error):
    with pytest.raises(error):
        acc.cumsum(CUMSUM, t32([[1.0]]), axis)


@given(float32_arrays(), st.data())
def test_cumsum_matches_a_numpy_float32_loop(array, data):
    if array.ndim == 0:
        return
    axis = data.draw(st.integers(-array.ndim, array.ndim - 1))
    got = acc.cumsum(CUMSUM, Tensor.from_numpy(array), axis)
    want = np.ascontiguousarray(np.moveaxis(array, axis, -1)).copy()
    with np.errstate(all="ignore"):
        for line in want.reshape(-1, want.shape[-1]) if want.size else []:
            total = np.float32(0.0)
            for i in range(len(line)):
                total = np.float32(total + line[i])
                line[i] = total
    want = np.moveaxis(want, -1, axis)
    assert got.shape == array.shape
    assert all(same(g, float(w)) for g, w in zip(got.values, want.ravel()))
