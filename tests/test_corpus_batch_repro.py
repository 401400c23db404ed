"""A corpus case that fails only on a kernel's vector path gets a repro line that fails.

A real library (TensorFlow's cos) computed a corpus case wrongly inside its
2,720-case chunk and correctly alone: the class's example, the case alone,
printed a repro line that CONFORMS.  The example must be a call that shows the
class: the case repeated to the shortest length that takes the batch's path.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LANE_BUG = '''
import numpy as np
from backends.cpu import CPUBackend


class LaneBug(CPUBackend):
    """Float32 exp one ULP high on its blocked path (calls of 1024 or more elements)."""

    name = "lanebug"

    def execute(self, operation, *args, **options):
        result = super().execute(operation, *args, **options)
        if operation == "exp" and result.dtype == np.float32 and result.size >= 1024:
            bits = result.view(np.uint32).copy()
            finite = np.isfinite(result) & (result > 0)
            bits[finite] += 1
            return bits.view(np.float32)
        return result
'''


def _plancheck(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    return subprocess.run(
        [sys.executable, "-m", "conformance.cli", *args],
        cwd=folder, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_the_example_of_a_batch_only_class_reproduces(tmp_path: Path) -> None:
    (tmp_path / "lanebug.py").write_text(LANE_BUG, encoding="utf-8")
    report = tmp_path / "r.json"
    run = _plancheck(
        tmp_path, "run", "--backend", "lanebug:LaneBug", "--op", "exp", "--workers", "0",
        "--report", str(report),
    )  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    classes = json.loads(report.read_text(encoding="utf-8"))["deviation_classes"]
    # 1 ULP high on exp, a correctly rounded operation: its accuracy class
    one_ulp = [
        c for c in classes if c["operation"] == "exp" and c["class"] == "wrong-value:accuracy"
    ]
    assert one_ulp, [c["class"] for c in classes]
    example = one_ulp[0]["example"]
    argument = json.loads(shlex.split(example["repro"])[-1])["args"][0]
    assert argument["shape"] == [1024]  # the shortest repetition on the blocked path
    assert len(set(argument["bits"])) == 1  # one corpus case, repeated
    repro = _plancheck(tmp_path, *shlex.split(example["repro"])[1:])
    assert repro.returncode == 1, repro.stdout + repro.stderr
