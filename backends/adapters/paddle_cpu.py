"""PaddlePaddle on the CPU as a plancheck backend: ``"paddle"`` (extra ``plancheck[paddle]``).

The adapter measures Paddle, not itself: the central planner decides every
dtype (:class:`backends.dispatch.KernelBackend`), and each kernel then calls
the Paddle operation a Paddle user writes for that plan, with Paddle's
defaults.  Whatever Paddle does differently from the reference is left in
place, so the conformance report shows it as a deviation
(``docs/backends/paddle.md`` lists the ones measured, and
``docs/backends/paddle_repro.py`` reproduces each without plancheck).
Importing this module without paddle installed raises ImportError, which
``backends.get`` turns into a BackendLoadError naming the extra.

Place, threads, logging
-----------------------
``PaddleBackend()`` calls ``paddle.set_device("cpu")`` (process-wide; every
tensor :meth:`PaddleBackend.from_tensor` makes lies on ``Place(cpu)``).
Paddle documents no intra-op thread switch for eager CPU kernels (its
PyTorch migration guide says of ``torch.set_num_threads`` that Paddle has no
such API), so the thread count is Paddle's own default and nothing is set.
Paddle's import warns that ``ccache`` is missing (a ``UserWarning`` of its
C++-extension builder, irrelevant to computing); that one warning is
filtered, through Python's documented ``warnings`` filter, while this module
imports paddle.  Nothing else is configured.

Native values
-------------
* A *tensor* is a ``paddle.Tensor`` on the CPU of dtype ``paddle.float32``,
  ``paddle.int32`` or ``paddle.bool`` (``DType.Float32``, ``DType.Int32``,
  ``DType.Bool``); another dtype or place is a TypeError before planning.
  The exchange with :class:`oracle.Tensor` goes through numpy, bit for bit.
* A *weak scalar* is a real Python or numpy number, handed to Paddle as the
  Python scalar of :func:`~backends.adapters.array_namespace.weak_value`
  (``Fraction`` as ``float(value)``), so Paddle's own scalar rule decides how
  it becomes a tensor value.  Paddle's functions take tensors, except the
  exponent of ``paddle.pow`` and the bounds of ``paddle.clip``; a scalar
  operand of ``mul`` and the base of ``pow`` are written with Paddle's tensor
  operators (``x * s``, ``s ** x``), which take Python scalars.

Mapping (plan -> paddle; ``F`` = ``paddle.nn.functional``)
----------------------------------------------------------
Tensor operands are first converted as the plan's ``convert_to`` says, with
Paddle's cast (``x.astype(paddle.float32)``).

* elementwise: ``paddle.add/subtract/multiply/divide/pow/maximum/minimum``,
  ``paddle.equal/not_equal/less_than/less_equal``,
  ``paddle.neg/abs/sign/sqrt/reciprocal/rsqrt/floor/ceil/round``,
  ``paddle.exp/log/log2/sin/cos/tanh/erf``, ``paddle.logical_not``,
  ``F.sigmoid/silu/softplus/elu/relu/gelu`` and ``F.leaky_relu(x, 0.01)``
  with Paddle's defaults (softplus beta 1 threshold 20, elu alpha 1, gelu
  ``approximate=False``); ``paddle.where`` (select); ``paddle.clip``
  (clamp: Paddle documents scalar bounds or one-element tensors, and refuses
  others itself).
* ``rem`` and ``exp2`` have no Paddle operation (``paddle.mod`` and
  ``paddle.remainder`` are the floored modulo, whose sign follows the
  divisor, not C ``fmod``; there is no ``paddle.exp2``): the kernels raise
  :class:`~backends.errors.NotMeasured`, they are not composed from other
  operations (``composed_operations`` is empty).
* ``reduce_sum``: ``paddle.sum(x, axis, dtype, keepdim)`` with
  ``dtype=paddle.int32`` on the Int32 plan and ``paddle.float64`` (then
  ``astype(float32)``) for a Float64 accumulator; ``reduce_prod``:
  ``paddle.prod``; ``reduce_max/min``: ``paddle.max/min``;
  ``argmax/argmin``: ``paddle.argmax/argmin(..., dtype=paddle.int32)``;
  ``cumsum``: ``paddle.cumsum``.  Axes are passed as given (a tuple as a
  list), so ``axis=()`` reaches Paddle as ``[]``.
* ``matmul``: ``paddle.matmul``; a Float64 accumulator is the matmul of the
  float64 casts, cast back to float32.
* ``conv_general``: ``F.conv1d/conv2d/conv3d`` (no bias) with the stride,
  window dilation and groups as given and the non-negative padding as
  ``[before, after]`` pairs; as in the torch adapter, input dilation writes
  the input into a zero tensor at every ``lhs_dilation``-th position and a
  negative padding crops the input by slicing (data movement only; every
  product and sum is Paddle's conv).  Paddle's conv has no input dilation
  and no negative padding, so only well-formed values of those two have a
  translation (:mod:`backends.adapters.translate`; any other is
  NotMeasured).  No spatial dimension runs as conv1d over a length-1
  dimension; more than three have no Paddle conv (NotMeasured).
* ``gather``: ``paddle.gather(x, flat_indices, axis)``, reshaped to the numpy
  ``take`` shape; ``scatter``: ``paddle.scatter(..., overwrite=True)``,
  which writes along the first axis, on the base with the axis moved first
  (``paddle.moveaxis``) and moved back; ``scatter_add``:
  ``paddle.index_add``.
* ``_sort_values``/``_sort_indices``: ``paddle.sort``/``paddle.argsort``
  with ``stable=True``; ``_topk_*``: ``paddle.topk(sorted=True)``; indices
  ``astype(paddle.int32)``.

Errors and allocations
----------------------
Planning errors are the planner's, raised before Paddle is called.  Every
other check (shapes, axes, indices, ``k``, empty reductions) is Paddle's own:
the adapter adds none, so the report shows the exception classes Paddle
raises.  Paddle allocates inside its calls, where the adapter cannot watch:
one ``allocated()`` is counted per result Paddle hands back.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from oracle import Accumulation, DType, OperandRole, OperationPlan, Tensor

from ..dispatch import Kernel, KernelBackend
from ..errors import NotMeasured
from .array_namespace import LEAKY_RELU_SLOPE, weak_value
from .translate import int_value, padding_pairs, per_dimension

with warnings.catch_warnings():
    # paddle's C++-extension builder warns at import that ccache is missing
    warnings.filterwarnings("ignore", message="No ccache found", category=UserWarning)
    import paddle
    import paddle.nn.functional as F

__all__ = ["KERNELS", "PaddleBackend"]

_DTYPES: dict[Any, DType] = {
    paddle.float32: DType.Float32,
    paddle.int32: DType.Int32,
    paddle.bool: DType.Bool,
}
_PADDLE_DTYPES: dict[DType, Any] = {v: k for k, v in _DTYPES.items()}


# ---------------------------------------------------------------------------
# Operands and results
# ---------------------------------------------------------------------------


def _operand(plan: OperationPlan, position: int, value: Any) -> Any:
    """Operand *position* in the plan's ``convert_to`` dtype (Paddle's cast)."""
    operand = plan.operands[position]
    if operand.role is OperandRole.WEAK_SCALAR:
        return weak_value(value)
    target = _PADDLE_DTYPES[operand.convert_to]
    return value if value.dtype == target else value.astype(target)


def _operands(plan: OperationPlan, *values: Any) -> list[Any]:
    return [_operand(plan, position, value) for position, value in enumerate(values)]


def _run(backend: PaddleBackend, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)``, its result counted as one allocation."""
    result = function(*args, **kwargs)
    backend.allocated()
    return result


