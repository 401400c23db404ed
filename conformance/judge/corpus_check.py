"""The corpus check of the suite: the TestFloat-style corpus, vectorised, per plan.

:func:`check_corpus_plan` runs the corpus of :mod:`conformance.generate.corpus` for a
Float32 elementwise plan in chunks of :data:`CORPUS_CHUNK` cases, narrows a
failing chunk to its failing cases and records one deviation class per kind
of fault (and the hygiene of each chunk: warnings, modified inputs).  The
oracle's results are computed once per plan and level and kept in memory and,
for :data:`CACHED_LEVELS`, on disk: a cache file is believed only when its
content hash matches (:func:`_content_digest`).  :mod:`conformance.suite`
runs it as the ``corpus`` check.
"""

from __future__ import annotations

import functools
import hashlib
import os
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gmpy2
import mpmath
import numpy as np

import oracle
from backends.errors import NotMeasured
from conformance.findings.authority import reported_class
from conformance.findings.failure import failure_report
from conformance.findings.finding import Finding, element_class, findings_of
from conformance.generate import corpus as corpus_module
from conformance.host.client import BackendHost, HostTimeout
from conformance.host.wire import decode_tensor, rebuild_exception
from conformance.judge.checker import Checker, HungCall, host_findings
from conformance.judge.runner import (
    CallTimeout,
    OracleError,
    Outcome,
    Problem,
    call_with_timeout,
    expectation_of,
    ieee_warnings,
    input_snapshot,
    is_real_interrupt,
    wire_arguments,
)
from conformance.model.calls import Call, forward_arguments
from conformance.model.sanitize import terminal_text
from oracle import DType, OperationPlan, Tensor, Verdict, binary32

# -- the corpus -------------------------------------------------------------------


#: corpus levels whose oracle results are kept in the on-disk cache (level 2 is ~30 MB a plan)
CACHED_LEVELS = (1,)


@functools.cache
def _oracle_digest() -> str:
    """A hash of everything the corpus reference depends on (sources and library versions)."""

    digest = hashlib.sha256()
    root = Path(oracle.__file__).parent
    for path in sorted([*root.rglob("*.py"), Path(corpus_module.__file__)]):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    for version in (np.__version__, gmpy2.version(), mpmath.__version__):
        digest.update(str(version).encode())
    return digest.hexdigest()[:20]


def _cache_file(cache_dir: Any, plan: OperationPlan, level: int) -> Any:

    name = hashlib.sha256(f"{plan.describe()} level {level}".encode()).hexdigest()[:16]
    return Path(cache_dir) / f"{_oracle_digest()}-{name}.npz"


def _content_digest(
    plan: OperationPlan, level: int, expected: np.ndarray, exact: np.ndarray | None
) -> str:
    """The SHA-256 of a cache entry's arrays, tied to its plan, level and oracle digest.

    It detects damage and edits of the file (a changed bit, a truncated array,
    an entry copied from another plan); it is not a signature against someone
    who recomputes it on purpose.
    """

    digest = hashlib.sha256(f"{_oracle_digest()} {plan.describe()} level {level}".encode())
    digest.update(np.ascontiguousarray(expected, dtype=np.float32).view(np.uint32).tobytes())
    if exact is not None:
        digest.update(b"exact")
        digest.update(np.ascontiguousarray(exact, dtype=bool).tobytes())
    return digest.hexdigest()


#: corpus cases per backend call
CORPUS_CHUNK = 4096


def _float32_tensor(array: np.ndarray) -> Tensor:
    """A 1-D Float32 Tensor of a float32 array, without per-element validation.

    Every element of a float32 array is a binary32 value, and ``tolist()``
    widens each exactly, so the checks of ``Tensor()`` cannot fail here; they
    would cost more than the backend call itself on the corpus.
    """
    tensor = object.__new__(Tensor)
    object.__setattr__(tensor, "dtype", DType.Float32)
    object.__setattr__(tensor, "shape", (len(array),))
    object.__setattr__(tensor, "values", tuple(array.tolist()))
    return tensor


