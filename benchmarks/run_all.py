"""Every benchmark of the project, one after the other, with one command.

    python benchmarks/run_all.py [--quick] [--full-sweeps neg,exp]

Runs ``bench_cpu.py`` (CPU backend vs raw numpy), ``bench_oracle.py`` (oracle
throughput and the corpus checker vs the TestFloat anchor),
``bench_exhaustive.py`` (sweep throughput vs the naive MPFR oracle; full
2**32 sweeps of ``--full-sweeps``) and ``bench_suite.py`` (the conformance
suite's examples per second), each writing its ``benchmarks/results/*.md``
and ``.json``.  Exit status 0 when every script succeeded.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, smaller samples")
    parser.add_argument("--full-sweeps", default="", help="ops for full 2**32 sweeps, e.g. neg,exp")
    arguments = parser.parse_args(argv)
    quick = arguments.quick
    scripts = [
        ["bench_cpu.py", *(["--quick"] if quick else [])],
        ["bench_oracle.py", *(["--repeat", "2"] if quick else [])],
        [
            "bench_exhaustive.py",
            *(["--windows", "8"] if quick else []),
            *(["--full", arguments.full_sweeps] if arguments.full_sweeps else []),
        ],
        ["bench_suite.py"],
    ]
    failed = []
    for script in scripts:
        began = time.perf_counter()
        status = subprocess.call([sys.executable, str(HERE / script[0]), *script[1:]])
        print(
            f"== {' '.join(script)}: exit {status}, {time.perf_counter() - began:.0f} s", flush=True
        )
        if status:
            failed.append(script[0])
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
