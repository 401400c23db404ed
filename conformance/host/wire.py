"""What crosses between the judge and a backend host: raw bits, never a float conversion.

A Tensor crosses as ``(dtype name, shape, bytes)``: Float32 as the uint32
patterns, Int32 as two's complement uint32, Bool as one byte 0/1.  Decoding a
Float32 pattern into the float a :class:`oracle.Tensor` holds, and encoding one
back, is done with integer operations only (:func:`float32_bits_to_doubles`,
:func:`doubles_to_float32_bits`): the host may run with flush-to-zero,
denormals-are-zero or a directed rounding mode, under which ``float32 ->
float64`` conversions (``tolist()``, ``struct``) or arithmetic decoders read a
subnormal back as zero.  The only floating-point operation used is the product
of an integer of at most 23 bits by ``2**-149``, whose operands and result are
normal doubles (exact under any rounding mode, untouched by FTZ/DAZ).

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
import struct
from dataclasses import dataclass
from typing import Any

import numpy as np

from oracle import DType, Tensor
from oracle.binary32 import SignallingNaN

__all__ = [
    "RaisedError",
    "WireTensor",
    "decode_tensor",
    "doubles_to_float32_bits",
    "encode_tensor",
    "float32_bits_to_doubles",
    "raised_error",
    "rebuild_exception",
    "tensor_of_bits",
]

#: (dtype name, shape, raw little-endian bytes)
WireTensor = tuple[str, tuple[int, ...], bytes]

_DTYPES = {"Float32": DType.Float32, "Int32": DType.Int32, "Bool": DType.Bool}
_TINY = struct.unpack("<d", struct.pack("<Q", (1023 - 149) << 52))[0]  # 2**-149, built bitwise


def float32_bits_to_doubles(bits: np.ndarray) -> np.ndarray:
    """The float64 values of binary32 patterns (uint32), computed with integers only.

    NaNs keep sign and payload (the quiet bit included) in the top fraction bits,
    so :func:`doubles_to_float32_bits` gives the same patterns back.
    """
    b = bits.astype(np.uint64)
    sign = (b >> np.uint64(31)) << np.uint64(63)
    exponent = (b >> np.uint64(23)) & np.uint64(0xFF)
    fraction = b & np.uint64(0x7FFFFF)
    normal = (exponent + np.uint64(1023 - 127)) << np.uint64(52) | fraction << np.uint64(29)
    special = np.uint64(0x7FF) << np.uint64(52) | fraction << np.uint64(29)
    out = np.where(exponent == np.uint64(0xFF), special, normal)
    out = np.where(exponent == 0, np.uint64(0), out) | sign
    doubles = out.view(np.float64)
    subnormal = (exponent == 0) & (fraction != 0)
    if subnormal.any():  # m * 2**-149: an exact product of normal doubles
        magnitude = fraction[subnormal].astype(np.float64) * _TINY
        doubles = doubles.copy()
        doubles[subnormal] = np.where(sign[subnormal] != 0, -magnitude, magnitude)
    return doubles


def doubles_to_float32_bits(values: np.ndarray) -> np.ndarray:
    """The binary32 patterns (uint32) of float64 values that are binary32 values,
    computed with integers only (NaN payloads keep their top 23 fraction bits)."""
    d = np.ascontiguousarray(values, dtype=np.float64).view(np.uint64)
    sign = ((d >> np.uint64(63)) << np.uint64(31)).astype(np.uint64)
    exponent = ((d >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    fraction = d & np.uint64((1 << 52) - 1)
    unbiased = exponent - 1023
    normal = (np.clip(unbiased + 127, 0, 255).astype(np.uint64) << np.uint64(23)) | (
        fraction >> np.uint64(29)
    )
    shift = np.clip(52 - (unbiased + 149), 0, 63).astype(np.uint64)
    subnormal = (fraction | np.uint64(1 << 52)) >> shift
    out = np.where(unbiased >= -126, normal, subnormal)
    out = np.where(exponent == 0x7FF, np.uint64(0xFF << 23) | (fraction >> np.uint64(29)), out)
    out = np.where(exponent == 0, np.uint64(0), out)
    return (out | sign).astype(np.uint32)


def tensor_of_bits(dtype_name: str, shape: tuple[int, ...], raw: bytes) -> Tensor:
    """The Tensor of raw little-endian element bits (no float conversion; signalling
    NaN patterns become :class:`oracle.binary32.SignallingNaN`)."""
    dtype = _DTYPES[dtype_name]
    if dtype is DType.Float32:
        bits = np.frombuffer(raw, dtype="<u4")
        values: list[Any] = float32_bits_to_doubles(bits).tolist()
        quiet = bits & np.uint32(0x7FC00000)
        signalling = np.flatnonzero((quiet == np.uint32(0x7F800000)) & ((bits & 0x3FFFFF) != 0))
        for flat in signalling.tolist():
            values[flat] = SignallingNaN(int(bits[flat]))
    elif dtype is DType.Int32:
        values = np.frombuffer(raw, dtype="<i4").tolist()
    else:
        values = [bool(v) for v in np.frombuffer(raw, dtype=np.uint8).tolist()]
    tensor = object.__new__(Tensor)  # every value is valid by construction
    object.__setattr__(tensor, "dtype", dtype)
    object.__setattr__(tensor, "shape", tuple(int(n) for n in shape))
    object.__setattr__(tensor, "values", tuple(values))
    return tensor


def encode_tensor(tensor: Tensor) -> WireTensor:
    """*tensor* as raw bits (the inverse of :func:`decode_tensor`)."""
    name = tensor.dtype.name
    if tensor.dtype is DType.Float32:
        signalling = {
            i: v.bits for i, v in enumerate(tensor.values) if isinstance(v, SignallingNaN)
        }
        bits = doubles_to_float32_bits(np.array(tensor.values, dtype=np.float64))
        for index, pattern in signalling.items():
            bits[index] = pattern
        raw = bits.astype("<u4").tobytes()
    elif tensor.dtype is DType.Int32:
        raw = np.array(tensor.values, dtype="<i4").tobytes()
    else:
        raw = np.array(tensor.values, dtype=np.uint8).tobytes()
    return (name, tuple(tensor.shape), raw)


def encode_array(array: np.ndarray) -> WireTensor | None:
    """A float32 / int32 / bool numpy array as raw bits, by reinterpretation only
    (None for any other dtype)."""
    array = np.ascontiguousarray(array)
    if array.dtype == np.float32:
        return ("Float32", array.shape, array.view("<u4").tobytes())
    if array.dtype == np.int32:
        return ("Int32", array.shape, array.astype("<i4").tobytes())
    if array.dtype == np.bool_:
        return ("Bool", array.shape, array.view(np.uint8).tobytes())
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


def _trusted_class(module: str, name: str) -> type | None:
    if not module.startswith(_TRUSTED_PREFIXES):
        return None
    try:
        found: Any = builtins if module == "builtins" else importlib.import_module(module)
        for part in name.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        return None
    return found if isinstance(found, type) and issubclass(found, BaseException) else None


_REBUILT: dict[tuple[str, str, type], type] = {}


def rebuild_exception(error: RaisedError) -> BaseException:
    """An exception standing for *error* in the judge: an instance of a class named
    like the backend's, derived from the nearest class of its MRO the judge can
    import from a trusted module (builtins, oracle, backends.errors, numpy)."""
    base: type = Exception
    for module, name in error.bases:
        found = _trusted_class(module, name)
        if found is not None:
            base = found
            break
    key = (error.module, error.name, base)
    kind = _REBUILT.get(key)
    if kind is None:
        try:
            kind = type(error.name.rpartition(".")[2], (base,), {
                "__module__": error.module,
                "__str__": lambda self: self.args[0] if self.args else "",
                "__init__": lambda self, *args: BaseException.__init__(self, *args),
            })  # fmt: skip
        except TypeError:  # a base that cannot be subclassed
            kind = type(error.name.rpartition(".")[2], (Exception,), {"__module__": error.module})
        _REBUILT[key] = kind
    instance = kind.__new__(kind)
    BaseException.__init__(instance, error.message)
    instance.remote = error  # type: ignore[attr-defined]
    return instance
