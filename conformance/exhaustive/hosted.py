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
from typing import Any

import numpy as np

from conformance.host.client import (
    BackendHost,
    HostCrashed,
    HostLoadError,
    HostTimeout,
    shared_host,
)
from conformance.host.segment import Segment
from conformance.host.wire import rebuild_exception

__all__ = ["DEFAULT_TIMEOUT", "HostCrashed", "HostLoadError", "HostTimeout", "HostedRunner"]

#: seconds a backend may take on one chunk of the sweep (``--timeout``)
DEFAULT_TIMEOUT = 120.0


class HostedRunner:
    """The sweep's callable for backend *label*, run in its host (see the module); the
    host is started and the backend loaded at construction (HostLoadError, HostCrashed,
    HostTimeout when it cannot be)."""

    def __init__(self, label: str, timeout: float | None = DEFAULT_TIMEOUT) -> None:
        self.label = label
        self.__name__ = label
        self.timeout = timeout
        self.host: BackendHost = shared_host(label)
        self.host.ensure()  # HostLoadError now, for a backend that cannot be loaded
        self.environment: set[str] = set()
        #: the backend's own seconds on the last chunk, measured in the host
        self.seconds: float | None = None
        self._segment: Segment | None = None
        self._deadline: float | None = None
        self._finalizer: Any = None

    def _room(self, nbytes: int) -> Segment:
        """The segment, replaced by a bigger one when *nbytes* do not fit."""
        if self._segment is None or self._segment.half < nbytes:
            self.close()
            self._segment = Segment.create(nbytes)
            self._finalizer = weakref.finalize(self, self._segment.close)
        return self._segment

    def submit(self, op: str, inputs: np.ndarray) -> None:
        """Start *op* on the 1-D float32 or int32 *inputs* in the host (no waiting)."""
        inputs = np.ascontiguousarray(inputs).reshape(-1)
        segment = self._room(inputs.nbytes)
        segment.view(np.uint8, inputs.nbytes, output=False)[:] = inputs.view(np.uint8)
        self.host.ensure()
        self.host.send(("sweep", op, segment.name, inputs.dtype.str, int(inputs.size)))
        self._deadline = None if self.timeout is None else time.monotonic() + self.timeout

    def collect(self) -> np.ndarray:
        """The result of the call :meth:`submit` started, its raw bits as the backend
        produced them (HostTimeout, HostCrashed, or the backend's rebuilt exception)."""
        remaining = None if self._deadline is None else self._deadline - time.monotonic()
        status, reply = self.host.receive(remaining)
        if status != "ok":
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
            assert self._segment is not None
            data = np.array(self._segment.view(np.uint8, count, output=True))
        else:
            data = np.frombuffer(raw[0], np.uint8).copy()
        return data.view(dtype).reshape(shape)

    def __call__(self, op: str, inputs: np.ndarray) -> np.ndarray:
        self.submit(op, inputs)
        return self.collect()

    def close(self) -> None:
        """Remove the segment (the host stays, shared)."""
        if self._finalizer is not None:
            self._finalizer()
        self._segment = self._finalizer = None
