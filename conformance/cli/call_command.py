"""``plancheck call``: one operation on one backend with literal arguments.

``plancheck call [--backend NAME] [--accumulator DTYPE] [--ulp-budget N]
[--expect-error] OPERATION ARG...`` prints the backend's name and version, the
plan, every argument with its bit patterns, the result and the oracle's
verdict.

Exit statuses (as every plancheck command): 0 the result conforms, 1 it does
not, 2 a usage error, 3 no verdict (the oracle declined a call too large for
it).  A usage error is anything that is not a question about the backend: an
unknown operation or backend (with the nearest names), a malformed literal,
and a call that does not plan -- a missing argument, a wrong kind of operand --
unless ``--expect-error`` says the refusal is the point.  Then the backend
must refuse the call with the exception the specification names, and a call
that does plan is the usage error instead.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from typing import Any

from conformance.host.client import BackendHost, HostCrashed, HostLoadError, HostTimeout
from conformance.host.oneshot import call_once
from conformance.model.literals import format_value, parse_argument
from conformance.model.options import ulp_count
from conformance.model.sanitize import terminal_text
from oracle import DType, Tensor
from oracle.evaluate import expected
from oracle.expectation import Verdict
from oracle.limits import OracleLimitError
from oracle.planner import registered_operations

__all__ = ["add_arguments", "main"]

CONFORMS, NOT_CONFORMING, USAGE_ERROR, NO_VERDICT = 0, 1, 2, 3

EXAMPLE = "plancheck call --backend cpu add 'Float32:[1.5, nan]' 'Float32:[2, 2]'"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = f"Example: {EXAMPLE}"
    parser.add_argument("--backend", default="generic", help="generic, cpu or module:attribute")
    parser.add_argument("--accumulator", help="accumulator dtype name, e.g. Float64")
    parser.add_argument(
        "--ulp-budget", type=ulp_count, default=0, help="ULP budget for rounded ops"
    )
    parser.add_argument(
        "--expect-error",
        action="store_true",
        help="the call is meant not to plan: the backend must refuse it with the exception "
        "the specification names",
    )
    parser.add_argument("operation")
    parser.add_argument("args", nargs="*", help="DTYPE:[values] tensors, or plain values")


def _usage(message: str) -> int:
    print(f"plancheck call: {message}", file=sys.stderr)
    return USAGE_ERROR


def _suggestion(name: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(name, choices, n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def _describe(value: Any) -> str:
    if isinstance(value, Tensor):
        shown = ", ".join(format_value(v) for v in value.values)
        return f"{value.dtype.name}{list(value.shape)} [{shown}]"
    return format_value(value)


def main(arguments: argparse.Namespace) -> int:

    operations = [spec.name for spec in registered_operations()]
    if arguments.operation not in operations:
        return _usage(
            f"unknown operation {terminal_text(repr(arguments.operation), 80)}"
            f"{_suggestion(arguments.operation, operations)} (see `plancheck plans`)"
        )
    try:
        call_args = [parse_argument(text) for text in arguments.args]
        accumulator = DType.from_name(arguments.accumulator) if arguments.accumulator else None
    except (ValueError, KeyError, SyntaxError, TypeError) as error:
        return _usage(terminal_text(str(error), 500))
    backend = BackendHost(arguments.backend)  # in a host process, never in plancheck's
    try:
        backend.ensure()
    except (HostLoadError, HostCrashed, HostTimeout) as failure:  # builtins:exit included
        cause = failure.error if isinstance(failure, HostLoadError) else failure
        return _usage(
            f"cannot load backend {terminal_text(repr(arguments.backend), 200)}: "
            f"{type(cause).__name__}: {terminal_text(str(cause), 1000)}"
        )
    # A category or compound accumulator (Floating, MXFP4) is passed on purpose: the
    # oracle and the backend must refuse it with TypeError (the specification), which
    # --expect-error checks; the typed API names only what plans (SimpleDType | None).
    try:
        expectation = expected(
            arguments.operation,
            *call_args,
            accumulator_dtype=accumulator,  # type: ignore[arg-type]
        )
    except OracleLimitError as error:
        print(f"NO VERDICT: oracle declined (too large): {error}")
        return NO_VERDICT
    if expectation.plan is None and not arguments.expect_error:
        return _usage(
            f"{arguments.operation} does not plan with these arguments: "
            f"{type(expectation.error).__name__}: {expectation.error} "
            "(pass --expect-error to check that the backend refuses the call)"
        )
    plan = expectation.plan.describe() if expectation.plan is not None else "(planning fails)"
    if arguments.expect_error and expectation.error is None:
        return _usage(
            f"--expect-error: {arguments.operation} plans ({plan}) and "
            "returns a result; drop --expect-error to check the result"
        )
    name = terminal_text(arguments.backend, 200)
    print(f"backend:   {name} ({terminal_text(backend.version, 200)})")
    print(f"operation: {arguments.operation}")
    print(f"plan:      {plan}")
    for position, value in enumerate(call_args):
        print(f"arg {position}:     {_describe(value)}")
    keywords = {} if accumulator is None else {"accumulator_dtype": accumulator}
    hosted = call_once(backend, arguments.operation, call_args, keywords)
    if hosted.raised is not None:  # the verdict decides whether the exception conforms
        raised = hosted.raised
        print(f"result:    raised {type(raised).__name__}: {terminal_text(str(raised))}")
        verdict = expectation.check_raised(raised)
    elif hosted.result is not None:
        print(f"result:    {_describe(hosted.result)}")
        verdict = expectation.check(hosted.result, ulp_budget=arguments.ulp_budget)
    else:
        print(f"result:    {terminal_text(str(hosted.failure))}")
        verdict = Verdict(False, f"{arguments.operation}: {hosted.failure}")
    print(f"verdict:   {terminal_text(str(verdict))}")
    # what the host saw around the call, as `plancheck run` classes it
    left = [*hosted.environment, *(f"warning {w}" for w in hosted.warnings),
            *(f"modified argument {p}" for p in hosted.modified)]  # fmt: skip
    if left:
        print(f"environment: {terminal_text(', '.join(left))}")
    return CONFORMS if verdict.ok and not left else NOT_CONFORMING
