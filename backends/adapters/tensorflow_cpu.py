"""TensorFlow as a plancheck backend: ``"tensorflow"``, eager operations on the CPU.

``backends.get("tensorflow")``, from the optional extra ``plancheck[tensorflow]``
(``tensorflow-cpu``); importing this module without TensorFlow raises
ImportError, which ``backends.get`` turns into a BackendLoadError naming the
extra.  The adapter measures TensorFlow, not itself: the central planner
decides every dtype (:class:`backends.dispatch.KernelBackend`), then each kernel
makes the eager call a TensorFlow user writes for that plan, with TensorFlow's
defaults (oneDNN included, which this build turns on by default).  Whatever
TensorFlow does differently from the reference stays in place, so the report
shows it (``docs/backends/tensorflow.md`` lists what was measured).

Start-up and threads
--------------------
Before ``import tensorflow`` the module sets ``TF_CPP_MIN_LOG_LEVEL=2`` unless
the environment already sets it: TensorFlow's documented switch that drops its
C++ INFO and WARNING lines (errors still print).  One line printed before
TensorFlow's logging starts ("All log messages before absl::InitializeLog()
..." and the oneDNN notice) ignores the switch; it is left alone.

``TensorFlowBackend()`` sets TensorFlow's intra-op and inter-op thread pools to
one thread each (``tf.config.threading.set_intra_op_parallelism_threads(1)``
and ``set_inter_op_parallelism_threads(1)``), so every reduction, scan, matmul
and convolution has one evaluation order per shape on every machine and the
published table is reproducible; the conformance run parallelises across
processes instead.  TensorFlow accepts the setting only before its runtime
starts (before the first operation in the process): asking for another count
afterwards is a :class:`~backends.errors.BackendLoadError`.  ``num_threads=None``
leaves TensorFlow's setting alone.

Native values
-------------
* A *tensor* is an eager ``tf.Tensor`` of ``tf.float32``, ``tf.int32`` or
  ``tf.bool`` (``DType.Float32``, ``Int32``, ``Bool``); another dtype is a
  TypeError before planning.  :meth:`TensorFlowBackend.from_tensor` /
  :meth:`~TensorFlowBackend.to_tensor` exchange through numpy, bit for bit
  (signalling NaNs included); results are copied out, since TensorFlow's
  ``.numpy()`` may hand back the tensor's own buffer.
* A *weak scalar* is handed to TensorFlow as the Python scalar of
  :func:`backends.adapters.array_namespace.weak_value` (``int``, ``float``,
  ``bool`` as they are, a numpy scalar as its ``.item()``, which TensorFlow
  would otherwise type by its numpy dtype, a Fraction as ``float``): an
  operation converts it to the dtype of its tensor operand, TensorFlow's own
  rule (through a binary64 value: a Python int beyond 2**53 is rounded twice).

Mapping (plan -> TensorFlow)
----------------------------
Tensor operands are first converted as the plan's ``convert_to`` says, with
``tf.cast``.  ``tnp`` is ``tf.experimental.numpy``, TensorFlow's NumPy API,
used for the three operations ``tf.math``/``tf.nn`` have no function for.

* elementwise: ``tf.math.add subtract multiply divide pow maximum minimum
  equal not_equal less less_equal``, ``tf.truncatemod`` (rem: C ``fmod``),
  ``tf.math.negative abs sign sqrt reciprocal rsqrt floor ceil round exp log
  sin cos tanh erf sigmoid softplus``, ``tf.nn.relu elu silu``,
  ``tf.nn.leaky_relu(x, alpha=0.01)``, ``tf.nn.gelu(x, approximate=False)``,
  ``tnp.exp2 log2 logical_not``; ``tf.where`` (select),
  ``tf.clip_by_value`` (clamp).
* ``reduce_sum prod max min``: ``tf.math.reduce_*(x, axis, keepdims)`` with
  the axis and keepdims as given; Int32 sums in int32.  A Float64
  accumulator: ``tf.cast(tf.math.reduce_sum(tf.cast(x, tf.float64), ...),
  tf.float32)`` (``reduce_sum`` has no accumulator argument).
* ``argmax/argmin``: ``tf.math.argmax/argmin(x, axis, output_type=tf.int32)``;
  axis None (the flat index; TensorFlow's own default is axis 0) on
  ``tf.reshape(x, [-1])``.  ``cumsum``: ``tf.math.cumsum(x, axis)``.
* ``matmul``: ``tf.linalg.matmul`` (int32 for Int32); a Float64 accumulator
  casts both operands to float64 and the product back to float32.
* ``conv_general``: ``tf.nn.convolution`` over channels-last copies
  (``tf.transpose``; TensorFlow's CPU kernels take NWC/NHWC/NDHWC) with
  ``strides`` and ``dilations`` (rhs dilation); groups are TensorFlow's own
  (inferred from the channel counts); the padding is ``tf.pad`` with zeros
  (negative padding a slice) and the lhs dilation writes the input at every
  ``lhs_dilation``-th position of a zero tensor (``tf.pad`` and ``tf.reshape``),
  as the torch adapter does.  TensorFlow's convolution has no per-side or
  negative padding, no input dilation and no group count (it infers the
  groups from the channel counts), so only well-formed paddings and input
  dilations have a translation (:mod:`backends.adapters.translate`) and only
  a ``feature_group_count`` equal to the inferred one; any other is
  NotMeasured.  No spatial dimension runs as a 1-d convolution over a
  length-1 dimension; more than three has no TensorFlow convolution
  (NotMeasured).
* ``gather``: ``tf.gather(x, indices, axis=axis)``.  ``scatter`` /
  ``scatter_add``: ``tf.tensor_scatter_nd_update`` / ``tf.tensor_scatter_nd_add``
  on the base with the scatter axis moved first (``tnp.moveaxis``, which
  judges the axis) and ``indices[..., None]``.
* ``_sort_values``: ``tf.sort(x, axis, direction)``; ``_sort_indices``:
  ``tf.argsort(x, axis, direction, stable=True)``; ``_topk_values/indices``:
  ``tf.math.top_k(x, k, sorted=True)`` over the last axis (another axis is
  moved last and back by ``tnp.moveaxis``, which judges it).  TensorFlow has
  no smallest-k: ``largest=False`` (or any value but True) is NotMeasured,
  declared ``unsupported = {"topk-smallest"}``, so the suite counts those
  calls and does not judge them.  ``tf.sort``'s ``direction`` is a string:
  ``descending`` True/False translate to it, any other value is
  NotMeasured.

Errors
------
Planning errors are the planner's, raised before TensorFlow is called.  The
adapter adds no check of its own (docs/adapter-policy.md): TensorFlow's
errors (mostly ``tf.errors.InvalidArgumentError``) are measured as they come.
Where the adapter must turn a parameter into something TensorFlow takes, an
axis into a position goes through TensorFlow's own ``tnp.moveaxis`` first
(so a bad axis is TensorFlow's error), and a value with no TensorFlow
spelling is NotMeasured (never a plancheck exception).  Nothing is composed:
``composed_operations`` is empty (``tnp.exp2``, ``log2`` and
``logical_not`` are TensorFlow's NumPy API, one call each).  The allocation
of a result is counted when TensorFlow returns it, so an error TensorFlow
raises is never an "allocation before error".
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's switch: before the import

import operator
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

import numpy as np
import tensorflow as tf

from oracle import Accumulation, DType, OperandRole, OperationPlan, Tensor

from ..dispatch import Kernel, KernelBackend
from ..errors import BackendLoadError, NotMeasured
from .array_namespace import weak_value
from .translate import bool_flag, int_value, padding_pairs, per_dimension

__all__ = ["KERNELS", "TensorFlowBackend"]

tnp = tf.experimental.numpy

_DTYPES: dict[tf.dtypes.DType, DType] = {
    tf.float32: DType.Float32,
    tf.int32: DType.Int32,
    tf.bool: DType.Bool,
}
_TF_DTYPES: dict[DType, tf.dtypes.DType] = {v: k for k, v in _DTYPES.items()}


# ---------------------------------------------------------------------------
# Operands and results
# ---------------------------------------------------------------------------


def _operand(plan: OperationPlan, position: int, value: Any) -> Any:
    """Operand *position* as the plan materialises it (``tf.cast``; weak: a Python scalar)."""
    operand = plan.operands[position]
    if operand.role is OperandRole.WEAK_SCALAR:
        return weak_value(value)
    target = _TF_DTYPES[operand.convert_to]
    return value if value.dtype == target else tf.cast(value, target)


def _operands(plan: OperationPlan, *values: Any) -> list[Any]:
    return [_operand(plan, i, v) for i, v in enumerate(values)]


def _finish(backend: TensorFlowBackend, result: Any) -> Any:
    """Count the result TensorFlow handed back (after every check it made) and return it."""
    backend.allocated()
    return result


# ---------------------------------------------------------------------------
# Elementwise
# ---------------------------------------------------------------------------

#: unary operation -> TensorFlow function
UNARY: dict[str, Callable[[Any], Any]] = {
    "abs": tf.math.abs,
    "ceil": tf.math.ceil,
    "cos": tf.math.cos,
    "elu": tf.nn.elu,
    "erf": tf.math.erf,
    "exp": tf.math.exp,
    "exp2": tnp.exp2,
    "floor": tf.math.floor,
    "gelu": partial(tf.nn.gelu, approximate=False),
    "leaky_relu": partial(tf.nn.leaky_relu, alpha=0.01),
    "log": tf.math.log,
    "log2": tnp.log2,
    "logical_not": tnp.logical_not,
    "neg": tf.math.negative,
    "recip": tf.math.reciprocal,
    "relu": tf.nn.relu,
    "round": tf.math.round,
    "rsqrt": tf.math.rsqrt,
    "sigmoid": tf.math.sigmoid,
    "sign": tf.math.sign,
    "silu": tf.nn.silu,
    "sin": tf.math.sin,
    "softplus": tf.math.softplus,
    "sqrt": tf.math.sqrt,
    "tanh": tf.math.tanh,
}

#: operation with tensor (or weak scalar) operands -> TensorFlow function
ELEMENTWISE: dict[str, Callable[..., Any]] = {
    "add": tf.math.add,
    "sub": tf.math.subtract,
    "mul": tf.math.multiply,
    "elementwise_mul": tf.math.multiply,
    "div": tf.math.divide,
    "rem": tf.truncatemod,
    "pow": tf.math.pow,
    "maximum": tf.math.maximum,
    "minimum": tf.math.minimum,
    "eq": tf.math.equal,
    "ne": tf.math.not_equal,
    "lt": tf.math.less,
    "le": tf.math.less_equal,
    "select": tf.where,
    "clamp": tf.clip_by_value,
}


def _elementwise_kernel(function: Callable[..., Any], name: str) -> Kernel:
    def kernel(backend: TensorFlowBackend, plan: OperationPlan, *values: Any) -> Any:
        return _finish(backend, function(*_operands(plan, *values)))

    kernel.__name__ = name
    return kernel


# ---------------------------------------------------------------------------
# Reductions and scans
# ---------------------------------------------------------------------------


def reduce_sum(
    backend: TensorFlowBackend, plan: OperationPlan, x: Any, axis: Any = None,
    keepdims: Any = False,
) -> Any:  # fmt: skip
    """``tf.math.reduce_sum``; Int32 in int32 (wraps); a Float64 request through float64."""
    v = _operand(plan, 0, x)
    if plan.accumulation is not Accumulation.EXACT_INTEGER and (
        plan.accumulator_dtype is DType.Float64
    ):
        wide = tf.math.reduce_sum(tf.cast(v, tf.float64), axis=axis, keepdims=keepdims)
        return _finish(backend, tf.cast(wide, tf.float32))
    return _finish(backend, tf.math.reduce_sum(v, axis=axis, keepdims=keepdims))


def _reduction(function: Callable[..., Any], name: str) -> Kernel:
    def kernel(
        backend: TensorFlowBackend, plan: OperationPlan, x: Any, axis: Any = None,
        keepdims: Any = False,
    ) -> Any:  # fmt: skip
        v = _operand(plan, 0, x)
        return _finish(backend, function(v, axis=axis, keepdims=keepdims))

    kernel.__name__ = name
    return kernel


def _arg(function: Callable[..., Any], name: str) -> Kernel:
    def kernel(backend: TensorFlowBackend, plan: OperationPlan, x: Any, axis: Any = None) -> Any:
        v = _operand(plan, 0, x)
        if axis is None:  # the flat index: TensorFlow's axis=None means axis 0
            v, axis = tf.reshape(v, [-1]), 0
        return _finish(backend, function(v, axis=axis, output_type=tf.int32))

    kernel.__name__ = name
    return kernel


def cumsum(backend: TensorFlowBackend, plan: OperationPlan, x: Any, axis: Any) -> Any:
    return _finish(backend, tf.math.cumsum(_operand(plan, 0, x), axis=axis))


# ---------------------------------------------------------------------------
# matmul / conv_general
# ---------------------------------------------------------------------------


def matmul(backend: TensorFlowBackend, plan: OperationPlan, a: Any, b: Any) -> Any:
    """``tf.linalg.matmul`` (int32 for Int32, wrapping); a Float64 request in float64."""
    x, y = _operands(plan, a, b)
    if plan.accumulation is not Accumulation.EXACT_INTEGER and (
        plan.accumulator_dtype is DType.Float64
    ):
        wide = tf.linalg.matmul(tf.cast(x, tf.float64), tf.cast(y, tf.float64))
        return _finish(backend, tf.cast(wide, tf.float32))
    return _finish(backend, tf.linalg.matmul(x, y))


def conv_general(
    backend: TensorFlowBackend, plan: OperationPlan, lhs: Any, rhs: Any,
    window_strides: Any = None, padding: Any = None, lhs_dilation: Any = None,
    rhs_dilation: Any = None, feature_group_count: Any = 1,
) -> Any:  # fmt: skip
    """``tf.nn.convolution`` with the strides and dilations as given (module docstring)."""
    spatial = lhs.ndim - 2
    if spatial > 3:
        raise NotMeasured(
            f"{plan.operation}: TensorFlow has no convolution over {spatial} spatial "
            f"dimensions: not measured"
        )
    x, w = _operands(plan, lhs, rhs)
    if spatial < 0:  # no batch and channel dimensions: TensorFlow judges the ranks
        return _finish(backend, tf.nn.convolution(x, w))
    _groups(plan.operation, x, w, feature_group_count)
    pads = padding_pairs("TensorFlow", padding, spatial)
    spread = per_dimension("TensorFlow", "lhs_dilation", lhs_dilation, spatial)
    if spatial == 0:  # a 1x1 convolution over a length-1 dimension
        per_dimension("TensorFlow", "window_strides", window_strides, 0)
        per_dimension("TensorFlow", "rhs_dilation", rhs_dilation, 0)
        one = _convolve(x[..., None], w[..., None], [1], ((0, 0),), (1,), [1])
        return _finish(backend, one[..., 0])
    ones = [1] * spatial
    strides = ones if window_strides is None else _listed(window_strides)
    dilations = ones if rhs_dilation is None else _listed(rhs_dilation)
    return _finish(backend, _convolve(x, w, strides, pads, spread, dilations))


def _listed(value: Any) -> Any:
    """A per-dimension parameter as TensorFlow takes it: a tuple as a list, else as given."""
    return list(value) if isinstance(value, tuple) else value


def _groups(operation: str, x: Any, w: Any, groups: Any) -> None:
    """NotMeasured unless *groups* is the group count TensorFlow infers from the channels.

    ``tf.nn.convolution`` has no group argument: it computes ``C / C_w`` groups.  Where
    the ranks are too small or the channel counts do not divide, TensorFlow refuses the
    shapes itself.
    """
    if x.ndim < 2 or w.ndim < 2:
        return
    channels, per_group = x.shape[1], w.shape[1]
    if not per_group or channels % per_group:
        return
    if int_value(groups) != channels // per_group:
        raise NotMeasured(
            f"{operation}: tf.nn.convolution has no group count (it infers {channels} / "
            f"{per_group} = {channels // per_group} groups from the channels), so "
            f"feature_group_count={groups!r:.40} has no TensorFlow spelling: not measured"
        )


def _convolve(x: Any, w: Any, strides: Any, pads: tuple[tuple[int, int], ...],
              spread: tuple[int, ...], dilations: Any) -> Any:  # fmt: skip
    """``tf.nn.convolution`` of [N, C, *S] and [O, C/g, *K] in TensorFlow's layout, back to
    [N, O, *S']."""
    spatial = len(pads)
    for d, step in enumerate(spread):
        if step > 1:
            x = _dilate(x, 2 + d, step)
    x = _pad(x, pads)
    last = list(range(2, spatial + 2))
    channels_last = tf.transpose(x, [0, *last, 1])
    window = tf.transpose(w, [*last, 1, 0])  # [*K, C/g, O]
    out = tf.nn.convolution(channels_last, window, strides=strides,
                            padding="VALID", dilations=dilations)  # fmt: skip
    return tf.transpose(out, [0, spatial + 1, *range(1, spatial + 1)])


def _dilate(x: Any, axis: int, spread: int) -> Any:
    """*x* with ``spread - 1`` zeros between neighbours along *axis* (``tf.pad`` + reshape)."""
    n = x.shape[axis]
    widths = [[0, 0]] * (x.ndim + 1)
    widths[axis + 1] = [0, spread - 1]
    spaced = tf.pad(tf.expand_dims(x, axis + 1), widths)
    merged = tf.reshape(spaced, [*x.shape[:axis], n * spread, *x.shape[axis + 1 :]])
    keep = (n - 1) * spread + 1 if n else 0
    return merged[(slice(None),) * axis + (slice(0, keep),)]


def _pad(x: Any, pads: tuple[tuple[int, int], ...]) -> Any:
    """*x* padded with zeros by the non-negative parts of *pads*, cropped by the negative."""
    widths = [[0, 0], [0, 0], *([max(lo, 0), max(hi, 0)] for lo, hi in pads)]
    if any(any(p) for p in widths):
        x = tf.pad(x, widths)
    crop = [slice(None), slice(None)]
    for d, (lo, hi) in enumerate(pads):
        extent = x.shape[2 + d]
        crop.append(slice(max(-lo, 0), extent - max(-hi, 0)))
    return x[tuple(crop)]


# ---------------------------------------------------------------------------
# gather / scatter / scatter_add
# ---------------------------------------------------------------------------


def gather(backend: TensorFlowBackend, plan: OperationPlan, data: Any, indices: Any,
           axis: Any) -> Any:  # fmt: skip
    d, i = _operands(plan, data, indices)
    return _finish(backend, tf.gather(d, i, axis=axis))


def _scatter(function: Callable[..., Any], name: str) -> Kernel:
    """A scatter kernel: *function* (``tf.tensor_scatter_nd_*``) on the axis moved first."""

    def kernel(backend: TensorFlowBackend, plan: OperationPlan, base: Any, indices: Any,
               updates: Any, axis: Any) -> Any:  # fmt: skip
        b, i, u = _operands(plan, base, indices, updates)
        first = tnp.moveaxis(b, axis, 0)  # the scatter axis first; TensorFlow judges it
        axis = operator.index(axis) % b.ndim
        front = list(range(axis, axis + i.ndim))  # the index dims of updates
        u_rest = [d for d in range(u.ndim) if d not in front]
        moved = function(first, i[..., None], tf.transpose(u, [*front, *u_rest]))
        back = [*range(1, axis + 1), 0, *range(axis + 1, b.ndim)]
        return _finish(backend, tf.transpose(moved, back))

    kernel.__name__ = name
    return kernel


# ---------------------------------------------------------------------------
# sort / topk (the private plans behind the framework's sort and topk)
# ---------------------------------------------------------------------------


def _sort(values: bool) -> Kernel:
    def kernel(backend: TensorFlowBackend, plan: OperationPlan, x: Any, axis: Any = -1,
               descending: Any = False) -> Any:  # fmt: skip
        down = bool_flag(descending)
        if down is None:
            raise NotMeasured(
                f"{plan.operation}: tf.sort takes a direction string; only descending=True or "
                f"False has a TensorFlow spelling, not {type(descending).__name__}: not measured"
            )
        direction = "DESCENDING" if down else "ASCENDING"
        v = _operand(plan, 0, x)
        if values:
            return _finish(backend, tf.sort(v, axis=axis, direction=direction))
        return _finish(backend, tf.argsort(v, axis=axis, direction=direction, stable=True))

    kernel.__name__ = "sort_values" if values else "sort_indices"
    return kernel


def _topk(values: bool) -> Kernel:
    def kernel(backend: TensorFlowBackend, plan: OperationPlan, x: Any, k: Any,
               axis: Any = -1, largest: Any = True) -> Any:  # fmt: skip
        if bool_flag(largest) is not True:
            raise NotMeasured(
                f"{plan.operation}: TensorFlow's tf.math.top_k has no smallest-k; only "
                f"largest=True has a TensorFlow spelling, not {largest!r:.40}: not measured"
            )
        v = _operand(plan, 0, x)
        last = tnp.moveaxis(v, axis, -1)  # the axis last; TensorFlow judges it
        top = tf.math.top_k(last, k=k, sorted=True)
        result = top.values if values else top.indices
        return _finish(backend, tnp.moveaxis(result, -1, axis))

    kernel.__name__ = "topk_values" if values else "topk_indices"
    return kernel


#: operation name -> kernel, every registered operation
KERNELS: dict[str, Kernel] = {
    **{name: _elementwise_kernel(function, name) for name, function in UNARY.items()},
    **{name: _elementwise_kernel(function, name) for name, function in ELEMENTWISE.items()},
    "reduce_sum": reduce_sum,
    "reduce_prod": _reduction(tf.math.reduce_prod, "reduce_prod"),
    "reduce_max": _reduction(tf.math.reduce_max, "reduce_max"),
    "reduce_min": _reduction(tf.math.reduce_min, "reduce_min"),
    "argmax": _arg(tf.math.argmax, "argmax"),
    "argmin": _arg(tf.math.argmin, "argmin"),
    "cumsum": cumsum,
    "matmul": matmul,
    "conv_general": conv_general,
    "gather": gather,
    "scatter": _scatter(tf.tensor_scatter_nd_update, "scatter"),
    "scatter_add": _scatter(tf.tensor_scatter_nd_add, "scatter_add"),
    "_sort_values": _sort(values=True),
    "_sort_indices": _sort(values=False),
    "_topk_values": _topk(values=True),
    "_topk_indices": _topk(values=False),
}


class TensorFlowBackend(KernelBackend):
    """TensorFlow's eager CPU operations on the central plans (the module docstring).

    *num_threads* sizes TensorFlow's intra-op and inter-op pools (process-wide,
    before the first TensorFlow operation of the process); None leaves them as
    they are.
    """

    name = "tensorflow"
    kernels = KERNELS
    library = "tensorflow"
    version = f"tensorflow {tf.__version__}"
    #: TensorFlow has no smallest-k top-k (module docstring)
    unsupported = frozenset({"topk-smallest"})
    #: TensorFlow's functions only: nothing is composed (module docstring)
    composed_operations: Mapping[str, str] = {}

    def __init__(self, num_threads: int | None = 1) -> None:
        super().__init__()
        if num_threads is not None:
            _set_threads(num_threads)
        threading = tf.config.threading
        self.num_threads = (
            threading.get_intra_op_parallelism_threads(),
            threading.get_inter_op_parallelism_threads(),
        )

    def dtype_of(self, value: Any) -> DType | None:
        """The dtype of a TensorFlow tensor; None for anything else (a weak scalar).

        A tensor of another dtype is a TypeError.
        """
        if not isinstance(value, tf.Tensor):
            return None
        dtype = _DTYPES.get(value.dtype)
        if dtype is None:
            raise TypeError(
                f"the tensorflow backend holds float32, int32 and bool tensors; got {value.dtype}"
            )
        return dtype

    def from_tensor(self, tensor: Tensor) -> Any:
        """*tensor* as a new eager tensor, bit for bit."""
        if not isinstance(tensor, Tensor):
            raise TypeError(f"expected an oracle.Tensor, got {type(tensor).__name__}")
        return tf.constant(tensor.to_numpy())

    def from_numpy(self, array: np.ndarray) -> Any:
        """The optional fast exchange (``backends/protocol.py``): a copy, bits kept."""
        return tf.constant(np.array(array, copy=True))

    def to_numpy(self, native: Any) -> np.ndarray:
        """*native* as a new numpy array, bits kept (TypeError for anything else)."""
        if not isinstance(native, tf.Tensor):
            raise TypeError(f"expected a tf.Tensor, got {type(native).__name__}")
        self.dtype_of(native)
        return np.array(native.numpy(), copy=True)

    def to_tensor(self, native: Any) -> Tensor:
        return Tensor.from_numpy(self.to_numpy(native))


def _set_threads(count: int) -> None:
    """Both TensorFlow thread pools to *count*; BackendLoadError once the runtime started
    with another setting."""
    threading = tf.config.threading
    try:
        threading.set_intra_op_parallelism_threads(count)
        threading.set_inter_op_parallelism_threads(count)
    except RuntimeError as error:  # "cannot be modified after initialization"
        raise BackendLoadError(
            f"tensorflow: cannot set {count} intra-op and inter-op thread(s): TensorFlow's "
            f"runtime already started in this process with "
            f"{threading.get_intra_op_parallelism_threads()} and "
            f"{threading.get_inter_op_parallelism_threads()} (0: TensorFlow's default) "
            f"({error}); create the backend before any TensorFlow operation, or pass "
            f"num_threads=None"
        ) from error
