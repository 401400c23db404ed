"""The exhaustive sweep's state file: the evidence behind every verdict.

The state file is JSON lines, one *record* per (backend, plan, input range)
checked.  A verdict is only ever derived from records, so the file is
handled as evidence:

* every record names what produced it: the backend's *identity* (its name
  and a digest of its code and library versions, :func:`backend_identity`),
  the plancheck version and the *plan's* oracle digest: the code and the table
  row that determine that plan's expected values and verdicts
  (:func:`oracle_digest`, :mod:`conformance.exhaustive.digest`).  A record is
  reused (resumption) and counted (summaries) only when it is of the current
  format and all three match the current ones; records of another build are
  kept but ignored, so a changed backend or a changed plan is checked again,
  never "certified" by an old record.  Records of the previous format
  (:data:`OLD_FORMATS`, whose oracle digest covered whole files) are read and
  validated, and are simply never current;
* appends hold the file's lock (``filelock``), are one ``write`` of whole
  lines and are undone (truncated) if the write is short, so a record is
  either entirely in the file or not at all; readers hold the same lock;
* a line that is not a complete record of a known format -- a damaged line, a
  foreign line, a record of an unknown format -- is refused loudly
  (:class:`StateError`, exit status 3: the verdict is incomplete), never
  skipped, and nothing is appended after it;
* a path that cannot hold a state file (a directory, ``/dev/null``, an
  unwritable place) is a usage error (:class:`StatePathError`, exit 2),
  raised before any work;
* a shard being checked is *claimed* (a lock file per shard next to the
  state file, :meth:`Store.claim`): a second sweep on the same state file
  skips it, comes back when the first is done and resumes from its record,
  so no shard is checked twice.  A claim dies with its process.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import os
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, overload

import numpy
from filelock import FileLock, Timeout

from conformance.exhaustive.digest import plan_digest
from conformance.host.client import shared_host
from conformance.host.fpenv import DEFAULT_NUMPY_ERRORS
from oracle import vectorised as V

__all__ = [
    "FORMAT",
    "OLD_FORMATS",
    "STANDARD_JUDGE_ENVIRONMENT",
    "Pruned",
    "StateError",
    "StatePathError",
    "Store",
    "backend_identity",
    "current_key",
    "is_current",
    "oracle_digest",
    "plancheck_version",
    "validate_record",
]

#: the value of the ``format`` field of every record written now (its ``oracle`` field is
#: the plan's digest, :func:`oracle_digest`)
FORMAT = "plancheck-exhaustive/3"
#: formats still read and validated, never current: "/2" digested whole oracle files
OLD_FORMATS = ("plancheck-exhaustive/2",)
TOTAL = 1 << 32

#: the fields every record holds, with their types (bool is not an int here)
FIELDS: dict[str, type] = {
    "format": str,
    "identity": str,
    "plancheck": str,
    "oracle": str,
    "backend": str,
    "plan": str,
    "role": str,
    "start": int,
    "stop": int,
    "ulp_budget": int,
    "inputs": int,
    "non_conforming": int,
    "not_correctly_rounded": int,
    "nan_mismatches": int,
    "max_ulp": int,
}
#: fields a record may hold, with their types (None allowed): the real error in ulps
OPTIONAL_FIELDS: dict[str, tuple[type, ...]] = {
    "max_error": (float, int),
    "worst_error": (list,),
    #: the backend host's environment findings (any makes the record not conforming)
    "environment": (list,),
    #: the judge's own environment as checked: rounding, flush_to_zero,
    #: denormals_are_zero, numpy_errors
    "judge_environment": (dict,),
}


#: the ``judge_environment`` of every record written: what the judge checks before and
#: after each range (:func:`conformance.exhaustive.sweep.judge_environment`)
STANDARD_JUDGE_ENVIRONMENT = {
    "rounding": "to-nearest",
    "flush_to_zero": False,
    "denormals_are_zero": False,
    "numpy_errors": dict(sorted(DEFAULT_NUMPY_ERRORS.items())),
}


class StateError(Exception):
    """The state file holds something that is not a complete record of this format."""

    status = 3


class StatePathError(StateError):
    """The state path cannot hold a state file (a usage error)."""

    status = 2


# ---------------------------------------------------------------------------
# Identities: what produced a record
# ---------------------------------------------------------------------------


def oracle_digest(plan: str) -> str:
    """The oracle digest of *plan*: what determines its expected values and verdicts
    (:func:`conformance.exhaustive.digest.plan_digest`; see that module)."""
    return plan_digest(plan)


@functools.cache
def plancheck_version() -> str:
    """The installed plancheck version (``unknown`` outside an installation)."""
    try:
        return importlib.metadata.version("plancheck")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


@functools.cache
def backend_identity(name: str) -> str:
    """``name@digest``: the backend *name* and a digest of what it runs.

    Computed in the backend's host process (:func:`conformance.host.identity.identity_of`:
    the source of the module the name refers to and of the modules defining the
    backend's classes, the versions of the libraries they import, the backend's
    ``version``); this process never imports the backend.  ``numpy-float32`` is
    numpy's version.  A backend that cannot be loaded raises
    :class:`conformance.host.client.HostLoadError` (or ``HostCrashed``,
    ``HostTimeout``); the caller reports a usage error.
    """
    if name == "numpy-float32":
        return f"{name}@numpy-{numpy.__version__}"
    return shared_host(name).identity()


def current_key(backend: str, plan: str) -> dict[str, str]:
    """The identity fields a record of *backend* and *plan* must carry to count now."""
    return {
        "format": FORMAT,
        "identity": backend_identity(backend),
        "plancheck": plancheck_version(),
        "oracle": oracle_digest(plan),
    }


def is_current(record: dict[str, Any]) -> bool:
    """Whether *record* was made by its backend's current build, this plancheck and the
    current oracle of its plan (a record of an old format never is)."""
    if record["format"] != FORMAT:
        return False
    key = current_key(record["backend"], record["plan"])
    return all(record[name] == value for name, value in key.items())


# ---------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------


def validate_record(record: Any) -> str | None:
    """Why *record* is not a valid record of this format (None when it is)."""
    if not isinstance(record, dict):
        return f"a JSON {type(record).__name__}, not a record"
    if record.get("format") not in (FORMAT, *OLD_FORMATS):
        found = record.get("format")
        if found is None:
            return "no 'format' field (written by an older plancheck, or not a state file)"
        return f"format {found!r}, expected {FORMAT!r}"
    for name, kind in FIELDS.items():
        value = record.get(name)
        if not isinstance(value, kind) or isinstance(value, bool):
            return f"field {name!r} is {value!r}, expected {kind.__name__}"
    for name, kinds in OPTIONAL_FIELDS.items():
        value = record.get(name)
        if value is not None and (not isinstance(value, kinds) or isinstance(value, bool)):
            return f"field {name!r} is {value!r}, expected {kinds[0].__name__} or null"
    if not all(isinstance(e, str) for e in record.get("environment") or ()):
        return f"environment {record['environment']!r} is not a list of finding classes"
    judge = record.get("judge_environment")
    if judge is not None and judge != STANDARD_JUDGE_ENVIRONMENT:
        return f"judged in a floating-point environment that is not standard: {judge!r}"
    if record.get("max_error") is not None and not record["max_error"] >= 0:
        return f"max_error {record['max_error']!r} is negative"
    op, _, dtype = record["plan"].partition(":")
    if (
        op not in V.OPS
        or dtype not in ("Float32", "Int32")
        or (dtype == "Int32" and op not in V.ACTIVATIONS)
    ):
        return f"no unary plan {record['plan']!r}"
    if not 0 <= record["start"] < record["stop"] <= TOTAL:
        return f"range [{record['start']}, {record['stop']}) is not inside [0, 2**32)"
    if record["role"] not in ("checked", "measured"):
        return f"role {record['role']!r}"
    counts = ("inputs", "non_conforming", "not_correctly_rounded", "nan_mismatches", "max_ulp")
    if any(record[c] < 0 for c in counts) or record["inputs"] != record["stop"] - record["start"]:
        return "counts are negative or do not match the range"
    if record["non_conforming"] > record["inputs"]:
        return "more non-conforming inputs than inputs"
    return None


# ---------------------------------------------------------------------------
# The file
# ---------------------------------------------------------------------------


def _check_path(path: Path) -> Path:
    """*path* when it can hold a state file; :class:`StatePathError` otherwise."""
    try:
        info = path.stat()
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise StatePathError(f"state file {path}: {error.strerror or error}") from None
    if info is not None:
        if not stat.S_ISREG(info.st_mode):
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise StatePathError(f"state file {path} is {kind}; give a file path with --state")
        if not os.access(path, os.R_OK | os.W_OK):
            raise StatePathError(f"state file {path} is not readable and writable")
        if not os.access(path.parent, os.W_OK | os.X_OK):  # its lock and claims live beside it
            raise StatePathError(f"state file {path}: its directory is not writable")
        return path
    parent = path.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise StatePathError(f"state file {path}: cannot create it in {parent}")
    return path


@dataclass(frozen=True)
class Pruned:
    """What :meth:`Store.prune` removed and kept."""

    stale: int  #: records another build, plancheck, oracle or format made
    superseded: int  #: current records a later record of the same range replaces
    kept: int  #: records left in the file (every backend's)
    bytes_before: int
    bytes_after: int


class Store:
    """A state file: locked reads, atomic appends of validated records, pruning."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = _check_path(Path(path))
        self._lock_path = self.path.with_name(self.path.name + ".lock")
        self._claims = self.path.with_name(self.path.name + ".claims")

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(self._lock_path, thread_local=False):
            yield

    def _read(self) -> list[dict[str, Any]]:
        return [record for _, record in self._read_lines()]

    def _read_lines(self) -> list[tuple[bytes, dict[str, Any]]]:
        """(line as written, record) of every line, validated; :class:`StateError`."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        if data and not data.endswith(b"\n"):
            last = data.count(b"\n") + 1
            raise StateError(
                f"{self.path}:{last}: the last line is damaged (no line end: an interrupted "
                "write?); its shard has no verdict.  Remove that line or move the file aside."
            )
        records = []
        for number, line in enumerate(data.split(b"\n")[:-1] if data else [], 1):
            try:
                record = json.loads(line)
            except (ValueError, RecursionError) as error:  # ValueError: JSON, UTF-8, int digits
                raise StateError(
                    f"{self.path}:{number}: not a JSON record ({error}); the state file is "
                    "damaged or not a plancheck state file.  Remove the line or use another "
                    "--state."
                ) from None
            problem = validate_record(record)
            if problem:
                raise StateError(
                    f"{self.path}:{number}: not a plancheck state record: {problem}.  "
                    "Use another --state (or move this file aside)."
                )
            records.append((line + b"\n", record))
        return records

    def load(self) -> list[dict[str, Any]]:
        """Every record, in file order; :class:`StateError` on any bad line."""
        if not self.path.exists():
            return []
        with self._locked():
            return self._read()

    def append(self, records: Iterable[dict[str, Any]]) -> None:
        """Append *records* (validated) as one write under the lock; all or nothing."""
        lines = []
        for record in records:
            problem = validate_record(record)
            if problem:
                raise ValueError(f"refusing to record {record!r}: {problem}")
            lines.append(json.dumps(record, separators=(",", ":")) + "\n")
        data = "".join(lines).encode()
        with self._locked():
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                size = os.fstat(fd).st_size
                if size:
                    os.lseek(fd, size - 1, os.SEEK_SET)
                    if os.read(fd, 1) != b"\n":
                        raise StateError(f"{self.path}: the last line is damaged; not appending")
                written = 0
                try:
                    while written < len(data):
                        written += os.write(fd, data[written:])
                except BaseException:
                    os.ftruncate(fd, size)  # no partial line is ever left behind
                    raise
                os.fsync(fd)  # whole lines are in the file: an interrupt here keeps them
            finally:
                os.close(fd)

    def prune(self, backend: str, plans: Iterable[str]) -> Pruned:
        """Rewrite the file without the records of *backend* and *plans* that can never
        count again: those its current build, this plancheck and the plan's current oracle
        did not make (:func:`is_current`; an old format never counts), and those a later
        current record of the same plan, range, budget and role supersedes (the latest of
        a range is the one counted).  No verdict, summary or table changes: what they
        count is kept.  Every other line is kept as it was, in its order.  Atomic: the
        new file is written beside the old one, synced and renamed over it, all under
        the file's lock (an append waits); :class:`StateError` on a bad line, before
        anything is written."""
        selected = set(plans)
        with self._locked():
            lines = self._read_lines()
            mine = [i for i, (_, r) in enumerate(lines)
                    if r["backend"] == backend and r["plan"] in selected]  # fmt: skip
            stale = {i for i in mine if not is_current(lines[i][1])}
            superseded, seen = set(), set()
            for i in reversed([i for i in mine if i not in stale]):
                r = lines[i][1]
                key = (r["plan"], r["start"], r["stop"], r["ulp_budget"], r["role"])
                if key in seen:
                    superseded.add(i)
                seen.add(key)
            dropped = stale | superseded
            kept = [line for i, (line, _) in enumerate(lines) if i not in dropped]
            if dropped:
                self._replace(b"".join(kept))
            before = sum(len(line) for line, _ in lines)
            return Pruned(len(stale), len(superseded), len(kept), before, sum(map(len, kept)))

    def _replace(self, data: bytes) -> None:
        """Put *data* in place of the file: a new file beside it, synced, renamed over it
        (readers see the old file or the new one, never a mix), the directory synced."""
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.prune")
        try:
            with open(temporary, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temporary, stat.S_IMODE(self.path.stat().st_mode))
            os.replace(temporary, self.path)
        finally:
            temporary.unlink(missing_ok=True)
        directory = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)

    @overload
    def claim(self, key: str, *, wait: Literal[True]) -> FileLock: ...
    @overload
    def claim(self, key: str, *, wait: bool) -> FileLock | None: ...
    def claim(self, key: str, *, wait: bool) -> FileLock | None:
        """Hold the claim on shard *key*; None when another process holds it and not *wait*."""
        self._claims.mkdir(parents=True, exist_ok=True)
        name = hashlib.sha256(key.encode()).hexdigest()[:24] + ".lock"
        lock = FileLock(self._claims / name, thread_local=False)
        try:
            lock.acquire(timeout=-1 if wait else 0)
        except Timeout:
            return None
        return lock
