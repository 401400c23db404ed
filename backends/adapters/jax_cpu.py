"""JAX: every plan mapped onto ``jax.numpy``, ``jax.nn`` and ``jax.lax``.

``backends.get("jax")`` or ``"jax:cpu"`` (the first CPU device) and
``"jax:gpu"`` (the first GPU device; an absent one is a
:class:`~backends.errors.BackendLoadError`), from the optional extra
``plancheck[jax]``; importing this module without jax installed raises
ImportError, which ``backends.get`` turns into a BackendLoadError naming the
extra.  The kernel table is
:mod:`backends.adapters.array_namespace` with ``xp = jax.numpy``, where jax
has a function of its own for an activation it is used instead of the
formula: ``jax.nn.sigmoid silu softplus elu relu leaky_relu(x, 0.01)
gelu(x, approximate=False)``, ``jax.lax.rsqrt`` and ``jax.scipy.special.erf``.

Native values: ``jax.Array`` of float32, int32 or bool, placed on the
backend's device by :meth:`JaxBackend.from_tensor`.  Nothing is configured: JAX's
defaults hold, in particular ``jax_enable_x64`` is off, so the library has no
64-bit types at all.

What JAX has no direct equivalent for, and what is written instead:

* checked Int32 arithmetic: int32 ``jnp`` functions, ``jnp.matmul`` and
  ``jnp.sum(dtype=int32)`` wrap (expected: OverflowError);
* a Float64 accumulator: ``jnp.sum(x, dtype=jnp.float64)`` and
  ``jnp.matmul(a, b, preferred_element_type=jnp.float64)`` -- with x64 off
  JAX truncates the request to float32 with a UserWarning, so the plan's
  Float64 accumulation is not honoured;
* weak scalars: JAX's own weak types; a Python int outside int32 raises
  OverflowError from JAX even where the plan is Float32;
* ``conv_general``: ``jax.lax.conv_general_dilated`` with its default
  (NCH..., OIH...) layout -- XLA chooses the order of the sum;
* ``scatter``/``scatter_add``: ``base.at[..., indices, ...].set/add(updates)``
  (negative indices wrap, out-of-range ones are dropped, duplicates are not
  an error);
* ``gather``: ``jnp.take`` (its default mode fills out-of-range positions
  with NaN instead of raising IndexError);
* sort: ``jnp.sort``/``jnp.argsort(stable=True, descending=...)``; topk:
  ``jax.lax.top_k(x, k, axis=axis)``, its values and indices.  ``lax.top_k``
  has no smallest-k: ``largest=False`` (or any value but True) is
  NotMeasured, and the backend declares the feature ``topk-smallest``
  unsupported, so the suite does not judge those calls (``top_k`` of ``-x``
  would measure the adapter's negation, not JAX).

Every parameter (axes, ``keepdims``, ``k``, flags, the conv tuples) reaches
JAX as the caller gave it, and JAX's own exception for a bad one propagates;
scatter's axis is judged by ``jnp.moveaxis`` before it becomes an index
(docs/adapter-policy.md).  The adapter composes nothing:
``composed_operations`` is empty, every activation being jax's own function.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import jax.scipy.special
import numpy as np

from oracle import OperationPlan, Tensor

from ..dispatch import Kernel
from ..errors import BackendLoadError, NotMeasured
from .array_namespace import KERNELS, ArrayNamespaceBackend
from .translate import bool_flag

__all__ = ["JaxBackend"]


def _library_unary(function: Any, name: str) -> Kernel:
    def kernel(backend: ArrayNamespaceBackend, plan: OperationPlan, a: Any) -> Any:
        x = backend.operand(plan, 0, a)
        return backend.run(function, x)

    kernel.__name__ = name
    return kernel


def _gelu(x: Any) -> Any:
    return jax.nn.gelu(x, approximate=False)


def _leaky_relu(x: Any) -> Any:
    return jax.nn.leaky_relu(x, negative_slope=0.01)


#: jax's own functions for the activations (over the shared formulas)
JAX_KERNELS: dict[str, Kernel] = {
    **KERNELS,
    "sigmoid": _library_unary(jax.nn.sigmoid, "sigmoid"),
    "silu": _library_unary(jax.nn.silu, "silu"),
    "softplus": _library_unary(jax.nn.softplus, "softplus"),
    "elu": _library_unary(jax.nn.elu, "elu"),
    "relu": _library_unary(jax.nn.relu, "relu"),
    "leaky_relu": _library_unary(_leaky_relu, "leaky_relu"),
    "gelu": _library_unary(_gelu, "gelu"),
    "rsqrt": _library_unary(jax.lax.rsqrt, "rsqrt"),
    "erf": _library_unary(jax.scipy.special.erf, "erf"),
}


class JaxBackend(ArrayNamespaceBackend):
    """jax.numpy/jax.lax with JAX's defaults on one device.

    *device* is ``"cpu"`` (backend name ``"jax"``) or ``"gpu"`` (backend name
    ``"jax:gpu"``): the first device of that platform.
    """

    name = "jax"
    xp = jnp
    kernels = JAX_KERNELS
    library = "jax"
    version = jax.__version__
    #: jax's own functions for every operation: nothing is composed
    composed_operations: ClassVar[Mapping[str, str]] = {}
    #: jax.lax.top_k has no smallest-k (module docstring)
    unsupported: ClassVar[set[str]] = {"topk-smallest"}

    def __init__(self, device: str = "cpu") -> None:
        super().__init__()
        if device not in ("cpu", "gpu"):
            raise ValueError(f"the jax backend runs on 'cpu' or 'gpu', not {device!r}")
        try:
            self.device = jax.devices(device)[0]
        except RuntimeError as error:  # jax's "Unknown backend" / no such platform
            raise BackendLoadError(
                f"jax:{device}: jax {jax.__version__} has no {device} device ({error}); "
                f"use jax:cpu, or install jax with GPU support (see jax's install guide)"
            ) from error
        if device != "cpu":
            self.name = f"jax:{device}"

    def is_native(self, value: Any) -> bool:
        return isinstance(value, jax.Array)

    def from_tensor(self, tensor: Tensor) -> Any:
        if not isinstance(tensor, Tensor):
            raise TypeError(f"expected an oracle.Tensor, got {type(tensor).__name__}")
        return jax.device_put(tensor.to_numpy(), self.device)

    def from_numpy(self, array: np.ndarray) -> Any:
        """The optional fast exchange (``backends/protocol.py``), bits kept."""
        return jax.device_put(np.array(array, copy=True), self.device)

    def to_numpy(self, native: Any) -> np.ndarray:
        if not isinstance(native, jax.Array):
            raise TypeError(f"expected a jax.Array, got {type(native).__name__}")
        return np.asarray(native)

    # -- hooks ------------------------------------------------------------------

    def erf(self, x: Any) -> Any:
        return jax.scipy.special.erf(x)

    def matmul_float64(self, a: Any, b: Any) -> Any:
        return jnp.matmul(a, b, preferred_element_type=jnp.float64).astype(jnp.float32)

    def scatter(self, base: Any, index: tuple[Any, ...], updates: Any) -> Any:
        return base.at[index].set(updates)

    def scatter_add(self, base: Any, index: tuple[Any, ...], updates: Any) -> Any:
        return base.at[index].add(updates)

    def conv(self, lhs: Any, rhs: Any, strides: Any, padding: Any, lhs_dilation: Any,
             rhs_dilation: Any, groups: Any) -> Any:  # fmt: skip
        spatial = lhs.ndim - 2
        return jax.lax.conv_general_dilated(
            lhs,
            rhs,
            window_strides=strides if strides is not None else (1,) * spatial,
            padding=padding if padding is not None else ((0, 0),) * spatial,
            lhs_dilation=lhs_dilation,
            rhs_dilation=rhs_dilation,
            feature_group_count=groups,
        )

    def sort(self, x: Any, axis: Any, descending: Any, values: bool) -> Any:
        function = jnp.sort if values else jnp.argsort
        return function(x, axis=axis, stable=True, descending=descending)

    def topk(self, x: Any, k: Any, axis: Any, largest: Any, values: bool) -> Any:
        if bool_flag(largest) is not True:
            raise NotMeasured(
                f"topk: jax.lax.top_k has no smallest-k; only largest=True has a jax "
                f"spelling, not {type(largest).__name__} {largest!r:.40}: not measured"
            )
        top_values, indices = jax.lax.top_k(x, k, axis=axis)
        return top_values if values else indices
