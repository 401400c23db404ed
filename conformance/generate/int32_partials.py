"""Int32 partial sums in the orders a parallel kernel takes: classes and witnesses.

An EXACT_INTEGER accumulation (Int32 reduce_sum, Int32 matmul over K) combines
its terms exactly and checks only the final narrowing to Int32.  A kernel that
splits the group -- two halves on two threads, L SIMD lanes, blocks of b on a
thread each, a pairwise tree -- and keeps each part's running sum in Int32 with a
range check raises OverflowError although the exact total fits; with saturating
adds it returns a wrong total.  Those faults see only the partial sums of their
own order, so the suite needs groups whose partial sums *in that order* leave
Int32 (docs/shape-classes.md, group INT32_PARTIAL_ORDER).

* :func:`partial_sums` -- every running sum a kernel of one order forms;
* :func:`partial_classes` -- the INT32_PARTIAL_* classes of one group: the orders
  one of whose partial sums leaves Int32 while the exact total fits, each only
  where it is a different order for that length (the thresholds of
  :func:`conformance.generate.order_values.other_orders`: pairwise n >= 4, two
  halves n >= 3, blocks of b n >= b + 2, L lanes n > L);
* :func:`witness` -- a row of *n* terms that hits every class applicable at *n*
  at once (n >= 4), deterministic.

The construction of :func:`witness`: ``2**30`` at positions 0, 1 and every lane
count L of :data:`ORDER_LANES` below *n*; ``-2**30`` at the last positions not
taken, one fewer than the ``2**30`` s; small terms (0 <= t <= 1000) elsewhere.  The
total is ``2**30`` plus the small terms: it fits.  Positions 0 and 1 start the
first half, the first block of every size and the first pair, so each of those
running sums reaches ``2**31``; lane 0 of L lanes holds positions 0 and L, and
reaches ``2**31`` too.  The sequential running sum leaves Int32 as well (at
position 1): the row is also an INT32_PARTIAL_SUM_OUTSIDE group.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence

from conformance.classes.boundary import ORDER_BLOCKS, ORDER_LANES, Boundary
from conformance.generate.order_values import integer_terms
from oracle.dtypes import INT32_MAX, INT32_MIN

__all__ = ["PARTIAL_CLASSES", "WITNESS_TERM", "partial_classes", "partial_sums", "witness"]

#: the large term of the witnesses: two of them leave Int32 (2**31 > 2**31 - 1)
WITNESS_TERM = 2**30
#: order name -> its INT32_PARTIAL_ORDER class
PARTIAL_CLASSES: dict[str, Boundary] = {
    "pairwise": Boundary.INT32_PARTIAL_PAIRWISE,
    "two halves": Boundary.INT32_PARTIAL_TWO_HALVES,
    **{f"blocks of {b}": Boundary[f"INT32_PARTIAL_BLOCKS_{b}"] for b in ORDER_BLOCKS},
    **{f"{lanes} lanes": Boundary[f"INT32_PARTIAL_LANES_{lanes}"] for lanes in ORDER_LANES},
}


def _running(terms: Sequence[int]) -> Iterator[int]:
    total = 0
    for t in terms:
        total += t
        yield total


def _pairwise(terms: Sequence[int]) -> Iterator[int]:
    work = list(terms)
    while len(work) > 1:
        pairs = [work[i] + work[i + 1] for i in range(0, len(work) - 1, 2)]
        yield from pairs
        work = [*pairs, work[-1]] if len(work) % 2 else pairs


def partial_sums(terms: Sequence[int], order: str) -> Iterator[int]:
    """Every partial sum a kernel of *order* (a key of :data:`PARTIAL_CLASSES`) forms
    over the Int32 *terms*: the running sums of each part (a half, a block, a lane:
    element i in lane i % L), then the running sum of the parts' totals; for
    pairwise, every node of the tree (adjacent pairs level by level, an odd last
    element carried up)."""
    if order == "pairwise":
        yield from _pairwise(terms)
        return
    n = len(terms)
    if order == "two halves":
        parts = [terms[: n // 2], terms[n // 2 :]]
    elif order.startswith("blocks of "):
        b = int(order.removeprefix("blocks of "))
        parts = [terms[i : i + b] for i in range(0, n, b)]
    elif order.endswith(" lanes"):
        lanes = int(order.removesuffix(" lanes"))
        parts = [terms[i::lanes] for i in range(lanes)]
    else:
        raise KeyError(f"no order {order!r}: the orders are {', '.join(PARTIAL_CLASSES)}")
    totals = []
    for part in parts:
        running = list(_running(part))
        yield from running
        totals.append(running[-1] if running else 0)
    yield from _running(totals)


def _orders(n: int) -> list[str]:
    """The orders that differ from the sequential one at *n* terms."""
    orders = ["two halves"] if n >= 3 else []
    if n >= 4:
        orders.append("pairwise")
    orders += [f"blocks of {b}" for b in ORDER_BLOCKS if n >= b + 2]
    orders += [f"{lanes} lanes" for lanes in ORDER_LANES if n > lanes]
    return orders


def _inside(value: int) -> bool:
    return INT32_MIN <= value <= INT32_MAX


def partial_classes(terms: Sequence[int]) -> set[Boundary]:
    """The INT32_PARTIAL_ORDER classes of one group of exact Int32 *terms* (a matmul's
    products may lie outside Int32): each order of :func:`partial_sums` different
    from the sequential one at this length, one of whose partial sums leaves Int32
    while the exact total fits."""
    if not _inside(sum(terms)):
        return set()
    return {
        PARTIAL_CLASSES[order]
        for order in _orders(len(terms))
        if not all(_inside(s) for s in partial_sums(terms, order))
    }


@functools.cache
def witness(n: int) -> tuple[int, ...] | None:
    """*n* Int32 terms whose exact total fits and on which every order of
    :func:`partial_sums` that differs from the sequential one at *n* leaves Int32
    (the construction is in the module doc); None below 4 terms, where no row does
    it for pairwise and two halves at once."""
    if n < 4:
        return None
    large = [0, 1, *(lanes for lanes in ORDER_LANES if lanes < n)]
    free = [i for i in range(n) if i not in large]
    negative = free[len(free) - (len(large) - 1) :]
    row = [abs(t) for t in integer_terms(n, n)]
    for i in large:
        row[i] = WITNESS_TERM
    for i in negative:
        row[i] = -WITNESS_TERM
    return tuple(row)
