"""The first-call allowance: compile time of a new call signature is not a hang.

Libraries that compile a kernel the first time they see a call (numba, a JIT
behind ``jax.jit``, ``torch.compile``, pytensor) spend seconds on that first call
and microseconds on the next ones.  Under the per-call timeout alone, such a first
call times out, the host is killed (and its compiled kernels with it) and the run
is incomplete.  A backend declares the extra time a first call may take::

    class MyBackend(KernelBackend):
        first_call_allowance = 60.0     # seconds, beyond the per-call timeout
        first_call_key = "signature"    # or "shape": the library compiles per shape

and the judge gives the first call of each new *call key* in a host the per-call
timeout plus the allowance; every later call of that key gets the timeout alone.
The key (:func:`call_key`) is the operation and, per forward argument, a
tensor's dtype and rank (its shape too with ``first_call_key = "shape"``) or a
scalar's Python type (a tuple's element types); values never enter it.  A host
that is restarted (after a timeout or a crash) has compiled nothing, so its keys
start afresh (:meth:`FirstCalls.reset`).

The allowance is stated where the run is stated: the run header (``backend
numba: 0.68.1; first call of a new signature: +60 s``) and the JSON report's
``options.first_call_allowance_s``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = [
    "KEYS",
    "FirstCalls",
    "allowance_of",
    "call_key",
    "declared_allowance",
    "declared_key",
    "host_info",
    "largest_allowance",
    "statement",
]

#: what a backend's ``first_call_key`` may say: what makes a call new to its compiler
KEYS = ("signature", "shape")


def declared_allowance(backend: Any) -> float:
    """Seconds *backend* declares a first call may take beyond the timeout (0 if none).

    ValueError for a value that is not a finite non-negative number (a bool
    included), so a typo in an adapter is a usage error, not a silent 0.
    """
    value = getattr(backend, "first_call_allowance", 0.0)
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(
            f"first_call_allowance must be a number of seconds, got {type(value).__name__} "
            f"{value!r}"
        )
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"first_call_allowance must be finite and >= 0, got {value!r}")
    return float(value)


def declared_key(backend: Any) -> str:
    """*backend*'s ``first_call_key`` (``"signature"`` unless it says ``"shape"``);
    ValueError for another value."""
    key = getattr(backend, "first_call_key", "signature")
    if key not in KEYS:
        raise ValueError(f"first_call_key must be one of {', '.join(KEYS)}; got {key!r}")
    return str(key)


def host_info(backend: Any) -> dict[str, Any]:
    """What a host reports about *backend*'s first calls when it loads it (ValueError
    for a malformed declaration)."""
    return {
        "first_call_allowance": declared_allowance(backend),
        "first_call_key": declared_key(backend),
    }


def _value_key(value: Any, per_shape: bool) -> Any:
    """One wire argument's part of the call key (see the module docstring)."""
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "tensor":
        name, shape, _raw = value[1]
        return ("tensor", name, tuple(shape) if per_shape else len(shape))
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(_value_key(v, per_shape) for v in value))
    return type(value).__name__


def call_key(operation: str, args: Sequence[Any], per_shape: bool = False) -> tuple[Any, ...]:
    """The key of a call as it crosses to the host (:func:`conformance.judge.runner.
    wire_arguments`: a tensor is ``("tensor", (dtype name, shape, raw bits))``)."""
    return (operation, *(_value_key(a, per_shape) for a in args))


class FirstCalls:
    """The call keys one host process has run, and the timeout each new call gets."""

    def __init__(self) -> None:
        self.seen: set[tuple[Any, ...]] = set()
        self.granted = 0  #: how many calls were given the allowance

    def reset(self) -> None:
        """A fresh host: nothing is compiled in it."""
        self.seen.clear()

    def timeout(self, operation: str, args: Sequence[Any], timeout: float | None,
                info: dict[str, Any]) -> float | None:  # fmt: skip
        """The timeout of ``operation(*args)`` in the host whose load *info* is given:
        *timeout* plus the host's ``first_call_allowance`` for a new key, else
        *timeout*.  No timeout stays no timeout."""
        allowance = float(info.get("first_call_allowance") or 0.0)
        if timeout is None or timeout <= 0 or allowance <= 0:
            return timeout
        key = call_key(operation, args, per_shape=info.get("first_call_key") == "shape")
        if key in self.seen:
            return timeout
        self.seen.add(key)
        self.granted += 1
        return timeout + allowance


def allowance_of(host: Any) -> float:
    """The allowance a loaded host (:class:`~conformance.host.client.BackendHost`)
    declared: 0 for none, or for an object with no load ``info``."""
    return float(getattr(host, "info", {}).get("first_call_allowance") or 0.0)


def largest_allowance(hosts: Iterable[Any]) -> float:
    """The largest allowance the loaded *hosts* declared (0 for none): what the
    watchdogs, which do not know which backend a call is for, must add."""
    return max((allowance_of(host) for host in hosts), default=0.0)


def statement(info: dict[str, Any]) -> str:
    """The allowance of a host as the run header states it ('' for none)."""
    allowance = float(info.get("first_call_allowance") or 0.0)
    if allowance <= 0:
        return ""
    what = "shape" if info.get("first_call_key") == "shape" else "signature"
    return f"first call of a new {what}: +{allowance:g} s beyond the per-call timeout"
