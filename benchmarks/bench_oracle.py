"""Oracle throughput per operation family, and the boundary-corpus checker vs TestFloat.

    python benchmarks/bench_oracle.py

Side by side in one run, on the same inputs:

1. ``oracle.expected`` (the scalar reference: planner, materialisation, the
   exact/MPFR rule per element) in elements per second, per operation family,
   beside the raw numpy float32 operation (which does not conform: it is the
   speed of light, not a reference); for the unary families also the
   vectorised certified oracle (:func:`oracle.vectorised.certified`);
2. the vectorised checker of the boundary corpus
   (:func:`conformance.generate.corpus.check_corpus`, level 2, 7,398,400 cases) on the
   CPU backend for add, mul and div, with the exact vectorised reference
   :func:`oracle.vectorised.certified_binary`; and the same pipeline with the
   sweep's comparison (:func:`conformance.exhaustive.count_mismatches`, which
   computes ULP distances only where the bits differ) on exactly 7,496,192
   cases (the level-2 corpus extended cyclically to TestFloat's level-2 case
   count), against the TestFloat anchor: compiled C, binary32 add
   at level 2, about 3.5 million cases per second on one core of this machine.

Results: ``benchmarks/results/oracle.md`` and ``.json``.  One process, one
core; the machine is shared, so absolute rates are noisy (each figure is the
best of ``--repeat`` runs); ratios are from the same run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import common  # noqa: E402  (benchmarks/common.py, beside this script)

import backends  # noqa: E402
from conformance import exhaustive as X  # noqa: E402
from conformance.generate import corpus  # noqa: E402
from oracle import DType, Tensor, resolve_operation_plan  # noqa: E402
from oracle import vectorised as V  # noqa: E402
from oracle.evaluate import expected  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
TESTFLOAT_CASES = 7_496_192
TESTFLOAT_RATE = 3.5e6


def _best(function, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        began = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - began)
    return best


def _inputs(n: int, seed: int, scale: float = 10.0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(n) * scale).astype(np.float32)


def _tensor(a: np.ndarray) -> Tensor:
    return Tensor.from_numpy(a)


def families(n: int, repeat: int) -> list[dict]:
    a, b = _inputs(n, 1), _inputs(n, 2)
    ai = np.random.default_rng(3).integers(-1000, 1000, n).astype(np.int32)
    bi = np.random.default_rng(4).integers(-1000, 1000, n).astype(np.int32)
    k = 48
    ma, mb = _inputs(k * k, 5).reshape(k, k), _inputs(k * k, 6).reshape(k, k)
    with np.errstate(all="ignore"):
        cases = [
            ("elementwise exact (binary32)", "add", (a, b), lambda: np.add(a, b), n),
            ("elementwise exact (binary32)", "div", (a, b), lambda: np.divide(a, b), n),
            ("elementwise Int32 checked", "add", (ai, bi), lambda: np.add(ai, bi), n),
            ("unary exact", "neg", (a,), lambda: np.negative(a), n),
            ("unary exact", "sqrt", (np.abs(a),), lambda: np.sqrt(np.abs(a)), n),
            ("correctly rounded", "exp", (a,), lambda: np.exp(a), n),
            ("correctly rounded", "sin", (a,), lambda: np.sin(a), n),
            (
                "correctly rounded",
                "sigmoid",
                (a,),
                lambda: np.float32(1) / (np.float32(1) + np.exp(-a)),
                n,
            ),
            ("reduction (FLOATING)", "reduce_sum", (a,), lambda: np.sum(a), n),
            ("structured", "matmul", (ma, mb), lambda: ma @ mb, k * k * k),
        ]
    rows = []
    for family, op, operands, raw, work in cases:
        tensors = [_tensor(o) for o in operands]
        with np.errstate(all="ignore"):
            oracle_s = _best(lambda op=op, tensors=tensors: expected(op, *tensors), 1)
            numpy_s = _best(raw, repeat)
        row = {
            "family": family,
            "op": op,
            "elements": work,
            "oracle_expected_per_s": work / oracle_s,
            "numpy_float32_per_s": work / numpy_s,
            "numpy_over_expected": oracle_s / numpy_s,
        }
        if op in V.OPS:
            x = operands[0]
            V.certified(op, x[:16])
            vector_s = _best(lambda op=op, x=x: V.certified(op, x), repeat)
            row["vectorised_certified_per_s"] = work / vector_s
            row["vectorised_over_expected"] = oracle_s / vector_s
            row["numpy_over_vectorised"] = vector_s / numpy_s
        rows.append(row)
        print(
            f"{family:30s} {op:10s} expected {row['oracle_expected_per_s']:12,.0f}/s  "
            f"numpy {row['numpy_float32_per_s']:14,.0f}/s",
            flush=True,
        )
    return rows


def _cpu(op: str):
    backend = backends.get("cpu")
    return lambda x, y: backend.execute(op, x, y)


def corpus_checker(repeat: int) -> list[dict]:
    rows = []
    a2, b2 = corpus.level_operands(2, 2)
    # TestFloat's level-2 case count: the level-2 corpus extended cyclically
    at, bt = np.resize(a2, TESTFLOAT_CASES), np.resize(b2, TESTFLOAT_CASES)
    for op in ("add", "mul", "div"):
        plan = resolve_operation_plan(op, DType.Float32, DType.Float32)
        backend_fn = _cpu(op)

        def reference(x, y, op=op):
            return V.certified_binary(op, x, y)

        holder: dict = {}

        def run_corpus(plan=plan, backend_fn=backend_fn, reference=reference, holder=holder):
            holder["result"] = corpus.check_corpus(plan, backend_fn, reference, level=2)

        corpus_s = _best(run_corpus, repeat)
        result = holder["result"]

        def run_testfloat_count(backend_fn=backend_fn, reference=reference, holder=holder):
            expected_values = reference(at, bt)
            actual = backend_fn(at, bt)
            holder["failures"], _ = X.count_mismatches(expected_values, actual)

        count_s = _best(run_testfloat_count, repeat)
        reference_s = _best(lambda reference=reference: reference(a2, b2), repeat)
        backend_s = _best(lambda backend_fn=backend_fn: backend_fn(a2, b2), repeat)
        e2, act2 = reference(a2, b2), backend_fn(a2, b2)
        compare_s = _best(lambda e2=e2, act2=act2: corpus.compare(e2, act2), repeat)
        fast_s = _best(lambda e2=e2, act2=act2: X.count_mismatches(e2, act2), repeat)
        row = {
            "op": op,
            "corpus_cases": result.cases,
            "corpus_failures": result.failures,
            "corpus_cases_per_s": result.cases / corpus_s,
            "testfloat_count_cases": TESTFLOAT_CASES,
            "testfloat_count_failures": holder["failures"],
            "testfloat_count_cases_per_s": TESTFLOAT_CASES / count_s,
            "reference_cases_per_s": result.cases / reference_s,
            "backend_cases_per_s": result.cases / backend_s,
            "corpus_compare_cases_per_s": result.cases / compare_s,
            "fast_compare_cases_per_s": result.cases / fast_s,
            "vs_testfloat": TESTFLOAT_CASES / count_s / TESTFLOAT_RATE,
        }
        rows.append(row)
        print(
            f"corpus {op}: check_corpus {row['corpus_cases_per_s'] / 1e6:.1f} M cases/s, "
            f"{TESTFLOAT_CASES:,} cases {row['testfloat_count_cases_per_s'] / 1e6:.1f} M/s "
            f"= {row['vs_testfloat']:.1f}x TestFloat, failures {result.failures}",
            flush=True,
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--elements", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", default=str(RESULTS / "oracle"))
    arguments = parser.parse_args(argv)
    load = common.load_average()
    document = {
        "command": "python benchmarks/bench_oracle.py " + " ".join(argv or sys.argv[1:]),
        **common.machine(),
        "load_start": load,
        "families": families(arguments.elements, arguments.repeat),
        "corpus": corpus_checker(max(1, arguments.repeat // 2)),
        "testfloat_anchor_cases_per_s": TESTFLOAT_RATE,
        "load_end": common.load_average(),
    }
    common.write(arguments.out, document, _markdown(document))
    return 0


def _markdown(d: dict) -> str:
    lines = [
        "# Oracle and corpus-checker benchmark",
        "",
        f"`{d['command'].strip()}`",
        "",
        common.machine_sentence(
            d,
            "shared machine: absolute rates are noisy; best of several runs; ratios from "
            "the same run, one core",
        ),
        "",
        "## oracle.expected per operation family, beside raw numpy float32",
        "",
        "Elements per second (matmul: multiply-adds per second).  *vectorised* is "
        "`oracle.vectorised.certified` (unary operations only).",
        "",
        "| family | op | oracle.expected (/s) | vectorised certified (/s) | numpy float32 (/s) "
        "| numpy / expected | vectorised / expected | numpy / vectorised |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in d["families"]:
        vec = r.get("vectorised_certified_per_s")
        if vec is None:
            vectorised = ratio_v = numpy_v = "-"
        else:
            vectorised = f"{vec:,.0f}"
            ratio_v = f"{r['vectorised_over_expected']:,.0f}"
            numpy_v = f"{r['numpy_over_vectorised']:.1f}"
        lines.append(
            f"| {r['family']} | {r['op']} | {r['oracle_expected_per_s']:,.0f} | "
            f"{vectorised} | {r['numpy_float32_per_s']:,.0f} | "
            f"{r['numpy_over_expected']:,.0f} | {ratio_v} | {numpy_v} |"
        )
    lines += [
        "",
        "## Boundary-corpus checker (CPU backend, level 2) vs TestFloat",
        "",
        f"TestFloat anchor: {d['testfloat_anchor_cases_per_s'] / 1e6:.1f} million cases/s "
        "(compiled C, binary32 add, level 2, one core).  Reference: "
        "`oracle.vectorised.certified_binary` (exact).",
        "",
        "| op | check_corpus cases | failures | check_corpus (M cases/s) | check_corpus vs "
        "TestFloat | 7,496,192 cases, fast compare (M cases/s) | failures | vs TestFloat "
        "| reference (M/s) | backend (M/s) "
        "| corpus.compare alone (M/s) | fast compare alone (M/s) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in d["corpus"]:
        lines.append(
            f"| {r['op']} | {r['corpus_cases']:,} | {r['corpus_failures']} | "
            f"{r['corpus_cases_per_s'] / 1e6:.1f} | "
            f"{r['corpus_cases_per_s'] / d['testfloat_anchor_cases_per_s']:.1f}x | "
            f"{r['testfloat_count_cases_per_s'] / 1e6:.1f} "
            f"| {r['testfloat_count_failures']} | {r['vs_testfloat']:.1f}x | "
            f"{r['reference_cases_per_s'] / 1e6:.1f} | {r['backend_cases_per_s'] / 1e6:.1f} | "
            f"{r['corpus_compare_cases_per_s'] / 1e6:.1f} | "
            f"{r['fast_compare_cases_per_s'] / 1e6:.1f} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
