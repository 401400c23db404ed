"""What re-trying issue 22's items as a new user would found, each fix with its test."""

from __future__ import annotations

from types import SimpleNamespace

from conformance.findings.failure import failure_report
from conformance.judge.runner import expectation_of
from conformance.model.calls import Call
from oracle import DType, Tensor, binary32


def _call(operation: str, *args: object) -> Call:
    call = Call(operation, tuple(args), None, None)  # type: ignore[arg-type]
    return Call(operation, tuple(args), None, call.resolve())


def test_a_signalling_nan_is_named_alike_in_call_and_in_a_failure_report() -> None:
    # `plancheck call` printed "signalling nan (0x7F800001)", a failure report
    # "SignallingNaN(0x7F800001) (0x7F800001)" for the same element
    snan = binary32.SignallingNaN(0x7F800001)
    call = _call("reduce_max", Tensor(DType.Float32, (2,), (snan, 1.0)))
    expectation = expectation_of(call)
    actual = Tensor(DType.Float32, (), (float("nan"),))
    verdict = expectation.check(actual)
    assert not verdict.ok
    outcome = SimpleNamespace(call=call, expectation=expectation, actual=actual, raised=None,
                              native=None, problem="wrong value", ok=False, warnings=(),
                              verdict=verdict)  # fmt: skip
    text = failure_report(outcome, "b").text()
    assert "SignallingNaN(" not in text
    assert "arg 0:      Float32[2] [signalling nan (0x7F800001), 1.0 (0x3F800000)]" in text
    assert "expected:   Float32[] [signalling nan (0x7F800001)]" in text
    assert "expected signalling nan (0x7F800001), got nan (0x7FC00000)" in text  # mismatch
