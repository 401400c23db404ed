"""The backend host: the only process that imports and runs the backend under test.

Started by :class:`conformance.host.client.BackendHost` as ``python -m
conformance.host.server READ_FD WRITE_FD`` in a session of its own (so the judge
can kill it and every child it forked with one ``killpg``).  It imports numpy
and plancheck's model first, records numpy's public functions, then loads the
backend on the ``load`` request and answers ``run`` requests (one judged call),
``sweep`` requests (one chunk of the exhaustive sweep, its arrays in the judge's
shared memory: :mod:`conformance.host.segment`) and ``identity`` requests, one at
a time, on a :class:`multiprocessing.connection.Connection` over two pipes.

Around every call it:

* installs the backend's floating-point environment (what its import and its
  earlier calls left: rounding mode, FTZ, DAZ, numpy's error state) for the
  backend's code only, and plancheck's default for its own work
  (:mod:`conformance.host.fpstate`); plancheck's modules imported here run in
  the default one even when the backend's import imports them
  (:mod:`conformance.host.imports`); the environment is probed after the call
  (:mod:`conformance.host.fpenv`: what held before it is what the last probe
  found, saved and installed again exactly);
* records warnings with the thread that raised them: only the calling thread's
  ``RuntimeWarning`` counts for the call;
* snapshots the inputs (a call never modifies its inputs), reads the result's
  bits through the backend's ``to_numpy`` when it has one (no float conversion),
  re-reads the previous result and checks that the result shares no memory with
  an input or the previous result; the classes of the pair (the previous result
  changed, or aliased by this one) are reported apart from this call's
  (``reply["earlier"]``: :mod:`conformance.judge.stateful`);
* ends at once a child the backend forked that returns into the host's code;
* compares numpy's public functions with the ones it recorded at start
  (``numpy-state:patched``).

Nothing the backend does here reaches the judge except the reply: raw bits,
exception class names and messages, warning texts and finding class names.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import time
import warnings
from collections.abc import Mapping
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

import backends
from conformance.host import first_call, fpenv, imports, malloc
from conformance.host.fpstate import Switch
from conformance.host.identity import identity_of
from conformance.host.segment import Segment
from conformance.host.wire import encode_array, encode_tensor, raised_error, tensor_of_bits
from conformance.model import configuration
from conformance.model.capabilities import declared_by
from conformance.model.versions import backend_version
from oracle import DType, Tensor, resolve_operation_plan

__all__ = ["Host", "main", "sweep_call"]


def _numpy_functions() -> dict[str, Any]:
    """numpy's public callables by name (the objects: compared by identity)."""
    return {name: value for name, value in vars(np).items() if callable(value)}


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


def _composed_operations(backend: object) -> dict[str, str]:
    """The backend's optional ``composed_operations`` mapping (operation name -> a
    one-line description of the library calls the adapter composes it from), as
    plain strings; anything else is read as no composition declared."""
    declared = getattr(backend, "composed_operations", None)
    if not isinstance(declared, Mapping):
        return {}
    return {str(name): str(how) for name, how in declared.items()}


