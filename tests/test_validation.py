"""conformance.generate.validation (one call per validation rule) and
conformance.generate.signalling_nans.

The calls' expected errors come from the oracle; the CPU and Generic backends
pass them; a backend that misses a rule (the two silent wrong results the
Generic backend once had: a full sort for ``k=None``, an empty tensor for a
negative padded extent) or quiets a signalling NaN is caught by the suite's
deterministic calls, not by luck in a search.
"""

from __future__ import annotations

import numpy as np
import pytest

import backends
from backends.cpu import CPUBackend
from conformance.classes.boundary import Boundary, Group
from conformance.generate.families import classes_hit
from conformance.generate.signalling_nans import signalling_nan_examples
from conformance.generate.validation import invalid_examples, rules_of
from conformance.judge.checker import Checker, NonConformance
from conformance.judge.checks import check_boundary, check_invalid
from conformance.judge.profiles import PROFILES
from conformance.judge.runner import run_call
from conformance.model.calls import Call
from conformance.model.capabilities import features_of, signalling_nan_bits
from oracle import (
    DType,
    Tensor,
    expected,
    operation_facts,
    registered_operations,
    resolvable_plans,
    resolve_operation_plan,
)

F32, I32 = DType.Float32, DType.Int32
PLANS = resolvable_plans()


def _plan(operation, *dtypes):
    return resolve_operation_plan(operation, *dtypes)


def test_every_rule_call_is_refused_by_the_oracle_and_selects_its_plan():
    count = 0
    for plan in PLANS:
        for call in invalid_examples(plan):
            count += 1
            error = expected(call.operation, *call.args, **call.kwargs()).error
            assert error is not None, f"{plan.describe()}: the oracle accepts {call.note}"
            assert call.raises == (type(error),), call
            assert call.resolve() == plan, call
            assert any(c.group is Group.ERROR for c in classes_hit(call)), call  # measured alike
    assert count > 200


@pytest.mark.parametrize(
    ("operation", "dtypes", "rules"),
    [
        ("_topk_values", (F32,), ["k is None", "k = -1 is below 0", "k = 4 exceeds the extent 3"]),
        ("conv_general", (F32, F32), ["padding (-2, -2) makes an extent negative"]),
        (
            "reduce_sum",
            (F32,),
            ["axis (0, -2) names one dimension twice", "axis 1.0 is not an int"],
        ),
        ("scatter", (F32, I32, F32), ["duplicate scatter indices", "index 3 out of range [0, 3)"]),
        ("gather", (F32, I32), ["index -1 (negative indices are out of range)"]),
        ("matmul", (F32, F32), ["inner dimensions 3 and 4 differ"]),
        ("add", (F32, F32), ["shapes do not broadcast (operand 1 is (3,), the others (2,))"]),
    ],
)
def test_the_rules_named_by_the_reference_are_there(operation, dtypes, rules):
    assert set(rules) <= set(rules_of(_plan(operation, *dtypes)))


def test_every_family_with_arguments_to_refuse_has_rules():
    for plan in PLANS:
        tensors = sum(1 for o in plan.operands if o.role.name == "TENSOR")
        if operation_facts(plan.operation).family.name != "ELEMENTWISE" or tensors >= 2:
            assert invalid_examples(plan), plan.describe()


@pytest.mark.parametrize("name", ["cpu", "generic"])
def test_conforming_backends_pass_every_rule_call(name):
    backend = backends.get(name)
    for plan in PLANS:
        for call in invalid_examples(plan):
            outcome = run_call(backend, call)
            assert outcome.ok, f"{call.note}: {outcome.verdict}"


class _Lenient(CPUBackend):
    """Two silent wrong results the Generic backend once had."""

    name = "lenient"

    def execute(self, operation, *args, accumulator_dtype=None, options=None):
        args = list(args)
        if operation == "_topk_values" and args[1] is None:
            args[1] = np.asarray(args[0]).shape[args[2]]  # k=None: a full sort
        if operation == "conv_general":
            lhs, padding = np.asarray(args[0]), args[3]
            size = lhs.shape[2:]
            if any((s - 1) * d + 1 + lo + hi < 0 for s, d, (lo, hi) in zip(size, args[4], padding)):
                out = np.zeros((lhs.shape[0], np.asarray(args[1]).shape[0], 0), np.float32)
                return out  # a negative padded extent: an empty tensor
        return super().execute(
            operation, *args, accumulator_dtype=accumulator_dtype, options=options
        )


