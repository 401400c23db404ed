"""Every deviation class of docs/backends/torch.json, reproduced with torch alone.

Run ``pytest tests/test_survey_reproductions.py`` (or call a reproduction
yourself: ``REPRODUCTIONS["sign@wrong-value:nan"]()`` raises AssertionError
when torch returns what the specification requires).  Each reproduction takes
its class's minimal example from the report -- the input bits -- calls the
torch function a torch user writes for that plan (``CALLS``; one intra-op
thread, as the table was measured) and checks the cause
(``repro_common.py``: a wrong element of the class's sort, a missing or
other exception, an exception where a value is due).
"""

from __future__ import annotations

from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

LIBRARY = "torch"
REPORT = "torch.json"


#: repro_common.py beside this file (numpy, mpmath, the standard library), loaded by path
common = module_from_spec(
    spec_from_file_location("repro_common", Path(__file__).with_name("repro_common.py"))
)
common.__spec__.loader.exec_module(common)
torch.set_num_threads(1)

_DTYPES = {
    np.dtype(np.float32): torch.float32,
    np.dtype(np.int32): torch.int32,
    np.dtype(np.bool_): torch.bool,
}


def _native(plan: str, args: tuple[Any, ...]) -> list[Any]:
    """Arrays as torch tensors, converted as the plan's operand says (``Int32->Float32``:
    ``x.to(torch.float32)``); Python numbers as they are (torch's weak scalars)."""
    kinds = common.operand_kinds(plan)
    out = []
    for position, value in enumerate(args):
        if isinstance(value, np.ndarray):
            tensor = torch.from_numpy(value.copy())
            if position < len(kinds) and kinds[position].endswith("->Float32"):
                tensor = tensor.to(torch.float32)
            out.append(tensor)
        else:
            out.append(float(value) if type(value).__name__ == "Fraction" else value)
    return out


def _elementwise(function: Any) -> Any:
    return lambda plan, *args: function(*_native(plan, args))


def _clamp(plan: str, *args: Any) -> torch.Tensor:
    x, low, high = _native(plan, args)
    if isinstance(low, torch.Tensor) != isinstance(
        high, torch.Tensor
    ):  # two tensors or two numbers
        low, high = (
            v if isinstance(v, torch.Tensor) else torch.tensor(v, dtype=torch.float32)
            for v in (low, high)
        )
    return torch.clamp(x, low, high)


def _dims(axis: Any, keepdims: Any) -> dict[str, Any]:
    return {} if axis is None else {"dim": axis, "keepdim": bool(keepdims)}


def _reduce_sum(plan: str, x: Any, axis: Any = None, keepdims: Any = False) -> torch.Tensor:
    (v,) = _native(plan, (x,))
    if "exact_integer" in plan:
        return torch.sum(v, **_dims(axis, keepdims)).to(torch.int32)
    if common.float64_accumulator(plan):
        return torch.sum(v, **_dims(axis, keepdims), dtype=torch.float64).to(torch.float32)
    return torch.sum(v, **_dims(axis, keepdims))


def _reduce_prod(plan: str, x: Any, axis: Any = None, keepdims: Any = False) -> torch.Tensor:
    """``torch.prod`` of every dimension or one ``dim``; several axes are moved last by
    ``torch.movedim`` (which judges them), flattened and reduced as one dim."""
    (v,) = _native(plan, (x,))
    if axis is not None and not isinstance(axis, tuple):
        return torch.prod(v, dim=axis, keepdim=keepdims)
    if isinstance(axis, tuple) and len(axis) == 1:
        return torch.prod(v, dim=axis[0], keepdim=keepdims)
    if axis is None:
        result = torch.prod(v)
        return result.reshape((1,) * v.ndim) if keepdims else result
    last = tuple(range(v.ndim - len(axis), v.ndim))
    torch.movedim(v, axis, last)
    dims = sorted(int(a) % v.ndim for a in axis)
    kept = [d for d in range(v.ndim) if d not in dims]
    result = torch.prod(torch.movedim(v, dims, last).reshape(*(v.shape[d] for d in kept), -1), -1)
    return (
        result.reshape([1 if d in dims else n for d, n in enumerate(v.shape)])
        if keepdims
        else result
    )


def _extreme(function: Any) -> Any:
    def call(plan: str, x: Any, axis: Any = None, keepdims: Any = False) -> torch.Tensor:
        (v,) = _native(plan, (x,))
        return function(v, dim=() if axis is None else axis, keepdim=bool(keepdims))

    return call


