"""The catalogue of result classes: situations of the *expected result* of a call.

The boundary classes (:mod:`conformance.classes.boundary`) describe a call's
*inputs*.  A fault whose trigger is a boundary of the *result* -- a subnormal
result flushed to zero, an overflow one input too early, ``reduce_max``
returning +0 for a maximum of -0, an Int32 result refused at the very edge
of the range -- is invisible to them: ``exp2(-130)`` has an ordinary input.
A :class:`ResultClass` names such a situation of the result; each member
carries its :class:`Group` and a description.

Three functions relate the catalogue to plans and calls:

* :func:`candidate_classes` derives, from an :class:`~oracle.OperationPlan`
  alone, the classes its results could fall in: its output dtype, compute
  arithmetic and accumulation, the operation's conformance class and call
  family (the rules are the table :data:`RULES` and the notes in
  ``docs/result-classes.md``);
* :func:`~conformance.generate.witnesses.applicable_result_classes` narrows the
  candidates to the classes some input of the plan is *known* to reach: for a
  unary plan the classes
  the witness search found over the whole input space
  (:mod:`conformance.generate.witnesses`), for an elementwise plan the classes its
  palette search found; the other families keep their candidates;
* :func:`result_classes_hit` *measures* the classes a call hits, from the
  oracle's Expectation (``oracle.expected``) and the call's own values.

Measuring the threshold classes of a unary plan (:attr:`Group.EDGE`) looks at
the two neighbouring inputs of every element (the next binary32 value in each
direction, or ``n - 1`` and ``n + 1`` for an Int32 input), evaluated with the
vectorised certified oracle :mod:`oracle.vectorised`.  The distance to a
rounding midpoint (:attr:`ResultClass.NEAR_MIDPOINT`,
:attr:`ResultClass.HARD_TO_ROUND`) is measured with the vectorised oracle's
float64 formula, whose stated error bound is at most ``2**-21`` ULP of the
result, far below the class cut-offs.
"""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from conformance.classes import result_values, unary
from conformance.classes.boundary import ELEMENTWISE_EXTREMA
from conformance.classes.unary import Kind, is_unary
from conformance.model.calls import Call, Family, family_of
from oracle import (
    Accumulation,
    Arithmetic,
    Conformance,
    DType,
    Expectation,
    OperationPlan,
    Tensor,
    binary32,
    expected,
)
from oracle.dtypes import INT32_MAX, INT32_MIN
from oracle.evaluate import REFERENCES

__all__ = [
    "HARD_TO_ROUND_ULPS",
    "NEAR_MIDPOINT_ULPS",
    "RULES",
    "Group",
    "ResultClass",
    "candidate_classes",
    "result_classes_hit",
]

F32, I32 = DType.Float32, DType.Int32
#: |f(x) - nearest rounding midpoint| at most this many ULPs of the result: NEAR_MIDPOINT
NEAR_MIDPOINT_ULPS = 2.0**-8
#: ... and at most this many: HARD_TO_ROUND
HARD_TO_ROUND_ULPS = 2.0**-16
_MIN_SUBNORMAL_BITS, _MAX_SUBNORMAL_BITS = 0x00000001, 0x007FFFFF
_MIN_NORMAL_BITS, _MAX_FINITE_BITS, _INF_BITS = 0x00800000, 0x7F7FFFFF, 0x7F800000


class Group(enum.Enum):
    """The families of result classes."""

    VALUE = "Float32 result values"
    SPECIAL = "special results of ordinary inputs"
    EDGE = "thresholds of a unary function"
    ROUNDING = "rounding of a correctly rounded result"
    INT32 = "Int32 result range"
    EXTREMUM = "extremum and argument ties"
    SUM = "FLOATING sums"