@pytest.mark.parametrize(
    ("operation", "dtypes", "rule"),
    [
        ("_topk_values", (F32,), "rule: k is None"),
        ("conv_general", (F32, F32), "rule: padding (-2, -2) makes an extent negative"),
    ],
)
def test_a_backend_missing_a_rule_fails_the_invalid_check(operation, dtypes, rule):
    plan = _plan(operation, *dtypes)
    checker = Checker(_Lenient(), "lenient", plan, "invalid", PROFILES["ci"])
    with pytest.raises(NonConformance):
        check_invalid(checker)
    notes = {e["call"].note for e in checker.classes.values() if e["call"] is not None}
    assert rule in notes or checker.killing_call.note == rule
    assert checker.oracle_errors == []
    # the conforming backend passes the same check
    check_invalid(Checker(backends.get("cpu"), "cpu", plan, "invalid", PROFILES["ci"]))


# -- conv geometry read the same way by the boundary classes ---------------------------------


def test_negative_padding_is_a_valid_crop_and_a_negative_extent_an_error():
    plan = _plan("conv_general", F32, F32)
    x = Tensor(F32, (1, 1, 3), (1.0, 2.0, 3.0))
    w = Tensor(F32, (1, 1, 2), (1.0, 1.0))
    for padding, valid in ((((-1, 0),), True), (((-3, 0),), True), (((-2, -2),), False)):
        call = Call("conv_general", (x, w, (1,), padding, (1,), (1,), 1), None, plan)
        assert (expected("conv_general", *call.args).error is None) is valid
        assert (Boundary.ERROR_SHAPE_MISMATCH not in classes_hit(call)) is valid, padding
        assert (Boundary.CONV_PADDING in classes_hit(call)) is valid


# -- signalling NaNs -----------------------------------------------------------------------


def test_every_bit_copy_operation_gets_signalling_nans():
    copying = {s.name for s in registered_operations() if operation_facts(s.name).nan_bit_copy}
    reached = set()
    for plan in PLANS:
        calls = signalling_nan_examples(plan)
        if not operation_facts(plan.operation).nan_bit_copy:
            assert calls == []
            continue
        for call in calls:
            assert "signalling-nan" in features_of(call)
            assert expected(call.operation, *call.args, **call.kwargs()).error is None
            reached.add(call.operation)
    assert reached == copying


@pytest.mark.parametrize("name", ["cpu", "generic"])
def test_conforming_backends_keep_signalling_nans(name):
    backend = backends.get(name)
    for plan in PLANS:
        for call in signalling_nan_examples(plan):
            outcome = run_call(backend, call)
            assert outcome.ok, f"{call.note}: {outcome.verdict}"


class _Quieting(CPUBackend):
    """neg through float64, which sets the quiet bit of a signalling NaN."""

    name = "quieting"

    def execute(self, operation, *args, accumulator_dtype=None, options=None):
        if operation == "neg":
            return np.array(-np.asarray(args[0]).astype(np.float64), dtype=np.float32)
        return super().execute(
            operation, *args, accumulator_dtype=accumulator_dtype, options=options
        )


def test_a_quieted_signalling_nan_is_caught_unless_declared_unsupported():
    plan = _plan("neg", F32)
    # the special values' twin, and the lanes example's (docs/shape-classes.md)
    call, lanes = signalling_nan_examples(plan)
    assert Boundary.LANES_SIGNALLING_NAN_TAIL in classes_hit(lanes)
    assert any(signalling_nan_bits(b) for b in call.args[0].bits())
    assert not run_call(_Quieting(), call).ok
    with pytest.raises(NonConformance):
        check_boundary(Checker(_Quieting(), "quieting", plan, "boundary", PROFILES["ci"]))
    declared = Checker(_Quieting(), "quieting", plan, "boundary", PROFILES["ci"],
                       unsupported=frozenset({"signalling-nan"}))  # fmt: skip
    check_boundary(declared)
    assert declared.not_supported["signalling-nan"] >= 1
    coverage = declared.record()["coverage"]  # what the skipped calls would have hit
    assert coverage["skipped_hits"] and coverage["skipped_result_hits"]
