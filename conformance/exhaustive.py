"""Exhaustive certification of unary plans: every one of the 2**32 inputs.

A *plan* here is one unary operation with one input dtype: ``exp:Float32``
(all 2**32 binary32 bit patterns, NaNs and both zeros included) or, for the
activations that accept Int32 tensors, ``exp:Int32`` (all 2**32 Int32 values,
converted to Float32 by the plan).  The reference is the vectorised certified
oracle :mod:`oracle.vectorised`.

Shards.  The 2**32 inputs are cut into ``N`` contiguous shards: shard ``i``
is ``[floor(i 2**32 / N), floor((i + 1) 2**32 / N))`` (:func:`shard_range`),
so consecutive shards touch, the first starts at 0 and the last ends at
2**32: every input is in exactly one shard (:func:`shard_of` finds it).  A
shard is the unit of work, of resumption (finished shards are appended to a
JSON-lines state file, :func:`run_shard` skips a shard already recorded) and
of parallelism: ``tests/test_exhaustive_sweep.py`` makes every (plan, shard)
an ordinary pytest item, so ``pytest -m exhaustive -n auto`` spreads them over
cores (and, with pytest-xdist's remote workers, over machines).

Conformance.  Exact-class operations must match bit for bit (any NaN for a
NaN, except that neg and abs must copy the NaN's bits).  Correctly rounded
operations must match bit for bit too unless a ULP budget is granted; a
budget never applies to NaN, +-inf, +-0 or exact points
(:func:`oracle.vectorised.exact_points`).  Every shard also reports, budget or
not, how many results are not correctly rounded and the largest ULP error:
the accuracy table (:func:`accuracy_table`) of a backend is the aggregate of
its shards.

Backends are ``cpu``, ``generic``, ``module:attribute`` (through
:func:`backends.get`), or ``numpy-float32``: the raw numpy float32 ufuncs
(:func:`numpy_float32`), measured for comparison, not a conforming backend.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from oracle import vectorised as V
from oracle.binary32 import from_bits

__all__ = [
    "DEFAULT_SHARDS",
    "DEFAULT_STATE",
    "TOTAL",
    "ShardResult",
    "accuracy_table",
    "check_range",
    "count_mismatches",
    "load_state",
    "numpy_float32",
    "plan_ids",
    "run_shard",
    "runner",
    "sampled_shards",
    "shard_of",
    "shard_range",
    "summarise",
]

TOTAL = 1 << 32
DEFAULT_SHARDS = 64
DEFAULT_STATE = Path(".plancheck") / "exhaustive.jsonl"
#: elements per backend call in a sweep
CHUNK = 1 << 20
#: offending inputs kept per shard
KEEP = 8
_NAN_BITS_OPS = ("neg", "abs")

# ---------------------------------------------------------------------------
# Plans and shards
# ---------------------------------------------------------------------------


def plan_ids(ops: Iterable[str] | None = None, int32: bool = True) -> list[str]:
    """``op:Float32`` for every selected unary op, and ``op:Int32`` for the activations."""
    selected = list(V.OPS if ops is None else ops)
    for op in selected:
        if op not in V.OPS:
            raise KeyError(f"{op!r} is not a Float32 unary operation; choose from {V.OPS}")
    ids = [f"{op}:Float32" for op in selected]
    if int32:
        ids += [f"{op}:Int32" for op in selected if op in V.ACTIVATIONS]
    return ids


def _split(plan: str) -> tuple[str, str]:
    op, _, dtype = plan.partition(":")
    dtype = dtype or "Float32"
    if dtype not in ("Float32", "Int32") or (dtype == "Int32" and op not in V.ACTIVATIONS):
        raise KeyError(f"no unary plan {plan!r}")
    return op, dtype


def shard_range(index: int, count: int) -> tuple[int, int]:
    """``[start, stop)`` of shard *index* of *count* over the 2**32 inputs."""
    if not 1 <= count <= TOTAL or not 0 <= index < count:
        raise ValueError(f"shard {index}/{count}: need 1 <= count <= 2**32 and 0 <= index < count")
    return (index * TOTAL) // count, ((index + 1) * TOTAL) // count


def shard_of(pattern: int, count: int) -> int:
    """The index of the one shard (of *count*) whose range holds bit pattern *pattern*."""
    if not 0 <= pattern < TOTAL:
        raise ValueError(f"{pattern:#x} is not a 32-bit pattern")
    index = (pattern * count) >> 32
    while shard_range(index, count)[1] <= pattern:
        index += 1
    while shard_range(index, count)[0] > pattern:
        index -= 1
    return index


def sampled_shards(count: int, every: int = 1) -> list[int]:
    """Shard indices ``every // 2, every // 2 + every, ...`` (all of them for 1).

    With many small shards this is a stratified sample of ``1/every`` of the
    inputs spread evenly over all exponents and both signs.
    """
    if every < 1:
        raise ValueError(f"sample every {every}: need >= 1")
    return list(range(every // 2 if every > 1 else 0, count, every))


def default_shards(shards: int | None, sample: int) -> int:
    """The shard count: *shards* when given, else 64 for a full sweep and ``512 K``
    for a ``1/K`` sample.

    With 512 K shards each is ``2**23 / K`` patterns wide and every K-th one
    is taken, so the sample holds one slice of every binade (the subnormals
    and both signs included); with few large shards a sample would be a few
    contiguous blocks of the input space.
    """
    if shards is not None:
        return shards
    return DEFAULT_SHARDS if sample <= 1 else 512 * sample


def parse_shard(text: str) -> tuple[int, int]:
    """``"I/N"`` -> (I, N)."""
    index, slash, count = text.partition("/")
    if not slash:
        raise ValueError(f"--shard wants I/N, got {text!r}")
    i, n = int(index), int(count)
    shard_range(i, n)
    return i, n


# ---------------------------------------------------------------------------
# Backends
# ---------------------------------------------------------------------------

_SLOPE = np.float32(0.01)


def numpy_float32(op: str, x: np.ndarray) -> np.ndarray:
    """The raw numpy float32 ufunc for *op* (no correction at all), for comparison.

    Int32 input is cast to float32 first (relu stays Int32).  erf and gelu
    have no numpy ufunc: KeyError.
    """
    if x.dtype == np.int32:
        if op == "relu":
            return np.maximum(x, np.int32(0))
        x = x.astype(np.float32)
    one = np.float32(1)
    with np.errstate(all="ignore"):
        if op in _NUMPY_UFUNCS:
            return _NUMPY_UFUNCS[op](x)
        if op == "rsqrt":
            return one / np.sqrt(x)
        if op == "sigmoid":
            return one / (one + np.exp(-x))
        if op == "silu":
            return x / (one + np.exp(-x))
        if op == "softplus":
            return np.logaddexp(np.float32(0), x)
        if op == "elu":
            return np.where(x > 0, x, np.expm1(x))
        if op == "relu":
            return np.maximum(x, np.float32(0))
        if op == "leaky_relu":
            return np.where(x >= 0, x, x * _SLOPE)
        if op == "recip":
            return np.reciprocal(x)
    raise KeyError(f"numpy has no float32 ufunc for {op!r}")


_NUMPY_UFUNCS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "exp": np.exp,
    "exp2": np.exp2,
    "log": np.log,
    "log2": np.log2,
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
    "neg": np.negative,
    "abs": np.abs,
    "sign": np.sign,
    "sqrt": np.sqrt,
    "floor": np.floor,
    "ceil": np.ceil,
    "round": np.rint,
    "logical_not": np.logical_not,
}
NUMPY_MISSING = ("erf", "gelu")


def runner(name: str) -> Callable[[str, np.ndarray], np.ndarray]:
    """``f(op, inputs) -> outputs`` for backend *name* (see the module docstring)."""
    if name == "numpy-float32":
        return numpy_float32
    import backends

    backend = backends.get(name)
    if callable(getattr(backend, "from_numpy", None)) and callable(
        getattr(backend, "to_numpy", None)
    ):  # the optional fast exchange of backends/protocol.py: bits (and sNaNs) kept

        def run_numpy(op: str, x: np.ndarray) -> np.ndarray:
            return np.asarray(backend.to_numpy(backend.execute(op, backend.from_numpy(x))))

        return run_numpy

    def run(op: str, x: np.ndarray) -> np.ndarray:
        from oracle import Tensor

        native = backend.from_tensor(Tensor.from_numpy(x))
        return backend.to_tensor(backend.execute(op, native)).to_numpy()

    return run


# ---------------------------------------------------------------------------
# Checking one range
# ---------------------------------------------------------------------------


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
    worst: list[int | None] | None = None  #: [input, expected, actual, ulp] of the max ULP
    offenders: list[list[int | None]] = field(default_factory=list)
    seconds: float = 0.0
    oracle_seconds: float = 0.0
    backend_seconds: float = 0.0
    scalar_calls: int = 0
    error: str | None = None
    role: str = "checked"  #: "checked" (conformance) or "measured" (accuracy only)

    @property
    def ok(self) -> bool:
        return self.non_conforming == 0 and self.error is None

    def describe(self) -> str:
        where = (
            f"shard {self.shard}/{self.shards}" if self.shard is not None else "range"
        ) + f" [{self.start:#010x}, {self.stop:#010x})"
        head = (
            f"{self.backend} {self.plan} {where}: {self.inputs} inputs, "
            f"{self.non_conforming} non-conforming (budget {self.ulp_budget} ULP), "
            f"{self.not_correctly_rounded} not correctly rounded, max {self.max_ulp} ULP"
        )
        lines = [head]
        if self.error:
            lines.append(f"  error: {self.error}")
        lines += ["  " + _offender(self.plan, o) for o in self.offenders]
        return "\n".join(lines)


def _offender(plan: str, item: list[int | None]) -> str:
    pattern, expected, actual, ulp = item
    _, dtype = _split(plan)
    if dtype == "Int32":
        value = int(np.array([pattern], np.uint32).view(np.int32)[0])
        shown = f"input {value} (0x{pattern:08X})"
    else:
        shown = f"input 0x{pattern:08X} ({from_bits(pattern)!r})"
    ulp_text = "NaN mismatch" if ulp is None else f"{ulp} ULP"
    return f"{shown}: expected 0x{expected:08X}, got 0x{actual:08X} ({ulp_text})"


def _ordinal(bits: np.ndarray) -> np.ndarray:
    b = bits.astype(np.int64)
    magnitude = b & 0x7FFFFFFF
    return np.where(b & 0x80000000, -magnitude, magnitude)


def _compare(
    op: str,
    dtype: str,
    patterns: np.ndarray,
    float_inputs: np.ndarray | None,
    expected: np.ndarray,
    actual: np.ndarray,
    budget: int,
    result: ShardResult,
    rounded: bool,
) -> None:
    """Accumulate the comparison of one chunk into *result*."""
    result.inputs += int(patterns.size)
    actual = np.asarray(actual)
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        result.non_conforming += int(patterns.size)
        result.not_correctly_rounded += int(patterns.size)
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
            _keep(result, patterns[wrong], e, a, [None] * wrong.size)
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
    distance = np.abs(_ordinal(e) - _ordinal(a))
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
            regular &= ~V.exact_points(op, float_inputs[wrong])
        conforming = regular & (distance >= 0) & (distance <= budget)
    result.non_conforming += int((~conforming).sum())
    finite = distance >= 0
    if finite.any():
        peak = int(distance[finite].max())
        if peak > result.max_ulp or result.worst is None:
            k = int(np.flatnonzero(finite & (distance == peak))[0])
            result.max_ulp = max(result.max_ulp, peak)
            result.worst = [int(patterns[wrong[k]]), int(e[k]), int(a[k]), peak]
    bad = ~conforming
    ulps = [None if d < 0 else int(d) for d in distance[bad][:KEEP].tolist()]
    _keep(result, patterns[wrong[bad]], e[bad], a[bad], ulps)


def count_mismatches(
    expected: np.ndarray, actual: np.ndarray, *, nan_bits: bool = False
) -> tuple[int, int]:
    """(non-matching elements, max ULP distance among them) of two float32 arrays.

    Bit-for-bit equality, any NaN for a NaN unless *nan_bits*.  Distances are
    computed only for the elements whose bits differ (the sweep's comparison;
    ``conformance.corpus.compare`` computes them for every element).
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
    distance = np.abs(_ordinal(e[finite]) - _ordinal(a[finite]))
    return int(e.size), int(distance.max()) if distance.size else 0


