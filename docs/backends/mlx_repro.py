"""Every deviation class of docs/backends/mlx.json, reproduced with mlx alone
(mlx 0.32.4, ``mlx[cpu]``).

Run ``python docs/backends/mlx_repro.py`` (prints each class and whether it
reproduced; exit status 1 when one did not) or ``pytest
tests/test_survey_reproductions.py``, or call a reproduction yourself:
``REPRODUCTIONS["add@missing-exception:int32-result-overflow"]()`` raises
AssertionError when mlx does what the specification requires.  Each reproduction
takes its class's minimal example from the report -- the input bits, exactly as
printed -- and calls ``mlx.core`` the way an mlx user writes it
(``repro_common.namespace_calls`` with ``xp = mlx.core``, ``mx.round`` for rint),
mlx's own ``mx.sigmoid``, ``mx.rsqrt``, ``mx.erf`` and ``mlx.nn`` activations,
``mx.conv_general`` channels-last, ``mx.sort``/``mx.argsort``, ``mx.topk``, scatter
as ``out[..., i] = u`` and ``base.at[..., i].add(u)``; a Float64 accumulator as
mlx's own float64 (``astype(mx.float64)``, then back); every result evaluated
(``mx.eval``) inside the call, mlx's default device (the CPU) and defaults
untouched, as the report's configuration records.  Then the cause is checked
(``repro_common.py``); a class whose call kills the process (``crash``) runs in a
child Python process.

mlx has no ``fmod`` (rem), no ``exp2`` and no top-k indices, and ``mx.sort`` /
``mx.topk`` have no descending / smallest argument: those calls are not measured,
so they have no class here and no call.  :data:`NOT_ALONE` names the class no call
of mlx alone shows, with why.
"""

from __future__ import annotations

from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from typing import Any

import mlx.core as mx
import mlx.nn
import numpy as np

LIBRARY = "mlx"
REPORT = "mlx.json"


#: repro_common.py beside this file (numpy, mpmath, the standard library), loaded by path
common = module_from_spec(
    spec_from_file_location("repro_common", Path(__file__).with_name("repro_common.py"))
)
common.__spec__.loader.exec_module(common)


def _scatter(base: Any, where: tuple[Any, ...], updates: Any) -> Any:
    out = mx.array(base)
    out[where] = updates
    return out


def _scatter_add(base: Any, where: tuple[Any, ...], updates: Any) -> Any:
    return base.at[where].add(updates)


def _conv(
    lhs: Any,
    rhs: Any,
    strides: Any = None,
    padding: Any = None,
    lhs_dilation: Any = None,
    rhs_dilation: Any = None,
    groups: Any = 1,
) -> Any:
    """``mx.conv_general`` is channels-last: the channel axis moved last, and back; the
    (low, high) padding pairs as mlx's two lists."""
    spatial = max(lhs.ndim - 2, 0)
    ones = [1] * spatial
    pads = [tuple(pair) for pair in padding] if padding is not None else [(0, 0)] * spatial

    def listed(value: Any) -> Any:
        return ones if value is None else list(value) if isinstance(value, tuple) else value

    result = mx.conv_general(
        mx.moveaxis(lhs, 1, -1),
        mx.moveaxis(rhs, 1, -1),
        stride=listed(strides),
        padding=([lo for lo, _ in pads], [hi for _, hi in pads]),
        kernel_dilation=listed(rhs_dilation),
        input_dilation=listed(lhs_dilation),
        groups=groups,
    )
    return mx.moveaxis(result, -1, 1)


def _sort(x: Any, axis: Any, descending: Any, values: bool) -> Any:
    """``mx.sort`` / ``mx.argsort`` (int32 indices); they have no descending argument."""
    if descending is not False:
        raise common.NoCall(f"mx.sort has no descending argument (descending={descending!r})")
    return mx.sort(x, axis=axis) if values else mx.argsort(x, axis=axis).astype(mx.int32)


