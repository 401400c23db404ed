"""``GenericTensor``: Generic's native tensor, a dtype, a shape and flat values."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from oracle import DType, Tensor

__all__ = ["GenericTensor"]


@dataclass(frozen=True, eq=False)
class GenericTensor:
    """An immutable dtype descriptor, shape and flat row-major tuple of values.

    Values are Python floats holding binary32 values (Float32), Python ints
    (Int32) or Python bools (Bool).  Any DType descriptor may be stored --
    ``DType.Any`` or ``DType.Int8`` included -- so that the central planner,
    not this class, is what refuses an operand dtype.  Compare tensors through
    :meth:`to_tensor` (bit equality); ``==`` is identity.
    """

    dtype: DType
    shape: tuple[int, ...]
    values: tuple[Any, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.dtype, DType):
            raise TypeError(f"dtype must be a DType descriptor, got {self.dtype!r}")
        shape = tuple(self.shape)
        if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape):
            raise ValueError(f"shape must be non-negative ints, got {self.shape!r}")
        values = tuple(self.values)
        if len(values) != math.prod(shape):
            raise ValueError(f"shape {shape} needs {math.prod(shape)} values, got {len(values)}")
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "values", values)

    @property
    def differentiable(self) -> bool:
        """The framework's autograd rule: true exactly for a Float32 result."""
        return self.dtype is DType.Float32

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @classmethod
    def from_tensor(cls, tensor: Tensor) -> GenericTensor:
        return cls(tensor.dtype, tensor.shape, tensor.values)

    def to_tensor(self) -> Tensor:
        """The exchange form (which validates every value against the dtype)."""
        return Tensor(self.dtype, self.shape, self.values)  # type: ignore[arg-type]
