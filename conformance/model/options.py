"""Option values shared by ``plancheck run`` and the pytest plugin.

Each function is an ``argparse`` type: it returns the parsed value or raises
:class:`argparse.ArgumentTypeError` with the accepted range, so a bad value is a
usage error (exit 2 from ``plancheck``, 4 from pytest) that names the option,
never a traceback.
"""

from __future__ import annotations

import argparse
import math
import os

__all__ = [
    "MAX_EXAMPLES_LIMIT",
    "MAX_SECONDS",
    "PLANS_PER_WORKER",
    "auto_workers",
    "max_examples",
    "seconds",
    "seed",
    "ulp_count",
]

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


#: plans (times backends) one worker should have before another worker pays for itself:
#: a worker costs a few seconds to start (numpy, hypothesis, the suite, collection) and a
#: plan takes a second or two, so a handful of plans runs faster in one process
PLANS_PER_WORKER = 16


def auto_workers(plans: int, cpus: int | None = None) -> int:
    """The xdist worker count for ``--workers auto`` / ``-n auto``: 0 (no workers, the
    run in this process) below ``2 * PLANS_PER_WORKER`` plans, otherwise one worker
    per :data:`PLANS_PER_WORKER` plans, at most *cpus* (default: the CPUs this
    process may run on)."""
    if cpus is None:
        affinity = getattr(os, "sched_getaffinity", None)
        cpus = len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)
    workers = min(max(cpus, 1), plans // PLANS_PER_WORKER)
    return workers if workers >= 2 else 0


#: the longest per-call timeout accepted, in seconds (a day)
MAX_SECONDS = 86_400.0


def seconds(text: str) -> float:
    """A per-call timeout: a finite number of seconds in [0, :data:`MAX_SECONDS`] (0: none)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(
            f"expected seconds in [0, {MAX_SECONDS:g}] (0: no timeout), got {text!r}"
        )
    return value


def ulp_count(text: str) -> int:
    """A ULP budget: an integer in [0, 2**32)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(f"expected a ULP count in [0, 2**32), got {text!r}")
    return value
