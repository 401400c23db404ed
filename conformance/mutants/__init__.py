"""The mutant catalogue: realistic faulty backends that the suite must catch.

Each mutant is the CPU backend (:class:`backends.cpu.CPUBackend`) with one
fault a real kernel could have, injected by replacing the kernel of one
operation (or, for the private promotion tables and the allocation fault,
``execute``).  :data:`MUTANTS` maps each name to a :class:`Mutant` record --
the operations it breaks and the fault -- and every mutant is also an
attribute of this module (its backend class), so it is a backend reference
like any other::

    plancheck run --backend conformance.mutants:mul_round_toward_zero

``tests/test_mutants.py`` proves that the ``ci`` profile of the shipped suite
kills every one of them (:func:`kill` runs only the checks of the mutant's
operations), and ``python -m conformance.mutants`` prints the table of which
check and which boundary classes killed which mutant (``docs/mutants.md``).

The faults are chosen to be real and distinct: each one changes a result the
reference semantics fixes (``shared/spec/reference-semantics.md``), so a
mutant that survives means the suite lacks power, never that the mutant is
harmless.  (Two tempting candidates are *not* faults and are not here: adding
two binary32 numbers in float64 and rounding once is correctly rounded, and
numpy's pairwise ``np.sum`` is a valid order for a FLOATING ``reduce_sum``.)

The package, in the order its modules import each other:

* :mod:`~conformance.mutants.mutant` -- the record, the backend class, the
  constructors of a fault (the machinery; no fault);
* :mod:`~conformance.mutants.kernels` -- building blocks of faulty kernels;
* the fault tables :mod:`~conformance.mutants.elementwise`,
  :mod:`~conformance.mutants.structured`, :mod:`~conformance.mutants.shapes`
  (faults past a size, rank or layout threshold: docs/shape-classes.md) and
  :mod:`~conformance.mutants.result` (faults on result classes, their operations
  read from the witness data);
* :mod:`~conformance.mutants.catalogue` -- :data:`MUTANTS`, assembled from the
  tables, and :data:`KNOWN_GAPS`;
* :mod:`~conformance.mutants.kill` -- :func:`kill` (the suite's checks
  against one mutant) and :mod:`~conformance.mutants.table` -- the kill table;
* this front, which exposes all of it.
"""

from __future__ import annotations

from conformance.mutants.catalogue import KNOWN_GAPS, MUTANTS, mutant_backend
from conformance.mutants.kill import kill
from conformance.mutants.mutant import Mutant, MutantBackend, backend_class
from conformance.mutants.table import main, markdown_table

__all__ = [
    "KNOWN_GAPS",
    "MUTANTS",
    "Mutant",
    "MutantBackend",
    "backend_class",
    "kill",
    "main",
    "markdown_table",
    "mutant_backend",
]


# every mutant name is an attribute too: its backend class (conformance.mutants:NAME)
globals().update({name: backend_class(mutant) for name, mutant in MUTANTS.items()})
__all__ += list(MUTANTS)
