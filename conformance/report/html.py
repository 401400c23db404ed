"""The conformance report as one self-contained HTML page.

:func:`render_html` turns a ``plancheck-report/1`` document (what
``--report out.json`` writes; schema ``conformance/report.schema.json``) into
a single HTML file: inline CSS and inline SVG, no script, no link, no image
file, and a Content-Security-Policy that forbids every fetch, so the page
opens from disk and makes no network request.  :func:`write_html` writes it
atomically.

The page, per backend:

* a header: backends, versions and seed when the document carries them,
  profile, dates, and the verdict -- ``conforms``, ``conforms except N known
  deviation classes``, ``N deviation classes`` or ``INCOMPLETE``;
* the per-operation table, each status coloured (``FAIL`` in :data:`FAIL_COLOUR`);
* one line per deviation class, then one block per class: its count, plans,
  rule, the minimal example with bit patterns, expected vs actual, the ULP
  distance, and the repro line as selectable text;
* ``not supported: FEATURE (N calls)``, crashes, oracle errors, stale entries
  of the known-deviations file;
* the coverage matrix as a heat map (plans x boundary classes) when the
  document has the per-plan counts (``coverage[backend]["matrix"]``, the
  :meth:`~conformance.judge.coverage.CoverageMatrix.as_dict` form), otherwise its
  summary and the missing pairs;
* for correctly rounded operations, a scatter plot of the ULP distance of
  every mismatching element the document lists, against the expected value.

The two pictures are drawn by :mod:`conformance.report.html_charts`.  Every string
taken from the document passes through
:func:`conformance.model.sanitize.html_text`: backend text is untrusted, and
markup or terminal escapes in it render as inert text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from conformance.findings.failure import printed_repro
from conformance.model.sanitize import html_text
from conformance.report.html_charts import (
    _count,
    _coverage,
    _mapping,
    _plural,
    _sequence,
    _t,
    _ulp_section,
)
from conformance.report.markdown import authority_line, authority_text, not_judged_line

__all__ = ["FAIL_COLOUR", "render_html", "verdict_of", "write_html"]

#: the background of a FAIL cell of the per-operation table (and of nothing else), ``#rrggbb``
FAIL_COLOUR = "#c62828"
#: repro lines and Python snippets are commands: cut only far beyond any real one
_COMMAND_LIMIT = 100_000
_FORMAT = "plancheck-report/1"

#: table status -> CSS class of its cell
_STATUS_CLASS = {
    "conforms": "ok",
    "xfail": "known",
    "differs": "known",
    "not measured": "oracle",
    "FAIL": "fail",
    "TIMEOUT": "fail",
    "CRASH": "fail",
    "ORACLE ERROR": "oracle",
}
#: the per-operation table: (column heading, row key, right-aligned)
_TABLE_COLUMNS = (
    ("operation", "operation", False),
    ("plans", "plans", True),
    ("examples", "examples", True),
    ("pass", "passed", True),
    ("fail", "failed", True),
    ("corpus", "corpus_cases", True),
    ("max ULP", "max_ulp", True),
    ("deviation classes", "classes", False),
    ("result", "status", False),
)

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1280px;padding:0 20px 40px;
color:#1b1b1b;background:#fff}
h1{font-size:22px;margin:18px 0 6px}h2{font-size:19px;margin:28px 0 8px;
border-bottom:2px solid #ddd}h3{font-size:16px;margin:18px 0 6px}
code,pre{font:12.5px/1.4 ui-monospace,monospace}h3 code{font-size:15px}
dd code,td code{overflow-wrap:anywhere}
pre{background:#f6f6f6;border:1px solid #ddd;padding:6px 8px;margin:4px 0;white-space:pre-wrap;
word-break:break-all}
pre.command{user-select:all;background:#fffbe6}
.verdict{display:inline-block;padding:4px 12px;border-radius:4px;font-weight:700;color:#fff}
.verdict.ok{background:#2e7d32}.verdict.known{background:#9e6a00}
.verdict.fail{background:#7f1d1d}.verdict.incomplete{background:#555}
dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 14px;margin:10px 0}
dl.facts dt{color:#555}dl.facts dd{margin:0}
.scroll{overflow-x:auto}
table{border-collapse:collapse;margin:6px 0}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#eee}td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.fail td{background:#fdecea}td.status.fail{background:@FAIL@;color:#fff;font-weight:700}
td.status.ok{color:#1b5e20}td.status.known{background:#fff3cd}
td.status.oracle{background:#e3e8f0}
.class{border:1px solid #ccc;border-left:6px solid #e57373;padding:4px 12px 10px;margin:12px 0}
.class.known{border-left-color:#9e6a00}
.tag{display:inline-block;padding:0 6px;border-radius:3px;background:#eee;margin-left:6px;
font-size:12px;font-weight:400}
.note{color:#555}
"""


