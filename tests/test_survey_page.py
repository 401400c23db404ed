"""The generated section of a library's page (conformance.report.survey_page)."""

from __future__ import annotations

from conformance.report import survey_page

CONFIGURATION = {"library": "numpy", "version": "9.9", "device": "cpu", "threads": {},
                 "flags": {}, "machine": {}}  # fmt: skip


def _report(configuration: dict | None) -> dict:
    classes = [
        {"backend": "lib", "operation": "exp", "class": "wrong-value:accuracy", "kind":
         "wrong value", "authority": "reference", "count": 3, "plan": "exp(Float32)",
         "example": {"expected": "1.0 (0x3F800000)", "actual": "1.0000001 (0x3F800001)"}},
        {"backend": "lib", "operation": "gelu", "class": "wrong-value:accuracy", "kind":
         "wrong value", "authority": "reference", "count": 1, "plan": "gelu(Float32)",
         "composed": "x * Phi(x)", "example": {"expected": "a", "actual": "b"}},
    ]  # fmt: skip
    report = {
        "started": "2026-12-06T00:00:00+0000", "plancheck_version": "0.1.0", "profile": "ci",
        "elapsed_s": 12.4, "result": "not conforming", "backends": ["lib"],
        "totals": {"lib": {"examples": 100, "corpus_cases": 2000, "operations": 3}},
        "table": {"lib": {"add": {"status": "conforms"}, "exp": {"status": "FAIL"},
                          "gelu": {"status": "FAIL"}}},
        "deviation_classes": classes,
        "not_measured": {"lib": [{"operation": "sort", "message": "no descending", "count": 2}]},
        "options": {"unsupported": {"lib": ["sort-descending"]}},
    }  # fmt: skip
    if configuration is not None:
        report["configuration"] = {"lib": configuration}
    return report


def test_a_report_of_the_old_code_gets_no_section() -> None:
    assert survey_page.page_section(_report(None), "lib") is None


def test_the_section_states_the_run_the_counts_and_what_is_not_the_librarys() -> None:
    section = survey_page.page_section(_report(CONFIGURATION), "lib")
    assert section is not None
    assert section.startswith(survey_page.BEGIN) and section.rstrip().endswith(survey_page.END)
    assert "`plancheck run --backend lib --profile ci --workers 2 --report " in section
    assert "(12 s, 100 judged examples, 2,000 corpus cases; result: not conforming)" in section
    assert (
        "**1 of 3 operations conform on every plan**; the library's classes: **1**, by "
        "authority: 0 specification, 1 reference, 0 convention;" in section
    )
    assert "not the library's): 1 classes in `gelu`;" in section
    assert "declared unsupported: `sort-descending`;" in section
    assert "  * `sort`: 2 calls -- no descending" in section
    assert "`exp@wrong-value:accuracy`" in section and "`gelu@wrong-value:accuracy`" in section


def test_the_section_is_inserted_once_then_replaced() -> None:
    page = "# lib\n\nintro\n\n## Old numbers\n\nold\n"
    section = survey_page.page_section(_report(CONFIGURATION), "lib")
    once = survey_page.with_page_section(page, section)
    assert once.index(survey_page.BEGIN) < once.index("## Old numbers")
    assert once.startswith("# lib\n\nintro\n\n")
    assert survey_page.with_page_section(once, section) == once
    changed = survey_page.with_page_section(once, section.replace("12 s", "13 s"))
    assert changed.count(survey_page.BEGIN) == 1 and "13 s" in changed
