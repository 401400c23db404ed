"""Outside backends for tests/test_shipping_known_classes.py: the cpu backend but for one
operation, which kills its own process on one invalid call (``Aborts``: ``reduce_sum``
of a 2x3 tensor with an int ``keepdims``, as Paddle does; the invalid calls' last one, so
that no check measuring coverage is cut short) or raises on every call (``NoExp2``:
``exp2``, as a library without that function)."""

import os
from typing import Any, ClassVar

from backends.cpu import KERNELS, CPUBackend


class Aborts(CPUBackend):
    name = "aborts"

    def execute(self, operation: str, *args: Any, **options: Any) -> Any:
        keepdims = args[2] if len(args) > 2 else False  # (x, axis, keepdims)
        shape = getattr(args[0], "shape", None) if args else None
        if operation == "reduce_sum" and shape == (2, 3) and not isinstance(keepdims, bool):
            os.abort()
        return super().execute(operation, *args, **options)


def _no_exp2(backend, plan, x):
    raise NotImplementedError("this library has no exp2")


class NoExp2(CPUBackend):
    name = "noexp2"
    kernels: ClassVar[dict[str, Any]] = {**KERNELS, "exp2": _no_exp2}
