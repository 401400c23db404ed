"""Every registered operation has its hook in every layer; a missing one is named.

Adding an operation (docs/adding-an-operation.md) is a row in the operation
table plus one rule per layer.  This test walks the layers in the order data
flows and says which hook is missing and where it goes, so the first failure
after adding a row is the next thing to write.
"""

from __future__ import annotations

import numpy as np
import pytest

import backends
from conformance.classes.unary import is_unary
from conformance.generate import witnesses
from conformance.generate.families import module_of
from conformance.generate.strategies import boundary_examples
from conformance.judge.runner import run_call
from conformance.model.calls import family_of
from oracle import registered_operations, resolvable_plans
from oracle import vectorised as V
from oracle.evaluate import REFERENCES
from oracle.facts import Family
from oracle.operations import BUILTIN_FACTS
from oracle.reference import rounded_mpmath

OPERATIONS = [spec.name for spec in registered_operations()]
PLANS = {op: [p for p in resolvable_plans() if p.operation == op] for op in OPERATIONS}


#: a few binary32 inputs: 1, the smallest subnormal, +-inf, a NaN, a large normal
_SAMPLE = np.array(
    [0x3F800000, 0x00000001, 0x7F800000, 0xFF800000, 0x7FC00000, 0x42B00000], np.uint32
).view(np.float32)


def _missing(op: str) -> list[str]:
    """The layers that lack *op*'s hook, each with the file its hook goes in."""
    missing = []
    facts = BUILTIN_FACTS.get(op)
    if facts is None or not facts.semantics:
        missing.append("the table row and its semantics sentence (oracle/operations.py)")
    if op not in REFERENCES:
        missing.append("the reference rule (oracle/reference/<family module>.py)")
    rounded = facts is not None and REFERENCES.get(op) is not None and REFERENCES[op].rounded
    if rounded and facts.family is Family.ELEMENTWISE and op not in rounded_mpmath.FUNCTIONS:
        missing.append("the independent mpmath rule (oracle/reference/rounded_mpmath.py)")
    unary = [p for p in PLANS[op] if is_unary(p)]
    if unary:
        try:
            V.certified(op, _SAMPLE)
        except KeyError:
            missing.append(
                "the vectorised oracle's float64 formula and its error bound "
                "(oracle/vectorised.py: NUMPY_UFUNCS or _FORMULAS, and _BOUNDS)"
            )
    if unary:
        shipped = witnesses.load()["plans"]
        absent = [witnesses.plan_id(p) for p in unary if witnesses.plan_id(p) not in shipped]
        if absent:
            missing.append(
                f"witness records of {', '.join(absent)} "
                f"(python -m conformance.witnesses --write --plan {absent[0]})"
            )
    try:
        module_of(family_of(op))
    except (KeyError, ValueError):
        missing.append("its family's module (conformance/generate/families/)")
    for name, where in (("generic", "backends/generic/"), ("cpu", "backends/cpu/")):
        backend = backends.get(name)
        for plan in PLANS[op]:
            call = next(iter(boundary_examples(plan)), None)
            if call is None:
                missing.append(f"boundary examples of {plan.describe()} (its family module)")
                break
            outcome = run_call(backend, call)
            if "has no kernel" in str(outcome.raised):
                missing.append(f"the {name} kernel ({where}, KERNELS)")
                break
    return missing


@pytest.mark.parametrize("op", OPERATIONS)
def test_every_layer_has_the_operations_hook(op):
    assert _missing(op) == [], f"{op}: add " + "; ".join(_missing(op))


def test_a_missing_hook_is_named(monkeypatch):
    """The check finds what is missing: a backend kernel and the witness records."""
    from backends.cpu import KERNELS

    monkeypatch.delitem(KERNELS, "exp")
    shipped = witnesses.load()
    monkeypatch.setattr(
        witnesses,
        "load",
        lambda: {
            **shipped,
            "plans": {k: v for k, v in shipped["plans"].items() if k != "exp:Float32"},
        },
    )
    found = " ".join(_missing("exp"))
    assert "cpu kernel" in found and "--plan exp:Float32" in found


def test_the_vectorised_oracle_evaluates_every_unary_operation():
    bits = np.array([0x3F800000, 0x00000001, 0x7F800000, 0xFF800000, 0x7FC00000], np.uint32)
    for op in V.OPS:
        assert V.certified(op, bits.view(np.float32)).shape == bits.shape, op
