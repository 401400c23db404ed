"""Every rule the judge applies names its authority (conformance.findings.authority).

The table is enumerated against everything the judge can produce: every class
spelling of the vocabulary, on every plan of the registry, and the class of every
validation rule's call.  A class without a row fails here, never at run time.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conformance.findings.authority import (
    AUTHORITIES,
    CONVENTION_RULES,
    RULES,
    Authority,
    authority_of,
    parse_authorities,
    reported_class,
    unsourced_rule,
)
from conformance.findings.elements import WRONG_VALUE_ELEMENTS
from conformance.findings.finding import _all_spellings, _boundary, class_spelling_problem
from conformance.findings.warning_element import WARNING_FLAGS
from conformance.generate.validation import invalid_examples
from conformance.judge.runner import expectation_of
from conformance.model.capabilities import FEATURES
from oracle import resolvable_plans

ROOT = Path(__file__).resolve().parents[1]
#: the user's specification beside the checkout (``../shared/spec`` from the repository
#: root), never a path of one machine
SPEC = ROOT.parent / "shared" / "spec"

#: every class spelling the judge can produce (a raised or warned type stands for all)
SPELLINGS = sorted(
    {
        *_all_spellings(),
        *(f"wrong-value:{e}" for e in WRONG_VALUE_ELEMENTS),
        *(f"warning:{f}" for f in WARNING_FLAGS),
        "warning:DeprecationWarning",
        "raises-ValueError",
        "raises-NotMeasured",
        *(f"{k}:{t}" for k in ("missing-exception", "wrong-exception")
          for t in ("ValueError", "TypeError", "IndexError", "OverflowError",
                    "NotImplementedError", "ValueError|IndexError", "error")),
        *FEATURES,
    }
)  # fmt: skip


def test_every_class_of_every_plan_has_exactly_one_authority() -> None:
    missing = []
    for plan in resolvable_plans():
        for cls in SPELLINGS:
            try:
                found = authority_of(cls, plan.operation, plan)
            except LookupError:
                missing.append((cls, plan.describe()))
                continue
            assert isinstance(found, Authority) and found.name in AUTHORITIES
            assert found.text and found.document and found.section
            folded = reported_class(cls, plan.operation, plan)
            assert authority_of(folded, plan.operation, plan).name in AUTHORITIES
    assert not missing, f"classes without an authority: {missing[:20]}"


def test_a_class_no_row_covers_is_a_lookup_error_not_a_default() -> None:
    with pytest.raises(LookupError, match="no authority"):
        authority_of("not-a-class", "add")
    with pytest.raises(LookupError):
        authority_of("wrong-value:1-ulp", "no_such_operation")


def test_every_validation_rule_call_rests_on_a_source_or_is_not_judged() -> None:
    """The class each invalid example would be reported under has an authority; the
    bool and list axis calls rest on none and are not judged."""
    unsourced = []
    for plan in resolvable_plans():
        for call in invalid_examples(plan):
            boundary = _boundary(call, expectation_of(call))
            for head in ("missing-exception", "wrong-exception"):
                authority_of(f"{head}:{boundary}", plan.operation, plan)
            why = unsourced_rule(call)
            if why is not None:
                unsourced.append(call.note)
    assert unsourced, "the bool and list axis rules must be found (and left unjudged)"
    assert all(re.search(r"axis (True|\[0\])", note) for note in unsourced), set(unsourced)
    # the rules with a source stay judged
    notes = {c.note for p in resolvable_plans() for c in invalid_examples(p)
             if unsourced_rule(c) is None}  # fmt: skip
    assert any("axis 1.0" in n for n in notes) and any("k is a bool" in n for n in notes)


@pytest.mark.parametrize(
    ("cls", "operation", "plan", "authority"),
    [
        ("missing-exception:int32-result-overflow", "add", None, "specification"),
        ("wrong-value:integer", "add", "add(Int32, Int32) int32_exact_checked -> Int32",
         "specification"),
        ("wrong-value:1-ulp", "add", "add(Float32, Float32) binary32 -> Float32", "specification"),
        ("wrong-value:accuracy", "exp", "exp(Float32) binary32 -> Float32", "reference"),
        ("wrong-value:signed-zero", "maximum", None, "reference"),
        ("wrong-value:nan", "reduce_max", None, "specification"),
        ("wrong-value:outside-interval", "reduce_sum", None, "specification"),
        ("wrong-value:signed-zero", "cumsum", None, "reference"),
        ("wrong-value:many-ulps", "cumsum", None, "specification"),
        ("wrong-value:dtype", "add", None, "specification"),
        ("wrong-value:shape", "add", None, "reference"),
        ("missing-exception:error-bad-axis", "reduce_sum", None, "reference"),
        ("missing-exception:error-bad-parameter", "_topk_values", None, "convention"),
        ("wrong-exception:error-bad-axis", "reduce_sum", None, "convention"),
        ("wrong-exception:error-index-too-large", "gather", None, "convention"),
        ("wrong-exception:convention", "gather", None, "convention"),
        ("warning:overflow", "exp", None, "reference"),
        ("input-modified", "add", None, "convention"),
        ("crash", "add", None, "convention"),
        ("fp-environment:flush-to-zero", "add", None, "convention"),
        ("raises-ValueError", "add", None, "reference"),
    ],
)  # fmt: skip
def test_authorities_follow_what_requires_what(
    cls: str, operation: str, plan: str | None, authority: str
) -> None:
    """reference-semantics.md, "What requires what": exception types for invalid
    arguments are conventions; the specification names exceptions for planning and
    Int32 overflow; the value rules are the reference's where no SHALL fixes them."""
    assert authority_of(cls, operation, plan).name == authority


