"""Numba: every plan run as a ``numba.njit`` function of numba's own numpy API.

``backends.get("numba")`` (extra ``plancheck[numba]``).  The measurement of
*numba's* implementation of the numpy functions (its own ufunc loops, sort,
reductions and libm calls compiled through LLVM), not of numpy: each kernel is
a function compiled with ``numba.njit`` whose body is the numpy spelling a
numba user writes.  Native values are numpy arrays (float32, int32, bool).

Numba compiles a function the first time it sees a new *type signature* (the
dtypes, the number of dimensions and the layout of the arguments, the type of
each scalar): that first call takes from a few tenths of a second to seconds,
later calls of the same signature microseconds.  ``first_call_allowance``
declares that, so the suite gives a first call of a new signature more time
than its per-call timeout (docs/new-backend.md, "Libraries that compile on
first use").  Compiled kernels are cached on disk (``cache=True``: in
``$NUMBA_CACHE_DIR``, else ``__pycache__`` beside this module), so the first
run is cold and later runs load what it compiled (docs/backends/numba.md has
both measured).

Where numba's numpy API lacks an argument, the adapter writes what a numba user
writes, and the value still comes from numba:

* an ``axis`` numba's function does not take (``np.max``, ``np.min``,
  ``np.prod``, ``np.argsort``): the axis is moved last and the rows reduced one
  by one in a compiled loop (``np.moveaxis`` and ``reshape`` outside, which
  move no value);
* ``keepdims``: numba's ``np.sum`` has none; the result is reshaped;
* the accumulator: ``np.sum(x, dtype=np.int32)`` for Int32 (wraps),
  ``np.sum(x, dtype=np.float64)`` and ``a.astype(np.float64) @ b.astype(np.float64)``
  for a requested Float64 accumulator, narrowed to float32;
* a 0-d result: numba returns a Python scalar, boxed back as a 0-d array of
  the type numba computed it in (its compiled return type);
* sort: ``np.sort`` (last axis; descending is the flipped order), argsort
  with ``kind="mergesort"`` (stable); topk: the first k of that order;
* scatter: ``out[indices] = updates`` on a copy (the axis moved first, the
  indices flattened to the one 1-d index array numba takes);
  scatter_add: a compiled loop of ``+=`` (numba has no ``np.add.at``);
* erf and gelu: ``math.erf`` inside a ``numba.vectorize`` ufunc.

Refused with :class:`~backends.errors.NotMeasured` before numba is called:
conv_general (numba has no convolution), a tuple of axes, matmul of Int32 or of
more than two dimensions (numba's ``@`` takes 1-d and 2-d float arrays only).
"""

from __future__ import annotations

import functools
import math
from typing import Any, ClassVar

import numba
import numpy as np
from numba.np.numpy_support import as_dtype

from oracle import Accumulation, Arithmetic, DType, OperationPlan

from ..errors import NotMeasured
from .array_namespace import LEAKY_RELU_SLOPE, ArrayNamespaceBackend

__all__ = ["NUMBA_KERNELS", "NumbaBackend"]

#: numba.njit with the compiled kernels kept on disk (``$NUMBA_CACHE_DIR``, else
#: ``__pycache__`` beside this module): a later process loads instead of compiling
_jit = functools.partial(numba.njit, cache=True)
_HALF, _ONE, _INV_SQRT2 = np.float32(0.5), np.float32(1), np.float32(1 / math.sqrt(2))


def _binary(ufunc: Any) -> Any:
    return _jit(lambda a, b: ufunc(a, b))


def _unary(ufunc: Any) -> Any:
    return _jit(lambda a: ufunc(a))


_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "elementwise_mul": np.multiply,
    "div": np.divide, "rem": np.fmod, "maximum": np.maximum, "minimum": np.minimum,
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "pow": np.power,
}  # fmt: skip
_UNARY = {
    "neg": np.negative, "abs": np.abs, "sign": np.sign, "sqrt": np.sqrt,
    "recip": np.reciprocal, "floor": np.floor, "ceil": np.ceil, "round": np.rint,
    "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sin": np.sin,
    "cos": np.cos, "tanh": np.tanh, "logical_not": np.logical_not,
}  # fmt: skip


