"""The exhaustive sweep with its backend in a host process, against the sweep in-process.

    python benchmarks/bench_exhaustive_host.py [--backend cpu] [--plans exp:Float32,exp:Int32]
        [--jobs 2] [--rounds 3] [--sample 1] [--floor-sample 16] [--cli] [--transfer]
        [--out exhaustive_host] [--baseline CHECKOUT] [--compile-each-start]

In one run, alternately (issue 29, item 4):

* **the sweep of each plan, hosted and in-process**: ``--jobs`` worker processes take the
  plan's shards from one queue (as pytest-xdist's workers take the items of ``plancheck
  exhaustive --jobs``) and check each with :func:`conformance.exhaustive.check_range`,
  either with the backend's *name* (*hosted*: each worker's backend runs in its host
  process, as every sweep does) or with the backend *object* imported in the worker
  (*in-process*: the sweep before the host, kept here as the baseline).  Before the
  workers start, the parent loads the backend once as ``plancheck exhaustive`` does to
  validate it: in a host (hosted) or by importing it (in-process).  Wall time, and the
  CPU time of every process (the workers and their hosts, from ``getrusage``); the
  rounds alternate which side goes first;
* **the float64 floor** of the plan's function: one evaluation of its float64 formula
  (:func:`oracle.vectorised.float64_value`) on one core, in the oracle's cache-sized
  pieces, over a ``1/--floor-sample`` stratified sample of the inputs, times
  ``--floor-sample`` (the time of evaluating every one of the 2**32 inputs once);
* with ``--cli``: the real thing, ``plancheck exhaustive --op OP --dtype D --jobs N
  --fresh``, its wall time and its ratio to the floor;
* with ``--baseline CHECKOUT``: the same command of another checkout (the commit
  before the sweep moved into the host, c479559: the issue's "before"), each round;
* with ``--transfer``: one chunk's round trip to a child process through the pipe and
  through shared memory (the evidence for :mod:`conformance.host.segment`).

The machine is shared: the load average is recorded before and after, every figure is
the median of the rounds, and only ratios measured in the same run mean much.  Results:
``benchmarks/results/OUT.md`` and ``.json`` (``--out``, default ``exhaustive_host``).
"""

from __future__ import annotations

import argparse
import atexit
import multiprocessing
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import common  # noqa: E402  (benchmarks/common.py, beside this script)

from conformance import exhaustive as X  # noqa: E402
from conformance.exhaustive.compare import split_plan  # noqa: E402
from conformance.host.segment import Segment  # noqa: E402
from oracle import vectorised as V  # noqa: E402

CHUNK = 1 << 20

# ---------------------------------------------------------------------------
# The sweep: hosted and in-process, through the same workers
# ---------------------------------------------------------------------------


def in_process(name: str):
    """The sweep's callable before the host: the backend object, imported and called in
    this process through its numpy exchange."""
    import backends

    backend = backends.get(name)

    def run(op: str, x: np.ndarray) -> np.ndarray:
        return np.asarray(backend.to_numpy(backend.execute(op, backend.from_numpy(x))))

    run.__name__ = name
    return run


def _worker(mode: str, backend: str, plan: str, count: int, queue: Any, bad: Any) -> None:
    """Check the shards *queue* hands out until it hands out None (one worker process)."""
    from conformance.host.client import close_all

    checked = in_process(backend) if mode == "in-process" else backend
    try:
        while (index := queue.get()) is not None:
            start, stop = X.shard_range(index, count)
            (result,) = X.check_range(checked, plan, start, stop)
            if result.non_conforming or result.error or result.environment:
                with bad.get_lock():
                    bad.value += 1
    finally:
        close_all()  # the host is killed and waited for: its CPU time is this process's


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def sweep(mode: str, backend: str, plan: str, jobs: int, shards: list[int], count: int,
          ) -> tuple[float, float]:  # fmt: skip
    """(wall seconds, CPU seconds of every process started) of *plan* over *shards*."""
    context = multiprocessing.get_context("spawn")
    began, cpu = time.perf_counter(), _children_cpu()
    # the validation of ``plancheck exhaustive`` before its workers start
    if mode == "hosted":
        _validate(backend)
    else:
        in_process(backend)
    queue, bad = context.Queue(), context.Value("i", 0)
    for index in shards:
        queue.put(index)
    for _ in range(jobs):
        queue.put(None)
    workers = [context.Process(target=_worker, args=(mode, backend, plan, count, queue, bad))
               for _ in range(jobs)]  # fmt: skip
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    wall, used = time.perf_counter() - began, _children_cpu() - cpu
    if bad.value or any(w.exitcode for w in workers):
        raise SystemExit(f"{mode}: {plan} on {backend} did not conform ({bad.value} shards)")
    return wall, used


