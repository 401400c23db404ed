"""A warning class's details show each warning's category, message and the element it
concerns (issue 22, item 7; conformance/findings/warning_element.py)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from conformance.findings.failure import FailureReport, warning_details
from conformance.findings.warning_element import warned_element
from conformance.judge.runner import expectation_of
from conformance.model.calls import Call
from conformance.report.html import render_html
from conformance.report.markdown import class_details
from oracle import DType, Tensor, binary32

F32 = DType.Float32
MAX = binary32.MAX_FINITE


def _call(operation: str, *args: object) -> Call:
    call = Call(operation, tuple(args), None, None)  # type: ignore[arg-type]
    return Call(operation, tuple(args), None, call.resolve())


def _tensor(*values: float) -> Tensor:
    return Tensor(F32, (len(values),), tuple(values))


@pytest.mark.parametrize(
    ("flag", "operation", "values", "element"),
    [
        ("overflow", "exp", (1.0, 100.0, 2.0, 200.0), 1),  # exp(100) rounds to inf
        ("invalid", "sqrt", (4.0, float("nan"), -1.0), 2),  # a NaN input is no invalid case
        ("divide-by-zero", "log", (1.0, 0.0), 1),
        ("underflow", "exp", (0.0, -90.0, -200.0), 1),  # exp(-90) is subnormal
        ("overflow", "exp", (1.0, 2.0), None),  # no element overflows
        ("DeprecationWarning", "exp", (100.0,), None),  # no IEEE flag: no element
    ],
)
def test_the_element_a_warning_concerns(flag, operation, values, element) -> None:
    call = _call(operation, _tensor(*values))
    assert warned_element(flag, call, expectation_of(call).result) == element


def test_a_reduction_overflows_from_all_its_terms() -> None:
    call = _call("reduce_prod", _tensor(MAX, 2.0))
    assert warned_element("overflow", call, expectation_of(call).result) == 0
    call = _call("reduce_prod", _tensor(MAX, float("inf")))  # inf is in the input
    assert warned_element("overflow", call, expectation_of(call).result) is None


def _example(call: Call, *warnings: str) -> dict:
    outcome = SimpleNamespace(call=call, expectation=expectation_of(call), warnings=warnings,
                              raised=None)  # fmt: skip
    details = warning_details(outcome)
    return FailureReport("b", call.operation, "p", "warning", "s", warning_details=details,
                         warnings=list(warnings)).as_dict()  # fmt: skip


def test_each_warning_is_shown_with_its_element_in_every_format() -> None:
    call = _call("exp", _tensor(1.0, 100.0))
    example = _example(call, "RuntimeWarning: overflow encountered in exp",
                       "UserWarning: slow path")  # fmt: skip
    first, second = example["warning_details"]
    assert (first["category"], first["message"], first["flag"], first["index"]) == (
        "RuntimeWarning", "overflow encountered in exp", "overflow", [1])  # fmt: skip
    assert first["inputs"] == "100.0 (0x42C80000)" and first["expected"] == "inf (0x7F800000)"
    assert (second["category"], second["index"]) == ("UserWarning", None)
    line = ("  warning:    RuntimeWarning: overflow encountered in exp -- element (1,) from "
            "(100.0 (0x42C80000)): expected inf (0x7F800000)")  # fmt: skip
    assert line in example["text"].splitlines()
    assert "  warning:    UserWarning: slow path" in example["text"].splitlines()
    entry = {"backend": "b", "operation": "exp", "class": "warning:overflow", "kind": "warning",
             "count": 1, "selector": "exp@warning:overflow", "plans": ["p"],
             "example": example}  # fmt: skip
    assert line in class_details(entry).splitlines()  # terminal and Markdown details
    html = render_html({"format": "plancheck-report/1", "backends": ["b"], "complete": True,
                        "deviation_classes": [entry], "table": {}})  # fmt: skip
    row = ("<tr><td>RuntimeWarning</td><td>overflow encountered in exp</td><td><code>(1)"
           "</code></td><td><code>100.0 (0x42C80000)</code></td><td><code>inf (0x7F800000)"
           "</code>")  # fmt: skip
    assert row in html


def test_no_element_shows_the_warning() -> None:
    example = _example(_call("exp", _tensor(1.0)), "RuntimeWarning: overflow encountered in exp")
    assert example["warning_details"][0]["index"] is None
    assert "-- no element of the expected result shows overflow" in example["text"]
