"""Which boundary classes can occur for a plan: derived from the plan, never declared.

:func:`applicable_classes` reads the plan's operand roles and source/compute
dtypes, compute arithmetic, accumulation, output dtype and the operation's
call family (:func:`~conformance.classes.boundary.plan_facts`); which
rounding, range and Int32-result classes an exact arithmetic operation can
reach, and which weak-scalar classes a plan can see, are the witness tables
of :mod:`conformance.classes.witness_tables`.
"""

from __future__ import annotations

import functools

from conformance.classes import witness_tables
from conformance.classes.boundary import (
    _CHECKED_PARAMETERS,
    _SUM_ACCUMULATIONS,
    ELEMENTWISE_EXTREMA,
    LENGTHS,
    MAX_RANK,
    OFF_LAST_AXIS_EXTREMA,
    ORDER_BLOCKS,
    SCATTER_UPDATE_COUNTS,
    Boundary,
    Group,
    PlanFacts,
    axis_class,
    length_class,
    plan_facts,
    rank_class,
)
from conformance.model.calls import Family, ParameterKind
from oracle import Accumulation, Arithmetic, DType, OperationPlan, operation_facts

__all__ = ["accumulation_order_classes", "applicable_classes", "shape_classes"]

B = Boundary


# ---------------------------------------------------------------------------

_FLOAT_VALUE_CLASSES = frozenset(c for c in Boundary if c.group is Group.FLOAT_VALUE)
_INT32_VALUE_CLASSES = frozenset(c for c in Boundary if c.group is Group.INT32_VALUE)


@functools.cache
def applicable_classes(plan: OperationPlan) -> frozenset[Boundary]:
    """The boundary classes that can occur for *plan* (derived, see the module doc)."""
    facts = plan_facts(plan)
    family = facts.family
    accumulation = plan.accumulation
    classes: set[Boundary] = set()
    if facts.float_positions:
        classes |= _FLOAT_VALUE_CLASSES
    if facts.int_positions:
        classes |= _INT32_VALUE_CLASSES
    if facts.converted_int_positions:
        classes |= {B.INT32_TO_FLOAT32_TIE, B.INT32_TO_FLOAT32_INEXACT}
    classes |= set(witness_tables.arithmetic_witnesses(plan))
    if accumulation is Accumulation.EXACT_INTEGER:
        classes |= {
            B.INT32_RESULT_AT_LIMIT,
            B.INT32_RESULT_JUST_OUTSIDE,
            B.INT32_RESULT_OVERFLOW,
            B.INT32_PARTIAL_SUM_OUTSIDE,
        }
        if facts.tensor_count == 2:
            classes.add(B.INT32_TERM_OUTSIDE)
    if accumulation in _SUM_ACCUMULATIONS:
        classes |= {c for c in Boundary if c.group is Group.SUM} - {B.EMPTY_REDUCTION}
    if accumulation is Accumulation.SEQUENTIAL_BINARY32_PRODUCT:
        classes |= {c for c in Boundary if c.group is Group.PRODUCT}
    extremum = facts.extremum_rule
    if (family is Family.REDUCE and extremum is None) or family is Family.MATMUL:
        classes.add(B.EMPTY_REDUCTION)
    if extremum is not None or plan.operation in ELEMENTWISE_EXTREMA:
        classes |= {
            B.EXTREMUM_ZERO_TIE_NEG_FIRST,
            B.EXTREMUM_ZERO_TIE_POS_FIRST,
            B.EXTREMUM_NAN_FIRST,
            B.EXTREMUM_NAN_LATER,
        }
    if extremum is not None:
        classes.add(B.EXTREMUM_NANS_DIFFERENT_BITS)
        if accumulation in (Accumulation.ARGMAX, Accumulation.ARGMIN):
            classes.add(B.EXTREMUM_VALUE_TIE)
        if family in (Family.REDUCE, Family.ARG):
            classes.add(B.ERROR_EMPTY_EXTREMUM)
    if family in (Family.SORT, Family.TOPK):
        classes |= {
            B.SORT_NAN,
            B.SORT_NANS_DIFFERENT_BITS,
            B.SORT_TIE,
            B.SORT_ZEROS_NEG_FIRST,
            B.SORT_ZEROS_POS_FIRST,
        }
    if family is Family.TOPK:
        classes |= {B.TOPK_TIE_AT_CUTOFF, B.TOPK_NAN_SELECTED}
    if facts.index_positions:
        classes |= {
            B.INDEX_FIRST,
            B.INDEX_LAST,
            B.INDEX_EMPTY,
            B.ERROR_INDEX_NEGATIVE,
            B.ERROR_INDEX_TOO_LARGE,
        }
        classes.add(B.ERROR_SCATTER_DUPLICATE if family is Family.SCATTER else B.INDEX_DUPLICATE)
    if facts.bool_positions:
        classes.add(B.CONDITION_MIXED)
    for position in facts.weak_positions:
        classes |= set(witness_tables._weak_table(plan)[position])
    # shapes
    classes.add(B.SHAPE_EMPTY)
    if family in (Family.ELEMENTWISE, Family.REDUCE, Family.ARG) or facts.index_positions:
        classes.add(B.SHAPE_SCALAR)
    if family is Family.ELEMENTWISE and facts.tensor_count >= 2:
        classes |= {B.SHAPE_BROADCAST, B.ERROR_SHAPE_MISMATCH}
    if family in (Family.MATMUL, Family.CONV, Family.SCATTER, Family.SCATTER_ADD):
        classes.add(B.ERROR_SHAPE_MISMATCH)
    # parameters, from their kinds
    for name, kind in facts.parameter_kinds:
        if kind in (ParameterKind.AXES, ParameterKind.OPTIONAL_AXIS):
            classes.add(B.AXIS_NONE)
        if kind is ParameterKind.AXES:
            classes |= {B.AXIS_MULTIPLE, B.AXIS_EMPTY_TUPLE}
        if name == "axis":
            classes |= {B.AXIS_NEGATIVE, B.ERROR_BAD_AXIS}
        if name == "keepdims":
            classes.add(B.KEEPDIMS)
        if name == "descending":
            classes.add(B.SORT_DESCENDING)
        if name in _CHECKED_PARAMETERS:
            classes.add(B.ERROR_BAD_PARAMETER)
        if name == "largest":
            classes.add(B.TOPK_SMALLEST)
        if kind is ParameterKind.COUNT:
            classes |= {B.TOPK_K_ZERO, B.TOPK_K_ALL}
        if kind is ParameterKind.PADDING:
            classes.add(B.CONV_PADDING)
        if kind is ParameterKind.GROUPS:
            classes |= {B.CONV_GROUPS, B.CONV_TWO_SPATIAL}
        if name == "window_strides":
            classes.add(B.CONV_STRIDE)
        if name == "lhs_dilation":
            classes.add(B.CONV_LHS_DILATION)
        if name == "rhs_dilation":
            classes.add(B.CONV_RHS_DILATION)
    classes |= shape_classes(facts)
    classes |= accumulation_order_classes(facts)
    return frozenset(classes)


