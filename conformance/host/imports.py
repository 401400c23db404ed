"""plancheck's modules are executed in the default floating-point environment, whenever
they are imported in the backend host.

A backend may change the environment at import (``fesetround(FE_UPWARD)``, an ``-Ofast``
library setting FTZ/DAZ, ``np.seterr(all="raise")``) and then import plancheck's modules
(``backends.get("cpu")`` to delegate, an ``oracle`` module imported lazily).  Python
compiles a module's constant expressions (``2.0**-12``) and runs its body when it is
first imported, so, in the backend's environment, plancheck's tables would hold other
values (a constant rounded upward fails ``to_bits`` and the backend cannot even load).

:func:`install` puts a finder first on ``sys.meta_path`` that wraps the loader of every
module of plancheck's packages (:data:`PACKAGES`; ``backends.adapters`` excepted: an
adapter's import is where its library is imported, and what the library does to the
environment there is the backend's) so that compiling and executing the module runs
with the default environment (the host's at start) installed, and the environment of
the importer is installed again afterwards.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from conformance.host import fpstate

__all__ = ["PACKAGES", "install"]

#: plancheck's top-level packages
PACKAGES = ("oracle", "backends", "conformance", "plancheck_pytest")
#: packages of plancheck whose import is the backend's (they import its library)
_BACKENDS_OWN = ("backends.adapters",)


def _plancheck_module(name: str) -> bool:
    if name.split(".", 1)[0] not in PACKAGES:
        return False
    return not any(name == own or name.startswith(own + ".") for own in _BACKENDS_OWN)


class _DefaultEnvironmentLoader(importlib.abc.Loader):
    """*loader*, its ``exec_module`` (compiling included) run in the default environment."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        with fpstate.default_environment():
            self.loader.exec_module(module)

    def __getattr__(self, name: str) -> Any:  # get_source, get_resource_reader, ...
        return getattr(self.loader, name)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds plancheck's modules as the rest of ``sys.meta_path`` does, loader wrapped."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not _plancheck_module(name):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _DefaultEnvironmentLoader(spec.loader)
                return spec
        return None


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
