"""One kernel table for array libraries with a numpy-like namespace.

numpy, ``jax.numpy`` and ``array_api_strict`` (the array API standard alone)
share most of their API, so their adapters share this module:
:class:`ArrayNamespaceBackend` is a :class:`~backends.dispatch.KernelBackend`
whose kernels call ``backend.xp`` (the namespace module) through a table of
function names (``functions``: numpy's spelling, :data:`NUMPY_FUNCTIONS`, or the
standard's) and a few hooks where the libraries really differ (the dtype of a
native array, casts, scatter, conv, sort/topk, a Float64 matmul request, the
result wrapper).  ``backends.adapters.numpy_native``, ``backends.adapters.jax_cpu``
and ``backends.adapters.array_api_strict`` are thin subclasses.

What the adapter does, and does *not* do
----------------------------------------
1. The plan comes from the central planner (``KernelBackend.execute``): every
   planning error (TypeError, ValueError, NotImplementedError, OverflowError
   for a weak integer outside Int32 on an integer path) is raised exactly as
   the planner raises it, before the library is touched.
2. Operands are materialised as the plan says and only as the plan says: a
   tensor whose ``convert_to`` differs from its dtype (Int32 -> Float32) goes
   through the library's own cast (:meth:`ArrayNamespaceBackend.cast`:
   ``x.astype(float32)``, or the standard's ``xp.astype(x, float32)``).  A weak scalar is
   handed to the library as a Python scalar, so the library's own weak-scalar
   rule applies (numpy's NEP 50, JAX's weak types): a Python ``int``,
   ``float`` or ``bool`` as is, a numpy scalar as its exact ``.item()``, any
   other real (``Fraction``) as ``float(value)`` -- neither library has a
   weak rational, and ``float()`` is what its users write.
3. Then one library call per operation, the most direct spelling its API
   offers (the table below), with the parameters (axes, ``keepdims``, ``k``,
   flags) as the caller gave them.  Nothing is emulated or validated: no
   correct-rounding fix, no exact or checked Int32 arithmetic, no ordered
   accumulation, no NaN or signed-zero repair, no axis, index or shape check
   -- the library's own exception is what the report shows
   (docs/adapter-policy.md).  Where the library has no function for an
   operation, a subclass either refuses it with
   :class:`~backends.errors.NotMeasured` (:func:`refusal`, a hook it does not
   provide) or composes it from library calls and declares the composition in
   ``composed_operations`` (:data:`FORMULAS` for the shared formulas), so that
   its classes are the adapter's, not the library's.
4. The library's own dtype is kept.  The only casts after the call are those
   a user needs to land on the plan's output dtype by construction of the
   API: ``argmax``/``argmin`` and numpy's ``argsort`` indices (int64 in
   numpy) to int32, and the narrowing of a Float64 accumulation request back
   to Float32.  IEEE flags are silenced where the library would warn
   (:meth:`ArrayNamespaceBackend.quiet`): the policy forbids warnings, and the
   flag state changes no value.

Mapping (``xp`` = the namespace; the names of the first block and cumsum are
``backend.functions``, here numpy's)::

    add sub mul elementwise_mul div rem   xp.add subtract multiply multiply divide fmod
    maximum minimum eq ne lt le pow       xp.maximum minimum equal not_equal less less_equal power
    neg abs sign sqrt recip floor ceil    xp.negative abs sign sqrt reciprocal floor ceil
    round logical_not                     xp.rint logical_not
    exp exp2 log log2 sin cos tanh        xp.exp exp2 log log2 sin cos tanh
    rsqrt sigmoid silu softplus elu       composed (FORMULAS): 1/xp.sqrt(x), 1/(1+xp.exp(-x)),
                                          x/(1+xp.exp(-x)), xp.logaddexp(0, x),
                                          xp.where(x > 0, x, xp.expm1(x))
    relu leaky_relu                       composed: xp.maximum(x, 0), xp.where(x >= 0, x, x * 0.01f)
    erf gelu                              backend.erf(x); composed: 0.5 x (1 + erf(x / sqrt 2))
    clamp select                          xp.clip(x, lo, hi), xp.where(c, t, f)
    matmul                                xp.matmul (Float64 request: backend.matmul_float64)
    reduce_sum reduce_prod                xp.sum / xp.prod (Float64 request: dtype=float64,
                                          then astype(float32); Int32: dtype=int32)
    reduce_max reduce_min argmax argmin   xp.max min argmax argmin
    cumsum gather                         xp.cumsum(x, axis), xp.take(x, i, axis)
    scatter scatter_add                   backend hooks on base[(:,) * axis + (i,)], the axis
                                          judged by the library's xp.moveaxis first
    conv_general                          backend hook
    _sort_* _topk_*                       backend hooks (sort/topk are reached through them)

Allocations.  The library allocates inside its own calls, where an adapter
cannot observe it; :meth:`ArrayNamespaceBackend.finish` counts one
``allocated()`` per result the library hands back.  So ``allocations`` proves
that planning errors come before any computation (it stays unchanged, and
the library is never called), but an error the library raises itself is
never reported as "allocation before error".
"""

