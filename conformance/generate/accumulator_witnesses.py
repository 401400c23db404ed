"""Witnesses for a Float64 accumulator: rows that every way of not honouring it gets wrong.

A FLOATING plan with ``accumulator_dtype=Float64`` (reduce_sum and matmul over
Float32) accepts every result some evaluation order in binary64 gives, rounded
once to binary32 (:func:`oracle.reference.accumulate.floating_sum_interval`).
Three plausible faults keep the order free but not the accumulator:

* **Float32 accumulation** -- every partial sum rounded to binary32, in any of the
  plausible orders (sequential, pairwise, blocks, lanes, reversed, two halves:
  :func:`conformance.generate.order_values.other_orders`);
* **Float64 blocks stored as Float32** -- each block of *b* terms summed in binary64,
  the running total stored as binary32 between blocks (b in
  :data:`~conformance.classes.boundary.ORDER_BLOCKS`, where the group is longer);
* **narrowing through an intermediate precision** -- the binary64 sum rounded to
  p bits first, then to binary32 (p in :data:`INTERMEDIATE_PRECISIONS`: every
  precision between binary32's and binary64's).

:func:`faults_rejected` says which of the three the acceptance set rejects on a
row (every variant of the fault at once).  :func:`search` finds, for a length n
of :data:`~conformance.classes.boundary.LENGTHS`, a row on which all three are
rejected, by trying seeds and checking each candidate over the exact oracle.  A
candidate is, for a binade [2**e, 2**(e + 1)) with binary32 ULP Q = 2**(e - 23):
first ``d = 2**(e - 52)``, then n - 2 positive *coarse* terms in [1/2, 4) with
random bits on the grid 2Q whose sum M lies in the binade, last ``h = Q / 2``.
The exact sum M + h + d is just above the midpoint M + h, whose lower neighbour M
is even; it fits binary64, and every partial sum of these positive terms is exact
in binary64, so the acceptance set is the single value M + Q.  In binary32, in
any order, a partial sum of coarse terms is exact (on the grid 2Q), d vanishes
in its first addition, and h meets the binade only as a tie, which goes to the
even M: every Float32 order gives M.  Blocks stored as Float32 drop d with the
first block (d first, h last, so they never share a block) and end on the tie
M + h: M.  Narrowed through p <= 52 bits, M + h + d becomes the midpoint (for
p = 52 a tie, to the even midpoint) and then M.  No such row exists below 3
terms: one term is its own sum in every way, and two binary32 terms add exactly
in binary64, so Float32 accumulation rounds them once as well, and their sum
cannot lie within 2**-52 of a midpoint without being one.

The rows are searched by ``python -m conformance.witnesses --write`` and shipped as
``conformance/generate/data/accumulator_witnesses.json`` (:func:`load`,
:func:`witness`); the families' shape examples place them on the last axis and
off it (docs/shape-classes.md).
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import math
import random
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from conformance.classes.boundary import LENGTHS, ORDER_BLOCKS, Boundary
from conformance.generate.order_values import other_orders
from oracle import DType, binary32
from oracle.expectation import Interval
from oracle.reference.accumulate import floating_sum_interval

__all__ = [
    "DATA_FILE",
    "FAULTS",
    "FAULT_CLASSES",
    "INTERMEDIATE_PRECISIONS",
    "blocks_stored_float32",
    "faults_rejected",
    "float32_sums",
    "generate",
    "load",
    "narrowed",
    "search",
    "witness",
]

DATA_FILE = "accumulator_witnesses.json"
#: the precisions (bits, the implicit one included) of the intermediate format a
#: narrowing fault rounds through: every one between binary32's 24 and binary64's 53
INTERMEDIATE_PRECISIONS: tuple[int, ...] = tuple(range(25, 53))
#: the three faults, by the names :func:`faults_rejected` returns
FAULTS: tuple[str, ...] = ("float32", "blocks stored as float32", "narrowed")
#: each fault -> its ACCUMULATOR class, on the last axis and off it
FAULT_CLASSES: dict[str, tuple[Boundary, Boundary]] = {
    "float32": (Boundary.ACCUMULATOR_FLOAT32, Boundary.ACCUMULATOR_FLOAT32_OFF_LAST_AXIS),
    "blocks stored as float32": (
        Boundary.ACCUMULATOR_BLOCKS_STORED_FLOAT32,
        Boundary.ACCUMULATOR_BLOCKS_STORED_FLOAT32_OFF_LAST_AXIS,
    ),
    "narrowed": (
        Boundary.ACCUMULATOR_NARROWED_INTERMEDIATE,
        Boundary.ACCUMULATOR_NARROWED_INTERMEDIATE_OFF_LAST_AXIS,
    ),
}
#: seeds tried per length (a seed fails only when its sum leaves the binade)
_SEARCH_SEEDS = 64
#: the least length a witness exists for (see the module docstring)
_SHORTEST = 3
_F32, _F64 = np.float32, np.float64


def float32_sums(row: Sequence[float]) -> list[float]:
    """The results of Float32 accumulation of *row*: sequential and every other
    plausible order."""
    v = np.asarray(row, dtype=_F32)
    with np.errstate(all="ignore"):
        sequential = np.add.accumulate(v, dtype=_F32)[-1] if len(v) else _F32(0.0)
    return [float(sequential), *(float(x) for x in other_orders(row, np.add).values())]


def blocks_stored_float32(row: Sequence[float], block: int) -> float:
    """Blocks of *block* terms summed in binary64, the running total stored as
    binary32 between blocks (and rounded to binary32 at the end)."""
    total = _F32(0.0)
    with np.errstate(all="ignore"):
        for first in range(0, len(row), block):
            part = _F64(0.0)
            for term in row[first : first + block]:
                part = part + _F64(term)
            total = _F32(_F64(total) + part)
    return float(total)


def _round_to_precision(x: float, precision: int) -> float:
    """*x* rounded to *precision* significant bits, ties to even (normal range)."""
    if x == 0 or not math.isfinite(x):
        return x
    mantissa, exponent = math.frexp(x)
    return math.ldexp(round(math.ldexp(mantissa, precision)), exponent - precision)


def narrowed(row: Sequence[float], precision: int) -> float:
    """The sequential binary64 sum of *row* rounded to *precision* bits, then to binary32."""
    total = 0.0
    for term in row:
        total += float(term)
    return binary32.round_to_binary32(_round_to_precision(total, precision))


def faults_rejected(row: Sequence[float], interval: Interval | None = None) -> set[str]:
    """The faults of :data:`FAULTS` whose every variant the acceptance set of *row*
    (Float64 accumulation; computed when *interval* is None) rejects.  A row of
    non-finite terms, or shorter than 3, has none."""
    terms = [float(t) for t in row]
    if len(terms) < _SHORTEST or not all(math.isfinite(t) for t in terms):
        return set()
    if interval is None:
        interval = floating_sum_interval(terms, DType.Float64)
    found: set[str] = set()

    def rejected(values: Sequence[float]) -> bool:
        return bool(values) and not any(interval.accepts(v) for v in values)

    if rejected(float32_sums(terms)):
        found.add("float32")
    blocks = [blocks_stored_float32(terms, b) for b in ORDER_BLOCKS if len(terms) > b]
    if rejected(blocks):
        found.add("blocks stored as float32")
    if rejected([narrowed(terms, p) for p in INTERMEDIATE_PRECISIONS]):
        found.add("narrowed")
    return found


# ---------------------------------------------------------------------------
# The search
# ---------------------------------------------------------------------------


def _exponent(x: Fraction) -> int:
    """e with 2**e <= x < 2**(e + 1), for x > 0."""
    e = x.numerator.bit_length() - x.denominator.bit_length()
    return e - 1 if x < Fraction(2) ** e else e


def _candidate(n: int, seed: int) -> tuple[float, ...] | None:
    """The row of the module docstring for *seed*: ``d``, the n - 2 coarse terms,
    ``h`` (None when the coarse terms' sum leaves its binade)."""
    rng = random.Random(f"accumulator/{n}/{seed}")
    raw = [
        (1 + rng.getrandbits(23) * 2.0**-23) * 2.0 ** rng.choice((-1, 0, 1)) for _ in range(n - 2)
    ]
    e = _exponent(Fraction(sum(raw)))
    for _ in range(3):
        grid = 2.0 ** (e - 22)  # two ULPs of binary32 in binade e
        coarse = [max(grid, round(t / grid) * grid) for t in raw]
        total = sum((Fraction(t) for t in coarse), Fraction(0))
        if _exponent(total) == e:
            break
        e = _exponent(total)
    else:
        return None
    if total + Fraction(2) ** (e - 20) >= Fraction(2) ** (e + 1):  # too near the next binade
        return None
    row = (math.ldexp(1.0, e - 52), *coarse, math.ldexp(1.0, e - 24))
    return row if all(binary32.is_binary32(t) for t in row) else None


def search(n: int) -> tuple[float, ...] | None:
    """A row of *n* binary32 terms on which every fault of :data:`FAULTS` is rejected
    by the Float64 acceptance set, found by trying seeds (None below 3 terms, or
    when no seed of :data:`_SEARCH_SEEDS` gives one)."""
    if n < _SHORTEST:
        return None
    for seed in range(_SEARCH_SEEDS):
        row = _candidate(n, seed)
        if row is None:
            continue
        interval = floating_sum_interval(list(row), DType.Float64)
        if interval.lo != interval.hi:  # the construction wants one accepted value
            continue
        if faults_rejected(row, interval) == set(FAULTS):
            return row
    return None


def generate() -> dict[str, Any]:
    """The shipped data: one row per length of LENGTHS that has one (bit patterns)."""
    rows = {}
    for n in LENGTHS:
        row = search(n)
        if row is not None:
            rows[str(n)] = [f"0x{binary32.to_bits(t):08x}" for t in row]
    return {
        "generator": "python -m conformance.witnesses --write",
        "intermediate_precisions": [INTERMEDIATE_PRECISIONS[0], INTERMEDIATE_PRECISIONS[-1]],
        "blocks": list(ORDER_BLOCKS),
        "rows": rows,
    }


def dumps(data: dict[str, Any]) -> str:
    """The canonical text of the data: one line per row, sorted by length."""
    head = {k: v for k, v in data.items() if k != "rows"}
    rows = data["rows"]
    lines = [json.dumps(head, sort_keys=True)[:-1] + ', "rows": {']
    lines.append(",\n".join(f'"{n}": {json.dumps(rows[n])}' for n in sorted(rows, key=int)))
    lines.append("}}")
    return "\n".join(lines) + "\n"


@functools.cache
def load() -> dict[str, Any]:
    """The shipped data (``conformance/generate/data/accumulator_witnesses.json``)."""
    text = (importlib.resources.files(__package__) / "data" / DATA_FILE).read_text()
    return json.loads(text)


@functools.cache
def witness(n: int) -> tuple[float, ...] | None:
    """The shipped witness row of *n* terms (None where no row exists: below 3)."""
    bits = load()["rows"].get(str(n))
    if bits is None:
        return None
    return tuple(binary32.from_bits(int(b, 16)) for b in bits)
