"""A realistic outside backend for the triage tests: the CPU backend, wrapped.

``SizeZeroRefusing`` behaves like a library that rejects dimensions of size
0: every call with a size-0 tensor argument (or a size-0 result) raises a
clear ValueError.  It also carries three injected faults in three different
operations, one of each kind a wrapper can get wrong:

* ``floor`` loses the sign of zero results (``floor(-0.0)`` is +0): a wrong
  value, class ``wrong-value:signed-zero``;
* ``exp`` evaluates ``numpy.exp`` with numpy's default error handling, so an
  overflowing input emits ``RuntimeWarning: overflow encountered in exp``
  (the result itself is right): class ``warning:overflow``;
* ``sqrt`` writes its result into its input array (the result is right):
  class ``input-modified``.

``Faithful`` is the same wrapper without any fault and without the size-0
refusal (the control).  Both are given to plancheck by import path
(``faulty_backend:SizeZeroRefusing``) with this directory on ``sys.path``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import backends

#: the operations with an injected fault
FAULTY_OPERATIONS = ("floor", "exp", "sqrt")


class Faithful:
    """The CPU backend behind a wrapper (no fault): the control."""

    name = "faithful-cpu"

    def __init__(self) -> None:
        self._cpu = backends.get("cpu")

    def from_tensor(self, tensor: Any) -> Any:
        return self._cpu.from_tensor(tensor)

    def to_tensor(self, native: Any) -> Any:
        return self._cpu.to_tensor(native)

    def execute(self, operation: str, *args: Any, **options: Any) -> Any:
        return self._cpu.execute(operation, *args, **options)


def _same_shape(argument: Any, result: Any) -> bool:
    return isinstance(argument, np.ndarray) and argument.shape == result.shape


class SizeZeroRefusing(Faithful):
    """Refuses size-0 tensors; floor, exp and sqrt carry one fault each."""

    name = "size-zero-refusing"

    def execute(self, operation: str, *args: Any, **options: Any) -> Any:
        if any(isinstance(a, np.ndarray) and a.size == 0 for a in args):
            raise ValueError(f"{operation}: this library does not support dimensions of size 0")
        result = super().execute(operation, *args, **options)
        if isinstance(result, np.ndarray) and result.size == 0:
            raise ValueError(f"{operation}: this library does not support dimensions of size 0")
        if operation == "floor" and result.dtype == np.float32:
            result = np.where(result == 0, np.float32(0.0), result)  # -0 becomes +0
        elif operation == "exp" and isinstance(args[0], np.ndarray):
            with np.errstate(all="warn"):
                np.exp(args[0])  # numpy's default error handling: warns on overflow
        elif operation == "sqrt" and _same_shape(args[0], result):
            args[0][...] = result  # overwrites the caller's input
        return result
