"""Int32 plans decided by whole ranges: plateaus and identity tails.

An activation's Int32 plan is, by definition, ``f(round32(n))``: the int32
value is rounded once to binary32 (:func:`oracle.vectorised.int32_to_float32`)
and the Float32 operation applied.  Almost every Int32 input lies in a range
whose result is known without evaluating anything:

* **plateaus and definitional segments.**  ``round32`` is monotone, so on
  each sign half of the int32 values the bit pattern of ``round32(n)`` is
  monotone in ``n`` (non-decreasing for ``n >= 0``, non-increasing for
  ``n < 0``).  The inputs whose converted bits lie in one of the Float32
  segments of :func:`oracle.vectorised.segments` (each a bit range whose
  result is one constant, certified there: ``exp(x) = +inf`` for ``x >=
  88.72...``, ``tanh(x) = -1`` for ``x <= -9.01...``) therefore form one
  interval of ``n`` on each half; its ends are found by bisection on the
  exact conversion (:func:`oracle.binary32.round_to_binary32`) and the whole
  interval gets the segment's constant.  No property of ``f`` is used here
  beyond the segment's own certificate;
* **identity tails** (:data:`IDENTITY_TAILS`): for ``x >= T`` the correctly
  rounded ``f(x)`` is ``x`` itself, by a bound on ``|f(x) - x|`` stated per
  operation (docs/exhaustive.md), so ``f(round32(n)) = round32(n)`` for
  ``n >= T``; elu's definitional segment (``elu(x) = x`` for ``x > 0``) is
  one too.  The expected values there are ``round32(n)``, built from runs
  (:func:`identity`), not by converting every input.

Only the few inputs left (``exp``: -103..88, ``tanh``: -9..9, ``gelu``:
-14..5, ...) are evaluated by the certified oracle.  :func:`expected` is the
reference result of a contiguous range of int32 bit patterns; it agrees with
``oracle.vectorised.certified_int32`` element for element (the tests compare
them on every range boundary).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from oracle import vectorised as V
from oracle.binary32 import round_to_binary32, to_bits
from oracle.reference import rounded

__all__ = ["IDENTITY_TAILS", "IntRange", "converted", "expected", "identity", "int32_ranges"]

HALF = 1 << 31
#: op -> (T, why): for every binary32 x >= T the correctly rounded f(x) is x
IDENTITY_TAILS: dict[str, tuple[int, str]] = {
    "softplus": (16, "softplus(x) = x for x >= 16: 0 < f(x) - x < exp(-x) < x 2**-25"),
    "silu": (19, "silu(x) = x for x >= 19: 0 < x - f(x) < x exp(-x) < x 2**-26"),
    "gelu": (6, "gelu(x) = x for x >= 6: 0 < x - f(x) < (x/2) exp(-x**2/2) < x 2**-26"),
    "leaky_relu": (0, "leaky_relu(x) = x for x >= 0 (definition)"),
}


@dataclass(frozen=True)
class IntRange:
    """Int32 bit patterns ``lo..hi`` (inclusive, one sign half) with a known result."""

    lo: int
    hi: int
    value: int | None  #: result bits; None: the converted input round32(n)
    why: str


def _bits(n: int) -> int:
    """Bit pattern of round32(n), exact."""
    return to_bits(round_to_binary32(n))


def _first(predicate: Callable[[int], bool], lo: int, hi: int) -> int:
    """The least k in [lo, hi] with predicate(k) (monotone False..True); hi + 1 if none."""
    while lo <= hi:
        middle = (lo + hi) // 2
        if predicate(middle):
            hi = middle - 1
        else:
            lo = middle + 1
    return lo


def _preimage(low_bits: int, high_bits: int) -> list[tuple[int, int]]:
    """Int32 patterns (inclusive ranges) whose converted bits lie in [low_bits, high_bits]."""
    out = []
    if low_bits < HALF:  # n >= 0: bits(n) non-decreasing in n
        top = min(high_bits, HALF - 1)
        first = _first(lambda n: _bits(n) >= low_bits, 0, HALF - 1)
        last = _first(lambda n: _bits(n) > top, 0, HALF - 1) - 1
        if first <= last:
            out.append((first, last))
    if high_bits >= HALF:  # n < 0: bits(n) non-decreasing in m = -n
        bottom = max(low_bits, HALF)
        first = _first(lambda m: _bits(-m) >= bottom, 1, HALF)
        last = _first(lambda m: _bits(-m) > high_bits, 1, HALF) - 1
        if first <= last:  # m in [first, last] is n in [-last, -first]: patterns 2**32 - m
            out.append(((1 << 32) - last, (1 << 32) - first))
    return out


@functools.cache
def int32_ranges(op: str) -> tuple[IntRange, ...]:
    """The Int32 patterns of *op*'s plan whose result is known (sorted, disjoint)."""
    if op not in V.ACTIVATIONS or op == "relu":
        raise KeyError(f"{op!r} has no converting Int32 plan")
    found: list[IntRange] = []
    for segment in V.segments(op) if op in V.ROUNDED_OPS else ():
        for lo, hi in _preimage(segment.lo, segment.hi):
            found.append(IntRange(lo, hi, segment.value, segment.why))
    if op in IDENTITY_TAILS:
        threshold, why = IDENTITY_TAILS[op]
        _check_tail(op, threshold)
        found.append(IntRange(threshold, HALF - 1, None, why))
    found.sort(key=lambda r: r.lo)
    merged: list[IntRange] = []
    for r in found:  # a tail may start inside a plateau's preimage: keep the first claim
        if merged and r.lo <= merged[-1].hi:
            if r.hi <= merged[-1].hi:
                continue
            r = IntRange(merged[-1].hi + 1, r.hi, r.value, r.why)
        merged.append(r)
    return tuple(merged)


