"""Every deviation class of onnxruntime.json, reproduced with onnx and onnxruntime alone.

Each reproduction builds the single-node ONNX graph the adapter builds
(``onnx.helper``, default domain, opset 24, inputs and output typed, dimensions
symbolic) and runs it in an ``onnxruntime.InferenceSession`` on
``CPUExecutionProvider`` with one intra-op thread, on the inputs of the
report's example for the class.  An Int32 operand that the plan converts to
Float32 goes through ONNX Runtime's ``Cast`` first (a graph of its own), and a
weak Python scalar is the 0-d array ``numpy.asarray(value, dtype=float32 or
int32)``, as in the adapter.  Run ``python docs/backends/onnxruntime_repro.py``
to see each class printed with what ONNX Runtime did.

A check raises AssertionError, saying what it saw, when ONNX Runtime behaves as
the specification requires.  The checks, one per cause:

* :func:`differs` -- the result is not the specified one (bits in, bits out,
  the specified bits or interval from the report's example);
* :func:`in_batch` -- a unary result that is right for one element alone but
  not for the same element among others (the report's "only inside the corpus
  batch": ONNX Runtime's vectorised kernel runs from 4 elements on);
* :func:`raises_instead` -- ONNX Runtime raises its own exception (``Fail``,
  ``InvalidArgument``) where the specification names ValueError or IndexError;
* :func:`returns_instead` -- ONNX Runtime returns a result where the
  specification requires an exception (Int32 overflow wraps, repeated or
  negative indices, duplicate axes, an empty extremum);
* :func:`refuses` -- ONNX Runtime raises where a result is specified
  (``Clip`` takes only 0-d bounds);
* :func:`no_operator`, :func:`bool_only`, :func:`no_flattened_form`,
  :func:`no_axis_attribute` -- operations the adapter declares unsupported
  because ONNX has no single operator for them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

LIBRARY = "onnxruntime"
REPORT = "onnxruntime.json"
OPSET = 24

Reproduction = Callable[[], None]
_FLOAT, _INT32, _INT64, _BOOL = (
    TensorProto.FLOAT,
    TensorProto.INT32,
    TensorProto.INT64,
    TensorProto.BOOL,
)
_REQUIRED = {"ValueError": ValueError, "IndexError": IndexError}


# ---------------------------------------------------------------------------
# Building and running one node
# ---------------------------------------------------------------------------


def f32(bits: Sequence[int], shape: tuple[int, ...]) -> np.ndarray:
    """A float32 array from its bit patterns."""
    return np.array(bits, dtype=np.uint32).view(np.float32).reshape(shape)


def i32(values: Sequence[int], shape: tuple[int, ...]) -> np.ndarray:
    return np.array(values, dtype=np.int32).reshape(shape)


def i64(values: Sequence[int], shape: tuple[int, ...] = (-1,)) -> np.ndarray:
    return np.array(values, dtype=np.int64).reshape(shape)


def b8(values: Sequence[bool], shape: tuple[int, ...]) -> np.ndarray:
    return np.array(values, dtype=np.bool_).reshape(shape)


def weak(value: Any, dtype: type = np.float32) -> np.ndarray:
    """A weak Python scalar as an ONNX Runtime user materialises it: a 0-d numpy array."""
    with np.errstate(all="ignore"):
        return np.asarray(value, dtype=dtype)


class cast:
    """An int32 array converted to float32 by ONNX Runtime's own Cast node (run lazily)."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __repr__(self) -> str:
        return f"Cast({self.array.tolist()})"

    def value(self) -> np.ndarray:
        return run("Cast", [self.array], {"to": _FLOAT}, [_FLOAT])[0]


def _element(array: np.ndarray) -> int:
    return int(helper.np_dtype_to_tensor_dtype(array.dtype))