def _axes(axis: Any) -> Any:
    """An axis argument as Paddle takes it: a tuple of axes as a list, else as given."""
    return list(axis) if isinstance(axis, tuple) else axis


# ---------------------------------------------------------------------------
# Elementwise
# ---------------------------------------------------------------------------


def _leaky_relu(x: Any) -> Any:
    return F.leaky_relu(x, float(LEAKY_RELU_SLOPE))


#: unary operation -> paddle function
UNARY: dict[str, Callable[[Any], Any]] = {
    "abs": paddle.abs,
    "ceil": paddle.ceil,
    "cos": paddle.cos,
    "elu": F.elu,
    "erf": paddle.erf,
    "exp": paddle.exp,
    "floor": paddle.floor,
    "gelu": F.gelu,
    "leaky_relu": _leaky_relu,
    "log": paddle.log,
    "log2": paddle.log2,
    "logical_not": paddle.logical_not,
    "neg": paddle.neg,
    "recip": paddle.reciprocal,
    "relu": F.relu,
    "round": paddle.round,
    "rsqrt": paddle.rsqrt,
    "sigmoid": F.sigmoid,
    "sign": paddle.sign,
    "silu": F.silu,
    "sin": paddle.sin,
    "softplus": F.softplus,
    "sqrt": paddle.sqrt,
    "tanh": paddle.tanh,
}

