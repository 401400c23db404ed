"""The suite's detection power: the ``ci`` profile kills every catalogued mutant.

Each mutant (``conformance.mutants``) is the CPU backend with one realistic
fault; the shipped suite's check functions run for the mutant's operations
only (boundary examples, corpus, invalid calls, generated calls, stopping at
the first that fails).  ``docs/mutants.md`` lists what killed each mutant
(regenerate it with ``python -m conformance.mutants > docs/mutants.md``).
Every mutant is killed: ``KNOWN_GAPS`` (survivors with their witness call)
must stay empty; a new survivor needs a boundary example, not an entry.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import backends
from conformance.mutants import KNOWN_GAPS, MUTANTS, kill, mutant_backend
from oracle import DType, Tensor, registered_operations

DOC = Path(__file__).resolve().parent.parent / "docs" / "mutants.md"


def test_the_catalogue_is_large_and_names_real_operations():
    assert len(MUTANTS) >= 40
    known = {spec.name for spec in registered_operations()}
    for mutant in MUTANTS.values():
        assert mutant.operations and set(mutant.operations) <= known, mutant.name
        assert mutant.fault and (mutant.kernels or mutant.execute), mutant.name
    assert not KNOWN_GAPS  # a survivor needs a witness in the strategies, not an entry


def test_a_mutant_is_a_backend_by_import_path():
    backend = backends.get("conformance.mutants:neg_as_zero_minus_x")
    assert backend.name == "mutant:neg_as_zero_minus_x"
    zero = backend.to_tensor(
        backend.execute("neg", backend.from_tensor(Tensor(DType.Float32, (), (0.0,))))
    )
    assert zero.bits() == (0x00000000,)  # the fault: neg(+0) must be -0
    # every other operation is the CPU backend's
    x = Tensor(DType.Float32, (2,), (1.5, -0.0))
    assert backend.to_tensor(backend.execute("abs", backend.from_tensor(x))).values == (1.5, 0.0)


@pytest.mark.parametrize("name", list(MUTANTS))
def test_the_ci_profile_kills_the_mutant(name):
    result = kill(name, "ci")
    assert result["killed"], f"{name} ({MUTANTS[name].fault}) survived the ci profile"
    assert result["problem"] != "oracle error"
    assert result["report"].startswith("NON-CONFORMANCE")
    assert "plancheck repro" in result["report"]


def test_docs_list_every_mutant():
    text = DOC.read_text(encoding="utf-8")
    for name in MUTANTS:
        assert f"| `{name}` |" in text, (
            f"{name} is missing from docs/mutants.md: run python -m conformance.mutants "
            f"> docs/mutants.md"
        )


def test_a_mutant_instance_is_fresh():
    first, second = mutant_backend("add_int32_wraps"), mutant_backend("add_int32_wraps")
    assert first is not second and first.allocations == second.allocations == 0
