"""The convolution family: conv_general's geometry and the terms of every output element.

:func:`measure` reads the geometry as the reference states it (negative
padding crops; only a negative padded extent is refused) and records the
parameter classes and the sum classes of every output element.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..boundaries import (
    B,
    PlanFacts,
)
from ..calls import Call, Family
from .measures import Invalid as _Invalid
from .measures import (
    _sum_classes,
)


def _conv(call: Call, facts: PlanFacts, operands, parameters, hits) -> None:
    lhs, rhs = operands
    strides = parameters["window_strides"]
    padding = parameters["padding"]
    lhs_dil = parameters["lhs_dilation"]
    rhs_dil = parameters["rhs_dilation"]
    groups = parameters["feature_group_count"]
    d = lhs.ndim - 2
    try:
        valid = (
            d >= 1
            and rhs.ndim == lhs.ndim
            and all(len(p) == d for p in (strides, padding, lhs_dil, rhs_dil))
            and all(len(pair) == 2 for pair in padding)
            and all(
                isinstance(v, int) and not isinstance(v, bool)
                for v in (*strides, *lhs_dil, *rhs_dil, *(b for pair in padding for b in pair))
            )
            and isinstance(groups, int)
            and groups >= 1
            and lhs.shape[1] % groups == 0
            and rhs.shape[0] % groups == 0
            and rhs.shape[1] * groups == lhs.shape[1]
            and all(s >= 1 for s in strides)
            and all(v >= 1 for v in (*lhs_dil, *rhs_dil))
            # negative padding crops; only a negative padded extent is refused
            and all(
                ((size - 1) * ld + 1 if size else 0) + lo + hi >= 0
                for size, ld, (lo, hi) in zip(lhs.shape[2:], lhs_dil, padding)
            )
        )
    except TypeError:
        valid = False
    if not valid:
        hits.add(B.ERROR_SHAPE_MISMATCH)
        raise _Invalid
    if any(s > 1 for s in strides):
        hits.add(B.CONV_STRIDE)
    if any(lo or hi for lo, hi in padding):
        hits.add(B.CONV_PADDING)
    if any(v > 1 for v in lhs_dil):
        hits.add(B.CONV_LHS_DILATION)
    if any(v > 1 for v in rhs_dil):
        hits.add(B.CONV_RHS_DILATION)
    if groups > 1:
        hits.add(B.CONV_GROUPS)
    if d == 2:
        hits.add(B.CONV_TWO_SPATIAL)
    batch = lhs.shape[0]
    out_channels, per_group = rhs.shape[:2]
    spatial, window = lhs.shape[2:], rhs.shape[2:]
    dilated = [(s - 1) * ld + 1 if s else 0 for s, ld in zip(spatial, lhs_dil)]
    out_sizes = []
    for size, (lo, hi), w, rd, stride in zip(dilated, padding, window, rhs_dil, strides):
        span = (w - 1) * rd + 1 if w else 0
        padded = size + lo + hi
        out_sizes.append((padded - span) // stride + 1 if padded >= span else 0)
    lhs_array = np.arange(lhs.size).reshape(lhs.shape)
    rhs_array = np.arange(rhs.size).reshape(rhs.shape)
    out_per_group = out_channels // groups
    with np.errstate(all="ignore"):
        for n in range(batch):
            for o in range(out_channels):
                group = o // out_per_group
                for position in np.ndindex(*out_sizes):
                    terms = []
                    for w_index in np.ndindex(*window):
                        for c in range(per_group):
                            weight = rhs.values[rhs_array[(o, c, *w_index)]]
                            x = 0.0
                            coordinate = []
                            inside = True
                            for p, w, rd, stride, (lo, _), ld, s in zip(
                                position, w_index, rhs_dil, strides, padding, lhs_dil, spatial
                            ):
                                q = p * stride + w * rd - lo
                                if q < 0 or q % ld or q // ld >= s:
                                    inside = False
                                    break
                                coordinate.append(q // ld)
                            if inside:
                                channel = group * per_group + c
                                x = lhs.values[lhs_array[(n, channel, *coordinate)]]
                            terms.append(float(np.float32(np.float32(x) * np.float32(weight))))
                    _sum_classes(terms, hits)


FAMILIES = frozenset({Family.CONV})


def measure(
    call: Call, facts: PlanFacts, operands: Sequence[Any], parameters: dict, hits: set
) -> None:
    """Add the classes of *call* to *hits* (raises Invalid for a refused structure)."""
    _conv(call, facts, operands, parameters, hits)
