"""Every deviation class of docs/backends/paddle.json, reproduced with PaddlePaddle alone.

Run it as it is (``python docs/backends/paddle_repro.py``: every class, one line
each, exit status 0 when all reproduce), run ``pytest
tests/test_survey_reproductions.py``, or call a reproduction yourself:
``REPRODUCTIONS["neg@wrong-value:signed-zero"]()`` raises AssertionError when
Paddle returns what the specification requires.  Each reproduction takes its
class's example from the report exactly as printed -- the same input bits,
shapes and arguments -- calls the Paddle function a Paddle user writes for
that plan (``CALLS``: the functions and arguments of
``backends/adapters/paddle_cpu.py``, Paddle's defaults, the CPU place) and
checks the class's cause (``repro_common.py``: a wrong element of the class's
sort, a missing or other exception, an exception where a value is due).  A
call that kills the process (``reduce_sum@crash``) or does not return within
the report's timeout (``pow@hang``) runs in a child Python process.

The report was measured with ``OMP_NUM_THREADS=1`` in the environment (its
``configuration``); this module sets that before importing Paddle.  Paddle
documents no intra-op thread switch for its eager CPU kernels, so nothing else
is set.  It imports Paddle, numpy, mpmath and the standard library, never
plancheck.
"""

from __future__ import annotations

import os
import warnings
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from typing import Any

import numpy as np

#: the thread environment the report records (``configuration.paddle.threads``)
os.environ["OMP_NUM_THREADS"] = "1"

with warnings.catch_warnings():
    # paddle's C++-extension builder warns at import that ccache is missing
    warnings.filterwarnings("ignore", message="No ccache found", category=UserWarning)
    import paddle
    import paddle.nn.functional as F

LIBRARY = "paddle"
REPORT = "paddle.json"


#: repro_common.py beside this file (numpy, mpmath, the standard library), loaded by path
common = module_from_spec(
    spec_from_file_location("repro_common", Path(__file__).with_name("repro_common.py"))
)
common.__spec__.loader.exec_module(common)
paddle.set_device("cpu")


def _native(plan: str, args: tuple[Any, ...]) -> list[Any]:
    """Arrays as Paddle CPU tensors (bits kept), converted as the plan's operand says
    (``Int32->Float32``: ``x.astype(paddle.float32)``); a weak scalar as the Python
    number Paddle's own scalar rule receives (a numpy scalar as ``.item()``, a
    fraction as ``float``); anything else (an axis, ``k``, a flag) as it is."""
    kinds = common.operand_kinds(plan)
    out: list[Any] = []
    for position, value in enumerate(args):
        if isinstance(value, np.ndarray):
            tensor = paddle.to_tensor(value.copy(), place=paddle.CPUPlace())
            if position < len(kinds) and kinds[position].endswith("->Float32"):
                tensor = tensor.astype(paddle.float32)
            out.append(tensor)
        elif isinstance(value, np.generic):
            out.append(value.item())
        elif type(value).__name__ == "Fraction":
            out.append(float(value))
        else:
            out.append(value)
    return out


def _plain(function: Any) -> Any:
    return lambda plan, *args: function(*_native(plan, args))


def _axes(axis: Any) -> Any:
    """An axis argument as Paddle takes it: a tuple of axes as a list, else as given."""
    return list(axis) if isinstance(axis, tuple) else axis


def _binary(function: Any) -> Any:
    """Two tensors: *function*; a Python scalar operand (``mul``, ``pow``): Paddle's tensor
    operators, which take one (``x * s``, ``paddle.pow(x, s)``, ``s ** x``)."""

    def call(plan: str, a: Any, b: Any) -> Any:
        x, y = _native(plan, (a, b))
        if isinstance(x, paddle.Tensor) and isinstance(y, paddle.Tensor):
            return function(x, y)
        if function is paddle.pow:
            return paddle.pow(x, y) if isinstance(x, paddle.Tensor) else x**y
        return x * y

    return call


