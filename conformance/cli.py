"""The ``plancheck`` command line.

``plancheck plans``
    print every resolvable plan as a table.
``plancheck exhaustive --backend NAME --op OP [--shard I/N]``
    check every input of unary plans against the certified oracle
    (:mod:`conformance.exhaustive`); ``--table`` prints the accuracy table.
``plancheck call [--backend NAME] [--accumulator DTYPE] OPERATION ARG...``
    run one operation on one backend with literal arguments (see
    :mod:`conformance.literals`), print the plan, the result with its bit
    patterns and the oracle's verdict.  Exit status 0 when the result
    conforms, 1 when it does not, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from oracle import DType, Tensor
from oracle.plan_table import format_plan_table
from oracle.planner import resolvable_plans

from .literals import format_value, parse_argument


def _plans(arguments: argparse.Namespace) -> int:
    print(format_plan_table(resolvable_plans()))
    return 0


def _describe(value: Any) -> str:
    if isinstance(value, Tensor):
        shown = ", ".join(format_value(v) for v in value.values)
        return f"{value.dtype.name}{list(value.shape)} [{shown}]"
    return format_value(value)


def _call(arguments: argparse.Namespace) -> int:
    import backends
    from oracle.evaluate import expected

    try:
        call_args = [parse_argument(text) for text in arguments.args]
        accumulator = DType.from_name(arguments.accumulator) if arguments.accumulator else None
    except (ValueError, KeyError, SyntaxError, TypeError) as error:
        print(f"plancheck call: {error}", file=sys.stderr)
        return 2
    backend = backends.get(arguments.backend)
    expectation = expected(arguments.operation, *call_args, accumulator_dtype=accumulator)
    plan = expectation.plan.describe() if expectation.plan is not None else "(planning fails)"
    print(f"operation: {arguments.operation}")
    print(f"plan:      {plan}")
    for position, value in enumerate(call_args):
        print(f"arg {position}:     {_describe(value)}")
    native = [backend.from_tensor(v) if isinstance(v, Tensor) else v for v in call_args]
    try:
        result = backend.execute(arguments.operation, *native, accumulator_dtype=accumulator)
    except Exception as error:  # the verdict decides whether the exception conforms
        print(f"result:    raised {type(error).__name__}: {error}")
        verdict = expectation.check_raised(error)
    else:
        actual = backend.to_tensor(result)
        print(f"result:    {_describe(actual)}")
        verdict = expectation.check(actual, ulp_budget=arguments.ulp_budget)
    print(f"verdict:   {verdict}")
    return 0 if verdict.ok else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="plancheck", description="plancheck: operation dtype policy oracle and conformance"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    plans = commands.add_parser("plans", help="print every resolvable plan as a table")
    plans.set_defaults(handler=_plans)
    call = commands.add_parser(
        "call",
        help="run one operation on one backend with literal arguments",
        description="Example: plancheck call --backend cpu add 'Float32:[1.5, nan]' 2",
    )
    call.add_argument("--backend", default="generic", help="generic, cpu or module:attribute")
    call.add_argument("--accumulator", help="accumulator dtype name, e.g. Float64")
    call.add_argument("--ulp-budget", type=int, default=0, help="ULP budget for rounded ops")
    call.add_argument("operation")
    call.add_argument("args", nargs="*", help="DTYPE:[values] tensors, or plain values")
    call.set_defaults(handler=_call)
    exhaustive = commands.add_parser(
        "exhaustive",
        help="certify unary plans over all 2**32 inputs (sharded, resumable)",
        description="Example: plancheck exhaustive --backend cpu --op exp --shard 3/64",
    )
    _exhaustive_module().add_arguments(exhaustive)
    exhaustive.set_defaults(handler=lambda arguments: _exhaustive_module().main(arguments))
    return parser


def _exhaustive_module():
    from . import exhaustive

    return exhaustive


def main(argv: list[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    return arguments.handler(arguments)


if __name__ == "__main__":
    sys.exit(main())
