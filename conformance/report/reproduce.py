"""Reproduce one call: what every printed ``python:`` snippet runs.

``from conformance.report import reproduce`` is the documented spelling (the
snippets of :func:`~conformance.findings.failure.python_snippet` print it);
``reproduce_file`` runs a call a report wrote to a file beside itself.
"""

from __future__ import annotations

from typing import Any

import backends
from conformance.findings.failure import format_outcome
from conformance.judge.runner import run_call
from conformance.model.calls import Call
from conformance.model.codec import call_from_json

__all__ = ["reproduce", "reproduce_file"]


def reproduce(backend: str, operation: str, *args: Any, accumulator_dtype: Any = None) -> bool:
    """Run one call on *backend* (a ``backends.get`` name), print its full report,
    return whether it conforms (the function the :func:`python_snippet` lines call)."""
    call = Call(operation, tuple(args), accumulator_dtype, None)  # type: ignore[arg-type]
    call = Call(operation, tuple(args), accumulator_dtype, call.resolve())
    outcome = run_call(backends.get(backend), call)
    print(format_outcome(outcome, backend))
    return outcome.ok


def reproduce_file(backend: str, path: str) -> bool:
    """Run the call whose JSON is in the file *path* (a large call a report wrote beside
    itself, :mod:`conformance.report.repro_files`) on *backend*, print its full report,
    return whether it conforms.  ValueError when the file holds no plancheck call."""
    with open(path, encoding="utf-8") as handle:
        call = call_from_json(handle.read())
    outcome = run_call(backends.get(backend), call)
    print(format_outcome(outcome, backend))
    return outcome.ok
