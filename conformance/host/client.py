"""The judge's side of a backend host: start it, send it calls, kill it.

:class:`BackendHost` stands for one backend (a ``backends.get`` label) in one
judge process.  It starts ``python -m conformance.host.server`` with
:class:`subprocess.Popen` in a new session (``start_new_session``: the host and
every child it forks share one process group the judge can kill at once), talks
to it through :class:`multiprocessing.connection.Connection` over two pipes
(length-prefixed pickles), and waits for each reply with ``poll(timeout)`` in
the judge's own thread, which the backend cannot block: a call past the timeout
is :class:`HostTimeout` (the process group is killed, the next call starts a
fresh host), a host that dies is :class:`HostCrashed`.  Every host still alive
is killed at the judge's exit (:func:`close_all`, also registered with
:mod:`atexit`).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import subprocess
import sys
import weakref
from multiprocessing.connection import Connection
from typing import Any

from conformance.host import malloc
from conformance.host.first_call import FirstCalls
from conformance.host.wire import RaisedError, rebuild_exception

__all__ = [
    "BackendHost",
    "HostCrashed",
    "HostLoadError",
    "HostTimeout",
    "close_all",
    "shared_host",
]

#: seconds a host may take to start and import the backend (torch, jax are slow)
LOAD_TIMEOUT = 300.0

_LIVE: weakref.WeakSet[BackendHost] = weakref.WeakSet()


#: the most pairs of calls :meth:`BackendHost.take_earlier` keeps (the latest)
MAX_PAIRS = 1000


class HostTimeout(Exception):
    """The host gave no reply within the timeout (it was killed)."""


class HostCrashed(Exception):
    """The host died during a request (its exit status or signal is in the message)."""


class HostLoadError(Exception):
    """The backend could not be loaded in the host; *error* is what it raised."""

    def __init__(self, label: str, error: BaseException) -> None:
        super().__init__(_message(error))
        self.label = label
        self.error = error


def _message(error: BaseException) -> str:
    """*error*'s text for a person: its message, the class's name only when it has none
    (a bare ``SystemExit``)."""
    text = str(error.args[0]) if len(error.args) == 1 else str(error)
    return text.strip() or f"{type(error).__name__} (no message)"


#: The host's first lines: the judge's ``sys.path`` is restored before anything of
#: plancheck is imported, so a project's own ``conformance`` or ``backends`` package in
#: the working directory (first on the path of ``python -m``) cannot shadow plancheck's.
_BOOTSTRAP = (
    "import json, os, sys; "
    "sys.path[:] = json.loads(os.environ['PLANCHECK_HOST_SYS_PATH']); "
    "from conformance.host.server import main; main(sys.argv[1:])"
)


class BackendHost:
    """A backend under test, loaded in a process of its own.

    *label* is what ``backends.get`` resolves (in the host).  :attr:`info` is what
    the host said about the backend after loading it (``name``, ``unsupported``,
    ``after_import`` findings, ...).  :attr:`unsupported` mirrors the backend's own
    attribute, so :func:`conformance.model.capabilities.declared_by` works on a host.
    Both are read from the last load (a host closed since is not restarted for them).
    """

    def __init__(self, label: str) -> None:
        self.label = label
        self.info: dict[str, Any] = {}
        self.starts = 0
        self.first_calls = FirstCalls()  # the call keys this host has compiled
        self._process: subprocess.Popen[bytes] | None = None
        self._reader: Connection | None = None
        self._writer: Connection | None = None
        self._loading = False  #: a load request was sent and its reply not yet read
        #: the tag of the call whose result the host holds as its previous one
        self._previous_tag: Any = None
        #: (earlier tag, later tag, classes, the earlier result now): see :meth:`take_earlier`
        self._earlier: list[tuple[Any, Any, tuple[str, ...], Any]] = []
        _LIVE.add(self)

    # -- what the judge reads -------------------------------------------------

    @property
    def name(self) -> str:
        return str((self.info or self.ensure()).get("name", self.label))

    @property
    def version(self) -> str:
        """What the hosted backend runs, as the host read it from the backend
        (:func:`conformance.model.versions.backend_version`)."""
        return str((self.info or self.ensure()).get("version", "unknown"))

    @property
    def configuration(self) -> dict[str, Any] | None:
        """The hosted library's whole configuration, recorded in the host after the
        adapter loaded (:func:`conformance.model.configuration.record_backend`); None for
        a backend that is no outside library's adapter."""
        return (self.info or self.ensure()).get("configuration")

    @property
    def composed(self) -> dict[str, str]:
        """The operations the hosted adapter composes from several library calls
        (operation -> how), from the backend's ``composed_operations``."""
        return dict((self.info or self.ensure()).get("composed") or {})

    @property
    def unsupported(self) -> Any:
        return (self.info or self.ensure()).get("unsupported") or None

    @property
    def alive(self) -> bool:
        """Whether the host process is started and has not ended."""
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    # -- life cycle -------------------------------------------------------------

    def ensure(self) -> dict[str, Any]:
        """Start the host and load the backend unless that is done (HostLoadError when
        the backend cannot be loaded); waits for a load :meth:`start` began."""
        if self._loading and self._process is not None and self._process.poll() is None:
            return self._loaded()
        if self._process is not None and self._process.poll() is None:
            return self.info
        self.start()
        return self._loaded()

    def start(self) -> None:
        """Start the host and send it the load request without waiting for the reply (a
        host already started, or starting, is left as it is): the caller works on while
        the backend is imported, and :meth:`ensure` waits for the rest."""
        if self._process is not None and self._process.poll() is None:
            return
        self.close()
        self._previous_tag = None  # a fresh host holds no result
        to_host_read, to_host_write = os.pipe()
        from_host_read, from_host_write = os.pipe()
        env = {**malloc.with_settings(os.environ), "PLANCHECK_HOST_SYS_PATH": json.dumps(sys.path)}
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-c", _BOOTSTRAP, str(to_host_read), str(from_host_write)],
                pass_fds=(to_host_read, from_host_write), stdin=subprocess.DEVNULL,
                stdout=sys.__stderr__.fileno() if sys.__stderr__ else None,
                start_new_session=True, env=env,
            )  # fmt: skip
        finally:
            os.close(to_host_read)
            os.close(from_host_write)
        self._writer = Connection(to_host_write, readable=False)
        self._reader = Connection(from_host_read, writable=False)
        self.starts += 1
        self.first_calls.reset()
        self.send(("load", self.label))
        self._loading = True

    def _loaded(self) -> dict[str, Any]:
        """The reply to the load request :meth:`start` sent (HostLoadError)."""
        self._loading = False
        status, answer = self.receive(LOAD_TIMEOUT)
        if status != "ok":
            self.close()
            error = rebuild_exception(answer) if isinstance(answer, RaisedError) else None
            raise HostLoadError(self.label, error or RuntimeError(str(answer)))
        self.info = answer
        return self.info

    def request(self, message: tuple[Any, ...], timeout: float | None) -> tuple[str, Any]:
        """Send *message* and wait for the reply (HostTimeout, HostCrashed)."""
        self.send(message)
        return self.receive(timeout)

    def send(self, message: tuple[Any, ...]) -> None:
        """Send *message* to the started host without waiting (HostCrashed); the reply is
        :meth:`receive`'s.  The judge works on while the host computes."""
        assert self._writer is not None
        try:
            self._writer.send(message)
        except OSError as error:  # BrokenPipeError: the host is gone
            raise HostCrashed(f"the backend's host process {self._ended()}") from error

    def receive(self, timeout: float | None) -> tuple[str, Any]:
        """The reply to the request sent last, waited for at most *timeout* seconds
        (HostTimeout: the host was killed; HostCrashed: it died)."""
        assert self._reader is not None
        try:
            if timeout is not None and not self._reader.poll(max(timeout, 0.0)):
                self.close()
                raise HostTimeout(f"no reply within {timeout:g} s (the host was killed)")
            return self._reader.recv()
        except (EOFError, OSError) as error:
            raise HostCrashed(f"the backend's host process {self._ended()}") from error

    def run(self, operation: str, args: list[Any], keywords: dict[str, Any],
            timeout: float | None, tag: Any = None) -> dict[str, Any]:  # fmt: skip
        """One call in the host (see :meth:`conformance.host.server.Host.run`).

        *tag* stands for the call in :meth:`take_earlier` (the judge passes its Call):
        the classes of a pair of calls -- the previous call's result changed by this
        one, or aliased by this one's -- are not this call's findings but the pair's.
        """
        self.ensure()
        timeout = self.first_calls.timeout(operation, args, timeout, self.info)
        status, answer = self.request(("run", operation, args, keywords), timeout)
        if status != "ok":
            self.close()
            raise HostCrashed(f"the host failed: {answer}")
        earlier = answer.pop("earlier", None)
        if earlier:
            now = answer.pop("earlier_now", None)
            self._earlier.append((self._previous_tag, tag, tuple(earlier), now))
            del self._earlier[:-MAX_PAIRS]  # a caller that never asks keeps no more
        if answer.get("stage") == "done":
            self._previous_tag = tag  # the host's previous result is this call's now
        return answer

    def take_earlier(self) -> list[tuple[Any, Any, tuple[str, ...], Any]]:
        """The pairs of calls seen since the last time this was asked, each ``(earlier
        tag, later tag, classes, the earlier result now)``: *classes* are
        ``result-changed-after-return`` (the earlier call's result changed when the
        later call ran; *the earlier result now* is its wire tensor then, or None) and
        ``result-aliases-earlier-result`` (the later call's result shares memory
        with the earlier call's)."""
        taken, self._earlier = self._earlier, []
        return taken

    def identity(self) -> str:
        """The backend's build identity, computed in the host
        (:func:`conformance.host.identity.identity_of`)."""
        self.ensure()
        status, answer = self.request(("identity",), LOAD_TIMEOUT)
        if status != "ok":
            self.close()
            raise HostCrashed(f"the host failed: {answer}")
        return str(answer)

    def _ended(self) -> str:
        process = self._process
        code = None
        if process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = process.wait(2)
        self.close()
        if code is None:
            return "stopped answering"
        if code < 0:
            with contextlib.suppress(ValueError):
                return f"was killed by {signal.Signals(-code).name}"
        return f"exited with status {code}"

    def close(self) -> None:
        """Kill the host's process group (the host and whatever it forked)."""
        process, self._process = self._process, None
        self._loading = False
        for connection in (self._reader, self._writer):
            if connection is not None:
                with contextlib.suppress(OSError):
                    connection.close()
        self._reader = self._writer = None
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(5)


#: label -> the host :func:`shared_host` hands out in this process
_SHARED: dict[str, BackendHost] = {}


def shared_host(label: str) -> BackendHost:
    """This process's one host of backend *label* for the exhaustive sweep (its identity,
    its runs): started on first use, restarted by the next request after it was killed."""
    host = _SHARED.get(label)
    if host is None:
        host = _SHARED[label] = BackendHost(label)
    return host


def close_all() -> None:
    """Kill every host this process started."""
    for host in list(_LIVE):
        host.close()


atexit.register(close_all)