class Host:
    """The backend and what the host remembers between calls."""

    def __init__(self) -> None:
        self.backend: Any = None
        self.numpy_functions = _numpy_functions()
        self._numpy_names = tuple(self.numpy_functions)
        self._numpy_objects = tuple(self.numpy_functions.values())
        self._numpy_snapshot = tuple(vars(np).values())  #: every attribute: the fast check
        self.sticky: list[str] = []  #: findings that hold for the backend since its import
        self.previous: tuple[Any, Any] | None = None  #: the last result and its snapshot
        self.pid = os.getpid()
        self.label = ""
        self.segments: dict[str, Segment] = {}  #: the sweep's shared memory, by name
        #: the backend's floating-point environment, installed only around its code
        self.environment = Switch()
        #: what the probe found when the backend's code last returned: the environment
        #: installed for its next call (the same, saved and installed exactly)
        self.left: list[str] = []

    def _leave_if_forked(self) -> None:
        """A child the backend forked that returned into the host's code ends here, at
        once: only the host itself answers the judge."""
        if os.getpid() != self.pid:
            os._exit(0)

    # -- requests ------------------------------------------------------------

    def load(self, label: str) -> dict[str, Any]:
        imports.install()  # plancheck's modules run in the default environment, always
        self.backend = backends.get(label)
        self.label = label
        after = fpenv.probe()
        self.environment.keep_current()  # the backend's, installed again for its calls
        self.sticky = list(fpenv.deviations(after))
        self.left = list(self.sticky)
        patched = self._patched()
        if patched:
            self.sticky.append("numpy-state:patched")
        try:
            unsupported: Any = sorted(declared_by(self.backend))
        except ValueError as error:
            unsupported = str(error)
        return {
            "name": str(getattr(self.backend, "name", label)),
            # what the backend runs (an adapter's library and version), asked here:
            # the judge sees only the host, never the backend's object
            "version": backend_version(self.backend),
            "configuration": configuration.record_backend(self.backend),
            "unsupported": unsupported,
            "has_to_numpy": getattr(self.backend, "to_numpy", None) is not None,
            "has_allocations": isinstance(getattr(self.backend, "allocations", None), int),
            # operations the adapter composes from several library calls (operation ->
            # how): their classes are the adapter's, not the library's (docs/new-backend.md)
            "composed": _composed_operations(self.backend),
            **first_call.host_info(self.backend),  # compile time of a first call: no hang
            "after_import": list(self.sticky),
            "patched": patched,
            "pid": os.getpid(),
        }

    def _patched(self) -> list[str]:
        """The names of numpy's public callables the backend replaced (or deleted) since
        the host started.  Asked around every call: the usual answer (none) is one tuple
        comparison in C (identical objects compare equal at once), not a scan in Python
        (~300 us a sweep chunk)."""
        now = tuple(vars(np).values())
        try:
            if now == self._numpy_snapshot:
                return []
        except Exception:  # an attribute whose == is not a bool (an array)
            pass
        current = tuple(map(vars(np).get, self._numpy_names))
        patched = sorted(n for n, a, b in zip(self._numpy_names, current, self._numpy_objects)
                         if a is not b)  # fmt: skip
        if not patched:  # something added: the recorded functions are as they were
            self._numpy_snapshot = now
        return patched

    def _allocations(self) -> int | None:
        count = getattr(self.backend, "allocations", None)
        return count if isinstance(count, int) and not isinstance(count, bool) else None

    def _environment_after(self, environment: list[str]) -> list[str]:
        """*environment* with numpy's patched functions, sorted, each once."""
        if self._patched():
            environment.append("numpy-state:patched")
        return sorted(set(environment))

    def run(self, operation: str, args: list[Any], keywords: dict[str, Any]) -> dict[str, Any]:
        """One judged call.  The backend's code (``from_tensor``, the snapshots,
        ``execute``, ``to_tensor``, ``to_numpy``) runs in the backend's floating-point
        environment (:class:`conformance.host.fpstate.Switch`), probed after it returns;
        decoding the arguments and encoding the result, in the default one."""
        reply: dict[str, Any] = {"stage": "execute"}
        environment: list[str] = list(self.sticky)
        decoded = [
            tensor_of_bits(*value[1])
            if isinstance(value, tuple) and len(value) == 2 and value[0] == "tensor"
            else value
            for value in args
        ]  # fmt: skip
        result: Any = None
        environment += self.left  # what is installed now: the probe after the last call
        with self.environment.backend():
            result = self._call(reply, environment, operation, decoded, keywords)
            self.left = fpenv.deviations(fpenv.probe())
        environment += self.left
        if result is not None:
            array, tensor = result
            reply["result"] = _result_wire(array, tensor)
        reply["environment"] = self._environment_after(environment)
        return reply

    def _call(self, reply: dict[str, Any], environment: list[str], operation: str,
              decoded: list[Any], keywords: dict[str, Any]) -> Any:  # fmt: skip
        """The backend's part of :meth:`run` (in its environment); fills *reply* and
        *environment*; the result's array (None: no ``to_numpy``) and Tensor, or None."""
        backend = self.backend
        reply["allocations_before"] = self._allocations()
        natives: list[Any] = []
        positions: list[int] = []
        before: list[Any] = []
        seen: list[tuple[str, str, bool, str]] = []
        caller = threading.get_ident()
        result: Any = None

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
                for position, value in enumerate(decoded):
                    if isinstance(value, Tensor):
                        natives.append(backend.from_tensor(value))
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
                    if isinstance(tensor, Tensor):
                        result = (_to_array(backend, native), tensor)
                    else:
                        reply["stage"] = "not_tensor"
                        reply["not_tensor"] = repr(tensor)[:200]
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
        earlier: list[str] = []  # the classes of the previous call's result and this call
        if self.previous is not None:
            previous, snapshot = self.previous
            now = _snapshot(backend, previous)
            if snapshot is not None and now != snapshot:
                earlier.append("result-changed-after-return")
                reply["earlier_now"] = _snapshot_wire(now)
        if reply["stage"] == "done":
            aliasing = self._aliasing(backend, native, [natives[p] for p in positions])
            environment += [c for c in aliasing if c != "result-aliases-earlier-result"]
            earlier += [c for c in aliasing if c == "result-aliases-earlier-result"]
            self.previous = (native, _snapshot(backend, native))
        if earlier:
            reply["earlier"] = earlier
        return result

    # -- the exhaustive sweep -----------------------------------------------------

    def sweep(self, operation: str, name: str, dtype: str, count: int,
              start: int | None = None) -> dict[str, Any]:  # fmt: skip
        """One chunk of the exhaustive sweep: *count* inputs of *dtype* (``<f4``, ``<i4``)
        in the inputs half of the judge's segment *name*; the result's raw bytes go to
        its outputs half (``("segment", dtype, shape)``) or, when they do not fit, into
        the reply (``("bytes", dtype, shape, raw)``).  A backend with ``execute_into``
        computes straight into the outputs half (:func:`sweep_call`): nothing is copied.
        The reply also carries the backend's exception (``raised``) and the environment
        findings around the call.  Warnings are not judged by the sweep: they are
        ignored."""
        malloc.freeze_long_lived()  # the backend is loaded: the collector leaves it be
        segment = self._segment(name)
        result_dtype = _result_dtype(operation, dtype)
        outputs = None if result_dtype is None else segment.view(result_dtype, count, output=True)
        if start is not None:  # the bit patterns start, start + 1, ...: made here
            inputs = self._patterns(start, count).view(dtype)
        else:
            # the inputs half as it is: the judge never reads it back (its patterns are
            # its own) and writes it again only after this reply, so a backend that
            # writes into its input or keeps it changes nothing judged
            inputs = segment.view(dtype, count, output=False)
        reply: dict[str, Any] = {}
        environment = list(self.sticky)
        result: np.ndarray | None = None
        began = time.perf_counter()
        environment += self.left  # what is installed now: the probe after the last call
        with self.environment.backend():
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    result = sweep_call(self.backend, operation, inputs, out=outputs)
            except BaseException as error:  # judged by the judge
                reply["raised"] = raised_error(error)
            finally:
                self._leave_if_forked()
            self.left = fpenv.deviations(fpenv.probe())
        environment += self.left
        reply["seconds"] = time.perf_counter() - began
        if result is not None:
            try:
                reply["result"] = _place(segment, result)
            except BaseException as error:  # an array the judge cannot read
                reply["raised"] = raised_error(error)
        reply["environment"] = self._environment_after(environment)
        return reply

    def _patterns(self, start: int, count: int) -> np.ndarray:
        """The *count* uint32 bit patterns from *start* on, in a buffer of this process
        (the judge sends the range, not 4 MiB a chunk; the backend reads them from its
        own core's cache).  A fresh buffer when the backend kept the last one (its
        result is, or views, its input): what it holds is not overwritten."""
        buffer = getattr(self, "_inputs", None)
        if buffer is None or buffer.size < count or sys.getrefcount(buffer) > 3:
            buffer = self._inputs = np.empty(max(count, 1), dtype=np.uint32)
        base = getattr(self, "_base", None)
        if base is None or base.size < count:
            base = self._base = np.arange(max(count, 1), dtype=np.uint32)
        patterns = buffer[:count]
        np.add(base[:count], np.uint32(start), out=patterns)  # no wrap: start + count <= 2**32
        return patterns

    def _segment(self, name: str) -> Segment:
        """The judge's segment *name*, attached once (a few are kept: the judge alternates)."""
        segment = self.segments.get(name)
        if segment is None:
            if len(self.segments) >= 8:  # the judge replaced its segments
                for old in self.segments.values():
                    old.close()
                self.segments.clear()
            segment = self.segments[name] = Segment.attach(name)
        return segment

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


