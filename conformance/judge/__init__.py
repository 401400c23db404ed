"""Judging calls: run each on the backend, compare with the oracle, keep what was found.

* :mod:`~conformance.judge.runner` -- run one call and judge it (an
  :class:`~conformance.judge.runner.Outcome`), with the per-call timeout;
* :mod:`~conformance.judge.checker` -- :class:`~conformance.judge.checker.Checker`,
  which judges the calls of one (backend, plan, check) and records deviation classes;
* :mod:`~conformance.judge.checks` -- the four checks of a plan (boundary,
  corpus, invalid, generated) and :func:`~conformance.judge.checks.check_plan`;
* :mod:`~conformance.judge.corpus_check` -- the corpus check, vectorised;
* :mod:`~conformance.judge.coverage` -- which classes a run hit;
* :mod:`~conformance.judge.profiles` -- how hard the suite searches.
"""

__all__: list[str] = []
