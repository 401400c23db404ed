# ruff: noqa: E501  (the table holds the report's calls as its JSON spells them, one a line)
"""Every deviation class of ``paddle.json``, reproduced with PaddlePaddle alone.

Run it as it is (``python docs/backends/paddle_repro.py``): it imports paddle,
numpy and the standard library, never plancheck.  ``tests/test_survey_reproductions.py``
runs it where paddle is installed (the contract is in that test's docstring).

Each entry of :data:`ENTRIES` is one class of the report: the check of its
cause, the example call of the report (spelt as the report's JSON repro lines
spell it: tensors by their bit patterns, floats in hex) and what the
specification requires for that call (the report's expected bits or values,
the accepted interval of a floating accumulation, or the exception types
it accepts).  :data:`SPELLING` calls Paddle for an operation the way a Paddle
user writes it -- the same functions as ``backends/adapters/paddle_cpu.py``
-- after converting the operands as the plan names (``Int32->Float32``
with ``astype``).  Each check raises AssertionError, saying what it saw, when
Paddle does what the specification requires.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="No ccache found", category=UserWarning)
    import paddle
    import paddle.nn.functional as F

LIBRARY = "paddle"
REPORT = "paddle.json"

#: a batch long enough for Paddle's vectorised loop (8 float32 lanes with AVX2)
BATCH = 16
#: seconds a call may run in a child process before it counts as hanging
HANG_SECONDS = 10.0

_NUMPY = {"Float32": np.float32, "Int32": np.int32, "Bool": np.bool_}


# ---------------------------------------------------------------------------
# Calls: the report's JSON call -> Paddle arguments -> Paddle's result
# ---------------------------------------------------------------------------


def _decode(value: Any) -> Any:
    """An argument of a report call as Python/Paddle values."""
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "tuple" in value:
        return tuple(_decode(v) for v in value["tuple"])
    if "float" in value:
        return float.fromhex(value["float"])
    dtype, shape = value["tensor"], value["shape"]
    if "bits" in value:
        array = np.array([int(b, 16) for b in value["bits"]], np.uint32).view(np.float32)
    else:
        array = np.array(value["values"], _NUMPY[dtype])
    return paddle.to_tensor(array.reshape(shape))


def _cast_operands(plan: str, args: list[Any]) -> list[Any]:
    """The operands the plan converts (``Int32->Float32``) cast with Paddle's astype."""
    operands = plan[plan.index("(") + 1 : plan.index(")")].split(", ")
    return [
        a.astype(paddle.float32) if i < len(operands) and operands[i] == "Int32->Float32" else a
        for i, a in enumerate(args)
    ]


def _axes(axis: Any) -> Any:
    return list(axis) if isinstance(axis, tuple) else axis


def _sum(x: Any, axis: Any = None, keepdims: Any = False, *, call: dict[str, Any]) -> Any:
    if call.get("accumulator_dtype") == "Float64":
        return paddle.sum(x, axis=_axes(axis), dtype="float64", keepdim=keepdims).astype("float32")
    if x.dtype == paddle.int32:
        return paddle.sum(x, axis=_axes(axis), dtype="int32", keepdim=keepdims)
    return paddle.sum(x, axis=_axes(axis), keepdim=keepdims)


def _matmul(a: Any, b: Any, *, call: dict[str, Any]) -> Any:
    if call.get("accumulator_dtype") == "Float64":
        return paddle.matmul(a.astype("float64"), b.astype("float64")).astype("float32")
    return paddle.matmul(a, b)


def _mul(a: Any, b: Any, *, call: dict[str, Any]) -> Any:
    both = isinstance(a, paddle.Tensor) and isinstance(b, paddle.Tensor)
    return paddle.multiply(a, b) if both else a * b


def _pow(a: Any, b: Any, *, call: dict[str, Any]) -> Any:
    return paddle.pow(a, b) if isinstance(a, paddle.Tensor) else a**b


def _conv(x: Any, w: Any, strides: Any, padding: Any, lhs_dilation: Any, rhs_dilation: Any,
          groups: Any, *, call: dict[str, Any]) -> Any:  # fmt: skip
    """conv1d/2d/3d: the report's examples have no input dilation and no negative padding."""
    assert all(d == 1 for d in lhs_dilation) and all(p >= 0 for pair in padding for p in pair)
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[x.ndim - 2]
    pads = [[0, 0], [0, 0], *(list(pair) for pair in padding)]
    return conv(x, w, stride=list(strides), padding=pads, dilation=list(rhs_dilation),
                groups=groups)  # fmt: skip


def _gather(x: Any, indices: Any, axis: Any, *, call: dict[str, Any]) -> Any:
    taken = paddle.gather(x, indices.reshape([-1]), axis=axis)
    if isinstance(axis, bool) or not isinstance(axis, int):  # an axis Paddle took as it is
        return taken
    at = axis % x.ndim
    return taken.reshape([*x.shape[:at], *indices.shape, *x.shape[at + 1 :]])


def _scatter(base: Any, indices: Any, updates: Any, axis: Any, *, call: dict[str, Any]) -> Any:
    """The report's scatter examples index along axis 0 (or name a bad axis)."""
    first = paddle.scatter(paddle.moveaxis(base, axis, 0), indices.reshape([-1]),
                           paddle.moveaxis(updates, axis, 0), overwrite=True)  # fmt: skip
    return paddle.moveaxis(first, 0, axis)


def _sort(function: Callable[..., Any], x: Any, axis: Any = -1, descending: Any = False, *,
          call: dict[str, Any]) -> Any:  # fmt: skip
    result = function(x, axis=axis, descending=descending, stable=True)
    return result.astype("int32") if function is paddle.argsort else result


def _topk(position: int, x: Any, k: Any, axis: Any = -1, largest: Any = True, *,
          call: dict[str, Any]) -> Any:  # fmt: skip
    """Values (position 0) or indices (position 1, as int32 like the plan's)."""
    result = paddle.topk(x, k, axis=axis, largest=largest, sorted=True)[position]
    return result.astype("int32") if position else result


def _plain(function: Callable[..., Any]) -> Callable[..., Any]:
    def spelled(*args: Any, call: dict[str, Any]) -> Any:
        return function(*args)

    return spelled


def _reduction(function: Callable[..., Any]) -> Callable[..., Any]:
    def spelled(x: Any, axis: Any = None, keepdims: Any = False, *, call: dict[str, Any]) -> Any:
        return function(x, axis=_axes(axis), keepdim=keepdims)

    return spelled


def _arg(function: Callable[..., Any]) -> Callable[..., Any]:
    def spelled(x: Any, axis: Any = None, *, call: dict[str, Any]) -> Any:
        return function(x, axis=axis, dtype="int32")

    return spelled


#: operation -> how a Paddle user calls it (keyword ``call``: the report's call)
SPELLING: dict[str, Callable[..., Any]] = {
    **{op: _plain(getattr(paddle, name)) for op, name in {
        "add": "add", "sub": "subtract", "elementwise_mul": "multiply", "div": "divide",
        "maximum": "maximum", "minimum": "minimum", "eq": "equal", "ne": "not_equal",
        "lt": "less_than", "le": "less_equal", "neg": "neg", "abs": "abs", "sign": "sign",
        "sqrt": "sqrt", "recip": "reciprocal", "rsqrt": "rsqrt", "floor": "floor",
        "ceil": "ceil", "round": "round", "exp": "exp", "log": "log", "log2": "log2",
        "sin": "sin", "cos": "cos", "tanh": "tanh", "erf": "erf", "logical_not": "logical_not",
        "select": "where", "clamp": "clip", "cumsum": "cumsum",
    }.items()},
    **{op: _plain(getattr(F, op)) for op in ("sigmoid", "silu", "softplus", "elu", "relu",
                                             "gelu")},
    "leaky_relu": _plain(partial(F.leaky_relu, negative_slope=0.01)),
    "mul": _mul,
    "pow": _pow,
    "reduce_sum": _sum,
    "reduce_prod": _reduction(paddle.prod),
    "reduce_max": _reduction(paddle.max),
    "reduce_min": _reduction(paddle.min),
    "argmax": _arg(paddle.argmax),
    "argmin": _arg(paddle.argmin),
    "matmul": _matmul,
    "conv_general": _conv,
    "gather": _gather,
    "scatter": _scatter,
    "_sort_values": partial(_sort, paddle.sort),
    "_sort_indices": partial(_sort, paddle.argsort),
    "_topk_values": partial(_topk, 0),
    "_topk_indices": partial(_topk, 1),
}  # fmt: skip


