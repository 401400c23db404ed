"""``Tensor``: the neutral, immutable exchange form between oracle and backends.

A Tensor is a dtype, a shape and the flat row-major tuple of its values:

* ``DType.Float32`` -- Python floats, each holding an exact binary32 value.
  Every element keeps its exact binary32 bit pattern: a quiet NaN's sign and
  payload live in the float itself, and a signalling NaN (which a plain
  float cannot carry) is a :class:`oracle.binary32.SignallingNaN`, a float
  subclass holding its pattern;
* ``DType.Int32`` -- Python ints in [-2**31, 2**31 - 1];
* ``DType.Bool`` -- Python bools.

Construction validates every value: a value of the wrong type is a TypeError,
one that is not exactly representable in the dtype is a ValueError.  Nothing
is ever rounded or wrapped on the way in.

Bits in, bits out: :meth:`Tensor.from_bits` and :meth:`Tensor.from_numpy`
take patterns exactly (signalling NaNs included), :meth:`Tensor.bits` and
:meth:`Tensor.to_numpy` give them back exactly, and equality compares them.
Code that copies elements should pass the value objects along unchanged (or
go through bits); ``float(v)``, ``-v`` and numpy float64 round trips quiet a
signalling NaN -- use :func:`oracle.binary32.negate` / ``absolute`` for the
sign-bit operations.
"""

from __future__ import annotations

import math
import numbers
import operator
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import binary32
from .dtypes import INT32_MAX, INT32_MIN, DType, SimpleDType
from .errors import describe, integer_text, shape_text
from .limits import OracleLimitError, check_operand_extents

__all__ = [
    "INT32_MAX",
    "INT32_MIN",
    "MAX_NDIM",
    "TENSOR_DTYPES",
    "Tensor",
    "float32_bits",
    "float32_values",
    "unravel_index",
]

#: The most dimensions a Tensor may have (numpy 2's limit).
MAX_NDIM = 64

#: The dtypes a Tensor can hold, with their numpy storage dtypes.
TENSOR_DTYPES: dict[SimpleDType, np.dtype] = {
    DType.Float32: np.dtype(np.float32),
    DType.Int32: np.dtype(np.int32),
    DType.Bool: np.dtype(np.bool_),
}


def _float32_value(value: object) -> float:
    if isinstance(value, binary32.SignallingNaN):
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"a Float32 value must be a real number, got {describe(value)}")
    if isinstance(value, np.float32):
        return binary32.from_bits_exact(int(value.view(np.uint32)))
    try:
        as_float = float(value)
        exact = math.isnan(as_float) or bool(as_float == value)
    except (ValueError, OverflowError):
        exact = False
    except Exception as error:  # the object's own __float__ or __eq__ failed
        raise TypeError(
            f"a Float32 value must be a readable real number; {describe(value)} "
            f"raised {type(error).__name__}"
        ) from error
    if not exact:
        raise ValueError(f"{describe(value)} is not exactly representable as a Python float")
    if not binary32.is_binary32(as_float):
        raise ValueError(f"{describe(value)} is not exactly representable in binary32")
    return as_float


def _int32_value(value: object) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"an Int32 value must be an integer, got {describe(value)}")
    try:
        as_int = int(value)
    except Exception as error:  # the object's own __int__ failed
        raise TypeError(
            f"an Int32 value must be a readable integer; {describe(value)} "
            f"raised {type(error).__name__}"
        ) from error
    if not INT32_MIN <= as_int <= INT32_MAX:
        raise ValueError(f"{integer_text(as_int)} lies outside the Int32 range")
    return as_int


def _bool_value(value: object) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"a Bool value must be a bool, got {describe(value)}")
    return bool(value)


def _validated(validator: Any, value: object) -> Any:
    """*validator(value)*; an object whose own methods raise is a TypeError."""
    try:
        return validator(value)
    except (TypeError, ValueError):
        raise
    except Exception as error:  # e.g. an isinstance check on a hostile __class__
        raise TypeError(
            f"a Tensor value must be a plain number; {describe(value)} raised "
            f"{type(error).__name__} when read"
        ) from error


