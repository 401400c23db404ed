"""The generated section of a library's page ``docs/backends/<backend>.md`` (issue 28).

The pages are written by hand around their measurements; after a re-measurement the
hand-written counts and examples describe the old run.  ``plancheck survey`` keeps one
section of each page current from the report: between :data:`BEGIN` and :data:`END`
(inserted after the page's first paragraph block when absent) it writes the run (date,
command, time, examples), the library's configuration, the counts by authority, what
was not measured and why, the headline, and every class with its example.

:func:`page_section` writes the section from a report; :func:`with_page_section`
puts it into a page's text.  A report without a ``configuration`` (measured before
issue 28) gets no section: its page is left as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.report import survey_headline
from conformance.report.markdown import classes_table_markdown

__all__ = ["BEGIN", "END", "page_section", "with_page_section"]

BEGIN = "<!-- plancheck survey: generated from the report; edit nothing up to the end mark -->"
END = "<!-- plancheck survey: end of the generated section -->"


def _run_line(document: Mapping[str, Any], backend: str) -> str:
    totals = (document.get("totals") or {}).get(backend) or {}
    elapsed = document.get("elapsed_s")
    examples = totals.get("examples")
    corpus = totals.get("corpus_cases")
    facts = [f"{elapsed:.0f} s" if isinstance(elapsed, (int, float)) else None,
             f"{examples:,} judged examples" if isinstance(examples, int) else None,
             f"{corpus:,} corpus cases" if isinstance(corpus, int) else None]  # fmt: skip
    return (
        f"Measured on **{str(document.get('started', '?'))[:10]}** with plancheck "
        f"{document.get('plancheck_version', '?')} (profile `{document.get('profile', '?')}`): "
        f"`plancheck run --backend {backend} --profile {document.get('profile', 'ci')} "
        f"--workers 2 --report docs/backends/{backend}.json` "
        f"({', '.join(f for f in facts if f)}; result: {document.get('result', '?')})."
    )


def _not_measured(document: Mapping[str, Any], backend: str) -> list[str]:
    entries = (document.get("not_measured") or {}).get(backend) or ()
    if not entries:
        return ["* not measured (`NotMeasured`): no call."]
    lines = ["* not measured (`NotMeasured`, the adapter cannot map the call):"]
    lines += [
        f"  * `{e.get('operation')}`: {e.get('count')} calls -- {e.get('message')}" for e in entries
    ]
    return lines


def page_section(document: Mapping[str, Any], backend: str) -> str | None:
    """The generated section for *backend*'s page, from its report; None for a report
    that records no configuration (measured before issue 28)."""
    configuration = (document.get("configuration") or {}).get(backend)
    if not isinstance(configuration, Mapping):
        return None
    classes = [
        c for c in document.get("deviation_classes") or () if c.get("backend", backend) == backend
    ]
    own = survey_headline.library_classes(document, backend)
    composed = sorted({c["operation"] for c in classes if c.get("composed")})
    rows = (document.get("table") or {}).get(backend) or {}
    conforming = sum(1 for r in rows.values() if r.get("status") == "conforms")
    unsupported = ((document.get("options") or {}).get("unsupported") or {}).get(backend) or []
    lines = [
        BEGIN,
        "",
        "## Re-measured (issue 28): the current numbers",
        "",
        _run_line(document, backend),
        "",
        f"* library, as configured: {survey_headline.configuration_phrase(document, backend)};",
        f"* **{conforming} of {len(rows)} operations conform on every plan**; the library's "
        f"classes: **{len(own)}**, "
        + survey_headline.headline(document, backend).split("; ", 2)[1]
        + ";",
        f"* the adapter's compositions (declared in `composed_operations`; their classes are "
        f"the adapter's, not the library's): {len(classes) - len(own)} classes"
        + (f" in {', '.join(f'`{o}`' for o in composed)};" if composed else ";"),
        f"* declared unsupported: {', '.join(f'`{u}`' for u in unsupported) or 'nothing'};",
        *_not_measured(document, backend),
        f"* known deviations: [{backend}.xfail]({backend}.xfail), written from this report "
        "(`python -m conformance.report.survey_xfail`);",
        "",
        "Headline (generated from the report): "
        + survey_headline.headline(document, backend).removeprefix(f"**`{backend}`**: ")
        + ".",
        "",
        "Where the hand-written sections of this page differ from this one, they describe the "
        "measurements before issue 27 (adapter policy, authorities) and this section is "
        "current.  Every class, with its example (each reproduced with the library alone "
        f"by [{backend}_repro.py]({backend}_repro.py)):",
        "",
        classes_table_markdown(classes),
        "",
        END,
    ]
    return "\n".join(lines) + "\n"


def with_page_section(text: str, section: str) -> str:
    """*text* (a page) with its generated section replaced by *section*, or inserted
    before the page's first ``## `` heading when it has none."""
    start, end = text.find(BEGIN), text.find(END)
    if start != -1 and end != -1:
        tail = text[end + len(END) :].removeprefix("\n")
        return text[:start] + section + tail
    heading = text.find("\n## ")
    if heading == -1:
        return text.rstrip("\n") + "\n\n" + section
    return text[: heading + 1] + section + "\n" + text[heading + 1 :]
