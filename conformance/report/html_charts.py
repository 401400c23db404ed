"""The two pictures of the HTML report, as inline SVG: the coverage heat map and
the ULP-error plot (:mod:`conformance.report.html` puts them on the page).

* :func:`_coverage` -- the coverage summary of one backend, with the heat map
  of plans x boundary classes when the summary carries the matrix (cells by
  hits, gaps orange, pairs excused by an unsupported feature violet);
* :func:`_ulp_section` -- for correctly rounded operations, the ULP distance of
  every mismatching element the document lists, against the expected value.

Every string from the document passes through
:func:`conformance.model.sanitize.html_text` (:func:`_t`).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from conformance.model.sanitize import html_text

#: one colour per operation in the ULP plot (cycled)
_PALETTE = ("#1565c0", "#ef6c00", "#2e7d32", "#6a1b9a", "#00838f", "#ad1457", "#4e342e")


def _t(value: object) -> str:
    """Document text as inert HTML."""
    return html_text(value)


def _count(value: object) -> str:
    """An integer with thousands separators; anything else as text."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return _t("" if value is None else value)


# ---------------------------------------------------------------------------
# The verdict
# ---------------------------------------------------------------------------


def _plural(n: int, word: str) -> str:
    """``1 call``, ``2 calls``, ``3 deviation classes``."""
    if n == 1:
        return f"1 {word}"
    return f"{n:,} {word}{'es' if word.endswith('s') else 's'}"


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _sequence(value: object) -> Sequence[Any]:
    return value if isinstance(value, (list, tuple)) else ()


# ---------------------------------------------------------------------------
# Coverage heat map
# ---------------------------------------------------------------------------

_CELL = 14
_CHAR = 6.8  # width of one monospace character at the labels' size, in px


def _heat_colour(hits: int, most: int) -> str:
    """White-to-blue by the logarithm of *hits* (1 .. *most*)."""
    share = math.log1p(hits) / math.log1p(max(most, 1))
    low, high = (222, 235, 247), (8, 48, 107)
    r, g, b = (round(lo + (hi - lo) * share) for lo, hi in zip(low, high))
    return f"#{r:02x}{g:02x}{b:02x}"


def _heatmap(matrix: Mapping[str, Any], missing: Iterable[str] | None) -> list[str]:
    """An SVG heat map of a :meth:`CoverageMatrix.as_dict` document.

    *missing* is the summary's list of gaps (``"PLAN: CLASS"``, ``"PLAN: not
    exercised"``); an applicable class a plan never hit that is not in it was
    excused (only calls needing an unsupported feature would have hit it).
    None: every unhit applicable class is a gap.
    """
    gaps = None if missing is None else set(map(str, missing))
    rows = [r for r in _sequence(matrix.get("plans")) if isinstance(r, Mapping)]
    groups = _mapping(matrix.get("classes"))
    used = {name for r in rows for name in _sequence(r.get("applicable"))}
    columns = [name for name in groups if name in used]
    columns += sorted(used - set(columns))
    if not rows or not columns:
        return ['<p class="note">the coverage matrix has no applicable (plan, class) pair</p>']
    most = max((int(n) for r in rows for n in _mapping(r.get("hits")).values()), default=1)
    left = _CHAR * max(len(str(r.get("plan", ""))) for r in rows) + 10
    top = _CHAR * max(len(str(c)) for c in columns) + 10
    width = left + _CELL * len(columns) + 10
    height = top + _CELL * len(rows) + 10
    svg = [
        f'<svg class="heatmap" width="{width:.0f}" '
        f'height="{height:.0f}" font-family="monospace" font-size="11">'
    ]
    for j, name in enumerate(columns):
        x = left + _CELL * j + _CELL - 3
        group = _sequence(groups.get(name))
        hint = f"{name} ({group[0]}): {group[1]}" if len(group) == 2 else str(name)
        svg.append(
            f'<text transform="translate({x:.0f},{top - 6:.0f}) rotate(-90)">{_t(name)}'
            f"<title>{_t(hint)}</title></text>"
        )
    for i, row in enumerate(rows):
        y = top + _CELL * i
        plan = str(row.get("plan", ""))
        calls = row.get("calls")
        svg.append(
            f'<text x="{left - 6:.0f}" y="{y + _CELL - 2}" text-anchor="end">{_t(plan)}'
            f"<title>{_t(plan)}: {_plural(calls, 'call') if isinstance(calls, int) else ''}"
            "</title></text>"
        )
        unexercised = gaps is not None and f"{plan}: not exercised" in gaps
        applicable = set(map(str, _sequence(row.get("applicable"))))
        hits = _mapping(row.get("hits"))
        for j, name in enumerate(columns):
            x = left + _CELL * j
            n = hits.get(name, 0)
            n = n if isinstance(n, int) else 0
            if name not in applicable:
                fill, label = "#f4f4f4", "not applicable"
            elif n:
                fill, label = _heat_colour(n, most), _plural(n, "call")
            elif gaps is None or unexercised or f"{plan}: {name}" in gaps:
                fill, label = "#ff9800", "MISSING: applicable, never hit"
            else:
                fill, label = "#b39ddb", "not judged: needs an unsupported feature"
            svg.append(
                f'<rect x="{x:.0f}" y="{y}" width="{_CELL - 1}" height="{_CELL - 1}" fill="{fill}">'
                f"<title>{_t(plan)} x {_t(name)}: {label}</title></rect>"
            )
    svg.append("</svg>")
    legend = (
        '<p class="note">cell colour: calls that hit the class, light to dark blue on a log '
        f"scale up to {most:,}; orange: applicable but never hit (a gap); violet: not "
        "judged, only calls needing an unsupported feature hit it; grey: not applicable. "
        "Hover a cell for its count.</p>"
    )
    return ['<div class="scroll">', *svg, "</div>", legend]


