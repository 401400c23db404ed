"""Every deviation class of docs/backends/jax.json, reproduced with JAX alone.

Run ``pytest tests/test_survey_reproductions.py`` (or call a reproduction
yourself: ``REPRODUCTIONS["exp@wrong-value:subnormal"]()`` raises
AssertionError when JAX does what the specification requires).  Each
reproduction takes its class's minimal example from the report -- the input
bits -- and calls ``jax.numpy`` the way a JAX user writes it
(``repro_common.namespace_calls`` with ``xp = jax.numpy``), with JAX's own
``jax.nn`` activations, ``jax.lax.rsqrt``, ``jax.scipy.special.erf``,
``jax.lax.conv_general_dilated``, ``jax.lax.top_k`` and ``.at[].set/add``,
JAX's defaults untouched (``jax_enable_x64`` off), then checks the cause
(``repro_common.py``).
"""

from __future__ import annotations

from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.special
import numpy as np

LIBRARY = "jax"
REPORT = "jax.json"


#: repro_common.py beside this file (numpy, mpmath, the standard library), loaded by path
common = module_from_spec(
    spec_from_file_location("repro_common", Path(__file__).with_name("repro_common.py"))
)
common.__spec__.loader.exec_module(common)


def _conv(
    lhs: Any,
    rhs: Any,
    strides: Any = None,
    padding: Any = None,
    lhs_dilation: Any = None,
    rhs_dilation: Any = None,
    groups: int = 1,
) -> Any:
    spatial = lhs.ndim - 2
    return jax.lax.conv_general_dilated(
        lhs,
        rhs,
        window_strides=strides if strides is not None else (1,) * spatial,
        padding=padding if padding is not None else ((0, 0),) * spatial,
        lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation,
        feature_group_count=groups,
    )


def _topk(x: Any, k: int, axis: int, largest: Any, values: bool) -> Any:
    """``jax.lax.top_k`` (of ``-x`` for the smallest), values taken by the indices."""
    _, indices = jax.lax.top_k(x if largest else -x, k, axis=axis)
    return jnp.take_along_axis(x, indices, axis=axis) if values else indices


_HOOKS = {
    **common.formula_hooks(jnp),
    "sigmoid": jax.nn.sigmoid,
    "silu": jax.nn.silu,
    "softplus": jax.nn.softplus,
    "elu": jax.nn.elu,
    "relu": jax.nn.relu,
    "leaky_relu": lambda x: jax.nn.leaky_relu(x, negative_slope=0.01),
    "gelu": lambda x: jax.nn.gelu(x, approximate=False),
    "rsqrt": jax.lax.rsqrt,
    "erf": jax.scipy.special.erf,
    "matmul_float64": lambda a, b: jnp.matmul(a, b, preferred_element_type=jnp.float64).astype(
        jnp.float32
    ),
    "scatter": lambda base, where, updates: base.at[where].set(updates),
    "scatter_add": lambda base, where, updates: base.at[where].add(updates),
    "conv": _conv,
    "sort": lambda x, axis, down, values: (jnp.sort if values else jnp.argsort)(
        x, axis=axis, stable=True, descending=down
    ),
    "topk": _topk,
}


def _result_is_the_base(key: str, report: str, calls: Any, to_numpy: Any) -> None:
    """scatter/scatter_add with no index: ``.at[].set/add`` hands back the base array's own
    buffer, where the specification returns a new tensor."""
    call = common.examples(report)[key]["call"]
    base, indices, updates, axis = (common.decode(a) for a in call["args"])
    native = jnp.asarray(base)
    where = (slice(None),) * axis + (jnp.asarray(indices),)
    update = native.at[where].set if call["op"] == "scatter" else native.at[where].add
    result = update(jnp.asarray(updates))
    assert result.unsafe_buffer_pointer() == native.unsafe_buffer_pointer(), (
        f"{key}: a new buffer, as required"
    )


#: operation -> JAX's call for a plan and the decoded arguments
CALLS = common.namespace_calls(jnp, jnp.asarray, _HOOKS)