# ---------------------------------------------------------------------------
# Text helpers
# ---------------------------------------------------------------------------


def _command(value: object) -> str:
    """A command line: inert, but not cut where a real one could be."""
    return html_text(value, _COMMAND_LIMIT)


def verdict_of(document: Mapping[str, Any]) -> tuple[str, str]:
    """``(text, tone)`` of the run: tone is ``ok``, ``known``, ``fail`` or ``incomplete``.

    * an unfinished document (``complete`` false: still running, interrupted)
      is ``INCOMPLETE`` whatever it found so far;
    * new (not known) deviation classes make ``N deviation classes``;
    * a finished run without a verdict on the backend (only oracle errors, a
      pytest error) is ``INCOMPLETE`` with the document's ``result``;
    * a run the document calls non-conforming without any class (a crash or a
      timeout outside the classes, a coverage gap) is ``not conforming: why``;
    * known classes alone make ``conforms except N known deviation classes``.
    """
    classes = [c for c in _sequence(document.get("deviation_classes")) if isinstance(c, Mapping)]
    # a class of an authority the run does not judge (--judge) fails nothing: not counted
    classes = [c for c in classes if c.get("judged", True) or c.get("known") is not None]
    new = sum(1 for c in classes if c.get("known") is None)
    known = len(classes) - new
    result = str(document.get("result", ""))
    if not document.get("complete"):
        found = f": {_plural(new, 'deviation class')} so far" if new else ""
        return f"INCOMPLETE{found}", "incomplete"
    if new:
        return _plural(new, "deviation class") + (f" (and {known} known)" if known else ""), "fail"
    if result == "conforms":
        if known:
            return f"conforms except {_plural(known, 'known deviation class')}", "known"
        return "conforms", "ok"
    if not result.startswith("not conforming"):
        return f"INCOMPLETE ({result or 'no result'})", "incomplete"
    reasons = []
    statuses = {
        str(_mapping(row).get("status"))
        for rows in _mapping(document.get("table")).values()
        for row in _mapping(rows).values()
    }
    reasons += sorted(statuses & {"FAIL", "TIMEOUT", "CRASH"})
    if any(
        _sequence(_mapping(s).get("missing")) for s in _mapping(document.get("coverage")).values()
    ):
        reasons.append("coverage gaps")
    return f"not conforming: {', '.join(reasons) or result}", "fail"


# ---------------------------------------------------------------------------
# Sections
# ---------------------------------------------------------------------------


