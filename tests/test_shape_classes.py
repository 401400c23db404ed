"""Shape classes (docs/shape-classes.md): the catalogue, applicability, measurement,
the order witnesses and value distributions, the boundary pairs, and coverage."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conformance.classes.applicability import applicable_classes
from conformance.classes.boundary import (
    LENGTHS,
    MAX_RANK,
    SCATTER_UPDATE_COUNTS,
    SHAPE_GROUPS,
    Boundary,
    Group,
    axis_class,
    length_class,
    plan_facts,
    rank_class,
)
from conformance.generate.examples import _pair_examples, _shape_examples
from conformance.generate.families import MODULES, classes_hit, classes_of_calls, module_of
from conformance.generate.order_values import (
    cancelling_terms,
    is_order_witness,
    other_orders,
    product_factors,
    product_witness,
    sum_witness,
)
from conformance.generate.strategies import boundary_examples
from conformance.judge.coverage import CoverageMatrix
from conformance.model.calls import Call, Family, forward_arguments
from conformance.report.coverage_summary import summarise
from oracle import (
    DType,
    Tensor,
    binary32,
    expected,
    get_operation,
    resolvable_plans,
    resolve_operation_plan,
)

B = Boundary
F32, I32, BOOL = DType.Float32, DType.Int32, DType.Bool
PLANS = resolvable_plans()


def call(operation, *args, accumulator_dtype=None, **parameters):
    spec = get_operation(operation)
    positions = spec.dtype_operand_positions
    operands = args if positions is None else args[: len(positions)]
    forward = forward_arguments(operation, operands, parameters)
    policy = [a.dtype if isinstance(a, Tensor) else a for a in spec.policy_operands(forward)]
    plan = resolve_operation_plan(operation, *policy, accumulator_dtype=accumulator_dtype)
    return Call(operation, forward, accumulator_dtype, plan)


def ramp(shape, start=1.0, dtype=F32):
    size = math.prod(shape)
    values = tuple(start + k for k in range(size)) if dtype is F32 else tuple(range(size))
    return Tensor(dtype, shape, values)


def plan_of(description):
    return next(p for p in PLANS if p.describe() == description)


# -- the catalogue ---------------------------------------------------------------------


def test_lengths_are_the_power_of_two_thresholds():
    assert LENGTHS[:9] == tuple(range(1, 10))
    for power in (16, 32, 64, 128, 256, 1024):
        assert {power - 1, power, power + 1} <= set(LENGTHS)
    assert len(LENGTHS) == 27
    assert [c.name for c in Boundary if c.group is Group.LENGTH] == [f"LENGTH_{n}" for n in LENGTHS]
    assert [c.name for c in Boundary if c.group is Group.RANK] == [
        f"RANK_{r}" for r in range(MAX_RANK + 1)
    ]
    # every axis of every rank 1..6, both spellings
    assert sum(c.group is Group.AXIS for c in Boundary) == sum(2 * r for r in range(1, 7))
    assert axis_class(-2, 5) is B.AXIS_MINUS_2_OF_5 and axis_class(4, 5) is B.AXIS_4_OF_5
    with pytest.raises(KeyError, match="LENGTH"):
        length_class(10)


# -- applicability ----------------------------------------------------------------------


def test_shape_classes_follow_the_family():
    gather = plan_of("gather(Float32, Int32) binary32 -> Float32")
    assert not {c for c in applicable_classes(gather) if c.group is Group.LENGTH}
    scatter_add = next(p for p in PLANS if p.operation == "scatter_add")
    lengths = {c for c in applicable_classes(scatter_add) if c.group is Group.LENGTH}
    assert lengths == {length_class(n) for n in SCATTER_UPDATE_COUNTS}
    cumsum = next(p for p in PLANS if p.operation == "cumsum")
    assert rank_class(0) not in applicable_classes(cumsum)  # a scan refuses a 0-d input
    assert axis_class(-6, 6) in applicable_classes(cumsum)
    exp = next(p for p in PLANS if p.operation == "exp")
    neg = next(p for p in PLANS if p.operation == "neg" and p.output is F32)
    assert B.LANES_NAN_TAIL in applicable_classes(neg)  # neg copies NaN bits
    assert B.LANES_NAN_TAIL not in applicable_classes(exp)
    assert B.BROADCAST_BOTH_SIDES not in applicable_classes(exp)  # one tensor
    add = next(p for p in PLANS if p.operation == "add")
    assert B.BROADCAST_BOTH_SIDES in applicable_classes(add)


# -- measurement ------------------------------------------------------------------------


def test_row_families_measure_rank_axis_and_length():
    hit = classes_hit(call("reduce_sum", ramp((3, 2, 4)), axis=-2, keepdims=False))
    assert {B.RANK_3, B.AXIS_MINUS_2_OF_3, B.LENGTH_2} <= hit
    assert B.AXIS_1_OF_3 not in hit
    hit = classes_hit(call("cumsum", ramp((17,)), axis=0))
    assert {B.LENGTH_17, B.RANK_1, B.AXIS_0_OF_1} <= hit
    assert not {
        c for c in classes_hit(call("cumsum", ramp((10,)), axis=0)) if c.group is Group.LENGTH
    }
    # a refused call hits its error class, no shape class
    refused = classes_hit(call("cumsum", ramp((3,)), axis=3))
    assert B.ERROR_BAD_AXIS in refused and not refused & {
        c for c in Boundary if c.group is Group.RANK
    }


def test_several_axes_need_two_long_axes_and_finite_values():
    x = ramp((3, 2, 4))
    assert B.SEVERAL_AXES_KEEPDIMS in classes_hit(call("reduce_sum", x, axis=(0, 2), keepdims=True))
    assert B.SEVERAL_AXES_DROPPED in classes_hit(
        call("reduce_sum", x, axis=(0, -1), keepdims=False)
    )
    thin = ramp((3, 1, 4))
    assert B.SEVERAL_AXES_DROPPED not in classes_hit(call("reduce_sum", thin, axis=(0, 1)))
    nan = Tensor(F32, (2, 2), (1.0, math.nan, 2.0, 3.0))
    assert B.SEVERAL_AXES_DROPPED not in classes_hit(call("reduce_sum", nan, axis=(0, 1)))


def test_matmul_length_is_k_of_a_tile_and_conv_length_is_terms_per_output():
    assert B.LENGTH_5 in classes_hit(call("matmul", ramp((2, 5)), ramp((5, 2))))
    assert B.LENGTH_5 not in classes_hit(call("matmul", ramp((1, 5)), ramp((5, 2))))  # M = 1
    conv = dict(
        window_strides=(1,), padding=((0, 0),), lhs_dilation=(1,), rhs_dilation=(1,),
        feature_group_count=1,
    )  # fmt: skip
    hit = classes_hit(call("conv_general", ramp((1, 3, 4)), ramp((2, 3, 3)), **conv))
    assert B.LENGTH_9 in hit  # 3 channels x a window of 3


def test_scatter_add_length_counts_updates_per_target():
    base = ramp((3,))
    indices = Tensor(I32, (6,), (0, 1, 1, 2, 2, 2))
    hit = classes_hit(call("scatter_add", base, indices, ramp((6,)), axis=0))
    assert {B.LENGTH_1, B.LENGTH_2} <= hit and B.LENGTH_3 not in hit  # 3 has no class here


def test_broadcast_layouts():
    def layouts(a, b):
        hit = classes_hit(call("add", ramp(a), ramp(b)))
        return {c.name for c in hit if c.name.startswith("BROADCAST")}

    assert layouts((1, 3), (2, 3)) == {"BROADCAST_LEADING_ONES"}
    assert layouts((3,), (2, 3)) == {"BROADCAST_RANK_MISMATCH"}
    assert layouts((2, 1), (1, 3)) == {"BROADCAST_BOTH_SIDES", "BROADCAST_LEADING_ONES"}
    assert layouts((2, 3), (2, 3)) == set()
    assert B.RANK_6 in classes_hit(call("add", ramp((2, 1, 1, 1, 1, 3)), ramp((3,))))


def test_lanes_measure_the_copied_element_in_blocks_and_tail():
    def lanes(n, nan_at, operation="neg"):
        bits = [binary32.to_bits(1.0)] * n
        for position, pattern in nan_at:
            bits[position] = pattern
        return {c.name for c in classes_hit(call(operation, Tensor.from_bits(F32, (n,), bits)))
                if c.group is Group.LANES}  # fmt: skip

    assert lanes(35, [(3, 0x7FC00001)]) == {"LANES_NAN_MAIN"}
    assert lanes(35, [(33, 0xFF800001)]) == {"LANES_SIGNALLING_NAN_TAIL"}
    assert lanes(32, [(31, 0x7FC00001)]) == set()  # not longer than 32
    assert lanes(48, [(47, 0x7FC00001)]) == {"LANES_NAN_MAIN"}  # no tail: 3 full blocks
    # select copies the chosen branch only
    cond = Tensor(BOOL, (35,), tuple(k % 2 == 0 for k in range(35)))
    x = Tensor.from_bits(F32, (35,), [0x7FC00001 if k == 33 else 0x3F800000 for k in range(35)])
    y = ramp((35,))
    assert B.LANES_NAN_TAIL not in classes_hit(call("select", cond, x, y))  # 33 is odd: y
    assert B.LANES_NAN_TAIL in classes_hit(call("select", cond, y, x))


def test_topk_long_row_tie():
    row = [float(k) for k in range(40)]
    row[5] = row[30]  # 30 is the 10th largest (index 30) and the 11th (index 5)
    x = Tensor(F32, (40,), tuple(row))
    assert B.TOPK_LONG_ROW_TIE in classes_hit(call("_topk_values", x, k=10, axis=0, largest=True))
    assert B.TOPK_LONG_ROW_TIE not in classes_hit(
        call("_topk_values", x, k=9, axis=0, largest=True)
    )
    assert B.TOPK_LONG_ROW_TIE not in classes_hit(
        call("_topk_values", x, k=40, axis=0, largest=True)  # k = n cuts nothing
    )


# -- examples ---------------------------------------------------------------------------


@pytest.mark.parametrize("plan", PLANS, ids=[p.describe() for p in PLANS])
def test_shape_examples_are_valid_and_hit_the_shape_classes(plan):
    shape = {c for c in applicable_classes(plan) if c.group in SHAPE_GROUPS - {Group.SHAPE}}
    examples = _shape_examples(plan)
    for example in examples:
        assert expected(example.operation, *example.args, **example.kwargs()).error is None
    signalling = {B.LANES_SIGNALLING_NAN_MAIN, B.LANES_SIGNALLING_NAN_TAIL}
    assert shape - signalling <= classes_of_calls(examples)
    # few and chosen: the Generic backend runs them all
    assert sum(sum(a.size for a in e.operands if isinstance(a, Tensor)) for e in examples) < 25_000


def test_the_sequential_plans_length_examples_are_order_witnesses():
    for operation, witness in (("cumsum", sum_witness), ("reduce_prod", product_witness)):
        plan = next(p for p in PLANS if p.operation == operation)
        rows = {
            e.operands[0].size: e.operands[0].values
            for e in _shape_examples(plan)
            if e.note.startswith("an order witness of")
        }
        assert rows == {n: witness(n) for n in LENGTHS}, operation


# -- values -----------------------------------------------------------------------------


def test_order_witnesses_differ_from_every_other_order():
    for n in LENGTHS:
        for row, ufunc in ((sum_witness(n), np.add), (product_witness(n), np.multiply)):
            assert len(row) == n
            assert is_order_witness(row, ufunc), n
            correct = ufunc.accumulate(np.asarray(row, np.float32), dtype=np.float32)[-1]
            assert all(v != correct for v in other_orders(row, ufunc).values())
    # every plausible order is among those compared, where it is one
    names = set(other_orders(sum_witness(1025), np.add))
    assert {"pairwise", "reversed", "two halves", "4 lanes", "16 lanes", "blocks of 128"} <= names
    assert "pairwise" not in other_orders(sum_witness(3), np.add)  # the same order at n = 3


def test_value_distributions_stay_finite():
    terms = cancelling_terms(1025)
    assert all(0.5 <= abs(v) < 4 and binary32.is_binary32(v) for v in terms)
    assert {v > 0 for v in terms} == {True, False}  # cancellation
    factors = product_factors(1025)
    product = np.multiply.accumulate(np.asarray(factors, np.float32), dtype=np.float32)
    assert np.all(np.isfinite(product)) and 0.5 < product[-1] < 2
    assert len(set(factors)) > 900  # random low bits
    assert cancelling_terms(9, 3) == cancelling_terms(9, 3)  # deterministic


# -- boundary pairs -----------------------------------------------------------------------


def test_int32_boundary_pairs_include_min_plus_min_and_declare_overflow():
    add = plan_of("add(Int32, Int32) int32_exact_checked -> Int32")
    pairs = _pair_examples(add)
    min_min = [e for e in pairs if e.note == f"the Int32 pair ({-(2**31)}, {-(2**31)})"]
    assert len(min_min) == 1 and min_min[0].raises == (OverflowError,)
    for example in pairs:
        error = expected(example.operation, *example.args, **example.kwargs()).error
        assert (error is not None) == bool(example.raises), example


def test_weak_scalars_meet_ordinary_bases():
    mul = next(
        p for p in PLANS if p.describe() == "mul(Float32, weak->Float32) binary32 -> Float32"
    )
    notes = {e.note for e in _pair_examples(mul)}
    assert "the weak 0.1 against ordinary bases" in notes
    example = next(
        e for e in _pair_examples(mul) if e.note == "the weak 0.1 against ordinary bases"
    )
    assert 3.0 in example.operands[0].values
    assert all(e in boundary_examples(mul) for e in _pair_examples(mul))


# -- coverage -----------------------------------------------------------------------------


def test_coverage_counts_shape_pairs_and_a_missed_one_is_a_gap():
    plan = next(p for p in PLANS if p.operation == "cumsum")
    matrix = CoverageMatrix([plan])
    for example in boundary_examples(plan):
        if example.note != "a row of 1025 terms" and "1025" not in example.note:
            matrix.record(example)
    summary = matrix.as_dict()["summary"]
    applicable = sum(c.group in SHAPE_GROUPS for c in applicable_classes(plan))
    assert summary["shape_pairs_applicable"] == applicable
    assert summary["shape_pairs_missing"] == 1
    assert (plan, B.LENGTH_1025) in matrix.missing()
    rows = {
        plan.describe(): [matrix.calls(plan), {c.name: n for c, n in matrix.hits(plan).items()}]
    }
    line = summarise([plan], rows, {})
    assert line["shape_pairs_hit"] == applicable - 1 and line["shape_pairs_missing"] == 1
    assert f"{plan.describe()}: LENGTH_1025" in line["missing"]
    assert "(plan, shape class)" in matrix.to_markdown()


def test_every_family_module_provides_the_generation_hooks():
    """The per-family knowledge of the examples lives in the family modules
    (``shape_examples``, ``embed_group``), not in a switch of the generators."""
    options = {"k": 1, "largest": True, "descending": False}
    for plan in PLANS:
        module = module_of(plan_facts(plan).family)
        assert module.shape_examples(plan, plan_facts(plan)) == _shape_examples(plan)
        embedded = module.embed_group(plan, [3.0, 1.0, 2.0], "g", options)
        if plan_facts(plan).family is Family.ELEMENTWISE:
            assert embedded is None
        elif embedded is not None:
            tensors = [o for o in embedded.operands if isinstance(o, Tensor)]
            assert embedded.plan == plan and any(3.0 in t.values for t in tensors)
    assert {m.__name__.rsplit(".", 1)[1] for m in MODULES} == {
        "elementwise", "reduction", "matmul", "conv", "indexed",
    }  # fmt: skip


def test_extremum_lanes_nan_position_and_tie_across_lanes():
    def lanes(operation, row):
        x = Tensor(F32, (len(row),), tuple(row))
        return {c.name for c in classes_hit(call(operation, x, axis=0)) if c.group is Group.LANES}

    row = [float(k) for k in range(33)]
    assert lanes("argmax", [*row[:5], math.nan, *row[6:]]) == {"EXTREMUM_NAN_IN_BLOCKS"}
    assert lanes("argmax", [*row[:32], math.nan]) == {"EXTREMUM_NAN_IN_TAIL"}
    assert lanes("argmax", [math.nan, *row[1:]]) == set()  # NaN first: EXTREMUM_NAN_FIRST's
    assert lanes("argmax", [*row[:16], math.nan]) == {"EXTREMUM_NAN_IN_TAIL"}  # 17: tail of 1
    assert lanes("argmax", row[:16] + [math.nan] * 0) == set()  # not longer than 16
    tie = [0.0] * 40
    tie[7] = tie[18] = 5.0  # 18 mod 16 = 2 < 7: a later element in a lower lane
    assert lanes("argmax", tie) == {"EXTREMUM_TIE_ACROSS_LANES"}
    tie[18], tie[23] = 0.0, 5.0  # 23 mod 16 = 7: the same lane
    assert lanes("argmax", tie) == set()
    assert "EXTREMUM_TIE_ACROSS_LANES" not in lanes(
        "reduce_max", [0.0] * 7 + [5.0] + [0.0] * 10 + [5.0]
    )
