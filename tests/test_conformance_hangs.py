"""Hangs out of the per-call timeout's reach are cut by the watchdog and reported as
kind ``hang`` with their repro line; the run goes on (issue 15, item 1).

Each hostile backend hangs only on 0-d calls of ``neg`` (so the corpus, whose
calls are 1-d, is judged normally); ``abs`` conforms.  The per-call timeout is
0.5 s, so the watchdog ends a call after 2.5 s in the worker (3 s more from the
controller for a loop that holds the GIL); no assertion depends on how fast
the machine is.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conformance.report import validate_report

ROOT = Path(__file__).resolve().parent.parent

HOSTILE = """
import signal
import time

import backends


class _Hangs:
    def __init__(self):
        self.cpu = backends.get("cpu")

    def from_tensor(self, tensor):
        return self.cpu.from_tensor(tensor)

    def to_tensor(self, native):
        return self.cpu.to_tensor(native)

    def execute(self, operation, *args, **options):
        if operation == "neg" and getattr(args[0], "shape", None) == ():
            self.hang()
        return self.cpu.execute(operation, *args, **options)


class ResetsTimer(_Hangs):
    name = "resets-timer"

    def hang(self):
        signal.setitimer(signal.ITIMER_REAL, 0)
        time.sleep(600)


class SwallowsEverything(_Hangs):
    name = "swallows"

    def hang(self):
        while True:
            try:
                time.sleep(600)
            except BaseException:
                pass


class LoopsInC(_Hangs):
    name = "loops-in-c"

    def hang(self):
        sum(range(10**15))  # never returns to the interpreter, holds the GIL
"""


def _run(
    tmp_path: Path, names: list[str], workers: str
) -> tuple[subprocess.CompletedProcess, dict]:
    (tmp_path / "hostile.py").write_text(HOSTILE, encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT), env.get("PYTHONPATH", "")])
    report = tmp_path / "out.json"
    backends = [a for name in names for a in ("--backend", f"hostile:{name}")]
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", *backends,
         "--op", "neg", "--op", "abs", "--timeout", "0.5", "--workers", workers,
         "--report", str(report)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    data = json.loads(report.read_text(encoding="utf-8"))
    validate_report(data)
    return done, data


HOSTILE_NAMES = ["ResetsTimer", "SwallowsEverything", "LoopsInC"]


def test_a_hang_out_of_the_timeouts_reach_is_cut_and_the_run_goes_on(tmp_path):
    done, data = _run(tmp_path, HOSTILE_NAMES, "1")
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert data["complete"]
    for name in HOSTILE_NAMES:
        label = f"hostile:{name}"
        table = data["table"][label]
        assert table["neg"]["status"] == "TIMEOUT" and table["abs"]["status"] == "conforms"
        (hang,) = [c for c in data["deviation_classes"] if c["backend"] == label]
        assert (hang["operation"], hang["class"], hang["kind"]) == ("neg", "hang", "hang")
        assert hang["repro"].startswith(f"plancheck repro --backend {label}")
        assert '"shape":[]' in hang["repro"]


@pytest.mark.parametrize("workers", ["0", "auto"])
def test_without_workers_the_hang_is_cut_and_the_run_goes_on(tmp_path, workers):
    """The backend runs in its host process for every worker setting (issue 20): the
    judge kills the host at the timeout, starts a fresh one and goes on."""
    started = time.monotonic()
    done, data = _run(tmp_path, ["ResetsTimer", "LoopsInC"], workers)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert data["complete"] and data["result"].startswith("not conforming")
    for name in ("ResetsTimer", "LoopsInC"):
        table = data["table"][f"hostile:{name}"]
        assert table["neg"]["status"] == "TIMEOUT" and table["abs"]["status"] == "conforms"
    classes = {(c["backend"], c["operation"], c["class"]) for c in data["deviation_classes"]}
    assert classes == {("hostile:ResetsTimer", "neg", "hang"), ("hostile:LoopsInC", "neg", "hang")}
    assert time.monotonic() - started < 120
