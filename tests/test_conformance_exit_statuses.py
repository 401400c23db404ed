"""Exit statuses mean one thing each (0 conforms, 1 non-conformance, 2 usage, 3
incomplete), and a backend's BaseException is a finding about its call, never the
end of the run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import backends
from conformance.cli import main as plancheck
from conformance.findings.finding import findings_of
from conformance.judge.runner import run_call, watch_interrupts
from conformance.model.calls import Call
from conformance.report import validate_report
from oracle import DType, Tensor, resolve_operation_plan

ROOT = Path(__file__).resolve().parent.parent

HOSTILE = """
import time
import numpy as np
import backends


class _Wrapped:
    def __init__(self):
        self.cpu = backends.get("cpu")

    def from_tensor(self, tensor):
        return self.cpu.from_tensor(tensor)

    def to_tensor(self, native):
        return self.cpu.to_tensor(native)


class Interrupting(_Wrapped):
    name = "interrupting"

    def execute(self, operation, *args, **options):
        if operation == "neg":
            raise KeyboardInterrupt("from inside the backend")
        if operation == "abs":
            raise SystemExit(0)
        return self.cpu.execute(operation, *args, **options)


class Slow(_Wrapped):
    name = "slow"

    def execute(self, operation, *args, **options):
        time.sleep(0.02)
        return self.cpu.execute(operation, *args, **options)
"""


def _neg_call() -> Call:
    x = Tensor(DType.Float32, (2,), (1.5, -0.0))
    return Call("neg", (x,), None, resolve_operation_plan("neg", DType.Float32))


def test_a_backend_keyboard_interrupt_is_a_finding_about_its_call():
    class Raises:
        name = "raises"

        def __init__(self, error):
            self.error = error
            cpu = backends.get("cpu")
            self.from_tensor, self.to_tensor = cpu.from_tensor, cpu.to_tensor

        def execute(self, operation, *args, **options):
            raise self.error

    restore = watch_interrupts()
    try:
        for error in (KeyboardInterrupt("inside"), SystemExit(0), GeneratorExit()):
            outcome = run_call(Raises(error), _neg_call())
            assert not outcome.ok and outcome.raised is error
            assert [f.cls for f in findings_of(outcome)] == [f"raises-{type(error).__name__}"]
    finally:
        restore()


def _env(directory: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(directory), str(ROOT), env.get("PYTHONPATH", "")])
    return env


def test_the_run_goes_on_after_a_backend_interrupt_or_exit(tmp_path):
    (tmp_path / "hostile.py").write_text(HOSTILE, encoding="utf-8")
    report = tmp_path / "out.json"
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--backend", "hostile:Interrupting",
         "--op", "neg", "--op", "abs", "--op", "sign", "--workers", "0", "--report", str(report)],
        cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    data = json.loads(report.read_text(encoding="utf-8"))
    validate_report(data)
    assert data["complete"]
    names = {f"{c['operation']}@{c['class']}" for c in data["deviation_classes"]}
    assert names == {"neg@raises-KeyboardInterrupt", "abs@raises-SystemExit"}
    assert data["table"]["hostile:Interrupting"]["sign"]["status"] == "conforms"


def test_a_backend_that_exits_while_loading_is_a_usage_error(capsys):
    for command in ("run", "repro", "call", "diff"):
        arguments = {
            "run": ["run", "--backend", "builtins:exit"],
            "repro": ["repro", "--backend", "builtins:exit", '{"v":1,"op":"neg","args":[]}'],
            "call": ["call", "--backend", "builtins:exit", "neg", "Float32:[1]"],
            "diff": ["diff", "--backend", "cpu", "--backend", "builtins:exit"],
        }[command]
        assert plancheck(arguments) == 2, command
    assert "builtins:exit" in capsys.readouterr().err


def test_an_interrupted_run_is_incomplete_and_exits_3(tmp_path):
    """SIGINT after the first finished item: the report says incomplete, exit 3."""
    (tmp_path / "hostile.py").write_text(HOSTILE, encoding="utf-8")
    report = tmp_path / "out.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "conformance.cli", "run", "--backend", "hostile:Slow",
         "--workers", "0", "--report", str(report)],
        cwd=tmp_path, env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 300  # a safety net only: the test waits on the report
        while time.monotonic() < deadline:
            try:
                finished = json.loads(report.read_text(encoding="utf-8"))["finished_items"]
            except (OSError, ValueError, KeyError):
                finished = 0
            if finished >= 1 or process.poll() is not None:
                break
            time.sleep(0.2)
        assert process.poll() is None, "the run ended before it could be interrupted"
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 3, out[-2000:] + err[-2000:]
    data = json.loads(report.read_text(encoding="utf-8"))
    validate_report(data)
    assert not data["complete"] and data["result"] == "incomplete (interrupted)"
    assert "every operation conforms" not in out
    assert "INCOMPLETE (interrupted)" in out
