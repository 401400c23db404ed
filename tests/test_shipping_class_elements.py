"""A wrong-value example shows an element of every class it is reported under, even one
whose elements all lie beyond the first 8 mismatches (issue 23's findings in
plancheck): in the terminal details, Markdown, JSON and HTML."""

from __future__ import annotations

import json
from types import SimpleNamespace

from conformance.findings.failure import MAX_MISMATCHES, failure_report
from conformance.findings.finding import findings_of
from conformance.judge.runner import expectation_of
from conformance.model.calls import Call
from conformance.report.html import render_html
from conformance.report.markdown import class_details, classes_table_markdown
from oracle import DType, Tensor, binary32

SIZE = 20
NAN_AT = 15  #: the only element of wrong-value:spurious-nan, past the first 8 mismatches


def _outcome() -> SimpleNamespace:
    """neg of 1..20 with every element 1 ulp off but the 16th, a NaN."""
    values = tuple(float(i) for i in range(1, SIZE + 1))
    call = Call("neg", (Tensor(DType.Float32, (SIZE,), values),), None, None)  # type: ignore[arg-type]
    call = Call("neg", call.args, None, call.resolve())
    expectation = expectation_of(call)
    wrong = [binary32.next_up(-v) for v in values]
    wrong[NAN_AT] = float("nan")
    actual = Tensor(DType.Float32, (SIZE,), tuple(wrong))
    verdict = expectation.check(actual)
    return SimpleNamespace(call=call, expectation=expectation, actual=actual, raised=None,
                           native=None, problem="wrong value", ok=False, warnings=(),
                           verdict=verdict, modified=())  # fmt: skip


def _entry(report: dict, cls: str) -> dict:
    return {"backend": "b", "operation": "neg", "plan": report["plan"], "plans": [report["plan"]],
            "class": cls, "kind": "wrong value", "rule": "exact", "count": 1, "max_ulp": 1,
            "selector": f"neg@{cls}", "known": None, "example": report,
            "repro": report["repro"]}  # fmt: skip


def test_every_class_of_an_example_has_an_element_shown() -> None:
    outcome = _outcome()
    report = failure_report(outcome, "b")
    classes = [f.cls for f in findings_of(outcome)]
    assert sorted(classes) == ["wrong-value:1-ulp", "wrong-value:spurious-nan"]
    assert len(report.mismatches) == MAX_MISMATCHES < NAN_AT
    assert [(m["class"], m["index"]) for m in report.class_mismatches] == [
        ("wrong-value:1-ulp", [0]), ("wrong-value:spurious-nan", [NAN_AT])]  # fmt: skip
    assert [m["index"] for m in report.further_class_mismatches()] == [[NAN_AT]]
    line = f"    wrong-value:spurious-nan: at ({NAN_AT},) from (16.0 (0x41800000)): "
    line += "expected -16.0 (0xC1800000), got nan (0x7FC00000)"
    assert line in report.text()

    data = json.loads(json.dumps(report.as_dict()))
    assert data["class_mismatches"][1]["class"] == "wrong-value:spurious-nan"
    assert data["class_mismatches"][1]["index"] == [NAN_AT]

    entry = _entry(data, "wrong-value:spurious-nan")
    assert line in class_details(entry)  # the terminal details and the Markdown report
    row = classes_table_markdown([entry]).splitlines()[-1]
    shown = "(16.0 (0x41800000)): -16.0 (0xC1800000) -> nan (0x7FC00000)"  # its own element
    assert shown in row.replace("\\", "")
    html = render_html({"format": "plancheck-report/1", "backends": ["b"], "complete": True,
                        "table": {}, "deviation_classes": [entry]})  # fmt: skip
    assert f"<td><code>wrong-value:spurious-nan</code></td><td><code>({NAN_AT})</code>" in html


def test_no_further_line_when_the_first_mismatches_show_every_class() -> None:
    outcome = _outcome()
    report = failure_report(outcome, "b")
    report.class_mismatches = report.class_mismatches[:1]  # as if only 1-ulp elements
    assert report.further_class_mismatches() == []
    assert "not among those" not in report.text()
