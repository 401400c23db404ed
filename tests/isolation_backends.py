"""Hostile backends for tests/test_isolation_*.py (issue 20): each is the correct
``cpu`` backend plus one thing real libraries do to their own process.

The module is imported only in the backend host; each class writes the pid of the
process that imported it to ``$ISOLATION_MARKS/NAME.pid``, so a test can check
that the judge's process never did.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import threading
import time
import warnings

import numpy as np

import backends

_MARKS = os.environ.get("ISOLATION_MARKS", "")


def _mark(name: str, what: str = "pid") -> None:
    if _MARKS:
        with open(os.path.join(_MARKS, f"{name}.{what}"), "a", encoding="utf-8") as f:
            f.write(f"{os.getpid()}\n")


_mark("module")
_LIBM = ctypes.CDLL(ctypes.util.find_library("m"))


class _Cpu:
    """Delegates everything to the cpu backend."""

    def __init__(self) -> None:
        self.cpu = backends.get("cpu")
        self.name = type(self).__name__
        self.prepare()

    def prepare(self) -> None:
        pass

    def from_tensor(self, tensor):
        return self.cpu.from_tensor(tensor)

    def to_tensor(self, native):
        return self.cpu.to_tensor(native)

    def to_numpy(self, native):
        return self.cpu.to_numpy(native)

    def execute(self, operation, *args, **options):
        return self.cpu.execute(operation, *args, **options)


class FlushesSubnormals(_Cpu):
    """Loads a shared library built with ``gcc -Ofast`` (path in $ISOLATION_FASTMATH)."""

    def prepare(self):
        ctypes.CDLL(os.environ["ISOLATION_FASTMATH"])


class RoundsUpward(_Cpu):
    def prepare(self):
        _LIBM.fesetround(0x800)  # FE_UPWARD on x86-64 glibc


class NumpyRaises(_Cpu):
    def prepare(self):
        np.seterr(all="raise")


class PatchesNextafter(_Cpu):
    """Replaces numpy.nextafter by a polyfill with the same results."""

    def prepare(self):
        original = np.nextafter

        def nextafter(x, y, *args, **kwargs):
            return original(x, y, *args, **kwargs)

        np.nextafter = nextafter


class ReusesOutput(_Cpu):
    """Writes every result into one buffer per (dtype, shape), returned each time."""

    def prepare(self):
        self.buffers = {}

    def execute(self, operation, *args, **options):
        result = np.asarray(self.cpu.execute(operation, *args, **options))
        key = (result.dtype.str, result.shape)
        buffer = self.buffers.setdefault(key, np.empty_like(result))
        buffer[...] = result
        return buffer


class LeavesThread(_Cpu):
    """Starts a non-daemon thread that never ends."""

    def prepare(self):
        threading.Thread(target=time.sleep, args=(3600,), daemon=False).start()


class WarnsInBackground(_Cpu):
    """A daemon thread emits RuntimeWarnings all the time; calls never warn."""

    def prepare(self):
        def nag():
            while True:
                warnings.warn("background overflow", RuntimeWarning, stacklevel=1)
                time.sleep(0.001)

        threading.Thread(target=nag, daemon=True).start()


class ForksAndCarriesOn(_Cpu):
    """Every 50th call forks: one child returns into the caller's code, the other
    sleeps for an hour (each child writes its pid to ForksAndCarriesOn.child)."""

    def prepare(self):
        self.calls = 0

    def execute(self, operation, *args, **options):
        self.calls += 1
        if self.calls % 50 == 1 and os.fork() == 0:
            _mark(self.name, "child")
            if os.fork() == 0:
                _mark(self.name, "child")
                time.sleep(3600)
                os._exit(0)
            # this child returns like the parent
        return self.cpu.execute(operation, *args, **options)


class Hangs(_Cpu):
    """Every call sleeps for an hour (a hang the judge must cut)."""

    def execute(self, operation, *args, **options):
        _mark(self.name, "call")
        time.sleep(3600)
        return self.cpu.execute(operation, *args, **options)


class Crashes(_Cpu):
    """Every call kills its own process with SIGSEGV (a crash in native code)."""

    def execute(self, operation, *args, **options):
        os.kill(os.getpid(), signal.SIGSEGV)
        return self.cpu.execute(operation, *args, **options)


class ClearsSignBitsUnderDaz(FlushesSubnormals):
    """FTZ/DAZ on at import (an -Ofast library) and ``abs`` computed on the bit patterns
    (the sign bit cleared: exact whatever the environment), any rank."""

    def execute(self, operation, *args, **options):
        if operation == "abs" and isinstance(args[0], np.ndarray) and args[0].dtype == np.float32:
            bits = np.ascontiguousarray(args[0]).view(np.uint32) & np.uint32(0x7FFFFFFF)
            return bits.view(np.float32).reshape(args[0].shape)
        return self.cpu.execute(operation, *args, **options)


#: A backend module that calls ``fesetround(FE_UPWARD)`` first thing at import, before it
#: imports anything of plancheck (tests write it to their own folder: issue 29, item 2)
ROUNDS_UPWARD_AT_IMPORT = """
import ctypes, ctypes.util, os
ctypes.CDLL(ctypes.util.find_library("m")).fesetround(0x800)  # FE_UPWARD, x86-64 glibc
MODE = 0x800  # (tests replace the line above for the other modes)
import backends  # plancheck's modules, imported in the backend's rounding mode
from backends.cpu import CPUBackend
with open(os.path.join(os.environ["ISOLATION_MARKS"], "upward.pid"), "a") as f:
    f.write(f"{os.getpid()}\\n")


class Backend(CPUBackend):
    name = "rounds-upward-at-import"
"""
