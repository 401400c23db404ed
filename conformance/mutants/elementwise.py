"""The elementwise faults: arithmetic, conversions and promotion tables, signed
zeros and NaNs, correctly rounded functions.

:data:`FAULTS` is the table of these mutants (name, operation, fault, kernel),
in the order of ``docs/mutants.md``.  Faults that differ only by a numpy
function are rows of :func:`~conformance.mutants.kernels.float32_elementwise`
with that function; the kernels that need code of their own are defined
first.  The catalogue (:mod:`conformance.mutants.catalogue`) collects the
table; this module knows nothing of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from backends.cpu import KERNELS
from backends.cpu.convert import F32, F64, I32, I64, materialise
from conformance.mutants.kernels import (
    TINY,
    bits,
    float32_elementwise,
    float_inputs,
    flushing_subnormals,
    result_array,
    round_to_bits,
    toward_zero,
)
from conformance.mutants.mutant import (
    Kernel,
    Mutant,
    MutantBackend,
    execute_fault,
    kernel_fault,
)
from oracle import DType, OperationPlan

__all__ = ["FAULTS"]


def _is_int32(plan: OperationPlan) -> bool:
    return plan.compute.name.startswith("INT32")


def _double_rounding(exact: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Kernel:
    """``exact(x, y)`` in float64 (exact for binary32 operands) rounded to 25 bits, then 24."""
    return float32_elementwise(
        lambda x, y: round_to_bits(exact(x.astype(F64), y.astype(F64)), 25).astype(F32)
    )


# ---------------------------------------------------------------------------
# Kernels with code of their own
# ---------------------------------------------------------------------------


def _mul_denormals_are_zero(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    def daz(value: Any) -> Any:
        v = np.asarray(value)
        if v.dtype != F32:
            return value
        flushed = np.where((v != 0) & (np.abs(v) < TINY), np.copysign(np.float32(0), v), v)
        return flushed.astype(F32) if v.ndim else np.float32(flushed)

    x, y = (materialise(plan, i, v) for i, v in enumerate((a, b)))
    if _is_int32(plan):
        return KERNELS["mul"](backend, plan, a, b)
    with np.errstate(all="ignore"):
        return result_array(backend, np.multiply(daz(x), daz(y), dtype=F32))


def _add_int32_wraps(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    if not _is_int32(plan):
        return KERNELS["add"](backend, plan, a, b)
    x, y = float_inputs(plan, (a, b))
    with np.errstate(all="ignore"):
        return result_array(backend, np.add(x, y, dtype=I32), I32)


def _mul_int32_saturates(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    if not _is_int32(plan):
        return KERNELS["mul"](backend, plan, a, b)
    x, y = float_inputs(plan, (a, b))
    wide = np.multiply(x.astype(I64), np.asarray(y).astype(I64))
    return result_array(backend, np.clip(wide, -(2**31), 2**31 - 1), I32)


def _pow_int32_wraps(backend: Any, plan: OperationPlan, base: Any, exponent: Any) -> Any:
    if not _is_int32(plan):
        return KERNELS["pow"](backend, plan, base, exponent)
    b = np.asarray(materialise(plan, 0, base)).astype(I64)
    e = int(materialise(plan, 1, exponent))
    result = np.ones(b.shape, I64)
    power = b.copy()
    while e:  # square and multiply modulo 2**64, then wrapped to Int32
        if e & 1:
            result = (result * power) & 0xFFFFFFFF
        power = (power * power) & 0xFFFFFFFF
        e >>= 1
    return result_array(backend, result.astype(np.uint32).view(I32), I32)


def _int32_to_float32_truncates(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    if _is_int32(plan):
        return KERNELS["add"](backend, plan, a, b)

    def convert(position: int, value: Any) -> np.ndarray:
        operand = plan.operands[position]
        if operand.dtype is DType.Int32:
            return toward_zero(np.asarray(value).astype(F64))
        return np.asarray(materialise(plan, position, value))

    x, y = convert(0, a), convert(1, b)
    with np.errstate(all="ignore"):
        return result_array(backend, np.add(x, y, dtype=F32))


def _weak_int_via_float64(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    weak = plan.operands[1]
    if _is_int32(plan) or weak.dtype is not None or isinstance(b, bool):
        return KERNELS["mul"](backend, plan, a, b)
    if not isinstance(b, (int, np.integer)):
        return KERNELS["mul"](backend, plan, a, b)
    x = np.asarray(materialise(plan, 0, a))
    with np.errstate(all="ignore"):
        y = np.float64(float(b) if abs(int(b)) < 2**1000 else np.inf * np.sign(b)).astype(F32)
        return result_array(backend, np.multiply(x, y, dtype=F32))


def _weak_bool_as_integer(
    backend: MutantBackend, operation: str, args: Any, accumulator: Any, options: Any
) -> Any:
    if (
        operation == "mul"
        and len(args) == 2
        and isinstance(args[0], np.ndarray)
        and args[0].dtype == I32
        and isinstance(args[1], (bool, np.bool_))
    ):
        backend.allocated()
        return args[0] * np.int32(int(args[1]))
    return backend.correct_execute(operation, args, accumulator, options)


def _int32_add_promotes_to_float32(
    backend: MutantBackend, operation: str, args: Any, accumulator: Any, options: Any
) -> Any:
    if (
        operation == "add"
        and len(args) == 2
        and all(isinstance(a, np.ndarray) and a.dtype == I32 for a in args)
    ):
        backend.plan(operation, *args)  # planning errors still come first
        backend.allocated()
        with np.errstate(all="ignore"):
            return np.add(args[0], args[1], dtype=F32)
    return backend.correct_execute(operation, args, accumulator, options)


def _allocates_before_errors(
    backend: MutantBackend, operation: str, args: Any, accumulator: Any, options: Any
) -> Any:
    if operation in ("reduce_sum", "gather"):
        backend.allocated()  # the buffer is allocated before anything is validated
    return backend.correct_execute(operation, args, accumulator, options)


def _lt_returns_float32(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    return KERNELS["lt"](backend, plan, a, b).astype(F32)


def _exp_one_ulp_off_sometimes(backend: Any, plan: OperationPlan, x: Any) -> Any:
    out = KERNELS["exp"](backend, plan, x)
    v = np.asarray(materialise(plan, 0, x)).astype(F32)
    pick = ((bits(v) & 0x7) == 0x7) & np.isfinite(out) & (out != 0)
    out[...] = np.where(pick, np.nextafter(out, np.float32(np.inf), dtype=F32), out)
    return out


def _softplus_threshold(backend: Any, plan: OperationPlan, x: Any) -> Any:
    out = KERNELS["softplus"](backend, plan, x)
    v = np.asarray(materialise(plan, 0, x)).astype(F32)
    np.copyto(out, v, where=v > 10)
    return out


# ---------------------------------------------------------------------------
# Formulas of the functions' faulty kernels
# ---------------------------------------------------------------------------

_ONE, _HALF, _ZERO = np.float32(1.0), np.float32(0.5), np.float32(0.0)


def _recip_newton(v: np.ndarray) -> np.ndarray:
    r0 = round_to_bits(1.0 / v.astype(F64), 12).astype(F32)
    return r0 * (np.float32(2.0) - v * r0)


def _ceil_via_trunc(v: np.ndarray) -> np.ndarray:
    t = np.trunc(v)
    return np.where(np.isfinite(v), t + (v > t).astype(F32), v)


def _silu_two_roundings(v: np.ndarray) -> np.ndarray:
    sigmoid = (1.0 / (1.0 + np.exp(-v.astype(F64)))).astype(F32)
    return v * sigmoid


def _gelu_tanh(v: np.ndarray) -> np.ndarray:
    d = v.astype(F64)
    inner = np.sqrt(2.0 / np.pi) * (d + 0.044715 * d**3)
    return (0.5 * d * (1.0 + np.tanh(inner))).astype(F32)


def _minimum_first_of_equal(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(x) | np.isnan(y), np.nan, np.where(y < x, y, x))


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------

#: the elementwise mutants, in catalogue order
FAULTS: tuple[Mutant, ...] = (
    # elementwise arithmetic
    kernel_fault(
        "add_flush_subnormal_results",
        "add",
        "flush-to-zero: subnormal sums become +0",
        flushing_subnormals(keep_sign=False),
    ),
    kernel_fault(
        "mul_denormals_are_zero",
        "mul",
        "denormals-are-zero: subnormal operands read as +-0 before multiplying",
        _mul_denormals_are_zero,
    ),
    kernel_fault(
        "mul_round_toward_zero",
        "mul",
        "products rounded toward zero instead of to nearest even",
        float32_elementwise(lambda x, y: toward_zero(x.astype(F64) * y.astype(F64))),
    ),
    kernel_fault(
        "elementwise_mul_double_rounding",
        "elementwise_mul",
        "double rounding: the exact product rounded to 25 bits, then to binary32",
        _double_rounding(np.multiply),
    ),
    kernel_fault(
        "sub_double_rounding",
        "sub",
        "double rounding: the float64 difference rounded to 25 bits, then to binary32",
        _double_rounding(np.subtract),
    ),
    kernel_fault(
        "div_via_reciprocal",
        "div",
        "fast-math division: x * (1 / y), two roundings",
        float32_elementwise(lambda x, y: x * (_ONE / y)),
    ),
    kernel_fault(
        "rem_is_floor_modulo",
        "rem",
        "rem computed as Python/numpy floor modulo (sign of the divisor), not C fmod",
        float32_elementwise(np.remainder),
    ),
    kernel_fault(
        "sqrt_via_rsqrt",
        "sqrt",
        "sqrt(x) = x * (1/sqrt(x)) in float32",
        float32_elementwise(lambda v: v * (_ONE / np.sqrt(v))),
    ),
    kernel_fault(
        "recip_newton_approximation",
        "recip",
        "reciprocal from a 12-bit estimate and one float32 Newton step",
        float32_elementwise(_recip_newton),
    ),
    kernel_fault(
        "add_int32_wraps",
        "add",
        "Int32 add wraps around instead of OverflowError",
        _add_int32_wraps,
    ),
    kernel_fault(
        "mul_int32_saturates",
        "mul",
        "Int32 mul saturates at the Int32 limits instead of OverflowError",
        _mul_int32_saturates,
    ),
    kernel_fault(
        "pow_int32_wraps",
        "pow",
        "Int32 pow wraps around instead of OverflowError",
        _pow_int32_wraps,
    ),
    # conversions and private promotion tables
    kernel_fault(
        "int32_to_float32_truncates",
        "add",
        "Int32 -> Float32 conversion truncates toward zero instead of rounding",
        _int32_to_float32_truncates,
    ),
    kernel_fault(
        "weak_int_via_float64",
        "mul",
        "a weak int is converted to Float32 through float64 (double rounding above 2**53)",
        _weak_int_via_float64,
    ),
    execute_fault(
        "weak_bool_as_integer",
        ("mul",),
        "private promotion table: a weak bool times an Int32 tensor stays Int32",
        _weak_bool_as_integer,
    ),
    execute_fault(
        "int32_add_promotes_to_float32",
        ("add",),
        "private promotion table: Int32 + Int32 gives Float32",
        _int32_add_promotes_to_float32,
    ),
    execute_fault(
        "allocates_before_errors",
        ("reduce_sum", "gather"),
        "allocates the result before planning and checking (an error comes after an allocation)",
        _allocates_before_errors,
    ),
    kernel_fault(
        "lt_returns_float32",
        "lt",
        "a predicate returns a Float32 0/1 tensor, not Bool",
        _lt_returns_float32,
    ),
    # signed zeros, NaNs, extrema
    kernel_fault(
        "maximum_ignores_nan",
        "maximum",
        "maximum is fmax: a NaN operand is ignored",
        float32_elementwise(np.fmax),
    ),
    kernel_fault(
        "minimum_zero_order",
        "minimum",
        "minimum returns the first operand of an equal pair: minimum(+0, -0) = +0",
        float32_elementwise(_minimum_first_of_equal),
    ),
    kernel_fault(
        "clamp_is_numpy_clip",
        "clamp",
        "clamp via numpy.clip: no -0 < +0 ordering (clamp(-0, +0, 1) = -0)",
        float32_elementwise(lambda v, low, high: np.minimum(np.maximum(v, low), high)),
    ),
    kernel_fault(
        "relu_keeps_negative_zero",
        "relu",
        "relu(x) = x if x >= 0 else +0: relu(-0) = -0",
        float32_elementwise(lambda v: np.where((v >= 0) | np.isnan(v), v, _ZERO)),
    ),
    kernel_fault(
        "relu_nan_to_zero",
        "relu",
        "relu(NaN) = 0 (where(x > 0, x, 0))",
        float32_elementwise(lambda v: np.where(v > 0, v, _ZERO)),
    ),
    kernel_fault(
        "sign_keeps_negative_zero",
        "sign",
        "sign(-0) = -0",
        float32_elementwise(lambda v: np.where(v == 0, v, np.sign(v))),
    ),
    kernel_fault(
        "sign_nan_is_zero",
        "sign",
        "sign(NaN) = 0 (comparisons only)",
        float32_elementwise(lambda v: (v > 0).astype(F32) - (v < 0).astype(F32)),
    ),
    kernel_fault(
        "neg_as_zero_minus_x",
        "neg",
        "neg(x) = 0 - x: neg(+0) = +0 and NaN bits not copied",
        float32_elementwise(lambda v: _ZERO - v),
    ),
    kernel_fault(
        "abs_via_select",
        "abs",
        "abs(x) = x < 0 ? -x : x: abs(-0) = -0, NaN sign kept",
        float32_elementwise(lambda v: np.where(v < 0, -v, v)),
    ),
    kernel_fault(
        "round_half_away_from_zero",
        "round",
        "round half away from zero (2.5 -> 3)",
        float32_elementwise(lambda v: np.copysign(np.floor(np.abs(v) + _HALF), v)),
    ),
    kernel_fault(
        "round_floor_plus_half",
        "round",
        "round(x) = floor(x + 0.5) in float32 (ties up, round(-0.4) = +0)",
        float32_elementwise(lambda v: np.floor(v + _HALF)),
    ),
    kernel_fault(
        "ceil_drops_negative_zero",
        "ceil",
        "ceil via trunc(x) + (x > trunc(x)): ceil(-0.5) = +0",
        float32_elementwise(_ceil_via_trunc),
    ),
    kernel_fault(
        "leaky_relu_float64_slope",
        "leaky_relu",
        "leaky_relu multiplies by the binary64 slope 0.01, not 0.01f",
        float32_elementwise(lambda v: np.where(v >= 0, v, (v.astype(F64) * 0.01).astype(F32))),
    ),
    # correctly rounded functions
    kernel_fault(
        "exp_numpy_float32",
        "exp",
        "exp is numpy's float32 exp (not correctly rounded)",
        float32_elementwise(np.exp),
    ),
    kernel_fault(
        "tanh_numpy_float32",
        "tanh",
        "tanh is numpy's float32 tanh (not correctly rounded)",
        float32_elementwise(np.tanh),
    ),
    kernel_fault(
        "cos_float32_range_reduction",
        "cos",
        "cos evaluated as float32 sin(x + pi/2) (a float32 range reduction)",
        float32_elementwise(lambda v: np.sin(v + np.float32(np.pi / 2))),
    ),
    kernel_fault(
        "exp_one_ulp_off_sometimes",
        "exp",
        "exp is 1 ULP too large when the input's low 3 fraction bits are all ones (a lost "
        "carry into the table index)",
        _exp_one_ulp_off_sometimes,
    ),
    kernel_fault(
        "sigmoid_float32_formula",
        "sigmoid",
        "sigmoid = 1 / (1 + exp(-x)) evaluated in float32",
        float32_elementwise(lambda v: _ONE / (_ONE + np.exp(-v))),
    ),
    kernel_fault(
        "silu_two_roundings",
        "silu",
        "silu = x * round(sigmoid(x)): two roundings",
        float32_elementwise(_silu_two_roundings),
    ),
    kernel_fault(
        "gelu_tanh_approximation",
        "gelu",
        "gelu uses the tanh approximation",
        float32_elementwise(_gelu_tanh),
    ),
    kernel_fault(
        "softplus_threshold",
        "softplus",
        "softplus(x) = x for x > 10 (a linear threshold)",
        _softplus_threshold,
    ),
    kernel_fault(
        "elu_exp_minus_one",
        "elu",
        "elu(x < 0) = exp(x) - 1 in float32 (no expm1)",
        float32_elementwise(lambda v: np.where(v > 0, v, np.exp(v) - _ONE)),
    ),
    kernel_fault(
        "rsqrt_two_roundings",
        "rsqrt",
        "rsqrt = 1 / sqrt(x) in float32: two roundings",
        float32_elementwise(lambda v: _ONE / np.sqrt(v)),
    ),
)
