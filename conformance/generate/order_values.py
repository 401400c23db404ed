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

import random

from oracle import binary32

__all__ = [
    "cancelling_terms",
    "distinct_row",
    "integer_terms",
    "product_factors",
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
