"""``python -m oracle plans``: print every resolvable plan."""

import sys

from .plan_table import format_plan_table
from .planner import resolvable_plans


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args not in ([], ["plans"]):
        print("usage: python -m oracle [plans]", file=sys.stderr)
        return 2
    print(format_plan_table(resolvable_plans()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
