"""The ``plancheck`` command line."""

from __future__ import annotations

import argparse
import sys

from oracle.plan_table import format_plan_table
from oracle.planner import resolvable_plans


def _plans(arguments: argparse.Namespace) -> int:
    print(format_plan_table(resolvable_plans()))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="plancheck", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    plans = commands.add_parser("plans", help="print every resolvable plan as a table")
    plans.set_defaults(handler=_plans)
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    return arguments.handler(arguments)


if __name__ == "__main__":
    sys.exit(main())
