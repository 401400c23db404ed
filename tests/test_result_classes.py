"""The result-class catalogue: plan-derived candidates and measured hits."""

from __future__ import annotations

import pytest

from conformance.classes.result import (
    RULES,
    Group,
    ResultClass,
    candidate_classes,
    result_classes_hit,
)
from conformance.generate.witnesses import applicable_result_classes
from conformance.model.calls import Call
from oracle import DType, Tensor, binary32, resolvable_plans, resolve_operation_plan

R = ResultClass
F32, I32 = DType.Float32, DType.Int32
MAX = binary32.MAX_FINITE


def _plan(operation: str, *dtypes, accumulator=None):
    return resolve_operation_plan(operation, *dtypes, accumulator_dtype=accumulator)


def _hits(operation: str, *args, dtypes=None, accumulator=None) -> frozenset[ResultClass]:
    tensors = [a.dtype if isinstance(a, Tensor) else a for a in args if not isinstance(a, int)]
    plan = _plan(operation, *(dtypes or tensors), accumulator=accumulator)
    return result_classes_hit(Call(operation, tuple(args), accumulator, plan))


def _f32(*values: float) -> Tensor:
    return Tensor(F32, (len(values),), values)


def _i32(*values: int) -> Tensor:
    return Tensor(I32, (len(values),), values)


def test_every_class_has_a_group_and_a_description_and_every_group_a_rule():
    assert set(RULES) == set(Group)
    for cls in ResultClass:
        assert isinstance(cls.group, Group) and cls.description


def test_value_classes_of_exp2_results():
    assert R.SUBNORMAL in _hits("exp2", _f32(-130.0))
    assert R.MIN_SUBNORMAL in _hits("exp2", _f32(-149.0))
    assert R.MIN_NORMAL in _hits("exp2", _f32(-126.0))
    assert R.POSITIVE_ZERO in _hits("exp2", _f32(-151.0))
    assert R.SUBNORMAL not in _hits("exp2", _f32(-100.0))


def test_special_results_of_ordinary_inputs():
    assert R.NAN_FROM_NON_NAN in _hits("log", _f32(-1.0))
    assert R.INF_FROM_FINITE in _hits("log", _f32(0.0))
    assert R.INF_FROM_FINITE in _hits("exp", _f32(100.0))
    assert R.INF_FROM_FINITE not in _hits("exp", _f32(float("inf")))  # an infinite input
    assert R.NAN_FROM_NON_NAN in _hits("add", _f32(float("inf")), _f32(-float("inf")))
    assert R.INF_FROM_FINITE in _hits("mul", _f32(MAX), _f32(2.0))


def test_overflow_threshold_from_both_sides():
    last = binary32.from_bits(0x42B17217)  # 88.72283: exp is finite, the next input's is inf
    first = binary32.next_up(last)
    below, above = _hits("exp", _f32(last)), _hits("exp", _f32(first))
    assert R.OVERFLOW_EDGE_FINITE in below and R.OVERFLOW_EDGE_INF not in below
    assert R.OVERFLOW_EDGE_INF in above and R.OVERFLOW_EDGE_FINITE not in above
    assert not _hits("exp", _f32(80.0)) & {R.OVERFLOW_EDGE_FINITE, R.OVERFLOW_EDGE_INF}


def test_saturation_edge_of_tanh():
    # tanh(x) rounds to 1 from 9.010913 on (bits 0x41102CB4); the input before it does not
    first = binary32.from_bits(0x41102CB4)
    hits = _hits("tanh", _f32(first, binary32.next_down(first)))
    assert {R.SATURATION_EDGE_AT, R.SATURATION_EDGE_BELOW} <= hits


def test_exactness_and_distance_to_a_midpoint():
    assert R.EXACT_RESULT in _hits("exp", _f32(0.0))
    assert R.INEXACT_RESULT in _hits("exp", _f32(1.0))
    hard = binary32.from_bits(0xB2FFFFF6)  # exp: 3e-7 ULP from a midpoint (witnesses.json)
    hits = _hits("exp", _f32(hard))
    assert {R.NEAR_MIDPOINT, R.HARD_TO_ROUND} <= hits
    assert R.HARD_TO_ROUND not in _hits("exp", _f32(1.0))


def test_int32_results_at_and_one_past_the_range():
    assert R.INT32_AT_MAX in _hits("add", _i32(2**31 - 2), _i32(1))
    assert R.INT32_AT_MIN in _hits("sub", _i32(-(2**31) + 1), _i32(1))
    assert R.INT32_ABOVE_MAX in _hits("add", _i32(2**31 - 1), _i32(1))  # an OverflowError
    assert R.INT32_BELOW_MIN in _hits("reduce_sum", _i32(-(2**31), -1))
    assert not _hits("add", _i32(2**31 - 1), _i32(2)) & set(ResultClass)  # two past: no class
    a, b = Tensor(I32, (1, 2), (2**31 - 2, 1)), Tensor(I32, (2, 1), (1, 1))
    assert R.INT32_AT_MAX in _hits("matmul", a, b)
    assert _hits("add", _i32(2**31 - 1, 1), _i32(1, 2, 3)) == frozenset()  # a shape error


