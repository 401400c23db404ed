"""The deterministic boundary examples of a plan: calls that together hit every
applicable input class.

:func:`boundary_examples` joins, per plan: special values per operand
(:func:`_value_examples`), the arithmetic witnesses of
:mod:`conformance.classes.witness_tables` (:func:`_arithmetic_examples`), groups for
sums, products, extrema and orders (:func:`_group_examples`), weak-scalar
representatives (:func:`_weak_examples`) and the structural examples of the
plan's family module (:mod:`conformance.generate.families`), then the same first call
under every other accumulator request that selects the plan.  The suite's
boundary check judges them all (:func:`conformance.suite.check_boundary`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

from conformance.classes import witness_tables
from conformance.classes.boundary import (
    ELEMENTWISE_EXTREMA,
    INT32_MAX,
    INT32_MIN,
    MAX_FINITE,
    MIN_SUBNORMAL,
    Boundary,
    plan_facts,
)
from conformance.classes.witness_tables import (
    arithmetic_witnesses,
    weak_class_values,
    weak_representatives,
)
from conformance.generate.families import classes_hit, module_of
from conformance.generate.primitives import (
    _CONV_1D_PLAIN,
    _INF,
    _NAN,
    _NAN_NEGATIVE,
    _NAN_PAYLOAD,
    SPECIAL_FLOATS,
    SPECIAL_INT32S,
    _make,
    _neutral,
    _operand_dtype,
    _selects,
    _tensor_of,
    accumulator_choices,
)
from conformance.model.calls import Call, Family
from oracle import (
    Accumulation,
    DType,
    OperandRole,
    OperationPlan,
    Tensor,
    binary32,
)
from oracle import expected as oracle_expected

__all__ = [
    "EXTREMUM_GROUPS",
    "INT32_SUM_GROUPS",
    "ORDER_GROUPS",
    "PRODUCT_GROUPS",
    "SUM_GROUPS",
    "boundary_examples",
]

F32, I32, BOOL = DType.Float32, DType.Int32, DType.Bool
B = Boundary

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
    return witness_tables.fit_operands(plan, row)


def _embed(
    plan: OperationPlan,
    group: Sequence[Any],
    note: str,
    *,
    k: int | None = None,
    largest: bool = True,
    descending: bool = False,
) -> Call | None:
    """A call in which *group* is one reduction group / sorted row / product sequence:
    the plan's family module's ``embed_group`` (None where the family has no group
    or the values do not fit the operand)."""
    options = {"k": k, "largest": largest, "descending": descending}
    return module_of(plan_facts(plan).family).embed_group(plan, list(group), note, options)


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
            if B.INT32_RESULT_OVERFLOW in classes_hit(call):
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
        if B.INT32_RESULT_OVERFLOW in classes_hit(call):
            call = Call(
                call.operation,
                call.args,
                call.accumulator_dtype,
                call.plan,
                (OverflowError,),
                call.note,
            )
        calls_.append(call)
    if plan.operation in ELEMENTWISE_EXTREMA:
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
    for first, second, _rule in ELEMENTWISE_EXTREMA[plan.operation]:
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


#: Int32 boundary values and the ordinary partners each is paired with (both ways)
INT32_PAIR_BOUNDARIES: tuple[int, ...] = (INT32_MIN, INT32_MAX, -1, 0, 1)
INT32_PAIR_PARTNERS: tuple[int, ...] = (INT32_MIN, INT32_MAX, -1, 1, 2, -2, 3, 46341, -65536)
#: extra weak scalars paired with ordinary bases: floats binary32 must round,
#: small exponents, and large odd ints
WEAK_PAIR_VALUES: tuple[Any, ...] = (
    0.1,
    1 / 3,
    2,
    3,
    -1,
    -2,
    0.5,
    2.0,
    -2.0,
    2**24 + 1,
    2**31 - 1,
)
#: the ordinary bases a weak scalar meets (per tensor dtype)
PAIR_BASES: dict[Any, tuple[Any, ...]] = {
    F32: tuple(
        binary32.round_to_binary32(v)
        for v in (-1.0, 2.0, -2.0, 3.0, -3.0, 1.1, 0.3, -2.5, 1.7, 1e-3)
    ),
    I32: (-1, 0, 1, 2, -2, 3, -3, 7),
}


def _raises_as_measured(call: Call) -> Call | None:
    """*call*, declared to raise OverflowError when it overflows Int32 as measured;
    None when the oracle refuses it otherwise (a pair the measure cannot see)."""
    error = oracle_expected(call.operation, *call.args, **call.kwargs()).error
    if error is None:
        return call
    if isinstance(error, OverflowError) and B.INT32_RESULT_OVERFLOW in classes_hit(call):
        return Call(
            call.operation,
            call.args,
            call.accumulator_dtype,
            call.plan,
            (OverflowError,),
            call.note,
        )
    return None


def _pair_examples(plan: OperationPlan) -> list[Call]:
    """Boundary pairs (docs/shape-classes.md): each Int32 boundary value against
    the others and ordinary partners, one call per overflowing pair; each weak
    scalar (its class representatives and :data:`WEAK_PAIR_VALUES`, where they
    select the plan) against ordinary bases (:func:`_weak_pair_calls`)."""
    facts = plan_facts(plan)
    if facts.family is not Family.ELEMENTWISE:
        return []
    out: list[Call] = []
    tensors = [i for i, o in enumerate(plan.operands) if o.role is OperandRole.TENSOR]
    if len(tensors) == 2 and all(_operand_dtype(plan, i) is I32 for i in tensors):
        quiet: list[list[Any]] = []
        pairs = {p: None for a in INT32_PAIR_BOUNDARIES for b in INT32_PAIR_PARTNERS
                 for p in ((a, b), (b, a))}  # fmt: skip
        for pair in pairs:
            row = _neutral_row(plan)
            row[tensors[0]], row[tensors[1]] = pair
            (call,) = _elementwise_rows(plan, [row], f"the Int32 pair {pair}")
            checked = _raises_as_measured(call)
            if checked is not None and checked.raises:
                out.append(checked)
            elif checked is not None:
                quiet.append(row)
        if quiet:
            out += _elementwise_rows(plan, quiet, "Int32 boundary pairs")
    for position in facts.weak_positions:
        values = [v for vs in weak_class_values(plan, position).values() for v in vs[:1]]
        values += [v for v in WEAK_PAIR_VALUES if not any(_same(v, w) for w in values)]
        target = next((i for i in tensors if _operand_dtype(plan, i) in PAIR_BASES), None)
        if target is None:
            continue
        bases = PAIR_BASES[_operand_dtype(plan, target)]
        for value in values:
            out += _weak_pair_calls(plan, position, target, value, bases)
    return out


def _weak_pair_calls(
    plan: OperationPlan, position: int, target: int, value: Any, bases: Sequence[Any]
) -> list[Call]:
    """The weak *value* at *position* against each of *bases* in tensor *target*: one
    call for the bases whose pairs return, one declared to raise for the first whose
    pair overflows Int32, none where the value does not select *plan* (a pair the
    oracle refuses otherwise is left out).  Split so that one overflowing base never
    hides the others: -1 meets the odd exponents above 2**24 that overflow 2 and -2."""
    quiet: list[list[Any]] = []
    loud: Call | None = None
    for base in bases:
        row = _neutral_row(plan)
        row[position], row[target] = value, base
        (call,) = _elementwise_rows(plan, [row], f"the weak {value!r} against the base {base!r}")
        kinds = [o.dtype if isinstance(o, Tensor) else o for o in call.operands]
        if not _selects(plan, kinds):
            return []
        checked = _raises_as_measured(call)
        if checked is None:
            continue
        if not checked.raises:
            quiet.append(row)
        elif loud is None:
            loud = checked
    calls = _elementwise_rows(plan, quiet, f"the weak {value!r} against ordinary bases")
    return [*(calls if quiet else []), *([loud] if loud is not None else [])]


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _structural_examples(plan: OperationPlan) -> list[Call]:
    """Shapes, parameters, indices and error paths: the plan's family module's
    ``structural_examples`` (:mod:`conformance.generate.families`)."""
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


def _shape_examples(plan: OperationPlan) -> list[Call]:
    """Lengths, ranks, axes, layouts and lanes: the plan's family module's
    ``shape_examples`` (docs/shape-classes.md)."""
    facts = plan_facts(plan)
    return module_of(facts.family).shape_examples(plan, facts)


@functools.cache
def _boundary_examples(plan: OperationPlan) -> tuple[Call, ...]:
    examples = [
        *_value_examples(plan),
        *_arithmetic_examples(plan),
        *_group_examples(plan),
        *_weak_examples(plan),
        *_structural_examples(plan),
        *_shape_examples(plan),
        *_pair_examples(plan),
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
