"""The sweep's backend in its host: ``f(op, inputs) -> outputs`` across a process boundary.

:class:`HostedRunner` is what :func:`conformance.exhaustive.sweep.runner` returns
for a backend name: the backend is imported and run only in this process's
host of that name (:func:`conformance.host.client.shared_host`), the certified
oracle and the comparison stay here.  A chunk's input patterns cross to the
host, and its results back, as raw bytes through one shared-memory segment
(:class:`conformance.host.segment.Segment`); only the request and the reply's
small parts go through the host's pipe.

The call is split (:meth:`HostedRunner.submit`, :meth:`HostedRunner.collect`) so
the sweep computes a chunk's expected values while the host computes the
backend's.  :meth:`collect` waits until *timeout* seconds after the submission:
past it the host's process group is killed (:class:`HostTimeout`); a host that
dies is :class:`HostCrashed`; the backend's own exception is re-raised rebuilt
(:func:`conformance.host.wire.rebuild_exception`, its ``remote`` attribute set).
The environment findings the host observed around each call
(``fp-environment:flush-to-zero``, ...) accumulate in :attr:`environment`.
"""

from __future__ import annotations

import time
import weakref
from collections import deque
from typing import Any

import numpy as np
import numpy.typing as npt

from conformance.host.client import (
    BackendHost,
    HostCrashed,
    HostLoadError,
    HostTimeout,
    shared_host,
)
from conformance.host.segment import Segment
from conformance.host.wire import rebuild_exception

__all__ = [
    "DEFAULT_TIMEOUT",
    "HostCrashed",
    "HostLoadError",
    "HostTimeout",
    "HostedRunner",
    "hosted_runner",
]

#: seconds a backend may take on one chunk of the sweep (``--timeout``)
DEFAULT_TIMEOUT = 120.0
#: bytes of each half of a runner's first segment: a sweep chunk of 2**20 patterns
FIRST_SEGMENT = 4 << 20


#: requests a runner may have in the host at once (one segment each)
SLOTS = 2


