"""Running ``python -m conformance.cli`` as another project would, for the shipping tests:
tests/ (the outside backends) and the checkout on ``PYTHONPATH``, xdist's worker count
left to the command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent


def run_cli(cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    """``plancheck ARGV...`` in *cwd*, its output captured as text."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), str(ROOT), env.get("PYTHONPATH", "")])
    env.pop("PYTEST_XDIST_AUTO_NUM_WORKERS", None)
    return subprocess.run(
        [sys.executable, "-m", "conformance.cli", *argv], cwd=cwd, env=env,
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
