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
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from conformance.findings.authority import AUTHORITIES
from conformance.findings.failure import FailureReport
from conformance.model.sanitize import markdown_text, terminal_text
from conformance.report.coverage_summary import coverage_line

if TYPE_CHECKING:
    from conformance.report.table import ConformanceTable

__all__ = [
    "TERMINAL_DETAILS",
    "authority_counts",
    "authority_line",
    "authority_text",
    "class_details",
    "class_lines",
    "classes_table_markdown",
    "markdown_report",
    "not_judged_line",
    "not_measured_line",
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


def not_measured_line(entries: Iterable[Mapping[str, Any]]) -> list[str]:
    """The calls an adapter could not map onto its library (``backends.errors.NotMeasured``):
    one line per operation and message, never a class of the library."""
    entries = list(entries)
    if not entries:
        return []
    total = sum(int(e["count"]) for e in entries)
    lines = [f"not measured (the adapter cannot map these calls; not the library's classes): "
             f"{total} call{'s' if total != 1 else ''}"]  # fmt: skip
    for e in entries:
        calls = f"{e['count']} call{'s' if e['count'] != 1 else ''}"
        lines.append(f"  {e['operation']} ({calls}): {e['message']}")
    return lines


def not_judged_line(counts: Mapping[str, int]) -> str:
    """``not judged (no source states the rule): a bool axis must raise ... (13 calls)``."""
    parts = [f"{why} ({n} call{'s' if n != 1 else ''})" for why, n in sorted(counts.items())]
    return "not judged (no source states the rule): " + "; ".join(parts)


def authority_counts(classes: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """The classes per authority (``specification``, ``reference``, ``convention``),
    leaving out those of an adapter's composition (not the library's)."""
    counts = dict.fromkeys(AUTHORITIES, 0)
    for c in classes:
        if not c.get("composed") and c.get("authority") in counts:
            counts[c["authority"]] += 1
    return counts


def authority_line(classes: Sequence[Mapping[str, Any]]) -> str:
    """``by authority: 2 specification, 5 reference, 3 convention`` (and the classes of
    an adapter's composition, not counted, and those not judged)."""
    counts = authority_counts(classes)
    line = "by authority: " + ", ".join(f"{n} {name}" for name, n in counts.items())
    composed = sum(1 for c in classes if c.get("composed"))
    if composed:
        line += f"; {composed} of the adapter's composition (not counted)"
    unjudged = sum(1 for c in classes if c.get("judged") is False and c.get("known") is None)
    if unjudged:
        line += f"; {unjudged} not judged (differences that do not fail)"
    return line


def _tags(c: Mapping[str, Any]) -> str:
    clause = c.get("clause") or {}
    tags = f"  [{clause.get('label') or c.get('authority') or 'no authority'}]"
    if c.get("composed"):
        tags += f"  [the adapter's composition: {c['composed']}]"
    if c.get("judged") is False and c.get("known") is None:
        tags += "  [not judged]"
    if c.get("known") is not None:
        tags += f"  [known: {c['known']}]"
    return tags


def class_lines(classes: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per deviation class (the ``deviation_classes`` entries of a report), with
    its authority, after a head line counting them (new, known, per authority)."""
    if not classes:
        return []
    new = sum(1 for c in classes if c.get("known") is None)
    lines = [
        f"deviation classes: {len(classes)} ({new} new, {len(classes) - new} known); "
        + authority_line(classes)
    ]
    width = min(max(len(f"{c['operation']}@{c['class']}") for c in classes), 60)
    for c in classes:
        name = f"{c['operation']}@{c['class']}".ljust(width)
        plans = len(c.get("plans") or [c.get("plan")])
        calls = f"{c['count']} call{'s' if c['count'] != 1 else ''}"
        where = f" in {plans} plans" if plans > 1 else ""
        ulp = c.get("max_ulp")
        extra = f", max {ulp} ULP" if ulp else ""
        lines.append(f"  {name}  {c['kind']}, {calls}{where}{extra}{_tags(c)}")
    return lines


def authority_text(entry: Mapping[str, Any]) -> list[str]:
    """The lines of a class's authority: the rule quoted with where it stands, what a
    reference rule rests on, why a convention was chosen."""
    clause = entry.get("clause") or {}
    if not clause:
        return []
    lines = [
        f"  authority:  {clause.get('label') or clause.get('authority')}: "
        f'"{clause.get("text")}" ({clause.get("document")}, {clause.get("section")})'
    ]
    if clause.get("why"):
        lines.append(f"  why chosen: {clause['why']}")
    if entry.get("composed"):
        lines.append(f"  composed:   the adapter composes {entry['operation']} as "
                     f"{entry['composed']}: not counted as the library's")  # fmt: skip
    if entry.get("judged") is False:
        lines.append("  judged:     no (--judge): a difference that does not fail the run")
    lines.extend(worst_lines(entry))
    return lines


def worst_lines(entry: Mapping[str, Any]) -> list[str]:
    """The worst element of a class (``worst``, the one its ``max N ULP`` speaks of) with
    its inputs and bits; when the example below is another call (the smallest seen),
    a line saying so.  Empty for a class without one."""
    worst = entry.get("worst")
    if not worst:
        return []
    real = worst.get("real_error")
    real_text = f", real error {real} ulps" if real is not None else ""
    inputs = f" from ({worst['inputs']})" if worst.get("inputs") else ""
    lines = [f"  worst:      {worst.get('ulp')} ULP{real_text} at {tuple(worst['index'])}"
             f"{inputs}: expected {worst['expected']}, got {worst['actual']}"]  # fmt: skip
    example = entry.get("example") or {}
    if example and example.get("ulp") != worst.get("ulp"):
        lines.append(
            f"              (the class's worst element; the example below is its smallest "
            f"call, {example.get('ulp')} ULP at most)"
        )
    return lines


def classes_table_markdown(classes: Sequence[Mapping[str, Any]]) -> str:
    """The deviation classes as a Markdown table: one row per class, with its kind,
    count, plans, its example's input/expected/actual (of a class with ULP distances its
    worst element, the one the max ULP column speaks of; of another wrong value the
    first element of the class itself, ``class_mismatches``, else the first mismatch)
    and the class's largest ULP distance seen."""
    rows = [
        "| class | kind | authority | calls | plans | example: expected -> actual | max ULP |",
        "| --- | --- | --- | ---: | ---: | --- | ---: |",
    ]
    for c in classes:
        example = c.get("example") or {}
        mismatches = example.get("mismatches") or []
        own = [m for m in example.get("class_mismatches") or [] if m.get("class") == c["class"]]
        if c.get("worst"):  # the element the max ULP column speaks of
            own = [c["worst"]]
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
            f"{markdown_text(c['kind'])} | {markdown_text(_authority_cell(c))} | {c['count']} | "
            f"{len(c.get('plans') or [c.get('plan')])} | {shown} | {'' if ulp is None else ulp} |"
        )
    return "\n".join(rows)


def _authority_cell(c: Mapping[str, Any]) -> str:
    clause = c.get("clause") or {}
    text = str(clause.get("label") or c.get("authority") or "")
    if c.get("composed"):
        text += " (the adapter's composition)"
    return text


def class_details(entry: Mapping[str, Any]) -> str:
    """The details block of one deviation class: its minimal example in full."""
    plans = entry.get("plans") or [entry.get("plan")]
    head = (
        f"--- {entry['operation']}@{entry['class']} ({entry['kind']}, {entry['count']} "
        f"call{'s' if entry['count'] != 1 else ''}; paste as `{entry['selector']}: reason`)"
    )
    lines = [head, *authority_text(entry)]
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
        unmeasured = not_measured_line((document.get("not_measured") or {}).get(backend) or [])
        if unmeasured:
            lines += [markdown_text(unmeasured[0]), "", *_code_block("\n".join(unmeasured[1:])), ""]
        unsourced = (document.get("not_judged") or {}).get(backend)
        if unsourced:
            lines += [markdown_text(not_judged_line(unsourced)), ""]
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
            text = coverage_line(summary, summary.get("excused_by") or ())
            lines.append(
                f"- {_code_span(backend)}: {markdown_text(text)}"
                + (f"; MISSING: {markdown_text(', '.join(missing[:20]))}" if missing else "")
            )
        lines.append("")
    return "\n".join(lines)
