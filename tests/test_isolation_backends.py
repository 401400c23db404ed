"""The judge never shares a process with the backend under test (issue 20).

Each hostile backend of tests/isolation_backends.py is run with ``plancheck run``
in a subprocess; each test asserts the verdict (the report's deviation classes),
the exit status and the time the run took to exit.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conformance.host.client import BackendHost, HostLoadError
from conformance.judge.checker import Checker, NonConformance
from conformance.judge.corpus_check import check_corpus_plan
from conformance.report import validate_report
from oracle import resolvable_plans

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent

FASTMATH_C = """
#include <xmmintrin.h>
/* what crtfastmath.o does for a -Ofast link, stated so every gcc version does it */
__attribute__((constructor)) static void fast_math(void) {
    _mm_setcsr(_mm_getcsr() | 0x8040);  /* FTZ | DAZ */
}
float scale(float x) { return x * 0.5f; }
"""


Ran = tuple[subprocess.CompletedProcess, dict, float]


def _run(tmp_path: Path, name: str, ops: list[str], *more: str,
         env_extra: dict[str, str] | None = None) -> Ran:  # fmt: skip
    marks = tmp_path / "marks"
    marks.mkdir(exist_ok=True)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), str(ROOT), env.get("PYTHONPATH", "")])
    env["ISOLATION_MARKS"] = str(marks)
    env.update(env_extra or {})
    report = tmp_path / f"{name.replace(':', '_')}.json"
    backend = name if ":" in name else f"isolation_backends:{name}"
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--backend", backend,
         *[a for op in ops for a in ("--op", op)], "--timeout", "5", "--report", str(report),
         *more],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    took = time.monotonic() - started
    data = json.loads(report.read_text(encoding="utf-8"))
    validate_report(data)
    return done, data, took


def _classes(data: dict) -> set[str]:
    return {c["class"] for c in data["deviation_classes"]}


def _marked(tmp_path: Path, name: str) -> list[int]:
    path = tmp_path / "marks" / name
    return [int(p) for p in path.read_text().split()] if path.exists() else []


@pytest.fixture(scope="module")
def fastmath(tmp_path_factory) -> Path:
    return build_fastmath(tmp_path_factory.mktemp("fastmath"))


def build_fastmath(where: Path) -> Path:
    """The -Ofast shared library, built in *where* (the test is skipped where it cannot be)."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler (gcc/cc) to build the -Ofast shared library")
    (where / "fastmath.c").write_text(FASTMATH_C, encoding="utf-8")
    built = subprocess.run(
        [compiler, "-Ofast", "-shared", "-fPIC", "-o", str(where / "libfastmath.so"),
         str(where / "fastmath.c")], capture_output=True, text=True,
    )  # fmt: skip
    if built.returncode != 0:
        pytest.skip(f"the -Ofast shared library does not build here: {built.stderr[-500:]}")
    return where / "libfastmath.so"


def test_flush_to_zero_is_a_finding_and_the_next_run_is_clean(tmp_path, fastmath):
    done, data, took = _run(tmp_path, "FlushesSubnormals", ["exp", "neg"],
                            env_extra={"ISOLATION_FASTMATH": str(fastmath)})  # fmt: skip
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    classes = _classes(data)
    assert {"fp-environment:flush-to-zero", "fp-environment:denormals-are-zero"} <= classes
    assert "ORACLE ERROR" not in done.stdout and "INTERNALERROR" not in done.stdout
    # the judge and its caches were never under FTZ/DAZ: cpu in the same directory conforms
    again = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--backend", "cpu", "--op", "exp",
         "--op", "neg"], cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert again.returncode == 0, again.stdout[-3000:]
    assert took < 120


def test_a_directed_rounding_mode_is_a_finding(tmp_path):
    done, data, took = _run(tmp_path, "RoundsUpward", ["neg", "abs"])
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert _classes(data) == {"fp-environment:rounding-upward"}
    assert all(c["count"] > 0 for c in data["deviation_classes"])
    assert took < 120


def test_numpy_seterr_raise_is_the_backends_finding_not_an_oracle_error(tmp_path):
    done, data, took = _run(tmp_path, "NumpyRaises", ["exp"])
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert "numpy-state:error-state" in _classes(data)
    assert not data["oracle_errors"] and "ORACLE ERROR" not in done.stdout
    assert took < 120


def test_a_patched_numpy_function_is_reported_and_values_are_not_blamed(tmp_path):
    done, data, took = _run(tmp_path, "PatchesNextafter", ["neg"])
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert _classes(data) == {"numpy-state:patched"}
    assert took < 120