def _to_array(tensor: Tensor) -> np.ndarray:
    """A Float32 or Bool tensor's values as a flat numpy array, bit for bit.

    The float64 -> float32 cast is exact for binary32 values and keeps NaN
    signs and payloads (a Tensor holds binary32 NaNs widened exactly).
    """
    if tensor.dtype is DType.Float32:
        return np.asarray(tensor.values, dtype=np.float64).astype(np.float32)
    if tensor.dtype is DType.Bool:
        return np.asarray(tensor.values, dtype=np.bool_)
    return tensor.to_numpy().reshape(-1)


def _corpus_calls(plan: OperationPlan, level: int) -> Any:
    """The corpus of *plan* as calls on 1-D tensors of :data:`CORPUS_CHUNK` cases
    (:func:`conformance.generate.corpus.corpus_calls`, built without re-validating values)."""

    operands = corpus_module.level_operands(level, len(plan.operands))
    total = len(operands[0])
    for start in range(0, total, CORPUS_CHUNK):
        tensors = [_float32_tensor(o[start : start + CORPUS_CHUNK]) for o in operands]
        yield Call(
            plan.operation,
            forward_arguments(plan.operation, tensors),
            None,
            plan,
            note=f"corpus level {level} cases {start}..{start + tensors[0].size - 1}",
        )


@functools.lru_cache(maxsize=2)
def _cached_chunks(plan: OperationPlan, level: int) -> tuple[Call, ...]:
    return tuple(_corpus_calls(plan, level))


def _chunks(plan: OperationPlan, level: int) -> Any:
    """The corpus as calls (kept in memory for level 1 only)."""
    if level in CACHED_LEVELS:
        return _cached_chunks(plan, level)
    return _corpus_calls(plan, level)


def _compute_reference(plan: OperationPlan, level: int) -> tuple[np.ndarray, np.ndarray | None]:
    values, exact = [], []
    for call in _chunks(plan, level):
        try:
            expectation = expectation_of(call)
        except Exception as error:
            raise OracleError(call, error) from error
        if expectation.result is None:
            raise OracleError(call, ValueError(f"no result expected: {expectation}"))
        values.append(_to_array(expectation.result))
        if expectation.exact_points is not None:
            exact.append(np.array(expectation.exact_points, dtype=bool))
    expected = np.concatenate(values)
    return expected, (np.concatenate(exact) if exact else None)


@functools.lru_cache(maxsize=4)
def _corpus_reference(
    plan: OperationPlan, level: int, cache_dir: str | None = None
) -> tuple[np.ndarray, np.ndarray | None]:
    """The oracle's results on the corpus (and its exact-point mask).

    Cached in memory and, for :data:`CACHED_LEVELS` when *cache_dir* is given
    (the plugin passes pytest's cache directory), on disk under a key that
    hashes the oracle's sources and library versions.  A file on disk is
    believed only when its arrays hash to the digest stored beside them
    (:func:`_content_digest`): a damaged, truncated or edited file is
    recomputed and rewritten, never used.
    """
    path = _cache_file(cache_dir, plan, level) if cache_dir and level in CACHED_LEVELS else None
    if path is not None and path.exists():
        try:
            with np.load(path, allow_pickle=False) as data:
                expected = data["expected"]
                exact = data["exact"] if "exact" in data.files else None
                stored = str(data["digest"])
            if (
                expected.dtype == np.float32
                and expected.size == corpus_module.case_count(level, len(plan.operands))
                and stored == _content_digest(plan, level, expected, exact)
            ):
                return expected, exact
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            pass  # a damaged entry: recompute it
    expected, exact = _compute_reference(plan, level)
    if path is not None:
        digest = np.array(_content_digest(plan, level, expected, exact))
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.npz")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if exact is None:
                np.savez(tmp, expected=expected, digest=digest)
            else:
                np.savez(tmp, expected=expected, exact=exact, digest=digest)
            os.replace(tmp, path)
        except OSError:
            pass  # the cache is an optimisation only
    return expected, exact


