"""The exhaustive sweep with its backend in a host process, against the sweep in-process.

    python benchmarks/bench_exhaustive_host.py [--plan neg:Float32] [--sample 1] [--rounds 2]
        [--out exhaustive_host]

Two measurements, each side by side in one run (issue 20, items 6 and 9):

* **the transfer** of one sweep chunk (``2**20`` uint32 patterns to a child process
  and ``2**20`` back) through the pipe (``Connection.send_bytes`` / ``recv_bytes``)
  and through a shared-memory segment (:class:`conformance.host.segment.Segment`),
  against a round trip that moves no array (the child computes the same thing
  either way): the price of each transport, the evidence for the choice;
* **one plan** (every shard of ``--plan``, or a ``1/--sample`` stratified sample of
  them) checked by :func:`conformance.exhaustive.check_range`: *in-process* (the
  backend object called in this process, as the sweep did before the host) and
  *hosted* (the backend in its host, the oracle computed while the host runs it),
  alternately, ``--rounds`` times each; the ratio of the medians (the issue's
  bound: 1.1).

The machine is shared: the load average is recorded, and only ratios measured in
the same run mean much.  Results: ``benchmarks/results/OUT.md`` and ``.json`` (``--out``,
default ``exhaustive_host``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import common  # noqa: E402  (benchmarks/common.py, beside this script)

import backends  # noqa: E402
from conformance import exhaustive as X  # noqa: E402
from conformance.host.client import shared_host  # noqa: E402
from conformance.host.segment import Segment  # noqa: E402

CHUNK = 1 << 20
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


def in_process(name: str):
    """The sweep's callable before the host: the backend object, called in this process
    through its numpy exchange."""
    backend = backends.get(name)

    def run(op: str, x: np.ndarray) -> np.ndarray:
        return np.asarray(backend.to_numpy(backend.execute(op, backend.from_numpy(x))))

    run.__name__ = name
    return run


def _host_cpu(name: str) -> float:
    """CPU seconds (user + system) the backend's host process has used so far (Linux's
    /proc; 0 elsewhere)."""
    pid = shared_host(name).pid
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except (OSError, TypeError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def plan_time(backend, plan: str, ranges: list[tuple[int, int]]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of this process and the backend's host, non-conforming
    inputs) of *plan* over *ranges* on *backend*."""
    hosted = isinstance(backend, str)
    began, cpu = time.perf_counter(), time.process_time()
    host_cpu = _host_cpu(backend) if hosted else 0.0
    bad = 0
    for start, stop in ranges:
        (result,) = X.check_range(backend, plan, start, stop)
        bad += result.non_conforming + (1 if result.error or result.environment else 0)
    used = time.process_time() - cpu + ((_host_cpu(backend) - host_cpu) if hosted else 0.0)
    return time.perf_counter() - began, used, bad


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--plan", default="neg:Float32")
    parser.add_argument("--sample", type=int, default=1, help="K: every K-th of 512 K shards")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", default="exhaustive_host",
                        help="results name in benchmarks/results/ (.md and .json)")  # fmt: skip
    arguments = parser.parse_args()
    load_start = common.load_average()
    moved = transfer()
    count = X.default_shards(None, arguments.sample)
    ranges = [X.shard_range(i, count) for i in X.sampled_shards(count, arguments.sample)]
    share = sum(b - a for a, b in ranges) / X.TOTAL
    X.check_range(arguments.backend, arguments.plan, 0, 1 << 16)  # start the host
    local = in_process(arguments.backend)
    before, after, cpu_before, cpu_after = [], [], [], []
    for _ in range(arguments.rounds):
        sides = (("in-process", local, before, cpu_before),
                 ("hosted", arguments.backend, after, cpu_after))  # fmt: skip
        for label, backend, times, cpus in sides:
            wall, cpu, bad = plan_time(backend, arguments.plan, ranges)
            if bad:
                raise SystemExit(f"{label}: {arguments.plan} did not conform ({bad})")
            times.append(round(wall, 2))
            cpus.append(round(cpu, 2))
    ratio = statistics.median(after) / statistics.median(before)
    best = min(after) / min(before)
    cpu_ratio = statistics.median(cpu_after) / statistics.median(cpu_before)
    document = {
        "command": "python benchmarks/bench_exhaustive_host.py " + " ".join(sys.argv[1:]),
        "backend": arguments.backend,
        "plan": arguments.plan,
        "share_of_inputs": share,
        "in_process_s": before,
        "hosted_s": after,
        "ratio_hosted_over_in_process": round(ratio, 3),
        "ratio_of_fastest_runs": round(best, 3),
        "in_process_cpu_s": cpu_before,
        "hosted_cpu_s": cpu_after,
        "cpu_ratio_hosted_over_in_process": round(cpu_ratio, 3),
        "transfer_per_chunk": moved,
        "load_start": load_start,
        "load_end": common.load_average(),
        **common.machine(),
    }
    coverage = "all 2**32 inputs" if share == 1 else f"a 1/{arguments.sample} stratified sample"
    markdown = (
        "# The exhaustive sweep through the backend host (issue 20, items 6 and 9)\n\n"
        f"`{document['command']}`\n\n"
        f"## One plan: `{arguments.plan}` on `{arguments.backend}`, {coverage}\n\n"
        "`conformance.exhaustive.check_range` over the plan's shards, alternately with the "
        "backend object called in this process (the sweep before the host) and with the "
        "backend in its host process (the oracle computed while the host runs the backend; "
        "chunks through shared memory).\n\n"
        "| | wall, runs (s) | median (s) | CPU, runs (s) | median (s) |\n"
        "|---|---|---:|---|---:|\n"
        f"| in-process | {', '.join(map(str, before))} | {statistics.median(before):.2f} | "
        f"{', '.join(map(str, cpu_before))} | {statistics.median(cpu_before):.2f} |\n"
        f"| hosted | {', '.join(map(str, after))} | {statistics.median(after):.2f} | "
        f"{', '.join(map(str, cpu_after))} | {statistics.median(cpu_after):.2f} |\n\n"
        f"Wall time hosted / in-process: **{ratio:.3f}** of the medians, **{best:.3f}** of "
        f"the fastest runs (the issue's bound: 1.1).  CPU time (this process, plus the "
        f"host's for the hosted runs): **{cpu_ratio:.3f}**.  With two processes the hosted "
        "sweep computes the oracle and the backend at once, so on an idle machine it can "
        "take less wall time than in-process while using more CPU; on a loaded one each "
        "hand-off between the processes waits for the scheduler.\n\n"
        f"## One chunk's transfer ({CHUNK:,} uint32 each way, median of 40)\n\n"
        "| round trip | ms |\n|---|---:|\n"
        f"| no array moved (the child computes alone) | {moved['none_ms']} |\n"
        f"| through the pipe (`send_bytes` / `recv_bytes`) | {moved['pipe_ms']} |\n"
        f"| through shared memory (`conformance.host.segment`) | {moved['segment_ms']} |\n\n"
        + common.machine_sentence(
            document,
            "the machine is shared with other engineers: absolute times are noisy, the "
            "side-by-side ratios less so",
        )
        + "\n"
    )
    common.write(common.RESULTS / arguments.out, document, markdown)
    print(f"in-process {before} s, hosted {after} s, ratio {ratio:.3f}; transfer {moved}")


if __name__ == "__main__":
    main()
