"""Checks every adapter test of an outside library makes (array-api-strict, mlx).

Each function asserts one fact about a backend made by ``backends.get`` and is
called by the library's own test module, which skips when the library is
absent; the library-specific facts stay in that module.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from backends.errors import NotMeasured
from conformance.cli import backends_command
from conformance.generate.strategies import boundary_examples
from conformance.judge.runner import Problem, run_call
from conformance.report import call_from_json
from oracle import DType, Tensor, resolvable_plans

ROOT = Path(__file__).resolve().parents[1]

#: bit patterns an exchange must keep: zeros, subnormals, a signalling NaN, payloads
PATTERNS = (0, 0x80000000, 1, 0x807FFFFF, 0x7F800001, 0xFFA00000, 0x7FC00001, 0x3F800000)


def listed_as_installed(name: str) -> None:
    """``plancheck backends`` lists *name* as installed (no install hint)."""
    row = next(r for r in backends_command.rows() if r["name"] == name)
    assert row["installed"] and row["install"] is None


def refused_after_planning(backend: Any, operation: str, message: str) -> None:
    """*operation* raises NotMeasured (the adapter has no mapping: not a class of the
    library) matching *message* on a valid call of its first plan, and allocates nothing."""
    plan = next(p for p in resolvable_plans() if p.operation == operation)
    call = next(iter(boundary_examples(plan)))
    natives = [backend.from_tensor(a) if isinstance(a, Tensor) else a for a in call.args]
    before = backend.allocations
    with pytest.raises(NotMeasured, match=message):
        backend.execute(operation, *natives)
    assert backend.allocations == before


def exchange_keeps_bits(backend: Any, native_bits: Callable[[Any], list[int]]) -> None:
    """from_tensor and to_tensor keep every bit of :data:`PATTERNS`."""
    tensor = Tensor.from_bits(DType.Float32, (len(PATTERNS),), PATTERNS)
    native = backend.from_tensor(tensor)
    assert native_bits(native) == list(PATTERNS)
    assert backend.to_tensor(native).bits() == PATTERNS


def plans_keep_their_output_dtype(
    backend: Any,
    skip: Iterable[str],
    timeout: float | None = None,
    may_hang: Callable[[Any], bool] = lambda call: False,
) -> None:
    """Every boundary example of every plan (but those of *skip*) returns, when it returns,
    a tensor of the plan's output dtype.  With *timeout* (a hosted *backend*), a call that
    does not return in time must be one *may_hang* names (a library's known intermittent
    hang); the host is started afresh for the next call."""
    skipped = set(skip)
    for plan in resolvable_plans():
        if plan.operation in skipped:
            continue
        for call in boundary_examples(plan):
            outcome = run_call(backend, call, timeout=timeout)
            if outcome.problem == Problem.TIMEOUT:
                assert may_hang(call), f"a hang not known: {call.repro()}"
                continue
            assert outcome.problem != Problem.WRONG_TYPE, call.repro()
            if outcome.actual is not None:
                assert outcome.actual.dtype is plan.output, call.repro()


def conforms_on_boundary_examples(backend: Any, operation: str, allowed: str = "") -> None:
    """Every boundary example of *operation* conforms (a problem of kind *allowed* aside)."""
    for plan in (p for p in resolvable_plans() if p.operation == operation):
        for call in boundary_examples(plan):
            outcome = run_call(backend, call)
            if allowed and outcome.problem == allowed:
                continue
            assert outcome.ok, f"{outcome.verdict}\n{call.repro()}"


def reported_as(backend: Any, call_json: str, problem: str) -> None:
    """The call (JSON, as repro lines print it) does not conform, with *problem*."""
    outcome = run_call(backend, call_from_json(call_json))
    assert not outcome.ok
    assert outcome.problem == problem, outcome.verdict


def run_with_xfail(name: str, xfail: Path, operations: Iterable[str], report: Path) -> dict:
    """``plancheck run`` of *operations* with the published known-deviations file: exit 0,
    no failure; the report document."""
    command = [sys.executable, "-m", "conformance.cli", "run", "--backend", name,
               "--workers", "0", "--xfail", str(xfail), "--report", str(report),
               *(f"--op={op}" for op in operations)]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    document = json.loads(report.read_text())
    assert not document["failures"]
    return document
