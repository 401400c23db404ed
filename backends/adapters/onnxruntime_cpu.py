"""ONNX Runtime as a plancheck backend: ``"onnxruntime"`` (the default CPU execution provider).

The adapter measures ONNX Runtime, not itself: the central planner decides
every dtype (:class:`backends.dispatch.KernelBackend`); each call then builds
**one single-node ONNX graph** with the ``onnx`` helper
(``onnx.helper.make_node/make_graph/make_model``, default domain, opset
:data:`OPSET`), whose inputs and output are typed as the plan says, and runs
it in an ``onnxruntime.InferenceSession`` on ``CPUExecutionProvider``.
Whatever ONNX Runtime does differently from the reference is left in place,
so the conformance report shows it (``docs/backends/onnxruntime.md``).

Native values
-------------
ONNX Runtime's Python API exchanges numpy arrays, so a *tensor* is a
``numpy.ndarray`` of float32, int32 or bool (another dtype is a TypeError
before planning).  Results are the arrays the session returns.

* A tensor whose plan ``convert_to`` differs from its dtype (Int32 ->
  Float32) is converted by ONNX Runtime's own ``Cast``, run as a single-node
  graph of its own before the operation's graph.
* A *weak scalar* (a Python or numpy number that is not an array) has no
  ONNX form: ``InferenceSession.run`` refuses Python numbers, and every ONNX
  input is a typed tensor.  It becomes a 0-d graph **input** of the plan's
  ``convert_to`` dtype, made as an ONNX Runtime user makes one,
  ``numpy.asarray(value, dtype=float32 or int32)`` (a numpy scalar by its
  exact ``.item()``, a ``Fraction`` by ``float()``); numpy's conversion, with
  its overflow warning silenced (the flag changes no value), is therefore
  what materialises it.  An input, not a constant: the session is then the
  same for every value.
* A parameter that becomes an ONNX attribute or an int64 index input (axes,
  ``keepdims``, ``k``, the flags, the convolution tuples) must be written as
  a typed attribute, so its *type* is checked by the adapter with the
  reference's TypeError (``backends/parameters.py``; conv parameters through
  :func:`oracle.conv_geometry.conv_geometry`, as the torch adapter reads
  them).  Everything else -- shapes that do not broadcast, axes out of
  range, index ranges, ``k`` too large -- is left to ONNX Runtime, whose own
  exception (``onnxruntime...Fail``, ``InvalidArgument``) is what the report
  shows.

Sessions
--------
A session is built once per ``(operation, plan, attributes, input ranks)``
(:meth:`OnnxRuntimeBackend.session`: the graph's dimensions are symbolic,
its ranks fixed) and kept for the life of the backend, so the suite is not
dominated by session creation (``benchmarks/bench_onnxruntime_sessions.py``
measures the ratio).  Session options set, everything else ONNX Runtime's
default (``graph_optimization_level`` ORT_ENABLE_ALL, no denormal flushing):

* ``intra_op_num_threads = 1`` and ``inter_op_num_threads = 1``: one
  thread gives reductions, CumSum, MatMul and Conv one association order for
  a shape on every machine, so the published table is reproducible; the
  conformance runner parallelises across processes, where intra-op threads
  only oversubscribe the cores;
* ``log_severity_level = 4`` (fatal only): a failing run otherwise prints
  its error to stderr as well as raising it.

Mapping (operation -> ONNX operator, opset 24, attributes at ONNX's defaults
unless named)::

    add sub mul elementwise_mul div     Add Sub Mul Mul Div
    rem pow maximum minimum             Mod(fmod=1, required for floats) Pow Max Min
    eq lt le                            Equal Less LessOrEqual
    neg abs sign sqrt recip floor ceil  Neg Abs Sign Sqrt Reciprocal Floor Ceil
    round exp log sin cos tanh erf      Round Exp Log Sin Cos Tanh Erf
    sigmoid silu softplus elu relu      Sigmoid Swish(alpha 1) Softplus Elu(alpha 1) Relu
    leaky_relu gelu                     LeakyRelu(alpha 0.01) Gelu(approximate "none")
    select clamp                        Where Clip
    reduce_sum/prod/max/min             ReduceSum/Prod/Max/Min(data, axes, keepdims)
    argmax argmin                       ArgMax/ArgMin(axis, keepdims=0), int64 -> int32
    cumsum                              CumSum(x, axis)
    matmul conv_general                 MatMul; Conv(strides, pads, dilations, group)
    gather                              Gather(axis)
    scatter scatter_add                 ScatterND(reduction none / add), axis 0
    _sort_* _topk_*                     TopK(largest, sorted=1; K = the axis length
                                        for the sort), indices int64 -> int32

``axis=None`` of a reduction omits the ``axes`` input (ONNX: reduce every
axis); ``axis=()`` is an empty ``axes`` tensor with ``noop_with_empty_axes=1``,
ONNX's spelling of a reduction over no axis (with the default 0 an empty
``axes`` reduces every axis).  The int64
-> int32 narrowing of ArgMax/TopK indices is numpy's ``astype``, what a user
needs to land on the plan's output dtype.

Unsupported (NotImplementedError before anything runs; never composed from
several nodes): ``exp2``, ``log2``, ``rsqrt`` (no ONNX operator), ``ne`` (no
NotEqual: it would be Not(Equal)), ``logical_not`` (``Not`` takes bool only;
a Float32 input would need a Cast first); a Float64 accumulator for
reduce_sum and matmul (no single node accumulates float32 in double);
``argmax``/``argmin`` with ``axis=None`` (ArgMax has no flattened form);
conv input dilation above 1 (Conv has no such attribute); scatter and
scatter_add on an axis other than 0 (ScatterND scatters along the leading
axes).  The backend declares the matching features of plancheck's
vocabulary, ``accumulator-dtype`` and ``conv-lhs-dilation``, unsupported.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

from oracle import Accumulation, DType, OperandRole, OperationPlan, Tensor
from oracle.conv_geometry import conv_geometry

from ..dispatch import Kernel, KernelBackend
from ..parameters import describe, read_flag, read_int

__all__ = ["KERNELS", "OPSET", "UNSUPPORTED", "OnnxRuntimeBackend"]

#: The opset of the default ONNX domain every graph imports (the newest that
#: onnxruntime 1.32.0 implements for every operator used here).
OPSET = 24

_ELEMENT_TYPES: dict[DType, int] = {
    DType.Float32: TensorProto.FLOAT,
    DType.Int32: TensorProto.INT32,
    DType.Bool: TensorProto.BOOL,
}
_NUMPY_TYPES: dict[DType, type] = {DType.Float32: np.float32, DType.Int32: np.int32,
                                   DType.Bool: np.bool_}  # fmt: skip
_DTYPES: dict[np.dtype, DType] = {np.dtype(v): k for k, v in _NUMPY_TYPES.items()}
_INT64 = TensorProto.INT64

#: operation -> why it has no single-node ONNX form (declared unsupported)
UNSUPPORTED: dict[str, str] = {
    "exp2": "ONNX has no Exp2 operator",
    "log2": "ONNX has no Log2 operator",
    "rsqrt": "ONNX has no Rsqrt operator",
    "ne": "ONNX has no NotEqual operator (Not(Equal) would be two nodes)",
    "logical_not": "ONNX Not takes bool only; a Float32 input needs a Cast first (two nodes)",
}


# ---------------------------------------------------------------------------
# Operands and parameters
# ---------------------------------------------------------------------------


def _weak_number(value: Any) -> Any:
    """A weak scalar as the Python number numpy converts (numpy scalar: ``.item()``)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    return float(value)


