"""Big arrays between the judge and a backend host: one shared-memory segment.

The exhaustive sweep sends the host a million input patterns a call and reads as
many results back.  Through the pipe (``Connection.send_bytes``) each 4 MiB way
costs a few milliseconds of copying through the kernel in 64 KiB pieces;
through a :class:`multiprocessing.shared_memory.SharedMemory` segment it is one
``memcpy`` each way (measured: benchmarks/results/exhaustive_host.md, why:
docs/decisions.md).  The judge creates the segment (:meth:`Segment.create`) and
owns it (it unlinks it on :meth:`Segment.close`; its resource tracker does if
it dies); the host attaches by name (:meth:`Segment.attach`) without
registering it with a resource tracker of its own, so a host that ends never
unlinks the judge's segment.

Layout: the inputs at offset 0, the outputs at offset :attr:`Segment.half`,
each at most ``half`` bytes.  Only raw bits cross: the arrays are read and
written as bytes of the dtypes named beside them in the pipe's messages.
"""

from __future__ import annotations

import contextlib
import os
import sys
from multiprocessing import resource_tracker, shared_memory

import numpy as np
import numpy.typing as npt

__all__ = ["SHM", "Segment"]

#: where POSIX shared memory lives on Linux (checked for room when it exists)
SHM = "/dev/shm"


class Segment:
    """A shared-memory segment of two halves: inputs, then outputs."""

    def __init__(self, memory: shared_memory.SharedMemory, owner: bool) -> None:
        self.memory = memory
        self.owner = owner
        self.name = memory.name
        self.half = memory.size // 2

    @classmethod
    def create(cls, half: int) -> Segment:
        """A new segment with *half* bytes for each side (the judge's).  OSError when the
        shared-memory file system (``/dev/shm``) has not that much room: writing past it
        would kill this process with SIGBUS (a container's default is 64 MiB)."""
        size = 2 * max(half, 1)
        if os.path.isdir(SHM):
            info = os.statvfs(SHM)
            if info.f_bavail * info.f_frsize < size:
                raise OSError(
                    f"{SHM} has {info.f_bavail * info.f_frsize >> 20} MiB free; the sweep "
                    f"needs {size >> 20} MiB more for each backend it runs (give the "
                    f"container more shared memory, e.g. docker --shm-size)"
                )
        return cls(shared_memory.SharedMemory(create=True, size=size), owner=True)

    @classmethod
    def attach(cls, name: str) -> Segment:
        """The judge's segment *name*, seen from the host (never unlinked from here)."""
        if sys.version_info >= (3, 13):
            memory = shared_memory.SharedMemory(name, track=False)
        else:  # attaching registers the name with this process's tracker: undo that
            memory = shared_memory.SharedMemory(name)
            resource_tracker.unregister(memory._name, "shared_memory")  # type: ignore[attr-defined]
        return cls(memory, owner=False)

    def view(self, dtype: npt.DTypeLike, count: int, output: bool) -> np.ndarray:
        """The first *count* elements of *dtype* of one half (a view, no copy)."""
        dtype = np.dtype(dtype)
        if count * dtype.itemsize > self.half:
            raise ValueError(f"{count} elements of {dtype} do not fit in {self.half} bytes")
        offset = self.half if output else 0
        return np.ndarray((count,), dtype, self.memory.buf, offset=offset)

    def close(self) -> None:
        """Detach; the owner also removes the segment."""
        with contextlib.suppress(BufferError, OSError):
            self.memory.close()
        if self.owner:
            with contextlib.suppress(FileNotFoundError, OSError):
                self.memory.unlink()