from __future__ import annotations

import contextlib
import math
import numbers
import operator
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import numpy as np

from oracle import Accumulation, Arithmetic, DType, OperandRole, OperationPlan, SimpleDType, Tensor

from ..dispatch import Kernel, KernelBackend
from ..errors import NotMeasured

__all__ = [
    "FORMULAS",
    "KERNELS",
    "LEAKY_RELU_SLOPE",
    "NUMPY_FUNCTIONS",
    "ArrayNamespaceBackend",
    "refusal",
    "weak_value",
]

#: leaky_relu's fixed slope 0.01f (bits 0x3C23D70A): ``float32(0.01)``
LEAKY_RELU_SLOPE = np.float32(0.01)


def weak_value(value: Any) -> Any:
    """A weak scalar as the Python scalar the library's own weak rule receives.

    ``int``/``float``/``bool`` as is; a numpy scalar as its exact ``.item()``;
    another integral value as ``int``; any other real as ``float(value)``.
    """
    if isinstance(value, np.generic):  # first: numpy.float64 subclasses float
        return value.item()
    if isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    return float(value)


class ArrayNamespaceBackend(KernelBackend):
    """The shared adapter: plan centrally, then one call into ``xp``.

    Subclasses set ``name``, ``xp``, ``functions`` (operation -> ``xp``
    attribute, :data:`NUMPY_FUNCTIONS` by default) and ``native_dtypes``
    (:meth:`dtype_key` of a native array -> DType), implement
    :meth:`is_native`, :meth:`from_tensor`, :meth:`to_numpy`, :meth:`erf` and
    the structured hooks, and may extend ``kernels``.
    """

    xp: Any = None
    kernels: ClassVar[dict[str, Kernel]] = {}
    #: operation -> the name of the ``xp`` function that computes it (set below)
    functions: ClassVar[dict[str, str]] = {}
    #: operation -> the library calls the adapter composes it from (none by default);
    #: the judge marks the classes of these operations as the adapter's
    composed_operations: ClassVar[Mapping[str, str]] = {}
    #: dtype_key of a native array (its numpy dtype by default) -> its DType
    native_dtypes: ClassVar[dict[Any, DType]] = {
        np.dtype(np.float32): DType.Float32,
        np.dtype(np.int32): DType.Int32,
        np.dtype(np.bool_): DType.Bool,
    }

    # -- native values --------------------------------------------------------

    def is_native(self, value: Any) -> bool:
        """Whether *value* is a tensor of this library (not a weak scalar)."""
        raise NotImplementedError

    def dtype_of(self, value: Any) -> DType | None:
        """DType of a native tensor; None for anything else (a weak scalar).

        A native tensor of a dtype other than float32, int32 or bool is a
        TypeError (before planning).
        """
        if not self.is_native(value):
            return None
        dtype = self.native_dtypes.get(self.dtype_key(value))
        if dtype is None:
            raise TypeError(
                f"the {self.name} backend holds float32, int32 and bool arrays; got one of "
                f"dtype {value.dtype}"
            )
        return dtype

    def dtype_key(self, value: Any) -> Any:
        """The key of :attr:`native_dtypes` for native *value*: its numpy dtype."""
        return np.dtype(value.dtype)

    def to_numpy(self, native: Any) -> np.ndarray:
        """*native* as a numpy array (TypeError if it is not a result of this library)."""
        raise NotImplementedError

    def from_tensor(self, tensor: Tensor) -> Any:
        """*tensor* as a native array, through :meth:`from_numpy` (bits kept)."""
        if not isinstance(tensor, Tensor):
            raise TypeError(f"expected an oracle.Tensor, got {type(tensor).__name__}")
        return self.from_numpy(tensor.to_numpy())

    def from_numpy(self, array: np.ndarray) -> Any:
        """A numpy float32, int32 or bool array as a native array of this library."""
        raise NotImplementedError

    def to_tensor(self, native: Any) -> Tensor:
        return Tensor.from_numpy(self.to_numpy(native))

    def native_dtype(self, dtype: SimpleDType) -> Any:
        """The library's dtype object for a simple DType (Float32, Int32 or Bool)."""
        return {DType.Float32: self.xp.float32, DType.Int32: self.xp.int32,
                DType.Bool: self.xp.bool_}[dtype]  # fmt: skip

    def cast(self, native: Any, dtype: Any) -> Any:
        """*native* converted to the library dtype *dtype* by the library (``astype``)."""
        return native.astype(dtype)

    # -- the pieces every kernel uses ----------------------------------------

    def function(self, operation: str) -> Callable[..., Any]:
        """The ``xp`` function that computes *operation* (``functions``)."""
        return getattr(self.xp, self.functions[operation])

    def quiet(self) -> contextlib.AbstractContextManager[Any]:
        """Context in which the library's calls run (IEEE flags must not warn)."""
        return contextlib.nullcontext()

    def operand(self, plan: OperationPlan, position: int, value: Any) -> Any:
        """Operand *position* as the plan materialises it (see the module docstring)."""
        operand = plan.operands[position]
        if operand.role is OperandRole.WEAK_SCALAR:
            return weak_value(value)
        if operand.convert_to is not operand.dtype:
            return self.cast(value, self.native_dtype(operand.convert_to))
        return value

    def finish(self, result: Any) -> Any:
        """Count the result the library handed back and return it as a native tensor."""
        self.allocated()
        return result

    def run(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``function(*args, **kwargs)`` inside :meth:`quiet`, counted by :meth:`finish`."""
        with self.quiet():
            result = function(*args, **kwargs)
        return self.finish(result)

    # -- hooks where the libraries differ ------------------------------------
    # A hook a subclass does not provide is a mapping the adapter does not have:
    # NotMeasured, raised before the library is called.

    def _unmapped(self, what: str) -> NotMeasured:
        return NotMeasured(f"the {self.name} adapter maps no {what}: not measured")

    def erf(self, x: Any) -> Any:
        raise self._unmapped("erf")

    def matmul_float64(self, a: Any, b: Any) -> Any:
        """``a @ b`` of float32 matrices with the Float64 accumulator requested, as float32."""
        raise self._unmapped("matmul with a Float64 accumulator")

    def scatter_index(self, base: Any, axis: Any, indices: Any) -> tuple[Any, ...]:
        """``(:, ..., :, indices)`` with *indices* at *axis*, for ``base[...]``.

        The library judges the axis first, with its own ``moveaxis`` (the check
        its functions make of an axis argument); only an axis it accepted is
        turned into a position.
        """
        self.xp.moveaxis(base, axis, 0)
        return (slice(None),) * (operator.index(axis) % base.ndim) + (indices,)

    def scatter(self, base: Any, index: tuple[Any, ...], updates: Any) -> Any:
        """A copy of *base* with ``[index] = updates``."""
        raise self._unmapped("scatter")

    def scatter_add(self, base: Any, index: tuple[Any, ...], updates: Any) -> Any:
        """A copy of *base* with *updates* added at ``[index]`` (duplicates accumulate)."""
        raise self._unmapped("scatter_add")

    def conv(self, lhs: Any, rhs: Any, strides: Any, padding: Any, lhs_dilation: Any,
             rhs_dilation: Any, groups: Any) -> Any:  # fmt: skip
        """The cross-correlation of conv_general (see the reference semantics)."""
        raise self._unmapped("conv_general")

    def sort(self, x: Any, axis: Any, descending: Any, values: bool) -> Any:
        raise self._unmapped("sort")

    def topk(self, x: Any, k: Any, axis: Any, largest: Any, values: bool) -> Any:
        raise self._unmapped("top-k")


# ---------------------------------------------------------------------------
# Elementwise kernels
# ---------------------------------------------------------------------------

_BINARY = {
    "add": "add",
    "sub": "subtract",
    "mul": "multiply",
    "elementwise_mul": "multiply",
    "div": "divide",
    "rem": "fmod",
    "maximum": "maximum",
    "minimum": "minimum",
    "eq": "equal",
    "ne": "not_equal",
    "lt": "less",
    "le": "less_equal",
    "pow": "power",
}
_UNARY = {
    "neg": "negative",
    "abs": "abs",
    "sign": "sign",
    "sqrt": "sqrt",
    "recip": "reciprocal",
    "floor": "floor",
    "ceil": "ceil",
    "round": "rint",
    "exp": "exp",
    "exp2": "exp2",
    "log": "log",
    "log2": "log2",
    "sin": "sin",
    "cos": "cos",
    "tanh": "tanh",
    "logical_not": "logical_not",
}


#: operation -> numpy's (and jax.numpy's) name of the function that computes it
NUMPY_FUNCTIONS: dict[str, str] = {**_BINARY, **_UNARY, "cumsum": "cumsum"}


def binary(backend: ArrayNamespaceBackend, plan: OperationPlan, a: Any, b: Any) -> Any:
    """The namespace's binary function of the operation (Int32 paths wrap)."""
    x, y = backend.operand(plan, 0, a), backend.operand(plan, 1, b)
    return backend.run(backend.function(plan.operation), x, y)


def unary(backend: ArrayNamespaceBackend, plan: OperationPlan, a: Any) -> Any:
    """The namespace's unary function of the operation."""
    x = backend.operand(plan, 0, a)
    return backend.run(backend.function(plan.operation), x)


def _formula(function: Callable[[Any, Any], Any]) -> Kernel:
    """A unary kernel from ``function(xp, x)`` (an expression of namespace calls)."""

    def kernel(backend: ArrayNamespaceBackend, plan: OperationPlan, a: Any) -> Any:
        x = backend.operand(plan, 0, a)
        return backend.run(function, backend.xp, x)

    kernel.__name__ = function.__name__
    return kernel


def _rsqrt(xp: Any, x: Any) -> Any:
    return xp.float32(1) / xp.sqrt(x)


def _sigmoid(xp: Any, x: Any) -> Any:
    one = xp.float32(1)
    return one / (one + xp.exp(-x))


def _silu(xp: Any, x: Any) -> Any:
    return x / (xp.float32(1) + xp.exp(-x))


def _softplus(xp: Any, x: Any) -> Any:
    return xp.logaddexp(xp.float32(0), x)


def _elu(xp: Any, x: Any) -> Any:
    return xp.where(x > 0, x, xp.expm1(x))


def _relu(xp: Any, x: Any) -> Any:
    return xp.maximum(x, 0)  # a weak 0: float32 or int32 like x


def _leaky_relu(xp: Any, x: Any) -> Any:
    return xp.where(x >= 0, x, x * LEAKY_RELU_SLOPE)


def erf(backend: ArrayNamespaceBackend, plan: OperationPlan, a: Any) -> Any:
    x = backend.operand(plan, 0, a)
    return backend.run(backend.erf, x)


_INV_SQRT2 = np.float32(1 / math.sqrt(2))


def gelu(backend: ArrayNamespaceBackend, plan: OperationPlan, a: Any) -> Any:
    """The erf form, written the textbook way in float32."""
    x = backend.operand(plan, 0, a)
    half, one = np.float32(0.5), np.float32(1)
    return backend.run(lambda v: half * v * (one + backend.erf(v * _INV_SQRT2)), x)


def clamp(backend: ArrayNamespaceBackend, plan: OperationPlan, x: Any, lo: Any, hi: Any) -> Any:
    v, low, high = (backend.operand(plan, i, a) for i, a in enumerate((x, lo, hi)))
    return backend.run(backend.xp.clip, v, low, high)


def select(backend: ArrayNamespaceBackend, plan: OperationPlan, c: Any, t: Any, f: Any) -> Any:
    cond, on_true, on_false = (backend.operand(plan, i, a) for i, a in enumerate((c, t, f)))
    return backend.run(backend.xp.where, cond, on_true, on_false)


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------


def reduce_sum(
    backend: ArrayNamespaceBackend, plan: OperationPlan, x: Any, axis: Any = None,
    keepdims: Any = False,
) -> Any:  # fmt: skip
    """xp.sum: the library's order; Int32 summed in int32 (wraps); Float64 on request."""
    xp, v = backend.xp, backend.operand(plan, 0, x)
    if plan.accumulation is Accumulation.EXACT_INTEGER:
        return backend.run(xp.sum, v, axis=axis, keepdims=keepdims, dtype=xp.int32)
    if plan.accumulator_dtype is DType.Float64:
        return backend.run(
            lambda: backend.cast(
                xp.sum(v, axis=axis, keepdims=keepdims, dtype=xp.float64), xp.float32
            )
        )
    return backend.run(xp.sum, v, axis=axis, keepdims=keepdims)


def reduce_prod(
    backend: ArrayNamespaceBackend, plan: OperationPlan, x: Any, axis: Any = None,
    keepdims: Any = False,
) -> Any:  # fmt: skip
    v = backend.operand(plan, 0, x)
    return backend.run(backend.xp.prod, v, axis=axis, keepdims=keepdims)


def _extreme(name: str) -> Kernel:
    def kernel(
        backend: ArrayNamespaceBackend, plan: OperationPlan, x: Any, axis: Any = None,
        keepdims: Any = False,
    ) -> Any:  # fmt: skip
        v = backend.operand(plan, 0, x)
        return backend.run(getattr(backend.xp, name), v, axis=axis, keepdims=keepdims)

    kernel.__name__ = f"reduce_{name}"
    return kernel


def _arg(name: str) -> Kernel:
    def kernel(
        backend: ArrayNamespaceBackend, plan: OperationPlan, x: Any, axis: Any = None
    ) -> Any:
        xp, v = backend.xp, backend.operand(plan, 0, x)
        return backend.run(lambda: backend.cast(getattr(xp, name)(v, axis=axis), xp.int32))

    kernel.__name__ = name
    return kernel


def cumsum(backend: ArrayNamespaceBackend, plan: OperationPlan, x: Any, axis: Any) -> Any:
    v = backend.operand(plan, 0, x)
    return backend.run(backend.function("cumsum"), v, axis=axis)


# ---------------------------------------------------------------------------
# Structured operations
# ---------------------------------------------------------------------------


def matmul(backend: ArrayNamespaceBackend, plan: OperationPlan, a: Any, b: Any) -> Any:
    """xp.matmul (Int32 x Int32 in int32, wrapping); a Float64 request goes to the hook."""
    x, y = backend.operand(plan, 0, a), backend.operand(plan, 1, b)
    if (
        plan.compute is not Arithmetic.INT32_EXACT_CHECKED
        and plan.accumulator_dtype is DType.Float64
    ):
        return backend.run(backend.matmul_float64, x, y)
    return backend.run(backend.xp.matmul, x, y)


def conv_general(
    backend: ArrayNamespaceBackend, plan: OperationPlan, lhs: Any, rhs: Any,
    window_strides: Any = None, padding: Any = None, lhs_dilation: Any = None,
    rhs_dilation: Any = None, feature_group_count: Any = 1,
) -> Any:  # fmt: skip
    x, w = backend.operand(plan, 0, lhs), backend.operand(plan, 1, rhs)
    return backend.run(backend.conv, x, w, window_strides, padding, lhs_dilation, rhs_dilation,
                       feature_group_count)  # fmt: skip


def gather(backend: ArrayNamespaceBackend, plan: OperationPlan, data: Any, indices: Any,
           axis: Any) -> Any:  # fmt: skip
    d, i = backend.operand(plan, 0, data), backend.operand(plan, 1, indices)
    return backend.run(backend.xp.take, d, i, axis=axis)


def scatter(backend: ArrayNamespaceBackend, plan: OperationPlan, base: Any, indices: Any,
            updates: Any, axis: Any) -> Any:  # fmt: skip
    b, i, u = (backend.operand(plan, p, a) for p, a in enumerate((base, indices, updates)))
    with backend.quiet():
        index = backend.scatter_index(b, axis, i)
    return backend.run(backend.scatter, b, index, u)


def scatter_add(backend: ArrayNamespaceBackend, plan: OperationPlan, base: Any, indices: Any,
                updates: Any, axis: Any) -> Any:  # fmt: skip
    b, i, u = (backend.operand(plan, p, a) for p, a in enumerate((base, indices, updates)))
    with backend.quiet():
        index = backend.scatter_index(b, axis, i)
    return backend.run(backend.scatter_add, b, index, u)


def _sort(values: bool) -> Kernel:
    def kernel(backend: ArrayNamespaceBackend, plan: OperationPlan, x: Any, axis: Any = -1,
               descending: Any = False) -> Any:  # fmt: skip
        v = backend.operand(plan, 0, x)
        return backend.run(backend.sort, v, axis, descending, values)

    kernel.__name__ = "sort_values" if values else "sort_indices"
    return kernel


def _topk(values: bool) -> Kernel:
    def kernel(backend: ArrayNamespaceBackend, plan: OperationPlan, x: Any, k: Any,
               axis: Any = -1, largest: Any = True) -> Any:  # fmt: skip
        v = backend.operand(plan, 0, x)
        return backend.run(backend.topk, v, k, axis, largest, values)

    kernel.__name__ = "topk_values" if values else "topk_indices"
    return kernel


def refusal(operation: str, why: str) -> Kernel:
    """A kernel for an operation the library has no function for: NotMeasured saying
    *why*, raised after planning (so the planner's errors still come first) and
    before anything is computed.  The operation is never composed from others."""

    def kernel(backend: ArrayNamespaceBackend, plan: OperationPlan, *args: Any) -> Any:
        raise NotMeasured(f"{operation}: {why}: not measured")

    kernel.__name__ = f"refuse_{operation}"
    return kernel


#: operation name -> kernel, every registered operation
KERNELS: dict[str, Kernel] = {
    **dict.fromkeys(_BINARY, binary),
    **dict.fromkeys(_UNARY, unary),
    "rsqrt": _formula(_rsqrt),
    "sigmoid": _formula(_sigmoid),
    "silu": _formula(_silu),
    "softplus": _formula(_softplus),
    "elu": _formula(_elu),
    "relu": _formula(_relu),
    "leaky_relu": _formula(_leaky_relu),
    "erf": erf,
    "gelu": gelu,
    "clamp": clamp,
    "select": select,
    "reduce_sum": reduce_sum,
    "reduce_prod": reduce_prod,
    "reduce_max": _extreme("max"),
    "reduce_min": _extreme("min"),
    "argmax": _arg("argmax"),
    "argmin": _arg("argmin"),
    "cumsum": cumsum,
    "matmul": matmul,
    "conv_general": conv_general,
    "gather": gather,
    "scatter": scatter,
    "scatter_add": scatter_add,
    "_sort_values": _sort(values=True),
    "_sort_indices": _sort(values=False),
    "_topk_values": _topk(values=True),
    "_topk_indices": _topk(values=False),
}

#: the shared kernels that compose an operation from several namespace calls (operation
#: -> how): a backend that keeps one of them declares it in ``composed_operations``
FORMULAS: dict[str, str] = {
    "rsqrt": "xp.float32(1) / xp.sqrt(x) (two roundings)",
    "sigmoid": "1 / (1 + xp.exp(-x)) in float32",
    "silu": "x / (1 + xp.exp(-x)) in float32",
    "softplus": "xp.logaddexp(0, x)",
    "elu": "xp.where(x > 0, x, xp.expm1(x))",
    "relu": "xp.maximum(x, 0)",
    "leaky_relu": "xp.where(x >= 0, x, x * float32(0.01))",
    "gelu": "0.5 * x * (1 + backend.erf(x * float32(1 / sqrt 2))) in float32",
}

ArrayNamespaceBackend.kernels = KERNELS
ArrayNamespaceBackend.functions = NUMPY_FUNCTIONS
