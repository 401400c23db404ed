"""Throughput of the conformance suite: the ``ci`` profile over the built-in backends.

Runs ``plancheck run`` (pytest + pytest-xdist, every plan of
``resolvable_plans()``) once per configuration -- each built-in backend alone,
then both together -- in one process tree after the other, and records from
each run's JSON report the examples judged, the corpus cases checked and the
wall time.  The ratios between the configurations come from the same run, so
they hold even when the shared machine's load makes the absolute rates noisy.
The on-disk oracle cache of the corpus is cleared before the first run
(``--warm`` keeps it), so the first configuration pays for the corpus'
expected values; the others read them from the cache, as a second CI run does.

    python benchmarks/bench_suite.py [--workers auto] [--warm]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import common  # noqa: E402  (benchmarks/common.py, beside this script)

CONFIGURATIONS: tuple[tuple[str, ...], ...] = (("cpu",), ("generic",), ("cpu", "generic"))


def _cache_folder() -> Path:
    """The corpus' on-disk oracle cache of ``plancheck run`` started in the repository root."""
    return ROOT / ".pytest_cache" / "d" / "plancheck-corpus"


def run(backends: tuple[str, ...], workers: str) -> dict:
    """One ``plancheck run`` of the ci profile; its report's totals and the wall time."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        command = [sys.executable, "-m", "conformance.cli", "run"]
        for name in backends:
            command += ["--backend", name]
        command += ["--profile", "ci", "--workers", workers, "--report", str(report)]
        load = common.load_average()
        began = time.perf_counter()
        status = subprocess.call(command, cwd=ROOT, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - began
        document = json.loads(report.read_text())
    per_backend = document["totals"].values()
    examples = sum(int(t["examples"]) for t in per_backend)
    corpus_cases = sum(int(t["corpus_cases"]) for t in per_backend)
    return {
        "backends": list(backends),
        "exit": status,
        "result": document.get("result"),
        "items": document.get("collected_items"),
        "examples": examples,
        "corpus_cases": corpus_cases,
        "wall_s": round(wall, 2),
        "examples_per_s": round(examples / wall, 1),
        "corpus_cases_per_s": round(corpus_cases / wall),
        "load_before": load,
        "load_after": common.load_average(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default="auto", help="pytest-xdist workers (auto, N, 0)")
    parser.add_argument("--warm", action="store_true", help="keep the corpus oracle cache")
    parser.add_argument("--out", default=str(common.RESULTS / "suite"))
    arguments = parser.parse_args(argv)
    if not arguments.warm:
        shutil.rmtree(_cache_folder(), ignore_errors=True)
    load = common.load_average()
    rows = []
    for backends in CONFIGURATIONS:
        row = run(backends, arguments.workers)
        rows.append(row)
        print(
            f"{' + '.join(backends):14s} {row['wall_s']:7.1f} s  {row['examples']:6d} examples "
            f"({row['examples_per_s']:.0f}/s)  {row['corpus_cases']:,} corpus cases  "
            f"exit {row['exit']}",
            flush=True,
        )
    alone = sum(r["wall_s"] for r in rows if len(r["backends"]) == 1)
    together = next(r["wall_s"] for r in rows if len(r["backends"]) == 2)
    document = {
        "command": "python benchmarks/bench_suite.py " + " ".join(argv or sys.argv[1:]),
        **common.machine(),
        "workers": arguments.workers,
        "cold_cache": not arguments.warm,
        "load_start": load,
        "rows": rows,
        "together_vs_alone": round(together / alone, 3),
        "load_end": common.load_average(),
    }
    common.write(arguments.out, document, _markdown(document))
    return 0 if all(r["exit"] == 0 for r in rows) else 1


def _markdown(d: dict) -> str:
    lines = [
        "# Conformance-suite benchmark",
        "",
        f"`{d['command'].strip()}`",
        "",
        common.machine_sentence(
            d, "a shared machine: absolute rates are noisy, ratios are from the same run"
        ),
        "",
        f"`plancheck run --profile ci --workers {d['workers']}` per configuration, "
        f"one after the other; the corpus oracle cache was "
        f"{'cleared before the first run' if d['cold_cache'] else 'kept from earlier runs'}.",
        "",
        "| backends | result | test items | examples | corpus cases | wall (s) | examples/s "
        "| corpus cases/s | load before |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in d["rows"]:
        lines.append(
            f"| {' + '.join(r['backends'])} | {r['result']} | {r['items']} | {r['examples']:,} "
            f"| {r['corpus_cases']:,} | {r['wall_s']:.1f} | {r['examples_per_s']:.0f} "
            f"| {r['corpus_cases_per_s']:,} | {r['load_before']} |"
        )
    lines += [
        "",
        f"Both backends in one run take {d['together_vs_alone']:.2f}x the sum of the two "
        "single-backend runs (shared start-up, collection and oracle cache).",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