#: Lengths tried, shortest first, for a corpus case that conforms alone but not inside
#: its chunk: kernels switch to vector lanes and blocked loops by length, so the case
#: repeated to one of these lengths usually takes the path the chunk took.
BATCH_REPRO_LENGTHS = (8, 16, 32, 64, 128, 256, 1024)


def _repeated_case(plan: OperationPlan, bits: tuple[int, ...], length: int, note: str) -> Call:
    """The corpus case *bits*, every operand its value repeated *length* times."""
    tensors = [Tensor(DType.Float32, (length,), (binary32.from_bits(b),) * length) for b in bits]
    return Call(plan.operation, forward_arguments(plan.operation, tensors), None, plan, note=note)


def _single_case(plan: OperationPlan, bits: tuple[int, ...], note: str) -> Call:
    """The corpus case *bits* alone: one element an operand."""
    return _repeated_case(plan, bits, 1, note)


def _batched_failure(
    checker: Checker, bits: tuple[int, ...], cls: str, note: str
) -> Outcome | None:
    """The outcome of the shortest repetition of a corpus case (:data:`BATCH_REPRO_LENGTHS`)
    that shows element class *cls*, or None: the case fails only beside other cases."""
    for length in BATCH_REPRO_LENGTHS:
        call = _repeated_case(checker.plan, bits, length, f"{note}, repeated {length} times")
        outcome = checker.run(call)
        if not outcome.ok and any(f.cls == cls for f in findings_of(outcome)):
            return outcome
    return None


def _case_call(plan: OperationPlan, chunk: Call, index: int) -> Call:
    tensors = [a for a in chunk.args if isinstance(a, Tensor)]
    bits = tuple(t.bits()[index] for t in tensors)
    return _single_case(plan, bits, f"{chunk.note}, case {index}")


def _sub_chunk(chunk: Call, start: int, stop: int) -> Call:

    tensors = [_float32_tensor(_to_array(a)[start:stop]) for a in chunk.args]
    note = f"{chunk.note} (sub-range {start}..{stop - 1})"
    return Call(chunk.operation, forward_arguments(chunk.operation, tensors), None, chunk.plan,
                note=note)  # fmt: skip


#: (result Tensor, IEEE warnings, inputs modified, environment findings of the host)
Executed = tuple[Any, tuple[str, ...], bool, tuple[str, ...]]


def _execute_chunk(checker: Checker, chunk: Call) -> Executed:
    """Run a corpus chunk on the backend: (result Tensor, IEEE warnings, inputs modified,
    the environment findings its host observed around the call: none in-process).

    Exceptions (the backend's, or CallTimeout) propagate.
    """
    backend, plan = checker.backend, checker.plan
    if isinstance(backend, BackendHost):
        return _execute_hosted_chunk(checker, chunk)
    caught: list[Any] = []
    natives: list[Any] = []
    before: list[Any] = []

    def execute() -> Any:
        natives.extend(backend.from_tensor(a) for a in chunk.args)
        before.extend(input_snapshot(backend, n) for n in natives)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            try:
                return backend.to_tensor(backend.execute(plan.operation, *natives))
            finally:
                caught.extend(seen)

    if checker.inflight is not None:
        checker.inflight(checker.test, chunk)
    try:
        actual = call_with_timeout(execute, checker.timeout)
    finally:
        if checker.inflight is not None:
            checker.inflight(checker.test, None)
    modified = any(
        b is not None and input_snapshot(backend, n) != b for n, b in zip(natives, before)
    )
    return actual, ieee_warnings(caught), modified, ()