def _reduce_sum(plan: str, x: Any, axis: Any = None, keepdims: Any = False) -> Any:
    (v,) = _native(plan, (x,))
    if "exact_integer" in plan:
        return paddle.sum(v, axis=_axes(axis), dtype=paddle.int32, keepdim=keepdims)
    if common.float64_accumulator(plan):
        wide = paddle.sum(v, axis=_axes(axis), dtype=paddle.float64, keepdim=keepdims)
        return wide.astype(paddle.float32)
    return paddle.sum(v, axis=_axes(axis), keepdim=keepdims)


def _reduction(function: Any) -> Any:
    def call(plan: str, x: Any, axis: Any = None, keepdims: Any = False) -> Any:
        (v,) = _native(plan, (x,))
        return function(v, axis=_axes(axis), keepdim=keepdims)

    return call


def _arg(function: Any) -> Any:
    def call(plan: str, x: Any, axis: Any = None) -> Any:
        (v,) = _native(plan, (x,))
        return function(v, axis=axis, dtype=paddle.int32)

    return call


def _matmul(plan: str, a: Any, b: Any) -> Any:
    x, y = _native(plan, (a, b))
    if common.float64_accumulator(plan) and "exact_integer" not in plan:
        return paddle.matmul(x.astype(paddle.float64), y.astype(paddle.float64)).astype(
            paddle.float32
        )
    return paddle.matmul(x, y)


def _conv(
    plan: str,
    lhs: Any,
    rhs: Any,
    strides: Any = None,
    padding: Any = None,
    lhs_dilation: Any = None,
    rhs_dilation: Any = None,
    groups: Any = 1,
) -> Any:
    """``F.conv1d/2d/3d`` (no bias).  Paddle's conv has no input dilation and no negative
    padding: the input is written into zeros at every ``lhs_dilation``-th position and a
    negative padding crops it by slicing (data movement only), then Paddle convolves."""
    x, w = _native(plan, (lhs, rhs))
    spatial = x.ndim - 2
    ones = [1] * spatial
    pads = [tuple(pair) for pair in padding] if padding is not None else [(0, 0)] * spatial
    spread = list(lhs_dilation) if lhs_dilation is not None else ones
    if any(d > 1 for d in spread):
        extents = [(n - 1) * d + 1 if n else 0 for n, d in zip(x.shape[2:], spread)]
        out = paddle.zeros([*x.shape[:2], *extents], dtype=x.dtype)
        out[(slice(None), slice(None), *(slice(None, None, d) for d in spread))] = x
        x = out
    x = x[
        (
            slice(None),
            slice(None),
            *(slice(max(-lo, 0), n - max(-hi, 0)) for n, (lo, hi) in zip(x.shape[2:], pads)),
        )
    ]
    convolve = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[spatial]
    return convolve(
        x,
        w,
        stride=list(strides) if strides is not None else ones,
        padding=[[0, 0], [0, 0], *([max(lo, 0), max(hi, 0)] for lo, hi in pads)],
        dilation=list(rhs_dilation) if rhs_dilation is not None else ones,
        groups=groups,
    )


def _gather(plan: str, data: Any, indices: Any, axis: Any) -> Any:
    """``paddle.gather`` of the flat indices, reshaped to numpy's ``take`` shape (an axis
    that is not an int: Paddle's result as it is)."""
    d, i = _native(plan, (data, indices))
    gathered = paddle.gather(d, i.reshape([-1]), axis=axis)
    if isinstance(axis, bool) or not isinstance(axis, int):
        return gathered
    at = axis % d.ndim
    return gathered.reshape([*d.shape[:at], *i.shape, *d.shape[at + 1 :]])


def _flat_updates(b: Any, i: Any, u: Any, axis: Any) -> tuple[Any, Any]:
    """The indices as one dimension, the updates with that dimension at *axis* (an axis
    out of range is left for Paddle to judge)."""
    flat = i.reshape([-1])
    if isinstance(axis, int) and -b.ndim <= axis < b.ndim:
        at = axis % b.ndim
        u = u.reshape([*b.shape[:at], flat.shape[0], *b.shape[at + 1 :]])
    return flat, u