def _validate(backend: str) -> None:
    """What ``plancheck exhaustive`` does first, in its own process: load the backend in a
    host and ask for its identity (the host is closed here, and waited for, so that its
    CPU time is counted)."""
    from conformance.exhaustive.state import backend_identity
    from conformance.host.client import close_all

    backend_identity(backend)
    close_all()


def floor_seconds(plan: str, every: int) -> float:
    """Seconds of one evaluation of *plan*'s float64 formula on every one of the 2**32
    inputs, on this core, in the oracle's cache-sized pieces (``V._CHUNK``: the fastest
    evaluation numpy offers, the temporaries in L2): measured on a 1/*every* stratified
    sample, times *every*.  A floor evaluated a sweep chunk (2**20 inputs) at a time was
    tried and dropped: it took 13 s or 38 s for exp:Float32 in the same process state
    but another run, as numpy's large arrays did or did not come back from the
    allocator without page faults."""
    op, dtype = split_plan(plan)
    count = X.default_shards(None, every)
    seconds = 0.0
    for index in X.sampled_shards(count, every):
        start, stop = X.shard_range(index, count)
        patterns = V.bit_patterns(start, stop)
        x = patterns.view(np.float32) if dtype == "Float32" else patterns.view(np.int32)
        began = time.perf_counter()
        for lo in range(0, x.size, V._CHUNK):
            part = x[lo : lo + V._CHUNK]
            V.float64_value(op, part if dtype == "Float32" else part.astype(np.float32))
        seconds += time.perf_counter() - began
    return seconds * every


def cli_sweep(backend: str, plan: str, jobs: int, root: Path = ROOT) -> float:
    """Wall seconds of ``plancheck exhaustive --jobs JOBS --fresh`` over every input, of
    the checkout at *root* (this one, or ``--baseline``'s)."""
    op, dtype = split_plan(plan)
    with tempfile.TemporaryDirectory() as where:
        began = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "conformance.cli", "exhaustive", "--backend", backend,
             "--op", op, "--dtype", dtype, "--jobs", str(jobs), "--fresh", "--no-progress",
             "--state", str(Path(where) / "state.jsonl")],
            capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(root)),
            cwd=where,
        )  # fmt: skip
        wall = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"plancheck exhaustive {plan}: exit {done.returncode}\n"
                         f"{done.stdout[-2000:]}{done.stderr[-2000:]}")  # fmt: skip
    return wall


# ---------------------------------------------------------------------------
# One chunk's transfer (the evidence for shared memory)
# ---------------------------------------------------------------------------

#: the child of the transfer measurement: it answers each request by flipping the sign
#: bits of the chunk, read and written through the pipe, the segment, or not at all
CHILD = """
import sys
import numpy as np
from multiprocessing.connection import Connection
from conformance.host.segment import Segment
reader = Connection(int(sys.argv[1]), writable=False)
writer = Connection(int(sys.argv[2]), readable=False)
count = int(sys.argv[3])
segment = None
while True:
    kind, name = reader.recv()
    if kind == "exit":
        break
    if kind == "pipe":
        x = np.frombuffer(reader.recv_bytes(), np.uint32)
        writer.send_bytes(x ^ np.uint32(0x80000000))
        continue
    if kind == "segment":
        segment = segment or Segment.attach(name)
        x = segment.view(np.uint32, count, output=False)
        segment.view(np.uint32, count, output=True)[:] = x ^ np.uint32(0x80000000)
    else:
        x = np.zeros(count, np.uint32) ^ np.uint32(0x80000000)
    writer.send("done")
"""