def _extent(extent: object, shape: object) -> int:
    """One shape extent as a non-negative int (ValueError otherwise)."""
    try:
        if isinstance(extent, (bool, np.bool_)) or not isinstance(extent, numbers.Integral):
            raise ValueError
        value = int(extent)
        if value < 0:
            raise ValueError
    except Exception as error:
        raise ValueError(f"shape must be non-negative integers, got {describe(shape)}") from error
    return value


_VALIDATORS = {DType.Float32: _float32_value, DType.Int32: _int32_value, DType.Bool: _bool_value}


@dataclass(frozen=True, eq=False)
class Tensor:
    """An immutable dtype, shape and flat row-major tuple of values.

    Two tensors are equal when dtype, shape and every element's bit pattern
    agree (so NaNs with the same bits are equal and -0.0 differs from +0.0).
    """

    dtype: SimpleDType
    shape: tuple[int, ...]
    values: tuple[Any, ...]

    def __post_init__(self) -> None:
        validator = next((v for d, v in _VALIDATORS.items() if d is self.dtype), None)
        if validator is None:
            raise TypeError(
                f"a Tensor holds Float32, Int32 or Bool values, not {describe(self.dtype)}"
            )
        try:
            extents = tuple(self.shape)
        except Exception as error:
            raise TypeError(f"shape must be a tuple of ints, got {describe(self.shape)}") from error
        if len(extents) > MAX_NDIM:
            raise ValueError(f"a Tensor has at most {MAX_NDIM} dimensions, got {len(extents)}")
        shape = tuple(_extent(n, extents) for n in extents)
        values = tuple(_validated(validator, v) for v in self.values)
        if len(values) != math.prod(shape):
            raise ValueError(
                f"shape {describe(shape)} needs {integer_text(math.prod(shape))} values, "
                f"got {len(values)}"
            )
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "values", values)

    # -- construction -------------------------------------------------------

    @classmethod
    def scalar(cls, value: Any, dtype: SimpleDType) -> Tensor:
        """A 0-dimensional tensor holding *value*."""
        return cls(dtype, (), (value,))

    @classmethod
    def from_nested(cls, data: Any, dtype: SimpleDType) -> Tensor:
        """Build from nested sequences (a bare number gives shape ``()``).

        Ragged nesting, or nesting deeper than :data:`MAX_NDIM`, is a
        ValueError; a container whose own methods raise is a TypeError.
        """
        try:
            shape = _nested_shape(data, 0)
            values = tuple(_flatten(data, len(shape)))
        except (TypeError, ValueError):
            raise
        except Exception as error:  # a hostile __len__, __iter__ or __class__
            raise TypeError(
                f"from_nested: {describe(data)} could not be read ({type(error).__name__})"
            ) from error
        return cls(dtype, shape, values)

    @classmethod
    def from_bits(cls, dtype: SimpleDType, shape: Sequence[int], bits: Iterable[int]) -> Tensor:
        """Build from element bit patterns, the inverse of :meth:`bits`.

        Float32: binary32 patterns in [0, 2**32), kept exactly (signalling
        NaNs included); Int32: two's complement patterns in [0, 2**32);
        Bool: 0 or 1.  A pattern out of range is a ValueError, a non-integer
        a TypeError.
        """
        patterns = tuple(bits)
        for pattern in patterns:
            if isinstance(pattern, (bool, float)) or not isinstance(pattern, (int, np.integer)):
                raise TypeError(f"a bit pattern must be an int, got {pattern!r}")
        limit = 2 if dtype is DType.Bool else 1 << 32
        for pattern in patterns:
            if not 0 <= pattern < limit:
                raise ValueError(f"{dtype!r} bit pattern {pattern!r} is outside [0, {limit:#x})")
        if dtype is DType.Float32:
            values: tuple[Any, ...] = tuple(binary32.from_bits_exact(int(b)) for b in patterns)
        elif dtype is DType.Int32:
            values = tuple(int(b) - ((int(b) & 0x80000000) << 1) for b in patterns)
        elif dtype is DType.Bool:
            values = tuple(bool(b) for b in patterns)
        else:
            raise TypeError(f"a Tensor holds Float32, Int32 or Bool values, not {dtype!r}")
        return cls(dtype, tuple(shape), values)

    @classmethod
    def from_numpy(cls, array: np.ndarray) -> Tensor:
        """Build from a float32, int32 or bool numpy array (copied, bit for bit).

        Float32 elements are decoded from their bit patterns with integer
        operations only (:func:`float32_doubles`), never by a float32 -> float64
        conversion, so the values are exact under any floating-point
        environment (flush-to-zero, denormals-are-zero, a directed rounding
        mode: a backend's process may run in any); signalling NaNs are kept as
        :class:`oracle.binary32.SignallingNaN`.  The values are valid by
        construction and are not validated again.
        """
        array = np.asarray(array)
        shape = tuple(int(n) for n in array.shape)
        if array.dtype == TENSOR_DTYPES[DType.Float32]:
            bits = np.ascontiguousarray(array).view(np.uint32).reshape(-1)
            return cls._trusted(DType.Float32, shape, tuple(float32_values(bits)))
        if array.dtype == TENSOR_DTYPES[DType.Int32]:
            return cls._trusted(DType.Int32, shape, tuple(array.reshape(-1).tolist()))
        if array.dtype == TENSOR_DTYPES[DType.Bool]:
            return cls._trusted(DType.Bool, shape, tuple(array.reshape(-1).tolist()))
        raise TypeError(f"no Tensor dtype for numpy dtype {array.dtype}")

    @classmethod
    def _trusted(
        cls, dtype: SimpleDType, shape: tuple[int, ...], values: tuple[Any, ...]
    ) -> Tensor:
        """A Tensor of values valid by construction (no validation: the callers build
        them from bit patterns)."""
        if len(shape) > MAX_NDIM:
            raise ValueError(f"a Tensor has at most {MAX_NDIM} dimensions, got {len(shape)}")
        tensor = object.__new__(cls)
        object.__setattr__(tensor, "dtype", dtype)
        object.__setattr__(tensor, "shape", shape)
        object.__setattr__(tensor, "values", values)
        return tensor

    # -- views ----------------------------------------------------------------

    @property
    def size(self) -> int:
        return len(self.values)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def to_numpy(self) -> np.ndarray:
        """A new numpy array of the matching storage dtype, bit for bit."""
        storage = TENSOR_DTYPES[self.dtype]
        if self.dtype is DType.Float32:
            return self._float32_bits().view(np.float32).reshape(self.shape)
        return np.array(self.values, dtype=storage).reshape(self.shape)

    def _float32_bits(self) -> np.ndarray:
        """The uint32 patterns of a Float32 tensor's values, computed from the doubles'
        bits with integer operations only (exact under any floating-point environment)."""
        bits = float32_bits(np.array(self.values, dtype=np.float64))
        for flat, value in enumerate(self.values):
            if isinstance(value, binary32.SignallingNaN):
                bits[flat] = value.bits
        return bits

    def bits(self) -> tuple[int, ...]:
        """Each element's bit pattern: binary32 bits, Int32 two's complement, Bool 0/1."""
        if self.dtype is DType.Float32:
            return tuple(self._float32_bits().tolist())
        if self.dtype is DType.Int32:
            return tuple(v & 0xFFFFFFFF for v in self.values)
        return tuple(int(v) for v in self.values)

    def tolist(self) -> Any:
        """The values as nested lists (a bare value for shape ``()``).

        An empty tensor whose non-zero extents span more than
        ``oracle.limits.MAX_RESULT_ELEMENTS`` positions -- shape (2**40, 0)
        is 2**40 empty lists -- raises ``OracleLimitError`` instead.
        """
        if not self.values:
            check_operand_extents("Tensor.tolist", 0, self.shape)
        return _nest(list(self.values), self.shape)

    def index(self, flat: int) -> tuple[int, ...]:
        """The multi-index of flat row-major position *flat*."""
        return unravel_index(flat, self.shape)

    def __getitem__(self, index: tuple[int, ...]) -> Any:
        """The element at the full multi-index *index* (a tuple of ints)."""
        try:
            positions = tuple(operator.index(i) for i in index)
        except Exception as error:
            raise TypeError(f"index must be a tuple of ints, got {describe(index)}") from error
        if len(positions) != self.ndim:
            raise IndexError(f"index {describe(positions)} does not address shape {self.shape}")
        flat = 0
        for position, extent in zip(positions, self.shape):
            if not 0 <= position < extent:
                raise IndexError(f"index {describe(positions)} out of range for shape {self.shape}")
            flat = flat * extent + position
        return self.values[flat]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tensor):
            return NotImplemented
        return (
            self.dtype is other.dtype and self.shape == other.shape and self.bits() == other.bits()
        )

    def __hash__(self) -> int:
        return hash((self.dtype, self.shape, self.bits()))

    def __repr__(self) -> str:
        try:
            values = repr(self.tolist())
        except OracleLimitError:
            values = "[]"  # an empty tensor of a huge shape: no nesting shown
        return f"Tensor({self.dtype!r}, shape={shape_text(self.shape)}, values={values})"