def _check_tail(op: str, threshold: int) -> None:
    """Insurance for a stated tail: the scalar oracle agrees at its ends and inside."""
    if op not in rounded.UNARY:
        return
    for n in (threshold, threshold + 1, 1000, 2**24 + 1, 2**27 + 3, 2**30 + 65, HALF - 1):
        x = round_to_binary32(n)
        if rounded.UNARY[op](x)[0] != x:
            raise AssertionError(f"{op}: the identity tail from {threshold} fails at {n}")


def identity(lo: int, hi: int) -> np.ndarray:
    """round32(n) for every integer ``lo <= n < hi`` (``0 <= lo <= hi <= 2**31 + 1``: the
    magnitudes of int32 values), float32.

    Below 2**24 every integer is a binary32 value (the cast is exact).  In
    the binade ``[2**k, 2**(k+1))``, k >= 24, the values are the multiples
    ``q 2**e`` (``e = k - 23``), and round-to-nearest-even gives ``q 2**e``
    the integers ``[q 2**e - 2**(e-1), q 2**e + 2**(e-1)]`` for even q and
    the open interval for odd q: one run per value, laid down by repetition.
    """
    if not 0 <= lo <= hi <= HALF + 1:
        raise ValueError(f"identity: [{lo}, {hi}) is not inside [0, 2**31 + 1)")
    parts = []
    exact_top = min(hi, 1 << 24)
    if lo < exact_top:
        parts.append(np.arange(lo, exact_top, dtype=np.int32).astype(np.float32))
    for k in range(24, 32):
        a, b = max(lo, 1 << k), min(hi, 1 << (k + 1))
        if a >= b:
            continue
        e = k - 23
        half = 1 << (e - 1)
        q = np.arange((a - half) >> e, ((b + half) >> e) + 1, dtype=np.int64)
        odd = q & 1
        first = np.maximum((q << e) - half + odd, a)
        last = np.minimum((q << e) + half - odd, b - 1)
        parts.append(np.repeat((q << e).astype(np.float32), np.maximum(last - first + 1, 0)))
    out = np.concatenate(parts) if parts else np.empty(0, np.float32)
    assert out.size == hi - lo
    return out


def converted(start: int, stop: int) -> np.ndarray:
    """round32(n) for the int32 patterns ``start <= b < stop``, by :func:`identity`
    (a negative n is the mirror image of -n: rounding to nearest even is symmetric)."""
    parts = []
    if start < HALF:
        parts.append(identity(start, min(stop, HALF)))
    if stop > HALF:  # patterns 2**32 - m for m = -n, m from 2**32 - lo down to 2**32 - stop + 1
        lo = max(start, HALF)
        parts.append(-identity((1 << 32) - stop + 1, (1 << 32) - lo + 1)[::-1])
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


def expected(op: str, start: int, stop: int) -> tuple[np.ndarray, int]:
    """(reference results, inputs evaluated) of *op*'s Int32 plan on patterns
    ``start <= b < stop`` (b is the two's-complement int32)."""
    if not 0 <= start <= stop <= 1 << 32:
        raise ValueError(f"expected: bad range [{start:#x}, {stop:#x})")
    if op == "relu":
        n = V.bit_patterns(start, stop).view(np.int32)
        return np.maximum(n, np.int32(0)), 0
    out = np.empty(stop - start, np.float32)
    out_bits = out.view(np.uint32)
    evaluated = 0
    cursor = start

    def evaluate(lo: int, hi: int) -> None:
        out[lo - start : hi - start] = V.certified(op, converted(lo, hi))

    for r in int32_ranges(op):
        lo, hi = max(r.lo, start), min(r.hi + 1, stop)
        if lo >= hi:
            continue
        if cursor < lo:
            evaluate(cursor, lo)
            evaluated += lo - cursor
        if r.value is None:
            out[lo - start : hi - start] = identity(lo, hi)
        else:
            out_bits[lo - start : hi - start] = r.value
        cursor = hi
    if cursor < stop:
        evaluate(cursor, stop)
        evaluated += stop - cursor
    return out, evaluated
