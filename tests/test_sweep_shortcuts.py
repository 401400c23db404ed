"""The sweep's shortcuts decide what the long way decides (issue 29, item 4).

Three shortcuts skip passes over an array when its two extremes prove the pass would
change nothing: the oracle's special-input test (:func:`oracle.vectorised._finite_nonzero`),
the subnormal part of both boundary tests (:func:`oracle.vectorised.near_boundary`,
:func:`backends.cpu.transcendental.near_rounding_boundary`), and the CPU backend's clamp
to the saturation interval.  Each gives, on arrays of every kind of value (one element
alone, all of one sign, mixed with a NaN, a zero, an infinity or a subnormal result),
what the same code gives with the shortcut refused (its predicate patched to False), and
each predicate says yes and no where it should.  The fourth shortcut compares a chunk wholly on one
plateau with its constant (:func:`oracle.vectorised.constant_range`): it must be the
value :func:`oracle.vectorised.certified_range` writes there, and None where a range
leaves the segment.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backends.cpu import transcendental
from conformance.exhaustive.compare import expected_chunk
from oracle import vectorised as V

#: float32 bit patterns of every kind: zeros, subnormals, normals, infinities, NaNs
float32_bits = st.one_of(
    st.integers(0, 2**32 - 1),
    st.sampled_from([0, 0x80000000, 1, 0x807FFFFF, 0x00800000, 0x7F800000, 0xFF800000,
                     0x7FC00000, 0xFFFFFFFF, 0x3F800000, 0x42B17218, 0xC2CE8ED0]),
)  # fmt: skip
#: float64 values whose binary32 rounding matters: normal, subnormal and beyond
float64_values = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.floats(min_value=2.0**-160, max_value=2.0**-120),
    st.floats(min_value=-(2.0**-120), max_value=-(2.0**-160)),
    st.builds(lambda b: float(np.uint32(b).view(np.float32)), float32_bits),
    # on a midpoint of the subnormal grid (the long way flags it), and a float64 whose low
    # bits sit where a normal binade's midpoint would (only the normal test flags it)
    st.builds(lambda k: (k + 0.5) * 2.0**-149, st.integers(0, 2**23 - 1)),
    st.builds(
        lambda e: float(np.uint64((e << 52) | (1 << 28)).view(np.float64)),
        st.integers(1023 - 160, 1023 - 127),
    ),
)


def _long_way(guard: str, function, *args):
    """*function(*args)* with the shortcut behind *guard* (``module.name`` of the
    predicate) refused: every pass done."""
    module, name = guard.rsplit(".", 1)
    with mock.patch(f"{module}.{name}", lambda *_: False):
        return function(*args)


@settings(max_examples=300, deadline=None)
@given(st.lists(float64_values, min_size=1, max_size=40))
def test_oracle_boundary_test_with_and_without_the_shortcut(values: list[float]) -> None:
    y = np.array(values, np.float64)
    tolerance = V.SAFETY * V._U * V.LIBM
    for part in (y, y[:1], -np.abs(y)):  # one element alone: the shortcut where it may
        fast = V.near_boundary(part, tolerance)
        slow = _long_way("oracle.vectorised._all_normal", V.near_boundary, part, tolerance)
        assert np.array_equal(fast, slow)


@settings(max_examples=300, deadline=None)
@given(st.lists(float64_values, min_size=1, max_size=40))
def test_backend_boundary_test_with_and_without_the_shortcut(values: list[float]) -> None:
    y = np.array(values, np.float64)
    near = transcendental.near_rounding_boundary
    for part in (y, y[:1], np.abs(y)):
        slow = _long_way("backends.cpu.transcendental._normal_only", near, part)
        assert np.array_equal(near(part), slow)


@pytest.mark.parametrize("op", ["exp", "log", "sin", "tanh", "silu", "gelu", "rsqrt"])
@settings(max_examples=60, deadline=None)
@given(patterns=st.lists(float32_bits, min_size=1, max_size=24))
def test_oracle_evaluation_with_and_without_the_shortcut(op: str, patterns: list[int]) -> None:
    x = np.array(patterns, np.uint32).view(np.float32)
    for part in (x, x[:1], np.abs(x)):
        fast = V._evaluate_chunk(op, part).view(np.uint32)
        slow = _long_way("oracle.vectorised._finite_nonzero", V._evaluate_chunk, op, part)
        nan = np.isnan(fast.view(np.float32))
        assert np.array_equal(nan, np.isnan(slow.view(np.float32)))
        assert np.array_equal(fast[~nan], slow.view(np.uint32)[~nan])


def test_the_shortcuts_are_taken_and_refused_where_they_should_be() -> None:
    positive = np.array([1.5, 2.0**-126, 3e38], np.float64)
    assert V._all_normal(positive) and V._all_normal(-positive)
    for spoiler in (0.0, -1.0, np.nan, np.inf, 2.0**-127):
        assert not V._all_normal(np.append(positive, spoiler)), spoiler
        if spoiler != np.inf:  # the backend's test has no use for an infinity's absence
            assert not transcendental._normal_only(np.append(positive, spoiler)), spoiler
    assert transcendental._normal_only(np.append(positive, np.inf))
    x = positive.astype(np.float32)
    assert V._finite_nonzero(x) and V._finite_nonzero(-x)
    assert transcendental._normal_only(positive) and transcendental._normal_only(-positive)
    for spoiler in (0.0, -0.0, -1.0, np.nan, np.inf):
        assert not V._finite_nonzero(np.append(x, np.float32(spoiler))), spoiler


@pytest.mark.parametrize("name", sorted(transcendental.SATURATION))
def test_backend_piece_inside_or_across_the_saturation_interval(name: str) -> None:
    """A piece inside the interval skips the clamp, one across it is clamped: both are
    what the oracle says, element for element (NaNs as NaNs)."""
    low, high = transcendental.SATURATION[name]
    n = transcendental.CHUNK
    inside = np.linspace(low, high, n).astype(np.float32)
    across = np.linspace(2 * low, 2 * high, n).astype(np.float32)
    across[7] = np.nan
    for x in (inside, across):
        got = transcendental.correctly_rounded(name, x).view(np.uint32)
        want = V.certified(name, x).view(np.uint32)
        nan = np.isnan(x)
        assert np.array_equal(got[~nan], want[~nan])
        assert np.isnan(got[nan].view(np.float32)).all()


@pytest.mark.parametrize("op", ["exp", "tanh", "sigmoid", "gelu", "erf", "log"])
def test_constant_range_is_the_value_certified_range_writes(op: str) -> None:
    constant = [s for s in V.segments(op) if s.value is not None and len(s) > 64]
    assert constant, f"{op} has no constant segment to test"
    for segment in constant:
        for lo, hi in ((segment.lo, segment.lo + 64), (segment.hi - 63, segment.hi + 1)):
            value = V.constant_range(op, lo, hi)
            assert value == segment.value
            written = V.certified_range(op, lo, hi).view(np.uint32)
            assert (written == value).all() or (
                np.isnan(written.view(np.float32)).all()
                and np.isnan(np.uint32(value).view(np.float32))
            )
            expected, _ = expected_chunk(op, "Float32", lo, hi, True)
            assert not expected.flags.writeable and expected.shape == (hi - lo,)
            assert (expected.view(np.uint32) == value).all()
        if segment.hi + 1 < 2**32:  # one past the segment's end: not one value any more
            assert V.constant_range(op, segment.hi - 3, segment.hi + 2) is None
    assert V.constant_range(op, 5, 5) is None
    assert V.constant_range("neg", 0x7FC00000, 0x7FC00010) is None  # exact ops: arrays
