"""Order classes: other orders of a sequential accumulation and a Float64 accumulator
not honoured -- measured from calls, reached by witnesses, counted in coverage, and
the faults of that kind killed on their witnesses (docs/shape-classes.md)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import backends
from conformance.classes.applicability import applicable_classes
from conformance.classes.boundary import (
    LENGTHS,
    ORDER_BLOCKS,
    ORDER_CLASS_GROUPS,
    Boundary,
    Group,
)
from conformance.generate import accumulator_witnesses as A
from conformance.generate import witnesses
from conformance.generate.families import classes_hit, classes_of_calls
from conformance.generate.order_values import ORDER_CLASSES, order_classes, sum_witness
from conformance.generate.strategies import boundary_examples
from conformance.judge.coverage import CoverageMatrix
from conformance.judge.runner import run_call
from conformance.model.calls import Call, forward_arguments
from conformance.report import html_charts
from conformance.report.coverage_summary import summarise
from oracle import DType, Tensor, binary32, resolvable_plans
from oracle.reference.accumulate import floating_sum_interval

B = Boundary
F32, F64 = DType.Float32, DType.Float64
PLANS = resolvable_plans()
ORDER = {c for c in Boundary if c.group is Group.ACCUMULATION_ORDER}
ACCUMULATOR = {c for c in Boundary if c.group is Group.ACCUMULATOR}
OFF_LAST = {c for c in ACCUMULATOR if c.name.endswith("_OFF_LAST_AXIS")}
INT32_PARTIAL = {c for c in Boundary if c.group is Group.INT32_PARTIAL_ORDER}


def plan_of(description: str):
    return next(p for p in PLANS if p.describe() == description)


REDUCE_SUM_F64 = plan_of("reduce_sum(Float32) binary32 acc=floating[Float64] -> Float32")
REDUCE_SUM_F32 = plan_of("reduce_sum(Float32) binary32 acc=floating[Float32] -> Float32")
MATMUL_F64 = plan_of("matmul(Float32, Float32) binary32 acc=floating[Float64] -> Float32")
CUMSUM = next(p for p in PLANS if p.operation == "cumsum")


def reduce_call(plan, values, shape, axis):
    x = Tensor(F32, shape, tuple(values))
    args = forward_arguments(plan.operation, [x], {"axis": axis, "keepdims": False})
    return Call(plan.operation, args, plan.accumulator_dtype, plan)


# -- applicability ----------------------------------------------------------------------


def test_order_classes_follow_the_accumulation():
    for plan in PLANS:
        order = {c for c in applicable_classes(plan) if c.group in ORDER_CLASS_GROUPS}
        if plan.operation in ("cumsum", "reduce_prod", "conv_general"):
            assert order == ORDER, plan.describe()
        elif plan.operation == "scatter_add":  # a target holds its base and <= 33 updates
            assert order == ORDER - {B.ORDER_BLOCKS_64, B.ORDER_BLOCKS_128}
        elif plan.accumulator_dtype is F64:
            assert order == (
                ACCUMULATOR if plan.operation == "reduce_sum" else ACCUMULATOR - OFF_LAST
            )
        elif plan.operation in ("reduce_sum", "matmul") and plan.output is DType.Int32:
            assert order == INT32_PARTIAL, plan.describe()
        elif plan.operation == "pow" and plan.output is DType.Int32:  # the weak exponent
            assert order == {B.POW_ODD_EXPONENT_ABOVE_2_24}
        else:
            assert not order, plan.describe()


# -- measuring ---------------------------------------------------------------------------


def test_each_other_order_that_changes_the_result_is_its_class():
    witness = sum_witness(257)
    assert order_classes(witness, np.add) == set(ORDER_CLASSES.values()) == ORDER
    assert order_classes([1.0] * 300, np.add) == set()  # every order gives 300 exactly
    assert order_classes([1.0, 2.0], np.add) == set()  # two terms: one order
    huge = [binary32.MAX_FINITE] * 4
    assert order_classes(huge, np.add) == set()  # not finite: no order class
    x = Tensor(F32, (len(witness),), witness)
    cumsum = Call("cumsum", forward_arguments("cumsum", [x], {"axis": 0}), None, CUMSUM)
    assert classes_hit(cumsum) >= ORDER


def test_accumulator_classes_on_the_last_axis_and_off_it():
    row = A.witness(33)
    on_last = classes_hit(reduce_call(REDUCE_SUM_F64, row, (33,), 0))
    assert on_last >= ACCUMULATOR - OFF_LAST and not on_last & OFF_LAST
    column = [v for v in row for _ in range(2)]
    off_last = classes_hit(reduce_call(REDUCE_SUM_F64, column, (33, 2), 0))
    assert off_last & ACCUMULATOR == OFF_LAST
    # the same rows under a Float32 accumulator: every order is accepted, no class
    assert not classes_hit(reduce_call(REDUCE_SUM_F32, row, (33,), 0)) & ACCUMULATOR
    # a row every fault gets right (exact in binary32 too) hits none
    assert not classes_hit(reduce_call(REDUCE_SUM_F64, [1.0] * 33, (33,), 0)) & ACCUMULATOR


# -- the Float64-accumulator witnesses ----------------------------------------------------


def test_the_shipped_witnesses_are_what_the_search_finds():
    assert A.load() == A.generate()
    assert witnesses.main(["--check", "--accumulators"]) == 0
    assert set(A.load()["rows"]) == {str(n) for n in LENGTHS if n >= 3}


@pytest.mark.parametrize("n", LENGTHS)
def test_every_fault_is_rejected_on_the_witness_of_each_length(n):
    row = A.witness(n)
    if n < 3:  # one term is its own sum; two add exactly in binary64 (module docstring)
        assert row is None and A.search(n) is None
        return
    assert len(row) == n and all(binary32.is_binary32(t) for t in row)
    interval = floating_sum_interval(list(row), F64)
    assert interval.lo == interval.hi  # one accepted value: the exact sum rounded once
    assert interval.accepts(float(np.float32(math.fsum(row))))
    assert A.faults_rejected(row) == set(A.FAULTS)
    # each fault by itself, every variant of it
    assert not any(interval.accepts(v) for v in A.float32_sums(row))
    assert not interval.accepts(float(np.sum(np.asarray(row, np.float32))))  # numpy's own
    for block in ORDER_BLOCKS:
        if n > block:
            assert not interval.accepts(A.blocks_stored_float32(row, block))
    for precision in A.INTERMEDIATE_PRECISIONS:
        assert not interval.accepts(A.narrowed(row, precision))
    # honoured: Float64 in any order is accepted
    assert interval.accepts(float(np.float32(np.sum(np.asarray(row[::-1], np.float64)))))


def test_the_witnesses_reach_every_order_class_of_every_plan():
    for plan in PLANS:
        order = {c for c in applicable_classes(plan) if c.group in ORDER_CLASS_GROUPS}
        if order:
            assert order <= classes_of_calls(boundary_examples(plan)), plan.describe()


# -- the faults -----------------------------------------------------------------------------

#: mutant -> (plan, the shortest witness length it fires on, off the last axis)
FAULTS = {
    "reduce_sum_float32_lanes_above_16": (REDUCE_SUM_F64, 17, False),
    "reduce_sum_float64_blocks_of_8_stored_float32": (REDUCE_SUM_F64, 9, False),
    "reduce_sum_float64_blocks_of_16_stored_float32_off_last_axis": (REDUCE_SUM_F64, 17, True),
    "reduce_sum_float64_narrowed_through_25_bits": (REDUCE_SUM_F64, 3, False),
    "reduce_sum_float64_narrowed_through_40_bits_off_last_axis": (REDUCE_SUM_F64, 3, True),
    "matmul_float64_k_blocks_of_32_stored_float32": (MATMUL_F64, 33, False),
    "matmul_float64_narrowed_through_32_bits": (MATMUL_F64, 3, False),
}


def _witness_calls(plan, off_last_axis):
    for call in boundary_examples(plan):
        if "Float64-accumulator witness" in call.note and (
            plan.operation == "matmul" or call.note.endswith("off the last axis") == off_last_axis
        ):
            yield call


@pytest.mark.parametrize("name", list(FAULTS))
def test_each_accumulator_fault_fires_on_its_witnesses_and_only_there(name):
    plan, shortest, off_last_axis = FAULTS[name]
    mutant, cpu = backends.get(f"conformance.mutants:{name}"), backends.get("cpu")
    calls = list(_witness_calls(plan, off_last_axis))
    assert len(calls) == sum(n >= 3 for n in LENGTHS)
    for call in calls:
        n = call.operands[0].shape[0 if plan.operation == "reduce_sum" else 1]
        assert run_call(cpu, call).ok, call.note
        assert run_call(mutant, call).ok == (n < shortest), call.note
    # the other path is left alone: the fault is dormant there
    for call in _witness_calls(plan, not off_last_axis) if plan.operation == "reduce_sum" else ():
        assert run_call(mutant, call).ok, call.note


# -- coverage ---------------------------------------------------------------------------------


def test_coverage_counts_order_pairs_and_a_missed_one_is_a_gap():
    matrix = CoverageMatrix([REDUCE_SUM_F64])
    for example in boundary_examples(REDUCE_SUM_F64):
        if not example.note.endswith("off the last axis"):
            matrix.record(example)
    summary = matrix.as_dict()["summary"]
    assert summary["order_pairs_applicable"] == len(ACCUMULATOR)
    missing = {cls for _, cls in matrix.missing()}
    # only the witnesses off the last axis narrow wrongly there (the axis examples'
    # short cancelling rows reach the other two)
    assert B.ACCUMULATOR_NARROWED_INTERMEDIATE_OFF_LAST_AXIS in missing and missing <= OFF_LAST
    assert summary["order_pairs_missing"] == len(missing)
    rows = {
        REDUCE_SUM_F64.describe(): [
            matrix.calls(REDUCE_SUM_F64),
            {c.name: n for c, n in matrix.hits(REDUCE_SUM_F64).items()},
        ]
    }
    line = summarise([REDUCE_SUM_F64], rows, {})
    assert line["order_pairs_hit"] == len(ACCUMULATOR) - len(missing)
    assert line["order_pairs_missing"] == len(missing) and line["order_pairs_not_supported"] == 0
    for cls in missing:
        assert f"{REDUCE_SUM_F64.describe()}: {cls.name}" in line["missing"]
    assert "(plan, order class)" in matrix.to_markdown()
    page = "".join(html_charts._coverage(line))
    assert f"{line['order_pairs_hit']} of {len(ACCUMULATOR)} (plan, order class) pairs" in page


# -- the family hooks the result examples use ------------------------------------------


def test_pass_through_hooks_return_the_values_themselves():
    """result_examples asks each family for a call whose results are given values
    (``pass_through``) instead of switching on the family."""
    from conformance.classes.boundary import plan_facts
    from conformance.generate.families import module_of
    from conformance.model.calls import Family
    from oracle import expected

    values = (1.5, 0.25, binary32.MAX_FINITE, -2.0)  # (a sum turns -0 into +0)
    for plan in PLANS:
        family = plan_facts(plan).family
        call = module_of(family).pass_through(plan, values, "p")
        float_result = plan.output is F32 and any(o.dtype is F32 for o in plan.operands)
        if family in (Family.ELEMENTWISE, Family.ARG) or not float_result:
            assert call is None or not float_result, plan.describe()
            continue
        assert call is not None and call.plan == plan and call.resolve() == plan, plan.describe()
        expectation = expected(call.operation, *call.args, **call.kwargs())
        if expectation.result is not None:
            got = expectation.result.values
        else:  # a FLOATING sum of one term: one accepted value
            got = tuple(interval.lo for interval in expectation.bounds)
        got_bits = {binary32.to_bits(v) for v in got}
        assert {binary32.to_bits(v) for v in values} <= got_bits, plan.describe()
