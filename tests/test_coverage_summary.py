"""The coverage summary enforces (plan, result class) pairs beside (plan, input class) ones."""

from collections import Counter

import backends
from conformance.generate.witnesses import applicable_result_classes
from conformance.judge.checker import Checker
from conformance.judge.checks import check_boundary
from conformance.judge.profiles import PROFILES
from conformance.report.coverage_summary import summarise
from oracle import resolvable_plans


def _rows(plan):
    """The plugin's (calls, input hits, result hits) row of one ci boundary check on cpu."""
    checker = Checker(backends.get("cpu"), "cpu", plan, "boundary", PROFILES["ci"])
    check_boundary(checker)
    coverage = checker.record()["coverage"]
    return [coverage["calls"], Counter(coverage["hits"]), Counter(coverage["result_hits"])]


def test_every_applicable_result_pair_is_counted_and_a_missed_one_fails():
    plan = next(p for p in resolvable_plans() if p.operation == "exp")
    row = _rows(plan)
    summary = summarise([plan], {plan.describe(): row}, {})
    applicable = len(applicable_result_classes(plan))
    assert applicable > 0
    assert summary["result_pairs_applicable"] == applicable
    assert summary["result_pairs_hit"] == applicable and not summary["missing"]

    lost = sorted(row[2])[0]  # forget one result class the check hit
    del row[2][lost]
    summary = summarise([plan], {plan.describe(): row}, {})
    assert summary["result_pairs_missing"] == 1
    assert summary["missing"] == [f"{plan.describe()}: result {lost}"]


def test_a_result_pair_only_unsupported_calls_would_hit_is_excused():
    plan = next(p for p in resolvable_plans() if p.operation == "exp")
    row = _rows(plan)
    lost = sorted(row[2])[0]
    del row[2][lost]
    skipped = {plan.describe(): [1, Counter(), Counter({lost: 1})]}
    summary = summarise([plan], {plan.describe(): row}, skipped)
    assert summary["missing"] == [] and summary["result_pairs_not_supported"] == 1


def test_rows_without_result_hits_still_summarise():
    plan = next(p for p in resolvable_plans() if p.operation == "neg")
    calls, hits, _ = _rows(plan)
    summary = summarise([plan], {plan.describe(): [calls, hits]}, {})
    assert summary["pairs_missing"] == 0
    assert summary["result_pairs_missing"] == len(applicable_result_classes(plan))