def _keep(result: ShardResult, patterns, expected, actual, ulps) -> None:
    room = KEEP - len(result.offenders)
    for p, e, a, u in list(zip(patterns.tolist(), expected.tolist(), actual.tolist(), ulps))[
        : max(room, 0)
    ]:
        result.offenders.append([int(p), int(e), int(a), u])


def check_range(
    backend: str | Callable[[str, np.ndarray], np.ndarray],
    plan: str,
    start: int,
    stop: int,
    *,
    ulp_budget: int = 0,
    also: Iterable[str] = (),
    chunk: int = CHUNK,
    progress: Callable[[int], None] | None = None,
) -> list[ShardResult]:
    """Check every input ``start <= b < stop`` of *plan* on *backend* (and *also*).

    *backend* is a name or a callable ``f(op, inputs)``.  Returns one
    :class:`ShardResult` per backend, the first for *backend* (role
    "checked"), then one per *also* name (role "measured").
    """
    op, dtype = _split(plan)
    names = [backend if isinstance(backend, str) else getattr(backend, "__name__", "custom")]
    runs = [runner(backend) if isinstance(backend, str) else backend]
    for name in also:
        if name == "numpy-float32" and op in NUMPY_MISSING:
            continue
        names.append(name)
        runs.append(runner(name))
    results = [
        ShardResult(name, plan, start, stop, ulp_budget=ulp_budget if i == 0 else 0)
        for i, name in enumerate(names)
    ]
    for r in results[1:]:
        r.role = "measured"
    rounded = op in V.ROUNDED_OPS
    scalar_before = V.STATS["scalar"]
    began = time.perf_counter()
    for lo in range(start, stop, chunk):
        hi = min(lo + chunk, stop)
        patterns = np.arange(lo, hi, dtype=np.uint64).astype(np.uint32)
        t0 = time.perf_counter()
        if dtype == "Float32":
            inputs = patterns.view(np.float32)
            float_inputs = inputs
            expected = V.certified_range(op, lo, hi)
        else:
            inputs = patterns.view(np.int32)
            float_inputs = None if op == "relu" else V.int32_to_float32(inputs)
            expected = (
                V.certified_int32(op, inputs)
                if float_inputs is None
                else V.certified(op, float_inputs)
            )
        t1 = time.perf_counter()
        results[0].oracle_seconds += t1 - t0
        for i, (run, result) in enumerate(zip(runs, results)):
            t2 = time.perf_counter()
            try:
                actual = run(op, inputs)
            except Exception as error:  # a crash is a non-conforming shard
                result.error = f"{type(error).__name__}: {error}"
                result.inputs += int(patterns.size)
                result.non_conforming += int(patterns.size)
                continue
            if i == 0:
                result.backend_seconds += time.perf_counter() - t2
            _compare(
                op,
                dtype,
                patterns,
                float_inputs,
                expected,
                actual,
                result.ulp_budget,
                result,
                rounded,
            )
        if progress is not None:
            progress(hi - lo)
    elapsed = time.perf_counter() - began
    for result in results:
        result.seconds = elapsed
    results[0].scalar_calls = V.STATS["scalar"] - scalar_before
    return results


