"""pytest's conventions kept by a plancheck run (issue 22, item 9).

``--co`` only collects: exit 0, no coverage verdict.  Ctrl-C (SIGINT to the
process group, as a terminal sends it) ends the run promptly with exit 3, no
KeyboardInterrupt traceback, a coverage line that says the run was interrupted
and the table of what finished; interrupted before any item finished, a short
verdict all the same.

The interrupted runs use an outside backend whose ``sign`` kernel announces
itself in a file and then sleeps: the test sends the signal once that file
exists, so the moment is known, not guessed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SLEEPY = """
import os, time
from backends.cpu import CPUBackend, KERNELS


def _sleep(backend, plan, *args):
    open(os.environ["SLEEPY_MARK"], "w").close()
    time.sleep(60)


class Sleepy(CPUBackend):
    name = "sleepy"
    kernels = {**KERNELS, "sign": _sleep}
"""


def _env(directory: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(directory), str(ROOT), env.get("PYTHONPATH", "")])
    env["SLEEPY_MARK"] = str(directory / "sleeping")
    env.pop("PYTEST_XDIST_AUTO_NUM_WORKERS", None)
    return env


def test_collect_only_exits_0_with_no_coverage_verdict(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--co", "-q",
         "--pyargs", "conformance.suite", "--plancheck-backend", "cpu", "--plancheck-op", "neg"],
        cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "test_generated_calls[cpu-neg" in done.stdout
    assert "INCOMPLETE" not in done.stdout and "missing" not in done.stdout


def test_plancheck_run_collect_only_exits_0(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--backend", "cpu", "--op", "neg",
         "--workers", "0", "--", "--co"],
        cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3/4 tests collected" in done.stdout


def _interrupted(tmp_path: Path, *ops: str, workers: str = "0") -> tuple[int, str, float]:
    """Run `plancheck run` on the sleepy backend, SIGINT its process group once ``sign``
    sleeps; its exit status, output and the seconds from the signal to its end."""
    (tmp_path / "sleepy.py").write_text(SLEEPY, encoding="utf-8")
    argv = [sys.executable, "-m", "conformance.cli", "run", "--backend", "sleepy:Sleepy",
            "--workers", workers, "--timeout", "0"]  # fmt: skip
    for op in ops:
        argv += ["--op", op]
    process = subprocess.Popen(
        argv, cwd=tmp_path, env=_env(tmp_path), stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 240
    while not (tmp_path / "sleeping").exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"the sleepy kernel never ran: {process.communicate()[0]}")
        time.sleep(0.05)
    signalled = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)
    output, _ = process.communicate(timeout=60)
    return process.returncode, output, time.monotonic() - signalled


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT")
def test_ctrl_c_ends_promptly_with_the_table_and_no_traceback(tmp_path: Path) -> None:
    status, output, seconds = _interrupted(tmp_path, "abs", "sign")
    assert status == 3, output  # incomplete, nothing non-conforming
    assert seconds < 5, f"{seconds:.1f} s from SIGINT to the end"
    assert "Traceback" not in output and "KeyboardInterrupt" not in output, output
    assert "INCOMPLETE (interrupted)" in output
    assert "coverage: not judged, the run was interrupted after" in output
    row = next(line for line in output.splitlines() if line.startswith("abs "))
    assert row.split()[-1] == "conforms"  # what finished is in the table
    assert "every operation conforms" not in output


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT")
def test_ctrl_c_before_any_item_finished_still_gives_a_verdict(tmp_path: Path) -> None:
    status, output, _ = _interrupted(tmp_path, "sign")
    assert status == 3, output
    assert "INCOMPLETE (interrupted before any test item finished): no verdict" in output
    assert "Traceback" not in output and "KeyboardInterrupt" not in output, output
