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
    python benchmarks/bench_suite.py --compare main [--rounds 2]

``--compare REF`` instead times ``plancheck run --backend cpu --backend generic``
(ci) in a temporary checkout of the git ref *REF* and in this tree, in turn,
*rounds* times each (alternating, so both meet the same load), each run with its
own tree first on ``PYTHONPATH``; it records every wall time and the ratio of
the medians (this tree over REF) in ``results/suite_compare``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
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


def run(backends: tuple[str, ...], workers: str, tree: Path = ROOT) -> dict:
    """One ``plancheck run`` of the ci profile in *tree* (its sources first on
    ``PYTHONPATH``); its report's totals and the wall time."""
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        command = [sys.executable, "-m", "conformance.cli", "run"]
        for name in backends:
            command += ["--backend", name]
        command += ["--profile", "ci", "--workers", workers, "--report", str(report)]
        load = common.load_average()
        began = time.perf_counter()
        status = subprocess.call(command, cwd=tree, stdout=subprocess.DEVNULL, env=environment)
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
    parser.add_argument("--compare", metavar="REF", help="time cpu + generic here against REF")
    parser.add_argument("--rounds", type=int, default=2, help="runs per tree with --compare")
    arguments = parser.parse_args(argv)
    if arguments.compare:
        return compare(arguments.compare, arguments.rounds, arguments.workers, argv)
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


def compare(ref: str, rounds: int, workers: str, argv: list[str] | None) -> int:
    """Time cpu + generic in a checkout of *ref* and here, alternately (see the doc)."""
    load = common.load_average()
    commit = subprocess.check_output(["git", "rev-parse", ref], cwd=ROOT, text=True).strip()
    here = subprocess.check_output(["git", "rev-parse", "HEAD"], cwd=ROOT, text=True).strip()
    with tempfile.TemporaryDirectory() as tmp:
        other = Path(tmp) / "tree"
        subprocess.check_call(
            ["git", "worktree", "add", "--detach", "-q", str(other), commit], cwd=ROOT
        )
        try:
            rows = []
            for round_ in range(rounds):
                for label, tree in ((ref, other), ("this tree", ROOT)):
                    row = {"tree": label, "round": round_, **run(("cpu", "generic"), workers, tree)}
                    rows.append(row)
                    line = f"{label:10s} round {round_}: {row['wall_s']:.1f} s, "
                    print(f"{line}{row['examples']} examples, exit {row['exit']}", flush=True)
        finally:
            subprocess.call(["git", "worktree", "remove", "--force", str(other)], cwd=ROOT)
    median = {
        label: statistics.median(r["wall_s"] for r in rows if r["tree"] == label)
        for label in (ref, "this tree")
    }
    document = {
        "command": "python benchmarks/bench_suite.py " + " ".join(argv or sys.argv[1:]),
        **common.machine(),
        "workers": workers,
        "ref": ref,
        "ref_commit": commit,
        "this_commit": here,
        "load_start": load,
        "rows": rows,
        "median_wall_s": median,
        "ratio": round(median["this tree"] / median[ref], 3),
        "load_end": common.load_average(),
    }
    common.write(common.RESULTS / "suite_compare", document, _compare_markdown(document))
    return 0 if all(r["exit"] == 0 for r in rows) else 1


def _compare_markdown(d: dict) -> str:
    lines = [
        "# Conformance-suite time against a reference commit",
        "",
        f"`{d['command'].strip()}`",
        "",
        common.machine_sentence(
            d, "a shared machine: the runs alternate so both trees meet the same load"
        ),
        "",
        f"`plancheck run --backend cpu --backend generic` (ci, `--workers {d['workers']}`) "
        f"in `{d['ref']}` ({d['ref_commit'][:10]}) and in this tree ({d['this_commit'][:10]}).",
        "",
        "| tree | round | examples | corpus cases | wall (s) | load before |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for r in d["rows"]:
        lines.append(
            f"| {r['tree']} | {r['round']} | {r['examples']:,} | {r['corpus_cases']:,} "
            f"| {r['wall_s']:.1f} | {r['load_before']} |"
        )
    lines += [
        "",
        f"Median wall time: {d['median_wall_s'][d['ref']]:.1f} s in `{d['ref']}`, "
        f"{d['median_wall_s']['this tree']:.1f} s here: a ratio of {d['ratio']:.2f}.",
        "",
    ]
    return "\n".join(lines)


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
