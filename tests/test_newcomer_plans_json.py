"""``plancheck plans --json`` over every plan (issue 31: it died on the first weak scalar).

Each record must describe its plan completely: from the record alone the planner
gives the same plan back (the operands as dtypes or weak scalars, the accumulator
dtype), so the JSON is data a tool can use, not only text.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

from conformance.cli import main as plancheck_main
from conformance.cli.plans_command import plan_record
from oracle import DType, OperandRole, resolvable_plans, resolve_operation_plan

ROOT = Path(__file__).resolve().parents[1]

#: a weak scalar of each kind the planner tells apart, by the dtype it becomes
_WEAK = {"Float32": 0.5, "Int32": 3}


def _replan(record: dict) -> str:
    """The plan the planner gives for the record's operands, as ``describe()`` spells it."""
    operands = []
    for operand in record["operands"]:
        if operand["role"] == OperandRole.WEAK_SCALAR.value:
            assert operand["dtype"] is None, record
            operands.append(_WEAK[operand["convert_to"]])
        else:
            operands.append(getattr(DType, operand["dtype"]))
    accumulator = record["accumulator_dtype"]
    plan = resolve_operation_plan(
        record["operation"],
        *operands,
        accumulator_dtype=None if accumulator is None else getattr(DType, accumulator),
    )
    return plan.describe()


def test_plans_json_lists_every_plan_and_each_record_replans_to_itself(capsys):
    assert plancheck_main(["plans", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    plans = resolvable_plans()
    assert [r["plan"] for r in records] == [p.describe() for p in plans]
    weak = [r for r in records if any(o["role"] == "weak_scalar" for o in r["operands"])]
    assert any(r["plan"].startswith("pow(weak->Float32, Float32)") for r in weak)
    for record, plan in zip(records, plans, strict=True):
        assert _replan(record) == record["plan"]
        assert [o["convert_to"] for o in record["operands"]] == [
            o.convert_to.name for o in plan.operands
        ]


def test_a_weak_operand_has_a_null_dtype_and_its_materialised_dtype():
    plan = resolve_operation_plan("pow", Fraction(1, 3), DType.Float32)
    record = plan_record(plan)
    assert record["operands"][0] == {
        "role": "weak_scalar",
        "dtype": None,
        "convert_to": "Float32",
    }
    assert record["plan"] == "pow(weak->Float32, Float32) binary32 -> Float32"


def test_the_command_line_prints_json_for_every_plan_without_a_traceback():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "plans", "--json"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert len(json.loads(done.stdout)) == len(resolvable_plans())
