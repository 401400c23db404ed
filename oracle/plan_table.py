"""Render plans as a fixed-width text table (``plancheck plans``)."""

from __future__ import annotations

from collections.abc import Iterable

from .plan import OperationPlan

__all__ = ["format_plan_table"]

_HEADERS = (
    "operation",
    "operands (source->compute)",
    "compute",
    "accumulation",
    "acc dtype",
    "output",
)


def _row(plan: OperationPlan) -> tuple[str, ...]:
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
    rows = [_HEADERS, *(_row(plan) for plan in plans)]
    widths = [max(len(row[column]) for row in rows) for column in range(len(_HEADERS))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)
