"""Per-family conformance knowledge: one module per family of operations.

Each module serves the :class:`~conformance.model.calls.Family` members in its
``FAMILIES`` and implements one protocol (:class:`FamilyModule`):

``valid_calls(plan)``
    a hypothesis strategy of valid calls that select exactly *plan*;
``invalid_calls(plan)``
    a strategy of calls with one structural fault, or None;
``structural_examples(plan, facts, tensor)``
    deterministic calls of the family's shapes, parameters and error paths
    (part of :func:`conformance.generate.strategies.boundary_examples`);
``embed_group(plan, group, note, options)``
    a call in which *group* is one reduction group, sorted row, product
    sequence or scatter target (None where the family has no group or the
    values do not fit); *options* holds ``k``, ``largest``, ``descending``;
``pass_through(plan, values, note)``
    a call of *plan* whose results are the Float32 *values* themselves (the
    result-class examples, :mod:`conformance.generate.result_examples`), or None
    where the family cannot pass values through;
``shape_examples(plan, facts)``
    deterministic calls that hit the plan's shape classes (lengths, ranks,
    axes, layouts, lanes: docs/shape-classes.md) with order-sensitive values
    (:mod:`conformance.generate.order_values`);
``measure(call, facts, operands, parameters, hits)``
    add the input classes (:class:`~conformance.classes.boundary.Boundary`) *call*
    hits to *hits*; raise :class:`~conformance.generate.families.measures.Invalid`
    after recording the error class of a structure the reference refuses.

``validation_rules(plan)``
    the family's validation rules as faulty calls, (rule name, operands,
    parameters) triples built from :mod:`conformance.generate.rule_operands`;
    :mod:`conformance.generate.validation` makes one call of each, its
    ``raises`` decided by the oracle.

The result classes a call's expected value hits are measured per group of
classes, not per family (:mod:`conformance.classes.result`).

The cut: :mod:`.elementwise`; :mod:`.reduction` (reduce, arg, scan, sort,
topk: one axis of one tensor); :mod:`.matmul`; :mod:`.conv`; :mod:`.indexed`
(gather, scatter, scatter_add).  :func:`classes_hit` dispatches a call to its
family after the family-independent value classes; what every family shares
(rounding, sums, products, extrema, orders) is in :mod:`.measures`.
:mod:`conformance.classes.boundary` keeps the catalogue of classes and their
applicability.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from types import ModuleType
from typing import Any, Protocol

from conformance.classes.boundary import (
    F32,
    I32,
    B,
    Boundary,
    PlanFacts,
    plan_facts,
)
from conformance.classes.witness_tables import (
    weak_classes_of,
)
from conformance.generate.families import conv, elementwise, indexed, matmul, reduction
from conformance.generate.families.measures import Invalid, _float_value_classes, _int_value_classes
from conformance.model.calls import Call, Family
from oracle import OperationPlan, Tensor

__all__ = ["MODULES", "FamilyModule", "classes_hit", "classes_of_calls", "module_of"]


class FamilyModule(Protocol):
    """What a family module provides."""

    FAMILIES: frozenset[Family]

    def valid_calls(self, plan: OperationPlan) -> Any: ...

    def invalid_calls(self, plan: OperationPlan) -> Any: ...

    def structural_examples(
        self, plan: OperationPlan, facts: PlanFacts, tensor: Callable[..., Tensor]
    ) -> list[Call]: ...

    def embed_group(
        self, plan: OperationPlan, group: list[Any], note: str, options: dict
    ) -> Call | None: ...

    def pass_through(
        self, plan: OperationPlan, values: Sequence[float], note: str
    ) -> Call | None: ...

    def shape_examples(self, plan: OperationPlan, facts: PlanFacts) -> list[Call]: ...

    def validation_rules(self, plan: OperationPlan) -> Iterator[Any]: ...

    def measure(
        self, call: Call, facts: PlanFacts, operands: Sequence[Any], parameters: dict, hits: set
    ) -> None: ...


#: the family modules, in the order of the cut
MODULES: tuple[ModuleType, ...] = (elementwise, reduction, matmul, conv, indexed)
_BY_FAMILY: dict[Family, ModuleType] = {f: m for m in MODULES for f in m.FAMILIES}


def module_of(family: Family) -> ModuleType:
    """The module that serves *family* (every Family member has one)."""
    return _BY_FAMILY[family]


def classes_hit(call: Call) -> frozenset[Boundary]:
    """The boundary classes *call* hits, measured from its actual values (cached
    on the call: a Call is immutable)."""
    cached = call._cache.get("classes")
    if cached is None:
        cached = call._cache["classes"] = _measure(call)
    return cached


def _measure(call: Call) -> frozenset[Boundary]:
    facts = plan_facts(call.plan)
    plan = call.plan
    operands, parameters = call.operands, call.parameters
    hits: set[Boundary] = set()
    tensors = [(i, o) for i, o in enumerate(operands) if isinstance(o, Tensor)]
    for position, tensor in tensors:
        if tensor.ndim == 0:
            hits.add(B.SHAPE_SCALAR)
        if tensor.size == 0:
            hits.add(B.SHAPE_EMPTY)
        operand_plan = plan.operands[position] if position < len(plan.operands) else None
        if tensor.dtype is F32:
            _float_value_classes(tensor.values, hits)
        elif tensor.dtype is I32 and position not in facts.index_positions:
            converted = operand_plan is not None and operand_plan.convert_to is F32
            _int_value_classes(tensor.values, converted, hits)
    for position in facts.weak_positions:
        if position < len(operands):
            hits |= weak_classes_of(operands[position], plan.operands[position].convert_to)
    # an invalid structure: its error class is recorded, nothing else follows
    with contextlib.suppress(Invalid):
        module_of(facts.family).measure(call, facts, operands, parameters, hits)
    return frozenset(hits)


def classes_of_calls(calls: Iterable[Call]) -> frozenset[Boundary]:
    """The union of the classes a collection of calls hits."""
    result: set[Boundary] = set()
    for call in calls:
        result |= classes_hit(call)
    return frozenset(result)
