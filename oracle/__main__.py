"""``python -m oracle plans``: print every resolvable plan.

A reader that stops early (``python -m oracle plans | head``) ends the command
quietly with exit status 1, as a closed pipe should, not with a traceback.
"""

import os
import sys

from .plan_table import format_plan_table
from .planner import resolvable_plans


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args not in ([], ["plans"]):
        print("usage: python -m oracle [plans]", file=sys.stderr)
        return 2
    try:
        print(format_plan_table(resolvable_plans()), flush=True)
    except BrokenPipeError:
        quiet_stdout()
        return 1
    return 0


def quiet_stdout() -> None:
    """Point stdout at the null device after its reader went away.

    Python flushes stdout again at exit; without this that flush raises a
    second BrokenPipeError and prints a traceback.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
