"""The suite's parametrization: the cases, the suite file, the collected items.

The plugin adds :mod:`conformance.suite` to a run that names a backend, gives
each of its four tests one :class:`Case` per backend x plan (where the check
applies), deselects a test with no case, and records which cases the session
collected (on the xdist controller, from the workers' collections).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conformance.judge.checks import applies
from conformance.pytest_plugin.fields import StateFields

__all__ = [
    "EMPTY",
    "KIND_TESTS",
    "TEST_KINDS",
    "Case",
    "Parametrization",
    "add_suite",
    "suite_path",
]


#: the parameter of a suite test with no case in the selection (deselected by the plugin)
EMPTY = "plancheck: no case"

#: the suite's test functions and the check each runs
TEST_KINDS = {
    "test_boundary_examples": "boundary",
    "test_generated_calls": "generated",
    "test_invalid_calls": "invalid",
    "test_corpus": "corpus",
}
KIND_TESTS = {kind: name for name, kind in TEST_KINDS.items()}


@dataclass(frozen=True)
class Case:
    """One parametrization of the suite: a backend label, a plan and a check kind."""

    label: str
    plan: Any
    kind: str

    @property
    def id(self) -> str:
        return f"{self.label}-{self.plan.describe()}"

    @property
    def test_name(self) -> str:
        return f"{KIND_TESTS[self.kind]}[{self.id}]"


def suite_path() -> Path:
    """The file of :mod:`conformance.suite`, found without importing it."""
    return Path(__file__).resolve().parents[1] / "suite.py"


def _names_suite(config: Any, argument: str) -> bool:
    target = suite_path()
    text = argument.split("::")[0]
    if config.option.pyargs:
        try:
            spec = importlib.util.find_spec(text)
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.origin and Path(spec.origin).resolve() == target:
            return True
    path = Path(text)
    if not path.is_absolute():
        path = Path(config.invocation_params.dir) / path
    try:
        return path.resolve() == target
    except OSError:
        return False


def add_suite(config: Any) -> None:
    if any(_names_suite(config, a) for a in config.args):
        return
    config.args = [*config.args, str(suite_path())]


class Parametrization(StateFields):
    """The suite's parametrization: one :class:`Case` per backend x plan x check kind
    (a mixin of :class:`~conformance.pytest_plugin.state.PlancheckState`)."""

    def cases(self, kind: str) -> list[Case]:

        # backend-major: a plan's corpus reference, cached on disk by the first
        # backend's item, is usually ready when the next backend's item starts
        return [
            Case(label, plan, kind)
            for label in self.labels
            for plan in self.plans
            if applies(kind, plan)
        ]

    def case_of(self, nodeid: str) -> Case | None:
        if self._cases_by_test is None:
            self._cases_by_test = {
                case.test_name: case for kind in KIND_TESTS for case in self.cases(kind)
            }
        return self._cases_by_test.get(nodeid.rpartition("::")[2])

    def _collected_ids(self, ids: Iterable[str]) -> None:
        if self.collected_items:
            return
        ids = list(ids)
        self.collected_items = len(ids)
        for nodeid in ids:
            case = self.case_of(nodeid)
            if case is not None:
                self.collected[nodeid] = case
        self._write()

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: Any) -> None:
        self._collected_ids(ids)

    def pytest_collection_modifyitems(self, config: Any, items: list[Any]) -> None:
        empty = [i for i in items if getattr(i, "callspec", None) is not None
                 and i.callspec.params.get("plancheck_case") is EMPTY]  # fmt: skip
        if empty:
            config.hook.pytest_deselected(items=empty)
            items[:] = [i for i in items if i not in empty]

    def pytest_collection_finish(self, session: Any) -> None:
        if not self.is_worker and not hasattr(self.config, "workerinput"):
            if session.config.pluginmanager.has_plugin("dsession"):
                return  # xdist's controller: the workers collect
            self._collected_ids(item.nodeid for item in session.items)
