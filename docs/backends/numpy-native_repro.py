"""Every deviation class of docs/backends/numpy-native.json, reproduced with numpy alone.

Run ``pytest tests/test_survey_reproductions.py`` (or call a reproduction
yourself: ``REPRODUCTIONS["add@missing-exception:int32-result-overflow"]()``
raises AssertionError when numpy does what the specification requires).
Each reproduction takes its class's minimal example from the report -- the
input bits -- and calls numpy's own float32/int32 functions the way a numpy
user writes them (``repro_common.namespace_calls`` with ``xp = numpy``, under
``numpy.errstate(all="ignore")`` as measured; ``scipy.special.erf`` for erf,
numpy having none), then checks the cause (``repro_common.py``).
"""

from __future__ import annotations

import math
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from typing import Any

import numpy as np
import scipy.special
from numpy.lib.stride_tricks import sliding_window_view

LIBRARY = "numpy"
REPORT = "numpy-native.json"


#: repro_common.py beside this file (numpy, mpmath, the standard library), loaded by path
common = module_from_spec(
    spec_from_file_location("repro_common", Path(__file__).with_name("repro_common.py"))
)
common.__spec__.loader.exec_module(common)
_INV_SQRT2 = np.float32(1 / math.sqrt(2))


def _gelu(x: np.ndarray) -> np.ndarray:
    half, one = np.float32(0.5), np.float32(1)
    return half * x * (one + scipy.special.erf(x * _INV_SQRT2))


def _scatter(base: np.ndarray, where: tuple[Any, ...], updates: np.ndarray) -> np.ndarray:
    out = base.copy()
    out[where] = updates
    return out


def _scatter_add(base: np.ndarray, where: tuple[Any, ...], updates: np.ndarray) -> np.ndarray:
    out = base.copy()
    np.add.at(out, where, updates)
    return out


def _conv(
    lhs: np.ndarray,
    rhs: np.ndarray,
    strides: Any = None,
    padding: Any = None,
    lhs_dilation: Any = None,
    rhs_dilation: Any = None,
    groups: int = 1,
) -> np.ndarray:
    """numpy has no convolution: windows by ``sliding_window_view`` and one
    ``tensordot`` (BLAS sgemm) per group over (input channel, window position)."""
    spatial = lhs.ndim - 2
    strides, lhs_dilation, rhs_dilation = (
        tuple(v or (1,) * spatial) for v in (strides, lhs_dilation, rhs_dilation)
    )
    x = common.spread_and_pad(lhs, lhs_dilation, padding)
    spans = tuple((k - 1) * r + 1 for k, r in zip(rhs.shape[2:], rhs_dilation))
    view = sliding_window_view(x, spans, axis=tuple(range(2, 2 + spatial)))
    view = view[
        (
            slice(None),
            slice(None),
            *(slice(None, None, s) for s in strides),
            *(slice(None, None, r) for r in rhs_dilation),
        )
    ]
    axes = ([1, *range(2 + spatial, 2 + 2 * spatial)], [1, *range(2, 2 + spatial)])
    parts = [
        np.moveaxis(np.tensordot(v, w, axes=axes), -1, 1)
        for v, w in zip(np.split(view, groups, axis=1), np.split(rhs, groups, axis=0))
    ]
    return np.concatenate(parts, axis=1)


def _sort(x: np.ndarray, axis: int, descending: Any, values: bool) -> np.ndarray:
    """Stable ascending sort; descending is its ``numpy.flip`` (ties come out reversed)."""
    result = (
        np.sort(x, axis=axis, kind="stable")
        if values
        else (np.argsort(x, axis=axis, kind="stable").astype(np.int32))
    )
    return np.flip(result, axis=axis) if descending else result


def _topk(x: np.ndarray, k: int, axis: int, largest: Any, values: bool) -> np.ndarray:
    """The first k of the stable order (flipped for the largest)."""
    order = np.argsort(x, axis=axis, kind="stable")
    if largest:
        order = np.flip(order, axis=axis)
    first = np.moveaxis(np.moveaxis(order, axis, -1)[..., :k], -1, axis)
    return np.take_along_axis(x, first, axis=axis) if values else first.astype(np.int32)


