"""Witness values of the arithmetic and weak-scalar input classes.

:data:`FLOAT_WITNESSES` and :data:`INT32_WITNESSES` hold, per binary
operation and input class, operand pairs whose exact result lies in the
class (a tie, a near-tie, an overflow, an Int32 result at or one past the
range, ...); :func:`arithmetic_witnesses` fits them to a plan's operands
(:func:`fit_operands`).  :data:`WEAK_REPRESENTATIVES` gives values of each
weak-scalar class and :func:`weak_classes_of` measures the classes of a weak
value; :func:`weak_class_values` lists, per weak position of a plan, the
classes that apply with their representatives.  Applicability
(:func:`conformance.classes.applicability.applicable_classes`) and the constructive
examples (:mod:`conformance.generate.strategies`) read these tables.
"""

from __future__ import annotations

import functools
import itertools
import math
import numbers
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from conformance.classes.boundary import (
    F32,
    I32,
    MAX_FINITE,
    MIN_NORMAL,
    MIN_SUBNORMAL,
    B,
    Boundary,
    _neighbours,
    plan_facts,
)
from conformance.model.calls import Family
from oracle import (
    Arithmetic,
    OperandRole,
    OperationPlan,
    binary32,
    resolve_operation_plan,
)
from oracle.dtypes import INT32_MAX, INT32_MIN

__all__ = [
    "FLOAT_WITNESSES",
    "INT32_WITNESSES",
    "WEAK_REPRESENTATIVES",
    "arithmetic_witnesses",
    "fit_operands",
    "weak_class_values",
    "weak_classes_of",
    "weak_representatives",
]

# ---------------------------------------------------------------------------
# Exact arithmetic: the operations whose exact results are classified
# ---------------------------------------------------------------------------


def _int_pow(base: int, exponent: int) -> int | None:
    """base**exponent for a non-negative exponent, without huge powers.

    A result certainly beyond 2**64 in magnitude is returned as +-2**64 (far
    outside Int32; its sign is right).  A negative exponent gives None.
    """
    if exponent < 0:
        return None
    if base in (0, 1):
        return 1 if exponent == 0 else base
    if base == -1:
        return -1 if exponent % 2 else 1
    if exponent > 64:
        return -(2**64) if base < 0 and exponent % 2 else 2**64
    return base**exponent


#: Operation -> exact binary function on Fractions (None when undefined).
_EXACT_FLOAT: dict[str, Any] = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "elementwise_mul": lambda x, y: x * y,
    "div": lambda x, y: x / y if y != 0 else None,
}
#: Operation -> exact binary function on ints (Int32 checked plans).
_EXACT_INT: dict[str, Any] = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "elementwise_mul": lambda x, y: x * y,
    "pow": _int_pow,
}
_COMMUTATIVE = {"add", "mul", "elementwise_mul"}
_WITNESS_NAME = {"elementwise_mul": "mul"}


