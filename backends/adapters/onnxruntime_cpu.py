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
* A parameter (axes, ``keepdims``, ``k``, the flags, the convolution
  tuples) is written as ONNX takes it and checked by nobody but ONNX Runtime
  (docs/adapter-policy.md): an attribute is the value as given (a numpy
  scalar as its ``.item()``), typed by ``onnx.helper``; an index input (axes,
  CumSum's axis, TopK's K) is ``numpy.asarray`` of it, int64 when it is an
  integer array, fed as it is otherwise.  So a bool ``keepdims`` is ONNX's
  INT 1, a float axis is a FLOAT attribute that ONNX Runtime refuses, and
  shapes that do not broadcast, axes out of range, index ranges and ``k``
  too large are ONNX Runtime's to judge: its own exception
  (``onnxruntime...Fail``, ``InvalidArgument``, ``InvalidGraph``) is what the
  report shows.

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
    logical_not                         Equal(x, 0) (Not takes bool only): +-0 -> True, NaN -> False
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
                                        for the sort, largest = descending), indices
                                        int64 -> int32

``axis=None`` of a reduction omits the ``axes`` input (ONNX: reduce every
axis); ``axis=()`` is an empty ``axes`` tensor with ``noop_with_empty_axes=1``,
ONNX's spelling of a reduction over no axis (with the default 0 an empty
``axes`` reduces every axis).  ``argmax``/``argmin`` with ``axis=None`` (the
flat index) run ArgMax on the data flattened by numpy (data movement: ArgMax
has no flattened form).  A Float64 accumulator (reduce_sum, matmul) is
ONNX Runtime's own double arithmetic: the operands through a ``Cast`` to
double, the node in double, a ``Cast`` back to float -- the accumulator is
the dtype the node computes in.  The int64 -> int32 narrowing of
ArgMax/TopK indices is numpy's ``astype``, what a user needs to land on the
plan's output dtype.

Not measured (:class:`~backends.errors.NotMeasured` before anything runs;
never composed from several nodes, so ``composed_operations`` is empty):
``exp2``, ``log2``, ``rsqrt`` (no ONNX operator), ``ne`` (no NotEqual: it
would be Not(Equal)); conv input dilation above 1 (Conv has no such
attribute; the backend declares the feature ``conv-lhs-dilation``
unsupported) and a padding that is not one (low, high) int pair per spatial
dimension (no ``pads`` spelling); scatter and scatter_add on an axis other
than the leading one (ScatterND scatters along the leading axes); an index
parameter beyond int64.
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

from ..dispatch import Kernel, KernelBackend
from ..errors import NotMeasured
from .translate import int_value, padding_pairs, per_dimension

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