def test_reference_rules_name_what_they_rest_on() -> None:
    assert authority_of("wrong-value:1-ulp", "exp", None).source == "IEEE 754-2019 §9.2"
    assert authority_of("wrong-value:1-ulp", "gelu", None).source == "the reference document"
    assert authority_of("wrong-value:nan", "pow", None).source == "C99 Annex F.9.4.4"
    assert "Annex F.9.7.1" in authority_of("wrong-value:nan", "rem", None).source
    assert authority_of("wrong-value:signed-zero", "maximum", None).source == "IEEE 754-2019 §9.6"


def test_one_cause_one_class() -> None:
    exp = "exp(Float32) binary32 -> Float32"
    for element in ("1-ulp", "many-ulps", "subnormal"):
        assert reported_class(f"wrong-value:{element}", "exp", exp) == "wrong-value:accuracy"
    for element in ("nan", "infinity", "signed-zero", "zero", "exact-point", "overflow"):
        assert reported_class(f"wrong-value:{element}", "exp", exp) == f"wrong-value:{element}"
    # basic arithmetic is not a correctly rounded function: its splits stay
    assert reported_class("wrong-value:1-ulp", "add", None) == "wrong-value:1-ulp"
    for boundary in ("error-bad-axis", "error-shape-mismatch", "error-bad-parameter",
                     "IndexError"):  # fmt: skip
        cls = f"wrong-exception:{boundary}"
        assert reported_class(cls, "reduce_sum", None) == "wrong-exception:convention"
    # the specification's exception types are classes of their own
    cls = "wrong-exception:int32-result-overflow"
    assert reported_class(cls, "add", None) == cls
    assert class_spelling_problem("wrong-exception:convention") is None
    assert class_spelling_problem("wrong-value:accuracy") is None


def test_conventions_are_documented_with_why() -> None:
    """Each convention has its section in docs/semantics/conventions.md, quoted word
    for word, and says why it was chosen."""
    text = (ROOT / "docs/semantics/conventions.md").read_text()
    plain = " ".join(text.replace("`", "").split())
    for key, rule in CONVENTION_RULES.items():
        section = text.split(f"\n## {key}\n", 1)
        assert len(section) == 2, key
        body = section[1].split("\n## ", 1)[0]
        assert "Why:" in body, key
        assert " ".join(rule.text.split()) in plain, key
        assert rule.why


@pytest.mark.skipif(not SPEC.is_dir(), reason="the user's specification is not on this machine")
def test_every_quoted_rule_is_word_for_word() -> None:
    def plain(text: str) -> str:
        return " ".join(text.replace("*", "").replace("`", "").split())

    texts = {
        "operation-dtype-policy": plain((SPEC / "operation-dtype-policy.txt").read_text()),
        "reference-semantics": plain((SPEC / "reference-semantics.md").read_text()),
        "docs/semantics/conventions.md": plain(
            (ROOT / "docs/semantics/conventions.md").read_text()
        ),
    }
    quoted = {rule.resolve(op) for rule in RULES for op in
              ({p.operation for p in resolvable_plans()} if rule.operations is None
               else rule.operations)}  # fmt: skip
    for authority in quoted:
        assert plain(authority.text) in texts[authority.document], authority
        if authority.name == "specification":
            assert "SHALL" in authority.text, authority


def test_parse_authorities() -> None:
    assert parse_authorities(["specification,reference"]) == {"specification", "reference"}
    assert parse_authorities(["specification", "convention"]) == {"specification", "convention"}
    assert parse_authorities(["all"]) == set(AUTHORITIES)
    with pytest.raises(ValueError, match="unknown authority 'spec'"):
        parse_authorities(["spec"])
    with pytest.raises(ValueError, match="expected a comma list"):
        parse_authorities([","])
