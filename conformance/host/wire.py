"""What crosses between the judge and a backend host: raw bits, never a float conversion.

A Tensor crosses as ``(dtype name, shape, bytes)``: Float32 as the uint32
patterns, Int32 as two's complement uint32, Bool as one byte 0/1.  Decoding a
Float32 pattern into the float a :class:`oracle.Tensor` holds, and encoding one
back, is done with integer operations only (:func:`oracle.tensor.float32_values`,
:func:`oracle.tensor.float32_bits`): the host may run with flush-to-zero,
denormals-are-zero or a directed rounding mode, under which ``float32 ->
float64`` conversions (``tolist()``, ``struct``) or arithmetic decoders read a
subnormal back as zero.  No floating-point instruction runs on the way.

Exceptions cross as :class:`RaisedError` (the class's module and name, its
chain of base classes, the message); the judge rebuilds an exception whose
class is a subclass of the nearest base it can import without the backend
(:func:`rebuild_exception`), so ``isinstance`` checks against plancheck's
error types and the builtins keep working and ``type(error).__name__`` is the
backend's own class name.
"""

from __future__ import annotations

import builtins
import importlib
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from oracle import DType, Tensor

__all__ = [
    "RaisedError",
    "WireTensor",
    "decode_tensor",
    "encode_tensor",
    "raised_error",
    "rebuild_exception",
    "tensor_of_bits",
]

#: (dtype name, shape, raw little-endian bytes)
WireTensor = tuple[str, tuple[int, ...], bytes]

_DTYPES = {"Float32": DType.Float32, "Int32": DType.Int32, "Bool": DType.Bool}
_STORAGE: dict[str, np.dtype[Any]] = {
    "Float32": np.dtype("<u4"),
    "Int32": np.dtype("<i4"),
    "Bool": np.dtype("|u1"),
}


def tensor_of_bits(dtype_name: str, shape: tuple[int, ...], raw: bytes) -> Tensor:
    """The Tensor of raw little-endian element bits (no float conversion; signalling
    NaN patterns become :class:`oracle.binary32.SignallingNaN`).  Built by
    :meth:`oracle.Tensor.from_numpy`, which decodes with integer operations only."""
    storage = _STORAGE[dtype_name]
    array = np.frombuffer(raw, dtype=storage).reshape(tuple(int(n) for n in shape))
    if dtype_name == "Float32":
        return Tensor.from_numpy(array.view(np.float32))
    if dtype_name == "Int32":
        return Tensor.from_numpy(array.astype(np.int32))
    return Tensor.from_numpy(array.astype(np.bool_))


def encode_tensor(tensor: Tensor) -> WireTensor:
    """*tensor* as raw bits (the inverse of :func:`decode_tensor`), read with integer
    operations only (:meth:`oracle.Tensor.to_numpy`)."""
    array = tensor.to_numpy()
    if tensor.dtype is DType.Bool:
        raw = array.view(np.uint8).tobytes()
    else:
        raw = array.view(_STORAGE[tensor.dtype.name]).tobytes()
    return (tensor.dtype.name, tuple(tensor.shape), raw)


def encode_array(array: np.ndarray) -> WireTensor | None:
    """A float32 / int32 / bool numpy array of any rank (0 included) as raw bits, by
    reinterpretation only (None for any other dtype)."""
    shape = tuple(int(n) for n in np.shape(array))
    flat = np.ascontiguousarray(array).reshape(-1)
    if flat.dtype == np.float32:
        return ("Float32", shape, flat.view("<u4").tobytes())
    if flat.dtype == np.int32:
        return ("Int32", shape, flat.astype("<i4").tobytes())
    if flat.dtype == np.bool_:
        return ("Bool", shape, flat.view(np.uint8).tobytes())
    return None


def decode_tensor(wire: WireTensor) -> Tensor:
    """The Tensor of a :data:`WireTensor`."""
    return tensor_of_bits(*wire)


# ---------------------------------------------------------------------------
# Exceptions
# ---------------------------------------------------------------------------

#: modules whose exception classes the judge may import (never the backend's)
_TRUSTED_PREFIXES = ("builtins", "oracle", "backends.errors", "numpy", "conformance.model")


@dataclass(frozen=True)
class RaisedError:
    """An exception raised in the host: its class (module, qualified name), the
    (module, qualified name) of every class in its MRO (*bases*), and its message."""

    module: str
    name: str
    bases: tuple[tuple[str, str], ...]
    message: str


def raised_error(error: BaseException) -> RaisedError:
    """The :class:`RaisedError` of *error* (its ``str`` is read defensively)."""
    try:
        message = str(error)
    except Exception as failure:  # a hostile __str__
        message = f"<str() failed: {type(failure).__name__}>"
    kind = type(error)
    return RaisedError(
        kind.__module__,
        kind.__qualname__,
        tuple((c.__module__, c.__qualname__) for c in kind.__mro__),
        message,
    )


def _trusted_class(module: str, name: str) -> type[BaseException] | None:
    if not module.startswith(_TRUSTED_PREFIXES):
        return None
    try:
        found: Any = builtins if module == "builtins" else importlib.import_module(module)
        for part in name.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        return None
    return found if isinstance(found, type) and issubclass(found, BaseException) else None


_REBUILT: dict[tuple[str, str, type], type[BaseException]] = {}


def rebuild_exception(error: RaisedError) -> BaseException:
    """An exception standing for *error* in the judge: an instance of a class named
    like the backend's, derived from the nearest class of its MRO the judge can
    import from a trusted module (builtins, oracle, backends.errors, numpy)."""
    base: type[BaseException] = Exception
    for module, name in error.bases:
        found = _trusted_class(module, name)
        if found is not None:
            base = found
            break
    key = (error.module, error.name, base)
    kind = _REBUILT.get(key)
    if kind is None:
        short = error.name.rpartition(".")[2]
        made: type
        try:
            made = type(short, (base,), {
                "__module__": error.module,
                "__str__": lambda self: self.args[0] if self.args else "",
                "__init__": lambda self, *args: BaseException.__init__(self, *args),
            })  # fmt: skip
        except TypeError:  # a base that cannot be subclassed
            made = type(short, (Exception,), {"__module__": error.module})
        # a class made by type() from a BaseException base is one (mypy types the
        # three-argument type() as plain ``type``)
        kind = cast("type[BaseException]", made)
        _REBUILT[key] = kind
    instance = kind.__new__(kind)
    BaseException.__init__(instance, error.message)
    instance.remote = error  # type: ignore[attr-defined]
    return instance
