"""The first-call allowance (issue 31 item 2): a library's compile time is not a hang.

``newcomer_compiling_backend`` pauses on the first call of each call signature, as a
JIT compiling a kernel does.  Without a declared allowance the per-call timeout kills
those calls (and the host with its compiled kernels); with one, the run is complete
and conforms, and the header and the JSON report state the allowance.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.host.first_call import (
    FirstCalls,
    call_key,
    declared_allowance,
    declared_key,
    host_info,
    largest_allowance,
    statement,
)
from conformance.judge.runner import wire_arguments
from oracle import DType, Tensor

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent


def _wire(*args):
    return wire_arguments(args)


def test_the_key_is_dtype_and_rank_or_scalar_type_never_values():
    a = Tensor.from_nested([1.0, 2.0], DType.Float32)
    b = Tensor.from_nested([[3.0, 4.0, 5.0]], DType.Float32)
    c = Tensor.from_nested([7.0, 8.0, 9.0], DType.Float32)
    i = Tensor.from_nested([1, 2], DType.Int32)
    assert call_key("add", _wire(a, a)) == call_key("add", _wire(c, c))  # values, extents
    assert call_key("add", _wire(a, a)) != call_key("add", _wire(a, b))  # rank
    assert call_key("add", _wire(a, a)) != call_key("add", _wire(a, i))  # dtype
    assert call_key("add", _wire(a, a)) != call_key("sub", _wire(a, a))  # operation
    assert call_key("mul", _wire(a, 2)) == call_key("mul", _wire(a, 3))
    assert call_key("mul", _wire(a, 2)) != call_key("mul", _wire(a, 2.0))  # scalar type
    assert call_key("x", _wire(a, (1, 2))) != call_key("x", _wire(a, (1,)))  # tuple length
    assert call_key("add", _wire(a, a), per_shape=True) != call_key(
        "add", _wire(c, c), per_shape=True
    )


def test_a_new_key_gets_the_allowance_once_and_a_fresh_host_again():
    first = FirstCalls()
    info = {"first_call_allowance": 30.0, "first_call_key": "signature"}
    args = _wire(Tensor.from_nested([1.0], DType.Float32))
    assert first.timeout("neg", args, 10.0, info) == 40.0
    assert first.timeout("neg", args, 10.0, info) == 10.0
    assert first.timeout("abs", args, 10.0, info) == 40.0
    assert first.timeout("abs", args, None, info) is None  # no timeout stays none
    first.reset()
    assert first.timeout("neg", args, 10.0, info) == 40.0
    assert first.granted == 3
    assert FirstCalls().timeout("neg", args, 10.0, {}) == 10.0  # no declaration: no change


def test_declarations_are_checked():
    class Declares:
        first_call_allowance = 12
        first_call_key = "shape"

    assert host_info(Declares()) == {"first_call_allowance": 12.0, "first_call_key": "shape"}
    assert declared_allowance(object()) == 0.0 and declared_key(object()) == "signature"
    for bad in (True, "60", -1.0, float("inf")):
        Declares.first_call_allowance = bad
        with pytest.raises(ValueError, match="first_call_allowance"):
            declared_allowance(Declares())
    Declares.first_call_key = "value"
    with pytest.raises(ValueError, match="first_call_key must be one of signature, shape"):
        declared_key(Declares())


def test_the_statement_and_the_watchdogs_allowance():
    class Host:
        def __init__(self, allowance):
            self.info = {"first_call_allowance": allowance}

    assert statement({}) == ""
    assert statement({"first_call_allowance": 60.0}) == (
        "first call of a new signature: +60 s beyond the per-call timeout"
    )
    assert largest_allowance([Host(0.0), Host(25.0), object()]) == 25.0
    assert largest_allowance([]) == 0.0


def _run(tmp_path: Path, backend: str) -> tuple[subprocess.CompletedProcess, dict]:
    env = dict(os.environ, COMPILE_SECONDS="1.5")
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), str(ROOT), env.get("PYTHONPATH", "")])
    report = tmp_path / f"{backend}.json"
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--backend",
         f"newcomer_compiling_backend:{backend}", "--op", "neg", "--timeout", "1",
         "--report", str(report)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    return done, json.loads(report.read_text(encoding="utf-8"))


def test_a_compiling_backend_times_out_without_its_allowance_and_conforms_with_it(tmp_path):
    done, data = _run(tmp_path, "Undeclared")
    assert done.returncode == 1, done.stdout[-2000:]
    assert {f["problem"] for f in data["failures"]} == {"timeout"}
    assert data["options"]["first_call_allowance_s"] == {
        "newcomer_compiling_backend:Undeclared": 0.0
    }

    done, data = _run(tmp_path, "Compiling")
    assert done.returncode == 0, done.stdout[-3000:]
    assert data["failures"] == []
    assert data["options"]["timeout_s"] == 1
    assert data["options"]["first_call_allowance_s"] == {
        "newcomer_compiling_backend:Compiling": 30.0
    }
    assert (
        "backend newcomer_compiling_backend:Compiling: compiling 1.0; first call of a new "
        "signature: +30 s beyond the per-call timeout" in done.stdout
    )
