"""The indexed family: gather, scatter and scatter_add along one axis.

:func:`measure` records the index classes (out of range, negative,
duplicates) and the sum classes of scatter_add's accumulations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from oracle import Tensor

from ..boundaries import (
    B,
    Boundary,
    PlanFacts,
)
from ..calls import Call, Family
from .measures import Invalid as _Invalid
from .measures import (
    _sum_classes,
)
from .reduction import _axis_ok


def _index_classes(indices: Tensor, n: int, family: Family, hits: set[Boundary]) -> None:
    values = indices.values
    if not values:
        hits.add(B.INDEX_EMPTY)
    if any(v < 0 for v in values):
        hits.add(B.ERROR_INDEX_NEGATIVE)
    if any(v >= n for v in values):
        hits.add(B.ERROR_INDEX_TOO_LARGE)
    if 0 in values and n > 0:
        hits.add(B.INDEX_FIRST)
    if n - 1 in values and n > 0:
        hits.add(B.INDEX_LAST)
    if len(set(values)) < len(values):
        hits.add(B.ERROR_SCATTER_DUPLICATE if family is Family.SCATTER else B.INDEX_DUPLICATE)


def _indexed(call: Call, facts: PlanFacts, operands, parameters, hits) -> None:
    data, indices = operands[0], operands[1]
    axis = parameters.get("axis")
    if data.ndim == 0 or not _axis_ok(axis, data.ndim):
        hits.add(B.ERROR_BAD_AXIS)
        raise _Invalid
    axis = int(axis)
    if axis < 0:
        hits.add(B.AXIS_NEGATIVE)
        axis %= data.ndim
    n = data.shape[axis]
    _index_classes(indices, n, facts.family, hits)
    if facts.family is Family.GATHER:
        return
    updates = operands[2]
    expected = (*data.shape[:axis], *indices.shape, *data.shape[axis + 1 :])
    if updates.shape != expected:
        hits.add(B.ERROR_SHAPE_MISMATCH)
        raise _Invalid
    bad = any(not 0 <= v < n for v in indices.values)
    if facts.family is not Family.SCATTER_ADD or bad:
        return
    targets: dict[int, list[float]] = {}
    base_index = np.arange(data.size).reshape(data.shape)
    for flat, update in enumerate(updates.values):
        where = np.unravel_index(flat, updates.shape) if updates.shape else ()
        pre = where[:axis]
        index_position = where[axis : axis + indices.ndim]
        post = where[axis + indices.ndim :]
        i = indices.values[
            int(np.ravel_multi_index(index_position, indices.shape)) if indices.shape else 0
        ]
        target = int(base_index[(*pre, i, *post)])
        targets.setdefault(target, [data.values[target]]).append(update)
    for terms in targets.values():
        _sum_classes(terms, hits)


FAMILIES = frozenset({Family.GATHER, Family.SCATTER, Family.SCATTER_ADD})


def measure(
    call: Call, facts: PlanFacts, operands: Sequence[Any], parameters: dict, hits: set
) -> None:
    """Add the classes of *call* to *hits* (raises Invalid for a refused structure)."""
    _indexed(call, facts, operands, parameters, hits)
