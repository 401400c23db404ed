"""``plancheck backends``: every backend plancheck knows, and whether it is installed.

One line per name ``backends.get`` accepts without a ``module:attribute``
path (:func:`backends.known_names`): the built-in reference backends, the
adapters of outside libraries and their device forms (``torch:cuda``).  For
each: whether the library it needs imports here (found by
:func:`importlib.util.find_spec`, so nothing heavy is imported), and for a
missing one the command that installs it (``pip install 'plancheck[torch]'``,
from :data:`backends.EXTRAS`).  Whether a device exists is known only when
the adapter loads (``plancheck call --backend torch:cuda ...``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
from typing import Any

__all__ = ["add_arguments", "main", "rows"]

#: the library each built-in name needs beyond plancheck's own dependencies
_LIBRARY = {"numpy-native": "numpy"}


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


def rows() -> list[dict[str, Any]]:
    """Per known backend name: ``name``, ``library``, ``installed``, ``install`` (the
    pip command for a missing extra, else None)."""
    import backends

    found = []
    for name in backends.known_names():
        adapter = name.partition(":")[0]
        library, extra = backends.EXTRAS.get(adapter, (_LIBRARY.get(adapter), None))
        installed = _installed(library)
        install = f"pip install 'plancheck[{extra}]'" if extra and not installed else None
        found.append(
            {"name": name, "library": library or "plancheck", "installed": installed,
             "install": install}
        )  # fmt: skip
    return found


def main(arguments: argparse.Namespace) -> int:
    found = rows()
    if arguments.json:
        print(json.dumps(found, indent=1))
        return 0
    width = max(len(r["name"]) for r in found)
    for row in found:
        state = "installed" if row["installed"] else f"not installed: {row['install']}"
        print(f"{row['name'].ljust(width)}  {row['library']:<10}  {state}")
    print("your own: --backend package.module:attribute (resolved from the current directory "
          "first)")  # fmt: skip
    return 0