#: every class of the report, by kind (repro_common.cause_of reads the cause off the spelling)
PUBLISHED: list[str] = [
    # missing exception
    "_sort_indices@missing-exception:error-bad-parameter",
    "_sort_values@missing-exception:error-bad-parameter",
    "add@missing-exception:int32-result-overflow",
    "cumsum@missing-exception:error-bad-axis",
    "elementwise_mul@missing-exception:int32-result-overflow",
    "gather@missing-exception:error-index-negative",
    "gather@missing-exception:error-index-too-large",
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
    "scatter@missing-exception:error-index-too-large",
    "scatter@missing-exception:error-scatter-duplicate",
    "scatter_add@missing-exception:error-index-negative",
    "scatter_add@missing-exception:error-index-too-large",
    "sub@missing-exception:int32-result-overflow",
    # wrong exception
    "add@wrong-exception:convention",
    "argmax@wrong-exception:convention",
    "argmin@wrong-exception:convention",
    "clamp@wrong-exception:convention",
    "conv_general@wrong-exception:convention",
    "div@wrong-exception:convention",
    "elementwise_mul@wrong-exception:convention",
    "eq@wrong-exception:convention",
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
    "sub@wrong-exception:convention",
    # warning
    "conv_general@warning:divide-by-zero",
    "mul@warning:overflow",
    "pow@warning:overflow",
    # wrong value
    "_sort_indices@wrong-value:integer",
    "_sort_values@wrong-value:nan-bits",
    "_sort_values@wrong-value:signed-zero",
    "_sort_values@wrong-value:subnormal",
    "_sort_values@wrong-value:zero",
    "_topk_indices@wrong-value:integer",
    "_topk_values@wrong-value:infinity",
    "_topk_values@wrong-value:many-ulps",
    "_topk_values@wrong-value:nan",
    "_topk_values@wrong-value:nan-bits",
    "_topk_values@wrong-value:overflow",
    "_topk_values@wrong-value:spurious-nan",
    "_topk_values@wrong-value:subnormal",
    "_topk_values@wrong-value:zero",
    "add@wrong-value:1-ulp",
    "add@wrong-value:many-ulps",
    "add@wrong-value:subnormal",
    "ceil@wrong-value:many-ulps",
    "clamp@wrong-value:subnormal",
    "conv_general@wrong-value:1-ulp",
    "conv_general@wrong-value:many-ulps",
    "conv_general@wrong-value:signed-zero",
    "conv_general@wrong-value:subnormal",
    "conv_general@wrong-value:zero",
    "cos@wrong-value:accuracy",
    "cumsum@wrong-value:1-ulp",
    "cumsum@wrong-value:many-ulps",
    "cumsum@wrong-value:signed-zero",
    "cumsum@wrong-value:subnormal",
    "div@wrong-value:1-ulp",
    "div@wrong-value:many-ulps",
    "div@wrong-value:overflow",
    "div@wrong-value:spurious-nan",
    "div@wrong-value:subnormal",
    "elementwise_mul@wrong-value:many-ulps",
    "elementwise_mul@wrong-value:spurious-nan",
    "elementwise_mul@wrong-value:subnormal",
    "elu@wrong-value:accuracy",
    "elu@wrong-value:exact-point",
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
    "leaky_relu@wrong-value:zero",
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
    "maximum@wrong-value:subnormal",
    "minimum@wrong-value:subnormal",
    "mul@wrong-value:many-ulps",
    "mul@wrong-value:spurious-nan",
    "mul@wrong-value:subnormal",
    "ne@wrong-value:bool",
    "pow@wrong-value:accuracy",
    "pow@wrong-value:exact-point",
    "pow@wrong-value:infinity",
    "pow@wrong-value:overflow",
    "pow@wrong-value:sign",
    "pow@wrong-value:signed-zero",
    "recip@wrong-value:overflow",
    "recip@wrong-value:subnormal",
    "reduce_max@wrong-value:nan-bits",
    "reduce_max@wrong-value:subnormal",
    "reduce_min@wrong-value:nan-bits",
    "reduce_min@wrong-value:subnormal",
    "reduce_prod@wrong-value:1-ulp",
    "reduce_prod@wrong-value:many-ulps",
    "reduce_sum@wrong-value:outside-interval",
    "relu@wrong-value:subnormal",
    "rem@wrong-value:spurious-nan",
    "rsqrt@wrong-value:accuracy",
    "rsqrt@wrong-value:nan",
    "rsqrt@wrong-value:overflow",
    "scatter_add@wrong-value:subnormal",
    "sigmoid@wrong-value:accuracy",
    "sign@wrong-value:many-ulps",
    "sign@wrong-value:signed-zero",
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
    "clamp@raises-OverflowError",
    "conv_general@conv-negative-padding",
    "mul@raises-OverflowError",
    "pow@raises-OverflowError",
    "scatter@result-aliases-input",
    "scatter_add@result-aliases-input",
]

REPRODUCTIONS = common.reproductions(
    REPORT, PUBLISHED, CALLS, np.asarray, causes={"result-aliases-input": _result_is_the_base}
)

if __name__ == "__main__":
    raise SystemExit(common.main(REPRODUCTIONS))