@pytest.mark.parametrize(
    ("values", "classes"),
    [
        ((-0.0, -0.0), {R.EXTREMUM_NEGATIVE_ZERO, R.EXTREMUM_SAME_SIGN_ZERO_TIE}),
        ((-0.0, -1.0), {R.EXTREMUM_NEGATIVE_ZERO}),
        ((-0.0, 0.0), {R.EXTREMUM_POSITIVE_ZERO}),
        ((2.0, 2.0, 1.0), {R.EXTREMUM_VALUE_TIE}),
    ],
)
def test_reduce_max_extremum_classes(values, classes):
    hits = _hits("reduce_max", _f32(*values))
    assert hits & set(ResultClass) >= classes
    others = {R.EXTREMUM_NEGATIVE_ZERO, R.EXTREMUM_POSITIVE_ZERO, R.EXTREMUM_SAME_SIGN_ZERO_TIE}
    assert not (hits & others) - classes


def test_reduce_min_of_positive_zeros_is_a_positive_zero_tie():
    hits = _hits("reduce_min", _f32(0.0, 0.0))
    assert {R.EXTREMUM_POSITIVE_ZERO, R.EXTREMUM_SAME_SIGN_ZERO_TIE} <= hits
    assert R.EXTREMUM_NEGATIVE_ZERO in _hits("reduce_min", _f32(0.0, -0.0))


def test_floating_sums_whose_value_depends_on_the_order():
    for accumulator in (F32, DType.Float64):
        big = _f32(2.0**60, 1.0, -(2.0**60))
        assert R.SUM_ORDER_DEPENDENT in _hits("reduce_sum", big, accumulator=accumulator)
        plain = _hits("reduce_sum", _f32(1.0, 2.0), accumulator=accumulator)
        assert R.SUM_ORDER_DEPENDENT not in plain


def test_candidates_are_derived_from_the_plan():
    assert candidate_classes(_plan("lt", F32, F32)) == frozenset()
    assert candidate_classes(_plan("argmax", F32)) == {
        R.EXTREMUM_SAME_SIGN_ZERO_TIE,
        R.EXTREMUM_VALUE_TIE,
    }
    assert R.NEGATIVE_ZERO not in candidate_classes(_plan("cumsum", F32))  # starts at +0
    assert R.NEGATIVE_ZERO in candidate_classes(_plan("scatter_add", F32, I32, F32))
    assert candidate_classes(_plan("relu", I32)) == {R.INT32_AT_MIN, R.INT32_AT_MAX}
    assert candidate_classes(_plan("add", I32, I32)) == {c for c in R if c.group is Group.INT32}
    assert R.SUM_ORDER_DEPENDENT in candidate_classes(_plan("matmul", F32, F32))
    assert R.INF_FROM_FINITE not in candidate_classes(_plan("gather", F32, I32))
    pow_plan = _plan("pow", F32, F32)
    assert {R.EXACT_RESULT, R.INEXACT_RESULT} <= candidate_classes(pow_plan)
    assert R.HARD_TO_ROUND not in candidate_classes(pow_plan)  # measured for unary plans only


def test_applicable_classes_are_candidates_known_to_be_reached():
    exp = applicable_result_classes(_plan("exp", F32))
    assert {R.SUBNORMAL, R.OVERFLOW_EDGE_INF, R.HARD_TO_ROUND} <= exp
    assert R.NEGATIVE_ZERO not in exp  # exp is never -0: not found, not claimed
    # an Int32 operand of a mixed add is at most 2**31: it cannot overflow
    mixed = applicable_result_classes(_plan("add", F32, I32))
    assert R.INF_FROM_FINITE not in mixed and R.SUBNORMAL in mixed
    for plan in resolvable_plans():
        assert applicable_result_classes(plan) <= candidate_classes(plan), plan.describe()


def test_result_kinds_neighbours_and_midpoint_distance_of_unary_results():
    import numpy as np

    from conformance.classes import unary

    values = [0.0, -0.0, binary32.MIN_SUBNORMAL, 1.0, -1.0, MAX, float("inf"), -float("inf"), 2.0]
    kinds = unary.kinds(np.array([*values, float("nan")], np.float32)).tolist()
    K = unary.Kind
    assert kinds == [
        K.POSITIVE_ZERO, K.NEGATIVE_ZERO, K.SUBNORMAL, K.ONE, K.ONE, K.MAX_FINITE,
        K.POSITIVE_INF, K.NEGATIVE_INF, K.NORMAL, K.NAN,
    ]  # fmt: skip
    int_plan = _plan("exp", I32)
    below, above = unary.neighbours(int_plan, np.array([2**31 - 1, -(2**31)], np.int32))
    assert below.tolist() == [2**31 - 2, -(2**31)] and above.tolist() == [2**31 - 1, -(2**31) + 1]
    exp = _plan("exp", F32)
    distance = unary.midpoint_distance(exp, np.array([0.0, 1.0, -200.0, 89.0], np.float32))
    assert distance[0] == 0.5  # exp(0) = 1 exactly: half an ULP from both midpoints
    assert 0 <= distance[1] < 0.5
    assert distance[2] == 0.5  # exp(-200) is next to 0, half a subnormal ULP from 2**-150
    assert np.isnan(distance[3])  # exp(89) overflows: not measured
    assert np.isnan(unary.midpoint_distance(_plan("log", F32), np.array([1.0], np.float32))[0])
    assert not unary.is_unary(_plan("add", F32, F32)) and unary.is_unary(_plan("relu", I32))
