"""Hypothesis strategies of complete calls, generated from the registry.

:func:`calls` draws valid calls that select exactly a plan, :func:`invalid_calls`
calls with exactly one fault (``call.raises`` names what must be raised), and
:func:`boundary_examples` the deterministic calls that together hit every
applicable boundary class.  Each plan's family module
(:mod:`conformance.generate.families`) knows how its operations are called; the
building blocks they share are :mod:`conformance.generate.primitives`.
"""

from __future__ import annotations

import functools
from typing import Any

from hypothesis import strategies as st

from conformance.classes.applicability import applicable_classes
from conformance.classes.boundary import INT32_MAX, Boundary, plan_facts
from conformance.classes.witness_tables import arithmetic_witnesses
from conformance.generate.examples import boundary_examples as _boundary_examples
from conformance.generate.families import module_of
from conformance.generate.primitives import _make
from conformance.generate.validation import invalid_examples
from conformance.model.calls import Call, Family
from oracle import (
    DType,
    OperandRole,
    OperationPlan,
    Tensor,
)

__all__ = ["boundary_examples", "calls", "invalid_calls"]

B = Boundary
I32 = DType.Int32


@functools.cache
def calls(plan: OperationPlan) -> st.SearchStrategy[Call]:
    """Valid calls whose arguments select exactly *plan* (cached per plan)."""
    return module_of(plan_facts(plan).family).valid_calls(plan)


# ---------------------------------------------------------------------------
# Invalid calls
# ---------------------------------------------------------------------------


@st.composite
def _int32_overflow(draw: Any, plan: OperationPlan) -> Call:
    """An Int32 call with one overflowing element among ordinary ones."""
    facts = plan_facts(plan)
    if facts.family is Family.ELEMENTWISE:
        witnesses = arithmetic_witnesses(plan)[B.INT32_RESULT_OVERFLOW]
        row = draw(st.sampled_from(witnesses))
        count = draw(st.integers(0, 3))
        where = draw(st.integers(0, count))
        operands = []
        for position, operand in enumerate(plan.operands):
            if operand.role is OperandRole.WEAK_SCALAR:
                operands.append(row[position])
                continue
            others = draw(st.lists(st.integers(0, 1), min_size=count, max_size=count))
            values = [*others[:where], row[position], *others[where:]]
            operands.append(Tensor(I32, (len(values),), tuple(values)))
        return _make(plan, operands, raises=(OverflowError,), note="an Int32 result overflows")
    smalls = draw(st.lists(st.integers(0, 1000), max_size=3))
    terms = [INT32_MAX, *smalls, 1]
    if facts.family is Family.REDUCE:
        x = Tensor(I32, (len(terms),), tuple(terms))
        return _make(
            plan,
            [x],
            {"axis": None, "keepdims": False},
            raises=(OverflowError,),
            note="the final Int32 sum overflows",
        )
    a = Tensor(I32, (1, len(terms)), tuple(terms))
    b = Tensor(I32, (len(terms), 1), (1,) * len(terms))
    return _make(plan, [a, b], raises=(OverflowError,), note="the final Int32 sum overflows")


@functools.cache
def invalid_calls(plan: OperationPlan) -> st.SearchStrategy[Call]:
    """Calls of *plan* with exactly one fault; ``call.raises`` names what must be raised.

    ``st.nothing()`` (``.is_empty``) when the plan has no value-level error path
    (a one-tensor elementwise Float32 plan, say).
    """
    facts = plan_facts(plan)
    family = facts.family
    options: list[st.SearchStrategy[Call]] = []
    if B.INT32_RESULT_OVERFLOW in applicable_classes(plan):
        options.append(_int32_overflow(plan))
    structural = module_of(family).invalid_calls(plan)
    if structural is not None:
        options.append(structural)
    rules = invalid_examples(plan)
    if rules:
        options.append(st.sampled_from(rules))
    return st.one_of(options) if options else st.nothing()


# ---------------------------------------------------------------------------
# Constructive boundary examples (conformance.generate.examples)
# ---------------------------------------------------------------------------


def boundary_examples(plan: OperationPlan) -> list[Call]:
    """Deterministic calls that together hit every applicable class of *plan*
    (:mod:`conformance.generate.examples`)."""
    return _boundary_examples(plan)
