"""Coverage accounting: which plans ran, which input and which result classes they hit.

A :class:`CoverageMatrix` has one row per plan (by default every plan of
:func:`oracle.resolvable_plans`, both accumulator variants included) and two
kinds of column: one per input class (:class:`~conformance.classes.boundary.Boundary`)
and one per result class (:class:`~conformance.classes.result.ResultClass`).
:meth:`~CoverageMatrix.record` adds a call: its plan's call count grows, every
input class the call *measurably* hits (:func:`~conformance.generate.families.classes_hit`)
is counted, and so is every result class its expected value hits
(:func:`~conformance.classes.result.result_classes_hit`).  Classes a plan
cannot see (:func:`~conformance.classes.applicability.applicable_classes`,
:func:`~conformance.generate.witnesses.applicable_result_classes`) are never
required.

:meth:`~CoverageMatrix.missing` lists the input side of what a run failed to
exercise: a plan that ran no call at all is ``(plan, None)``; an applicable
input class a plan never hit is ``(plan, cls)``.
:meth:`~CoverageMatrix.missing_results` lists the applicable result classes a
plan never hit, ``(plan, result_class)``.  The shape classes
(:data:`~conformance.classes.boundary.SHAPE_GROUPS`: lengths, ranks, axes,
layouts, lanes) are input classes, counted again on their own in the summary
(``shape_pairs_applicable``, ``shape_pairs_missing``), and so are the order
classes (:data:`~conformance.classes.boundary.ORDER_CLASS_GROUPS`: other orders of a
sequential accumulation, a Float64 accumulator not honoured;
``order_pairs_applicable``, ``order_pairs_missing``).
A run is :attr:`~CoverageMatrix.complete`
when both lists are empty.  Matrices merge (one per pytest-xdist worker) and
round-trip through JSON, where a plan is named by ``OperationPlan.describe()``
(unique among the resolvable plans); a JSON row without ``result_hits``
(a document of an older run) simply hit no result class.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from conformance.classes.applicability import applicable_classes
from conformance.classes.boundary import ORDER_CLASS_GROUPS, SHAPE_GROUPS, Boundary
from conformance.classes.result import ResultClass, result_classes_hit
from conformance.generate.families import classes_hit
from conformance.generate.witnesses import applicable_result_classes
from conformance.model.calls import Call
from oracle import OperationPlan, resolvable_plans
from oracle.expectation import Expectation

__all__ = ["CoverageMatrix"]

_FORMAT = "plancheck-coverage/1"


class CoverageMatrix:
    """Plan x input-class and plan x result-class hit counts for one run."""

    def __init__(self, plans: Iterable[OperationPlan] | None = None) -> None:
        self.plans: tuple[OperationPlan, ...] = tuple(
            resolvable_plans() if plans is None else plans
        )
        self._calls: Counter[OperationPlan] = Counter()
        self._hits: dict[OperationPlan, Counter[Boundary]] = {p: Counter() for p in self.plans}
        self._results: dict[OperationPlan, Counter[ResultClass]] = {
            p: Counter() for p in self.plans
        }
        self._extra: list[OperationPlan] = []  # plans recorded but not expected

    # -- recording ---------------------------------------------------------------

    def record(self, call: Call, expectation: Expectation | None = None) -> frozenset[Boundary]:
        """Count *call* for its plan; return the input classes it hit.

        The result classes are measured on *expectation* (``oracle.expected``
        of the call, computed when None).
        """
        classes = classes_hit(call)
        self.record_classes(call.plan, classes, result_classes_hit(call, expectation))
        return classes

    def record_classes(
        self,
        plan: OperationPlan,
        classes: Iterable[Boundary],
        results: Iterable[ResultClass] = (),
    ) -> None:
        """Count one call of *plan* that hit input *classes* and result classes
        *results* (for callers that measured)."""
        self._row(plan)
        self._calls[plan] += 1
        self._hits[plan].update(classes)
        self._results[plan].update(results)

    def _row(self, plan: OperationPlan) -> None:
        if plan not in self._hits:
            self._hits[plan] = Counter()
            self._results[plan] = Counter()
            self._extra.append(plan)

    def merge(self, other: CoverageMatrix) -> CoverageMatrix:
        """Add *other*'s counts to this matrix (in place); returns self."""
        for plan in (*other.plans, *other._extra):
            self._row(plan)
            self._calls[plan] += other._calls[plan]
            self._hits[plan].update(other._hits.get(plan, Counter()))
            self._results[plan].update(other._results.get(plan, Counter()))
        return self

    # -- queries -----------------------------------------------------------------

    def calls(self, plan: OperationPlan) -> int:
        return self._calls[plan]

    def hits(self, plan: OperationPlan) -> dict[Boundary, int]:
        """Input class -> how many recorded calls of *plan* hit it."""
        return dict(self._hits.get(plan, {}))

    def result_hits(self, plan: OperationPlan) -> dict[ResultClass, int]:
        """Result class -> how many recorded calls of *plan* hit it."""
        return dict(self._results.get(plan, {}))

    def missing(self) -> list[tuple[OperationPlan, Boundary | None]]:
        """Unexercised plans ``(plan, None)`` and applicable-but-unhit ``(plan, cls)``."""
        result: list[tuple[OperationPlan, Boundary | None]] = []
        for plan in self.plans:
            if not self._calls[plan]:
                result.append((plan, None))
                continue
            hit = self._hits[plan]
            result.extend(
                (plan, cls) for cls in Boundary if cls in applicable_classes(plan) and not hit[cls]
            )
        return result

    def missing_results(self) -> list[tuple[OperationPlan, ResultClass]]:
        """Applicable-but-unhit ``(plan, result_class)`` pairs of the exercised plans
        (a plan that ran no call is already ``(plan, None)`` in :meth:`missing`)."""
        return [
            (plan, cls)
            for plan in self.plans
            if self._calls[plan]
            for cls in _ordered(applicable_result_classes(plan))
            if not self._results[plan][cls]
        ]

    @property
    def complete(self) -> bool:
        """No plan unexercised, no applicable input or result class unhit."""
        return not self.missing() and not self.missing_results()

    @property
    def unexpected_plans(self) -> tuple[OperationPlan, ...]:
        """Plans that were recorded but are not rows of this matrix."""
        return tuple(self._extra)

    # -- reports -----------------------------------------------------------------

    def as_dict(self) -> dict[str, Any]:
        plans = []
        for plan in (*self.plans, *self._extra):
            applicable = applicable_classes(plan)
            hit = self._hits[plan]
            results = _ordered(applicable_result_classes(plan))
            result_hit = self._results[plan]
            plans.append(
                {
                    "plan": plan.describe(),
                    "operation": plan.operation,
                    "expected": plan not in self._extra,
                    "calls": self._calls[plan],
                    "hits": {cls.name: hit[cls] for cls in Boundary if hit[cls]},
                    "applicable": [cls.name for cls in Boundary if cls in applicable],
                    "missing": [cls.name for cls in Boundary if cls in applicable and not hit[cls]],
                    "result_hits": {c.name: result_hit[c] for c in ResultClass if result_hit[c]},
                    "result_applicable": [c.name for c in results],
                    "result_missing": [c.name for c in results if not result_hit[c]],
                }
            )
        missing = self.missing()
        missing_results = self.missing_results()
        return {
            "format": _FORMAT,
            "classes": {cls.name: [cls.group.name, cls.description] for cls in Boundary},
            "result_classes": {c.name: [c.group.name, c.description] for c in ResultClass},
            "plans": plans,
            "summary": {
                "plans": len(self.plans),
                "plans_exercised": sum(1 for p in self.plans if self._calls[p]),
                "pairs_applicable": sum(len(applicable_classes(p)) for p in self.plans),
                "pairs_missing": sum(1 for _, cls in missing if cls is not None),
                "shape_pairs_applicable": sum(
                    sum(c.group in SHAPE_GROUPS for c in applicable_classes(p)) for p in self.plans
                ),
                "shape_pairs_missing": sum(
                    1 for _, cls in missing if cls is not None and cls.group in SHAPE_GROUPS
                ),
                "order_pairs_applicable": sum(
                    sum(c.group in ORDER_CLASS_GROUPS for c in applicable_classes(p))
                    for p in self.plans
                ),
                "order_pairs_missing": sum(
                    1 for _, cls in missing if cls is not None and cls.group in ORDER_CLASS_GROUPS
                ),
                "result_pairs_applicable": sum(
                    len(applicable_result_classes(p)) for p in self.plans
                ),
                "result_pairs_missing": len(missing_results),
                "complete": not missing and not missing_results,
            },
        }

    def to_json(self, indent: int | None = 1) -> str:
        return json.dumps(self.as_dict(), indent=indent)

    @classmethod
    def from_json(cls, text: str, plans: Iterable[OperationPlan] | None = None) -> CoverageMatrix:
        """Rebuild a matrix; plans are looked up by description among *plans*."""
        data = json.loads(text)
        if data.get("format") != _FORMAT:
            raise ValueError(f"not a {_FORMAT} document")
        matrix = cls(plans)
        known = {p.describe(): p for p in (*matrix.plans, *resolvable_plans())}
        for row in data["plans"]:
            plan = known.get(row["plan"])
            if plan is None:
                raise ValueError(f"unknown plan {row['plan']!r}")
            matrix._row(plan)
            matrix._calls[plan] += row["calls"]
            matrix._hits[plan].update({Boundary[name]: n for name, n in row["hits"].items()})
            results = row.get("result_hits", {})
            matrix._results[plan].update({ResultClass[name]: n for name, n in results.items()})
        return matrix

    def to_markdown(self) -> str:
        """A summary table per plan, then the missing pairs by plan."""
        summary = self.as_dict()["summary"]
        lines = [
            "# Coverage: plan x input class, plan x result class",
            "",
            f"{summary['plans_exercised']} of {summary['plans']} plans exercised; "
            f"{summary['pairs_applicable'] - summary['pairs_missing']} of "
            f"{summary['pairs_applicable']} applicable (plan, input class) pairs (of them "
            f"{summary['shape_pairs_applicable'] - summary['shape_pairs_missing']} of "
            f"{summary['shape_pairs_applicable']} (plan, shape class) pairs and "
            f"{summary['order_pairs_applicable'] - summary['order_pairs_missing']} of "
            f"{summary['order_pairs_applicable']} (plan, order class) pairs) and "
            f"{summary['result_pairs_applicable'] - summary['result_pairs_missing']} of "
            f"{summary['result_pairs_applicable']} applicable (plan, result class) pairs hit.",
            "",
            "| plan | calls | input classes hit | result classes hit | missing |",
            "| --- | ---: | ---: | ---: | --- |",
        ]
        for plan in (*self.plans, *self._extra):
            applicable = applicable_classes(plan)
            hit = self._hits[plan]
            got = sum(1 for c in applicable if hit[c])
            results = _ordered(applicable_result_classes(plan))
            result_hit = self._results[plan]
            result_got = sum(1 for c in results if result_hit[c])
            if not self._calls[plan]:
                gaps = "**not exercised**"
            else:
                names = [c.name for c in Boundary if c in applicable and not hit[c]]
                names += [f"result {c.name}" for c in results if not result_hit[c]]
                gaps = ", ".join(names)
            marker = "" if plan not in self._extra else " (unexpected)"
            lines.append(
                f"| `{plan.describe()}`{marker} | {self._calls[plan]} | "
                f"{got}/{len(applicable)} | {result_got}/{len(results)} | {gaps or '-'} |"
            )
        lines += ["", "## Classes", "", "| class | group | description | plans hit |"]
        lines.append("| --- | --- | --- | ---: |")
        for cls_ in Boundary:
            applicable_plans = [p for p in self.plans if cls_ in applicable_classes(p)]
            if not applicable_plans:
                continue
            hit_plans = sum(1 for p in applicable_plans if self._hits[p][cls_])
            lines.append(
                f"| {cls_.name} | {cls_.group.name} | {cls_.description} | "
                f"{hit_plans}/{len(applicable_plans)} |"
            )
        lines += ["", "## Result classes", "", "| class | group | description | plans hit |"]
        lines.append("| --- | --- | --- | ---: |")
        for result in ResultClass:
            applicable_plans = [p for p in self.plans if result in applicable_result_classes(p)]
            if not applicable_plans:
                continue
            hit_plans = sum(1 for p in applicable_plans if self._results[p][result])
            lines.append(
                f"| {result.name} | {result.group.name} | {result.description} | "
                f"{hit_plans}/{len(applicable_plans)} |"
            )
        return "\n".join(lines) + "\n"

    def save(self, path: str | Path) -> Path:
        """Write the matrix as JSON (``.json``) or Markdown (anything else)."""
        path = Path(path)
        text = self.to_json() if path.suffix == ".json" else self.to_markdown()
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        return path

    def __repr__(self) -> str:
        exercised = sum(1 for p in self.plans if self._calls[p])
        return (
            f"<CoverageMatrix {exercised}/{len(self.plans)} plans exercised, "
            f"{sum(1 for _, c in self.missing() if c is not None)} missing input pairs, "
            f"{len(self.missing_results())} missing result pairs>"
        )


def _ordered(classes: frozenset[ResultClass]) -> list[ResultClass]:
    """*classes* in the order of the enumeration (reports list them so)."""
    return [c for c in ResultClass if c in classes]