def _execute_hosted_chunk(checker: Checker, chunk: Call) -> Executed:
    """:func:`_execute_chunk` with the backend in its host: the backend's exception is
    re-raised here as rebuilt (:func:`conformance.host.wire.rebuild_exception`), a
    timeout as CallTimeout, a crash as :class:`conformance.host.client.HostCrashed`."""
    if checker.inflight is not None:
        checker.inflight(checker.test, chunk)
    try:
        reply = checker.backend.run(checker.plan.operation, wire_arguments(chunk.args), {},
                                    checker.timeout, tag=chunk)  # fmt: skip
    except HostTimeout as error:
        raise CallTimeout(str(error)) from None
    finally:
        if checker.inflight is not None:
            checker.inflight(checker.test, None)
    result = hosted_result(reply)
    found = tuple(dict.fromkeys(reply.get("warnings", ())))
    environment = tuple(reply.get("environment", ()))
    return result, found, bool(reply.get("modified")), environment


def hosted_result(reply: dict[str, Any]) -> Tensor:
    """The result Tensor of a host's *reply* to a corpus chunk: the backend's exception
    rebuilt and raised here, a result that is no Tensor as TypeError."""
    if reply["stage"] != "done":
        if "raised" in reply:
            raise rebuild_exception(reply["raised"])
        raise TypeError(f"to_tensor returned {reply.get('not_tensor')}, not a Tensor")
    return decode_tensor(reply["result"])


def _narrow(checker: Checker, chunk: Call, faulty: Callable[[Call], bool]) -> Call:
    """The single case of *chunk* that *faulty* holds for, by bisection (the chunk
    itself when the fault needs more than one case)."""
    size = chunk.args[0].size
    start, stop = 0, size
    while stop - start > 1:
        middle = (start + stop) // 2
        if faulty(_sub_chunk(chunk, start, middle)):
            stop = middle
        elif faulty(_sub_chunk(chunk, middle, stop)):
            start = middle
        else:
            return _sub_chunk(chunk, start, stop)
    return _case_call(checker.plan, chunk, start)


def _hygiene_of_chunk(checker: Checker, chunk: Call, executed: Executed) -> None:
    """Record the warning, input-modified and environment classes of a corpus chunk
    (*executed*: what :func:`_execute_chunk` returned for it), each judged like a single
    call on the smallest sub-range that shows it.  An environment finding the narrowed
    call does not show again (one that depends on the calls before it) is recorded from
    the chunk itself.  Environment classes already recorded for the plan are not
    narrowed again (a backend that flushes subnormals shows it on every chunk)."""
    actual, warned, modified, environment = executed
    plan = checker.plan.describe()
    environment = tuple(e for e in environment if (plan, e) not in checker.classes)
    executed = (actual, warned, modified, environment)

    def shows(position: int) -> Callable[[Call], bool]:
        def faulty(call: Call) -> bool:
            try:
                again = _execute_chunk(checker, call)
            except BaseException as error:  # judged like run_call judges it
                if isinstance(error, KeyboardInterrupt) and is_real_interrupt(error):
                    raise
                return False
            return bool(again[position])

        return faulty

    for position, present in ((1, warned), (2, modified), (3, environment)):
        if present:
            findings = checker.judge(_narrow(checker, chunk, shows(position)))
            if position == 3:
                _record_environment(checker, chunk, executed, findings)


def _record_environment(checker: Checker, chunk: Call, executed: Executed,
                        findings: list[Finding]) -> None:  # fmt: skip
    """Record the environment classes of *chunk* that *findings* (of its narrowed call)
    did not, with the chunk's own outcome as their example."""
    actual, _, _, environment = executed
    recorded = {f.cls for f in findings}
    missing = tuple(e for e in environment if e not in recorded)
    if not missing:
        return
    try:
        expectation = expectation_of(chunk)
    except Exception as error:
        raise OracleError(chunk, error) from error
    verdict = Verdict(False, f"{chunk.operation}: the call left {', '.join(missing)}")
    outcome = Outcome(chunk, expectation, verdict, actual, problem=Problem.ENVIRONMENT,
                      environment=missing)  # fmt: skip
    checker.record_findings(outcome, host_findings(outcome))


