"""Measurements several families share: rounding, value, sum, product, extremum and
order classes of actual values, and the :class:`Invalid` signal of a call whose
structure the reference refuses (its error class is recorded, nothing else is
measured)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from conformance.classes.boundary import (
    _ONE_ULP_BEYOND,
    _OVERFLOW_THRESHOLD,
    _QUIET_NAN_FRACTION,
    CANCELLATION_RATIO,
    MAX_FINITE,
    MIN_NORMAL,
    MIN_SUBNORMAL,
    NEAR_TIE_ULPS,
    B,
    Boundary,
    _neighbours,
)
from conformance.classes.witness_tables import (
    _is_midpoint,
)
from conformance.generate.accumulator_witnesses import FAULT_CLASSES, faults_rejected
from conformance.generate.int32_partials import partial_classes
from conformance.generate.order_values import order_classes
from oracle import Accumulation, DType, OperationPlan, binary32
from oracle.dtypes import INT32_MAX, INT32_MIN


def rounding_classes(exact: Fraction) -> set[Boundary]:
    """The ROUNDING and RANGE classes of one exact (finite) result."""
    hits: set[Boundary] = set()
    if exact == 0:
        return hits
    a = abs(exact)
    if a >= _OVERFLOW_THRESHOLD:
        if a <= _ONE_ULP_BEYOND:
            hits.add(B.OVERFLOW_BY_ONE_ULP)
            if a == _OVERFLOW_THRESHOLD:
                hits.add(B.TIE_TO_EVEN_UP)
        return hits
    rounded = Fraction(binary32.round_fraction(a))
    if rounded == Fraction(MAX_FINITE):
        hits.add(B.ROUNDS_TO_MAX_FINITE)
    if rounded == 0:
        hits.add(B.UNDERFLOW_TO_ZERO)
    elif rounded < Fraction(MIN_NORMAL):
        hits.add(B.SUBNORMAL_RESULT)
        if rounded == Fraction(MIN_SUBNORMAL) and a != rounded:
            hits.add(B.UNDERFLOW_TO_MIN_SUBNORMAL)
    elif rounded == Fraction(MIN_NORMAL) and a < rounded:
        hits.add(B.ROUNDS_UP_TO_MIN_NORMAL)
    if rounded == a:
        return hits
    lo, hi = _neighbours(a)
    offset = (a - (lo + hi) / 2) / (hi - lo)
    if offset == 0:
        hits.add(B.TIE_TO_EVEN_DOWN if rounded == lo else B.TIE_TO_EVEN_UP)
    elif abs(offset) <= NEAR_TIE_ULPS:
        hits.add(B.NEAR_TIE_ABOVE if offset > 0 else B.NEAR_TIE_BELOW)
    return hits


def _int_result_classes(value: int, hits: set[Boundary]) -> None:
    if value in (INT32_MAX, INT32_MIN):
        hits.add(B.INT32_RESULT_AT_LIMIT)
    if value in (2**31, INT32_MIN - 1):
        hits.add(B.INT32_RESULT_JUST_OUTSIDE)
    if not INT32_MIN <= value <= INT32_MAX:
        hits.add(B.INT32_RESULT_OVERFLOW)


def _bits(x: float) -> int:
    return binary32.to_bits(x)


def _float_value_classes(values: Iterable[float], hits: set[Boundary]) -> None:
    for x in values:
        bits = _bits(x)
        magnitude = bits & 0x7FFFFFFF
        negative = bool(bits & 0x80000000)
        if magnitude > 0x7F800000:
            hits.add(B.NAN_NEGATIVE if negative else B.NAN_POSITIVE)
            if magnitude & 0x007FFFFF != _QUIET_NAN_FRACTION:
                hits.add(B.NAN_PAYLOAD)
        elif magnitude == 0x7F800000:
            hits.add(B.NEGATIVE_INF if negative else B.POSITIVE_INF)
        elif magnitude == 0:
            hits.add(B.NEGATIVE_ZERO if negative else B.POSITIVE_ZERO)
        elif magnitude == 1:
            hits.add(B.MIN_SUBNORMAL)
        elif magnitude == 0x007FFFFF:
            hits.add(B.MAX_SUBNORMAL)
        elif magnitude == 0x00800000:
            hits.add(B.MIN_NORMAL)
        elif magnitude == 0x7F7FFFFF:
            hits.add(B.MAX_FINITE)


def _int_value_classes(values: Iterable[int], converted: bool, hits: set[Boundary]) -> None:
    for v in values:
        if v == INT32_MAX:
            hits.add(B.INT32_MAX)
        elif v == INT32_MIN:
            hits.add(B.INT32_MIN)
        elif v == 0:
            hits.add(B.INT32_ZERO)
        elif v == -1:
            hits.add(B.INT32_MINUS_ONE)
        if converted and binary32.round_to_binary32(v) != v:
            hits.add(
                B.INT32_TO_FLOAT32_TIE if _is_midpoint(Fraction(v)) else B.INT32_TO_FLOAT32_INEXACT
            )


def _sequential(terms: Sequence[float], product: bool, wide: bool) -> tuple[float, bool]:
    """Sequential sum/product; (result as binary32 float, some partial overflowed)."""
    overflowed = False
    if wide:
        acc = 1.0 if product else 0.0
        for t in terms:
            acc = acc * t if product else acc + t
        return binary32.round_to_binary32(acc), False
    with np.errstate(all="ignore"):
        acc32 = np.float32(1.0 if product else 0.0)
        for t in terms:
            acc32 = (
                np.float32(acc32 * np.float32(t)) if product else np.float32(acc32 + np.float32(t))
            )
            overflowed |= bool(np.isinf(acc32))
    return float(acc32), overflowed


def _sum_classes(terms: Sequence[Any], hits: set[Boundary]) -> None:
    if not terms:
        hits.add(B.EMPTY_REDUCTION)
        return
    if isinstance(terms[0], int) and not isinstance(terms[0], bool):
        total = 0
        outside = False
        for t in terms:
            total += t
            outside |= not INT32_MIN <= total <= INT32_MAX
        _int_result_classes(total, hits)
        if outside and INT32_MIN <= total <= INT32_MAX:
            hits.add(B.INT32_PARTIAL_SUM_OUTSIDE)
        return
    if all(t == 0 and math.copysign(1.0, t) < 0 for t in terms):
        hits.add(B.SUM_ALL_NEGATIVE_ZERO)
    if math.inf in terms and -math.inf in terms:
        hits.add(B.SUM_INF_MINUS_INF)
    if any(math.isnan(t) or math.isinf(t) for t in terms):
        return
    exact = sum((Fraction(t) for t in terms), Fraction(0))
    magnitude = sum((abs(Fraction(t)) for t in terms), Fraction(0))
    if sum(t != 0 for t in terms) >= 2 and abs(exact) <= magnitude * CANCELLATION_RATIO:
        hits.add(B.SUM_CANCELLATION)
    ascending, overflowed = _sequential(terms, False, False)
    descending, _ = _sequential(terms[::-1], False, False)
    if _bits(ascending) != _bits(descending):
        hits.add(B.SUM_ORDER_SENSITIVE)
    if _bits(ascending) != _bits(_sequential(terms, False, True)[0]):
        hits.add(B.SUM_WIDTH_SENSITIVE)
    if overflowed and not math.isinf(binary32.round_fraction(exact)):
        hits.add(B.SUM_INTERMEDIATE_OVERFLOW)


def accumulation_classes(
    plan: OperationPlan, terms: Sequence[Any], hits: set[Boundary], *, off_last_axis: bool = False
) -> None:
    """The order classes of one accumulation group of *plan* (docs/shape-classes.md):
    for a sequential sum or product, each other order that changes its result
    (:func:`~conformance.generate.order_values.order_classes`); for a FLOATING sum
    with a Float64 accumulator, each way of not honouring it that the acceptance set
    rejects (:func:`~conformance.generate.accumulator_witnesses.faults_rejected`),
    also as the OFF_LAST_AXIS class when the group runs along an axis other than
    the input's last; for an EXACT_INTEGER sum, each parallel order one of whose
    Int32 partial sums leaves the range while the total fits
    (:func:`~conformance.generate.int32_partials.partial_classes`)."""
    accumulation = plan.accumulation
    if accumulation is Accumulation.SEQUENTIAL_BINARY32:
        hits |= order_classes(terms, np.add)
    elif accumulation is Accumulation.SEQUENTIAL_BINARY32_PRODUCT:
        hits |= order_classes(terms, np.multiply)
    elif accumulation is Accumulation.EXACT_INTEGER:
        hits |= partial_classes(terms)
    elif accumulation is Accumulation.FLOATING and plan.accumulator_dtype is DType.Float64:
        for fault in faults_rejected(terms):
            on_last, off_last = FAULT_CLASSES[fault]
            hits.add(off_last if off_last_axis else on_last)


def _product_classes(terms: Sequence[float], hits: set[Boundary]) -> None:
    if not terms:
        hits.add(B.EMPTY_REDUCTION)
        return
    if any(t == 0 for t in terms) and any(math.isinf(t) for t in terms):
        hits.add(B.PRODUCT_ZERO_TIMES_INF)
    if any(math.isnan(t) or math.isinf(t) for t in terms):
        return
    exact = Fraction(1)
    for t in terms:
        exact *= Fraction(t)
    ascending, overflowed = _sequential(terms, True, False)
    descending, _ = _sequential(terms[::-1], True, False)
    if _bits(ascending) != _bits(descending):
        hits.add(B.PRODUCT_ORDER_SENSITIVE)
    exact_rounded = binary32.round_fraction(exact)
    if overflowed and not math.isinf(exact_rounded):
        hits.add(B.PRODUCT_INTERMEDIATE_OVERFLOW)
    if exact_rounded != 0:
        acc = np.float32(1.0)
        with np.errstate(all="ignore"):
            for t in terms:
                acc = np.float32(acc * np.float32(t))
                if acc == 0:
                    hits.add(B.PRODUCT_INTERMEDIATE_UNDERFLOW)
                    break


def _extremum_classes(
    group: Sequence[float], rule: str, hits: set[Boundary], *, track_ties: bool
) -> None:
    if not group:
        return
    nans = [x for x in group if math.isnan(x)]
    if len(group) >= 2:
        if math.isnan(group[0]):
            hits.add(B.EXTREMUM_NAN_FIRST)
        elif nans:
            hits.add(B.EXTREMUM_NAN_LATER)
    if len({_bits(x) for x in nans}) >= 2:
        hits.add(B.EXTREMUM_NANS_DIFFERENT_BITS)
    if nans:
        return
    extreme = max(group) if rule == "max" else min(group)
    if extreme == 0:
        signs = [math.copysign(1.0, x) < 0 for x in group if x == 0]
        if True in signs and False in signs:
            hits.add(B.EXTREMUM_ZERO_TIE_NEG_FIRST if signs[0] else B.EXTREMUM_ZERO_TIE_POS_FIRST)
    elif track_ties and sum(x == extreme for x in group) >= 2:
        hits.add(B.EXTREMUM_VALUE_TIE)


def _stable_order(row: Sequence[float], descending: bool) -> list[int]:
    """The stable sort order: NaNs one class, last ascending and first descending."""

    def key(i: int) -> tuple[int, float]:
        x = row[i]
        if math.isnan(x):
            return (1, 0.0) if not descending else (0, 0.0)
        return (0, x) if not descending else (1, -x)

    return sorted(range(len(row)), key=key)


def _order_classes(
    row: Sequence[float], descending: bool, k: int | None, hits: set[Boundary]
) -> None:
    nans = [x for x in row if math.isnan(x)]
    numbers_ = [x for x in row if not math.isnan(x)]
    if nans and numbers_:
        hits.add(B.SORT_NAN)
    if len({_bits(x) for x in nans}) >= 2:
        hits.add(B.SORT_NANS_DIFFERENT_BITS)
    nonzero = [x for x in numbers_ if x != 0]
    if len(set(nonzero)) < len(nonzero):
        hits.add(B.SORT_TIE)
    zero_signs = [math.copysign(1.0, x) < 0 for x in numbers_ if x == 0]
    if True in zero_signs and False in zero_signs:
        hits.add(B.SORT_ZEROS_NEG_FIRST if zero_signs[0] else B.SORT_ZEROS_POS_FIRST)
    if k is None:
        return
    order = _stable_order(row, descending)
    if 0 < k < len(row):
        a, b = row[order[k - 1]], row[order[k]]
        if (math.isnan(a) and math.isnan(b)) or a == b:
            hits.add(B.TOPK_TIE_AT_CUTOFF)
    if any(math.isnan(row[i]) for i in order[:k]):
        hits.add(B.TOPK_NAN_SELECTED)


class Invalid(Exception):
    """The call's structure is invalid; the error classes say why."""