def _scatter(plan: str, base: Any, indices: Any, updates: Any, axis: Any) -> Any:
    """``paddle.scatter(overwrite=True)``, which writes along the first axis, on the base
    with *axis* moved first, moved back after."""
    b, i, u = _native(plan, (base, indices, updates))
    flat, source = _flat_updates(b, i, u, axis)
    first = paddle.scatter(
        paddle.moveaxis(b, axis, 0), flat, paddle.moveaxis(source, axis, 0), overwrite=True
    )
    return paddle.moveaxis(first, 0, axis)


def _scatter_add(plan: str, base: Any, indices: Any, updates: Any, axis: Any) -> Any:
    b, i, u = _native(plan, (base, indices, updates))
    flat, source = _flat_updates(b, i, u, axis)
    return paddle.index_add(b, flat, axis, source)


def _sort(indices: bool) -> Any:
    def call(plan: str, x: Any, axis: Any = -1, descending: Any = False) -> Any:
        (v,) = _native(plan, (x,))
        function = paddle.argsort if indices else paddle.sort
        result = function(v, axis=axis, descending=descending, stable=True)
        return result.astype(paddle.int32) if indices else result

    return call


def _topk(indices: bool) -> Any:
    def call(plan: str, x: Any, k: Any, axis: Any = -1, largest: Any = True) -> Any:
        (v,) = _native(plan, (x,))
        values, positions = paddle.topk(v, k, axis=axis, largest=largest, sorted=True)
        return positions.astype(paddle.int32) if indices else values

    return call


#: operation -> the Paddle call for a plan and the decoded arguments (``rem`` and ``exp2``
#: have no Paddle function: the report does not measure them)
CALLS: dict[str, Any] = {
    **{
        op: _plain(function)
        for op, function in {
            "abs": paddle.abs,
            "ceil": paddle.ceil,
            "cos": paddle.cos,
            "elu": F.elu,
            "erf": paddle.erf,
            "exp": paddle.exp,
            "floor": paddle.floor,
            "gelu": F.gelu,
            "leaky_relu": lambda x: F.leaky_relu(x, 0.01),
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
            "select": paddle.where,
            "clamp": paddle.clip,
        }.items()
    },
    **{
        op: _binary(function)
        for op, function in {
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
        }.items()
    },
    "reduce_sum": _reduce_sum,
    "reduce_prod": _reduction(paddle.prod),
    "reduce_max": _reduction(paddle.max),
    "reduce_min": _reduction(paddle.min),
    "argmax": _arg(paddle.argmax),
    "argmin": _arg(paddle.argmin),
    "cumsum": lambda plan, x, axis: paddle.cumsum(*_native(plan, (x,)), axis=axis),
    "matmul": _matmul,
    "conv_general": _conv,
    "gather": _gather,
    "scatter": _scatter,
    "scatter_add": _scatter_add,
    "_sort_values": _sort(indices=False),
    "_sort_indices": _sort(indices=True),
    "_topk_values": _topk(indices=False),
    "_topk_indices": _topk(indices=True),
}


def _to_numpy(result: Any) -> np.ndarray:
    if isinstance(result, paddle.Tensor):
        return np.array(result.numpy(), copy=True)
    return np.asarray(result)


