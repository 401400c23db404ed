"""The catalogue of boundary classes, measured from calls and derived from plans.

A *boundary class* (:class:`Boundary`) names one situation a conforming
backend must get right and a plausible kernel gets wrong: a signed zero, a
NaN payload, an exact result on a binary32 rounding tie, a partial Int32 sum
outside the range, a NaN in an argmax, a duplicate scatter index ...  Each
member carries its :class:`Group` and a description.

Two functions relate the catalogue to the rest of the suite:

* :func:`classes_hit` *measures* which classes a :class:`~conformance.model.calls.Call`
  hits, from its actual argument values (operand bit patterns, the exact
  results of add/sub/mul/div, the partial sums of each reduction group in
  logical order, the stable order of each sorted row ...).  Coverage is
  therefore measured, never declared by whoever built the call.
* :func:`applicable_classes` *derives* which classes can occur for an
  :class:`~oracle.OperationPlan` from the plan itself: its operand roles and
  source/compute dtypes, compute arithmetic, accumulation, output dtype and
  the operation's call family (:mod:`conformance.model.calls`).  Two kinds of fact
  need more than the plan's fields, and both are data here:

  - which rounding/range/Int32-result classes are *reachable* for an exact
    arithmetic operation given its operand domains -- e.g. an Int32 operand
    of a mixed add is at most 2**31, so ``add(Float32, Int32->Float32)``
    cannot overflow by one ULP, and a sum of binary32 values is a multiple of
    2**-149, so add/sub never underflow inexactly.  :data:`FLOAT_WITNESSES`
    and :data:`INT32_WITNESSES` list constructive operand pairs per class; a
    class is applicable exactly when some witness fits the plan's operand
    domains (a witness's class is checked by :func:`classes_hit` in the tests);
  - which weak-scalar classes a plan can see: a class applies to a weak
    position when one of its representative values (:data:`WEAK_REPRESENTATIVES`),
    resolved through the central planner, selects this very plan.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass
from fractions import Fraction

from conformance.model.calls import Family, ParameterKind, family_of, parameters_of
from oracle import (
    Accumulation,
    Arithmetic,
    DType,
    OperandRole,
    OperationPlan,
    binary32,
)
from oracle.dtypes import INT32_MAX, INT32_MIN

__all__ = [
    "BINARY32_EXACT_INTEGERS",
    "ELEMENTWISE_EXTREMA",
    "INT32_MAX",
    "INT32_MIN",
    "LANE_BLOCK",
    "LENGTHS",
    "LONG_ROW",
    "MAX_RANK",
    "OFF_LAST_AXIS_EXTREMA",
    "ORDER_BLOCKS",
    "ORDER_CLASS_GROUPS",
    "ORDER_LANES",
    "SCATTER_UPDATE_COUNTS",
    "SHAPE_GROUPS",
    "SPECIAL_FLOAT_BITS",
    "Boundary",
    "Group",
    "PlanFacts",
    "axis_class",
    "length_class",
    "plan_facts",
    "rank_class",
]

F32, I32, BOOL = DType.Float32, DType.Int32, DType.Bool
MAX_FINITE = binary32.MAX_FINITE
MIN_NORMAL = binary32.MIN_NORMAL
MIN_SUBNORMAL = binary32.MIN_SUBNORMAL
_QUIET_NAN_FRACTION = 0x00400000
#: |exact result - midpoint| <= this fraction of an ULP counts as "next to a tie".
NEAR_TIE_ULPS = Fraction(1, 2**20)
#: a sum "cancels" when |exact sum| <= this fraction of the sum of magnitudes.
CANCELLATION_RATIO = Fraction(1, 2**12)
_OVERFLOW_THRESHOLD = Fraction(2**128 - 2**103)  # rounds to inf (a tie going to even inf)
_ONE_ULP_BEYOND = Fraction(2**128)  # MAX_FINITE + one ULP


class Group(enum.Enum):
    """The families of boundary classes."""

    FLOAT_VALUE = "Float32 operand values"
    INT32_VALUE = "Int32 operand values"
    CONVERSION = "Int32 to Float32 conversion"
    ROUNDING = "binary32 rounding of an exact result"
    RANGE = "overflow and underflow of an exact result"
    INT32_RESULT = "Int32 result range"
    SUM = "sums"
    PRODUCT = "products"
    EXTREMUM = "extremum rules"
    ORDER = "sort and top-k order"
    INDEX = "gather and scatter indices"
    CONDITION = "select condition"
    WEAK = "weak scalars"
    SHAPE = "shapes"
    PARAMETER = "non-dtype parameters"
    ERROR = "error paths"
    LENGTH = "length of the reduced, scanned, sorted or contracted axis"
    RANK = "tensor rank"
    AXIS = "which axis of a rank"
    LAYOUT = "several axes, keepdims and broadcasting layouts"
    LANES = "long rows: lanes, tails and cut-offs"
    ACCUMULATION_ORDER = "other orders of a sequential accumulation"
    ACCUMULATOR = "a Float64 accumulator not honoured"
    INT32_PARTIAL_ORDER = "Int32 partial sums of a parallel order leave the range"
    STRIDED_EXTREMUM = "extremum rules along an axis other than the last (the strided path)"
    NARROWED_EXPONENT = "a weak Int32 exponent binary32 cannot hold"


#: the axis lengths around the power-of-two thresholds kernels switch at (SIMD
#: lanes with a tail loop, blocked and pairwise sums, quicksort above 16, gemm
#: tiles): one LENGTH class each (docs/shape-classes.md)
LENGTHS: tuple[int, ...] = (
    *range(1, 10),
    *(n for power in (16, 32, 64, 128, 256, 1024) for n in (power - 1, power, power + 1)),
)
#: the updates on one scatter_add target that have a LENGTH class
SCATTER_UPDATE_COUNTS: tuple[int, ...] = (1, 2, 4, 8, 33)
#: ranks 0 .. MAX_RANK have a RANK class; every axis of ranks 1 .. MAX_RANK an AXIS class
MAX_RANK = 6
#: the widest SIMD block a kernel is assumed to use: positions past the last full
#: block of a row are its *tail*
LANE_BLOCK = 16
#: a row or output is *long* (LANES classes, TOPK_LONG_ROW_TIE) past this many elements
LONG_ROW = 32
#: the block sizes and lane counts of the plausible other orders of a sequential
#: accumulation (ACCUMULATION_ORDER classes, docs/shape-classes.md); the block sizes
#: are also those of a Float64 accumulator kept only within blocks (ACCUMULATOR)
ORDER_BLOCKS: tuple[int, ...] = (2, 4, 8, 16, 32, 64, 128)
ORDER_LANES: tuple[int, ...] = (4, 8, 16)


def _axis_name(axis: int, rank: int) -> str:
    return f"AXIS_{'MINUS_' * (axis < 0)}{abs(axis)}_OF_{rank}"


class Boundary(enum.Enum):
    """One boundary class: ``member.group`` and ``member.description``."""

    # -- Float32 operand values (bit patterns of any Float32-source tensor element)
    POSITIVE_ZERO = (Group.FLOAT_VALUE, "+0 (0x00000000) as an element")
    NEGATIVE_ZERO = (Group.FLOAT_VALUE, "-0 (0x80000000) as an element")
    POSITIVE_INF = (Group.FLOAT_VALUE, "+inf as an element")
    NEGATIVE_INF = (Group.FLOAT_VALUE, "-inf as an element")
    NAN_POSITIVE = (Group.FLOAT_VALUE, "a quiet NaN with the sign bit clear")
    NAN_NEGATIVE = (Group.FLOAT_VALUE, "a quiet NaN with the sign bit set")
    NAN_PAYLOAD = (Group.FLOAT_VALUE, "a NaN whose fraction is not the canonical 0x400000")
    MIN_SUBNORMAL = (Group.FLOAT_VALUE, "the smallest subnormal +-2**-149 (0x00000001)")
    MAX_SUBNORMAL = (Group.FLOAT_VALUE, "the largest subnormal +-0x007FFFFF")
    MIN_NORMAL = (Group.FLOAT_VALUE, "the smallest normal +-2**-126 (0x00800000)")
    MAX_FINITE = (Group.FLOAT_VALUE, "the largest finite +-0x7F7FFFFF")
    # -- Int32 operand values (numeric Int32 tensors, not indices)
    INT32_MAX = (Group.INT32_VALUE, "2**31 - 1 as an element")
    INT32_MIN = (Group.INT32_VALUE, "-2**31 as an element")
    INT32_ZERO = (Group.INT32_VALUE, "0 as an element")
    INT32_MINUS_ONE = (Group.INT32_VALUE, "-1 as an element (-2**31 * -1 overflows)")
    # -- conversion of Int32 tensor elements to Float32
    INT32_TO_FLOAT32_TIE = (
        Group.CONVERSION,
        "an Int32 element converted to Float32 that is a binary32 midpoint (2**24 + 1)",
    )
    INT32_TO_FLOAT32_INEXACT = (
        Group.CONVERSION,
        "an Int32 element converted to Float32 that rounds and is not a midpoint",
    )
    # -- rounding of the exact result of add/sub/mul/div
    TIE_TO_EVEN_DOWN = (
        Group.ROUNDING,
        "the exact result is a binary32 midpoint and ties-to-even rounds toward zero",
    )
    TIE_TO_EVEN_UP = (
        Group.ROUNDING,
        "the exact result is a binary32 midpoint and ties-to-even rounds away from zero",
    )
    NEAR_TIE_BELOW = (
        Group.ROUNDING,
        "the exact result lies just inside a midpoint (within 2**-20 ULP), rounding toward zero",
    )
    NEAR_TIE_ABOVE = (
        Group.ROUNDING,
        "the exact result lies just beyond a midpoint (within 2**-20 ULP), rounding away from 0",
    )
    # -- range of the exact result of add/sub/mul/div
    OVERFLOW_BY_ONE_ULP = (
        Group.RANGE,
        "the exact result overflows by at most one ULP: |r| in [2**128 - 2**103, 2**128]",
    )
    ROUNDS_TO_MAX_FINITE = (Group.RANGE, "the exact result rounds to +-MAX_FINITE")
    SUBNORMAL_RESULT = (Group.RANGE, "the exact result rounds to a nonzero subnormal")
    UNDERFLOW_TO_ZERO = (Group.RANGE, "a nonzero exact result rounds to a zero")
    UNDERFLOW_TO_MIN_SUBNORMAL = (
        Group.RANGE,
        "an exact result below the subnormal grid rounds to +-2**-149",
    )
    ROUNDS_UP_TO_MIN_NORMAL = (
        Group.RANGE,
        "an exact result below 2**-126 rounds up to the smallest normal",
    )
    # -- Int32 results (elementwise exact results, reduction and matmul sums)
    INT32_RESULT_AT_LIMIT = (Group.INT32_RESULT, "an exact result is 2**31 - 1 or -2**31")
    INT32_RESULT_JUST_OUTSIDE = (
        Group.INT32_RESULT,
        "an exact result is 2**31 or -2**31 - 1 (OverflowError)",
    )
    INT32_RESULT_OVERFLOW = (Group.INT32_RESULT, "an exact result leaves Int32 (OverflowError)")
    INT32_PARTIAL_SUM_OUTSIDE = (
        Group.INT32_RESULT,
        "a partial sum in logical order leaves Int32 while the group's final sum fits",
    )
    INT32_TERM_OUTSIDE = (
        Group.INT32_RESULT,
        "a matmul product term leaves Int32 while the final sum fits",
    )
    # -- Float32 sums (FLOATING and SEQUENTIAL_BINARY32 accumulation groups)
    SUM_CANCELLATION = (
        Group.SUM,
        "|exact sum| <= 2**-12 * sum of |terms| (catastrophic cancellation)",
    )
    SUM_ORDER_SENSITIVE = (
        Group.SUM,
        "sequential binary32 sums in ascending and descending order differ",
    )
    SUM_WIDTH_SENSITIVE = (
        Group.SUM,
        "the sequential binary32 sum differs from the sequential binary64 sum rounded once",
    )
    SUM_INTERMEDIATE_OVERFLOW = (
        Group.SUM,
        "a sequential binary32 partial sum overflows while the exact sum rounds to a finite value",
    )
    SUM_INF_MINUS_INF = (Group.SUM, "a group holds both +inf and -inf terms (NaN)")
    SUM_ALL_NEGATIVE_ZERO = (Group.SUM, "every term of a group is -0 (sums start at +0)")
    EMPTY_REDUCTION = (Group.SUM, "a sum or product over zero terms (+0, 1 or Int32 0)")
    # -- Float32 products (SEQUENTIAL_BINARY32_PRODUCT groups)
    PRODUCT_ORDER_SENSITIVE = (
        Group.PRODUCT,
        "sequential products in ascending and descending order differ",
    )
    PRODUCT_INTERMEDIATE_OVERFLOW = (
        Group.PRODUCT,
        "a partial product overflows while the exact product rounds to a finite value",
    )
    PRODUCT_INTERMEDIATE_UNDERFLOW = (
        Group.PRODUCT,
        "a partial product rounds to zero while the exact product rounds to a nonzero value",
    )
    PRODUCT_ZERO_TIMES_INF = (Group.PRODUCT, "a group holds a zero and an infinity (NaN)")
    # -- extremum rules (maximum, minimum, clamp, reduce_max/min, argmax/argmin)
    EXTREMUM_ZERO_TIE_NEG_FIRST = (
        Group.EXTREMUM,
        "the extremum is zero, both zeros occur and -0 comes first",
    )
    EXTREMUM_ZERO_TIE_POS_FIRST = (
        Group.EXTREMUM,
        "the extremum is zero, both zeros occur and +0 comes first",
    )
    EXTREMUM_NAN_FIRST = (Group.EXTREMUM, "the first element of a group is NaN")
    EXTREMUM_NAN_LATER = (
        Group.EXTREMUM,
        "a NaN occurs after a non-NaN first element of a group",
    )
    EXTREMUM_NANS_DIFFERENT_BITS = (
        Group.EXTREMUM,
        "a group holds NaNs with different bit patterns (the first one wins)",
    )
    EXTREMUM_VALUE_TIE = (
        Group.EXTREMUM,
        "a nonzero extreme value occurs more than once (the first index wins)",
    )
    # -- sort/topk order (stable; NaNs one class, last ascending; -0 == +0)
    SORT_NAN = (Group.ORDER, "a row holds a NaN and a non-NaN")
    SORT_NANS_DIFFERENT_BITS = (Group.ORDER, "a row holds NaNs with different bit patterns")
    SORT_TIE = (Group.ORDER, "a row holds equal nonzero non-NaN values (stability)")
    SORT_ZEROS_NEG_FIRST = (Group.ORDER, "a row holds -0 before +0")
    SORT_ZEROS_POS_FIRST = (Group.ORDER, "a row holds +0 before -0")
    TOPK_TIE_AT_CUTOFF = (
        Group.ORDER,
        "the k-th and (k+1)-th elements of the stable order compare equal",
    )
    TOPK_NAN_SELECTED = (Group.ORDER, "a NaN is among the k selected elements")
    # -- indices of gather/scatter/scatter_add
    INDEX_FIRST = (Group.INDEX, "index 0 occurs")
    INDEX_LAST = (Group.INDEX, "index n - 1 occurs")
    INDEX_DUPLICATE = (Group.INDEX, "an index occurs more than once")
    INDEX_EMPTY = (Group.INDEX, "there are no indices")
    # -- select's condition
    CONDITION_MIXED = (Group.CONDITION, "the condition holds both True and False")
    # -- weak scalars
    WEAK_NONNEGATIVE_INT = (Group.WEAK, "a weak int in [0, 2**31 - 2]")
    WEAK_NEGATIVE_INT = (Group.WEAK, "a weak int in [-2**31 + 1, -1]")
    WEAK_INT32_MAX = (Group.WEAK, "the weak int 2**31 - 1")
    WEAK_INT32_MIN = (Group.WEAK, "the weak int -2**31")
    WEAK_TWO_POW_31 = (Group.WEAK, "the weak int 2**31")
    WEAK_BELOW_INT32_MIN = (Group.WEAK, "the weak int -2**31 - 1")
    WEAK_FAR_OUTSIDE_INT32 = (Group.WEAK, "a weak int beyond 2**31 or below -2**31 - 1")
    WEAK_BOOL = (Group.WEAK, "a weak bool (selects the floating kind)")
    WEAK_FLOAT = (Group.WEAK, "a weak float")
    WEAK_FLOAT_SPECIAL = (Group.WEAK, "a weak NaN, infinity or signed zero float")
    WEAK_FLOAT_INEXACT = (Group.WEAK, "a weak finite float that is not a binary32 value")
    WEAK_FRACTION = (Group.WEAK, "a weak fractions.Fraction")
    WEAK_NUMPY_SCALAR = (Group.WEAK, "a weak numpy scalar")
    WEAK_CONVERSION_TIE = (
        Group.WEAK,
        "a weak scalar materialised as Float32 whose exact value is a binary32 midpoint",
    )
    WEAK_ROUNDS_TO_INF = (
        Group.WEAK,
        "a finite weak scalar materialised as Float32 that rounds to +-inf",
    )
    WEAK_DOUBLE_ROUNDING = (
        Group.WEAK,
        "a weak int materialised as Float32 that binary64 would first round onto a "
        "binary32 midpoint (converting through float64 rounds it twice)",
    )
    # -- shapes
    SHAPE_SCALAR = (Group.SHAPE, "a 0-d tensor operand")
    SHAPE_EMPTY = (Group.SHAPE, "a tensor operand with no elements")
    SHAPE_BROADCAST = (Group.SHAPE, "tensor operands of different shapes that broadcast")
    # -- non-dtype parameters
    AXIS_NONE = (Group.PARAMETER, "axis=None (reduce everything / flat index)")
    AXIS_NEGATIVE = (Group.PARAMETER, "a negative axis")
    AXIS_MULTIPLE = (Group.PARAMETER, "a tuple of two or more axes")
    AXIS_EMPTY_TUPLE = (Group.PARAMETER, "axis=() (reduce over no axis)")
    KEEPDIMS = (Group.PARAMETER, "keepdims=True")
    CONV_STRIDE = (Group.PARAMETER, "a window stride above 1")
    CONV_PADDING = (Group.PARAMETER, "nonzero padding")
    CONV_LHS_DILATION = (Group.PARAMETER, "an lhs (input) dilation above 1")
    CONV_RHS_DILATION = (Group.PARAMETER, "an rhs (window) dilation above 1")
    CONV_GROUPS = (Group.PARAMETER, "feature_group_count above 1")
    CONV_TWO_SPATIAL = (Group.PARAMETER, "two spatial dimensions")
    SORT_DESCENDING = (Group.PARAMETER, "descending=True")
    TOPK_SMALLEST = (Group.PARAMETER, "largest=False")
    TOPK_K_ZERO = (Group.PARAMETER, "k=0")
    TOPK_K_ALL = (Group.PARAMETER, "k equal to the axis length")
    # -- error paths
    ERROR_SHAPE_MISMATCH = (Group.ERROR, "operand shapes that do not fit (ValueError)")
    ERROR_BAD_AXIS = (Group.ERROR, "an axis out of range or repeated")
    ERROR_EMPTY_EXTREMUM = (Group.ERROR, "an extremum over an empty group (ValueError)")
    ERROR_INDEX_NEGATIVE = (Group.ERROR, "a negative index (IndexError, never wraps)")
    ERROR_INDEX_TOO_LARGE = (Group.ERROR, "an index >= n (IndexError)")
    ERROR_SCATTER_DUPLICATE = (Group.ERROR, "duplicate scatter indices (ValueError)")
    ERROR_BAD_PARAMETER = (
        Group.ERROR,
        "k not an int in [0, n], or keepdims, descending or largest not a bool",
    )
    # -- shape classes (docs/shape-classes.md): lengths, ranks, axes, layouts, lanes
    _ignore_ = ("_n", "_r", "_a")
    for _n in LENGTHS:
        locals()[f"LENGTH_{_n}"] = (
            Group.LENGTH,
            f"{_n} terms in a reduced/scanned/sorted row, a matmul K (M, N >= 2), the "
            f"terms of a conv output or the updates of one scatter_add target",
        )
    for _r in range(MAX_RANK + 1):
        locals()[f"RANK_{_r}"] = (Group.RANK, f"a rank-{_r} input (elementwise: output)")
    for _r in range(1, MAX_RANK + 1):
        for _a in (*range(_r), *range(-_r, 0)):
            locals()[_axis_name(_a, _r)] = (Group.AXIS, f"axis {_a} of a rank-{_r} input")
    SEVERAL_AXES_KEEPDIMS = (
        Group.LAYOUT,
        "two or more axes of length >= 2 reduced with keepdims=True, finite non-empty groups",
    )
    SEVERAL_AXES_DROPPED = (
        Group.LAYOUT,
        "two or more axes of length >= 2 reduced with keepdims=False, finite non-empty groups",
    )
    BROADCAST_LEADING_ONES = (
        Group.LAYOUT,
        "an operand of the output's rank stretched along a leading length-1 axis",
    )
    BROADCAST_RANK_MISMATCH = (Group.LAYOUT, "tensor operands of different ranks broadcast")
    BROADCAST_BOTH_SIDES = (
        Group.LAYOUT,
        "two tensor operands each stretched along an axis where the other is not",
    )
    LANES_NAN_MAIN = (
        Group.LANES,
        "a quiet NaN copied to an output of > 32 elements, in its full 16-element blocks",
    )
    LANES_NAN_TAIL = (
        Group.LANES,
        "a quiet NaN copied to an output of > 32 elements, past its last full 16-element block",
    )
    LANES_SIGNALLING_NAN_MAIN = (
        Group.LANES,
        "a signalling NaN copied to an output of > 32 elements, in its full 16-element blocks",
    )
    LANES_SIGNALLING_NAN_TAIL = (
        Group.LANES,
        "a signalling NaN copied to an output of > 32 elements, past its last full block",
    )
    EXTREMUM_NAN_IN_BLOCKS = (
        Group.LANES,
        "the first NaN of an extremum group longer than 16 lies in its full 16-element "
        "blocks, after the first element",
    )
    EXTREMUM_NAN_IN_TAIL = (
        Group.LANES,
        "the first NaN of an extremum group longer than 16 lies past its last full block",
    )
    EXTREMUM_TIE_ACROSS_LANES = (
        Group.LANES,
        "an arg-extremum group longer than 16 holds its extreme again later in a lower "
        "lane (position mod 16): a lane-wise combination picks the wrong index",
    )
    TOPK_LONG_ROW_TIE = (
        Group.LANES,
        "a top-k row longer than 32 with 0 < k < n and a tie at the cut-off",
    )
    # -- strided extrema: the extremum rules of a group that runs along an axis other
    # than the input's last (a kernel's strided path folds whole rows)
    EXTREMUM_NAN_LATER_OFF_LAST_AXIS = (
        Group.STRIDED_EXTREMUM,
        "EXTREMUM_NAN_LATER in a reduction that leaves the input's last axis",
    )
    EXTREMUM_NANS_DIFFERENT_BITS_OFF_LAST_AXIS = (
        Group.STRIDED_EXTREMUM,
        "EXTREMUM_NANS_DIFFERENT_BITS in a reduction that leaves the input's last axis",
    )
    EXTREMUM_ZERO_TIE_NEG_FIRST_OFF_LAST_AXIS = (
        Group.STRIDED_EXTREMUM,
        "EXTREMUM_ZERO_TIE_NEG_FIRST (+0 after -0) in a reduction that leaves the last axis",
    )
    EXTREMUM_ZERO_TIE_POS_FIRST_OFF_LAST_AXIS = (
        Group.STRIDED_EXTREMUM,
        "EXTREMUM_ZERO_TIE_POS_FIRST (-0 after +0) in a reduction that leaves the last axis",
    )
    EXTREMUM_VALUE_TIE_OFF_LAST_AXIS = (
        Group.STRIDED_EXTREMUM,
        "EXTREMUM_VALUE_TIE (arg-extremum) in a reduction that leaves the input's last axis",
    )
    # -- order classes (docs/shape-classes.md): a finite sequential result that
    # another plausible order of the same terms would change
    ORDER_PAIRWISE = (
        Group.ACCUMULATION_ORDER,
        "a group of 4 or more terms whose sequential result pairwise combination changes",
    )
    for _n in ORDER_BLOCKS:
        locals()[f"ORDER_BLOCKS_{_n}"] = (
            Group.ACCUMULATION_ORDER,
            f"a group of {_n + 2} or more terms whose sequential result changes when blocks "
            f"of {_n} are combined in turn",
        )
    for _n in ORDER_LANES:
        locals()[f"ORDER_LANES_{_n}"] = (
            Group.ACCUMULATION_ORDER,
            f"a group of more than {_n} terms whose sequential result changes when {_n} lanes "
            f"are combined at the end",
        )
    ORDER_REVERSED = (
        Group.ACCUMULATION_ORDER,
        "a group of 3 or more terms whose sequential result the reversed order changes",
    )
    ORDER_TWO_HALVES = (
        Group.ACCUMULATION_ORDER,
        "a group of 3 or more terms whose sequential result two halves combined change",
    )
    # -- accumulator classes: a FLOATING group with a Float64 accumulator on which a
    # way of not honouring it gives a value the acceptance set rejects
    ACCUMULATOR_FLOAT32 = (
        Group.ACCUMULATOR,
        "a Float64-accumulator group that Float32 accumulation in every plausible order "
        "(sequential, pairwise, blocks, lanes, reversed, halves) gets wrong",
    )
    ACCUMULATOR_BLOCKS_STORED_FLOAT32 = (
        Group.ACCUMULATOR,
        "a Float64-accumulator group that Float64 blocks of every size 2-128 shorter than "
        "the group, the running total stored as Float32 between blocks, get wrong",
    )
    ACCUMULATOR_NARROWED_INTERMEDIATE = (
        Group.ACCUMULATOR,
        "a Float64-accumulator group whose Float64 sum narrowed to Float32 through any "
        "intermediate precision of 25 to 52 bits is wrong",
    )
    ACCUMULATOR_FLOAT32_OFF_LAST_AXIS = (
        Group.ACCUMULATOR,
        "ACCUMULATOR_FLOAT32 in a reduction that leaves the input's last axis (strided)",
    )
    ACCUMULATOR_BLOCKS_STORED_FLOAT32_OFF_LAST_AXIS = (
        Group.ACCUMULATOR,
        "ACCUMULATOR_BLOCKS_STORED_FLOAT32 in a reduction that leaves the last axis",
    )
    ACCUMULATOR_NARROWED_INTERMEDIATE_OFF_LAST_AXIS = (
        Group.ACCUMULATOR,
        "ACCUMULATOR_NARROWED_INTERMEDIATE in a reduction that leaves the last axis",
    )
    # -- a weak exponent a binary32 fast path cannot hold (docs/shape-classes.md)
    POW_ODD_EXPONENT_ABOVE_2_24 = (
        Group.NARROWED_EXPONENT,
        "Int32 pow: base -1 raised to an odd weak exponent in (2**24, 2**31 - 1], which "
        "binary32 rounds to an even one, in a call whose results all fit Int32",
    )
    # -- Int32 partial-sum classes (docs/shape-classes.md): an EXACT_INTEGER group whose
    # exact total fits while a partial sum of another order leaves Int32
    INT32_PARTIAL_PAIRWISE = (
        Group.INT32_PARTIAL_ORDER,
        "an Int32 group of 4 or more terms whose total fits while a node of the pairwise "
        "tree leaves Int32",
    )
    INT32_PARTIAL_TWO_HALVES = (
        Group.INT32_PARTIAL_ORDER,
        "an Int32 group of 3 or more terms whose total fits while a running sum of one of "
        "its two halves leaves Int32",
    )
    for _n in ORDER_BLOCKS:
        locals()[f"INT32_PARTIAL_BLOCKS_{_n}"] = (
            Group.INT32_PARTIAL_ORDER,
            f"an Int32 group of {_n + 2} or more terms whose total fits while a running sum "
            f"within a block of {_n} (or of the block totals) leaves Int32",
        )
    for _n in ORDER_LANES:
        locals()[f"INT32_PARTIAL_LANES_{_n}"] = (
            Group.INT32_PARTIAL_ORDER,
            f"an Int32 group of more than {_n} terms whose total fits while a running sum of "
            f"one of {_n} lanes (or of the lane totals) leaves Int32",
        )

    @property
    def group(self) -> Group:
        return self.value[0]

    @property
    def description(self) -> str:
        return self.value[1]

    def __repr__(self) -> str:
        return f"Boundary.{self.name}"


B = Boundary

#: the groups whose classes are *shape classes* (counted apart in coverage reports)
SHAPE_GROUPS: frozenset[Group] = frozenset(
    {
        Group.SHAPE,
        Group.LENGTH,
        Group.RANK,
        Group.AXIS,
        Group.LAYOUT,
        Group.LANES,
        Group.STRIDED_EXTREMUM,
    }
)
#: an extremum class -> its twin on the strided path (a group off the input's last axis)
OFF_LAST_AXIS_EXTREMA: dict[Boundary, Boundary] = {
    c: Boundary[f"{c.name}_OFF_LAST_AXIS"]
    for c in (
        Boundary.EXTREMUM_NAN_LATER,
        Boundary.EXTREMUM_NANS_DIFFERENT_BITS,
        Boundary.EXTREMUM_ZERO_TIE_NEG_FIRST,
        Boundary.EXTREMUM_ZERO_TIE_POS_FIRST,
        Boundary.EXTREMUM_VALUE_TIE,
    )
}
#: the groups whose classes are *order classes* (counted apart in coverage reports): a
#: kernel's other evaluation of the same terms -- another order of a sequential
#: accumulation, a Float64 accumulator not honoured, Int32 partial sums of a parallel
#: order, a weak exponent taken through binary32
ORDER_CLASS_GROUPS: frozenset[Group] = frozenset(
    {
        Group.ACCUMULATION_ORDER,
        Group.ACCUMULATOR,
        Group.INT32_PARTIAL_ORDER,
        Group.NARROWED_EXPONENT,
    }
)
#: every integer up to this magnitude is a binary32 value; past it an odd one is not
#: (it rounds to an even neighbour): POW_ODD_EXPONENT_ABOVE_2_24
BINARY32_EXACT_INTEGERS = 2**24


def length_class(n: int) -> Boundary:
    """The LENGTH class of *n* terms (KeyError unless *n* is in :data:`LENGTHS`)."""
    if n not in LENGTHS:
        raise KeyError(f"no LENGTH class for {n}: the lengths are {LENGTHS}")
    return Boundary[f"LENGTH_{n}"]


def rank_class(rank: int) -> Boundary:
    """The RANK class of *rank* (0 .. MAX_RANK; KeyError otherwise)."""
    return Boundary[f"RANK_{rank}"]


def axis_class(axis: int, rank: int) -> Boundary:
    """The AXIS class of *axis* (as written, negative or not) of a *rank*-d input."""
    return Boundary[_axis_name(axis, rank)]


#: Bit patterns of the special Float32 values (both signs where it matters).
SPECIAL_FLOAT_BITS: dict[str, tuple[int, ...]] = {
    "zero": (0x00000000, 0x80000000),
    "inf": (0x7F800000, 0xFF800000),
    "nan": (0x7FC00000, 0xFFC00000, 0x7FC00001, 0x7FFFFFFF, 0xFFD2A4C6, 0x7FA00000 | 0x400000),
    "min_subnormal": (0x00000001, 0x80000001),
    "max_subnormal": (0x007FFFFF, 0x807FFFFF),
    "min_normal": (0x00800000, 0x80800000),
    "max_finite": (0x7F7FFFFF, 0xFF7FFFFF),
}


# ---------------------------------------------------------------------------
# Plan facts: what applicability is derived from
# ---------------------------------------------------------------------------

_EXTREMUM_ACCUMULATIONS = {
    Accumulation.MAXIMUM: "max",
    Accumulation.MINIMUM: "min",
    Accumulation.ARGMAX: "max",
    Accumulation.ARGMIN: "min",
}
#: Elementwise operations that apply an extremum rule, with the rule per operand pair:
#: maximum(x, y); minimum(x, y); clamp(x, lo, hi) = minimum(maximum(x, lo), hi),
#: measured as the pairs (x, lo) under max and (x, hi) under min.
ELEMENTWISE_EXTREMA: dict[str, tuple[tuple[int, int, str], ...]] = {
    "maximum": ((0, 1, "max"),),
    "minimum": ((0, 1, "min"),),
    "clamp": ((0, 1, "max"), (0, 2, "min")),
}

_SUM_ACCUMULATIONS = (Accumulation.FLOATING, Accumulation.SEQUENTIAL_BINARY32)


@dataclass(frozen=True)
class PlanFacts:
    """What :func:`applicable_classes` and :func:`classes_hit` read off a plan."""

    plan: OperationPlan
    family: Family
    float_positions: tuple[int, ...]  #: tensors stored as Float32
    int_positions: tuple[int, ...]  #: numeric Int32 tensors (converted or integer compute)
    converted_int_positions: tuple[int, ...]  #: Int32 tensors materialised as Float32
    index_positions: tuple[int, ...]  #: Int32 tensors kept as Int32 in a binary32 plan
    bool_positions: tuple[int, ...]  #: Bool tensors (select's condition)
    weak_positions: tuple[int, ...]
    tensor_count: int
    parameter_kinds: tuple[tuple[str, ParameterKind], ...]

    @property
    def extremum_rule(self) -> str | None:
        return _EXTREMUM_ACCUMULATIONS.get(self.plan.accumulation)  # type: ignore[arg-type]

    @property
    def has_axis(self) -> bool:
        return any(name == "axis" for name, _ in self.parameter_kinds)

    def axis_kind(self) -> ParameterKind | None:
        return next((kind for name, kind in self.parameter_kinds if name == "axis"), None)


#: the non-axis parameters whose type or range the reference checks (ERROR_BAD_PARAMETER)
_CHECKED_PARAMETERS = frozenset({"k", "keepdims", "descending", "largest"})


@functools.cache
def plan_facts(plan: OperationPlan) -> PlanFacts:
    """The facts of *plan* (cached)."""
    positions: dict[str, list[int]] = {
        k: [] for k in ("float", "int", "converted", "index", "bool", "weak")
    }
    integer_compute = plan.compute is not Arithmetic.BINARY32
    for index, operand in enumerate(plan.operands):
        if operand.role is OperandRole.WEAK_SCALAR:
            positions["weak"].append(index)
        elif operand.dtype is F32:
            positions["float"].append(index)
        elif operand.dtype is BOOL:
            positions["bool"].append(index)
        elif operand.dtype is I32:
            if operand.convert_to is F32:
                positions["converted"].append(index)
                positions["int"].append(index)
            elif integer_compute:
                positions["int"].append(index)
            else:
                positions["index"].append(index)
    return PlanFacts(
        plan=plan,
        family=family_of(plan.operation),
        float_positions=tuple(positions["float"]),
        int_positions=tuple(positions["int"]),
        converted_int_positions=tuple(positions["converted"]),
        index_positions=tuple(positions["index"]),
        bool_positions=tuple(positions["bool"]),
        weak_positions=tuple(positions["weak"]),
        tensor_count=sum(o.role is OperandRole.TENSOR for o in plan.operands),
        parameter_kinds=tuple((p.name, p.kind) for p in parameters_of(plan.operation)),
    )


# ---------------------------------------------------------------------------
# Measurement
# ---------------------------------------------------------------------------


def _neighbours(a: Fraction) -> tuple[Fraction, Fraction]:
    """The binary32 grid points around a positive *a* (lo <= a < hi; hi may be 2**128)."""
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if a < Fraction(2) ** e:
        e -= 1
    quantum = Fraction(2) ** max(e - 23, -149)
    lo = (a // quantum) * quantum
    return lo, lo + quantum