@numba.vectorize(cache=True)
def _erf(x: Any) -> Any:
    return math.erf(x)


@numba.vectorize(cache=True)
def _gelu(x: Any) -> Any:
    return _HALF * x * (_ONE + math.erf(x * _INV_SQRT2))


_FORMULAS = {
    "rsqrt": _jit(lambda x: np.float32(1) / np.sqrt(x)),
    "sigmoid": _jit(lambda x: np.float32(1) / (np.float32(1) + np.exp(-x))),
    "silu": _jit(lambda x: x / (np.float32(1) + np.exp(-x))),
    "softplus": _jit(lambda x: np.logaddexp(np.float32(0), x)),
    "elu": _jit(lambda x: np.where(x > 0, x, np.expm1(x))),
    "relu": _jit(lambda x: np.maximum(x, 0)),
    "leaky_relu": _jit(lambda x: np.where(x >= 0, x, x * LEAKY_RELU_SLOPE)),
    "erf": _erf,
    "gelu": _gelu,
}
_clip = _jit(lambda x, lo, hi: np.clip(x, lo, hi))
_where = _jit(lambda c, t, f: np.where(c, t, f))
#: reduce_sum by the plan's accumulator (Float32, Float64 requested, Int32), whole or along
#: one axis: numba's np.sum with the dtype argument a numba user passes
_SUMS = {
    "f32": (_jit(lambda x: np.sum(x)), _jit(lambda x, axis: np.sum(x, axis=axis))),
    "f64": (_jit(lambda x: np.sum(x, dtype=np.float64)),
            _jit(lambda x, axis: np.sum(x, axis=axis, dtype=np.float64))),
    "i32": (_jit(lambda x: np.sum(x, dtype=np.int32)),
            _jit(lambda x, axis: np.sum(x, axis=axis, dtype=np.int32))),
}  # fmt: skip
_cumsum = _jit(lambda x, axis: np.cumsum(x, axis=axis))
_take = _jit(lambda x, i, axis: np.take(x, i, axis=axis))
_matmul = _jit(lambda a, b: a @ b)
_matmul64 = _jit(lambda a, b: (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32))
_argmax = _jit(lambda x: np.argmax(x))
_argmax_axis = _jit(lambda x, axis: np.argmax(x, axis=axis))
_argmin = _jit(lambda x: np.argmin(x))
_argmin_axis = _jit(lambda x, axis: np.argmin(x, axis=axis))
_sort_last = _jit(lambda x: np.sort(x))


def _returned(function: Any, args: tuple[Any, ...]) -> Any:
    """The numpy dtype of what compiled *function* returns for *args* (None if unknown)."""
    overloads = getattr(function, "overloads", {})
    compiled = overloads.get(tuple(numba.typeof(a) for a in args))
    if compiled is None:
        return None
    return as_dtype(compiled.signature.return_type)


def _rowwise(reduce: Any) -> Any:
    """A compiled loop applying numba's *reduce* to each row of a 2-d array."""

    @_jit
    def rows(x2: Any) -> Any:
        out = np.empty(x2.shape[0], x2.dtype)
        for r in range(x2.shape[0]):
            out[r] = reduce(x2[r])
        return out

    return rows


_WHOLE = {"reduce_max": _jit(lambda x: np.max(x)),
          "reduce_min": _jit(lambda x: np.min(x)),
          "reduce_prod": _jit(lambda x: np.prod(x))}  # fmt: skip
_ROWS = {"reduce_max": _rowwise(np.max), "reduce_min": _rowwise(np.min),
         "reduce_prod": _rowwise(np.prod)}  # fmt: skip


@_jit
def _argsort_rows(x2: Any) -> Any:
    out = np.empty(x2.shape, np.int64)
    for r in range(x2.shape[0]):
        out[r] = np.argsort(x2[r], kind="mergesort")
    return out