def _header(document: Mapping[str, Any], verdict: str, tone: str) -> list[str]:
    options = _mapping(document.get("options"))
    facts: list[tuple[str, str]] = [
        (
            "backends",
            ", ".join(f"<code>{_t(b)}</code>" for b in _sequence(document.get("backends"))),
        )
    ]
    versions = _mapping(document.get("backend_versions"))
    if versions:
        shown = (f"<code>{_t(b)}</code> {_t(v)}" for b, v in versions.items())
        facts.append(("library versions", ", ".join(shown)))
    if document.get("plancheck_version") is not None:
        facts.append(("plancheck", _t(document["plancheck_version"])))
    facts.append(("profile", f"<code>{_t(document.get('profile', ''))}</code>"))
    if document.get("seed") is not None:
        facts.append(("seed", f"<code>{_t(document['seed'])}</code>"))
    operations = _sequence(document.get("operations"))
    facts.append(("operations", ", ".join(_t(op) for op in operations) if operations else "all"))
    facts.append(("started", _t(document.get("started", "?"))))
    facts.append(("updated", _t(document.get("updated", "?"))))
    run = (
        f"{_count(document.get('finished_items', 0))} of "
        f"{_count(document.get('collected_items', '?'))} test items finished"
    )
    if document.get("elapsed_s") is not None:
        run += f" in {_t(document['elapsed_s'])} s"
    facts.append(("run", run))
    facts.append(("result", _t(document.get("result", "running"))))
    declared = {b: f for b, f in _mapping(options.get("unsupported")).items() if f}
    if declared:
        shown = (f"<code>{_t(b)}</code>: {_t(', '.join(map(str, f)))}" for b, f in declared.items())
        facts.append(("declared unsupported", "; ".join(shown)))
    budgets = _mapping(options.get("ulp_budgets"))
    if budgets:
        facts.append(("ULP budgets", ", ".join(f"{_t(k)}={_t(v)}" for k, v in budgets.items())))
    if _sequence(options.get("xfail")):
        facts.append(("known deviations", _count(len(options["xfail"])) + " entries"))
    lines = [
        "<header>",
        "<h1>plancheck conformance report</h1>",
        f'<p><span class="verdict {tone}">{_t(verdict)}</span></p>',
        '<dl class="facts">',
    ]
    lines += [f"<dt>{name}</dt><dd>{value}</dd>" for name, value in facts]
    lines += ["</dl>", "</header>"]
    return lines


def _class_cell(classes: Sequence[tuple[int, Mapping[str, Any]]]) -> str:
    """``2 new, 1 known``, linked to the operation's first class block."""
    if not classes:
        return ""
    new = sum(1 for _, c in classes if c.get("known") is None)
    parts = [f"{new} new"] if new else []
    parts += [f"{len(classes) - new} known"] if len(classes) > new else []
    return f'<a href="#class-{classes[0][0]}">{", ".join(parts)}</a>'


def _operation_table(
    rows: Mapping[str, Any],
    total: Mapping[str, Any],
    classes: Sequence[tuple[int, Mapping[str, Any]]],
) -> list[str]:
    """The per-operation table of one backend, *classes* being its numbered classes."""
    head = "".join(f"<th>{title}</th>" for title, _, _ in _TABLE_COLUMNS)
    lines = ['<div class="scroll"><table class="operations">', f"<tr>{head}</tr>"]
    for operation, row in sorted(rows.items()):
        row = _mapping(row)
        tone = _STATUS_CLASS.get(str(row.get("status", "")), "fail")
        cells = []
        for _, key, numeric in _TABLE_COLUMNS:
            value = row.get(key)
            if key == "operation":
                cells.append(f"<td><code>{_t(operation)}</code></td>")
            elif key == "status":
                cells.append(f'<td class="status {tone}">{_t(value)}</td>')
            elif key == "classes":
                mine = [(i, c) for i, c in classes if c.get("operation") == operation]
                cells.append(f"<td>{_class_cell(mine)}</td>")
            elif key == "corpus_cases" and not value:
                cells.append('<td class="num">-</td>')
            elif key == "corpus_cases" and row.get("corpus_failed"):
                cells.append(
                    f'<td class="num">{_count(value)} ({_count(row["corpus_failed"])} failing)</td>'
                )
            else:
                cells.append(f'<td class="{"num" if numeric else ""}">{_count(value)}</td>')
        marker = ' class="fail"' if tone == "fail" else ""
        lines.append(f"<tr{marker}>{''.join(cells)}</tr>")
    lines.append("</table></div>")
    if total:
        failing = _sequence(total.get("not_conforming"))
        lines.append(
            f"<p>{_count(total.get('operations'))} operations, {_count(total.get('plans'))} plans, "
            f"{_count(total.get('examples'))} examples ({_count(total.get('failed'))} failing), "
            f"{_count(total.get('corpus_cases'))} corpus cases"
            + (f"; not conforming: {_t(', '.join(map(str, failing)))}" if failing else "")
            + "</p>"
        )
    return lines


