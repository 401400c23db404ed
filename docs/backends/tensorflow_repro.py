"""Every deviation class of docs/backends/tensorflow.json, reproduced with TensorFlow alone.

Run it as it is (``python docs/backends/tensorflow_repro.py``: every class, one
line each, exit status 0 when all reproduce), run ``pytest
tests/test_survey_reproductions.py``, or call a reproduction yourself:
``REPRODUCTIONS["sign@wrong-value:nan"]()`` raises AssertionError when
TensorFlow returns what the specification requires.  Each reproduction takes
its class's example from the report exactly as printed -- the same input bits,
shapes and arguments -- makes the eager call a TensorFlow user writes for that
plan (``CALLS``: the functions and arguments of
``backends/adapters/tensorflow_cpu.py``; ``tnp`` is ``tf.experimental.numpy``,
TensorFlow's NumPy API, for exp2, log2, logical_not and moving an axis) and
checks the class's cause (``repro_common.py``: a wrong element of the class's
sort, a missing or other exception, an exception where a value is due).

TensorFlow runs as the report was measured (its ``configuration``): one
intra-op and one inter-op thread, set before the first operation of the
process, and TensorFlow's defaults otherwise (oneDNN on, as this x86 build
has it).  ``TF_CPP_MIN_LOG_LEVEL=2`` (unless already set) drops TensorFlow's
C++ INFO and WARNING lines.  It imports TensorFlow, numpy, mpmath and the
standard library, never plancheck.
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's switch: before the import

import operator
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from typing import Any

import numpy as np
import tensorflow as tf

LIBRARY = "tensorflow"
REPORT = "tensorflow.json"


#: repro_common.py beside this file (numpy, mpmath, the standard library), loaded by path
common = module_from_spec(
    spec_from_file_location("repro_common", Path(__file__).with_name("repro_common.py"))
)
common.__spec__.loader.exec_module(common)
#: the report's thread pools (``configuration.tensorflow.threads``: intra_op 1, inter_op 1)
tf.config.threading.set_intra_op_parallelism_threads(1)
tf.config.threading.set_inter_op_parallelism_threads(1)
tnp = tf.experimental.numpy


def _native(plan: str, args: tuple[Any, ...]) -> list[Any]:
    """Arrays as eager tensors (bits kept), converted as the plan's operand says
    (``Int32->Float32``: ``tf.cast``); a weak scalar as the Python number TensorFlow's
    own conversion receives (a numpy scalar as ``.item()``, a fraction as ``float``);
    anything else (an axis, ``k``, a flag) as it is."""
    kinds = common.operand_kinds(plan)
    out: list[Any] = []
    for position, value in enumerate(args):
        if isinstance(value, np.ndarray):
            tensor = tf.constant(value.copy())
            if position < len(kinds) and kinds[position].endswith("->Float32"):
                tensor = tf.cast(tensor, tf.float32)
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


def _float64_sum(plan: str) -> bool:
    return common.float64_accumulator(plan) and "exact_integer" not in plan


def _reduce_sum(plan: str, x: Any, axis: Any = None, keepdims: Any = False) -> Any:
    """``tf.math.reduce_sum`` (Int32 in int32); a Float64 accumulator through float64."""
    (v,) = _native(plan, (x,))
    if _float64_sum(plan):
        wide = tf.math.reduce_sum(tf.cast(v, tf.float64), axis=axis, keepdims=keepdims)
        return tf.cast(wide, tf.float32)
    return tf.math.reduce_sum(v, axis=axis, keepdims=keepdims)


def _reduction(function: Any) -> Any:
    def call(plan: str, x: Any, axis: Any = None, keepdims: Any = False) -> Any:
        (v,) = _native(plan, (x,))
        return function(v, axis=axis, keepdims=keepdims)

    return call


def _arg(function: Any) -> Any:
    """``tf.math.argmax/argmin(output_type=tf.int32)``; axis None (the flat index) on
    ``tf.reshape(x, [-1])``, TensorFlow's own axis=None meaning axis 0."""

    def call(plan: str, x: Any, axis: Any = None) -> Any:
        (v,) = _native(plan, (x,))
        if axis is None:
            v, axis = tf.reshape(v, [-1]), 0
        return function(v, axis=axis, output_type=tf.int32)

    return call