#: every class of the report, by kind (repro_common.cause_of reads the cause off the spelling)
PUBLISHED: list[str] = [
    # crash
    "reduce_sum@crash",
    # missing exception
    "_topk_indices@missing-exception:error-bad-parameter",
    "_topk_values@missing-exception:error-bad-parameter",
    "add@missing-exception:int32-result-overflow",
    "argmax@missing-exception:error-bad-axis",
    "argmax@missing-exception:error-empty-extremum",
    "argmin@missing-exception:error-bad-axis",
    "argmin@missing-exception:error-empty-extremum",
    "cumsum@missing-exception:error-bad-axis",
    "elementwise_mul@missing-exception:int32-result-overflow",
    "gather@missing-exception:error-bad-axis",
    "gather@missing-exception:error-index-negative",
    "matmul@missing-exception:error-shape-mismatch",
    "matmul@missing-exception:int32-result-overflow",
    "mul@missing-exception:int32-result-overflow",
    "pow@missing-exception:int32-result-overflow",
    "reduce_sum@missing-exception:int32-result-overflow",
    "scatter@missing-exception:error-index-negative",
    "scatter@missing-exception:error-scatter-duplicate",
    "scatter_add@missing-exception:error-index-negative",
    "sub@missing-exception:int32-result-overflow",
    # wrong exception
    "cumsum@wrong-exception:convention",
    "gather@wrong-exception:convention",
    "scatter@wrong-exception:convention",
    "scatter_add@wrong-exception:convention",
    # wrong value
    "_topk_indices@wrong-value:integer",
    "_topk_values@wrong-value:signed-zero",
    "argmax@wrong-value:integer",
    "argmin@wrong-value:integer",
    "clamp@wrong-value:shape",
    "clamp@wrong-value:signed-zero",
    "conv_general@wrong-value:1-ulp",
    "conv_general@wrong-value:many-ulps",
    "cos@wrong-value:accuracy",
    "elu@wrong-value:accuracy",
    "elu@wrong-value:sign",
    "eq@wrong-value:bool",
    "erf@wrong-value:accuracy",
    "exp@wrong-value:accuracy",
    "exp@wrong-value:zero",
    "gelu@wrong-value:accuracy",
    "gelu@wrong-value:overflow",
    "gelu@wrong-value:spurious-nan",
    "log2@wrong-value:accuracy",
    "log@wrong-value:accuracy",
    "matmul@wrong-value:integer",
    "matmul@wrong-value:outside-interval",
    "maximum@wrong-value:signed-zero",
    "minimum@wrong-value:signed-zero",
    "mul@wrong-value:1-ulp",
    "mul@wrong-value:many-ulps",
    "mul@wrong-value:signed-zero",
    "ne@wrong-value:bool",
    "neg@wrong-value:nan-bits",
    "neg@wrong-value:signed-zero",
    "pow@wrong-value:accuracy",
    "pow@wrong-value:infinity",
    "pow@wrong-value:integer",
    "pow@wrong-value:signed-zero",
    "reduce_max@wrong-value:nan-bits",
    "reduce_max@wrong-value:shape",
    "reduce_max@wrong-value:signed-zero",
    "reduce_min@wrong-value:nan-bits",
    "reduce_min@wrong-value:shape",
    "reduce_min@wrong-value:signed-zero",
    "reduce_prod@wrong-value:1-ulp",
    "reduce_prod@wrong-value:many-ulps",
    "reduce_prod@wrong-value:shape",
    "reduce_sum@wrong-value:shape",
    "relu@wrong-value:nan",
    "rsqrt@wrong-value:accuracy",
    "rsqrt@wrong-value:nan",
    "rsqrt@wrong-value:overflow",
    "sigmoid@wrong-value:accuracy",
    "silu@wrong-value:accuracy",
    "silu@wrong-value:spurious-nan",
    "sin@wrong-value:accuracy",
    "softplus@wrong-value:accuracy",
    "sqrt@wrong-value:1-ulp",
    "sqrt@wrong-value:many-ulps",
    "sqrt@wrong-value:nan",
    "sqrt@wrong-value:signed-zero",
    "sqrt@wrong-value:spurious-nan",
    "tanh@wrong-value:accuracy",
    # other
    "_topk_indices@raises-ValueError",
    "_topk_values@raises-ValueError",
    "clamp@raises-SystemError",
    "clamp@raises-ValueError",
    "conv_general@conv-negative-padding",
    "pow@hang",
    "pow@raises-SystemError",
    "reduce_min@raises-ValueError",
    "relu@raises-RuntimeError",
]

REPRODUCTIONS = common.reproductions(REPORT, PUBLISHED, CALLS, _to_numpy)

if __name__ == "__main__":
    raise SystemExit(common.main(REPRODUCTIONS))