@_jit
def _scatter_first(out: Any, indices: Any, updates: Any) -> None:
    out[indices] = updates


@_jit
def _scatter_add_first(out: Any, indices: Any, updates: Any) -> None:
    for j in range(indices.shape[0]):
        out[indices[j]] += updates[j]


def _axes(axis: Any, name: str) -> Any:
    if isinstance(axis, tuple):
        raise NotMeasured(f"{name}: numba's numpy functions take one axis, not a tuple")
    return axis


def _as_rows(x: np.ndarray, axis: int) -> tuple[np.ndarray, tuple[int, ...]]:
    """*x* with *axis* moved last, as (rows, n), and the shape of the rows."""
    moved = np.moveaxis(x, axis, -1)
    rest = moved.shape[:-1]
    return np.ascontiguousarray(moved).reshape((math.prod(rest), moved.shape[-1])), rest


def _keep(result: Any, x: np.ndarray, axis: Any, keepdims: Any) -> Any:
    if not keepdims:
        return result
    shape = [1] * x.ndim if axis is None else list(x.shape)
    if axis is not None:
        shape[axis] = 1
    return np.reshape(result, shape)


class NumbaBackend(ArrayNamespaceBackend):
    """numba.njit kernels over numpy arrays (backend name ``"numba"``)."""

    name = "numba"
    xp = np
    library = "numba"
    version = numba.__version__
    #: operations the adapter composes from several numba calls (operation -> how):
    #: their classes may be the adapter's, not numba's (docs/adapter-policy.md)
    composed_operations: ClassVar[dict[str, str]] = {
        "rsqrt": "1 / np.sqrt(x)",
        "sigmoid": "1 / (1 + np.exp(-x))",
        "silu": "x / (1 + np.exp(-x))",
        "softplus": "np.logaddexp(0, x)",
        "elu": "np.where(x > 0, x, np.expm1(x))",
        "relu": "np.maximum(x, 0)",
        "leaky_relu": "np.where(x >= 0, x, x * 0.01f)",
        "gelu": "0.5 x (1 + math.erf(x / sqrt 2)) in a numba.vectorize ufunc",
        **dict.fromkeys(
            ("reduce_max", "reduce_min", "reduce_prod"),
            "with an axis: numba's function over each row after np.moveaxis (it takes no "
            "axis); keepdims by reshape",
        ),
        "reduce_sum": "keepdims by reshape; a Float64 accumulator narrowed with astype",
        **dict.fromkeys(
            ("_sort_values", "_sort_indices"),
            "np.sort / np.argsort(kind='mergesort') per row after np.moveaxis; descending is "
            "np.flip of the ascending order",
        ),
        **dict.fromkeys(
            ("_topk_values", "_topk_indices"),
            "stable argsort per row, np.flip for largest, the first k sliced, "
            "np.take_along_axis for the values",
        ),
        "scatter": "out[indices] = updates on np.moveaxis views of a copy",
        "scatter_add": "a compiled loop of += (numba has no np.add.at)",
    }
    #: numba's np.sum, np.max ... take one axis, never a tuple
    unsupported: ClassVar[set[str]] = {"axis-tuple"}
    #: seconds a first call of a new type signature may take beyond the call timeout
    first_call_allowance: ClassVar[float] = 60.0

    def is_native(self, value: Any) -> bool:
        return isinstance(value, np.ndarray)

    def from_numpy(self, array: np.ndarray) -> np.ndarray:
        return np.array(array, copy=True)

    def to_numpy(self, native: Any) -> np.ndarray:
        if not isinstance(native, (np.ndarray, np.generic)):
            raise TypeError(f"expected a numpy array, got {type(native).__name__}")
        return np.asarray(native)

    def quiet(self) -> Any:
        return np.errstate(all="ignore")

    def call(self, plan: OperationPlan, function: Any, *args: Any) -> Any:
        """``function(*args)`` (a compiled function), counted as one allocation.  A
        scalar result (numba returns one for a 0-d result, as a Python number) is
        boxed as a 0-d array of the type numba computed it in (its compiled return
        type: ``np.sum`` of int32 is int64), never of the plan's."""
        with self.quiet():
            result = function(*args)
        if not isinstance(result, np.ndarray):
            result = np.asarray(result, _returned(function, args) or np.asarray(result).dtype)
        self.allocated()
        return result

    def ops(self, plan: OperationPlan, *args: Any) -> list[Any]:
        return [self.operand(plan, i, a) for i, a in enumerate(args)]


