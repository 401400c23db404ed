"""The survey as one self-contained HTML page, with the heat map of operations x libraries.

:func:`render_survey_html` draws a :class:`~conformance.report.survey.Survey`
the way :mod:`conformance.report.html` draws one report: the report page's
style sheet (:data:`conformance.report.html._CSS`), inline SVG, no script,
no link, no outside file, and a Content-Security-Policy that forbids every
fetch.  Every string from a report or a page passes through
:func:`conformance.model.sanitize.html_text`.

The heat map has one row per operation and one column per library; a cell
is green where the library conforms on every plan, red by the number of
deviation classes (lighter for one, darkest from :data:`DARKEST_AT` on),
grey where the report has no row; hovering a cell names the classes.
"""

from __future__ import annotations

from conformance.findings.authority import AUTHORITIES
from conformance.report.html import _CSS, FAIL_COLOUR
from conformance.report.html_charts import _plural, _t
from conformance.report.survey import (
    COMPOSED,
    CONFORMS,
    NOT_MEASURED,
    Survey,
    regenerate_command,
)

__all__ = ["DARKEST_AT", "cell_colour", "render_survey_html"]

#: the class count from which a cell takes the darkest red
DARKEST_AT = 6
_CONFORMS_COLOUR = "#a5d6a7"
_NOT_MEASURED_COLOUR = "#eeeeee"
_CELL_W, _CELL_H, _CHAR = 110, 16, 6.8


def cell_colour(cell: str | tuple[str, ...]) -> str:
    """The fill of one grid cell: green conforms, grey not measured (or only the
    adapter's composition deviates), red by class count."""
    if cell == CONFORMS:
        return _CONFORMS_COLOUR
    if cell in (NOT_MEASURED, COMPOSED):  # a composition is the adapter's, not the library's
        return _NOT_MEASURED_COLOUR
    share = min(len(cell), DARKEST_AT) / DARKEST_AT
    low, high = (255, 205, 210), (183, 28, 28)  # light red to FAIL-like dark red
    r, g, b = (round(lo + (hi - lo) * share) for lo, hi in zip(low, high))
    return f"#{r:02x}{g:02x}{b:02x}"


def _heatmap(survey: Survey) -> list[str]:
    left = _CHAR * max(len(op) for op in survey.operations) + 12
    top = 24
    width = left + _CELL_W * len(survey.libraries) + 10
    height = top + _CELL_H * len(survey.operations) + 10
    svg = [
        f'<svg class="heatmap" width="{width:.0f}" height="{height}" '
        'font-family="monospace" font-size="11">'
    ]
    for j, table in enumerate(survey.libraries):
        x = left + _CELL_W * j + _CELL_W / 2
        svg.append(
            f'<text x="{x:.0f}" y="{top - 8}" text-anchor="middle">{_t(table.backend)}</text>'
        )
    for i, operation in enumerate(survey.operations):
        y = top + _CELL_H * i
        svg.append(
            f'<text x="{left - 6:.0f}" y="{y + _CELL_H - 4}" text-anchor="end">'
            f"{_t(operation)}</text>"
        )
        for j, table in enumerate(survey.libraries):
            cell = table.cells[operation]
            label = cell if isinstance(cell, str) else (
                f"{_plural(len(cell), 'deviation class')}: {', '.join(cell)}")  # fmt: skip
            svg.append(
                f'<rect x="{left + _CELL_W * j:.0f}" y="{y}" width="{_CELL_W - 2}" '
                f'height="{_CELL_H - 2}" fill="{cell_colour(cell)}">'
                f"<title>{_t(table.backend)} x {_t(operation)}: {_t(label)}</title></rect>"
            )
            if isinstance(cell, tuple):
                svg.append(
                    f'<text x="{left + _CELL_W * j + _CELL_W / 2 - 1:.0f}" y="{y + _CELL_H - 4}" '
                    f'text-anchor="middle" fill="{"#fff" if len(cell) > 2 else "#1b1b1b"}">'
                    f"{len(cell)}</text>"
                )
    svg.append("</svg>")
    legend = (
        '<p class="note">green: conforms on every plan; red: the number of deviation '
        f"classes (darkest from {DARKEST_AT} on); grey: not measured.  Hover a cell for its "
        "classes.</p>"
    )
    return ['<div class="scroll">', *svg, "</div>", legend]


def _libraries(survey: Survey) -> list[str]:
    total = len(survey.operations)
    lines = [
        "<h2>Libraries</h2>",
        '<div class="scroll"><table><tr><th>backend</th><th>library</th><th>machine</th>'
        "<th>measured</th><th>plancheck</th><th>conforming operations</th>"
        "<th>deviation classes</th><th>by authority (specification / reference / convention)"
        "</th><th>reproduced</th><th>headline deviations</th></tr>",
    ]
    for t in survey.libraries:
        counts = " / ".join(str(t.authority_counts.get(a, 0)) for a in AUTHORITIES)
        lines.append(
            f"<tr><td><code>{_t(t.backend)}</code></td><td>{_t(t.library)}</td>"
            f"<td>{_t(t.machine)}</td><td>{_t(t.date)} ({_t(t.profile)})</td>"
            f"<td>{_t(t.plancheck_version)}</td>"
            f'<td class="num">{t.conforming} of {total}</td><td class="num">{t.class_count}</td>'
            f'<td class="num">{_t(counts)}</td>'
            f"<td>{'yes' if t.has_reproductions else 'no'}</td><td>{_t(t.headline)}</td></tr>"
        )
    lines.append("</table></div>")
    return lines


def _disagreements(survey: Survey) -> list[str]:
    found = survey.disagreements()
    lines = [
        "<h2>Where the libraries disagree, and what the specification says</h2>",
        f'<p class="note">{len(found)} of {len(survey.operations)} operations; a library that '
        "conforms is the one the specification supports.</p>",
    ]
    for d in found:
        lines += [
            f"<h3><code>{_t(d.operation)}</code></h3>",
            f"<p>{d.verdict(lambda b: f'<code>{_t(b)}</code>')}.</p>",
            "<ul>",
        ]
        lines += [
            f"<li><code>{_t(b)}</code>: {', '.join(f'<code>{_t(c)}</code>' for c in classes)}</li>"
            for b, classes in d.deviating.items()
        ]
        lines.append('</ul><dl class="facts">')
        lines += [
            f"<dt><code>{_t(c)}</code></dt><dd>{_t(cite)}</dd>" for c, cite in d.clauses.items()
        ]
        lines.append("</dl>")
    return lines


def render_survey_html(survey: Survey) -> str:
    """The survey page as self-contained HTML."""
    css = _CSS.replace("@FAIL@", FAIL_COLOUR)
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
            "style-src 'unsafe-inline'\">",
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            "<title>plancheck: conformance survey of tensor libraries</title>",
            f"<style>{css}</style>",
            "</head><body>",
            "<h1>Conformance survey of tensor libraries</h1>",
            '<p class="note">Generated by <code>plancheck survey</code> from the committed '
            "reports <code>docs/backends/&lt;backend&gt;.json</code>; regenerate with</p>",
            f'<pre class="command">{_t(regenerate_command(survey))}</pre>',
            *_libraries(survey),
            "<h2>Operations x libraries</h2>",
            *_heatmap(survey),
            *_disagreements(survey),
            '<footer><p class="note">rendered by plancheck; self-contained (no script, no '
            "outside file).</p></footer>",
            "</body></html>",
            "",
        ]
    )
