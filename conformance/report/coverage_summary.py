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
from collections.abc import Mapping, Sequence
from typing import Any

from conformance.classes.boundary import ORDER_CLASS_GROUPS, SHAPE_GROUPS
from conformance.judge.coverage import CoverageMatrix

__all__ = ["summarise"]


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
    return summary
