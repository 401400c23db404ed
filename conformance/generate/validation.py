"""The validation rules of the reference semantics, each broken by one deterministic call.

``shared/spec/reference-semantics.md`` states which arguments an operation
refuses: shapes that do not broadcast, axes out of range, named twice or of
the wrong type, ``k`` that is not an int or lies outside ``[0, n]``, extrema
of an empty group, matmul operands whose inner dimensions differ, conv
geometry (channels, groups, strides and dilations below 1, padding that
leaves a negative extent, parameter tuples of the wrong length), indices
outside ``[0, n)``, duplicate scatter indices, updates of the wrong shape.
:data:`RULES` lists them per family; :func:`invalid_examples` builds, for a
plan, one small call per applicable rule.

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
import math
from collections.abc import Callable, Iterator
from typing import Any

from conformance.generate.primitives import accumulator_choices
from conformance.model.calls import Call, Family, family_of, forward_arguments
from oracle import DType, OperationPlan, Tensor, expected
from oracle.planner import OperandRole

__all__ = ["RULES", "invalid_examples", "rules_of"]

F32, I32, BOOL = DType.Float32, DType.Int32, DType.Bool

#: one faulty call: (rule name, operands, parameters)
Fault = tuple[str, list[Any], dict[str, Any]]


def _tensor(dtype: DType, shape: tuple[int, ...]) -> Tensor:
    """A tensor of *shape* with small distinct ordinary values (1, 2, 3, ...)."""
    size = math.prod(shape)
    if dtype is BOOL:
        values: tuple[Any, ...] = tuple(i % 2 == 0 for i in range(size))
    elif dtype is I32:
        values = tuple(range(1, size + 1))
    else:
        values = tuple(float(i) for i in range(1, size + 1))
    return Tensor(dtype, shape, values)


def _weak_value(plan: OperationPlan, position: int) -> Any:
    """An ordinary weak scalar for *position* (its kind read from the plan)."""
    kind = plan.operands[position].dtype
    name = getattr(kind, "name", str(kind)).lower()
    if "bool" in name:
        return True
    if "int" in name:
        return 1
    return 1.0


def _operands(plan: OperationPlan, shapes: dict[int, tuple[int, ...]]) -> list[Any]:
    """The plan's operands: tensors of the given *shapes*, ordinary weak scalars."""
    operands: list[Any] = []
    for position, operand in enumerate(plan.operands):
        if operand.role is OperandRole.WEAK_SCALAR:
            operands.append(_weak_value(plan, position))
        else:
            operands.append(_tensor(operand.dtype, shapes.get(position, (2,))))
    return operands


def _tensor_positions(plan: OperationPlan) -> list[int]:
    return [i for i, o in enumerate(plan.operands) if o.role is OperandRole.TENSOR]


# -- the rules, per family ----------------------------------------------------------


def _elementwise(plan: OperationPlan) -> Iterator[Fault]:
    positions = _tensor_positions(plan)
    if len(positions) >= 2:
        for position in positions:
            shapes = {p: (2,) for p in positions}
            shapes[position] = (3,)
            yield (
                f"shapes do not broadcast (operand {position} is (3,), the others (2,))",
                _operands(plan, shapes),
                {},
            )


_BAD_AXIS_TYPES: tuple[Any, ...] = (1.0, True, [0], "0")


def _axis_faults(plan: OperationPlan, extra: dict[str, Any], tuples: bool) -> Iterator[Fault]:
    x = _operands(plan, {0: (2, 3)})
    for axis in (2, -3):
        yield f"axis {axis} out of range for 2 dimensions", x, {"axis": axis, **extra}
    for axis in _BAD_AXIS_TYPES:
        yield f"axis {axis!r} is not an int", x, {"axis": axis, **extra}
    if tuples:
        yield "axis (0, -2) names one dimension twice", x, {"axis": (0, -2), **extra}
        yield "axis (0, 2) has a member out of range", x, {"axis": (0, 2), **extra}
        yield "axis (0, 1.0) has a member that is not an int", x, {"axis": (0, 1.0), **extra}
    else:
        yield "a tuple axis where one int is required", x, {"axis": (0,), **extra}


def _empty_group(plan: OperationPlan, extra: dict[str, Any]) -> Iterator[Fault]:
    empty = _operands(plan, {0: (0, 3)})
    yield "an extremum over an empty group (axis None)", empty, {"axis": None, **extra}
    yield "an extremum over an empty group (axis 0)", empty, {"axis": 0, **extra}


def _reduce(plan: OperationPlan) -> Iterator[Fault]:
    yield from _axis_faults(plan, {"keepdims": False}, tuples=True)
    x = _operands(plan, {0: (2, 3)})
    yield "keepdims is not a bool", x, {"axis": None, "keepdims": 1}
    if plan.operation in ("reduce_max", "reduce_min"):
        yield from _empty_group(plan, {"keepdims": False})


def _arg(plan: OperationPlan) -> Iterator[Fault]:
    yield from _axis_faults(plan, {}, tuples=False)
    yield from _empty_group(plan, {})


