"""The cost of the backend host (issue 20): the ``ci`` profile over both built-in
backends, before (a checkout without the host) and after (this one), in one session.

Runs ``plancheck run --backend cpu --backend generic --profile ci --workers auto``
alternately from the *before* sources (``--before``, a checkout of the commit to compare
with) and this checkout, from one temporary directory (one warm-up run first, so both
read the corpus' oracle cache), ``--rounds`` times each, and records the wall times,
their medians and the ratio after/before. It also times one 0-d ``neg`` call through
:class:`conformance.host.client.BackendHost` against the same call in-process
(:func:`conformance.judge.runner.run_call` on the backend object): the per-call price of
the crossing. The machine is shared: the load average is recorded, and only the ratio
measured side by side means much.

    python benchmarks/bench_isolation.py --before DIR [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import common  # noqa: E402  (benchmarks/common.py, beside this script)

import backends  # noqa: E402
from conformance.host.client import BackendHost  # noqa: E402
from conformance.judge.runner import run_call  # noqa: E402
from conformance.model.calls import Call  # noqa: E402
from oracle import DType, Tensor, resolvable_plans  # noqa: E402

COMMAND = ["-m", "conformance.cli", "run", "--backend", "cpu", "--backend", "generic",
           "--profile", "ci", "--workers", "auto"]  # fmt: skip


def suite_run(sources: Path, cwd: Path) -> float:
    """Wall seconds of one ci run with *sources* first on the path."""
    env = dict(os.environ, PYTHONPATH=str(sources))
    began = time.perf_counter()
    status = subprocess.call([sys.executable, *COMMAND], cwd=cwd, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    wall = time.perf_counter() - began
    if status != 0:
        raise SystemExit(f"the ci run from {sources} exited with {status}")
    return wall


def per_call(repeat: int = 2000) -> dict[str, float]:
    """Microseconds per 0-d neg call: in-process, and through a backend host."""
    plan = next(p for p in resolvable_plans() if p.operation == "neg")
    call = Call("neg", (Tensor(DType.Float32, (), (1.5,)),), None, plan)
    results = {}
    for label, backend in (("in_process_us", backends.get("cpu")), ("hosted_us", None)):
        host = BackendHost("cpu") if backend is None else None
        target = host if host is not None else backend
        run_call(target, call)  # start the host, warm caches
        began = time.perf_counter()
        for _ in range(repeat):
            run_call(target, call)
        results[label] = round((time.perf_counter() - began) / repeat * 1e6, 1)
        if host is not None:
            host.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=2)
    arguments = parser.parse_args()
    load_before = common.load_average()
    calls = per_call()
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        suite_run(ROOT, cwd)  # warm the corpus cache
        before, after = [], []
        for _ in range(arguments.rounds):
            before.append(round(suite_run(arguments.before, cwd), 2))
            after.append(round(suite_run(ROOT, cwd), 2))
    ratio = statistics.median(after) / statistics.median(before)
    document = {
        "command": "python " + " ".join(COMMAND),
        "before_sources": str(arguments.before),
        "before_s": before,
        "after_s": after,
        "ratio_after_over_before": round(ratio, 3),
        "per_call": calls,
        "load_start": load_before,
        "load_end": common.load_average(),
        **common.machine(),
    }
    markdown = (
        "# The backend host's cost (issue 20)\n\n"
        f"`{document['command']}`, from one temporary directory (corpus cache warm), "
        f"alternately with the sources of {arguments.before} (before: the backend in the "
        f"judge's process) and of this checkout (after: the backend in its host).\n\n"
        "| | runs (s) | median (s) |\n|---|---|---|\n"
        f"| before | {', '.join(map(str, before))} | {statistics.median(before):.2f} |\n"
        f"| after | {', '.join(map(str, after))} | {statistics.median(after):.2f} |\n\n"
        f"Ratio after / before: **{ratio:.3f}** (the issue's bound: 1.2); the runs spread "
        f"over {min(before)}-{max(before)} s before and {min(after)}-{max(after)} s after, "
        f"so on a loaded machine the ratio is known only to that spread.\n\n"
        f"One 0-d `neg` call judged in-process: {calls['in_process_us']} us; through the "
        f"backend host: {calls['hosted_us']} us.\n\n"
        + common.machine_sentence(
            document,
            "the machine is shared with other engineers: "
            "absolute times are noisy, the side-by-side ratio less so",
        )
        + "\n"
    )
    common.write(common.RESULTS / "isolation", document, markdown)
    print(f"before {before} s, after {after} s, ratio {ratio:.3f}; per call {calls}")


if __name__ == "__main__":
    main()
