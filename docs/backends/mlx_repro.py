"""Every deviation class of mlx.json, reproduced with mlx alone (mlx 0.32.4, ``mlx[cpu]``).

Run by tests/test_survey_reproductions.py (the contract is in its docstring):
each entry of :data:`REPRODUCTIONS` calls ``mlx.core`` (or ``mlx.nn``) on the
CPU and raises AssertionError when mlx does what the specification
(docs/backends/mlx.md) requires.  The inputs are the report's examples (or a
smaller call showing the same thing); floats are written as binary32 bit
patterns.  Causes, one function each:

* :func:`not_in_mlx` -- mlx has no function for the operation (the adapter
  declares it unsupported: NotImplementedError on every call);
* :func:`no_parameter` -- an mlx function has no argument for what the plan asks
  (a Float64 accumulator, a descending sort);
* :func:`topk_values_only` -- ``mx.topk`` returns no indices;
* :func:`wraps_int32` -- int32 arithmetic wraps instead of OverflowError;
* :func:`accepts_invalid` -- a call the specification rejects returns a result;
* :func:`raises_other` -- the specification's exception, but of another class;
* :func:`refuses` -- a valid call raises;
* :func:`crashes` -- the call kills the Python process (run in a child process);
* :func:`zero_for_nan` -- elements that must be NaN are not;
* :func:`wrong_bits` -- result bits other than the specification's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import mlx.core as mx
import mlx.nn
import numpy as np

LIBRARY = "mlx"
REPORT = "mlx.json"

NAN, SNAN, INF, NEG_INF = 0x7FC00000, 0x7F800001, 0x7F800000, 0xFF800000
NEG_ZERO, TINY = 0x80000000, 0x00000001  # -0.0; 2**-149


def f32(*bits: int, shape: tuple[int, ...] | None = None) -> Any:
    """A float32 array of these binary32 bit patterns."""
    values = np.array(bits, np.uint32).view(np.float32)
    return mx.array(values.reshape(shape if shape is not None else (len(bits),)))


def f32v(*values: float, shape: tuple[int, ...] | None = None) -> Any:
    """A float32 array of exactly representable values."""
    array = np.array(values, np.float32)
    return mx.array(array.reshape(shape if shape is not None else (len(values),)))


def i32(*values: int, shape: tuple[int, ...] | None = None) -> Any:
    array = np.array(values, np.int32)
    return mx.array(array.reshape(shape if shape is not None else (len(values),)))


def bits_of(array: Any) -> list[int]:
    """The binary32 bit patterns of a float32 result, flattened."""
    return np.array(array, np.float32).reshape(-1).view(np.uint32).tolist()


def _call(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    result = function(*args, **kwargs)
    mx.eval(result)  # mlx is lazy: errors of the computation surface here
    return result


# -- the causes --------------------------------------------------------------------


def not_in_mlx(name: str) -> None:
    """mlx has no function *name* (fmod, exp2)."""
    if hasattr(mx, name):
        raise AssertionError(f"mlx.core.{name} exists now: the operation can be called")


def no_parameter(function: Callable[..., Any], parameter: str) -> None:
    """The mlx function has no *parameter* (dtype for an accumulator, descending): its
    signature, the first line of its docstring (mlx's functions are nanobind
    functions, which ``inspect.signature`` cannot read), does not name it."""
    signature = (function.__doc__ or "").split("\n", 1)[0]
    if not signature.startswith(f"{function.__name__}(") or f" {parameter}:" in signature:
        raise AssertionError(f"{function.__name__} takes {parameter} now: {signature}")


def topk_values_only() -> None:
    """mx.topk returns the values alone: there is no top-k of indices."""
    result = mx.topk(f32v(1, 3, 2), 2)
    if isinstance(result, (tuple, list)) or hasattr(mx, "argtopk"):
        raise AssertionError("mlx now returns the indices of the top k")


def wraps_int32(function: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """int32 arithmetic wraps modulo 2**32: the specification requires OverflowError."""
    try:
        result = _call(function, *args, **kwargs)
    except OverflowError as error:
        raise AssertionError(f"raised OverflowError as required: {error}") from None
    if result.dtype != mx.int32:
        raise AssertionError(f"the result is {result.dtype}, not a wrapped int32")


def accepts_invalid(function: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """A call the specification rejects (bad argument, index, shape) returns a result."""
    try:
        _call(function, *args, **kwargs)
    except Exception as error:
        raise AssertionError(f"raised {type(error).__name__}: {error}") from None


def raises_other(required: type[Exception], function: Callable[..., Any], *args: Any,
                 **kwargs: Any) -> None:  # fmt: skip
    """The call raises, but not the exception class the specification names."""
    try:
        _call(function, *args, **kwargs)
    except required as error:
        raise AssertionError(f"raised {required.__name__} as required: {error}") from None
    except Exception:  # any other class is the deviation
        return
    raise AssertionError(f"returned a result; {required.__name__} is required")


def refuses(function: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """A call the specification defines raises in mlx."""
    try:
        _call(function, *args, **kwargs)
    except Exception:  # raising at all is the deviation
        return
    raise AssertionError("returned a result, as the specification requires")


def crashes(code: str) -> None:
    """Python code calling mlx that kills its process (a signal, not an exception)."""
    done = subprocess.run([sys.executable, "-c", f"import mlx.core as mx\n{code}"],
                          capture_output=True, timeout=120)  # fmt: skip
    if done.returncode >= 0:
        raise AssertionError(f"the process exited with status {done.returncode}, no signal")


def zero_for_nan(function: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """Elements the specification requires to be NaN (a NaN weight times the zeros of the
    padding) are not NaN."""
    result = np.array(_call(function, *args, **kwargs), np.float32)
    if np.isnan(result).all():
        raise AssertionError("every element is NaN, as required")


def wrong_bits(expected: list[int], function: Callable[..., Any], *args: Any,
               **kwargs: Any) -> None:  # fmt: skip
    """The result's binary32 bits are not the specification's (*expected*, from the report)."""
    got = bits_of(_call(function, *args, **kwargs))
    if got == expected:
        raise AssertionError(f"returned the required bits {expected}")


# -- the table ---------------------------------------------------------------------


def _leaky_relu(x: Any) -> Any:
    return mlx.nn.leaky_relu(x, negative_slope=0.01)


#: (class, function, input bits, shape, the correctly rounded bits from the report)
_ROUNDING = (
    ("cos@wrong-value:1-ulp", mx.cos, 0x3F000010, (1,), 0x3F60A939),
    ("cos@wrong-value:many-ulps", mx.cos, 0x4ABFFFFF, (1,), 0x3D4C0F90),
    ("sin@wrong-value:1-ulp", mx.sin, 0x3E800003, (1,), 0x3E7D577C),
    ("sin@wrong-value:many-ulps", mx.sin, 0x4A8000FF, (1,), 0xBD2C00D0),
    ("tanh@wrong-value:1-ulp", mx.tanh, 0x33000001, (1,), 0x33000001),
    ("exp@wrong-value:1-ulp", mx.exp, 0x3F000000, (), 0x3FD3094C),
    ("exp@wrong-value:many-ulps", mx.exp, 0xC0C00000, (), 0x3B227290),  # exp(-6)
    ("exp@wrong-value:overflow", mx.exp, 0xC2CFF1B4, (1,), TINY),  # underflows to 0
    ("exp@wrong-value:subnormal", mx.exp, 0xC2CE0000, (1,), TINY),  # exp(-103)
    ("log@wrong-value:1-ulp", mx.log, 0x3F7FFFFE, (1,), 0xB4000001),
    ("log2@wrong-value:1-ulp", mx.log2, 0x3F7FFFFC, (1,), 0xB4B8AA3D),
    ("rsqrt@wrong-value:1-ulp", mx.rsqrt, 0x00000003, (1,), 0x645105EC),
    ("erf@wrong-value:1-ulp", mx.erf, 0x3E800003, (1,), 0x3E8D7AAA),
    ("erf@wrong-value:many-ulps", mx.erf, 0x3F800000, (), 0x3F57BB3D),
    ("erf@wrong-value:signed-zero", mx.erf, 0x00000000, (), 0x00000000),
    ("erf@wrong-value:subnormal", mx.erf, TINY, (1,), TINY),
    ("sigmoid@wrong-value:1-ulp", mx.sigmoid, 0x3F000000, (), 0x3F1F597F),
    ("sigmoid@wrong-value:many-ulps", mx.sigmoid, 0xBFFFFFFE, (1,), 0x3DF420AD),
    ("sigmoid@wrong-value:subnormal", mx.sigmoid, 0xC1C00000, (1,), 0x2E26083C),  # -24
    ("silu@wrong-value:1-ulp", mlx.nn.silu, 0x3F000000, (), 0x3E9F597F),
    ("silu@wrong-value:many-ulps", mlx.nn.silu, 0xC29C0000, (1,), 0x8A580B8F),  # -78
    ("silu@wrong-value:spurious-nan", mlx.nn.silu, NEG_INF, (1,), NEG_ZERO),
    ("silu@wrong-value:subnormal", mlx.nn.silu, TINY, (), TINY),
    ("softplus@wrong-value:1-ulp", mlx.nn.softplus, 0x3F800000, (), 0x3FA818F5),
    ("softplus@wrong-value:many-ulps", mlx.nn.softplus, 0xC03FFFFC, (1,), 0x3D470394),
    ("softplus@wrong-value:subnormal", mlx.nn.softplus, 0xC2CE0000, (1,), TINY),  # -103
    ("gelu@wrong-value:1-ulp", mlx.nn.gelu, 0x3F800000, (), 0x3F57625F),
    ("gelu@wrong-value:many-ulps", mlx.nn.gelu, 0x33FFFF00, (1,), 0x337FFF02),
    ("gelu@wrong-value:overflow", mlx.nn.gelu, 0x7F000000, (1,), 0x7F000000),
    ("gelu@wrong-value:spurious-nan", mlx.nn.gelu, NEG_INF, (1,), NEG_ZERO),
    ("gelu@wrong-value:subnormal", mlx.nn.gelu, TINY, (1,), TINY),
    ("elu@wrong-value:1-ulp", mlx.nn.elu, 0xB37FFFFF, (1,), 0xB37FFFFF),
    ("elu@wrong-value:many-ulps", mlx.nn.elu, 0xB3000001, (1,), 0xB3000001),
    ("elu@wrong-value:sign", mlx.nn.elu, 0x80800000, (1,), 0x80800000),
    ("elu@wrong-value:signed-zero", mlx.nn.elu, NEG_ZERO, (1,), NEG_ZERO),
    ("elu@wrong-value:subnormal", mlx.nn.elu, 0x80000001, (1,), 0x80000001),
    ("sin@wrong-value:signed-zero", mx.sin, NEG_ZERO, (1,), NEG_ZERO),
    ("sign@wrong-value:nan", mx.sign, 0x7FC00001, (1,), NAN),
)

_HUGE = 2**128  # beyond int64: mlx raises RuntimeError std::bad_cast
_2X3 = f32v(1, 2, 3, 4, 5, 6, shape=(2, 3))
_BAD_AXIS = ("_sort_indices", "_sort_values", "_topk_values", "argmax", "argmin", "cumsum",
             "reduce_max", "reduce_min", "reduce_prod", "reduce_sum")  # fmt: skip
_AXIS_FUNCTIONS = {
    "_sort_indices": mx.argsort, "_sort_values": mx.sort, "argmax": mx.argmax,
    "argmin": mx.argmin, "cumsum": mx.cumsum, "reduce_max": mx.max, "reduce_min": mx.min,
    "reduce_prod": mx.prod, "reduce_sum": mx.sum,
}  # fmt: skip
_FLOAT64_SUM = ("accumulator-dtype", "axis-tuple", "keepdims", "negative-axis", "rank-0",
                "zero-size", "wrong-exception:error-bad-parameter")  # fmt: skip
_NOT_IN_MLX = {
    "rem": (
        "fmod",
        (
            "raises-NotImplementedError",
            "broadcasting",
            "rank-0",
            "zero-size",
            "wrong-exception:error-shape-mismatch",
        ),
    ),
    "exp2": ("exp2", ("raises-NotImplementedError", "rank-0", "zero-size")),
}

#: ``operation@class`` -> a callable that shows the deviation (AssertionError if it does not)
BY_CLASS: dict[str, Callable[[], None]] = {
    # not in mlx: declared unsupported
    **{
        f"{op}@{cls}": partial(not_in_mlx, name)
        for op, (name, classes) in _NOT_IN_MLX.items()
        for cls in classes
    },
    **{
        f"_topk_indices@{cls}": topk_values_only
        for cls in (
            "raises-NotImplementedError",
            "negative-axis",
            "zero-size",
            "wrong-exception:error-bad-axis",
            "wrong-exception:error-bad-parameter",
        )
    },
    # no argument for what the plan asks
    **{f"reduce_sum@{cls}": partial(no_parameter, mx.sum, "dtype") for cls in _FLOAT64_SUM},
    **{
        f"matmul@{cls}": partial(no_parameter, mx.matmul, "dtype")
        for cls in ("accumulator-dtype", "zero-size", "wrong-exception:error-shape-mismatch")
    },
    **{
        f"{op}@wrong-exception:error-bad-parameter": partial(no_parameter, fn, "descending")
        for op, fn in (("_sort_indices", mx.argsort), ("_sort_values", mx.sort))
    },
    # int32 arithmetic wraps
    "add@missing-exception:int32-result-overflow": partial(
        wraps_int32, mx.add, i32(2**31 - 1), i32(1)
    ),
    "sub@missing-exception:int32-result-overflow": partial(
        wraps_int32, mx.subtract, i32(-(2**31)), i32(1)
    ),
    "mul@missing-exception:int32-result-overflow": partial(wraps_int32, mx.multiply, i32(2**30), 2),
    "elementwise_mul@missing-exception:int32-result-overflow": partial(
        wraps_int32, mx.multiply, i32(2**30), i32(2)
    ),
    "pow@missing-exception:int32-result-overflow": partial(wraps_int32, mx.power, i32(2), 31),
    "reduce_sum@missing-exception:int32-result-overflow": partial(
        wraps_int32, mx.sum, i32(2**31 - 1, 1)
    ),
    # an int32 matmul is refused ("Only inexact types are supported")
    "matmul@raises-ValueError": partial(
        refuses, mx.matmul, i32(2**24, shape=(1, 1)), i32(2, shape=(1, 1))
    ),
    "matmul@wrong-exception:int32-result-overflow": partial(
        raises_other,
        OverflowError,
        mx.matmul,
        i32(2**31 - 1, 1, shape=(1, 2)),
        i32(1, 1, shape=(2, 1)),
    ),
    # arguments the specification rejects are accepted
    **{
        f"{op}@missing-exception:error-bad-axis": partial(accepts_invalid, fn, _2X3, axis=True)
        for op, fn in _AXIS_FUNCTIONS.items()
    },
    "_topk_values@missing-exception:error-bad-axis": partial(
        accepts_invalid, mx.topk, _2X3, 1, axis=True
    ),
    "_topk_values@missing-exception:error-bad-parameter": partial(
        accepts_invalid, mx.topk, _2X3, True, axis=-1
    ),
    "gather@missing-exception:error-index-negative": partial(
        accepts_invalid, mx.take, f32v(0), i32(-1), axis=0
    ),
    "gather@missing-exception:error-index-too-large": partial(
        accepts_invalid, mx.take, f32v(15, shape=(1, 1)), i32(4), axis=1
    ),
    "matmul@missing-exception:error-shape-mismatch": partial(
        accepts_invalid, mx.matmul, f32v(1, 2, 3), f32v(1, 2, 3, 4, 5, 6, shape=(3, 2))
    ),
    **{
        f"{op}@missing-exception:error-index-{which}": partial(
            accepts_invalid, fn, f32v(1, 2, 3), i32(index), f32v(10)
        )
        for op, fn in (
            ("scatter", lambda b, i, u: _scatter(b, i, u)),
            ("scatter_add", lambda b, i, u: b.at[i].add(u)),
        )
        for which, index in (("negative", -1), ("too-large", 3))
    },
    "scatter@missing-exception:error-scatter-duplicate": partial(
        accepts_invalid, lambda b, i, u: _scatter(b, i, u), f32v(13, 13), i32(1, 1), f32v(1, 2)
    ),
    # an axis out of range is an IndexError (ValueError required)
    **{
        f"{op}@wrong-exception:error-bad-axis": partial(
            raises_other, ValueError, fn, f32v(0), axis=1
        )
        for op, fn in _AXIS_FUNCTIONS.items()
    },
    "_topk_values@wrong-exception:error-bad-axis": partial(
        raises_other, ValueError, mx.topk, f32v(0), 1, axis=1
    ),
    "gather@wrong-exception:error-bad-axis": partial(
        raises_other, ValueError, mx.take, f32v(1, 2, 3), i32(0), axis=1
    ),
    "clamp@wrong-exception:error-shape-mismatch": partial(
        raises_other, ValueError, mx.clip, f32v(14, 1), f32v(-1, 0, 0, 0), _HUGE
    ),
    # valid calls refused: a Python int beyond int64, empty argmax, empty scatter
    "clamp@rank-0": partial(refuses, mx.clip, f32(0x25800000, shape=()), -_HUGE, 2.00001),
    "clamp@weak-scalar": partial(refuses, mx.clip, f32v(1), _HUGE, 2),
    "clamp@zero-size": partial(refuses, mx.clip, f32v(shape=(0, 2, 2)), _HUGE, -(2**31) - 1),
    "mul@rank-0": partial(refuses, mx.multiply, f32(0x000001F7, shape=()), -_HUGE),
    "mul@weak-scalar": partial(refuses, mx.multiply, f32v(1), _HUGE),
    "pow@rank-0": partial(refuses, mx.power, -_HUGE, f32(0x59F9E3C9, shape=())),
    "pow@weak-scalar": partial(refuses, mx.power, f32v(1), _HUGE),
    "pow@zero-size": partial(refuses, mx.power, _HUGE, f32v(shape=(0, 4))),
    "argmax@zero-size": partial(refuses, mx.argmax, f32v(shape=(2, 0)), axis=0),
    "argmin@zero-size": partial(refuses, mx.argmin, f32v(shape=(2, 0)), axis=0),
    "scatter@zero-size": partial(refuses, lambda b, i, u: _scatter(b, i, u), f32v(), i32(), f32v()),
    "scatter_add@zero-size": partial(
        refuses, lambda b, i, u: b.at[i].add(u), f32v(), i32(), f32v()
    ),
    # the process dies
    "conv_general@crash": partial(
        crashes, "mx.eval(mx.conv_general(mx.ones((1, 3, 2)), mx.ones((2, 2, 1)), groups=0))"
    ),
    "scatter@crash": partial(
        crashes,
        "b = mx.zeros((4, 3, 0))\nb[mx.array(3)] = mx.zeros((3, 0))\nmx.eval(b)",
    ),
    # not correctly rounded, and special values
    **{
        key: partial(wrong_bits, [required], function, f32(x, shape=shape))
        for key, function, x, shape, required in _ROUNDING
    },
    "pow@wrong-value:1-ulp": partial(
        wrong_bits, [0x3CDD2F17], mx.power, f32(0x40555555), f32(0xC0400001)
    ),
    # padding contributes round(0 * w): NaN for a NaN weight (the report's example)
    "conv_general@wrong-value:nan": partial(
        zero_for_nan,
        lambda x, w: mx.moveaxis(
            mx.conv_general(
                mx.moveaxis(x, 1, -1),
                mx.moveaxis(w, 1, -1),
                stride=[2, 1],
                padding=([0, -1], [1, 2]),
                kernel_dilation=[2, 1],
            ),
            -1,
            1,
        ),
        f32(
            NEG_ZERO,
            NEG_ZERO,
            0,
            NEG_ZERO,
            0xFF7FFFFF,
            0x7F7FFFFF,
            0x7F7FFFFF,
            0xFF7FFFFF,
            0,
            NEG_ZERO,
            0,
            0x7F7FFFFF,
            shape=(1, 2, 3, 2),
        ),
        f32(0x7FFFFFFF, 0x7FFFFFFF, shape=(1, 2, 1, 1)),
    ),
    # a product not taken in the specification's order (sequential binary32)
    "reduce_prod@wrong-value:1-ulp": partial(
        wrong_bits,
        [0x3F80129F, 0x3F80164A],
        mx.prod,
        f32(
            0x3F800899,
            0x3F7FFD7C,
            0x3F8006BE,
            0x3F7FF5AF,
            0x3F800417,
            0x3F7FF048,
            0x3F80044E,
            0x3F7FF210,
            0x3F800E38,
            0x3F7FF3FB,
            0x3F80068E,
            0x3F7FF27B,
            0x3F800C41,
            0x3F7FF84F,
            0x3F8007AD,
            0x3F7FF6AF,
            0x3F8003E9,
            0x3F7FFD71,
            0x3F80034A,
            0x3F7FF78D,
            0x3F800D74,
            0x3F7FFF53,
            0x3F800B72,
            0x3F7FF17D,
            shape=(3, 2, 4),
        ),
        axis=(0, 2),
        keepdims=True,
    ),
    "reduce_prod@wrong-value:many-ulps": partial(
        wrong_bits,
        [0x3F801CB0, 0x3F80183F],
        mx.prod,
        f32(
            0x3F8002C8,
            0x3F7FF823,
            0x3F8008F6,
            0x3F7FFE42,
            0x3F800D57,
            0x3F7FFF08,
            0x3F800427,
            0x3F7FF22C,
            0x3F8003C2,
            0x3F7FF71E,
            0x3F800F37,
            0x3F7FF2AB,
            0x3F800081,
            0x3F7FF7E8,
            0x3F800440,
            0x3F7FFF30,
            0x3F800965,
            0x3F7FF684,
            0x3F800FC6,
            0x3F7FF2EC,
            0x3F800DBC,
            0x3F7FFA4C,
            0x3F80046E,
            0x3F7FFD14,
            shape=(3, 2, 4),
        ),
        axis=(-1, 0),
    ),
    # signed zeros
    "maximum@wrong-value:signed-zero": partial(wrong_bits, [0], mx.maximum, f32(0), f32(NEG_ZERO)),
    "minimum@wrong-value:signed-zero": partial(
        wrong_bits, [NEG_ZERO], mx.minimum, f32(NEG_ZERO, shape=()), f32(0, shape=())
    ),
    "clamp@wrong-value:signed-zero": partial(wrong_bits, [0], mx.clip, f32(0), -0.0, 2),
    "reduce_max@wrong-value:signed-zero": partial(wrong_bits, [0], mx.max, f32(NEG_ZERO, 0)),
    "reduce_min@wrong-value:signed-zero": partial(wrong_bits, [NEG_ZERO], mx.min, f32(0, NEG_ZERO)),
    "cumsum@wrong-value:signed-zero": partial(
        wrong_bits, [0, 0], mx.cumsum, f32(NEG_ZERO, NEG_ZERO), axis=0
    ),
    # NaN payloads: a signalling NaN quietened
    "reduce_max@wrong-value:nan-bits": partial(wrong_bits, [SNAN], mx.max, f32(SNAN, 0x3F800000)),
    "reduce_min@wrong-value:nan-bits": partial(wrong_bits, [SNAN], mx.min, f32(SNAN, 0x3F800000)),
    # mx.topk: "the elements will not necessarily be in sorted order"
    **{
        f"_topk_values@wrong-value:{cls}": partial(
            wrong_bits,
            [0x40E00000, TINY, 0xC0E00000],
            mx.topk,
            f32(TINY, 0xC0E00000, 0x40E00000),
            3,
        )
        for cls in (
            "infinity",
            "many-ulps",
            "nan",
            "nan-bits",
            "overflow",
            "sign",
            "spurious-nan",
            "subnormal",
            "zero",
        )
    },
    "_topk_values@wrong-value:signed-zero": partial(wrong_bits, [0], mx.topk, f32(0, NEG_ZERO), 1),
}


def _scatter(base: Any, indices: Any, updates: Any) -> Any:
    out = mx.array(base)
    out[indices] = updates
    return out


# -- classes of the re-measured report (issue 27's spellings) with no earlier class
BY_CLASS |= {
    **{
        f"{op}@wrong-exception:convention": partial(
            raises_other, ValueError, mx.moveaxis, f32v(1, 2, 3), 1, 0
        )  # the adapter moves the scatter axis first: an axis out of range is IndexError
        for op in ("scatter", "scatter_add")
    },
    "matmul@wrong-value:outside-interval": partial(
        wrong_bits,
        [0],  # the only value the Float64 accumulation of the binary32 products accepts
        lambda a, b: mx.matmul(a.astype(mx.float64), b.astype(mx.float64)).astype(mx.float32),
        f32(0xBF800002, 0x3F800001, shape=(1, 2)),
        f32(0x3F800000, 0x3F800001, shape=(2, 1)),
    ),
}


#: classes of the report no call of mlx alone shows, with why (the survey prints them as
#: not reproduced alone; tests/test_survey_reproductions.py accepts nothing else)
NOT_ALONE: dict[str, str] = {
    "reduce_prod@hang": (
        "an empty reduction (mx.prod or mx.sum of Float32[0]) timed out after 10 s inside "
        "the run's boundary examples: reduce_prod in two full runs and with --op "
        "reduce_prod alone, reduce_sum instead in a third run (with --xfail), so it is "
        "nondeterministic; alone, after the same axis errors and in a thread, the empty "
        "product returns 1.0 at once"
    ),
}

#: issue 27 folded classes into one (``wrong-value:accuracy`` for 1-ulp, many-ulps and
#: subnormal elements of a correctly rounded operation; ``wrong-exception:convention``
#: for every exception type that is plancheck's convention; ``shape-or-dtype`` split):
#: a class of the re-measured report -> the class of the earlier report whose
#: reproduction (above) shows it
FOLDED: dict[str, str] = {
    "conv_general@conv-negative-padding": "conv_general@wrong-value:nan",
    "_sort_indices@wrong-exception:convention": "_sort_indices@wrong-exception:error-bad-axis",
    "_sort_values@wrong-exception:convention": "_sort_values@wrong-exception:error-bad-axis",
    "_topk_values@wrong-exception:convention": "_topk_values@wrong-exception:error-bad-axis",
    "argmax@wrong-exception:convention": "argmax@wrong-exception:error-bad-axis",
    "argmin@wrong-exception:convention": "argmin@wrong-exception:error-bad-axis",
    "clamp@raises-RuntimeError": "clamp@zero-size",
    "clamp@wrong-exception:convention": "clamp@wrong-exception:error-shape-mismatch",
    "cos@wrong-value:accuracy": "cos@wrong-value:1-ulp",
    "cumsum@wrong-exception:convention": "cumsum@wrong-exception:error-bad-axis",
    "elu@wrong-value:accuracy": "elu@wrong-value:1-ulp",
    "erf@wrong-value:accuracy": "erf@wrong-value:1-ulp",
    "exp@wrong-value:accuracy": "exp@wrong-value:1-ulp",
    "gather@wrong-exception:convention": "gather@wrong-exception:error-bad-axis",
    "gelu@wrong-value:accuracy": "gelu@wrong-value:1-ulp",
    "log2@wrong-value:accuracy": "log2@wrong-value:1-ulp",
    "log@wrong-value:accuracy": "log@wrong-value:1-ulp",
    "mul@raises-RuntimeError": "mul@weak-scalar",
    "pow@raises-RuntimeError": "pow@zero-size",
    "pow@wrong-value:accuracy": "pow@wrong-value:1-ulp",
    "reduce_max@wrong-exception:convention": "reduce_max@wrong-exception:error-bad-axis",
    "reduce_min@wrong-exception:convention": "reduce_min@wrong-exception:error-bad-axis",
    "reduce_prod@wrong-exception:convention": "reduce_prod@wrong-exception:error-bad-axis",
    "reduce_sum@wrong-exception:convention": "reduce_sum@wrong-exception:error-bad-axis",
    "rsqrt@wrong-value:accuracy": "rsqrt@wrong-value:1-ulp",
    "scatter@raises-ValueError": "scatter@zero-size",
    "scatter_add@raises-ValueError": "scatter_add@zero-size",
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