class ResultClass(enum.Enum):
    """One result class: ``member.group`` and ``member.description``."""

    POSITIVE_ZERO = (Group.VALUE, "a result element is +0")
    NEGATIVE_ZERO = (Group.VALUE, "a result element is -0")
    SUBNORMAL = (Group.VALUE, "a result element is a nonzero subnormal")
    MIN_SUBNORMAL = (Group.VALUE, "a result element is +-2**-149, the smallest subnormal")
    MAX_SUBNORMAL = (Group.VALUE, "a result element is +-0x007FFFFF, the largest subnormal")
    MIN_NORMAL = (Group.VALUE, "a result element is +-2**-126, the smallest normal")
    MAX_FINITE = (Group.VALUE, "a result element is +-MAX_FINITE (0x7F7FFFFF)")
    INF_FROM_FINITE = (
        Group.SPECIAL,
        "a result element is +-inf while its inputs are finite (an overflow or a pole)",
    )
    NAN_FROM_NON_NAN = (
        Group.SPECIAL,
        "a result element is NaN while no input is NaN (an invalid operation)",
    )
    OVERFLOW_EDGE_FINITE = (
        Group.EDGE,
        "a finite result whose neighbouring input overflows to +-inf (the threshold from below)",
    )
    OVERFLOW_EDGE_INF = (
        Group.EDGE,
        "+-inf from a finite input whose neighbour's result is finite (the threshold from above)",
    )
    UNDERFLOW_EDGE_NONZERO = (
        Group.EDGE,
        "a nonzero result whose neighbouring nonzero input's result is a zero",
    )
    UNDERFLOW_EDGE_ZERO = (
        Group.EDGE,
        "a zero from a nonzero input whose neighbour's result is nonzero",
    )
    SUBNORMAL_EDGE = (Group.EDGE, "a subnormal result whose neighbouring input's result is normal")
    NORMAL_EDGE = (
        Group.EDGE,
        "a normal result whose neighbouring input's result is subnormal or zero",
    )
    SATURATION_EDGE_AT = (
        Group.EDGE,
        "a result of +-1 whose neighbouring input's result is not +-1 (first saturated input)",
    )
    SATURATION_EDGE_BELOW = (
        Group.EDGE,
        "a result other than +-1 whose neighbouring input's result is +-1 (last unsaturated)",
    )
    EXACT_RESULT = (Group.ROUNDING, "the mathematical result is a binary32 value (not rounded)")
    INEXACT_RESULT = (Group.ROUNDING, "the mathematical result is rounded")
    NEAR_MIDPOINT = (Group.ROUNDING, "the mathematical result is within 2**-8 ULP of a midpoint")
    HARD_TO_ROUND = (
        Group.ROUNDING,
        "the mathematical result is within 2**-16 ULP of a rounding midpoint",
    )
    INT32_AT_MIN = (Group.INT32, "an exact Int32 result is -2**31")
    INT32_AT_MAX = (Group.INT32, "an exact Int32 result is 2**31 - 1")
    INT32_BELOW_MIN = (Group.INT32, "an exact result is -2**31 - 1 (OverflowError, one past)")
    INT32_ABOVE_MAX = (Group.INT32, "an exact result is 2**31 (OverflowError, one past)")
    EXTREMUM_NEGATIVE_ZERO = (Group.EXTREMUM, "the extremum of a group is -0")
    EXTREMUM_POSITIVE_ZERO = (Group.EXTREMUM, "the extremum of a group is +0")
    EXTREMUM_SAME_SIGN_ZERO_TIE = (
        Group.EXTREMUM,
        "a group's extremum is a zero held by two or more elements, all of one sign",
    )
    EXTREMUM_VALUE_TIE = (
        Group.EXTREMUM,
        "a group's extremum (not NaN, not zero) is held by two or more elements",
    )
    SUM_ORDER_DEPENDENT = (
        Group.SUM,
        "a FLOATING result whose value depends on the order (its interval holds two or more "
        "binary32 values)",
    )

    @property
    def group(self) -> Group:
        return self.value[0]

    @property
    def description(self) -> str:
        return self.value[1]

    def __repr__(self) -> str:
        return f"ResultClass.{self.name}"


R = ResultClass
_BY_GROUP = {g: frozenset(c for c in ResultClass if c.group is g) for g in Group}
_EXTREMA = {
    Accumulation.MAXIMUM: "max",
    Accumulation.MINIMUM: "min",
    Accumulation.ARGMAX: "max",
    Accumulation.ARGMIN: "min",
}
#: accumulations that compute new values from several terms (sums and products)
_COMBINING = (
    Accumulation.FLOATING,
    Accumulation.SEQUENTIAL_BINARY32,
    Accumulation.SEQUENTIAL_BINARY32_PRODUCT,
)


# ---------------------------------------------------------------------------
# Applicability
# ---------------------------------------------------------------------------


def _elementwise_extrema(plan: OperationPlan) -> tuple[tuple[int, int, str], ...]:

    return ELEMENTWISE_EXTREMA.get(plan.operation, ())


def _conformance(plan: OperationPlan) -> Conformance:
    if plan.accumulation is Accumulation.FLOATING:
        return Conformance.BOUNDED
    if REFERENCES[plan.operation].rounded and plan.compute is Arithmetic.BINARY32:
        return Conformance.CORRECTLY_ROUNDED
    return Conformance.EXACT


