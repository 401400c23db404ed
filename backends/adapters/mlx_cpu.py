"""MLX on the Linux CPU as a plancheck backend: ``"mlx"``.

From the optional extra ``plancheck[mlx]`` (``mlx[cpu]``, the CPU-only Linux
build its install guide names); importing this module without mlx raises
ImportError, which ``backends.get`` turns into a BackendLoadError naming the
extra.  The kernel table is :mod:`backends.adapters.array_namespace` with
``xp = mlx.core`` (numpy's function names; ``round`` for rint), and where mlx
has a function of its own for an operation it is called: ``mx.sigmoid``,
``mx.rsqrt``, ``mx.erf``, ``mlx.nn.silu softplus elu relu gelu`` and
``mlx.nn.leaky_relu(x, negative_slope=0.01)``.  Nothing is configured: mlx's
default device (the CPU) and its defaults hold.

Native values: ``mlx.core.array`` of float32, int32 or bool, exchanged with
numpy by ``mx.array(numpy_array)`` and ``numpy.array(native)`` (bits kept).
mlx evaluates lazily; every result is evaluated (``mx.eval``) inside the call,
so an error of the computation is raised by ``execute``.  Weak scalars reach
mlx as Python scalars (mlx's own weak-scalar rule).

What mlx has no function for is not composed from others (so
``composed_operations`` is empty): the kernel raises
:class:`~backends.errors.NotMeasured` after planning (:data:`NOT_IN_MLX`) --
``rem`` (mlx's ``remainder`` is the floored modulus, not C ``fmod``),
``exp2``, top-k indices (``mx.topk`` returns values only); and so are the
argument forms its function cannot be asked for: a descending sort and the
smallest k (``mx.sort`` and ``mx.topk`` have no such argument; only
``descending=False`` and ``largest=True`` have a translation, and the backend
declares the capability features ``sort-descending`` and ``topk-smallest``
unsupported, so the suite does not judge those calls), a padding that is not
one (low, high) int pair per spatial dimension (``mx.conv_general`` takes
the lows and the highs as two lists).

A Float64 accumulator (``reduce_sum``, ``matmul``) is mlx's own float64
arithmetic, which its CPU stream has: ``mx.sum``/``mx.matmul`` of the
operands cast with ``astype(mx.float64)``, the result cast back with
``astype(mx.float32)`` -- neither function takes a dtype, but each computes
in its operands' dtype.

The rest, as called, every parameter as the caller gave it (mlx's own
exception for a bad one): ``mx.sum`` (an Int32 sum stays int32),
``mx.prod/max/min``, ``mx.argmax/argmin`` (uint32 indices, cast to int32),
``mx.cumsum(x, axis=axis)``, ``mx.matmul``, ``mx.take(x, indices,
axis=axis)``, ``mx.clip``, ``mx.where``, scatter as ``out[..., indices] =
updates`` on a copy and scatter_add as ``base.at[..., indices].add(updates)``
(the axis judged by ``mx.moveaxis`` first), ``mx.conv_general``
(channels-last: the operands' channel axis moved last and the result's back),
``mx.sort``/``mx.argsort`` (stable), ``mx.topk`` (values, "not necessarily in
sorted order").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import mlx.core as mx
import mlx.nn
import numpy as np

from oracle import Accumulation, DType, OperationPlan

from ..dispatch import Kernel
from ..errors import NotMeasured
from .array_namespace import KERNELS, NUMPY_FUNCTIONS, ArrayNamespaceBackend, refusal
from .translate import bool_flag, padding_pairs

__all__ = ["MLX_FUNCTIONS", "MLX_KERNELS", "NOT_IN_MLX", "MlxBackend"]

#: operation -> why mlx has no function for it
NOT_IN_MLX: dict[str, str] = {
    "rem": "it has no fmod (mx.remainder is the floored modulus, with the divisor's sign)",
    "exp2": "it has no exp2",
    "_topk_indices": "mx.topk returns the values only, not their indices",
}

#: operation -> mlx's function name (numpy's, but round for rint)
MLX_FUNCTIONS: dict[str, str] = {
    op: "round" if name == "rint" else name
    for op, name in NUMPY_FUNCTIONS.items()
    if op not in NOT_IN_MLX
}


def _library_unary(function: Any, name: str) -> Kernel:
    def kernel(backend: ArrayNamespaceBackend, plan: OperationPlan, a: Any) -> Any:
        return backend.run(function, backend.operand(plan, 0, a))

    kernel.__name__ = name
    return kernel


def _leaky_relu(x: Any) -> Any:
    return mlx.nn.leaky_relu(x, negative_slope=0.01)


def reduce_sum(
    backend: ArrayNamespaceBackend, plan: OperationPlan, x: Any, axis: Any = None,
    keepdims: Any = False,
) -> Any:  # fmt: skip
    """mx.sum (an int32 sum is int32 in mlx); a Float64 accumulator: mx.sum of the float64
    operand, cast back to float32."""
    v = backend.operand(plan, 0, x)
    if plan.accumulation is not Accumulation.EXACT_INTEGER and plan.accumulator_dtype is (
        DType.Float64
    ):
        wide = v.astype(mx.float64)
        return backend.run(lambda: mx.sum(wide, axis=axis, keepdims=keepdims).astype(mx.float32))
    return backend.run(mx.sum, v, axis=axis, keepdims=keepdims)


#: the shared kernels, mlx's own functions where it has them, refusals for the rest
MLX_KERNELS: dict[str, Kernel] = {
    **KERNELS,
    "sigmoid": _library_unary(mx.sigmoid, "sigmoid"),
    "rsqrt": _library_unary(mx.rsqrt, "rsqrt"),
    "erf": _library_unary(mx.erf, "erf"),
    "silu": _library_unary(mlx.nn.silu, "silu"),
    "softplus": _library_unary(mlx.nn.softplus, "softplus"),
    "elu": _library_unary(mlx.nn.elu, "elu"),
    "relu": _library_unary(mlx.nn.relu, "relu"),
    "gelu": _library_unary(mlx.nn.gelu, "gelu"),
    "leaky_relu": _library_unary(_leaky_relu, "leaky_relu"),
    "reduce_sum": reduce_sum,
    **{
        op: refusal(op, f"mlx {mx.__version__} has no function for it ({why})")
        for op, why in NOT_IN_MLX.items()
    },
}


class MlxBackend(ArrayNamespaceBackend):
    """mlx.core on the CPU with mlx's defaults (backend name ``"mlx"``)."""

    name = "mlx"
    xp = mx
    kernels = MLX_KERNELS
    functions = MLX_FUNCTIONS
    library = "mlx"
    version = mx.__version__
    #: mlx's functions only: nothing is composed (module docstring)
    composed_operations: ClassVar[Mapping[str, str]] = {}
    #: calls mlx has no argument for: the suite counts them, does not judge them
    unsupported: ClassVar[set[str]] = {"sort-descending", "topk-smallest"}
    native_dtypes: ClassVar[dict[Any, DType]] = {
        mx.float32: DType.Float32,
        mx.int32: DType.Int32,
        mx.bool_: DType.Bool,
    }

    def is_native(self, value: Any) -> bool:
        return isinstance(value, mx.array)

    def dtype_key(self, value: Any) -> Any:
        return value.dtype

    def from_numpy(self, array: np.ndarray) -> Any:
        """The optional fast exchange (``backends/protocol.py``), bits kept."""
        return mx.array(array)

    def to_numpy(self, native: Any) -> np.ndarray:
        if not isinstance(native, mx.array):
            raise TypeError(f"expected an mlx.core.array, got {type(native).__name__}")
        return np.array(native, copy=True)

    def finish(self, result: Any) -> Any:
        mx.eval(result)  # mlx is lazy: compute (and raise) inside the call
        return super().finish(result)

    # -- hooks ------------------------------------------------------------------

    def erf(self, x: Any) -> Any:
        return mx.erf(x)

    def matmul_float64(self, a: Any, b: Any) -> Any:
        """mx.matmul computes in its operands' dtype: float64 on the CPU stream."""
        return mx.matmul(a.astype(mx.float64), b.astype(mx.float64)).astype(mx.float32)

    def scatter(self, base: Any, index: tuple[Any, ...], updates: Any) -> Any:
        out = mx.array(base)
        out[index] = updates
        return out

    def scatter_add(self, base: Any, index: tuple[Any, ...], updates: Any) -> Any:
        return base.at[index].add(updates)

    def conv(self, lhs: Any, rhs: Any, strides: Any, padding: Any, lhs_dilation: Any,
             rhs_dilation: Any, groups: Any) -> Any:  # fmt: skip
        spatial = max(lhs.ndim - 2, 0)
        ones = [1] * spatial
        pads = padding_pairs("mlx", padding, spatial)
        result = mx.conv_general(
            mx.moveaxis(lhs, 1, -1),
            mx.moveaxis(rhs, 1, -1),
            stride=_listed(strides, ones),
            padding=([lo for lo, _ in pads], [hi for _, hi in pads]),
            kernel_dilation=_listed(rhs_dilation, ones),
            input_dilation=_listed(lhs_dilation, ones),
            groups=groups,
        )
        return mx.moveaxis(result, -1, 1)

    def sort(self, x: Any, axis: Any, descending: Any, values: bool) -> Any:
        if bool_flag(descending) is not False:
            raise NotMeasured(
                f"sort: mx.sort and mx.argsort have no descending argument; only "
                f"descending=False has an mlx spelling, not {type(descending).__name__} "
                f"{descending!r:.40}: not measured"
            )
        return mx.sort(x, axis=axis) if values else mx.argsort(x, axis=axis).astype(mx.int32)

    def topk(self, x: Any, k: Any, axis: Any, largest: Any, values: bool) -> Any:
        if bool_flag(largest) is not True:
            raise NotMeasured(
                f"topk: mx.topk has no largest argument (it returns the largest k); only "
                f"largest=True has an mlx spelling, not {type(largest).__name__} "
                f"{largest!r:.40}: not measured"
            )
        return mx.topk(x, k, axis=axis)


def _listed(value: Any, default: list[int]) -> Any:
    """A per-dimension conv parameter as mlx takes it: None as *default*, a tuple as a
    list, anything else as it is (mlx judges it)."""
    if value is None:
        return default
    return list(value) if isinstance(value, tuple) else value