def _class_counts(checker: Checker) -> dict[Any, int]:
    return {key: entry["count"] for key, entry in checker.classes.items()}


def _attribute_chunk(checker: Checker, before: dict[Any, int], size: int) -> None:
    """A chunk of *size* cases that raised counts *size* failing corpus cases: the
    classes its probes recorded (:func:`_chunk_failed`) hold that many calls in all,
    the cases not probed one by one counted in the first class recorded (they went
    without a result just as its cases did), so a class's count and the run's
    failing calls agree."""
    grown = [
        (key, entry["count"] - before.get(key, 0))
        for key, entry in checker.classes.items()
        if entry["count"] > before.get(key, 0)
    ]
    rest = size - sum(n for _, n in grown)
    if grown and rest > 0:
        checker.classes[grown[0][0]]["count"] += rest


def _chunk_failed(checker: Checker, chunk: Call, limit: int = 64) -> Tensor | None:
    """A chunk the backend raised on (or timed out on): judge its first cases alone
    (recording their classes), and the chunk itself when none of them fails alone.

    Returns the chunk's result when that second run conforms (the first failure did
    not repeat), else None.
    """
    before = len(checker.classes)
    size = chunk.args[0].size
    # the probes are corpus cases, counted as such by the caller (corpus_failed), not
    # generated examples: the example counts are left as they were
    counts = checker.examples, checker.passed, checker.failed
    for index in range(min(limit, size)):
        checker.judge(_case_call(checker.plan, chunk, index))
    checker.examples, checker.passed, checker.failed = counts
    if len(checker.classes) != before:
        return None
    outcome = checker.run(chunk)
    if outcome.ok:
        return outcome.actual
    checker.record_findings(outcome, findings_of(outcome) + host_findings(outcome))
    if outcome.timed_out:
        raise HungCall(failure_report(outcome, checker.label, checker.test))
    return None


def _classify_cases(
    plan: OperationPlan,
    expected: np.ndarray,
    actual: np.ndarray,
    failing: np.ndarray,
    exact: np.ndarray | None = None,
) -> dict[str, tuple[list[int], int | None]]:
    """Element class -> (failing corpus case indices, largest ULP distance)
    (see conformance.findings.finding); a missed exact point (*exact*, the mask of
    exact points) is ``wrong-value:exact-point``."""

    by_class: dict[str, tuple[list[int], int | None]] = {}
    if expected.dtype == np.bool_:
        if failing.size:
            by_class["wrong-value:bool"] = (failing.tolist(), None)
        return by_class
    distance = binary32.ulp_distance_array(expected[failing], actual[failing])
    for index, e, a, d in zip(failing.tolist(), expected[failing].tolist(),
                              actual[failing].tolist(), distance.tolist()):  # fmt: skip
        ulp = None if d < 0 else int(d)
        element = element_class(float(e), float(a), ulp)
        if exact is not None and exact[index] and element in ("1-ulp", "many-ulps", "subnormal"):
            element = "exact-point"
        cls = reported_class("wrong-value:" + element, plan.operation, plan)
        indices, worst = by_class.get(cls, ([], None))
        if ulp and ulp > (worst or 0):
            # the worst case first: the class's example, the element its max ULP speaks of
            indices.insert(0, index)
        else:
            indices.append(index)
        by_class[cls] = (indices, worst if ulp is None else max(worst or 0, ulp))
    return by_class


