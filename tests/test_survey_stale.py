"""Reports an earlier suite measured are named (conformance.report.survey_stale)."""

from __future__ import annotations

import json
from pathlib import Path

from conformance.report.survey_stale import COUNTED, current_counts, stale

ROOT = Path(__file__).resolve().parents[1]


def test_a_report_of_this_suite_is_not_stale_and_one_of_another_is() -> None:
    now = current_counts()
    assert now["plans"] > 0 and now["pairs_applicable"] >= now["shape_pairs_applicable"]
    report = {"coverage": {"lib": {**now, "complete": True}}}
    assert stale(report, "lib", now) == []
    fewer = now["order_pairs_applicable"] - 25
    earlier = {"coverage": {"lib": {**now, "order_pairs_applicable": fewer}}}
    assert stale(earlier, "lib", now) == [
        f"order_pairs_applicable {now['order_pairs_applicable'] - 25}, "
        f"now {now['order_pairs_applicable']}"
    ]


def test_a_report_without_the_counts_is_not_judged() -> None:
    assert stale({}, "lib", {k: 1 for k in COUNTED}) == []
    assert stale({"coverage": {"lib": {"plans": 3}}}, "lib", {k: 1 for k in COUNTED}) == []


def test_the_reports_remeasured_on_this_suite_are_current() -> None:
    """jax and torch were re-measured on this suite (issue 28, helper xfail); the others'
    reports predate issue 30's classes and say so."""
    now = current_counts()
    for backend in ("jax", "torch"):
        document = json.loads((ROOT / "docs" / "backends" / f"{backend}.json").read_text())
        assert stale(document, backend, now) == [], backend
