"""Int32 plans: range-wise decisions (plateaus, identity tails) against evaluating every input.

    python benchmarks/bench_exhaustive_int32.py [--ops exp,gelu,...] [--full exp] [--workers 2]

In one run, side by side, for every Int32 plan:

* the sweep (:func:`conformance.exhaustive.check_range`, CPU backend, one
  core) over ``--windows`` windows of ``--width`` consecutive Int32 patterns
  spread evenly over all 2**32, once evaluating every input with the oracle
  (``plateaus=False``, the sweep before issue 14 item 1) and once deciding
  plateaus and identity tails by range; the time of each, of its oracle
  part, and their ratio;
* ``--full OPS``: the real thing, ``plancheck exhaustive --op OP --dtype Int32
  --jobs N --fresh`` over all 2**32 inputs, with ``--every-int32`` (before)
  and without (after), wall time and ratio.

Results: ``benchmarks/results/exhaustive_int32.md`` and ``.json``.  The
machine is shared: absolute figures are noisy; the ratios come from the same
run.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import common  # noqa: E402  (benchmarks/common.py, beside this script)

from conformance import exhaustive as X  # noqa: E402
from conformance.exhaustive import int32 as exhaustive_int32  # noqa: E402
from oracle import vectorised as V  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
INT32_OPS = ",".join(V.ACTIVATIONS)


def measure(op: str, count: int, width: int) -> dict:
    """Both ways over the same windows: seconds in all and in the oracle."""
    if op != "relu":
        exhaustive_int32.int32_ranges(op)  # found once per process: not part of the rate
    step = X.TOTAL // count
    windows = [(i * step + step // 3, i * step + step // 3 + width) for i in range(count)]
    row: dict = {"op": op, "inputs": count * width}
    for label, plateaus in (("every", False), ("ranges", True)):
        seconds = oracle = 0.0
        ok = True
        for lo, hi in windows:
            (result,) = X.check_range("cpu", f"{op}:Int32", lo, hi, plateaus=plateaus)
            seconds += result.seconds
            oracle += result.oracle_seconds
            ok &= result.ok
        row[f"{label}_s"] = seconds
        row[f"{label}_oracle_s"] = oracle
        row[f"{label}_conforming"] = bool(ok)
    row["speedup"] = row["every_s"] / row["ranges_s"]
    row["oracle_speedup"] = row["every_oracle_s"] / row["ranges_oracle_s"]
    row["ranges_full_core_s"] = row["ranges_s"] * X.TOTAL / row["inputs"]
    row["every_full_core_s"] = row["every_s"] * X.TOTAL / row["inputs"]
    return row


def full_sweep(op: str, workers: int, every: bool) -> dict:
    """``plancheck exhaustive --op OP --dtype Int32 --jobs N --fresh``: wall time, exit."""
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "conformance.cli", "exhaustive", "--backend", "cpu",
                   "--op", op, "--dtype", "Int32", "--jobs", str(workers), "--fresh",
                   "--no-progress", "--state", str(Path(tmp) / "state.jsonl")]  # fmt: skip
        if every:
            command.append("--every-int32")
        load = common.load_average()
        began = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - began
    verdict = [line for line in done.stdout.splitlines() if f"{op}:Int32" in line]
    return {
        "op": op,
        "every_int32": every,
        "workers": workers,
        "wall_s": wall,
        "exit": done.returncode,
        "verdict": verdict[0] if verdict else done.stdout[-300:],
        "load_before": load,
        "load_after": common.load_average(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", default=INT32_OPS)
    parser.add_argument("--windows", type=int, default=16)
    parser.add_argument("--width", type=int, default=1 << 20)
    parser.add_argument("--full", default="", help="Int32 plans to sweep fully, both ways")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=str(RESULTS / "exhaustive_int32"))
    arguments = parser.parse_args(argv)
    load = common.load_average()
    rows = []
    for op in [o for o in arguments.ops.split(",") if o]:
        row = measure(op, arguments.windows, arguments.width)
        rows.append(row)
        print(
            f"{op:11s} every input {row['every_s']:6.2f} s, by ranges {row['ranges_s']:6.2f} s: "
            f"{row['speedup']:5.1f}x (oracle {row['oracle_speedup']:6.1f}x)",
            flush=True,
        )
    fulls = []
    for op in [o for o in arguments.full.split(",") if o]:
        pair = [full_sweep(op, arguments.workers, every) for every in (True, False)]
        fulls += pair
        print(
            f"full {op}:Int32 on {arguments.workers} workers: every input "
            f"{pair[0]['wall_s']:.1f} s (exit {pair[0]['exit']}), by ranges "
            f"{pair[1]['wall_s']:.1f} s (exit {pair[1]['exit']}): "
            f"{pair[0]['wall_s'] / pair[1]['wall_s']:.1f}x",
            flush=True,
        )
    document = {
        "command": "python benchmarks/bench_exhaustive_int32.py " + " ".join(argv or sys.argv[1:]),
        **common.machine(),
        "load_start": load,
        "load_end": common.load_average(),
        "sample": {"windows": arguments.windows, "width": arguments.width},
        "rows": rows,
        "full_sweeps": fulls,
    }
    common.write(arguments.out, document, _markdown(document))
    return 0


def _markdown(d: dict) -> str:
    lines = [
        "# Int32 plans: decided by ranges against evaluated input by input",
        "",
        f"`{d['command'].strip()}`",
        "",
        common.machine_sentence(
            d,
            "a shared machine: other jobs ran concurrently, absolute times are noisy, "
            "ratios are from the same run",
        ),
        "",
        f"Sample: {d['sample']['windows']} windows of {d['sample']['width']:,} consecutive "
        "Int32 patterns spread evenly over all 2**32 (one core, CPU backend).  *every* = "
        "the oracle evaluates every input (`--every-int32`, the sweep before plateaus); "
        "*ranges* = plateaus and identity tails decided by range "
        "(`conformance/exhaustive/int32.py`).  Times include the backend and the comparison.",
        "",
        "| plan | every input (s) | by ranges (s) | speedup | oracle: every (s) "
        "| oracle: ranges (s) | oracle speedup | full sweep by ranges, 1 core (s) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in d["rows"]:
        lines.append(
            f"| {r['op']}:Int32 | {r['every_s']:.2f} | {r['ranges_s']:.2f} | "
            f"{r['speedup']:.1f}x | {r['every_oracle_s']:.2f} | {r['ranges_oracle_s']:.3f} | "
            f"{r['oracle_speedup']:.0f}x | {r['ranges_full_core_s']:.0f} |"
        )
    if d["full_sweeps"]:
        lines += [
            "",
            "Full sweeps (all 2**32 Int32 inputs, `plancheck exhaustive --dtype Int32 "
            "--jobs N --fresh`, 64 shards), with `--every-int32` and without:",
            "",
            "| plan | every input | wall (s) | workers | exit | load before | load after |",
            "|---|---|---:|---:|---:|---|---|",
        ]
        for f in d["full_sweeps"]:
            lines.append(
                f"| {f['op']}:Int32 | {'yes' if f['every_int32'] else 'no (ranges)'} | "
                f"{f['wall_s']:.1f} | {f['workers']} | {f['exit']} | {f['load_before']} | "
                f"{f['load_after']} |"
            )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
