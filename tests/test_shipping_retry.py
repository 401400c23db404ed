"""What re-trying issue 22's items as a new user would found, each fix with its test."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from conformance.findings.failure import failure_report
from conformance.judge.runner import expectation_of
from conformance.model.calls import Call
from oracle import DType, Tensor, binary32

ROOT = Path(__file__).resolve().parent.parent


def _call(operation: str, *args: object) -> Call:
    call = Call(operation, tuple(args), None, None)  # type: ignore[arg-type]
    return Call(operation, tuple(args), None, call.resolve())


def test_a_signalling_nan_is_named_alike_in_call_and_in_a_failure_report() -> None:
    # `plancheck call` printed "signalling nan (0x7F800001)", a failure report
    # "SignallingNaN(0x7F800001) (0x7F800001)" for the same element
    snan = binary32.SignallingNaN(0x7F800001)
    call = _call("reduce_max", Tensor(DType.Float32, (2,), (snan, 1.0)))
    expectation = expectation_of(call)
    actual = Tensor(DType.Float32, (), (float("nan"),))
    verdict = expectation.check(actual)
    assert not verdict.ok
    outcome = SimpleNamespace(call=call, expectation=expectation, actual=actual, raised=None,
                              native=None, problem="wrong value", ok=False, warnings=(),
                              verdict=verdict)  # fmt: skip
    text = failure_report(outcome, "b").text()
    assert "SignallingNaN(" not in text
    assert "arg 0:      Float32[2] [signalling nan (0x7F800001), 1.0 (0x3F800000)]" in text
    assert "expected:   Float32[] [signalling nan (0x7F800001)]" in text
    assert "expected signalling nan (0x7F800001), got nan (0x7FC00000)" in text  # mismatch


def _pytest(cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PYTEST_XDIST_AUTO_NUM_WORKERS", None)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *argv]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)  # fmt: skip


def test_a_project_conformance_package_hiding_plancheck_s_is_a_usage_error(tmp_path) -> None:
    # python -m pytest puts the project's folder first: its own `conformance` hid
    # plancheck's and the session ended in an INTERNALERROR traceback
    (tmp_path / "conformance").mkdir()
    (tmp_path / "conformance" / "__init__.py").write_text("LEVEL = 3\n")
    (tmp_path / "test_mine.py").write_text(
        "from conformance import LEVEL\n\ndef test_level():\n    assert LEVEL == 3\n"
    )
    own = _pytest(tmp_path, "-q", "test_mine.py")  # the project's tests: untouched
    assert own.returncode == 0, own.stdout + own.stderr
    asked = _pytest(tmp_path, "-q", "--pyargs", "conformance.suite", "--plancheck-backend", "cpu")
    assert asked.returncode == 4, asked.stdout + asked.stderr  # pytest's usage error
    assert "INTERNALERROR" not in asked.stdout + asked.stderr
    assert (f"plancheck: the package 'conformance' found first is {tmp_path / 'conformance'}, "
            "not plancheck's") in asked.stderr  # fmt: skip


def test_a_backend_that_fails_to_load_is_named_without_the_exception_class(tmp_path) -> None:
    (tmp_path / "brokenbackend.py").write_text("raise AttributeError('no such kernel table')\n")
    done = _pytest(tmp_path, "-q", "--pyargs", "conformance.suite", "--plancheck-backend",
                   "brokenbackend:X")  # fmt: skip
    assert done.returncode == 4, done.stdout + done.stderr
    assert "--plancheck-backend brokenbackend:X: cannot load it: no such kernel table" in (
        done.stderr)  # fmt: skip
    assert "AttributeError" not in done.stderr


def test_ctrl_c_while_plancheck_starts_ends_in_one_line_and_status_3(monkeypatch, capsys) -> None:
    # before pytest's own handling (the imports, the backend's loading) Ctrl-C ended in a
    # KeyboardInterrupt traceback (an attrs error when it hit jsonschema's import)
    import conformance.cli as cli

    def interrupted(arguments):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_check_run_options", interrupted)
    assert cli.main(["run", "--backend", "cpu"]) == 3
    captured = capsys.readouterr()
    assert captured.err == "plancheck: interrupted (Ctrl-C) while starting: no verdict\n"
    assert "Traceback" not in captured.out + captured.err


def test_importing_the_command_line_does_not_import_the_oracle() -> None:
    # the window in which Ctrl-C meets Python's own traceback is the entry script's import
    done = subprocess.run(
        [sys.executable, "-c", "import sys, conformance.cli; print('oracle' in sys.modules)"],
        env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.stdout.strip() == "False", done.stdout + done.stderr
