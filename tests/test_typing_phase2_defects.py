"""The defects the type checker found in phase 2 of issue 32, each pinned by a test.

* the HTML page of a report whose not-measured entry has no ``count`` raised
  TypeError (``None`` formatted with ``,``), though a missing optional field is
  left out of the page (:func:`conformance.report.html.render_html`);
"""

from __future__ import annotations

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