#: the families over one axis of one tensor (lengths, ranks and axes apply)
_ROW_FAMILIES = (Family.REDUCE, Family.ARG, Family.SCAN, Family.SORT, Family.TOPK)


def shape_classes(facts: PlanFacts) -> set[Boundary]:
    """The shape classes of the LENGTH, RANK, AXIS, LAYOUT and LANES groups that
    can occur for the plan of *facts* (docs/shape-classes.md):

    * LENGTH: the row families, matmul's K and conv's terms per output take every
      length of :data:`LENGTHS`; scatter_add's updates per target the counts of
      :data:`SCATTER_UPDATE_COUNTS`;
    * RANK: elementwise (the output's rank) and reduce/arg take ranks 0 to 6, the
      other row families (which refuse a 0-d input) 1 to 6;
    * AXIS: every axis of ranks 1 to 6, both spellings, for the row families;
    * LAYOUT: several axes with keepdims both ways for reduce; the three
      broadcasting layouts for elementwise plans of two or more tensors;
    * LANES: NaN and signalling NaN in the full blocks and the tail of a long
      output for elementwise operations that copy NaN bits from a Float32 tensor;
      a tie at the cut-off of a long row for top-k; NaNs in the blocks and the tail
      of long extremum groups, and (arg) a tie across lanes;
    * STRIDED_EXTREMUM: the extremum rules of reduce_max/min and argmax/argmin along
      an axis other than the last (NaN later, NaNs of different bits, both zero
      orders; arg: a repeated extreme).
    """
    family = facts.family
    out: set[Boundary] = set()
    if family in _ROW_FAMILIES or family in (Family.MATMUL, Family.CONV):
        out |= {length_class(n) for n in LENGTHS}
    if family is Family.SCATTER_ADD:
        out |= {length_class(n) for n in SCATTER_UPDATE_COUNTS}
    if family in (Family.ELEMENTWISE, Family.REDUCE, Family.ARG):
        out |= {rank_class(r) for r in range(MAX_RANK + 1)}
    if family in _ROW_FAMILIES:
        out |= {rank_class(r) for r in range(1, MAX_RANK + 1)}
        out |= {axis_class(a, r) for r in range(1, MAX_RANK + 1) for a in range(-r, r)}
    if family is Family.REDUCE:
        out |= {B.SEVERAL_AXES_KEEPDIMS, B.SEVERAL_AXES_DROPPED}
    if family is Family.ELEMENTWISE and facts.tensor_count >= 2:
        out |= {B.BROADCAST_LEADING_ONES, B.BROADCAST_RANK_MISMATCH, B.BROADCAST_BOTH_SIDES}
    if (
        family is Family.ELEMENTWISE
        and facts.float_positions
        and operation_facts(facts.plan.operation).nan_bit_copy
    ):
        out |= {
            B.LANES_NAN_MAIN,
            B.LANES_NAN_TAIL,
            B.LANES_SIGNALLING_NAN_MAIN,
            B.LANES_SIGNALLING_NAN_TAIL,
        }
    if family is Family.TOPK:
        out.add(B.TOPK_LONG_ROW_TIE)
    if facts.extremum_rule is not None and family in (Family.REDUCE, Family.ARG):
        out |= {B.EXTREMUM_NAN_IN_BLOCKS, B.EXTREMUM_NAN_IN_TAIL}
        if family is Family.ARG:
            out.add(B.EXTREMUM_TIE_ACROSS_LANES)
        out |= set(OFF_LAST_AXIS_EXTREMA.values())
        if family is not Family.ARG:
            out.discard(B.EXTREMUM_VALUE_TIE_OFF_LAST_AXIS)
    return out


