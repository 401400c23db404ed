"""Facts the operation table states are read from it, not copied (issue: one home per fact)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.findings.failure import semantics_of
from oracle import resolvable_plans
from oracle.operations import BUILTIN_FACTS

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("plan", resolvable_plans(), ids=lambda p: p.describe())
def test_a_report_quotes_the_semantics_sentence_of_the_operation_table(plan):
    sentence = BUILTIN_FACTS[plan.operation].semantics
    assert sentence and sentence in semantics_of(plan)


def test_the_seven_rows_that_drifted_now_say_what_the_table_says():
    """maximum, minimum, neg, abs, floor, ceil and relu printed another row's sentence."""
    by_operation = {p.operation: semantics_of(p) for p in resolvable_plans()}
    assert "the sign bit cleared" in by_operation["abs"]
    assert "flipped" in by_operation["neg"] and "cleared" not in by_operation["neg"]
    assert "floor(0.5) = +0" in by_operation["floor"]
    assert "minimum:" in by_operation["minimum"]


def test_no_conformance_module_keeps_its_own_semantics_sentences():
    for path in (ROOT / "conformance").rglob("*.py"):
        text = path.read_text()
        for facts in BUILTIN_FACTS.values():
            if len(facts.semantics) > 40:
                assert facts.semantics not in text, f"{path} copies the {facts.name} row"
