"""numpy itself: every plan mapped straight onto numpy's float32/int32 functions.

``backends.get("numpy-native")``.  The measurement of *numpy*, not of
plancheck's CPU backend (``backends.cpu``, which uses numpy too but emulates
every rule it lacks).  The kernel table is
:mod:`backends.adapters.array_namespace` with ``xp = numpy``; the unary
mapping is the one of :func:`conformance.exhaustive.numpy_float32`, the raw
ufuncs of the accuracy tables.

Native values: ``numpy.ndarray`` of float32, int32 or bool (another dtype is
a TypeError before planning); a numpy ufunc applied to 0-d arrays returns a
numpy scalar, which is accepted as a 0-d result.  Every call runs inside
``numpy.errstate(all="ignore")``: the policy forbids warnings on IEEE
exceptions, and the flag state changes no value.

The parameters (axes, ``keepdims``, ``k``, flags) reach numpy as the caller
gave them, and numpy's own exception for a bad one (``AxisError``,
``TypeError``, ``ValueError``) propagates (docs/adapter-policy.md).

What numpy has no direct equivalent for, and what is written instead.  The
operations numpy has no function for at all are *composed* from numpy calls and
declared in ``composed_operations`` (:data:`COMPOSED`), so the judge reports
their classes as the adapter's composition, not numpy's: ``rsqrt``, the
activations ``sigmoid silu softplus elu relu leaky_relu gelu`` (the shared
formulas, :data:`~backends.adapters.array_namespace.FORMULAS`), ``erf``
(scipy's), ``conv_general`` and top-k.

* checked Int32 arithmetic: numpy's int32 ufuncs, ``matmul`` and
  ``sum(dtype=int32)`` wrap modulo 2**32 (expected: OverflowError);
* a weak Python int in a Float32 plan: numpy's own NEP 50 conversion; an int
  beyond float64's range raises OverflowError from numpy;
* ``reduce_sum``/``matmul`` with a Float64 accumulator: ``numpy.sum(x,
  dtype=float64)`` and ``numpy.matmul(a, b, dtype=float64)`` (float64 dgemm:
  the products are exact, not rounded to binary32 first), narrowed with
  ``astype(float32)``;
* ``erf``: numpy has none; ``scipy.special.erf`` (a numpy ufunc with a
  float32 loop, a plancheck dependency) -- scipy's, so declared composed;
  ``gelu`` is ``0.5 x (1 + erf(x / sqrt 2))`` in float32;
* ``conv_general``: numpy has no convolution; composed (declared): zeros
  inserted for ``lhs_dilation``, ``numpy.pad`` (a negative padding crops),
  ``sliding_window_view``, ``numpy.split`` into the groups and one
  ``numpy.tensordot`` over (input channel, window) per group (a BLAS sgemm:
  its own order, FMA where the CPU has it).  Its classes (the survey's
  ``conv_general@wrong-value:1-ulp``) are the tensordot composition's; it is
  kept, declared, rather than refused, because the report of what this
  composition gives is what a numpy user writing a convolution meets, and it
  stays out of numpy's counts;
* ``scatter``: ``out = base.copy(); out[..., indices, ...] = updates``
  (duplicates: the last one wins; negative indices wrap); ``scatter_add``:
  ``numpy.add.at`` on a copy;
* ``gather``: ``numpy.take`` (negative indices wrap; too large ones raise
  IndexError);
* sort: ``numpy.sort``/``numpy.argsort`` with ``kind="stable"`` (NaNs last).
  numpy has no descending sort: ``descending=True`` (or any value but
  False) is NotMeasured, and the backend declares the feature
  ``sort-descending`` unsupported, so the suite does not judge those calls
  (a flip of the ascending order would measure the adapter's reversal of
  ties, not numpy);
* top-k: numpy has none; composed (declared): the first k of the stable
  ``numpy.argsort`` order (flipped for the largest) along the axis, values by
  ``numpy.take_along_axis`` (slicing: a k beyond the axis is not an error).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import scipy.special
from numpy.lib.stride_tricks import sliding_window_view

from oracle import Tensor

from ..errors import NotMeasured
from .array_namespace import FORMULAS, KERNELS, ArrayNamespaceBackend
from .translate import bool_flag

__all__ = ["COMPOSED", "NumpyNativeBackend"]

_TOPK = (
    "numpy.argsort(x, axis, kind='stable'), numpy.flip for the largest, the first k along "
    "the axis, numpy.take_along_axis for the values (numpy has no top-k)"
)

#: operation -> the numpy (and scipy) calls the adapter composes it from
COMPOSED: dict[str, str] = {
    **FORMULAS,
    "erf": "scipy.special.erf (numpy has no erf; scipy's float32 ufunc loop)",
    "conv_general": (
        "zeros between the elements for lhs_dilation, numpy.pad (negative: a crop), "
        "sliding_window_view, numpy.split into the groups, numpy.tensordot over (input "
        "channel, window) per group (numpy has no convolution)"
    ),
    "_topk_values": _TOPK,
    "_topk_indices": _TOPK,
}


class NumpyNativeBackend(ArrayNamespaceBackend):
    """numpy float32/int32 functions with no emulation (backend name ``"numpy-native"``)."""

    name = "numpy-native"
    xp = np
    kernels = KERNELS
    library = "numpy"
    version = np.__version__
    composed_operations: ClassVar[Mapping[str, str]] = COMPOSED
    #: numpy.sort has no descending order (module docstring)
    unsupported: ClassVar[set[str]] = {"sort-descending"}

    def is_native(self, value: Any) -> bool:
        return isinstance(value, np.ndarray)

    def from_tensor(self, tensor: Tensor) -> np.ndarray:
        if not isinstance(tensor, Tensor):
            raise TypeError(f"expected an oracle.Tensor, got {type(tensor).__name__}")
        return tensor.to_numpy()

    def from_numpy(self, array: np.ndarray) -> np.ndarray:
        """The optional fast exchange (``backends/protocol.py``): a copy, bits kept."""
        return np.array(array, copy=True)

    def to_numpy(self, native: Any) -> np.ndarray:
        if not isinstance(native, (np.ndarray, np.generic)):
            raise TypeError(f"expected a numpy array, got {type(native).__name__}")
        return np.asarray(native)

    def quiet(self) -> contextlib.AbstractContextManager[Any]:
        return np.errstate(all="ignore")

    def finish(self, result: Any) -> Any:
        return super().finish(np.asarray(result))

    # -- hooks ------------------------------------------------------------------

    def erf(self, x: Any) -> Any:
        return scipy.special.erf(x)

    def matmul_float64(self, a: Any, b: Any) -> Any:
        return np.matmul(a, b, dtype=np.float64).astype(np.float32)

    def scatter(self, base: Any, index: tuple[Any, ...], updates: Any) -> Any:
        out = base.copy()
        out[index] = updates
        return out

    def scatter_add(self, base: Any, index: tuple[Any, ...], updates: Any) -> Any:
        out = base.copy()
        np.add.at(out, index, updates)
        return out

    def conv(self, lhs: Any, rhs: Any, strides: Any, padding: Any, lhs_dilation: Any,
             rhs_dilation: Any, groups: Any) -> Any:  # fmt: skip
        spatial = lhs.ndim - 2
        strides = tuple(strides) if strides is not None else (1,) * spatial
        lhs_dilation = tuple(lhs_dilation) if lhs_dilation is not None else (1,) * spatial
        rhs_dilation = tuple(rhs_dilation) if rhs_dilation is not None else (1,) * spatial
        padding = tuple(tuple(p) for p in padding) if padding is not None else ((0, 0),) * spatial
        x = lhs
        for d, step in enumerate(lhs_dilation):  # zeros between the input elements
            axis = d + 2
            if step > 1 and x.shape[axis] > 1:
                shape = list(x.shape)
                shape[axis] = (x.shape[axis] - 1) * step + 1
                spread = np.zeros(shape, x.dtype)
                where = [slice(None)] * x.ndim
                where[axis] = slice(None, None, step)
                spread[tuple(where)] = x
                x = spread
        crop = tuple(slice(max(-lo, 0), x.shape[d + 2] - max(-hi, 0))
                     for d, (lo, hi) in enumerate(padding))  # fmt: skip
        # each index is named first: mypy's 3.10 target misreads ``x[(a, *b)]``
        kept = (slice(None), slice(None), *crop)
        x = x[kept]
        x = np.pad(x, ((0, 0), (0, 0), *((max(lo, 0), max(hi, 0)) for lo, hi in padding)))
        window = rhs.shape[2:]
        spans = tuple((k - 1) * r + 1 for k, r in zip(window, rhs_dilation))
        view = sliding_window_view(x, spans, axis=tuple(range(2, 2 + spatial)))
        steps = (slice(None), slice(None), *(slice(None, None, s) for s in strides),
                 *(slice(None, None, r) for r in rhs_dilation))  # fmt: skip
        view = view[steps]
        batch, out_channels = x.shape[0], rhs.shape[0]
        out_spatial = view.shape[2 : 2 + spatial]
        axes_x = [1, *range(2 + spatial, 2 + 2 * spatial)]  # channel, window
        axes_w = [1, *range(2, 2 + spatial)]
        parts = [
            np.moveaxis(np.tensordot(v, w, axes=(axes_x, axes_w)), -1, 1)
            for v, w in zip(np.split(view, groups, axis=1), np.split(rhs, groups, axis=0))
        ]  # each (batch, out_channels // groups, *out_spatial)
        if not parts:
            return np.zeros((batch, out_channels, *out_spatial), np.float32)
        return np.concatenate(parts, axis=1)

    def sort(self, x: Any, axis: Any, descending: Any, values: bool) -> Any:
        if bool_flag(descending) is not False:
            raise NotMeasured(
                f"numpy.sort and numpy.argsort have no descending order (descending="
                f"{descending!r:.40}): not measured"
            )
        if values:
            return np.sort(x, axis=axis, kind="stable")
        return np.argsort(x, axis=axis, kind="stable").astype(np.int32)

    def topk(self, x: Any, k: Any, axis: Any, largest: Any, values: bool) -> Any:
        order = np.argsort(x, axis=axis, kind="stable")
        if largest:
            order = np.flip(order, axis=axis)
        first = np.moveaxis(np.moveaxis(order, axis, -1)[..., :k], -1, axis)
        return np.take_along_axis(x, first, axis=axis) if values else first.astype(np.int32)
