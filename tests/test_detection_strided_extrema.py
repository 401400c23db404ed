"""Extrema off the last axis (issue 30, item 2): the STRIDED_EXTREMUM classes, their
examples, and the strided-path faults they reach."""

from __future__ import annotations

import math

import numpy as np
import pytest

import backends
from conformance.classes.applicability import applicable_classes
from conformance.classes.boundary import OFF_LAST_AXIS_EXTREMA, SHAPE_GROUPS, Boundary, Group
from conformance.generate.examples import boundary_examples
from conformance.generate.families import classes_hit, classes_of_calls
from conformance.judge.coverage import CoverageMatrix
from conformance.model.calls import Call, forward_arguments
from conformance.mutants import MUTANTS, kernel_paths, mutant_backend
from oracle import DType, Tensor, resolvable_plans

B = Boundary
F32 = DType.Float32
STRIDED = {c for c in Boundary if c.group is Group.STRIDED_EXTREMUM}
PLANS = resolvable_plans()
EXTREMA = ("reduce_max", "reduce_min", "argmax", "argmin")


def plan_of(operation):
    return next(p for p in PLANS if p.operation == operation)


def call(operation, values, shape, axis):
    plan = plan_of(operation)
    parameters = {"axis": axis}
    if operation.startswith("reduce"):
        parameters["keepdims"] = False
    args = forward_arguments(operation, [Tensor(F32, shape, tuple(values))], parameters)
    return Call(operation, args, plan.accumulator_dtype, plan)


def test_the_group_is_counted_with_the_shape_classes():
    assert Group.STRIDED_EXTREMUM in SHAPE_GROUPS
    assert set(OFF_LAST_AXIS_EXTREMA.values()) == STRIDED
    for cls, twin in OFF_LAST_AXIS_EXTREMA.items():
        assert twin.name == f"{cls.name}_OFF_LAST_AXIS"


def test_only_reduce_and_arg_extrema_can_see_them():
    for plan in PLANS:
        seen = applicable_classes(plan) & STRIDED
        if plan.operation in ("argmax", "argmin"):
            assert seen == STRIDED
        elif plan.operation in ("reduce_max", "reduce_min"):
            assert seen == STRIDED - {B.EXTREMUM_VALUE_TIE_OFF_LAST_AXIS}
        else:  # maximum, minimum, clamp have extremum rules but no axis
            assert not seen, plan.describe()


# a NaN later, +0 after -0, a repeated extreme: three columns of four rows
COLUMNS = ((1.0, math.nan, 2.0, 0.5), (-0.0, 0.0, -1.0, -2.0), (1.0, 3.0, 2.0, 3.0))
DOWN = [COLUMNS[c][r] for r in range(4) for c in range(3)]  # 4 x 3, groups down axis 0
ALONG = [v for column in COLUMNS for v in column]  # 3 x 4, the same groups along the last


@pytest.mark.parametrize("operation", ["reduce_max", "argmax"])
def test_the_twins_are_measured_only_off_the_last_axis(operation):
    twins = {B.EXTREMUM_NAN_LATER_OFF_LAST_AXIS, B.EXTREMUM_ZERO_TIE_NEG_FIRST_OFF_LAST_AXIS}
    if operation == "argmax":
        twins.add(B.EXTREMUM_VALUE_TIE_OFF_LAST_AXIS)
    down = classes_hit(call(operation, DOWN, (4, 3), 0))
    along = classes_hit(call(operation, ALONG, (3, 4), -1))
    assert down & STRIDED == twins
    assert not along & STRIDED
    assert {c for c in OFF_LAST_AXIS_EXTREMA if OFF_LAST_AXIS_EXTREMA[c] in twins} <= along
    assert not classes_hit(call(operation, DOWN, (4, 3), None)) & STRIDED  # every axis


def test_the_middle_axis_of_a_rank_3_input_is_off_the_last_axis():
    hit = classes_hit(call("reduce_min", [v for v in DOWN for _ in range(2)], (4, 3, 2), 0))
    assert B.EXTREMUM_NAN_LATER_OFF_LAST_AXIS in hit
    x = [0.0, -0.0, 1.0, 2.0]  # (1, 4, 1): axis 1 leaves the last axis alone
    assert B.EXTREMUM_ZERO_TIE_POS_FIRST_OFF_LAST_AXIS in classes_hit(
        call("reduce_min", x, (1, 4, 1), 1)
    )


@pytest.mark.parametrize("operation", EXTREMA)
def test_the_boundary_examples_hit_every_strided_class_in_two_calls(operation):
    plan = plan_of(operation)
    calls = boundary_examples(plan)
    strided = [c for c in calls if "(strided)" in c.note]
    assert len(strided) == 2
    assert classes_of_calls(strided) & STRIDED == applicable_classes(plan) & STRIDED
    for c in strided:
        assert classes_hit(c) & STRIDED == applicable_classes(plan) & STRIDED


# -- the faults ---------------------------------------------------------------------------

STRIDED_FAULTS = [
    m.name for m in kernel_paths.FAULTS if set(m.operations) & set(EXTREMA) and "strided" in m.name
]


def _bits(backend, c):
    x, *rest = c.args
    out = backend.to_tensor(backend.execute(c.operation, backend.from_tensor(x), *rest))
    return np.asarray(out.bits() if out.dtype is F32 else out.values).tolist()


@pytest.mark.parametrize("name", STRIDED_FAULTS)
def test_each_strided_fault_fires_off_the_last_axis_only(name):
    assert len(STRIDED_FAULTS) >= 5
    (operation,) = MUTANTS[name].operations
    mutant, cpu = mutant_backend(name), backends.get("cpu")
    plan = plan_of(operation)
    strided = [c for c in boundary_examples(plan) if "(strided)" in c.note]
    assert any(_bits(mutant, c) != _bits(cpu, c) for c in strided), name
    sign = 1.0 if operation.endswith("max") else -1.0
    columns = [[v if v == 0 or math.isnan(v) else sign * v for v in c] for c in COLUMNS]
    along = call(operation, [v for c in columns for v in c], (3, 4), -1)
    flat = call(operation, [v for c in columns for v in c], (3, 4), None)
    for dormant in (along, flat):
        assert _bits(mutant, dormant) == _bits(cpu, dormant), name


def test_coverage_counts_them_as_shape_pairs_and_misses_them_without_the_strided_calls():
    plan = plan_of("argmax")
    matrix = CoverageMatrix([plan])
    for c in boundary_examples(plan):
        if "(strided)" not in c.note:
            matrix.record_classes(plan, classes_hit(c))
    summary = matrix.as_dict()["summary"]
    assert {cls for _, cls in matrix.missing()} == STRIDED
    assert summary["shape_pairs_missing"] == len(STRIDED) == 5