def run(text: str, batch: int = 1) -> Any:
    """Paddle's result for the report call *text* (every tensor repeated *batch* times
    along its only dimension: the report's corpus cases are batches of 1-element calls)."""
    call = json.loads(text)
    if batch > 1:
        for arg in call["args"]:
            if isinstance(arg, dict) and "tensor" in arg:
                arg["shape"] = [arg["shape"][0] * batch]
                for key in ("bits", "values"):
                    if key in arg:
                        arg[key] = arg[key] * batch
    args = _cast_operands(call["plan"], [_decode(a) for a in call["args"]])
    if call["op"] == "scatter_add":  # index_add(x, index, axis, value)
        base, indices, updates, axis = args
        return paddle.index_add(base, indices.reshape([-1]), axis, updates)
    return SPELLING[call["op"]](*args, call=call)


# ---------------------------------------------------------------------------
# What the specification requires, and what Paddle did
# ---------------------------------------------------------------------------


def _elements(result: Any) -> tuple[list[int], list[int]]:
    """(shape, elements): Float32 as bit patterns, Int32 and Bool as values."""
    array = result.numpy()
    flat = array.reshape(-1)
    if array.dtype == np.float32:
        return list(array.shape), [int(b) for b in flat.view(np.uint32)]
    return list(array.shape), [int(v) for v in flat]


def _is_nan_bits(bits: int) -> bool:
    return (bits & 0x7F800000) == 0x7F800000 and bits & 0x007FFFFF != 0


def _same(expected: tuple[str, list[int], list[Any]], result: Any, nan_bits: bool) -> bool:
    """Whether *result* is the specification's value (any NaN for a computed NaN,
    unless the class is about NaN bits)."""
    dtype, shape, values = expected
    got_shape, got = _elements(result)
    if got_shape != shape or str(result.dtype) != f"paddle.{dtype.lower()}":
        return False
    if dtype == "Float32":
        want = [int(v, 16) for v in values]
        return all(
            w == g or (not nan_bits and _is_nan_bits(w) and _is_nan_bits(g))
            for w, g in zip(want, got)
        )
    return [int(v) for v in values] == got


def differs(text: str, expected: Any, nan_bits: bool = False) -> None:
    """Paddle's value (or shape, or dtype) is not the specification's."""
    result = run(text)
    assert not _same(expected, result, nan_bits), (
        f"paddle returned the specification's {expected[0]}{expected[1]} result"
    )


def differs_in_a_batch(text: str, expected: Any) -> None:
    """The value is wrong where Paddle's vectorised loop computes it: the report's
    1-element corpus case repeated :data:`BATCH` times."""
    dtype, shape, values = expected
    result = run(text, batch=BATCH)
    assert not _same((dtype, [shape[0] * BATCH], values * BATCH), result, False), (
        f"paddle computed {BATCH} copies of the case as the specification requires"
    )


def outside_interval(text: str, expected: Any) -> None:
    """A FLOATING accumulation outside every value an evaluation order can give."""
    _, shape, bounds = expected
    got_shape, got = _elements(run(text))
    values = np.array(got, np.uint32).view(np.float32).astype(float).tolist()
    inside = got_shape == shape and all(lo <= v <= hi for v, (lo, hi) in zip(values, bounds))
    assert not inside, f"paddle's {values} lies inside the accepted intervals {bounds}"


def returns_instead_of_raising(text: str, expected: list[str]) -> None:
    """A result where the specification requires one of the *expected* exceptions."""
    try:
        run(text)
    except Exception as error:
        if type(error).__name__ in expected:
            raise AssertionError(f"paddle raised {type(error).__name__}: {error}") from error
        raise AssertionError(f"paddle raised {type(error).__name__}, not a result") from error


def raises_another_type(text: str, expected: list[str]) -> None:
    """An exception, but not of a type the specification names."""
    try:
        run(text)
    except Exception as error:
        assert type(error).__name__ not in expected, f"paddle raised {type(error).__name__}"
        return
    raise AssertionError("paddle returned a result")


def raises_instead_of_result(text: str, expected: Any) -> None:
    """An exception where the specification requires a result."""
    try:
        run(text)
    except Exception:
        return
    raise AssertionError("paddle returned a result")


def has_no_operation(text: str, expected: Any) -> None:
    """Paddle has no function for the operation (the adapter declares it unsupported)."""
    operation = json.loads(text)["op"]
    if operation == "exp2":
        assert not hasattr(paddle, "exp2"), "paddle has exp2"
        return
    # rem is C fmod: the sign follows the dividend; paddle's remainder follows the divisor
    assert not hasattr(paddle, "fmod"), "paddle has fmod"
    x, y = paddle.to_tensor(np.float32([-1.5, 1.5])), paddle.to_tensor(np.float32([1, -1]))
    floored = paddle.remainder(x, y).numpy().tolist()
    assert floored != [math.fmod(-1.5, 1), math.fmod(1.5, -1)], "paddle.remainder is fmod"


def _child(text: str) -> subprocess.Popen[str]:
    code = (
        "import importlib.util, sys; "
        f"s = importlib.util.spec_from_file_location('paddle_repro', {__file__!r}); "
        "m = importlib.util.module_from_spec(s); s.loader.exec_module(m); "
        "print('calling', flush=True); m.run(sys.argv[1]); print('returned', flush=True)"
    )
    return subprocess.Popen([sys.executable, "-c", code, text], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)  # fmt: skip


def dies(text: str, expected: Any) -> None:
    """The call kills the process (Paddle aborts from C++)."""
    child = _child(text)
    output, _ = child.communicate(timeout=600)
    assert child.returncode < 0, f"the call returned ({output.split()}, exit {child.returncode})"


def hangs(text: str, expected: Any) -> None:
    """The call does not return within :data:`HANG_SECONDS`."""
    child = _child(text)
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "calling", "the child did not start the call"
        child.wait(timeout=HANG_SECONDS)
    except subprocess.TimeoutExpired:
        return
    finally:
        child.kill()
        child.wait()
    raise AssertionError(f"the call ended within {HANG_SECONDS} s")


