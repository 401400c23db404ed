"""glibc's malloc settings of a sweep's processes (conformance.host.malloc)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conformance.host import malloc


def test_the_callers_own_settings_win():
    mine = {"MALLOC_TRIM_THRESHOLD_": "1", "PATH": "/bin"}
    env = malloc.with_settings(mine)
    assert env["MALLOC_TRIM_THRESHOLD_"] == "1" and env["PATH"] == "/bin"
    assert env["MALLOC_MMAP_THRESHOLD_"] == malloc.SETTINGS["MALLOC_MMAP_THRESHOLD_"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_freed_chunk_memory_is_kept_instead_of_faulted_in_again():
    """Six 4 MiB arrays allocated together and freed together, 50 times (a chunk's
    arrays): with the settings applied their pages are faulted in once; with glibc's
    defaults the freed top of the heap (24 MiB, past its adaptive trim threshold) is
    returned to the system and faulted in again every time."""
    script = (
        "import resource, sys, numpy as np\n"
        "from conformance.host import malloc\n"
        "applied = malloc.keep_freed_memory() if sys.argv[1] == 'on' else None\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt\n"
        "for _ in range(50):\n"
        "    arrays = [np.ones(1 << 20, np.float32) for _ in range(6)]; del arrays\n"
        "print(applied, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    faults = {}
    for mode in ("on", "off"):
        done = subprocess.run([sys.executable, "-c", script, mode], capture_output=True,
                              text=True, env=env, check=True)  # fmt: skip
        applied, count = done.stdout.split()
        faults[mode] = int(count)
        if mode == "on":
            assert applied == "True"
    assert faults["on"] < 10 * 1024, faults  # 1,024 pages a 4 MiB array: the first six
    assert faults["off"] > 10 * faults["on"], faults