def _kernel_binary(backend: NumbaBackend, plan: OperationPlan, a: Any, b: Any) -> Any:
    return backend.call(plan, _BINARY_JIT[plan.operation], *backend.ops(plan, a, b))


def _kernel_unary(backend: NumbaBackend, plan: OperationPlan, a: Any) -> Any:
    return backend.call(plan, _UNARY_JIT[plan.operation], *backend.ops(plan, a))


_BINARY_JIT = {op: _binary(f) for op, f in _BINARY.items()}
_UNARY_JIT = {op: _unary(f) for op, f in _UNARY.items()} | _FORMULAS


def _clamp(backend: NumbaBackend, plan: OperationPlan, x: Any, lo: Any, hi: Any) -> Any:
    return backend.call(plan, _clip, *backend.ops(plan, x, lo, hi))


def _select(backend: NumbaBackend, plan: OperationPlan, c: Any, t: Any, f: Any) -> Any:
    return backend.call(plan, _where, *backend.ops(plan, c, t, f))


def _reduce_sum(backend: NumbaBackend, plan: OperationPlan, x: Any, axis: Any = None,
                keepdims: Any = False) -> Any:  # fmt: skip
    """np.sum: numba's order; Int32 with dtype=int32 (wraps); a Float64 accumulator with
    dtype=float64, narrowed to float32 after the call (``astype``)."""
    (v,) = backend.ops(plan, x)
    axis = _axes(axis, "reduce_sum")
    if plan.accumulation is Accumulation.EXACT_INTEGER:
        kind = "i32"
    else:
        kind = "f64" if plan.accumulator_dtype is DType.Float64 else "f32"
    whole, along = _SUMS[kind]
    result = backend.call(plan, whole, v) if axis is None else backend.call(plan, along, v, axis)
    if kind == "f64":
        with backend.quiet():  # the narrowing overflows to inf without a warning
            result = result.astype(np.float32)
    return _keep(result, v, axis, keepdims)


def _extreme(name: str) -> Any:
    def kernel(backend: NumbaBackend, plan: OperationPlan, x: Any, axis: Any = None,
               keepdims: Any = False) -> Any:  # fmt: skip
        (v,) = backend.ops(plan, x)
        axis = _axes(axis, name)
        if axis is None:
            return _keep(backend.call(plan, _WHOLE[name], v), v, axis, keepdims)
        rows, rest = _as_rows(v, axis)
        result = backend.call(plan, _ROWS[name], rows).reshape(rest)
        return _keep(result, v, axis, keepdims)

    return kernel


def _arg(whole: Any, along: Any) -> Any:
    def kernel(backend: NumbaBackend, plan: OperationPlan, x: Any, axis: Any = None) -> Any:
        (v,) = backend.ops(plan, x)
        if axis is None:
            return backend.call(plan, whole, v).astype(np.int32)
        return backend.call(plan, along, v, axis).astype(np.int32)

    return kernel


def _cumsum_kernel(backend: NumbaBackend, plan: OperationPlan, x: Any, axis: Any) -> Any:
    return backend.call(plan, _cumsum, *backend.ops(plan, x), axis)


def _matmul_kernel(backend: NumbaBackend, plan: OperationPlan, a: Any, b: Any) -> Any:
    x, y = backend.ops(plan, a, b)
    if plan.compute is Arithmetic.INT32_EXACT_CHECKED:
        raise NotMeasured("matmul: numba's @ takes float arrays only, not int32")
    if x.ndim > 2 or y.ndim > 2:
        raise NotMeasured("matmul: numba's @ takes 1-d and 2-d arrays only")
    wide = plan.accumulator_dtype is DType.Float64
    return backend.call(plan, _matmul64 if wide else _matmul,
                        np.ascontiguousarray(x), np.ascontiguousarray(y))  # fmt: skip