def _matmul(plan: str, a: Any, b: Any) -> Any:
    x, y = _native(plan, (a, b))
    if _float64_sum(plan):
        return tf.cast(tf.linalg.matmul(tf.cast(x, tf.float64), tf.cast(y, tf.float64)), tf.float32)
    return tf.linalg.matmul(x, y)


def _dilate(x: Any, axis: int, spread: int) -> Any:
    """*x* with ``spread - 1`` zeros between neighbours along *axis* (``tf.pad`` + reshape)."""
    n = x.shape[axis]
    widths = [[0, 0]] * (x.ndim + 1)
    widths[axis + 1] = [0, spread - 1]
    spaced = tf.pad(tf.expand_dims(x, axis + 1), widths)
    merged = tf.reshape(spaced, [*x.shape[:axis], n * spread, *x.shape[axis + 1 :]])
    keep = (n - 1) * spread + 1 if n else 0
    return merged[(slice(None),) * axis + (slice(0, keep),)]


def _pad(x: Any, pads: list[tuple[int, int]]) -> Any:
    """*x* padded with zeros by the non-negative parts of *pads*, cropped by the negative."""
    widths = [[0, 0], [0, 0], *([max(lo, 0), max(hi, 0)] for lo, hi in pads)]
    if any(any(p) for p in widths):
        x = tf.pad(x, widths)
    crop = [slice(None), slice(None)]
    for d, (lo, hi) in enumerate(pads):
        crop.append(slice(max(-lo, 0), x.shape[2 + d] - max(-hi, 0)))
    return x[tuple(crop)]


def _convolve(x: Any, w: Any, strides: Any, pads: list[tuple[int, int]], spread: Any,
              dilations: Any) -> Any:  # fmt: skip
    """``tf.nn.convolution(padding="VALID")`` of [N, C, *S] and [O, C/g, *K] over
    channels-last copies (TensorFlow's CPU layout), back to [N, O, *S']."""
    spatial = len(pads)
    for d, step in enumerate(spread):
        if step > 1:
            x = _dilate(x, 2 + d, step)
    x = _pad(x, pads)
    last = list(range(2, spatial + 2))
    out = tf.nn.convolution(
        tf.transpose(x, [0, *last, 1]),
        tf.transpose(w, [*last, 1, 0]),  # [*K, C/g, O]
        strides=strides,
        padding="VALID",
        dilations=dilations,
    )
    return tf.transpose(out, [0, spatial + 1, *range(1, spatial + 1)])