def _value_rule(plan: OperationPlan) -> frozenset[ResultClass]:
    if plan.output is not F32:
        return frozenset()
    classes = set(_BY_GROUP[Group.VALUE])
    sequential = plan.accumulation is Accumulation.SEQUENTIAL_BINARY32
    if sequential and family_of(plan.operation) is not Family.SCATTER_ADD:
        # a sequential sum starts at +0 (+0 + -0 = +0); only scatter_add's untouched
        # base elements pass through unchanged
        classes.discard(R.NEGATIVE_ZERO)
    return frozenset(classes)


def _special_rule(plan: OperationPlan) -> frozenset[ResultClass]:
    if plan.output is not F32:
        return frozenset()
    if family_of(plan.operation) is Family.ELEMENTWISE or plan.accumulation in _COMBINING:
        return _BY_GROUP[Group.SPECIAL]
    return frozenset()  # data movement and extrema: every result value is an input value


def _edge_rule(plan: OperationPlan) -> frozenset[ResultClass]:
    return _BY_GROUP[Group.EDGE] if is_unary(plan) and plan.output is F32 else frozenset()


def _rounding_rule(plan: OperationPlan) -> frozenset[ResultClass]:
    found = set()
    if _conformance(plan) is Conformance.CORRECTLY_ROUNDED:
        found |= {R.EXACT_RESULT, R.INEXACT_RESULT}  # from the oracle's exact points
    if is_unary(plan) and unary.measures_midpoint(plan):
        found |= {R.NEAR_MIDPOINT, R.HARD_TO_ROUND}  # sqrt, recip, leaky_relu too
    return frozenset(found)


def _int32_rule(plan: OperationPlan) -> frozenset[ResultClass]:
    if plan.output is not I32 or plan.compute is Arithmetic.BINARY32:
        return frozenset()  # a Float32 plan's Int32 output is an index
    if plan.compute is Arithmetic.INT32_EXACT_CHECKED:
        return _BY_GROUP[Group.INT32]
    return frozenset({R.INT32_AT_MIN, R.INT32_AT_MAX})


def _extremum_rule(plan: OperationPlan) -> frozenset[ResultClass]:
    rule = _EXTREMA.get(plan.accumulation)  # type: ignore[arg-type]
    if rule is None and not _elementwise_extrema(plan):
        return frozenset()
    if plan.accumulation in (Accumulation.ARGMAX, Accumulation.ARGMIN):
        return frozenset({R.EXTREMUM_SAME_SIGN_ZERO_TIE, R.EXTREMUM_VALUE_TIE})
    return _BY_GROUP[Group.EXTREMUM]


def _sum_rule(plan: OperationPlan) -> frozenset[ResultClass]:
    return _BY_GROUP[Group.SUM] if plan.accumulation is Accumulation.FLOATING else frozenset()


#: Group -> the rule deriving its candidate classes from a plan.
RULES = {
    Group.VALUE: _value_rule,
    Group.SPECIAL: _special_rule,
    Group.EDGE: _edge_rule,
    Group.ROUNDING: _rounding_rule,
    Group.INT32: _int32_rule,
    Group.EXTREMUM: _extremum_rule,
    Group.SUM: _sum_rule,
}


@functools.cache
def candidate_classes(plan: OperationPlan) -> frozenset[ResultClass]:
    """The result classes *plan*'s results could fall in, from the plan's fields alone."""
    found: set[ResultClass] = set()
    for rule in RULES.values():
        found |= rule(plan)
    return frozenset(found)


# ---------------------------------------------------------------------------
# Measuring the classes of one call
# ---------------------------------------------------------------------------


def _float_value_classes(bits: int, hits: set[ResultClass]) -> None:
    magnitude = bits & 0x7FFFFFFF
    if magnitude == 0:
        hits.add(R.NEGATIVE_ZERO if bits else R.POSITIVE_ZERO)
    elif magnitude < _MIN_NORMAL_BITS:
        hits.add(R.SUBNORMAL)
        if magnitude == _MIN_SUBNORMAL_BITS:
            hits.add(R.MIN_SUBNORMAL)
        if magnitude == _MAX_SUBNORMAL_BITS:
            hits.add(R.MAX_SUBNORMAL)
    elif magnitude == _MIN_NORMAL_BITS:
        hits.add(R.MIN_NORMAL)
    elif magnitude == _MAX_FINITE_BITS:
        hits.add(R.MAX_FINITE)


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _is_inf(value: Any) -> bool:
    return isinstance(value, float) and math.isinf(value)


