"""Value distributions that stay finite and order-sensitive, for long accumulations.

Random binary32 values overflow or underflow long products and make long sums
non-finite or exact, so a fault in the *order* of an accumulation (a blocked
sum, lane partial products, K-blocked conv, duplicate scatter_add targets
summed in halves) gives the same value as the correct order.  The rows here
avoid that (docs/shape-classes.md):

* :func:`cancelling_terms` -- magnitudes in [1/2, 4) with random low bits and
  random signs: every partial sum is finite, rounds, and depends on the order;
* :func:`product_factors` -- factors ``1 + k * 2**-23`` and ``1 - k * 2**-24``
  (k random below 2**12): a product of a thousand stays within [1/2, 2] and
  every partial product rounds;
* :func:`integer_terms` -- Int32 terms far from the range's edges;
* :func:`distinct_row` / :func:`tied_row` -- rows for extrema, sort and top-k:
  distinct values with the extreme in the tail, or values from a small pool
  (ties everywhere, so stability shows).

Every function is deterministic: its pseudo-random generator is seeded by its
name, the row length and *seed*.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from conformance.classes.boundary import ORDER_BLOCKS, ORDER_LANES, Boundary
from oracle import binary32

__all__ = [
    "ORDER_CLASSES",
    "WITNESS_BLOCKS",
    "WITNESS_LANES",
    "cancelling_terms",
    "distinct_row",
    "integer_terms",
    "is_order_witness",
    "order_classes",
    "other_orders",
    "product_factors",
    "product_witness",
    "sum_witness",
    "tied_row",
]


def _rng(kind: str, n: int, seed: int) -> random.Random:
    return random.Random(f"{kind}/{n}/{seed}")


def cancelling_terms(n: int, seed: int = 0) -> tuple[float, ...]:
    """*n* binary32 values of magnitude in [1/2, 4) with 23 random fraction bits
    and random signs."""
    rng = _rng("cancelling", n, seed)
    out = []
    for _ in range(n):
        fraction = 1 + rng.getrandbits(23) * 2.0**-23
        value = fraction * 2.0 ** rng.choice((-1, 0, 1))
        out.append(value if rng.random() < 0.5 else -value)
    return tuple(out)


def product_factors(n: int, seed: int = 0) -> tuple[float, ...]:
    """*n* binary32 factors ``1 + k * 2**-23`` or ``1 - k * 2**-24``, 1 <= k < 2**12,
    up and down in turn, so that long products stay near 1."""
    rng = _rng("product", n, seed)
    out = []
    for i in range(n):
        k = rng.randrange(1, 2**12)
        out.append(1 + k * 2.0**-23 if i % 2 == 0 else 1 - k * 2.0**-24)
    return tuple(out)


def integer_terms(n: int, seed: int = 0, bound: int = 1000) -> tuple[int, ...]:
    """*n* Int32 values in [-bound, bound]."""
    rng = _rng("integer", n, seed)
    return tuple(rng.randint(-bound, bound) for _ in range(n))


def distinct_row(n: int, seed: int = 0, *, largest_last: bool = True) -> tuple[float, ...]:
    """*n* distinct binary32 values, the largest (or, with *largest_last* False, the
    smallest) at the last position, where a tail loop handles it."""
    rng = _rng("distinct", n, seed)
    values = sorted({binary32.round_to_binary32(rng.uniform(-8.0, 8.0)) for _ in range(2 * n)})
    chosen = rng.sample(values[1:-1], n - 1) if n > 1 else []
    return (*chosen, values[-1] if largest_last else values[0])


def tied_row(n: int, seed: int = 0, pool: int = 7) -> tuple[float, ...]:
    """*n* values drawn from *pool* distinct binary32 values (ties everywhere)."""
    rng = _rng("tied", n, seed)
    choices = [(-1) ** i * (1 + i * 0.125) for i in range(pool)]
    return tuple(rng.choice(choices) for _ in range(n))


# ---------------------------------------------------------------------------
# Order witnesses: rows on which the sequential order differs from every other
# ---------------------------------------------------------------------------

#: block sizes and lane counts of the plausible other orders (the tables of the
#: ACCUMULATION_ORDER classes)
WITNESS_BLOCKS: tuple[int, ...] = ORDER_BLOCKS
WITNESS_LANES: tuple[int, ...] = ORDER_LANES
#: the name of each other order in :func:`other_orders` -> its ACCUMULATION_ORDER class
ORDER_CLASSES: dict[str, Boundary] = {
    "pairwise": Boundary.ORDER_PAIRWISE,
    "reversed": Boundary.ORDER_REVERSED,
    "two halves": Boundary.ORDER_TWO_HALVES,
    **{f"blocks of {b}": Boundary[f"ORDER_BLOCKS_{b}"] for b in ORDER_BLOCKS},
    **{f"{lanes} lanes": Boundary[f"ORDER_LANES_{lanes}"] for lanes in ORDER_LANES},
}
#: seeds tried per length before giving up (a row that is no witness is still used)
_SEARCH_SEEDS = 64

_F32 = np.float32


def _sequential(values: np.ndarray, ufunc: np.ufunc) -> np.float32:
    """The binary32 result of combining *values* left to right (accumulate is sequential)."""
    return ufunc.accumulate(values, dtype=_F32)[-1]


def _pairwise(values: np.ndarray, ufunc: np.ufunc) -> np.float32:
    work = list(values)
    while len(work) > 1:
        pairs = [ufunc(work[i], work[i + 1]) for i in range(0, len(work) - 1, 2)]
        work = [*pairs, work[-1]] if len(work) % 2 else pairs
    return _F32(work[0])


def other_orders(values: Sequence[float], ufunc: np.ufunc) -> dict[str, np.float32]:
    """The binary32 results of the plausible other orders of combining *values*
    with *ufunc* (``np.add`` or ``np.multiply``), each only where it is a different
    order for this length: pairwise (n >= 4); blocks of b combined in turn
    (n >= b + 2); L lanes combined at the end (n > L); reversed and two halves
    (n >= 3)."""
    v = np.asarray(values, dtype=_F32)
    n = len(v)
    out: dict[str, np.float32] = {}
    if n < 3:
        return out
    identity = _F32(0.0 if ufunc is np.add else 1.0)
    with np.errstate(all="ignore"):
        if n >= 4:
            out["pairwise"] = _pairwise(v, ufunc)
        out["reversed"] = _sequential(v[::-1], ufunc)
        half = n // 2
        out["two halves"] = ufunc(_sequential(v[:half], ufunc), _sequential(v[half:], ufunc))
        for b in WITNESS_BLOCKS:
            if n >= b + 2:
                blocks = [_sequential(v[i : i + b], ufunc) for i in range(0, n, b)]
                out[f"blocks of {b}"] = _sequential(np.asarray(blocks, dtype=_F32), ufunc)
        for lanes in WITNESS_LANES:
            if n > lanes:
                padded = np.full(-(-n // lanes) * lanes, identity, dtype=_F32)
                padded[:n] = v
                totals = ufunc.accumulate(padded.reshape(-1, lanes), axis=0, dtype=_F32)[-1]
                out[f"{lanes} lanes"] = _sequential(totals, ufunc)
    return out


def is_order_witness(values: Sequence[float], ufunc: np.ufunc) -> bool:
    """Whether the sequential result of *values* is finite and differs from every
    other order of :func:`other_orders` (vacuously true below 3 terms)."""
    with np.errstate(all="ignore"):
        correct = _sequential(np.asarray(values, dtype=_F32), ufunc) if values else None
    if correct is None or not np.isfinite(correct):
        return False
    return all(other != correct for other in other_orders(values, ufunc).values())


def order_classes(values: Sequence[float], ufunc: np.ufunc) -> set[Boundary]:
    """The ACCUMULATION_ORDER classes of one group: each other order of
    :func:`other_orders` that changes the finite sequential result of *values*
    (``np.add`` or ``np.multiply``); none when that result is not finite."""
    if len(values) < 3:
        return set()
    with np.errstate(all="ignore"):
        correct = _sequential(np.asarray(values, dtype=_F32), ufunc)
    if not np.isfinite(correct):
        return set()
    others = other_orders(values, ufunc)
    return {ORDER_CLASSES[name] for name, value in others.items() if value != correct}


@functools.cache
def sum_witness(n: int, salt: int = 0) -> tuple[float, ...]:
    """*n* cancelling terms (:func:`cancelling_terms`) on which the sequential binary32
    sum differs from every other order, found by trying seeds; the last row tried
    when none of :data:`_SEARCH_SEEDS` is one (short rows: see is_order_witness)."""
    return _search(n, salt, cancelling_terms, np.add)


@functools.cache
def product_witness(n: int, salt: int = 0) -> tuple[float, ...]:
    """Like :func:`sum_witness`, for the sequential binary32 product of
    :func:`product_factors`."""
    return _search(n, salt, product_factors, np.multiply)


def _search(n: int, salt: int, make: Any, ufunc: np.ufunc) -> tuple[float, ...]:
    row: tuple[float, ...] = ()
    for seed in range(_SEARCH_SEEDS):
        row = make(n, salt * _SEARCH_SEEDS + seed)
        if is_order_witness(row, ufunc):
            return row
    return row