def _index_array(values: Sequence[int]) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def _axes(operation: str, axis: Any) -> np.ndarray | None:
    """The ``axes`` input of a reduction: None (omitted) or int64 axes, types checked."""
    if axis is None:
        return None
    if isinstance(axis, tuple):
        return _index_array([read_int(operation, "axis", a) for a in axis])
    if isinstance(axis, numbers.Integral) and not isinstance(axis, bool | np.bool_):
        return _index_array([read_int(operation, "axis", axis)])
    raise TypeError(
        f"{operation}: axis must be None, an int or a tuple of ints, got {describe(axis)}"
    )


def _unsupported(operation: str, why: str) -> NotImplementedError:
    return NotImplementedError(
        f"{operation}: not supported by the onnxruntime backend: {why} (declared "
        f"unsupported, not composed from several nodes)"
    )


# ---------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------

#: unary operation -> ONNX operator (every attribute at its ONNX default)
UNARY: dict[str, str] = {
    "neg": "Neg", "abs": "Abs", "sign": "Sign", "sqrt": "Sqrt", "recip": "Reciprocal",
    "floor": "Floor", "ceil": "Ceil", "round": "Round", "exp": "Exp", "log": "Log",
    "sin": "Sin", "cos": "Cos", "tanh": "Tanh", "erf": "Erf", "sigmoid": "Sigmoid",
    "silu": "Swish", "softplus": "Softplus", "elu": "Elu", "relu": "Relu",
    "leaky_relu": "LeakyRelu", "gelu": "Gelu",
}  # fmt: skip