#: binary operation -> paddle function of two tensors
BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "add": paddle.add,
    "sub": paddle.subtract,
    "mul": paddle.multiply,
    "elementwise_mul": paddle.multiply,
    "div": paddle.divide,
    "pow": paddle.pow,
    "maximum": paddle.maximum,
    "minimum": paddle.minimum,
    "eq": paddle.equal,
    "ne": paddle.not_equal,
    "lt": paddle.less_than,
    "le": paddle.less_equal,
}

#: operations Paddle has no function for -> what a user would look for
MISSING: dict[str, str] = {
    "rem": "a truncated remainder (C fmod): paddle.mod and paddle.remainder are the floored "
    "modulo, whose sign follows the divisor",
    "exp2": "exp2 (no paddle.exp2)",
}


def _unary_kernel(function: Callable[[Any], Any]) -> Kernel:
    def kernel(backend: PaddleBackend, plan: OperationPlan, x: Any) -> Any:
        return _run(backend, function, _operand(plan, 0, x))

    return kernel


def _binary_kernel(function: Callable[[Any, Any], Any]) -> Kernel:
    def kernel(backend: PaddleBackend, plan: OperationPlan, a: Any, b: Any) -> Any:
        x, y = _operands(plan, a, b)
        if isinstance(x, paddle.Tensor) and isinstance(y, paddle.Tensor):
            return _run(backend, function, x, y)
        return _run(backend, _SCALAR_FORMS[plan.operation], x, y)

    return kernel


def _scalar_mul(x: Any, y: Any) -> Any:
    return x * y  # Tensor.__mul__ / __rmul__: paddle's operator takes a Python scalar


def _scalar_pow(x: Any, y: Any) -> Any:
    if isinstance(x, paddle.Tensor):
        return paddle.pow(x, y)  # paddle.pow takes a Python exponent
    return x**y  # Tensor.__rpow__: a Python base


#: the operations with a weak-scalar plan -> the Paddle spelling with a Python scalar
_SCALAR_FORMS: dict[str, Callable[[Any, Any], Any]] = {"mul": _scalar_mul, "pow": _scalar_pow}


def _missing_kernel(operation: str) -> Kernel:
    def kernel(backend: PaddleBackend, plan: OperationPlan, *args: Any) -> Any:
        raise NotMeasured(
            f"{operation}: paddle {paddle.__version__} has no operation for "
            f"{MISSING[operation]}: not measured"
        )

    return kernel


def select(backend: PaddleBackend, plan: OperationPlan, cond: Any, on_true: Any,
           on_false: Any) -> Any:  # fmt: skip
    return _run(backend, paddle.where, *_operands(plan, cond, on_true, on_false))


