"""The judge by authority, in process: not-measured calls, compositions, one cause one
class, known-deviation patterns and plans (tests/authority_backend.py's probe)."""

from __future__ import annotations

import pytest

from conformance.findings.deviations import Deviation, _entry_problem, load_deviations
from conformance.findings.finding import group
from conformance.judge.budgets import parse_budgets, rounded_operations
from conformance.judge.checker import Checker, NonConformance
from conformance.judge.checks import boundary_calls, check_boundary, check_invalid
from conformance.model.calls import Call
from conformance.report.html import render_html
from conformance.report.markdown import class_details, class_lines, classes_table_markdown
from oracle import resolvable_plans
from tests.authority_backend import ProbeBackend


def _plan(operation: str, text: str = "Float32") -> object:
    return next(p for p in resolvable_plans() if p.operation == operation and text in p.describe())


def test_not_measured_calls_are_counted_never_classes() -> None:
    checker = Checker(ProbeBackend(), "probe", _plan("exp2"), "boundary")
    check_boundary(checker)  # nothing is judged, nothing fails
    assert not checker.classes and checker.examples == 0
    assert sum(checker.not_measured.values()) > 0
    assert list(checker.not_measured) == ["the probe has no exp2: not measured"]
    record = checker.record()
    assert record["not_measured"] and record["coverage"]["skipped"] >= record["not_measured"][
        "the probe has no exp2: not measured"]  # fmt: skip


def test_a_composed_operation_s_classes_are_marked() -> None:
    checker = Checker(ProbeBackend(), "probe", _plan("exp"), "boundary")
    with pytest.raises(NonConformance):
        check_boundary(checker)
    entries = list(checker.classes.values())
    assert {e["class"] for e in entries} == {"wrong-value:accuracy", "wrong-value:exact-point"}
    assert all(e["composed"] == ProbeBackend.composed_operations["exp"] for e in entries)
    accuracy = next(e for e in entries if e["class"] == "wrong-value:accuracy")
    assert accuracy["authority"] == "reference" and accuracy["worst"]["ulp"] == 1
    assert accuracy["worst"]["real_error"] is not None and accuracy["worst"]["inputs"]
    classes = group(checker.record()["classes"])
    assert all(c.composed for c in classes)


def test_wrong_exception_types_are_one_class_of_the_convention() -> None:
    checker = Checker(ProbeBackend(), "probe", _plan("reduce_sum"), "invalid")
    with pytest.raises(NonConformance):
        check_invalid(checker)
    assert {e["class"] for e in checker.classes.values()} == {"wrong-exception:convention"}
    (entry,) = checker.classes.values()
    assert entry["authority"] == "convention"
    assert entry["clause"]["key"] == "exception-types"
    # the bool and list axis calls rest on no source: counted, not judged
    assert any("bool axis" in why for why in checker.not_judged)
    assert any("list axis" in why for why in checker.not_judged)
    # judging only the specification: the check's classes stay, none is new
    checker.judged = frozenset({"specification"})
    assert checker.classes and not checker.new_classes()


def test_a_convention_of_values_is_one_class_of_its_own() -> None:
    """A library that refuses a negative padding differs from plancheck's reading (a
    crop), not from the reference, which says nothing of negative padding."""
    plan = _plan("conv_general")
    checker = Checker(ProbeBackend(), "probe", plan, "boundary")
    calls = [c for c in boundary_calls(plan) if c.args[0].shape[2] >= 2][:3]
    cropped = [
        Call(c.operation, (*c.args[:3], ((-1, 0),), *c.args[4:]), c.accumulator_dtype, plan, (),
             "cropped")
        for c in calls
    ]  # fmt: skip
    for call in (*calls, *cropped):
        checker.judge(call)
    assert checker.examples == len(calls) * 2
    assert {e["class"] for e in checker.classes.values()} == {"conv-negative-padding"}
    (entry,) = checker.classes.values()
    assert entry["authority"] == "convention" and entry["clause"]["key"] == "negative-padding"
    assert entry["kind"] == "unexpected exception"


def test_budget_for_every_rounded_operation() -> None:
    every = parse_budgets(["all=2", "exp=1"])
    assert set(every) == set(rounded_operations()) and every["exp"] == 1 and every["sin"] == 2
    assert parse_budgets(["*=3"])["pow"] == 3
    assert parse_budgets(["exp=1"]) == {"exp": 1}
    with pytest.raises(pytest.UsageError, match="not a correctly rounded"):
        parse_budgets(["add=1"])
    with pytest.raises(pytest.UsageError, match="OP=N or all=N"):
        parse_budgets(["all"])


