"""The backend protocol: what the conformance suite drives, as a typed ``Protocol``.

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

Optional fast exchange (:class:`NumpyExchange`): a backend may also have
``from_numpy(array) -> native`` and ``to_numpy(native) -> numpy.ndarray``
(float32/int32/bool arrays, bits kept, signalling NaNs included).  The
exhaustive sweep (``plancheck exhaustive``) uses them when present instead of
going through :class:`oracle.Tensor`, which holds Float32 values as Python
objects (exact bits, a signalling NaN as :class:`oracle.binary32.SignallingNaN`,
but slow for 2**20 elements at a time).

Optional result buffer (:class:`ExecuteInto`): a backend with the numpy exchange
may also have ``execute_into(operation, *args, out, accumulator_dtype=None,
options=None) -> native``, ``execute`` with the result written into the native
tensor *out* (of the result's dtype and shape, sharing memory with no operand),
returning *out*.  The exhaustive sweep's host then gives the backend
``from_numpy`` of the shared memory the judge reads (for the CPU backend: the
array itself), so the result is never copied there; whatever the backend
returns is read as its result, so one that ignores *out* is judged the same,
only slower.

Keeping bits through the Tensor exchange: read ``tensor.to_numpy()`` or
``tensor.bits()`` (never ``float(v)`` or a float64 array of ``tensor.values``,
which quiet a signalling NaN), and build results with ``Tensor.from_numpy``
or ``Tensor.from_bits``.

Checking your class against the protocol
----------------------------------------

:class:`Backend` is generic in the backend's native tensor type: ``Backend[N]``
says that ``from_tensor`` returns an ``N``, ``to_tensor`` takes one and
``execute`` returns one.  plancheck ships type hints (``py.typed``), so a type
checker (mypy, pyright) verifies a backend where it is assigned to the
protocol, before any test runs::

    from backends.protocol import Backend

    class MyBackend:
        name = "mine"
        def from_tensor(self, tensor: Tensor) -> MyTensor: ...
        def to_tensor(self, native: MyTensor) -> Tensor: ...
        def execute(self, operation: str, *args: Any,
                    accumulator_dtype: SimpleDType | None = None,
                    options: OperationExecutionOptions | None = None) -> MyTensor: ...

    backend: Backend[MyTensor] = MyBackend()  # the checker reports a missing or
                                              # mistyped member on this line

``name`` is declared as a read-only property, so a class attribute, an instance
attribute or a property all satisfy it.  ``execute`` must accept the two
keywords even when the backend ignores them (a backend that has no configurable
accumulator still receives ``accumulator_dtype=None``).  A class that also
offers the fast exchange can be assigned to ``NumpyExchange[MyTensor]``.

At run time :func:`isinstance` against either protocol checks only that the
members exist (``runtime_checkable``): :func:`backends.get` uses it to refuse an
object that is no backend.  ``tests/typing_backend_protocol.py`` is the
repository's own check that the CPU and Generic backends satisfy the protocol.

Errors of :func:`backends.get` itself (an unknown name, an absent library or
device) are described in :mod:`backends`.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from oracle import OperationExecutionOptions, SimpleDType, Tensor

__all__ = ["Backend", "ExecuteInto", "NativeT", "NumpyExchange"]

#: a backend's native tensor type (``numpy.ndarray`` for the CPU backend,
#: :class:`~backends.generic.tensor.GenericTensor` for Generic)
NativeT = TypeVar("NativeT")


@runtime_checkable
class Backend(Protocol[NativeT]):
    """Structural type of a backend whose native tensors are ``NativeT`` (see the
    module docstring).  A bare ``Backend`` is ``Backend[Any]``."""

    @property
    def name(self) -> str:
        """The backend's name, shown in every report."""
        ...

    def from_tensor(self, tensor: Tensor) -> NativeT:
        """*tensor* as a native tensor, bit for bit."""
        ...

    def to_tensor(self, native: NativeT) -> Tensor:
        """A native result as an :class:`oracle.Tensor` (TypeError for anything that
        is not one of this backend's tensors)."""
        ...

    def execute(
        self,
        operation: str,
        *args: Any,
        accumulator_dtype: SimpleDType | None = None,
        options: OperationExecutionOptions | None = None,
    ) -> NativeT:
        """Run *operation* on its full forward arguments by the central plan."""
        ...


@runtime_checkable
class NumpyExchange(Protocol[NativeT]):
    """The optional fast exchange of a backend with ``NativeT`` tensors: numpy
    float32, int32 or bool arrays, bits kept (signalling NaNs included)."""

    def from_numpy(self, array: np.ndarray) -> NativeT:
        """*array* as a native tensor, bit for bit."""
        ...

    def to_numpy(self, native: NativeT) -> np.ndarray:
        """A native tensor as a numpy array, bit for bit."""
        ...


@runtime_checkable
class ExecuteInto(Protocol[NativeT]):
    """The optional result buffer of a backend with ``NativeT`` tensors: ``execute``
    writing into a tensor the caller owns (see the module docstring)."""

    def execute_into(
        self,
        operation: str,
        *args: Any,
        out: NativeT,
        accumulator_dtype: SimpleDType | None = None,
        options: OperationExecutionOptions | None = None,
    ) -> NativeT:
        """*operation* on its forward arguments by the central plan, the result written
        into *out* and *out* returned.  The errors of ``execute``, and TypeError or
        ValueError when *out* is not a tensor of the result's dtype and shape or shares
        memory with an operand, raised before anything is written into *out*."""
        ...
