"""The wheel path in CI (issue 22, item 1): ``.ci/wheel-check`` and its place in ``.ci/run``.

The check itself (build, fresh venv, the three commands from an empty directory)
takes a minute or more, so the suite does not run it whole; CI does, after the
suite.  Here: ``.ci/run`` calls it after pytest and fails when it fails, and the
check fails loudly -- naming the step, non-zero -- when a step fails, given an
interpreter that cannot build.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECK = ROOT / ".ci" / "wheel-check"
RUN = ROOT / ".ci" / "run"


def test_both_scripts_are_valid_bash() -> None:
    for script in (CHECK, RUN):
        result = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
    assert os.access(CHECK, os.X_OK)


def test_ci_runs_the_wheel_check_after_the_suite() -> None:
    text = RUN.read_text(encoding="utf-8")
    suite = text.index("python -m pytest -n auto")
    assert suite < text.index(".ci/wheel-check python || wheel_status=$?")
    assert "'.[dev,onnxruntime,array-api-strict]'" in text  # the dev extra brings `build`
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"build>=1"' in pyproject


def test_the_check_runs_the_three_entry_points_from_the_wheel() -> None:
    text = CHECK.read_text(encoding="utf-8")
    for command in (
        "plancheck run --backend cpu --op add --op exp",
        "--pyargs conformance.suite",
        "plancheck exhaustive --backend cpu --op neg --shards 4096 --shard 0/4096 --jobs 2",
    ):
        assert command in text
    assert 'pip install --quiet "${wheels[0]}"' in text  # the wheel, not the source tree


@pytest.mark.skipif(sys.platform == "win32", reason="a bash script")
def test_a_failing_step_fails_loudly(tmp_path: Path) -> None:
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'no module named build' >&2\nexit 7\n", encoding="utf-8")
    fake.chmod(0o755)
    result = subprocess.run(
        ["bash", str(CHECK), str(fake)], capture_output=True, text=True, timeout=60,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )  # fmt: skip
    assert result.returncode == 1
    assert "wheel-check: FAILED: build the wheel and the sdist (exit status 7)" in result.stderr
    assert "no module named build" in result.stdout  # the step's own output is shown
    leftovers = [p for p in tmp_path.iterdir() if p.name.startswith("plancheck-wheel-check")]
    assert leftovers == []  # the work directory is removed
