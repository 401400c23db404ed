"""Reports (issue 22, item 7): a warning class shows its warning; an unexpected
exception is named the same in the summary and the details; class counts add up
to the failing calls (corpus cases counted where they are); the ci profile draws
the same calls however plancheck is started.

The backends are in tests/shipping_backends.py, given by import path as another
project's would be; the runs are subprocesses (each its own set of imports).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from conformance.report import validate_report

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), str(ROOT), env.get("PYTHONPATH", "")])
    env.pop("PYTEST_XDIST_AUTO_NUM_WORKERS", None)
    return env


def _plancheck(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", *argv], cwd=tmp_path, env=_env(),
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def _class_lines(output: str) -> dict[str, tuple[str, int]]:
    """selector -> (kind, calls) from the summary's class lines."""
    found = {}
    for line in output.splitlines():
        match = re.match(r"  (\S+@\S+)\s+([a-z ]+), (\d+) calls?", line)
        if match:
            found[match[1]] = (match[2], int(match[3]))
    return found


def test_warning_details_show_the_warning_and_exceptions_are_named_alike(tmp_path: Path) -> None:
    done = _plancheck(tmp_path, "--backend", "shipping_backends:Warny", "--op", "exp", "--op",
                      "neg", "--workers", "0", "--report", "r.json")  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    lines = _class_lines(done.stdout)
    assert lines["exp@warning:overflow"][0] == "warning"
    details = done.stdout.split("--- exp@warning:overflow", 1)[1].split("\n--- ", 1)[0]
    assert "  warning:    RuntimeWarning: overflow encountered in exp -- element (" in details
    refused = [s for s in lines if s.startswith("neg@")]
    assert refused == ["neg@zero-size"]  # every empty operand refused: the feature's name
    assert lines[refused[0]][0] == "unexpected exception"  # the summary's kind ...
    block = done.stdout.split(f"--- {refused[0]} (", 1)[1]
    assert block.startswith("unexpected exception,")  # ... the details' head
    assert "operation neg: unexpected exception" in block  # ... and the report's problem
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    warned = next(c for c in report["deviation_classes"] if c["class"] == "warning:overflow")
    assert warned["example"]["warnings"] == ["RuntimeWarning: overflow encountered in exp"]
    (detail,) = warned["example"]["warning_details"]
    assert (detail["category"], detail["flag"]) == ("RuntimeWarning", "overflow")
    assert detail["index"] is not None and detail["expected"].startswith("inf")
    assert validate_report(report) is None


def test_class_counts_add_up_to_the_failing_calls(tmp_path: Path) -> None:
    for backend, corpus_failed in (("BadExp", None), ("Chunky", 2720)):
        done = _plancheck(tmp_path, "--backend", f"shipping_backends:{backend}", "--op", "exp",
                          "--workers", "0", "--report", "r.json")  # fmt: skip
        assert done.returncode == 1, done.stdout + done.stderr
        report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
        totals = next(iter(report["totals"].values()))
        failing = totals["failed"] + totals["corpus_failed"]
        assert failing > 0
        assert sum(c["count"] for c in report["deviation_classes"]) == failing
        assert sum(n for _, n in _class_lines(done.stdout).values()) == failing
        if corpus_failed is not None:  # a chunk that raised: all its cases fail ...
            assert totals["corpus_failed"] == corpus_failed
            # ... and the cases probed one by one are corpus cases, not examples
            reference = _plancheck(tmp_path, "--backend", "cpu", "--op", "exp", "--workers",
                                   "0", "--report", "c.json")  # fmt: skip
            cpu = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
            assert reference.returncode == 0
            assert totals["examples"] == next(iter(cpu["totals"].values()))["examples"]


def test_the_ci_profile_draws_the_same_calls_however_started(tmp_path: Path) -> None:
    # `select` drew 34 examples through plancheck run and 33 through pytest before the
    # searches ignored hypothesis' local constants (which depend on what is imported)
    counts = []
    for argv in (
        [sys.executable, "-m", "conformance.cli", "run", "--backend", "cpu", "--op", "select",
         "--op", "add", "--workers", "0", "--report", "a.json"],
        [sys.executable, "-m", "conformance.cli", "run", "--backend", "cpu", "--op", "select",
         "--op", "add", "--workers", "2", "--report", "b.json"],
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "2", "--pyargs",
         "conformance.suite", "--plancheck-backend", "cpu", "--plancheck-op", "select",
         "--plancheck-op", "add", "--plancheck-report", "c.json"],
    ):  # fmt: skip
        (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        done = subprocess.run(argv, cwd=tmp_path, env=_env(), capture_output=True, text=True,
                              timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        report = json.loads((tmp_path / argv[-1]).read_text(encoding="utf-8"))
        counts.append({op: row["examples"] for op, row in report["table"]["cpu"].items()})
    assert counts[0] == counts[1] == counts[2], counts
