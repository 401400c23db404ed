"""Every deviation class of docs/backends/array-api-strict.json, reproduced with
array-api-strict alone.

Run ``python docs/backends/array-api-strict_repro.py`` (prints each class and
whether it reproduced; exit status 1 when one did not) or ``pytest
tests/test_survey_reproductions.py``, or call a reproduction yourself:
``REPRODUCTIONS["add@missing-exception:int32-result-overflow"]()`` raises
AssertionError when array-api-strict does what the specification requires.
Each reproduction takes its class's minimal example from the report -- the
input bits, exactly as printed -- and calls ``array_api_strict`` (2.6.1, the
standard 2025.12, its flags at their defaults, as the report's configuration
records) the way a program written against the array API standard does
(``repro_common.namespace_calls`` with ``xp = array_api_strict`` and the
standard's names ``pow``, ``round``, ``cumulative_sum``; casts by
``xp.astype``; a Float64 matmul as ``xp.matmul`` of float64 operands, the
standard's matmul having no dtype), under ``numpy.errstate(all="ignore")`` as
measured, then checks the cause (``repro_common.py``).

The operations the standard has no function for (``fmod``, ``exp2``, ``rsqrt``,
``erf``, the activations, convolution, scatter, top-k) are not measured, so
they have no class here and no call.
"""

from __future__ import annotations

from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from typing import Any

import array_api_strict as xp
import numpy as np

LIBRARY = "array_api_strict"
REPORT = "array-api-strict.json"


#: repro_common.py beside this file (numpy, mpmath, the standard library), loaded by path
common = module_from_spec(
    spec_from_file_location("repro_common", Path(__file__).with_name("repro_common.py"))
)
common.__spec__.loader.exec_module(common)


def _matmul_float64(a: Any, b: Any) -> Any:
    """The standard's matmul computes in its operands' dtype: float64 operands."""
    return xp.astype(xp.matmul(xp.astype(a, xp.float64), xp.astype(b, xp.float64)), xp.float32)


def _sort(x: Any, axis: Any, descending: Any, values: bool) -> Any:
    """``xp.sort`` / ``xp.argsort`` with ``stable=True``, the flag as the caller gave it."""
    if values:
        return xp.sort(x, axis=axis, descending=descending, stable=True)
    return xp.astype(xp.argsort(x, axis=axis, descending=descending, stable=True), xp.int32)


def _to_numpy(result: Any) -> np.ndarray:
    """A result through the standard's DLPack interchange (bits kept)."""
    return np.array(np.from_dlpack(result), copy=True)


_HOOKS = {"astype": xp.astype, "matmul_float64": _matmul_float64, "sort": _sort}
_NAMES = {"pow": "pow", "round": "round", "cumsum": "cumulative_sum"}


def _quiet(call: Any) -> Any:
    def quiet_call(*args: Any) -> Any:
        with np.errstate(all="ignore"):
            return call(*args)

    return quiet_call


#: operation -> array_api_strict's call for a plan and the decoded arguments
CALLS = {
    op: _quiet(call) for op, call in common.namespace_calls(xp, xp.asarray, _HOOKS, _NAMES).items()
}

#: every class of the report, by kind (repro_common.cause_of reads the cause off the spelling)
PUBLISHED: list[str] = [
    # missing exception
    "_sort_indices@missing-exception:error-bad-parameter",
    "_sort_values@missing-exception:error-bad-parameter",
    "add@missing-exception:int32-result-overflow",
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
    "sub@missing-exception:int32-result-overflow",
    # wrong exception
    "clamp@wrong-exception:convention",
    "cumsum@wrong-exception:convention",
    # wrong value
    "_sort_values@wrong-value:nan-bits",
    "_sort_values@wrong-value:signed-zero",
    "clamp@wrong-value:signed-zero",
    "cos@wrong-value:accuracy",
    "cumsum@wrong-value:signed-zero",
    "exp@wrong-value:accuracy",
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
    "sin@wrong-value:accuracy",
    "tanh@wrong-value:accuracy",
    # other
    "clamp@raises-OverflowError",
    "clamp@raises-TypeError",
    "clamp@raises-ValueError",
    "gather@raises-ValueError",
    "gather@rank-0",
    "logical_not@raises-TypeError",
    "mul@raises-TypeError",
    "pow@raises-TypeError",
]

REPRODUCTIONS = common.reproductions(REPORT, PUBLISHED, CALLS, _to_numpy)

if __name__ == "__main__":
    raise SystemExit(common.main(REPRODUCTIONS))