#: ``operation@class`` -> (check, the report's example call, what the specification requires)
ENTRIES: dict[str, tuple[Callable[..., None], str, Any]] = {
    '_topk_indices@wrong-value:integer': (differs, '{"op":"_topk_indices","args":[{"tensor":"Float32","shape":[4],"bits":["0xbf900000","0xbf900000","0xbf900000","0xbf900000"]},1,0,true],"plan":"_topk_indices(Float32) binary32 -> Int32"}', ('Int32', [1], [0])),
    '_topk_indices@missing-exception:error-bad-parameter': (returns_instead_of_raising, '{"op":"_topk_indices","args":[{"tensor":"Float32","shape":[2,3],"bits":["0x3f800000","0x40000000","0x40400000","0x40800000","0x40a00000","0x40c00000"]},{"float":"0x1.0000000000000p+0"},-1,true],"plan":"_topk_indices(Float32) binary32 -> Int32"}', ['TypeError']),
    '_topk_indices@zero-size': (raises_instead_of_result, '{"op":"_topk_indices","args":[{"tensor":"Float32","shape":[0],"bits":[]},0,0],"plan":"_topk_indices(Float32) binary32 -> Int32"}', ('Int32', [0], [])),
    '_topk_values@wrong-value:signed-zero': (differs, '{"op":"_topk_values","args":[{"tensor":"Float32","shape":[22],"bits":["0x00000000","0x80000000","0x00000001","0x80000001","0x007fffff","0x00800000","0x7f7fffff","0xff7fffff","0x7f800000","0xff800000","0x3f800000","0xbf800000","0x40000000","0x3f000000","0x3fc00000","0x807fffff","0x80800000","0xc0000000","0x40400000","0xbfc00000","0xc3150000","0xc2fc0000"]},22],"plan":"_topk_values(Float32) binary32 -> Float32"}', ('Float32', [22], ['0x7f800000', '0x7f7fffff', '0x40400000', '0x40000000', '0x3fc00000', '0x3f800000', '0x3f000000', '0x00800000', '0x007fffff', '0x00000001', '0x00000000', '0x80000000', '0x80000001', '0x807fffff', '0x80800000', '0xbf800000', '0xbfc00000', '0xc0000000', '0xc2fc0000', '0xc3150000', '0xff7fffff', '0xff800000'])),
    '_topk_values@missing-exception:error-bad-parameter': (returns_instead_of_raising, '{"op":"_topk_values","args":[{"tensor":"Float32","shape":[2,3],"bits":["0x3f800000","0x40000000","0x40400000","0x40800000","0x40a00000","0x40c00000"]},{"float":"0x1.0000000000000p+0"},-1,true],"plan":"_topk_values(Float32) binary32 -> Float32"}', ['TypeError']),
    '_topk_values@zero-size': (raises_instead_of_result, '{"op":"_topk_values","args":[{"tensor":"Float32","shape":[0],"bits":[]},0,0],"plan":"_topk_values(Float32) binary32 -> Float32"}', ('Float32', [0], [])),
    'add@missing-exception:int32-result-overflow': (returns_instead_of_raising, '{"op":"add","args":[{"tensor":"Int32","shape":[1],"values":[2147483647]},{"tensor":"Int32","shape":[1],"values":[1]}],"plan":"add(Int32, Int32) int32_exact_checked -> Int32"}', ['OverflowError']),
    'argmax@wrong-value:integer': (differs, '{"op":"argmax","args":[{"tensor":"Float32","shape":[2],"bits":["0x7fc00000","0x3f800000"]},null],"plan":"argmax(Float32) binary32 acc=argmax -> Int32"}', ('Int32', [], [0])),
    'argmax@missing-exception:error-bad-axis': (returns_instead_of_raising, '{"op":"argmax","args":[{"tensor":"Float32","shape":[2,3],"bits":["0x3f800000","0x40000000","0x40400000","0x40800000","0x40a00000","0x40c00000"]},{"float":"0x1.0000000000000p+0"}],"plan":"argmax(Float32) binary32 acc=argmax -> Int32"}', ['TypeError']),
    'argmax@missing-exception:error-empty-extremum': (returns_instead_of_raising, '{"op":"argmax","args":[{"tensor":"Float32","shape":[0],"bits":[]},null],"plan":"argmax(Float32) binary32 acc=argmax -> Int32"}', ['ValueError']),
    'argmin@wrong-value:integer': (differs, '{"op":"argmin","args":[{"tensor":"Float32","shape":[2],"bits":["0x7fc00000","0x3f800000"]},null],"plan":"argmin(Float32) binary32 acc=argmin -> Int32"}', ('Int32', [], [0])),
    'argmin@missing-exception:error-bad-axis': (returns_instead_of_raising, '{"op":"argmin","args":[{"tensor":"Float32","shape":[2,3],"bits":["0x3f800000","0x40000000","0x40400000","0x40800000","0x40a00000","0x40c00000"]},{"float":"0x1.0000000000000p+0"}],"plan":"argmin(Float32) binary32 acc=argmin -> Int32"}', ['TypeError']),
    'argmin@missing-exception:error-empty-extremum': (returns_instead_of_raising, '{"op":"argmin","args":[{"tensor":"Float32","shape":[0],"bits":[]},null],"plan":"argmin(Float32) binary32 acc=argmin -> Int32"}', ['ValueError']),
    'clamp@wrong-value:shape-or-dtype': (differs, '{"op":"clamp","args":[{"tensor":"Float32","shape":[],"bits":["0x00800000"]},{"tensor":"Float32","shape":[],"bits":["0x3f800001"]},{"tensor":"Float32","shape":[1],"bits":["0x41100000"]}],"plan":"clamp(Float32, Float32, Float32) binary32 -> Float32"}', ('Float32', [1], ['0x3f800001'])),
    'clamp@wrong-value:signed-zero': (differs, '{"op":"clamp","args":[{"tensor":"Float32","shape":[1],"bits":["0x80000000"]},0,2],"plan":"clamp(Float32, weak->Float32, weak->Float32) binary32 -> Float32"}', ('Float32', [1], ['0x00000000'])),
    'clamp@raises-ValueError': (raises_instead_of_result, '{"op":"clamp","args":[{"tensor":"Float32","shape":[1],"bits":["0x00000000"]},{"tensor":"Float32","shape":[1],"bits":["0x00000000"]},{"tensor":"Float32","shape":[1],"bits":["0x7fc00001"]}],"plan":"clamp(Float32, Float32, Float32) binary32 -> Float32"}', ('Float32', [1], ['0x7fc00000'])),
    'clamp@rank-0': (raises_instead_of_result, '{"op":"clamp","args":[{"tensor":"Float32","shape":[],"bits":["0x25800000"]},-10080373253969751981470730992558047867437056,{"float":"0x1.000053e2d6239p+1"}],"plan":"clamp(Float32, weak->Float32, weak->Float32) binary32 -> Float32"}', ('Float32', [], ['0x25800000'])),
    'conv_general@wrong-value:1-ulp': (differs, '{"op":"conv_general","args":[{"tensor":"Float32","shape":[1,3,3],"bits":["0x401a96de","0xbfcdc721","0xbfa76143","0x3ff67f08","0x3f6b5328","0xbf789175","0x3f38a4d1","0x40460ae9","0x3f0251e8"]},{"tensor":"Float32","shape":[2,3,3],"bits":["0x3f800000","0x3f800000","0x3f800000","0x3f800000","0x3f800000","0x3f800000","0x3f800000","0x3f800000","0x3f800000","0xbfd3b67c","0xbf128e3f","0x402ce625","0x3ff3a192","0x3f154f56","0x3fe3a16f","0x3fd3db95","0xbfbfd9f3","0xbfae7c7f"]},{"tuple":[1]},{"tuple":[{"tuple":[0,0]}]},{"tuple":[1]},{"tuple":[1]},1],"plan":"conv_general(Float32, Float32) binary32 acc=sequential_binary32 -> Float32"}', ('Float32', [1, 2, 1], ['0x40b65d99', '0xc1045594'])),
    'conv_general@wrong-value:many-ulps': (differs, '{"op":"conv_general","args":[{"tensor":"Float32","shape":[1,2,2],"bits":["0xbf9fe84a","0xbff11e41","0xbff1130b","0x3ffde112"]},{"tensor":"Float32","shape":[2,2,2],"bits":["0x3f800000","0x3f800000","0x3f800000","0x3f800000","0x3ffefaeb","0xbf63849b","0x40647781","0x3fbd7750"]},{"tuple":[1]},{"tuple":[{"tuple":[0,0]}]},{"tuple":[1]},{"tuple":[1]},1],"plan":"conv_general(Float32, Float32) binary32 acc=sequential_binary32 -> Float32"}', ('Float32', [1, 2, 1], ['0xc0421c41', '0xc09342ae'])),
    'cos@wrong-value:1-ulp': (differs, '{"op":"cos","args":[{"tensor":"Float32","shape":[],"bits":["0x3f000000"]}],"plan":"cos(Float32) binary32 -> Float32"}', ('Float32', [], ['0x3f60a940'])),
    'cumsum@missing-exception:error-bad-axis': (returns_instead_of_raising, '{"op":"cumsum","args":[{"tensor":"Float32","shape":[2,3],"bits":["0x3f800000","0x40000000","0x40400000","0x40800000","0x40a00000","0x40c00000"]},{"float":"0x1.0000000000000p+0"}],"plan":"cumsum(Float32) binary32 acc=sequential_binary32 -> Float32"}', ['TypeError']),
    'cumsum@wrong-exception:error-bad-axis': (raises_another_type, '{"op":"cumsum","args":[{"tensor":"Float32","shape":[1],"bits":["0x00000000"]},1],"plan":"cumsum(Float32) binary32 acc=sequential_binary32 -> Float32"}', ['ValueError']),
    'elementwise_mul@missing-exception:int32-result-overflow': (returns_instead_of_raising, '{"op":"elementwise_mul","args":[{"tensor":"Int32","shape":[1],"values":[1073741824]},{"tensor":"Int32","shape":[1],"values":[2]}],"plan":"elementwise_mul(Int32, Int32) int32_exact_checked -> Int32"}', ['OverflowError']),
    'elu@wrong-value:1-ulp': (differs, '{"op":"elu","args":[{"tensor":"Float32","shape":[1],"bits":["0xb37fffff"]}],"plan":"elu(Float32) binary32 -> Float32"}', ('Float32', [1], ['0xb37fffff'])),
    'elu@wrong-value:many-ulps': (differs, '{"op":"elu","args":[{"tensor":"Float32","shape":[1],"bits":["0xb3000001"]}],"plan":"elu(Float32) binary32 -> Float32"}', ('Float32', [1], ['0xb3000001'])),
    'elu@wrong-value:sign': (differs, '{"op":"elu","args":[{"tensor":"Float32","shape":[1],"bits":["0x80800000"]}],"plan":"elu(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x80800000'])),
    'elu@wrong-value:subnormal': (differs, '{"op":"elu","args":[{"tensor":"Float32","shape":[1],"bits":["0x80000001"]}],"plan":"elu(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x80000001'])),
    'eq@wrong-value:bool': (differs, '{"op":"eq","args":[{"tensor":"Float32","shape":[],"bits":["0x00000ecc"]},{"tensor":"Float32","shape":[],"bits":["0x00000000"]}],"plan":"eq(Float32, Float32) binary32 -> Bool"}', ('Bool', [], [0])),
    'erf@wrong-value:1-ulp': (differs, '{"op":"erf","args":[{"tensor":"Float32","shape":[],"bits":["0x3f800000"]}],"plan":"erf(Float32) binary32 -> Float32"}', ('Float32', [], ['0x3f57bb3d'])),
    'erf@wrong-value:many-ulps': (differs, '{"op":"erf","args":[{"tensor":"Float32","shape":[1],"bits":["0x007fff00"]}],"plan":"erf(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x00906d9a'])),
    'erf@wrong-value:subnormal': (differs, '{"op":"erf","args":[{"tensor":"Float32","shape":[1],"bits":["0x00000001"]}],"plan":"erf(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x00000001'])),
    'exp@wrong-value:1-ulp': (differs_in_a_batch, '{"op":"exp","args":[{"tensor":"Float32","shape":[1],"bits":["0x33800000"]}],"plan":"exp(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x3f800001'])),
    'exp@wrong-value:subnormal': (differs, '{"op":"exp","args":[{"tensor":"Int32","shape":[16],"values":[-2147483648,-16777217,-104,-103,-102,-88,-87,-2,-1,0,1,2,88,89,16777217,2147483647]}],"plan":"exp(Int32->Float32) binary32 -> Float32"}', ('Float32', [16], ['0x00000000', '0x00000000', '0x00000000', '0x00000001', '0x00000004', '0x0041edc4', '0x00b33687', '0x3e0a9555', '0x3ebc5ab2', '0x3f800000', '0x402df854', '0x40ec7326', '0x7ef882b7', '0x7f800000', '0x7f800000', '0x7f800000'])),
    'exp@wrong-value:zero': (differs_in_a_batch, '{"op":"exp","args":[{"tensor":"Float32","shape":[1],"bits":["0xca800000"]}],"plan":"exp(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x00000000'])),
    'exp2@raises-NotImplementedError': (has_no_operation, '{"op":"exp2","args":[{"tensor":"Float32","shape":[1],"bits":["0x00000000"]}],"plan":"exp2(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x3f800000'])),
    'gather@missing-exception:error-index-negative': (returns_instead_of_raising, '{"op":"gather","args":[{"tensor":"Float32","shape":[1],"bits":["0x00000000"]},{"tensor":"Int32","shape":[1],"values":[-1]},0],"plan":"gather(Float32, Int32) binary32 -> Float32"}', ['IndexError']),
    'gather@wrong-exception:error-bad-axis': (raises_another_type, '{"op":"gather","args":[{"tensor":"Float32","shape":[3],"bits":["0x3f800000","0x40000000","0x40400000"]},{"tensor":"Int32","shape":[1],"values":[0]},1],"plan":"gather(Float32, Int32) binary32 -> Float32"}', ['ValueError']),
    'gelu@wrong-value:1-ulp': (differs, '{"op":"gelu","args":[{"tensor":"Float32","shape":[],"bits":["0x3f800000"]}],"plan":"gelu(Float32) binary32 -> Float32"}', ('Float32', [], ['0x3f57625f'])),
    'gelu@wrong-value:many-ulps': (differs, '{"op":"gelu","args":[{"tensor":"Float32","shape":[1],"bits":["0xbfa00001"]}],"plan":"gelu(Float32) binary32 -> Float32"}', ('Float32', [1], ['0xbe073b50'])),
    'gelu@wrong-value:overflow': (differs, '{"op":"gelu","args":[{"tensor":"Float32","shape":[1],"bits":["0x7f000000"]}],"plan":"gelu(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x7f000000'])),
    'gelu@wrong-value:spurious-nan': (differs, '{"op":"gelu","args":[{"tensor":"Float32","shape":[1],"bits":["0xff800000"]}],"plan":"gelu(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x80000000'])),
    'gelu@wrong-value:subnormal': (differs, '{"op":"gelu","args":[{"tensor":"Float32","shape":[1],"bits":["0x00000001"]}],"plan":"gelu(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x00000001'])),
    'log@wrong-value:1-ulp': (differs, '{"op":"log","args":[{"tensor":"Float32","shape":[1],"bits":["0x3f7ffffe"]}],"plan":"log(Float32) binary32 -> Float32"}', ('Float32', [1], ['0xb4000001'])),
    'log2@wrong-value:1-ulp': (differs, '{"op":"log2","args":[{"tensor":"Float32","shape":[1],"bits":["0x3f7ffffc"]}],"plan":"log2(Float32) binary32 -> Float32"}', ('Float32', [1], ['0xb4b8aa3d'])),
    'matmul@wrong-value:integer': (differs, '{"op":"matmul","args":[{"tensor":"Int32","shape":[1,2],"values":[2147483646,1]},{"tensor":"Int32","shape":[2,1],"values":[1,1]}],"plan":"matmul(Int32, Int32) int32_exact_checked acc=exact_integer -> Int32"}', ('Int32', [1, 1], [2147483647])),
    'matmul@wrong-value:outside-interval': (outside_interval, '{"op":"matmul","args":[{"tensor":"Float32","shape":[1,2],"bits":["0xbf800002","0x3f800001"]},{"tensor":"Float32","shape":[2,1],"bits":["0x3f800000","0x3f800001"]}],"plan":"matmul(Float32, Float32) binary32 acc=floating[Float64] -> Float32","accumulator_dtype":"Float64"}', ('interval', [1, 1], [[0.0, 0.0]])),
    'matmul@missing-exception:error-shape-mismatch': (returns_instead_of_raising, '{"op":"matmul","args":[{"tensor":"Float32","shape":[3],"bits":["0x3f800000","0x40000000","0x40400000"]},{"tensor":"Float32","shape":[3,2],"bits":["0x3f800000","0x40000000","0x40400000","0x40800000","0x40a00000","0x40c00000"]}],"plan":"matmul(Float32, Float32) binary32 acc=floating[Float32] -> Float32"}', ['ValueError']),
    'matmul@missing-exception:int32-result-overflow': (returns_instead_of_raising, '{"op":"matmul","args":[{"tensor":"Int32","shape":[1,2],"values":[2147483647,1]},{"tensor":"Int32","shape":[2,1],"values":[1,1]}],"plan":"matmul(Int32, Int32) int32_exact_checked acc=exact_integer -> Int32"}', ['OverflowError']),
    'maximum@wrong-value:signed-zero': (differs, '{"op":"maximum","args":[{"tensor":"Float32","shape":[],"bits":["0x80000000"]},{"tensor":"Float32","shape":[1],"bits":["0x00000000"]}],"plan":"maximum(Float32, Float32) binary32 -> Float32"}', ('Float32', [1], ['0x00000000'])),
    'minimum@wrong-value:signed-zero': (differs, '{"op":"minimum","args":[{"tensor":"Float32","shape":[],"bits":["0x80000000"]},{"tensor":"Float32","shape":[],"bits":["0x00000000"]}],"plan":"minimum(Float32, Float32) binary32 -> Float32"}', ('Float32', [], ['0x80000000'])),
    'mul@wrong-value:1-ulp': (differs, '{"op":"mul","args":[{"tensor":"Float32","shape":[1],"bits":["0x3f800000"]},18014399583223809],"plan":"mul(Float32, weak->Float32) binary32 -> Float32"}', ('Float32', [1], ['0x5a800001'])),
    'mul@wrong-value:many-ulps': (differs, '{"op":"mul","args":[{"tensor":"Float32","shape":[],"bits":["0x20e4f91b"]},605359414363537467637761],"plan":"mul(Float32, weak->Float32) binary32 -> Float32"}', ('Float32', [], ['0x4865500a'])),
    'mul@wrong-value:signed-zero': (differs, '{"op":"mul","args":[{"tensor":"Float32","shape":[],"bits":["0x80000000"]},18014515547340801],"plan":"mul(Float32, weak->Float32) binary32 -> Float32"}', ('Float32', [], ['0x80000000'])),
    'mul@missing-exception:int32-result-overflow': (returns_instead_of_raising, '{"op":"mul","args":[{"tensor":"Int32","shape":[1],"values":[1073741824]},2],"plan":"mul(Int32, weak->Int32) int32_exact_checked -> Int32"}', ['OverflowError']),
    'ne@wrong-value:bool': (differs, '{"op":"ne","args":[{"tensor":"Float32","shape":[],"bits":["0x80000021"]},{"tensor":"Float32","shape":[],"bits":["0x000000ff"]}],"plan":"ne(Float32, Float32) binary32 -> Bool"}', ('Bool', [], [1])),
    'neg@wrong-value:nan-bits': (partial(differs, nan_bits=True), '{"op":"neg","args":[{"tensor":"Float32","shape":[1],"bits":["0x7fc00001"]}],"plan":"neg(Float32) binary32 -> Float32"}', ('Float32', [1], ['0xffc00001'])),
    'neg@wrong-value:signed-zero': (differs, '{"op":"neg","args":[{"tensor":"Float32","shape":[],"bits":["0x00000000"]}],"plan":"neg(Float32) binary32 -> Float32"}', ('Float32', [], ['0x80000000'])),
    'pow@wrong-value:1-ulp': (differs, '{"op":"pow","args":[{"tensor":"Float32","shape":[1],"bits":["0x003fffff"]},{"tensor":"Float32","shape":[1],"bits":["0x3f000001"]}],"plan":"pow(Float32, Float32) binary32 -> Float32"}', ('Float32', [1], ['0x1fb504b4'])),
    'pow@wrong-value:infinity': (differs, '{"op":"pow","args":[{"tensor":"Float32","shape":[22],"bits":["0x00000000","0x80000000","0x00000001","0x80000001","0x007fffff","0x00800000","0x7f7fffff","0xff7fffff","0x7f800000","0xff800000","0x3f800000","0xbf800000","0x40000000","0x3f000000","0x3fc00000","0x807fffff","0x80800000","0xc0000000","0x40400000","0xbfc00000","0xc3150000","0xc2fc0000"]},{"float":"-0x1.0000000000000p+0"}],"plan":"pow(Float32, weak->Float32) binary32 -> Float32"}', ('Float32', [22], ['0x7f800000', '0xff800000', '0x7f800000', '0xff800000', '0x7e800001', '0x7e800000', '0x00200000', '0x80200000', '0x00000000', '0x80000000', '0x3f800000', '0xbf800000', '0x3f000000', '0x40000000', '0x3f2aaaab', '0xfe800001', '0xfe800000', '0xbf000000', '0x3eaaaaab', '0xbf2aaaab', '0xbbdbeb62', '0xbc020821'])),
    'pow@wrong-value:signed-zero': (differs, '{"op":"pow","args":[{"tensor":"Int32","shape":[12],"values":[0,1,-1,2,-2,3,16777217,-16777217,2147483647,-2147483648,-149,-126]},{"float":"-0x1.2a00000000000p+7"}],"plan":"pow(Int32->Float32, weak->Float32) binary32 -> Float32"}', ('Float32', [12], ['0x7f800000', '0x3f800000', '0xbf800000', '0x00000001', '0x80000001', '0x00000000', '0x00000000', '0x80000000', '0x00000000', '0x80000000', '0x80000000', '0x80000000'])),
    'pow@wrong-value:subnormal': (differs, '{"op":"pow","args":[{"tensor":"Float32","shape":[1],"bits":["0x00555555"]},{"tensor":"Float32","shape":[1],"bits":["0x3f7ffffe"]}],"plan":"pow(Float32, Float32) binary32 -> Float32"}', ('Float32', [1], ['0x0055558f'])),
    'pow@missing-exception:int32-result-overflow': (returns_instead_of_raising, '{"op":"pow","args":[{"tensor":"Int32","shape":[1],"values":[2]},31],"plan":"pow(Int32, weak->Int32) int32_exact_checked -> Int32"}', ['OverflowError']),
    'pow@rank-0': (raises_instead_of_result, '{"op":"pow","args":[-183252467114952543753392415244288,{"tensor":"Float32","shape":[],"bits":["0x59f9e3c9"]}],"plan":"pow(weak->Float32, Float32) binary32 -> Float32"}', ('Float32', [], ['0x7f800000'])),
    'pow@weak-scalar': (raises_instead_of_result, '{"op":"pow","args":[{"tensor":"Float32","shape":[1],"bits":["0x3f800000"]},340282366920938463463374607431768211456],"plan":"pow(Float32, weak->Float32) binary32 -> Float32"}', ('Float32', [1], ['0x3f800000'])),
    'pow@zero-size': (raises_instead_of_result, '{"op":"pow","args":[180055411962506080612864401439125290360348502093341917184,{"tensor":"Float32","shape":[0,4],"bits":[]}],"plan":"pow(weak->Float32, Float32) binary32 -> Float32"}', ('Float32', [0, 4], [])),
    'pow@hang': (hangs, '{"op":"pow","args":[{"tensor":"Int32","shape":[1],"values":[3]},2147483647],"plan":"pow(Int32, weak->Int32) int32_exact_checked -> Int32"}', ['OverflowError']),
    'reduce_max@wrong-value:nan-bits': (partial(differs, nan_bits=True), '{"op":"reduce_max","args":[{"tensor":"Float32","shape":[3],"bits":["0x3f800000","0x7fc00001","0xffd2a4c6"]},null,false],"plan":"reduce_max(Float32) binary32 acc=maximum -> Float32"}', ('Float32', [], ['0x7fc00001'])),
    'reduce_max@wrong-value:shape-or-dtype': (differs, '{"op":"reduce_max","args":[{"tensor":"Float32","shape":[4],"bits":["0x3fffffff","0x41800000","0xc1800000","0x41800000"]},{"tuple":[]}],"plan":"reduce_max(Float32) binary32 acc=maximum -> Float32"}', ('Float32', [4], ['0x3fffffff', '0x41800000', '0xc1800000', '0x41800000'])),
    'reduce_max@wrong-value:signed-zero': (differs, '{"op":"reduce_max","args":[{"tensor":"Float32","shape":[2],"bits":["0x00000000","0x80000000"]},null,false],"plan":"reduce_max(Float32) binary32 acc=maximum -> Float32"}', ('Float32', [], ['0x00000000'])),
    'reduce_max@missing-exception:error-bad-axis': (returns_instead_of_raising, '{"op":"reduce_max","args":[{"tensor":"Float32","shape":[2,3],"bits":["0x3f800000","0x40000000","0x40400000","0x40800000","0x40a00000","0x40c00000"]},[0],false],"plan":"reduce_max(Float32) binary32 acc=maximum -> Float32"}', ['TypeError']),
    'reduce_min@wrong-value:nan-bits': (partial(differs, nan_bits=True), '{"op":"reduce_min","args":[{"tensor":"Float32","shape":[3],"bits":["0x3f800000","0x7fc00001","0xffd2a4c6"]},null,false],"plan":"reduce_min(Float32) binary32 acc=minimum -> Float32"}', ('Float32', [], ['0x7fc00001'])),
    'reduce_min@wrong-value:shape-or-dtype': (differs, '{"op":"reduce_min","args":[{"tensor":"Float32","shape":[2,2],"bits":["0x3f800000","0x40000000","0x40400000","0x40800000"]},{"tuple":[]},false],"plan":"reduce_min(Float32) binary32 acc=minimum -> Float32"}', ('Float32', [2, 2], ['0x3f800000', '0x40000000', '0x40400000', '0x40800000'])),
    'reduce_min@wrong-value:signed-zero': (differs, '{"op":"reduce_min","args":[{"tensor":"Float32","shape":[2],"bits":["0x80000000","0x00000000"]},null,false],"plan":"reduce_min(Float32) binary32 acc=minimum -> Float32"}', ('Float32', [], ['0x80000000'])),
    'reduce_min@missing-exception:error-bad-axis': (returns_instead_of_raising, '{"op":"reduce_min","args":[{"tensor":"Float32","shape":[2,3],"bits":["0x3f800000","0x40000000","0x40400000","0x40800000","0x40a00000","0x40c00000"]},[0],false],"plan":"reduce_min(Float32) binary32 acc=minimum -> Float32"}', ['TypeError']),
    'reduce_min@zero-size': (raises_instead_of_result, '{"op":"reduce_min","args":[{"tensor":"Float32","shape":[0],"bits":[]},{"tuple":[]},true],"plan":"reduce_min(Float32) binary32 acc=minimum -> Float32"}', ('Float32', [0], [])),
    'reduce_prod@wrong-value:1-ulp': (differs, '{"op":"reduce_prod","args":[{"tensor":"Float32","shape":[8],"bits":["0x3f8003cb","0x3f7ff979","0x3f80081a","0x3f7ff766","0x3f800123","0x3f7ff7fb","0x3f800e0d","0x3f7ff78e"]},0,false],"plan":"reduce_prod(Float32) binary32 acc=sequential_binary32_product -> Float32"}', ('Float32', [], ['0x3f800b47'])),
    'reduce_prod@wrong-value:many-ulps': (differs, '{"op":"reduce_prod","args":[{"tensor":"Float32","shape":[9],"bits":["0x3f800c60","0x3f7ffcd4","0x3f8008de","0x3f7ffa0c","0x3f8007c7","0x3f7ff6bb","0x3f800d03","0x3f7ff205","0x3f80043a"]},0,false],"plan":"reduce_prod(Float32) binary32 acc=sequential_binary32_product -> Float32"}', ('Float32', [], ['0x3f801e15'])),
    'reduce_prod@wrong-value:shape-or-dtype': (differs, '{"op":"reduce_prod","args":[{"tensor":"Float32","shape":[3,1,1],"bits":["0x80000000","0x80000000","0x00000000"]},{"tuple":[]},true],"plan":"reduce_prod(Float32) binary32 acc=sequential_binary32_product -> Float32"}', ('Float32', [3, 1, 1], ['0x80000000', '0x80000000', '0x00000000'])),
    'reduce_prod@missing-exception:error-bad-axis': (returns_instead_of_raising, '{"op":"reduce_prod","args":[{"tensor":"Float32","shape":[2,3],"bits":["0x3f800000","0x40000000","0x40400000","0x40800000","0x40a00000","0x40c00000"]},[0],false],"plan":"reduce_prod(Float32) binary32 acc=sequential_binary32_product -> Float32"}', ['TypeError']),
    'reduce_sum@wrong-value:shape-or-dtype': (outside_interval, '{"op":"reduce_sum","args":[{"tensor":"Float32","shape":[0,4,4],"bits":[]},{"tuple":[]},false],"plan":"reduce_sum(Float32) binary32 acc=floating[Float32] -> Float32"}', ('interval', [0, 4, 4], [])),
    'reduce_sum@missing-exception:error-bad-axis': (returns_instead_of_raising, '{"op":"reduce_sum","args":[{"tensor":"Float32","shape":[2,3],"bits":["0x3f800000","0x40000000","0x40400000","0x40800000","0x40a00000","0x40c00000"]},[0],false],"plan":"reduce_sum(Float32) binary32 acc=floating[Float32] -> Float32"}', ['TypeError']),
    'reduce_sum@missing-exception:int32-result-overflow': (returns_instead_of_raising, '{"op":"reduce_sum","args":[{"tensor":"Int32","shape":[2],"values":[2147483647,1]}],"plan":"reduce_sum(Int32) int32_exact_checked acc=exact_integer -> Int32"}', ['OverflowError']),
    'reduce_sum@crash': (dies, '{"op":"reduce_sum","args":[{"tensor":"Float32","shape":[2],"bits":["0x3f800000","0x40000000"]},null,1],"plan":"reduce_sum(Float32) binary32 acc=floating[Float32] -> Float32"}', ['TypeError']),
    'relu@wrong-value:nan': (differs, '{"op":"relu","args":[{"tensor":"Float32","shape":[],"bits":["0xffffffff"]}],"plan":"relu(Float32) binary32 -> Float32"}', ('Float32', [], ['0x7fc00000'])),
    'relu@raises-RuntimeError': (raises_instead_of_result, '{"op":"relu","args":[{"tensor":"Int32","shape":[1],"values":[0]}],"plan":"relu(Int32) int32_exact -> Int32"}', ('Int32', [1], [0])),
    'rem@wrong-exception:error-shape-mismatch': (has_no_operation, '{"op":"rem","args":[{"tensor":"Float32","shape":[2],"bits":["0x3f800000","0x3f800000"]},{"tensor":"Float32","shape":[3],"bits":["0x3f800000","0x3f800000","0x3f800000"]}],"plan":"rem(Float32, Float32) binary32 -> Float32"}', ['ValueError']),
    'rem@raises-NotImplementedError': (has_no_operation, '{"op":"rem","args":[{"tensor":"Float32","shape":[1],"bits":["0xbf800000"]},{"tensor":"Float32","shape":[1],"bits":["0x41480000"]}],"plan":"rem(Float32, Float32) binary32 -> Float32"}', ('Float32', [1], ['0xbf800000'])),
    'rsqrt@wrong-value:1-ulp': (differs, '{"op":"rsqrt","args":[{"tensor":"Float32","shape":[1],"bits":["0x00800001"]}],"plan":"rsqrt(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x5effffff'])),
    'rsqrt@wrong-value:nan': (differs_in_a_batch, '{"op":"rsqrt","args":[{"tensor":"Float32","shape":[1],"bits":["0x80000001"]}],"plan":"rsqrt(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x7fc00000'])),
    'rsqrt@wrong-value:overflow': (differs_in_a_batch, '{"op":"rsqrt","args":[{"tensor":"Float32","shape":[1],"bits":["0x00000001"]}],"plan":"rsqrt(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x64b504f3'])),
    'scatter@missing-exception:error-index-negative': (returns_instead_of_raising, '{"op":"scatter","args":[{"tensor":"Float32","shape":[1],"bits":["0x00000000"]},{"tensor":"Int32","shape":[1],"values":[-1]},{"tensor":"Float32","shape":[1],"bits":["0x00000000"]},0],"plan":"scatter(Float32, Int32, Float32) binary32 -> Float32"}', ['IndexError']),
    'scatter@missing-exception:error-scatter-duplicate': (returns_instead_of_raising, '{"op":"scatter","args":[{"tensor":"Float32","shape":[2,1],"bits":["0x41500000","0x41500000"]},{"tensor":"Int32","shape":[2],"values":[1,1]},{"tensor":"Float32","shape":[2,1],"bits":["0x000001c7","0x000001c7"]},0],"plan":"scatter(Float32, Int32, Float32) binary32 -> Float32"}', ['ValueError']),
    'scatter@wrong-exception:error-bad-axis': (raises_another_type, '{"op":"scatter","args":[{"tensor":"Float32","shape":[3],"bits":["0x3f800000","0x40000000","0x40400000"]},{"tensor":"Int32","shape":[1],"values":[0]},{"tensor":"Float32","shape":[1],"bits":["0x41200000"]},1],"plan":"scatter(Float32, Int32, Float32) binary32 -> Float32"}', ['ValueError']),
    'scatter_add@missing-exception:error-index-negative': (returns_instead_of_raising, '{"op":"scatter_add","args":[{"tensor":"Float32","shape":[1],"bits":["0x00000000"]},{"tensor":"Int32","shape":[1],"values":[-1]},{"tensor":"Float32","shape":[1],"bits":["0x00000000"]},0],"plan":"scatter_add(Float32, Int32, Float32) binary32 acc=sequential_binary32 -> Float32"}', ['IndexError']),
    'scatter_add@wrong-exception:error-bad-axis': (raises_another_type, '{"op":"scatter_add","args":[{"tensor":"Float32","shape":[3],"bits":["0x3f800000","0x40000000","0x40400000"]},{"tensor":"Int32","shape":[1],"values":[0]},{"tensor":"Float32","shape":[1],"bits":["0x41200000"]},1],"plan":"scatter_add(Float32, Int32, Float32) binary32 acc=sequential_binary32 -> Float32"}', ['ValueError']),
    'scatter_add@wrong-exception:error-index-too-large': (raises_another_type, '{"op":"scatter_add","args":[{"tensor":"Float32","shape":[3],"bits":["0x3f800000","0x40000000","0x40400000"]},{"tensor":"Int32","shape":[1],"values":[3]},{"tensor":"Float32","shape":[1],"bits":["0x41200000"]},0],"plan":"scatter_add(Float32, Int32, Float32) binary32 acc=sequential_binary32 -> Float32"}', ['IndexError']),
    'sigmoid@wrong-value:1-ulp': (differs, '{"op":"sigmoid","args":[{"tensor":"Float32","shape":[],"bits":["0x40000000"]}],"plan":"sigmoid(Float32) binary32 -> Float32"}', ('Float32', [], ['0x3f617beb'])),
    'sigmoid@wrong-value:subnormal': (differs, '{"op":"sigmoid","args":[{"tensor":"Int32","shape":[8],"values":[-24,-36,-78,-104,-21,-84,4,-92]}],"plan":"sigmoid(Int32->Float32) binary32 -> Float32"}', ('Float32', [8], ['0x2e26083c', '0x2585b61d', '0x07314490', '0x00000000', '0x30506d87', '0x02e0f96d', '0x3f7b6541', '0x00013521'])),
    'silu@wrong-value:1-ulp': (differs, '{"op":"silu","args":[{"tensor":"Float32","shape":[1],"bits":["0x40a00000"]}],"plan":"silu(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x409eeddc'])),
    'silu@wrong-value:many-ulps': (differs, '{"op":"silu","args":[{"tensor":"Float32","shape":[1],"bits":["0x4000000f"]}],"plan":"silu(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x3fe17c0c'])),
    'silu@wrong-value:spurious-nan': (differs, '{"op":"silu","args":[{"tensor":"Float32","shape":[1],"bits":["0xff800000"]}],"plan":"silu(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x80000000'])),
    'silu@wrong-value:subnormal': (differs, '{"op":"silu","args":[{"tensor":"Float32","shape":[],"bits":["0x00000001"]}],"plan":"silu(Float32) binary32 -> Float32"}', ('Float32', [], ['0x00000001'])),
    'sin@wrong-value:1-ulp': (differs, '{"op":"sin","args":[{"tensor":"Float32","shape":[1],"bits":["0x3e800003"]}],"plan":"sin(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x3e7d577c'])),
    'softplus@wrong-value:1-ulp': (differs, '{"op":"softplus","args":[{"tensor":"Int32","shape":[1],"values":[-1]}],"plan":"softplus(Int32->Float32) binary32 -> Float32"}', ('Float32', [1], ['0x3ea063d6'])),
    'softplus@wrong-value:many-ulps': (differs, '{"op":"softplus","args":[{"tensor":"Float32","shape":[2,3],"bits":["0x3f000000","0xbf400000","0x3f800000","0xbfa00000","0x3fc00000","0xbfe00000"]}],"plan":"softplus(Float32) binary32 -> Float32"}', ('Float32', [2, 3], ['0x3f795d1c', '0x3ec613f5', '0x3fa818f5', '0x3e80fcd9', '0x3fd9c7e9', '0x3e2411cd'])),
    'softplus@wrong-value:subnormal': (differs, '{"op":"softplus","args":[{"tensor":"Int32","shape":[14],"values":[-2147483648,-16777217,-104,-103,-102,-88,-87,-2,-1,0,1,2,16777217,2147483647]}],"plan":"softplus(Int32->Float32) binary32 -> Float32"}', ('Float32', [14], ['0x00000000', '0x00000000', '0x00000000', '0x00000001', '0x00000004', '0x0041edc4', '0x00b33687', '0x3e01f96b', '0x3ea063d6', '0x3f317218', '0x3fa818f5', '0x40081f97', '0x4b800000', '0x4f000000'])),
    'sqrt@wrong-value:1-ulp': (differs_in_a_batch, '{"op":"sqrt","args":[{"tensor":"Float32","shape":[1],"bits":["0x00800001"]}],"plan":"sqrt(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x20000000'])),
    'sqrt@wrong-value:many-ulps': (differs_in_a_batch, '{"op":"sqrt","args":[{"tensor":"Float32","shape":[1],"bits":["0x00000001"]}],"plan":"sqrt(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x1a3504f3'])),
    'sqrt@wrong-value:nan': (differs_in_a_batch, '{"op":"sqrt","args":[{"tensor":"Float32","shape":[1],"bits":["0x80000002"]}],"plan":"sqrt(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x7fc00000'])),
    'sqrt@wrong-value:signed-zero': (differs_in_a_batch, '{"op":"sqrt","args":[{"tensor":"Float32","shape":[1],"bits":["0x80000000"]}],"plan":"sqrt(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x80000000'])),
    'sqrt@wrong-value:spurious-nan': (differs_in_a_batch, '{"op":"sqrt","args":[{"tensor":"Float32","shape":[1],"bits":["0x7f800000"]}],"plan":"sqrt(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x7f800000'])),
    'sub@missing-exception:int32-result-overflow': (returns_instead_of_raising, '{"op":"sub","args":[{"tensor":"Int32","shape":[1],"values":[-2147483648]},{"tensor":"Int32","shape":[1],"values":[1]}],"plan":"sub(Int32, Int32) int32_exact_checked -> Int32"}', ['OverflowError']),
    'tanh@wrong-value:1-ulp': (differs, '{"op":"tanh","args":[{"tensor":"Float32","shape":[1],"bits":["0x3e800002"]}],"plan":"tanh(Float32) binary32 -> Float32"}', ('Float32', [1], ['0x3e7acbf9'])),
    'tanh@wrong-value:many-ulps': (differs, '{"op":"tanh","args":[{"tensor":"Float32","shape":[],"bits":["0x40c00000"]}],"plan":"tanh(Float32) binary32 -> Float32"}', ('Float32', [], ['0x3f7fff32'])),

}  # fmt: skip