def _coverage(summary: Mapping[str, Any]) -> list[str]:
    lines = [
        f"<p>{_count(summary.get('plans_exercised'))} of {_count(summary.get('plans'))} plans "
        f"exercised; {_count(summary.get('pairs_hit'))} of "
        f"{_count(summary.get('pairs_applicable'))} applicable (plan, boundary class) pairs hit"
        + (
            f" ({_count(summary['shape_pairs_hit'])} of "
            f"{_count(summary.get('shape_pairs_applicable'))} (plan, shape class) pairs: "
            "the LENGTH, RANK, AXIS, LAYOUT and LANES columns)"
            if "shape_pairs_hit" in summary
            else ""
        )
        + (
            f" and {_count(summary['order_pairs_hit'])} of "
            f"{_count(summary.get('order_pairs_applicable'))} (plan, order class) pairs "
            "(the ORDER_* and ACCUMULATOR_* columns)"
            if "order_pairs_hit" in summary
            else ""
        )
        + (
            f"; {_count(summary['pairs_not_supported'])} not judged (unsupported features)"
            if summary.get("pairs_not_supported")
            else ""
        )
        + "</p>"
    ]
    missing = _sequence(summary.get("missing"))
    if missing:
        lines.append(f"<p><strong>MISSING ({len(missing)}):</strong></p><ul>")
        lines += [f"<li><code>{_t(m)}</code></li>" for m in missing]
        lines.append("</ul>")
    matrix = _mapping(summary.get("matrix"))
    if matrix:
        lines += _heatmap(matrix, summary.get("missing"))
    else:
        lines.append(
            '<p class="note">This report carries the coverage summary only, not the calls '
            "per (plan, boundary class), so no heat map is drawn.</p>"
        )
    return lines


# ---------------------------------------------------------------------------
# ULP plot
# ---------------------------------------------------------------------------


def _order(bits: int) -> int:
    """The position of a binary32 bit pattern on the ordered number line."""
    return bits if bits < 0x8000_0000 else -(bits & 0x7FFF_FFFF)


def _order_of(value: float) -> int:
    (bits,) = struct.unpack("<I", struct.pack("<f", value))
    return _order(bits)


def _ulp_points(document: Mapping[str, Any], backend: str) -> list[tuple[str, int, int]]:
    """``(operation, ordered position of the expected value, ULP)`` of every distinct
    mismatching element of a correctly rounded plan the document lists for *backend*."""
    examples = [
        _mapping(c.get("example"))
        for c in _sequence(document.get("deviation_classes"))
        if isinstance(c, Mapping)
    ]
    for key in ("failures", "xfailed"):
        examples += [e for e in _sequence(document.get(key)) if isinstance(e, Mapping)]
    seen: set[tuple[Any, ...]] = set()
    points = []
    for example in examples:
        if example.get("backend") != backend or example.get("conformance") != "correctly rounded":
            continue
        for m in _sequence(example.get("mismatches")):
            if not isinstance(m, Mapping):
                continue
            ulp, bits = m.get("ulp"), m.get("expected_bits")
            if not (isinstance(ulp, int) and ulp > 0 and isinstance(bits, int)):
                continue
            if not 0 <= bits < 2**32 or (bits & 0x7FFF_FFFF) > 0x7F80_0000:
                continue
            point = (example.get("plan"), m.get("inputs"), bits, m.get("actual_bits"))
            if point not in seen:
                seen.add(point)
                points.append((str(example.get("operation")), _order(bits), ulp))
    return points


