"""The deviation classes as lines and the run document as Markdown.

:func:`class_lines` (one line per class) and :func:`class_details` (a class's
minimal example in full) serve the terminal summary and the Markdown report;
:func:`markdown_report` renders a whole ``plancheck-report/1`` document.
Backend text in Markdown sits in code spans and fenced blocks whose backtick
runs are longer than any run inside (:func:`_code_span`, :func:`_code_block`)
or is escaped (:func:`conformance.model.sanitize.markdown_text`), so it cannot forge
headings, rows or links; control characters are made visible.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from conformance.findings.failure import FailureReport
from conformance.model.sanitize import markdown_text, terminal_text

if TYPE_CHECKING:
    from conformance.report.table import ConformanceTable

__all__ = [
    "TERMINAL_DETAILS",
    "class_details",
    "class_lines",
    "classes_table_markdown",
    "markdown_report",
    "not_supported_line",
]


# ---------------------------------------------------------------------------
# Deviation classes
# ---------------------------------------------------------------------------

#: the terminal summary shows the details of at most this many new classes per backend
#: (the report file has them all)
TERMINAL_DETAILS = 12


def not_supported_line(counts: Mapping[str, int]) -> str:
    """``not supported: zero-size (212 calls), rank-0 (9 calls)``."""
    parts = [f"{name} ({n} call{'s' if n != 1 else ''})" for name, n in sorted(counts.items())]
    return "not supported (not judged): " + ", ".join(parts)


def class_lines(classes: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per deviation class (the ``deviation_classes`` entries of a report)."""
    if not classes:
        return []
    new = sum(1 for c in classes if c.get("known") is None)
    lines = [f"deviation classes: {len(classes)} ({new} new, {len(classes) - new} known)"]
    width = min(max(len(f"{c['operation']}@{c['class']}") for c in classes), 60)
    for c in classes:
        name = f"{c['operation']}@{c['class']}".ljust(width)
        plans = len(c.get("plans") or [c.get("plan")])
        calls = f"{c['count']} call{'s' if c['count'] != 1 else ''}"
        where = f" in {plans} plans" if plans > 1 else ""
        ulp = c.get("max_ulp")
        extra = f", max {ulp} ULP" if ulp else ""
        known = f"  [known: {c['known']}]" if c.get("known") is not None else ""
        lines.append(f"  {name}  {c['kind']}, {calls}{where}{extra}{known}")
    return lines


def classes_table_markdown(classes: Sequence[Mapping[str, Any]]) -> str:
    """The deviation classes as a Markdown table: one row per class, with its kind,
    count, plans, its example's input/expected/actual (of a wrong value: the first
    element of the class itself, ``class_mismatches``, else the first mismatch) and
    the class's largest ULP distance seen."""
    rows = [
        "| class | kind | calls | plans | example: expected -> actual | max ULP |",
        "| --- | --- | ---: | ---: | --- | ---: |",
    ]
    for c in classes:
        example = c.get("example") or {}
        mismatches = example.get("mismatches") or []
        own = [m for m in example.get("class_mismatches") or [] if m.get("class") == c["class"]]
        if own or mismatches:
            m = (own or mismatches)[0]  # the class's own first element, when the report has it
            shown = f"{m['expected']} -> {m['actual']}"
            if m.get("inputs"):
                shown = f"({m['inputs']}): {shown}"
        else:
            shown = f"{example.get('expected', '')} -> {example.get('actual', '')}"
            inputs = ", ".join(example.get("inputs") or [])
            if inputs and len(inputs) <= 60:
                shown = f"({inputs}): {shown}"
        shown = markdown_text(shown, 160)
        ulp = c.get("max_ulp")
        rows.append(
            f"| {_code_span(_class_name(c)).replace('|', chr(92) + '|')} | "
            f"{markdown_text(c['kind'])} | {c['count']} | "
            f"{len(c.get('plans') or [c.get('plan')])} | {shown} | {'' if ulp is None else ulp} |"
        )
    return "\n".join(rows)


def class_details(entry: Mapping[str, Any]) -> str:
    """The details block of one deviation class: its minimal example in full."""
    plans = entry.get("plans") or [entry.get("plan")]
    head = (
        f"--- {entry['operation']}@{entry['class']} ({entry['kind']}, {entry['count']} "
        f"call{'s' if entry['count'] != 1 else ''}; paste as `{entry['selector']}: reason`)"
    )
    lines = [head]
    if len(plans) > 1:
        lines.append(f"  plans ({len(plans)}): " + "; ".join(str(p) for p in plans))

    example = entry.get("example") or {}
    text = example.get("text") or FailureReport.from_dict(example).text() if example else ""
    lines.extend(text.splitlines())
    return "\n".join(lines)