def clamp(backend: PaddleBackend, plan: OperationPlan, x: Any, lo: Any, hi: Any) -> Any:
    return _run(backend, paddle.clip, *_operands(plan, x, lo, hi))


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------


def reduce_sum(backend: PaddleBackend, plan: OperationPlan, x: Any, axis: Any = None,
               keepdims: Any = False) -> Any:  # fmt: skip
    v, axes = _operand(plan, 0, x), _axes(axis)
    if plan.accumulation is Accumulation.EXACT_INTEGER:
        return _run(backend, paddle.sum, v, axis=axes, dtype=paddle.int32, keepdim=keepdims)
    if plan.accumulator_dtype is DType.Float64:
        wide = paddle.sum(v, axis=axes, dtype=paddle.float64, keepdim=keepdims)
        return _run(backend, wide.astype, paddle.float32)
    return _run(backend, paddle.sum, v, axis=axes, keepdim=keepdims)


def _reduction(function: Callable[..., Any]) -> Kernel:
    def kernel(backend: PaddleBackend, plan: OperationPlan, x: Any, axis: Any = None,
               keepdims: Any = False) -> Any:  # fmt: skip
        return _run(backend, function, _operand(plan, 0, x), axis=_axes(axis), keepdim=keepdims)

    return kernel


def _arg(function: Callable[..., Any]) -> Kernel:
    def kernel(backend: PaddleBackend, plan: OperationPlan, x: Any, axis: Any = None) -> Any:
        return _run(backend, function, _operand(plan, 0, x), axis=axis, dtype=paddle.int32)

    return kernel


def cumsum(backend: PaddleBackend, plan: OperationPlan, x: Any, axis: Any) -> Any:
    return _run(backend, paddle.cumsum, _operand(plan, 0, x), axis=axis)


# ---------------------------------------------------------------------------
# matmul / conv_general
# ---------------------------------------------------------------------------


def matmul(backend: PaddleBackend, plan: OperationPlan, a: Any, b: Any) -> Any:
    x, y = _operands(plan, a, b)
    if plan.accumulation is not Accumulation.EXACT_INTEGER and (
        plan.accumulator_dtype is DType.Float64
    ):
        wide = paddle.matmul(x.astype(paddle.float64), y.astype(paddle.float64))
        return _run(backend, wide.astype, paddle.float32)
    return _run(backend, paddle.matmul, x, y)


_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def conv_general(
    backend: PaddleBackend, plan: OperationPlan, lhs: Any, rhs: Any,
    window_strides: Any = None, padding: Any = None, lhs_dilation: Any = None,
    rhs_dilation: Any = None, feature_group_count: Any = 1,
) -> Any:  # fmt: skip
    spatial = lhs.ndim - 2
    if spatial > 3:
        raise NotMeasured(
            f"{plan.operation}: paddle has no convolution over {spatial} spatial dimensions: "
            f"not measured"
        )
    x, w = _operands(plan, lhs, rhs)
    if spatial < 0:  # no batch and channel dimensions: Paddle's conv judges the ranks
        return _run(backend, F.conv1d, x, w)
    pads = padding_pairs("paddle", padding, spatial)
    spread = per_dimension("paddle", "lhs_dilation", lhs_dilation, spatial)
    if spatial == 0:  # a 1x1 convolution over a length-1 dimension (Paddle has no conv0d)
        per_dimension("paddle", "window_strides", window_strides, 0)
        per_dimension("paddle", "rhs_dilation", rhs_dilation, 0)
        return _run(
            backend,
            lambda: F.conv1d(x[..., None], w[..., None], groups=feature_group_count)[..., 0],
        )
    ones = [1] * spatial
    strides = ones if window_strides is None else _listed(window_strides)
    dilation = ones if rhs_dilation is None else _listed(rhs_dilation)
    return _run(backend, paddle_conv, x, w, strides, pads, spread, dilation, feature_group_count)


