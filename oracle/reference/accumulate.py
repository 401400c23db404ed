"""Exact reference semantics of the reductions and of FLOATING accumulation.

Every public operation takes the resolved :class:`~oracle.plan.OperationPlan`
first and then its forward arguments, with the dtype operands already
materialised as :class:`~oracle.tensor.Tensor` values of the plan's
``convert_to`` dtypes.  The plan alone decides dtypes and the accumulation
kind; nothing here re-derives them.

* :func:`reduce_sum` -- EXACT_INTEGER (Int32: exact, only the final value is
  narrowed and checked) or FLOATING (Float32: a :class:`~oracle.expectation.Bounded`
  acceptance set, see :func:`floating_sum_interval`);
* :func:`reduce_prod` -- SEQUENTIAL_BINARY32_PRODUCT, from 1, ascending
  logical order, rounded after every product;
* :func:`reduce_max` / :func:`reduce_min` -- the first NaN in logical order
  wins with its bits, otherwise the largest / smallest value with -0 < +0;
* :func:`argmax` / :func:`argmin` -- Int32 index (flat for ``axis=None``); the
  first NaN wins, otherwise the first extreme, where -0 and +0 tie;
* :func:`cumsum` -- SEQUENTIAL_BINARY32 inclusive prefix sums from +0.

Shared pieces used by :mod:`oracle.reference.structured` as well: the IEEE
binary32 steps :func:`add32` and :func:`mul32`, :func:`sequential_sum`, the
axis normalisation (:func:`normalize_axes`, :func:`normalize_axis`), the
directed roundings :func:`round_down32` / :func:`round_up32` and the FLOATING
acceptance-set builder :func:`floating_sum_interval`.

Bad calls are refused before anything is computed: TypeError for an argument
of the wrong type (an axis that is a float or a bool, a tensor of the wrong
dtype), ValueError naming the shape for a bad axis or an empty
max/min/argmax/argmin; OverflowError for an Int32 result outside Int32 (the
only error that depends on values).  ``docs/semantics/structured.md`` is the
semantics document for everything here.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from .. import binary32
from ..dtypes import DType, SimpleDType
from ..errors import describe, integer_text, shape_text
from ..expectation import Bounded, Interval
from ..plan import Accumulation, OperationPlan
from ..tensor import INT32_MAX, INT32_MIN, Tensor

__all__ = [
    "add32",
    "argmax",
    "argmin",
    "check_bool",
    "check_int",
    "check_operand",
    "cumsum",
    "floating_accumulator",
    "floating_sum_interval",
    "lines_along",
    "mul32",
    "narrow_int32",
    "normalize_axes",
    "normalize_axis",
    "reduce_max",
    "reduce_min",
    "reduce_prod",
    "reduce_sum",
    "require_accumulation",
    "round_down32",
    "round_up32",
    "sequential_sum",
]

_INF = math.inf
# Every finite binary32 value is an integer multiple of 2**-149: scaled by
# 2**149 it is an exact Python int (at most 2**277 in magnitude).
_SCALE_BITS = 149
_SCALE = 1 << _SCALE_BITS


# ---------------------------------------------------------------------------
# Argument validation (one helper per message kind)
# ---------------------------------------------------------------------------


def check_operand(operation: str, plan: OperationPlan, position: int, x: object) -> Tensor:
    """Require *x* to be a Tensor in the dtype the plan materialises operand *position* in."""
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{operation}: operand {position} must be an oracle.Tensor, got {type(x).__name__}"
        )
    if position >= len(plan.operands):
        raise ValueError(f"{operation}: the plan {plan.describe()} has no operand {position}")
    expected = plan.operands[position].convert_to
    if x.dtype is not expected:
        raise TypeError(
            f"{operation}: operand {position} must be materialised as {expected.name} "
            f"(the plan's convert_to), got a {x.dtype.name} tensor of shape {x.shape}"
        )
    return x


def require_accumulation(
    operation: str, plan: OperationPlan, *allowed: Accumulation | None
) -> Accumulation | None:
    """Return the plan's accumulation, refusing a plan made for another rule."""
    if plan.accumulation not in allowed:
        names = ", ".join("None" if a is None else a.name for a in allowed)
        got = "None" if plan.accumulation is None else plan.accumulation.name
        raise ValueError(
            f"{operation}: the plan {plan.describe()} has accumulation {got}; "
            f"this rule implements {names}"
        )
    return plan.accumulation