def _not_supported(counts: Mapping[str, Any]) -> list[str]:
    if not counts:
        return []
    parts = [
        f"<code>{_t(feature)}</code> ({_plural(n, 'call') if isinstance(n, int) else _t(n)})"
        for feature, n in sorted(counts.items())
    ]
    return [f'<p class="not-supported">not supported (not judged): {", ".join(parts)}</p>']


def _calls(count: object) -> str:
    """``N calls`` for an integer *count*; anything else (a document without the
    count) as its text, as the other counts of the page are shown."""
    return _plural(count, "call") if isinstance(count, int) else _t(count)


def _not_measured(entries: Sequence[Any]) -> list[str]:
    """The calls the adapter could not map onto its library: never its classes."""
    rows = [e for e in entries if isinstance(e, Mapping)]
    if not rows:
        return []
    lines = ['<p class="not-supported">not measured (the adapter cannot map these calls; '
             "not the library's classes):</p>", "<ul>"]  # fmt: skip
    lines += [
        f"<li><code>{_t(e.get('operation'))}</code> ({_calls(e.get('count'))}): "
        f"{_t(e.get('message'))}</li>"
        for e in rows
    ]
    return [*lines, "</ul>"]


def _not_judged(counts: Mapping[str, Any]) -> list[str]:
    if not counts:
        return []
    return [f'<p class="not-supported">{_t(not_judged_line(counts))}</p>']


def _authority_cell(c: Mapping[str, Any]) -> str:
    clause = _mapping(c.get("clause"))
    text = _t(clause.get("label") or c.get("authority") or "")
    if c.get("composed"):
        text += " <em>(the adapter's composition)</em>"
    if c.get("judged") is False and c.get("known") is None:
        text += " <em>(not judged)</em>"
    return text


def _class_lines(classes: Sequence[tuple[int, Mapping[str, Any]]]) -> list[str]:
    new = sum(1 for _, c in classes if c.get("known") is None)
    by_authority = _t(authority_line([c for _, c in classes]))
    lines = [
        f"<h3>Deviation classes: {len(classes)} ({new} new, {len(classes) - new} known)</h3>",
        f"<p>{by_authority}</p>",
        '<div class="scroll"><table class="classes">',
        "<tr><th>class</th><th>kind</th><th>authority</th><th>calls</th><th>plans</th>"
        "<th>max ULP</th><th>known</th></tr>",
    ]
    for index, c in classes:
        plans = len(_sequence(c.get("plans"))) or 1
        known = c.get("known")
        lines.append(
            f'<tr><td><a href="#class-{index}"><code>{_t(c.get("operation"))}@'
            f"{_t(c.get('class'))}</code></a></td><td>{_t(c.get('kind'))}</td>"
            f"<td>{_authority_cell(c)}</td>"
            f'<td class="num">{_count(c.get("count"))}</td><td class="num">{plans}</td>'
            f'<td class="num">{_count(c.get("max_ulp"))}</td>'
            f"<td>{'' if known is None else _t(known)}</td></tr>"
        )
    lines.append("</table></div>")
    return lines


