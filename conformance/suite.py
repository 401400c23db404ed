"""The shipped conformance suite: every resolvable plan, on every backend you name.

Validate a backend with one line (it needs only the backend's import path)::

    pytest --pyargs conformance.suite --plancheck-backend mypkg.mod:Backend

or, in the project's pytest configuration, ``addopts = --plancheck-backend
mypkg.mod:Backend`` (the plugin then adds this module to every run); add
``-n auto`` for pytest-xdist.  ``plancheck run --backend mypkg.mod:Backend``
does the same with a progress line, the per-operation table and an exit code.

This module holds only the four pytest tests, parametrized by the plancheck
plugin (:mod:`conformance.pytest_plugin`) with one case per backend x plan; each
runs one check function of :mod:`conformance.judge.checks`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from conformance.judge.checker import Checker
from conformance.judge.checks import (
    check_boundary,
    check_corpus_plan,
    check_generated,
    check_invalid,
)
from conformance.pytest_plugin import EMPTY, run_check, state_of

#: why the tests skip when the run names no backend
NO_BACKEND = "conformance.suite needs --plancheck-backend NAME|module:attribute"

# ---------------------------------------------------------------------------
# The pytest tests (parametrized by the plancheck plugin's options)
# ---------------------------------------------------------------------------


def pytest_generate_tests(metafunc: Any) -> None:
    if "plancheck_case" not in metafunc.fixturenames:
        return
    state = state_of(metafunc.config)
    kind = metafunc.function.plancheck_kind
    if state is None or not state.labels:
        metafunc.parametrize(
            "plancheck_case", [pytest.param(None, marks=pytest.mark.skip(reason=NO_BACKEND))],
            ids=["no-backend"],
        )  # fmt: skip
        return
    cases = state.cases(kind)
    if not cases:  # e.g. no selected plan has invalid calls: the plugin deselects this
        metafunc.parametrize("plancheck_case", [EMPTY], ids=["none"])
        return
    metafunc.parametrize("plancheck_case", cases, ids=[case.id for case in cases])


@pytest.fixture
def plancheck_checker(request: Any, plancheck_case: Any) -> Checker:
    """The Checker of this test item (the plugin reads its record afterwards).

    Without the plugin's state (no backend named) the item is skipped, as its
    parametrization already is.
    """
    state = state_of(request.config)
    if state is None:
        pytest.skip(NO_BACKEND)
    return state.checker(request.node, plancheck_case)


def _kind(kind: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    def mark(function: Callable[..., None]) -> Callable[..., None]:
        function.plancheck_kind = kind  # type: ignore[attr-defined]
        return function

    return mark


@_kind("boundary")
def test_boundary_examples(plancheck_checker: Checker) -> None:
    run_check(plancheck_checker, check_boundary)


@_kind("generated")
def test_generated_calls(plancheck_checker: Checker) -> None:
    run_check(plancheck_checker, check_generated)


@_kind("invalid")
def test_invalid_calls(plancheck_checker: Checker) -> None:
    run_check(plancheck_checker, check_invalid)


@_kind("corpus")
def test_corpus(plancheck_checker: Checker) -> None:
    run_check(plancheck_checker, check_corpus_plan)
