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
  being installed.  A package of the same name as one already imported --
  ``backends.mine:X`` with a ``backends/mine.py`` of your own, while
  ``backends`` is plancheck's package -- is found too: when the imported
  package has no such module, the first ``backends`` folder on ``sys.path``
  (the current directory first) that holds it is added to the package's
  ``__path__`` (a module the imported package has stays its own, and your
  ``backends/__init__.py`` is not run).

Errors, each with a message that says what to do:

* ValueError -- an unknown built-in name (the closest known names are
  suggested; a name that is a module file, ``tinybackend``, is told to
  name the backend in it, ``tinybackend:TinyBackend``) or an unknown device
  suffix;
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

import ast
import contextlib
import difflib
import importlib
import os
import sys
from typing import Any, TypeGuard

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
    "tensorflow": "backends.adapters.tensorflow_cpu:TensorFlowBackend",
    "onnxruntime": "backends.adapters.onnxruntime_cpu:OnnxRuntimeBackend",
    "paddle": "backends.adapters.paddle_cpu:PaddleBackend",
    "array-api-strict": "backends.adapters.array_api_strict:ArrayApiStrictBackend",
    "mlx": "backends.adapters.mlx_cpu:MlxBackend",
    "numba": "backends.adapters.numba_cpu:NumbaBackend",
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
    "tensorflow": ("tensorflow", "tensorflow"),
    "onnxruntime": ("onnxruntime", "onnxruntime"),
    "paddle": ("paddle", "paddle"),
    "array-api-strict": ("array_api_strict", "array-api-strict"),
    "mlx": ("mlx", "mlx"),
    "numba": ("numba", "numba"),
}


def known_names() -> list[str]:
    """Every built-in name, device forms included."""
    names = list(BUILTIN_BACKENDS)
    for adapter, devices in DEVICES.items():
        names += [f"{adapter}:{device}" for device in devices]
    return names


def get(name: str) -> Backend[Any]:
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
    text = (
        f"unknown backend {name!r}: {hint}use one of {', '.join(known)} "
        f"or 'package.module:attribute' for your own"
    )
    parts = name.split(".")
    if close or not all(part.isidentifier() for part in parts):
        return text
    source = _module_file(parts)
    if source is None:
        return f"{text} (an outside backend needs its attribute: '{name}:YourBackend')"
    classes = _class_names(source)
    example = f"{name}:{classes[0]}" if classes else f"{name}:ATTRIBUTE"
    defined = f" (it defines {', '.join(classes[:5])})" if classes else ""
    return (
        f"backend {name!r} names a module, {source}{defined}, not a backend in it: name the "
        f"backend class, instance or factory as 'module:attribute', e.g. --backend {example}"
    )


def _module_file(parts: list[str]) -> str | None:
    """The file of module *parts* in the current directory or on ``sys.path`` (found by
    path, without importing anything), or None."""
    folders = _search_folders()
    with contextlib.suppress(OSError):
        folders.insert(0, os.getcwd())
    for folder in folders:
        base = os.path.join(folder, *parts)
        for candidate in (f"{base}.py", os.path.join(base, "__init__.py")):
            if os.path.isfile(candidate):
                return candidate
    return None


def _class_names(source: str) -> list[str]:
    """The top-level classes of the Python file *source* (read, never run); [] if unreadable."""
    try:
        with open(source, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), source)
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return []
    return [node.name for node in tree.body if isinstance(node, ast.ClassDef)]


def _builtin(name: str, builtin: str, options: dict[str, Any]) -> Backend[Any]:
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


def _search_folders() -> list[str]:
    """The folders of ``sys.path`` (strings only; ``''`` is the current directory), in order."""
    folders = []
    for entry in sys.path:
        if isinstance(entry, str):
            try:
                folders.append(os.path.abspath(entry or os.curdir))
            except OSError:  # a relative entry and no current directory
                continue
    return folders


def _holds_module(folder: str, leaf: str) -> bool:
    """Whether *folder* holds a module or package called *leaf* (a file or a folder)."""
    return os.path.isfile(os.path.join(folder, f"{leaf}.py")) or os.path.isdir(
        os.path.join(folder, leaf)
    )