def _ulp_plot(points: Sequence[tuple[str, int, int]]) -> list[str]:
    width, height, left, bottom, top, right = 760, 300, 56, 40, 14, 150
    span = 0x7F80_0000
    top_exponent = max(1, math.ceil(math.log2(max(u for _, _, u in points))))
    low, high = -0.5, top_exponent + 0.5  # log2 range of the y axis, with a margin
    plot_w, plot_h = width - left - right, height - top - bottom

    def x_of(order: int) -> float:
        return left + plot_w * (order + span) / (2 * span)

    def y_of(ulp: int) -> float:
        return top + plot_h * (high - math.log2(ulp)) / (high - low)

    svg = [
        f'<svg class="ulp-plot" width="{width}" '
        f'height="{height}" font-family="sans-serif" font-size="11">',
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="#fafafa" '
        'stroke="#999"/>',
    ]
    ticks = [("-inf", -span), ("0", 0), ("inf", span)]
    ticks += [
        (f"{s}{v}", _order_of(float(f"{s}{v}"))) for s in "-+" for v in ("1e-20", "1", "1e20")
    ]
    for label, order in ticks:
        x = x_of(order)
        svg.append(
            f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + plot_h}" stroke="#ddd"/>'
        )
        svg.append(f'<text x="{x:.1f}" y="{top + plot_h + 14}" text-anchor="middle">{label}</text>')
    step = max(1, top_exponent // 6)
    for e in range(0, top_exponent + 1, step):
        y = y_of(2**e)
        svg.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#ddd"/>'
        )
        svg.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{2**e:,}</text>')
    svg.append(
        f'<text x="{left + plot_w / 2:.0f}" y="{height - 6}" text-anchor="middle">expected value '
        "(binary32 order)</text>"
    )
    svg.append(
        f'<text transform="translate(14,{top + plot_h / 2:.0f}) rotate(-90)" '
        'text-anchor="middle">ULP distance (log scale)</text>'
    )
    operations = list(dict.fromkeys(op for op, _, _ in points))
    colours = {op: _PALETTE[i % len(_PALETTE)] for i, op in enumerate(operations)}
    for op, order, ulp in points:
        svg.append(
            f'<circle cx="{x_of(order):.1f}" cy="{y_of(ulp):.1f}" r="4" fill="{colours[op]}" '
            f'fill-opacity="0.75"><title>{_t(op)}: {ulp:,} ULP</title></circle>'
        )
    for i, op in enumerate(operations):
        y = top + 8 + 16 * i
        svg.append(f'<circle cx="{width - right + 16}" cy="{y}" r="4" fill="{colours[op]}"/>')
        svg.append(f'<text x="{width - right + 26}" y="{y + 4}">{_t(op)}</text>')
    svg.append("</svg>")
    return svg


def _ulp_section(document: Mapping[str, Any], backend: str) -> list[str]:
    points = _ulp_points(document, backend)
    lines = ["<h3>ULP error of correctly rounded operations</h3>"]
    if not points:
        lines.append(
            '<p class="note">No mismatching element of a correctly rounded plan is listed, so '
            "there is nothing to plot.</p>"
        )
        return lines
    lines.append(
        f'<p class="note">The {len(points)} distinct mismatching elements this report lists '
        "(each class's example and the first failures of each test item), not every element "
        "judged.</p>"
    )
    lines += _ulp_plot(points)
    largest: dict[str, int] = {}
    for entry in _sequence(document.get("deviation_classes")):
        if isinstance(entry, Mapping) and entry.get("backend") == backend:
            ulp = entry.get("max_ulp")
            if isinstance(ulp, int):
                operation = str(entry.get("operation"))
                largest[operation] = max(largest.get(operation, 0), ulp)
    lines.append(
        '<table class="ulp"><tr><th>operation</th><th>elements plotted</th>'
        "<th>largest ULP plotted</th><th>largest ULP of its classes (all elements)</th></tr>"
    )
    for operation in dict.fromkeys(op for op, _, _ in points):
        mine = [u for op, _, u in points if op == operation]
        lines.append(
            f'<tr><td><code>{_t(operation)}</code></td><td class="num">{len(mine)}</td>'
            f'<td class="num">{max(mine):,}</td>'
            f'<td class="num">{_count(largest.get(operation))}</td></tr>'
        )
    lines.append("</table>")
    return lines
