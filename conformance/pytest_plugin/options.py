"""The plugin's options: ``--plancheck-*`` on the command line, ``plancheck_*`` in ini.

Every option of :mod:`conformance.pytest_plugin` has an ini setting of the same name
(``plancheck_backend = cpu`` in ``pytest.ini`` or ``[tool.pytest.ini_options]``);
a command-line option overrides its setting.  Values are checked as the
command line checks them (:mod:`conformance.model.options`), and a message names the
option as the user typed it: ``--report`` when ``plancheck run`` started the
session, ``--plancheck-report`` otherwise.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import Any

import pytest

from conformance.model.options import max_examples as max_examples_option
from conformance.model.options import seed as seed_option

__all__ = ["DEFAULT_TIMEOUT", "active", "add_options", "apply_ini", "parse_budgets", "typed"]

DEFAULT_TIMEOUT = 10.0


def from_cli(config: Any) -> bool:
    """Whether ``plancheck run`` started this pytest session (its options are spelt
    ``--report``, not ``--plancheck-report``)."""
    return any(getattr(p, "plancheck_cli", False) for p in config.pluginmanager.get_plugins())


def typed(config: Any, name: str) -> str:
    """The option *name* (``report``, ``ulp-budget``...) as the user typed it."""
    return f"--{name}" if from_cli(config) else f"--plancheck-{name}"


def add_options(parser: Any) -> None:
    """Add the ``--plancheck-*`` options and their ini settings to pytest's *parser*."""
    group = parser.getgroup("plancheck", "plancheck conformance suite")
    group.addoption("--plancheck-backend", action="append", default=[], metavar="NAME",
                    help="backend under test: generic, cpu or package.module:attribute "
                    "(repeatable); adds the conformance suite to the run")  # fmt: skip
    group.addoption("--plancheck-op", action="append", default=[], metavar="OPERATION",
                    help="run the suite for these operations only (repeatable)")  # fmt: skip
    group.addoption("--plancheck-profile", default=None, choices=("ci", "dev", "thorough"),
                    help="ci: derandomized and fast (default); dev: random with a local "
                    "database; thorough: many examples and corpus level 2")  # fmt: skip
    group.addoption("--plancheck-ulp-budget", action="append", default=[], metavar="OP=N",
                    help="ULP budget for a correctly rounded operation (repeatable)")  # fmt: skip
    group.addoption("--plancheck-timeout", type=float, default=None, metavar="SECONDS",
                    help=f"per-call timeout (default {DEFAULT_TIMEOUT:g}; 0: none)")  # fmt: skip
    group.addoption("--plancheck-xfail", default=None, metavar="FILE",
                    help="known deviations: operation[/plan] and a reason per entry")  # fmt: skip
    group.addoption("--plancheck-unsupported", action="append", default=[], metavar="FEATURE",
                    help="a capability feature the backend does not support (repeatable): "
                    "calls needing it are counted, not judged")  # fmt: skip
    group.addoption("--plancheck-seed", type=seed_option, default=None, metavar="SEED",
                    help="the random seed of the search (an integer >= 0); printed at the "
                    "start of every run, the same seed repeats the same calls")  # fmt: skip
    group.addoption("--plancheck-max-examples", type=max_examples_option, default=None,
                    metavar="N",
                    help="generated calls per plan instead of the profile's")  # fmt: skip
    group.addoption(
        "--plancheck-report",
        default=None,
        metavar="PATH",
        help="write the conformance report (.json, .md or .html), updated per test item",
    )
    _add_ini(parser)


#: the ini settings (``plancheck_backend = cpu`` in pytest.ini, ``[tool.pytest.ini_options]``):
#: option name -> (ini type, help); a command-line option overrides its setting
_INI = {
    "backend": ("linelist", "backends under test (one a line)"),
    "op": ("linelist", "operations to run (one a line)"),
    "profile": ("string", "ci, dev or thorough"),
    "ulp_budget": ("linelist", "OP=N ULP budgets (one a line)"),
    "timeout": ("string", "per-call timeout in seconds"),
    "xfail": ("string", "known-deviations file"),
    "unsupported": ("linelist", "features the backends do not support (one a line)"),
    "report": ("string", "report path (.json, .md or .html)"),
    "seed": ("string", "the search's seed"),
    "max_examples": ("string", "generated calls per plan"),
}
#: how an ini string becomes an option value (the same checks as the command line)
_INI_CONVERT: dict[str, Any] = {
    "timeout": float,
    "seed": seed_option,
    "max_examples": max_examples_option,
}


def _add_ini(parser: Any) -> None:
    for name, (kind, text) in _INI.items():
        parser.addini(f"plancheck_{name}", f"plancheck: {text}", type=kind, default=None)


def apply_ini(config: Any) -> None:
    """Fill every plancheck option not given on the command line from its ini setting."""
    for name in _INI:
        attribute = f"plancheck_{name}"
        if getattr(config.option, attribute) not in (None, []):
            continue
        value = config.getini(attribute)
        if value in (None, "", []):
            continue
        if isinstance(value, list):
            value = [v for v in value if v]
        convert = _INI_CONVERT.get(name)
        if convert is not None:
            try:
                value = convert(value)
            except (ValueError, argparse.ArgumentTypeError) as error:
                raise pytest.UsageError(f"ini setting {attribute} = {value!r}: {error}") from None
        if name == "profile" and value not in ("ci", "dev", "thorough"):
            raise pytest.UsageError(
                f"ini setting {attribute} = {value!r}: expected ci, dev or thorough"
            )
        setattr(config.option, attribute, value)


def active(config: Any) -> bool:
    option = config.option
    return bool(
        option.plancheck_seed is not None
        or option.plancheck_max_examples is not None
        or option.plancheck_backend
        or option.plancheck_op
        or option.plancheck_profile
        or option.plancheck_ulp_budget
        or option.plancheck_timeout is not None
        or option.plancheck_xfail
        or option.plancheck_report
        or option.plancheck_unsupported
    )


def parse_budgets(values: Iterable[str], option: str = "--plancheck-ulp-budget") -> dict[str, int]:
    from oracle.evaluate import REFERENCES

    budgets: dict[str, int] = {}
    for value in values:
        operation, equals, number = value.partition("=")
        operation = operation.strip()
        try:
            budget = int(number)
        except ValueError:
            budget = -1
        if not equals or budget < 0:
            raise pytest.UsageError(f"{option}: expected OP=N (N >= 0), got {value!r}")
        reference = REFERENCES.get(operation)
        if reference is None:
            raise pytest.UsageError(f"{option}: unknown operation {operation!r}")
        if not reference.rounded:
            rounded = ", ".join(sorted(k for k, r in REFERENCES.items() if r.rounded))
            raise pytest.UsageError(
                f"{option}: {operation} is not a correctly rounded operation "
                f"(a budget applies to {rounded})"
            )
        budgets[operation] = budget
    return budgets