# ---------------------------------------------------------------------------
# State (resumption) and shards
# ---------------------------------------------------------------------------


def load_state(path: str | os.PathLike | None = None) -> list[dict[str, Any]]:
    """Every record of the state file (none if it does not exist)."""
    path = Path(path or DEFAULT_STATE)
    if not path.exists():
        return []
    records = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line:
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:  # a line cut by an interrupted writer
                continue
    return records


def _append(path: Path, records: Iterable[ShardResult]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(asdict(r), separators=(",", ":")) + "\n" for r in records)
    # one O_APPEND write per shard: concurrent pytest-xdist workers do not interleave lines
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _recorded(
    records: list[dict[str, Any]], backend: str, plan: str, start: int, stop: int, budget: int
) -> dict[str, Any] | None:
    for record in reversed(records):
        if (
            record.get("backend") == backend
            and record.get("plan") == plan
            and record.get("start") == start
            and record.get("stop") == stop
            and record.get("ulp_budget", 0) == budget
            and record.get("role", "checked") == "checked"
        ):
            return record
    return None


def run_shard(
    backend: str,
    plan: str,
    shard: int,
    shards: int = DEFAULT_SHARDS,
    *,
    ulp_budget: int = 0,
    state: str | os.PathLike | None = None,
    fresh: bool = False,
    also: Iterable[str] = (),
    progress: Callable[[int], None] | None = None,
) -> tuple[ShardResult, bool]:
    """Check shard *shard* of *shards* of *plan*; (result, resumed).

    With a *state* path, a shard already recorded there for the same backend,
    plan, range and budget is not run again (``resumed`` True) unless *fresh*;
    a shard that is run is appended to the state file.
    """
    start, stop = shard_range(shard, shards)
    path = Path(state) if state else None
    if path is not None and not fresh:
        record = _recorded(load_state(path), backend, plan, start, stop, ulp_budget)
        if record is not None:
            fields = {k: v for k, v in record.items() if k in ShardResult.__dataclass_fields__}
            if progress is not None:
                progress(stop - start)
            return ShardResult(**fields), True
    results = check_range(
        backend, plan, start, stop, ulp_budget=ulp_budget, also=also, progress=progress
    )
    for r in results:
        r.shard, r.shards = shard, shards
    if path is not None:
        _append(path, results)
    return results[0], False


