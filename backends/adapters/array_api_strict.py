"""array-api-strict: the Python array API standard alone, as a plancheck backend.

``backends.get("array-api-strict")``, from the optional extra
``plancheck[array-api-strict]``; importing this module without the library
raises ImportError, which ``backends.get`` turns into a BackendLoadError
naming the extra.  array-api-strict is the standard's reference namespace
(numpy underneath): it has exactly the functions, arguments and promotion
rules of one version of the standard, its ``__array_api_version__``
(:data:`API_VERSION`; 2025.12 for array-api-strict 2.6.1, its default), and
refuses everything else.  So this adapter measures what a program written
against the standard alone gets.

The kernel table is :mod:`backends.adapters.array_namespace` with ``xp =
array_api_strict`` and the standard's function names (:data:`STANDARD_FUNCTIONS`:
``pow``, ``round``, ``cumulative_sum``).  Nothing is configured: the
library's flags keep their defaults.

Native values: ``array_api_strict`` arrays of float32, int32 or bool; they
are exchanged with numpy through the standard's DLPack interchange
(``numpy.from_dlpack``, bits kept).  Weak scalars reach the library as Python
scalars (the standard accepts them beside an array; a numpy scalar as its
``.item()``, a ``Fraction`` as ``float``).  Casts are the standard's
``xp.astype``.  numpy's IEEE flags are silenced (``numpy.errstate``), as for
the numpy adapter: the flag state changes no value.

Operations the standard has no function for are not composed from others;
each raises :class:`~backends.errors.NotMeasured` after planning
(:data:`NOT_IN_STANDARD`), so the judge counts those calls as not measured,
never as array-api-strict's classes: ``rem`` (C ``fmod``; the standard's
``remainder`` is the floored modulus), ``exp2``, ``rsqrt``, ``erf`` and the
activations ``sigmoid silu softplus elu relu leaky_relu gelu``,
``conv_general``, ``scatter`` and ``scatter_add`` (``__setitem__`` with
integer arrays is "unspecified and thus implementation-defined"), top-k
(``_topk_values``, ``_topk_indices``).  Top-k in particular is not composed
from the standard's ``argsort``: that composition would measure the adapter's
choice of order and slicing, and ``xp.sort``/``xp.argsort`` themselves are
measured through ``_sort_values``/``_sort_indices``.  So
``composed_operations`` is empty: the adapter composes nothing.

What the standard does have is called as written, the parameters as the
caller gave them (the library's own exception for a bad one):
``xp.sum(x, axis, keepdims, dtype=int32 | float64)``, ``xp.prod/max/min``,
``xp.argmax/argmin`` (index dtype int64, cast to int32),
``xp.cumulative_sum(x, axis=axis)``, ``xp.matmul`` (a Float64 accumulator:
``xp.matmul`` of the ``xp.astype(..., xp.float64)`` operands, then
``xp.astype(..., xp.float32)``: the standard's matmul takes no dtype, but it
computes in the dtype of its operands), ``xp.take(x, indices, axis=axis)``
(1-d indices only), ``xp.clip``, ``xp.where``, ``xp.sort``/``xp.argsort(axis=axis,
descending=descending, stable=True)``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any, ClassVar

import array_api_strict as xp
import numpy as np

from oracle import DType, SimpleDType

from ..dispatch import Kernel
from .array_namespace import KERNELS, NUMPY_FUNCTIONS, ArrayNamespaceBackend, refusal

__all__ = [
    "API_VERSION",
    "ARRAY_TYPE",
    "NOT_IN_STANDARD",
    "STANDARD_FUNCTIONS",
    "STANDARD_KERNELS",
    "ArrayApiStrictBackend",
]

#: the class of the namespace's arrays (the library does not export it by name)
ARRAY_TYPE: type[Any] = type(xp.asarray(0))

#: the version of the standard the namespace implements (and this adapter measures)
API_VERSION: str = xp.__array_api_version__

#: operation -> the standard's function for it, where its name is not numpy's
_RENAMED = {"pow": "pow", "round": "round", "cumsum": "cumulative_sum"}

#: operation -> why the standard has no function for it
NOT_IN_STANDARD: dict[str, str] = {
    "rem": "it has no fmod (its remainder is the floored modulus, with the divisor's sign)",
    "exp2": "it has no exp2",
    "rsqrt": "it has no rsqrt",
    "erf": "it has no erf",
    **{op: f"it has no {op} (no neural-network activations)"
       for op in ("sigmoid", "silu", "softplus", "elu", "relu", "leaky_relu", "gelu")},
    "conv_general": "it has no convolution",
    "scatter": "__setitem__ with integer-array keys is unspecified (implementation-defined)",
    "scatter_add": "it has no scatter-add",
    "_topk_values": "it has no top-k",
    "_topk_indices": "it has no top-k",
}  # fmt: skip

#: operation -> the standard's function name, for every elementwise operation it has
STANDARD_FUNCTIONS: dict[str, str] = {
    op: _RENAMED.get(op, name) for op, name in NUMPY_FUNCTIONS.items() if op not in NOT_IN_STANDARD
}


#: the shared kernels of what the standard has, and a refusal for the rest
STANDARD_KERNELS: dict[str, Kernel] = {
    **{op: kernel for op, kernel in KERNELS.items() if op not in NOT_IN_STANDARD},
    **{
        op: refusal(
            op,
            f"the array API standard {API_VERSION} has no function for it ({why}); "
            f"array-api-strict implements only the standard",
        )
        for op, why in NOT_IN_STANDARD.items()
    },
}


class ArrayApiStrictBackend(ArrayNamespaceBackend):
    """The array API standard's functions through array-api-strict (name ``"array-api-strict"``)."""

    name = "array-api-strict"
    xp = xp
    kernels = STANDARD_KERNELS
    functions = STANDARD_FUNCTIONS
    library = "array-api-strict"
    version = xp.__version__
    #: the standard's functions only: nothing is composed (module docstring)
    composed_operations: ClassVar[Mapping[str, str]] = {}
    native_dtypes: ClassVar[dict[Any, DType]] = {
        xp.float32: DType.Float32,
        xp.int32: DType.Int32,
        xp.bool: DType.Bool,
    }

    def is_native(self, value: Any) -> bool:
        return isinstance(value, ARRAY_TYPE)

    def dtype_key(self, value: Any) -> Any:
        return value.dtype

    def native_dtype(self, dtype: SimpleDType) -> Any:
        return {DType.Float32: xp.float32, DType.Int32: xp.int32, DType.Bool: xp.bool}[dtype]

    def cast(self, native: Any, dtype: Any) -> Any:
        return xp.astype(native, dtype)

    def from_numpy(self, array: np.ndarray) -> Any:
        """The optional fast exchange (``backends/protocol.py``): a copy, bits kept."""
        return xp.asarray(array, copy=True)

    def to_numpy(self, native: Any) -> np.ndarray:
        if not isinstance(native, ARRAY_TYPE):
            raise TypeError(f"expected an array_api_strict array, got {type(native).__name__}")
        return np.array(np.from_dlpack(native), copy=True)

    def quiet(self) -> contextlib.AbstractContextManager[Any]:
        return np.errstate(all="ignore")

    # -- hooks ------------------------------------------------------------------

    def matmul_float64(self, a: Any, b: Any) -> Any:
        """The standard's matmul computes in its operands' dtype: float64 operands."""
        wide = xp.matmul(xp.astype(a, xp.float64), xp.astype(b, xp.float64))
        return xp.astype(wide, xp.float32)

    def sort(self, x: Any, axis: Any, descending: Any, values: bool) -> Any:
        if values:
            return xp.sort(x, axis=axis, descending=descending, stable=True)
        return xp.astype(xp.argsort(x, axis=axis, descending=descending, stable=True), xp.int32)