def test_a_reused_output_buffer_is_reported(tmp_path):
    done, data, took = _run(tmp_path, "ReusesOutput", ["neg"])
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert {"result-changed-after-return", "result-aliases-earlier-result"} & _classes(data)
    assert took < 120


@pytest.mark.parametrize("workers", ["0", "1"])
def test_a_thread_left_running_does_not_keep_plancheck_alive(tmp_path, workers):
    done, data, took = _run(tmp_path, "LeavesThread", ["neg"], "--workers", workers)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert data["complete"] and not data["deviation_classes"]
    assert took < 90


def test_warnings_of_another_thread_are_not_blamed_on_the_call(tmp_path):
    done, data, took = _run(tmp_path, "WarnsInBackground", ["neg", "abs"])
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert not data["deviation_classes"]
    assert took < 120


def _alive(pid: int) -> bool:
    """Whether *pid* runs (a zombie waiting for a parent that never reaps is dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_fork_that_carries_on_neither_answers_nor_outlives_the_run(tmp_path):
    done, data, took = _run(tmp_path, "ForksAndCarriesOn", ["neg", "abs"])
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert data["complete"] and done.stdout.count("plancheck conformance:") == 1
    assert "INTERNALERROR" not in done.stdout + done.stderr
    children = _marked(tmp_path, "ForksAndCarriesOn.child")
    assert children
    deadline = time.monotonic() + 15  # the host's group is killed at exit; a loaded
    while time.monotonic() < deadline and any(_alive(pid) for pid in children):
        time.sleep(0.2)  # machine may take a moment to deliver it
    assert not [pid for pid in children if _alive(pid)]
    assert took < 120


def test_the_judge_never_imports_the_backend(tmp_path):
    marks = tmp_path / "marks"
    marks.mkdir()
    env = dict(os.environ, ISOLATION_MARKS=str(marks))
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), str(ROOT), env.get("PYTHONPATH", "")])
    process = subprocess.Popen(
        [sys.executable, "-m", "conformance.cli", "run", "--backend",
         "isolation_backends:RoundsUpward", "--op", "neg", "--workers", "0"],
        cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    assert process.wait(300) == 1
    importers = _marked(tmp_path, "module.pid")
    assert importers and process.pid not in importers


def test_the_judge_refuses_a_nonstandard_environment(tmp_path):
    code = (
        "import ctypes, ctypes.util, sys\n"
        "ctypes.CDLL(ctypes.util.find_library('m')).fesetround(0x800)\n"
        "from conformance.cli import main\n"
        "sys.exit(main(['run', '--backend', 'cpu', '--op', 'neg', '--workers', '0']))\n"
    )
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 3, done.stdout[-2000:] + done.stderr[-2000:]
    assert "refuses to judge" in done.stdout + done.stderr
    assert "rounding-upward" in done.stdout + done.stderr
    assert time.monotonic() - started < 60


def test_the_corpus_fast_path_records_the_hosts_environment_findings():
    # neg is exact in any rounding mode: only the host's environment finding can fail it
    plan = next(p for p in resolvable_plans() if p.operation == "neg")
    host = BackendHost("isolation_backends:RoundsUpward")
    checker = Checker(host, "RoundsUpward", plan, kind="corpus")
    try:
        with pytest.raises(NonConformance, match="fp-environment:rounding-upward"):
            check_corpus_plan(checker)
    finally:
        host.close()
    assert set(checker.classes) == {(plan.describe(), "fp-environment:rounding-upward")}
    entry = checker.classes[(plan.describe(), "fp-environment:rounding-upward")]
    assert entry["kind"] == "environment" and entry["count"] >= 1
    assert entry["example"] is not None and entry["call"].args[0].size == 1  # narrowed
    assert checker.corpus_failed == 0 and checker.corpus_cases > 0  # the values conform


def test_a_backend_that_cannot_load_says_why_without_a_class_name():
    host = BackendHost("isolation_backends:NoSuchBackend")
    with pytest.raises(HostLoadError) as caught:
        host.ensure()
    assert str(caught.value) == (
        "backend 'isolation_backends:NoSuchBackend': 'isolation_backends' has no attribute "
        "'NoSuchBackend'"
    )
    assert "AttributeError" not in str(caught.value) and "Error:" not in str(caught.value)
    assert type(caught.value.error).__name__ == "BackendLoadError"  # kept for the program
    bare = HostLoadError("x", SystemExit())
    assert str(bare) == "SystemExit (no message)"