def unravel_index(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The multi-index of flat row-major position *flat* in *shape*."""
    index = []
    for extent in reversed(shape):
        flat, position = divmod(flat, extent)
        index.append(position)
    return tuple(reversed(index))


def _nested_shape(data: Any, depth: int) -> tuple[int, ...]:
    if not isinstance(data, Sequence) or isinstance(data, (str, bytes)):
        return ()
    if depth == MAX_NDIM:
        raise ValueError(f"nested data deeper than {MAX_NDIM} levels")
    if not data:
        return (0,)
    inner = [_nested_shape(item, depth + 1) for item in data]
    if any(shape != inner[0] for shape in inner):
        raise ValueError(f"ragged nested data: sub-shapes {sorted(set(inner))}")
    return (len(data), *inner[0])


def _flatten(data: Any, depth: int) -> Iterable[Any]:
    if depth == 0:
        yield data
        return
    for item in data:
        yield from _flatten(item, depth - 1)


def _nest(flat: list[Any], shape: tuple[int, ...]) -> Any:
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return flat
    step = math.prod(shape[1:])
    return [_nest(flat[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0])]


# ---------------------------------------------------------------------------
# binary32 patterns <-> the doubles a Float32 Tensor holds, with integers only
# ---------------------------------------------------------------------------

_U = np.uint64
#: up to this many elements, one element at a time in Python integers (numpy's fixed cost
#: is larger)
_SMALL = 32
_FRACTION_52 = (1 << 52) - 1
_DOUBLE = struct.Struct("<d")
_WORD = struct.Struct("<Q")


def _value_of_pattern(pattern: int) -> float:
    """The Python float of one binary32 pattern, assembled as a double's bits."""
    exponent, fraction = (pattern >> 23) & 0xFF, pattern & 0x7FFFFF
    if exponent == 0xFF and fraction and not fraction & 0x400000:
        return binary32.SignallingNaN(pattern)
    if exponent == 0xFF:
        word = 0x7FF << 52 | fraction << 29
    elif exponent:
        word = (exponent + 1023 - 127) << 52 | fraction << 29
    elif fraction:
        lead = fraction.bit_length() - 1
        word = (lead + 1023 - 149) << 52 | (fraction << (52 - lead)) & _FRACTION_52
    else:
        word = 0
    return float(_DOUBLE.unpack(_WORD.pack(word | (pattern >> 31) << 63))[0])


def _pattern_of_double(word: int) -> int:
    """The binary32 pattern of one double (its bits *word*) that is a binary32 value."""
    sign = (word >> 63) << 31
    exponent, fraction = (word >> 52) & 0x7FF, word & _FRACTION_52
    if exponent == 0x7FF:
        return sign | 0xFF << 23 | fraction >> 29
    if exponent == 0:
        return sign
    unbiased = exponent - 1023
    if unbiased >= -126:
        return sign | (unbiased + 127) << 23 | fraction >> 29
    return sign | (fraction | 1 << 52) >> (52 - (unbiased + 149))


def _floor_log2(n: np.ndarray) -> np.ndarray:
    """floor(log2(n)) of positive integers below 2**32 (uint64), by shifts only."""
    top = np.zeros(n.shape, dtype=_U)
    rest = n.copy()
    for step in (16, 8, 4, 2, 1):
        wide = rest >= _U(1 << step)
        top += np.where(wide, _U(step), _U(0))
        rest = np.where(wide, rest >> _U(step), rest)
    return top


def float32_values(bits: np.ndarray) -> list[float]:
    """The Python floats of binary32 patterns (a 1-D uint32 array), built bit by bit.

    Every double is assembled from the pattern's sign, exponent and fraction with
    integer operations (a subnormal's leading bit found by shifts), so no
    floating-point instruction runs: the result is the same under flush-to-zero,
    denormals-are-zero or any rounding mode.  A NaN keeps its sign and payload in
    the double's top fraction bits; a signalling NaN pattern gives a
    :class:`oracle.binary32.SignallingNaN`.
    """
    if len(bits) <= _SMALL:
        return [_value_of_pattern(int(pattern)) for pattern in bits.tolist()]
    b = np.asarray(bits, dtype=np.uint32).astype(_U)
    sign = (b >> _U(31)) << _U(63)
    exponent = (b >> _U(23)) & _U(0xFF)
    fraction = b & _U(0x7FFFFF)
    out = ((exponent + _U(1023 - 127)) << _U(52)) | (fraction << _U(29))
    out = np.where(exponent == _U(0xFF), (_U(0x7FF) << _U(52)) | (fraction << _U(29)), out)
    zero_exponent = exponent == _U(0)
    if zero_exponent.any():
        subnormal = zero_exponent & (fraction != _U(0))
        lead = _floor_log2(np.where(subnormal, fraction, _U(1)))  # value 2**(lead-149) * ...
        below = (fraction << (_U(52) - lead)) & _U((1 << 52) - 1)
        tiny = ((lead + _U(1023 - 149)) << _U(52)) | below
        out = np.where(subnormal, tiny, np.where(zero_exponent, _U(0), out))
    values: list[float] = (out | sign).view(np.float64).tolist()
    quiet_field = b & _U(0x7FC00000)
    signalling = np.flatnonzero((quiet_field == _U(0x7F800000)) & ((b & _U(0x3FFFFF)) != _U(0)))
    for flat in signalling.tolist():
        values[flat] = binary32.SignallingNaN(int(b[flat]))
    return values


def float32_bits(doubles: np.ndarray) -> np.ndarray:
    """The binary32 patterns (uint32) of float64 values that are binary32 values,
    computed from the doubles' bits with integer operations only (a NaN keeps its sign
    and the top 23 bits of its payload; a signalling NaN's own pattern is not known
    here: :class:`oracle.binary32.SignallingNaN` values carry it)."""
    d = np.ascontiguousarray(doubles, dtype=np.float64).reshape(-1).view(_U)
    if d.size <= _SMALL:
        return np.array([_pattern_of_double(int(x)) for x in d.tolist()], dtype=np.uint32)
    sign = (d >> _U(63)) << _U(31)
    exponent = ((d >> _U(52)) & _U(0x7FF)).astype(np.int64)
    fraction = d & _U((1 << 52) - 1)
    unbiased = exponent - 1023
    normal = (np.clip(unbiased + 127, 0, 255).astype(_U) << _U(23)) | (fraction >> _U(29))
    shift = np.clip(52 - (unbiased + 149), 0, 63).astype(_U)
    subnormal = (fraction | _U(1 << 52)) >> shift
    out = np.where(unbiased >= -126, normal, subnormal)
    out = np.where(exponent == 0x7FF, _U(0xFF << 23) | (fraction >> _U(29)), out)
    out = np.where(exponent == 0, _U(0), out)
    return (out | sign).astype(np.uint32)