def _mul_near_tie(residue: int) -> tuple[int, int]:
    """24-bit integers x, y with x*y in [2**47, 2**48) and x*y = residue (mod 2**24)."""
    modulus = 2**24
    for x in range(modulus - 1, modulus // 2, -2):
        y = residue * pow(x, -1, modulus) % modulus
        if modulus // 2 <= y < modulus and 2**47 <= x * y < 2**48:
            return x, y
    raise AssertionError("no near-tie product found")  # pragma: no cover


def _div_near_tie(side: int) -> tuple[int, int]:
    """24-bit integers a, b with a/b = M/2**25 - side/(b*2**25), M odd (a midpoint)."""
    modulus = 2**25
    for m in range(2**24 + 1, modulus, 2):
        b = side * pow(m, -1, modulus) % modulus
        if 2**22 <= b < 2**24 and (m * b - side) % modulus == 0:
            a = (m * b - side) // modulus
            if 0 < a < 2**24:
                return a, b
    raise AssertionError("no near-tie quotient found")  # pragma: no cover


_MS = MIN_SUBNORMAL
_ONE_MINUS = binary32.from_bits(0x3F7FFFFF)  # 1 - 2**-24

#: Constructive operand pairs per exact arithmetic and class (Float32 plans).
#: Values are ints or floats, all exactly binary32; an int also fits an Int32
#: operand.  sub's pairs are add's with the second operand negated.
FLOAT_WITNESSES: dict[str, dict[Boundary, tuple[tuple[Any, Any], ...]]] = {
    "add": {
        B.TIE_TO_EVEN_DOWN: ((2**24, 1), (1.0, 2.0**-24)),
        B.TIE_TO_EVEN_UP: ((2**24 + 2, 1), (1.0 + 2.0**-23, 2.0**-24)),
        B.NEAR_TIE_BELOW: ((2**44, 2**20 - 1), (1.0, 2.0**-24 - 2.0**-48)),
        B.NEAR_TIE_ABOVE: ((2**44, 2**20 + 1), (1.0, 2.0**-24 + 2.0**-47)),
        B.OVERFLOW_BY_ONE_ULP: ((MAX_FINITE, 2.0**103), (MAX_FINITE, 2.0**104)),
        B.ROUNDS_TO_MAX_FINITE: ((MAX_FINITE, 1), (MAX_FINITE, 2.0**102)),
        B.SUBNORMAL_RESULT: ((_MS, 0), (MIN_NORMAL, -_MS)),
        # UNDERFLOW_*, ROUNDS_UP_TO_MIN_NORMAL: unreachable, every exact sum of
        # binary32 values is a multiple of 2**-149.
    },
    "mul": {
        B.TIE_TO_EVEN_DOWN: ((4097, 4097),),
        B.TIE_TO_EVEN_UP: ((4097, 4099),),
        B.NEAR_TIE_BELOW: (_mul_near_tie(2**23 - 1),),
        B.NEAR_TIE_ABOVE: (_mul_near_tie(2**23 + 1),),
        B.OVERFLOW_BY_ONE_ULP: ((2.0**126, 4), (2.0**127, 2)),
        B.ROUNDS_TO_MAX_FINITE: ((MAX_FINITE, 1),),
        B.SUBNORMAL_RESULT: ((_MS, 3), (MIN_NORMAL, 0.5)),
        B.UNDERFLOW_TO_ZERO: ((_MS, 0.5),),
        B.UNDERFLOW_TO_MIN_SUBNORMAL: ((_MS, 0.75),),
        B.ROUNDS_UP_TO_MIN_NORMAL: ((_ONE_MINUS, MIN_NORMAL),),
    },
    "div": {
        # A quotient can be a midpoint only on the subnormal grid.
        B.TIE_TO_EVEN_DOWN: ((5 * _MS, 2),),
        B.TIE_TO_EVEN_UP: ((3 * _MS, 2),),
        B.NEAR_TIE_BELOW: (_div_near_tie(1),),
        B.NEAR_TIE_ABOVE: (_div_near_tie(-1),),
        B.OVERFLOW_BY_ONE_ULP: ((MAX_FINITE, _ONE_MINUS), (1, 2.0**-128)),
        B.ROUNDS_TO_MAX_FINITE: ((MAX_FINITE, 1), (2**24 - 1, 2.0**-104)),
        B.SUBNORMAL_RESULT: ((MIN_NORMAL, 2), (1, 2.0**127)),
        B.UNDERFLOW_TO_ZERO: ((_MS, 2),),
        B.UNDERFLOW_TO_MIN_SUBNORMAL: ((3 * _MS, 4), (_MS, 1.5)),
        B.ROUNDS_UP_TO_MIN_NORMAL: ((binary32.from_bits(0x00FFFFFF), 2),),
    },
}
FLOAT_WITNESSES["sub"] = {
    cls: tuple((x, -y) for x, y in pairs) for cls, pairs in FLOAT_WITNESSES["add"].items()
}

_JUST_OUTSIDE_ADD = ((INT32_MAX, 1), (INT32_MIN, -1))
#: Constructive operand pairs per exact integer arithmetic and class (Int32 plans).
INT32_WITNESSES: dict[str, dict[Boundary, tuple[tuple[int, int], ...]]] = {
    "add": {
        B.INT32_RESULT_AT_LIMIT: ((INT32_MAX - 1, 1), (INT32_MIN + 1, -1)),
        B.INT32_RESULT_JUST_OUTSIDE: _JUST_OUTSIDE_ADD,
        B.INT32_RESULT_OVERFLOW: ((INT32_MAX, INT32_MAX), *_JUST_OUTSIDE_ADD),
    },
    "sub": {
        B.INT32_RESULT_AT_LIMIT: ((INT32_MAX - 1, -1), (INT32_MIN + 1, 1)),
        B.INT32_RESULT_JUST_OUTSIDE: ((INT32_MIN, 1), (0, INT32_MIN)),
        B.INT32_RESULT_OVERFLOW: ((INT32_MIN, INT32_MAX), (INT32_MIN, 1)),
    },
    "mul": {
        B.INT32_RESULT_AT_LIMIT: ((-(2**30), 2), (INT32_MAX, 1), (INT32_MIN, 1)),
        B.INT32_RESULT_JUST_OUTSIDE: ((2**30, 2), (INT32_MIN, -1), (3, -715827883)),
        B.INT32_RESULT_OVERFLOW: ((65536, 65536), (2**30, 2), (INT32_MIN, -1)),
    },
    "pow": {
        B.INT32_RESULT_AT_LIMIT: ((-2, 31), (INT32_MAX, 1), (INT32_MIN, 1)),
        B.INT32_RESULT_JUST_OUTSIDE: ((2, 31),),
        B.INT32_RESULT_OVERFLOW: ((2, 31), (3, 2**31 - 1), (46341, 2)),
    },
}


def _exact_fraction(value: Any) -> Fraction | None:
    if isinstance(value, (bool, np.bool_)):
        return Fraction(int(value))
    if isinstance(value, numbers.Integral):
        return Fraction(int(value))
    if isinstance(value, Fraction):
        return value
    as_float = float(value)
    if math.isnan(as_float) or math.isinf(as_float):
        return None
    return Fraction(as_float)


def _neutral_weak(plan: OperationPlan, position: int) -> Any:
    """A weak value at *position* that (with the others neutral) selects *plan*."""
    return weak_representatives(plan)[position][0]


def _policy_with(plan: OperationPlan, values: dict[int, Any]) -> tuple[Any, ...]:
    operands = []
    for index, operand in enumerate(plan.operands):
        if index in values:
            operands.append(values[index])
        elif operand.role is OperandRole.TENSOR:
            operands.append(operand.dtype)
        else:
            operands.append(_neutral_weak(plan, index))
    return tuple(operands)


def _selects(plan: OperationPlan, operands: Sequence[Any]) -> bool:
    try:
        return (
            resolve_operation_plan(
                plan.operation, *operands, accumulator_dtype=plan.accumulator_dtype
            )
            == plan
        )
    except (TypeError, ValueError, OverflowError, NotImplementedError):
        return False


def _materialised(value: Any, target: Any) -> Any:
    """A weak or Int32 value materialised in *target* (int or binary32 float)."""
    if target is I32:
        return int(value)
    return binary32.round_to_binary32(value)


def _same_exact(a: Any, b: Any) -> bool:
    """Same real value (any NaN matches any NaN; zeros must agree in sign)."""
    a_nan = isinstance(a, float) and math.isnan(a)
    b_nan = isinstance(b, float) and math.isnan(b)
    if a_nan or b_nan:
        return a_nan and b_nan
    if a != b:
        return False
    if a == 0 and isinstance(a, float) and isinstance(b, float):
        return math.copysign(1.0, a) == math.copysign(1.0, b)
    return True


def _weak_forms(value: Any) -> list[Any]:
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return [value]
    if isinstance(value, float) and value == 0 and math.copysign(1.0, value) < 0:
        return [value]
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return [int(value), float(value)]
    return [float(value)]


def fit_operands(plan: OperationPlan, values: Sequence[Any]) -> tuple[Any, ...] | None:
    """Concrete operand values realising the exact *values* under *plan*, or None.

    Floats for Float32 tensors, ints for Int32 tensors (exactly convertible
    when the plan converts them), and for weak operands an int or float form
    whose materialisation is exactly the value and which selects *plan*.
    """
    chosen: list[Any] = []
    weak_forms: dict[int, list[Any]] = {}
    for index, (operand, value) in enumerate(zip(plan.operands, values)):
        if operand.role is OperandRole.WEAK_SCALAR:
            weak_forms[index] = [
                f
                for f in _weak_forms(value)
                if _same_exact(_materialised(f, operand.convert_to), value)
            ]
            chosen.append(None)
        elif operand.dtype is F32:
            if isinstance(value, bool):
                return None
            as_float = float(value)
            if not _same_exact(as_float, value) or not binary32.is_binary32(as_float):
                return None
            chosen.append(as_float)
        elif operand.dtype is I32:
            if isinstance(value, bool) or not (
                isinstance(value, int) or (isinstance(value, float) and value.is_integer())
            ):
                return None
            if isinstance(value, float) and math.copysign(1.0, value) < 0 and value == 0:
                return None
            as_int = int(value)
            if not INT32_MIN <= as_int <= INT32_MAX:
                return None
            if _materialised(as_int, operand.convert_to) != as_int:
                return None
            chosen.append(as_int)
        else:  # Bool
            if not isinstance(value, bool):
                return None
            chosen.append(value)
    positions = list(weak_forms)
    for combination in itertools.product(*(weak_forms[p] for p in positions)):
        weak = dict(zip(positions, combination))
        if _selects(plan, _policy_with(plan, weak)):
            for position, form in weak.items():
                chosen[position] = form
            return tuple(chosen)
    return None


@functools.cache
def arithmetic_witnesses(plan: OperationPlan) -> dict[Boundary, tuple[tuple[Any, ...], ...]]:
    """Operand values per rounding/range/Int32-result class reachable under *plan*.

    Each entry is a tuple of concrete policy-operand values (floats for Float32
    tensors, ints for Int32 tensors, typed weak scalars) whose exact result
    hits the class.  Empty for plans without such an exact arithmetic.
    """
    facts = plan_facts(plan)
    if facts.family is not Family.ELEMENTWISE or len(plan.operands) != 2:
        return {}
    name = _WITNESS_NAME.get(plan.operation, plan.operation)
    if plan.compute is Arithmetic.BINARY32 and plan.operation in _EXACT_FLOAT:
        table = FLOAT_WITNESSES.get(name, {})
    elif plan.compute is Arithmetic.INT32_EXACT_CHECKED and plan.operation in _EXACT_INT:
        table = INT32_WITNESSES.get(name, {})
    else:
        return {}
    result: dict[Boundary, tuple[tuple[Any, ...], ...]] = {}
    for cls, pairs in table.items():
        fitted = []
        for x, y in pairs:
            orders = [(x, y), (y, x)] if plan.operation in _COMMUTATIVE else [(x, y)]
            for pair in orders:
                operands = fit_operands(plan, pair)
                if operands is not None and operands not in fitted:
                    fitted.append(operands)
        if fitted:
            result[cls] = tuple(fitted)
    return result


# ---------------------------------------------------------------------------
# Weak scalars
# ---------------------------------------------------------------------------

#: Representative values of each weak class (used to derive applicability by
#: resolving them through the planner, and as constructive examples).
WEAK_REPRESENTATIVES: dict[Boundary, tuple[Any, ...]] = {
    B.WEAK_NONNEGATIVE_INT: (2, 0, 7),
    B.WEAK_NEGATIVE_INT: (-1, -3),
    B.WEAK_INT32_MAX: (INT32_MAX,),
    B.WEAK_INT32_MIN: (INT32_MIN,),
    B.WEAK_TWO_POW_31: (2**31,),
    B.WEAK_BELOW_INT32_MIN: (INT32_MIN - 1,),
    B.WEAK_FAR_OUTSIDE_INT32: (2**40, -(2**64)),
    B.WEAK_BOOL: (True, False),
    B.WEAK_FLOAT: (0.5, 2.0, -3.25),
    B.WEAK_FLOAT_SPECIAL: (math.nan, math.inf, -math.inf, -0.0, 0.0),
    B.WEAK_FLOAT_INEXACT: (0.1, -1e-50),
    B.WEAK_FRACTION: (Fraction(1, 3), Fraction(-5, 2)),
    B.WEAK_NUMPY_SCALAR: (
        np.float32(1.5),
        np.float64(0.1),
        np.int64(3),
        np.int32(-2),
        np.bool_(True),
    ),
    B.WEAK_CONVERSION_TIE: (2**24 + 1, 16777217.0, Fraction(2**25 + 2)),
    B.WEAK_ROUNDS_TO_INF: (2**128, 1e39, -1e39, Fraction(10**39)),
    # just above the midpoint 2**54 + 2**30 (float64 rounds onto it, then ties go down to
    # 2**54); just below the midpoint 2**54 + 3 * 2**30 (ties then go up to 2**54 + 2**32)
    B.WEAK_DOUBLE_ROUNDING: (2**54 + 2**30 + 1, -(2**54 + 3 * 2**30 - 1)),
}
_FLOAT32_ONLY_WEAK = {
    B.WEAK_CONVERSION_TIE,
    B.WEAK_ROUNDS_TO_INF,
    B.WEAK_FLOAT_INEXACT,
    B.WEAK_DOUBLE_ROUNDING,
}
_NEUTRAL_WEAK = (1, 1.0, True, 0.5, -1, 2**31, Fraction(1, 2), np.float32(1.0))


def _is_midpoint(q: Fraction) -> bool:
    if q == 0:
        return False
    rounded = binary32.round_fraction(q)
    if math.isinf(rounded) or Fraction(rounded) == q:
        return False
    lo, hi = _neighbours(abs(q))
    return abs(q) * 2 == lo + hi


def _double_rounds(value: Any) -> bool:
    """A weak int whose binary64 rounding is a binary32 midpoint it is not itself on."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        return False
    v = int(value)
    if abs(v) >= 2**1024:
        return False
    via = Fraction(float(v))
    # via != v: v itself is no binary32 midpoint (those have 25 bits, exact in binary64)
    return via != v and _is_midpoint(via)


def weak_classes_of(value: Any, convert_to: Any) -> set[Boundary]:
    """The weak classes a weak *value* materialised in *convert_to* hits."""
    hits: set[Boundary] = set()
    if isinstance(value, np.generic):
        hits.add(B.WEAK_NUMPY_SCALAR)
    if isinstance(value, (bool, np.bool_)):
        hits.add(B.WEAK_BOOL)
    elif isinstance(value, numbers.Integral):
        v = int(value)
        if v == INT32_MAX:
            hits.add(B.WEAK_INT32_MAX)
        elif v == INT32_MIN:
            hits.add(B.WEAK_INT32_MIN)
        elif v == 2**31:
            hits.add(B.WEAK_TWO_POW_31)
        elif v == INT32_MIN - 1:
            hits.add(B.WEAK_BELOW_INT32_MIN)
        elif 0 <= v < INT32_MAX:
            hits.add(B.WEAK_NONNEGATIVE_INT)
        elif INT32_MIN < v < 0:
            hits.add(B.WEAK_NEGATIVE_INT)
        else:
            hits.add(B.WEAK_FAR_OUTSIDE_INT32)
    elif isinstance(value, (float, np.floating)):
        hits.add(B.WEAK_FLOAT)
        as_float = float(value)
        if math.isnan(as_float) or math.isinf(as_float) or as_float == 0:
            hits.add(B.WEAK_FLOAT_SPECIAL)
        elif not binary32.is_binary32(as_float) and convert_to is F32:
            hits.add(B.WEAK_FLOAT_INEXACT)
    elif isinstance(value, Fraction):
        hits.add(B.WEAK_FRACTION)
    if convert_to is F32:
        exact = _exact_fraction(value)
        if exact is not None:
            if _is_midpoint(exact):
                hits.add(B.WEAK_CONVERSION_TIE)
            if math.isinf(binary32.round_fraction(exact)):
                hits.add(B.WEAK_ROUNDS_TO_INF)
            if _double_rounds(value):
                hits.add(B.WEAK_DOUBLE_ROUNDING)
    return hits


@functools.cache
def _weak_table(plan: OperationPlan) -> dict[int, dict[Boundary, tuple[Any, ...]]]:
    """Per weak position: the classes whose representatives select *plan*, with them."""
    facts = plan_facts(plan)
    neutral = _first_completion(plan, {}, list(facts.weak_positions))
    if neutral is None:
        raise LookupError(f"{plan.describe()}: no weak value selects this plan")
    table: dict[int, dict[Boundary, tuple[Any, ...]]] = {}
    for position in facts.weak_positions:
        convert_to = plan.operands[position].convert_to
        classes: dict[Boundary, tuple[Any, ...]] = {}
        for cls, values in WEAK_REPRESENTATIVES.items():
            if cls in _FLOAT32_ONLY_WEAK and convert_to is not F32:
                continue
            fitting = tuple(
                v
                for v in values
                if cls in weak_classes_of(v, convert_to)
                and _selects(plan, _policy_with_neutral(plan, neutral, {position: v}))
            )
            if fitting:
                classes[cls] = fitting
        table[position] = classes
    return table


def _first_completion(
    plan: OperationPlan, fixed: dict[int, Any], others: list[int]
) -> dict[int, Any] | None:
    """Weak values for the positions *others* that, with *fixed*, select *plan*."""
    if not others:
        operands = [
            fixed[i] if o.role is OperandRole.WEAK_SCALAR else o.dtype
            for i, o in enumerate(plan.operands)
        ]
        return fixed if _selects(plan, operands) else None
    head, rest = others[0], others[1:]
    for candidate in _NEUTRAL_WEAK:
        found = _first_completion(plan, {**fixed, head: candidate}, rest)
        if found is not None:
            return found
    return None


def _policy_with_neutral(
    plan: OperationPlan, neutral: dict[int, Any], values: dict[int, Any]
) -> list[Any]:
    return [
        values.get(i, neutral.get(i)) if o.role is OperandRole.WEAK_SCALAR else o.dtype
        for i, o in enumerate(plan.operands)
    ]


@functools.cache
def weak_representatives(plan: OperationPlan) -> dict[int, tuple[Any, ...]]:
    """Per weak position of *plan*: representative values that select it (neutral first)."""
    result = {}
    for position, classes in _weak_table(plan).items():
        values: list[Any] = []
        for cls in (B.WEAK_NONNEGATIVE_INT, B.WEAK_FLOAT, B.WEAK_BOOL, *classes):
            for v in classes.get(cls, ()):
                if not any(_same_value(v, w) for w in values):
                    values.append(v)
        result[position] = tuple(values)
    return result


def _same_value(a: Any, b: Any) -> bool:
    return type(a) is type(b) and (a == b or (a != a and b != b))


def weak_class_values(plan: OperationPlan, position: int) -> dict[Boundary, tuple[Any, ...]]:
    """The weak classes applicable at *position* with their representatives."""
    return dict(_weak_table(plan)[position])
