"""Option values shared by ``plancheck run`` and the pytest plugin.

Each function is an ``argparse`` type: it returns the parsed value or raises
:class:`argparse.ArgumentTypeError` with the accepted range, so a bad value is a
usage error (exit 2 from ``plancheck``, 4 from pytest) that names the option,
never a traceback.
"""

from __future__ import annotations

import argparse

__all__ = ["MAX_EXAMPLES_LIMIT", "max_examples", "seed"]

#: more generated calls per plan than any profile uses by three orders of magnitude
MAX_EXAMPLES_LIMIT = 1_000_000


def seed(text: str) -> int:
    """A search seed: an integer in [0, 2**128) (decimal, or ``0x`` hex)."""
    try:
        value = int(text, 0)
    except ValueError:
        value = -1
    if not 0 <= value < 2**128:
        raise argparse.ArgumentTypeError(f"expected an integer seed in [0, 2**128), got {text!r}")
    return value


def max_examples(text: str) -> int:
    """Generated calls per (backend, plan): an integer in [1, :data:`MAX_EXAMPLES_LIMIT`]."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_EXAMPLES_LIMIT:
        raise argparse.ArgumentTypeError(
            f"expected a count in [1, {MAX_EXAMPLES_LIMIT}], got {text!r}"
        )
    return value
