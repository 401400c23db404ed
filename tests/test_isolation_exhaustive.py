"""The exhaustive sweep never shares a process with the backend under test (issue 20, item 6).

The hostile backends of tests/isolation_backends.py run under ``plancheck exhaustive``
on one small shard, in a subprocess; each test asserts the verdict, the exit status,
the state file's records and the time the run took.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_isolation_backends import _alive, _marked, build_fastmath

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
#: shards of 2**16 patterns: exp of [-90.0, -90.5) is subnormal, of [1.0, 1.0078) normal
SHARDS = 1 << 16
EXP_SUBNORMAL = f"{0xC2B40000 >> 16}/{SHARDS}"
NORMAL = f"{0x3F800000 >> 16}/{SHARDS}"

Swept = tuple[subprocess.CompletedProcess, list[dict], float]


@pytest.fixture(scope="module")
def fastmath(tmp_path_factory) -> Path:
    return build_fastmath(tmp_path_factory.mktemp("fastmath"))


def _sweep(tmp_path: Path, backend: str, op: str, shard: str | None, *more: str,
           env_extra: dict[str, str] | None = None) -> Swept:  # fmt: skip
    """``plancheck exhaustive`` on one Float32 shard (or those *more* selects): (process, the
    state's records, seconds)."""
    marks = tmp_path / "marks"
    marks.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_XDIST_WORKER"}  # pid in records
    env.update(ISOLATION_MARKS=str(marks), **(env_extra or {}))
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), str(ROOT), env.get("PYTHONPATH", "")])
    state = tmp_path / "state.jsonl"
    name = backend if ":" in backend or backend == "cpu" else f"isolation_backends:{backend}"
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "exhaustive", "--backend", name, "--op", op,
         "--dtype", "Float32", *(["--shard", shard] if shard else []), "--state", str(state),
         "--no-progress", *more],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    took = time.monotonic() - started
    lines = state.read_text().splitlines() if state.exists() else []
    records = [json.loads(line) for line in lines]
    return done, records, took


def _writer_pids(records: list[dict]) -> set[int]:
    """The pids of the processes that made *records* (``HOST pid N``)."""
    assert all(r["worker"].split()[-2] == "pid" for r in records)
    return {int(r["worker"].split()[-1]) for r in records}


def test_a_flush_to_zero_backend_is_not_certified_and_the_finding_is_named(tmp_path, fastmath):
    env = {"ISOLATION_FASTMATH": str(fastmath)}
    for shard in (NORMAL, EXP_SUBNORMAL):  # its values right, then wrong
        done, records, took = _sweep(tmp_path, "FlushesSubnormals", "exp", shard, env_extra=env)
        output = done.stdout + done.stderr
        assert done.returncode == 1, output[-3000:]
        assert "NON-CONFORMING" in done.stdout and "CERTIFIED" not in done.stdout
        assert "environment: fp-environment:denormals-are-zero, fp-environment:flush-to-zero" in (
            done.stdout
        )
        assert took < 120
    normal, subnormal = records
    assert normal["non_conforming"] == 0  # the results were right: the environment decides
    assert subnormal["non_conforming"] > 0  # exp's subnormal results flushed, judged as such
    for record in records:
        assert "fp-environment:flush-to-zero" in record["environment"]
        assert record["judge_environment"]["flush_to_zero"] is False
        assert record["judge_environment"]["rounding"] == "to-nearest"
    importers = set(_marked(tmp_path, "module.pid"))
    assert importers and not importers & _writer_pids(records)  # written where it never ran
    # the next run of the correct backend on the same state file is not affected
    done, records, _ = _sweep(tmp_path, "cpu", "exp", EXP_SUBNORMAL)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "CONFORMS: cpu exp:Float32" in done.stdout
    assert records[-1]["environment"] == [] and records[-1]["non_conforming"] == 0


def test_a_directed_rounding_mode_is_not_certified(tmp_path):
    done, records, took = _sweep(tmp_path, "RoundsUpward", "sqrt", NORMAL)
    assert done.returncode == 1, (done.stdout + done.stderr)[-3000:]
    assert "environment: fp-environment:rounding-upward" in done.stdout
    (record,) = records
    assert record["non_conforming"] > 0  # its inexact square roots rounded up
    assert record["environment"] == ["fp-environment:rounding-upward"]
    assert not set(_marked(tmp_path, "module.pid")) & _writer_pids(records)
    assert took < 120


