"""What a judgement found.

* :mod:`~conformance.findings.finding` -- findings and their grouping into
  deviation classes (operation, plan, rule, class, kind);
* :mod:`~conformance.findings.failure` -- the failure report of one call:
  inputs with bits, expected vs actual, ULP distance, the broken rule, the
  reproduction line and snippet;
* :mod:`~conformance.findings.deviations` -- known-deviation files (``--xfail``).
"""

__all__: list[str] = []