def transfer(repeat: int = 40) -> dict[str, float]:
    """Milliseconds per chunk round trip: no array moved, through the pipe, through the
    segment (interleaved, the median of *repeat* each)."""
    to_child, child_in = os.pipe()
    child_out, from_child = os.pipe()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(to_child), str(from_child),
                              str(CHUNK)], pass_fds=(to_child, from_child), env=env)  # fmt: skip
    os.close(to_child)
    os.close(from_child)
    writer = Connection(child_in, readable=False)
    reader = Connection(child_out, writable=False)
    segment = Segment.create(4 * CHUNK)
    x = np.arange(CHUNK, dtype=np.uint32)
    times: dict[str, list[float]] = {"none": [], "pipe": [], "segment": []}
    for _ in range(repeat):
        for kind in times:
            began = time.perf_counter()
            if kind == "pipe":
                writer.send((kind, ""))
                writer.send_bytes(x)
                y = np.frombuffer(reader.recv_bytes(), np.uint32)
            elif kind == "segment":
                segment.view(np.uint32, CHUNK, output=False)[:] = x
                writer.send((kind, segment.name))
                reader.recv()
                y = np.array(segment.view(np.uint32, CHUNK, output=True))
            else:
                writer.send((kind, ""))
                reader.recv()
                y = x ^ np.uint32(0x80000000)
            times[kind].append(time.perf_counter() - began)
            assert int(y[3]) == 3 | 0x80000000
    writer.send(("exit", ""))
    child.wait(30)
    del y
    segment.close()
    return {f"{kind}_ms": round(statistics.median(t) * 1e3, 2) for kind, t in times.items()}


# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------


def _median(values: list[float]) -> float:
    return statistics.median(values)


def measure_plan(arguments: argparse.Namespace, plan: str) -> dict[str, Any]:
    """Every round of *plan*: both sides alternately, the floor, the command lines."""
    count = X.default_shards(None, arguments.sample)
    shards = X.sampled_shards(count, arguments.sample)
    runs: dict[str, dict[str, list[float]]] = {
        side: {"wall": [], "cpu": []} for side in ("in-process", "hosted")
    }
    floors: list[float] = []
    commands: dict[str, list[float]] = {"cli": [], "baseline": []}
    loads: list[list[float]] = []
    for number in range(arguments.rounds):
        loads.append(common.load_average())
        sides = ["in-process", "hosted"] if number % 2 == 0 else ["hosted", "in-process"]
        for side in sides:
            wall, cpu = sweep(side, arguments.backend, plan, arguments.jobs, shards, count)
            runs[side]["wall"].append(round(wall, 2))
            runs[side]["cpu"].append(round(cpu, 2))
        floors.append(round(floor_seconds(plan, arguments.floor_sample), 2))
        if arguments.cli:
            commands["cli"].append(round(cli_sweep(arguments.backend, plan, arguments.jobs), 2))
        if arguments.baseline:
            commands["baseline"].append(round(cli_sweep(
                arguments.backend, plan, arguments.jobs, Path(arguments.baseline)), 2))  # fmt: skip
        print(f"{plan} round {number + 1}: in-process {runs['in-process']['wall'][-1]} s, "
              f"hosted {runs['hosted']['wall'][-1]} s, floor {floors[-1]} s"
              + "".join(f", {name} {times[-1]} s" for name, times in commands.items() if times)
              + f" (load {loads[-1]})", flush=True)  # fmt: skip
    hosted, local = runs["hosted"], runs["in-process"]
    share = len(shards) / count
    # every sweep's median wall time over all 2**32 inputs, and its ratio to the floor
    full = {"hosted": _median(hosted["wall"]) / share, "in-process": _median(local["wall"]) / share}
    full.update({name: _median(times) for name, times in commands.items() if times})
    return {
        "plan": plan,
        "share_of_inputs": share,
        "in_process_wall_s": local["wall"],
        "hosted_wall_s": hosted["wall"],
        "in_process_cpu_s": local["cpu"],
        "hosted_cpu_s": hosted["cpu"],
        "wall_ratio_hosted_over_in_process": round(full["hosted"] / full["in-process"], 3),
        "cpu_ratio_hosted_over_in_process": round(
            _median(hosted["cpu"]) / _median(local["cpu"]), 3
        ),
        "cli_wall_s": commands["cli"],
        "baseline_wall_s": commands["baseline"],
        "cli_over_baseline": round(full["cli"] / full["baseline"], 3)
        if commands["cli"] and commands["baseline"]
        else None,
        "floor_s": floors,
        "over_floor": {name: round(seconds / _median(floors), 3) for name, seconds in full.items()},
        "loads": loads,
    }


#: the sweeps of the floor table, in order: key -> what the row says
_SWEEPS = {
    "hosted": "hosted (the workers above)",
    "in-process": "in-process (the workers above)",
    "cli": "`plancheck exhaustive` of this checkout",
    "baseline": "`plancheck exhaustive` of the baseline",
}


def _runs(values: list[float]) -> str:
    return ", ".join(map(str, values))


