"""The classes of a pair of calls: a backend whose later call changes or reuses an earlier
result (issue 29, item 3).

The backend host sees, when a call B runs, that the result of the call before it (A)
has changed since it was returned (``result-changed-after-return``: an asynchronous
kernel still writing, a buffer reused for the next result) or that B's result shares
A's memory (``result-aliases-earlier-result``).  Such a class is neither call's alone.
Judged on B, it made every call a failure that depends on the call before it: the
hypothesis search shrank B -- which cannot show the class alone, so the shrinker never
converged -- for minutes per class, and the example printed was the smallest B found
(an empty call, unrelated to the result that changed).

So the host client keeps these pairs apart from B's reply
(:meth:`conformance.host.client.BackendHost.take_earlier`), B is judged on its own, and
:func:`record_earlier` records each pair's classes with A -- the call whose result
changed -- as the example, its actual value the result as it is now, and B named in the
verdict as the call after which it changed.  The search never sees them: nothing to
shrink, the run ends in normal time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.host.wire import decode_tensor
from conformance.judge.runner import OracleError, Outcome, Problem, expectation_of
from conformance.model.calls import Call
from conformance.model.codec import call_to_json
from oracle import Verdict

__all__ = ["WHAT", "record_earlier"]

#: what each class of a pair says about the earlier call
WHAT = {
    "result-changed-after-return": "its result changed after it was returned, when the next "
    "call ran",
    "result-aliases-earlier-result": "its result shares memory with the result of the next call",
}


def _call_of(tag: Any) -> tuple[Call | None, Any]:
    """(the Call, its Expectation or None) of a tag the runner passed to the host."""
    if isinstance(tag, tuple) and len(tag) == 2 and isinstance(tag[0], Call):
        return tag[0], tag[1]
    return (tag, None) if isinstance(tag, Call) else (None, None)


def _later_text(later: Call | None) -> str:
    if later is None:
        return "a call of another check"
    try:
        return call_to_json(later)
    except TypeError:  # a value without an exact encoding
        return later.repro()


def record_earlier(checker: Any, host_findings: Callable[[Outcome], list[Any]]) -> None:
    """Record, in *checker*, the pairs its backend host has seen since it was last asked
    (nothing for a backend that is not hosted), their findings made by *host_findings*
    (:func:`conformance.judge.checker.host_findings`).  Each pair is counted once (while
    the checker counts) under the earlier call's plan."""
    take = getattr(checker.backend, "take_earlier", None)
    if take is None:
        return

    for earlier_tag, later_tag, classes, now in take():
        earlier, expectation = _call_of(earlier_tag)
        later, later_expectation = _call_of(later_tag)
        if earlier is None:  # a call the runner did not name: B stands for the pair
            earlier, expectation, later = later, later_expectation, None
        if earlier is None:
            continue
        if expectation is None:
            try:
                expectation = expectation_of(earlier)
            except Exception as error:
                raise OracleError(earlier, error) from error
        what = "; ".join(WHAT.get(c, c) for c in classes)
        verdict = Verdict(
            False, f"{earlier.operation}: {what} (the next call: {_later_text(later)})"
        )
        actual = decode_tensor(now) if now is not None else None
        outcome = Outcome(earlier, expectation, verdict, actual, problem=Problem.ENVIRONMENT,
                          environment=tuple(classes))  # fmt: skip
        checker.record_findings(outcome, host_findings(outcome), checker._counting)
        checker.fail_passed(earlier)  # a failing call now: the run's counts say so