#: operation -> (ONNX operator, attributes) for the elementwise operations of 2 or 3 operands
ELEMENTWISE: dict[str, tuple[str, Mapping[str, Any]]] = {
    "add": ("Add", {}), "sub": ("Sub", {}), "mul": ("Mul", {}), "elementwise_mul": ("Mul", {}),
    "div": ("Div", {}), "rem": ("Mod", {"fmod": 1}), "pow": ("Pow", {}), "maximum": ("Max", {}),
    "minimum": ("Min", {}), "eq": ("Equal", {}), "lt": ("Less", {}), "le": ("LessOrEqual", {}),
    "select": ("Where", {}), "clamp": ("Clip", {}),
}  # fmt: skip


def _elementwise(op_type: str, attributes: Mapping[str, Any]) -> Kernel:
    def kernel(backend: OnnxRuntimeBackend, plan: OperationPlan, *args: Any) -> np.ndarray:
        operands = [backend.operand(plan, i, a) for i, a in enumerate(args)]
        return backend.node(plan, op_type, operands, attributes)[0]

    kernel.__name__ = op_type
    return kernel


def _not_supported(why: str) -> Kernel:
    def kernel(backend: OnnxRuntimeBackend, plan: OperationPlan, *args: Any, **_: Any) -> Any:
        raise _unsupported(plan.operation, why)

    return kernel


def _reduction(op_type: str) -> Kernel:
    def kernel(backend: OnnxRuntimeBackend, plan: OperationPlan, x: Any, axis: Any = None,
               keepdims: Any = False) -> np.ndarray:  # fmt: skip
        axes = _axes(plan.operation, axis)
        attributes = {"keepdims": int(read_flag(plan.operation, "keepdims", keepdims))}
        if axis == ():  # ONNX's spelling of "no axis": empty axes and the no-op flag
            attributes["noop_with_empty_axes"] = 1
        if plan.accumulation is Accumulation.FLOATING and plan.accumulator_dtype is DType.Float64:
            raise _unsupported(plan.operation, f"{op_type} cannot accumulate float32 in double")
        v = backend.operand(plan, 0, x)
        return backend.node(plan, op_type, [v, axes], attributes)[0]

    kernel.__name__ = op_type
    return kernel


def _arg(op_type: str) -> Kernel:
    def kernel(backend: OnnxRuntimeBackend, plan: OperationPlan, x: Any, axis: Any = None
               ) -> np.ndarray:  # fmt: skip
        if axis is None:
            raise _unsupported(plan.operation, f"{op_type} has no flattened form (axis=None)")
        dim = read_int(plan.operation, "axis", axis)
        v = backend.operand(plan, 0, x)
        indices = backend.node(plan, op_type, [v], {"axis": dim, "keepdims": 0}, [_INT64])[0]
        return indices.astype(np.int32)

    kernel.__name__ = op_type
    return kernel


