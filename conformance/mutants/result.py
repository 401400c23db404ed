"""The faults whose trigger is a class of the *result*, and the operations they break.

Each fault family is a row of :data:`FAMILIES`: a name template, the fault
sentence, the kernel, the result class the fault breaks (:data:`TARGETS`) and
the operations it is injected into.  The operations are not written here: they
are read from the witness data (:mod:`conformance.generate.witnesses`, shipped
as ``conformance/generate/data/witnesses.json``), so a regenerated witness
file moves them with it:

* ``<op>_flush_subnormal_results`` (:data:`FLUSH_TO_ZERO_OPERATIONS`: the
  correctly rounded unary operations whose Float32 witnesses reach a
  SUBNORMAL result): a subnormal result becomes a zero of its sign, as under
  a flush-to-zero mode;
* ``<op>_overflows_one_step_early`` (:data:`OVERFLOW_OPERATIONS`: those whose
  witnesses reach OVERFLOW_EDGE_FINITE): the last input before the overflow
  threshold already gives +-inf (a range check ``x >= threshold`` written
  with the wrong neighbour);
* ``<op>_saturates_one_step_early`` (:data:`SATURATION_OPERATIONS`: those
  whose witnesses reach SATURATION_EDGE_BELOW *and* whose result at -inf or
  +inf is +-1 -- the functions with an asymptote, so with a saturation branch
  ``|x| >= T -> +-1`` in a real kernel; sin, cos, log2 and rsqrt reach +-1
  only at isolated inputs): the last unsaturated input of magnitude at least
  1, the one whose neighbour farther from zero saturates, already gives +-1;
* ``reduce_max_normalises_zero`` and ``reduce_min_normalises_zero``: the
  extremum's zero loses its sign the way ``max(x) + 0.0`` does:
  ``reduce_max([-0, -0]) = +0`` and ``reduce_max([-0, -1]) = +0`` (a real
  outside library has this bug), ``reduce_min([+0, +0]) = -0``;
* ``<op>_int32_limit_refused`` (:data:`INT32_CHECKED_OPERATIONS`: the
  operations with an ``int32_exact_checked`` plan to which INT32_AT_MAX
  applies, :func:`conformance.classes.result.applicable_result_classes`):
  the range check is ``MIN < r < MAX`` instead of ``MIN <= r <= MAX``, so a
  result exactly at -2**31 or 2**31 - 1 raises OverflowError.

Every mutant here is also an attribute of this module
(``conformance.mutants.result:exp2_flush_subnormal_results`` is a backend
reference, and so is the documented ``conformance.result_mutants:NAME``).
``tests/test_witnesses.py`` proves that judging the witness calls of
:func:`conformance.generate.witnesses.witness_calls` kills every one of them,
and ``tests/test_mutants.py`` that the lists are what the witness data says.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from backends.cpu import KERNELS
from conformance.classes import unary
from conformance.classes.result import ResultClass
from conformance.classes.unary import Kind
from conformance.generate.witnesses import applicable_result_classes, reached_classes, unary_plan
from conformance.mutants.kernels import flushing_subnormals
from conformance.mutants.mutant import Kernel, Mutant, MutantBackend, backend_class, kernel_fault
from oracle import Arithmetic, DType, OperationPlan, resolvable_plans
from oracle import vectorised as V
from oracle.dtypes import INT32_MAX, INT32_MIN

__all__ = [
    "FAMILIES",
    "FAULTS",
    "FLUSH_TO_ZERO_OPERATIONS",
    "INT32_CHECKED_OPERATIONS",
    "OVERFLOW_OPERATIONS",
    "RESULT_MUTANTS",
    "SATURATION_OPERATIONS",
    "TARGETS",
    "ResultFault",
    "result_mutant_backend",
]

R = ResultClass

# ---------------------------------------------------------------------------
# The operations, from the witness data
# ---------------------------------------------------------------------------


def _reaching(target: ResultClass) -> tuple[str, ...]:
    """The correctly rounded unary operations whose Float32 witnesses reach *target*."""
    return tuple(
        sorted(op for op in V.ROUNDED_OPS if target in reached_classes(unary_plan(f"{op}:Float32")))
    )


def _has_asymptote_at_one(operation: str) -> bool:
    """Whether the certified result of *operation* at -inf or +inf is +-1."""
    infinities = np.array([-np.inf, np.inf], np.float32)
    limits = unary.reference(unary_plan(f"{operation}:Float32"), infinities)
    return bool((unary.kinds(limits) == Kind.ONE).any())


def _int32_checked(target: ResultClass) -> tuple[str, ...]:
    """The operations with an ``int32_exact_checked`` Int32 plan to which *target* applies."""
    return tuple(
        dict.fromkeys(
            plan.operation
            for plan in resolvable_plans()
            if plan.compute is Arithmetic.INT32_EXACT_CHECKED
            and plan.output is DType.Int32
            and target in applicable_result_classes(plan)
        )
    )


#: correctly rounded unary operations with subnormal results (witness data)
FLUSH_TO_ZERO_OPERATIONS: tuple[str, ...] = _reaching(R.SUBNORMAL)
#: correctly rounded unary operations that overflow to +-inf from finite inputs (witness data)
OVERFLOW_OPERATIONS: tuple[str, ...] = _reaching(R.OVERFLOW_EDGE_FINITE)
#: correctly rounded unary operations that saturate to +-1 towards an infinite input
SATURATION_OPERATIONS: tuple[str, ...] = tuple(
    op for op in _reaching(R.SATURATION_EDGE_BELOW) if _has_asymptote_at_one(op)
)
#: operations with an Int32 plan whose result is checked against the Int32 range
INT32_CHECKED_OPERATIONS: tuple[str, ...] = _int32_checked(R.INT32_AT_MAX)

# ---------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------

#: ``reached(inputs, result, neighbour, neighbour's result)`` -> where to take the neighbour's
EarlyWhere = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _one_step_early(reached: EarlyWhere) -> Kernel:
    """The CPU kernel of a unary plan, with a neighbour's result where *reached* says."""

    def kernel(backend: Any, plan: OperationPlan, x: Any) -> Any:
        correct = KERNELS[plan.operation]
        out = correct(backend, plan, x)
        inputs = np.asarray(x)
        for side in unary.neighbours(plan, inputs):
            other = np.asarray(correct(backend, plan, side))
            early = reached(inputs, out, side, other) & (np.sign(other) == np.sign(out))
            out[early] = other[early]
        return out

    return kernel