def _listed(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


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
    """``tf.nn.convolution`` (no group argument: TensorFlow infers the groups from the
    channel counts); the padding as ``tf.pad`` (a negative one as a slice) and the input
    dilation as zeros written between the elements, both data movement only."""
    x, w = _native(plan, (lhs, rhs))
    spatial = x.ndim - 2
    if spatial < 0:  # no batch and channel dimensions: TensorFlow judges the ranks
        return tf.nn.convolution(x, w)
    pads = [tuple(pair) for pair in padding] if padding is not None else [(0, 0)] * spatial
    spread = tuple(lhs_dilation) if lhs_dilation is not None else (1,) * spatial
    if spatial == 0:  # a 1x1 convolution over a length-1 dimension
        return _convolve(x[..., None], w[..., None], [1], [(0, 0)], (1,), [1])[..., 0]
    ones = [1] * spatial
    return _convolve(
        x,
        w,
        ones if strides is None else _listed(strides),
        pads,
        spread,
        ones if rhs_dilation is None else _listed(rhs_dilation),
    )


def _scatter(function: Any) -> Any:
    """``tf.tensor_scatter_nd_update/add`` on the base with the scatter axis moved first
    (``tnp.moveaxis``, which judges the axis) and ``indices[..., None]``."""

    def call(plan: str, base: Any, indices: Any, updates: Any, axis: Any) -> Any:
        b, i, u = _native(plan, (base, indices, updates))
        first = tnp.moveaxis(b, axis, 0)
        at = operator.index(axis) % b.ndim
        front = list(range(at, at + i.ndim))  # the index dimensions of the updates
        rest = [d for d in range(u.ndim) if d not in front]
        moved = function(first, i[..., None], tf.transpose(u, [*front, *rest]))
        return tf.transpose(moved, [*range(1, at + 1), 0, *range(at + 1, b.ndim)])

    return call


def _direction(descending: Any) -> str:
    """``tf.sort``'s direction string for a bool (the report's examples pass bools)."""
    if not isinstance(descending, (bool, np.bool_)):
        raise NotImplementedError(f"tf.sort takes a direction string, not {descending!r}")
    return "DESCENDING" if descending else "ASCENDING"


def _sort(values: bool) -> Any:
    def call(plan: str, x: Any, axis: Any = -1, descending: Any = False) -> Any:
        (v,) = _native(plan, (x,))
        if values:
            return tf.sort(v, axis=axis, direction=_direction(descending))
        return tf.argsort(v, axis=axis, direction=_direction(descending), stable=True)

    return call


def _topk(values: bool) -> Any:
    """``tf.math.top_k(sorted=True)`` over the axis moved last (``tnp.moveaxis``, which
    judges it) and moved back; TensorFlow has no smallest-k (the report measures none)."""

    def call(plan: str, x: Any, k: Any, axis: Any = -1, largest: Any = True) -> Any:
        if largest is not True:
            raise NotImplementedError("tf.math.top_k has no smallest-k")
        (v,) = _native(plan, (x,))
        top = tf.math.top_k(tnp.moveaxis(v, axis, -1), k=k, sorted=True)
        return tnp.moveaxis(top.values if values else top.indices, -1, axis)

    return call


#: operation -> the TensorFlow call for a plan and the decoded arguments
CALLS: dict[str, Any] = {
    **{
        op: _plain(function)
        for op, function in {
            "abs": tf.math.abs,
            "ceil": tf.math.ceil,
            "cos": tf.math.cos,
            "elu": tf.nn.elu,
            "erf": tf.math.erf,
            "exp": tf.math.exp,
            "exp2": tnp.exp2,
            "floor": tf.math.floor,
            "gelu": lambda x: tf.nn.gelu(x, approximate=False),
            "leaky_relu": lambda x: tf.nn.leaky_relu(x, alpha=0.01),
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
        }.items()
    },
    "reduce_sum": _reduce_sum,
    "reduce_prod": _reduction(tf.math.reduce_prod),
    "reduce_max": _reduction(tf.math.reduce_max),
    "reduce_min": _reduction(tf.math.reduce_min),
    "argmax": _arg(tf.math.argmax),
    "argmin": _arg(tf.math.argmin),
    "cumsum": lambda plan, x, axis: tf.math.cumsum(*_native(plan, (x,)), axis=axis),
    "matmul": _matmul,
    "conv_general": _conv,
    "gather": lambda plan, d, i, axis: tf.gather(*_native(plan, (d, i)), axis=axis),
    "scatter": _scatter(tf.tensor_scatter_nd_update),
    "scatter_add": _scatter(tf.tensor_scatter_nd_add),
    "_sort_values": _sort(values=True),
    "_sort_indices": _sort(values=False),
    "_topk_values": _topk(values=True),
    "_topk_indices": _topk(values=False),
}


def _to_numpy(result: Any) -> np.ndarray:
    """A copy (TensorFlow's ``.numpy()`` may hand back the tensor's own buffer)."""
    if isinstance(result, tf.Tensor):
        return np.array(result.numpy(), copy=True)
    return np.asarray(result)


#: every class of the report, by kind (repro_common.cause_of reads the cause off the spelling)
PUBLISHED: list[str] = [
    # missing exception
    "_sort_indices@missing-exception:error-bad-axis",
    "_sort_values@missing-exception:error-bad-axis",
    "_topk_indices@missing-exception:error-bad-axis",
    "_topk_indices@missing-exception:error-bad-parameter",
    "_topk_values@missing-exception:error-bad-axis",
    "_topk_values@missing-exception:error-bad-parameter",
    "add@missing-exception:int32-result-overflow",
    "elementwise_mul@missing-exception:int32-result-overflow",
    "matmul@missing-exception:error-shape-mismatch",
    "matmul@missing-exception:int32-result-overflow",
    "mul@missing-exception:int32-result-overflow",
    "pow@missing-exception:int32-result-overflow",
    "reduce_max@missing-exception:error-bad-parameter",
    "reduce_max@missing-exception:error-empty-extremum",
    "reduce_min@missing-exception:error-bad-parameter",
    "reduce_min@missing-exception:error-empty-extremum",
    "reduce_prod@missing-exception:error-bad-parameter",
    "reduce_sum@missing-exception:error-bad-parameter",
    "reduce_sum@missing-exception:int32-result-overflow",
    "scatter@missing-exception:error-scatter-duplicate",
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
    "ne@wrong-exception:convention",
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
    "_sort_indices@wrong-value:integer",
    "_sort_values@wrong-value:many-ulps",
    "_sort_values@wrong-value:nan",
    "_sort_values@wrong-value:nan-bits",
    "_sort_values@wrong-value:sign",
    "_sort_values@wrong-value:spurious-nan",
    "_sort_values@wrong-value:subnormal",
    "_sort_values@wrong-value:zero",
    "_topk_indices@wrong-value:integer",
    "_topk_values@wrong-value:infinity",
    "_topk_values@wrong-value:many-ulps",
    "_topk_values@wrong-value:nan",
    "_topk_values@wrong-value:sign",
    "_topk_values@wrong-value:spurious-nan",
    "_topk_values@wrong-value:subnormal",
    "_topk_values@wrong-value:zero",
    "add@wrong-value:1-ulp",
    "add@wrong-value:many-ulps",
    "add@wrong-value:subnormal",
    "argmax@wrong-value:integer",
    "argmin@wrong-value:integer",
    "ceil@wrong-value:many-ulps",
    "clamp@wrong-value:1-ulp",
    "clamp@wrong-value:infinity",
    "clamp@wrong-value:many-ulps",
    "clamp@wrong-value:overflow",
    "clamp@wrong-value:sign",
    "clamp@wrong-value:signed-zero",
    "clamp@wrong-value:subnormal",
    "clamp@wrong-value:zero",
    "conv_general@wrong-value:1-ulp",
    "conv_general@wrong-value:many-ulps",
    "conv_general@wrong-value:shape",
    "conv_general@wrong-value:subnormal",
    "conv_general@wrong-value:zero",
    "cos@wrong-value:accuracy",
    "cumsum@wrong-value:subnormal",
    "div@wrong-value:many-ulps",
    "div@wrong-value:overflow",
    "div@wrong-value:spurious-nan",
    "div@wrong-value:subnormal",
    "elementwise_mul@wrong-value:many-ulps",
    "elementwise_mul@wrong-value:spurious-nan",
    "elementwise_mul@wrong-value:subnormal",
    "elu@wrong-value:accuracy",
    "elu@wrong-value:sign",
    "eq@wrong-value:bool",
    "erf@wrong-value:accuracy",
    "exp2@wrong-value:accuracy",
    "exp2@wrong-value:exact-point",
    "exp@wrong-value:accuracy",
    "floor@wrong-value:many-ulps",
    "gelu@wrong-value:accuracy",
    "gelu@wrong-value:spurious-nan",
    "le@wrong-value:bool",
    "leaky_relu@wrong-value:subnormal",
    "log2@wrong-value:accuracy",
    "log2@wrong-value:exact-point",
    "log2@wrong-value:nan",
    "log2@wrong-value:overflow",
    "log@wrong-value:accuracy",
    "log@wrong-value:nan",
    "log@wrong-value:overflow",
    "logical_not@wrong-value:bool",
    "lt@wrong-value:bool",
    "matmul@wrong-value:outside-interval",
    "matmul@wrong-value:spurious-nan",
    "maximum@wrong-value:signed-zero",
    "maximum@wrong-value:subnormal",
    "minimum@wrong-value:signed-zero",
    "minimum@wrong-value:subnormal",
    "mul@wrong-value:1-ulp",
    "mul@wrong-value:many-ulps",
    "mul@wrong-value:signed-zero",
    "mul@wrong-value:spurious-nan",
    "mul@wrong-value:subnormal",
    "ne@wrong-value:bool",
    "pow@wrong-value:accuracy",
    "pow@wrong-value:exact-point",
    "pow@wrong-value:infinity",
    "pow@wrong-value:nan",
    "pow@wrong-value:overflow",
    "pow@wrong-value:signed-zero",
    "pow@wrong-value:zero",
    "recip@wrong-value:1-ulp",
    "recip@wrong-value:many-ulps",
    "recip@wrong-value:overflow",
    "recip@wrong-value:subnormal",
    "reduce_max@wrong-value:nan-bits",
    "reduce_max@wrong-value:signed-zero",
    "reduce_max@wrong-value:subnormal",
    "reduce_min@wrong-value:nan-bits",
    "reduce_min@wrong-value:signed-zero",
    "reduce_min@wrong-value:subnormal",
    "reduce_prod@wrong-value:1-ulp",
    "reduce_prod@wrong-value:many-ulps",
    "reduce_sum@wrong-value:outside-interval",
    "relu@wrong-value:signed-zero",
    "relu@wrong-value:subnormal",
    "relu@wrong-value:zero",
    "rem@wrong-value:spurious-nan",
    "rsqrt@wrong-value:accuracy",
    "rsqrt@wrong-value:nan",
    "rsqrt@wrong-value:overflow",
    "scatter_add@wrong-value:subnormal",
    "sigmoid@wrong-value:accuracy",
    "sign@wrong-value:many-ulps",
    "sign@wrong-value:sign",
    "silu@wrong-value:accuracy",
    "silu@wrong-value:spurious-nan",
    "sin@wrong-value:accuracy",
    "softplus@wrong-value:accuracy",
    "sqrt@wrong-value:many-ulps",
    "sqrt@wrong-value:nan",
    "sub@wrong-value:1-ulp",
    "sub@wrong-value:many-ulps",
    "sub@wrong-value:subnormal",
    "tanh@wrong-value:accuracy",
    # other
    "clamp@raises-ValueError",
    "conv_general@conv-negative-padding",
    "conv_general@raises-ValueError",
    "scatter@rank-0",
    "scatter_add@rank-0",
]

#: classes whose printed example conforms when run alone, each with why (a literal: the
#: survey reads it without importing TensorFlow and prints them as not reproduced alone)
NOT_ALONE: dict[str, str] = {
    "mul@wrong-value:signed-zero": (
        "the printed call conforms alone: in a fresh process (22 of 22 runs) TensorFlow "
        "converts the weak -0.0 to -0.0 and returns the required result.  It showed in the "
        "measured run because TensorFlow's eager conversion of a Python scalar reuses the "
        "tensor of an equal Python float converted earlier in the process, and -0.0 == 0.0: "
        "after `tf.math.multiply(x, 0.0)` the printed call (tf.math.multiply(x, -0.0)) "
        "gets +0.0 for its -0.0 and shows the class"
    ),
    "pow@wrong-value:signed-zero": (
        "the printed call conforms alone: in a fresh process (22 of 22 runs) TensorFlow "
        "converts the weak -0.0 to -0.0 and returns the required result.  It showed in the "
        "measured run because TensorFlow's eager conversion of a Python scalar reuses the "
        "tensor of an equal Python float converted earlier in the process, and -0.0 == 0.0: "
        "after `tf.math.multiply(x, 0.0)` the printed call (tf.math.pow(-0.0, x)) gets "
        "+0.0 for its -0.0 and shows the class"
    ),
}

REPRODUCTIONS = common.reproductions(
    REPORT, [key for key in PUBLISHED if key not in NOT_ALONE], CALLS, _to_numpy
)

if __name__ == "__main__":
    raise SystemExit(common.main(REPRODUCTIONS, NOT_ALONE))