def cumsum(backend: OnnxRuntimeBackend, plan: OperationPlan, x: Any, axis: Any) -> np.ndarray:
    dim = np.array(read_int(plan.operation, "axis", axis), dtype=np.int64)
    v = backend.operand(plan, 0, x)
    return backend.node(plan, "CumSum", [v, dim], {})[0]


def matmul(backend: OnnxRuntimeBackend, plan: OperationPlan, a: Any, b: Any) -> np.ndarray:
    if plan.accumulator_dtype is DType.Float64:
        raise _unsupported(plan.operation, "MatMul cannot accumulate float32 in double")
    x, y = backend.operand(plan, 0, a), backend.operand(plan, 1, b)
    return backend.node(plan, "MatMul", [x, y], {})[0]


def conv_general(
    backend: OnnxRuntimeBackend, plan: OperationPlan, lhs: Any, rhs: Any,
    window_strides: Any = None, padding: Any = None, lhs_dilation: Any = None,
    rhs_dilation: Any = None, feature_group_count: Any = 1,
) -> np.ndarray:  # fmt: skip
    """Conv with the geometry's strides, pads (all begins, then all ends), dilations, group."""
    g = conv_geometry(
        tuple(np.shape(lhs)), tuple(np.shape(rhs)), window_strides, padding, lhs_dilation,
        rhs_dilation, feature_group_count,
    )  # fmt: skip
    spatial = np.ndim(lhs) - 2
    if g.lhs_dilation and any(d > 1 for d in g.lhs_dilation):
        raise _unsupported(plan.operation, "Conv has no input (lhs) dilation")
    pads = g.padding or ((0, 0),) * spatial
    attributes = {
        "strides": tuple(g.window_strides or (1,) * spatial),
        "pads": tuple(p[0] for p in pads) + tuple(p[1] for p in pads),
        "dilations": tuple(g.rhs_dilation or (1,) * spatial),
        "group": g.feature_group_count,
    }
    x, w = backend.operand(plan, 0, lhs), backend.operand(plan, 1, rhs)
    return backend.node(plan, "Conv", [x, w], attributes)[0]


def gather(backend: OnnxRuntimeBackend, plan: OperationPlan, data: Any, indices: Any,
           axis: Any) -> np.ndarray:  # fmt: skip
    dim = read_int(plan.operation, "axis", axis)
    d, i = backend.operand(plan, 0, data), backend.operand(plan, 1, indices)
    return backend.node(plan, "Gather", [d, i], {"axis": dim})[0]


def _scatter(reduction: str) -> Kernel:
    def kernel(backend: OnnxRuntimeBackend, plan: OperationPlan, base: Any, indices: Any,
               updates: Any, axis: Any) -> np.ndarray:  # fmt: skip
        dim = read_int(plan.operation, "axis", axis)
        if dim not in (0, -np.ndim(base)):
            raise _unsupported(plan.operation, f"ScatterND scatters along axis 0, not {dim}")
        b, i, u = (backend.operand(plan, p, v) for p, v in enumerate((base, indices, updates)))
        # ScatterND reads the last index dimension as the coordinates of a slice
        coordinates = np.asarray(i, dtype=np.int64)[..., None]
        return backend.node(plan, "ScatterND", [b, coordinates, u], {"reduction": reduction})[0]

    kernel.__name__ = f"scatter_{reduction}"
    return kernel


def _top(backend: OnnxRuntimeBackend, plan: OperationPlan, x: Any, k: Any, axis: Any,
         largest: bool, values: bool) -> np.ndarray:  # fmt: skip
    v = backend.operand(plan, 0, x)
    dim = read_int(plan.operation, "axis", axis)
    attributes = {"axis": dim, "largest": int(largest), "sorted": 1}
    types = [_ELEMENT_TYPES[plan.operands[0].convert_to], _INT64]
    result = backend.node(plan, "TopK", [v, _index_array([k])], attributes, types)
    return result[0] if values else result[1].astype(np.int32)