_SEQUENTIAL = (Accumulation.SEQUENTIAL_BINARY32, Accumulation.SEQUENTIAL_BINARY32_PRODUCT)


def accumulation_order_classes(facts: PlanFacts) -> set[Boundary]:
    """The order classes (ACCUMULATION_ORDER and ACCUMULATOR groups) that can occur
    for the plan of *facts* (docs/shape-classes.md):

    * a sequential sum or product: every other order (pairwise, reversed, two
      halves, 4/8/16 lanes, blocks of b) that some group of the plan can be long
      enough for -- blocks of b need b + 2 terms, and a scatter_add target holds
      its base and at most ``max(SCATTER_UPDATE_COUNTS)`` updates;
    * a FLOATING sum with a Float64 accumulator: the three accumulator faults, and
      for a reduction their OFF_LAST_AXIS twins (a matmul has no "other axis");
    * an EXACT_INTEGER sum (Int32 reduce_sum, Int32 matmul over K): every
      INT32_PARTIAL_ORDER class (a row of LENGTHS is long enough for each);
    * Int32 pow (its exponent is weak): POW_ODD_EXPONENT_ABOVE_2_24.
    """
    plan = facts.plan
    accumulation = plan.accumulation
    out: set[Boundary] = set()
    if accumulation in _SEQUENTIAL:
        longest = (
            max(SCATTER_UPDATE_COUNTS) + 1 if facts.family is Family.SCATTER_ADD else max(LENGTHS)
        )
        out |= {c for c in Boundary if c.group is Group.ACCUMULATION_ORDER}
        out -= {Boundary[f"ORDER_BLOCKS_{b}"] for b in ORDER_BLOCKS if longest < b + 2}
    if accumulation is Accumulation.FLOATING and plan.accumulator_dtype is DType.Float64:
        accumulator = {c for c in Boundary if c.group is Group.ACCUMULATOR}
        if facts.family is not Family.REDUCE:
            accumulator = {c for c in accumulator if not c.name.endswith("_OFF_LAST_AXIS")}
        out |= accumulator
    if accumulation is Accumulation.EXACT_INTEGER:
        out |= {c for c in Boundary if c.group is Group.INT32_PARTIAL_ORDER}
    if plan.operation == "pow" and plan.compute is Arithmetic.INT32_EXACT_CHECKED:
        out.add(B.POW_ODD_EXPONENT_ABOVE_2_24)
    return out
