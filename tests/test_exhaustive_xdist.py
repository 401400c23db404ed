"""Shards as pytest items across pytest-xdist gateways (issue 14 item 4).

``--tx 2*popen`` starts two local gateways by the same mechanism as
``--tx ssh=host//python=...``; with the plugin ``conformance.exhaustive.pytest_plugin``
the workers attach their records to their reports and only the controller
writes the state file, so the state stays correct whichever worker finishes
which shard, in whatever order.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conformance import exhaustive as X
from conformance.exhaustive.cli import ITEMS
from conformance.exhaustive.state import Store, current_key

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SELECT = ["--exhaustive-op", "neg", "--exhaustive-dtype", "Float32",
          "--exhaustive-shards", "256", "--exhaustive-sample", "32"]  # fmt: skip


def _pytest(state: Path, *extra: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "pytest", str(HERE / "test_exhaustive_sweep.py"),
               "-m", "exhaustive", "-q", "-p", "no:cacheprovider",
               "-p", "conformance.exhaustive.pytest_plugin", *SELECT,
               "--exhaustive-state", str(state), *extra]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANCHECK_EXHAUSTIVE_")}
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), str(ROOT)])
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def _plancheck(state: Path, *extra: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "conformance.cli", "exhaustive", "--op", "neg",
               "--dtype", "Float32", "--shards", "256", "--sample", "32",
               "--state", str(state), "--no-progress", *extra]  # fmt: skip
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(ROOT)]))
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_two_popen_gateways_share_the_shards_and_the_state_stays_exact(tmp_path):
    state = tmp_path / "s.jsonl"
    wanted = {X.shard_range(i, 256) for i in X.sampled_shards(256, 32)}
    stale = X.to_record(
        X.ShardResult("cpu", "neg:Float32", *X.shard_range(16, 256), 16, 256, inputs=1 << 24),
        {**current_key("cpu", "neg:Float32"), "oracle": "an-older-oracle"},
    )
    Store(state).append([stale])  # must not count: that shard is checked again
    run = _pytest(state, "--dist", "load", "--tx", "2*popen")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "8 shard records appended" in run.stdout
    records = Store(state).load()[1:]
    assert {(r["start"], r["stop"]) for r in records} == wanted and len(records) == 8
    assert {r["worker"].split()[-1] for r in records} == {"gw0", "gw1"}
    again = _pytest(state, "--dist", "load", "--tx", "2*popen")  # everything resumed
    assert again.returncode == 0 and "0 shard records appended" in again.stdout
    assert len(Store(state).load()) == 9
    verdict = _plancheck(state)  # the command line reads the same evidence
    assert verdict.returncode == 0, verdict.stdout + verdict.stderr
    assert "COMPLETE: 1 plans of cpu: 1 conforms" in verdict.stdout


def test_the_sweep_is_configured_by_the_command_line_options(tmp_path):
    listed = _pytest(tmp_path / "s.jsonl", "--collect-only")
    assert listed.returncode == 0
    ids = [line for line in listed.stdout.splitlines() if "neg-Float32-s" in line]
    assert len(ids) == 8 and "test_shard_conforms[neg-Float32-s016of256]" in ids[0]
    for bad in (["--exhaustive-sample", "0"], ["--exhaustive-op", "nosuch"]):
        refused = _pytest(tmp_path / "s.jsonl", *bad)
        assert refused.returncode == 4, refused.stdout + refused.stderr  # pytest's usage error
    assert not (tmp_path / "s.jsonl").exists()


def _two_shards(state: Path, backend: str) -> subprocess.CompletedProcess:
    """neg:Float32's shards 1024 and 3072 of 4096 on *backend*, on two xdist workers (the
    first holds 2.0, where the test backends misbehave)."""
    return _plancheck(state, "--backend", f"test_exhaustive_cli:{backend}", "--jobs", "2",
                      "--shards", "4096", "--sample", "2048", "--op", "neg")  # fmt: skip


def test_a_lost_worker_leaves_the_verdict_incomplete_never_conforming(tmp_path):
    state = tmp_path / "s.jsonl"
    lost = _two_shards(state, "KillsItsJudge")
    assert lost.returncode == 3, lost.stdout + lost.stderr
    assert "1 of 2 selected shards have no verdict" in lost.stdout
    assert len(Store(state).load()) == 1
    assert json.loads(state.read_text())["start"] == X.shard_range(3072, 4096)[0]
    table = _plancheck(state, "--backend", "test_exhaustive_cli:KillsItsJudge", "--table")
    assert table.returncode == 3  # the table does not claim a verdict either


def test_a_backend_that_kills_its_process_is_a_crash_of_its_shard(tmp_path):
    state = tmp_path / "s.jsonl"
    crashed = _two_shards(state, "DiesOnOne")
    assert crashed.returncode == 1, crashed.stdout + crashed.stderr
    assert "NON-CONFORMING" in crashed.stdout
    assert "error: crash: the backend's host process exited with status 1" in crashed.stdout
    records = {r["start"]: r for r in Store(state).load()}
    assert len(records) == 2  # the other shard was checked by its own host
    assert records[X.shard_range(1024, 4096)[0]]["error"].startswith("crash: ")
    assert records[X.shard_range(3072, 4096)[0]]["non_conforming"] == 0


def test_the_controller_refuses_a_damaged_state_file(tmp_path):
    state = tmp_path / "s.jsonl"
    state.write_text('{"format": "plancheck-exhaustive/2", "backend": "cpu", "pl')
    refused = _pytest(state, "-n", "2")
    assert refused.returncode == 3, refused.stdout + refused.stderr
    assert "damaged" in refused.stdout + refused.stderr
    assert state.read_text().endswith('"pl')  # nothing appended


def test_sigterm_during_jobs_leaves_complete_records_and_an_incomplete_verdict(tmp_path):
    state = tmp_path / "s.jsonl"
    command = [sys.executable, "-m", "conformance.cli", "exhaustive", "--op", "neg",
               "--dtype", "Float32", "--shards", "65536", "--sample", "512", "--jobs", "2",
               "--backend", "test_exhaustive_cli:Slow", "--state", str(state)]  # fmt: skip
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(ROOT)]))
    sweep = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not state.exists() or not state.read_text()):
        time.sleep(0.1)
    sweep.send_signal(signal.SIGTERM)
    out, err = sweep.communicate(timeout=120)
    assert sweep.returncode == 3, out + err
    assert "INCOMPLETE (interrupted by SIGTERM)" in out
    records = Store(state).load()  # every line a complete, valid record
    assert 1 <= len(records) < 128


def test_environment_variables_alone_still_configure_a_run(tmp_path):
    state = tmp_path / "s.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANCHECK_EXHAUSTIVE_")}
    env.update(
        PLANCHECK_EXHAUSTIVE_PLANS="neg:Float32",
        PLANCHECK_EXHAUSTIVE_SHARDS="4096",
        PLANCHECK_EXHAUSTIVE_SAMPLE="2048",
        PLANCHECK_EXHAUSTIVE_STATE=str(state),
    )
    command = [sys.executable, "-m", "pytest", str(HERE / "test_exhaustive_sweep.py"),
               "-m", "exhaustive", "-q", "-p", "no:cacheprovider", "-n", "2"]  # fmt: skip
    run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 passed" in run.stdout  # shards 1024 and 3072 of 4096, each worker appending
    assert sorted(r["shard"] for r in Store(state).load()) == [1024, 3072]


def test_two_jobs_sweeps_on_one_state_file_check_each_shard_once(tmp_path):
    state = tmp_path / "s.jsonl"
    command = [sys.executable, "-m", "conformance.cli", "exhaustive", "--op", "neg",
               "--dtype", "Float32", "--shards", "65536", "--sample", "8192", "--jobs", "2",
               "--backend", "test_exhaustive_cli:Slow", "--state", str(state)]  # fmt: skip
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(ROOT)]))
    pipe = subprocess.PIPE
    sweeps = [
        subprocess.Popen(command, cwd=ROOT, env=env, stdout=pipe, stderr=pipe, text=True)
        for _ in range(2)
    ]
    outputs = [s.communicate(timeout=300) for s in sweeps]
    assert [s.returncode for s in sweeps] == [0, 0], outputs
    shards = [r["shard"] for r in Store(state).load()]
    assert sorted(shards) == sorted(set(shards)) and len(shards) == 8  # none checked twice


def test_jobs_runs_the_packaged_items_from_an_empty_directory(tmp_path):
    """``--jobs`` needs no checkout: the items ship in the package, no ini file is read
    (``-c devnull``) and the plugin registers the ``exhaustive`` marker itself."""
    assert ITEMS.is_file() and ITEMS.parent == ROOT / "conformance" / "exhaustive"
    empty = tmp_path / "empty"
    empty.mkdir()
    state = tmp_path / "s.jsonl"
    command = [sys.executable, "-m", "conformance.cli", "exhaustive", "--op", "neg",
               "--dtype", "Float32", "--shard", "7/65536", "--jobs", "2",
               "--state", str(state), "--no-progress"]  # fmt: skip
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run(command, cwd=empty, env=env, capture_output=True, text=True,
                         timeout=300)  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 shard records appended" in run.stdout
    assert "CONFORMS: cpu neg:Float32 over 65,536 inputs" in run.stdout
    (record,) = Store(state).load()
    assert (record["start"], record["stop"]) == X.shard_range(7, 65536)
    assert record["worker"].split()[-1] in ("gw0", "gw1")
    assert list(empty.iterdir()) == []  # nothing left in the caller's directory
