"""The backend protocol: what the conformance suite drives.

A backend is any object with these four members (no base class needed)::

    name: str
    from_tensor(tensor: oracle.Tensor) -> native
    to_tensor(native) -> oracle.Tensor
    execute(operation, *args, accumulator_dtype=None, options=None) -> native

``execute`` receives the operation's full forward arguments: native tensors,
weak Python scalars and non-dtype parameters (axes, ``k``, flags, conv
strides ...).  It must obtain its plan from the central planner
(:func:`oracle.resolve_operation_plan`, most simply through
:class:`backends.dispatch.KernelBackend`), raise exactly what the planner
raises, and raise every planning, shape and index error before it allocates a
result.  A backend may expose ``allocations`` (an int that grows with every
result allocation) so tests can prove that errors come first.

Optional fast exchange: a backend may also have ``from_numpy(array) ->
native`` and ``to_numpy(native) -> numpy.ndarray`` (float32/int32/bool arrays,
bits kept, signalling NaNs included).  The exhaustive sweep
(``plancheck exhaustive``) uses them when present instead of going through
:class:`oracle.Tensor`, which holds Float32 values as Python objects (exact
bits, a signalling NaN as :class:`oracle.binary32.SignallingNaN`, but slow for
2**20 elements at a time).

Keeping bits through the Tensor exchange: read ``tensor.to_numpy()`` or
``tensor.bits()`` (never ``float(v)`` or a float64 array of ``tensor.values``,
which quiet a signalling NaN), and build results with ``Tensor.from_numpy``
or ``Tensor.from_bits``.

Errors of :func:`backends.get` itself (an unknown name, an absent library or
device) are described in :mod:`backends`.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from oracle import OperationExecutionOptions, SimpleDType, Tensor

__all__ = ["Backend"]


@runtime_checkable
class Backend(Protocol):
    """Structural type of a backend (see the module docstring)."""

    name: str

    def from_tensor(self, tensor: Tensor) -> Any: ...

    def to_tensor(self, native: Any) -> Tensor: ...

    def execute(
        self,
        operation: str,
        *args: Any,
        accumulator_dtype: SimpleDType | None = None,
        options: OperationExecutionOptions | None = None,
    ) -> Any: ...