def _warnings(example: Mapping[str, Any]) -> list[str]:
    """The warnings a failure report shows: category, message and the element each
    concerns (``warning_details``; a report without them lists ``warnings``)."""
    details = [d for d in _sequence(example.get("warning_details")) if isinstance(d, Mapping)]
    if not details:
        details = [{"message": w} for w in _sequence(example.get("warnings"))]
    if not details:
        return []
    lines = [
        f"<p>warnings: {_count(len(details))}</p>",
        '<div class="scroll"><table class="warnings"><tr><th>category</th><th>message</th>'
        "<th>element</th><th>from inputs</th><th>expected</th></tr>",
    ]
    for d in details:
        index = d.get("index")
        if index is not None:
            element = f"<code>({_t(', '.join(map(str, _sequence(index))))})</code>"
        else:
            element = "none shows it" if d.get("flag") else ""
        lines.append(
            f"<tr><td>{_t(d.get('category', ''))}</td><td>{_t(d.get('message', ''))}</td>"
            f"<td>{element}</td><td><code>{_t(d.get('inputs', ''))}</code></td>"
            f"<td><code>{_t(d.get('expected', ''))}</code></td></tr>"
        )
    lines.append("</table></div>")
    return lines


def _further_class_mismatches(
    example: Mapping[str, Any], listed: Sequence[Mapping[str, Any]]
) -> list[Mapping[str, Any]]:
    """The example's ``class_mismatches`` whose element is not in *listed* (the first
    mismatches, in the same order: every class with an element there has its first)."""
    shown = {tuple(_sequence(m.get("index"))) for m in listed}
    return [
        m for m in _sequence(example.get("class_mismatches"))
        if isinstance(m, Mapping) and tuple(_sequence(m.get("index"))) not in shown
    ]  # fmt: skip


def _mismatch_table(mismatches: Sequence[Mapping[str, Any]], classes: bool = False) -> list[str]:
    """Mismatching elements as a table: index, inputs, expected, actual, ULP, rule (and
    the element's class first, with *classes*)."""
    head = "<th>class</th>" if classes else ""
    lines = [
        f'<div class="scroll"><table class="mismatches"><tr>{head}<th>index</th>'
        "<th>from inputs</th><th>expected</th><th>actual</th><th>ULP</th><th>rule</th></tr>"
    ]
    for m in mismatches:
        index = ", ".join(map(str, _sequence(m.get("index"))))
        cls = f"<td><code>{_t(m.get('class'))}</code></td>" if classes else ""
        lines.append(
            f"<tr>{cls}<td><code>({_t(index)})</code></td><td><code>{_t(m.get('inputs', ''))}"
            f"</code></td><td><code>{_t(m.get('expected'))}</code></td>"
            f"<td><code>{_t(m.get('actual'))}</code></td>"
            f'<td class="num">{_count(m.get("ulp"))}</td><td>{_t(m.get("rule"))}</td></tr>'
        )
    lines.append("</table></div>")
    return lines


def _example(example: Mapping[str, Any]) -> list[str]:
    """The fields of one failure report, bit patterns and commands included."""
    facts: list[tuple[str, str]] = []
    for title, key in (("problem", "problem"), ("plan", "plan"),
                       ("conformance class", "conformance"), ("call", "note")):  # fmt: skip
        if example.get(key):
            facts.append((title, _t(example[key])))
    for position, text in enumerate(_sequence(example.get("inputs"))):
        facts.append((f"arg {position}", f"<code>{_t(text)}</code>"))
    for title in ("expected", "actual"):
        if example.get(title):
            facts.append((title, f"<code>{_t(example[title])}</code>"))
    if example.get("ulp") is not None:
        facts.append(("ULP distance", f"{_count(example['ulp'])} (largest over the mismatches)"))
    for title, key in (("rule broken", "rule"), ("semantics", "semantics"),
                       ("verdict", "summary")):  # fmt: skip
        if example.get(key):
            facts.append((title, _t(example[key])))
    lines = ['<dl class="facts">', *(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in facts), "</dl>"]
    mismatches = [m for m in _sequence(example.get("mismatches")) if isinstance(m, Mapping)]
    if mismatches:
        total = example.get("mismatch_count", len(mismatches))
        lines.append(
            f"<p>mismatching elements: {_count(total)} (first {len(mismatches)} shown)</p>"
        )
        lines += _mismatch_table(mismatches)
    further = _further_class_mismatches(example, mismatches)
    if further:
        lines.append(
            f"<p>the first mismatching element of each class not among those: "
            f"{_count(len(further))}</p>"
        )
        lines += _mismatch_table(further, classes=True)
    lines += _warnings(example)
    for title, text in printed_repro(example):  # bounded: a large call is a file
        kind = "command repro" if title == "reproduce" else "command"
        lines += [f"<p>{title}:</p>", f'<pre class="{kind}">{_command(text)}</pre>']
    return lines


