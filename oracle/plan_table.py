"""Plans as table rows, and as a fixed-width text table (``python -m oracle plans``).

The rows and header are the data; ``plancheck plans --table`` draws the same
rows with rich (:mod:`conformance.cli.plans_command`), the oracle pads them itself.
"""

from __future__ import annotations

from collections.abc import Iterable

from .plan import OperationPlan

__all__ = ["TABLE_HEADER", "format_plan_table", "plan_row"]

#: the column names of :func:`plan_row`
TABLE_HEADER = (
    "operation",
    "operands (source->compute)",
    "compute",
    "accumulation",
    "acc dtype",
    "output",
)


def plan_row(plan: OperationPlan) -> tuple[str, ...]:
    """The cells of *plan*: operation, operands (source->compute), compute, accumulation,
    accumulator dtype and output ("-" where a plan has no accumulation)."""
    operands = []
    for operand in plan.operands:
        source = "weak" if operand.dtype is None else operand.dtype.name
        operands.append(f"{source}->{operand.convert_to.name}")
    return (
        plan.operation,
        ", ".join(operands),
        plan.compute.name,
        plan.accumulation.name if plan.accumulation is not None else "-",
        plan.accumulator_dtype.name if plan.accumulator_dtype is not None else "-",
        plan.output.name,
    )


def format_plan_table(plans: Iterable[OperationPlan]) -> str:
    """One row per plan under a header; columns padded to their widest cell."""
    rows = [TABLE_HEADER, *(plan_row(plan) for plan in plans)]
    widths = [max(len(row[column]) for row in rows) for column in range(len(TABLE_HEADER))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)
