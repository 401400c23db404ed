"""Hypothesis strategies of complete calls, generated from the registry.

For any :class:`~oracle.OperationPlan` of :func:`oracle.resolvable_plans`:

* :func:`calls` draws valid :class:`~conformance.calls.Call` values whose
  arguments re-resolve to exactly that plan: tensor operands of the plan's
  source dtypes, weak scalars that select that plan (found by resolving
  candidates of every weak class through the central planner), shapes (0-d,
  empty, broadcasting pairs for the broadcasting operations) and the
  operation's non-dtype parameters, valid by construction;
* :func:`invalid_calls` draws calls that must raise (mismatched shapes, bad
  axes, out-of-range or negative indices, duplicate scatter indices, empty
  extrema, Int32 overflow), each with exactly one fault and the exception
  types it must raise in ``Call.raises``;
* :func:`boundary_examples` builds, deterministically, a list of calls that
  together hit every class of :func:`~conformance.boundaries.applicable_classes`
  for the plan (for ``@example`` use, so an unlucky search does not matter).

Everything is derived from the plan, the OperationSpec and the family table
of :mod:`conformance.calls`; Float32 elements mix the special bit patterns of
:mod:`conformance.boundaries` with ordinary values, Int32 elements mix values
near +-2**31 with small ones, and tensors are often filled from a small pool
of values and their negations so that ties, signed-zero pairs and
cancellations are common.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

from oracle import (
    SUPPORTED_ACCUMULATOR_DTYPES,
    Accumulation,
    DType,
    OperandRole,
    OperationPlan,
    Tensor,
    binary32,
    resolve_operation_plan,
)

from . import boundaries
from .boundaries import (
    INT32_MAX,
    INT32_MIN,
    MAX_FINITE,
    MIN_SUBNORMAL,
    SPECIAL_FLOAT_BITS,
    Boundary,
    applicable_classes,
    plan_facts,
)
from .calls import Call, Family, forward_arguments, parameters_of
from .witness_tables import (
    arithmetic_witnesses,
    weak_class_values,
    weak_representatives,
)

__all__ = [
    "EXTREMUM_GROUPS",
    "INT32_SUM_GROUPS",
    "ORDER_GROUPS",
    "PRODUCT_GROUPS",
    "SPECIAL_FLOATS",
    "SPECIAL_INT32S",
    "SUM_GROUPS",
    "accumulator_choices",
    "boundary_examples",
    "calls",
    "float32_elements",
    "int32_elements",
    "invalid_calls",
    "weak_scalars",
]

F32, I32, BOOL = DType.Float32, DType.Int32, DType.Bool
B = Boundary
_AXIS_ERRORS: tuple[type[BaseException], ...] = (ValueError, IndexError)
_NAN = binary32.from_bits(0x7FC00000)
_NAN_PAYLOAD = binary32.from_bits(0x7FC00001)
_NAN_NEGATIVE = binary32.from_bits(0xFFD2A4C6)
_INF = math.inf

# ---------------------------------------------------------------------------
# Elements
# ---------------------------------------------------------------------------

#: Every special Float32 value (from the bit patterns) plus ordinary anchors; 12.5 lies
#: where softplus(x) - x (about e**-x) is still several ULPs of x, so a linear tail
#: taken too early shows.
SPECIAL_FLOATS: tuple[float, ...] = (
    *(binary32.from_bits(b) for patterns in SPECIAL_FLOAT_BITS.values() for b in patterns),
    *(1.0, -1.0, 0.5, 2.0, 3.0, 12.5, 2.0**24, 2.0**24 + 2, 2.0**-24, 1.0 + 2.0**-23, 2.0**103),
)
#: Int32 values at and near the range limits, conversion ties and overflow seeds.
SPECIAL_INT32S: tuple[int, ...] = (
    0, 1, -1, 2, INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1, 2**30, -(2**30),
    46341, 65536, -65536, 2**24 + 1, -(2**24 + 1), 2**25 + 1, 2**24, 3, -715827883,
)  # fmt: skip


@functools.cache
def float32_elements() -> st.SearchStrategy[float]:
    """Float32 values: the special patterns mixed with ordinary and random-bit values."""
    return st.one_of(
        st.sampled_from(SPECIAL_FLOATS),
        st.floats(width=32),
        st.integers(-16, 16).map(float),
        st.integers(0, 2**32 - 1).map(binary32.from_bits),
    )


@functools.cache
def int32_elements() -> st.SearchStrategy[int]:
    """Int32 values: small, near +-2**31 and anywhere in the range."""
    return st.one_of(
        st.integers(-8, 8),
        st.sampled_from(SPECIAL_INT32S),
        st.integers(INT32_MIN, INT32_MAX),
    )


def _elements(dtype: Any) -> st.SearchStrategy[Any]:
    if dtype is F32:
        return float32_elements()
    if dtype is I32:
        return int32_elements()
    return st.booleans()


def _negated(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return -value if INT32_MIN < value <= INT32_MAX else value
    return -value


def _from_pool(drawn: tuple[list[Any], list[int]]) -> tuple[Any, ...]:
    pool, picks = drawn
    full = pool + [_negated(v) for v in pool]
    return tuple(full[k % len(full)] for k in picks)


@functools.cache
def _values(dtype: Any, count: int) -> st.SearchStrategy[tuple[Any, ...]]:
    """*count* elements: independent, or from a small pool and its negations."""
    if count == 0:
        return st.just(())
    independent = st.lists(_elements(dtype), min_size=count, max_size=count).map(tuple)
    pooled = st.tuples(
        st.lists(_elements(dtype), min_size=1, max_size=3),
        st.lists(st.integers(0, 5), min_size=count, max_size=count),
    ).map(_from_pool)
    return st.one_of(independent, pooled)


@functools.cache
def _tensor(dtype: Any, shape: tuple[int, ...]) -> st.SearchStrategy[Tensor]:
    return _values(dtype, math.prod(shape)).map(lambda vs: Tensor(dtype, shape, vs))


# ---------------------------------------------------------------------------
# Weak scalars
# ---------------------------------------------------------------------------

_TIE_INTEGERS = st.integers(0, 2**23 - 1).map(lambda k: 2**24 + 2 * k + 1)


@st.composite
def _double_rounding_integers(draw: Any) -> int:
    """n = m 2**(e-24) + d: m odd (a binary32 midpoint at scale 2**e), 0 < |d| below
    half the binary64 spacing, so float64 rounds n onto the midpoint and binary32
    rounds that midpoint to even, which differs from rounding n once whenever the
    direction of d disagrees with ties-to-even."""
    e = draw(st.integers(54, 127))
    m = 2**24 + 2 * draw(st.integers(0, 2**23 - 1)) + 1
    half_binary64 = 2 ** (e - 53)
    d = draw(st.integers(1, half_binary64 - 1))
    even_below = (m // 2) % 2 == 0  # ties-to-even goes down: exact must lie above
    return m * 2 ** (e - 24) + (d if even_below else -d)


_DOUBLE_ROUNDING_INTEGERS = _double_rounding_integers()
#: A strategy per weak class; :func:`weak_scalars` keeps the classes whose
#: representatives select the plan and filters the values through the planner.
WEAK_STRATEGIES: dict[Boundary, st.SearchStrategy[Any]] = {
    B.WEAK_NONNEGATIVE_INT: st.one_of(st.integers(0, 16), st.integers(0, INT32_MAX - 1)),
    B.WEAK_NEGATIVE_INT: st.one_of(st.integers(-16, -1), st.integers(INT32_MIN + 1, -1)),
    B.WEAK_INT32_MAX: st.just(INT32_MAX),
    B.WEAK_INT32_MIN: st.just(INT32_MIN),
    B.WEAK_TWO_POW_31: st.just(2**31),
    B.WEAK_BELOW_INT32_MIN: st.just(INT32_MIN - 1),
    B.WEAK_FAR_OUTSIDE_INT32: st.one_of(
        st.integers(2**31 + 1, 2**200), st.integers(-(2**200), INT32_MIN - 2)
    ),
    B.WEAK_BOOL: st.booleans(),
    B.WEAK_FLOAT: st.floats(),
    B.WEAK_FLOAT_SPECIAL: st.sampled_from((math.nan, -math.nan, _INF, -_INF, 0.0, -0.0)),
    B.WEAK_FLOAT_INEXACT: st.floats(allow_nan=False, allow_infinity=False).filter(
        lambda x: not binary32.is_binary32(x)
    ),
    B.WEAK_FRACTION: st.one_of(
        st.fractions(max_denominator=2**40),
        st.sampled_from((Fraction(1, 3), Fraction(2**24 + 1), Fraction(-(10**40), 3))),
    ),
    B.WEAK_NUMPY_SCALAR: st.one_of(
        st.floats(width=32).map(np.float32),
        st.floats().map(np.float64),
        st.integers(INT32_MIN, INT32_MAX).map(np.int32),
        st.integers(-(2**63), 2**63 - 1).map(np.int64),
        st.booleans().map(np.bool_),
    ),
    B.WEAK_CONVERSION_TIE: st.one_of(
        _TIE_INTEGERS, _TIE_INTEGERS.map(float), _TIE_INTEGERS.map(Fraction)
    ),
    B.WEAK_DOUBLE_ROUNDING: st.one_of(
        _DOUBLE_ROUNDING_INTEGERS, _DOUBLE_ROUNDING_INTEGERS.map(int.__neg__)
    ),
    B.WEAK_ROUNDS_TO_INF: st.one_of(
        st.integers(2**128, 2**300),
        st.integers(2**128, 2**300).map(lambda n: -n),
        st.floats(min_value=2.0**128, allow_infinity=False),
    ),
}


def _policy(plan: OperationPlan, weak: dict[int, Any]) -> list[Any]:
    neutral = weak_representatives(plan)
    return [
        o.dtype if o.role is OperandRole.TENSOR else weak.get(i, neutral[i][0])
        for i, o in enumerate(plan.operands)
    ]


def _selects(plan: OperationPlan, operands: Sequence[Any], accumulator: Any = None) -> bool:
    try:
        chosen = resolve_operation_plan(plan.operation, *operands, accumulator_dtype=accumulator)
    except (TypeError, ValueError, OverflowError, NotImplementedError):
        return False
    return chosen == plan


@functools.cache
def weak_scalars(plan: OperationPlan, position: int) -> st.SearchStrategy[Any]:
    """Weak scalars at *position* that (with neutral other weak operands) select *plan*."""
    classes = weak_class_values(plan, position)
    if not classes:
        raise ValueError(f"{plan.describe()}: operand {position} is not a weak scalar")
    strategy = st.one_of([WEAK_STRATEGIES[c] for c in classes])
    return strategy.filter(lambda v: _selects(plan, _policy(plan, {position: v})))


@functools.cache
def accumulator_choices(plan: OperationPlan) -> tuple[Any, ...]:
    """The ``accumulator_dtype`` arguments (None included) that select *plan*."""
    operands = _policy(plan, {})
    choices = tuple(c for c in (None, *SUPPORTED_ACCUMULATOR_DTYPES) if _selects(plan, operands, c))
    if not choices:
        raise LookupError(f"{plan.describe()}: no accumulator request selects this plan")
    return choices


# ---------------------------------------------------------------------------
# Building calls
# ---------------------------------------------------------------------------


def _make(
    plan: OperationPlan,
    operands: Sequence[Any],
    parameters: dict[str, Any] | None = None,
    *,
    accumulator: Any = "default",
    raises: tuple[type[BaseException], ...] = (),
    note: str = "",
    omit_defaults: bool = False,
) -> Call:
    parameters = dict(parameters or {})
    if omit_defaults:
        for parameter in reversed(parameters_of(plan.operation)):
            if parameter.required or parameter.name not in parameters:
                break
            if parameters[parameter.name] != parameter.default or isinstance(
                parameters[parameter.name], bool
            ) is not isinstance(parameter.default, bool):
                break
            del parameters[parameter.name]
    if accumulator == "default":
        accumulator = accumulator_choices(plan)[0]
    return Call(
        plan.operation,
        forward_arguments(plan.operation, operands, parameters),
        accumulator,
        plan,
        raises,
        note,
    )


def _operand_dtype(plan: OperationPlan, position: int) -> Any:
    return plan.operands[position].dtype


def _weak_values(draw: Any, plan: OperationPlan) -> dict[int, Any]:
    facts = plan_facts(plan)
    weak = {p: draw(weak_scalars(plan, p)) for p in facts.weak_positions}
    if len(weak) > 1:
        assume(_selects(plan, _policy(plan, weak)))
    return weak


@functools.cache
def _accumulators(plan: OperationPlan) -> st.SearchStrategy[Any]:
    return st.sampled_from(accumulator_choices(plan))


_BASE_SHAPES = array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3)
_RANKS = st.integers(0, 3)


def _broadcast_shapes(draw: Any, count: int) -> list[tuple[int, ...]]:
    """*count* shapes that broadcast together (a suffix of one base, some sides 1)."""
    base = draw(_BASE_SHAPES)
    shapes = []
    for _ in range(count):
        rank = min(draw(_RANKS), len(base))
        suffix = base[len(base) - rank :]
        shapes.append(tuple(1 if draw(st.booleans()) else n for n in suffix))
    return shapes


def _finish(draw: Any, plan: OperationPlan, operands: list[Any], parameters: dict) -> Call:
    accumulator = draw(_accumulators(plan))
    omit = draw(st.booleans())
    return _make(plan, operands, parameters, accumulator=accumulator, omit_defaults=omit)


_SHAPES = array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)


@functools.cache
def calls(plan: OperationPlan) -> st.SearchStrategy[Call]:
    """Valid calls whose arguments select exactly *plan* (cached per plan)."""
    from .families import module_of  # the family modules build on this one

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
    from .families import module_of  # the family modules build on this one

    structural = module_of(family).invalid_calls(plan)
    if structural is not None:
        options.append(structural)
    from .validation import invalid_examples  # validation builds on this module

    rules = invalid_examples(plan)
    if rules:
        options.append(st.sampled_from(rules))
    return st.one_of(options) if options else st.nothing()


# ---------------------------------------------------------------------------
# Constructive boundary examples
# ---------------------------------------------------------------------------

_MAX = MAX_FINITE
#: Float32 sum groups: cancellation + order + width; intermediate overflow;
#: inf - inf; all -0; a width-only case.
SUM_GROUPS: tuple[tuple[float, ...], ...] = (
    (2.0**24, 1.0, -(2.0**24)),
    (_MAX, _MAX, -_MAX),
    (_INF, -_INF, 1.0),
    (-0.0, -0.0),
)
#: Int32 sum groups: a partial sum leaves Int32 while the final fits (and sits at the
#: limit); the final sum just leaves; a far overflow.
INT32_SUM_GROUPS: tuple[tuple[int, ...], ...] = (
    (INT32_MAX, 1, -1),
    (INT32_MIN, -1, 1),
    (INT32_MAX, 1),
    (INT32_MAX, INT32_MAX),
)
#: Float32 product groups: intermediate overflow (order sensitive); intermediate
#: underflow; zero times inf.
PRODUCT_GROUPS: tuple[tuple[float, ...], ...] = (
    (_MAX, 2.0, 0.5),
    (MIN_SUBNORMAL, 0.5, 2.0),
    (0.0, _INF),
)
#: Extremum groups: signed-zero ties in both orders, NaN first/later with
#: different payloads, a repeated extreme value.
EXTREMUM_GROUPS: tuple[tuple[float, ...], ...] = (
    (-0.0, 0.0),
    (0.0, -0.0),
    (_NAN, 1.0),
    (1.0, _NAN_PAYLOAD, _NAN_NEGATIVE),
    (3.0, 1.0, 1.0, 3.0),
)
#: Sort/topk rows with the k and direction that make them interesting for topk.
ORDER_GROUPS: tuple[tuple[tuple[float, ...], int, bool], ...] = (
    ((1.0, _NAN, 0.5, _NAN_PAYLOAD), 1, True),
    ((2.0, 1.0, 2.0, 1.0), 1, True),
    ((1.0, 3.0, 3.0, 2.0), 1, True),
    ((2.0, 1.0, 1.0), 1, False),
    ((-0.0, 1.0, 0.0), 2, False),
    ((0.0, -0.0), 1, True),
)
_CONVERSION_INTS = (2**24 + 1, 2**25 + 1, -(2**24 + 3))
#: conv_general parameters of one spatial dimension: stride 1, no padding, no
#: dilation, one group
_CONV_1D_PLAIN: dict[str, Any] = {
    "window_strides": (1,),
    "padding": ((0, 0),),
    "lhs_dilation": (1,),
    "rhs_dilation": (1,),
    "feature_group_count": 1,
}


def _neutral(dtype: Any) -> Any:
    return {F32: 1.0, I32: 1, BOOL: True}[dtype]


def _fits(dtype: Any, values: Sequence[Any]) -> bool:
    if dtype is F32:
        return all(isinstance(v, float) for v in values)
    if dtype is I32:
        return all(isinstance(v, int) and INT32_MIN <= v <= INT32_MAX for v in values)
    return False


def _tensor_of(dtype: Any, values: Sequence[Any], shape: tuple[int, ...] | None = None) -> Tensor:
    values = tuple(values)
    return Tensor(dtype, (len(values),) if shape is None else shape, values)


def _elementwise_rows(plan: OperationPlan, rows: Sequence[Sequence[Any]], note: str) -> list[Call]:
    """Calls realising *rows* (one value per operand); weak values split the calls."""
    by_weak: dict[tuple, list[Sequence[Any]]] = {}
    weak_positions = plan_facts(plan).weak_positions
    for row in rows:
        key = tuple((type(row[p]).__name__, repr(row[p])) for p in weak_positions)
        by_weak.setdefault(key, []).append(row)
    result = []
    for group in by_weak.values():
        operands = []
        for position, operand in enumerate(plan.operands):
            column = [row[position] for row in group]
            if operand.role is OperandRole.WEAK_SCALAR:
                operands.append(column[0])
            else:
                operands.append(_tensor_of(operand.dtype, column))
        result.append(_make(plan, operands, note=note))
    return result


def _neutral_row(plan: OperationPlan) -> list[Any]:
    weak = weak_representatives(plan)
    return [
        _neutral(o.dtype) if o.role is OperandRole.TENSOR else weak[i][0]
        for i, o in enumerate(plan.operands)
    ]


def _fit_row(plan: OperationPlan, row: Sequence[Any]) -> tuple[Any, ...] | None:
    return boundaries.fit_operands(plan, row)


def _embed(
    plan: OperationPlan,
    group: Sequence[Any],
    note: str,
    *,
    k: int | None = None,
    largest: bool = True,
    descending: bool = False,
) -> Call | None:
    """A call in which *group* is one reduction group / sorted row / product sequence."""
    family = plan_facts(plan).family
    group = list(group)
    dtype0 = _operand_dtype(plan, 0)
    if family in (Family.REDUCE, Family.ARG, Family.SCAN, Family.SORT, Family.TOPK):
        if not _fits(dtype0, group):
            return None
        x = _tensor_of(dtype0, group)
        parameters: dict[str, Any] = {"axis": None if family in (Family.REDUCE, Family.ARG) else 0}
        if family is Family.REDUCE:
            parameters["keepdims"] = False
        if family is Family.SORT:
            parameters["descending"] = descending
        if family is Family.TOPK:
            parameters = {"k": len(group) if k is None else k, "axis": 0, "largest": largest}
        return _make(plan, [x], parameters, note=note)
    if family is Family.MATMUL:
        n = len(group)
        for side in (0, 1):
            dtype = _operand_dtype(plan, side)
            other = _operand_dtype(plan, 1 - side)
            if _fits(dtype, group):
                ones = _tensor_of(other, [_neutral(other)] * n, (n, 1) if side == 0 else (1, n))
                terms = _tensor_of(dtype, group, (1, n) if side == 0 else (n, 1))
                return _make(plan, [terms, ones] if side == 0 else [ones, terms], note=note)
        return None
    if family is Family.CONV:
        if not _fits(F32, group):
            return None
        n = len(group)
        lhs = _tensor_of(F32, group, (1, 1, n))
        rhs = _tensor_of(F32, [1.0] * n, (1, 1, n))
        return _make(plan, [lhs, rhs], dict(_CONV_1D_PLAIN), note=note)
    if family is Family.SCATTER_ADD:
        if not _fits(F32, group) or not group:
            return None
        base = _tensor_of(F32, group[:1])
        indices = _tensor_of(I32, [0] * (len(group) - 1))
        updates = _tensor_of(F32, group[1:])
        return _make(plan, [base, indices, updates], {"axis": 0}, note=note)
    if family in (Family.GATHER, Family.SCATTER):
        if not _fits(F32, group) or not group:
            return None
        data = _tensor_of(F32, group)
        indices = _tensor_of(I32, range(len(group)))
        operands: list[Any] = [data, indices]
        if family is Family.SCATTER:
            operands.append(_tensor_of(F32, group[::-1]))
        return _make(plan, operands, {"axis": 0}, note=note)
    return None


def _value_examples(plan: OperationPlan) -> list[Call]:
    facts = plan_facts(plan)
    calls_: list[Call] = []
    specials_f = [v for v in SPECIAL_FLOATS]
    specials_i = list(SPECIAL_INT32S) + list(_CONVERSION_INTS)
    if facts.family is Family.ELEMENTWISE:
        for position in (*facts.float_positions, *facts.int_positions):
            values = specials_f if _operand_dtype(plan, position) is F32 else specials_i
            rows = []
            for value in values:
                row = _neutral_row(plan)
                row[position] = value
                rows.append(row)
            calls_ += _elementwise_rows(plan, rows, f"special values in operand {position}")
        if facts.bool_positions:
            rows = []
            for value in (True, False):
                row = _neutral_row(plan)
                row[facts.bool_positions[0]] = value
                rows.append(row)
            calls_ += _elementwise_rows(plan, rows, "a mixed condition")
        return calls_
    if facts.float_positions:
        call = _embed(plan, specials_f, "special Float32 values")
        if call is not None:
            calls_.append(call)
    if facts.int_positions:
        call = _embed(plan, specials_i, "special Int32 values")
        if call is not None:
            calls_.append(call)
    if facts.family is Family.SCATTER_ADD or facts.family is Family.SCATTER:
        base = _tensor_of(F32, [1.0] * len(specials_f))
        indices = _tensor_of(I32, range(len(specials_f)))
        updates = _tensor_of(F32, specials_f)
        calls_.append(_make(plan, [base, indices, updates], {"axis": 0}, note="special updates"))
    return calls_


def _arithmetic_examples(plan: OperationPlan) -> list[Call]:
    calls_ = []
    for cls, rows in arithmetic_witnesses(plan).items():
        for row in rows[:1] if cls is not B.INT32_RESULT_OVERFLOW else rows:
            raises = ()
            call = _elementwise_rows(plan, [row], f"witness of {cls.name}")[0]
            if B.INT32_RESULT_OVERFLOW in call.classes:
                raises = (OverflowError,)
                call = Call(
                    call.operation, call.args, call.accumulator_dtype, call.plan, raises, call.note
                )
            calls_.append(call)
    return calls_


def _group_examples(plan: OperationPlan) -> list[Call]:
    facts = plan_facts(plan)
    accumulation = plan.accumulation
    groups: list[tuple[Sequence[Any], str, dict[str, Any]]] = []
    if accumulation in (Accumulation.FLOATING, Accumulation.SEQUENTIAL_BINARY32):
        groups += [(g, "a sum group", {}) for g in SUM_GROUPS]
    if accumulation is Accumulation.EXACT_INTEGER:
        groups += [(g, "an Int32 sum group", {}) for g in INT32_SUM_GROUPS]
    if accumulation is Accumulation.SEQUENTIAL_BINARY32_PRODUCT:
        groups += [(g, "a product group", {}) for g in PRODUCT_GROUPS]
    if facts.extremum_rule is not None:
        groups += [(g, "an extremum group", {}) for g in EXTREMUM_GROUPS]
    if facts.family in (Family.SORT, Family.TOPK):
        for row, k, largest in ORDER_GROUPS:
            options = {"k": k, "largest": largest} if facts.family is Family.TOPK else {}
            groups.append((row, "a sort row", options))
            if facts.family is Family.SORT:
                groups.append((row, "a sort row", {"descending": True}))
    calls_ = []
    for group, note, options in groups:
        call = _embed(plan, group, note, **options)
        if call is None:
            continue
        if B.INT32_RESULT_OVERFLOW in call.classes:
            call = Call(
                call.operation,
                call.args,
                call.accumulator_dtype,
                call.plan,
                (OverflowError,),
                call.note,
            )
        calls_.append(call)
    if plan.operation in boundaries.ELEMENTWISE_EXTREMA:
        calls_ += _elementwise_extremum_examples(plan)
    if facts.family in (Family.MATMUL, Family.CONV) and all(
        _operand_dtype(plan, i) is F32 for i in (0, 1)
    ):
        calls_.append(_rounded_products_example(plan))
    if facts.family is Family.MATMUL and accumulation is Accumulation.EXACT_INTEGER:
        a = Tensor(I32, (1, 2), (65536, 65536))
        b = Tensor(I32, (2, 1), (65536, -65536))
        calls_.append(_make(plan, [a, b], note="Int32 product terms leave the range"))
    return calls_


def _rounded_products_example(plan: OperationPlan) -> Call:
    """Products whose rounding to binary32 changes the sum (a fused multiply-add differs).

    (1 + 2**-23)**2 = 1 + 2**-22 + 2**-46 rounds to 1 + 2**-22, which cancels
    -(1 + 2**-22) exactly: the plan gives +0, one rounding per term gives 2**-46.
    """
    lhs_values = (-(1 + 2.0**-22), 1 + 2.0**-23)
    rhs_values = (1.0, 1 + 2.0**-23)
    note = "products whose rounding changes the sum"
    if plan_facts(plan).family is Family.MATMUL:
        lhs, rhs = Tensor(F32, (1, 2), lhs_values), Tensor(F32, (2, 1), rhs_values)
        return _make(plan, [lhs, rhs], note=note)
    lhs, rhs = Tensor(F32, (1, 1, 2), lhs_values), Tensor(F32, (1, 1, 2), rhs_values)
    return _make(plan, [lhs, rhs], dict(_CONV_1D_PLAIN), note=note)


def _elementwise_extremum_examples(plan: OperationPlan) -> list[Call]:
    rows = []
    for first, second, _rule in boundaries.ELEMENTWISE_EXTREMA[plan.operation]:
        for a, b in ((-0.0, 0.0), (0.0, -0.0), (_NAN, 1.0), (1.0, _NAN)):
            row = _neutral_row(plan)
            row[first], row[second] = a, b
            fitted = _fit_row(plan, row)
            if fitted is not None:
                rows.append(fitted)
    return _elementwise_rows(plan, rows, "extremum pairs")


def _weak_examples(plan: OperationPlan) -> list[Call]:
    calls_ = []
    for position in plan_facts(plan).weak_positions:
        for cls, values in weak_class_values(plan, position).items():
            row = _neutral_row(plan)
            row[position] = values[0]
            calls_ += _elementwise_rows(plan, [row], f"weak {cls.name}")
    return calls_


def _elementwise_shaped(
    plan: OperationPlan, shapes: Sequence[tuple[int, ...]], note: str, raises: tuple = ()
) -> Call:
    shapes_iter = iter(shapes)
    weak = weak_representatives(plan)
    operands = []
    for position, operand in enumerate(plan.operands):
        if operand.role is OperandRole.WEAK_SCALAR:
            operands.append(weak[position][0])
            continue
        shape = next(shapes_iter)
        size = math.prod(shape)
        operands.append(Tensor(operand.dtype, shape, (_neutral(operand.dtype),) * size))
    return _make(plan, operands, raises=raises, note=note)


def _structural_examples(plan: OperationPlan) -> list[Call]:
    """Shapes, parameters, indices and error paths: the plan's family module's
    ``structural_examples`` (:mod:`conformance.families`)."""
    from .families import module_of  # the family modules build on this one

    facts = plan_facts(plan)
    d0 = _operand_dtype(plan, 0)

    def tensor(shape: tuple[int, ...], dtype: Any = d0, start: float = 1.0) -> Tensor:
        size = math.prod(shape)
        if dtype is F32:
            values = tuple(start + i for i in range(size))
        elif dtype is I32:
            values = tuple(int(start) + i for i in range(size))
        else:
            values = (True,) * size
        return Tensor(dtype, shape, values)

    return module_of(facts.family).structural_examples(plan, facts, tensor)


@functools.cache
def _boundary_examples(plan: OperationPlan) -> tuple[Call, ...]:
    examples = [
        *_value_examples(plan),
        *_arithmetic_examples(plan),
        *_group_examples(plan),
        *_weak_examples(plan),
        *_structural_examples(plan),
    ]
    for choice in accumulator_choices(plan)[1:]:
        # the other ways of requesting the same plan
        first = examples[0]
        examples.append(
            Call(
                first.operation,
                first.args,
                choice,
                plan,
                first.raises,
                f"{first.note} (accumulator_dtype={choice!r})",
            )
        )
    unique: dict[Call, None] = {}
    for call in examples:
        unique.setdefault(call, None)
    return tuple(unique)


def boundary_examples(plan: OperationPlan) -> list[Call]:
    """Deterministic calls that together hit every applicable class of *plan*."""
    return list(_boundary_examples(plan))
