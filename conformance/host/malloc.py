"""glibc's malloc told to keep freed memory: the settings a sweep's processes run with.

A sweep allocates the same few arrays of one chunk (4 MiB each) afresh for every one
of its 4,096 chunks -- in the backend's host (the backend's results and temporaries)
and in the judge (the chunk's bit patterns, the oracle's expected values, the
comparison).  With glibc's defaults a block that large is an ``mmap`` returned to the
system when it is freed, so every chunk faults its pages in again: measured on
exp:Int32 (4 shards) 282,437 page faults in the host, and in the judge of an
in-process exp:Float32 sweep about 40% of its CPU time.  With both thresholds at 256 MiB
freed memory stays in the heap and is reused.  They change where memory comes from,
never a value.

* :data:`SETTINGS` -- the two environment variables glibc reads when a process starts;
* :func:`with_settings` -- an environment for a child process with them added (the
  caller's own values win);
* :func:`keep_freed_memory` -- the same settings applied to the running process
  through ``mallopt`` (glibc only; anywhere else it does nothing and says so);
* :func:`freeze_long_lived` -- Python's cyclic garbage collector told to leave what the
  process holds already (its imports) out of its scans, once.
"""

from __future__ import annotations

import ctypes
import gc
import os
import sys
from collections.abc import Mapping

__all__ = ["SETTINGS", "freeze_long_lived", "keep_freed_memory", "with_settings"]

_THRESHOLD = 256 << 20
SETTINGS = {"MALLOC_TRIM_THRESHOLD_": str(_THRESHOLD), "MALLOC_MMAP_THRESHOLD_": str(_THRESHOLD)}
#: mallopt's parameter numbers for the two settings (glibc's malloc.h)
_MALLOPT = {"MALLOC_TRIM_THRESHOLD_": -1, "MALLOC_MMAP_THRESHOLD_": -3}

_applied: bool | None = None
_frozen = False


def with_settings(environment: Mapping[str, str]) -> dict[str, str]:
    """*environment* with :data:`SETTINGS` added where it does not set them itself."""
    return {**SETTINGS, **environment}


def keep_freed_memory() -> bool:
    """Apply :data:`SETTINGS` to this process (once); True when glibc took them.

    A setting this process's environment already gives (glibc read it at start) is
    left as it is.  False on a platform without glibc's ``mallopt`` (macOS, Windows,
    musl): the sweep is then as fast as the system's allocator makes it.
    """
    global _applied
    if _applied is None:
        _applied = False
        if sys.platform.startswith("linux"):
            try:
                mallopt = ctypes.CDLL(None).mallopt
            except (AttributeError, OSError):
                return False
            mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
            _applied = all(
                name in os.environ or mallopt(_MALLOPT[name], _THRESHOLD) == 1 for name in SETTINGS
            )
    return _applied


def freeze_long_lived() -> None:
    """Move every object this process holds now out of the cyclic garbage collector's
    generations (:func:`gc.freeze`), once per process.  The modules, the oracle's tables
    and the libraries' objects live as long as the process; a sweep's allocations make
    the collector walk them again and again otherwise (5.7% of an in-process exp sweep's
    samples were ``gc_collect_main``).  Objects made later are collected as usual;
    nothing frozen is ever freed, so call it when what the process holds is what it
    keeps (after the imports and the backend's load)."""
    global _frozen
    if not _frozen:
        gc.freeze()
        _frozen = True