def _class_name(entry: Mapping[str, Any]) -> str:
    return f"{entry.get('operation')}@{entry.get('class')}"


def _code_span(text: object) -> str:
    """*text* as a Markdown code span (rendered literally) on one line: its backtick
    delimiters are longer than any backtick run inside, control characters are made
    visible."""
    shown = terminal_text(text, 500).replace("\n", " ")
    longest = max((len(run) for run in re.findall(r"`+", shown)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") else ""
    return f"{ticks}{pad}{shown}{pad}{ticks}"


def _code_block(text: str) -> list[str]:
    """*text* as a fenced Markdown code block whose fence no backtick run inside it can
    close (backend text is untrusted), control characters made visible."""
    text = terminal_text(text, 100_000)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, text, fence]


def markdown_report(document: Mapping[str, Any], table: ConformanceTable) -> str:
    """The run document as Markdown: status, tables, failures, xfails, coverage."""
    state = "complete" if document.get("complete") else "INCOMPLETE (still running or interrupted)"
    lines = [
        "# plancheck conformance report",
        "",
        f"- backends: {', '.join(_code_span(b) for b in document.get('backends', []))}",
        f"- profile: `{document.get('profile')}`",
        f"- run: {state}; {document.get('finished_items', 0)} of "
        f"{document.get('collected_items', '?')} test items finished",
        f"- started: {document.get('started')}, updated: {document.get('updated')}",
        f"- result: **{document.get('result', 'running')}**",
        "",
    ]
    classes = document.get("deviation_classes") or []
    skipped = document.get("not_supported") or {}
    for backend in table.backends():
        lines += [f"## Backend {_code_span(backend)}", "", table.to_markdown(backend), ""]
        if skipped.get(backend):
            lines += [not_supported_line(skipped[backend]), ""]
        mine = [c for c in classes if c.get("backend") == backend]
        if mine:
            head, *rows = class_lines(mine)
            block = "\n".join(r[2:] for r in rows)
            lines += [f"### {markdown_text(head)}", "", *_code_block(block), ""]
    if classes:
        lines += ["## Deviation classes in detail", ""]
        for entry in classes:
            name = f"{_code_span(entry['backend'])}: {_code_span(_class_name(entry))}"
            lines += [f"### {name}", ""]
            lines += [*_code_block(class_details(entry)), ""]
    sections = (
        ("Crashes", "crashes"),
        ("Oracle errors (not the backend's fault)", "oracle_errors"),
    )
    for title, key in sections:
        entries = document.get(key) or []
        if not entries:
            continue
        lines += [f"## {title}", ""]
        for entry in entries:
            lines += [f"### {_code_span(entry.get('test', ''))}", ""]
            lines += [*_code_block(str(entry.get("text", ""))), ""]
    stale = document.get("stale_xfail") or []
    if stale:
        lines += ["## Listed deviations that no longer fail", ""]
        lines += [f"- `{s['selector']}`: {s['reason']}" for s in stale]
        lines.append("")
    respelled = document.get("respelled_xfail") or []
    if respelled:
        lines += ["## Listed deviations spelt as classes were spelt before (usage error)", ""]
        lines += [f"- {_code_span(r['selector'])} is now spelt {_code_span(r['now'])}: "
                  f"{markdown_text(r['reason'])}" for r in respelled]  # fmt: skip
        lines.append("")
    coverage = document.get("coverage") or {}
    if coverage:
        lines += ["## Coverage (plan x boundary class)", ""]
        for backend, summary in coverage.items():
            missing = summary.get("missing", [])
            lines.append(
                f"- `{backend}`: {summary.get('plans_exercised')} of {summary.get('plans')} plans "
                f"exercised, {summary.get('pairs_hit')} of {summary.get('pairs_applicable')} "
                f"applicable (plan, boundary class) pairs ({summary.get('shape_pairs_hit', 0)} "
                f"of {summary.get('shape_pairs_applicable', 0)} (plan, shape class), "
                f"{summary.get('order_pairs_hit', 0)} of "
                f"{summary.get('order_pairs_applicable', 0)} (plan, order class)) and "
                f"{summary.get('result_pairs_hit', 0)} of "
                f"{summary.get('result_pairs_applicable', 0)} (plan, result class) pairs hit"
                + (f"; MISSING: {', '.join(missing[:20])}" if missing else "")
            )
        lines.append("")
    return "\n".join(lines)
