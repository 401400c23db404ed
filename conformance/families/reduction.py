"""The reduction family and its relatives over one axis: reduce, arg, scan, sort, topk.

:func:`measure` records the axis classes, the sum, product and extremum
classes of every group, and the order classes of sort and topk.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from oracle import Accumulation, Tensor

from ..boundaries import (
    B,
    Boundary,
    PlanFacts,
)
from ..calls import Call, Family, ParameterKind
from .measures import Invalid as _Invalid
from .measures import (
    _extremum_classes,
    _order_classes,
    _product_classes,
    _sum_classes,
)


def _axis_ok(axis: Any, ndim: int) -> bool:
    return (
        isinstance(axis, (int, np.integer))
        and not isinstance(axis, (bool, np.bool_))
        and -ndim <= int(axis) < ndim
    )


def _normalised_axes(axis: Any, kind: ParameterKind, ndim: int, hits: set[Boundary]) -> tuple:
    if axis is None and kind in (ParameterKind.AXES, ParameterKind.OPTIONAL_AXIS):
        hits.add(B.AXIS_NONE)
        return tuple(range(ndim))
    if isinstance(axis, tuple) and kind is ParameterKind.AXES:
        if not axis:
            hits.add(B.AXIS_EMPTY_TUPLE)
        if len(axis) >= 2:
            hits.add(B.AXIS_MULTIPLE)
        axes = axis
    else:
        axes = (axis,)
    if not all(_axis_ok(a, ndim) for a in axes):
        hits.add(B.ERROR_BAD_AXIS)
        raise _Invalid
    if any(int(a) < 0 for a in axes):
        hits.add(B.AXIS_NEGATIVE)
    normalised = tuple(int(a) % ndim for a in axes)
    if len(set(normalised)) != len(normalised):
        hits.add(B.ERROR_BAD_AXIS)
        raise _Invalid
    return normalised


def _groups(tensor: Tensor, axes: Sequence[int]) -> list[list[Any]]:
    """The tensor's values grouped over *axes*, each group in logical order."""
    index = np.arange(tensor.size).reshape(tensor.shape)
    kept = [a for a in range(tensor.ndim) if a not in axes]
    moved = np.transpose(index, (*kept, *sorted(axes)))
    reduced = math.prod(tensor.shape[a] for a in axes)
    outer = math.prod(tensor.shape[a] for a in kept)
    flat = moved.reshape(outer, reduced)
    return [[tensor.values[i] for i in row] for row in flat.tolist()]


def _reduction(call: Call, facts: PlanFacts, operands, parameters, hits) -> None:
    x = operands[0]
    kind = facts.axis_kind()
    assert kind is not None
    axis = parameters.get("axis")
    if facts.family in (Family.SCAN, Family.SORT, Family.TOPK) and x.ndim == 0:
        hits.add(B.ERROR_BAD_AXIS)
        raise _Invalid
    if x.ndim == 0 and (axis is None or axis == ()):
        hits.add(B.AXIS_NONE if axis is None else B.AXIS_EMPTY_TUPLE)
        axes: tuple = ()
    else:
        axes = _normalised_axes(axis, kind, x.ndim, hits)
    if any(
        name in parameters and not isinstance(parameters[name], bool)
        for name in ("keepdims", "descending", "largest")
    ):
        hits.add(B.ERROR_BAD_PARAMETER)
        raise _Invalid
    if parameters.get("keepdims") is True:
        hits.add(B.KEEPDIMS)
    groups = _groups(x, axes)
    accumulation = facts.plan.accumulation
    rule = facts.extremum_rule
    if rule is not None:
        if any(not g for g in groups):
            hits.add(B.ERROR_EMPTY_EXTREMUM)
            raise _Invalid
        ties = accumulation in (Accumulation.ARGMAX, Accumulation.ARGMIN)
        for g in groups:
            _extremum_classes(g, rule, hits, track_ties=ties)
        return
    if facts.family in (Family.SORT, Family.TOPK):
        descending = bool(parameters.get("descending", False))
        k = None
        if facts.family is Family.TOPK:
            descending = bool(parameters.get("largest", True))
            if not descending:
                hits.add(B.TOPK_SMALLEST)
            k = parameters.get("k")
            n = x.shape[axes[0]]
            if k == 0:
                hits.add(B.TOPK_K_ZERO)
            if k == n:
                hits.add(B.TOPK_K_ALL)
            if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= n:
                hits.add(B.ERROR_BAD_PARAMETER)
                raise _Invalid
        elif descending:
            hits.add(B.SORT_DESCENDING)
        for g in groups:
            _order_classes(g, descending, k, hits)
        return
    if accumulation is Accumulation.SEQUENTIAL_BINARY32_PRODUCT:
        for g in groups:
            _product_classes(g, hits)
        return
    for g in groups:
        _sum_classes(g, hits)


FAMILIES = frozenset({Family.REDUCE, Family.ARG, Family.SCAN, Family.SORT, Family.TOPK})


def measure(
    call: Call, facts: PlanFacts, operands: Sequence[Any], parameters: dict, hits: set
) -> None:
    """Add the classes of *call* to *hits* (raises Invalid for a refused structure)."""
    _reduction(call, facts, operands, parameters, hits)
