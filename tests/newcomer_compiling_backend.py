"""A backend that "compiles" on first use, for tests/test_newcomer_first_call.py.

The correct ``cpu`` backend, except that the first call of each new call
signature in a process (the operation, and each argument's dtype and rank or
Python type: what numba compiles for) sleeps ``$COMPILE_SECONDS`` (default 2 s)
before computing, as a JIT compiling a kernel would.  ``Compiling`` declares a
first-call allowance; ``Undeclared`` is the same library without the declaration.
"""

from __future__ import annotations

import os
import time
from typing import Any, ClassVar

import numpy as np

import backends


def _key(operation: str, args: tuple[Any, ...]) -> tuple[Any, ...]:
    return (operation, *((a.dtype.str, a.ndim) if isinstance(a, np.ndarray) else type(a).__name__
                         for a in args))  # fmt: skip


class Undeclared:
    """cpu, with a compile pause on the first call of each signature."""

    name = "compiling"
    version = "compiling 1.0"

    def __init__(self) -> None:
        self.cpu = backends.get("cpu")
        self.compiled: set[tuple[Any, ...]] = set()

    @property
    def allocations(self) -> int:
        return self.cpu.allocations

    def from_tensor(self, tensor: Any) -> Any:
        return self.cpu.from_tensor(tensor)

    def to_tensor(self, native: Any) -> Any:
        return self.cpu.to_tensor(native)

    def execute(self, operation: str, *args: Any, **keywords: Any) -> Any:
        key = _key(operation, args)
        if key not in self.compiled:
            time.sleep(float(os.environ.get("COMPILE_SECONDS", "2")))
            self.compiled.add(key)
        return self.cpu.execute(operation, *args, **keywords)


class Compiling(Undeclared):
    """The same, declaring what the pause needs."""

    first_call_allowance: ClassVar[float] = 30.0