def _scan(plan: OperationPlan) -> Iterator[Fault]:
    yield from _axis_faults(plan, {}, tuples=False)
    yield "axis None where an int is required", _operands(plan, {0: (2, 3)}), {"axis": None}


def _sort(plan: OperationPlan) -> Iterator[Fault]:
    yield from _axis_faults(plan, {"descending": False}, tuples=False)
    x = _operands(plan, {0: (2, 3)})
    yield "descending is not a bool", x, {"axis": -1, "descending": 1}


def _topk(plan: OperationPlan) -> Iterator[Fault]:
    yield from _axis_faults(plan, {"k": 1, "largest": True}, tuples=False)
    x = _operands(plan, {0: (2, 3)})
    for k, why in ((None, "k is None"), (1.0, "k is a float"), (True, "k is a bool"),
                   (-1, "k = -1 is below 0"), (4, "k = 4 exceeds the extent 3")):  # fmt: skip
        yield why, x, {"k": k, "axis": -1, "largest": True}
    yield "largest is not a bool", x, {"k": 1, "axis": -1, "largest": 1}


def _matmul(plan: OperationPlan) -> Iterator[Fault]:
    yield "inner dimensions 3 and 4 differ", _operands(plan, {0: (2, 3), 1: (4, 2)}), {}
    yield "a rank-1 left operand", _operands(plan, {0: (3,), 1: (3, 2)}), {}
    yield "a rank-3 right operand", _operands(plan, {0: (2, 3), 1: (1, 3, 2)}), {}


#: a valid one-dimensional convolution the conv rules break one argument at a time
_CONV = {
    "window_strides": (1,),
    "padding": ((0, 0),),
    "lhs_dilation": (1,),
    "rhs_dilation": (1,),
    "feature_group_count": 1,
}


def _conv(plan: OperationPlan) -> Iterator[Fault]:
    good = _operands(plan, {0: (1, 2, 3), 1: (2, 2, 2)})

    def changed(why: str, **change: Any) -> Fault:
        return why, good, {**_CONV, **change}

    yield "lhs channels 3, rhs expects 2", _operands(plan, {0: (1, 3, 3), 1: (2, 2, 2)}), _CONV
    yield "lhs and rhs ranks differ", _operands(plan, {0: (1, 2, 3), 1: (2, 2, 2, 2)}), _CONV
    yield "an operand of rank below 3", _operands(plan, {0: (2, 3), 1: (2, 2, 2)}), _CONV
    yield changed("padding (-2, -2) leaves a negative extent", padding=((-2, -2),))
    yield changed("padding (-4, 0) leaves a negative extent", padding=((-4, 0),))
    yield changed("window stride 0", window_strides=(0,))
    yield changed("lhs dilation 0", lhs_dilation=(0,))
    yield changed("rhs dilation 0", rhs_dilation=(0,))
    yield changed("feature_group_count 0", feature_group_count=0)
    yield changed("feature_group_count 3 divides no channel count", feature_group_count=3)
    yield changed("two padding pairs for one spatial dimension", padding=((0, 0), (0, 0)))
    yield changed("two strides for one spatial dimension", window_strides=(1, 1))
    yield changed("a padding pair that is not a pair", padding=((0,),))
    yield changed("a padding bound that is not an int", padding=((0.5, 0),))


def _indexed(plan: OperationPlan) -> Iterator[Fault]:
    family = family_of(plan.operation)
    positions = _tensor_positions(plan)

    def call(values: tuple[int, ...], axis: int = 0, updates: int | None = None) -> list[Any]:
        operands = _operands(plan, {positions[0]: (3, 2)})
        operands[positions[1]] = Tensor(I32, (len(values),), values)
        if family is not Family.GATHER:
            rows = len(values) if updates is None else updates
            operands[positions[2]] = _tensor(plan.operands[positions[2]].dtype, (rows, 2))
        return operands

    yield "index 3 out of range [0, 3)", call((0, 3)), {"axis": 0}
    yield "index -1 (negative indices are out of range)", call((-1, 1)), {"axis": 0}
    yield "axis 2 out of range for 2 dimensions", call((0, 1)), {"axis": 2}
    yield "axis 1.0 is not an int", call((0, 1)), {"axis": 1.0}
    if family is not Family.GATHER:
        yield "updates have 3 rows for 2 indices", call((0, 1), updates=3), {"axis": 0}
    if family is Family.SCATTER:
        yield "duplicate scatter indices", call((1, 1)), {"axis": 0}


#: family -> the faulty calls of its validation rules
RULES: dict[Family, Callable[[OperationPlan], Iterator[Fault]]] = {
    Family.ELEMENTWISE: _elementwise,
    Family.REDUCE: _reduce,
    Family.ARG: _arg,
    Family.SCAN: _scan,
    Family.SORT: _sort,
    Family.TOPK: _topk,
    Family.MATMUL: _matmul,
    Family.CONV: _conv,
    Family.GATHER: _indexed,
    Family.SCATTER: _indexed,
    Family.SCATTER_ADD: _indexed,
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
