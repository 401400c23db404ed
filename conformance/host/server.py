"""The backend host: the only process that imports and runs the backend under test.

Started by :class:`conformance.host.client.BackendHost` as ``python -m
conformance.host.server READ_FD WRITE_FD`` in a session of its own (so the judge
can kill it and every child it forked with one ``killpg``).  It imports numpy
and plancheck's model first, records numpy's public functions, then loads the
backend on the ``load`` request and answers ``run`` requests, one at a time, on
a :class:`multiprocessing.connection.Connection` over two pipes.

Around every call it:

* sets numpy's default error state (one fixed state, so a backend's earlier
  ``seterr`` cannot hide its warnings) and probes the floating-point
  environment before and after (:mod:`conformance.host.fpenv`);
* records warnings with the thread that raised them: only the calling thread's
  ``RuntimeWarning`` counts for the call;
* snapshots the inputs (a call never modifies its inputs), reads the result's
  bits through the backend's ``to_numpy`` when it has one (no float conversion),
  re-reads the previous result (``result-changed-after-return``) and checks that
  the result shares no memory with an input or the previous result;
* ends at once a child the backend forked that returns into the host's code;
* compares numpy's public functions with the ones it recorded at start
  (``numpy-state:patched``).

Nothing the backend does here reaches the judge except the reply: raw bits,
exception class names and messages, warning texts and finding class names.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import warnings
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

import backends
from conformance.host import fpenv
from conformance.host.wire import encode_array, encode_tensor, raised_error, tensor_of_bits
from conformance.model.capabilities import declared_by
from oracle import Tensor

__all__ = ["Host", "main"]


def _numpy_functions() -> dict[str, int]:
    return {name: id(value) for name, value in vars(np).items() if callable(value)}


def _to_array(backend: Any, native: Any) -> np.ndarray | None:
    to_numpy = getattr(backend, "to_numpy", None)
    if to_numpy is None:
        return None
    try:
        array = to_numpy(native)
    except Exception:
        return None
    return array if isinstance(array, np.ndarray) else None


def _snapshot(backend: Any, native: Any) -> Any:
    """The exact content of a native value, read back through the backend (None: unreadable)."""
    array = _to_array(backend, native)
    if array is not None:
        return (array.dtype.str, array.shape, np.ascontiguousarray(array).tobytes())
    try:
        tensor = backend.to_tensor(native)
        return encode_tensor(tensor)
    except Exception:
        return None


class Host:
    """The backend and what the host remembers between calls."""

    def __init__(self) -> None:
        self.backend: Any = None
        self.numpy_functions = _numpy_functions()
        self.sticky: list[str] = []  #: findings that hold for the backend since its import
        self.previous: tuple[Any, Any] | None = None  #: the last result and its snapshot
        self.pid = os.getpid()

    def _leave_if_forked(self) -> None:
        """A child the backend forked that returned into the host's code ends here, at
        once: only the host itself answers the judge."""
        if os.getpid() != self.pid:
            os._exit(0)

    # -- requests ------------------------------------------------------------

    def load(self, label: str) -> dict[str, Any]:
        self.backend = backends.get(label)
        after = fpenv.probe()
        self.sticky = list(fpenv.deviations(after))
        patched = self._patched()
        if patched:
            self.sticky.append("numpy-state:patched")
        try:
            unsupported: Any = sorted(declared_by(self.backend))
        except ValueError as error:
            unsupported = str(error)
        return {
            "name": str(getattr(self.backend, "name", label)),
            "unsupported": unsupported,
            "has_to_numpy": getattr(self.backend, "to_numpy", None) is not None,
            "has_allocations": isinstance(getattr(self.backend, "allocations", None), int),
            "after_import": list(self.sticky),
            "patched": patched,
            "pid": os.getpid(),
        }

    def _patched(self) -> list[str]:
        now = _numpy_functions()
        return sorted(n for n, i in self.numpy_functions.items() if now.get(n) != i)

    def _allocations(self) -> int | None:
        count = getattr(self.backend, "allocations", None)
        return count if isinstance(count, int) and not isinstance(count, bool) else None

    def run(self, operation: str, args: list[Any], keywords: dict[str, Any]) -> dict[str, Any]:
        backend = self.backend
        reply: dict[str, Any] = {"stage": "execute"}
        environment: list[str] = list(self.sticky)
        if np.geterr() != fpenv.DEFAULT_NUMPY_ERRORS:
            environment.append("numpy-state:error-state")
        np.seterr(**fpenv.DEFAULT_NUMPY_ERRORS)
        environment += fpenv.deviations(fpenv.probe())
        reply["allocations_before"] = self._allocations()
        natives: list[Any] = []
        positions: list[int] = []
        before: list[Any] = []
        seen: list[tuple[str, str, bool, str]] = []
        caller = threading.get_ident()

        def show(message: Any, category: type, *rest: Any, **more: Any) -> None:
            here = threading.current_thread()
            seen.append((category.__name__, str(message),
                         here.ident == caller and issubclass(category, RuntimeWarning),
                         here.name))  # fmt: skip

        native: Any = None
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.showwarning = show
            try:
                for position, value in enumerate(args):
                    if isinstance(value, tuple) and len(value) == 2 and value[0] == "tensor":
                        natives.append(backend.from_tensor(tensor_of_bits(*value[1])))
                        positions.append(position)
                    else:
                        natives.append(value)
                for position in positions:
                    before.append(_snapshot(backend, natives[position]))
                native = backend.execute(operation, *natives, **keywords)
            except BaseException as error:  # judged by the judge
                reply["raised"] = raised_error(error)
            finally:
                self._leave_if_forked()
            if "raised" not in reply:
                reply["stage"] = "to_tensor"
                try:
                    tensor = backend.to_tensor(native)
                except BaseException as error:
                    reply["raised"] = raised_error(error)
                    reply["native_type"] = type(native).__name__
                else:
                    reply["stage"] = "done"
                    self._read_result(reply, backend, native, tensor)
                finally:
                    self._leave_if_forked()
        reply["allocations_after"] = self._allocations()
        reply["warnings"] = [f"{c}: {m}" for c, m, counts, _ in seen if counts]
        reply["other_thread_warnings"] = [f"{c}: {m} (thread {t})" for c, m, counts, t in seen
                                          if not counts and c.endswith("Warning")]  # fmt: skip
        reply["modified"] = [
            p for p, b in zip(positions, before)
            if b is not None and _snapshot(backend, natives[p]) != b
        ]  # fmt: skip
        if self.previous is not None:
            earlier, snapshot = self.previous
            if snapshot is not None and _snapshot(backend, earlier) != snapshot:
                environment.append("result-changed-after-return")
        if reply["stage"] == "done":
            environment += self._aliasing(backend, native, [natives[p] for p in positions])
            self.previous = (native, _snapshot(backend, native))
        after = fpenv.probe()
        environment += fpenv.deviations(after)
        if self._patched():
            environment.append("numpy-state:patched")
        np.seterr(**fpenv.DEFAULT_NUMPY_ERRORS)
        reply["environment"] = sorted(set(environment))
        return reply

    def _read_result(self, reply: dict[str, Any], backend: Any, native: Any, tensor: Any) -> None:
        if not isinstance(tensor, Tensor):
            reply["stage"] = "not_tensor"
            reply["not_tensor"] = repr(tensor)[:200]
            return
        wire = None
        array = _to_array(backend, native)
        if array is not None:  # the exact bits, no float conversion
            wire = encode_array(array)
            if wire is not None and (wire[0], tuple(wire[1])) != (tensor.dtype.name, tensor.shape):
                wire = None
        reply["result"] = wire if wire is not None else encode_tensor(tensor)

    def _aliasing(self, backend: Any, native: Any, inputs: list[Any]) -> list[str]:
        result = _to_array(backend, native)
        if result is None or result.size == 0:
            return []
        found = []
        for value in inputs:
            array = _to_array(backend, value)
            if array is not None and np.shares_memory(result, array):
                found.append("result-aliases-input")
        if self.previous is not None:
            earlier = _to_array(backend, self.previous[0])
            if earlier is not None and earlier.size and np.shares_memory(result, earlier):
                found.append("result-aliases-earlier-result")
        return found


def serve(connection: Connection) -> None:
    """Answer requests on *connection* until it closes or an ``exit`` request comes."""
    host = Host()
    while True:
        try:
            request = connection.recv()
        except (EOFError, OSError):
            return
        kind = request[0]
        if kind == "exit":
            return
        try:
            if kind == "load":
                answer: Any = ("ok", host.load(request[1]))
            elif kind == "run":
                answer = ("ok", host.run(request[1], request[2], request[3]))
            else:
                answer = ("error", f"unknown request {kind!r}")
        except BaseException as error:  # a backend that fails to load, or the host's own bug
            answer = ("raised", raised_error(error))
        connection.send(answer)


def main(argv: list[str]) -> None:
    read_fd, write_fd = int(argv[0]), int(argv[1])
    path = os.environ.get("PLANCHECK_HOST_SYS_PATH")
    if path:
        sys.path[:] = json.loads(path)
    reader = Connection(read_fd, writable=False)
    writer = Connection(write_fd, readable=False)

    class Duplex:
        recv = reader.recv
        send = writer.send

    serve(Duplex())  # type: ignore[arg-type]
    os._exit(0)  # whatever threads the backend left


if __name__ == "__main__":
    main(sys.argv[1:])
