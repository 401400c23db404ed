"""Every deviation class of array-api-strict.json, reproduced with array-api-strict alone.

Run by tests/test_survey_reproductions.py (the contract is in its docstring):
each entry of :data:`REPRODUCTIONS` calls ``array_api_strict`` 2.6.1 (the
array API standard 2025.12) and raises AssertionError when the library does
what the specification (docs/backends/array-api-strict.md) requires.  The
inputs are the report's examples (or a smaller call showing the same thing);
floats are written as their binary32 bit patterns.  Causes, one function each:

* :func:`not_in_standard` -- the namespace has no function for the operation
  (the adapter declares it unsupported: NotImplementedError on every call);
* :func:`no_accumulator_argument` -- ``matmul`` takes no dtype, so a Float64
  accumulator cannot be asked for;
* :func:`wraps_int32` -- int32 arithmetic wraps instead of OverflowError;
* :func:`accepts_invalid` -- a call the specification rejects returns a result;
* :func:`raises_other` -- the specification's exception, but of another class;
* :func:`refuses` -- a valid call raises (strict's own limits of the standard);
* :func:`wrong_bits` -- result bits other than the specification's (not correctly
  rounded, signed zeros, NaN payloads, a weak int rounded twice, fused products).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import array_api_strict as xp
import numpy as np

LIBRARY = "array_api_strict"
REPORT = "array-api-strict.json"

NAN, SNAN, INF = 0x7FC00000, 0x7F800001, 0x7F800000
NEG_ZERO, TINY = 0x80000000, 0x00000001  # -0.0; 2**-149


def f32(*bits: int, shape: tuple[int, ...] | None = None) -> Any:
    """A float32 array of these binary32 bit patterns (shape () for one pattern and
    ``shape=()``)."""
    values = np.array(bits, np.uint32).view(np.float32)
    return xp.asarray(values.reshape(shape if shape is not None else (len(bits),)))


def f32v(*values: float, shape: tuple[int, ...] | None = None) -> Any:
    """A float32 array of exactly representable values."""
    array = np.array(values, np.float32)
    return xp.asarray(array.reshape(shape if shape is not None else (len(values),)))


def i32(*values: int, shape: tuple[int, ...] | None = None) -> Any:
    array = np.array(values, np.int32)
    return xp.asarray(array.reshape(shape if shape is not None else (len(values),)))


def bits_of(array: Any) -> list[int]:
    """The binary32 bit patterns of a float32 result, flattened."""
    return np.from_dlpack(array).astype(np.float32).reshape(-1).view(np.uint32).tolist()


def _hex(bits: list[int]) -> str:
    return "[" + ", ".join(f"0x{b:08X}" for b in bits) + "]"


# -- the causes --------------------------------------------------------------------


def not_in_standard(keyword: str) -> None:
    """The standard has no function for the operation: no name of the namespace has *keyword*."""
    names = [name for name in dir(xp) if keyword in name.lower()]
    if names:
        raise AssertionError(f"array_api_strict now has {names}: the operation can be called")


def no_accumulator_argument() -> None:
    """The standard's matmul has no dtype (accumulator) parameter."""
    parameters = inspect.signature(xp.matmul).parameters
    if "dtype" in parameters:
        raise AssertionError("xp.matmul takes a dtype now: a Float64 accumulator can be requested")


