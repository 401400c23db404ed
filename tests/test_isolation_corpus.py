"""A corpus case that fails inside its batch and, re-run alone, shows only the backend's
environment (issue 29's leftovers): the run records the batch's class with the case
repeated as its example, names the environment, and ends with its verdict -- the judge
raised IndexError there before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from test_isolation_backends import build_fastmath

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent

BACKEND = '''
import numpy as np
from isolation_backends import FlushesSubnormals


class SpoilsBatches(FlushesSubnormals):
    """FTZ/DAZ on since its import; neg of more than one element spoils element 1."""

    def execute(self, operation, *args, **options):
        result = self.cpu.execute(operation, *args, **options)
        if operation == "neg" and np.size(result) > 1:
            result = np.array(result, copy=True)
            result.reshape(-1)[1] = np.float32(12345.0)
        return result
'''


def test_a_batch_failure_whose_case_alone_shows_only_the_environment(tmp_path):
    fastmath = build_fastmath(tmp_path)
    (tmp_path / "spoils.py").write_text(BACKEND, encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(TESTS), str(ROOT)])
    env["ISOLATION_FASTMATH"] = str(fastmath)
    report = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--backend", "spoils:SpoilsBatches",
         "--op", "neg", "--timeout", "10", "--report", str(report)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert "IndexError" not in output, output[-3000:]
    assert done.returncode == 1, output[-3000:]
    data = json.loads(report.read_text(encoding="utf-8"))
    classes = {c["class"]: c for c in data["deviation_classes"]}
    assert any(name.startswith("fp-environment:") for name in classes), sorted(classes)
    corpus = [c for c in data["deviation_classes"]
              if (c["example"].get("note") or "").startswith("corpus level")]  # fmt: skip
    # the corpus case alone conforms in value (only the environment is seen): its example
    # is the case repeated to the length that shows the batch's class
    assert corpus and all("repeated" in c["example"]["note"] for c in corpus), corpus
    assert all(c["class"].startswith("wrong-value") for c in corpus)
