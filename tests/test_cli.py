"""``python -m oracle plans`` and ``plancheck plans`` print every resolvable plan.

The expected rows are rendered here from the plan records themselves, so the
table must have a header, a rule and exactly one row per resolvable plan, in
enumeration order.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.cli import main as plancheck_main
from oracle import resolvable_plans
from oracle.__main__ import main as oracle_main

HEADER = (
    "operation",
    "operands (source->compute)",
    "compute",
    "accumulation",
    "acc dtype",
    "output",
)


def _name(dtype) -> str:
    return "-" if dtype is None else dtype.name


def expected_rows() -> list[tuple[str, ...]]:
    rows = []
    for plan in resolvable_plans():
        operands = ", ".join(
            f"{'weak' if o.dtype is None else o.dtype.name}->{o.convert_to.name}"
            for o in plan.operands
        )
        rows.append(
            (
                plan.operation,
                operands,
                plan.compute.name,
                "-" if plan.accumulation is None else plan.accumulation.name,
                _name(plan.accumulator_dtype),
                plan.output.name,
            )
        )
    return rows


def check_table(text: str) -> None:
    lines = text.rstrip("\n").split("\n")
    assert len(lines) == 2 + len(resolvable_plans())
    header, rule, *rows = lines
    assert tuple(re.split(r"\s{2,}", header.strip())) == HEADER
    assert re.fullmatch(r"-+( {2}-+){5}", rule)
    # every column starts where the header's does
    starts, end = [], 0
    for title in HEADER:
        starts.append(header.index(title, end))
        end = starts[-1] + len(title)
    assert [m.start() for m in re.finditer(r"-+", rule)] == starts
    cells = [tuple(re.split(r"\s{2,}", row.rstrip())) for row in rows]
    assert cells == expected_rows()
    for row in rows:
        assert [row[s - 2 : s] for s in starts[1:]] == ["  "] * 5, row


def test_the_plan_table_lists_every_resolvable_plan_once():
    rows = expected_rows()
    assert len(rows) == len(set(rows)) == len(resolvable_plans())
    assert {row[0] for row in rows} >= {"add", "clamp", "matmul", "reduce_sum", "select"}
    # both accumulator choices of Float32 reduce_sum are rows of their own
    assert {r[4] for r in rows if r[:2] == ("reduce_sum", "Float32->Float32")} == {
        "Float32",
        "Float64",
    }


@pytest.mark.parametrize("argv", [["plans"], []], ids=["plans", "no-arguments"])
def test_python_m_oracle_main_prints_the_table(argv, capsys):
    assert oracle_main(argv) == 0
    captured = capsys.readouterr()
    check_table(captured.out)
    assert captured.err == ""


@pytest.mark.parametrize("argv", [["bogus"], ["plans", "extra"]])
def test_python_m_oracle_refuses_other_arguments(argv, capsys):
    assert oracle_main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "usage" in captured.err


def test_plancheck_plans_prints_the_table(capsys):
    assert plancheck_main(["plans", "--table"]) == 0
    check_table(capsys.readouterr().out)


def test_plancheck_plans_spells_plans_as_reports_do(capsys):
    assert plancheck_main(["plans"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [p.describe() for p in resolvable_plans()]
    assert "add(Int32, Int32) int32_exact_checked -> Int32" in lines


def test_plancheck_plans_filters_by_operation_and_prints_json(capsys):
    assert plancheck_main(["plans", "--op", "add", "--op", "neg", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    expected = [p for p in resolvable_plans() if p.operation in ("add", "neg")]
    assert [r["plan"] for r in records] == [p.describe() for p in expected]
    int32 = next(r for r in records if r["plan"].startswith("add(Int32, Int32)"))
    assert int32["compute"] == "int32_exact_checked" and int32["output"] == "Int32"
    assert int32["operands"][0] == {"role": "tensor", "dtype": "Int32", "convert_to": "Int32"}


def test_plancheck_plans_names_the_nearest_operation(capsys):
    assert plancheck_main(["plans", "--op", "ad"]) == 2
    assert "did you mean add?" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [[], ["bogus"]])
def test_plancheck_refuses_a_missing_or_unknown_command(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        plancheck_main(argv)
    assert exit_info.value.code == 2
    assert "usage: plancheck" in capsys.readouterr().err


def _console_script() -> str:
    script = Path(sys.executable).with_name("plancheck")
    if script.exists():
        return str(script)
    found = shutil.which("plancheck")
    assert found, "the plancheck console script is not installed"
    return found


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-m", "oracle", "plans"],
        [sys.executable, "-m", "conformance.cli", "plans", "--table"],
        ["PLANCHECK", "plans", "--table"],
    ],
    ids=["python -m oracle", "python -m conformance.cli", "plancheck"],
)
def test_commands_print_the_table_in_a_subprocess(command, tmp_path):
    if command[0] == "PLANCHECK":
        command = [_console_script(), *command[1:]]
    completed = subprocess.run(
        command, capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False
    )
    assert completed.returncode == 0, completed.stderr
    check_table(completed.stdout)


def test_both_commands_print_the_same_table(capsys):
    oracle_main(["plans"])
    first = capsys.readouterr().out
    plancheck_main(["plans", "--table"])
    assert capsys.readouterr().out == first


@pytest.mark.parametrize(
    "command",
    [[sys.executable, "-m", "oracle", "plans"], [sys.executable, "-m", "conformance.cli", "plans"]],
    ids=["python -m oracle", "python -m conformance.cli"],
)
def test_a_reader_that_stops_early_gets_no_traceback(command, tmp_path):
    """``plancheck plans | head``: a closed pipe ends the command quietly, status 1."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the command writes anything
    try:
        completed = subprocess.run(
            command, stdout=write_end, stderr=subprocess.PIPE, cwd=tmp_path, timeout=120
        )
    finally:
        os.close(write_end)
    error = completed.stderr.decode()
    assert "Traceback" not in error and "BrokenPipe" not in error, error
    assert completed.returncode == 1