def _snapshot_wire(snapshot: Any) -> Any:
    """A :func:`_snapshot` as a wire tensor (None when it is none: an unreadable result,
    or an array of a dtype the wire does not carry)."""
    if snapshot is None or len(snapshot) != 3 or not isinstance(snapshot[0], str):
        return None
    kind, shape, raw = snapshot
    if kind in ("Float32", "Int32", "Bool"):  # read through to_tensor: a wire tensor
        return snapshot
    return (_NAMES[kind], tuple(shape), raw) if kind in _NAMES else None


def _result_wire(array: np.ndarray | None, tensor: Tensor) -> Any:
    """The result's bits: the backend's ``to_numpy`` array when it has one that agrees
    with its Tensor in dtype and shape (no float conversion at all), else the Tensor's
    (read with integer operations only: :func:`conformance.host.wire.encode_tensor`)."""
    wire = encode_array(array) if array is not None else None
    if wire is not None and (wire[0], tuple(wire[1])) != (tensor.dtype.name, tensor.shape):
        wire = None
    return wire if wire is not None else encode_tensor(tensor)


#: the numpy dtype of each dtype name of the wire (raw bits: never a float conversion)
_WIRE_DTYPES: dict[str, np.dtype[Any]] = {
    "Float32": np.dtype("<u4"),
    "Int32": np.dtype("<i4"),
    "Bool": np.dtype("|u1"),
}
_AS: dict[str, np.dtype[Any]] = {
    "Float32": np.dtype("<f4"),
    "Int32": np.dtype("<i4"),
    "Bool": np.dtype("|b1"),
}
#: the dtype name of the wire for each numpy dtype string (``<f4`` -> ``Float32``)
_NAMES: dict[str, str] = {dtype.str: name for name, dtype in _AS.items()}