#: operation -> why it has no single-node ONNX form (NotMeasured)
UNSUPPORTED: dict[str, str] = {
    "exp2": "ONNX has no Exp2 operator",
    "log2": "ONNX has no Log2 operator",
    "rsqrt": "ONNX has no Rsqrt operator",
    "ne": "ONNX has no NotEqual operator (Not(Equal) would be two nodes)",
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


def _plain(value: Any) -> Any:
    """A parameter in the spelling the onnx helper takes: a numpy scalar as its ``.item()``,
    a tuple or list element by element, anything else as it is (the toolchain judges it)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def _index_input(operation: str, value: Any) -> np.ndarray:
    """An index parameter (axes, an axis, ``k``) as the int64 input an ONNX user feeds.

    numpy makes the array (ONNX Runtime's Python API exchanges numpy arrays); an
    integer array becomes int64, a scalar a one-element 1-d tensor.  An array of
    another dtype (a bool, a float) is fed as it is, and ONNX Runtime's type check
    judges it; a value numpy holds only as Python objects (an int beyond 64 bits)
    has no ONNX tensor form: NotMeasured.
    """
    array = np.asarray(_plain(value))
    if array.dtype.kind == "O":
        raise NotMeasured(
            f"{operation}: {type(value).__name__} has no ONNX tensor form (numpy holds it as "
            f"Python objects): not measured"
        )
    if array.dtype.kind in "iu" or array.size == 0:
        array = array.astype(np.int64)
    return array.reshape(1) if array.ndim == 0 else array


def _unsupported(operation: str, why: str) -> NotMeasured:
    return NotMeasured(
        f"{operation}: the onnxruntime backend has no single-node ONNX form: {why}: not measured"
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


def logical_not(backend: OnnxRuntimeBackend, plan: OperationPlan, x: Any) -> np.ndarray:
    """``Equal(x, 0)``: one node (ONNX's ``Not`` takes bool only), the rule "x == 0"
    (+-0 -> True, NaN -> False); the 0 is a 0-d input of x's type."""
    v = backend.operand(plan, 0, x)
    return backend.node(plan, "Equal", [v, np.zeros((), v.dtype)], {})[0]


def _reduction(op_type: str) -> Kernel:
    def kernel(backend: OnnxRuntimeBackend, plan: OperationPlan, x: Any, axis: Any = None,
               keepdims: Any = False) -> np.ndarray:  # fmt: skip
        axes = None if axis is None else _index_input(plan.operation, axis)
        attributes = {"keepdims": _plain(keepdims)}
        if isinstance(axis, tuple) and not axis:  # ONNX's spelling of "no axis"
            attributes["noop_with_empty_axes"] = 1
        v = backend.operand(plan, 0, x)
        if plan.accumulation is Accumulation.FLOATING and plan.accumulator_dtype is DType.Float64:
            wide = backend.cast(v, TensorProto.DOUBLE)  # the sum in double: Cast, op, Cast
            total = backend.node(plan, op_type, [wide, axes], attributes, [TensorProto.DOUBLE])
            return backend.cast(total[0], TensorProto.FLOAT)
        return backend.node(plan, op_type, [v, axes], attributes)[0]

    kernel.__name__ = op_type
    return kernel


def _arg(op_type: str) -> Kernel:
    def kernel(backend: OnnxRuntimeBackend, plan: OperationPlan, x: Any, axis: Any = None
               ) -> np.ndarray:  # fmt: skip
        v = backend.operand(plan, 0, x)
        if axis is None:  # the flat index: ArgMax has no flattened form, so flatten the data
            v, axis = v.reshape(-1), 0
        attributes = {"axis": _plain(axis), "keepdims": 0}
        indices = backend.node(plan, op_type, [v], attributes, [_INT64])[0]
        return indices.astype(np.int32)

    kernel.__name__ = op_type
    return kernel


def cumsum(backend: OnnxRuntimeBackend, plan: OperationPlan, x: Any, axis: Any) -> np.ndarray:
    dim = _index_input(plan.operation, axis).reshape(())  # CumSum's axis is a 0-d tensor
    v = backend.operand(plan, 0, x)
    return backend.node(plan, "CumSum", [v, dim], {})[0]


def matmul(backend: OnnxRuntimeBackend, plan: OperationPlan, a: Any, b: Any) -> np.ndarray:
    x, y = backend.operand(plan, 0, a), backend.operand(plan, 1, b)
    if plan.accumulation is Accumulation.FLOATING and plan.accumulator_dtype is DType.Float64:
        wide = [backend.cast(v, TensorProto.DOUBLE) for v in (x, y)]  # Cast, MatMul, Cast
        product = backend.node(plan, "MatMul", wide, {}, [TensorProto.DOUBLE])[0]
        return backend.cast(product, TensorProto.FLOAT)
    return backend.node(plan, "MatMul", [x, y], {})[0]


def conv_general(
    backend: OnnxRuntimeBackend, plan: OperationPlan, lhs: Any, rhs: Any,
    window_strides: Any = None, padding: Any = None, lhs_dilation: Any = None,
    rhs_dilation: Any = None, feature_group_count: Any = 1,
) -> np.ndarray:  # fmt: skip
    """Conv with the strides, dilations and group as given, the pads as all begins then
    all ends; Conv has no input dilation (an lhs dilation above 1 is NotMeasured)."""
    spatial = max(np.ndim(lhs) - 2, 0)
    spread = per_dimension("onnxruntime", "lhs_dilation", lhs_dilation, spatial)
    if any(d > 1 for d in spread):
        raise _unsupported(plan.operation, "Conv has no input (lhs) dilation")
    pads = padding_pairs("onnxruntime", padding, spatial)
    ones = [1] * spatial
    attributes = {
        "strides": ones if window_strides is None else _plain(window_strides),
        "pads": [p[0] for p in pads] + [p[1] for p in pads],
        "dilations": ones if rhs_dilation is None else _plain(rhs_dilation),
        "group": _plain(feature_group_count),
    }
    x, w = backend.operand(plan, 0, lhs), backend.operand(plan, 1, rhs)
    return backend.node(plan, "Conv", [x, w], attributes)[0]


def gather(backend: OnnxRuntimeBackend, plan: OperationPlan, data: Any, indices: Any,
           axis: Any) -> np.ndarray:  # fmt: skip
    d, i = backend.operand(plan, 0, data), backend.operand(plan, 1, indices)
    return backend.node(plan, "Gather", [d, i], {"axis": _plain(axis)})[0]


def _scatter(reduction: str) -> Kernel:
    def kernel(backend: OnnxRuntimeBackend, plan: OperationPlan, base: Any, indices: Any,
               updates: Any, axis: Any) -> np.ndarray:  # fmt: skip
        dim = int_value(axis)
        if dim is None or dim not in (0, -np.ndim(base)):
            raise _unsupported(
                plan.operation, f"ScatterND scatters along the leading axis only, not {axis!r:.40}"
            )
        b, i, u = (backend.operand(plan, p, v) for p, v in enumerate((base, indices, updates)))
        # ScatterND reads the last index dimension as the coordinates of a slice
        coordinates = np.asarray(i, dtype=np.int64)[..., None]
        return backend.node(plan, "ScatterND", [b, coordinates, u], {"reduction": reduction})[0]

    kernel.__name__ = f"scatter_{reduction}"
    return kernel


def _top(backend: OnnxRuntimeBackend, plan: OperationPlan, x: Any, k: np.ndarray, axis: Any,
         largest: Any, values: bool) -> np.ndarray:  # fmt: skip
    v = backend.operand(plan, 0, x)
    attributes = {"axis": _plain(axis), "largest": _plain(largest), "sorted": 1}
    types = [_ELEMENT_TYPES[plan.operands[0].convert_to], _INT64]
    result = backend.node(plan, "TopK", [v, k], attributes, types)
    return result[0] if values else result[1].astype(np.int32)


def _sort(values: bool) -> Kernel:
    def kernel(backend: OnnxRuntimeBackend, plan: OperationPlan, x: Any, axis: Any = -1,
               descending: Any = False) -> np.ndarray:  # fmt: skip
        """TopK with K the axis length, ``largest`` the descending flag as given."""
        shape, dim = np.shape(x), int_value(axis)
        in_range = dim is not None and -len(shape) <= dim < len(shape)
        length = shape[dim] if in_range else 0  # ORT judges another axis itself
        k = np.array([length], dtype=np.int64)
        return _top(backend, plan, x, k, axis, descending, values)

    kernel.__name__ = "sort_values" if values else "sort_indices"
    return kernel


def _topk(values: bool) -> Kernel:
    def kernel(backend: OnnxRuntimeBackend, plan: OperationPlan, x: Any, k: Any,
               axis: Any = -1, largest: Any = True) -> np.ndarray:  # fmt: skip
        count = _index_input(plan.operation, k)
        return _top(backend, plan, x, count, axis, largest, values)

    kernel.__name__ = "topk_values" if values else "topk_indices"
    return kernel


#: operation name -> kernel, every registered operation
KERNELS: dict[str, Kernel] = {
    **{name: _elementwise(op, {}) for name, op in UNARY.items()},
    **{name: _elementwise(op, attrs) for name, (op, attrs) in ELEMENTWISE.items()},
    **{name: _not_supported(why) for name, why in UNSUPPORTED.items()},
    "logical_not": logical_not,
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
    #: ONNX's Conv has no input dilation (module docstring)
    unsupported: ClassVar[set[str]] = {"conv-lhs-dilation"}
    #: every mapped operation is one ONNX node: nothing is composed
    composed_operations: ClassVar[Mapping[str, str]] = {}

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
            # repr: an attribute value may be unhashable (a list), and True is not 1
            tuple((name, repr(value)) for name, value in sorted(attributes.items())),
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

    def cast(self, array: np.ndarray, dtype: DType | int) -> np.ndarray:
        """*array* converted by ONNX Runtime's Cast (its own single-node session) to
        *dtype*, a DType or an ONNX element type (``TensorProto.DOUBLE``)."""
        target = dtype if isinstance(dtype, int) else _ELEMENT_TYPES[dtype]
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
