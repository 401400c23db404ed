"""The building blocks of generated calls: elements, weak scalars, shapes, one call.

Float32 elements mix the special bit patterns of :mod:`conformance.classes.boundary`
with ordinary values, Int32 elements mix values near +-2**31 with small ones,
and tensors are often filled from a small pool of values and their negations so
that ties, signed-zero pairs and cancellations are common.  Weak scalars are
found by resolving candidates of every weak class through the central planner,
so a drawn scalar selects exactly the plan asked for.  The family modules
(:mod:`conformance.generate.families`) build their calls from these; the
strategies of whole calls are :mod:`conformance.generate.strategies`.
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

from conformance.classes.boundary import (
    INT32_MAX,
    INT32_MIN,
    SPECIAL_FLOAT_BITS,
    Boundary,
    plan_facts,
)
from conformance.classes.witness_tables import (
    weak_class_values,
    weak_representatives,
)
from conformance.generate.rule_operands import tensor_dtype
from conformance.model.calls import Call, forward_arguments, parameters_of
from oracle import (
    SUPPORTED_ACCUMULATOR_DTYPES,
    DType,
    OperandRole,
    OperationPlan,
    Tensor,
    binary32,
    resolve_operation_plan,
)

__all__ = [
    "SPECIAL_FLOATS",
    "SPECIAL_INT32S",
    "accumulator_choices",
    "float32_elements",
    "int32_elements",
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


# ---------------------------------------------------------------------------
# Fixed calls the examples and the family modules share
# ---------------------------------------------------------------------------

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
        dtype = tensor_dtype(operand)
        operands.append(Tensor(dtype, shape, (_neutral(dtype),) * size))
    return _make(plan, operands, raises=raises, note=note)
