"""Int32 plans decided by ranges (issue 14 item 1): plateaus, identity tails, the rest evaluated.

The range-wise reference must agree element for element with the per-element
one (``oracle.vectorised.certified_int32``) -- on every edge of every range,
around every binade where the conversion's spacing changes, and on random
chunks -- and the sweep must find exactly the same offenders either way.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from conformance import exhaustive as X
from conformance.exhaustive import int32 as I
from oracle import vectorised as V
from oracle.binary32 import round_to_binary32

INT32_OPS = [op for op in V.ACTIVATIONS]


def _patterns(start: int, stop: int) -> np.ndarray:
    return np.arange(start, stop, dtype=np.uint64).astype(np.uint32)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype == np.float32:
        return a.dtype == b.dtype and np.array_equal(a.view(np.uint32), b.view(np.uint32))
    return a.dtype == b.dtype and np.array_equal(a, b)


def _starts(op: str) -> list[int]:
    starts = [0, 1 << 31, (1 << 32) - 4096, (1 << 31) - 4096]
    starts += [(1 << k) - 2048 for k in range(24, 32)]  # the spacing changes at 2**k
    starts += [(1 << 32) - (1 << k) - 2048 for k in range(24, 32)]  # and at -2**k
    if op != "relu":
        for r in I.int32_ranges(op):
            starts += [max(r.lo - 2048, 0), min(max(r.hi - 2048, 0), (1 << 32) - 4096)]
    rng = np.random.default_rng(INT32_OPS.index(op))
    starts += rng.integers(0, (1 << 32) - 4096, 6).tolist()
    return starts


@pytest.mark.parametrize("op", INT32_OPS)
def test_range_reference_equals_the_per_element_oracle(op):
    for start in _starts(op):
        got, evaluated = I.expected(op, start, start + 4096)
        n = _patterns(start, start + 4096).view(np.int32)
        assert _same(got, V.certified_int32(op, n)), (op, hex(start))
        assert 0 <= evaluated <= 4096


@pytest.mark.parametrize("op", [op for op in INT32_OPS if op != "relu"])
def test_ranges_are_sorted_disjoint_and_leave_few_inputs(op):
    ranges = I.int32_ranges(op)
    for a, b in itertools.pairwise(ranges):
        assert a.hi < b.lo
    known = sum(r.hi - r.lo + 1 for r in ranges)
    left = (1 << 31) + 1 if op == "leaky_relu" else 400  # leaky_relu(n < 0): the exact rule
    assert (1 << 32) - known < left, op  # exp: -103..88 and similar: a few hundred at most
    for r in ranges:  # each end inside, the next input outside (the runs are maximal)
        n = np.array([r.lo, r.hi], np.uint32).view(np.int32)
        want = V.certified_int32(op, n).view(np.uint32)
        if r.value is not None:
            assert want.tolist() == [r.value, r.value], (op, r)


def test_identity_is_the_exact_conversion_around_every_spacing_change():
    for k in range(23, 32):
        lo = max((1 << k) - 5000, 0)
        hi = min((1 << k) + 5000, 1 << 31)
        got = I.identity(lo, hi)
        want = V.int32_to_float32(np.arange(lo, hi, dtype=np.int64).astype(np.int32))
        assert _same(got, want), k
    rng = np.random.default_rng(3)
    for lo in rng.integers(0, (1 << 31) - 70000, 20).tolist():
        assert _same(I.identity(lo, lo + 65536), V.int32_to_float32(
            np.arange(lo, lo + 65536, dtype=np.int64).astype(np.int32)))  # fmt: skip
    for lo in [0, (1 << 31) - 3000, (1 << 31) + 7, (1 << 32) - 3000, (1 << 32) - (1 << 25) - 9]:
        n = np.arange(lo, lo + 3000, dtype=np.uint64).astype(np.uint32).view(np.int32)
        assert _same(I.converted(lo, lo + 3000), V.int32_to_float32(n)), hex(lo)
    assert I.identity(5, 5).size == 0
    with pytest.raises(ValueError):
        I.identity(-1, 5)


@pytest.mark.parametrize("op", ["softplus", "silu", "gelu"])
def test_identity_tails_hold_at_their_threshold_and_not_below(op):
    threshold, _ = I.IDENTITY_TAILS[op]
    x = np.array([round_to_binary32(n) for n in range(threshold, threshold + 64)], np.float32)
    assert _same(V.certified(op, x), x)
    below = np.float32(threshold - 4)
    assert V.certified(op, np.array([below]))[0] != below  # the tail is not vacuous


class _OffByOneOnInt32:
    """The CPU backend with one Int32 input on each plateau and tail answered wrong."""

    __name__ = "off-by-one"

    def __init__(self, wrong: list[int]) -> None:
        self.inner = X.runner("cpu")
        self.wrong = np.array(wrong, np.int64).astype(np.int32)

    def __call__(self, op, x):
        out = np.array(self.inner(op, x))
        hit = np.isin(x, self.wrong)
        out.view(np.uint32)[hit] ^= np.uint32(1)
        return out


@pytest.mark.parametrize("op", ["exp", "gelu", "elu", "leaky_relu", "relu"])
def test_the_sweep_finds_the_same_offenders_with_and_without_ranges(op):
    wrong = [-(1 << 31), -200, -5, 0, 3, 100, (1 << 24) + 1, (1 << 31) - 1]
    backend = _OffByOneOnInt32(wrong)
    for value in wrong:
        pattern = value & 0xFFFFFFFF
        start = pattern - pattern % 8192
        fast, slow = (
            X.check_range(backend, f"{op}:Int32", start, start + 8192, plateaus=flag)[0]
            for flag in (True, False)
        )
        inside = sorted(v & 0xFFFFFFFF for v in wrong if start <= (v & 0xFFFFFFFF) < start + 8192)
        assert fast.non_conforming == slow.non_conforming == len(inside), (op, value)
        assert fast.offenders == slow.offenders
        assert [o[0] for o in fast.offenders] == inside
