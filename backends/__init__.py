"""Executors of central operation plans, and :func:`get`, which finds one by name.

``backends.get(name)`` is how every plancheck command, the pytest plugin and
every printed repro line obtain a backend.  *name* is one of:

* a built-in backend: ``"generic"`` (pure Python reference), ``"cpu"``
  (vectorised numpy), or an adapter of an outside library (``backends/adapters/``):
  ``"numpy-native"``, ``"torch"`` (extra ``plancheck[torch]``), ``"jax"``
  (extra ``plancheck[jax]``);
* an adapter on a device: ``"torch:cpu"``, ``"torch:cuda"``, ``"jax:cpu"``,
  ``"jax:gpu"`` (:data:`DEVICES`; ``"torch"`` and ``"jax"`` alone are the CPU);
* ``"package.module:attribute"``, an outside backend: a class is
  instantiated, a backend instance is returned as is, any other callable is
  called with no arguments.  The module is looked up with the current
  working directory first, as ``python -m`` and pytest's ``pythonpath`` do,
  so a kernel package in the folder plancheck is run from loads without
  being installed.

Errors, each with a message that says what to do:

* ValueError -- an unknown built-in name (the closest known names are
  suggested) or an unknown device suffix;
* :class:`BackendLoadError` (a LookupError) -- a well-formed name that cannot
  be loaded here: the adapter's library is not installed (the message names
  the extra that installs it), the device is absent, the module or attribute
  of an outside backend does not exist, or creating the backend raised
  SystemExit;
* TypeError -- *name* is not a string, or it resolves to something that is
  not a backend (:class:`~backends.protocol.Backend`).

An outside backend's own errors (an exception its module or constructor
raises) propagate unchanged.
"""

from __future__ import annotations

import difflib
import importlib
import os
import sys
from typing import Any

from .errors import BackendLoadError
from .protocol import Backend

__all__ = [
    "BUILTIN_BACKENDS",
    "DEVICES",
    "EXTRAS",
    "Backend",
    "BackendLoadError",
    "get",
    "known_names",
]

#: Built-in backend names and where they live.
BUILTIN_BACKENDS: dict[str, str] = {
    "generic": "backends.generic:GenericBackend",
    "cpu": "backends.cpu:CPUBackend",
    # adapters of outside libraries (optional extras): they measure the library, not us
    "numpy-native": "backends.adapters.numpy_native:NumpyNativeBackend",
    "torch": "backends.adapters.torch_cpu:TorchBackend",
    "jax": "backends.adapters.jax_cpu:JaxBackend",
}

#: Adapters that run on a chosen device: name -> the devices ``name:device`` may
#: name (the first is the default of the bare name).
DEVICES: dict[str, tuple[str, ...]] = {
    "torch": ("cpu", "cuda"),
    "jax": ("cpu", "gpu"),
}

#: The library each adapter needs and the extra that installs it.
EXTRAS: dict[str, tuple[str, str]] = {
    "torch": ("torch", "torch"),
    "jax": ("jax", "jax"),
}


def known_names() -> list[str]:
    """Every built-in name, device forms included."""
    names = list(BUILTIN_BACKENDS)
    for adapter, devices in DEVICES.items():
        names += [f"{adapter}:{device}" for device in devices]
    return names


def get(name: str) -> Any:
    """The backend called *name* (see the module docstring)."""
    if not isinstance(name, str):
        raise TypeError(f"a backend name is a string, got {type(name).__name__}")
    adapter, colon, device = name.partition(":")
    if colon and adapter in DEVICES:
        if device not in DEVICES[adapter]:
            choices = ", ".join(f"{adapter}:{d}" for d in DEVICES[adapter])
            raise ValueError(f"unknown device {device!r} in backend {name!r}: use {choices}")
        return _builtin(name, adapter, {"device": device})
    if name in BUILTIN_BACKENDS:
        return _builtin(name, name, {})
    if not colon:
        raise ValueError(_unknown_name(name))
    module_name, _, attribute = name.partition(":")
    if not module_name or not attribute:
        raise ValueError(
            f"backend {name!r}: an outside backend is named 'package.module:attribute'"
        )
    return _outside(name, module_name, attribute)


def _unknown_name(name: str) -> str:
    known = known_names()
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
    return (
        f"unknown backend {name!r}: {hint}use one of {', '.join(known)} "
        f"or 'package.module:attribute' for your own"
    )


def _builtin(name: str, builtin: str, options: dict[str, Any]) -> Any:
    module_name, _, attribute = BUILTIN_BACKENDS[builtin].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        if builtin not in EXTRAS:
            raise
        library, extra = EXTRAS[builtin]
        raise BackendLoadError(
            f"backend {name!r} needs {library}, which cannot be imported here ({error}): "
            f"pip install 'plancheck[{extra}]'"
        ) from error
    return _instance(name, getattr(module, attribute), options)


def _working_directory_first() -> None:
    """Put the current directory at the front of ``sys.path`` unless it is on it already."""
    try:
        here = os.getcwd()
    except OSError:  # the directory was removed: nothing to add
        return
    for entry in sys.path:
        if isinstance(entry, str) and os.path.abspath(entry or os.curdir) == here:
            return
    sys.path.insert(0, here)
    importlib.invalidate_caches()


def _outside(name: str, module_name: str, attribute: str) -> Any:
    _working_directory_first()
    try:
        target = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = error.name or module_name
        if module_name == missing or module_name.startswith(f"{missing}."):
            raise BackendLoadError(
                f"backend {name!r}: no module named {missing!r} in the current directory "
                f"({os.getcwd()}) or on sys.path; run plancheck from the folder that holds "
                f"the package, or install it (pip install -e .)"
            ) from error
        raise BackendLoadError(
            f"backend {name!r}: module {module_name!r} imports {missing!r}, which is not installed"
        ) from error
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError as error:
            raise BackendLoadError(
                f"backend {name!r}: {module_name!r} has no attribute {attribute!r}"
            ) from error
    return _instance(name, target, {})


def _is_backend(value: Any) -> bool:
    try:
        return isinstance(value, Backend)
    except Exception:  # a hostile __getattr__ or __class__: not a backend
        return False


def _instance(name: str, target: Any, options: dict[str, Any]) -> Any:
    """A backend from a class, a factory or an instance."""
    if isinstance(target, type) or (callable(target) and not _is_backend(target)):
        try:
            target = target(**options)
        except SystemExit as error:
            raise BackendLoadError(
                f"backend {name!r}: creating it raised SystemExit({error.code!r})"
            ) from error
    if not _is_backend(target):
        raise TypeError(
            f"{name!r} resolved to a {type(target).__name__}, which is not a backend "
            f"(it needs name, from_tensor, to_tensor and execute)"
        )
    return target