def _class_block(index: int, entry: Mapping[str, Any]) -> list[str]:
    known = entry.get("known")
    plans = [str(p) for p in _sequence(entry.get("plans"))] or [str(entry.get("plan", ""))]
    count = entry.get("count")
    calls = _plural(count, "call") if isinstance(count, int) else _t(count)
    lines = [
        f'<section class="class{" known" if known is not None else ""}" id="class-{index}">',
        f"<h3><code>{_t(entry.get('operation'))}@{_t(entry.get('class'))}</code>"
        f'<span class="tag">{_t(entry.get("kind"))}</span><span class="tag">{calls}</span>'
        + ("" if entry.get("max_ulp") is None else
           f'<span class="tag">max {_count(entry["max_ulp"])} ULP</span>')
        + "</h3>",
    ]  # fmt: skip
    if known is not None:
        lines.append(f"<p>known deviation: {_t(known)}</p>")
    lines.append(f"<p>rule: {_t(entry.get('rule', ''))}</p>")
    for text in authority_text(entry):
        name, _, rest = text.strip().partition(":")
        lines.append(f"<p>{_t(name)}: {_t(rest.strip())}</p>")
    if len(plans) > 1:
        lines.append(f"<details><summary>{len(plans)} plans</summary><ul>")
        lines += [f"<li><code>{_t(p)}</code></li>" for p in plans]
        lines.append("</ul></details>")
    lines.append(
        f'<p class="note">mark as known: <code>{_t(entry.get("selector", ""))}: reason</code> '
        "in the deviations file</p>"
    )
    example = _mapping(entry.get("example"))
    if example:
        lines.append("<p>minimal example:</p>")
        lines += _example(example)
    elif entry.get("repro"):
        lines.append(f'<pre class="command repro">{_command(entry["repro"])}</pre>')
    lines.append("</section>")
    return lines


def _reports(title: str, entries: Iterable[Any]) -> list[str]:
    entries = [e for e in entries if isinstance(e, Mapping)]
    if not entries:
        return []
    lines = [f"<h3>{title}: {len(entries)}</h3>"]
    for entry in entries:
        if entry.get("test"):
            lines.append(f"<p><code>{_t(entry['test'])}</code></p>")
        lines.append(f"<pre>{_t(entry.get('text') or entry.get('summary', ''))}</pre>")
    return lines


# ---------------------------------------------------------------------------
# The page
# ---------------------------------------------------------------------------


def _of_backend(entries: object, backend: str) -> list[Mapping[str, Any]]:
    return [e for e in _sequence(entries) if isinstance(e, Mapping) and e.get("backend") == backend]