def _matmul(plan: str, a: Any, b: Any) -> torch.Tensor:
    x, y = _native(plan, (a, b))
    if common.float64_accumulator(plan):
        return torch.matmul(x.double(), y.double()).float()
    return torch.matmul(x, y)


def _conv(
    plan: str,
    lhs: Any,
    rhs: Any,
    strides: Any = None,
    padding: Any = None,
    lhs_dilation: Any = None,
    rhs_dilation: Any = None,
    groups: Any = 1,
) -> torch.Tensor:
    spread = common.spread_and_pad(lhs.astype(np.float32), lhs_dilation, padding)
    x, w = _native(plan, (spread, rhs))
    spatial = x.ndim - 2
    convolve = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[spatial]
    return convolve(x, w, stride=strides or 1, dilation=rhs_dilation or 1, groups=groups)


def _at(axis: Any, ndim: int) -> int | None:
    """*axis* as a dimension in [0, ndim) when it is an int in range (else torch judges it)."""
    return axis % ndim if isinstance(axis, int) and -ndim <= axis < ndim else None


def _index_operands(plan: str, base: Any, indices: Any, updates: Any, axis: Any) -> list[Any]:
    """Base, flat indices, and the updates with the index dimensions flattened into one at
    *axis* (``Tensor.flatten``); torch's ``index_copy_``/``index_add_`` judge the rest."""
    b, i, u = _native(plan, (base, indices, updates))
    at = _at(axis, b.ndim)
    if at is not None and i.ndim == 0:
        u = u.unsqueeze(at)
    elif at is not None and i.ndim > 1 and u.ndim >= at + i.ndim:
        u = u.flatten(at, at + i.ndim - 1)
    return [b, i.reshape(-1), u]


def _scatter(plan: str, base: Any, indices: Any, updates: Any, axis: Any) -> torch.Tensor:
    """``Tensor.index_copy_`` on a clone (int64 indices: the only ones it takes)."""
    b, flat, u = _index_operands(plan, base, indices, updates, axis)
    return b.clone().index_copy_(axis, flat.long(), u)


def _topk(values: bool) -> Any:
    def call(plan: str, x: Any, k: Any, axis: Any = -1, largest: Any = True) -> torch.Tensor:
        (v,) = _native(plan, (x,))
        result = torch.topk(v, int(k), dim=axis, largest=bool(largest), sorted=True)
        return result.values if values else result.indices.to(torch.int32)

    return call


def _arg(function: Any) -> Any:
    def call(plan: str, x: Any, axis: Any = None) -> torch.Tensor:
        (v,) = _native(plan, (x,))
        return function(v, dim=axis).to(torch.int32)

    return call


def _gather(plan: str, data: Any, indices: Any, axis: Any) -> torch.Tensor:
    """``torch.index_select`` on the flattened indices, reshaped to numpy's ``take`` shape."""
    d, i = _native(plan, (data, indices))
    selected = torch.index_select(d, axis, i.reshape(-1))
    at = _at(axis, d.ndim)
    if at is None:
        return selected
    return selected.reshape((*d.shape[:at], *i.shape, *d.shape[at + 1 :]))


def _scatter_add(plan: str, base: Any, indices: Any, updates: Any, axis: Any) -> torch.Tensor:
    """``Tensor.index_add_`` on a clone."""
    b, flat, u = _index_operands(plan, base, indices, updates, axis)
    return b.clone().index_add_(axis, flat, u)


def _sort(values: bool) -> Any:
    def call(plan: str, x: Any, axis: Any = -1, descending: Any = False) -> torch.Tensor:
        (v,) = _native(plan, (x,))
        result = torch.sort(v, dim=axis, descending=descending, stable=True)
        return result.values if values else result.indices.to(torch.int32)

    return call


