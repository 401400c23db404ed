"""conv_general's geometry, stated once: the parameters read and checked, and the extents.

:func:`conv_geometry` takes the shapes of ``lhs`` [batch, in_channels,
*spatial] and ``rhs`` [out_channels, in_channels // groups, *window] and the
five non-dtype parameters of ``conv_general``, checks them as the
specification states (``docs/semantics/structured.md``) and returns an
immutable :class:`ConvGeometry`: the parameters with their defaults filled in,
and per spatial dimension the dilated input, padded input and dilated window
extents and the output extent.

This is the one home of these facts.  The oracle's reference
(:mod:`oracle.reference.structured`), both built-in backends
(``backends.cpu.structured``, ``backends.generic.structured``) and the
conformance suite's convolution family (``conformance.generate.families.conv``)
read it; the *computation* -- which input element each window tap reads, and
the sum of the terms -- stays written independently in each of them, so that
they check one another.

Per spatial dimension d, with input extent n, lhs dilation a, padding
(low, high), window extent k, rhs dilation r and stride s:

* dilated input ``(n - 1) * a + 1`` (0 when n = 0);
* padded input ``P = dilated + low + high`` (negative padding crops;
  ``P < 0`` is an error);
* dilated window ``K = (k - 1) * r + 1``;
* output extent ``(P - K) // s + 1`` when ``P >= K``, else 0.

Errors, checked in this order and raised before anything is computed (every
message starts ``conv_general:`` and names the parameter, its value and what
to write instead):

1. ValueError -- lhs and rhs do not have the same rank >= 2;
2. TypeError -- ``window_strides``, ``padding``, ``lhs_dilation``,
   ``rhs_dilation``: not a tuple or list (None means the default), an entry
   that is not an int (bools are not ints), a padding entry that is not a
   (low, high) tuple or list, or a container whose own methods raise;
   ValueError -- a wrong number of entries (one per spatial dimension), a
   padding entry that is not a pair, a stride or dilation below 1
   (parameters in the order strides, padding, lhs dilation, rhs dilation);
3. TypeError -- ``feature_group_count`` not an int; ValueError -- below 1,
   not dividing both channel counts, or ``rhs.shape[1]`` not
   ``in_channels // feature_group_count``;
4. ValueError -- a window extent of 0;
5. ValueError -- a padding that leaves a negative padded extent.

Result sizes are not limited here: each reader applies its own limit to
:attr:`ConvGeometry.output_elements` and :attr:`ConvGeometry.terms`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .errors import describe, integer_text, shape_text
from .reference.accumulate import check_int

__all__ = ["OPERATION", "ConvGeometry", "conv_geometry"]

#: The operation whose geometry this is (the prefix of every message).
OPERATION = "conv_general"


@dataclass(frozen=True)
class ConvGeometry:
    """The checked parameters of one conv_general call and the extents they imply.

    Built by :func:`conv_geometry`, which validates; constructing one directly
    checks nothing.  Per-dimension tuples have one entry per spatial dimension.
    """

    lhs_shape: tuple[int, ...]
    rhs_shape: tuple[int, ...]
    window_strides: tuple[int, ...]
    padding: tuple[tuple[int, int], ...]
    lhs_dilation: tuple[int, ...]
    rhs_dilation: tuple[int, ...]
    feature_group_count: int
    #: (n - 1) * lhs_dilation + 1 per spatial dimension, 0 for an empty one
    dilated_input: tuple[int, ...]
    #: dilated input plus low and high padding (>= 0)
    padded_input: tuple[int, ...]
    #: (k - 1) * rhs_dilation + 1 per spatial dimension
    dilated_window: tuple[int, ...]
    #: the result's spatial extents
    output_spatial: tuple[int, ...]

    @property
    def spatial_dims(self) -> int:
        return len(self.lhs_shape) - 2

    @property
    def batch(self) -> int:
        return self.lhs_shape[0]

    @property
    def in_channels(self) -> int:
        return self.lhs_shape[1]

    @property
    def out_channels(self) -> int:
        return self.rhs_shape[0]

    @property
    def group_in_channels(self) -> int:
        """Input channels each output channel reads: ``in_channels // groups``."""
        return self.rhs_shape[1]

    @property
    def group_out_channels(self) -> int:
        """Output channels per group: ``out_channels // groups``."""
        return self.rhs_shape[0] // self.feature_group_count

    @property
    def input_spatial(self) -> tuple[int, ...]:
        return self.lhs_shape[2:]

    @property
    def window(self) -> tuple[int, ...]:
        return self.rhs_shape[2:]

    @property
    def output_shape(self) -> tuple[int, ...]:
        """[batch, out_channels, *output_spatial]."""
        return (self.batch, self.out_channels, *self.output_spatial)

    @property
    def output_elements(self) -> int:
        return math.prod(self.output_shape)

    @property
    def terms(self) -> int:
        """Products summed in all: one per output element, window position and group channel."""
        return self.output_elements * math.prod(self.window) * self.group_in_channels


def _items(name: str, value: Any, expected: str) -> tuple[Any, ...]:
    """The entries of a tuple or list; TypeError naming *expected* otherwise."""
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{OPERATION}: {name} must be {expected}, got {describe(value)}")
    try:
        return tuple(value)
    except Exception as error:  # a subclass's own __iter__ or __len__
        raise TypeError(
            f"{OPERATION}: {name} {describe(value)} cannot be read ({type(error).__name__}); "
            f"pass a plain tuple or list"
        ) from error


