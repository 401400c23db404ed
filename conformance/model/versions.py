"""Which software a run measured: plancheck's own version and each backend's.

A report is evidence about one library at one version; without the version
it cannot be compared with the next run.  :func:`backend_version` asks the
backend first (an adapter's ``version`` attribute names the library it
measures, e.g. ``torch 2.4.1``) and falls back to the distribution that
ships the backend's class, so an outside backend needs no extra code.
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["backend_version", "plancheck_version"]


def plancheck_version() -> str:
    """The installed plancheck distribution's version (``unknown`` when run from a
    source tree that was never installed)."""
    try:
        return metadata.version("plancheck")
    except metadata.PackageNotFoundError:
        return "unknown"


def _ships(distribution: metadata.Distribution, module: str, loaded: str | None) -> bool:
    """Whether *distribution* ships the top-level *module* that was actually imported
    (its ``__file__`` is *loaded*).  Several distributions claim generic top-level
    names -- a wheel that ships its own ``tests`` package -- so a claim alone would
    label a project's ``tests.backend:Mine`` with an unrelated library's version."""
    if loaded is None:
        return False
    target = Path(loaded).resolve()
    for file in distribution.files or ():
        if (
            file.parts
            and file.parts[0] == module
            and Path(str(distribution.locate_file(file))).resolve() == target
        ):
            return True
    return False


def backend_version(backend: Any) -> str:
    """What *backend* runs, as text: its ``version`` attribute when it has one, else
    the version of the distribution that provides its module, else ``unknown``."""
    own = getattr(backend, "version", None)
    if isinstance(own, str) and own:
        return own
    module = type(backend).__module__.partition(".")[0]
    if module in ("backends", "conformance", "oracle"):
        return f"plancheck {plancheck_version()}"
    try:
        packages = metadata.packages_distributions().get(module, [])
    except Exception:  # a broken environment's metadata is no reason to fail a run
        packages = []
    loaded = getattr(sys.modules.get(module), "__file__", None)
    for distribution in packages:
        try:
            if _ships(metadata.distribution(distribution), module, loaded):
                return f"{distribution} {metadata.version(distribution)}"
        except metadata.PackageNotFoundError:
            continue
    top = sys.modules.get(module)
    found = getattr(top, "__version__", None)
    return f"{module} {found}" if isinstance(found, str) else "unknown"
