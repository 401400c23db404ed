"""Which survey reports an earlier suite measured (issue 28: a report is valid for its suite).

A report and the known-deviations file written from it hold for the calls the suite made
when it was measured.  When plancheck's classes change -- issue 30 added order and shape
classes, and the calls that hit them -- a ``--xfail`` run of the same library meets calls
its report never judged, and a class they show is new although the library did not
change (jax's ``reduce_max@wrong-value:nan-bits``, 2026-12-06).

:func:`stale` compares the coverage summary of a full-run report (every plan: what
``plancheck survey`` measures) with the current suite's: the plans, and the applicable
(plan, class) pairs of every kind (input, shape, order, result).  A difference means the
suite that measured the report made other calls; the report must be re-measured.  The
converse does not hold: a change of the calls that adds no class (another boundary value
of a class already covered) leaves the counts alone, so equal counts are no proof.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.classes.boundary import ORDER_CLASS_GROUPS, SHAPE_GROUPS
from conformance.judge.coverage import applicable_classes, applicable_result_classes
from oracle import resolvable_plans

__all__ = ["COUNTED", "current_counts", "stale"]

#: the coverage summary's counts that depend on the suite alone (not on the library)
COUNTED = (
    "plans",
    "pairs_applicable",
    "shape_pairs_applicable",
    "order_pairs_applicable",
    "result_pairs_applicable",
)


def current_counts() -> dict[str, int]:
    """The :data:`COUNTED` numbers of this plancheck over every resolvable plan."""
    plans = list(resolvable_plans())
    classes = [applicable_classes(p) for p in plans]
    return {
        "plans": len(plans),
        "pairs_applicable": sum(len(c) for c in classes),
        "shape_pairs_applicable": sum(sum(x.group in SHAPE_GROUPS for x in c) for c in classes),
        "order_pairs_applicable": sum(
            sum(x.group in ORDER_CLASS_GROUPS for x in c) for c in classes
        ),
        "result_pairs_applicable": sum(len(applicable_result_classes(p)) for p in plans),
    }


def stale(
    document: Mapping[str, Any], backend: str, current: Mapping[str, int] | None = None
) -> list[str]:
    """What in *backend*'s coverage summary of *document* differs from the current suite
    (``"pairs_applicable 3869, now 3912"``); empty when nothing does, or when the report
    has no coverage summary to compare (an older format, or a run of a few operations)."""
    summary = (document.get("coverage") or {}).get(backend)
    if not isinstance(summary, Mapping) or any(k not in summary for k in COUNTED):
        return []
    now = current_counts() if current is None else current
    return [f"{key} {summary[key]}, now {now[key]}" for key in COUNTED if summary[key] != now[key]]