#: operation -> the torch call for a plan and the decoded arguments
CALLS: dict[str, Any] = {
    **{
        name: _elementwise(function)
        for name, function in {
            "add": torch.add,
            "sub": torch.sub,
            "mul": torch.mul,
            "div": torch.div,
            "eq": torch.eq,
            "ne": torch.ne,
            "lt": torch.lt,
            "le": torch.le,
            "select": torch.where,
            "elementwise_mul": torch.mul,
            "rem": torch.fmod,
            "pow": torch.pow,
            "maximum": torch.maximum,
            "minimum": torch.minimum,
            "sign": torch.sign,
            "sqrt": torch.sqrt,
            "rsqrt": torch.rsqrt,
            "exp": torch.exp,
            "exp2": torch.exp2,
            "log": torch.log,
            "log2": torch.log2,
            "sin": torch.sin,
            "cos": torch.cos,
            "tanh": torch.tanh,
            "erf": torch.erf,
            "sigmoid": torch.sigmoid,
            "relu": torch.relu,
            "elu": F.elu,
            "silu": F.silu,
            "softplus": F.softplus,
            "gelu": F.gelu,
        }.items()
    },
    "clamp": _clamp,
    "reduce_sum": _reduce_sum,
    "reduce_prod": _reduce_prod,
    "reduce_max": _extreme(torch.amax),
    "reduce_min": _extreme(torch.amin),
    "argmax": _arg(torch.argmax),
    "argmin": _arg(torch.argmin),
    "gather": _gather,
    "scatter_add": _scatter_add,
    "cumsum": lambda plan, x, axis: torch.cumsum(*_native(plan, (x,)), dim=axis),
    "matmul": _matmul,
    "conv_general": _conv,
    "scatter": _scatter,
    "_sort_values": _sort(values=True),
    "_sort_indices": _sort(values=False),
    "_topk_values": _topk(values=True),
    "_topk_indices": _topk(values=False),
}


def _to_numpy(result: Any) -> np.ndarray:
    return result.detach().numpy() if isinstance(result, torch.Tensor) else np.asarray(result)


#: every class of the report, by cause (repro_common.cause_of reads the kind off the spelling)
PUBLISHED: list[str] = [
    # missing exception
    "add@missing-exception:int32-result-overflow",
    "elementwise_mul@missing-exception:int32-result-overflow",
    "matmul@missing-exception:error-shape-mismatch",
    "matmul@missing-exception:int32-result-overflow",
    "mul@missing-exception:int32-result-overflow",
    "pow@missing-exception:int32-result-overflow",
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
    "_topk_indices@wrong-value:integer",
    "_topk_values@wrong-value:signed-zero",
    "clamp@wrong-value:signed-zero",
    "conv_general@wrong-value:1-ulp",
    "conv_general@wrong-value:many-ulps",
    "cos@wrong-value:accuracy",
    "cumsum@wrong-value:1-ulp",
    "cumsum@wrong-value:infinity",
    "cumsum@wrong-value:many-ulps",
    "cumsum@wrong-value:zero",
    "elu@wrong-value:accuracy",
    "erf@wrong-value:accuracy",
    "exp2@wrong-value:accuracy",
    "exp@wrong-value:accuracy",
    "gelu@wrong-value:accuracy",
    "gelu@wrong-value:overflow",
    "gelu@wrong-value:spurious-nan",
    "log2@wrong-value:accuracy",
    "log@wrong-value:accuracy",
    "matmul@wrong-value:outside-interval",
    "maximum@wrong-value:signed-zero",
    "minimum@wrong-value:signed-zero",
    "pow@wrong-value:accuracy",
    "pow@wrong-value:infinity",
    "pow@wrong-value:sign",
    "pow@wrong-value:signed-zero",
    "pow@wrong-value:spurious-nan",
    "reduce_max@wrong-value:nan-bits",
    "reduce_max@wrong-value:shape",
    "reduce_max@wrong-value:signed-zero",
    "reduce_min@wrong-value:nan-bits",
    "reduce_min@wrong-value:shape",
    "reduce_min@wrong-value:signed-zero",
    "reduce_prod@wrong-value:1-ulp",
    "reduce_prod@wrong-value:many-ulps",
    "reduce_sum@wrong-value:shape",
    "relu@wrong-value:signed-zero",
    "rem@wrong-value:spurious-nan",
    "rsqrt@wrong-value:accuracy",
    "sigmoid@wrong-value:accuracy",
    "sign@wrong-value:nan",
    "silu@wrong-value:accuracy",
    "silu@wrong-value:spurious-nan",
    "sin@wrong-value:accuracy",
    "softplus@wrong-value:accuracy",
    "sqrt@wrong-value:1-ulp",
    "tanh@wrong-value:accuracy",
    # other
    "clamp@raises-OverflowError",
    "conv_general@conv-negative-padding",
    "mul@raises-OverflowError",
    "pow@raises-OverflowError",
    "reduce_min@raises-RuntimeError",
]

REPRODUCTIONS = common.reproductions(REPORT, PUBLISHED, CALLS, _to_numpy)

if __name__ == "__main__":
    raise SystemExit(common.main(REPRODUCTIONS))