def _input_values(call: Call) -> list[Any]:
    values: list[Any] = []
    for operand in call.operands:
        if isinstance(operand, Tensor):
            values.extend(operand.values)
        elif isinstance(operand, float):
            values.append(operand)
    return values


def _special_classes(call: Call, result: Sequence[Any], hits: set[ResultClass]) -> None:
    """INF_FROM_FINITE / NAN_FROM_NON_NAN: per element for elementwise calls, else per call."""
    if family_of(call.operation) is Family.ELEMENTWISE:
        for value, row in zip(
            result, result_values.elementwise_rows(call.operation, call.operands)
        ):
            if _is_inf(value) and not any(_is_inf(v) or _is_nan(v) for v in row):
                hits.add(R.INF_FROM_FINITE)
            if _is_nan(value) and not any(_is_nan(v) for v in row):
                hits.add(R.NAN_FROM_NON_NAN)
        return
    inputs = _input_values(call)
    if any(_is_inf(v) for v in result) and not any(_is_inf(v) or _is_nan(v) for v in inputs):
        hits.add(R.INF_FROM_FINITE)
    if any(_is_nan(v) for v in result) and not any(_is_nan(v) for v in inputs):
        hits.add(R.NAN_FROM_NON_NAN)


def _edge_classes(plan: OperationPlan, inputs: np.ndarray, hits: set[ResultClass]) -> None:
    kind = unary.kinds(unary.reference(plan, inputs))
    wide = inputs.astype(np.float64)
    nonzero = wide != 0
    for side in unary.neighbours(plan, inputs):
        other = unary.kinds(unary.reference(plan, side))
        usable = (side.astype(np.float64) != wide) & np.isfinite(wide)
        usable &= np.isfinite(side.astype(np.float64))
        both_nonzero = nonzero & (side != 0)  # a pole (log(0), rsqrt(0)) is no overflow
        pairs = {
            R.OVERFLOW_EDGE_FINITE: _in(kind, _FINITE)
            & _in(other, unary.INFINITIES)
            & both_nonzero,
            R.OVERFLOW_EDGE_INF: _in(kind, unary.INFINITIES) & _in(other, _FINITE) & both_nonzero,
            R.UNDERFLOW_EDGE_NONZERO: _in(kind, unary.FINITE_NONZERO)
            & _in(other, unary.ZEROS)
            & (side != 0),
            R.UNDERFLOW_EDGE_ZERO: _in(kind, unary.ZEROS)
            & nonzero
            & _in(other, unary.FINITE_NONZERO),
            R.SUBNORMAL_EDGE: (kind == Kind.SUBNORMAL) & _in(other, unary.NORMALS),
            R.NORMAL_EDGE: _in(kind, unary.NORMALS) & _in(other, _ZERO_OR_SUBNORMAL),
            R.SATURATION_EDGE_AT: (kind == Kind.ONE) & (other != Kind.ONE) & (other != Kind.NAN),
            R.SATURATION_EDGE_BELOW: (kind != Kind.ONE) & (kind != Kind.NAN) & (other == Kind.ONE),
        }
        for cls, mask in pairs.items():
            if (mask & usable).any():
                hits.add(cls)


_FINITE = (*unary.ZEROS, *unary.FINITE_NONZERO)
_ZERO_OR_SUBNORMAL = (*unary.ZEROS, Kind.SUBNORMAL)


def _in(kind: np.ndarray, members: tuple[Kind, ...]) -> np.ndarray:
    return np.isin(kind, [int(m) for m in members])


def _rounding_classes(call: Call, expectation: Expectation, hits: set[ResultClass]) -> None:
    points = expectation.exact_points or ()
    if any(points):
        hits.add(R.EXACT_RESULT)
    values = expectation.result.values if expectation.result is not None else ()
    if any(not p and not _is_nan(v) for p, v in zip(points, values)):
        hits.add(R.INEXACT_RESULT)
    if is_unary(call.plan) and unary.measures_midpoint(call.plan) and values:
        (operand,) = call.operands
        inputs = np.array(operand.values, np.float32 if operand.dtype is F32 else np.int64)
        distance = unary.midpoint_distance(call.plan, inputs)
        if (distance <= NEAR_MIDPOINT_ULPS).any():
            hits.add(R.NEAR_MIDPOINT)
        if (distance <= HARD_TO_ROUND_ULPS).any():
            hits.add(R.HARD_TO_ROUND)