def floating_accumulator(operation: str, plan: OperationPlan) -> SimpleDType:
    """The accumulator dtype of a FLOATING *plan* (ValueError for a plan without one:
    the planner never makes one, a hand-built plan may)."""
    if plan.accumulator_dtype is None:
        raise ValueError(
            f"{operation}: the plan {plan.describe()} accumulates in floating point but "
            "names no accumulator_dtype"
        )
    return plan.accumulator_dtype


def check_int(operation: str, name: str, value: object) -> int:
    """An integer parameter: a numbers.Integral that is not a bool (TypeError otherwise)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{operation}: {name} must be an int, got {describe(value)}")
    try:
        return int(value)
    except Exception as error:  # the object's own __int__ failed
        raise TypeError(
            f"{operation}: {name} must be a readable int; {describe(value)} "
            f"raised {type(error).__name__}"
        ) from error


def check_bool(operation: str, name: str, value: object) -> bool:
    """A flag parameter: a bool (numpy.bool_ included); TypeError otherwise."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{operation}: {name} must be a bool, got {describe(value)}")
    return bool(value)


def normalize_axis(operation: str, axis: object, shape: tuple[int, ...], name: str = "axis") -> int:
    """One axis of *shape*: an int in [-ndim, ndim), returned in [0, ndim).

    A non-integer (float, bool, None, str, ...) is a TypeError; an axis out of
    range -- any axis of a 0-d tensor -- is a ValueError naming the shape.
    """
    value = check_int(operation, name, axis)
    ndim = len(shape)
    if not -ndim <= value < ndim:
        shown = integer_text(value)
        raise ValueError(
            f"{operation}: {name} {shown} is out of range for shape {shape} "
            f"(ndim {ndim}; valid axes are {-ndim}..{ndim - 1})"
            if ndim
            else f"{operation}: {name} {shown} is out of range for a 0-d tensor (shape ())"
        )
    return value % ndim


