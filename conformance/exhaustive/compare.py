"""One chunk of a plan: its expected values and their comparison with a backend's.

This is the code whose syntax trees a record's oracle digest covers
(:mod:`conformance.exhaustive.digest`, :data:`ROOTS`): :func:`expected_chunk`
(the reference of a chunk of a plan) and :func:`compare_chunk` (the verdict
rules, the integer ULP distance to the correctly rounded result and the real
error in ulps, :mod:`conformance.exhaustive.ulp_error`).

Conformance.  Exact-class operations must match bit for bit (any NaN for a
NaN, except that neg and abs must copy the NaN's bits).  Correctly rounded
operations must match bit for bit too unless a ULP budget is granted; a
budget never applies to NaN, +-inf, +-0 or exact points
(:func:`oracle.vectorised.exact_points`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from conformance.exhaustive import int32 as exhaustive_int32
from conformance.exhaustive.summary import KEEP
from conformance.exhaustive.ulp_error import errors, exact_float64, real_error
from oracle import vectorised as V
from oracle.binary32 import from_bits

__all__ = [
    "ROOTS",
    "ShardResult",
    "compare_chunk",
    "count_mismatches",
    "describe_offender",
    "expected_chunk",
    "ordinal",
    "split_plan",
]

#: operations whose NaN results must copy the input's bits
_NAN_BITS_OPS = ("neg", "abs")
#: at most this many ambiguous real errors of a chunk are settled by mpmath (more are
#: bounded above: :func:`conformance.exhaustive.ulp_error.errors`)
AMBIGUOUS_SETTLED = 16


def split_plan(plan: str) -> tuple[str, str]:
    """(operation, dtype) of ``op:Float32`` / ``op:Int32`` (``op`` alone: Float32); KeyError."""
    op, _, dtype = plan.partition(":")
    dtype = dtype or "Float32"
    if dtype not in ("Float32", "Int32") or (dtype == "Int32" and op not in V.ACTIVATIONS):
        raise KeyError(f"no unary plan {plan!r}")
    return op, dtype


@dataclass
class ShardResult:
    """What one backend did on one range of one plan."""

    backend: str
    plan: str
    start: int
    stop: int
    shard: int | None = None
    shards: int | None = None
    ulp_budget: int = 0
    inputs: int = 0
    non_conforming: int = 0
    not_correctly_rounded: int = 0
    nan_mismatches: int = 0
    max_ulp: int = 0
    #: [input, expected, actual, ulp, real error] at the max ULP distance (of the inputs
    #: there, the one with the largest real error)
    worst: list[Any] | None = None
    #: the largest real error in ulps (:mod:`conformance.exhaustive.ulp_error`) of the
    #: results that are not correctly rounded; None when every result is (error <= 0.5)
    max_error: float | None = None
    #: [input, expected, actual, real error] where :attr:`max_error` is attained
    worst_error: list[Any] | None = None
    offenders: list[list[int | None]] = field(default_factory=list)
    seconds: float = 0.0
    oracle_seconds: float = 0.0
    backend_seconds: float = 0.0
    scalar_calls: int = 0
    error: str | None = None
    role: str = "checked"  #: "checked" (conformance) or "measured" (accuracy only)
    #: what the backend's host observed around its calls (``fp-environment:flush-to-zero``,
    #: ``numpy-state:error-state``, ...): any makes the range not conforming
    environment: list[str] = field(default_factory=list)
    #: the judge's own floating-point environment as checked before and after the range
    #: (:func:`conformance.host.fpenv.probe`): rounding, flush_to_zero, denormals_are_zero,
    #: numpy_errors; None in records written before it was recorded
    judge_environment: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.non_conforming == 0 and self.error is None and not self.environment

    def describe(self) -> str:
        where = (
            f"shard {self.shard}/{self.shards}" if self.shard is not None else "range"
        ) + f" [{self.start:#010x}, {self.stop:#010x})"
        head = (
            f"{self.backend} {self.plan} {where}: {self.inputs} inputs, "
            f"{self.non_conforming} non-conforming (budget {self.ulp_budget} ULP), "
            f"{self.not_correctly_rounded} not correctly rounded, max {self.max_ulp} ULP"
            + ("" if self.max_error is None else f", max error {self.max_error:#.4g} ulp")
        )
        lines = [head]
        if self.error:
            lines.append(f"  error: {self.error}")
        if self.environment:
            lines.append(f"  environment: {', '.join(self.environment)}")
        lines += ["  " + describe_offender(self.plan, o) for o in self.offenders]
        return "\n".join(lines)


def describe_offender(plan: str, item: list[int | None]) -> str:
    pattern, expected, actual, ulp = item
    if pattern is None or expected is None or actual is None:
        raise TypeError(f"offender {item} of {plan}: only its ULP distance may be null")
    _, dtype = split_plan(plan)
    if dtype == "Int32":
        value = int(np.array([pattern], np.uint32).view(np.int32)[0])
        shown = f"input {value} (0x{pattern:08X})"
    else:
        shown = f"input 0x{pattern:08X} ({from_bits(pattern)!r})"
    ulp_text = "NaN mismatch" if ulp is None else f"{ulp} ULP"
    return f"{shown}: expected 0x{expected:08X}, got 0x{actual:08X} ({ulp_text})"


def ordinal(bits: np.ndarray) -> np.ndarray:
    b = bits.astype(np.int64)
    magnitude = b & 0x7FFFFFFF
    return np.where(b & 0x80000000, -magnitude, magnitude)


def compare_chunk(
    op: str,
    dtype: str,
    lo: int,
    float_at: Callable[[np.ndarray], np.ndarray],
    expected: np.ndarray,
    actual: np.ndarray,
    budget: int,
    result: ShardResult,
    rounded: bool,
) -> None:
    """Accumulate the comparison of one chunk into *result*.

    The chunk's inputs are the bit patterns ``lo, lo + 1, ...``, one for each element
    of *expected*: the input at position ``i`` is the pattern ``lo + i`` (the chunk's
    patterns are never needed whole here).  *float_at(positions)* is the Float32
    input at those positions of the chunk (needed only where a budget is weighed
    against exact points, or an error measured).
    """
    count = int(expected.size)
    result.inputs += count
    actual = np.asarray(actual)
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        result.non_conforming += count
        result.not_correctly_rounded += count
        result.error = (
            f"backend returned {actual.dtype}{list(actual.shape)}, "
            f"expected {expected.dtype}{list(expected.shape)}"
        )
        return
    if expected.dtype != np.float32:  # bool (logical_not) or Int32 (relu): by value
        wrong = np.flatnonzero(expected != actual)
        if wrong.size:
            result.non_conforming += int(wrong.size)
            result.not_correctly_rounded += int(wrong.size)
            e = expected[wrong].astype(np.int64).astype(np.uint32)
            a = actual[wrong].astype(np.int64).astype(np.uint32)
            _keep(result, _pattern(lo, wrong), e, a, [None] * wrong.size)
        return
    e_bits, a_bits = expected.view(np.uint32), actual.view(np.uint32)
    wrong = np.flatnonzero(e_bits != a_bits)
    if not wrong.size:
        return
    e, a = e_bits[wrong], a_bits[wrong]
    e_nan = (e & 0x7FFFFFFF) > 0x7F800000
    a_nan = (a & 0x7FFFFFFF) > 0x7F800000
    if op not in _NAN_BITS_OPS:
        differ = ~(e_nan & a_nan)
        wrong, e, a, e_nan, a_nan = (
            wrong[differ],
            e[differ],
            a[differ],
            e_nan[differ],
            a_nan[differ],
        )
    if not wrong.size:
        return
    one_nan = e_nan ^ a_nan
    distance = np.abs(ordinal(e) - ordinal(a))
    distance[one_nan] = -1
    distance[e_nan & a_nan] = 0
    result.not_correctly_rounded += int(wrong.size)
    result.nan_mismatches += int(one_nan.sum())
    conforming = np.zeros(wrong.size, bool)
    if budget and rounded:
        ev, av = e.view(np.float32), a.view(np.float32)
        regular = (
            np.isfinite(ev) & np.isfinite(av) & (ev != 0) & (av != 0) & ((e >> 31) == (a >> 31))
        )
        if regular.any():
            regular &= ~V.exact_points(op, float_at(wrong))
        conforming = regular & (distance >= 0) & (distance <= budget)
    result.non_conforming += int((~conforming).sum())
    measured = np.flatnonzero((distance >= 0) & ~e_nan)  # neither side a NaN
    if measured.size:
        _measure(op, lo, float_at, wrong[measured], e[measured], a[measured],
                 distance[measured], result)  # fmt: skip
    bad = ~conforming
    ulps = [None if d < 0 else int(d) for d in distance[bad][:KEEP].tolist()]
    _keep(result, _pattern(lo, wrong[bad]), e[bad], a[bad], ulps)


def _pattern(lo: int, positions: np.ndarray) -> np.ndarray:
    """The input bit patterns at *positions* of the chunk that starts at pattern *lo*."""
    return (positions.astype(np.int64) + lo).astype(np.uint32)


def _measure(
    op: str,
    lo: int,
    float_at: Callable[[np.ndarray], np.ndarray],
    where: np.ndarray,
    e: np.ndarray,
    a: np.ndarray,
    distance: np.ndarray,
    result: ShardResult,
) -> None:
    """The largest real error and integer distance of the results at chunk positions
    *where* (bits *e* expected, *a* actual, ordinal *distance*), into *result*."""
    x = float_at(where)
    exact = exact_float64(op, x, e.view(np.float32))
    error, ambiguous = errors(a.view(np.float32), exact)
    if ambiguous.any():  # settle those that could be the worst (a few) with mpmath
        plain = float(error[~ambiguous].max()) if (~ambiguous).any() else -1.0
        contenders = np.flatnonzero(ambiguous & (error > plain))
        if contenders.size <= AMBIGUOUS_SETTLED:
            ev, av = e.view(np.float32), a.view(np.float32)
            for i in contenders.tolist():
                error[i] = real_error(op, float(x[i]), float(av[i]), float(ev[i]))
    k = int(np.argmax(error))
    if result.max_error is None or error[k] > result.max_error:
        result.max_error = float(error[k])
        result.worst_error = [lo + int(where[k]), int(e[k]), int(a[k]), float(error[k])]
    peak = int(distance.max())
    at_peak = np.flatnonzero(distance == peak)
    j = int(at_peak[int(np.argmax(error[at_peak]))])  # the worst input at that distance
    held = (result.max_ulp, result.worst[4]) if result.worst is not None else (-1, -1.0)
    if (peak, float(error[j])) > held:
        result.max_ulp = peak
        result.worst = [lo + int(where[j]), int(e[j]), int(a[j]), peak, float(error[j])]


def count_mismatches(
    expected: np.ndarray, actual: np.ndarray, *, nan_bits: bool = False
) -> tuple[int, int]:
    """(non-matching elements, max ULP distance among them) of two float32 arrays.

    Bit-for-bit equality, any NaN for a NaN unless *nan_bits*.  Distances are
    computed only for the elements whose bits differ (the sweep's comparison;
    ``conformance.generate.corpus.compare`` computes them for every element).
    """
    e_bits = np.ascontiguousarray(expected, dtype=np.float32).view(np.uint32).reshape(-1)
    a_bits = np.ascontiguousarray(actual, dtype=np.float32).view(np.uint32).reshape(-1)
    wrong = np.flatnonzero(e_bits != a_bits)
    if not wrong.size:
        return 0, 0
    e, a = e_bits[wrong], a_bits[wrong]
    e_nan = (e & 0x7FFFFFFF) > 0x7F800000
    a_nan = (a & 0x7FFFFFFF) > 0x7F800000
    if not nan_bits:
        differ = ~(e_nan & a_nan)
        e, a, e_nan, a_nan = e[differ], a[differ], e_nan[differ], a_nan[differ]
    finite = ~(e_nan | a_nan)
    distance = np.abs(ordinal(e[finite]) - ordinal(a[finite]))
    return int(e.size), int(distance.max()) if distance.size else 0


def _keep(
    result: ShardResult,
    patterns: np.ndarray,
    expected: np.ndarray,
    actual: np.ndarray,
    ulps: list[int | None],
) -> None:
    room = KEEP - len(result.offenders)
    for p, e, a, u in list(zip(patterns.tolist(), expected.tolist(), actual.tolist(), ulps))[
        : max(room, 0)
    ]:
        result.offenders.append([int(p), int(e), int(a), u])


def expected_chunk(
    op: str, dtype: str, lo: int, hi: int, plateaus: bool
) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """(expected outputs, float_at) of the chunk of a plan whose inputs are the bit
    patterns ``lo <= b < hi``: *float_at(positions)* is the Float32 input at those
    positions (an Int32 input converted).  The chunk's patterns are made here only
    where the reference needs them whole (relu:Int32, an Int32 plan without
    plateaus): the Float32 reference and the Int32 plateaus make their own.  A Float32
    chunk wholly on one plateau of constant result (:func:`oracle.vectorised.constant_range`)
    has its one value, broadcast: a read-only view nothing is written into."""
    if dtype == "Float32":
        value = V.constant_range(op, lo, hi)
        if value is None:
            expected = V.certified_range(op, lo, hi)
        else:
            expected = np.broadcast_to(np.array(value, np.uint32).view(np.float32), (hi - lo,))
        return expected, lambda where: _pattern(lo, where).view(np.float32)

    def float_at(where: np.ndarray) -> np.ndarray:
        return V.int32_to_float32(_pattern(lo, where).view(np.int32))

    if plateaus and op != "relu":
        expected, evaluated = exhaustive_int32.expected(op, lo, hi)
        V.STATS["evaluated"] += evaluated
        return expected, float_at
    inputs = V.bit_patterns(lo, hi).view(np.int32)
    if op == "relu":
        return V.certified_int32(op, inputs), float_at
    return V.certified(op, V.int32_to_float32(inputs)), float_at


#: the functions that determine a plan's expected values and verdicts: the digest's roots
ROOTS = (expected_chunk, compare_chunk)
