"""Shapes, axes and row-major index arithmetic for the Generic kernels.

Everything here validates or maps positions; nothing reads a value.  Each
error names the operation and what was wrong.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from itertools import product
from typing import Any

from ..parameters import describe, is_flag, read_flag, read_int, read_items

__all__ = [
    "AxisError",
    "axis_slices",
    "broadcast",
    "broadcast_shapes",
    "check_bool",
    "check_int",
    "normalize_axes",
    "normalize_axis",
    "reduction_groups",
]

Shape = tuple[int, ...]


class AxisError(ValueError, IndexError):
    """An axis outside ``[-ndim, ndim)`` (a ValueError and an IndexError, like numpy's)."""


def check_int(operation: str, name: str, value: Any) -> int:
    """*value* as an int; a bool or a non-integer is a TypeError (see backends.parameters)."""
    return read_int(operation, name, value)


def check_bool(operation: str, name: str, value: Any) -> bool:
    """*value* as a bool; it must be a bool or a ``numpy.bool_`` (TypeError otherwise)."""
    return read_flag(operation, name, value)


def normalize_axis(operation: str, axis: Any, ndim: int) -> int:
    """One axis in ``[0, ndim)``; negative axes count from the end."""
    axis = check_int(operation, "axis", axis)
    if not -ndim <= axis < ndim:
        raise AxisError(f"{operation}: axis {axis} is out of range for {ndim} dimensions")
    return axis % ndim


def normalize_axes(operation: str, axis: Any, ndim: int) -> tuple[int, ...]:
    """None (every axis), an int or a tuple of ints, as sorted axes; duplicates are errors."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, tuple):
        names = read_items(operation, "axis", axis, "None, an int or a tuple of ints")
    elif is_flag(axis) or not isinstance(axis, numbers.Integral):
        raise TypeError(
            f"{operation}: axis must be None, an int or a tuple of ints, got {describe(axis)}"
        )
    else:
        names = (axis,)
    axes = [normalize_axis(operation, a, ndim) for a in names]
    if len(set(axes)) != len(axes):
        raise ValueError(f"{operation}: axis {describe(axis)} names an axis more than once")
    return tuple(sorted(axes))


def strides(shape: Shape) -> Shape:
    """Row-major element strides."""
    result, step = [], 1
    for extent in reversed(shape):
        result.append(step)
        step *= extent
    return tuple(reversed(result))


def broadcast_shapes(operation: str, *shapes: Shape) -> Shape:
    """numpy's broadcast shape; ValueError naming the shapes when there is none."""
    ndim = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    result = []
    for extents in zip(*padded):
        sizes = {n for n in extents if n != 1}
        if len(sizes) > 1:
            listed = " and ".join(str(tuple(s)) for s in shapes)
            raise ValueError(f"{operation}: shapes {listed} do not broadcast together")
        result.append(sizes.pop() if sizes else 1)
    return tuple(result)


def broadcast(values: Sequence[Any], shape: Shape, target: Shape) -> list[Any]:
    """The row-major values of a *shape* tensor broadcast to *target*."""
    if tuple(shape) == tuple(target):
        return list(values)
    padded = (1,) * (len(target) - len(shape)) + tuple(shape)
    steps = [0 if n == 1 else s for n, s in zip(padded, strides(padded))]
    return [
        values[sum(i * s for i, s in zip(index, steps))]
        for index in product(*(range(n) for n in target))
    ]


def reduction_groups(shape: Shape, axes: tuple[int, ...]) -> list[list[int]]:
    """For each kept position (row-major), the flat indices of its reduced
    elements in ascending logical order."""
    step = strides(shape)
    kept = [a for a in range(len(shape)) if a not in axes]
    groups = []
    for outer in product(*(range(shape[a]) for a in kept)):
        base = sum(i * step[a] for i, a in zip(outer, kept))
        groups.append(
            [
                base + sum(i * step[a] for i, a in zip(inner, axes))
                for inner in product(*(range(shape[a]) for a in axes))
            ]
        )
    return groups


def axis_slices(shape: Shape, axis: int) -> list[list[int]]:
    """The flat indices of every 1-D line along *axis*, lines in row-major order."""
    return reduction_groups(shape, (axis,))


def size(shape: Shape) -> int:
    return math.prod(shape)