#: ``operation@class`` -> a callable of no arguments (the contract)
BY_CLASS: dict[str, Callable[[], None]] = {
    key: partial(check, text, expected) for key, (check, text, expected) in ENTRIES.items()
}


# -- classes of the re-measured report (issue 27's spellings) with no earlier class: the
# report's example calls
BY_CLASS |= {
    key: partial(check, text, expected)
    for key, (check, text, expected) in {
        '_topk_indices@raises-ValueError': (raises_instead_of_result, '{"op":"_topk_indices","args":[{"tensor":"Float32","shape":[0],"bits":[]},0,0],"plan":"_topk_indices(Float32) binary32 -> Int32"}', None),
        '_topk_values@raises-ValueError': (raises_instead_of_result, '{"op":"_topk_values","args":[{"tensor":"Float32","shape":[0],"bits":[]},0,0],"plan":"_topk_values(Float32) binary32 -> Float32"}', None),
        'clamp@raises-SystemError': (raises_instead_of_result, '{"op":"clamp","args":[{"tensor":"Float32","shape":[1],"bits":["0x3f800000"]},340282366920938463463374607431768211456,2],"plan":"clamp(Float32, weak->Float32, weak->Float32) binary32 -> Float32"}', None),
        'conv_general@conv-negative-padding': (raises_another_type, '{"op":"conv_general","args":[{"tensor":"Float32","shape":[1,2,3],"bits":["0x3f800000","0x40000000","0x40400000","0x40800000","0x40a00000","0x40c00000"]},{"tensor":"Float32","shape":[2,2,2],"bits":["0x3f800000","0x40000000","0x40400000","0x40800000","0x40a00000","0x40c00000","0x40e00000","0x41000000"]},{"tuple":[1]},{"tuple":[{"tuple":[-2,-2]}]},{"tuple":[1]},{"tuple":[1]},1],"plan":"conv_general(Float32, Float32) binary32 acc=sequential_binary32 -> Float32"}', ['ValueError']),
        'gather@missing-exception:error-bad-axis': (returns_instead_of_raising, '{"op":"gather","args":[{"tensor":"Float32","shape":[3,2],"bits":["0x3f800000","0x40000000","0x40400000","0x40800000","0x40a00000","0x40c00000"]},{"tensor":"Int32","shape":[2],"values":[0,1]},{"float":"0x1.0000000000000p+0"}],"plan":"gather(Float32, Int32) binary32 -> Float32"}', ['TypeError']),
        'pow@raises-SystemError': (raises_instead_of_result, '{"op":"pow","args":[180055411962506080612864401439125290360348502093341917184,{"tensor":"Float32","shape":[0,4],"bits":[]}],"plan":"pow(weak->Float32, Float32) binary32 -> Float32"}', None),
        'reduce_min@raises-ValueError': (raises_instead_of_result, '{"op":"reduce_min","args":[{"tensor":"Float32","shape":[0],"bits":[]},{"tuple":[]},true],"plan":"reduce_min(Float32) binary32 acc=minimum -> Float32"}', None),
    }.items()
}  # fmt: skip