def normalize_axes(operation: str, axis: object, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The reduced axes of *shape*, ascending: ``None`` is every axis.

    *axis* is None, an int or a tuple of ints (negative allowed); ``()``
    reduces nothing.  Naming a dimension twice (``(0, -2)`` on a 2-D tensor)
    or an axis out of range is a ValueError naming the shape; anything else
    (a float, a bool, a list) is a TypeError.
    """
    if axis is None:
        return tuple(range(len(shape)))
    if isinstance(axis, tuple):
        axes = [normalize_axis(operation, a, shape) for a in axis]
        for position, a in enumerate(axes):
            if a in axes[:position]:
                raise ValueError(
                    f"{operation}: axis {shape_text(tuple(map(int, axis)))} names dimension "
                    f"{a} more than once (shape {shape})"
                )
        return tuple(sorted(axes))
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, numbers.Integral):
        raise TypeError(
            f"{operation}: axis must be None, an int or a tuple of ints, got {describe(axis)}"
        )
    return (normalize_axis(operation, axis, shape),)


def narrow_int32(operation: str, value: int, where: str) -> int:
    """Narrow an exact integer result to Int32, OverflowError outside the range."""
    if not INT32_MIN <= value <= INT32_MAX:
        raise OverflowError(
            f"{operation}: the exact Int32 result {value} {where} lies outside "
            f"[{INT32_MIN}, {INT32_MAX}]"
        )
    return value


# ---------------------------------------------------------------------------
# binary32 steps
# ---------------------------------------------------------------------------


def _signbit(x: float) -> bool:
    return math.copysign(1.0, x) < 0


def _scaled(x: float) -> int:
    """The finite binary32 *x* times 2**149: an exact int (ldexp by 149 is exact)."""
    return int(math.ldexp(x, _SCALE_BITS))


def add32(a: float, b: float) -> float:
    """IEEE 754 binary32 addition of two binary32 values, rounded once.

    NaN in, NaN out (the quiet ``float('nan')``); inf + -inf is NaN; inf plus
    anything else finite or of its own sign is that inf.  A finite sum is
    rounded once from its exact value: when the binary64 sum is exact (Knuth's
    TwoSum error is zero; both operands are at most 2**128, so it cannot
    overflow) that is the binary64 sum, otherwise the sum is taken exactly as
    an integer in units of 2**-149 and rounded with
    :func:`oracle.binary32.round_fraction`.  An exact zero sum is -0 only when
    both operands are -0 (round to nearest), so ``x + -x`` is +0.
    """
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if math.isinf(a) or math.isinf(b):
        if math.isinf(a) and math.isinf(b) and a != b:
            return math.nan
        return a if math.isinf(a) else b
    total = a + b
    if total == 0:  # an exact cancellation (a nonzero exact sum is at least 2**-149)
        return -0.0 if _signbit(a) and _signbit(b) else 0.0
    b_virtual = total - a
    if (a - (total - b_virtual)) + (b - b_virtual) == 0:  # TwoSum: total is exact
        return binary32.round_to_binary32(total)
    return binary32.round_fraction(Fraction(_scaled(a) + _scaled(b), _SCALE))


def mul32(a: float, b: float) -> float:
    """IEEE 754 binary32 multiplication of two binary32 values, rounded once.

    The binary64 product of two binary32 values is exact: the significands
    have at most 24 bits, so the product has at most 48 <= 53, and its
    magnitude lies in [2**-298, 2**256), inside binary64's normal range.  So
    the Python float product *is* the exact product (with IEEE special cases:
    0 * inf = NaN, the sign of a zero is the XOR of the signs), and rounding
    it once to binary32 is the correctly rounded binary32 product.
    """
    return binary32.round_to_binary32(a * b)


def sequential_sum(terms: Sequence[float]) -> float:
    """Add *terms* to +0 in order, rounding to binary32 after every addition."""
    total = 0.0
    for term in terms:
        total = add32(total, term)
    return total


def _sequential_product(terms: Sequence[float]) -> float:
    product = 1.0
    for term in terms:
        product = mul32(product, term)
    return product


# ---------------------------------------------------------------------------
# Directed roundings to binary32
# ---------------------------------------------------------------------------


def round_down32(x: numbers.Rational) -> float:
    """The greatest binary32 value <= the exact rational *x* (-inf below -MAX_FINITE).

    Nearest rounding with :func:`oracle.binary32.round_fraction`, then one
    :func:`~oracle.binary32.next_down` step if that went above *x*.  A zero
    result is +0.
    """
    x = Fraction(x)
    r = binary32.round_fraction(x)
    if math.isinf(r):
        return binary32.MAX_FINITE if r > 0 else -_INF
    if Fraction(r) > x:
        r = binary32.next_down(r)
    return 0.0 if r == 0 else r


def round_up32(x: numbers.Rational) -> float:
    """The least binary32 value >= the exact rational *x* (+inf above MAX_FINITE).

    ``-round_down32(-x)``; a zero result is +0.
    """
    r = -round_down32(-Fraction(x))
    return 0.0 if r == 0 else r


# ---------------------------------------------------------------------------
# FLOATING accumulation: the acceptance set
# ---------------------------------------------------------------------------

#: Accumulator formats: (precision p including the implicit bit, emax).
_ACCUMULATOR_FORMATS: tuple[tuple[SimpleDType, int, int], ...] = (
    (DType.Float32, 24, 127),
    (DType.Float64, 53, 1023),
)

_MUST_BE_NAN = Interval(math.nan, math.nan, nan=True)


def _accumulator_format(accumulator: object) -> tuple[int, int]:
    for dtype, precision, emax in _ACCUMULATOR_FORMATS:
        if accumulator is dtype:
            return precision, emax
    raise NotImplementedError(
        f"floating_sum_interval: accumulator {accumulator!r} is not a supported floating "
        "accumulator (Float32 or Float64)"
    )


def _growth(k: int, u: Fraction) -> Fraction:
    """An upper bound of (1 + u)**k, for k >= 0.

    1 / (1 - k*u) while k*u <= 1/2 (because (1 + u)**k * (1 - k*u) <=
    (1 + u)**k * (1 - u)**k <= 1 by Bernoulli), else 2**ceil(3*k*u/2)
    (because (1 + u)**k <= e**(k*u) and e < 2**1.5).
    """
    if k <= 0:
        return Fraction(1)
    ku = k * u
    if ku <= Fraction(1, 2):
        return 1 / (1 - ku)
    return Fraction(2) ** math.ceil(Fraction(3, 2) * ku)


def _error_bound(weights: list[int], precision: int, growth: Fraction) -> int:
    """A bound B (units of 2**-149) on sum |e_i| over the non-root additions of any tree.

    *weights* are the magnitudes (in units of 2**-149) of the m >= 1 nonzero
    finite terms and *growth* >= (1 + u)**(m - 2).  Returns::

        q * floor(c * sum_{j=2..m-1} min(u * top(j), top(j) - w_1) * [c * top(j) >= 2**p * q] / q)

    (c = growth, top(j) the sum of the j largest weights, w_1 the largest,
    q the largest power of two dividing every weight), in integer arithmetic;
    the proof is in :func:`floating_sum_interval`.
    """
    if len(weights) < 3:
        return 0
    quantum = min(w & -w for w in weights)
    c_num, c_den = growth.numerator, growth.denominator
    exact_below = (quantum << precision) * c_den  # c * top < 2**p * q: no error
    weights = sorted(weights, reverse=True)
    largest = weights[0]
    top = largest
    total = 0  # in units of u * 2**-149
    for w in weights[1:-1]:
        top += w  # top(j), j = 2..m-1
        if top * c_num >= exact_below:
            total += min(top, (top - largest) << precision)
    # floor(c * total * u / q) * q
    return quantum * ((total * c_num) // ((c_den * quantum) << precision))


#: Whether some evaluation order overflows is decided exactly
#: (:func:`_some_order_overflows`) when that takes at most this many split
#: steps -- up to 12 distinct terms, or many more with repeated values;
#: beyond it the proven bound decides, which may accept an overflow that no
#: order reaches.
EXACT_OVERFLOW_STEPS = 2**19


def _one_sign(weights: list[int], precision: int, overflow: int) -> tuple[int, int, bool]:
    """(W, B, can_overflow) for the terms of one sign alone, magnitudes *weights*.

    W is their sum and B the bound below the root of any tree over them.  An
    addition a + b of such a tree reaches Omega only if W * c >= Omega and
    W + B >= Omega (c >= (1+u)**(m-2)); see :func:`floating_sum_interval`.
    When that necessary condition holds and there are at most
    :data:`EXACT_OVERFLOW_TERMS` terms, *can_overflow* is decided exactly.
    """
    total = sum(weights)
    if len(weights) < 2:
        return total, 0, False
    growth = _growth(len(weights) - 2, Fraction(1, 1 << precision))
    bound = _error_bound(weights, precision, growth)
    maybe = total * growth >= overflow and total + bound >= overflow
    if maybe:
        maybe = _some_order_overflows(weights, precision, overflow) is not False
    return total, bound, maybe


def _round_scaled(x: int, precision: int) -> int:
    """The positive multiple *x* of 2**-149 rounded to *precision* bits, ties to even.

    Below 2**precision units x is exact (binary32 subnormals have the
    quantum 2**-149 itself; binary64's is finer still).
    """
    shift = x.bit_length() - precision
    if shift <= 0:
        return x
    quotient, remainder = divmod(x, 1 << shift)
    half = 1 << (shift - 1)
    if remainder > half or (remainder == half and quotient & 1):
        quotient += 1
    return quotient << shift


def _some_order_overflows(weights: list[int], precision: int, overflow: int) -> bool | None:
    """Whether some binary tree over the positive *weights* reaches *overflow*.

    Rounding to nearest is monotone, so the largest value any tree over a
    multiset S of terms computes is M(S) = fl(max over splits S = A + B of
    M(A) + M(B)): the children's largest values give the root's largest.
    A tree overflows at some addition iff some sub-multiset's split sum
    reaches Omega (and then every tree containing that subtree is +inf).
    Dynamic programming over the sub-multisets -- count vectors of the
    distinct values, prod((c+1)(c+2)/2) split steps -- decides it exactly.
    Returns None, undecided, when that exceeds :data:`EXACT_OVERFLOW_STEPS`.
    """
    counts: dict[int, int] = {}
    for w in weights:
        counts[w] = counts.get(w, 0) + 1
    values = list(counts)
    if math.prod((c + 1) * (c + 2) // 2 for c in counts.values()) > EXACT_OVERFLOW_STEPS:
        return None
    strides = []
    states = 1
    for value in values:
        strides.append(states)
        states *= counts[value] + 1
    largest = [0] * states
    for state in range(1, states):
        digits = [state // stride % (counts[v] + 1) for v, stride in zip(values, strides)]
        if sum(digits) == 1:
            largest[state] = values[digits.index(1)]
            continue
        best = 0
        for part in itertools.product(
            *(range(0, d * stride + 1, stride) for d, stride in zip(digits, strides))
        ):
            index = sum(part)
            if 0 < index < state:
                total = largest[index] + largest[state - index]
                if total > best:
                    best = total
        if best >= overflow:
            return True
        largest[state] = _round_scaled(best, precision)
    return False


def _round64(x: Fraction) -> float:
    """x rounded to nearest binary64 (CPython's Fraction -> float is correctly rounded)."""
    try:
        return float(x)
    except OverflowError:
        return _INF if x > 0 else -_INF


def floating_sum_interval(terms: Sequence[float], accumulator: SimpleDType) -> Interval:
    """The acceptance set of a FLOATING sum of binary32 *terms*.

    Accepted: every value that *some* evaluation order -- any binary tree
    over any permutation of the terms, each addition rounded to nearest in
    *accumulator* (``DType.Float32`` or ``DType.Float64``), then one rounding
    to binary32 -- can produce, as an interval widened by a proven bound.
    ``exact`` is the exact sum S of the terms when every term is finite.

    **Special cases**, decided exactly.  No terms: +0 only.  A NaN term, or
    +inf and -inf both present: NaN only.  +inf present (no -inf): +inf, and
    NaN as well when the finite negative terms can overflow to -inf in a
    partial sum (Float32 accumulation; mirror for -inf).  Every term a zero:
    +0 only, or +0 and -0 when every term is -0.  Otherwise zero terms are
    dropped: adding +-0 to a nonzero value is exact, and an exact zero sum of
    nonzero terms is +0 in every order, which is what the interval accepts.

    **The bound.**  Let the m nonzero finite terms have magnitudes
    w_1 >= ... >= w_m, top(j) = w_1 + ... + w_j, u = 2**-p (p = 24 for
    Float32, 53 for Float64), c >= (1+u)**(m-2) and q the largest power of
    two dividing every term.  For every evaluation tree without overflow, the
    rounding errors e_i of the additions *below the root* satisfy::

        sum |e_i| <= B = c * sum_{j=2..m-1} min(u*top(j), top(j) - w_1) * [c*top(j) >= 2**p * q]

    rounded down to a multiple of q ([...] is 1 when the condition holds).

    Proof.  (1) Each of the m - 1 additions computes fl(a + b) = a + b + e_i
    from its computed operands, so by linearity the root's exact operand sum
    is S + sum_{i below the root} e_i.  (2) Round to nearest gives
    |e_i| <= u * |a + b| for the sum of two floats of the accumulator format,
    with *no gradual-underflow term*: a subnormal a + b is exactly
    representable (both operands are multiples of the format's smallest
    quantum, so is their sum), hence e_i = 0 there.  Also
    |e_i| <= min(|a|, |b|), because a and b are representable candidates at
    distances |b| and |a| from a + b.  (3) By induction over the tree,
    |computed subtree value| <= W * (1+u)**height, W the sum of |t_k| below;
    so |a + b| <= c * W_i and min(|a|, |b|) <= c * (W_i - M_i), where W_i is
    the weight of node i and M_i its largest leaf.  (4) Every computed value
    is a multiple of q (rounding a multiple of q to a quantum <= q changes
    nothing, to a larger one gives a multiple of that), so a + b with
    |a + b| < 2**p * q is representable and e_i = 0: nodes with
    c * W_i < 2**p * q do not count.  (5) The subtree sizes of a full binary
    tree with m leaves, sorted decreasingly, are at most m, m-1, ..., 2
    (induction over the root's two subtrees), and only the root has size m;
    W_i <= top(size_i) and W_i - M_i <= top(size_i) - w_1, and the per-node
    bound is non-decreasing in the size, so the sum over the non-root nodes
    is at most the sum over j = 2..m-1 above (the caterpillar with the
    largest terms deepest attains the sizes).  (6) The errors are multiples
    of q, so B can be rounded down to one.  (7) The root computes
    fl(S + sum e_i) and fl is monotone: the accumulator result lies in
    [fl(S - B), fl(S + B)].  Adding the root's own term (j = m) to B gives
    the a-priori bound E >= |computed - S|, which never exceeds Higham's
    gamma_{m-1} * sum |t_k| (u * top(j) <= u * W, c <= 1/(1 - (m-2)u)); it
    is about half of it for equal weights and far smaller when one term
    dominates, where min(...) picks top(j) - w_1.

    **From the bound to the interval.**  With R the accumulator's rounding
    followed by the rounding to binary32 (R = round32 for Float32,
    round32(round64(.)) for Float64; both monotone), the result lies in
    [R(S - B), R(S + B)].  This lies inside the outward
    [round_down32(S - E), round_up32(S + E)] of the full a-priori bound E.

    **Monotone limits and overflow.**  fl is monotone, so replacing every
    negative term by +0 never decreases any computed value, and the tree
    then sums the positive terms alone (adding zeros is exact).  Hence the
    result is at most R(P + B+) (P, B+ the sum and bound of the positive
    terms alone; with no positive term, at most the smallest term), and an
    addition can reach the overflow threshold
    Omega = 2**(emax+1) - 2**(emax-p) upwards only if a tree of the positive
    terms alone can, which needs P * c+ >= Omega and P + B+ >= Omega.  When
    that necessary condition holds, :func:`_some_order_overflows` decides
    exactly whether some tree of those terms overflows (up to
    :data:`EXACT_OVERFLOW_STEPS` steps; beyond, the condition alone decides).
    Only then is +inf accepted (as the upper end) for Float32 accumulation;
    mirror for -inf with the negative terms, and NaN when both can happen
    (the two overflowing subtrees use disjoint terms, so one tree holds
    both).  For
    Float64 accumulation of binary32 terms an accumulator overflow needs
    about 2**895 terms; only the final rounding to binary32 overflows, and
    R accounts for it.  Sums of m <= 2 terms and sums whose partial sums are
    all exact give one point, as do most Float64 sums (see Width).

    **Width.**  The interval is the hull of the true set, so gaps are filled
    in (cancellation: [2**100, 1, -2**100] gives exactly {0, 1}, accepted as
    [0, 1]), and each end lies at most B beyond S, plus the final rounding,
    while the true set has a value within B of S: the excess over the true
    hull is at most about 2B plus one ULP at each end.  For Float64
    accumulation B <= c * 2**-53 * (m-2) * W and ulp32(S) > 2**-24 * |S|, so
    B / ulp32(S) < c * 2**-29 * (m-2) * kappa, kappa = sum|t_k| / |S|: while
    (m-2) * kappa stays below about 2**26, B is under a quarter ULP, the
    interval holds one or two binary32 values (two only when S is within B
    of a rounding boundary), and since it contains a true result it is at
    most one ULP wider than the true set (measured: never wider).  For
    Float32 accumulation the excess is measured in
    ``docs/semantics/structured.md`` (a few ULPs for well-conditioned sums).
    """
    precision, emax = _accumulator_format(accumulator)
    values = [_term(t, position) for position, t in enumerate(terms)]
    if not values:
        return Interval(0.0, 0.0, exact=Fraction(0))
    if any(math.isnan(t) for t in values):
        return _MUST_BE_NAN
    positive_inf = _INF in values
    negative_inf = -_INF in values
    if positive_inf and negative_inf:
        return _MUST_BE_NAN
    scaled = [_scaled(t) for t in values if math.isfinite(t) and t != 0]
    overflow = ((1 << (emax + 1)) - (1 << (emax - precision))) << _SCALE_BITS
    positive, positive_bound, can_overflow_up = _one_sign(
        [v for v in scaled if v > 0], precision, overflow
    )
    negative, negative_bound, can_overflow_down = _one_sign(
        [-v for v in scaled if v < 0], precision, overflow
    )
    if positive_inf:
        return Interval(_INF, _INF, nan=can_overflow_down)
    if negative_inf:
        return Interval(-_INF, -_INF, nan=can_overflow_up)
    if not scaled:  # every term is a zero
        all_negative = all(_signbit(t) for t in values)
        return Interval(
            -0.0 if all_negative else 0.0, 0.0, negative_zero=all_negative, exact=Fraction(0)
        )
    growth = _growth(len(scaled) - 2, Fraction(1, 1 << precision))
    bound = _error_bound([abs(v) for v in scaled], precision, growth)
    exact = sum(scaled)

    def final(x: int) -> float:  # the accumulator's rounding, then binary32's
        q = Fraction(x, _SCALE)
        if precision == binary32.PRECISION:
            return binary32.round_fraction(q)
        return binary32.round_to_binary32(_round64(q))

    lo, hi = final(exact - bound), final(exact + bound)
    nonzero = [t for t in values if t != 0]
    # monotone limits: zeroing the terms of one sign moves every computed value one way
    hi = min(hi, final(positive + positive_bound)) if positive else min(hi, min(nonzero))
    lo = max(lo, final(-negative - negative_bound)) if negative else max(lo, max(nonzero))
    if precision == binary32.PRECISION:  # Float32: infinite only by an overflowing addition
        hi = _INF if can_overflow_up else min(hi, binary32.MAX_FINITE)
        lo = -_INF if can_overflow_down else max(lo, -binary32.MAX_FINITE)
    else:
        hi = _INF if can_overflow_up else hi
        lo = -_INF if can_overflow_down else lo
    return Interval(
        0.0 if lo == 0 else lo,
        0.0 if hi == 0 else hi,
        nan=can_overflow_up and can_overflow_down,
        exact=Fraction(exact, _SCALE),
    )


def _term(t: object, position: int) -> float:
    if isinstance(t, np.floating) and t.dtype.itemsize <= 8:
        t = float(t)
    if not isinstance(t, float):
        raise TypeError(
            f"floating_sum_interval: term {position} must be a float holding a binary32 "
            f"value, got {type(t).__name__} {t!r}"
        )
    if not binary32.is_binary32(t):
        raise ValueError(f"floating_sum_interval: term {position} ({t!r}) is not a binary32 value")
    return t


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------


def _reduction_rows(
    shape: tuple[int, ...], axes: tuple[int, ...], keepdims: bool
) -> tuple[tuple[int, ...], list[list[int]], int]:
    """(output shape, one row of flat input indices per output element, row length).

    Output elements are in row-major order; each row lists the reduced
    elements in ascending logical (row-major) order.
    """
    kept = [d for d in range(len(shape)) if d not in axes]
    out_size = math.prod(shape[d] for d in kept)
    reduced = math.prod(shape[d] for d in axes)
    index = np.arange(math.prod(shape), dtype=np.int64).reshape(shape)
    rows = index.transpose([*kept, *axes]).reshape(out_size, reduced).tolist()
    if keepdims:
        out_shape = tuple(1 if d in axes else n for d, n in enumerate(shape))
    else:
        out_shape = tuple(shape[d] for d in kept)
    return out_shape, rows, reduced


def _reduction(
    operation: str, plan: OperationPlan, x: object, axis: object, keepdims: object
) -> tuple[Tensor, tuple[int, ...], list[list[Any]], int]:
    x = check_operand(operation, plan, 0, x)
    axes = normalize_axes(operation, axis, x.shape)
    keep = check_bool(operation, "keepdims", keepdims)
    out_shape, rows, reduced = _reduction_rows(x.shape, axes, keep)
    values = [[x.values[i] for i in row] for row in rows]
    return x, out_shape, values, reduced


def reduce_sum(
    plan: OperationPlan, x: Tensor, axis: object = None, keepdims: object = False
) -> Tensor | Bounded:
    """Sum over *axis*: exact Int32 (EXACT_INTEGER) or a FLOATING acceptance set.

    EXACT_INTEGER: the exact integer sum, only the final value narrowed
    (partial sums may leave Int32).  FLOATING: a Bounded with one
    :func:`floating_sum_interval` per output element, in the plan's
    accumulator dtype.  An empty sum is 0 / +0.
    """
    operation = "reduce_sum"
    kind = require_accumulation(operation, plan, Accumulation.EXACT_INTEGER, Accumulation.FLOATING)
    x, out_shape, rows, _ = _reduction(operation, plan, x, axis, keepdims)
    if kind is Accumulation.EXACT_INTEGER:
        results = tuple(
            narrow_int32(operation, sum(row), f"at output position {flat}")
            for flat, row in enumerate(rows)
        )
        return Tensor(plan.output, out_shape, results)
    accumulator = floating_accumulator(operation, plan)
    intervals = tuple(floating_sum_interval(row, accumulator) for row in rows)
    return Bounded(out_shape, intervals)


def reduce_prod(
    plan: OperationPlan, x: Tensor, axis: object = None, keepdims: object = False
) -> Tensor:
    """Product over *axis* from 1 in ascending logical order, rounded after every step."""
    operation = "reduce_prod"
    require_accumulation(operation, plan, Accumulation.SEQUENTIAL_BINARY32_PRODUCT)
    _, out_shape, rows, _ = _reduction(operation, plan, x, axis, keepdims)
    return Tensor(plan.output, out_shape, tuple(_sequential_product(row) for row in rows))


def _beats_max(v: float, best: float) -> bool:
    return v > best or (v == 0 and best == 0 and _signbit(best) and not _signbit(v))


def _beats_min(v: float, best: float) -> bool:
    return v < best or (v == 0 and best == 0 and _signbit(v) and not _signbit(best))


def _extreme(values: list[float], beats: Callable[[float, float], bool]) -> float:
    best = values[0]
    for v in values:
        if math.isnan(v):
            return v  # the first NaN in logical order, the very object (bits kept)
        if beats(v, best):
            best = v
    return best


def _require_nonempty(operation: str, reduced: int, shape: tuple[int, ...], axis: object) -> None:
    if reduced == 0:
        raise ValueError(
            f"{operation}: the reduction over axis {axis!r} of shape {shape} is empty; "
            f"{operation} of no elements is undefined"
        )


def _extreme_reduction(
    operation: str,
    accumulation: Accumulation,
    beats: Callable[[float, float], bool],
    plan: OperationPlan,
    x: object,
    axis: object,
    keepdims: object,
) -> Tensor:
    require_accumulation(operation, plan, accumulation)
    x, out_shape, rows, reduced = _reduction(operation, plan, x, axis, keepdims)
    _require_nonempty(operation, reduced, x.shape, axis)
    return Tensor(plan.output, out_shape, tuple(_extreme(row, beats) for row in rows))


def reduce_max(
    plan: OperationPlan, x: Tensor, axis: object = None, keepdims: object = False
) -> Tensor:
    """Maximum over *axis*: the first NaN (its bits), else the largest, -0 < +0."""
    return _extreme_reduction(
        "reduce_max", Accumulation.MAXIMUM, _beats_max, plan, x, axis, keepdims
    )


def reduce_min(
    plan: OperationPlan, x: Tensor, axis: object = None, keepdims: object = False
) -> Tensor:
    """Minimum over *axis*: the first NaN (its bits), else the smallest, -0 < +0."""
    return _extreme_reduction(
        "reduce_min", Accumulation.MINIMUM, _beats_min, plan, x, axis, keepdims
    )


def _arg_extreme(values: list[float], larger: bool) -> int:
    best_index, best = 0, values[0]
    for index, v in enumerate(values):
        if math.isnan(v):
            return index
        if (v > best) if larger else (v < best):  # -0 and +0 tie: the first stays
            best_index, best = index, v
    return best_index


def _arg_reduction(
    operation: str,
    accumulation: Accumulation,
    larger: bool,
    plan: OperationPlan,
    x: object,
    axis: object,
) -> Tensor:
    require_accumulation(operation, plan, accumulation)
    x = check_operand(operation, plan, 0, x)
    if axis is not None:
        axis = normalize_axis(operation, axis, x.shape)
    axes = tuple(range(x.ndim)) if axis is None else (axis,)
    out_shape, rows, reduced = _reduction_rows(x.shape, axes, False)
    _require_nonempty(operation, reduced, x.shape, axis)
    results = tuple(_arg_extreme([x.values[i] for i in row], larger) for row in rows)
    return Tensor(plan.output, out_shape, results)


def argmax(plan: OperationPlan, x: Tensor, axis: object = None) -> Tensor:
    """Int32 index of the maximum (flat for None): first NaN, else first largest."""
    return _arg_reduction("argmax", Accumulation.ARGMAX, True, plan, x, axis)


def argmin(plan: OperationPlan, x: Tensor, axis: object = None) -> Tensor:
    """Int32 index of the minimum (flat for None): first NaN, else first smallest."""
    return _arg_reduction("argmin", Accumulation.ARGMIN, False, plan, x, axis)


def lines_along(shape: tuple[int, ...], axis: int) -> list[list[int]]:
    """Flat row-major indices of every 1-D line of *shape* along *axis*.

    Lines are in row-major order of the other dimensions; each lists its
    elements by ascending position along *axis*.
    """
    extent = shape[axis]
    count = math.prod(n for d, n in enumerate(shape) if d != axis)
    index = np.arange(math.prod(shape), dtype=np.int64).reshape(shape)
    return np.moveaxis(index, axis, -1).reshape(count, extent).tolist()


def cumsum(plan: OperationPlan, x: Tensor, axis: object) -> Tensor:
    """Inclusive prefix sums along *axis*, each rounded, starting from +0."""
    operation = "cumsum"
    require_accumulation(operation, plan, Accumulation.SEQUENTIAL_BINARY32)
    x = check_operand(operation, plan, 0, x)
    axis = normalize_axis(operation, axis, x.shape)
    out: list[float] = list(x.values)
    for line in lines_along(x.shape, axis):
        total = 0.0
        for i in line:
            total = add32(total, x.values[i])
            out[i] = total
    return Tensor(plan.output, x.shape, tuple(out))
