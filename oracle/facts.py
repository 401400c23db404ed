"""What the operation table states about each operation beyond its dtype plan.

The table in :mod:`oracle.operations` gives every operation one
:class:`OperationFacts` row: its call :class:`Family` (which fixes the
non-dtype parameters, :data:`FAMILY_PARAMETERS`), the conformance class of
its binary32 plans, whether it copies NaN bits, whether its floating
accumulator is configurable, and the one-sentence value rule of the
reference semantics.  Every per-operation list of the oracle is derived from
these rows (``evaluate.REFERENCES``, ``vectorised.ROUNDED_OPS`` ...,
``planner.ACCUMULATOR_CONFIGURABLE_OPERATIONS``), and so can the
conformance suite's: :func:`operation_facts` is the public way in.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from .expectation import Conformance

__all__ = [
    "FAMILY_PARAMETERS",
    "Conformance",
    "Family",
    "OperationFacts",
    "Parameter",
    "ParameterKind",
]


class Family(enum.Enum):
    """How an operation's call is shaped: its non-dtype parameters."""

    ELEMENTWISE = "elementwise"  #: every forward argument is a dtype operand; broadcasting
    REDUCE = "reduce"  #: reduce_*(x, axis=None|int|tuple, keepdims=False)
    ARG = "arg"  #: argmax/argmin(x, axis=None|int)
    SCAN = "scan"  #: cumsum(x, axis)
    MATMUL = "matmul"  #: matmul(a, b), 2-D
    CONV = "conv"  #: conv_general(lhs, rhs, strides, padding, lhs_dil, rhs_dil, groups)
    GATHER = "gather"  #: gather(data, indices, axis)
    SCATTER = "scatter"  #: scatter(base, indices, updates, axis), distinct indices
    SCATTER_ADD = "scatter_add"  #: scatter_add(base, indices, updates, axis), duplicates allowed
    SORT = "sort"  #: _sort_*(x, axis=-1, descending=False)
    TOPK = "topk"  #: _topk_*(x, k, axis=-1, largest=True)


class ParameterKind(enum.Enum):
    """The value domain of one non-dtype parameter."""

    AXES = "axes"  #: None, an int or a tuple of distinct ints (negative allowed)
    OPTIONAL_AXIS = "optional_axis"  #: None or an int
    AXIS = "axis"  #: an int (negative allowed)
    FLAG = "flag"  #: a bool
    COUNT = "count"  #: a non-negative int no larger than the axis extent (topk's k)
    PER_SPATIAL = "per_spatial"  #: a tuple of positive ints, one per spatial dimension
    PADDING = "padding"  #: a (low, high) int pair per spatial dimension (negative crops)
    GROUPS = "groups"  #: a positive int dividing the channel counts


@dataclass(frozen=True)
class Parameter:
    """One non-dtype parameter: its name, kind and default (``required`` if none)."""

    name: str
    kind: ParameterKind
    default: Any = None
    required: bool = False


_AXES = Parameter("axis", ParameterKind.AXES, None)
_KEEPDIMS = Parameter("keepdims", ParameterKind.FLAG, False)
_AXIS_REQUIRED = Parameter("axis", ParameterKind.AXIS, required=True)

#: Family -> its non-dtype parameters, in forward-argument order after the operands.
FAMILY_PARAMETERS: dict[Family, tuple[Parameter, ...]] = {
    Family.ELEMENTWISE: (),
    Family.REDUCE: (_AXES, _KEEPDIMS),
    Family.ARG: (Parameter("axis", ParameterKind.OPTIONAL_AXIS, None),),
    Family.SCAN: (_AXIS_REQUIRED,),
    Family.MATMUL: (),
    Family.CONV: (
        Parameter("window_strides", ParameterKind.PER_SPATIAL, required=True),
        Parameter("padding", ParameterKind.PADDING, required=True),
        Parameter("lhs_dilation", ParameterKind.PER_SPATIAL, required=True),
        Parameter("rhs_dilation", ParameterKind.PER_SPATIAL, required=True),
        Parameter("feature_group_count", ParameterKind.GROUPS, required=True),
    ),
    Family.GATHER: (_AXIS_REQUIRED,),
    Family.SCATTER: (_AXIS_REQUIRED,),
    Family.SCATTER_ADD: (_AXIS_REQUIRED,),
    Family.SORT: (
        Parameter("axis", ParameterKind.AXIS, -1),
        Parameter("descending", ParameterKind.FLAG, False),
    ),
    Family.TOPK: (
        Parameter("k", ParameterKind.COUNT, required=True),
        Parameter("axis", ParameterKind.AXIS, -1),
        Parameter("largest", ParameterKind.FLAG, True),
    ),
}


@dataclass(frozen=True)
class OperationFacts:
    """The value-level facts of one registered operation.

    *conformance* is the class of the operation's binary32 plans (a plan
    with FLOATING accumulation is BOUNDED whatever this says; every Int32
    plan is EXACT).  *nan_bit_copy* marks the operations whose NaN results
    keep the input's bits.  *semantics* is the reference rule in one
    sentence, as reports quote it.
    """

    name: str
    family: Family
    conformance: Conformance
    semantics: str
    nan_bit_copy: bool = False
    accumulator_configurable: bool = False

    @property
    def parameters(self) -> tuple[Parameter, ...]:
        """The non-dtype parameters, in forward-argument order after the operands."""
        return FAMILY_PARAMETERS[self.family]
