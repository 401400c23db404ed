"""Calls that reach the result classes of the plans that are not unary.

The unary plans get their witnesses from a search over their whole input
space (:mod:`conformance.generate.witnesses`).  Every other plan gets calls built
here, by :func:`examples`:

* an elementwise plan with binary32 arithmetic: the *palette search*, one
  broadcasting call over every combination of special operand values
  (:data:`FLOAT_PALETTE`, :data:`INT_PALETTE`, both Bools) per operand, one
  call per combination of weak values;
* an elementwise plan with Int32 arithmetic: the constructive operand pairs of
  :func:`conformance.classes.witness_tables.arithmetic_witnesses` (results at and one
  past the Int32 range), one call each (an overflow fails the whole call);
* the other families: *structural examples*, groups of terms placed in one
  call of the family by its ``embed_group`` hook (the reduced axis, one row of
  a matmul whose other operand is all ones, a 1-d convolution window, the
  updates of scatter_add): extremum ties ``[-0, -0]``, ``[-0, -1]``, ``[+0, +0]``,
  ``[+0, 1]``, ``[2, 2]``; special results ``[MAX, MAX]``, ``[inf, -inf]``,
  ``[MAX, 2]``, ``[0, inf]``; the order-dependent sum ``[2**60, 1, -2**60]``;
  the Int32 sums at and one past the range; and one call whose results are the
  palette values themselves (the family's ``pass_through`` hook).

Every call carries the plan's accumulator dtype when the default call would
select another plan, and only calls that select the plan are returned.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

from conformance.classes.witness_tables import (
    arithmetic_witnesses,
)
from conformance.generate.families import module_of
from conformance.generate.rule_operands import tensor_dtype
from conformance.model.calls import Call, Family, family_of, forward_arguments
from oracle import Accumulation, Arithmetic, DType, OperandRole, OperationPlan, Tensor, binary32
from oracle.dtypes import INT32_MAX, INT32_MIN

__all__ = ["FLOAT_PALETTE", "INT_PALETTE", "examples", "plan_call"]

F32, I32, BOOL = DType.Float32, DType.Int32, DType.Bool
_MAX, _MIN_SUB = binary32.MAX_FINITE, binary32.MIN_SUBNORMAL
_MAX_SUB, _MIN_NORMAL = binary32.from_bits(0x007FFFFF), binary32.MIN_NORMAL
_INF = math.inf


#: Float32 operand values of the palette search, the most telling first
FLOAT_PALETTE: tuple[float, ...] = (
    0.0, -0.0, _MIN_SUB, -_MIN_SUB, _MAX_SUB, _MIN_NORMAL, _MAX, -_MAX, _INF, -_INF,
    1.0, -1.0, 2.0, 0.5, 1.5, -_MAX_SUB, -_MIN_NORMAL, -2.0, 3.0, -1.5, -149.0, -126.0,
)  # fmt: skip
INT_PALETTE: tuple[int, ...] = (
    0, 1, -1, 2, -2, 3, 2**24 + 1, -(2**24) - 1, INT32_MAX, INT32_MIN, -149, -126,
)  # fmt: skip
#: at most this many elements in one palette call, and this many calls per plan
_PALETTE_ELEMENTS = 4096
_WEAK_COMBINATIONS = 64


def plan_call(plan: OperationPlan, arguments: Sequence[Any], note: str) -> Call | None:
    """A call of *plan* (with its accumulator dtype when the default plan differs), or None."""
    call = Call(plan.operation, tuple(arguments), None, plan, note=note)
    if call.resolve() == plan:
        return call
    if plan.accumulator_dtype is not None:
        call = Call(plan.operation, tuple(arguments), plan.accumulator_dtype, plan, note=note)
        if call.resolve() == plan:
            return call
    return None


def _palette(operand: Any, count: int) -> tuple[Any, ...]:
    if operand.convert_to is F32 and operand.dtype in (F32, None):
        return FLOAT_PALETTE[:count]
    if operand.dtype is BOOL:
        return (False, True)
    return INT_PALETTE[:count]


def _palette_calls(plan: OperationPlan) -> list[Call]:
    """One broadcasting call per combination of weak values, over the palettes.

    The palettes are cut (most telling values first) so that a call has at most
    4096 elements and a plan at most 64 calls.
    """
    tensors = [i for i, o in enumerate(plan.operands) if o.role is OperandRole.TENSOR]
    weak = [i for i, o in enumerate(plan.operands) if o.role is OperandRole.WEAK_SCALAR]
    per = len(FLOAT_PALETTE)
    while per ** max(len(tensors), 1) > _PALETTE_ELEMENTS:
        per -= 1
    per_weak = len(FLOAT_PALETTE)
    while per_weak ** len(weak) > _WEAK_COMBINATIONS:
        per_weak -= 1
    calls = []
    weak_palettes = [_palette(plan.operands[i], per_weak) for i in weak]
    for weak_values in itertools.product(*weak_palettes):
        operands: list[Any] = [None] * len(plan.operands)
        for i, value in zip(weak, weak_values):
            operands[i] = value
        for axis, i in enumerate(tensors):
            values = _palette(plan.operands[i], per)
            shape = tuple(len(values) if a == axis else 1 for a in range(len(tensors)))
            operands[i] = Tensor(tensor_dtype(plan.operands[i]), shape, values)
        note = "result-class palette search: every combination of special operand values"
        call = plan_call(plan, forward_arguments(plan.operation, operands), note)
        if call is not None:
            calls.append(call)
    return calls


def _int32_pair_calls(plan: OperationPlan) -> list[Call]:

    calls = []
    for cls, tuples in arithmetic_witnesses(plan).items():
        for values in tuples:
            operands = [
                Tensor(tensor_dtype(o), (), (v,)) if o.role is OperandRole.TENSOR else v
                for o, v in zip(plan.operands, values)
            ]
            note = f"Int32 result at or one past the range ({cls.name} operands)"
            call = plan_call(plan, forward_arguments(plan.operation, operands), note)
            if call is not None:
                calls.append(call)
    return calls


# -- structural examples of the other families -----------------------------------

_EXTREMUM_GROUPS = ([-0.0, -0.0], [-0.0, -1.0], [0.0, 0.0], [0.0, 1.0], [2.0, 2.0], [-3.0, -3.0])
_SPECIAL_GROUPS = ([_MAX, _MAX], [_INF, -_INF], [_MAX, 2.0], [0.0, _INF])
_ORDER_GROUPS = ([2.0**60, 1.0, -(2.0**60)],)
_INT32_GROUPS = (
    [INT32_MAX - 1, 1],
    [INT32_MAX, 1],
    [INT32_MIN + 1, -1],
    [INT32_MIN, -1],
)


def _pass_through(plan: OperationPlan) -> Call | None:
    """A call whose results are the palette values themselves (the family's
    ``pass_through`` hook; None where the plan has no Float32 result or operand)."""
    if plan.output is not F32 or all(o.dtype is not F32 for o in plan.operands):
        return None
    note = "result class: the special Float32 values passed through to the result"
    return module_of(family_of(plan.operation)).pass_through(plan, FLOAT_PALETTE, note)


def _structural_calls(plan: OperationPlan) -> list[Call]:
    groups: list[tuple[str, Sequence[Any]]] = []
    if plan.accumulation in (
        Accumulation.MAXIMUM, Accumulation.MINIMUM, Accumulation.ARGMAX, Accumulation.ARGMIN,
    ):  # fmt: skip
        groups += [("extremum ties and signed-zero extrema", g) for g in _EXTREMUM_GROUPS]
    if plan.accumulation in (
        Accumulation.FLOATING,
        Accumulation.SEQUENTIAL_BINARY32,
        Accumulation.SEQUENTIAL_BINARY32_PRODUCT,
    ):
        groups += [("inf or NaN from finite or non-NaN terms", g) for g in _SPECIAL_GROUPS]
    if plan.accumulation is Accumulation.FLOATING:
        groups += [("a sum whose value depends on the order", g) for g in _ORDER_GROUPS]
    if plan.accumulation is Accumulation.EXACT_INTEGER:
        groups += [("an Int32 sum at or one past the range", g) for g in _INT32_GROUPS]
    module = module_of(family_of(plan.operation))
    options = {"k": None, "largest": True, "descending": False}
    calls = [
        module.embed_group(plan, list(group), f"result class: {why}", options)
        for why, group in groups
    ]
    calls.append(_pass_through(plan))
    return [c for c in calls if c is not None]


def examples(plan: OperationPlan) -> list[Call]:
    """The result-class calls of a plan that is not unary (see the module docstring)."""
    if family_of(plan.operation) is Family.ELEMENTWISE:
        if plan.compute is not Arithmetic.BINARY32:
            return _int32_pair_calls(plan)
        return _palette_calls(plan)
    return _structural_calls(plan)
