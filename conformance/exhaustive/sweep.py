"""The exhaustive sweep's core: plans, shards, backends, the comparison, one range, one shard.

Exhaustive certification of unary plans: every one of the 2**32 inputs.

A *plan* here is one unary operation with one input dtype: ``exp:Float32``
(all 2**32 binary32 bit patterns, NaNs and both zeros included) or, for the
activations that accept Int32 tensors, ``exp:Int32`` (all 2**32 Int32 values,
converted to Float32 by the plan).  The reference is the vectorised certified
oracle :mod:`oracle.vectorised`.

Shards.  The 2**32 inputs are cut into ``N`` contiguous shards: shard ``i``
is ``[floor(i 2**32 / N), floor((i + 1) 2**32 / N))`` (:func:`shard_range`),
so consecutive shards touch, the first starts at 0 and the last ends at
2**32: every input is in exactly one shard (:func:`shard_of` finds it).  A
shard is the unit of work, of resumption (finished shards are recorded in a
state file, :mod:`conformance.exhaustive.state`, with the identity of the
backend build and of the plan's oracle that produced them; :func:`run_shard`
skips a shard already recorded by the same ones) and of parallelism:
:mod:`conformance.exhaustive.items` makes every (plan, shard) an ordinary
pytest item, so pytest-xdist spreads them over cores and, through its
gateways, over machines (:mod:`conformance.exhaustive.pytest_plugin`).

Int32 plans are decided range by range where the result is known
(:mod:`conformance.exhaustive.int32`): plateaus and identity tails are
compared with their constant (or the converted input) vectorised, and only
the few remaining inputs are evaluated.

Conformance.  Exact-class operations must match bit for bit (any NaN for a
NaN, except that neg and abs must copy the NaN's bits).  Correctly rounded
operations must match bit for bit too unless a ULP budget is granted; a
budget never applies to NaN, +-inf, +-0 or exact points
(:func:`oracle.vectorised.exact_points`).  Every shard also reports, budget or
not, how many results are not correctly rounded and the largest ULP error:
the accuracy table (:func:`accuracy_table`) of a backend is the aggregate of
its shards.

Backends are ``cpu``, ``generic``, ``module:attribute`` (through
:func:`backends.get` in the backend's host process:
:mod:`conformance.exhaustive.hosted`; this process never imports them), or
``numpy-float32``: the raw numpy float32 ufuncs (:func:`numpy_float32`),
measured for comparison, not a conforming backend.  The host's findings about
the backend's environment make a range non-conforming
(:attr:`ShardResult.environment`); the judge checks its own environment before
and after each range and records it (:func:`judge_environment`).
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from conformance.exhaustive.compare import (
    ShardResult,
    compare_chunk,
    count_mismatches,
    describe_offender,
    expected_chunk,
    ordinal,
    split_plan,
)
from conformance.exhaustive.hosted import (
    DEFAULT_TIMEOUT,
    HostCrashed,
    HostedRunner,
    HostLoadError,
    HostTimeout,
    hosted_runner,
)
from conformance.exhaustive.state import FORMAT, Store, current_key, is_current
from conformance.host import fpenv, malloc
from conformance.model.sanitize import terminal_line
from oracle import vectorised as V
from oracle.reference import exact, rounded

__all__ = [
    "DEFAULT_SHARDS",
    "DEFAULT_STATE",
    "DEFAULT_TIMEOUT",
    "NUMPY_MISSING",
    "TOTAL",
    "Interrupted",
    "JudgeEnvironmentError",
    "ShardResult",
    "check_range",
    "count_mismatches",
    "current_records",
    "default_shards",
    "describe_offender",
    "judge_environment",
    "load_state",
    "numpy_float32",
    "plan_ids",
    "run_shard",
    "runner",
    "sampled_shards",
    "shard_of",
    "shard_range",
    "split_plan",
    "stopped_by_host",
    "to_record",
]

TOTAL = 1 << 32
#: ``conformance.cli.plot``'s spelling of :func:`conformance.exhaustive.compare.ordinal`
_ordinal = ordinal
DEFAULT_SHARDS = 64
DEFAULT_STATE = Path(".plancheck") / "exhaustive.jsonl"
#: elements per backend call in a sweep
CHUNK = 1 << 20

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
        if op in V.NUMPY_UFUNCS:  # the oracle's name table
            return V.NUMPY_UFUNCS[op](x)
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


NUMPY_MISSING = ("erf", "gelu")


def runner(
    name: str, timeout: float | None = DEFAULT_TIMEOUT
) -> Callable[[str, np.ndarray], np.ndarray]:
    """``f(op, inputs) -> outputs`` for backend *name* (see the module docstring).

    ``numpy-float32`` runs here (plancheck's own numpy calls); any other name is a
    :class:`conformance.exhaustive.hosted.HostedRunner`: the backend is imported and
    run only in its host process, each call bounded by *timeout* seconds.
    """
    if name == "numpy-float32":
        return numpy_float32
    return hosted_runner(name, timeout)


# ---------------------------------------------------------------------------
# Checking one range
# ---------------------------------------------------------------------------


class Interrupted(BaseException):
    """SIGINT or SIGTERM reached a sweep that owns its signals (the command line)."""


#: True while the command line owns SIGINT/SIGTERM: a KeyboardInterrupt or
#: SystemExit raised inside a backend call is then a finding about that call
SIGNALS_OWNED = False


#: the longest backend error text a state record keeps
ERROR_TEXT_LIMIT = 400


class JudgeEnvironmentError(RuntimeError):
    """The judge's own floating-point environment is not standard: nothing is judged."""


def judge_environment() -> dict[str, Any]:
    """The judge's floating-point environment, checked (:func:`conformance.host.fpenv.probe`):
    round to nearest, gradual underflow (neither flush-to-zero nor denormals-are-zero),
    numpy's default error state.  :class:`JudgeEnvironmentError` when it is not so."""
    seen = fpenv.probe()
    problem = fpenv.judge_environment_problem(seen)
    if problem is not None:
        raise JudgeEnvironmentError(problem)
    return {
        "rounding": seen.rounding,
        "flush_to_zero": seen.flush_to_zero,
        "denormals_are_zero": seen.denormals_are_zero,
        "numpy_errors": dict(seen.numpy_errors),
    }


def _text(error: BaseException) -> str:
    """str(error), or a note when even that raises (a hostile exception)."""
    try:
        return str(error)
    except Exception:
        return "(its message could not be read)"


def _error_text(error: BaseException) -> str:
    """The state record's text of what a backend raised (escaped, bounded)."""
    if isinstance(error, Exception):
        return terminal_line(f"{type(error).__name__}: {_text(error)}", ERROR_TEXT_LIMIT)
    return terminal_line(
        f"{type(error).__name__} raised inside the call: {_text(error)}", ERROR_TEXT_LIMIT
    )


def _is_finding(error: BaseException) -> bool:
    """Whether *error* raised by a backend call is a finding about the call (not an
    interrupt of plancheck): any exception, and a KeyboardInterrupt or SystemExit that
    came from a host (rebuilt) or while the command line owns the signals."""
    if isinstance(error, Interrupted):
        return False
    return isinstance(error, Exception) or hasattr(error, "remote") or SIGNALS_OWNED


class _Call:
    """One backend's call on one chunk: started (a hosted backend computes from then on,
    while this process judges the chunk before), then finished: (output, None) or
    (None, the error's text)."""

    def __init__(self, run: Callable[[str, np.ndarray], np.ndarray], op: str,
                 dtype: type[np.generic], lo: int, hi: int) -> None:  # fmt: skip
        self.run, self.op = run, op
        self.elapsed = 0.0  #: an in-process call's wall time
        self.failure: BaseException | None = None
        if isinstance(run, HostedRunner):
            try:
                run.submit_range(op, dtype, lo, hi - lo)  # the host makes the patterns
            except (HostCrashed, HostTimeout, HostLoadError) as error:
                self.failure = error
        else:
            # the backend's own patterns: one that writes into its inputs changes nothing
            # the judge reads or another backend sees
            self.inputs = V.bit_patterns(lo, hi).view(dtype)

    def finish(self) -> tuple[Any, str | None]:
        try:
            if self.failure is not None:
                raise self.failure
            if isinstance(self.run, HostedRunner):
                return self.run.collect(), None
            began = time.perf_counter()
            try:
                return np.asarray(self.run(self.op, self.inputs)), None
            finally:
                self.elapsed = time.perf_counter() - began
        except (HostTimeout, HostCrashed, HostLoadError):
            raise
        except BaseException as error:
            if not _is_finding(error):
                raise
            return None, _error_text(error)

    @property
    def seconds(self) -> float:
        """The backend's time: the host's own measure, else the call's wall time."""
        if isinstance(self.run, HostedRunner):
            return self.run.seconds or 0.0
        return self.elapsed


#: how the error text of a range the backend's host stopped begins
HOST_FAILURES = ("hang: ", "crash: ")


def stopped_by_host(result: ShardResult) -> bool:
    """Whether *result*'s backend hung or its host died (no later shard is worth running)."""
    return (result.error or "").startswith(HOST_FAILURES)


def _host_failure(error: BaseException, count: int, timeout: float | None) -> str:
    if isinstance(error, HostTimeout):
        return (f"hang: the backend gave no result for {count:,} inputs within "
                f"{timeout:g} s (its host process was killed)")  # fmt: skip
    if isinstance(error, HostLoadError):
        return f"crash: the backend could not be loaded again: {_text(error)}"
    return f"crash: {_text(error)}"


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
    plateaus: bool = True,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> list[ShardResult]:
    """Check every input ``start <= b < stop`` of *plan* on *backend* (and *also*).

    *backend* is a name (run in its host process: :func:`runner`) or a callable
    ``f(op, inputs)`` (run here).  Returns one :class:`ShardResult` per backend, the
    first for *backend* (role "checked"), then one per *also* name (role "measured").
    A backend that raises on a chunk makes every input of the chunk non-conforming,
    with the error recorded.  A hosted backend that gives no result within *timeout*
    seconds (``hang``) or whose host dies (``crash``) is not called again in the
    range: its remaining inputs count as non-conforming under that error.  The
    environment findings of its host are kept in :attr:`ShardResult.environment`.
    *plateaus* False evaluates every Int32 input (the baseline the benchmark compares
    with).  :class:`JudgeEnvironmentError` when this process's own environment is not
    standard (checked before and after the range, recorded in every result).
    """
    judged_in = judge_environment()
    malloc.keep_freed_memory()  # this process allocates a chunk's arrays 4,096 times
    malloc.freeze_long_lived()  # and the collector not to walk the imports again
    op, dtype = split_plan(plan)
    names = [backend if isinstance(backend, str) else getattr(backend, "__name__", "custom")]
    runs = [runner(backend, timeout) if isinstance(backend, str) else backend]
    for name in also:
        if name == "numpy-float32" and op in NUMPY_MISSING:
            continue
        names.append(name)
        runs.append(runner(name, timeout))
    results = [
        ShardResult(name, plan, start, stop, ulp_budget=ulp_budget if i == 0 else 0)
        for i, name in enumerate(names)
    ]
    for r in results[1:]:
        r.role = "measured"
    rounded = op in V.ROUNDED_OPS
    input_dtype = np.float32 if dtype == "Float32" else np.int32
    stopped = [False] * len(runs)

    def begin(lo: int) -> tuple[int, int, list[_Call | None]]:
        """Start the calls of the chunk at *lo* (hosted backends start computing)."""
        hi = min(lo + chunk, stop)
        calls = [None if done else _Call(run, op, input_dtype, lo, hi)
                 for run, done in zip(runs, stopped)]  # fmt: skip
        return lo, hi, calls

    scalar_before = V.STATS["scalar"]
    began = time.perf_counter()
    starts = range(start, stop, chunk)
    following = begin(start) if starts else None
    for index in range(len(starts)):
        assert following is not None
        lo, hi, calls = following
        # the next chunk starts in the hosts now: they work while this one is judged
        following = begin(starts[index + 1]) if index + 1 < len(starts) else None
        t0 = time.perf_counter()
        expected, float_at = expected_chunk(op, dtype, lo, hi, plateaus)
        results[0].oracle_seconds += time.perf_counter() - t0
        for i, (call, result) in enumerate(zip(calls, results)):
            if call is None or stopped[i]:
                continue
            try:
                actual, error = call.finish()
            except (HostTimeout, HostCrashed, HostLoadError) as failure:
                result.error = result.error or _host_failure(failure, hi - lo, timeout)
                result.inputs += stop - lo
                result.non_conforming += stop - lo
                result.not_correctly_rounded += stop - lo
                stopped[i] = True
                continue
            if error is not None:  # the backend raised: non-conforming on the whole chunk
                result.error = result.error or error
                result.inputs += hi - lo
                result.non_conforming += hi - lo
                result.not_correctly_rounded += hi - lo
                continue
            if i == 0:
                result.backend_seconds += call.seconds
            compare_chunk(op, dtype, lo, float_at, expected, actual,
                          result.ulp_budget, result, rounded)  # fmt: skip
        if progress is not None:
            progress(hi - lo)
        if all(stopped):
            break
    judge_environment()  # the same check after the range: still standard
    elapsed = time.perf_counter() - began
    for run, result in zip(runs, results):
        result.seconds = elapsed
        result.environment = sorted(getattr(run, "environment", ()))
        result.judge_environment = judged_in
    results[0].scalar_calls = V.STATS["scalar"] - scalar_before
    return results


# ---------------------------------------------------------------------------
# State (resumption) and shards
# ---------------------------------------------------------------------------


def load_state(path: str | os.PathLike | None = None) -> list[dict[str, Any]]:
    """Every record of the state file (none if it does not exist).

    :class:`conformance.exhaustive.state.StateError` when a line is damaged
    or foreign; records of other backend builds or oracles are included
    (:func:`current_records` keeps the ones that count now).
    """
    return Store(path or DEFAULT_STATE).load()


def to_record(result: ShardResult, key: dict[str, str] | None = None) -> dict[str, Any]:
    """The state-file record of *result*, stamped with the identity that produced it."""
    worker = os.environ.get("PYTEST_XDIST_WORKER") or f"pid {os.getpid()}"
    return {
        "format": FORMAT,
        **(key or current_key(result.backend, result.plan)),
        **asdict(result),
        "worker": f"{socket.gethostname()} {worker}",
    }


def current_records(records: Iterable[dict[str, Any]], backend: str) -> list[dict[str, Any]]:
    """The records of *backend* made by its current build, plancheck and its plan's oracle."""
    return [r for r in records if r["backend"] == backend and is_current(r)]


def _recorded(
    records: list[dict[str, Any]], key: dict[str, str], plan: str, start: int, stop: int,
    budget: int,
) -> dict[str, Any] | None:  # fmt: skip
    for record in reversed(records):
        if (
            record["plan"] == plan
            and record["start"] == start
            and record["stop"] == stop
            and record["ulp_budget"] == budget
            and record["role"] == "checked"
            and all(record[name] == value for name, value in key.items())
        ):
            return record
    return None


def _from_record(record: dict[str, Any]) -> ShardResult:
    return ShardResult(**{k: v for k, v in record.items() if k in ShardResult.__dataclass_fields__})


def recorded_shard(
    store: Store, backend: str, plan: str, shard: int, shards: int, ulp_budget: int = 0
) -> ShardResult | None:
    """The current record of one shard in *store*, if there is one."""
    start, stop = shard_range(shard, shards)
    record = _recorded(store.load(), current_key(backend, plan), plan, start, stop, ulp_budget)
    return None if record is None else _from_record(record)


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
    record: bool = True,
    plateaus: bool = True,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> tuple[ShardResult, bool, list[dict[str, Any]]]:
    """Check shard *shard* of *shards* of *plan*: (result, resumed, records).

    With a *state* path, a shard already recorded there for the same backend
    build, plancheck version, oracle, plan, range and budget is not run
    again (``resumed`` True) unless *fresh*.  A shard that is run yields one
    record per backend (*records*); they are appended to the state file
    unless *record* is False (the pytest controller then appends them).
    *plateaus* False evaluates every Int32 input; *timeout* bounds each backend call
    (:func:`check_range`).
    """
    start, stop = shard_range(shard, shards)
    store = Store(state) if state else None
    if store is not None and not fresh:
        found = recorded_shard(store, backend, plan, shard, shards, ulp_budget)
        if found is not None:
            if progress is not None:
                progress(stop - start)
            return found, True, []
    results = check_range(
        backend, plan, start, stop, ulp_budget=ulp_budget, also=also, progress=progress,
        plateaus=plateaus, timeout=timeout,
    )  # fmt: skip
    for r in results:
        r.shard, r.shards = shard, shards
    records = [to_record(r) for r in results]
    if store is not None and record:
        store.append(records)
    return results[0], False, records


def naive_rate(op: str, count: int, seed: int = 0) -> float:
    """Inputs per second of the scalar oracle (MPFR per element) on random patterns."""
    rule = rounded.UNARY.get(op) or getattr(exact, op)
    patterns = np.random.default_rng(seed).integers(0, TOTAL, count, dtype=np.uint64)
    values = patterns.astype(np.uint32).view(np.float32).astype(np.float64).tolist()
    began = time.perf_counter()
    for v in values:
        rule(v)
    return count / (time.perf_counter() - began)
