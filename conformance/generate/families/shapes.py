"""Measuring the shape classes of a call: lengths, ranks, axes, layouts and lanes.

The catalogue and its thresholds are :mod:`conformance.classes.boundary`
(groups LENGTH, RANK, AXIS, LAYOUT, LANES); which plans can see them is
:func:`conformance.classes.applicability.shape_classes`.  The family modules
call these helpers from their ``measure`` once a call's structure is known to
be valid, so a refused call hits only its error class.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from conformance.classes.boundary import (
    LANE_BLOCK,
    LENGTHS,
    LONG_ROW,
    MAX_RANK,
    B,
    Boundary,
    axis_class,
    length_class,
    rank_class,
)
from oracle import binary32

__all__ = [
    "add_axes",
    "add_broadcast_layout",
    "add_extremum_lanes",
    "add_lanes",
    "add_length",
    "add_rank",
    "add_several_axes",
]


def add_length(n: int, hits: set[Boundary], allowed: Iterable[int] = LENGTHS) -> None:
    """Record the LENGTH class of *n* terms (nothing for a length without one)."""
    if n in allowed and n in LENGTHS:
        hits.add(length_class(n))


def add_rank(rank: int, hits: set[Boundary]) -> None:
    """Record the RANK class of *rank* (nothing above MAX_RANK)."""
    if 0 <= rank <= MAX_RANK:
        hits.add(rank_class(rank))


def add_axes(axes: Iterable[int], rank: int, hits: set[Boundary]) -> None:
    """Record the AXIS class of every axis in *axes* as written (valid for *rank*)."""
    if 1 <= rank <= MAX_RANK:
        for axis in axes:
            hits.add(axis_class(int(axis), rank))


def add_several_axes(
    shape: Sequence[int],
    axes: Sequence[int],
    keepdims: bool,
    values: Sequence[Any],
    hits: set[Boundary],
) -> None:
    """SEVERAL_AXES_KEEPDIMS / _DROPPED: two or more reduced axes of length >= 2
    (normalised *axes*) over a non-empty tensor of finite values."""
    if sum(shape[a] >= 2 for a in axes) < 2 or not values:
        return
    if not all(isinstance(v, int) or math.isfinite(v) for v in values):
        return
    hits.add(B.SEVERAL_AXES_KEEPDIMS if keepdims else B.SEVERAL_AXES_DROPPED)


def add_broadcast_layout(
    shapes: Sequence[tuple[int, ...]], out: tuple[int, ...], hits: set[Boundary]
) -> None:
    """The broadcasting layouts of tensor operands of *shapes* onto *out*."""
    if len({len(s) for s in shapes}) > 1:
        hits.add(B.BROADCAST_RANK_MISMATCH)
    stretched: list[set[int]] = []
    for shape in shapes:
        lead = len(out) - len(shape)
        axes = {lead + i for i, size in enumerate(shape) if size == 1 and out[lead + i] > 1}
        stretched.append(axes)
        if lead == 0 and shape and shape[0] == 1 and out[0] > 1:
            hits.add(B.BROADCAST_LEADING_ONES)
    for i, mine in enumerate(stretched):
        for j, theirs in enumerate(stretched):
            if i < j and mine - theirs and theirs - mine:
                hits.add(B.BROADCAST_BOTH_SIDES)


def add_extremum_lanes(group: Sequence[Any], rule: str, ties: bool, hits: set[Boundary]) -> None:
    """The LANES classes of one extremum group (in logical order) longer than
    LANE_BLOCK: where its first NaN lies, and (*ties*: an arg-extremum) whether its
    extreme recurs later in a lower lane."""
    n = len(group)
    if n <= LANE_BLOCK:
        return
    main = LANE_BLOCK * (n // LANE_BLOCK)
    first_nan = next((i for i, v in enumerate(group) if math.isnan(v)), None)
    if first_nan is not None:
        if first_nan >= main:
            hits.add(B.EXTREMUM_NAN_IN_TAIL)
        elif first_nan > 0:
            hits.add(B.EXTREMUM_NAN_IN_BLOCKS)
        return
    if not ties:
        return
    extreme = max(group) if rule == "max" else min(group)
    positions = [i for i, v in enumerate(group) if v == extreme]
    if any(q % LANE_BLOCK < positions[0] % LANE_BLOCK for q in positions[1:]):
        hits.add(B.EXTREMUM_TIE_ACROSS_LANES)


def add_lanes(copied: Sequence[Any], hits: set[Boundary]) -> None:
    """LANES classes of an output whose elements are the input values *copied*
    (in flat order): a quiet or signalling NaN in the full LANE_BLOCK-element blocks
    or in the tail of an output longer than LONG_ROW."""
    n = len(copied)
    if n <= LONG_ROW:
        return
    main = LANE_BLOCK * (n // LANE_BLOCK)
    for position, value in enumerate(copied):
        if not isinstance(value, float) or not math.isnan(value):
            continue
        signalling = isinstance(value, binary32.SignallingNaN)
        if position < main:
            hits.add(B.LANES_SIGNALLING_NAN_MAIN if signalling else B.LANES_NAN_MAIN)
        else:
            hits.add(B.LANES_SIGNALLING_NAN_TAIL if signalling else B.LANES_NAN_TAIL)