def check_corpus_plan(checker: Checker) -> None:
    """The deterministic corpus of a Float32 elementwise plan, checked vectorised.

    Every failing case is classified (:func:`conformance.findings.finding.element_class`);
    each class is recorded with its case count and the first case of the class
    re-run alone as its example.  Chunks are also judged by the hygiene rules.
    """
    plan, level = checker.plan, checker.profile.corpus_level
    expected, exact = _corpus_reference(plan, level, checker.cache_dir)
    pieces = []
    start = 0
    raised_cases = unmeasured = 0
    for chunk in _chunks(plan, level):
        size = chunk.args[0].size
        if not checker.supports(chunk):
            pieces.append(expected[start : start + size])  # not judged: counted as such
            start += size
            continue
        try:
            executed = _execute_chunk(checker, chunk)
            actual = executed[0]
            if not isinstance(actual, Tensor) or actual.shape != chunk.args[0].shape:
                raise TypeError(f"not a result of the chunk's shape: {actual!r}"[:200])
            pieces.append(_to_array(actual))
        except BaseException as error:  # a backend's BaseException is judged, case by case
            if isinstance(error, KeyboardInterrupt) and is_real_interrupt(error):
                raise
            if isinstance(error, NotMeasured):  # the adapter's refusal: not the library's
                checker.not_measured[terminal_text(str(error), 300)] += size
                pieces.append(expected[start : start + size])
                unmeasured += size
                start += size
                continue
            counted = _class_counts(checker)
            again = _chunk_failed(checker, chunk)
            if again is not None:
                pieces.append(_to_array(again))
            else:
                pieces.append(expected[start : start + size])
                raised_cases += size
                _attribute_chunk(checker, counted, size)
            start += size
            continue
        if any(executed[1:]):
            _hygiene_of_chunk(checker, chunk, executed)
        start += size
    actual_all = np.concatenate(pieces) if pieces else np.zeros(0, np.float32)
    nan_bits = corpus_module._default_nan_bits(plan.operation)
    ok, distance = corpus_module.compare(
        expected, actual_all, nan_bits=nan_bits, ulp_budget=checker.ulp_budget, exact=exact
    )
    failing = np.flatnonzero(~ok)
    checker.corpus_cases += int(expected.size) - unmeasured
    checker.corpus_failed += int(failing.size) + raised_cases
    finite = distance[distance >= 0] if expected.dtype == np.float32 else np.zeros(0)
    checker.max_ulp = max(checker.max_ulp, int(finite.max()) if finite.size else 0)
    operands = corpus_module.level_operands(level, len(plan.operands))
    classified = _classify_cases(plan, expected, actual_all, failing, exact)
    for cls, (indices, worst) in classified.items():
        first = indices[0]
        bits = tuple(int(o[first : first + 1].view(np.uint32)[0]) for o in operands)
        call = _single_case(plan, bits, f"corpus level {level} case {first}")
        outcome = checker.run(call)
        # alone the value conforms when the run is ok or only the host saw something (the
        # backend's environment): that is recorded, and the batch's class looked for again
        value_conforms = outcome.ok or not findings_of(outcome)
        if not outcome.ok and value_conforms:
            checker.record_findings(outcome, host_findings(outcome))
        if value_conforms:  # the case repeated takes the batch's path
            batched = _batched_failure(checker, bits, cls, call.note)
            if batched is not None:
                outcome, call, value_conforms = batched, batched.call, False
        entry: dict[str, Any] | None
        if value_conforms:  # the backend fails only beside other cases: report the case itself
            report = failure_report(outcome, checker.label, checker.test)
            report.problem = "wrong value (only inside the corpus batch)"
            report.summary = f"corpus level {level} case {first} differs inside its batch"
            report.rule = "a case's result must not depend on the batch it is computed in"
            report.actual = f"0x{int(actual_all[first : first + 1].view(np.uint32)[0]):08X}"
            finding = Finding(plan.operation, plan.describe(), "wrong value", cls, "corpus")
            checker.record_findings(outcome, [finding])
            entry = checker.classes[(plan.describe(), cls)]
            entry["example"] = report
        else:
            findings = [f for f in findings_of(outcome) if f.cls == cls] or findings_of(outcome)
            checker.record_findings(outcome, findings + host_findings(outcome))
            entry = checker.classes.get((plan.describe(), findings[0].cls))
        if entry is not None:
            entry["count"] += len(indices) - 1
            if worst is not None:
                entry["max_ulp"] = max(entry["max_ulp"] or 0, worst)
        checker.killing_call = checker.killing_call or call
    checker.raise_findings()