def _shadowed_folders(package: Any, package_name: str, leaf: str) -> list[str]:
    """Folders ``<sys.path entry>/<package as a path>`` that hold *leaf* although the
    imported *package* (another distribution's, e.g. plancheck's own ``backends``) does not."""
    own = {os.path.realpath(p) for p in getattr(package, "__path__", ()) if isinstance(p, str)}
    found = []
    for entry in _search_folders():
        folder = os.path.join(entry, *package_name.split("."))
        real = os.path.realpath(folder)
        if real not in own and real not in found and _holds_module(folder, leaf):
            found.append(real)
    return found


def _import_module(module_name: str) -> Any:
    """``importlib.import_module``, and where an already imported package of the same name
    shadows the user's (``backends.mine`` when plancheck's ``backends`` has no ``mine``),
    the user's folder is added to that package's ``__path__`` and the import retried.

    Only modules the imported package lacks are found this way: a name it has is its
    own.  The user's ``__init__.py`` of the shadowed package is not run.
    """
    extended: set[str] = set()
    while True:
        try:
            return importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            missing = error.name or module_name
            parent_name, _, leaf = missing.rpartition(".")
            parent = sys.modules.get(parent_name) if parent_name else None
            folders = [] if parent is None else _shadowed_folders(parent, parent_name, leaf)
            if parent is None or not folders or missing in extended:
                raise
            if not _names_part_of(missing, module_name):
                raise
            extended.add(missing)
            parent.__path__.append(folders[0])
            importlib.invalidate_caches()


def _names_part_of(missing: str, module_name: str) -> bool:
    return module_name == missing or module_name.startswith(f"{missing}.")


def _not_found(name: str, module_name: str, missing: str) -> BackendLoadError:
    """The error of a module that is not anywhere: what was looked for, where, what to do."""
    try:
        here = os.getcwd()
    except OSError:
        here = "(the current directory no longer exists)"
    parent_name, _, leaf = missing.rpartition(".")
    parent = sys.modules.get(parent_name) if parent_name else None
    if parent is None:
        return BackendLoadError(
            f"backend {name!r}: no module named {missing!r} in the current directory ({here}) "
            f"or on sys.path; run plancheck from the folder that holds the package, or install "
            f"it (pip install -e .)"
        )
    places = [p for p in getattr(parent, "__path__", ()) if isinstance(p, str)]
    package_path = os.path.join(*parent_name.split("."))
    relative = os.path.join(package_path, f"{leaf}.py")
    near = _nearby_modules(parent_name, leaf)
    hint = f" (did you mean {' or '.join(repr(n) for n in near)}?)" if near else ""
    return BackendLoadError(
        f"backend {name!r}: no module named {missing!r}{hint}: Python imports the package "
        f"{parent_name!r} from {', '.join(places) or 'a namespace'}, which has no module "
        f"{leaf!r}, and no {package_path} folder on sys.path (the current directory {here} "
        f"first) holds {leaf}.py; put the file at {os.path.join(here, relative)} and run "
        f"plancheck from {here}, or give your package a name of its own"
    )


def _nearby_modules(package_name: str, leaf: str) -> list[str]:
    """Modules of *package_name* folders on sys.path whose names are close to *leaf*."""
    names: set[str] = set()
    for entry in _search_folders():
        folder = os.path.join(entry, *package_name.split("."))
        try:
            listing = os.listdir(folder)
        except OSError:
            continue
        names.update(n[:-3] if n.endswith(".py") else n for n in listing)
    close = difflib.get_close_matches(leaf, sorted(n for n in names if n.isidentifier()), n=3)
    return [f"{package_name}.{n}" for n in close]


def _outside(name: str, module_name: str, attribute: str) -> Backend[Any]:
    _working_directory_first()
    try:
        target = _import_module(module_name)
    except ModuleNotFoundError as error:
        missing = error.name or module_name
        if _names_part_of(missing, module_name):
            raise _not_found(name, module_name, missing) from error
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


def _is_backend(value: object) -> TypeGuard[Backend[Any]]:
    try:
        return isinstance(value, Backend)
    except Exception:  # a hostile __getattr__ or __class__: not a backend
        return False


def _instance(name: str, target: Any, options: dict[str, Any]) -> Backend[Any]:
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
