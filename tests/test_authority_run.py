"""``plancheck run`` by authority, end to end on tests/authority_backend.py's probe:
``--judge`` changes the exit status and never the findings; a deviations pattern and a
plan the file does not name behave as stated; ``--ulp-budget all=N``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from conformance.report import validate_report

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
PROBE = "tests.authority_backend:ProbeBackend"


def _run(tmp_path: Path, name: str, *options: str) -> tuple[int, dict[str, Any], str]:
    report = tmp_path / f"{name}.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--backend", PROBE, "--workers", "0",
         "--report", str(report), *options],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    output = done.stdout + done.stderr
    data = json.loads(report.read_text(encoding="utf-8"))
    validate_report(data)
    return done.returncode, data, output


def _findings(data: dict[str, Any]) -> set[tuple[Any, ...]]:
    return {
        (c["operation"], c["class"], c["count"], tuple(c["plans"]), c["authority"], c["composed"])
        for c in data["deviation_classes"]
    }


def test_judging_by_authority_changes_the_exit_status_never_the_findings(tmp_path) -> None:
    ops = ["--op", "reduce_sum", "--op", "exp", "--op", "exp2"]
    status, every, output = _run(tmp_path, "every", *ops)
    assert status == 1, output[-5000:]
    assert every["options"]["judge"] == ["specification", "reference", "convention"]
    names = {(c["operation"], c["class"]): c for c in every["deviation_classes"]}
    assert set(names) == {
        ("reduce_sum", "wrong-exception:convention"),
        ("exp", "wrong-value:accuracy"),
        ("exp", "wrong-value:exact-point"),
    }
    assert names["reduce_sum", "wrong-exception:convention"]["authority"] == "convention"
    assert names["exp", "wrong-value:accuracy"]["composed"]
    # the composition is not the library's: left out of the counts
    assert every["authority_counts"][PROBE] == {
        "specification": 0, "reference": 0, "convention": 1}  # fmt: skip
    # not measured: counted apart, never a class, never a coverage gap
    (unmeasured,) = every["not_measured"][PROBE]
    assert unmeasured["operation"] == "exp2" and unmeasured["count"] > 0
    assert every["table"][PROBE]["exp2"]["status"] == "not measured"
    assert not every["coverage"][PROBE]["missing"]
    assert "[convention (exception-types)]" in output and "not measured" in output

    status, spec, output = _run(tmp_path, "spec", *ops, "--judge", "specification")
    assert status == 0, output[-5000:]
    assert _findings(spec) == _findings(every)
    assert all(c["judged"] is False for c in spec["deviation_classes"])
    assert spec["table"][PROBE]["reduce_sum"]["status"] == "differs"
    assert "differences from authorities not judged" in output

    status, _, output = _run(tmp_path, "mul", "--op", "mul", "--judge", "specification")
    assert status == 1, output  # Int32 wraps: a SHALL of the specification
    assert "mul@missing-exception:int32-result-overflow" in output


def test_a_pattern_covers_and_a_plan_not_named_is_new(tmp_path) -> None:
    known = tmp_path / "known.txt"
    known.write_text(
        "authority:convention: plancheck's own choices\n"
        "exp/exp(Float32) binary32 -> Float32@wrong-value:accuracy: seen on Float32 only\n"
        "exp@wrong-value:exact-point: exp(0)\n"
    )
    ops = ["--op", "reduce_sum", "--op", "exp", "--xfail", str(known)]
    status, data, output = _run(tmp_path, "new-plan", *ops)
    assert status == 1, output[-5000:]
    accuracy = [c for c in data["deviation_classes"] if c["class"] == "wrong-value:accuracy"]
    assert {(tuple(c["plans"]), c["known"] is None) for c in accuracy} == {
        (("exp(Float32) binary32 -> Float32",), False),
        (("exp(Int32->Float32) binary32 -> Float32",), True),  # the plan not named: new
    }
    # the paste line names the plan it was seen on
    new = next(c for c in accuracy if c["known"] is None)
    assert new["selector"] == "exp/exp(Int32->Float32) binary32 -> Float32@wrong-value:accuracy"

    known.write_text("*@wrong-exception:*: every wrong exception type\nexp@*: the composition\n")
    status, data, output = _run(tmp_path, "patterns", *ops)
    assert status == 0, output[-5000:]
    assert all(c["known"] for c in data["deviation_classes"])


def test_a_budget_for_every_rounded_operation(tmp_path) -> None:
    status, data, output = _run(tmp_path, "budget", "--op", "exp", "--ulp-budget", "all=1")
    assert data["options"]["ulp_budgets"]["exp"] == 1 and data["options"]["ulp_budgets"]["sin"] == 1
    # within 1 ULP everywhere, but exp(0) = 1 is an exact point: still a class
    assert {c["class"] for c in data["deviation_classes"]} == {"wrong-value:exact-point"}
    assert status == 1, output[-5000:]


def test_the_pytest_plugin_judges_by_its_option_and_ini_setting(pytester, monkeypatch) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    base = ("-p", "no:cacheprovider", "--plancheck-backend", PROBE, "--plancheck-op", "reduce_sum")
    result = pytester.runpytest_subprocess(*base, "--plancheck-judge", "specs")
    assert result.ret == 4  # pytest's usage error
    assert "--plancheck-judge: unknown authority 'specs'" in result.stderr.str()
    pytester.makeini("[pytest]\nplancheck_judge = specification\n")
    result = pytester.runpytest_subprocess(*base)
    assert result.ret == 0, result.stdout.str()[-3000:]
    assert "reduce_sum@wrong-exception:convention" in result.stdout.str()
    assert "[not judged]" in result.stdout.str()
    result = pytester.runpytest_subprocess(*base, "--plancheck-judge", "convention")
    assert result.ret == 1  # the option overrides the ini setting
