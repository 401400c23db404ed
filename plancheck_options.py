"""The ``--plancheck-*`` options of pytest: names, metavars and help, as data.

The one home of the option table, read by the entry point :mod:`plancheck_pytest`
(which declares the options) and by the plugin's
:mod:`conformance.pytest_plugin.options` (which checks their values).  It is a
top-level module that imports nothing, so the entry point can read it without
importing plancheck's packages, and neither of the two imports the other: no
import circle (``tests/test_architecture.py``).

A row: ``name: (repeatable, metavar, help)``.  A repeatable option collects a list
(``action="append"``, an ini ``linelist``); the others keep the last value (an ini
string).  Every option has an ini setting named :func:`attribute` of its name.
"""

from __future__ import annotations

__all__ = ["DEFAULT_TIMEOUT", "OPTIONS", "attribute"]

#: the default per-call timeout in seconds (``--plancheck-timeout``)
DEFAULT_TIMEOUT = 10.0

#: option name -> (repeatable, metavar, help); every option has an ini setting of
#: the same name with ``_`` for ``-`` (``plancheck_ulp_budget``)
OPTIONS: dict[str, tuple[bool, str, str]] = {
    "backend": (True, "NAME", "backend under test: generic, cpu or package.module:attribute "
                "(repeatable); adds the conformance suite to the run"),
    "op": (True, "OPERATION", "run the suite for these operations only (repeatable)"),
    "profile": (False, "ci|dev|thorough", "ci: derandomized and fast (default); dev: random "
                "with a local database; thorough: many examples and corpus level 2"),
    "ulp-budget": (True, "OP=N", "ULP budget for a correctly rounded operation (repeatable); "
                   "all=N for every correctly rounded operation"),
    "timeout": (False, "SECONDS", f"per-call timeout (default {DEFAULT_TIMEOUT:g}; 0: none)"),
    "xfail": (False, "FILE", "known deviations: operation[/plan] and a reason per entry"),
    "unsupported": (True, "FEATURE", "a capability feature the backend does not support "
                    "(repeatable): calls needing it are counted, not judged"),
    "seed": (False, "SEED", "the random seed of the search (an integer >= 0); printed at the "
             "start of every run, the same seed repeats the same calls"),
    "max-examples": (False, "N", "generated calls per plan instead of the profile's"),
    "xfail-strict": (False, "true|false", "true: a listed deviation that no longer fails "
                     "fails the run (as pytest's xfail_strict)"),
    "report": (True, "PATH", "write the conformance report (.json, .md or .html), updated "
               "per test item (repeatable: one run writes every path given)"),
    "judge": (True, "AUTHORITIES", "the authorities whose classes fail the run: specification, "
              "reference, convention (comma list or repeatable; default all three); the other "
              "classes are reported as differences that do not fail; a hang, a crash or an "
              "unreadable result always fails"),
}  # fmt: skip


def attribute(name: str) -> str:
    """The ``config.option`` attribute (and ini name) of option *name*:
    ``plancheck_`` and the name with ``_`` for ``-`` (``plancheck_ulp_budget``)."""
    return "plancheck_" + name.replace("-", "_")