_HOOKS = {
    **common.formula_hooks(np),
    "erf": scipy.special.erf,
    "gelu": _gelu,
    "matmul_float64": lambda a, b: np.matmul(a, b, dtype=np.float64).astype(np.float32),
    "scatter": _scatter,
    "scatter_add": _scatter_add,
    "conv": _conv,
    "sort": _sort,
    "topk": _topk,
}


def _quiet(call: Any) -> Any:
    def quiet_call(*args: Any) -> Any:
        with np.errstate(all="ignore"):
            return call(*args)

    return quiet_call


#: operation -> numpy's call for a plan and the decoded arguments
CALLS = {op: _quiet(call) for op, call in common.namespace_calls(np, np.asarray, _HOOKS).items()}

#: every class of the report, by kind (repro_common.cause_of reads the cause off the spelling)
PUBLISHED: list[str] = [
    # missing exception
    "_topk_indices@missing-exception:error-bad-parameter",
    "_topk_values@missing-exception:error-bad-parameter",
    "add@missing-exception:int32-result-overflow",
    "conv_general@missing-exception:error-conv-parameter-range",
    "conv_general@missing-exception:error-conv-rank",
    "cumsum@missing-exception:error-bad-axis",
    "elementwise_mul@missing-exception:int32-result-overflow",
    "gather@missing-exception:error-index-negative",
    "matmul@missing-exception:error-shape-mismatch",
    "matmul@missing-exception:int32-result-overflow",
    "mul@missing-exception:int32-result-overflow",
    "pow@missing-exception:int32-result-overflow",
    "reduce_max@missing-exception:error-bad-parameter",
    "reduce_min@missing-exception:error-bad-parameter",
    "reduce_prod@missing-exception:error-bad-parameter",
    "reduce_sum@missing-exception:error-bad-parameter",
    "reduce_sum@missing-exception:int32-result-overflow",
    "scatter@missing-exception:error-index-negative",
    "scatter@missing-exception:error-scatter-duplicate",
    "scatter_add@missing-exception:error-index-negative",
    "sub@missing-exception:int32-result-overflow",
    # wrong exception
    "conv_general@wrong-exception:convention",
    # wrong value
    "_topk_indices@wrong-value:integer",
    "_topk_values@wrong-value:nan-bits",
    "_topk_values@wrong-value:signed-zero",
    "clamp@wrong-value:1-ulp",
    "clamp@wrong-value:signed-zero",
    "conv_general@wrong-value:1-ulp",
    "conv_general@wrong-value:infinity",
    "conv_general@wrong-value:many-ulps",
    "conv_general@wrong-value:zero",
    "cos@wrong-value:accuracy",
    "cumsum@wrong-value:signed-zero",
    "elu@wrong-value:accuracy",
    "exp2@wrong-value:accuracy",
    "exp@wrong-value:accuracy",
    "gelu@wrong-value:accuracy",
    "gelu@wrong-value:spurious-nan",
    "log2@wrong-value:accuracy",
    "log@wrong-value:accuracy",
    "matmul@wrong-value:outside-interval",
    "maximum@wrong-value:signed-zero",
    "minimum@wrong-value:signed-zero",
    "mul@wrong-value:1-ulp",
    "mul@wrong-value:many-ulps",
    "pow@wrong-value:accuracy",
    "pow@wrong-value:exact-point",
    "pow@wrong-value:signed-zero",
    "pow@wrong-value:spurious-nan",
    "reduce_max@wrong-value:nan-bits",
    "reduce_max@wrong-value:signed-zero",
    "reduce_min@wrong-value:nan-bits",
    "reduce_min@wrong-value:signed-zero",
    "rsqrt@wrong-value:accuracy",
    "sigmoid@wrong-value:accuracy",
    "silu@wrong-value:accuracy",
    "silu@wrong-value:spurious-nan",
    "sin@wrong-value:accuracy",
    "softplus@wrong-value:accuracy",
    "tanh@wrong-value:accuracy",
    # other
    "conv_general@conv-negative-padding",
]

REPRODUCTIONS = common.reproductions(REPORT, PUBLISHED, CALLS, np.asarray)

if __name__ == "__main__":
    raise SystemExit(common.main(REPRODUCTIONS))