def _listed(value: Any) -> Any:
    """A per-dimension parameter as Paddle takes it: a tuple as a list, else as given."""
    return list(value) if isinstance(value, tuple) else value


def paddle_conv(x: Any, w: Any, strides: Any, pads: tuple[tuple[int, int], ...],
                spread: tuple[int, ...], dilation: Any, groups: Any) -> Any:  # fmt: skip
    """Paddle's conv of *x* spread by *spread* and padded (cropped) by *pads*.

    Input dilation writes *x* at every ``spread``-th position of a zero tensor of the
    dilated extents; a negative padding crops by slicing; the rest is Paddle's conv.
    """
    if any(d > 1 for d in spread):
        extents = [(n - 1) * d + 1 if n else 0 for n, d in zip(x.shape[2:], spread)]
        out = paddle.zeros([*x.shape[:2], *extents], dtype=x.dtype)
        # the index is named first: mypy's 3.10 target misreads ``out[(a, *b)]``
        spread_at = (slice(None), slice(None), *(slice(None, None, d) for d in spread))
        out[spread_at] = x
        x = out
    kept = (
        slice(None),
        slice(None),
        *(slice(max(-low, 0), n - max(-high, 0)) for n, (low, high) in zip(x.shape[2:], pads)),
    )
    x = x[kept]
    return _CONV[len(pads)](
        x, w, stride=strides,
        padding=[[0, 0], [0, 0], *([max(low, 0), max(high, 0)] for low, high in pads)],
        dilation=dilation, groups=groups,
    )  # fmt: skip


# ---------------------------------------------------------------------------
# gather / scatter / scatter_add
# ---------------------------------------------------------------------------


def gather(backend: PaddleBackend, plan: OperationPlan, data: Any, indices: Any,
           axis: Any) -> Any:  # fmt: skip
    d, i = _operands(plan, data, indices)
    gathered = paddle.gather(d, i.reshape([-1]), axis=axis)  # Paddle judges axis and indices
    at = int_value(axis)
    if at is None:  # Paddle accepted an axis of another form: its result as it is
        return _run(backend, lambda: gathered)
    at %= d.ndim
    return _run(backend, gathered.reshape, [*d.shape[:at], *i.shape, *d.shape[at + 1 :]])


def _flat_updates(b: Any, i: Any, u: Any, axis: Any) -> tuple[Any, Any]:
    """The indices as one dimension, and the updates with that dimension at *axis*.

    The axis is Paddle's to check: one outside ``[-ndim, ndim)`` (or not an int)
    leaves the updates as they are, and the Paddle call that gets it reacts.
    """
    flat = i.reshape([-1])
    if isinstance(axis, int) and -b.ndim <= axis < b.ndim:
        at = axis % b.ndim
        u = u.reshape([*b.shape[:at], flat.shape[0], *b.shape[at + 1 :]])
    return flat, u


def scatter(backend: PaddleBackend, plan: OperationPlan, base: Any, indices: Any,
            updates: Any, axis: Any) -> Any:  # fmt: skip
    b, i, u = _operands(plan, base, indices, updates)
    flat, source = _flat_updates(b, i, u, axis)
    first = paddle.scatter(paddle.moveaxis(b, axis, 0), flat, paddle.moveaxis(source, axis, 0),
                           overwrite=True)  # fmt: skip
    return _run(backend, paddle.moveaxis, first, 0, axis)


def scatter_add(backend: PaddleBackend, plan: OperationPlan, base: Any, indices: Any,
                updates: Any, axis: Any) -> Any:  # fmt: skip
    b, i, u = _operands(plan, base, indices, updates)
    flat, source = _flat_updates(b, i, u, axis)
    return _run(backend, paddle.index_add, b, flat, axis, source)


# ---------------------------------------------------------------------------
# sort / topk (the private plans behind the framework's sort and topk)
# ---------------------------------------------------------------------------


