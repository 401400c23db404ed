"""Faulty backends on result classes: faults whose trigger is the *result*.

Each mutant is the CPU backend with one kernel replaced, in the shape of the
catalogue in :mod:`conformance.mutants` (a :class:`~conformance.mutants.Mutant`
record and a :class:`~conformance.mutants.MutantBackend` subclass that is an
attribute of this module, so ``conformance.mutants.result:exp2_flush_subnormal_results``
is a backend reference).  :data:`RESULT_MUTANTS` maps names to records; each
one is also registered in the catalogue (:data:`conformance.mutants.MUTANTS`,
and as an attribute of that module, so ``conformance.mutants:<name>`` names
the same backend), which imports this module at its end.

The faults (each changes a result the reference semantics fixes):

* ``<op>_flush_subnormal_results`` for every correctly rounded operation
  with subnormal results (:data:`FLUSH_TO_ZERO_OPERATIONS`, which
  ``tests/test_witnesses.py`` ties to the witness data): a subnormal result
  becomes a zero of its sign, as under a flush-to-zero mode;
* ``<op>_overflows_one_step_early`` (:data:`OVERFLOW_OPERATIONS`): the last
  input before the overflow threshold already gives +-inf (a range check
  ``x >= threshold`` written with the wrong neighbour);
* ``<op>_saturates_one_step_early`` (:data:`SATURATION_OPERATIONS`): the last
  unsaturated input of magnitude at least 1 already gives +-1;
* ``reduce_max_normalises_zero`` and ``reduce_min_normalises_zero``: the
  extremum's zero loses its sign the way ``max(x) + 0.0`` does:
  ``reduce_max([-0, -0]) = +0`` and ``reduce_max([-0, -1]) = +0`` (a real
  outside library has this bug), ``reduce_min([+0, +0]) = -0``;
* ``<op>_int32_limit_refused`` (:data:`INT32_CHECKED_OPERATIONS`): the range
  check is ``MIN < r < MAX`` instead of ``MIN <= r <= MAX``, so a result
  exactly at -2**31 or 2**31 - 1 raises OverflowError.

``tests/test_witnesses.py`` proves that judging the witness calls of
:func:`conformance.generate.witnesses.witness_calls` kills every one of them, and
that the CPU and Generic backends pass the same calls.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from backends.cpu import KERNELS
from conformance import mutants as catalogue
from conformance.classes.result import ResultClass
from conformance.mutants import Mutant, MutantBackend
from oracle import Arithmetic, DType, OperationPlan
from oracle.dtypes import INT32_MAX, INT32_MIN

__all__ = [
    "FLUSH_TO_ZERO_OPERATIONS",
    "INT32_CHECKED_OPERATIONS",
    "OVERFLOW_OPERATIONS",
    "RESULT_MUTANTS",
    "SATURATION_OPERATIONS",
    "TARGETS",
    "result_mutant_backend",
]

Kernel = Callable[..., Any]
F32 = np.dtype(np.float32)
_TINY = np.float32(2.0**-126)

#: correctly rounded unary operations with subnormal results (found by the witness search)
FLUSH_TO_ZERO_OPERATIONS = (
    "elu erf exp exp2 gelu sigmoid silu sin softplus tanh".split()
)  # fmt: skip
#: correctly rounded unary operations that overflow to +-inf from finite inputs
OVERFLOW_OPERATIONS = ("exp", "exp2")
#: correctly rounded unary operations that saturate to +-1 at large |x|
SATURATION_OPERATIONS = ("erf", "sigmoid", "tanh")
#: operations with an Int32 plan whose result is checked against the Int32 range
INT32_CHECKED_OPERATIONS = (
    "add sub mul elementwise_mul pow reduce_sum matmul".split()
)  # fmt: skip

RESULT_MUTANTS: dict[str, Mutant] = {}
#: mutant name -> the result class it breaks: every plan of the mutant's operation
#: to which that class applies must catch it
TARGETS: dict[str, ResultClass] = {}


def _register(name: str, operation: str, fault: str, kernel: Kernel, target: ResultClass) -> None:
    assert name not in RESULT_MUTANTS and name not in catalogue.MUTANTS, name
    TARGETS[name] = target
    mutant = Mutant(name, (operation,), fault, ((operation, kernel),))
    RESULT_MUTANTS[name] = mutant
    cls = type(
        name,
        (MutantBackend,),
        {
            "name": f"mutant:{name}",
            "mutant": mutant,
            "kernels": {**KERNELS, operation: kernel},
            "__doc__": f"Mutant {name} ({operation}): {fault}",
            "__module__": __name__,
        },
    )
    setattr(sys.modules[__name__], name, cls)
    catalogue.MUTANTS[name] = mutant
    setattr(catalogue, name, cls)


def result_mutant_backend(name: str) -> MutantBackend:
    """A fresh instance of result mutant *name*."""
    return getattr(sys.modules[__name__], RESULT_MUTANTS[name].name)()


def _neighbours(x: Any) -> tuple[np.ndarray, np.ndarray]:
    """The inputs next to each element of a unary kernel's native operand."""
    v = np.asarray(x)
    if v.dtype == np.int32:
        wide = v.astype(np.int64)
        return (
            np.maximum(wide - 1, INT32_MIN).astype(np.int32),
            np.minimum(wide + 1, INT32_MAX).astype(np.int32),
        )
    with np.errstate(over="ignore"):
        return (
            np.nextafter(v, np.float32(-np.inf), dtype=F32),
            np.nextafter(v, np.float32(np.inf), dtype=F32),
        )


