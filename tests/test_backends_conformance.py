"""Generic and CPU on every resolvable plan: each conforms to the oracle, and
the two agree bit for bit (FLOATING accumulation included: both use the
documented ascending order)."""

import pytest
from hypothesis import given, settings

import backends
from conformance.runner import agree, run_call
from conformance.strategies import boundary_examples, calls
from oracle import resolvable_plans

PLANS = resolvable_plans()
GENERIC = backends.get("generic")
CPU = backends.get("cpu")


def _judge(call):
    generic = run_call(GENERIC, call)
    cpu = run_call(CPU, call)
    assert generic.ok, f"{generic.verdict}\nrepro: {call.repro()}"
    assert cpu.ok, f"{cpu.verdict}\nrepro: {call.repro()}"
    assert (generic.raised is None) == (cpu.raised is None), call.repro()
    if generic.actual is not None:
        assert agree(generic.actual, cpu.actual, generic.expectation.nan_bits), (
            f"generic {generic.actual} != cpu {cpu.actual}\nrepro: {call.repro()}"
        )


@pytest.mark.parametrize("plan", PLANS, ids=lambda plan: plan.describe())
def test_boundary_examples_conform_on_both_backends(plan):
    for call in boundary_examples(plan):
        _judge(call)


@pytest.mark.parametrize("plan", PLANS, ids=lambda plan: plan.describe())
def test_generated_calls_conform_on_both_backends(plan):
    @settings(max_examples=15)
    @given(calls(plan))
    def check(call):
        _judge(call)

    check()
