"""conv_general's validation rules are named by what they check (issue 31, item 3;
helper report31): "a padding bound that is not an int" expects TypeError and is
``error-conv-parameter-type``, never a shape mismatch."""

from __future__ import annotations

from typing import Any

import pytest

from backends.cpu import CPUBackend
from conformance.findings.authority import authority_of
from conformance.findings.conv_rules import CONV_RULES, conv_rule
from conformance.findings.deviations import Deviation
from conformance.findings.finding import class_spelling_problem
from conformance.findings.refusals import refusal_evidence
from conformance.generate.validation import invalid_examples
from conformance.judge.checker import Checker, NonConformance
from conformance.judge.checks import boundary_calls, check_invalid
from conformance.model.calls import Call
from conformance.model.capabilities import features_of, parse_features
from oracle import resolvable_plans
from tests.authority_backend import ProbeBackend

#: each validation rule of the generator (its note) -> the check it breaks
EXPECTED = {
    "lhs channels 3, rhs expects 2": "error-conv-channels",
    "lhs and rhs ranks differ": "error-conv-rank",
    "an operand of rank below 3": "error-conv-rank",
    "padding (-2, -2) makes an extent negative": "error-conv-negative-extent",
    "padding (-4, 0) makes an extent negative": "error-conv-negative-extent",
    "window stride 0": "error-conv-parameter-range",
    "lhs dilation 0": "error-conv-parameter-range",
    "rhs dilation 0": "error-conv-parameter-range",
    "feature_group_count 0": "error-conv-parameter-range",
    "feature_group_count 3 divides no channel count": "error-conv-channels",
    "two padding pairs for one spatial dimension": "error-conv-parameter-length",
    "two strides for one spatial dimension": "error-conv-parameter-length",
    "a padding pair that is not a pair": "error-conv-parameter-length",
    "a padding bound that is not an int": "error-conv-parameter-type",
}


def _conv_plan() -> Any:
    return next(p for p in resolvable_plans() if p.operation == "conv_general")


def test_every_conv_rule_is_named_by_what_it_checks() -> None:
    calls = invalid_examples(_conv_plan())
    named = {call.note.removeprefix("rule: "): conv_rule(call) for call in calls}
    assert named == EXPECTED
    (padding,) = [c for c in calls if c.note == "rule: a padding bound that is not an int"]
    assert padding.raises == (TypeError,)
    assert set(named.values()) <= set(CONV_RULES)


def test_other_calls_have_no_conv_rule() -> None:
    plan = next(p for p in resolvable_plans() if p.operation == "reduce_sum")
    assert all(conv_rule(c) is None for c in invalid_examples(plan))


@pytest.mark.parametrize("rule", CONV_RULES)
def test_the_names_are_classes_with_an_authority(rule: str) -> None:
    assert class_spelling_problem(f"missing-exception:{rule}") is None
    # they rest where their one former class error-shape-mismatch rested
    former = authority_of("missing-exception:error-shape-mismatch", "conv_general")
    assert authority_of(f"missing-exception:{rule}", "conv_general") == former
    # a known deviation spelt as before covers the named class
    old = Deviation("conv_general", "old", cls="missing-exception:error-shape-mismatch")
    assert old.covers("b", "conv_general", "p", f"missing-exception:{rule}")


class AcceptsFloatPadding(CPUBackend):
    """The CPU backend, except that conv_general rounds a float padding bound to an
    int instead of refusing it (as some libraries do)."""

    name = "accepts-float-padding"

    def execute(self, operation: str, *args: Any, **keywords: Any) -> Any:
        if operation == "conv_general" and len(args) > 3 and isinstance(args[3], tuple):
            args = (*args[:3], tuple(tuple(int(b) for b in pair) for pair in args[3]), *args[4:])
        return super().execute(operation, *args, **keywords)


def test_a_library_that_accepts_a_float_padding_is_named_for_it() -> None:
    checker = Checker(AcceptsFloatPadding(), "floats", _conv_plan(), "invalid")
    with pytest.raises(NonConformance):
        check_invalid(checker)
    classes = {e["class"] for e in checker.classes.values()}
    assert "missing-exception:error-conv-parameter-type" in classes
    assert not any("shape-mismatch" in cls for cls in classes)


def _cropped_calls() -> tuple[list[Any], list[Any]]:
    """Boundary calls of conv_general with room to crop, and the same calls cropped by a
    negative padding (the test of tests/test_authority_judge.py)."""
    plan = _conv_plan()
    calls = [
        c for c in boundary_calls(plan)
        if len(c.args[0].shape) == 3 and c.args[0].size and c.args[0].shape[2] > c.args[1].shape[2]
        and not features_of(c)
    ][:3]  # fmt: skip
    cropped = [
        Call(c.operation, (*c.args[:3], ((-1, 0),), *c.args[4:]), c.accumulator_dtype, plan, (),
             "cropped")
        for c in calls
    ]  # fmt: skip
    return calls, cropped


def test_negative_padding_is_a_feature_of_its_own() -> None:
    calls, cropped = _cropped_calls()
    assert len(calls) >= 2 and all(features_of(c) == {"conv-padding", "conv-negative-padding"}
                                   for c in cropped)  # fmt: skip
    assert parse_features(["conv-negative-padding"]) == {"conv-negative-padding"}
    assert all({"conv-padding", "conv-negative-padding"} <= features_of(c) for c in cropped)
    positive = [Call(c.operation, (*c.args[:3], ((1, 0),), *c.args[4:]), c.accumulator_dtype,
                     c.plan, (), "padded") for c in calls]  # fmt: skip
    assert all("conv-negative-padding" not in features_of(c) for c in positive)
    assert all("conv-padding" in features_of(c) for c in positive)


def test_declaring_negative_padding_unsupported_leaves_positive_padding_judged() -> None:
    """ProbeBackend refuses a negative padding and computes every other convolution."""
    calls, cropped = _cropped_calls()
    positive = [Call(c.operation, (*c.args[:3], ((1, 0),), *c.args[4:]), c.accumulator_dtype,
                     c.plan, (), "padded") for c in calls]  # fmt: skip
    checker = Checker(ProbeBackend(), "probe", _conv_plan(), "boundary")
    checker.unsupported = frozenset({"conv-negative-padding"})
    for call in (*calls, *positive, *cropped):
        checker.judge(call)
    assert not checker.classes
    assert checker.not_supported == {"conv-negative-padding": len(cropped)}
    assert checker.examples == len(calls) + len(positive)
    # without the declaration the refusal is its one class, named after the feature
    checker = Checker(ProbeBackend(), "probe", _conv_plan(), "boundary")
    for call in (*calls, *positive, *cropped):
        checker.judge(call)
    assert {e["class"] for e in checker.classes.values()} == {"conv-negative-padding"}
    refused, supported = refusal_evidence([*calls, *positive, *cropped], set(cropped))
    assert "conv-negative-padding" in refused and "conv-padding" in supported
