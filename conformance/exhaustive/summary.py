"""Summaries of the exhaustive sweep's records: per plan, overlaps counted once.

:func:`summarise` turns state-file records (:mod:`conformance.exhaustive.state`)
into one :class:`PlanSummary` per plan; :func:`accuracy_table` renders them
as Markdown and JSON rows.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from conformance.exhaustive.ulp_error import input_value, real_error
from oracle import vectorised as V
from oracle.binary32 import from_bits

__all__ = [
    "KEEP",
    "PlanSummary",
    "accuracy_table",
    "certified_error",
    "error_text",
    "plan_order",
    "summarise",
]

TOTAL = 1 << 32
#: offending inputs kept per shard (and per summary)
KEEP = 8


def plan_order(plan: str) -> tuple[int, int]:
    """Sort key: Float32 plans before Int32 ones, each in the registry's order."""
    op, _, dtype = plan.partition(":")
    rank = V.OPS.index(op) if op in V.OPS else len(V.OPS)
    return (dtype == "Int32", rank)


@dataclass
class PlanSummary:
    """The evidence about one plan of one backend: disjoint records, counted once."""

    backend: str
    plan: str
    inputs: int  #: inputs of the counted (disjoint) records
    covered: int  #: the same: distinct inputs with a verdict
    non_conforming: int
    not_correctly_rounded: int
    nan_mismatches: int
    max_ulp: int
    worst: list[Any] | None  #: [input, expected, actual, ulp(, real error)] at max_ulp
    offenders: list[list[int | None]]
    ulp_budget: int
    shards: int
    seconds: float
    #: records left out because they overlap counted ones, that found non-conformance
    overlapping_non_conforming: int = 0
    errors: list[str] = field(default_factory=list)
    #: the largest real error in ulps over the counted records (None: none measured --
    #: every result correctly rounded, or records of the previous format)
    max_error: float | None = None
    worst_error: list[Any] | None = None  #: [input, expected, actual, real error]
    #: records that do not carry the real error (the previous format): max_error is then
    #: a lower bound over the others
    unmeasured: int = 0
    #: the environment findings of the backend's host in any record of the plan
    #: (``fp-environment:flush-to-zero``, ...): the plan is then not certified
    environment: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.covered == TOTAL

    @property
    def ok(self) -> bool:
        return (
            self.non_conforming == 0
            and self.overlapping_non_conforming == 0
            and not self.errors
            and not self.environment
        )