def _backend_section(document: Mapping[str, Any], backend: str, number: int) -> list[str]:
    rows = _mapping(_mapping(document.get("table")).get(backend))
    lines = [f'<section class="backend" id="backend-{number}">',
             f"<h2>Backend <code>{_t(backend)}</code></h2>"]  # fmt: skip
    classes = [
        (i, c)
        for i, c in enumerate(_sequence(document.get("deviation_classes")))
        if isinstance(c, Mapping) and c.get("backend") == backend
    ]
    totals = _mapping(_mapping(document.get("totals")).get(backend))
    lines += _operation_table(rows, totals, classes)
    lines += _not_supported(_mapping(_mapping(document.get("not_supported")).get(backend)))
    lines += _not_measured(_sequence(_mapping(document.get("not_measured")).get(backend)))
    lines += _not_judged(_mapping(_mapping(document.get("not_judged")).get(backend)))
    if classes:
        lines += _class_lines(classes)
        for index, entry in classes:
            lines += _class_block(index, entry)
    lines += _reports("Crashes", _of_backend(document.get("crashes"), backend))
    lines += _reports(
        "Oracle errors (not the backend's fault)",
        _of_backend(document.get("oracle_errors"), backend),
    )
    summary = _mapping(_mapping(document.get("coverage")).get(backend))
    lines.append("<h3>Coverage: plans x boundary classes</h3>")
    if summary:
        lines += _coverage(summary)
    else:
        lines.append('<p class="note">no coverage data (the run did not finish)</p>')
    lines += _ulp_section(document, backend)
    lines.append("</section>")
    return lines


def render_html(document: Mapping[str, Any]) -> str:
    """The report *document* (format ``plancheck-report/1``) as one HTML page.

    Raises TypeError when *document* is not a mapping and ValueError when it
    is not a ``plancheck-report/1`` document.  Missing optional fields are
    left out of the page; a document of an unfinished run renders with the
    verdict ``INCOMPLETE``.
    """
    if not isinstance(document, Mapping):
        raise TypeError(
            f"render_html: expected a report document (dict), got {type(document).__name__}"
        )
    if document.get("format") != _FORMAT:
        raise ValueError(
            f"render_html: not a {_FORMAT} document (format {document.get('format')!r}); "
            "pass what `plancheck run --report out.json` writes"
        )
    verdict, tone = verdict_of(document)
    backends = [str(b) for b in _sequence(document.get("backends"))]
    for backend in _mapping(document.get("table")):
        if backend not in backends:
            backends.append(backend)
    title = f"plancheck: {', '.join(backends)}: {verdict}"
    css = _CSS.replace("@FAIL@", FAIL_COLOUR)
    lines = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_t(title)}</title>",
        f"<style>{css}</style>",
        "</head><body>",
        *_header(document, verdict, tone),
    ]
    for number, backend in enumerate(backends, 1):
        lines += _backend_section(document, backend, number)
    stale = [s for s in _sequence(document.get("stale_xfail")) if isinstance(s, Mapping)]
    if stale:
        lines.append("<h2>Listed deviations that no longer fail</h2><ul>")
        lines += [f"<li><code>{_t(s.get('selector'))}</code>: {_t(s.get('reason'))}</li>"
                  for s in stale]  # fmt: skip
        lines.append("</ul>")
    respelled = [s for s in _sequence(document.get("respelled_xfail")) if isinstance(s, Mapping)]
    if respelled:
        lines.append(
            "<h2>Listed deviations spelt as classes were spelt before (usage error)</h2><ul>"
        )
        lines += [f"<li><code>{_t(s.get('selector'))}</code> is now spelt "
                  f"<code>{_t(s.get('now'))}</code>: {_t(s.get('reason'))}</li>"
                  for s in respelled]  # fmt: skip
        lines.append("</ul>")
    errors = _sequence(document.get("errors"))
    if errors:
        lines.append("<h2>Errors</h2>")
        lines += [f"<pre>{_t(e)}</pre>" for e in errors]
    lines += [
        f'<footer><p class="note">{_t(_FORMAT)} rendered by plancheck; self-contained '
        "(no script, no outside file).</p></footer>",
        "</body></html>",
        "",
    ]
    return "\n".join(lines)


def write_html(document: Mapping[str, Any], path: str | Path) -> Path:
    """Write :func:`render_html` of *document* to *path* atomically (a temporary file
    beside it, then a rename).  The directory must exist (it is not created)."""
    path = Path(path)
    text = render_html(document)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path
