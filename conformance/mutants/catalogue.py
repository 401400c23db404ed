"""The mutant catalogue: every fault table, assembled into :data:`MUTANTS`.

The catalogue is the five fault tables in this order -- elementwise
(:mod:`conformance.mutants.elementwise`), structured
(:mod:`conformance.mutants.structured`), shapes and orders
(:mod:`conformance.mutants.shapes`), kernel paths (Int32 partial sums, extrema
off the last axis, weak exponents binary32 cannot hold:
:mod:`conformance.mutants.kernel_paths`), result classes
(:mod:`conformance.mutants.result`) -- which is the order of
``docs/mutants.md``.  It imports the fault modules; they never import it.
"""

from __future__ import annotations

from collections.abc import Iterable

from conformance.mutants import elementwise, kernel_paths, result, shapes, structured
from conformance.mutants.mutant import Mutant, MutantBackend, backend_class

__all__ = ["KNOWN_GAPS", "MUTANTS", "mutant_backend"]


def _catalogue(*tables: Iterable[Mutant]) -> dict[str, Mutant]:
    catalogue: dict[str, Mutant] = {}
    for table in tables:
        for mutant in table:
            if mutant.name in catalogue:
                raise ValueError(f"two mutants are named {mutant.name!r}")
            catalogue[mutant.name] = mutant
    return catalogue


#: mutant name -> record, in catalogue order
MUTANTS: dict[str, Mutant] = _catalogue(
    elementwise.FAULTS, structured.FAULTS, shapes.FAULTS, kernel_paths.FAULTS, result.FAULTS
)

#: Mutants the ``ci`` profile does not kill yet, with the witness call that
#: would (a gap of the strategies' boundary examples).  Empty: every mutant is
#: killed, and ``tests/test_mutants.py`` keeps it so.  The last two gaps
#: (``weak_int_via_float64``, ``conv_fused_multiply_add``) were closed by the
#: weak class WEAK_DOUBLE_ROUNDING and the rounded-products example of matmul
#: and conv_general.
KNOWN_GAPS: dict[str, str] = {}


def mutant_backend(name: str) -> MutantBackend:
    """A fresh instance of mutant *name* (KeyError naming the catalogue if unknown)."""
    mutant = MUTANTS.get(name)
    if mutant is None:
        raise KeyError(
            f"no mutant named {name!r}: python -m conformance.mutants lists the {len(MUTANTS)}"
        )
    return backend_class(mutant)()
