"""Shards as pytest items across pytest-xdist gateways (issue 14 item 4).

``--tx 2*popen`` starts two local gateways by the same mechanism as
``--tx ssh=host//python=...``; with the plugin ``conformance.exhaustive_pytest``
the workers attach their records to their reports and only the controller
writes the state file, so the state stays correct whichever worker finishes
which shard, in whatever order.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conformance import exhaustive as X
from conformance.exhaustive_state import Store, current_key

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SELECT = ["--exhaustive-op", "neg", "--exhaustive-dtype", "Float32",
          "--exhaustive-shards", "256", "--exhaustive-sample", "32"]  # fmt: skip


def _pytest(state: Path, *extra: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "pytest", str(HERE / "test_exhaustive_sweep.py"),
               "-m", "exhaustive", "-q", "-p", "no:cacheprovider",
               "-p", "conformance.exhaustive_pytest", *SELECT,
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
        {**current_key("cpu"), "oracle": "an-older-oracle"},
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


def test_a_lost_worker_leaves_the_verdict_incomplete_never_conforming(tmp_path):
    state = tmp_path / "s.jsonl"
    lost = _plancheck(state, "--backend", "test_exhaustive_cli:DiesOnOne", "--jobs", "2",
                      "--shards", "4096", "--sample", "2048", "--op", "neg")  # fmt: skip
    assert lost.returncode == 3, lost.stdout + lost.stderr
    assert "1 of 2 selected shards have no verdict" in lost.stdout
    assert len(Store(state).load()) == 1
    assert json.loads(state.read_text())["start"] == X.shard_range(3072, 4096)[0]
    table = _plancheck(state, "--backend", "test_exhaustive_cli:DiesOnOne", "--table")
    assert table.returncode == 3  # the table does not claim a verdict either
