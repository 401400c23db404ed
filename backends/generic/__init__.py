"""Generic: the pure-Python executable reference backend.

Generic executes the central plan of every registered operation with plain
Python arithmetic -- no numpy in its arithmetic -- so that a reader can check
each operation's rule in one short function:

* Float32: binary32 at every step (:mod:`.binary32` rounds exact values once);
* Int32: exact integers, narrowed and checked where the plan says
  (OverflowError, never wrapping);
* Bool: Python bools.

Result tensors report the plan's output dtype; ``differentiable`` is true
exactly for Float32.  Kernels live in one module per operation family
(:mod:`.elementwise`, :mod:`.transcendental`, :mod:`.reductions`,
:mod:`.structured`); every planning, shape, parameter and index error is
raised before a result is allocated.  A call too large to evaluate in pure
Python is refused with :class:`~.limits.GenericLimitError` under the
oracle's limits (:mod:`.limits`).  See ``docs/backend-generic.md``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from oracle import DType, OperationPlan, Tensor

from ..dispatch import KernelBackend
from . import elementwise, reductions, structured, transcendental
from .limits import GenericLimitError, check_operand_extents
from .tensor import GenericTensor

__all__ = ["KERNELS", "GenericBackend", "GenericLimitError", "GenericTensor"]

#: operation name -> kernel(backend, plan, *forward_args)
KERNELS = {
    **elementwise.KERNELS,
    **transcendental.KERNELS,
    **reductions.KERNELS,
    **structured.KERNELS,
}


class GenericBackend(KernelBackend):
    """The reference backend: central plans executed by pure-Python kernels."""

    name = "generic"
    kernels = KERNELS

    def dtype_of(self, value: Any) -> DType | None:
        return value.dtype if isinstance(value, GenericTensor) else None

    def check_operands(self, plan: OperationPlan, args: tuple[Any, ...]) -> None:
        """Refuse a tensor whose non-zero extents span more than the limit (:mod:`.limits`)."""
        for position, value in enumerate(args):
            if isinstance(value, GenericTensor):
                check_operand_extents(plan.operation, position, value.shape)

    def from_tensor(self, tensor: Tensor) -> GenericTensor:
        if not isinstance(tensor, Tensor):
            raise TypeError(f"expected an oracle.Tensor, got {type(tensor).__name__}")
        return GenericTensor.from_tensor(tensor)

    def to_tensor(self, native: GenericTensor) -> Tensor:
        if not isinstance(native, GenericTensor):
            raise TypeError(f"expected a GenericTensor, got {type(native).__name__}")
        return native.to_tensor()

    def result(
        self, plan: OperationPlan, shape: tuple[int, ...], values: Iterable[Any]
    ) -> GenericTensor:
        """Allocate the result: the plan's output dtype, *shape*, *values*."""
        self.allocated()
        return GenericTensor(plan.output, tuple(shape), tuple(values))
