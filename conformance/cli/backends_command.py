"""``plancheck backends``: every backend plancheck knows, and whether it is installed.

One line per name ``backends.get`` accepts without a ``module:attribute``
path (:func:`backends.known_names`): the built-in reference backends, the
adapters of outside libraries and their device forms (``torch:cuda``).  For
each: whether the library it needs imports here (found by
:func:`importlib.util.find_spec`, so nothing heavy is imported), and for a
missing one the command that installs it (``pip install 'plancheck[torch]'``,
from :data:`backends.EXTRAS`).  For a device form other than the CPU
(``torch:cuda``, ``jax:gpu``) whose library is installed, whether the device
is present: the backend is loaded exactly as ``--backend torch:cuda`` loads
it (:func:`backends.get`), and the adapter's own check (``torch.cuda.
is_available()``, ``jax.devices("gpu")``) decides -- ``installed, no CUDA
device`` when it refuses.  Only those rows import their library.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
from typing import Any

import backends
from backends.errors import BackendLoadError
from conformance.report.terminal_table import render_table

__all__ = ["add_arguments", "main", "rows"]

#: the library each built-in name needs beyond plancheck's own dependencies
_LIBRARY = {"numpy-native": "numpy"}

#: how a device is named in ``plancheck backends``: ``torch:cuda`` -> "CUDA device"
_DEVICE_WORDS = {"cuda": "CUDA device", "gpu": "GPU device"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "Example: plancheck backends"
    parser.add_argument("--json", action="store_true", help="a JSON list, one object per name")


def _installed(library: str | None) -> bool:
    if library is None:
        return True
    try:
        return importlib.util.find_spec(library) is not None
    except (ImportError, ValueError):
        return False


def _device_present(name: str) -> tuple[bool | None, str | None]:
    """Whether the device of the installed adapter *name* (``torch:cuda``) exists,
    decided by loading it as ``--backend name`` does, and the adapter's message
    when not; ``(None, message)`` when the adapter does not load even on the CPU
    (a broken installation, not an absent device)."""

    try:
        backends.get(name.partition(":")[0])
    except BackendLoadError as error:
        return None, str(error)
    try:
        backends.get(name)
    except BackendLoadError as error:
        return False, str(error)
    return True, None


def rows() -> list[dict[str, Any]]:
    """Per known backend name: ``name``, ``library``, ``installed``, ``install`` (the
    pip command for a missing extra, else None), ``device`` (the device a device
    form names, else None), ``device_present`` (True, False, or None where there
    is nothing to check: no device named, the CPU, or the library missing) and
    ``device_problem`` (the adapter's message when the device is absent or the
    adapter does not load)."""

    found = []
    for name in backends.known_names():
        adapter, _, device = name.partition(":")
        library, extra = backends.EXTRAS.get(adapter, (_LIBRARY.get(adapter), None))
        installed = _installed(library)
        install = f"pip install 'plancheck[{extra}]'" if extra and not installed else None
        present: bool | None = None
        problem = None
        if installed and device and device != "cpu":
            present, problem = _device_present(name)
        found.append(
            {"name": name, "library": library or "plancheck", "installed": installed,
             "install": install, "device": device or None, "device_present": present,
             "device_problem": problem}
        )  # fmt: skip
    return found


def _state(row: dict[str, Any]) -> str:
    if not row["installed"]:
        return f"not installed: {row['install']}"
    if row["device_present"] is None:
        problem = row["device_problem"]
        return "installed" if problem is None else f"installed, does not load: {problem}"
    words = _DEVICE_WORDS.get(row["device"], f"{row['device']} device")
    return f"installed, {words} present" if row["device_present"] else f"installed, no {words}"


def main(arguments: argparse.Namespace) -> int:
    found = rows()
    if arguments.json:
        print(json.dumps(found, indent=1))
        return 0
    print(render_table(("backend", "library", "state"),
                       [(r["name"], r["library"], _state(r)) for r in found]))  # fmt: skip
    print("your own: --backend package.module:attribute (resolved from the current directory "
          "first)")  # fmt: skip
    return 0