def _count(name: str, value: Any, found: int, what: str, count: int) -> None:
    if found != count:
        raise ValueError(
            f"{OPERATION}: {name} {describe(value)} has {found} {what}; the lhs has {count} "
            f"spatial dimensions (give one per spatial dimension)"
        )


def _per_spatial(name: str, value: Any, count: int) -> tuple[int, ...]:
    """A stride or dilation: None (all 1) or *count* ints >= 1."""
    if value is None:
        return (1,) * count
    entries = _items(name, value, f"a tuple or list of {count} ints")
    items = tuple(check_int(OPERATION, f"{name}[{i}]", v) for i, v in enumerate(entries))
    _count(name, value, len(items), "entries", count)
    for i, v in enumerate(items):
        if v < 1:
            raise ValueError(f"{OPERATION}: {name}[{i}] = {integer_text(v)} must be at least 1")
    return items


def _padding(value: Any, count: int) -> tuple[tuple[int, int], ...]:
    """None (no padding) or *count* (low, high) int pairs; negative entries crop."""
    if value is None:
        return ((0, 0),) * count
    entries = _items("padding", value, "a tuple or list of (low, high) int pairs")
    pairs = []
    for i, entry in enumerate(entries):
        pair = _items(f"padding[{i}]", entry, "a (low, high) pair of ints")
        if len(pair) != 2:
            raise ValueError(
                f"{OPERATION}: padding[{i}] = {describe(entry)} is not a (low, high) pair"
            )
        low, high = (check_int(OPERATION, f"padding[{i}][{j}]", p) for j, p in enumerate(pair))
        pairs.append((low, high))
    _count("padding", value, len(pairs), "pairs", count)
    return tuple(pairs)


def _dilated(extent: int, dilation: int) -> int:
    return (extent - 1) * dilation + 1 if extent else 0


def conv_geometry(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    window_strides: Any = None,
    padding: Any = None,
    lhs_dilation: Any = None,
    rhs_dilation: Any = None,
    feature_group_count: Any = 1,
) -> ConvGeometry:
    """The checked geometry of ``conv_general(lhs, rhs, ...)`` (see the module docstring).

    *lhs_shape* and *rhs_shape* are the operands' shapes (tuples of
    non-negative ints, as every tensor has); the parameters are the caller's
    values, unchecked.
    """
    lhs_shape, rhs_shape = tuple(lhs_shape), tuple(rhs_shape)
    shapes = f"shapes {shape_text(lhs_shape)} and {shape_text(rhs_shape)}"
    if len(lhs_shape) < 2 or len(rhs_shape) != len(lhs_shape):
        raise ValueError(
            f"{OPERATION}: lhs [batch, in_channels, *spatial] and rhs [out_channels, "
            f"in_channels // groups, *window] must have the same rank >= 2; got {shapes}"
        )
    count = len(lhs_shape) - 2
    strides = _per_spatial("window_strides", window_strides, count)
    pads = _padding(padding, count)
    lhs_dil = _per_spatial("lhs_dilation", lhs_dilation, count)
    rhs_dil = _per_spatial("rhs_dilation", rhs_dilation, count)
    groups = check_int(OPERATION, "feature_group_count", feature_group_count)
    in_channels, out_channels, group_in = lhs_shape[1], rhs_shape[0], rhs_shape[1]
    if groups < 1:
        raise ValueError(
            f"{OPERATION}: feature_group_count {integer_text(groups)} must be at least 1"
        )
    if in_channels % groups or out_channels % groups:
        raise ValueError(
            f"{OPERATION}: feature_group_count {integer_text(groups)} must divide both "
            f"in_channels {in_channels} and out_channels {out_channels} ({shapes})"
        )
    if group_in != in_channels // groups:
        raise ValueError(
            f"{OPERATION}: rhs dimension 1 must be in_channels // feature_group_count = "
            f"{in_channels // groups}, got {group_in} ({shapes})"
        )
    if any(k == 0 for k in rhs_shape[2:]):
        raise ValueError(f"{OPERATION}: every window extent must be at least 1 ({shapes})")
    dilated_input, padded_input, dilated_window, output = [], [], [], []
    for d in range(count):
        dilated = _dilated(lhs_shape[2 + d], lhs_dil[d])
        low, high = pads[d]
        padded = dilated + low + high
        if padded < 0:
            raise ValueError(
                f"{OPERATION}: padding ({integer_text(low)}, {integer_text(high)}) of spatial "
                f"dimension {d} leaves a negative extent {integer_text(padded)} (dilated input "
                f"extent {dilated}; {shapes}); negative padding may crop at most the whole input"
            )
        window = _dilated(rhs_shape[2 + d], rhs_dil[d])
        dilated_input.append(dilated)
        padded_input.append(padded)
        dilated_window.append(window)
        output.append((padded - window) // strides[d] + 1 if padded >= window else 0)
    return ConvGeometry(
        lhs_shape=lhs_shape,
        rhs_shape=rhs_shape,
        window_strides=strides,
        padding=pads,
        lhs_dilation=lhs_dil,
        rhs_dilation=rhs_dil,
        feature_group_count=groups,
        dilated_input=tuple(dilated_input),
        padded_input=tuple(padded_input),
        dilated_window=tuple(dilated_window),
        output_spatial=tuple(output),
    )
