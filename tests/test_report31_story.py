"""The terminal and the report tell the whole story (issue 31, item 3; helper report31):
detail blocks left out are counted and located, several report files from one run,
repro lines of bounded size, the worst element of a class in its block, non-dtype
arguments as what they are, coverage that names its excused pairs and a ``complete``
that agrees with ``pairs_missing``.  End to end on tests/report31_backend.py's Story."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from conformance.findings.failure import REPRO_LIMIT, FailureReport
from conformance.model.codec import call_from_json
from conformance.pytest_plugin.terminal_summary import details_left_out
from conformance.report import validate_report
from conformance.report.markdown import TERMINAL_DETAILS, classes_table_markdown

ROOT = Path(__file__).resolve().parents[1]
STORY = "report31_backend:Story"
OPS = ("add", "mul", "reduce_sum", "floor", "exp", "sqrt")


def _plancheck(cwd: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "tests"),
                                         env.get("PYTHONPATH", "")])  # fmt: skip
    return subprocess.run([sys.executable, "-m", "conformance.cli", *arguments], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=900)  # fmt: skip


@pytest.fixture(scope="module")
def story(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One run of Story over six operations, writing a Markdown and a JSON report."""
    where = tmp_path_factory.mktemp("story")
    ops = [a for op in OPS for a in ("--op", op)]
    reports = ("--report", str(where / "out.md"), "--report", str(where / "out.json"))
    done = _plancheck(where, "run", "--backend", STORY, *ops, "--workers", "0", *reports)
    data = json.loads((where / "out.json").read_text(encoding="utf-8"))
    validate_report(data)
    classes = {f"{c['operation']}@{c['class']}": c for c in data["deviation_classes"]}
    return {"where": where, "done": done, "output": done.stdout + done.stderr,
            "data": data, "classes": classes}  # fmt: skip


def test_one_run_writes_every_report_path(story: dict[str, Any]) -> None:
    assert story["done"].returncode == 1, story["output"][-3000:]
    markdown = (story["where"] / "out.md").read_text(encoding="utf-8")
    for name in story["classes"]:
        assert f"`{name}`" in markdown
    assert (
        f"plancheck reports: {story['where'] / 'out.md'}, {story['where'] / 'out.json'}"
        in (story["output"])
    )


def test_the_terminal_counts_the_detail_blocks_left_out_and_says_where(story) -> None:
    total = len(story["classes"])
    assert total > TERMINAL_DETAILS
    shown = story["output"].count("\n--- ")
    assert shown == TERMINAL_DETAILS
    left = total - TERMINAL_DETAILS
    assert (
        f"{left} detail block{'s' * (left != 1)} left out ({TERMINAL_DETAILS} of {total} shown, "
        f"new classes first): every block is in {story['where'] / 'out.md'}"
    ) in story["output"]
    assert (
        f"details of the first {TERMINAL_DETAILS} of {total} new classes follow"
        in (story["output"])
    )


def test_no_report_the_line_names_the_option() -> None:
    def config(cli: bool) -> SimpleNamespace:
        plugins = [SimpleNamespace(plancheck_cli=True)] if cli else []
        return SimpleNamespace(pluginmanager=SimpleNamespace(get_plugins=lambda: plugins))

    for cli, option in ((True, "--report"), (False, "--plancheck-report")):
        state = SimpleNamespace(report_paths=[], config=config(cli))
        assert details_left_out(state, 20, 12) == (
            f"8 detail blocks left out (12 of 20 shown, new classes first): {option} out.md "
            "(or .html, .json) writes every block"
        )
        assert details_left_out(state, 12, 12) == ""


def test_a_large_call_is_a_file_beside_the_report(story: dict[str, Any]) -> None:
    found = story["classes"]["add@wrong-value:spurious-nan"]
    example = found["example"]
    assert len(example["repro"]) > REPRO_LIMIT  # the JSON keeps the whole line
    path = Path(example["repro_file"])
    assert path.parent == story["where"] / "out.calls" and path.is_file()
    call = call_from_json(path.read_text(encoding="utf-8"))
    assert call.operation == "add" and call.args[0].size == 96
    assert f"reproduce:  plancheck repro --backend {STORY} @{path}" in story["output"]
    assert f"reproduce:  plancheck repro --backend {STORY} @{path}" in example["text"]
    # every printed line is bounded
    assert max(len(line) for line in story["output"].splitlines()) < REPRO_LIMIT + 100


