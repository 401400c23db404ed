"""ULP budgets: ``--ulp-budget OP=N`` (``--plancheck-ulp-budget``, ``plancheck_ulp_budget``).

A budget lets a correctly rounded operation's results lie within N ULP of the
correctly rounded value (special values and exact points must still match exactly).
``all=N`` (or ``*=N``) gives every correctly rounded operation the budget N at
once; a later ``OP=M`` overrides it for OP, whatever the order they are given in.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from oracle.evaluate import REFERENCES

__all__ = ["EVERY_ROUNDED", "parse_budgets", "rounded_operations"]

#: the spellings of "every correctly rounded operation"
EVERY_ROUNDED = ("all", "*")


def rounded_operations() -> list[str]:
    """The correctly rounded operations a budget applies to, sorted."""
    return sorted(name for name, reference in REFERENCES.items() if reference.rounded)


def parse_budgets(values: Iterable[str], option: str = "--plancheck-ulp-budget") -> dict[str, int]:
    """Operation -> ULP budget from ``OP=N`` values (``all=N``/``*=N``: every correctly
    rounded operation; an operation named on its own overrides it).  A malformed value,
    an unknown operation or one that is not correctly rounded is a
    :class:`pytest.UsageError` naming *option*."""
    every: int | None = None
    budgets: dict[str, int] = {}
    for value in values:
        operation, equals, number = str(value).partition("=")
        operation = operation.strip()
        try:
            budget = int(number)
        except ValueError:
            budget = -1
        if not equals or budget < 0:
            raise pytest.UsageError(f"{option}: expected OP=N or all=N (N >= 0), got {value!r}")
        if operation in EVERY_ROUNDED:
            every = budget
            continue
        reference = REFERENCES.get(operation)
        if reference is None:
            raise pytest.UsageError(f"{option}: unknown operation {operation!r}")
        if not reference.rounded:
            raise pytest.UsageError(
                f"{option}: {operation} is not a correctly rounded operation "
                f"(a budget applies to {', '.join(rounded_operations())}, or all=N for every one)"
            )
        budgets[operation] = budget
    if every is None:
        return budgets
    return {name: budgets.get(name, every) for name in rounded_operations()}