def _sort(values: bool) -> Kernel:
    def kernel(backend: OnnxRuntimeBackend, plan: OperationPlan, x: Any, axis: Any = -1,
               descending: Any = False) -> np.ndarray:  # fmt: skip
        down = read_flag(plan.operation, "descending", descending)
        dim = read_int(plan.operation, "axis", axis)
        shape = np.shape(x)
        length = shape[dim] if -len(shape) <= dim < len(shape) else 0  # ORT judges the axis
        return _top(backend, plan, x, length, dim, down, values)

    kernel.__name__ = "sort_values" if values else "sort_indices"
    return kernel


def _topk(values: bool) -> Kernel:
    def kernel(backend: OnnxRuntimeBackend, plan: OperationPlan, x: Any, k: Any,
               axis: Any = -1, largest: Any = True) -> np.ndarray:  # fmt: skip
        count = read_int(plan.operation, "k", k)
        top = read_flag(plan.operation, "largest", largest)
        return _top(backend, plan, x, count, axis, top, values)

    kernel.__name__ = "topk_values" if values else "topk_indices"
    return kernel


#: operation name -> kernel, every registered operation
KERNELS: dict[str, Kernel] = {
    **{name: _elementwise(op, {}) for name, op in UNARY.items()},
    **{name: _elementwise(op, attrs) for name, (op, attrs) in ELEMENTWISE.items()},
    **{name: _not_supported(why) for name, why in UNSUPPORTED.items()},
    "reduce_sum": _reduction("ReduceSum"),
    "reduce_prod": _reduction("ReduceProd"),
    "reduce_max": _reduction("ReduceMax"),
    "reduce_min": _reduction("ReduceMin"),
    "argmax": _arg("ArgMax"),
    "argmin": _arg("ArgMin"),
    "cumsum": cumsum,
    "matmul": matmul,
    "conv_general": conv_general,
    "gather": gather,
    "scatter": _scatter("none"),
    "scatter_add": _scatter("add"),
    "_sort_values": _sort(values=True),
    "_sort_indices": _sort(values=False),
    "_topk_values": _topk(values=True),
    "_topk_indices": _topk(values=False),
}


# ---------------------------------------------------------------------------
# The backend
# ---------------------------------------------------------------------------


def single_node_model(
    op_type: str,
    inputs: Sequence[tuple[int, int] | None],
    outputs: Sequence[int],
    attributes: Mapping[str, Any],
) -> onnx.ModelProto:
    """A model of one ``op_type`` node: *inputs* as (element type, rank) or None for an
    omitted optional input, *outputs* as element types, dimensions symbolic."""
    names = [f"x{i}" if spec is not None else "" for i, spec in enumerate(inputs)]
    while names and not names[-1]:  # trailing optional inputs are simply left off
        names.pop()
    node = helper.make_node(op_type, names, [f"y{i}" for i in range(len(outputs))],
                            **dict(attributes))  # fmt: skip
    graph_inputs = [
        helper.make_tensor_value_info(f"x{i}", element, [None] * rank)
        for i, spec in enumerate(inputs)
        if spec is not None
        for element, rank in [spec]
    ]
    graph_outputs = [
        helper.make_tensor_value_info(f"y{i}", element, None) for i, element in enumerate(outputs)
    ]
    graph = helper.make_graph([node], op_type, graph_inputs, graph_outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])


def _element_type(array: np.ndarray) -> int:
    return int(helper.np_dtype_to_tensor_dtype(array.dtype))


