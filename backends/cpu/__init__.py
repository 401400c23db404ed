"""The CPU backend: every plan executed with vectorised numpy.

Native values
-------------
* A *tensor* is a plain ``numpy.ndarray`` (exactly that type; subclasses
  such as masked arrays are refused) of dtype float32, int32 or bool in
  native byte order, of any shape including 0-d.  Its dtype maps to
  ``DType.Float32``, ``DType.Int32`` or ``DType.Bool``.  Any other array
  dtype (float64, int64, float16, ...) is refused with a TypeError naming the
  dtype, before planning and before any allocation.
* A *weak scalar* is a real Python number (``int``, ``float``, ``bool``,
  ``fractions.Fraction``) or a numpy scalar (``np.float32(1.5)``,
  ``np.int64(3)``, ``np.bool_``): it has no dtype of its own, the planner
  decides the branch from its value's kind, and the kernel materialises it
  once in the plan's ``convert_to`` dtype (:mod:`backends.cpu.convert`).
  Wrap a value in a 0-d array to pass a tensor instead.
* Results are always new ``numpy.ndarray`` objects (0-d arrays, never numpy
  scalars) of the plan's output dtype.

Every call runs inside ``numpy.errstate(all="ignore")``: the IEEE
exceptions (overflow, underflow, invalid, division by zero -- a signalling
NaN's invalid flag included) have the results the policy specifies and are
never signalled, so the backend is silent under ``np.seterr(all="raise")``
and ``-W error`` alike.

Every kernel is ``kernel(backend, plan, *forward_args)``, reads the plan and
never re-decides a dtype; every planning, shape, axis, parameter, index and
Int32 overflow error is raised before ``allocated()`` is called (once per
result; temporaries are not counted).  The kernels live in one module per
family: :mod:`~backends.cpu.elementwise`, :mod:`~backends.cpu.transcendental`,
:mod:`~backends.cpu.reductions`, :mod:`~backends.cpu.structured`.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from oracle import DType, OperationExecutionOptions, SimpleDType, Tensor

from ..dispatch import KernelBackend
from . import elementwise, reductions, structured, transcendental

__all__ = ["KERNELS", "CPUBackend"]

#: operation name -> kernel, every registered operation
KERNELS = {
    **elementwise.KERNELS,
    **transcendental.KERNELS,
    **reductions.KERNELS,
    **structured.KERNELS,
}

_DTYPES = {
    np.dtype(np.float32): DType.Float32,
    np.dtype(np.int32): DType.Int32,
    np.dtype(np.bool_): DType.Bool,
}


class CPUBackend(KernelBackend):
    """Vectorised numpy execution of the central plans (backend name ``"cpu"``)."""

    name = "cpu"
    kernels = KERNELS

    def __init__(self) -> None:
        super().__init__()
        #: the out of an ``execute_into`` in progress, per thread (see :meth:`take_out`)
        self._pending = threading.local()

    def dtype_of(self, value: Any) -> DType | None:
        """The dtype of a native tensor; None for anything that is not an array.

        An ndarray of another dtype, another byte order or an ndarray
        subclass is a TypeError.
        """
        if not isinstance(value, np.ndarray):
            return None
        if type(value) is not np.ndarray:
            raise TypeError(f"the cpu backend takes plain numpy arrays, not {type(value).__name__}")
        dtype = _DTYPES.get(value.dtype)
        if dtype is None or not value.dtype.isnative:
            raise TypeError(
                f"the cpu backend holds float32, int32 and bool arrays; got an array of "
                f"dtype {value.dtype.str!r} ({value.dtype})"
            )
        return dtype

    def execute(
        self,
        operation: str,
        *args: Any,
        accumulator_dtype: SimpleDType | None = None,
        options: OperationExecutionOptions | None = None,
    ) -> Any:
        """The central plan executed by this backend's kernel, IEEE flags unsignalled."""
        with np.errstate(all="ignore"):
            return super().execute(
                operation, *args, accumulator_dtype=accumulator_dtype, options=options
            )

    def execute_into(
        self,
        operation: str,
        *args: Any,
        out: np.ndarray,
        accumulator_dtype: SimpleDType | None = None,
        options: OperationExecutionOptions | None = None,
    ) -> np.ndarray:
        """``execute`` with the result written into the array *out*, which is returned
        (the optional ``ExecuteInto`` of backends/protocol.py; the exhaustive sweep's
        host passes the shared memory its judge reads).

        *out* must be a plain, writeable, C-contiguous array of the result's dtype and
        shape that shares no memory with an array operand: TypeError for anything that
        is not one of this backend's arrays, ValueError otherwise -- raised before
        anything is written into *out* (these checks come before the call is planned).  A kernel
        that does not build its result in a buffer of its own computes it as
        ``execute`` does and it is copied into *out*.
        """
        self.dtype_of(out)  # TypeError for anything but a cpu array
        if not isinstance(out, np.ndarray):
            raise TypeError(f"out must be a numpy array, not {type(out).__name__}")
        if not (out.flags.writeable and out.flags.c_contiguous):
            raise ValueError("out must be a writeable C-contiguous array")
        if any(isinstance(a, np.ndarray) and np.shares_memory(a, out) for a in args):
            raise ValueError("out shares memory with an operand: pass a separate array")
        self._pending.out = out
        try:
            result = self.execute(
                operation, *args, accumulator_dtype=accumulator_dtype, options=options
            )
        finally:
            self._pending.out = None
        if result is not out:
            elementwise.check_out(out, result.dtype, result.shape)
            np.copyto(out, result)
        return out

    def take_out(self) -> np.ndarray | None:
        """The *out* of the ``execute_into`` call in progress on this thread, handed to
        the first result allocation of its kernel (:func:`elementwise.new_array`) and
        then no more; None when there is none."""
        out = getattr(self._pending, "out", None)
        self._pending.out = None
        return out

    def from_tensor(self, tensor: Tensor) -> np.ndarray:
        if not isinstance(tensor, Tensor):
            raise TypeError(f"expected an oracle.Tensor, got {type(tensor).__name__}")
        return tensor.to_numpy()

    def from_numpy(self, array: np.ndarray) -> np.ndarray:
        """The optional fast exchange (``backends/protocol.py``): arrays are native here."""
        return array

    def to_numpy(self, native: Any) -> np.ndarray:
        return np.asarray(native)

    def to_tensor(self, native: Any) -> Tensor:
        if not isinstance(native, np.ndarray):
            raise TypeError(f"expected a numpy array, got {type(native).__name__}")
        self.dtype_of(native)
        return Tensor.from_numpy(native)