def _markdown(document: dict[str, Any]) -> str:
    jobs = document["jobs"]
    every = document["floor_sample"]
    lines = [
        "# The exhaustive sweep through the backend host, against in-process (issue 29, item 4)\n",
        f"`{document['command']}`\n",
        f"Each round runs, for each plan, the sweep with the backend in its host (*hosted*, "
        f"what every sweep does) and with the backend imported in the workers "
        f"(*in-process*, the sweep before the host), alternately and in the same way: "
        f"{jobs} worker process{'es' if jobs != 1 else ''} taking the plan's shards from "
        f"one queue, each shard "
        f"checked by `conformance.exhaustive.check_range`, after one validating load of "
        f"the backend (in a host / by import) as `plancheck exhaustive` does.  CPU is "
        f"every process's (workers and hosts, `getrusage`).\n",
        "| plan | inputs | in-process wall, runs (s) | hosted wall, runs (s) | hosted / "
        "in-process, wall (medians) | in-process CPU (s) | hosted CPU (s) | CPU ratio |",
        "|---|---|---|---|---:|---|---|---:|",
    ]
    for r in document["plans"]:
        share = "all 2**32" if r["share_of_inputs"] == 1 else f"1/{round(1 / r['share_of_inputs'])}"
        lines.append(
            f"| {r['plan']} | {share} | {_runs(r['in_process_wall_s'])} | "
            f"{_runs(r['hosted_wall_s'])} | **{r['wall_ratio_hosted_over_in_process']:.3f}** | "
            f"{_runs(r['in_process_cpu_s'])} | {_runs(r['hosted_cpu_s'])} | "
            f"{r['cpu_ratio_hosted_over_in_process']:.3f} |"
        )
    if document.get("baseline"):
        lines.append(
            f"\n*Baseline*: `plancheck exhaustive --op OP --dtype D --jobs {jobs} --fresh` of "
            f"the checkout of commit {document['baseline_commit']} (`--baseline`; the commit "
            f"before the sweep moved into the host: its backend runs in the workers), each "
            f"round right after the same command of this checkout.\n"
        )
        lines.append("| plan | this checkout, runs (s) | baseline, runs (s) | this / baseline |")
        lines.append("|---|---|---|---:|")
        for r in document["plans"]:
            lines.append(
                f"| {r['plan']} | {_runs(r['cli_wall_s'])} | {_runs(r['baseline_wall_s'])} | "
                f"**{r['cli_over_baseline']:.3f}** |"
            )
    lines += [
        f"\n## The float64 floor\n\nOne evaluation of the function's float64 formula "
        f"(`oracle.vectorised.float64_value`: `np.exp` of the inputs as float64) on one core "
        f"over all 2**32 inputs, measured on a 1/{every} stratified sample, times {every}, "
        f"in the oracle's cache-sized pieces ({V._CHUNK:,} inputs; the fastest "
        f"evaluation numpy offers).  A sweep's ratio to the floor is its wall time "
        f"over all 2**32 inputs over the floor's (the issue's bounds: 0.40 for exp:Float32, "
        f"0.55 for exp:Int32).\n",
        "| plan | floor, runs (s) | "
        + " | ".join(_SWEEPS[k] for k in _SWEEPS if k in document["plans"][0]["over_floor"])
        + " |",
        "|---|---|" + "---:|" * len(document["plans"][0]["over_floor"]),
    ]
    for r in document["plans"]:
        ratios = " | ".join(f"{r['over_floor'][k]:.3f}" for k in _SWEEPS if k in r["over_floor"])
        lines.append(f"| {r['plan']} | {_runs(r['floor_s'])} | {ratios} |")
    if document.get("bytecode"):
        lines.append(f"\nPython bytecode of plancheck: {document['bytecode']}.")
    lines.append(f"\nLoad average at the start of each round: "
                 f"{'; '.join(str(r['loads']) for r in document['plans'])}.\n")  # fmt: skip
    moved = document.get("transfer_per_chunk")
    if moved:
        lines.append(
            f"## One chunk's transfer ({CHUNK:,} uint32 each way, median of 40)\n\n"
            "| round trip | ms |\n|---|---:|\n"
            f"| no array moved (the child computes alone) | {moved['none_ms']} |\n"
            f"| through the pipe (`send_bytes` / `recv_bytes`) | {moved['pipe_ms']} |\n"
            f"| through shared memory (`conformance.host.segment`) | {moved['segment_ms']} |\n"
        )
    lines.append(
        common.machine_sentence(
            document,
            "the machine is shared with other engineers: absolute times are noisy, the "
            "side-by-side ratios less so",
        )
        + "\n"
    )
    return "\n".join(lines)