def test_the_correct_cpu_backend_still_certifies(tmp_path):
    done, records, _ = _sweep(tmp_path, "cpu", "sqrt", NORMAL)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "CONFORMS: cpu sqrt:Float32" in done.stdout
    (record,) = records
    assert record["environment"] == []
    assert record["judge_environment"] == {
        "rounding": "to-nearest", "flush_to_zero": False, "denormals_are_zero": False,
        "numpy_errors": {"divide": "warn", "over": "warn", "under": "ignore", "invalid": "warn"},
    }  # fmt: skip


def test_a_hang_is_reported_and_the_run_ends_promptly(tmp_path):
    done, records, took = _sweep(tmp_path, "Hangs", "neg", NORMAL, "--timeout", "3")
    output = done.stdout + done.stderr
    assert done.returncode == 1, output[-3000:]
    assert "error: hang: the backend gave no result for 65,536 inputs within 3 s" in done.stdout
    (record,) = records
    assert record["non_conforming"] == record["inputs"]
    assert took < 45  # 3 s of hang, a host start and plancheck's own start on a loaded machine
    hosts = _marked(tmp_path, "Hangs.call")
    assert hosts and not [pid for pid in hosts if _alive(pid)]  # the hung host was killed


def test_the_plan_stops_at_its_first_hang(tmp_path):
    # four shards of one plan: the first hangs, the plan's verdict is known, the rest wait
    done, records, took = _sweep(tmp_path, "Hangs", "neg", None, "--timeout", "2",
                                 "--shards", str(SHARDS), "--sample", "16384")  # fmt: skip
    assert done.returncode == 1, (done.stdout + done.stderr)[-3000:]
    assert len(records) == 1  # one shard hung; the other three were not waited for
    assert "3 of 4 selected shards have no verdict" in done.stdout
    assert len(_marked(tmp_path, "Hangs.call")) == 1
    assert took < 45


def test_a_crash_is_reported_as_such(tmp_path):
    done, records, took = _sweep(tmp_path, "Crashes", "neg", NORMAL)
    assert done.returncode == 1, (done.stdout + done.stderr)[-3000:]
    assert "error: crash: the backend's host process was killed by SIGSEGV" in done.stdout
    (record,) = records
    assert record["error"].startswith("crash: ")
    assert took < 45


def test_a_thread_left_running_does_not_keep_the_sweep_alive(tmp_path):
    done, records, took = _sweep(tmp_path, "LeavesThread", "neg", NORMAL)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert "CONFORMS: isolation_backends:LeavesThread neg:Float32" in done.stdout
    assert records[0]["environment"] == []
    assert took < 45


def test_numpy_state_changed_by_the_backend_is_its_finding_not_the_judges(tmp_path):
    done, records, _ = _sweep(tmp_path, "PatchesNextafter", "silu", NORMAL)
    assert done.returncode == 1, (done.stdout + done.stderr)[-3000:]
    (record,) = records
    assert record["environment"] == ["numpy-state:patched"]
    assert record["non_conforming"] == 0  # the judge's own nextafter was never replaced


def test_too_little_shared_memory_is_an_incomplete_verdict_not_a_crash(tmp_path, monkeypatch,
                                                                       capsys):  # fmt: skip
    from conformance.cli import main
    from conformance.host import segment

    monkeypatch.setattr(segment, "SHM", str(tmp_path))  # a directory with no room for 8 MiB
    monkeypatch.setattr(segment.os, "statvfs", lambda path: os.statvfs_result((0,) * 10))
    monkeypatch.setattr("conformance.exhaustive.hosted._RUNNERS", {})
    state = tmp_path / "state.jsonl"
    status = main(["exhaustive", "--op", "neg", "--dtype", "Float32", "--shard", NORMAL,
                   "--state", str(state), "--no-progress"])  # fmt: skip
    assert status == 3
    assert "MiB free; the sweep needs 8 MiB more" in capsys.readouterr().err
    assert not state.exists()