def sweep_call(
    backend: Any, operation: str, inputs: np.ndarray, out: np.ndarray | None = None
) -> np.ndarray:
    """*operation* of *backend* on the 1-D array *inputs* (float32 or int32), as an array
    read by bits: through the backend's optional numpy exchange (``from_numpy``,
    ``to_numpy``: backends/protocol.py) when it has one, else through
    :class:`oracle.Tensor` built and read with integer operations only
    (:func:`conformance.host.wire.tensor_of_bits`, :func:`encode_tensor`).

    With *out* (an array of the inputs' shape and the plan's result dtype, sharing no
    memory with *inputs*) and a backend that also has ``execute_into``
    (:class:`backends.protocol.ExecuteInto`), the backend is asked to write its result
    into *out*; what it returns is the result read, whether
    or not that is *out* (:func:`_place` copies only what is elsewhere).  When
    ``execute_into`` raises -- a backend whose result has another dtype or shape than
    the plan's refuses an *out* of the plan's -- the plain ``execute`` is called, and
    its result or exception is what the sweep judges, as for a backend without it."""
    if callable(getattr(backend, "from_numpy", None)) and callable(
        getattr(backend, "to_numpy", None)
    ):
        native = None
        if out is not None and callable(getattr(backend, "execute_into", None)):
            try:
                native = backend.execute_into(
                    operation, backend.from_numpy(inputs), out=backend.from_numpy(out)
                )
            except Exception:  # it refused *out* (a result of another dtype than the plan's
                native = None  # is a finding of its own) or failed: the plain call decides
        if native is None:
            native = backend.execute(operation, backend.from_numpy(inputs))
        return np.asarray(backend.to_numpy(native))
    name = "Float32" if inputs.dtype == np.float32 else "Int32"
    tensor = tensor_of_bits(name, inputs.shape, inputs.tobytes())
    result = backend.to_tensor(backend.execute(operation, backend.from_tensor(tensor)))
    if not isinstance(result, Tensor):
        raise TypeError(f"to_tensor returned {type(result).__name__}, not a Tensor")
    kind, shape, raw = encode_tensor(result)
    return np.frombuffer(raw, _WIRE_DTYPES[kind]).view(_AS[kind]).reshape(shape)


@functools.cache
def _result_dtype(operation: str, dtype: str) -> np.dtype[Any] | None:
    """The numpy dtype of the central plan's result of unary *operation* on a tensor of
    numpy dtype *dtype* (``<f4``, ``<i4``): the dtype of the *out* the sweep offers the
    backend.  None where the planner has no plan (the backend's own call raises then)."""
    try:
        plan = resolve_operation_plan(operation, DType.from_name(_NAMES[dtype]))
    except Exception:
        return None
    return _AS.get(plan.output.name)


def _place(segment: Segment, result: np.ndarray) -> tuple[Any, ...]:
    """Where the judge reads *result*'s bytes: the segment's outputs half, or the reply."""
    if result.dtype.kind not in "biufc":
        raise TypeError(f"the backend returned an array of dtype {result.dtype}, not numbers")
    raw = np.ascontiguousarray(result).reshape(-1).view(np.uint8)
    if raw.size <= segment.half:
        outputs = segment.view(np.uint8, raw.size, output=True)
        if raw.ctypes.data != outputs.ctypes.data:  # not computed in place: copied
            outputs[:] = raw
        return ("segment", result.dtype.str, result.shape)
    return ("bytes", result.dtype.str, result.shape, raw.tobytes())


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
            elif kind == "sweep":
                answer = ("ok", host.sweep(*request[1:]))
            elif kind == "identity":
                answer = ("ok", identity_of(host.label, host.backend))
            else:
                answer = ("error", f"unknown request {kind!r}")
        except BaseException as error:  # a backend that fails to load, or the host's own bug
            answer = ("raised", raised_error(error))
        connection.send(answer)


def main(argv: list[str]) -> None:
    """Serve the judge on the pipes *argv* names (read fd, write fd).  The client's
    bootstrap (``conformance.host.client._BOOTSTRAP``) has restored the judge's
    ``sys.path`` before this module was imported."""
    read_fd, write_fd = int(argv[0]), int(argv[1])
    reader = Connection(read_fd, writable=False)
    writer = Connection(write_fd, readable=False)

    class Duplex:
        recv = reader.recv
        send = writer.send

    serve(Duplex())  # type: ignore[arg-type]
    os._exit(0)  # whatever threads the backend left


if __name__ == "__main__":
    main(sys.argv[1:])
