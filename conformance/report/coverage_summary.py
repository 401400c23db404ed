"""A run's coverage of the plan x boundary-class matrix, for one backend.

The plugin counts, per plan, the calls each test item made, the boundary
(input) classes they hit and the result classes their expected values hit
(:mod:`conformance.judge.coverage`), and separately the calls it did not judge
because they need a feature the backend declared unsupported.
:func:`summarise` turns those counts into the report's coverage summary: the
matrix itself (for the HTML heat map), the applicable pairs of both kinds hit,
the pairs missing, and the pairs excused -- a class that only calls needing an
unsupported feature would have hit is not a gap of the run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from conformance.classes.boundary import ORDER_CLASS_GROUPS, SHAPE_GROUPS
from conformance.judge.coverage import CoverageMatrix

__all__ = ["coverage_line", "excused_by", "summarise"]


def summarise(
    required: Sequence[Any],
    rows: Mapping[str, Sequence[Any]],
    skipped: Mapping[str, Sequence[Any]],
) -> dict[str, Any]:
    """The coverage summary of one backend.

    *required* are the plans the run had to exercise (in plan order); *rows*
    maps a plan's ``describe()`` to (calls, hits per input class name[, hits
    per result class name]) of the calls judged, *skipped* the same for the
    calls not judged.  The summary is :meth:`CoverageMatrix.as_dict`'s, with
    ``matrix`` (format, classes, plans), ``pairs_hit``, ``pairs_missing``,
    ``pairs_not_supported``, the same three ``result_pairs_*`` counts for
    (plan, result class) pairs, ``shape_pairs_*`` for the (plan, shape class) pairs
    and ``order_pairs_*`` for the (plan, order class) pairs among the input pairs,
    and ``missing`` (``"PLAN: CLASS"``, ``"PLAN: result CLASS"`` or
    ``"PLAN: not exercised"``) for the gaps not excused.
    """

    def parts(row: Sequence[Any]) -> tuple[int, Mapping[str, int], Mapping[str, int]]:
        return row[0], row[1], (row[2] if len(row) > 2 else {})

    document = {
        "format": "plancheck-coverage/1",
        "plans": [
            {"plan": plan, "calls": calls, "hits": dict(hits), "result_hits": dict(results)}
            for plan, (calls, hits, results) in ((p, parts(r)) for p, r in rows.items())
        ],
    }
    matrix = CoverageMatrix.from_json(json.dumps(document), plans=required)

    def excused(plan: Any, cls: Any, result: bool = False) -> bool:
        """Only calls needing an unsupported feature would have hit it."""
        calls, hits, results = parts(skipped.get(plan.describe(), (0, {}, {})))
        counts = results if result else hits
        return bool(calls) and (cls is None or counts.get(cls.name, 0) > 0)

    missing = [(plan, cls) for plan, cls in matrix.missing() if not excused(plan, cls)]
    missing_results = [
        (plan, cls) for plan, cls in matrix.missing_results() if not excused(plan, cls, True)
    ]
    matrix_data = matrix.as_dict()
    summary = matrix_data["summary"]
    summary["matrix"] = {k: matrix_data[k] for k in ("format", "classes", "plans")}
    gap_classes = [c for _, c in missing if c is not None]
    kinds = (
        ("pairs", missing),
        ("result_pairs", missing_results),
        ("shape_pairs", [c for c in gap_classes if c.group in SHAPE_GROUPS]),
        ("order_pairs", [c for c in gap_classes if c.group in ORDER_CLASS_GROUPS]),
    )
    for prefix, gaps in kinds:
        summary[f"{prefix}_not_supported"] = summary[f"{prefix}_missing"] - len(gaps)
        summary[f"{prefix}_missing"] = len(gaps)
        summary[f"{prefix}_hit"] = (
            summary[f"{prefix}_applicable"]
            - summary[f"{prefix}_missing"]
            - summary[f"{prefix}_not_supported"]
        )
    summary["missing"] = [
        f"{plan.describe()}: {'not exercised' if cls is None else cls.name}"
        for plan, cls in missing
    ] + [f"{plan.describe()}: result {cls.name}" for plan, cls in missing_results]
    # complete: every required plan exercised and no pair missing once the excused pairs
    # are set aside (the matrix alone counts an excused pair as missing)
    summary["complete"] = not summary["missing"]
    return summary


def excused_by(
    unsupported: Iterable[str] = (), not_measured: int = 0, not_judged: int = 0
) -> list[str]:
    """What excused a backend's pairs, as :func:`coverage_line` names it: the features
    declared unsupported that calls needed, calls the adapter could not map, calls
    resting on no source."""
    features = sorted(unsupported)
    reasons = []
    if features:
        noun = "feature" if len(features) == 1 else "features"
        reasons.append(f"the unsupported {noun} {', '.join(features)}")
    if not_measured:
        reasons.append("calls not measured")
    if not_judged:
        reasons.append("calls resting on no source")
    return reasons


def coverage_line(summary: Mapping[str, Any], reasons: Sequence[str] = ()) -> str:
    """The coverage of one backend in one line: plans exercised, the (plan, boundary
    class) pairs hit of the applicable ones (shape and order classes among them), the
    (plan, result class) pairs hit, and the pairs excused with what excused them
    (*reasons*, :func:`excused_by`): a pair only calls not judged would have hit is
    neither hit nor missing."""
    get = summary.get
    line = (
        f"{get('plans_exercised')} of {get('plans')} plans exercised, {get('pairs_hit')} of "
        f"{get('pairs_applicable')} applicable (plan, boundary class) pairs "
        f"({get('shape_pairs_hit', 0)} of {get('shape_pairs_applicable', 0)} (plan, shape "
        f"class), {get('order_pairs_hit', 0)} of {get('order_pairs_applicable', 0)} (plan, "
        f"order class)) and {get('result_pairs_hit', 0)} of "
        f"{get('result_pairs_applicable', 0)} (plan, result class) pairs hit"
    )
    inputs, results = get("pairs_not_supported", 0), get("result_pairs_not_supported", 0)
    if inputs or results:
        kinds = ((inputs, "boundary"), (results, "result"))
        parts = [f"{n} (plan, {kind} class)" for n, kind in kinds if n]
        by = f" by {' and '.join(reasons)}" if reasons else ""
        line += (
            f"; {' and '.join(parts)} pair{'s' * (inputs + results != 1)} excused{by} "
            "(only calls not judged would hit them)"
        )
    return line
