"""glibc's malloc settings of a sweep's processes (conformance.host.malloc)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.host import malloc

ROOT = Path(__file__).resolve().parents[1]


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


def _last_line(script: str) -> list[int]:
    """The JSON list *script* prints last, run by a fresh Python of this checkout."""
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, env=dict(os.environ, PYTHONPATH=path))  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_sweep_process_and_its_host_leave_their_imports_out_of_the_collectors_scans():
    """check_range freezes what the judge holds, once; objects made afterwards are still
    collected."""
    script = (
        "import gc, json\n"
        "from conformance import exhaustive as X\n"
        "before = gc.get_freeze_count()\n"
        "X.check_range('cpu', 'neg:Float32', 0, 4096)\n"
        "judge = gc.get_freeze_count()\n"
        "X.check_range('cpu', 'neg:Float32', 4096, 8192)\n"
        "again = gc.get_freeze_count()\n"
        "class Cycle: pass\n"
        "c = Cycle(); c.me = c; del c\n"
        "collected = gc.collect()\n"
        "print(json.dumps([before, judge, again, collected]))\n"
    )
    before, judge, again, collected = _last_line(script)
    assert before == 0 and judge > 1000 and again == judge  # once, with the imports in
    assert collected >= 1  # a cycle made afterwards is still collected


def test_the_host_freezes_at_its_first_sweep_request_not_at_load():
    script = (
        "import gc, json\n"
        "from conformance.host.segment import Segment\n"
        "from conformance.host.server import Host\n"
        "host = Host(); host.load('cpu')\n"
        "loaded = gc.get_freeze_count()\n"
        "segment = Segment.create(1 << 14)\n"
        "host.sweep('neg', segment.name, '<f4', 16, 0)\n"
        "swept = gc.get_freeze_count()\n"
        "for attached in host.segments.values(): attached.close()\n"
        "print(json.dumps([loaded, swept]))\n"
    )
    loaded, swept = _last_line(script)
    assert loaded == 0 and swept > 1000
