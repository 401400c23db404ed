"""plancheck's conformance suite: generated calls, the judge, findings, reports, the CLI.

The packages, in the order data flows (each imports only from those before it):

``model``
    what a call is: :class:`~conformance.model.calls.Call`, its exact JSON
    (``codec``), command-line literals, declared capabilities, versions,
    option values, text sanitising.
``classes``
    what a call or result can be an instance of: the boundary classes of the
    inputs (``boundary``, ``applicability``, ``witness_tables``) and the
    result classes (``result``, ``result_values``, ``unary``).
``generate``
    the calls themselves: hypothesis strategies, deterministic boundary
    examples, validation-rule calls, witnesses of result classes, the
    TestFloat-style corpus; ``families/`` holds one module per operation
    family, the one place that knows how its operations are called.
``judge``
    running a call on a backend and judging it against the oracle
    (``runner``, ``checker``, ``checks``, ``corpus_check``), coverage, profiles.
``findings``
    what a judgement found: deviation classes, the failure report of a call,
    known-deviation files.
``report``
    the run as a table, Markdown, JSON (``conformance/report.schema.json``) or
    HTML; :func:`conformance.report.reproduce` for the printed snippets.
``pytest_plugin``, ``cli``
    the two ways in: pytest (entry point :mod:`plancheck_pytest`, test module
    :mod:`conformance.suite`) and the ``plancheck`` command.
``exhaustive``
    certification of unary plans over all 2**32 inputs (depends only on the
    model, the oracle and the backends).
``mutants``
    faulty backends that prove the suite's power (on top of everything).

Where a change goes: a new operation is a row in ``oracle/operations.py`` and
its reference (see ``docs/adding-an-operation.md``); how it is called is its
family module in ``generate/families/``; what counts as wrong is ``judge``;
how it is shown is ``report``.  The modules directly here are the test module
:mod:`conformance.suite` and the documented spellings kept for users
(``conformance.witnesses``, ``conformance.exhaustive_pytest``,
``conformance.html_report``, ``conformance.result_mutants``).
"""

__all__ = [
    "classes",
    "cli",
    "exhaustive",
    "findings",
    "generate",
    "judge",
    "model",
    "mutants",
    "pytest_plugin",
    "report",
]
