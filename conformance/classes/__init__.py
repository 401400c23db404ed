"""The classes a call or its result can belong to: what coverage is counted in.

* :mod:`~conformance.classes.boundary` -- the catalogue of boundary (input)
  classes and the plan facts applicability is derived from;
* :mod:`~conformance.classes.witness_tables` -- constructive witness values of
  the arithmetic and weak-scalar classes;
* :mod:`~conformance.classes.applicability` -- which boundary classes can occur
  for a plan (derived, never declared);
* :mod:`~conformance.classes.result` -- the catalogue of result classes and
  their measurement; :mod:`~conformance.classes.result_values` the values
  behind a result; :mod:`~conformance.classes.unary` a unary plan's results
  from the vectorised oracle.

Measuring which boundary classes a *call* hits needs the family modules, so it
is :func:`conformance.generate.families.classes_hit`.
"""

__all__: list[str] = []