def wraps_int32(function: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """int32 arithmetic wraps modulo 2**32: the specification requires OverflowError."""
    try:
        result = function(*args, **kwargs)
    except OverflowError as error:
        raise AssertionError(f"raised OverflowError as required: {error}") from None
    if not np.from_dlpack(result).dtype == np.int32:
        raise AssertionError(f"the result is {result.dtype}, not a wrapped int32")


def accepts_invalid(function: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """A call the specification rejects (bad argument, index, shape) returns a result."""
    try:
        function(*args, **kwargs)
    except Exception as error:
        raise AssertionError(f"raised {type(error).__name__}: {error}") from None


def raises_other(required: type[Exception], function: Callable[..., Any], *args: Any,
                 **kwargs: Any) -> None:  # fmt: skip
    """The call raises, but not the exception class the specification names."""
    try:
        function(*args, **kwargs)
    except required as error:
        raise AssertionError(f"raised {required.__name__} as required: {error}") from None
    except Exception:  # any other class is the deviation
        return
    raise AssertionError(f"returned a result; {required.__name__} is required")


def refuses(function: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """A call the specification defines raises in array-api-strict."""
    try:
        function(*args, **kwargs)
    except Exception:  # raising at all is the deviation
        return
    raise AssertionError("returned a result, as the specification requires")


def wrong_bits(expected: list[int], function: Callable[..., Any], *args: Any,
               **kwargs: Any) -> None:  # fmt: skip
    """The result's binary32 bits are not the specification's (*expected*, from the report)."""
    got = bits_of(function(*args, **kwargs))
    if got == expected:
        raise AssertionError(f"returned the required bits {_hex(expected)}")


# -- the table ---------------------------------------------------------------------

_RAISES = ("raises-NotImplementedError", "rank-0", "zero-size")
_TOPK = (
    *_RAISES[::2],
    "negative-axis",
    "topk-smallest",
    "wrong-exception:error-bad-axis",
    "wrong-exception:error-bad-parameter",
)
_SCATTER = (
    *_RAISES,
    "negative-axis",
    "wrong-exception:error-bad-axis",
    "wrong-exception:error-index-negative",
    "wrong-exception:error-index-too-large",
    "wrong-exception:error-shape-mismatch",
)
_CONV = (
    "raises-NotImplementedError",
    "zero-size",
    "conv-2d",
    "conv-groups",
    "conv-lhs-dilation",
    "conv-padding",
    "conv-rhs-dilation",
    "conv-stride",
    "wrong-exception:error-shape-mismatch",
)
#: operation -> (a word every name of a function for it would hold, its classes: every
#: call raises NotImplementedError, so a class is named by the first feature of its calls)
_NOT_IN_STANDARD: dict[str, tuple[str, tuple[str, ...]]] = {
    "_topk_indices": ("top", _TOPK),
    "_topk_values": ("top", (*_TOPK, "signalling-nan")),
    "conv_general": ("conv", _CONV),
    "rem": ("fmod", (*_RAISES, "broadcasting", "wrong-exception:error-shape-mismatch")),
    "scatter": ("scatter", (*_SCATTER, "signalling-nan",
                            "wrong-exception:error-scatter-duplicate")),
    "scatter_add": ("scatter", _SCATTER),
    **{op: (op, _RAISES)
       for op in ("elu", "erf", "exp2", "gelu", "leaky_relu", "relu", "rsqrt", "sigmoid", "silu",
                  "softplus")},
}  # fmt: skip

#: (class, function, input bits, shape, the correctly rounded bits from the report)
_NOT_CORRECTLY_ROUNDED = (
    ("cos@wrong-value:1-ulp", xp.cos, 0x3E800004, (1,), 0x3F780AA4),
    ("sin@wrong-value:1-ulp", xp.sin, 0x3F800000, (), 0x3F576AA4),
    ("tanh@wrong-value:1-ulp", xp.tanh, 0x3F000000, (), 0x3EEC9A9F),
    ("exp@wrong-value:1-ulp", xp.exp, 0x3F800000, (), 0x402DF854),
    ("exp@wrong-value:many-ulps", xp.exp, 0x3FE00000, (1,), 0x40B825B5),
    ("log@wrong-value:1-ulp", xp.log, 0x00800007, (1,), 0xC2AEAC4F),
    ("log@wrong-value:many-ulps", xp.log, 0x3F810000, (1,), 0x3BFF0153),
    ("log2@wrong-value:1-ulp", xp.log2, 0x3EA00000, (1,), 0xBFD6CB0F),
)

_INT32_MAX, _INT32_MIN = 2**31 - 1, -(2**31)
_WEAK = 18014399583223809  # 2**54 + 2**30 + 1: correctly rounded 0x5A800001; through float64, 2**54
_HUGE = 2**100  # beyond int64
_2X3 = f32v(1, 2, 3, 4, 5, 6, shape=(2, 3))
_SORTED = {"descending": True, "stable": True}
_MATRIX = f32(0xC07B7542, 0xBF5C997F, 0xC06CCE3C, 0x3F9ABEAB, shape=(2, 2))
_INT_MATRIX = xp.astype(i32(657272, 201950, 263842, 965667, shape=(2, 2)), xp.float32)
#: -2809799.75, -1625599.75, -2112994.0, 420204.3125: each product rounded, then summed
_MATMUL_REQUIRED = [0xCA2B7F1F, 0xC9C66FFE, 0xCA00F788, 0x48CD2D8A]

#: ``operation@class`` -> a callable that shows the deviation (AssertionError if it does not)
BY_CLASS: dict[str, Callable[[], None]] = {
    # not in the standard: declared unsupported (every class of the operation)
    **{
        f"{op}@{cls}": partial(not_in_standard, keyword)
        for op, (keyword, classes) in _NOT_IN_STANDARD.items()
        for cls in classes
    },
    **dict.fromkeys(
        (
            "matmul@accumulator-dtype",
            "matmul@zero-size",
            "matmul@wrong-exception:error-shape-mismatch",
        ),
        no_accumulator_argument,
    ),
    # int32 arithmetic wraps
    "add@missing-exception:int32-result-overflow": partial(
        wraps_int32, xp.add, i32(_INT32_MAX), i32(1)
    ),
    "sub@missing-exception:int32-result-overflow": partial(
        wraps_int32, xp.subtract, i32(_INT32_MIN), i32(1)
    ),
    "mul@missing-exception:int32-result-overflow": partial(wraps_int32, xp.multiply, i32(2**30), 2),
    "elementwise_mul@missing-exception:int32-result-overflow": partial(
        wraps_int32, xp.multiply, i32(2**30), i32(2)
    ),
    "pow@missing-exception:int32-result-overflow": partial(wraps_int32, xp.pow, i32(2), 31),
    "matmul@missing-exception:int32-result-overflow": partial(
        wraps_int32, xp.matmul, i32(_INT32_MAX, 1, shape=(1, 2)), i32(1, 1, shape=(2, 1))
    ),
    "reduce_sum@missing-exception:int32-result-overflow": partial(
        wraps_int32, xp.sum, i32(_INT32_MAX, 1), dtype=xp.int32
    ),
    # arguments the specification rejects are accepted
    "_sort_indices@missing-exception:error-bad-parameter": partial(
        accepts_invalid, xp.argsort, f32v(1, 2, 3), axis=0, descending=1
    ),
    "_sort_values@missing-exception:error-bad-parameter": partial(
        accepts_invalid, xp.sort, f32v(1, 2, 3), axis=0, descending=1
    ),
    "_sort_values@missing-exception:error-bad-axis": partial(
        accepts_invalid, xp.sort, _2X3, axis=True
    ),
    **{
        f"reduce_{name}@missing-exception:error-bad-parameter": partial(
            accepts_invalid, function, f32v(1, 2), axis=None, keepdims=1
        )
        for name, function in (("max", xp.max), ("min", xp.min), ("prod", xp.prod), ("sum", xp.sum))
    },
    "gather@missing-exception:error-index-negative": partial(
        accepts_invalid, xp.take, f32v(0), i32(-1), axis=0
    ),
    "matmul@missing-exception:error-shape-mismatch": partial(
        accepts_invalid, xp.matmul, f32v(1, 2, 3), f32v(1, 2, 3, 4, 5, 6, shape=(3, 2))
    ),
    # the wrong exception class
    "cumsum@wrong-exception:error-bad-axis": partial(
        raises_other, TypeError, xp.cumulative_sum, _2X3, axis=None
    ),
    "clamp@wrong-exception:error-shape-mismatch": partial(
        raises_other, ValueError, xp.clip, f32v(14, 1), f32v(-1, 0, 0, 0), _HUGE
    ),
    # valid calls refused: min > max, a Python int beyond int64, indices not 1-d,
    # logical_not of a float, a Python bool beside a float array
    "clamp@raises-ValueError": partial(refuses, xp.clip, f32(0), f32(0), f32(0x80000001)),
    "clamp@broadcasting": partial(
        refuses, xp.clip, f32(0x000006BC, shape=(1, 1)), 5.633618407849984e16, f32(TINY)
    ),
    "clamp@weak-scalar": partial(refuses, xp.clip, f32(NEG_ZERO), 2, 0),
    "clamp@rank-0": partial(refuses, xp.clip, f32(0x25800000, shape=()), -_HUGE, 2.00001),
    "clamp@zero-size": partial(refuses, xp.clip, f32v(shape=(0, 2, 2)), _HUGE, _INT32_MIN - 1),
    "gather@negative-axis": partial(
        refuses, xp.take, f32v(-3, 1, -6, 0), i32(1, 1, 0, shape=(1, 3)), axis=-1
    ),
    "gather@rank-0": partial(refuses, xp.take, f32v(0), i32(0, shape=()), axis=0),
    "gather@zero-size": partial(
        refuses, xp.take, f32v(shape=(0, 1, 2)), i32(shape=(2, 0)), axis=-2
    ),
    "logical_not@raises-TypeError": partial(refuses, xp.logical_not, f32v(-2)),
    "logical_not@rank-0": partial(refuses, xp.logical_not, f32v(1, shape=())),
    "logical_not@zero-size": partial(refuses, xp.logical_not, f32v()),
    "mul@weak-scalar": partial(refuses, xp.multiply, f32v(1), True),
    "mul@rank-0": partial(refuses, xp.multiply, f32(0x00F4F061, shape=()), False),
    "mul@zero-size": partial(refuses, xp.multiply, xp.astype(i32(), xp.float32), False),
    "pow@weak-scalar": partial(refuses, xp.pow, f32v(1), True),
    "pow@zero-size": partial(refuses, xp.pow, f32v(shape=(0, 2, 3)), True),
    # not correctly rounded
    **{
        key: partial(wrong_bits, [required], function, f32(x, shape=shape))
        for key, function, x, shape, required in _NOT_CORRECTLY_ROUNDED
    },
    "pow@wrong-value:subnormal": partial(
        wrong_bits, [0x0055558F], xp.pow, f32(0x00555555), f32(0x3F7FFFFE)
    ),
    # a weak int rounded twice (int -> float64 -> float32)
    "mul@wrong-value:1-ulp": partial(wrong_bits, [0x5A800001], xp.multiply, f32v(1), _WEAK),
    "mul@wrong-value:many-ulps": partial(
        wrong_bits,
        [0x4865500A],
        xp.multiply,
        f32(0x20E4F91B, shape=()),
        605359414363537467637761,
    ),
    "pow@wrong-value:1-ulp": partial(wrong_bits, [0x5A800001], xp.pow, _WEAK, f32v(1)),
    "pow@wrong-value:many-ulps": partial(wrong_bits, [0x75800002], xp.pow, _WEAK, f32v(2)),
    # pow(x, 0.5) is taken as a square root: sqrt(-0) = -0, sqrt(-inf) = NaN
    "pow@wrong-value:signed-zero": partial(wrong_bits, [0], xp.pow, f32(NEG_ZERO), 0.5),
    "pow@wrong-value:spurious-nan": partial(wrong_bits, [INF], xp.pow, f32(0xFF800000), 0.5),
    # matmul does not round each product to binary32 before the sum (FMA)
    "matmul@wrong-value:outside-interval": partial(
        wrong_bits, _MATMUL_REQUIRED, xp.matmul, _MATRIX, _INT_MATRIX
    ),
    # signed zeros: -0 < +0 not honoured, or a sum started from -0
    "maximum@wrong-value:signed-zero": partial(wrong_bits, [0], xp.maximum, f32(0), f32(NEG_ZERO)),
    "minimum@wrong-value:signed-zero": partial(
        wrong_bits, [NEG_ZERO], xp.minimum, f32(NEG_ZERO, shape=()), f32(0, shape=())
    ),
    "clamp@wrong-value:signed-zero": partial(wrong_bits, [0], xp.clip, f32(NEG_ZERO), 0, 2),
    "reduce_max@wrong-value:signed-zero": partial(wrong_bits, [0], xp.max, f32(0, NEG_ZERO)),
    "reduce_min@wrong-value:signed-zero": partial(wrong_bits, [NEG_ZERO], xp.min, f32(NEG_ZERO, 0)),
    "cumsum@wrong-value:signed-zero": partial(
        wrong_bits, [0, 0], xp.cumulative_sum, f32(NEG_ZERO, NEG_ZERO), axis=0
    ),
    "_sort_values@wrong-value:signed-zero": partial(
        wrong_bits, [0, NEG_ZERO], xp.sort, f32(0, NEG_ZERO), **_SORTED
    ),
    # NaN payloads: a signalling NaN quietened; equal NaNs reordered by a descending sort
    "reduce_max@wrong-value:nan-bits": partial(wrong_bits, [SNAN], xp.max, f32(SNAN, 0x3F800000)),
    "reduce_min@wrong-value:nan-bits": partial(wrong_bits, [SNAN], xp.min, f32(SNAN, 0x3F800000)),
    "_sort_values@wrong-value:nan-bits": partial(
        wrong_bits,
        [NAN, NAN + 1, 0x3F800000, 0x3F000000],
        xp.sort,
        f32(0x3F800000, NAN, 0x3F000000, NAN + 1),
        **_SORTED,
    ),
}


# -- classes of the re-measured report (issue 27's spellings) with no earlier class
BY_CLASS |= {
    # a bool where the plan has a weak Float32 bound: clip refuses it
    "clamp@raises-TypeError": partial(refuses, xp.clip, f32v(1), True, 2),
}


#: issue 27 folded classes into one (``wrong-value:accuracy`` for 1-ulp, many-ulps and
#: subnormal elements of a correctly rounded operation; ``wrong-exception:convention``
#: for every exception type that is plancheck's convention; ``shape-or-dtype`` split):
#: a class of the re-measured report -> the class of the earlier report whose
#: reproduction (above) shows it
FOLDED: dict[str, str] = {
    "clamp@raises-OverflowError": "clamp@zero-size",
    "clamp@wrong-exception:convention": "clamp@raises-ValueError",
    "cos@wrong-value:accuracy": "cos@wrong-value:1-ulp",
    "cumsum@wrong-exception:convention": "cumsum@wrong-exception:error-bad-axis",
    "exp@wrong-value:accuracy": "exp@wrong-value:1-ulp",
    "gather@raises-ValueError": "gather@zero-size",
    "log2@wrong-value:accuracy": "log2@wrong-value:1-ulp",
    "log@wrong-value:accuracy": "log@wrong-value:1-ulp",
    "mul@raises-TypeError": "mul@zero-size",
    "pow@raises-TypeError": "pow@zero-size",
    "pow@wrong-value:accuracy": "pow@wrong-value:1-ulp",
    "pow@wrong-value:exact-point": "pow@wrong-value:1-ulp",
    "sin@wrong-value:accuracy": "sin@wrong-value:1-ulp",
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
