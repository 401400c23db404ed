"""Exhaustive-sweep throughput, and the vectorised certified oracle against naive MPFR.

    python benchmarks/bench_exhaustive.py [--ops exp,neg,...] [--full neg,exp]

For every operation, in one run and side by side:

* the sweep (:func:`conformance.exhaustive.check_range` on the CPU backend)
  over a *stratified sample* of the 2**32 Float32 inputs: ``--windows``
  windows of ``--width`` consecutive bit patterns at evenly spaced starts,
  so plateaus, NaNs, subnormals and ordinary values all appear in proportion;
  its inputs per second in total, for the oracle alone and for the backend;
* the naive approach: the scalar MPFR oracle (``oracle.reference.rounded`` /
  ``.exact``), one call per element, on ``--naive`` inputs drawn from the same
  windows; the ratio of the vectorised oracle to it;
* the extrapolated single-core time of a full sweep;
* the *float64 floor* of each correctly rounded function: one evaluation of
  its float64 formula (``oracle.vectorised.float64_value``: ``np.exp``,
  ``np.sin``, ``scipy.special.erf``, the composite formulas of sigmoid, silu,
  softplus and gelu), in the oracle's cache-sized pieces, on the inputs of the
  same windows.  Any float64-based certified evaluation pays at least this
  once; the oracle and the backend each pay it once, so a sweep is bounded by
  half the floor.

``--chunks 12,14,15,16,17`` also measures the oracle and the CPU backend of
``--chunk-ops`` at those piece sizes (``2**k`` elements), the evidence for
the sizes the code uses.

``--full OPS`` also runs full 2**32 sweeps of those operations with
``pytest -m exhaustive -n 2`` (a fresh state file) and reports the wall time.

Results: ``benchmarks/results/exhaustive.md`` and ``.json``.  The machine is
shared, so absolute figures are noisy; the ratios come from the same run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import common  # noqa: E402  (benchmarks/common.py, beside this script)

from backends.cpu import transcendental  # noqa: E402
from conformance import exhaustive as X  # noqa: E402
from oracle import vectorised as V  # noqa: E402
from oracle.reference import exact, rounded  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"


def _windows(count: int, width: int) -> list[tuple[int, int]]:
    step = X.TOTAL // count
    return [(i * step + step // 2, i * step + step // 2 + width) for i in range(count)]


def _naive(op: str, windows: list[tuple[int, int]], count: int) -> float:
    rule = rounded.UNARY.get(op) or getattr(exact, op)
    rng = np.random.default_rng(0)
    picks = []
    per = max(1, count // len(windows))
    for lo, hi in windows:
        picks.append(rng.integers(lo, hi, per, dtype=np.uint64))
    patterns = np.concatenate(picks).astype(np.uint32)
    with np.errstate(all="ignore"):
        values = patterns.view(np.float32).astype(np.float64).tolist()
    began = time.perf_counter()
    for v in values:
        rule(v)
    return len(values) / (time.perf_counter() - began)


def _pieces(x: np.ndarray, size: int):
    for start in range(0, x.size, size):
        yield x[start : start + size]


def _floor(op: str, windows: list[tuple[int, int]]) -> float | None:
    """Inputs per second of the bare float64 formula of *op* (None for the exact class)."""
    if op not in V.ROUNDED_OPS:
        return None
    inputs = [V.bit_patterns(lo, hi).view(np.float32) for lo, hi in windows]
    seconds = 0.0
    for x in inputs:
        began = time.perf_counter()
        for piece in _pieces(x, V._CHUNK):
            V.float64_value(op, piece)
        seconds += time.perf_counter() - began
    return sum(x.size for x in inputs) / seconds


def chunk_rates(op: str, windows: list[tuple[int, int]], exponents: list[int]) -> dict:
    """Oracle and CPU-backend inputs/s of *op* at piece sizes 2**k (k in *exponents*)."""
    inputs = [V.bit_patterns(lo, hi).view(np.float32) for lo, hi in windows]
    saved = V._CHUNK, transcendental.CHUNK
    rates: dict[str, dict[int, float]] = {"oracle": {}, "backend": {}}
    try:
        for k in exponents:
            V._CHUNK = transcendental.CHUNK = 1 << k
            for side, run in (
                ("oracle", lambda x: V.certified(op, x)),
                ("backend", lambda x: transcendental.correctly_rounded(op, x)),
            ):
                began = time.perf_counter()
                for x in inputs:
                    run(x)
                rates[side][k] = sum(x.size for x in inputs) / (time.perf_counter() - began)
    finally:
        V._CHUNK, transcendental.CHUNK = saved
    return {"op": op, **rates}


def measure(op: str, windows: list[tuple[int, int]], naive_count: int) -> dict:
    V.segments(op)  # plateaus are found once per process: not part of the rate
    V.certified(op, np.ones(4, np.float32))  # the first call imports scipy for erf/gelu
    totals = {"inputs": 0, "seconds": 0.0, "oracle": 0.0, "backend": 0.0, "scalar": 0}
    ok = True
    for lo, hi in windows:
        (result,) = X.check_range("cpu", f"{op}:Float32", lo, hi)
        ok &= result.ok
        totals["inputs"] += result.inputs
        totals["seconds"] += result.seconds
        totals["oracle"] += result.oracle_seconds
        totals["backend"] += result.backend_seconds
        totals["scalar"] += result.scalar_calls
    naive = _naive(op, windows, naive_count)
    floor = _floor(op, windows)
    sweep_rate = totals["inputs"] / totals["seconds"]
    oracle_rate = totals["inputs"] / totals["oracle"]
    backend_rate = totals["inputs"] / totals["backend"]
    return {
        "op": op,
        "inputs": totals["inputs"],
        "conforming": bool(ok),
        "sweep_inputs_per_s": sweep_rate,
        "oracle_inputs_per_s": oracle_rate,
        "backend_inputs_per_s": backend_rate,
        "float64_floor_inputs_per_s": floor,
        "oracle_vs_floor": None if floor is None else oracle_rate / floor,
        "backend_vs_floor": None if floor is None else backend_rate / floor,
        "scalar_calls_per_million": 1e6 * totals["scalar"] / totals["inputs"],
        "naive_inputs_per_s": naive,
        "oracle_vs_naive": oracle_rate / naive,
        "sweep_vs_naive": sweep_rate / naive,
        "full_sweep_core_s": X.TOTAL / sweep_rate,
        "naive_full_core_h": X.TOTAL / naive / 3600,
    }


def full_sweep(op: str, workers: int) -> dict:
    """A real 2**32 sweep of op:Float32 through pytest-xdist, fresh state, wall time."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ)
        env.update(
            PLANCHECK_EXHAUSTIVE_PLANS=f"{op}:Float32",
            PLANCHECK_EXHAUSTIVE_STATE=str(Path(tmp) / "state.jsonl"),
            PLANCHECK_EXHAUSTIVE_SHARDS="64",
            PLANCHECK_EXHAUSTIVE_ALSO="",
        )
        command = [
            sys.executable,
            "-m",
            "pytest",
            "tests/test_exhaustive_sweep.py",
            "-m",
            "exhaustive",
            "-q",
            "-n",
            str(workers),
            "-p",
            "no:cacheprovider",
        ]
        load = os.getloadavg()
        began = time.perf_counter()
        status = subprocess.call(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - began
        records = X.load_state(Path(tmp) / "state.jsonl")
    (summary,) = X.summarise(records, "cpu")
    return {
        "op": op,
        "workers": workers,
        "wall_s": wall,
        "exit": status,
        "inputs": summary.inputs,
        "complete": summary.complete,
        "non_conforming": summary.non_conforming,
        "load_before": [round(v, 2) for v in load],
        "load_after": [round(v, 2) for v in os.getloadavg()],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", default=",".join(V.OPS))
    parser.add_argument("--windows", type=int, default=32)
    parser.add_argument("--width", type=int, default=1 << 15)
    parser.add_argument("--naive", type=int, default=3000)
    parser.add_argument("--full", default="", help="ops to sweep fully (pytest -n 2)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunks", default="", help="piece sizes 2**k to compare, e.g. 12,15,16")
    parser.add_argument("--chunk-ops", default="sin,cos,erf,silu,softplus,gelu")
    parser.add_argument("--out", default=str(RESULTS / "exhaustive"))
    arguments = parser.parse_args(argv)
    windows = _windows(arguments.windows, arguments.width)
    load = common.load_average()
    rows = []
    for op in [o for o in arguments.ops.split(",") if o]:
        row = measure(op, windows, arguments.naive)
        rows.append(row)
        print(
            f"{op:12s} sweep {row['sweep_inputs_per_s'] / 1e6:7.2f} M/s  oracle "
            f"{row['oracle_inputs_per_s'] / 1e6:7.2f} M/s  "
            f"naive {row['naive_inputs_per_s']:9,.0f}/s"
            f"  oracle/naive {row['oracle_vs_naive']:8,.0f}x",
            flush=True,
        )
    exponents = [int(k) for k in arguments.chunks.split(",") if k]
    chunks = []
    if exponents:
        for op in [o for o in arguments.chunk_ops.split(",") if o]:
            chunks.append(chunk_rates(op, windows, exponents))
            for k in exponents:
                oracle, backend = chunks[-1]["oracle"][k], chunks[-1]["backend"][k]
                print(f"{op:12s} 2**{k}: oracle {oracle / 1e6:.1f}, backend {backend / 1e6:.1f}")
    fulls = [full_sweep(op, arguments.workers) for op in arguments.full.split(",") if op]
    for f in fulls:
        print(
            f"full sweep {f['op']}: {f['wall_s']:.1f} s wall on {f['workers']} workers, "
            f"{f['inputs']:,} inputs, {f['non_conforming']} non-conforming",
            flush=True,
        )
    document = {
        "command": "python benchmarks/bench_exhaustive.py " + " ".join(argv or sys.argv[1:]),
        **common.machine(),
        "load_start": load,
        "load_end": common.load_average(),
        "sample": {"windows": arguments.windows, "width": arguments.width},
        "rows": rows,
        "chunks": chunks,
        "full_sweeps": fulls,
    }
    common.write(arguments.out, document, _markdown(document))
    return 0


def _markdown(d: dict) -> str:
    lines = [
        "# Exhaustive sweep benchmark",
        "",
        f"`{d['command'].strip()}`",
        "",
        common.machine_sentence(
            d,
            "a shared machine: other jobs ran concurrently, absolute rates are noisy, "
            "ratios are from the same run",
        ),
        "",
        f"Sample: {d['sample']['windows']} windows of {d['sample']['width']:,} consecutive "
        "Float32 bit patterns spread evenly over all 2**32 (one core, CPU backend). "
        "*sweep* = certified oracle + backend + comparison; *naive* = the scalar MPFR "
        "oracle, one call per element, on inputs from the same windows.",
        "",
        "*float64 floor* = one evaluation of the function's float64 formula (the "
        "library call(s) alone) on the same inputs, in the oracle's pieces; *oracle / "
        "floor* and *backend / floor* are rates relative to it (1.0 = as fast as one bare "
        "float64 evaluation; the sweep pays an oracle and a backend).",
        "",
        "| op | sweep (M inputs/s) | oracle (M/s) | backend (M/s) | float64 floor (M/s) "
        "| oracle / floor | backend / floor | MPFR calls per 10**6 "
        "| naive (inputs/s) | oracle / naive | sweep / naive | full sweep, 1 core (s) "
        "| naive full sweep, 1 core (h) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in d["rows"]:
        floor = r.get("float64_floor_inputs_per_s")
        floor_cells = (
            "n/a | n/a | n/a"
            if floor is None
            else f"{floor / 1e6:.2f} | {r['oracle_vs_floor']:.2f} | {r['backend_vs_floor']:.2f}"
        )
        lines.append(
            f"| {r['op']} | {r['sweep_inputs_per_s'] / 1e6:.2f} | "
            f"{r['oracle_inputs_per_s'] / 1e6:.2f} | {r['backend_inputs_per_s'] / 1e6:.2f} | "
            f"{floor_cells} | "
            f"{r['scalar_calls_per_million']:.1f} | {r['naive_inputs_per_s']:,.0f} | "
            f"{r['oracle_vs_naive']:,.0f} | {r['sweep_vs_naive']:,.0f} | "
            f"{r['full_sweep_core_s']:,.0f} | {r['naive_full_core_h']:,.1f} |"
        )
    if d.get("chunks"):
        exponents = sorted(d["chunks"][0]["oracle"], key=int)
        lines += [
            "",
            "Piece sizes (the same windows; M inputs/s of the oracle's `certified` and the "
            "CPU backend's `correctly_rounded` with `2**k` elements a piece; the code uses "
            f"2**{V._CHUNK.bit_length() - 1} in the oracle and "
            f"2**{transcendental.CHUNK.bit_length() - 1} in the backend):",
            "",
            "| op | " + " | ".join(f"oracle 2**{k}" for k in exponents) + " | "
            + " | ".join(f"backend 2**{k}" for k in exponents) + " |",
            "|---|" + "---:|" * (2 * len(exponents)),
        ]  # fmt: skip
        for c in d["chunks"]:
            cells = [f"{c['oracle'][k] / 1e6:.1f}" for k in exponents]
            cells += [f"{c['backend'][k] / 1e6:.1f}" for k in exponents]
            lines.append(f"| {c['op']} | " + " | ".join(cells) + " |")
    if d["full_sweeps"]:
        lines += [
            "",
            "Full sweeps (all 2**32 Float32 inputs, `pytest -m exhaustive -n 2`, 64 shards, "
            "fresh state):",
            "",
            "| op | wall (s) | workers | inputs | non-conforming | load before | load after |",
            "|---|---:|---:|---:|---:|---|---|",
        ]
        for f in d["full_sweeps"]:
            lines.append(
                f"| {f['op']} | {f['wall_s']:.1f} | {f['workers']} | {f['inputs']:,} | "
                f"{f['non_conforming']} | {f['load_before']} | {f['load_after']} |"
            )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
