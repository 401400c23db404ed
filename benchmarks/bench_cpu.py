"""Benchmark the CPU backend against raw numpy, side by side in one run.

Run ``python benchmarks/bench_cpu.py`` (``--quick`` for fewer repeats).  It
writes ``benchmarks/results/cpu.md`` and ``benchmarks/results/cpu.json``.

Every comparison times the backend call (``CPUBackend.execute``: planning,
validation, kernel, result allocation) and its numpy baseline alternately in
the same loop, so a change of machine load hits both; the figures are
medians over the repeats.  The baselines are the obvious numpy spellings,
which are *not* conforming (float32 ufuncs are off by up to a few ulp,
np.sum is pairwise, int32 add wraps, sgemm reassociates and fuses), so a
ratio is the price of conformance, not a like-for-like race.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from backends.cpu import CPUBackend, transcendental  # noqa: E402
from oracle import DType  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
N = 10**6
F32 = np.float32

_erf_object = np.frompyfunc(math.erf, 1, 1)


def _math_erf(x: np.ndarray) -> np.ndarray:
    return _erf_object(x.astype(np.float64)).astype(F32)


def _median_pair(
    first: Callable[[], object], second: Callable[[], object], repeats: int
) -> tuple[float, float]:
    first()  # warm up both (page faults, caches, lazy imports)
    second()
    a, b = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        first()
        a.append(time.perf_counter() - start)
        start = time.perf_counter()
        second()
        b.append(time.perf_counter() - start)
    return statistics.median(a) * 1e3, statistics.median(b) * 1e3


def _fallbacks_per_million(name: str, x: np.ndarray) -> int:
    with np.errstate(all="ignore"):
        y = transcendental.float64_formula(name)(x.astype(np.float64))
    return int(transcendental.near_rounding_boundary(y).sum() * 10**6 // x.size)


def run(repeats: int, matmul_repeats: int) -> dict:
    cpu = CPUBackend()
    rng = np.random.default_rng(2024)
    a = rng.standard_normal(N).astype(F32)
    b = rng.standard_normal(N).astype(F32)
    ia = rng.integers(-(2**29), 2**29, N).astype(np.int32)
    ib = rng.integers(-(2**29), 2**29, N).astype(np.int32)
    # operands whose extremes reach the Int32 edges: the exact int64 path
    ea = ia.copy()
    eb = ib.copy()
    ea[0], eb[0] = 2**31 - 1, -1
    ea[1], eb[1] = -(2**31), 1
    x = (rng.standard_normal(N) * 3).astype(F32)
    positive = np.abs(x) + F32(2.0**-20)
    rows: list[dict] = []

    def row(name: str, ours: Callable, base: Callable, baseline: str, target=None, note=""):
        ours_ms, base_ms = _median_pair(ours, base, repeats)
        rows.append(
            {
                "name": name,
                "cpu_ms": round(ours_ms, 3),
                "baseline_ms": round(base_ms, 3),
                "ratio": round(ours_ms / base_ms, 2),
                "baseline": baseline,
                "target": target,
                "note": note,
            }
        )
        print(f"{name:34s} {ours_ms:9.3f} ms  {base_ms:9.3f} ms  x{ours_ms / base_ms:6.2f}")

    print(f"{'operation (10**6 elements)':34s} {'cpu':>12s} {'numpy':>12s}  ratio")
    row("add float32", lambda: cpu.execute("add", a, b), lambda: np.add(a, b), "np.add", 1.5)
    row(
        "mul float32",
        lambda: cpu.execute("mul", a, b),
        lambda: np.multiply(a, b),
        "np.multiply",
        1.5,
    )
    row(
        "add int32 checked",
        lambda: cpu.execute("add", ia, ib),
        lambda: np.add(ia, ib),
        "np.add int32 (wraps)",
        3.0,
        "operand extremes prove the range: one int32 add",
    )
    row(
        "add int32 checked (edge operands)",
        lambda: cpu.execute("add", ea, eb),
        lambda: np.add(ea, eb),
        "np.add int32 (wraps)",
        None,
        "extremes reach the Int32 edges: exact int64 sum and range check",
    )

    def with_errstate(f: Callable) -> Callable:
        def g():
            with np.errstate(all="ignore"):
                return f()

        return g

    transcendentals = [
        ("exp", x, lambda: np.exp(x), "np.exp float32"),
        ("exp2", x, lambda: np.exp2(x), "np.exp2 float32"),
        ("log", positive, lambda: np.log(positive), "np.log float32"),
        ("log2", positive, lambda: np.log2(positive), "np.log2 float32"),
        ("sin", x, lambda: np.sin(x), "np.sin float32"),
        ("cos", x, lambda: np.cos(x), "np.cos float32"),
        ("tanh", x, lambda: np.tanh(x), "np.tanh float32"),
        ("rsqrt", positive, lambda: F32(1) / np.sqrt(positive), "1/np.sqrt float32"),
        ("sigmoid", x, lambda: F32(1) / (F32(1) + np.exp(-x)), "1/(1+np.exp(-x)) float32"),
        ("silu", x, lambda: x / (F32(1) + np.exp(-x)), "x/(1+np.exp(-x)) float32"),
        ("softplus", x, lambda: np.logaddexp(F32(0), x), "np.logaddexp(0, x) float32"),
        ("elu", x, lambda: np.where(x > 0, x, np.expm1(x)), "where(x>0, x, expm1) float32"),
        ("erf", x, lambda: _math_erf(x), "math.erf via np.frompyfunc (no numpy erf)"),
        (
            "gelu",
            x,
            lambda: F32(0.5) * x * (F32(1) + _math_erf(x * F32(math.sqrt(0.5)))),
            "x/2 (1 + math.erf) via np.frompyfunc",
        ),
    ]
    for name, data, base, label in transcendentals:
        row(
            name,
            lambda name=name, data=data: cpu.execute(name, data),
            with_errstate(base),
            label,
            None,
            f"{_fallbacks_per_million(name, data)} MPFR fallbacks per 10**6",
        )
    pa = np.abs(a) + F32(0.5)
    row(
        "pow float32",
        lambda: cpu.execute("pow", pa, b),
        with_errstate(lambda: np.power(pa, b)),
        "np.power float32",
    )
    for accumulator in (DType.Float32, DType.Float64):
        row(
            f"reduce_sum ({accumulator.name} acc)",
            lambda accumulator=accumulator: cpu.execute(
                "reduce_sum", a, accumulator_dtype=accumulator
            ),
            lambda: np.sum(a),
            "np.sum (pairwise)",
            None,
            "sequential order: add.accumulate in blocks",
        )

    matmul_rows = []
    for size in (256, 1024):
        m1 = rng.standard_normal((size, size)).astype(F32)
        m2 = rng.standard_normal((size, size)).astype(F32)
        count = repeats if size <= 256 else matmul_repeats
        for accumulator in (DType.Float32, DType.Float64):
            ours_ms, base_ms = _median_pair(
                lambda m1=m1, m2=m2, accumulator=accumulator: cpu.execute(
                    "matmul", m1, m2, accumulator_dtype=accumulator
                ),
                lambda m1=m1, m2=m2: np.matmul(m1, m2),
                count,
            )
            matmul_rows.append(
                {
                    "name": f"matmul {size}x{size} ({accumulator.name} acc)",
                    "cpu_ms": round(ours_ms, 2),
                    "baseline_ms": round(base_ms, 2),
                    "ratio": round(ours_ms / base_ms, 1),
                    "baseline": "numpy.matmul (BLAS sgemm)",
                    "repeats": count,
                    "gflops": round(2 * size**3 / (ours_ms * 1e-3) / 1e9, 3),
                }
            )
            print(
                f"matmul {size} ({accumulator.name} acc)  {ours_ms:10.2f} ms  {base_ms:8.2f} ms"
                f"  x{ours_ms / base_ms:7.1f}"
            )
    return {"rows": rows, "matmul": matmul_rows}


def machine() -> dict:
    info = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
    }
    with contextlib.suppress(OSError):
        info["load_average"] = [round(v, 2) for v in os.getloadavg()]
    return info


def write(report: dict) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "cpu.json").write_text(json.dumps(report, indent=2) + "\n")
    m = report["machine"]
    lines = [
        "# CPU backend benchmark",
        "",
        f"`python benchmarks/bench_cpu.py` -- {report['n']:,} elements, median of "
        f"{report['repeats']} alternating runs (matmul 1024: {report['matmul_repeats']}).",
        "",
        f"Machine: {m['processor']}, {m['cpu_count']} cores, {m['platform']}, Python "
        f"{m['python']}, numpy {m['numpy']}; load average at start "
        f"{report['load_before']}, at end {report['load_after']} (a shared machine: "
        "other jobs ran concurrently, so absolute times are noisy; ratios are taken "
        "from alternating runs).",
        "",
        "Baselines are the plain numpy spellings, which do not conform (see the module "
        "docstring of `benchmarks/bench_cpu.py`).",
        "",
        "| operation | cpu (ms) | numpy (ms) | ratio | target | baseline | note |",
        "|---|---:|---:|---:|---:|---|---|",
    ]
    for r in report["rows"]:
        target = f"<= {r['target']}" if r["target"] else ""
        lines.append(
            f"| {r['name']} | {r['cpu_ms']:.3f} | {r['baseline_ms']:.3f} | {r['ratio']:.2f} "
            f"| {target} | {r['baseline']} | {r['note']} |"
        )
    lines += [
        "",
        "| matmul | cpu (ms) | numpy.matmul (ms) | ratio | cpu GFLOP/s |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in report["matmul"]:
        lines.append(
            f"| {r['name']} | {r['cpu_ms']:.1f} | {r['baseline_ms']:.2f} | {r['ratio']:.1f} "
            f"| {r['gflops']:.2f} |"
        )
    lines += [
        "",
        "matmul rounds every product to binary32 and adds over k in order "
        "(rank-1 updates on cache-sized row blocks); BLAS sgemm does neither, so the "
        "gap is the cost of the reference semantics.",
        "",
    ]
    (RESULTS / "cpu.md").write_text("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 repeats, 1 for matmul 1024")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--matmul-repeats", type=int, default=3)
    args = parser.parse_args()
    repeats = 3 if args.quick else args.repeats
    matmul_repeats = 1 if args.quick else args.matmul_repeats
    load_before = machine().get("load_average")
    results = run(repeats, matmul_repeats)
    report = {
        "n": N,
        "repeats": repeats,
        "matmul_repeats": matmul_repeats,
        "machine": machine(),
        "load_before": load_before,
        "load_after": machine().get("load_average"),
        **results,
    }
    write(report)
    print(f"wrote {RESULTS / 'cpu.md'} and {RESULTS / 'cpu.json'}")


if __name__ == "__main__":
    main()