# ---------------------------------------------------------------------------
# Summaries and accuracy tables
# ---------------------------------------------------------------------------


@dataclass
class PlanSummary:
    backend: str
    plan: str
    inputs: int
    covered: int  #: distinct inputs covered by the recorded ranges
    non_conforming: int
    not_correctly_rounded: int
    nan_mismatches: int
    max_ulp: int
    worst: list[int | None] | None
    offenders: list[list[int | None]]
    ulp_budget: int
    shards: int
    seconds: float

    @property
    def complete(self) -> bool:
        return self.covered == TOTAL


def summarise(
    records: Iterable[dict[str, Any]], backend: str, role: str | None = None
) -> list[PlanSummary]:
    """Aggregate the latest record of every range, per plan, for *backend*."""
    latest: dict[tuple[str, int, int], dict[str, Any]] = {}
    for record in records:
        if record.get("backend") != backend:
            continue
        if role is not None and record.get("role", "checked") != role:
            continue
        latest[(record["plan"], record["start"], record["stop"])] = record
    plans: dict[str, list[dict[str, Any]]] = {}
    for (plan, _, _), record in latest.items():
        plans.setdefault(plan, []).append(record)
    out = []
    order = {p: i for i, p in enumerate(plan_ids())}
    for plan in sorted(plans, key=lambda p: order.get(p, len(order))):
        rows = sorted(plans[plan], key=lambda r: r["start"])
        covered, reach = 0, 0
        for r in rows:  # union of the recorded ranges
            lo, hi = max(r["start"], reach), r["stop"]
            if hi > lo:
                covered += hi - lo
                reach = hi
        worst = None
        peak = -1
        offenders: list[list[int | None]] = []
        for r in rows:
            if r.get("worst") and r["max_ulp"] > peak:
                peak, worst = r["max_ulp"], r["worst"]
            offenders.extend(r.get("offenders", []))
        out.append(
            PlanSummary(
                backend=backend,
                plan=plan,
                inputs=sum(r["inputs"] for r in rows),
                covered=covered,
                non_conforming=sum(r["non_conforming"] for r in rows),
                not_correctly_rounded=sum(r["not_correctly_rounded"] for r in rows),
                nan_mismatches=sum(r.get("nan_mismatches", 0) for r in rows),
                max_ulp=max((r["max_ulp"] for r in rows), default=0),
                worst=worst,
                offenders=offenders[:KEEP],
                ulp_budget=max((r.get("ulp_budget", 0) for r in rows), default=0),
                shards=len(rows),
                seconds=sum(r.get("seconds", 0.0) for r in rows),
            )
        )
    return out