def _topk(x: Any, k: Any, axis: Any, largest: Any, values: bool) -> Any:
    """``mx.topk``: the k largest values, "not necessarily in sorted order"."""
    if largest is not True or not values:
        raise common.NoCall("mx.topk returns the largest values only (no smallest, no indices)")
    return mx.topk(x, k, axis=axis)


_HOOKS = {
    "sigmoid": mx.sigmoid,
    "rsqrt": mx.rsqrt,
    "erf": mx.erf,
    "silu": mlx.nn.silu,
    "softplus": mlx.nn.softplus,
    "elu": mlx.nn.elu,
    "relu": mlx.nn.relu,
    "gelu": mlx.nn.gelu,
    "leaky_relu": lambda x: mlx.nn.leaky_relu(x, negative_slope=0.01),
    "matmul_float64": lambda a, b: mx.matmul(a.astype(mx.float64), b.astype(mx.float64)).astype(
        mx.float32
    ),
    "scatter": _scatter,
    "scatter_add": _scatter_add,
    "conv": _conv,
    "sort": _sort,
    "topk": _topk,
}


def _reduce_sum(plan: str, x: Any, axis: Any = None, keepdims: Any = False) -> Any:
    """``mx.sum`` (an int32 sum stays int32; it takes no dtype); a Float64 accumulator is
    ``mx.sum`` of the float64 operand, cast back to float32."""
    kind = common.operand_kinds(plan)[0]
    v = mx.array(x)
    if kind.endswith("->Float32") and not kind.startswith("Float32"):
        v = v.astype(mx.float32)
    if common.float64_accumulator(plan):
        return mx.sum(v.astype(mx.float64), axis=axis, keepdims=keepdims).astype(mx.float32)
    return mx.sum(v, axis=axis, keepdims=keepdims)


def _evaluated(call: Any) -> Any:
    """mlx is lazy: the result is computed (and an error raised) inside the call."""

    def evaluated_call(*args: Any) -> Any:
        result = call(*args)
        mx.eval(result)
        return result

    return evaluated_call


def _to_numpy(result: Any) -> np.ndarray:
    return np.array(result, copy=True)


#: operation -> mlx's call for a plan and the decoded arguments
CALLS = {
    op: _evaluated(call)
    for op, call in {
        **common.namespace_calls(mx, mx.array, _HOOKS, {"round": "round"}),
        "reduce_sum": _reduce_sum,
    }.items()
    if op != "_topk_indices"  # mx.topk returns no indices
}