#: issue 27 folded classes into one (``wrong-value:accuracy`` for 1-ulp, many-ulps and
#: subnormal elements of a correctly rounded operation; ``wrong-exception:convention``
#: for every exception type that is plancheck's convention; ``shape-or-dtype`` split):
#: a class of the re-measured report -> the class of the earlier report whose
#: reproduction (above) shows it
FOLDED: dict[str, str] = {
    "clamp@wrong-value:shape": "clamp@wrong-value:shape-or-dtype",
    "cos@wrong-value:accuracy": "cos@wrong-value:1-ulp",
    "cumsum@wrong-exception:convention": "cumsum@wrong-exception:error-bad-axis",
    "elu@wrong-value:accuracy": "elu@wrong-value:1-ulp",
    "erf@wrong-value:accuracy": "erf@wrong-value:1-ulp",
    "exp@wrong-value:accuracy": "exp@wrong-value:1-ulp",
    "gather@wrong-exception:convention": "gather@wrong-exception:error-bad-axis",
    "gelu@wrong-value:accuracy": "gelu@wrong-value:1-ulp",
    "log2@wrong-value:accuracy": "log2@wrong-value:1-ulp",
    "log@wrong-value:accuracy": "log@wrong-value:1-ulp",
    "pow@wrong-value:accuracy": "pow@wrong-value:1-ulp",
    "reduce_max@wrong-value:shape": "reduce_max@wrong-value:shape-or-dtype",
    "reduce_min@wrong-value:shape": "reduce_min@wrong-value:shape-or-dtype",
    "reduce_prod@wrong-value:shape": "reduce_prod@wrong-value:shape-or-dtype",
    "reduce_sum@wrong-value:shape": "reduce_sum@wrong-value:shape-or-dtype",
    "rsqrt@wrong-value:accuracy": "rsqrt@wrong-value:1-ulp",
    "scatter@wrong-exception:convention": "scatter@wrong-exception:error-bad-axis",
    "scatter_add@wrong-exception:convention": "scatter_add@wrong-exception:error-bad-axis",
    "sigmoid@wrong-value:accuracy": "sigmoid@wrong-value:1-ulp",
    "silu@wrong-value:accuracy": "silu@wrong-value:1-ulp",
    "sin@wrong-value:accuracy": "sin@wrong-value:1-ulp",
    "softplus@wrong-value:accuracy": "softplus@wrong-value:1-ulp",
    "tanh@wrong-value:accuracy": "tanh@wrong-value:1-ulp",
}


def _published() -> list[str]:
    """The classes of the report beside this file (``REPORT``)."""
    data = json.loads(Path(__file__).with_name(REPORT).read_text())
    return sorted({f"{c['operation']}@{c['class']}" for c in data["deviation_classes"]})


#: the report's classes, each with its reproduction (a class with none is left out: the
#: test names it)
REPRODUCTIONS: dict[str, Callable[[], None]] = {
    key: BY_CLASS[FOLDED.get(key, key)] for key in _published() if FOLDED.get(key, key) in BY_CLASS
}


if __name__ == "__main__":
    shown = 0
    for key, reproduce in REPRODUCTIONS.items():
        try:
            reproduce()
        except AssertionError as error:
            print(f"NOT REPRODUCED {key}: {error}")
        else:
            shown += 1
    print(f"{shown} of {len(REPRODUCTIONS)} classes reproduced")
    sys.exit(0 if shown == len(REPRODUCTIONS) else 1)
