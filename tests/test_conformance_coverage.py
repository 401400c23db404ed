"""conformance.classes.boundary (measured and derived classes) and conformance.judge.coverage."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest

from conformance.classes.applicability import applicable_classes
from conformance.classes.boundary import Boundary, Group
from conformance.classes.witness_tables import (
    FLOAT_WITNESSES,
    arithmetic_witnesses,
    weak_class_values,
    weak_classes_of,
)
from conformance.generate.families import classes_hit, classes_of_calls
from conformance.generate.families.measures import rounding_classes
from conformance.generate.strategies import boundary_examples
from conformance.generate.witnesses import witness_calls
from conformance.judge.coverage import CoverageMatrix
from conformance.model.calls import Call, forward_arguments
from oracle import DType, Tensor, binary32, get_operation, resolvable_plans, resolve_operation_plan

B = Boundary
F32, I32, BOOL = DType.Float32, DType.Int32, DType.Bool
MAX = binary32.MAX_FINITE
MS = binary32.MIN_SUBNORMAL
NAN = binary32.from_bits(0x7FC00000)
NAN_PAYLOAD = binary32.from_bits(0x7FC00001)
NAN_NEGATIVE = binary32.from_bits(0xFFC00000)


def f(*values, shape=None):
    return Tensor(F32, (len(values),) if shape is None else shape, tuple(map(float, values)))


def i(*values, shape=None):
    return Tensor(I32, (len(values),) if shape is None else shape, tuple(values))


def call(operation, *args, accumulator_dtype=None, **parameters):
    spec = get_operation(operation)
    positions = spec.dtype_operand_positions
    operands = args if positions is None else args[: len(positions)]
    rest = () if positions is None else args[len(positions) :]
    forward = forward_arguments(operation, operands, parameters or rest)
    policy = [a.dtype if isinstance(a, Tensor) else a for a in spec.policy_operands(forward)]
    plan = resolve_operation_plan(operation, *policy, accumulator_dtype=accumulator_dtype)
    return Call(operation, forward, accumulator_dtype, plan)


def hits(operation, *args, **kw):
    return classes_hit(call(operation, *args, **kw))


# -- values -------------------------------------------------------------------------


def test_float_value_classes_read_bit_patterns():
    got = hits("neg", f(0.0, -0.0, math.inf, -math.inf, NAN, NAN_PAYLOAD, NAN_NEGATIVE))
    assert {B.POSITIVE_ZERO, B.NEGATIVE_ZERO, B.POSITIVE_INF, B.NEGATIVE_INF} <= got
    assert {B.NAN_POSITIVE, B.NAN_NEGATIVE, B.NAN_PAYLOAD} <= got
    assert B.NAN_PAYLOAD not in hits("neg", f(NAN, NAN_NEGATIVE))
    got = hits("neg", f(-MS, binary32.from_bits(0x007FFFFF), -binary32.MIN_NORMAL, MAX))
    assert {B.MIN_SUBNORMAL, B.MAX_SUBNORMAL, B.MIN_NORMAL, B.MAX_FINITE} <= got
    assert not {c for c in hits("neg", f(1.0, 2.5)) if c.group is Group.FLOAT_VALUE}


def test_int32_values_and_conversion():
    got = hits("add", i(2**31 - 1, -(2**31), 0, -1), i(0, 0, 0, 0))
    assert {B.INT32_MAX, B.INT32_MIN, B.INT32_ZERO, B.INT32_MINUS_ONE} <= got
    assert B.INT32_TO_FLOAT32_TIE not in got  # integer plan: nothing is converted
    got = hits("add", i(2**24 + 1), f(0.0))
    assert B.INT32_TO_FLOAT32_TIE in got and B.INT32_TO_FLOAT32_INEXACT not in got
    assert B.INT32_TO_FLOAT32_INEXACT in hits("add", i(2**25 + 1), f(0.0))
    assert not hits("add", i(2**24), f(0.0)) & {B.INT32_TO_FLOAT32_TIE, B.INT32_TO_FLOAT32_INEXACT}


# -- rounding of exact results ---------------------------------------------------------


def test_rounding_ties_and_near_ties():
    assert B.TIE_TO_EVEN_DOWN in hits("add", f(2.0**24), f(1.0))
    assert B.TIE_TO_EVEN_UP in hits("add", f(2.0**24 + 2), f(1.0))
    assert B.NEAR_TIE_BELOW in hits("add", f(1.0), f(2.0**-24 - 2.0**-48))
    assert B.NEAR_TIE_ABOVE in hits("sub", f(1.0), f(-(2.0**-24 + 2.0**-47)))
    assert B.TIE_TO_EVEN_DOWN in hits("mul", f(4097.0), f(4097.0))
    plain = hits("add", f(1.0, 1.5), f(2.0, 2.0**-20))  # exact or far from a midpoint
    assert not plain & {c for c in Boundary if c.group is Group.ROUNDING}
    # exact results, by Fraction
    assert rounding_classes(Fraction(2**24 + 1)) == {B.TIE_TO_EVEN_DOWN}
    assert rounding_classes(Fraction(3, 2**150)) == {B.SUBNORMAL_RESULT, B.TIE_TO_EVEN_UP}
    assert rounding_classes(Fraction(1, 3)) == set()


def test_range_classes():
    assert B.OVERFLOW_BY_ONE_ULP in hits("add", f(MAX), f(2.0**103))
    assert B.OVERFLOW_BY_ONE_ULP in hits("mul", f(2.0**126), f(4.0))
    assert B.OVERFLOW_BY_ONE_ULP not in hits("mul", f(MAX), f(MAX))  # far beyond
    assert B.ROUNDS_TO_MAX_FINITE in hits("add", f(MAX), f(1.0))
    assert B.UNDERFLOW_TO_ZERO in hits("mul", f(MS), f(0.5))
    assert B.UNDERFLOW_TO_MIN_SUBNORMAL in hits("mul", f(MS), f(0.75))
    assert B.ROUNDS_UP_TO_MIN_NORMAL in hits("div", f(binary32.from_bits(0x00FFFFFF)), f(2.0))
    assert B.SUBNORMAL_RESULT in hits("div", f(binary32.MIN_NORMAL), f(2.0))
    assert not hits("div", f(1.0, MAX), f(0.0, math.inf)) & {
        c for c in Boundary if c.group in (Group.ROUNDING, Group.RANGE)
    }


def test_int32_results():
    got = hits("add", i(2**31 - 1), i(1))
    assert {B.INT32_RESULT_JUST_OUTSIDE, B.INT32_RESULT_OVERFLOW} <= got
    got = hits("mul", i(46341), i(46341))
    assert B.INT32_RESULT_OVERFLOW in got and B.INT32_RESULT_JUST_OUTSIDE not in got
    assert B.INT32_RESULT_AT_LIMIT in hits("mul", i(-(2**30)), 2)
    assert B.INT32_RESULT_AT_LIMIT in hits("pow", i(-2), 31)
    assert B.INT32_RESULT_JUST_OUTSIDE in hits("pow", i(2), 31)
    assert not hits("pow", i(2), 30) & {c for c in Boundary if c.group is Group.INT32_RESULT}


def test_int32_sums_check_only_the_final_value():
    got = hits("reduce_sum", i(2**31 - 1, 1, -1))
    assert {B.INT32_PARTIAL_SUM_OUTSIDE, B.INT32_RESULT_AT_LIMIT} <= got
    assert B.INT32_RESULT_OVERFLOW not in got
    assert B.INT32_RESULT_JUST_OUTSIDE in hits("reduce_sum", i(2**31 - 1, 1))
    assert B.INT32_PARTIAL_SUM_OUTSIDE not in hits("reduce_sum", i(-1, 2**31 - 1, 1))
    got = hits("matmul", i(65536, 65536, shape=(1, 2)), i(65536, -65536, shape=(2, 1)))
    assert {B.INT32_TERM_OUTSIDE, B.INT32_PARTIAL_SUM_OUTSIDE} <= got


# -- accumulation groups -------------------------------------------------------------


def test_sum_classes():
    got = hits("reduce_sum", f(2.0**24, 1.0, -(2.0**24)))
    assert {B.SUM_CANCELLATION, B.SUM_ORDER_SENSITIVE, B.SUM_WIDTH_SENSITIVE} <= got
    assert not hits("reduce_sum", f(1.0, 2.0, 3.0)) & {c for c in Boundary if c.group is Group.SUM}
    assert B.SUM_INTERMEDIATE_OVERFLOW in hits("cumsum", f(MAX, MAX, -MAX), 0)
    assert B.SUM_INTERMEDIATE_OVERFLOW not in hits("cumsum", f(MAX, MAX), 0)  # exact overflows
    assert B.SUM_INF_MINUS_INF in hits("reduce_sum", f(math.inf, 1.0, -math.inf))
    assert B.SUM_ALL_NEGATIVE_ZERO in hits("reduce_sum", f(-0.0, -0.0))
    assert B.EMPTY_REDUCTION in hits("reduce_sum", f(shape=(0,)))
    assert B.EMPTY_REDUCTION in hits("matmul", f(shape=(2, 0)), f(shape=(0, 1)))
    # groups follow the axis: along axis 1 the rows do not cancel
    x = f(2.0**24, -(2.0**24), 1.0, 1.0, shape=(2, 2))
    assert B.SUM_CANCELLATION in hits("reduce_sum", x, 0) | hits("reduce_sum", x, 1)
    assert B.SUM_CANCELLATION not in hits(
        "reduce_sum", f(2.0**24, 1.0, -(2.0**24), 1.0, shape=(2, 2)), 1
    )


def test_matmul_conv_and_scatter_add_terms():
    a = f(2.0**24, 1.0, -(2.0**24), shape=(1, 3))
    ones = f(1.0, 1.0, 1.0, shape=(3, 1))
    assert B.SUM_ORDER_SENSITIVE in hits("matmul", a, ones)
    assert B.SUM_ORDER_SENSITIVE in hits("matmul", a, ones, accumulator_dtype=DType.Float64)
    conv = call(
        "conv_general",
        f(2.0**24, 1.0, -(2.0**24), shape=(1, 1, 3)),
        f(1.0, 1.0, 1.0, shape=(1, 1, 3)),
        (1,),
        ((0, 0),),
        (1,),
        (1,),
        1,
    )
    assert B.SUM_ORDER_SENSITIVE in classes_hit(conv)
    padded = call(
        "conv_general",
        f(2.0, shape=(1, 1, 1)),
        f(math.inf, 1.0, shape=(1, 1, 2)),
        (1,),
        ((1, 0),),
        (1,),
        (1,),
        1,
    )
    assert {B.CONV_PADDING, B.POSITIVE_INF} <= classes_hit(padded)
    got = hits("scatter_add", f(2.0**24), i(0, 0), f(1.0, -(2.0**24)), 0)
    assert {B.SUM_ORDER_SENSITIVE, B.INDEX_DUPLICATE, B.INDEX_FIRST, B.INDEX_LAST} <= got


def test_product_classes():
    got = hits("reduce_prod", f(MAX, 2.0, 0.5))
    assert {B.PRODUCT_ORDER_SENSITIVE, B.PRODUCT_INTERMEDIATE_OVERFLOW} <= got
    assert B.PRODUCT_INTERMEDIATE_UNDERFLOW in hits("reduce_prod", f(MS, 0.5, 2.0))
    assert B.PRODUCT_ZERO_TIMES_INF in hits("reduce_prod", f(0.0, math.inf))
    assert not hits("reduce_prod", f(2.0, 3.0)) & {c for c in Boundary if c.group is Group.PRODUCT}


def test_extremum_classes():
    assert B.EXTREMUM_ZERO_TIE_NEG_FIRST in hits("reduce_max", f(-0.0, 0.0))
    assert B.EXTREMUM_ZERO_TIE_POS_FIRST in hits("reduce_max", f(0.0, -0.0))
    assert not hits("reduce_max", f(-0.0, 0.0, 1.0)) & {
        B.EXTREMUM_ZERO_TIE_NEG_FIRST,
        B.EXTREMUM_ZERO_TIE_POS_FIRST,
    }  # the maximum is 1
    assert B.EXTREMUM_ZERO_TIE_NEG_FIRST in hits("reduce_min", f(-0.0, 0.0, 1.0))
    assert B.EXTREMUM_NAN_FIRST in hits("argmax", f(NAN, 1.0))
    got = hits("argmin", f(1.0, NAN_PAYLOAD, NAN_NEGATIVE))
    assert {B.EXTREMUM_NAN_LATER, B.EXTREMUM_NANS_DIFFERENT_BITS} <= got
    assert B.EXTREMUM_VALUE_TIE in hits("argmax", f(3.0, 1.0, 3.0))
    assert B.EXTREMUM_VALUE_TIE not in hits("argmax", f(3.0, 1.0, 1.0))
    assert B.ERROR_EMPTY_EXTREMUM in hits("reduce_max", f(shape=(0,)))
    assert B.ERROR_EMPTY_EXTREMUM not in hits("reduce_max", f(shape=(2, 0)), 0)
    # elementwise: pairs per broadcast element
    assert B.EXTREMUM_ZERO_TIE_POS_FIRST in hits("maximum", f(0.0), f(-0.0))
    assert B.EXTREMUM_NAN_LATER in hits("minimum", f(1.0, 2.0), f(NAN, 2.0))
    assert B.EXTREMUM_ZERO_TIE_POS_FIRST in hits("clamp", f(0.0), -0.0, 1.0)


def test_order_classes():
    got = hits("_sort_values", f(1.0, NAN, 1.0, -0.0, 0.0), -1, False)
    assert {B.SORT_NAN, B.SORT_TIE, B.SORT_ZEROS_NEG_FIRST} <= got
    assert B.SORT_DESCENDING in hits("_sort_indices", f(1.0), 0, True)
    assert B.TOPK_TIE_AT_CUTOFF in hits("_topk_values", f(1.0, 3.0, 3.0, 2.0), 1, 0, True)
    assert B.TOPK_TIE_AT_CUTOFF not in hits("_topk_values", f(1.0, 3.0, 3.0, 2.0), 2, 0, True)
    assert B.TOPK_NAN_SELECTED in hits("_topk_indices", f(1.0, NAN), 1, 0, True)
    assert B.TOPK_NAN_SELECTED not in hits("_topk_indices", f(1.0, NAN), 1, 0, False)
    assert {B.TOPK_K_ZERO, B.TOPK_SMALLEST} <= hits("_topk_values", f(1.0), 0, 0, False)


def test_indices_shapes_parameters_and_errors():
    assert {B.INDEX_FIRST, B.INDEX_LAST, B.INDEX_DUPLICATE} <= hits(
        "gather", f(1, 2, 3), i(0, 2, 2), 0
    )
    assert B.ERROR_INDEX_NEGATIVE in hits("gather", f(1, 2, 3), i(-1), 0)
    assert B.ERROR_INDEX_TOO_LARGE in hits("gather", f(1, 2, 3), i(3), 0)
    assert B.ERROR_SCATTER_DUPLICATE in hits("scatter", f(1, 2, 3), i(1, 1), f(5, 6), 0)
    assert B.ERROR_SHAPE_MISMATCH in hits("scatter", f(1, 2, 3), i(1), f(5, 6), 0)
    assert B.INDEX_EMPTY in hits("gather", f(1, 2), i(), 0)
    assert B.ERROR_BAD_AXIS in hits("gather", f(1, 2), i(0), 1)
    assert B.SHAPE_SCALAR in hits("gather", f(1, 2), i(1, shape=()), -1)
    assert {B.SHAPE_BROADCAST, B.CONDITION_MIXED} <= hits(
        "select", Tensor(BOOL, (2, 1), (True, False)), f(1, 2), f(3, 4)
    )
    assert B.ERROR_SHAPE_MISMATCH in hits("add", f(1, 2), f(1, 2, 3))
    assert B.ERROR_SHAPE_MISMATCH in hits("matmul", f(1, 2, shape=(1, 2)), f(1, shape=(1, 1)))
    assert {B.SHAPE_SCALAR, B.SHAPE_EMPTY} <= hits("add", f(1, shape=()), f(shape=(0,)))
    x = f(*range(8), shape=(2, 2, 2))
    assert {B.AXIS_MULTIPLE, B.AXIS_NEGATIVE, B.KEEPDIMS} <= hits("reduce_sum", x, (0, -1), True)
    assert B.AXIS_EMPTY_TUPLE in hits("reduce_sum", x, ())
    assert B.AXIS_NONE in hits("argmax", x, None)
    assert B.ERROR_BAD_AXIS in hits("reduce_sum", x, (1, -2))
    assert B.ERROR_BAD_AXIS in hits("cumsum", x, 3)
    conv = call(
        "conv_general",
        f(*range(18), shape=(1, 2, 3, 3)),
        f(*range(8), shape=(2, 1, 2, 2)),
        (2, 1),
        ((0, 0), (0, 0)),
        (1, 2),
        (2, 1),
        2,
    )
    assert {
        B.CONV_STRIDE,
        B.CONV_LHS_DILATION,
        B.CONV_RHS_DILATION,
        B.CONV_GROUPS,
        B.CONV_TWO_SPATIAL,
    } <= classes_hit(conv)
    bad = call(
        "conv_general",
        f(*range(6), shape=(1, 2, 3)),
        f(1, 2, shape=(1, 1, 2)),
        (1,),
        ((0, 0),),
        (1,),
        (1,),
        1,
    )
    assert B.ERROR_SHAPE_MISMATCH in classes_hit(bad)


def test_weak_classes():
    assert B.WEAK_TWO_POW_31 in hits("mul", f(1.0), 2**31)
    assert B.WEAK_BOOL in hits("mul", i(1), True)
    assert {B.WEAK_NUMPY_SCALAR, B.WEAK_FLOAT} <= hits("mul", f(1.0), np.float32(0.5))
    assert B.WEAK_FRACTION in hits("mul", f(1.0), Fraction(1, 3))
    assert B.WEAK_CONVERSION_TIE in hits("mul", f(1.0), 2**24 + 1)
    assert B.WEAK_CONVERSION_TIE not in hits("mul", i(1), 2**24 + 1)  # stays Int32
    assert B.WEAK_ROUNDS_TO_INF in hits("pow", f(1.0), 10**40)
    assert {B.WEAK_FLOAT_SPECIAL, B.WEAK_FLOAT} <= hits("clamp", f(1.0), -0.0, math.nan)
    assert weak_classes_of(0.1, F32) == {B.WEAK_FLOAT, B.WEAK_FLOAT_INEXACT}


# -- derivation ---------------------------------------------------------------------


def _applicable(operation, *operands, **kw):
    return applicable_classes(resolve_operation_plan(operation, *operands, **kw))


def test_applicability_is_derived_from_the_plan():
    assert B.OVERFLOW_BY_ONE_ULP in _applicable("add", F32, F32)
    assert B.OVERFLOW_BY_ONE_ULP not in _applicable("add", F32, I32)  # |Int32| <= 2**31
    assert B.OVERFLOW_BY_ONE_ULP in _applicable("mul", F32, I32)  # 2**126 * 4
    assert B.UNDERFLOW_TO_ZERO not in _applicable("add", F32, F32)  # sums are on the grid
    assert B.UNDERFLOW_TO_ZERO in _applicable("mul", F32, F32)
    div_ints = _applicable("div", I32, I32)
    assert {B.NEAR_TIE_BELOW, B.NEAR_TIE_ABOVE} <= div_ints
    assert not div_ints & {B.TIE_TO_EVEN_DOWN, B.OVERFLOW_BY_ONE_ULP, B.SUBNORMAL_RESULT}
    assert B.INT32_TO_FLOAT32_TIE in div_ints and B.POSITIVE_ZERO not in div_ints
    scatter = _applicable("scatter", F32, I32, F32)
    assert B.ERROR_SCATTER_DUPLICATE in scatter and B.INDEX_DUPLICATE not in scatter
    assert B.INDEX_DUPLICATE in _applicable("scatter_add", F32, I32, F32)
    assert B.EXTREMUM_VALUE_TIE in _applicable("argmax", F32)
    assert B.EXTREMUM_VALUE_TIE not in _applicable("reduce_max", F32)
    assert B.EMPTY_REDUCTION not in _applicable("reduce_max", F32)
    assert B.INT32_TERM_OUTSIDE in _applicable("matmul", I32, I32)
    assert B.INT32_TERM_OUTSIDE not in _applicable("reduce_sum", I32)
    wide = _applicable("reduce_sum", F32, accumulator_dtype=DType.Float64)
    assert B.SUM_WIDTH_SENSITIVE in wide and B.AXIS_EMPTY_TUPLE in wide
    assert not _applicable("relu", I32) & {c for c in Boundary if c.group is Group.INT32_RESULT}


@pytest.mark.parametrize("plan", resolvable_plans(), ids=lambda p: p.describe())
def test_every_witness_and_representative_hits_its_class(plan):
    for cls, rows in arithmetic_witnesses(plan).items():
        for row in rows:
            args = tuple(
                Tensor(o.dtype, (), (v,)) if o.dtype is not None else v
                for o, v in zip(plan.operands, row)
            )
            assert cls in classes_hit(Call(plan.operation, args, None, plan)), (cls, row)
    for position in range(len(plan.operands)):
        if plan.operands[position].dtype is not None:
            continue
        for cls, values in weak_class_values(plan, position).items():
            for value in values:
                assert cls in weak_classes_of(value, plan.operands[position].convert_to)


def test_witness_tables_cover_their_operations():
    assert set(FLOAT_WITNESSES) == {"add", "sub", "mul", "div"}
    for table in FLOAT_WITNESSES.values():
        assert B.TIE_TO_EVEN_DOWN in table and B.NEAR_TIE_ABOVE in table


# -- the coverage matrix -------------------------------------------------------------


def _plans(*specs):
    return [resolve_operation_plan(op, *operands, **kw) for op, operands, kw in specs]


SAMPLE = _plans(
    ("add", (F32, F32), {}),
    ("reduce_sum", (F32,), {"accumulator_dtype": DType.Float64}),
    ("gather", (F32, I32), {}),
)


def _ci_calls(plan):
    """The deterministic calls of the boundary check: boundary examples, then witnesses."""
    return [*boundary_examples(plan), *witness_calls(plan)]


def test_a_complete_run_has_nothing_missing():
    matrix = CoverageMatrix(SAMPLE)
    for plan in SAMPLE:
        for example in _ci_calls(plan):
            matrix.record(example)
    assert matrix.missing() == [] and matrix.missing_results() == [] and matrix.complete
    assert matrix.calls(SAMPLE[0]) == len(_ci_calls(SAMPLE[0]))


def test_a_withheld_class_and_an_unexercised_plan_are_reported():
    matrix = CoverageMatrix(SAMPLE)
    add = SAMPLE[0]
    recorded = [e for e in boundary_examples(add) if B.TIE_TO_EVEN_UP not in classes_hit(e)]
    for example in recorded:
        matrix.record(example)
    missing = matrix.missing()
    assert (add, B.TIE_TO_EVEN_UP) in missing
    assert (SAMPLE[1], None) in missing and (SAMPLE[2], None) in missing
    unhit = applicable_classes(add) - classes_of_calls(recorded)
    assert {cls for plan, cls in missing if plan == add} == unhit
    text = matrix.to_markdown()
    assert "TIE_TO_EVEN_UP" in text and "**not exercised**" in text
    assert not matrix.complete


def test_merge_json_and_save(tmp_path):
    one, two = CoverageMatrix(SAMPLE), CoverageMatrix(SAMPLE)
    for example in _ci_calls(SAMPLE[0]):
        one.record(example)
    for plan in SAMPLE[1:]:
        for example in _ci_calls(plan):
            two.record(example)
    merged = CoverageMatrix(SAMPLE).merge(one).merge(two)
    assert merged.complete
    again = CoverageMatrix.from_json(merged.to_json(), SAMPLE)
    assert again.as_dict() == merged.as_dict()
    data = json.loads(merged.to_json())
    assert data["summary"]["complete"] is True
    assert data["classes"]["TIE_TO_EVEN_UP"][0] == "ROUNDING"
    assert merged.save(tmp_path / "coverage.json").read_text() == merged.to_json()
    assert "| plan |" in merged.save(tmp_path / "coverage.md").read_text()
    # a plan outside the matrix is kept and flagged, never silently dropped
    stranger = resolve_operation_plan("neg", F32)
    merged.record(boundary_examples(stranger)[0])
    assert merged.unexpected_plans == (stranger,)
    assert "(unexpected)" in merged.to_markdown()


def test_default_matrix_spans_every_resolvable_plan():
    matrix = CoverageMatrix()
    assert matrix.plans == resolvable_plans()
    assert [plan for plan, cls in matrix.missing()] == list(resolvable_plans())


# -- result classes -----------------------------------------------------------------


def _checked_matrix(plans) -> CoverageMatrix:
    """The matrix of the ci profile's boundary check (boundary examples and witness
    calls) on the CPU backend, assembled from the checkers' records as the plugin does."""
    import backends
    from conformance.judge.checker import Checker
    from conformance.judge.checks import check_boundary
    from conformance.judge.profiles import PROFILES

    cpu = backends.get("cpu")
    rows = []
    for plan in plans:
        checker = Checker(cpu, "cpu", plan, "boundary", PROFILES["ci"])
        check_boundary(checker)
        coverage = checker.record()["coverage"]
        rows.append(
            {
                "plan": plan.describe(),
                "calls": coverage["calls"],
                "hits": coverage["hits"],
                "result_hits": coverage["result_hits"],
            }
        )
    document = {"format": "plancheck-coverage/1", "plans": rows}
    return CoverageMatrix.from_json(json.dumps(document), plans)


