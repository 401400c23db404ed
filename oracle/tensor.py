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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import binary32
from .dtypes import INT32_MAX, INT32_MIN, DType, SimpleDType
from .errors import describe, integer_text, shape_text
from .limits import OracleLimitError, check_operand_extents

__all__ = ["INT32_MAX", "INT32_MIN", "MAX_NDIM", "TENSOR_DTYPES", "Tensor", "unravel_index"]

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

        Float32 elements keep their exact patterns, signalling NaNs included.
        """
        array = np.asarray(array)
        if array.dtype == TENSOR_DTYPES[DType.Float32]:
            values = array.ravel(order="C").tolist()
            bits = np.ascontiguousarray(array).view(np.uint32).ravel(order="C")
            quiet_field = bits & np.uint32(0x7FC00000)  # exponent and quiet bit
            signalling = np.flatnonzero(
                (quiet_field == np.uint32(0x7F800000)) & ((bits & np.uint32(0x003FFFFF)) != 0)
            )
            for flat in signalling.tolist():
                values[flat] = binary32.SignallingNaN(int(bits[flat]))
            return cls(DType.Float32, array.shape, tuple(values))
        for dtype, storage in TENSOR_DTYPES.items():
            if array.dtype == storage:
                return cls(dtype, array.shape, tuple(array.ravel(order="C").tolist()))
        raise TypeError(f"no Tensor dtype for numpy dtype {array.dtype}")

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
            bits = np.array([binary32.to_bits(v) for v in self.values], dtype=np.uint32)
            return bits.view(np.float32).reshape(self.shape)
        return np.array(self.values, dtype=storage).reshape(self.shape)

    def bits(self) -> tuple[int, ...]:
        """Each element's bit pattern: binary32 bits, Int32 two's complement, Bool 0/1."""
        if self.dtype is DType.Float32:
            return tuple(binary32.to_bits(v) for v in self.values)
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