def _sort(function: Callable[..., Any], indices: bool) -> Kernel:
    def kernel(backend: PaddleBackend, plan: OperationPlan, x: Any, axis: Any = -1,
               descending: Any = False) -> Any:  # fmt: skip
        result = function(_operand(plan, 0, x), axis=axis, descending=descending, stable=True)
        backend.allocated()
        return result.astype(paddle.int32) if indices else result

    return kernel


def _topk(indices: bool) -> Kernel:
    def kernel(backend: PaddleBackend, plan: OperationPlan, x: Any, k: Any, axis: Any = -1,
               largest: Any = True) -> Any:  # fmt: skip
        v = _operand(plan, 0, x)
        values, positions = paddle.topk(v, k, axis=axis, largest=largest, sorted=True)
        backend.allocated()
        return positions.astype(paddle.int32) if indices else values

    return kernel


#: operation name -> kernel, every registered operation
KERNELS: dict[str, Kernel] = {
    **{name: _unary_kernel(function) for name, function in UNARY.items()},
    **{name: _binary_kernel(function) for name, function in BINARY.items()},
    **{name: _missing_kernel(name) for name in MISSING},
    "select": select,
    "clamp": clamp,
    "reduce_sum": reduce_sum,
    "reduce_prod": _reduction(paddle.prod),
    "reduce_max": _reduction(paddle.max),
    "reduce_min": _reduction(paddle.min),
    "argmax": _arg(paddle.argmax),
    "argmin": _arg(paddle.argmin),
    "cumsum": cumsum,
    "matmul": matmul,
    "conv_general": conv_general,
    "gather": gather,
    "scatter": scatter,
    "scatter_add": scatter_add,
    "_sort_values": _sort(paddle.sort, indices=False),
    "_sort_indices": _sort(paddle.argsort, indices=True),
    "_topk_values": _topk(indices=False),
    "_topk_indices": _topk(indices=True),
}


class PaddleBackend(KernelBackend):
    """PaddlePaddle's eager CPU kernels executing the central plans (see the module docstring)."""

    name = "paddle"
    kernels = KERNELS
    #: Paddle's functions only: nothing is composed (module docstring)
    composed_operations: Mapping[str, str] = {}
    version = f"paddlepaddle {paddle.__version__}"

    def __init__(self) -> None:
        super().__init__()
        paddle.set_device("cpu")

    def dtype_of(self, value: Any) -> DType | None:
        """The dtype of a Paddle tensor; None for anything else (a weak scalar).

        A tensor of another dtype, or not on the CPU, is a TypeError.
        """
        if not isinstance(value, paddle.Tensor):
            return None
        dtype = _DTYPES.get(value.dtype)
        if dtype is None:
            raise TypeError(
                f"the paddle backend holds float32, int32 and bool tensors; got {value.dtype}"
            )
        if not value.place.is_cpu_place():
            raise TypeError(f"the paddle backend holds CPU tensors; got one on {value.place}")
        return dtype

    def from_tensor(self, tensor: Tensor) -> Any:
        """*tensor* as a new Paddle CPU tensor, bit for bit."""
        if not isinstance(tensor, Tensor):
            raise TypeError(f"expected an oracle.Tensor, got {type(tensor).__name__}")
        return self.from_numpy(tensor.to_numpy())

    def from_numpy(self, array: np.ndarray) -> Any:
        """The optional fast exchange (``backends/protocol.py``): a copy, bits kept."""
        return paddle.to_tensor(np.array(array, copy=True), place=paddle.CPUPlace())

    def to_numpy(self, native: Any) -> np.ndarray:
        """*native* as a new numpy array, bits kept (TypeError for anything else)."""
        if not isinstance(native, paddle.Tensor):
            raise TypeError(f"expected a paddle.Tensor, got {type(native).__name__}")
        self.dtype_of(native)
        return np.array(native.numpy(), copy=True)

    def to_tensor(self, native: Any) -> Tensor:
        return Tensor.from_numpy(self.to_numpy(native))
