"""``plancheck plans``: every resolvable plan, spelt as everything else spells it.

One line per plan, ``add(Int32, Int32) int32_exact_checked -> Int32`` --
:meth:`oracle.plan.OperationPlan.describe`, the spelling of reports, test ids,
repro lines and known-deviation files, so a line can be pasted into any of
them.  ``--op NAME`` (repeatable) keeps one operation's plans (an unknown name
is a usage error with the nearest names), ``--json`` prints the plans as a
JSON list (``plan`` plus each field), and ``--table`` the detailed
operand/compute table (the columns ``python -m oracle plans`` prints, drawn by
rich like every terminal table of plancheck).

``--signatures`` prints what ``execute`` receives instead: per operation, its
forward arguments with accepted values, defaults and meanings, and where a weak
scalar may stand (:mod:`conformance.model.signatures`); with ``--json`` as data
(one object per operation), with ``--markdown`` as the tables of
docs/new-backend.md.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from typing import Any

from conformance.model.signatures import markdown_table, signature_of, text_lines
from conformance.report.terminal_table import render_table
from oracle.plan_table import TABLE_HEADER, plan_row
from oracle.planner import resolvable_plans

__all__ = ["add_arguments", "main", "plan_record", "plan_table"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "Example: plancheck plans --op add --op exp"
    parser.add_argument("--op", action="append", default=[], metavar="NAME",
                        help="only these operations (repeatable)")  # fmt: skip
    shape = parser.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="a JSON list, one object per plan")
    shape.add_argument("--table", action="store_true",
                       help="the detailed table: operands, conversions, compute")  # fmt: skip
    shape.add_argument("--markdown", action="store_true",
                       help="with --signatures: docs/new-backend.md's tables")  # fmt: skip
    parser.add_argument("--signatures", action="store_true",
                        help="each operation's forward arguments: names, accepted values, "
                             "defaults, meanings, weak-scalar positions")  # fmt: skip


def plan_record(plan: Any) -> dict[str, Any]:
    """One plan as JSON-able data: its ``describe()`` spelling and its fields.

    A weak-scalar operand has no source dtype: its ``dtype`` is ``null`` (its
    ``convert_to`` is the dtype the plan materialises it in).
    """
    return {
        "plan": plan.describe(),
        "operation": plan.operation,
        "operands": [
            {
                "role": o.role.value,
                "dtype": None if o.dtype is None else o.dtype.name,
                "convert_to": o.convert_to.name,
            }
            for o in plan.operands
        ],
        "compute": plan.compute.name.lower(),
        "accumulation": plan.accumulation.name.lower() if plan.accumulation else None,
        "accumulator_dtype": plan.accumulator_dtype.name if plan.accumulator_dtype else None,
        "output": plan.output.name,
    }


def plan_table(plans: Any) -> str:
    """One row per plan (:func:`oracle.plan_table.plan_row`: the operands with their
    conversions, the compute, the accumulation and the output), drawn by rich
    (:mod:`conformance.report.terminal_table`)."""
    return render_table(TABLE_HEADER, [plan_row(plan) for plan in plans])


def main(arguments: argparse.Namespace) -> int:
    plans = resolvable_plans()
    known = sorted({p.operation for p in plans})
    unknown = [op for op in arguments.op if op not in known]
    if unknown:
        hints = []
        for name in unknown:
            close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
            hints.append(f"{name!r}" + (f" (did you mean {' or '.join(close)}?)" if close else ""))
        print(f"plancheck plans: unknown operation {', '.join(hints)}", file=sys.stderr)
        return 2
    if arguments.op:
        plans = tuple(p for p in plans if p.operation in arguments.op)
    if arguments.signatures:
        return _signatures(arguments, sorted({p.operation for p in plans}))
    if arguments.markdown:
        print(
            "plancheck plans: --markdown prints the signatures: add --signatures", file=sys.stderr
        )
        return 2
    if arguments.table:
        print(plan_table(plans))
    elif arguments.json:
        print(json.dumps([plan_record(p) for p in plans], indent=1))
    else:
        for plan in plans:
            print(plan.describe())
    return 0


def _signatures(arguments: argparse.Namespace, operations: list[str]) -> int:
    """``--signatures``: text, JSON (``--json``) or Markdown (``--markdown``)."""
    table = tuple(signature_of(op) for op in operations)
    if arguments.table:
        print("plancheck plans: --signatures takes --json or --markdown, not --table",
              file=sys.stderr)  # fmt: skip
        return 2
    if arguments.json:
        print(json.dumps([s.as_dict() for s in table], indent=1))
    elif arguments.markdown:
        print(markdown_table(table), end="")
    else:
        print("\n\n".join("\n".join(text_lines(s)) for s in table))
    return 0