def _disjoint(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(counted, left out): the longest ranges first, then the newest; overlaps left out."""
    order = sorted(range(len(rows)), key=lambda i: (-(rows[i]["stop"] - rows[i]["start"]), -i))
    starts: list[int] = []
    stops: list[int] = []
    counted, left = [], []
    for i in order:
        r = rows[i]
        k = bisect.bisect_right(starts, r["start"])
        clash = (k > 0 and stops[k - 1] > r["start"]) or (k < len(starts) and starts[k] < r["stop"])
        if clash:
            left.append(r)
            continue
        starts.insert(k, r["start"])
        stops.insert(k, r["stop"])
        counted.append(r)
    counted.sort(key=lambda r: r["start"])
    return counted, left


def summarise(
    records: Iterable[dict[str, Any]],
    backend: str,
    role: str | None = None,
    ulp_budget: int | None = None,
) -> list[PlanSummary]:
    """Per plan of *backend*: the latest record of every range, overlaps counted once.

    Records of one range replace older ones.  Records of different shard
    counts may overlap; the counted set is disjoint (longest ranges first,
    then the newest), so no input is counted twice and ``inputs`` never
    exceeds 2**32.  A left-out record that found non-conformance still makes
    the plan non-conforming (``overlapping_non_conforming``).  Pass records of
    the current identity (:func:`current_records`) to count only those.
    """
    latest: dict[tuple[str, int, int], dict[str, Any]] = {}
    for record in records:
        if record["backend"] != backend:
            continue
        if role is not None and record["role"] != role:
            continue
        if ulp_budget is not None and record["ulp_budget"] != ulp_budget:
            continue
        key = (record["plan"], record["start"], record["stop"])
        latest.pop(key, None)  # re-insert: dict order is recency
        latest[key] = record
    plans: dict[str, list[dict[str, Any]]] = {}
    for (plan, _, _), record in latest.items():
        plans.setdefault(plan, []).append(record)
    out = []
    for plan in sorted(plans, key=plan_order):
        rows, left = _disjoint(plans[plan])
        worst = None
        peak: tuple[int, float] = (-1, -1.0)
        worst_error = None
        offenders: list[list[int | None]] = []
        for r in rows:
            held = r.get("worst")
            if held:  # the largest distance; among equals, the largest real error
                rank = (r["max_ulp"], held[4] if len(held) > 4 else -1.0)
                if rank > peak:
                    peak, worst = rank, held
            candidate = r.get("worst_error")
            if candidate and (worst_error is None or candidate[3] > worst_error[3]):
                worst_error = candidate
            offenders.extend(r.get("offenders") or [])
        covered = sum(r["stop"] - r["start"] for r in rows)
        out.append(
            PlanSummary(
                backend=backend,
                plan=plan,
                inputs=covered,
                covered=covered,
                non_conforming=sum(r["non_conforming"] for r in rows),
                not_correctly_rounded=sum(r["not_correctly_rounded"] for r in rows),
                nan_mismatches=sum(r["nan_mismatches"] for r in rows),
                max_ulp=max((r["max_ulp"] for r in rows), default=0),
                worst=worst,
                offenders=offenders[:KEEP],
                ulp_budget=max((r["ulp_budget"] for r in rows), default=0),
                shards=len(rows),
                seconds=sum(r.get("seconds") or 0.0 for r in rows),
                overlapping_non_conforming=sum(1 for r in left if r["non_conforming"]),
                errors=[r["error"] for r in [*rows, *left] if r.get("error")][:KEEP],
                max_error=None if worst_error is None else worst_error[3],
                worst_error=worst_error,
                unmeasured=sum(1 for r in rows if "max_error" not in r),
                environment=sorted({e for r in [*rows, *left] for e in r.get("environment") or ()}),
            )
        )
    return out


def _shown_input(plan: str, pattern: int) -> str:
    text = f"0x{pattern:08X}"
    if plan.endswith(":Float32"):
        return text + f" ({from_bits(pattern):.9g})"
    n = pattern - (1 << 32) if pattern >= 1 << 31 else pattern
    return text + f" ({n})"


def certified_error(summary: PlanSummary) -> float | None:
    """The largest real error of *summary* recomputed at its worst input with mpmath
    (:func:`conformance.exhaustive.ulp_error.real_error`); None when none was measured."""
    if summary.worst_error is None:
        return None
    pattern, expected, actual, _ = summary.worst_error
    op, _, dtype = summary.plan.partition(":")
    return real_error(op, input_value(dtype, pattern), from_bits(actual), from_bits(expected))


def error_text(summary: PlanSummary, error: float | None) -> str:
    """The real error as printed: 4 significant digits, ``<= 0.5`` when correctly rounded."""
    if error is None:
        if summary.unmeasured:
            return "not measured"
        return "<= 0.5" if summary.not_correctly_rounded == summary.nan_mismatches else "-"
    return "inf" if error == float("inf") else f"{error:#.4g}"


def accuracy_table(summaries: list[PlanSummary]) -> tuple[str, list[dict[str, Any]]]:
    """(Markdown, JSON rows): per plan the largest real error in ulps with the input that
    attains it (the surveys' measure), the largest integer distance to the correctly
    rounded result, and the counts."""
    header = (
        "| plan | inputs checked | coverage | max error (ulps) | worst input | "
        "max ULP distance | not correctly rounded | NaN mismatches | non-conforming |\n"
        "|---|---:|---:|---:|---|---:|---:|---:|---:|\n"
    )
    lines, rows = [], []
    for s in summaries:
        coverage = "all 2**32" if s.complete else f"{100 * s.covered / TOTAL:.2f}%"
        error = certified_error(s)
        worst = "-" if s.worst_error is None else _shown_input(s.plan, s.worst_error[0])
        lines.append(
            f"| {s.plan} | {s.inputs:,} | {coverage} | {error_text(s, error)} | {worst} | "
            f"{s.max_ulp} | {s.not_correctly_rounded:,} | {s.nan_mismatches:,} | "
            f"{s.non_conforming:,} |"
        )
        rows.append(
            {
                "plan": s.plan,
                "inputs": s.inputs,
                "covered": s.covered,
                "complete": s.complete,
                "max_error": None if error is None else (str(error) if error == float("inf")
                                                         else error),
                "worst_error": s.worst_error,
                "max_ulp": s.max_ulp,
                "worst": s.worst,
                "not_correctly_rounded": s.not_correctly_rounded,
                "nan_mismatches": s.nan_mismatches,
                "non_conforming": s.non_conforming,
                "ulp_budget": s.ulp_budget,
                "offenders": s.offenders,
                "worker_seconds": round(s.seconds, 2),
            }
        )  # fmt: skip
    return header + "\n".join(lines) + "\n", rows