def run(
    op_type: str,
    inputs: Sequence[Any],
    attributes: dict[str, Any] | None = None,
    outputs: Sequence[int] = (_FLOAT,),
) -> list[np.ndarray]:
    """Run one ``op_type`` node on *inputs* (arrays, :class:`cast`, or None for an
    omitted optional input); the output arrays."""
    arrays = [x.value() if isinstance(x, cast) else x for x in inputs]
    names = [f"x{i}" if a is not None else "" for i, a in enumerate(arrays)]
    while names and not names[-1]:
        names.pop()
    node = helper.make_node(op_type, names, [f"y{i}" for i in range(len(outputs))],
                            **(attributes or {}))  # fmt: skip
    given = [(f"x{i}", a) for i, a in enumerate(arrays) if a is not None]
    graph = helper.make_graph(
        [node],
        op_type,
        [helper.make_tensor_value_info(n, _element(a), [None] * a.ndim) for n, a in given],
        [helper.make_tensor_value_info(f"y{i}", t, None) for i, t in enumerate(outputs)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 4
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return session.run(None, dict(given))


def _show(array: np.ndarray) -> str:
    if array.dtype == np.float32:
        items = [f"0x{b:08X}" for b in array.reshape(-1).view(np.uint32).tolist()]
    else:
        items = [str(v) for v in array.reshape(-1).tolist()]
    return f"{array.dtype}{list(array.shape)} [{', '.join(items)}]"


def _same(result: np.ndarray, expected: np.ndarray) -> bool:
    if result.shape != expected.shape or result.dtype != expected.dtype:
        return False
    if result.dtype == np.float32:
        return bool(np.array_equal(result.view(np.uint32), expected.view(np.uint32)))
    return bool(np.array_equal(result, expected))


# ---------------------------------------------------------------------------
# The checks (one per cause)
# ---------------------------------------------------------------------------


def differs(op_type: str, inputs: Sequence[Any], attributes: dict[str, Any],
            expected: np.ndarray | Sequence[tuple[float, float]], output: int = 0,
            outputs: Sequence[int] = (_FLOAT,)) -> Reproduction:  # fmt: skip
    """Output *output* is not *expected*: an array (bit for bit, shape and dtype), or
    the per-element accepted intervals of a FLOATING accumulation."""

    def reproduce() -> None:
        result = run(op_type, inputs, attributes, outputs)[output]
        if isinstance(expected, np.ndarray):
            ok = _same(result, expected)
            wanted = _show(expected)
        else:
            flat = result.reshape(-1).astype(np.float64)
            ok = len(flat) == len(expected) and all(
                lo <= v <= hi for v, (lo, hi) in zip(flat.tolist(), expected)
            )
            wanted = f"within {list(expected)}"
        assert not ok, f"{op_type}{list(inputs)} -> {_show(result)}: the specified {wanted}"
        print(f"{op_type}: {_show(result)}, specified {wanted}")

    return reproduce


def in_batch(op_type: str, bits: int, expected: int, copies: int = 8) -> Reproduction:
    """The element *bits* alone gives the specified *expected* bits, but among *copies*
    equal elements (ONNX Runtime's vectorised kernel) it does not."""

    def reproduce() -> None:
        alone = run(op_type, [f32([bits], (1,))])[0].view(np.uint32)[0]
        batch = run(op_type, [f32([bits] * copies, (copies,))])[0].view(np.uint32)
        assert int(batch[0]) != expected, (
            f"{op_type}(0x{bits:08X}) in a batch of {copies}: 0x{int(batch[0]):08X}, as specified"
        )
        print(
            f"{op_type}(0x{bits:08X}): alone 0x{int(alone):08X}, in a batch of {copies} "
            f"0x{int(batch[0]):08X}, specified 0x{expected:08X}"
        )

    return reproduce


def raises_instead(op_type: str, inputs: Sequence[Any], attributes: dict[str, Any],
                   required: str, outputs: Sequence[int] = (_FLOAT,)) -> Reproduction:  # fmt: skip
    """ONNX Runtime refuses the call with its own exception, not the *required* one."""

    def reproduce() -> None:
        try:
            result = run(op_type, inputs, attributes, outputs)
        except _REQUIRED[required] as error:
            raise AssertionError(f"{op_type} raised {required} as specified: {error}") from None
        except Exception as error:
            print(f"{op_type}: {type(error).__name__} instead of {required}: {str(error)[:120]}")
            return
        raise AssertionError(f"{op_type} returned {_show(result[0])}: no exception at all")

    return reproduce


def returns_instead(op_type: str, inputs: Sequence[Any], attributes: dict[str, Any],
                    required: str, outputs: Sequence[int] = (_FLOAT,)) -> Reproduction:  # fmt: skip
    """ONNX Runtime returns a result where the *required* exception is specified."""

    def reproduce() -> None:
        result = run(op_type, inputs, attributes, outputs)  # an exception shows no deviation
        print(f"{op_type}: returned {_show(result[0])} instead of raising {required}")

    return reproduce


def refuses(op_type: str, inputs: Sequence[Any], attributes: dict[str, Any],
            outputs: Sequence[int] = (_FLOAT,)) -> Reproduction:  # fmt: skip
    """ONNX Runtime raises where the specification has a result."""

    def reproduce() -> None:
        try:
            result = run(op_type, inputs, attributes, outputs)
        except Exception as error:
            print(f"{op_type}: raised {type(error).__name__}: {str(error)[:160]}")
            return
        raise AssertionError(f"{op_type} returned {_show(result[0])}: a result, as specified")

    return reproduce


def no_operator(op_type: str) -> Reproduction:
    """ONNX has no operator *op_type* in the default domain up to opset 24."""

    def reproduce() -> None:
        assert not onnx.defs.has(op_type), f"ONNX has an operator {op_type}"
        print(f"ONNX has no operator {op_type}")

    return reproduce


def bool_only(op_type: str) -> Reproduction:
    """*op_type* takes bool tensors only, so a Float32 operand needs a Cast node first."""

    def reproduce() -> None:
        schema = onnx.defs.get_schema(op_type, OPSET)
        allowed = {t for c in schema.type_constraints for t in c.allowed_type_strs}
        assert "tensor(float)" not in allowed, f"{op_type} takes float tensors: {allowed}"
        print(f"{op_type} takes {sorted(allowed)} only")

    return reproduce


def no_flattened_form(op_type: str) -> Reproduction:
    """*op_type* always reduces one axis (default 0): there is no flattened form."""

    def reproduce() -> None:
        x = f32([0x3F800000, 0x40000000, 0x40400000, 0x00000000], (2, 2))
        result = run(op_type, [x], {"keepdims": 0}, [_INT64])[0]
        assert result.shape != (), f"{op_type} without axis reduced everything: {result}"
        print(f"{op_type} of a (2, 2) tensor without axis: shape {result.shape}, not flattened")

    return reproduce


def no_axis_attribute(op_type: str) -> Reproduction:
    """*op_type* has no axis attribute: it scatters along the leading axes only."""

    def reproduce() -> None:
        attributes = onnx.defs.get_schema(op_type, OPSET).attributes
        assert "axis" not in attributes, f"{op_type} has an axis attribute"
        print(f"{op_type} attributes: {sorted(attributes)} (no axis)")

    return reproduce


# ---------------------------------------------------------------------------
# Every class of the report
# ---------------------------------------------------------------------------

NAN = math.nan
INF = math.inf

BY_CLASS: dict[str, Reproduction] = {
    "_sort_indices@wrong-exception:error-bad-axis": raises_instead(
        "TopK",
        [f32([0x00000000], (1,)), i64([0], (1,))],
        {"axis": 1, "largest": 0, "sorted": 1},
        "ValueError",
        outputs=(_FLOAT, _INT64),
    ),
    "_sort_values@wrong-exception:error-bad-axis": raises_instead(
        "TopK",
        [f32([0x00000000], (1,)), i64([0], (1,))],
        {"axis": 1, "largest": 0, "sorted": 1},
        "ValueError",
        outputs=(_FLOAT, _INT64),
    ),
    "_topk_indices@wrong-exception:error-bad-axis": raises_instead(
        "TopK",
        [f32([0x00000000], (1,)), i64([0], (1,))],
        {"axis": 1, "largest": 1, "sorted": 1},
        "ValueError",
        outputs=(_FLOAT, _INT64),
    ),
    "_topk_indices@wrong-exception:error-bad-parameter": raises_instead(
        "TopK",
        [
            f32([0x3F800000, 0x40000000, 0x40400000, 0x40800000, 0x40A00000, 0x40C00000], (2, 3)),
            i64([-1], (1,)),
        ],
        {"axis": -1, "largest": 1, "sorted": 1},
        "ValueError",
        outputs=(_FLOAT, _INT64),
    ),
    "_topk_values@wrong-exception:error-bad-axis": raises_instead(
        "TopK",
        [f32([0x00000000], (1,)), i64([0], (1,))],
        {"axis": 1, "largest": 1, "sorted": 1},
        "ValueError",
        outputs=(_FLOAT, _INT64),
    ),
    "_topk_values@wrong-exception:error-bad-parameter": raises_instead(
        "TopK",
        [
            f32([0x3F800000, 0x40000000, 0x40400000, 0x40800000, 0x40A00000, 0x40C00000], (2, 3)),
            i64([-1], (1,)),
        ],
        {"axis": -1, "largest": 1, "sorted": 1},
        "ValueError",
        outputs=(_FLOAT, _INT64),
    ),
    "add@missing-exception:int32-result-overflow": returns_instead(
        "Add", [i32([2147483647], (1,)), i32([1], (1,))], {}, "OverflowError", outputs=(_INT32,)
    ),
    "add@wrong-exception:error-shape-mismatch": raises_instead(
        "Add",
        [f32([0x3F800000, 0x3F800000], (2,)), f32([0x3F800000, 0x3F800000, 0x3F800000], (3,))],
        {},
        "ValueError",
    ),
    "argmax@wrong-value:integer": differs(
        "ArgMax",
        [
            f32(
                [
                    0x40056325,
                    0xBFF4630A,
                    0x403B9C8F,
                    0xC0AAECB4,
                    0x40AF6E23,
                    0xC082884C,
                    0x40CAF541,
                    0xC0C49782,
                    0xC0F8CCD9,
                    0x4008B15A,
                    0xC0E96C55,
                    0xBF1845AC,
                    0x409E47E4,
                    0xC0F4C5ED,
                    0x40AE2D33,
                    0xC087123D,
                    0x7FC00001,
                ],
                (17,),
            )
        ],
        {"axis": 0, "keepdims": 0},
        i64([16], ()),
        outputs=(_INT64,),
    ),
    "argmax@wrong-exception:error-bad-axis": raises_instead(
        "ArgMax",
        [f32([0x00000000], (1,))],
        {"axis": 1, "keepdims": 0},
        "ValueError",
        outputs=(_INT64,),
    ),
    "argmax@wrong-exception:error-empty-extremum": no_flattened_form("ArgMax"),
    "argmax@raises-NotImplementedError": no_flattened_form("ArgMax"),
    "argmin@wrong-value:integer": differs(
        "ArgMin",
        [f32([0xBF800000, 0x3F800000, 0x7FC00000, 0x7FC00000], (4, 1))],
        {"axis": 0, "keepdims": 0},
        i64([2], (1,)),
        outputs=(_INT64,),
    ),
    "argmin@wrong-exception:error-bad-axis": raises_instead(
        "ArgMin",
        [f32([0x00000000], (1,))],
        {"axis": 1, "keepdims": 0},
        "ValueError",
        outputs=(_INT64,),
    ),
    "argmin@wrong-exception:error-empty-extremum": no_flattened_form("ArgMin"),
    "argmin@raises-NotImplementedError": no_flattened_form("ArgMin"),
    "clamp@wrong-value:1-ulp": differs(
        "Clip",
        [f32([0xD162FE15], (1,)), weak(-2147483648), weak(-619549948382879418333265919)],
        {},
        f32([0xEC001EB3], (1,)),
    ),
    "clamp@wrong-value:nan": differs(
        "Clip",
        [f32([0x3F800000], (1,)), weak(NAN), weak(2)],
        {},
        f32([0x7FC00000], (1,)),
    ),
    "clamp@wrong-value:shape-or-dtype": differs(
        "Clip",
        [f32([0x00800000], ()), f32([0x3F800001], ()), f32([0x41100000], (1,))],
        {},
        f32([0x3F800001], (1,)),
    ),
    "clamp@wrong-value:signed-zero": differs(
        "Clip",
        [f32([0x80000000], (1,)), weak(0), weak(2)],
        {},
        f32([0x00000000], (1,)),
    ),
    "clamp@wrong-exception:error-shape-mismatch": raises_instead(
        "Clip",
        [
            f32([0x3F800000, 0x3F800000], (2,)),
            f32([0x3F800000, 0x3F800000, 0x3F800000], (3,)),
            weak(2),
        ],
        {},
        "ValueError",
    ),
    "clamp@raises-Fail": refuses(
        "Clip",
        [
            f32([0x3F000000, 0xBF400000], (2,)),
            f32([0x3F000000, 0xBF400000], (2,)),
            f32([0x3F000000, 0xBF400000], (2,)),
        ],
        {},
    ),
    "conv_general@wrong-value:1-ulp": differs(
        "Conv",
        [
            f32([0xBF9FE84A, 0xBFF11E41, 0xBFF1130B, 0x3FFDE112], (1, 2, 2)),
            f32(
                [
                    0x3F800000,
                    0x3F800000,
                    0x3F800000,
                    0x3F800000,
                    0x3FFEFAEB,
                    0xBF63849B,
                    0x40647781,
                    0x3FBD7750,
                ],
                (2, 2, 2),
            ),
        ],
        {"strides": (1,), "pads": (0, 0), "dilations": (1,), "group": 1},
        f32([0xC0421C41, 0xC09342AE], (1, 2, 1)),
    ),
    "conv_general@wrong-value:many-ulps": differs(
        "Conv",
        [
            f32(
                [0xBFC66335, 0xBF564FF3, 0xBF8FCD21, 0xBF20E1D4, 0xC03A56C2, 0x4048FC6D], (1, 2, 3)
            ),
            f32(
                [
                    0x3F800000,
                    0x3F800000,
                    0x3F800000,
                    0x3F800000,
                    0x3F800000,
                    0x3F800000,
                    0xC063B50A,
                    0xBF4EC5B9,
                    0xBF8B2D5C,
                    0xC00B4686,
                    0xBFA52838,
                    0x3F0F238D,
                ],
                (2, 2, 3),
            ),
        ],
        {"strides": (1,), "pads": (0, 0), "dilations": (1,), "group": 1},
        f32([0xC07A3EF3, 0x4164ADC6], (1, 2, 1)),
    ),
    "cos@wrong-value:1-ulp": in_batch("Cos", 0x3F000010, 0x3F60A939),
    "cumsum@wrong-value:signed-zero": differs(
        "CumSum",
        [f32([0x80000000, 0x80000000], (2,)), i64([0], ())],
        {},
        f32([0x00000000, 0x00000000], (2,)),
    ),
    "cumsum@wrong-exception:error-bad-axis": raises_instead(
        "CumSum", [f32([0x00000000], (1,)), i64([1], ())], {}, "ValueError"
    ),
    "div@wrong-exception:error-shape-mismatch": raises_instead(
        "Div",
        [f32([0x3F800000, 0x3F800000], (2,)), f32([0x3F800000, 0x3F800000, 0x3F800000], (3,))],
        {},
        "ValueError",
    ),
    "elementwise_mul@missing-exception:int32-result-overflow": returns_instead(
        "Mul", [i32([1073741824], (1,)), i32([2], (1,))], {}, "OverflowError", outputs=(_INT32,)
    ),
    "elementwise_mul@wrong-exception:error-shape-mismatch": raises_instead(
        "Mul",
        [f32([0x3F800000, 0x3F800000], (2,)), f32([0x3F800000, 0x3F800000, 0x3F800000], (3,))],
        {},
        "ValueError",
    ),
    "elu@wrong-value:1-ulp": differs(
        "Elu",
        [f32([0xB37FFFFF], (1,))],
        {},
        f32([0xB37FFFFF], (1,)),
    ),
    "elu@wrong-value:many-ulps": differs(
        "Elu",
        [f32([0xB3000001], (1,))],
        {},
        f32([0xB3000001], (1,)),
    ),
    "elu@wrong-value:sign": differs(
        "Elu",
        [f32([0x80800000], (1,))],
        {},
        f32([0x80800000], (1,)),
    ),
    "elu@wrong-value:subnormal": differs(
        "Elu",
        [f32([0x80000001], (1,))],
        {},
        f32([0x80000001], (1,)),
    ),
    "eq@wrong-exception:error-shape-mismatch": raises_instead(
        "Equal",
        [f32([0x3F800000, 0x3F800000], (2,)), f32([0x3F800000, 0x3F800000, 0x3F800000], (3,))],
        {},
        "ValueError",
        outputs=(_BOOL,),
    ),
    "erf@wrong-value:1-ulp": differs(
        "Erf",
        [f32([0x00800000], (1,))],
        {},
        f32([0x00906EBB], (1,)),
    ),
    "erf@wrong-value:subnormal": differs(
        "Erf",
        [f32([0x00400002], (1,))],
        {},
        f32([0x00483760], (1,)),
    ),
    "exp@wrong-value:1-ulp": differs(
        "Exp",
        [cast(i32([-6], ()))],
        {},
        f32([0x3B227290], ()),
    ),
    "exp2@raises-NotImplementedError": no_operator("Exp2"),
    "gather@missing-exception:error-index-negative": returns_instead(
        "Gather", [f32([0x00000000], (1,)), i32([-1], (1,))], {"axis": 0}, "IndexError"
    ),
    "gather@wrong-exception:error-bad-axis": raises_instead(
        "Gather",
        [f32([0x3F800000, 0x40000000, 0x40400000], (3,)), i32([0], (1,))],
        {"axis": 1},
        "ValueError",
    ),
    "gather@wrong-exception:error-index-negative": raises_instead(
        "Gather",
        [f32([0x41800000, 0x80000000], (2,)), i32([0, -3], (2,))],
        {"axis": 0},
        "IndexError",
    ),
    "gather@wrong-exception:error-index-too-large": raises_instead(
        "Gather", [f32([0x41700000], (1, 1)), i32([4], (1,))], {"axis": 1}, "IndexError"
    ),
    "gelu@wrong-value:1-ulp": differs(
        "Gelu",
        [f32([0x3F800000], ())],
        {},
        f32([0x3F57625F], ()),
    ),
    "gelu@wrong-value:many-ulps": differs(
        "Gelu",
        [f32([0xBF600000], (1,))],
        {},
        f32([0xBE2AF1F3], (1,)),
    ),
    "gelu@wrong-value:spurious-nan": differs(
        "Gelu",
        [f32([0xFF800000], (1,))],
        {},
        f32([0x80000000], (1,)),
    ),
    "gelu@wrong-value:subnormal": differs(
        "Gelu",
        [f32([0x00000001], (1,))],
        {},
        f32([0x00000001], (1,)),
    ),
    "le@wrong-exception:error-shape-mismatch": raises_instead(
        "LessOrEqual",
        [f32([0x3F800000, 0x3F800000], (2,)), f32([0x3F800000, 0x3F800000, 0x3F800000], (3,))],
        {},
        "ValueError",
        outputs=(_BOOL,),
    ),
    "log@wrong-value:1-ulp": in_batch("Log", 0x00000007, 0xC2CAAA82),
    "log@wrong-value:many-ulps": in_batch("Log", 0x3FA00001, 0x3E647FC5),
    "log2@raises-NotImplementedError": no_operator("Log2"),
    "logical_not@raises-NotImplementedError": bool_only("Not"),
    "lt@wrong-exception:error-shape-mismatch": raises_instead(
        "Less",
        [f32([0x3F800000, 0x3F800000], (2,)), f32([0x3F800000, 0x3F800000, 0x3F800000], (3,))],
        {},
        "ValueError",
        outputs=(_BOOL,),
    ),
    "matmul@wrong-value:outside-interval": differs(
        "MatMul",
        [
            f32([0xC07B7542, 0xBF5C997F, 0xC06CCE3C, 0x3F9ABEAB], (2, 2)),
            cast(i32([657272, 201950, 263842, 965667], (2, 2))),
        ],
        {},
        [
            (-2809799.75, -2809799.75),
            (-1625599.75, -1625599.75),
            (-2112994.0, -2112994.0),
            (420204.3125, 420204.3125),
        ],
    ),
    "matmul@missing-exception:error-shape-mismatch": returns_instead(
        "MatMul",
        [
            f32([0x3F800000, 0x40000000, 0x40400000], (3,)),
            f32([0x3F800000, 0x40000000, 0x40400000, 0x40800000, 0x40A00000, 0x40C00000], (3, 2)),
        ],
        {},
        "ValueError",
    ),
    "matmul@missing-exception:int32-result-overflow": returns_instead(
        "MatMul",
        [i32([2147483647, 1], (1, 2)), i32([1, 1], (2, 1))],
        {},
        "OverflowError",
        outputs=(_INT32,),
    ),
    "matmul@wrong-exception:error-shape-mismatch": raises_instead(
        "MatMul",
        [f32([0x00000000], (1, 1)), f32([0x00000000, 0x00000000], (2, 1))],
        {},
        "ValueError",
    ),
    "maximum@wrong-value:signed-zero": differs(
        "Max",
        [f32([0x00000000], (1,)), f32([0x80000000], (1,))],
        {},
        f32([0x00000000], (1,)),
    ),
    "maximum@wrong-exception:error-shape-mismatch": raises_instead(
        "Max",
        [f32([0x3F800000, 0x3F800000], (2,)), f32([0x3F800000, 0x3F800000, 0x3F800000], (3,))],
        {},
        "ValueError",
    ),
    "minimum@wrong-value:signed-zero": differs(
        "Min",
        [f32([0x80000000], ()), f32([0x00000000], ())],
        {},
        f32([0x80000000], ()),
    ),
    "minimum@wrong-exception:error-shape-mismatch": raises_instead(
        "Min",
        [f32([0x3F800000, 0x3F800000], (2,)), f32([0x3F800000, 0x3F800000, 0x3F800000], (3,))],
        {},
        "ValueError",
    ),
    "mul@wrong-value:1-ulp": differs(
        "Mul",
        [f32([0x3F800000], (1,)), weak(18014399583223809)],
        {},
        f32([0x5A800001], (1,)),
    ),
    "mul@wrong-value:many-ulps": differs(
        "Mul",
        [f32([0x20E4F91B], ()), weak(605359414363537467637761)],
        {},
        f32([0x4865500A], ()),
    ),
    "mul@missing-exception:int32-result-overflow": returns_instead(
        "Mul", [i32([1073741824], (1,)), weak(2, np.int32)], {}, "OverflowError", outputs=(_INT32,)
    ),
    "mul@wrong-exception:error-shape-mismatch": raises_instead(
        "Mul",
        [f32([0x3F800000, 0x3F800000], (2,)), f32([0x3F800000, 0x3F800000, 0x3F800000], (3,))],
        {},
        "ValueError",
    ),
    "ne@wrong-exception:error-shape-mismatch": no_operator("NotEqual"),
    "ne@raises-NotImplementedError": no_operator("NotEqual"),
    "pow@wrong-value:1-ulp": differs(
        "Pow",
        [weak(18014399583223809), f32([0x3F800000], (1,))],
        {},
        f32([0x5A800001], (1,)),
    ),
    "pow@wrong-value:many-ulps": differs(
        "Pow",
        [weak(18014399583223809), cast(i32([-1, 2, -2, 3, -3, 7], (6,)))],
        {},
        f32([0x247FFFFE, 0x75800002, 0x097FFFFC, 0x7F800000, 0x00000000, 0x7F800000], (6,)),
    ),
    "pow@missing-exception:int32-result-overflow": returns_instead(
        "Pow", [i32([2], (1,)), weak(31, np.int32)], {}, "OverflowError", outputs=(_INT32,)
    ),
    "pow@wrong-exception:error-shape-mismatch": raises_instead(
        "Pow",
        [f32([0x3F800000, 0x3F800000], (2,)), f32([0x3F800000, 0x3F800000, 0x3F800000], (3,))],
        {},
        "ValueError",
    ),
    "reduce_max@wrong-value:nan": differs(
        "ReduceMax",
        [f32([0x3F800000, 0x7FC00001, 0xFFD2A4C6], (3,)), None],
        {"keepdims": 0},
        f32([0x7FC00001], ()),
    ),
    "reduce_max@wrong-value:signed-zero": differs(
        "ReduceMax",
        [f32([0x80000000, 0x00000000], (2,)), None],
        {"keepdims": 0},
        f32([0x00000000], ()),
    ),
    "reduce_max@missing-exception:error-bad-axis": returns_instead(
        "ReduceMax",
        [
            f32([0x3F800000, 0x40000000, 0x40400000, 0x40800000, 0x40A00000, 0x40C00000], (2, 3)),
            i64([1, -1], (2,)),
        ],
        {"keepdims": 0},
        "ValueError",
    ),
    "reduce_max@missing-exception:error-empty-extremum": returns_instead(
        "ReduceMax", [f32([], (0,)), None], {"keepdims": 0}, "ValueError"
    ),
    "reduce_max@wrong-exception:error-bad-axis": raises_instead(
        "ReduceMax", [f32([0x00000000], (1,)), i64([1], (1,))], {"keepdims": 0}, "ValueError"
    ),
    "reduce_min@wrong-value:nan": differs(
        "ReduceMin",
        [f32([0x3F800000, 0x7FC00001, 0xFFD2A4C6], (3,)), None],
        {"keepdims": 0},
        f32([0x7FC00001], ()),
    ),
    "reduce_min@wrong-value:signed-zero": differs(
        "ReduceMin",
        [f32([0x00000000, 0x80000000], (2,)), None],
        {"keepdims": 0},
        f32([0x80000000], ()),
    ),
    "reduce_min@missing-exception:error-bad-axis": returns_instead(
        "ReduceMin",
        [
            f32([0x3F800000, 0x40000000, 0x40400000, 0x40800000, 0x40A00000, 0x40C00000], (2, 3)),
            i64([1, -1], (2,)),
        ],
        {"keepdims": 0},
        "ValueError",
    ),
    "reduce_min@missing-exception:error-empty-extremum": returns_instead(
        "ReduceMin", [f32([], (0,)), None], {"keepdims": 0}, "ValueError"
    ),
    "reduce_min@wrong-exception:error-bad-axis": raises_instead(
        "ReduceMin", [f32([0x00000000], (1,)), i64([1], (1,))], {"keepdims": 0}, "ValueError"
    ),
    "reduce_prod@wrong-value:1-ulp": differs(
        "ReduceProd",
        [f32([0x3F800EE4, 0x3F7FF07A, 0x3F800982, 0x3F7FF1BF, 0x3F80097B], (5,)), i64([0], (1,))],
        {"keepdims": 0},
        f32([0x3F8012FE], ()),
    ),
    "reduce_prod@wrong-value:many-ulps": differs(
        "ReduceProd",
        [
            f32(
                [
                    0x3F800C60,
                    0x3F7FFCD4,
                    0x3F8008DE,
                    0x3F7FFA0C,
                    0x3F8007C7,
                    0x3F7FF6BB,
                    0x3F800D03,
                    0x3F7FF205,
                    0x3F80043A,
                ],
                (9,),
            ),
            i64([0], (1,)),
        ],
        {"keepdims": 0},
        f32([0x3F801E15], ()),
    ),
    "reduce_prod@missing-exception:error-bad-axis": returns_instead(
        "ReduceProd",
        [f32([0x0001C607, 0x0000018F], (2,)), i64([0, -1], (2,))],
        {"keepdims": 0},
        "ValueError",
    ),
    "reduce_prod@wrong-exception:error-bad-axis": raises_instead(
        "ReduceProd", [f32([0x00000000], (1,)), i64([1], (1,))], {"keepdims": 0}, "ValueError"
    ),
    "reduce_sum@missing-exception:error-bad-axis": returns_instead(
        "ReduceSum",
        [i32([1073741824], (1,)), i64([0, -1], (2,))],
        {"keepdims": 0},
        "ValueError",
        outputs=(_INT32,),
    ),
    "reduce_sum@missing-exception:int32-result-overflow": returns_instead(
        "ReduceSum", [i32([2147483647, 1], (2,)), None], {"keepdims": 0}, "?", outputs=(_INT32,)
    ),
    "reduce_sum@wrong-exception:error-bad-axis": raises_instead(
        "ReduceSum", [f32([0x00000000], (1,)), i64([1], (1,))], {"keepdims": 0}, "ValueError"
    ),
    "relu@wrong-value:signed-zero": differs(
        "Relu",
        [f32([0x80000000], ())],
        {},
        f32([0x00000000], ()),
    ),
    "rem@wrong-exception:error-shape-mismatch": raises_instead(
        "Mod",
        [f32([0x3F800000, 0x3F800000], (2,)), f32([0x3F800000, 0x3F800000, 0x3F800000], (3,))],
        {"fmod": 1},
        "ValueError",
    ),
    "rsqrt@raises-NotImplementedError": no_operator("Rsqrt"),
    "scatter@missing-exception:error-index-negative": returns_instead(
        "ScatterND",
        [f32([0x00000000], (1,)), i64([-1], (1, 1)), f32([0x00000000], (1,))],
        {"reduction": "none"},
        "IndexError",
    ),
    "scatter@missing-exception:error-scatter-duplicate": returns_instead(
        "ScatterND",
        [
            f32([0x41500000, 0x41500000], (2, 1)),
            i64([1, 1], (2, 1)),
            f32([0x000001C7, 0x000001C7], (2, 1)),
        ],
        {"reduction": "none"},
        "ValueError",
    ),
    "scatter@wrong-exception:error-bad-axis": no_axis_attribute("ScatterND"),
    "scatter@wrong-exception:error-index-too-large": raises_instead(
        "ScatterND",
        [
            f32([0x3F800000, 0x40000000, 0x40400000], (3,)),
            i64([3], (1, 1)),
            f32([0x41200000], (1,)),
        ],
        {"reduction": "none"},
        "IndexError",
    ),
    "scatter@wrong-exception:error-shape-mismatch": no_axis_attribute("ScatterND"),
    "scatter@negative-axis": no_axis_attribute("ScatterND"),
    "scatter_add@missing-exception:error-index-negative": returns_instead(
        "ScatterND",
        [f32([0x00000000], (1,)), i64([-1], (1, 1)), f32([0x00000000], (1,))],
        {"reduction": "add"},
        "IndexError",
    ),
    "scatter_add@wrong-exception:error-bad-axis": no_axis_attribute("ScatterND"),
    "scatter_add@wrong-exception:error-index-too-large": raises_instead(
        "ScatterND",
        [
            f32([0x3F800000, 0x40000000, 0x40400000], (3,)),
            i64([3], (1, 1)),
            f32([0x41200000], (1,)),
        ],
        {"reduction": "add"},
        "IndexError",
    ),
    "scatter_add@wrong-exception:error-shape-mismatch": no_axis_attribute("ScatterND"),
    "scatter_add@negative-axis": no_axis_attribute("ScatterND"),
    "scatter_add@zero-size": no_axis_attribute("ScatterND"),
    # the report's example is (2, 1, 1) x (1, 16, 1) x (1, 1, 16); one element shows the cause
    "select@wrong-value:signed-zero": differs(
        "Where",
        [b8([True], (1,)), f32([0x80000000], (1,)), f32([0x00000000], (1,))],
        {},
        f32([0x80000000], (1,)),
    ),
    "select@wrong-exception:error-shape-mismatch": raises_instead(
        "Where",
        [
            b8([True, False, True], (3,)),
            f32([0x3F800000, 0x40000000], (2,)),
            f32([0x3F800000, 0x40000000], (2,)),
        ],
        {},
        "ValueError",
    ),
    "sigmoid@wrong-value:1-ulp": differs(
        "Sigmoid",
        [f32([0x3F000000], ())],
        {},
        f32([0x3F1F597F], ()),
    ),
    "sigmoid@wrong-value:many-ulps": differs(
        "Sigmoid",
        [cast(i32([-3], ()))],
        {},
        f32([0x3D4241A2], ()),
    ),
    "sigmoid@wrong-value:subnormal": differs(
        "Sigmoid",
        [cast(i32([-24, -36, -78, -104, -21, -84, 4, -92], (8,)))],
        {},
        f32(
            [
                0x2E26083C,
                0x2585B61D,
                0x07314490,
                0x00000000,
                0x30506D87,
                0x02E0F96D,
                0x3F7B6541,
                0x00013521,
            ],
            (8,),
        ),
    ),
    "silu@wrong-value:1-ulp": differs(
        "Swish",
        [f32([0x3F000000], ())],
        {},
        f32([0x3E9F597F], ()),
    ),
    "silu@wrong-value:many-ulps": differs(
        "Swish",
        [cast(i32([-78], (1,)))],
        {},
        f32([0x8A580B8F], (1,)),
    ),
    "silu@wrong-value:spurious-nan": differs(
        "Swish",
        [f32([0xFF800000], (1,))],
        {},
        f32([0x80000000], (1,)),
    ),
    "silu@wrong-value:subnormal": differs(
        "Swish",
        [f32([0x00000001], ())],
        {},
        f32([0x00000001], ()),
    ),
    "sin@wrong-value:1-ulp": in_batch("Sin", 0x3EC00002, 0x3EBB8815),
    "softplus@wrong-value:1-ulp": differs(
        "Softplus",
        [f32([0x3F800000], ())],
        {},
        f32([0x3FA818F5], ()),
    ),
    "softplus@wrong-value:many-ulps": in_batch("Softplus", 0x3E800001, 0x3F5370C4),
    "sub@missing-exception:int32-result-overflow": returns_instead(
        "Sub", [i32([-2147483648], (1,)), i32([1], (1,))], {}, "OverflowError", outputs=(_INT32,)
    ),
    "sub@wrong-exception:error-shape-mismatch": raises_instead(
        "Sub",
        [f32([0x3F800000, 0x3F800000], (2,)), f32([0x3F800000, 0x3F800000, 0x3F800000], (3,))],
        {},
        "ValueError",
    ),
    "tanh@wrong-value:1-ulp": differs(
        "Tanh",
        [f32([0x01DFFFFF], (1,))],
        {},
        f32([0x01DFFFFF], (1,)),
    ),
    "tanh@wrong-value:many-ulps": differs(
        "Tanh",
        [f32([0x40C00000], ())],
        {},
        f32([0x3F7FFF32], ()),
    ),
    "tanh@wrong-value:subnormal": differs(
        "Tanh",
        [f32([0x00000087], ())],
        {},
        f32([0x00000087], ()),
    ),
    # -- classes of the re-measured report (issue 27's spellings) with no earlier class
    "_sort_indices@missing-exception:error-bad-parameter": returns_instead(
        "TopK",
        [f32([0x3F800000, 0x40000000, 0x40400000], (3,)), i64([3], (1,))],
        {"axis": 0, "largest": 1, "sorted": 1},
        "TypeError (descending = int 1)",
        outputs=(_FLOAT, _INT64),
    ),
    "_sort_values@missing-exception:error-bad-parameter": returns_instead(
        "TopK",
        [f32([0x3F800000, 0x40000000, 0x40400000], (3,)), i64([3], (1,))],
        {"axis": 0, "largest": 1, "sorted": 1},
        "TypeError (descending = int 1)",
        outputs=(_FLOAT, _INT64),
    ),
    "_topk_indices@missing-exception:error-bad-parameter": returns_instead(
        "TopK",
        [
            f32([0x3F800000, 0x40000000, 0x40400000, 0x40800000, 0x40A00000, 0x40C00000], (2, 3)),
            i64([1], (1,)),
        ],
        {"axis": -1, "largest": 1, "sorted": 1},
        "TypeError (largest = int 1)",
        outputs=(_FLOAT, _INT64),
    ),
    "_topk_values@missing-exception:error-bad-parameter": returns_instead(
        "TopK",
        [
            f32([0x3F800000, 0x40000000, 0x40400000, 0x40800000, 0x40A00000, 0x40C00000], (2, 3)),
            i64([1], (1,)),
        ],
        {"axis": -1, "largest": 1, "sorted": 1},
        "TypeError (largest = int 1)",
        outputs=(_FLOAT, _INT64),
    ),
    "conv_general@conv-negative-padding": raises_instead(
        "Conv",
        [
            f32(
                [0x3F800000, 0x40000000, 0x40400000, 0x40800000, 0x40A00000, 0x40C00000], (1, 2, 3)
            ),
            f32(
                [
                    0x3F800000,
                    0x40000000,
                    0x40400000,
                    0x40800000,
                    0x40A00000,
                    0x40C00000,
                    0x40E00000,
                    0x41000000,
                ],
                (2, 2, 2),
            ),
        ],
        {"strides": (1,), "pads": (-2, -2), "dilations": (1,), "group": 1},
        "ValueError",
    ),
    "conv_general@wrong-exception:convention": raises_instead(
        "Conv",
        [f32([0x00000000, 0x00000000], (1, 2, 1)), f32([0x00000000], (1, 1, 1))],
        {"strides": (1,), "pads": (0, 0), "dilations": (1,), "group": 1},
        "ValueError",
    ),
    "cumsum@missing-exception:error-bad-axis": returns_instead(
        "CumSum",
        [
            f32([0x3F800000, 0x40000000, 0x40400000, 0x40800000, 0x40A00000, 0x40C00000], (2, 3)),
            i64([0], (1,)),
        ],
        {},
        "TypeError (axis = tuple (0,))",
    ),
    "reduce_max@missing-exception:error-bad-parameter": returns_instead(
        "ReduceMax",
        [f32([0x3F800000, 0x40000000], (2,)), None],
        {"keepdims": 1},
        "TypeError (keepdims = int 1)",
    ),
    "reduce_min@missing-exception:error-bad-parameter": returns_instead(
        "ReduceMin",
        [f32([0x3F800000, 0x40000000], (2,)), None],
        {"keepdims": 1},
        "TypeError (keepdims = int 1)",
    ),
    "reduce_prod@missing-exception:error-bad-parameter": returns_instead(
        "ReduceProd",
        [f32([0x3F800000, 0x40000000], (2,)), None],
        {"keepdims": 1},
        "TypeError (keepdims = int 1)",
    ),
    "reduce_sum@missing-exception:error-bad-parameter": returns_instead(
        "ReduceSum",
        [f32([0x3F800000, 0x40000000], (2,)), None],
        {"keepdims": 1},
        "TypeError (keepdims = int 1)",
    ),
}


#: issue 27 folded classes into one (``wrong-value:accuracy`` for 1-ulp, many-ulps and
#: subnormal elements of a correctly rounded operation; ``wrong-exception:convention``
#: for every exception type that is plancheck's convention; ``shape-or-dtype`` split):
#: a class of the re-measured report -> the class of the earlier report whose
#: reproduction (above) shows it
FOLDED: dict[str, str] = {
    "_sort_indices@wrong-exception:convention": "_sort_indices@wrong-exception:error-bad-axis",
    "_sort_values@wrong-exception:convention": "_sort_values@wrong-exception:error-bad-axis",
    "_topk_indices@wrong-exception:convention": "_topk_indices@wrong-exception:error-bad-axis",
    "_topk_values@wrong-exception:convention": "_topk_values@wrong-exception:error-bad-axis",
    "add@wrong-exception:convention": "add@wrong-exception:error-shape-mismatch",
    "argmax@wrong-exception:convention": "argmax@raises-NotImplementedError",
    "argmin@wrong-exception:convention": "argmin@raises-NotImplementedError",
    "clamp@wrong-exception:convention": "clamp@raises-Fail",
    "clamp@wrong-value:shape": "clamp@wrong-value:shape-or-dtype",
    "cos@wrong-value:accuracy": "cos@wrong-value:1-ulp",
    "cumsum@wrong-exception:convention": "cumsum@wrong-exception:error-bad-axis",
    "div@wrong-exception:convention": "div@wrong-exception:error-shape-mismatch",
    "elementwise_mul@wrong-exception:convention": "elementwise_mul@wrong-exception:error-shape-mismatch",  # noqa: E501
    "elu@wrong-value:accuracy": "elu@wrong-value:1-ulp",
    "eq@wrong-exception:convention": "eq@wrong-exception:error-shape-mismatch",
    "erf@wrong-value:accuracy": "erf@wrong-value:1-ulp",
    "exp@wrong-value:accuracy": "exp@wrong-value:1-ulp",
    "gather@wrong-exception:convention": "gather@wrong-exception:error-bad-axis",
    "gelu@wrong-value:accuracy": "gelu@wrong-value:1-ulp",
    "le@wrong-exception:convention": "le@wrong-exception:error-shape-mismatch",
    "log@wrong-value:accuracy": "log@wrong-value:1-ulp",
    "lt@wrong-exception:convention": "lt@wrong-exception:error-shape-mismatch",
    "matmul@wrong-exception:convention": "matmul@wrong-exception:error-shape-mismatch",
    "maximum@wrong-exception:convention": "maximum@wrong-exception:error-shape-mismatch",
    "minimum@wrong-exception:convention": "minimum@wrong-exception:error-shape-mismatch",
    "mul@wrong-exception:convention": "mul@wrong-exception:error-shape-mismatch",
    "pow@wrong-exception:convention": "pow@wrong-exception:error-shape-mismatch",
    "pow@wrong-value:accuracy": "pow@wrong-value:1-ulp",
    "pow@wrong-value:exact-point": "pow@wrong-value:1-ulp",
    "reduce_max@wrong-exception:convention": "reduce_max@wrong-exception:error-bad-axis",
    "reduce_min@wrong-exception:convention": "reduce_min@wrong-exception:error-bad-axis",
    "reduce_prod@wrong-exception:convention": "reduce_prod@wrong-exception:error-bad-axis",
    "reduce_sum@wrong-exception:convention": "reduce_sum@wrong-exception:error-bad-axis",
    "rem@wrong-exception:convention": "rem@wrong-exception:error-shape-mismatch",
    "scatter@wrong-exception:convention": "scatter@wrong-exception:error-bad-axis",
    "scatter_add@wrong-exception:convention": "scatter_add@wrong-exception:error-bad-axis",
    "select@wrong-exception:convention": "select@wrong-exception:error-shape-mismatch",
    "sigmoid@wrong-value:accuracy": "sigmoid@wrong-value:1-ulp",
    "silu@wrong-value:accuracy": "silu@wrong-value:1-ulp",
    "sin@wrong-value:accuracy": "sin@wrong-value:1-ulp",
    "softplus@wrong-value:accuracy": "softplus@wrong-value:1-ulp",
    "sub@wrong-exception:convention": "sub@wrong-exception:error-shape-mismatch",
    "tanh@wrong-value:accuracy": "tanh@wrong-value:1-ulp",
}


def _published() -> list[str]:
    """The classes of the report beside this file (``REPORT``)."""
    data = json.loads(Path(__file__).with_name(REPORT).read_text())
    return sorted({f"{c['operation']}@{c['class']}" for c in data["deviation_classes"]})


#: the report's classes, each with its reproduction (a class with none is left out: the
#: test names it)
REPRODUCTIONS: dict[str, Reproduction] = {
    key: BY_CLASS[FOLDED.get(key, key)] for key in _published() if FOLDED.get(key, key) in BY_CLASS
}


if __name__ == "__main__":
    for name, reproduce in sorted(REPRODUCTIONS.items()):
        print(f"{name}: ", end="")
        try:
            reproduce()
        except AssertionError as error:
            print(f"NOT REPRODUCED: {error}")
