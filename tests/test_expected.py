"""oracle.expected: the reference outcome and its verdicts, end to end.

The "done when" of the oracle issue: a wrong value, a wrong signed zero, a NaN
where none belongs, a double rounding, a wrapped Int32 and a wrong summation
order are each reported as non-conforming with a readable reason, and a
conforming result passes.
"""

import math
from fractions import Fraction

from oracle import Conformance, DType, Tensor, binary32
from oracle.evaluate import REFERENCES, expected
from oracle.planner import registered_operations

F32, I32, BOOL = DType.Float32, DType.Int32, DType.Bool


def f32(*values):
    return Tensor(F32, (len(values),), values)


def i32(*values):
    return Tensor(I32, (len(values),), values)


def test_every_registered_operation_has_a_reference():
    assert {spec.name for spec in registered_operations()} == set(REFERENCES)


def test_conforming_result_passes():
    expectation = expected("add", f32(1.0, 2.0), f32(0.5, -2.0))
    verdict = expectation.check(f32(1.5, 0.0))
    assert verdict.ok and bool(verdict) and not verdict.mismatches
    assert "PASS" in str(verdict)


def test_wrong_value_is_reported_with_bits_and_ulps():
    verdict = expected("add", f32(1.0), f32(2.0)).check(f32(binary32.next_up(3.0)))
    assert not verdict.ok
    (mismatch,) = verdict.mismatches
    assert mismatch.expected == 3.0 and mismatch.ulp == 1
    assert mismatch.expected_bits == 0x40400000 and mismatch.actual_bits == 0x40400001
    assert "0x40400000" in str(verdict) and "1 ULP" in str(verdict)


def test_wrong_signed_zero_is_reported():
    # (-0) + (-0) is -0 under round to nearest.
    verdict = expected("add", f32(-0.0), f32(-0.0)).check(f32(0.0))
    assert not verdict.ok
    assert "signed zero" in verdict.mismatches[0].rule


def test_nan_where_none_belongs_is_reported():
    verdict = expected("mul", f32(2.0), f32(3.0)).check(f32(math.nan))
    assert not verdict.ok and verdict.mismatches[0].ulp is None


def test_any_nan_is_accepted_except_for_bit_copies():
    nan_a, nan_b = binary32.from_bits(0x7FC00001), binary32.from_bits(0xFFC00000)
    assert expected("add", f32(nan_a), f32(1.0)).check(f32(nan_b)).ok
    verdict = expected("neg", f32(nan_a)).check(f32(nan_a))
    assert not verdict.ok and "NaN bits" in verdict.mismatches[0].rule
    assert expected("neg", f32(nan_a)).check(f32(binary32.from_bits(0xFFC00001))).ok


def test_double_rounding_is_reported():
    # 1 + (2**-24 + 2**-47) lies just above the midpoint between 1 and its
    # successor.  A backend that first rounds to a 25-bit significand lands on
    # the midpoint and then ties to even (1.0); the correct result is next_up(1).
    a, b = 1.0, 2.0**-24 + 2.0**-47
    exact_sum = Fraction(a) + Fraction(b)
    twice = binary32.round_fraction(_round_to_precision(exact_sum, 25))
    assert twice == 1.0 and binary32.round_fraction(exact_sum) == binary32.next_up(1.0)
    verdict = expected("add", f32(a), f32(b)).check(f32(twice))
    assert not verdict.ok and verdict.mismatches[0].ulp == 1


def _round_to_precision(value: Fraction, bits: int) -> Fraction:
    """Round a positive *value* to *bits* significant bits, ties to even."""
    exponent = math.floor(math.log2(value))
    scale = Fraction(2) ** (bits - 1 - exponent)
    scaled = value * scale
    floor = math.floor(scaled)
    rest = scaled - floor
    up = rest > Fraction(1, 2) or (rest == Fraction(1, 2) and floor % 2 == 1)
    return (floor + up) / scale


def test_wrapped_int32_is_reported_as_a_missing_overflow_error():
    expectation = expected("add", i32(2**31 - 1), i32(1))
    assert expectation.raises is OverflowError
    wrapped = i32(-(2**31))
    verdict = expectation.check(wrapped)
    assert not verdict.ok and "OverflowError" in str(verdict)
    assert expectation.check_raised(OverflowError("overflow")).ok
    assert not expectation.check_raised(ValueError("wrong kind")).ok