# ---------------------------------------------------------------------------
# Flush-to-zero of subnormal results
# ---------------------------------------------------------------------------


def _flushing(operation: str) -> Kernel:
    correct = KERNELS[operation]

    def kernel(backend: Any, plan: OperationPlan, *args: Any) -> Any:
        out = correct(backend, plan, *args)
        if out.dtype == F32:
            subnormal = (out != 0) & (np.abs(out) < _TINY)
            out[subnormal] = np.copysign(np.float32(0.0), out[subnormal])
        return out

    return kernel


for _operation in FLUSH_TO_ZERO_OPERATIONS:
    _register(
        f"{_operation}_flush_subnormal_results",
        _operation,
        "flush-to-zero: a subnormal result becomes a zero of its sign",
        _flushing(_operation),
        ResultClass.SUBNORMAL,
    )


# ---------------------------------------------------------------------------
# Overflow and saturation one step early
# ---------------------------------------------------------------------------


def _one_step_early(operation: str, reached: Callable[[np.ndarray, np.ndarray], np.ndarray]):
    """A kernel that gives a neighbour's result where *reached(x, neighbour result)*."""
    correct = KERNELS[operation]

    def kernel(backend: Any, plan: OperationPlan, x: Any) -> Any:
        out = correct(backend, plan, x)
        inputs = np.asarray(x)
        for side in _neighbours(x):
            other = np.asarray(correct(backend, plan, side))
            early = reached(inputs, out, other) & (np.sign(other) == np.sign(out))
            out[early] = other[early]
        return out

    return kernel


def _overflowing(inputs: np.ndarray, out: np.ndarray, other: np.ndarray) -> np.ndarray:
    return np.isfinite(out) & np.isinf(other)


def _saturating(inputs: np.ndarray, out: np.ndarray, other: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        large = np.abs(inputs.astype(np.float64)) >= 1.0
        return large & (np.abs(out) != 1) & (np.abs(other) == 1)


for _operation in OVERFLOW_OPERATIONS:
    _register(
        f"{_operation}_overflows_one_step_early",
        _operation,
        "overflow one input early: the last finite result before the threshold is +-inf",
        _one_step_early(_operation, _overflowing),
        ResultClass.OVERFLOW_EDGE_FINITE,
    )
for _operation in SATURATION_OPERATIONS:
    _register(
        f"{_operation}_saturates_one_step_early",
        _operation,
        "saturation one input early: the last result short of +-1 is +-1",
        _one_step_early(_operation, _saturating),
        ResultClass.SATURATION_EDGE_BELOW,
    )


# ---------------------------------------------------------------------------
# Same-sign zero extrema
# ---------------------------------------------------------------------------


def _max_plus_zero(backend: Any, plan: OperationPlan, *args: Any) -> Any:
    out = KERNELS["reduce_max"](backend, plan, *args)
    out[...] = out + np.float32(0.0)  # -0 + +0 = +0: the sign of a -0 maximum is lost
    return out


def _min_via_negated_max(backend: Any, plan: OperationPlan, *args: Any) -> Any:
    out = KERNELS["reduce_min"](backend, plan, *args)
    out[...] = -((-out) + np.float32(0.0))  # min = -max(-x) with a zero-normalising max
    return out


_register(
    "reduce_max_normalises_zero",
    "reduce_max",
    "reduce_max(x) computed as max + 0.0: a maximum of -0 ([-0, -0], [-0, -1]) becomes +0",
    _max_plus_zero,
    ResultClass.EXTREMUM_NEGATIVE_ZERO,
)
_register(
    "reduce_min_normalises_zero",
    "reduce_min",
    "reduce_min(x) = -(max(-x) + 0.0): a minimum of +0 ([+0, +0], [+0, 1]) becomes -0",
    _min_via_negated_max,
    ResultClass.EXTREMUM_POSITIVE_ZERO,
)


# ---------------------------------------------------------------------------
# Int32 results at the edge refused
# ---------------------------------------------------------------------------


def _refusing_limits(operation: str) -> Kernel:
    correct = KERNELS[operation]

    def kernel(backend: Any, plan: OperationPlan, *args: Any) -> Any:
        out = correct(backend, plan, *args)
        checked = plan.compute is Arithmetic.INT32_EXACT_CHECKED and plan.output is DType.Int32
        if checked and ((out == INT32_MIN) | (out == INT32_MAX)).any():
            raise OverflowError(f"{operation}: Int32 result outside (-2**31, 2**31 - 1)")
        return out

    return kernel


for _operation in INT32_CHECKED_OPERATIONS:
    _register(
        f"{_operation}_int32_limit_refused",
        _operation,
        "the Int32 range check is MIN < r < MAX: a result of exactly -2**31 or 2**31 - 1 "
        "raises OverflowError",
        _refusing_limits(_operation),
        ResultClass.INT32_AT_MAX,
    )
