"""A loaded backend's build identity: a digest of the code it runs and its libraries.

Computed in the backend host (:mod:`conformance.host.server`, the ``identity``
request), where the backend's modules are imported: the judge asks for it
(:meth:`conformance.host.client.BackendHost.identity`) and never imports them.
The exhaustive sweep stamps every state record with it
(:func:`conformance.exhaustive.state.backend_identity`), so a record of another
build of the backend never counts.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import backends

__all__ = ["digest_of", "identity_of"]


def digest_of(parts: Iterable[bytes]) -> str:
    """16 hex digits of the SHA-256 of *parts*, each prefixed by its length (so no two
    sequences of parts give the same input)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()[:16]


def _module_files(module: Any) -> list[Path]:
    """The source of *module*: every ``.py`` file of its directory for a package."""
    file = getattr(module, "__file__", None)
    if not file:
        return []
    path = Path(file)
    if path.name == "__init__.py":
        return sorted(path.parent.glob("*.py"))
    return [path] if path.suffix == ".py" else []


def _library_versions(module: Any) -> list[str]:
    """``name version`` of every top-level library *module* imports (``import torch``)."""
    seen = {}
    for name, value in vars(module).items():
        # "@py..." are pytest's assertion-rewriting helpers, not the backend's imports
        if name.isidentifier() and type(value) is type(sys) and getattr(value, "__name__", ""):
            top = sys.modules.get(value.__name__.partition(".")[0])
            version = getattr(top, "__version__", None)
            if top is not None and isinstance(version, str):
                seen[top.__name__] = version
    return [f"{name} {version}" for name, version in sorted(seen.items())]


def identity_of(label: str, backend: Any) -> str:
    """``label@digest`` of *backend*, loaded from *label* in this process.

    The digest covers the source of the module the label refers to and of every
    module defining a class of the backend's type (a package's whole directory),
    the ``__version__`` of every library those modules import, and the backend's
    ``version`` attribute when it has one.  The files are read now, so an edited
    module changes the identity even before it is imported again.
    """
    reference = backends.BUILTIN_BACKENDS.get(label, label).partition(":")[0]
    modules = [sys.modules[reference]] if reference in sys.modules else []
    for cls in type(backend).__mro__:
        module = sys.modules.get(cls.__module__)
        if cls.__module__ in ("builtins", "typing") or module is None or module in modules:
            continue
        modules.append(module)
    parts: list[bytes] = []
    for module in modules:
        for path in _module_files(module):
            parts.append(path.name.encode() + path.read_bytes())
        parts += [v.encode() for v in _library_versions(module)]
    version = getattr(backend, "version", None)
    if isinstance(version, str):
        parts.append(version.encode())
    return f"{label}@{digest_of(parts)}"
