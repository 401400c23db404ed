"""A run's coverage of the plan x boundary-class matrix, for one backend.

The plugin counts, per plan, the calls each test item made and the boundary
classes they hit (:mod:`conformance.coverage`), and separately the calls it
did not judge because they need a feature the backend declared unsupported.
:func:`summarise` turns those counts into the report's coverage summary: the
matrix itself (for the HTML heat map), the applicable pairs hit, the pairs
missing, and the pairs excused -- a class that only calls needing an
unsupported feature would have hit is not a gap of the run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["summarise"]


def summarise(
    required: Sequence[Any],
    rows: Mapping[str, tuple[int, Mapping[str, int]]],
    skipped: Mapping[str, tuple[int, Mapping[str, int]]],
) -> dict[str, Any]:
    """The coverage summary of one backend.

    *required* are the plans the run had to exercise (in plan order); *rows*
    maps a plan's ``describe()`` to (calls, hits per class name) of the calls
    judged, *skipped* the same for the calls not judged.  The summary is
    :meth:`CoverageMatrix.as_dict`'s, with ``matrix`` (format, classes, plans),
    ``pairs_hit``, ``pairs_missing``, ``pairs_not_supported`` and ``missing``
    (``"PLAN: CLASS"`` or ``"PLAN: not exercised"``) for the gaps not excused.
    """
    from .coverage import CoverageMatrix

    document = {
        "format": "plancheck-coverage/1",
        "plans": [
            {"plan": plan, "calls": calls, "hits": dict(hits)}
            for plan, (calls, hits) in rows.items()
        ],
    }
    matrix = CoverageMatrix.from_json(json.dumps(document), plans=required)

    def excused(plan: Any, cls: Any) -> bool:
        """Only calls needing an unsupported feature would have hit it."""
        calls, hits = skipped.get(plan.describe(), (0, {}))
        return bool(calls) and (cls is None or hits.get(cls.name, 0) > 0)

    missing = [(plan, cls) for plan, cls in matrix.missing() if not excused(plan, cls)]
    matrix_data = matrix.as_dict()
    summary = matrix_data["summary"]
    summary["matrix"] = {k: matrix_data[k] for k in ("format", "classes", "plans")}
    summary["pairs_not_supported"] = summary["pairs_missing"] - len(missing)
    summary["pairs_missing"] = len(missing)
    summary["pairs_hit"] = (
        summary["pairs_applicable"] - summary["pairs_missing"] - summary["pairs_not_supported"]
    )
    summary["missing"] = [
        f"{plan.describe()}: {'not exercised' if cls is None else cls.name}"
        for plan, cls in missing
    ]
    return summary
