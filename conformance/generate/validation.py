"""The validation rules of the reference semantics, each broken by one deterministic call.

``shared/spec/reference-semantics.md`` states which arguments an operation
refuses: shapes that do not broadcast, axes out of range, named twice or of
the wrong type, ``k`` that is not an int or lies outside ``[0, n]``, extrema
of an empty group, matmul operands whose inner dimensions differ, conv
geometry (channels, groups, strides and dilations below 1, padding that
leaves a negative extent, parameter tuples of the wrong length), indices
outside ``[0, n)``, duplicate scatter indices, updates of the wrong shape.
Each family module states its family's rules as faulty calls (its
``validation_rules`` hook, built from :mod:`conformance.generate.rule_operands`);
:data:`RULES` maps every family to that hook, and :func:`invalid_examples` builds,
for a plan, one small call per applicable rule.

Which exception a call must raise is *not* written here: each call's
``raises`` is the type of the oracle's ``expected(...).error`` for it, so a
rule can never disagree with the oracle.  A rule whose call the oracle
accepts is a mistake of this table, and ``tests/test_validation.py`` fails on
it; at run time such a call is still judged, as the valid call it is.

The suite judges these calls at the start of the invalid-call check
(:func:`conformance.suite.check_invalid`), before the hypothesis search, so a
backend that misses a rule is caught deterministically, whatever the search
draws.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

from conformance.generate.families import module_of
from conformance.generate.primitives import accumulator_choices
from conformance.generate.rule_operands import Fault
from conformance.model.calls import Call, Family, family_of, forward_arguments
from oracle import OperationPlan, expected

__all__ = ["RULES", "invalid_examples", "rules_of"]


#: family -> the faulty calls of its validation rules (each family module's
#: ``validation_rules`` hook)
RULES: dict[Family, Callable[[OperationPlan], Iterator[Fault]]] = {
    family: module_of(family).validation_rules for family in Family
}


def rules_of(plan: OperationPlan) -> list[str]:
    """The names of the validation rules that apply to *plan*, in order."""
    return [name for name, _, _ in RULES[family_of(plan.operation)](plan)]


@functools.cache
def _examples(plan: OperationPlan) -> tuple[Call, ...]:
    calls = []
    for name, operands, parameters in RULES[family_of(plan.operation)](plan):
        args = forward_arguments(plan.operation, operands, parameters)
        accumulator = accumulator_choices(plan)[0]
        error = expected(plan.operation, *args, accumulator_dtype=accumulator).error
        raises = () if error is None else (type(error),)
        calls.append(Call(plan.operation, args, accumulator, plan, raises, f"rule: {name}"))
    return tuple(calls)


def invalid_examples(plan: OperationPlan) -> list[Call]:
    """One call of *plan* per validation rule of its family; ``raises`` is the type
    of the oracle's error for it (empty only where this table is wrong)."""
    return list(_examples(plan))