def accuracy_table(summaries: list[PlanSummary]) -> tuple[str, list[dict[str, Any]]]:
    """(Markdown, JSON rows) of per-plan max ULP and non-correctly-rounded counts."""
    header = (
        "| plan | inputs checked | coverage | max ULP | not correctly rounded | "
        "NaN mismatches | non-conforming | worst input |\n"
        "|---|---:|---:|---:|---:|---:|---:|---|\n"
    )
    lines, rows = [], []
    for s in summaries:
        coverage = "all 2**32" if s.complete else f"{100 * s.covered / TOTAL:.2f}%"
        worst = "-"
        if s.worst is not None and s.max_ulp > 0:
            _, dtype = _split(s.plan)
            worst = f"0x{s.worst[0]:08X}"
            if dtype == "Float32":
                worst += f" ({from_bits(s.worst[0]):.9g})"
        lines.append(
            f"| {s.plan} | {s.inputs:,} | {coverage} | {s.max_ulp} | "
            f"{s.not_correctly_rounded:,} | {s.nan_mismatches:,} | {s.non_conforming:,} | "
            f"{worst} |"
        )
        rows.append(
            {
                "plan": s.plan,
                "inputs": s.inputs,
                "covered": s.covered,
                "complete": s.complete,
                "max_ulp": s.max_ulp,
                "not_correctly_rounded": s.not_correctly_rounded,
                "nan_mismatches": s.nan_mismatches,
                "non_conforming": s.non_conforming,
                "ulp_budget": s.ulp_budget,
                "worst": s.worst,
                "offenders": s.offenders,
                "seconds": round(s.seconds, 2),
            }
        )
    return header + "\n".join(lines) + "\n", rows


