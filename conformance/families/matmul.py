"""The matmul family: (M, K) x (K, N), each product rounded, then accumulated.

:func:`measure` records the sum classes of every output element's terms.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from oracle import Arithmetic, OperationPlan, binary32
from oracle.dtypes import INT32_MAX, INT32_MIN

from ..boundaries import (
    B,
    PlanFacts,
)
from ..calls import Call, Family
from .measures import Invalid as _Invalid
from .measures import (
    _sum_classes,
)


def _terms_of_products(plan: OperationPlan, a: Any, b: Any) -> Any:
    if plan.compute is Arithmetic.BINARY32:
        fa = binary32.round_to_binary32(a) if not isinstance(a, float) else a
        fb = binary32.round_to_binary32(b) if not isinstance(b, float) else b
        return float(np.float32(np.float32(fa) * np.float32(fb)))
    return int(a) * int(b)


def _matmul(call: Call, facts: PlanFacts, operands, hits) -> None:
    a, b = operands
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        hits.add(B.ERROR_SHAPE_MISMATCH)
        raise _Invalid
    m, k = a.shape
    n = b.shape[1]
    plan = facts.plan
    with np.errstate(all="ignore"):
        for i in range(m):
            for j in range(n):
                terms = [
                    _terms_of_products(plan, a.values[i * k + t], b.values[t * n + j])
                    for t in range(k)
                ]
                _sum_classes(terms, hits)
                if plan.compute is not Arithmetic.BINARY32:
                    total = sum(terms)
                    if INT32_MIN <= total <= INT32_MAX and any(
                        not INT32_MIN <= t <= INT32_MAX for t in terms
                    ):
                        hits.add(B.INT32_TERM_OUTSIDE)


FAMILIES = frozenset({Family.MATMUL})


def measure(
    call: Call, facts: PlanFacts, operands: Sequence[Any], parameters: dict, hits: set
) -> None:
    """Add the classes of *call* to *hits* (raises Invalid for a refused structure)."""
    _matmul(call, facts, operands, hits)
