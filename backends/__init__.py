"""Executors of central operation plans.

``backends.get(name)`` returns a backend instance: ``"generic"`` (pure Python
reference), ``"cpu"`` (vectorised numpy), the adapters of outside libraries
``"numpy-native"``, ``"torch"`` and ``"jax"`` (``backends/adapters/``), or
``"package.module:attribute"`` for an outside backend (a class is
instantiated, a backend instance is returned as is, any other callable is
called with no arguments).
"""

from __future__ import annotations

import importlib
from typing import Any

from .protocol import Backend

__all__ = ["BUILTIN_BACKENDS", "Backend", "get"]

#: Built-in backend names and where they live.
BUILTIN_BACKENDS: dict[str, str] = {
    "generic": "backends.generic:GenericBackend",
    "cpu": "backends.cpu:CPUBackend",
    # adapters of outside libraries (optional extras): they measure the library, not us
    "numpy-native": "backends.adapters.numpy_native:NumpyNativeBackend",
    "torch": "backends.adapters.torch_cpu:TorchBackend",
    "jax": "backends.adapters.jax_cpu:JaxBackend",
}


def get(name: str) -> Any:
    """The backend called *name* (see the module docstring).

    ValueError for an unknown built-in name or a malformed reference;
    ImportError/AttributeError when a ``module:attribute`` reference does not
    resolve; TypeError when the result is not a backend.
    """
    reference = BUILTIN_BACKENDS.get(name, name)
    module_name, colon, attribute = reference.partition(":")
    if not colon or not module_name or not attribute:
        known = ", ".join(sorted(BUILTIN_BACKENDS))
        raise ValueError(
            f"unknown backend {name!r}: use one of {known} or 'package.module:attribute'"
        )
    target = importlib.import_module(module_name)
    for part in attribute.split("."):
        target = getattr(target, part)
    if isinstance(target, type) or (callable(target) and not isinstance(target, Backend)):
        target = target()
    if not isinstance(target, Backend):
        raise TypeError(f"{name!r} resolved to {target!r}, which is not a backend")
    return target
