"""The mutant catalogue's elementwise faults: arithmetic, conversions and promotion
tables, signed zeros and NaNs, correctly rounded functions.

Each decorated kernel registers one mutant in :data:`conformance.mutants.MUTANTS`
(and as an attribute of :mod:`conformance.mutants`), which imports this module.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from backends.cpu import KERNELS
from backends.cpu.convert import F32, F64, I32, I64, materialise
from conformance.mutants import (
    _TINY,
    MutantBackend,
    _bits,
    _float_inputs,
    _result,
    _round_to_bits,
    _toward_zero,
    _unary,
    execute_override,
    kernel,
)
from oracle import DType, OperationPlan

# ---------------------------------------------------------------------------
# Elementwise arithmetic
# ---------------------------------------------------------------------------


@kernel("add", name="add_flush_subnormal_results", fault="flush-to-zero: subnormal sums become +0")
def _add_ftz(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    out = KERNELS["add"](backend, plan, a, b)
    if out.dtype == F32:
        out[(out != 0) & (np.abs(out) < _TINY)] = 0.0
    return out


@kernel(
    "mul",
    name="mul_denormals_are_zero",
    fault="denormals-are-zero: subnormal operands read as +-0 before multiplying",
)
def _mul_daz(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    def daz(value: Any) -> Any:
        v = np.asarray(value)
        if v.dtype != F32:
            return value
        flushed = np.where((v != 0) & (np.abs(v) < _TINY), np.copysign(np.float32(0), v), v)
        return flushed.astype(F32) if v.ndim else np.float32(flushed)

    x, y = (materialise(plan, i, v) for i, v in enumerate((a, b)))
    if plan.compute.name.startswith("INT32"):
        return KERNELS["mul"](backend, plan, a, b)
    with np.errstate(all="ignore"):
        return _result(backend, np.multiply(daz(x), daz(y), dtype=F32))


@kernel(
    "mul",
    name="mul_round_toward_zero",
    fault="products rounded toward zero instead of to nearest even",
)
def _mul_rtz(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    if plan.compute.name.startswith("INT32"):
        return KERNELS["mul"](backend, plan, a, b)
    x, y = _float_inputs(plan, (a, b))
    with np.errstate(all="ignore"):
        exact = x.astype(F64) * y.astype(F64)  # exact: 48-bit significands
    return _result(backend, _toward_zero(exact))


@kernel(
    "elementwise_mul",
    name="elementwise_mul_double_rounding",
    fault="double rounding: the exact product rounded to 25 bits, then to binary32",
)
def _emul_double(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    if plan.compute.name.startswith("INT32"):
        return KERNELS["elementwise_mul"](backend, plan, a, b)
    x, y = _float_inputs(plan, (a, b))
    with np.errstate(all="ignore"):
        exact = x.astype(F64) * y.astype(F64)
        return _result(backend, _round_to_bits(exact, 25).astype(F32))


@kernel(
    "sub",
    name="sub_double_rounding",
    fault="double rounding: the float64 difference rounded to 25 bits, then to binary32",
)
def _sub_double(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    if plan.compute.name.startswith("INT32"):
        return KERNELS["sub"](backend, plan, a, b)
    x, y = _float_inputs(plan, (a, b))
    with np.errstate(all="ignore"):
        difference = x.astype(F64) - y.astype(F64)
        return _result(backend, _round_to_bits(difference, 25).astype(F32))


@kernel("div", name="div_via_reciprocal", fault="fast-math division: x * (1 / y), two roundings")
def _div_recip(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    x, y = _float_inputs(plan, (a, b))
    with np.errstate(all="ignore"):
        return _result(backend, x * (np.float32(1.0) / y))


@kernel(
    "rem",
    name="rem_is_floor_modulo",
    fault="rem computed as Python/numpy floor modulo (sign of the divisor), not C fmod",
)
def _rem_mod(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    x, y = _float_inputs(plan, (a, b))
    with np.errstate(all="ignore"):
        return _result(backend, np.remainder(x, y))


@kernel("sqrt", name="sqrt_via_rsqrt", fault="sqrt(x) = x * (1/sqrt(x)) in float32")
def _sqrt_rsqrt(backend: Any, plan: OperationPlan, x: Any) -> Any:
    return _unary(lambda v: v * (np.float32(1.0) / np.sqrt(v)))(backend, plan, x)


@kernel(
    "recip",
    name="recip_newton_approximation",
    fault="reciprocal from a 12-bit estimate and one float32 Newton step",
)
def _recip_newton(backend: Any, plan: OperationPlan, x: Any) -> Any:
    def estimate(v: np.ndarray) -> np.ndarray:
        r0 = _round_to_bits(1.0 / v.astype(F64), 12).astype(F32)
        return r0 * (np.float32(2.0) - v * r0)

    return _unary(estimate)(backend, plan, x)


@kernel("add", name="add_int32_wraps", fault="Int32 add wraps around instead of OverflowError")
def _add_wraps(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    if not plan.compute.name.startswith("INT32"):
        return KERNELS["add"](backend, plan, a, b)
    x, y = _float_inputs(plan, (a, b))
    with np.errstate(all="ignore"):
        return _result(backend, np.add(x, y, dtype=I32), I32)


@kernel(
    "mul",
    name="mul_int32_saturates",
    fault="Int32 mul saturates at the Int32 limits instead of OverflowError",
)
def _mul_saturates(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    if not plan.compute.name.startswith("INT32"):
        return KERNELS["mul"](backend, plan, a, b)
    x, y = _float_inputs(plan, (a, b))
    wide = np.multiply(x.astype(I64), np.asarray(y).astype(I64))
    return _result(backend, np.clip(wide, -(2**31), 2**31 - 1), I32)


@kernel("pow", name="pow_int32_wraps", fault="Int32 pow wraps around instead of OverflowError")
def _pow_wraps(backend: Any, plan: OperationPlan, base: Any, exponent: Any) -> Any:
    if not plan.compute.name.startswith("INT32"):
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
    return _result(backend, result.astype(np.uint32).view(I32), I32)


# ---------------------------------------------------------------------------
# Conversions and private promotion tables
# ---------------------------------------------------------------------------


@kernel(
    "add",
    name="int32_to_float32_truncates",
    fault="Int32 -> Float32 conversion truncates toward zero instead of rounding",
)
def _convert_truncates(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    if plan.compute.name.startswith("INT32"):
        return KERNELS["add"](backend, plan, a, b)

    def convert(position: int, value: Any) -> np.ndarray:
        operand = plan.operands[position]
        if operand.dtype is DType.Int32:
            wide = np.asarray(value).astype(F64)
            return _toward_zero(wide)
        return np.asarray(materialise(plan, position, value))

    x, y = convert(0, a), convert(1, b)
    with np.errstate(all="ignore"):
        return _result(backend, np.add(x, y, dtype=F32))


@kernel(
    "mul",
    name="weak_int_via_float64",
    fault="a weak int is converted to Float32 through float64 (double rounding above 2**53)",
)
def _weak_via_float64(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    weak = plan.operands[1]
    if plan.compute.name.startswith("INT32") or weak.dtype is not None or isinstance(b, bool):
        return KERNELS["mul"](backend, plan, a, b)
    if not isinstance(b, (int, np.integer)):
        return KERNELS["mul"](backend, plan, a, b)
    x = np.asarray(materialise(plan, 0, a))
    with np.errstate(all="ignore"):
        y = np.float64(float(b) if abs(int(b)) < 2**1000 else np.inf * np.sign(b)).astype(F32)
        return _result(backend, np.multiply(x, y, dtype=F32))


@execute_override(
    "mul",
    name="weak_bool_as_integer",
    fault="private promotion table: a weak bool times an Int32 tensor stays Int32",
)
def _bool_as_int(
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


@execute_override(
    "add",
    name="int32_add_promotes_to_float32",
    fault="private promotion table: Int32 + Int32 gives Float32",
)
def _int_add_float(
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


@execute_override(
    "reduce_sum",
    "gather",
    name="allocates_before_errors",
    fault="allocates the result before planning and checking (an error comes after an allocation)",
)
def _allocate_first(
    backend: MutantBackend, operation: str, args: Any, accumulator: Any, options: Any
) -> Any:
    if operation in ("reduce_sum", "gather"):
        backend.allocated()  # the buffer is allocated before anything is validated
    return backend.correct_execute(operation, args, accumulator, options)


@kernel("lt", name="lt_returns_float32", fault="a predicate returns a Float32 0/1 tensor, not Bool")
def _lt_float(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    out = KERNELS["lt"](backend, plan, a, b)
    return out.astype(F32)


# ---------------------------------------------------------------------------
# Signed zeros, NaNs, extrema
# ---------------------------------------------------------------------------


@kernel("maximum", name="maximum_ignores_nan", fault="maximum is fmax: a NaN operand is ignored")
def _fmax(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    x, y = _float_inputs(plan, (a, b))
    return _result(backend, np.fmax(x, y))


@kernel(
    "minimum",
    name="minimum_zero_order",
    fault="minimum returns the first operand of an equal pair: minimum(+0, -0) = +0",
)
def _min_zero(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    x, y = _float_inputs(plan, (a, b))
    with np.errstate(all="ignore"):
        return _result(backend, np.where(np.isnan(x) | np.isnan(y), np.nan, np.where(y < x, y, x)))


@kernel(
    "clamp",
    name="clamp_is_numpy_clip",
    fault="clamp via numpy.clip: no -0 < +0 ordering (clamp(-0, +0, 1) = -0)",
)
def _clip(backend: Any, plan: OperationPlan, x: Any, lo: Any, hi: Any) -> Any:
    v, low, high = _float_inputs(plan, (x, lo, hi))
    with np.errstate(all="ignore"):
        return _result(backend, np.minimum(np.maximum(v, low), high))


@kernel(
    "relu", name="relu_keeps_negative_zero", fault="relu(x) = x if x >= 0 else +0: relu(-0) = -0"
)
def _relu_zero(backend: Any, plan: OperationPlan, x: Any) -> Any:
    if plan.output is DType.Int32:
        return KERNELS["relu"](backend, plan, x)
    return _unary(lambda v: np.where((v >= 0) | np.isnan(v), v, np.float32(0.0)))(backend, plan, x)


@kernel("relu", name="relu_nan_to_zero", fault="relu(NaN) = 0 (where(x > 0, x, 0))")
def _relu_nan(backend: Any, plan: OperationPlan, x: Any) -> Any:
    if plan.output is DType.Int32:
        return KERNELS["relu"](backend, plan, x)
    return _unary(lambda v: np.where(v > 0, v, np.float32(0.0)))(backend, plan, x)


@kernel("sign", name="sign_keeps_negative_zero", fault="sign(-0) = -0")
def _sign_zero(backend: Any, plan: OperationPlan, x: Any) -> Any:
    return _unary(lambda v: np.where(v == 0, v, np.sign(v)))(backend, plan, x)


@kernel("sign", name="sign_nan_is_zero", fault="sign(NaN) = 0 (comparisons only)")
def _sign_nan(backend: Any, plan: OperationPlan, x: Any) -> Any:
    return _unary(lambda v: (v > 0).astype(F32) - (v < 0).astype(F32))(backend, plan, x)


@kernel(
    "neg", name="neg_as_zero_minus_x", fault="neg(x) = 0 - x: neg(+0) = +0 and NaN bits not copied"
)
def _neg_sub(backend: Any, plan: OperationPlan, x: Any) -> Any:
    return _unary(lambda v: np.float32(0.0) - v)(backend, plan, x)


@kernel("abs", name="abs_via_select", fault="abs(x) = x < 0 ? -x : x: abs(-0) = -0, NaN sign kept")
def _abs_where(backend: Any, plan: OperationPlan, x: Any) -> Any:
    return _unary(lambda v: np.where(v < 0, -v, v))(backend, plan, x)


@kernel("round", name="round_half_away_from_zero", fault="round half away from zero (2.5 -> 3)")
def _round_away(backend: Any, plan: OperationPlan, x: Any) -> Any:
    return _unary(lambda v: np.copysign(np.floor(np.abs(v) + np.float32(0.5)), v))(backend, plan, x)


@kernel(
    "round",
    name="round_floor_plus_half",
    fault="round(x) = floor(x + 0.5) in float32 (ties up, round(-0.4) = +0)",
)
def _round_floor(backend: Any, plan: OperationPlan, x: Any) -> Any:
    return _unary(lambda v: np.floor(v + np.float32(0.5)))(backend, plan, x)


@kernel(
    "ceil",
    name="ceil_drops_negative_zero",
    fault="ceil via trunc(x) + (x > trunc(x)): ceil(-0.5) = +0",
)
def _ceil_zero(backend: Any, plan: OperationPlan, x: Any) -> Any:
    def ceil(v: np.ndarray) -> np.ndarray:
        t = np.trunc(v)
        return np.where(np.isfinite(v), t + (v > t).astype(F32), v)

    return _unary(ceil)(backend, plan, x)


@kernel(
    "leaky_relu",
    name="leaky_relu_float64_slope",
    fault="leaky_relu multiplies by the binary64 slope 0.01, not 0.01f",
)
def _leaky64(backend: Any, plan: OperationPlan, x: Any) -> Any:
    def leaky(v: np.ndarray) -> np.ndarray:
        return np.where(v >= 0, v, (v.astype(F64) * 0.01).astype(F32))

    return _unary(leaky)(backend, plan, x)


# ---------------------------------------------------------------------------
# Correctly rounded functions
# ---------------------------------------------------------------------------


@kernel("exp", name="exp_numpy_float32", fault="exp is numpy's float32 exp (not correctly rounded)")
def _exp32(backend: Any, plan: OperationPlan, x: Any) -> Any:
    return _unary(np.exp)(backend, plan, x)


@kernel(
    "tanh", name="tanh_numpy_float32", fault="tanh is numpy's float32 tanh (not correctly rounded)"
)
def _tanh32(backend: Any, plan: OperationPlan, x: Any) -> Any:
    return _unary(np.tanh)(backend, plan, x)


@kernel(
    "cos",
    name="cos_float32_range_reduction",
    fault="cos evaluated as float32 sin(x + pi/2) (a float32 range reduction)",
)
def _cos_shift(backend: Any, plan: OperationPlan, x: Any) -> Any:
    return _unary(lambda v: np.sin(v + np.float32(np.pi / 2)))(backend, plan, x)


@kernel(
    "exp",
    name="exp_one_ulp_off_sometimes",
    fault="exp is 1 ULP too large when the input's low 3 fraction bits are all ones (a lost "
    "carry into the table index)",
)
def _exp_ulp(backend: Any, plan: OperationPlan, x: Any) -> Any:
    out = KERNELS["exp"](backend, plan, x)
    v = np.asarray(materialise(plan, 0, x)).astype(F32)
    pick = ((_bits(v) & 0x7) == 0x7) & np.isfinite(out) & (out != 0)
    out[...] = np.where(pick, np.nextafter(out, np.float32(np.inf), dtype=F32), out)
    return out


@kernel(
    "sigmoid",
    name="sigmoid_float32_formula",
    fault="sigmoid = 1 / (1 + exp(-x)) evaluated in float32",
)
def _sigmoid32(backend: Any, plan: OperationPlan, x: Any) -> Any:
    return _unary(lambda v: np.float32(1.0) / (np.float32(1.0) + np.exp(-v)))(backend, plan, x)


@kernel("silu", name="silu_two_roundings", fault="silu = x * round(sigmoid(x)): two roundings")
def _silu2(backend: Any, plan: OperationPlan, x: Any) -> Any:
    def silu(v: np.ndarray) -> np.ndarray:
        sigmoid = (1.0 / (1.0 + np.exp(-v.astype(F64)))).astype(F32)
        return v * sigmoid

    return _unary(silu)(backend, plan, x)


@kernel("gelu", name="gelu_tanh_approximation", fault="gelu uses the tanh approximation")
def _gelu_tanh(backend: Any, plan: OperationPlan, x: Any) -> Any:
    def gelu(v: np.ndarray) -> np.ndarray:
        d = v.astype(F64)
        inner = np.sqrt(2.0 / np.pi) * (d + 0.044715 * d**3)
        return (0.5 * d * (1.0 + np.tanh(inner))).astype(F32)

    return _unary(gelu)(backend, plan, x)


@kernel(
    "softplus", name="softplus_threshold", fault="softplus(x) = x for x > 10 (a linear threshold)"
)
def _softplus_threshold(backend: Any, plan: OperationPlan, x: Any) -> Any:
    out = KERNELS["softplus"](backend, plan, x)
    v = np.asarray(materialise(plan, 0, x)).astype(F32)
    np.copyto(out, v, where=v > 10)
    return out


@kernel("elu", name="elu_exp_minus_one", fault="elu(x < 0) = exp(x) - 1 in float32 (no expm1)")
def _elu_exp(backend: Any, plan: OperationPlan, x: Any) -> Any:
    return _unary(lambda v: np.where(v > 0, v, np.exp(v) - np.float32(1.0)))(backend, plan, x)


@kernel("rsqrt", name="rsqrt_two_roundings", fault="rsqrt = 1 / sqrt(x) in float32: two roundings")
def _rsqrt2(backend: Any, plan: OperationPlan, x: Any) -> Any:
    return _unary(lambda v: np.float32(1.0) / np.sqrt(v))(backend, plan, x)
