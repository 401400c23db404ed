"""The defects the type checker found in phase 2 of issue 32, each pinned by a test.

* the HTML page of a report whose not-measured entry has no ``count`` raised
  TypeError (``None`` formatted with ``,``), though a missing optional field is
  left out of the page (:func:`conformance.report.html.render_html`).

Not a defect, pinned because the typed API does not admit it: ``plancheck call
--accumulator`` passes any dtype it reads, a category or compound too, so that
``--expect-error`` checks that the backend refuses a non-simple accumulator with
TypeError, as the specification requires (the oracle's ``accumulator_dtype`` is
typed ``SimpleDType | None``, what plans; ``conformance/cli/call_command.py``
says why it passes more).  Also pinned: ``--expect-error`` on a call that does
plan names the plan in its usage error.
"""

from __future__ import annotations

import pytest

from conformance.cli import main
from conformance.report.html import render_html


def _page(entries: list[dict[str, object]]) -> str:
    document = {"format": "plancheck-report/1", "backends": ["b"], "not_measured": {"b": entries}}
    return render_html(document)


def test_a_not_measured_entry_without_a_count_still_renders() -> None:
    page = _page([{"operation": "add", "message": "no such flag"}])
    assert "<li><code>add</code> (None): no such flag</li>" in page


def test_a_not_measured_entry_with_a_count_says_how_many_calls() -> None:
    page = _page([{"operation": "mul", "message": "m", "count": 2}])
    assert "<li><code>mul</code> (2 calls): m</li>" in page


@pytest.mark.parametrize("accumulator", ["Floating", "MXFP4"])
def test_a_non_simple_accumulator_is_a_refusal_the_backend_is_checked_for(
    accumulator: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["call", "--backend", "cpu", "--accumulator", accumulator]
    assert main([*argv, "--expect-error", "reduce_sum", "Float32:[1, 2]"]) == 0
    out = capsys.readouterr().out
    assert "raised TypeError" in out and "PASS" in out
    assert main([*argv, "reduce_sum", "Float32:[1, 2]"]) == 2  # without it: a usage error
    assert "accumulator_dtype must be a simple dtype" in capsys.readouterr().err


def test_expect_error_on_a_call_that_plans_names_the_plan(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["call", "--backend", "cpu", "--accumulator", "Float64", "--expect-error"]
    assert main([*argv, "reduce_sum", "Float32:[1, 2]"]) == 2
    err = capsys.readouterr().err
    assert "--expect-error: reduce_sum plans (reduce_sum(Float32)" in err and "Float64" in err
