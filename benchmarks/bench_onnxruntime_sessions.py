"""What caching ONNX Runtime sessions saves: the same calls with and without the cache.

Run ``python benchmarks/bench_onnxruntime_sessions.py`` (needs the
``onnxruntime`` extra).  It writes ``benchmarks/results/onnxruntime_sessions.md``
and ``.json``.

The calls are the boundary examples of every resolvable plan (what the ci
profile runs first for each plan), executed through ``OnnxRuntimeBackend``
and judged by nothing (only ``execute`` is timed; an exception the library
raises is part of the call).  *cached* is the backend as shipped: one
session per (operation, plan, attributes, ranks), built on first use and
kept.  *uncached* is the same backend whose session table keeps nothing, so
every call builds its session (the model is made, serialised and loaded by a
new ``InferenceSession``).  The two passes alternate, each on a fresh
backend, and the figures are medians over the rounds; the ratio is what the
cache saves on the suite's calls.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from backends.adapters.onnxruntime_cpu import OnnxRuntimeBackend  # noqa: E402
from benchmarks.common import RESULTS, load_average, machine, machine_sentence, write  # noqa: E402
from conformance.generate.strategies import boundary_examples  # noqa: E402
from oracle import resolvable_plans  # noqa: E402


class _KeepsNothing(dict):  # type: ignore[type-arg]
    """A session table that forgets every session it is given."""

    def __setitem__(self, key: Any, value: Any) -> None:
        return None


def _calls() -> list[Any]:
    return [call for plan in resolvable_plans() for call in boundary_examples(plan)]


def _pass(calls: list[Any], cached: bool) -> tuple[float, int]:
    """Seconds to execute every call on a fresh backend, and the sessions it built."""
    backend = OnnxRuntimeBackend()
    if not cached:
        backend.sessions = _KeepsNothing()
    natives = [
        [backend.from_tensor(a) if hasattr(a, "bits") else a for a in call.args] for call in calls
    ]
    start = time.perf_counter()
    for call, args in zip(calls, natives):
        # the library's or the planner's refusal is part of the call
        with contextlib.suppress(Exception):
            backend.execute(call.operation, *args, accumulator_dtype=call.accumulator_dtype)
    return time.perf_counter() - start, backend.sessions_built


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", default=str(RESULTS / "onnxruntime_sessions"))
    arguments = parser.parse_args()
    load_start = load_average()
    calls = _calls()
    cached, uncached, built = [], [], {}
    for _ in range(arguments.rounds):
        seconds, built[True] = _pass(calls, cached=True)
        cached.append(seconds)
        seconds, built[False] = _pass(calls, cached=False)
        uncached.append(seconds)
    document = {
        **machine(),
        "calls": len(calls),
        "rounds": arguments.rounds,
        "cached_s": [round(s, 3) for s in cached],
        "uncached_s": [round(s, 3) for s in uncached],
        "sessions_cached": built[True],
        "sessions_uncached": built[False],
        "ratio_uncached_over_cached": round(
            statistics.median(uncached) / statistics.median(cached), 2
        ),
        "load_start": load_start,
        "load_end": load_average(),
    }
    markdown = (
        "# ONNX Runtime: what the session cache saves\n\n"
        "`python benchmarks/bench_onnxruntime_sessions.py`: the boundary examples of every "
        f"resolvable plan ({document['calls']} calls), executed by `OnnxRuntimeBackend` with its "
        "session cache and with a session table that keeps nothing, alternately, each pass on a "
        "fresh backend.\n\n"
        "| | passes (s) | median (s) | sessions built |\n|---|---|---|---|\n"
        f"| cached | {', '.join(map(str, document['cached_s']))} | "
        f"{statistics.median(cached):.2f} | {built[True]} |\n"
        f"| uncached | {', '.join(map(str, document['uncached_s']))} | "
        f"{statistics.median(uncached):.2f} | {built[False]} |\n\n"
        f"Ratio uncached / cached: **{document['ratio_uncached_over_cached']}**.\n\n"
        + machine_sentence(document, "the machine is shared: the side-by-side ratio is the figure")
        + "\n"
    )
    write(arguments.out, document, markdown)
    print(markdown)


if __name__ == "__main__":
    main()