#: every class of the report, by kind (repro_common.cause_of reads the cause off the spelling)
PUBLISHED: list[str] = [
    # crash
    "conv_general@crash",
    "scatter@crash",
    # missing exception
    "_topk_values@missing-exception:error-bad-parameter",
    "add@missing-exception:int32-result-overflow",
    "cumsum@missing-exception:error-bad-axis",
    "elementwise_mul@missing-exception:int32-result-overflow",
    "gather@missing-exception:error-index-negative",
    "gather@missing-exception:error-index-too-large",
    "matmul@missing-exception:error-shape-mismatch",
    "mul@missing-exception:int32-result-overflow",
    "pow@missing-exception:int32-result-overflow",
    "reduce_sum@missing-exception:int32-result-overflow",
    "scatter@missing-exception:error-index-negative",
    "scatter@missing-exception:error-index-too-large",
    "scatter@missing-exception:error-scatter-duplicate",
    "scatter_add@missing-exception:error-index-negative",
    "scatter_add@missing-exception:error-index-too-large",
    "sub@missing-exception:int32-result-overflow",
    # wrong exception
    "_sort_indices@wrong-exception:convention",
    "_sort_values@wrong-exception:convention",
    "_topk_values@wrong-exception:convention",
    "argmax@wrong-exception:convention",
    "argmin@wrong-exception:convention",
    "clamp@wrong-exception:convention",
    "cumsum@wrong-exception:convention",
    "gather@wrong-exception:convention",
    "matmul@wrong-exception:int32-result-overflow",
    "reduce_max@wrong-exception:convention",
    "reduce_min@wrong-exception:convention",
    "reduce_prod@wrong-exception:convention",
    "reduce_sum@wrong-exception:convention",
    "scatter@wrong-exception:convention",
    "scatter_add@wrong-exception:convention",
    # wrong value
    "_topk_values@wrong-value:infinity",
    "_topk_values@wrong-value:many-ulps",
    "_topk_values@wrong-value:nan",
    "_topk_values@wrong-value:nan-bits",
    "_topk_values@wrong-value:overflow",
    "_topk_values@wrong-value:sign",
    "_topk_values@wrong-value:signed-zero",
    "_topk_values@wrong-value:spurious-nan",
    "_topk_values@wrong-value:subnormal",
    "_topk_values@wrong-value:zero",
    "clamp@wrong-value:signed-zero",
    "cos@wrong-value:accuracy",
    "cumsum@wrong-value:signed-zero",
    "elu@wrong-value:accuracy",
    "elu@wrong-value:sign",
    "elu@wrong-value:signed-zero",
    "erf@wrong-value:accuracy",
    "erf@wrong-value:signed-zero",
    "exp@wrong-value:accuracy",
    "exp@wrong-value:overflow",
    "gelu@wrong-value:accuracy",
    "gelu@wrong-value:overflow",
    "gelu@wrong-value:spurious-nan",
    "log2@wrong-value:accuracy",
    "log@wrong-value:accuracy",
    "matmul@wrong-value:outside-interval",
    "maximum@wrong-value:signed-zero",
    "minimum@wrong-value:signed-zero",
    "pow@wrong-value:accuracy",
    "reduce_max@wrong-value:nan-bits",
    "reduce_max@wrong-value:signed-zero",
    "reduce_min@wrong-value:nan-bits",
    "reduce_min@wrong-value:signed-zero",
    "reduce_prod@wrong-value:1-ulp",
    "reduce_prod@wrong-value:many-ulps",
    "rsqrt@wrong-value:accuracy",
    "sigmoid@wrong-value:accuracy",
    "sign@wrong-value:nan",
    "silu@wrong-value:accuracy",
    "silu@wrong-value:spurious-nan",
    "sin@wrong-value:accuracy",
    "sin@wrong-value:signed-zero",
    "softplus@wrong-value:accuracy",
    "tanh@wrong-value:accuracy",
    # other
    "argmax@zero-size",
    "argmin@zero-size",
    "clamp@raises-RuntimeError",
    "conv_general@conv-negative-padding",
    "matmul@raises-ValueError",
    "mul@raises-RuntimeError",
    "pow@raises-RuntimeError",
    "scatter@raises-ValueError",
    "scatter_add@raises-ValueError",
]

#: classes of the report no call of mlx alone shows, with why (the survey prints them as
#: not reproduced alone)
NOT_ALONE: dict[str, str] = {
    # Empty since the re-measurement of 2026-12-06 (remeasure2): the measured run met no
    # hang, so its report has no `reduce_prod@hang` class.  mlx 0.32.4's empty reductions
    # hang at random (plain Python too: the printed mx.prod of Float32[0] returned 1.0 at
    # once in 25 of 25 fresh processes, one call each, but repeated in one process it
    # stopped returning in 11 of 20 processes, at its 2nd to 5th call): that evidence is in
    # docs/backends/mlx.intermittent, which the survey prints and survey_xfail appends to
    # mlx.xfail.  A run that meets the hang again lists the class here with that reason.
}

REPRODUCTIONS = common.reproductions(
    REPORT, [key for key in PUBLISHED if key not in NOT_ALONE], CALLS, _to_numpy
)

if __name__ == "__main__":
    raise SystemExit(common.main(REPRODUCTIONS, NOT_ALONE))
