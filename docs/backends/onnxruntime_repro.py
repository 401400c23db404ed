"""Every deviation class of docs/backends/onnxruntime.json, reproduced with onnx and
ONNX Runtime alone.

Run ``python docs/backends/onnxruntime_repro.py`` (prints each class and whether it
reproduced; exit status 1 when one did not) or ``pytest
tests/test_survey_reproductions.py``, or call a reproduction yourself:
``REPRODUCTIONS["add@missing-exception:int32-result-overflow"]()`` raises
AssertionError when ONNX Runtime does what the specification requires.  Each
reproduction takes its class's minimal example from the report -- the input bits,
exactly as printed -- and runs the single-node ONNX graph an ONNX Runtime user
builds for the plan (``CALLS``; the mapping of backends/adapters/onnxruntime_cpu.py):
``onnx.helper`` models of one node (default domain, opset 24, inputs typed as the
plan says, dimensions symbolic) in an ``onnxruntime.InferenceSession`` on
``CPUExecutionProvider``, one intra-op and one inter-op thread, everything else at
ONNX Runtime's defaults, as the report's configuration records.  An Int32 operand
the plan converts to Float32 goes through ONNX Runtime's own ``Cast`` first (a graph
of its own); a weak Python scalar is the 0-d input ``numpy.asarray(value,
dtype=float32 or int32)``; axes, ``k`` and the flags are written as ONNX takes them
(an attribute as given, an index input as int64) and judged by ONNX Runtime alone.
Then the cause is checked (``repro_common.py``).

``exp2``, ``log2``, ``rsqrt`` and ``ne`` have no single ONNX operator and are not
measured, so they have no class here and no call.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable, Mapping, Sequence
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper

LIBRARY = "onnxruntime"
REPORT = "onnxruntime.json"
#: the opset of the default ONNX domain every graph imports
OPSET = 24

#: repro_common.py beside this file (numpy, mpmath, the standard library), loaded by path
common = module_from_spec(
    spec_from_file_location("repro_common", Path(__file__).with_name("repro_common.py"))
)
common.__spec__.loader.exec_module(common)

_ELEMENT = {"Float32": TensorProto.FLOAT, "Int32": TensorProto.INT32, "Bool": TensorProto.BOOL}
_NUMPY = {"Float32": np.float32, "Int32": np.int32, "Bool": np.bool_}
_DOUBLE, _INT64 = TensorProto.DOUBLE, TensorProto.INT64


# ---------------------------------------------------------------------------
# One node, one session
# ---------------------------------------------------------------------------


def session(model_bytes: bytes) -> ort.InferenceSession:
    """A session on the CPU provider: one intra-op and one inter-op thread, errors raised
    (not also logged)."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 4
    return ort.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])


