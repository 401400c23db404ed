"""The plancheck pytest plugin, loaded by the entry point :mod:`plancheck_pytest`.

The entry point (``pytest11: plancheck``) declares the options and loads this
plugin only when a ``--plancheck-*`` option or ``plancheck_*`` ini setting is
given.  The plugin then validates the options, adds the shipped suite
:mod:`conformance.suite` to the run, aggregates what every test item measured
(on the xdist controller, from the records the workers attach to their
reports), prints the per-operation conformance table at the end and writes the
report file.

Options
-------
``--plancheck-backend NAME|module:attribute`` (repeatable)
    the backends under test (``backends.get`` names); required to run the suite.
``--plancheck-op NAME`` (repeatable)
    restrict the suite to these operations.
``--plancheck-profile ci|dev|thorough``
    how hard to search (:data:`conformance.judge.profiles.PROFILES`; default ``ci``).
``--plancheck-ulp-budget OP=N`` (repeatable)
    a ULP budget for a correctly rounded operation (special values and exact
    points must still match exactly); ``all=N`` for every one at once.
``--plancheck-judge AUTHORITIES`` (repeatable, comma lists)
    the authorities whose classes fail the run (``specification``, ``reference``,
    ``convention``; default all three, :mod:`conformance.findings.authority`); the
    classes of the others are reported as differences that do not fail.
``--plancheck-timeout SECONDS``
    the per-call timeout (default 10; 0 disables it).
``--plancheck-xfail FILE``
    known deviations by class (text, ``.toml`` or ``.json``; see
    :func:`load_deviations`): an item whose every deviation class is covered is
    an expected failure, a class the file does not cover fails the item, and a
    listed deviation that covered no class is reported as no longer failing.
``--plancheck-unsupported FEATURE`` (repeatable)
    a capability feature the backends do not support
    (:data:`conformance.model.capabilities.FEATURES`): calls that need it are not
    judged, only counted.  A backend's own ``unsupported`` attribute adds to it.
``--plancheck-seed SEED``, ``--plancheck-max-examples N``
    the search's seed and the generated calls per plan.
``--plancheck-report PATH`` (repeatable)
    ``.json``, ``.md`` or ``.html`` (the directory must exist); rewritten after
    every finished test item; every path given is written from one run.  A call
    whose repro line is longer than 2,000 characters is written beside the first
    (:mod:`conformance.report.repro_files`).

Every check judges all its calls and records *deviation classes*
(:mod:`conformance.findings.finding`); an item fails when it found a class that no
known deviation covers, is an expected failure when every class it found is
known, and passes otherwise.  The controller groups the classes of all items
and prints one line per class, then one details block per class.

With pytest-xdist only the controller writes the report; the workers attach
their measurements to the test reports, and a worker that dies is reported
as a crash of the item it was running, with the call it had started (from a
small per-worker in-flight file).  A call the per-call timeout cannot stop is
cut by a watchdog (:class:`conformance.judge.runner.Watchdog` in the worker, and
the controller's, which kills a worker stuck in native code) and reported as
a hang.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.findings.deviations import Deviation, load_deviations
from conformance.host.fpenv import judge_environment_problem
from conformance.judge.runner import watch_interrupts
from conformance.pytest_plugin.item_check import run_check
from conformance.pytest_plugin.options import apply_ini
from conformance.pytest_plugin.parametrize import EMPTY, Case, add_suite
from conformance.pytest_plugin.state import PlancheckState

__all__ = [
    "EMPTY",
    "Case",
    "Deviation",
    "PlancheckState",
    "load_deviations",
    "run_check",
    "state_of",
]

_STATE = pytest.StashKey[PlancheckState]()


def pytest_configure(config: Any) -> None:
    apply_ini(config)
    problem = judge_environment_problem()
    if problem is not None:
        pytest.exit(problem, returncode=3)
    state = PlancheckState(config)
    config.stash[_STATE] = state
    config.pluginmanager.register(state, "plancheck-state")
    state.restore_signals = watch_interrupts()
    if state.labels:
        add_suite(config)


def pytest_unconfigure(config: Any) -> None:
    state = state_of(config)
    if state is not None:
        state.close_hosts()
    if state is not None and state.restore_signals is not None:
        state.restore_signals()
        state.restore_signals = None


def state_of(config: Any) -> PlancheckState | None:
    """The plugin's state for *config* (None when plancheck is not in use)."""
    return config.stash.get(_STATE, None)