def _extremum_group(group: Sequence[float], rule: str, hits: set[ResultClass]) -> None:
    values = [v for v in group if not _is_nan(v)]
    if not values or len(values) < len(group):
        return  # an empty group is an error, a NaN wins: no extremum tie
    best = max(values) if rule == "max" else min(values)
    holders = [v for v in values if v == best]
    if best == 0:
        signs = {math.copysign(1.0, v) for v in holders}
        negative = signs == {-1.0} if rule == "max" else -1.0 in signs
        hits.add(R.EXTREMUM_NEGATIVE_ZERO if negative else R.EXTREMUM_POSITIVE_ZERO)
        if len(holders) > 1 and len(signs) == 1:
            hits.add(R.EXTREMUM_SAME_SIGN_ZERO_TIE)
    elif len(holders) > 1:
        hits.add(R.EXTREMUM_VALUE_TIE)


def _extremum_classes(call: Call, hits: set[ResultClass]) -> None:
    plan = call.plan
    rule = _EXTREMA.get(plan.accumulation)  # type: ignore[arg-type]
    operands = call.operands
    if rule is not None:
        (tensor,) = operands
        for group in result_values.groups(tensor, call.parameters.get("axis")):
            _extremum_group(group, rule, hits)
        return
    rows = list(result_values.elementwise_rows(call.operation, operands))
    for first, second, pair_rule in _elementwise_extrema(plan):
        for a, b in ((row[first], row[second]) for row in rows):
            if isinstance(a, float) and isinstance(b, float):
                _extremum_group((a, b), pair_rule, hits)


def _int32_classes(call: Call, hits: set[ResultClass]) -> None:
    for value in result_values.exact_integer_results(call):
        if value == INT32_MIN:
            hits.add(R.INT32_AT_MIN)
        elif value == INT32_MAX:
            hits.add(R.INT32_AT_MAX)
        elif value == INT32_MIN - 1:
            hits.add(R.INT32_BELOW_MIN)
        elif value == INT32_MAX + 1:
            hits.add(R.INT32_ABOVE_MAX)


def _bounded_classes(expectation: Expectation, hits: set[ResultClass]) -> list[float]:
    """SUM_ORDER_DEPENDENT, and the values the intervals pin down exactly."""
    pinned: list[float] = []
    for interval in expectation.bounds or ():
        if interval.lo < interval.hi:
            hits.add(R.SUM_ORDER_DEPENDENT)
        if interval.nan and not interval.lo <= interval.hi:
            pinned.append(math.nan)
        elif interval.lo == interval.hi and not interval.nan:
            pinned.append(0.0 if interval.lo == 0 else interval.lo)
            if interval.lo == 0 and interval.negative_zero:
                pinned.append(-0.0)
    return pinned


def result_classes_hit(
    call: Call, expectation: Expectation | None = None
) -> frozenset[ResultClass]:
    """The result classes *call* hits, measured from the oracle's Expectation.

    *expectation* is ``oracle.expected`` of the call (computed when None).  A
    call whose expectation is an OverflowError hits only the Int32 classes
    (the exact value one past the range); any other error, none.  Only the
    candidate classes of the call's plan are measured.
    """
    if expectation is None:
        expectation = expected(call.operation, *call.args, accumulator_dtype=call.accumulator_dtype)
    plan = call.plan
    candidates = candidate_classes(plan)
    hits: set[ResultClass] = set()
    if expectation.error is not None and not isinstance(expectation.error, OverflowError):
        return frozenset()  # an invalid call has no result
    if candidates & _BY_GROUP[Group.INT32]:
        _int32_classes(call, hits)
    if expectation.error is not None:
        return frozenset(hits & candidates)
    if expectation.bounds is not None:
        values: Sequence[Any] = _bounded_classes(expectation, hits)
    else:
        assert expectation.result is not None
        values = expectation.result.values
    if plan.output is F32:
        for value in values:
            _float_value_classes(binary32.to_bits(value), hits)
        if expectation.result is not None:
            _special_classes(call, values, hits)
        else:
            _special_classes(call, [v for v in values if _is_nan(v) or _is_inf(v)], hits)
    if candidates & _BY_GROUP[Group.EDGE]:
        (operand,) = call.operands
        dtype = np.float32 if operand.dtype is F32 else np.int32
        _edge_classes(plan, np.array(operand.values, dtype), hits)
    if candidates & _BY_GROUP[Group.ROUNDING]:
        _rounding_classes(call, expectation, hits)
    if candidates & _BY_GROUP[Group.EXTREMUM]:
        _extremum_classes(call, hits)
    return frozenset(hits & candidates)