class HostedRunner:
    """The sweep's callable for backend *label*, run in its host (see the module); the
    host is started and the backend loaded at construction (HostLoadError, HostCrashed,
    HostTimeout when it cannot be).

    Up to :data:`SLOTS` calls may be submitted before the first is collected (each in
    its own segment): the host starts the next chunk as soon as it has answered one,
    without waiting for the judge to be scheduled.  Replies are collected in order.
    """

    def __init__(self, label: str, timeout: float | None = DEFAULT_TIMEOUT) -> None:
        self.label = label
        self.__name__ = label
        self.timeout = timeout
        self.host: BackendHost = shared_host(label)
        self.host.ensure()  # HostLoadError now, for a backend that cannot be loaded
        self.environment: set[str] = set()
        #: the backend's own seconds on the last chunk collected, measured in the host
        self.seconds: float | None = None
        self._segments: list[Segment | None] = [None] * SLOTS
        self._finalizers: list[Any] = [None] * SLOTS
        self._pending: deque[tuple[int, float]] = deque()  #: (slot, time submitted)
        self._next = 0
        self._answered = 0.0  #: when the last reply was collected

    def _room(self, slot: int, nbytes: int) -> Segment:
        """The segment of *slot*, replaced by a bigger one when *nbytes* do not fit."""
        segment = self._segments[slot]
        if segment is None or segment.half < nbytes:
            self._release(slot)
            segment = self._segments[slot] = Segment.create(max(nbytes, FIRST_SEGMENT))
            self._finalizers[slot] = weakref.finalize(self, segment.close)
        return segment

    def submit(self, op: str, inputs: np.ndarray, start: int | None = None) -> None:
        """Start *op* on the 1-D float32 or int32 *inputs* in the host (no waiting);
        ValueError when :data:`SLOTS` calls are already pending.  With *start*, *inputs*
        are the bit patterns ``start, start + 1, ...``: only the range crosses
        (:meth:`submit_range`)."""
        inputs = np.ascontiguousarray(inputs).reshape(-1)
        if start is not None:
            self.submit_range(op, inputs.dtype, start, int(inputs.size))
            return
        segment = self._slot(inputs.nbytes)
        segment.view(np.uint8, inputs.nbytes, output=False)[:] = inputs.view(np.uint8)
        self._send(("sweep", op, segment.name, inputs.dtype.str, int(inputs.size)))

    def submit_range(self, op: str, dtype: npt.DTypeLike, start: int, count: int) -> None:
        """Start *op* in the host on the *count* bit patterns ``start, start + 1, ...``
        as *dtype* (float32 or int32): the host makes them itself, nothing but the range
        crosses (the sweep's chunks are such ranges; its judge never makes them)."""
        dtype = np.dtype(dtype)
        segment = self._slot(count * dtype.itemsize)
        self._send(("sweep", op, segment.name, dtype.str, int(count), int(start)))

    def _slot(self, nbytes: int) -> Segment:
        """The segment of the next call (ValueError when every slot is pending)."""
        if len(self._pending) == SLOTS:
            raise ValueError(f"{SLOTS} calls are pending: collect one first")
        if not self._pending and not self.host.alive:
            self.host.ensure()  # a fresh host after a hang or a crash
        return self._room(self._next % SLOTS, nbytes)

    def _send(self, request: tuple[Any, ...]) -> None:
        self.host.send(request)
        self._pending.append((self._next % SLOTS, time.monotonic()))
        self._next += 1

    def discard(self) -> None:
        """Forget the calls still pending (their host was killed)."""
        self._pending.clear()

    def collect(self) -> np.ndarray:
        """The result of the oldest call submitted, its raw bits as the backend produced
        them (HostTimeout, HostCrashed, or the backend's rebuilt exception).  Its
        *timeout* runs from when the host could start it: its submission, or the reply
        to the call before it if that came later.

        The array may be a view of the call's segment, valid until :data:`SLOTS` more
        calls are submitted (the sweep judges it before then; :meth:`__call__` copies).
        """
        slot, submitted = self._pending.popleft()
        remaining = None
        if self.timeout is not None:
            remaining = max(submitted, self._answered) + self.timeout - time.monotonic()
        try:
            status, reply = self.host.receive(remaining)
        except (HostTimeout, HostCrashed):
            self.discard()
            raise
        self._answered = time.monotonic()
        if status != "ok":
            self.discard()
            self.host.close()
            raise HostCrashed(f"the host failed: {reply}")
        self.environment.update(reply.get("environment", ()))
        self.seconds = reply.get("seconds")
        if "raised" in reply:
            raise rebuild_exception(reply["raised"])
        where, dtype, shape, *raw = reply["result"]
        dtype = np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if where == "segment":
            segment = self._segments[slot]
            assert segment is not None
            data = segment.view(np.uint8, count, output=True)
        else:
            data = np.frombuffer(raw[0], np.uint8).copy()
        return data.view(dtype).reshape(shape)

    def __call__(self, op: str, inputs: np.ndarray) -> np.ndarray:
        self.submit(op, inputs)
        return np.array(self.collect())

    def _release(self, slot: int) -> None:
        if self._finalizers[slot] is not None:
            self._finalizers[slot]()
        self._segments[slot] = self._finalizers[slot] = None

    def close(self) -> None:
        """Remove the segments (the host stays, shared)."""
        self.discard()
        for slot in range(SLOTS):
            self._release(slot)


#: label -> this process's runner of that backend (its segment kept between ranges)
_RUNNERS: dict[str, HostedRunner] = {}


def hosted_runner(label: str, timeout: float | None = DEFAULT_TIMEOUT) -> HostedRunner:
    """This process's :class:`HostedRunner` of *label*, its timeout set to *timeout* and
    its :attr:`~HostedRunner.environment` emptied: one segment and one host serve every
    range a process checks (a sampled sweep checks thousands of small ones)."""
    runner = _RUNNERS.get(label)
    if runner is None:
        runner = _RUNNERS[label] = HostedRunner(label, timeout)
    if runner._pending:  # left by a range that ended early (an interrupt)
        runner.host.close()
        runner.discard()
    runner.host.ensure()
    runner.timeout = timeout
    runner.environment = set()
    return runner
