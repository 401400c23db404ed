"""The shipped backends against :mod:`backends.protocol`, as a user's type checker sees them.

Not a test module: ``tests/test_typing_check.py`` runs mypy on it (an error here fails
that test).  Each assignment is the check that the class satisfies the protocol at
these native types; importing it (pytest's doctest collection does) only builds the
backends.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import backends
from backends.cpu import CPUBackend
from backends.generic import GenericBackend
from backends.generic.tensor import GenericTensor
from backends.protocol import Backend, ExecuteInto, NumpyExchange
from oracle import DType, Tensor

cpu: Backend[np.ndarray] = CPUBackend()
cpu_exchange: NumpyExchange[np.ndarray] = CPUBackend()
cpu_into: ExecuteInto[np.ndarray] = CPUBackend()
generic: Backend[GenericTensor] = GenericBackend()
loaded: Backend[Any] = backends.get("generic")


def round_trip(backend: Backend[Any], tensor: Tensor) -> Tensor:
    """What the suite does with any backend: in, one operation, out."""
    return backend.to_tensor(backend.execute("neg", backend.from_tensor(tensor)))


def generic_round_trip(tensor: Tensor) -> Tensor:
    native: GenericTensor = generic.from_tensor(tensor)
    return generic.to_tensor(generic.execute("neg", native, accumulator_dtype=None))


def cpu_chunk(array: np.ndarray) -> np.ndarray:
    return cpu_exchange.to_numpy(cpu.execute("neg", cpu_exchange.from_numpy(array)))


def cpu_chunk_into(array: np.ndarray, out: np.ndarray) -> np.ndarray:
    """The sweep's host: the result written into memory the caller owns."""
    return cpu_into.execute_into("neg", array, out=out)


EXAMPLE = Tensor(DType.Float32, (1,), (1.5,))