def test_the_ci_boundary_check_hits_every_applicable_pair_of_both_kinds():
    plans = resolvable_plans()
    matrix = _checked_matrix(plans)
    assert matrix.missing() == []
    missing = [f"{plan.describe()}: {cls.name}" for plan, cls in matrix.missing_results()]
    assert missing == []
    assert matrix.complete
    summary = matrix.as_dict()["summary"]
    assert summary["result_pairs_applicable"] > 500 and summary["result_pairs_missing"] == 0


def test_a_withheld_result_class_is_reported():
    from conformance.classes.result import ResultClass
    from conformance.generate.witnesses import applicable_result_classes

    exp = resolve_operation_plan("exp", F32)
    assert ResultClass.SUBNORMAL in applicable_result_classes(exp)
    matrix = CoverageMatrix([exp])
    for example in boundary_examples(exp):  # no witness calls: the edges go unhit
        matrix.record(example)
    assert matrix.missing() == []
    unhit = {cls for plan, cls in matrix.missing_results()}
    assert {ResultClass.OVERFLOW_EDGE_FINITE, ResultClass.OVERFLOW_EDGE_INF} <= unhit
    assert not matrix.complete
    text = matrix.to_markdown()
    assert "result OVERFLOW_EDGE_INF" in text and "## Result classes" in text
    again = CoverageMatrix.from_json(matrix.to_json(), [exp])
    assert again.as_dict() == matrix.as_dict()
    assert again.result_hits(exp) == matrix.result_hits(exp) != {}
    # a document without result_hits (an older run) hit no result class
    data = json.loads(matrix.to_json())
    for row in data["plans"]:
        del row["result_hits"]
    older = CoverageMatrix.from_json(json.dumps(data), [exp])
    assert older.result_hits(exp) == {} and len(older.missing_results()) > len(unhit)
