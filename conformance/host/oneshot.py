"""One call of a backend in its host: what ``plancheck call`` runs.

:func:`call_once` runs one call in a :class:`~conformance.host.client.BackendHost`:
the backend is never imported in the caller's process, the result comes back as bits
(:mod:`conformance.host.wire`) and the floating-point environment the backend keeps or
leaves is named, as in ``plancheck run``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from conformance.host.client import BackendHost, HostCrashed, HostTimeout
from conformance.host.wire import decode_tensor, encode_tensor, rebuild_exception
from oracle import Tensor

__all__ = ["HostedResult", "call_once"]


@dataclass(frozen=True)
class HostedResult:
    """What one hosted call gave.

    Exactly one of *result* (the Tensor, decoded from bits), *raised* (the backend's
    exception, rebuilt: :func:`conformance.host.wire.rebuild_exception`) and *failure*
    (a text: ``to_tensor`` refused the native result or returned no Tensor, the host
    crashed or gave no reply in time) is set.  *environment* lists the host's finding
    classes around the call (``fp-environment:flush-to-zero``, ...), *warnings* the
    calling thread's RuntimeWarnings, *modified* the positions of modified arguments.
    """

    name: str
    version: str
    result: Tensor | None = None
    raised: BaseException | None = None
    failure: str | None = None
    environment: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    modified: tuple[int, ...] = ()


def call_once(
    host: BackendHost,
    operation: str,
    args: list[Any],
    keywords: dict[str, Any],
    timeout: float | None = None,
) -> HostedResult:
    """Run ``operation(*args, **keywords)`` on the backend of *host*, then close the host.

    Raises :class:`~conformance.host.client.HostLoadError` when the backend cannot be
    loaded (what it raised is the error's ``error``), HostCrashed / HostTimeout when
    the host dies or hangs while loading it (call ``host.ensure()`` first to tell a
    load failure from the call's).
    """
    try:
        host.ensure()
        wire = [("tensor", encode_tensor(a)) if isinstance(a, Tensor) else a for a in args]
        try:
            reply = host.run(operation, wire, keywords, timeout)
        except (HostCrashed, HostTimeout) as error:
            return HostedResult(host.name, host.version, failure=str(error))
        hosted = partial(
            HostedResult,
            host.name,
            host.version,
            environment=tuple(reply.get("environment", ())),
            warnings=tuple(reply.get("warnings", ())),
            modified=tuple(reply.get("modified", ())),
        )
        stage = reply["stage"]
        if stage == "execute":
            return hosted(raised=rebuild_exception(reply["raised"]))
        if stage == "to_tensor":
            refused = rebuild_exception(reply["raised"])
            failure = (
                f"the backend returned {reply.get('native_type')}, which its to_tensor "
                f"refused: {type(refused).__name__}: {refused}"
            )
            return hosted(failure=failure)
        if stage == "not_tensor":
            return hosted(failure=f"to_tensor returned {reply['not_tensor']}, not a Tensor")
        return hosted(result=decode_tensor(reply["result"]))
    finally:
        host.close()