def _overflowing(inputs: Any, out: np.ndarray, side: Any, other: np.ndarray) -> np.ndarray:
    return np.isfinite(out) & np.isinf(other)


def _saturating(inputs: Any, out: np.ndarray, side: Any, other: np.ndarray) -> np.ndarray:
    magnitude = np.abs(inputs.astype(np.float64))
    with np.errstate(invalid="ignore"):
        outward = np.abs(side.astype(np.float64)) > magnitude  # towards the asymptote
        return (magnitude >= 1.0) & outward & (np.abs(out) != 1) & (np.abs(other) == 1)


def _max_plus_zero(backend: Any, plan: OperationPlan, *args: Any) -> Any:
    out = KERNELS["reduce_max"](backend, plan, *args)
    out[...] = out + np.float32(0.0)  # -0 + +0 = +0: the sign of a -0 maximum is lost
    return out


def _min_via_negated_max(backend: Any, plan: OperationPlan, *args: Any) -> Any:
    out = KERNELS["reduce_min"](backend, plan, *args)
    out[...] = -((-out) + np.float32(0.0))  # min = -max(-x) with a zero-normalising max
    return out


def _refusing_limits(backend: Any, plan: OperationPlan, *args: Any) -> Any:
    out = KERNELS[plan.operation](backend, plan, *args)
    checked = plan.compute is Arithmetic.INT32_EXACT_CHECKED and plan.output is DType.Int32
    if checked and ((out == INT32_MIN) | (out == INT32_MAX)).any():
        raise OverflowError(f"{plan.operation}: Int32 result outside (-2**31, 2**31 - 1)")
    return out


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ResultFault:
    """One fault family: a mutant ``name.format(operation=op)`` for each of *operations*."""

    name: str
    fault: str
    kernel: Kernel
    target: ResultClass
    operations: tuple[str, ...]


#: the fault families, in catalogue order
FAMILIES: tuple[ResultFault, ...] = (
    ResultFault(
        "{operation}_flush_subnormal_results",
        "flush-to-zero: a subnormal result becomes a zero of its sign",
        flushing_subnormals(keep_sign=True),
        R.SUBNORMAL,
        FLUSH_TO_ZERO_OPERATIONS,
    ),
    ResultFault(
        "{operation}_overflows_one_step_early",
        "overflow one input early: the last finite result before the threshold is +-inf",
        _one_step_early(_overflowing),
        R.OVERFLOW_EDGE_FINITE,
        OVERFLOW_OPERATIONS,
    ),
    ResultFault(
        "{operation}_saturates_one_step_early",
        "saturation one input early: the last result short of +-1 is +-1",
        _one_step_early(_saturating),
        R.SATURATION_EDGE_BELOW,
        SATURATION_OPERATIONS,
    ),
    ResultFault(
        "reduce_max_normalises_zero",
        "reduce_max(x) computed as max + 0.0: a maximum of -0 ([-0, -0], [-0, -1]) becomes +0",
        _max_plus_zero,
        R.EXTREMUM_NEGATIVE_ZERO,
        ("reduce_max",),
    ),
    ResultFault(
        "reduce_min_normalises_zero",
        "reduce_min(x) = -(max(-x) + 0.0): a minimum of +0 ([+0, +0], [+0, 1]) becomes -0",
        _min_via_negated_max,
        R.EXTREMUM_POSITIVE_ZERO,
        ("reduce_min",),
    ),
    ResultFault(
        "{operation}_int32_limit_refused",
        "the Int32 range check is MIN < r < MAX: a result of exactly -2**31 or 2**31 - 1 "
        "raises OverflowError",
        _refusing_limits,
        R.INT32_AT_MAX,
        INT32_CHECKED_OPERATIONS,
    ),
)

#: mutant name -> record, every family expanded over its operations
RESULT_MUTANTS: dict[str, Mutant] = {
    family.name.format(operation=op): kernel_fault(
        family.name.format(operation=op), op, family.fault, family.kernel
    )
    for family in FAMILIES
    for op in family.operations
}
#: mutant name -> the result class it breaks: every plan of the mutant's operation
#: to which that class applies must catch it
TARGETS: dict[str, ResultClass] = {
    family.name.format(operation=op): family.target
    for family in FAMILIES
    for op in family.operations
}
#: the result mutants, in catalogue order
FAULTS: tuple[Mutant, ...] = tuple(RESULT_MUTANTS.values())
if len(FAULTS) != sum(len(family.operations) for family in FAMILIES):
    raise ValueError("two result fault families give a mutant the same name")


def result_mutant_backend(name: str) -> MutantBackend:
    """A fresh instance of result mutant *name*."""
    return backend_class(RESULT_MUTANTS[name])()


def __getattr__(name: str) -> type[MutantBackend]:
    """``conformance.mutants.result:NAME``: the backend class of result mutant *name*."""
    mutant = RESULT_MUTANTS.get(name)
    if mutant is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return backend_class(mutant)