# ---------------------------------------------------------------------------
# The command line (``plancheck exhaustive``)
# ---------------------------------------------------------------------------


class Progress:
    """A one-line progress bar on stderr (a line per update when not a terminal)."""

    def __init__(self, label: str, total: int, stream=None, enabled: bool = True) -> None:
        self.label, self.total, self.done = label, total, 0
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.began = time.perf_counter()
        self.last = 0.0
        self.tty = getattr(self.stream, "isatty", lambda: False)()

    def __call__(self, count: int) -> None:
        self.done += count
        now = time.perf_counter()
        if not self.enabled or (
            now - self.last < (0.2 if self.tty else 10.0) and self.done < self.total
        ):
            return
        self.last = now
        elapsed = now - self.began
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate else 0.0
        width = 30
        filled = int(width * self.done / self.total) if self.total else width
        bar = "#" * filled + "." * (width - filled)
        text = (
            f"{self.label} [{bar}] {100 * self.done / self.total:5.1f}% "
            f"{self.done:.3e}/{self.total:.3e} {rate / 1e6:6.1f} M/s ETA {eta:5.0f} s"
        )
        self.stream.write(("\r" + text) if self.tty else text + "\n")
        if self.tty and self.done >= self.total:
            self.stream.write("\n")
        self.stream.flush()


def add_arguments(parser) -> None:
    """The options of ``plancheck exhaustive``."""
    parser.add_argument("--backend", default="cpu", help="cpu, generic, numpy-float32, module:attr")
    parser.add_argument("--op", default="all", help="a unary operation, a comma list, or all")
    parser.add_argument(
        "--dtype",
        choices=["Float32", "Int32", "both"],
        default="both",
        help="input dtype (Int32 only for the activations)",
    )
    parser.add_argument("--shard", help="run only shard I/N (default: every shard)")
    parser.add_argument(
        "--shards",
        type=int,
        default=None,
        help=f"shard count N (default {DEFAULT_SHARDS}; with --sample K, 512 K: one "
        "2**23/K slice of every binade)",
    )
    parser.add_argument(
        "--sample", type=int, default=1, help="K: only every K-th shard (a 1/K stratified sample)"
    )
    parser.add_argument("--ulp-budget", type=int, default=0, help="ULP budget, rounded ops")
    parser.add_argument("--state", default=str(DEFAULT_STATE), help="state file (resumption)")
    parser.add_argument("--fresh", action="store_true", help="ignore recorded shards")
    parser.add_argument(
        "--also", default="", help="backends measured alongside, e.g. numpy-float32"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="N > 1: run the shards as pytest items on N xdist workers",
    )
    parser.add_argument(
        "--naive-sample",
        type=int,
        default=0,
        help="also time the scalar MPFR oracle on this many inputs",
    )
    parser.add_argument(
        "--table",
        action="store_true",
        help="only print the accuracy table of --backend from the state",
    )
    parser.add_argument(
        "--certification",
        action="store_true",
        help="only print the certification table of --backend (beside the --also "
        "backends' accuracy) from the state",
    )
    parser.add_argument("--markdown", help="write the accuracy table (Markdown) here")
    parser.add_argument("--json", help="write the accuracy table (JSON) here")
    parser.add_argument("--no-progress", action="store_true")


