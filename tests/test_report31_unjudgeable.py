"""A call plancheck could not judge (a hang, a crash, a result the protocol cannot read)
fails the run whatever ``--judge`` names: it rests on the convention ``harness``, but it
is no evidence of conformance to any authority (issue 27 follow-up, helper report31)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.findings.authority import UNJUDGEABLE, authority_of, fails_the_run
from conformance.findings.finding import PLAIN_CLASSES
from conformance.report import validate_report

ROOT = Path(__file__).resolve().parents[1]


def test_the_unjudgeable_classes_are_those_resting_on_the_harness() -> None:
    harness = {
        cls
        for cls in (*PLAIN_CLASSES, "wrong-value:type", "wrong-value:1-ulp", "warning:overflow")
        if authority_of(cls, "neg").key == "harness"
    }
    assert harness == set(UNJUDGEABLE)


@pytest.mark.parametrize("cls", UNJUDGEABLE)
def test_an_unjudgeable_class_fails_whatever_is_judged(cls: str) -> None:
    assert fails_the_run(cls, "convention", frozenset({"specification"}))
    assert fails_the_run(cls, "convention", frozenset({"specification", "reference"}))


def test_other_classes_fail_only_when_their_authority_is_judged() -> None:
    assert not fails_the_run("input-modified", "convention", frozenset({"specification"}))
    assert fails_the_run("input-modified", "convention", frozenset({"convention"}))
    assert not fails_the_run("wrong-value:accuracy", "reference", frozenset({"specification"}))


@pytest.mark.parametrize(("backend", "cls", "status"), [("Hangs", "hang", "TIMEOUT"),
                                                        ("Crashes", "crash", "CRASH")])  # fmt: skip
def test_a_hang_or_crash_fails_a_run_judging_only_the_specification(
    tmp_path: Path, backend: str, cls: str, status: str
) -> None:
    report = tmp_path / "run.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--backend",
         f"tests.isolation_backends:{backend}", "--op", "neg", "--judge", "specification",
         "--timeout", "0.5", "--workers", "0", "--report", str(report)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 1, output[-3000:]
    data = json.loads(report.read_text(encoding="utf-8"))
    validate_report(data)
    assert data["options"]["judge"] == ["specification"]
    (found,) = data["deviation_classes"]
    assert found["class"] == cls and found["authority"] == "convention"
    assert found["judged"] is True
    assert data["table"][f"tests.isolation_backends:{backend}"]["neg"]["status"] == status
    assert data["result"] == "not conforming"
    assert "[not judged]" not in output and "differs" not in output
    assert f"neg@{cls}" in output