def _gather(backend: NumbaBackend, plan: OperationPlan, data: Any, indices: Any,
            axis: Any) -> Any:  # fmt: skip
    return backend.call(plan, _take, *backend.ops(plan, data, indices), axis)


def _scatter(add: bool) -> Any:
    def kernel(backend: NumbaBackend, plan: OperationPlan, base: Any, indices: Any,
               updates: Any, axis: Any) -> Any:  # fmt: skip
        b, i, u = backend.ops(plan, base, indices, updates)
        out = b.copy()
        target = np.moveaxis(out, axis, 0)  # numpy's AxisError for an axis out of range
        first = axis % b.ndim
        # numba takes one 1-d index array: the indices flattened, the updates' index
        # dimensions moved first and flattened alike (numpy's ValueError on a bad shape)
        moved = np.moveaxis(u, range(first, first + i.ndim), range(i.ndim))
        moved = moved.reshape((i.size, *target.shape[1:]))
        i = i.reshape(-1)
        with backend.quiet():
            (_scatter_add_first if add else _scatter_first)(target, i, moved)
        backend.allocated()
        return out

    return kernel


def _sort(values: bool) -> Any:
    def kernel(backend: NumbaBackend, plan: OperationPlan, x: Any, axis: Any = -1,
               descending: Any = False) -> Any:  # fmt: skip
        (v,) = backend.ops(plan, x)
        result = _ordered(backend, plan, v, axis, values)
        return np.flip(result, axis=axis) if descending else result

    return kernel


def _ordered(backend: NumbaBackend, plan: OperationPlan, v: np.ndarray, axis: Any,
             values: bool) -> np.ndarray:  # fmt: skip
    """numba's ascending sort (values) or stable argsort (int32 indices) along *axis*."""
    rows, rest = _as_rows(v, axis)
    if values:
        result = backend.call(plan, _sort_last, rows)
    else:
        result = backend.call(plan, _argsort_rows, rows).astype(np.int32)
    return np.moveaxis(result.reshape((*rest, v.shape[axis])), -1, axis)


def _topk(values: bool) -> Any:
    def kernel(backend: NumbaBackend, plan: OperationPlan, x: Any, k: Any, axis: Any = -1,
               largest: Any = True) -> Any:  # fmt: skip
        (v,) = backend.ops(plan, x)
        order = _ordered(backend, plan, v, axis, values=False)
        if largest:
            order = np.flip(order, axis=axis)
        first = np.moveaxis(np.moveaxis(order, axis, -1)[..., :k], -1, axis)
        return np.take_along_axis(v, first, axis=axis) if values else first

    return kernel


def _conv(backend: NumbaBackend, plan: OperationPlan, *args: Any, **kwargs: Any) -> Any:
    raise NotMeasured("conv_general: numba has no convolution")


#: operation name -> kernel, every registered operation
NUMBA_KERNELS: dict[str, Any] = {
    **dict.fromkeys(_BINARY, _kernel_binary),
    **dict.fromkeys(_UNARY_JIT, _kernel_unary),
    "clamp": _clamp,
    "select": _select,
    "reduce_sum": _reduce_sum,
    "reduce_prod": _extreme("reduce_prod"),
    "reduce_max": _extreme("reduce_max"),
    "reduce_min": _extreme("reduce_min"),
    "argmax": _arg(_argmax, _argmax_axis),
    "argmin": _arg(_argmin, _argmin_axis),
    "cumsum": _cumsum_kernel,
    "matmul": _matmul_kernel,
    "conv_general": _conv,
    "gather": _gather,
    "scatter": _scatter(add=False),
    "scatter_add": _scatter(add=True),
    "_sort_values": _sort(values=True),
    "_sort_indices": _sort(values=False),
    "_topk_values": _topk(values=True),
    "_topk_indices": _topk(values=False),
}
NumbaBackend.kernels = NUMBA_KERNELS
