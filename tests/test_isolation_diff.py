"""``plancheck diff`` runs each backend in its own host (issue 29, isolation in every mode):
a backend that sets FTZ/DAZ or an upward rounding mode at import changes neither the
other backend's results nor the oracle's, and its own results are compared by bits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_isolation_backends import build_fastmath

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def fastmath(tmp_path_factory) -> Path:
    return build_fastmath(tmp_path_factory.mktemp("fastmath"))


def _diff(tmp_path: Path, fastmath: Path, other: str, op: str):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), str(ROOT), env.get("PYTHONPATH", "")])
    env["ISOLATION_FASTMATH"] = str(fastmath)
    report = tmp_path / "diff.json"
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "diff", "--backend", "cpu", "--backend",
         f"isolation_backends:{other}", "--op", op, "--report", str(report)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert report.exists(), output[-3000:]
    return done, json.loads(report.read_text(encoding="utf-8")), output


def test_a_daz_backend_computing_on_bits_agrees_with_cpu(tmp_path, fastmath):
    # in one process, DAZ turned on by the other backend's import flushed the subnormal
    # inputs of the CPU backend's abs too
    done, data, output = _diff(tmp_path, fastmath, "ClearsSignBitsUnderDaz", "abs")
    assert done.returncode == 0, output[-3000:]
    assert data["classes"] == [] and "agree on every call" in data["result"]


def test_a_backend_rounding_upward_disagrees_and_the_oracle_accepts_cpu(tmp_path, fastmath):
    done, data, output = _diff(tmp_path, fastmath, "RoundsUpward", "add")
    assert done.returncode == 1, output[-3000:]
    assert data["classes"], output[-3000:]
    rules = {c["rule"] for c in data["classes"]}
    assert rules == {"the oracle accepts cpu, rejects isolation_backends:RoundsUpward"}, rules