def node(
    op_type: str,
    inputs: Sequence[np.ndarray | None],
    attributes: Mapping[str, Any],
    outputs: Sequence[int],
) -> list[np.ndarray]:
    """Run a model of one ``op_type`` node on *inputs* (None: an omitted optional input),
    *outputs* its element types; the result arrays."""
    names = [f"x{i}" if a is not None else "" for i, a in enumerate(inputs)]
    while names and not names[-1]:  # trailing optional inputs are simply left off
        names.pop()
    given = [(f"x{i}", a) for i, a in enumerate(inputs) if a is not None]
    graph = helper.make_graph(
        [helper.make_node(op_type, names, [f"y{i}" for i in range(len(outputs))], **attributes)],
        op_type,
        [
            helper.make_tensor_value_info(
                name, int(helper.np_dtype_to_tensor_dtype(a.dtype)), [None] * a.ndim
            )
            for name, a in given
        ],
        [helper.make_tensor_value_info(f"y{i}", t, None) for i, t in enumerate(outputs)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    return session(model.SerializeToString()).run(None, dict(given))


def cast(array: np.ndarray, to: int) -> np.ndarray:
    """*array* converted by ONNX Runtime's ``Cast`` (a graph of its own)."""
    return node("Cast", [array], {"to": to}, [to])[0]


# ---------------------------------------------------------------------------
# Operands and parameters, as the plan says
# ---------------------------------------------------------------------------


def _output(plan: str) -> int:
    """The element type of the plan's result (``... -> Float32``)."""
    return _ELEMENT[plan.rpartition("->")[2].strip()]


def _weak_number(value: Any) -> Any:
    """A weak scalar as the Python number numpy converts (a numpy scalar: ``.item()``)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    return float(value)  # a Fraction


def operands(plan: str, args: Sequence[Any]) -> list[np.ndarray]:
    """The plan's operands: a weak scalar as the 0-d array ``numpy.asarray(value, dtype)``
    (numpy's conversion, its overflow warning silenced), an Int32 -> Float32 tensor
    through ``Cast``, any other tensor as it is."""
    out = []
    for kind, value in zip(common.operand_kinds(plan), args):
        source, _, target = kind.rpartition("->")
        if source == "weak":
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore", RuntimeWarning)
                out.append(np.asarray(_weak_number(value), dtype=_NUMPY[target]))
        elif source and source != target:
            out.append(cast(value, _ELEMENT[target]))
        else:
            out.append(value)
    return out


def _plain(value: Any) -> Any:
    """An attribute as the onnx helper takes it (a numpy scalar as its ``.item()``)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def _index_input(value: Any) -> np.ndarray:
    """An index parameter (axes, an axis, ``k``) as the 1-d input an ONNX user feeds:
    int64 for integers, any other dtype fed as it is (ONNX Runtime judges it)."""
    array = np.asarray(_plain(value))
    if array.dtype.kind in "iu" or array.size == 0:
        array = array.astype(np.int64)
    return array.reshape(1) if array.ndim == 0 else array


# ---------------------------------------------------------------------------
# The calls, one ONNX operator each
# ---------------------------------------------------------------------------

#: operation -> (ONNX operator, attributes) of the operations whose arguments are operands
ELEMENTWISE: dict[str, tuple[str, Mapping[str, Any]]] = {
    **{
        op: (name, {})
        for op, name in {
            "neg": "Neg", "abs": "Abs", "sign": "Sign", "sqrt": "Sqrt", "recip": "Reciprocal",
            "floor": "Floor", "ceil": "Ceil", "round": "Round", "exp": "Exp", "log": "Log",
            "sin": "Sin", "cos": "Cos", "tanh": "Tanh", "erf": "Erf", "sigmoid": "Sigmoid",
            "silu": "Swish", "softplus": "Softplus", "elu": "Elu", "relu": "Relu",
            "leaky_relu": "LeakyRelu", "gelu": "Gelu", "add": "Add", "sub": "Sub",
            "mul": "Mul", "elementwise_mul": "Mul", "div": "Div", "pow": "Pow",
            "maximum": "Max", "minimum": "Min", "eq": "Equal", "lt": "Less",
            "le": "LessOrEqual", "select": "Where", "clamp": "Clip",
        }.items()
    },
    "rem": ("Mod", {"fmod": 1}),  # fmod=1: C fmod, required for floats
}  # fmt: skip


def _elementwise(op_type: str, attributes: Mapping[str, Any]) -> Callable[..., np.ndarray]:
    return lambda plan, *args: node(op_type, operands(plan, args), attributes, [_output(plan)])[0]


def _logical_not(plan: str, x: Any) -> np.ndarray:
    """``Equal(x, 0)`` (ONNX's ``Not`` takes bool only), the 0 a 0-d input of x's type."""
    (v,) = operands(plan, (x,))
    return node("Equal", [v, np.zeros((), v.dtype)], {}, [TensorProto.BOOL])[0]


def _reduction(op_type: str) -> Callable[..., np.ndarray]:
    def call(plan: str, x: Any, axis: Any = None, keepdims: Any = False) -> np.ndarray:
        """``op_type(data, axes)``: axis None omits the axes (every axis); ``()`` is an
        empty axes input with ``noop_with_empty_axes=1``; a Float64 accumulator is the
        node in double between two ``Cast`` nodes."""
        axes = None if axis is None else _index_input(axis)
        attributes = {"keepdims": _plain(keepdims)}
        if isinstance(axis, tuple) and not axis:
            attributes["noop_with_empty_axes"] = 1
        (v,) = operands(plan, (x,))
        if common.float64_accumulator(plan):
            wide = node(op_type, [cast(v, _DOUBLE), axes], attributes, [_DOUBLE])[0]
            return cast(wide, TensorProto.FLOAT)
        return node(op_type, [v, axes], attributes, [_output(plan)])[0]

    return call


def _arg(op_type: str) -> Callable[..., np.ndarray]:
    def call(plan: str, x: Any, axis: Any = None) -> np.ndarray:
        """``op_type(axis, keepdims=0)``, int64 indices as int32 (numpy's ``astype``); axis
        None is the flat index: the data flattened by numpy first."""
        (v,) = operands(plan, (x,))
        if axis is None:
            v, axis = v.reshape(-1), 0
        indices = node(op_type, [v], {"axis": _plain(axis), "keepdims": 0}, [_INT64])[0]
        return indices.astype(np.int32)

    return call


def _cumsum(plan: str, x: Any, axis: Any) -> np.ndarray:
    (v,) = operands(plan, (x,))
    return node("CumSum", [v, _index_input(axis).reshape(())], {}, [_output(plan)])[0]


def _matmul(plan: str, a: Any, b: Any) -> np.ndarray:
    """MatMul; a Float64 accumulator is MatMul in double between ``Cast`` nodes."""
    x, y = operands(plan, (a, b))
    if common.float64_accumulator(plan):
        wide = node("MatMul", [cast(x, _DOUBLE), cast(y, _DOUBLE)], {}, [_DOUBLE])[0]
        return cast(wide, TensorProto.FLOAT)
    return node("MatMul", [x, y], {}, [_output(plan)])[0]


def _conv(
    plan: str,
    lhs: Any,
    rhs: Any,
    strides: Any = None,
    padding: Any = None,
    lhs_dilation: Any = None,
    rhs_dilation: Any = None,
    groups: Any = 1,
) -> np.ndarray:
    """Conv with the strides, dilations and group as given, the (low, high) pads as all
    begins then all ends (Conv has no input dilation: the report measures none)."""
    spatial = max(np.ndim(lhs) - 2, 0)
    pads = tuple(tuple(pair) for pair in padding) if padding is not None else ((0, 0),) * spatial
    ones = [1] * spatial
    attributes = {
        "strides": ones if strides is None else _plain(strides),
        "pads": [p[0] for p in pads] + [p[1] for p in pads],
        "dilations": ones if rhs_dilation is None else _plain(rhs_dilation),
        "group": _plain(groups),
    }
    return node("Conv", operands(plan, (lhs, rhs)), attributes, [_output(plan)])[0]


def _gather(plan: str, data: Any, indices: Any, axis: Any) -> np.ndarray:
    return node("Gather", operands(plan, (data, indices)), {"axis": _plain(axis)},
                [_output(plan)])[0]  # fmt: skip


def _scatter(reduction: str) -> Callable[..., np.ndarray]:
    def call(plan: str, base: Any, indices: Any, updates: Any, axis: Any) -> np.ndarray:
        """ScatterND along the leading axis (the only axis it scatters along; the report
        measures no other): each index as a 1-element coordinate."""
        b, i, u = operands(plan, (base, indices, updates))
        coordinates = np.asarray(i, dtype=np.int64)[..., None]
        return node("ScatterND", [b, coordinates, u], {"reduction": reduction},
                    [_output(plan)])[0]  # fmt: skip

    return call


def _top(plan: str, x: Any, k: np.ndarray, axis: Any, largest: Any, values: bool) -> np.ndarray:
    """TopK(largest, sorted=1): values, or int64 indices as int32."""
    (v,) = operands(plan, (x,))
    attributes = {"axis": _plain(axis), "largest": _plain(largest), "sorted": 1}
    types = [_ELEMENT[common.operand_kinds(plan)[0].rpartition("->")[2]], _INT64]
    result = node("TopK", [v, k], attributes, types)
    return result[0] if values else result[1].astype(np.int32)


def _sort(values: bool) -> Callable[..., np.ndarray]:
    def call(plan: str, x: Any, axis: Any = -1, descending: Any = False) -> np.ndarray:
        """TopK with K the axis length (0 for an axis out of range: ONNX Runtime judges
        it), ``largest`` the descending flag as given."""
        shape = np.shape(x)
        in_range = isinstance(axis, int) and -len(shape) <= axis < len(shape)
        k = np.array([shape[axis] if in_range else 0], dtype=np.int64)
        return _top(plan, x, k, axis, descending, values)

    return call


def _topk(values: bool) -> Callable[..., np.ndarray]:
    def call(plan: str, x: Any, k: Any, axis: Any = -1, largest: Any = True) -> np.ndarray:
        return _top(plan, x, _index_input(k), axis, largest, values)

    return call


#: operation -> ONNX Runtime's call for a plan and the decoded arguments
CALLS: dict[str, Callable[..., np.ndarray]] = {
    **{op: _elementwise(name, attributes) for op, (name, attributes) in ELEMENTWISE.items()},
    "logical_not": _logical_not,
    "reduce_sum": _reduction("ReduceSum"),
    "reduce_prod": _reduction("ReduceProd"),
    "reduce_max": _reduction("ReduceMax"),
    "reduce_min": _reduction("ReduceMin"),
    "argmax": _arg("ArgMax"),
    "argmin": _arg("ArgMin"),
    "cumsum": _cumsum,
    "matmul": _matmul,
    "conv_general": _conv,
    "gather": _gather,
    "scatter": _scatter("none"),
    "scatter_add": _scatter("add"),
    "_sort_values": _sort(values=True),
    "_sort_indices": _sort(values=False),
    "_topk_values": _topk(values=True),
    "_topk_indices": _topk(values=False),
}

#: every class of the report, by kind (repro_common.cause_of reads the cause off the spelling)
PUBLISHED: list[str] = [
    # missing exception
    "_sort_indices@missing-exception:error-bad-parameter",
    "_sort_values@missing-exception:error-bad-parameter",
    "_topk_indices@missing-exception:error-bad-parameter",
    "_topk_values@missing-exception:error-bad-parameter",
    "add@missing-exception:int32-result-overflow",
    "cumsum@missing-exception:error-bad-axis",
    "elementwise_mul@missing-exception:int32-result-overflow",
    "gather@missing-exception:error-index-negative",
    "matmul@missing-exception:error-shape-mismatch",
    "matmul@missing-exception:int32-result-overflow",
    "mul@missing-exception:int32-result-overflow",
    "pow@missing-exception:int32-result-overflow",
    "reduce_max@missing-exception:error-bad-axis",
    "reduce_max@missing-exception:error-bad-parameter",
    "reduce_max@missing-exception:error-empty-extremum",
    "reduce_min@missing-exception:error-bad-axis",
    "reduce_min@missing-exception:error-bad-parameter",
    "reduce_min@missing-exception:error-empty-extremum",
    "reduce_prod@missing-exception:error-bad-axis",
    "reduce_prod@missing-exception:error-bad-parameter",
    "reduce_sum@missing-exception:error-bad-axis",
    "reduce_sum@missing-exception:error-bad-parameter",
    "reduce_sum@missing-exception:int32-result-overflow",
    "scatter@missing-exception:error-index-negative",
    "scatter@missing-exception:error-scatter-duplicate",
    "scatter_add@missing-exception:error-index-negative",
    "sub@missing-exception:int32-result-overflow",
    # wrong exception
    "_sort_indices@wrong-exception:convention",
    "_sort_values@wrong-exception:convention",
    "_topk_indices@wrong-exception:convention",
    "_topk_values@wrong-exception:convention",
    "add@wrong-exception:convention",
    "argmax@wrong-exception:convention",
    "argmin@wrong-exception:convention",
    "clamp@wrong-exception:convention",
    "conv_general@wrong-exception:convention",
    "cumsum@wrong-exception:convention",
    "div@wrong-exception:convention",
    "elementwise_mul@wrong-exception:convention",
    "eq@wrong-exception:convention",
    "gather@wrong-exception:convention",
    "le@wrong-exception:convention",
    "lt@wrong-exception:convention",
    "matmul@wrong-exception:convention",
    "maximum@wrong-exception:convention",
    "minimum@wrong-exception:convention",
    "mul@wrong-exception:convention",
    "pow@wrong-exception:convention",
    "reduce_max@wrong-exception:convention",
    "reduce_min@wrong-exception:convention",
    "reduce_prod@wrong-exception:convention",
    "reduce_sum@wrong-exception:convention",
    "rem@wrong-exception:convention",
    "scatter@wrong-exception:convention",
    "scatter_add@wrong-exception:convention",
    "select@wrong-exception:convention",
    "sub@wrong-exception:convention",
    # wrong value
    "argmax@wrong-value:integer",
    "argmin@wrong-value:integer",
    "clamp@wrong-value:1-ulp",
    "clamp@wrong-value:nan",
    "clamp@wrong-value:shape",
    "clamp@wrong-value:signed-zero",
    "conv_general@wrong-value:1-ulp",
    "conv_general@wrong-value:many-ulps",
    "cos@wrong-value:accuracy",
    "cumsum@wrong-value:signed-zero",
    "elu@wrong-value:accuracy",
    "elu@wrong-value:sign",
    "erf@wrong-value:accuracy",
    "exp@wrong-value:accuracy",
    "gelu@wrong-value:accuracy",
    "gelu@wrong-value:spurious-nan",
    "log@wrong-value:accuracy",
    "matmul@wrong-value:outside-interval",
    "maximum@wrong-value:signed-zero",
    "minimum@wrong-value:signed-zero",
    "mul@wrong-value:1-ulp",
    "mul@wrong-value:many-ulps",
    "pow@wrong-value:accuracy",
    "pow@wrong-value:exact-point",
    "reduce_max@wrong-value:nan",
    "reduce_max@wrong-value:signed-zero",
    "reduce_min@wrong-value:nan",
    "reduce_min@wrong-value:signed-zero",
    "reduce_prod@wrong-value:1-ulp",
    "reduce_prod@wrong-value:many-ulps",
    "relu@wrong-value:signed-zero",
    "select@wrong-value:signed-zero",
    "sigmoid@wrong-value:accuracy",
    "silu@wrong-value:accuracy",
    "silu@wrong-value:spurious-nan",
    "sin@wrong-value:accuracy",
    "softplus@wrong-value:accuracy",
    "tanh@wrong-value:accuracy",
    # other
    "clamp@raises-Fail",
    "conv_general@conv-negative-padding",
]

REPRODUCTIONS = common.reproductions(REPORT, PUBLISHED, CALLS, np.asarray)

if __name__ == "__main__":
    raise SystemExit(common.main(REPRODUCTIONS))
