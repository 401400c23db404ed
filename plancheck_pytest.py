"""plancheck's pytest entry point (``pytest11: plancheck``): out of the way until asked.

Installing plancheck adds this module to every pytest session on the machine,
so it imports nothing of plancheck's own: it declares the ``--plancheck-*``
options and the ``plancheck_*`` ini settings (so ``pytest --help`` lists them
and an ini file may set them), and only when one of them is given does it
load the plugin proper, :mod:`conformance.pytest_plugin`.  An unrelated project
with a ``conformance`` package of its own therefore never meets plancheck's; asked
for plancheck where that package hides plancheck's, the session ends with a usage
error naming both (:func:`shadowing_package`), not an internal error.

Values are checked by the plugin when it loads (a bad value is a pytest usage
error naming the option as typed), not here: this module has nothing to check
them with.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

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
    "report": (False, "PATH", "write the conformance report (.json, .md or .html), updated "
               "per test item"),
    "judge": (True, "AUTHORITIES", "the authorities whose classes fail the run: specification, "
              "reference, convention (comma list or repeatable; default all three); the other "
              "classes are reported as differences that do not fail"),
}  # fmt: skip


def attribute(name: str) -> str:
    """The ``config.option`` attribute (and ini name) of option *name*."""
    return "plancheck_" + name.replace("-", "_")


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("plancheck", "plancheck conformance suite")
    for name, (repeatable, metavar, text) in OPTIONS.items():
        group.addoption(f"--plancheck-{name}", dest=attribute(name), metavar=metavar, help=text,
                        action="append" if repeatable else "store",
                        default=[] if repeatable else None)  # fmt: skip
        parser.addini(attribute(name), f"plancheck: {text}",
                      type="linelist" if repeatable else "string", default=None)  # fmt: skip


def asked(config: Any) -> bool:
    """Whether the session uses plancheck: some plancheck option or ini setting is given."""
    for name in OPTIONS:
        key = attribute(name)
        if getattr(config.option, key, None) not in (None, []):
            return True
        if config.getini(key) not in (None, "", []):
            return True
    return any(getattr(p, "plancheck_cli", False) for p in config.pluginmanager.get_plugins())


def shadowing_package() -> str | None:
    """Where a ``conformance`` package that is not plancheck's would be imported from
    (a project of the same top-level name, found first on ``sys.path``, e.g. the
    current directory under ``python -m pytest``); None when plancheck's is found.
    plancheck's is the one installed beside this module."""
    spec = importlib.util.find_spec("conformance")
    if spec is None or not spec.submodule_search_locations:
        return None if spec is None else str(spec.origin)
    ours = (Path(__file__).resolve().parent / "conformance").resolve()
    found = [Path(p).resolve() for p in spec.submodule_search_locations]
    return None if ours in found else str(found[0])


def _refuse_shadowed() -> None:
    """A usage error naming the ``conformance`` package that hides plancheck's."""
    shadow = shadowing_package()
    if shadow is not None:
        raise pytest.UsageError(
            f"plancheck: the package 'conformance' found first is {shadow}, not plancheck's "
            f"({Path(__file__).resolve().parent / 'conformance'}): a project with a top-level "
            "'conformance' package of its own hides plancheck's when pytest runs from its "
            "folder with it on sys.path (python -m pytest); run `pytest` (the script) or "
            "`plancheck run` instead, or from another directory"
        )


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_auto_num_workers(config: Any) -> int | None:
    """``-n auto`` on a plancheck run: sized by the amount of work (the plugin decides)."""
    if not asked(config):
        return None
    _refuse_shadowed()
    from conformance.pytest_plugin.workers import auto_num_workers  # only when asked

    return auto_num_workers(config)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: Any) -> None:
    if asked(config) and not config.pluginmanager.has_plugin("plancheck-plugin"):
        _refuse_shadowed()
        from conformance.host.fpenv import judge_environment_problem  # numpy only

        problem = judge_environment_problem()  # before the oracle's constants are computed
        if problem is not None:
            pytest.exit(problem, returncode=3)
        import conformance.pytest_plugin as plugin  # only when asked

        config.pluginmanager.register(plugin, "plancheck-plugin")