class OnnxRuntimeBackend(KernelBackend):
    """Single-node ONNX graphs run by ONNX Runtime's CPU execution provider.

    *num_threads* is the session's ``intra_op_num_threads`` (1 by default, see
    the module docstring; 0 is ONNX Runtime's own default).
    """

    name = "onnxruntime"
    kernels = KERNELS
    library = "onnxruntime"
    version = ort.__version__
    unsupported: ClassVar[set[str]] = {"accumulator-dtype", "conv-lhs-dilation"}

    def __init__(self, num_threads: int = 1) -> None:
        super().__init__()
        self.num_threads = num_threads
        self.sessions: dict[tuple[Any, ...], ort.InferenceSession] = {}
        self.sessions_built = 0

    # -- native values --------------------------------------------------------

    def dtype_of(self, value: Any) -> DType | None:
        """The DType of a numpy array; None for anything else (a weak scalar)."""
        if not isinstance(value, np.ndarray):
            return None
        dtype = _DTYPES.get(value.dtype)
        if dtype is None:
            raise TypeError(
                f"the onnxruntime backend holds float32, int32 and bool arrays; got one of "
                f"dtype {value.dtype}"
            )
        return dtype

    def from_tensor(self, tensor: Tensor) -> np.ndarray:
        if not isinstance(tensor, Tensor):
            raise TypeError(f"expected an oracle.Tensor, got {type(tensor).__name__}")
        return tensor.to_numpy()

    def from_numpy(self, array: np.ndarray) -> np.ndarray:
        """The optional fast exchange (``backends/protocol.py``): a copy, bits kept."""
        return np.array(array, copy=True)

    def to_numpy(self, native: Any) -> np.ndarray:
        if not isinstance(native, np.ndarray):
            raise TypeError(f"expected a numpy.ndarray, got {type(native).__name__}")
        self.dtype_of(native)
        return native

    def to_tensor(self, native: Any) -> Tensor:
        return Tensor.from_numpy(self.to_numpy(native))

    # -- sessions -------------------------------------------------------------

    def session(self, model: onnx.ModelProto) -> ort.InferenceSession:
        """A new session of *model* on the CPU provider with this backend's options."""
        options = ort.SessionOptions()
        options.intra_op_num_threads = self.num_threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 4
        self.sessions_built += 1
        return ort.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )

    def node(
        self,
        plan: OperationPlan,
        op_type: str,
        inputs: Sequence[np.ndarray | None],
        attributes: Mapping[str, Any],
        outputs: Sequence[int] | None = None,
    ) -> list[np.ndarray]:
        """Run ``op_type`` on *inputs* (None: an omitted optional input) in the cached
        session of (operation, plan, attributes, ranks); the result arrays.

        *outputs* are the element types of the node's outputs (default: one output
        of the plan's output dtype).
        """
        types = [_ELEMENT_TYPES[plan.output]] if outputs is None else list(outputs)
        specs = [None if a is None else (_element_type(a), a.ndim) for a in inputs]
        key = (
            plan.operation,
            plan,
            op_type,
            tuple(sorted(attributes.items())),
            tuple(specs),
            tuple(types),
        )
        session = self.sessions.get(key)
        if session is None:
            session = self.session(single_node_model(op_type, specs, types, attributes))
            self.sessions[key] = session
        feeds = {f"x{i}": a for i, a in enumerate(inputs) if a is not None}
        results = session.run(None, feeds)
        self.allocated()
        return results

    def cast(self, array: np.ndarray, dtype: DType) -> np.ndarray:
        """*array* converted by ONNX Runtime's Cast (its own single-node session)."""
        target = _ELEMENT_TYPES[dtype]
        key = ("Cast", _element_type(array), target, array.ndim)
        session = self.sessions.get(key)
        if session is None:
            model = single_node_model("Cast", [(_element_type(array), array.ndim)], [target],
                                      {"to": target})  # fmt: skip
            session = self.sessions[key] = self.session(model)
        return session.run(None, {"x0": array})[0]

    def operand(self, plan: OperationPlan, position: int, value: Any) -> np.ndarray:
        """Operand *position* as the plan materialises it (see the module docstring)."""
        operand = plan.operands[position]
        if operand.role is OperandRole.WEAK_SCALAR:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore", RuntimeWarning)
                return np.asarray(_weak_number(value), dtype=_NUMPY_TYPES[operand.convert_to])
        if operand.convert_to is not operand.dtype:
            return self.cast(value, operand.convert_to)
        return value