def test_wrong_summation_order_is_reported_for_sequential_accumulation():
    # cumsum is SEQUENTIAL_BINARY32: (1 + 2**-24) + 2**-24 rounds to 1 twice.
    terms = f32(1.0, 2.0**-24, 2.0**-24)
    expectation = expected("cumsum", terms, 0)
    assert expectation.result == f32(1.0, 1.0, 1.0)
    reordered = f32(1.0, 1.0, 1.0 + 2.0**-23)  # as if the small terms were added first
    verdict = expectation.check(reordered)
    assert not verdict.ok and verdict.mismatches[0].index == (2,)


def test_floating_accumulation_accepts_every_order_and_rejects_others():
    terms = f32(1.0, 2.0**-24, 2.0**-24)
    wide = expected("reduce_sum", terms, accumulator_dtype=DType.Float64)
    assert wide.conformance is Conformance.BOUNDED
    exact_sum = 1.0 + 2.0**-23  # exact in binary64, then representable in binary32
    assert wide.check(Tensor(F32, (), (exact_sum,))).ok
    assert not wide.check(Tensor(F32, (), (1.0,))).ok
    narrow = expected("reduce_sum", terms)
    for order_result in (1.0, exact_sum):  # left-to-right, and small terms first
        assert narrow.check(Tensor(F32, (), (order_result,))).ok


def test_correctly_rounded_budget_keeps_special_values_and_exact_points_exact():
    expectation = expected("exp", f32(0.0, 1.0))
    assert expectation.conformance is Conformance.CORRECTLY_ROUNDED
    e = expectation.result.values[1]
    off_by_one = f32(1.0, binary32.next_up(e))
    assert not expectation.check(off_by_one).ok
    assert expectation.check(off_by_one, ulp_budget=1).ok
    at_exact_point = f32(binary32.next_up(1.0), e)
    verdict = expectation.check(at_exact_point, ulp_budget=4)
    assert not verdict.ok and "exact points" in verdict.mismatches[0].rule


def test_wrong_dtype_or_shape_is_reported():
    expectation = expected("eq", f32(1.0), f32(1.0))
    assert expectation.result == Tensor(BOOL, (1,), (True,))
    assert not expectation.check(f32(1.0)).ok
    assert not expectation.check(Tensor(BOOL, (), (True,))).ok


def test_planning_errors_become_expected_exceptions():
    assert expected("no_such_op", f32(1.0)).raises is NotImplementedError
    assert expected("exp2", i32(1)).raises is TypeError
    assert expected("mul", i32(1), 2**31).raises is OverflowError
    assert expected("add", Tensor(F32, (2,), (1.0, 2.0)), f32(1.0, 2.0, 3.0)).raises is ValueError
    assert expected("gather", f32(1.0), i32(1), 0).raises is IndexError


def test_broadcasting_follows_numpy():
    a = Tensor(F32, (2, 1), (1.0, 2.0))
    b = Tensor(F32, (3,), (10.0, 20.0, 30.0))
    result = expected("add", a, b).result
    assert result == Tensor.from_numpy(a.to_numpy() + b.to_numpy())


def test_weak_scalars_are_materialised_once_as_the_plans_dtype():
    # 2**24 + 1 rounds to 2**24 when materialised as Float32.
    result = expected("mul", f32(1.0), 2**24 + 1).result
    assert result == f32(16777216.0)
    assert expected("mul", f32(1.0), Fraction(1, 3)).result == f32(
        binary32.round_fraction(Fraction(1, 3))
    )
    assert expected("mul", f32(1.0), 10**400).result == f32(math.inf)


def test_verdict_summaries_agree_in_number():
    """``1 element conforms``, never ``1 elements conform`` (nor for one mismatch)."""
    one, three = expected("neg", f32(1.0)), expected("neg", f32(1.0, 2.0, 3.0))
    assert one.check(f32(-1.0)).summary.endswith(": 1 element conforms")
    assert three.check(f32(-1.0, -2.0, -3.0)).summary.endswith(": 3 elements conform")
    assert one.check(f32(1.0)).summary.endswith(": 1 of 1 element does not conform")
    assert three.check(f32(-1.0, 2.0, -3.0)).summary.endswith(": 1 of 3 elements does not conform")
    assert three.check(f32(1.0, 2.0, -3.0)).summary.endswith(": 2 of 3 elements do not conform")