def _selected_plans(arguments) -> list[str]:
    ops = None if arguments.op == "all" else [o.strip() for o in arguments.op.split(",") if o]
    plans = plan_ids(ops, int32=arguments.dtype != "Float32")
    if arguments.dtype == "Int32":
        plans = [p for p in plans if p.endswith(":Int32")]
    return plans


def naive_rate(op: str, count: int, seed: int = 0) -> float:
    """Inputs per second of the scalar oracle (MPFR per element) on random patterns."""
    from oracle.reference import exact, rounded

    rule = rounded.UNARY.get(op) or getattr(exact, op)
    patterns = np.random.default_rng(seed).integers(0, TOTAL, count, dtype=np.uint64)
    values = patterns.astype(np.uint32).view(np.float32).astype(np.float64).tolist()
    began = time.perf_counter()
    for v in values:
        rule(v)
    return count / (time.perf_counter() - began)


def main(arguments) -> int:
    """``plancheck exhaustive``: 0 when every selected plan conforms, 1 otherwise."""
    try:
        plans = _selected_plans(arguments)
        selected = parse_shard(arguments.shard) if arguments.shard else None
    except (KeyError, ValueError) as error:
        print(f"plancheck exhaustive: {error}", file=sys.stderr)
        return 2
    also = [a for a in arguments.also.split(",") if a]
    if arguments.certification:
        records = load_state(arguments.state)
        summaries = {
            name: {x.plan: x for x in summarise(records, name)}
            for name in [arguments.backend, *also]
        }
        text = certification_table(plans, summaries, arguments.backend, also)
        print(text, end="")
        return 0 if summaries[arguments.backend] else 1
    if arguments.table:
        return _tables(arguments, plans)
    count = selected[1] if selected else default_shards(arguments.shards, arguments.sample)
    indices = [selected[0]] if selected else sampled_shards(count, arguments.sample)
    if arguments.jobs > 1:
        status = _pytest(arguments, plans, count, also)
        if status not in (0, 1):
            return status
    else:
        for plan in plans:
            total = sum(shard_range(i, count)[1] - shard_range(i, count)[0] for i in indices)
            bar = Progress(f"{arguments.backend} {plan}", total, enabled=not arguments.no_progress)
            for i in indices:
                run_shard(
                    arguments.backend,
                    plan,
                    i,
                    count,
                    ulp_budget=arguments.ulp_budget,
                    state=arguments.state,
                    fresh=arguments.fresh,
                    also=also,
                    progress=bar,
                )
    ranges = {shard_range(i, count) for i in indices}
    records = [
        r
        for r in load_state(arguments.state)
        if (r["start"], r["stop"]) in ranges and r.get("ulp_budget", 0) == arguments.ulp_budget
    ]
    ok = True
    for summary in summarise(records, arguments.backend, role="checked"):
        if summary.plan not in plans:
            continue
        ok &= summary.non_conforming == 0
        coverage = (
            "all 2**32 inputs"
            if summary.complete
            else (f"{summary.covered:,} inputs ({100 * summary.covered / TOTAL:.2f}%)")
        )
        verdict = "CERTIFIED" if summary.non_conforming == 0 else "NON-CONFORMING"
        print(
            f"{verdict}: {arguments.backend} {summary.plan} over {coverage}: "
            f"{summary.inputs:,} checked, {summary.non_conforming:,} non-conforming "
            f"(budget {summary.ulp_budget} ULP), {summary.not_correctly_rounded:,} not "
            f"correctly rounded, max {summary.max_ulp} ULP, {summary.seconds:.1f} s"
        )
        for item in summary.offenders:
            print("  " + _offender(summary.plan, item))
    if arguments.naive_sample:
        for plan in plans:
            op, _ = _split(plan)
            rate = naive_rate(op, arguments.naive_sample)
            print(
                f"naive scalar MPFR oracle, {op}: {rate:,.0f} inputs/s "
                f"({TOTAL / rate / 3600:.1f} h for 2**32 on one core)"
            )
    return 0 if ok else 1


