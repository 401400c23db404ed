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

# the option table's one home, a module of its own that both this entry point and the
# plugin (conformance.pytest_plugin.options) import: no import circle between them
from plancheck_options import DEFAULT_TIMEOUT, OPTIONS, attribute

__all__ = ["DEFAULT_TIMEOUT", "OPTIONS", "asked", "attribute", "shadowing_package"]


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
