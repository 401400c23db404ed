"""The plugin's options: ``--plancheck-*`` on the command line, ``plancheck_*`` in ini.

The options are declared by the entry point :mod:`plancheck_pytest` from the table
of :mod:`plancheck_options`; every one
has an ini setting of the same name (``plancheck_backend = cpu`` in
``pytest.ini`` or ``[tool.pytest.ini_options]``); a command-line option
overrides its setting.  Values are checked as the
command line checks them (:mod:`conformance.model.options`), and a message names the
option as the user typed it: ``--report`` when ``plancheck run`` started the
session, ``--plancheck-report`` otherwise.
"""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from conformance.model.options import max_examples as max_examples_option
from conformance.model.options import seconds as seconds_option
from conformance.model.options import seed as seed_option
from plancheck_options import DEFAULT_TIMEOUT, OPTIONS, attribute

__all__ = ["DEFAULT_TIMEOUT", "apply_ini", "typed"]


def from_cli(config: Any) -> bool:
    """Whether ``plancheck run`` started this pytest session (its options are spelt
    ``--report``, not ``--plancheck-report``)."""
    return any(getattr(p, "plancheck_cli", False) for p in config.pluginmanager.get_plugins())


def typed(config: Any, name: str) -> str:
    """The option *name* (``report``, ``ulp-budget``...) as the user typed it."""
    return f"--{name}" if from_cli(config) else f"--plancheck-{name}"


#: the spellings of a true and a false ``--plancheck-xfail-strict`` (pytest's ini booleans)
_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


def _boolean(text: str) -> bool:
    if text.strip().lower() in _TRUE:
        return True
    if text.strip().lower() in _FALSE:
        return False
    raise ValueError("expected true or false")


#: how a value given as text becomes an option value (the command line's own checks)
_CONVERT: dict[str, Any] = {
    "timeout": seconds_option,
    "seed": seed_option,
    "max-examples": max_examples_option,
    "xfail-strict": _boolean,
}
_PROFILES = ("ci", "dev", "thorough")


def _converted(config: Any, name: str, value: Any, source: str) -> Any:
    convert = _CONVERT.get(name)
    if convert is not None and isinstance(value, str):
        try:
            value = convert(value)
        except (ValueError, argparse.ArgumentTypeError) as error:
            raise pytest.UsageError(f"{source} {value!r}: {error}") from None
    if name == "profile" and value is not None and value not in _PROFILES:
        raise pytest.UsageError(f"{source} {value!r}: expected ci, dev or thorough")
    return value


def apply_ini(config: Any) -> None:
    """Fill every plancheck option not given on the command line from its ini setting,
    and check and convert every value (a bad one is a usage error naming the option
    or the ini setting as the user wrote it)."""
    for name in OPTIONS:
        key = attribute(name)
        value = getattr(config.option, key, None)
        if value not in (None, []):
            setattr(config.option, key, _converted(config, name, value, typed(config, name)))
            continue
        value = config.getini(key)
        if value in (None, "", []):
            continue
        if isinstance(value, list):
            value = [v for v in value if v]
        setattr(config.option, key, _converted(config, name, value, f"ini setting {key} ="))