SUM32 = "reduce_sum(Float32) binary32 acc=floating[Float32] -> Float32"
SUM64 = "reduce_sum(Float32) binary32 acc=floating[Float64] -> Float32"


def test_deviation_patterns_and_plans(tmp_path) -> None:
    path = tmp_path / "known.txt"
    path.write_text(
        "*@wrong-exception:*: every wrong exception type\n"
        "authority:convention: plancheck's choices\n"
        f"reduce_sum/{SUM32} | {SUM64}@wrong-value:outside-interval: seen on two plans\n"
        "exp@wrong-value:1-ulp: an earlier spelling\n"
        "red*@authority:reference: a pattern and an authority\n"
    )
    anything, convention, plans, old, reference = load_deviations(path)
    assert anything.covers("b", "gather", "p", "wrong-exception:convention")
    assert not anything.covers("b", "gather", "p", "missing-exception:error-bad-axis")
    assert convention.covers("b", "add", "p", "input-modified")
    assert not convention.covers("b", "add", "p", "missing-exception:int32-result-overflow")
    assert plans.covers("b", "reduce_sum", SUM64, "wrong-value:outside-interval")
    # a plan the entry does not name: the class there is new
    int32 = "reduce_sum(Int32) int32_exact_checked acc=exact_integer -> Int32"
    assert not plans.covers("b", "reduce_sum", int32, "wrong-value:outside-interval")
    assert plans.selector == f"reduce_sum/{SUM32} | {SUM64}@wrong-value:outside-interval"
    assert old.covers("b", "exp", "exp(Float32) binary32 -> Float32", "wrong-value:accuracy")
    assert reference.covers("b", "reduce_max", "p", "wrong-value:shape")
    assert not reference.covers("b", "reduce_max", "p", "wrong-value:dtype")  # specification


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("nope*@wrong-value:nan: x", "matches no operation"),
        ("add@wrong-values:*: x", "matches no deviation class"),
        ("authority:spec: x", "unknown authority"),
        ("add/add(Int32) nothing@wrong-value:nan: x", "unknown plan"),
    ],
)
def test_a_pattern_that_names_nothing_is_a_usage_error(tmp_path, line: str, message: str) -> None:
    path = tmp_path / "known.txt"
    path.write_text(line + "\n")
    with pytest.raises(pytest.UsageError, match=message):
        load_deviations(path)


def test_toml_entries_take_plans_and_authority(tmp_path) -> None:
    path = tmp_path / "known.toml"
    path.write_text(
        '[[deviation]]\nauthority = "convention"\nreason = "ours"\n'
        f'[[deviation]]\noperation = "reduce_sum"\nplans = ["{SUM32}"]\n'
        'class = "wrong-value:outside-interval"\nreason = "one plan"\n'
    )
    convention, one = load_deviations(path)
    assert convention == Deviation("*", "ours", authority="convention")
    assert one.plan == SUM32 and _entry_problem(one) is None


def test_every_format_shows_the_authority() -> None:
    checker = Checker(ProbeBackend(), "probe", _plan("reduce_sum"), "invalid")
    with pytest.raises(NonConformance) as failure:
        check_invalid(checker)
    assert "[convention (exception-types)]" in str(failure.value)
    classes = [c.as_dict() for c in group(checker.record()["classes"])]
    (entry,) = classes
    head, line = class_lines(classes)
    assert "by authority: 0 specification, 0 reference, 1 convention" in head
    assert line.endswith("[convention (exception-types)]")
    details = class_details(entry)
    assert 'authority:  convention (exception-types): "An invalid argument raises' in details
    assert "why chosen: " in details
    assert f"paste as `reduce_sum/{SUM32}@wrong-exception:convention: reason`" in details
    page = render_html({"format": "plancheck-report/1", "complete": True, "result": "x",
                        "backends": ["probe"], "deviation_classes": classes})  # fmt: skip
    assert "convention (exception-types)" in page and "why chosen" in page
    row = classes_table_markdown(classes).splitlines()[-1]
    assert "| convention \\(exception-types\\) |" in row  # Markdown-escaped parentheses
