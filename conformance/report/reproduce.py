"""Reproduce one call: what every printed ``python:`` snippet runs.

``from conformance.report import reproduce`` is the documented spelling (the
snippets of :func:`~conformance.findings.failure.python_snippet` print it).
"""

from __future__ import annotations

from typing import Any

import backends
from conformance.findings.failure import format_outcome
from conformance.judge.runner import run_call
from conformance.model.calls import Call

__all__ = ["reproduce"]


def reproduce(backend: str, operation: str, *args: Any, accumulator_dtype: Any = None) -> bool:
    """Run one call on *backend* (a ``backends.get`` name), print its full report,
    return whether it conforms (the function the :func:`python_snippet` lines call)."""
    call = Call(operation, tuple(args), accumulator_dtype, None)  # type: ignore[arg-type]
    call = Call(operation, tuple(args), accumulator_dtype, call.resolve())
    outcome = run_call(backends.get(backend), call)
    print(format_outcome(outcome, backend))
    return outcome.ok