def _arguments(arguments: argparse.Namespace) -> list[str]:
    """This run's command-line arguments as the results show them: the baseline's
    checkout by its commit (a path names one machine)."""
    shown = sys.argv[1:]
    if arguments.baseline:
        shown = [f"<checkout of {_commit(arguments.baseline)}>" if a == arguments.baseline
                 else a for a in shown]  # fmt: skip
    return shown


def _commit(checkout: str) -> str:
    """The short commit of the git checkout at *checkout*."""
    done = subprocess.run(["git", "-C", checkout, "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return done.stdout.strip()


def _bytecode_forbidden() -> bool:
    """Whether this environment keeps Python from writing bytecode (so that every
    process it starts compiles the sources it imports)."""
    return sys.flags.dont_write_bytecode or bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))


def cache_bytecode(roots: list[Path]) -> str:
    """Let every process this run starts read compiled bytecode, as an installed package
    does (pip compiles it at install; a checkout's first run writes ``__pycache__``).
    Where the environment forbids writing it (``PYTHONDONTWRITEBYTECODE``), every process
    would compile plancheck's sources again at each start -- the hosts and workers of
    each sweep, the command's own processes: the trees at *roots* are compiled once into
    a temporary ``PYTHONPYCACHEPREFIX`` that the children inherit.  Returns what the
    results say of it."""
    if not _bytecode_forbidden():
        return "as the environment has it (written and read)"
    prefix = tempfile.mkdtemp(prefix="plancheck-bytecode-")
    atexit.register(shutil.rmtree, prefix, ignore_errors=True)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = prefix
    folders = [str(root / name) for root in roots for name in ("oracle", "backends", "conformance")]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *folders], check=True)
    return (
        "compiled once before the run into a temporary `PYTHONPYCACHEPREFIX` (this "
        "environment sets `PYTHONDONTWRITEBYTECODE`; an installed package has its bytecode)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--plans", default="exp:Float32,exp:Int32")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sample", type=int, default=1, help="K: every K-th of the shards")
    parser.add_argument("--floor-sample", type=int, default=16)
    parser.add_argument("--cli", action="store_true", help="also time plancheck exhaustive")
    parser.add_argument("--transfer", action="store_true", help="also time one chunk's transfer")
    parser.add_argument("--baseline", metavar="CHECKOUT",
                        help="also time plancheck exhaustive of another checkout (an earlier "
                             "commit: the pre-host c479559)")  # fmt: skip
    parser.add_argument("--out", default="exhaustive_host",
                        help="results name in benchmarks/results/ (.md and .json)")  # fmt: skip
    parser.add_argument("--compile-each-start", action="store_true",
                        help="keep PYTHONDONTWRITEBYTECODE as the environment has it: every "
                             "process compiles the sources at its start")  # fmt: skip
    arguments = parser.parse_args()
    roots = [ROOT] + ([Path(arguments.baseline)] if arguments.baseline else [])
    if not arguments.compile_each_start:
        bytecode = cache_bytecode(roots)
    elif _bytecode_forbidden():
        bytecode = "compiled by every process at its start (`--compile-each-start`)"
    else:
        bytecode = "as the environment has it (written and read; `--compile-each-start`)"
    load_start = common.load_average()
    moved = transfer() if arguments.transfer else None
    plans = [measure_plan(arguments, p.strip()) for p in arguments.plans.split(",") if p.strip()]
    document: dict[str, Any] = {
        "command": "python benchmarks/bench_exhaustive_host.py " + " ".join(_arguments(arguments)),
        "backend": arguments.backend,
        "jobs": arguments.jobs,
        "floor_sample": arguments.floor_sample,
        "cli": arguments.cli,
        "baseline": arguments.baseline is not None,
        "baseline_commit": _commit(arguments.baseline) if arguments.baseline else None,
        "plans": plans,
        "transfer_per_chunk": moved,
        "bytecode": bytecode,
        "load_start": load_start,
        "load_end": common.load_average(),
        **common.machine(),
    }
    common.write(common.RESULTS / arguments.out, document, _markdown(document))
    for r in plans:
        print(f"{r['plan']}: hosted / in-process {r['wall_ratio_hosted_over_in_process']} "
              f"(CPU {r['cpu_ratio_hosted_over_in_process']}), this / baseline "
              f"{r['cli_over_baseline']}, over the floor {r['over_floor']}")  # fmt: skip


if __name__ == "__main__":
    main()