def _pytest(arguments, plans: list[str], count: int, also: list[str]) -> int:
    sweep = Path(__file__).resolve().parents[1] / "tests" / "test_exhaustive_sweep.py"
    if not sweep.exists():
        print(f"plancheck exhaustive --jobs needs the test suite ({sweep})", file=sys.stderr)
        return 2
    import subprocess

    env = dict(os.environ)
    env.update(
        PLANCHECK_EXHAUSTIVE_BACKEND=arguments.backend,
        PLANCHECK_EXHAUSTIVE_PLANS=",".join(plans),
        PLANCHECK_EXHAUSTIVE_SHARDS=str(count),
        PLANCHECK_EXHAUSTIVE_STATE=str(Path(arguments.state).resolve()),
        PLANCHECK_EXHAUSTIVE_ULP_BUDGET=str(arguments.ulp_budget),
        PLANCHECK_EXHAUSTIVE_ALSO=",".join(also),
        PLANCHECK_EXHAUSTIVE_FRESH="1" if arguments.fresh else "",
        PLANCHECK_EXHAUSTIVE_SAMPLE=str(arguments.sample),
    )
    command = [
        sys.executable,
        "-m",
        "pytest",
        str(sweep),
        "-m",
        "exhaustive",
        "-q",
        "-n",
        str(arguments.jobs),
        "-p",
        "no:cacheprovider",
    ]
    if arguments.shard:
        index = parse_shard(arguments.shard)[0]
        command += ["-k", f"s{index:03d}of{count:03d}"]
    return subprocess.call(command, env=env, cwd=sweep.parents[1])


def certification_table(
    plans: list[str],
    summaries: dict[str, dict[str, PlanSummary]],
    backend: str,
    also: list[str],
) -> str:
    """Markdown: per plan, the coverage and verdict of *backend*, and the accuracy
    (max ULP, share not correctly rounded) of every *also* backend beside it."""
    head = "| plan | coverage | inputs checked | " + backend + ": non-conforming | max ULP |"
    rule = "|---|---|---:|---:|---:|"
    for name in also:
        head += f" {name}: max ULP | {name}: not correctly rounded |"
        rule += "---:|---:|"
    lines = [head, rule]
    for plan in plans:
        s = summaries[backend].get(plan)
        if s is None:
            lines.append(f"| {plan} | not run | | | |" + " | |" * len(also))
            continue
        coverage = "**all 2**32**" if s.complete else f"sample, {100 * s.covered / TOTAL:.2f}%"
        row = f"| {plan} | {coverage} | {s.inputs:,} | {s.non_conforming:,} | {s.max_ulp} |"
        for name in also:
            m = summaries[name].get(plan)
            if m is None:
                row += " n/a | n/a |"
            else:
                share = 100 * m.not_correctly_rounded / m.inputs if m.inputs else 0.0
                row += f" {m.max_ulp} | {m.not_correctly_rounded:,} ({share:.3g}%) |"
        lines.append(row)
    return "\n".join(lines) + "\n"


def _tables(arguments, plans: list[str]) -> int:
    summaries = [
        s for s in summarise(load_state(arguments.state), arguments.backend) if s.plan in plans
    ]
    markdown, rows = accuracy_table(summaries)
    print(markdown, end="")
    if arguments.markdown:
        complete = sum(s.complete for s in summaries)
        heading = (
            f"# Accuracy of `{arguments.backend}` over the exhaustive sweep\n\n"
            f"Generated by `plancheck exhaustive --backend {arguments.backend} --table` from "
            f"the sweep's state file.  Per plan: inputs checked, coverage (all 2**32 "
            f"inputs, or the stratified sample's share), the largest ULP error, how many "
            f"results are not correctly rounded (a NaN for a NaN counts as correct unless the "
            f"operation copies NaN bits), how many have the wrong NaN-ness, and how many are "
            f"non-conforming under the budget used.  The reference is the certified oracle "
            f"(`oracle/vectorised.py`, docs/exhaustive.md).  {complete} of "
            f"{len(summaries)} plans are covered in full.\n\n"
        )
        Path(arguments.markdown).write_text(heading + markdown)
    if arguments.json:
        document = {"backend": arguments.backend, "plans": rows}
        Path(arguments.json).write_text(json.dumps(document, indent=1) + "\n")
    return 0 if summaries else 1