def test_without_a_report_a_long_line_says_where_the_call_is() -> None:
    report = FailureReport("b", "add", "p", "wrong value", "s", repro="x" * (REPRO_LIMIT + 1),
                           python="y" * 10)  # fmt: skip
    text = report.text()
    assert f"({REPRO_LIMIT + 1} characters, more than {REPRO_LIMIT}" in text
    assert "python:     " + "y" * 10 in text
    report.repro_file = "/r/out.calls/add-1.json"
    assert "reproduce:  plancheck repro --backend b @/r/out.calls/add-1.json" in report.text()


def test_the_block_shows_the_worst_element_its_max_speaks_of(story: dict[str, Any]) -> None:
    found = story["classes"]["mul@wrong-value:many-ulps"]
    assert found["max_ulp"] == found["worst"]["ulp"] == 1000
    assert found["example"]["ulp"] == 2  # the smallest call is not the worst
    worst = found["worst"]
    assert "0x7F7FFFFF" in worst["inputs"] and "(0x" in worst["actual"]
    block = story["output"].split("--- mul@wrong-value:many-ulps", 1)[1].split("\n--- ", 1)[0]
    assert f"  worst:      1000 ULP at {tuple(worst['index'])} from ({worst['inputs']})" in block
    assert "the class's worst element; the example below is its smallest call, 2 ULP" in block
    markdown = (story["where"] / "out.md").read_text(encoding="utf-8")
    assert f"  worst:      1000 ULP at {tuple(worst['index'])} from ({worst['inputs']})" in (
        markdown
    )
    table = classes_table_markdown([found])
    row = table.splitlines()[-1]
    assert worst["actual"].split("(")[-1].rstrip(")") in row  # the worst element's bits
    assert row.rstrip(" |").endswith("1000")


def test_non_dtype_arguments_are_shown_as_what_they_are(story: dict[str, Any]) -> None:
    inputs = story["classes"]["reduce_sum@keepdims"]["example"]["inputs"]
    assert inputs[1].startswith("axis=") and inputs[2] == "keepdims=True"
    for found in story["classes"].values():
        if found["operation"] == "reduce_sum":
            assert not any("as Int32" in text for text in found["example"]["inputs"][1:])
    assert "  arg 2:      keepdims=True" in story["output"]


def test_coverage_complete_agrees_with_the_missing_pairs(story: dict[str, Any]) -> None:
    coverage = story["data"]["coverage"][STORY]
    assert coverage["pairs_missing"] == 0 and coverage["result_pairs_missing"] == 0
    assert coverage["complete"] is True


def test_coverage_names_its_excused_pairs(tmp_path: Path) -> None:
    ops = ("--op", "reduce_sum", "--op", "floor", "--unsupported", "zero-size")
    done = _plancheck(tmp_path, "run", "--backend", STORY, *ops, "--workers", "0",
                      "--report", "run.json")  # fmt: skip
    output = done.stdout + done.stderr
    data = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    validate_report(data)
    coverage = data["coverage"][STORY]
    assert coverage["pairs_not_supported"] > 0, output[-3000:]
    assert coverage["pairs_missing"] == 0 and coverage["complete"] is True
    assert coverage["excused_by"][0] == "the unsupported feature zero-size"
    line = next(line for line in output.splitlines() if line.startswith("coverage: "))
    assert (
        f"of {coverage['pairs_applicable']} applicable (plan, boundary class) pairs" in line
        and f"; {coverage['pairs_not_supported']} (plan, boundary class)" in line
        and "excused by the unsupported feature zero-size" in line
    ), line
    assert coverage["pairs_hit"] + coverage["pairs_not_supported"] == coverage["pairs_applicable"]


def test_the_ini_setting_takes_several_report_paths(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\nplancheck_report =\n    ini.json\n    ini.md\n", encoding="utf-8"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
         "--pyargs", "conformance.suite", "--plancheck-backend", "cpu", "--plancheck-op", "neg",
         "-c", str(tmp_path / "pytest.ini"), "--rootdir", str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    data = json.loads((tmp_path / "ini.json").read_text(encoding="utf-8"))
    validate_report(data)
    assert data["result"] == "conforms"
    assert "neg" in (tmp_path / "ini.md").read_text(encoding="utf-8")
