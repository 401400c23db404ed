"""The mutant catalogue: realistic faulty backends that the suite must catch.

Each mutant is the CPU backend (:class:`backends.cpu.CPUBackend`) with one
fault a real kernel could have, injected by replacing the kernel of one
operation (or, for the private promotion tables and the allocation fault,
``execute``).  :data:`MUTANTS` maps each name to a :class:`Mutant` record --
the operations it breaks and the fault -- and every mutant is also a module
attribute, so it is a backend reference like any other::

    plancheck run --backend conformance.mutants:mul_round_toward_zero

The faults whose trigger is a class of the *result* (flush-to-zero of
subnormal results, overflow or saturation one step early, same-sign zero
extrema, Int32 results at the edge refused) live in
:mod:`conformance.result_mutants`, which registers them here: the catalogue
is both modules together.

``tests/test_mutants.py`` proves that the ``ci`` profile of the shipped suite
kills every one of them (running only the checks of the mutant's operations),
and ``python -m conformance.mutants`` prints the table of which check and
which boundary classes killed which mutant (``docs/mutants.md``).

The faults are chosen to be real and distinct: each one changes a result the
reference semantics fixes (``shared/spec/reference-semantics.md``), so a
mutant that survives means the suite lacks power, never that the mutant is
harmless.  (Two tempting candidates are *not* faults and are not here: adding
two binary32 numbers in float64 and rounding once is correctly rounded, and
numpy's pairwise ``np.sum`` is a valid order for a FLOATING ``reduce_sum``.)
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from backends.cpu import KERNELS, CPUBackend
from backends.cpu.convert import F32, F64, I32, I64, materialise
from backends.cpu.elementwise import new_array
from oracle import DType, OperationPlan

__all__ = [
    "KNOWN_GAPS",
    "MUTANTS",
    "Mutant",
    "MutantBackend",
    "kill",
    "markdown_table",
    "mutant_backend",
]

U32 = np.dtype(np.uint32)
_TINY = np.float32(2.0**-126)
Kernel = Callable[..., Any]


@dataclass(frozen=True)
class Mutant:
    """One faulty backend: its *name*, the *operations* it breaks and the *fault*."""

    name: str
    operations: tuple[str, ...]
    fault: str
    kernels: tuple[tuple[str, Kernel], ...] = ()
    execute: Callable[..., Any] | None = None


class MutantBackend(CPUBackend):
    """The CPU backend with the kernels (or ``execute``) of one :class:`Mutant`."""

    mutant: Mutant

    def execute(
        self, operation: str, *args: Any, accumulator_dtype: Any = None, options: Any = None
    ) -> Any:
        override = self.mutant.execute
        if override is not None:
            return override(self, operation, args, accumulator_dtype, options)
        return super().execute(
            operation, *args, accumulator_dtype=accumulator_dtype, options=options
        )

    def correct_execute(
        self, operation: str, args: Any, accumulator_dtype: Any = None, options: Any = None
    ) -> Any:
        return CPUBackend.execute(
            self, operation, *args, accumulator_dtype=accumulator_dtype, options=options
        )


MUTANTS: dict[str, Mutant] = {}

#: Mutants the ``ci`` profile does not kill yet, with the witness call that
#: would (a gap of the strategies' boundary examples).  Empty: every mutant is
#: killed, and ``tests/test_mutants.py`` keeps it so.  The last two gaps
#: (``weak_int_via_float64``, ``conv_fused_multiply_add``) were closed by the
#: weak class WEAK_DOUBLE_ROUNDING and the rounded-products example of matmul
#: and conv_general.
KNOWN_GAPS: dict[str, str] = {}


def _register(mutant: Mutant) -> None:
    assert mutant.name not in MUTANTS, mutant.name
    MUTANTS[mutant.name] = mutant
    cls = type(
        mutant.name,
        (MutantBackend,),
        {
            "name": f"mutant:{mutant.name}",
            "mutant": mutant,
            "kernels": {**KERNELS, **dict(mutant.kernels)},
            "__doc__": f"Mutant {mutant.name} ({', '.join(mutant.operations)}): {mutant.fault}",
            "__module__": __name__,
        },
    )
    setattr(sys.modules[__name__], mutant.name, cls)


def mutant_backend(name: str) -> MutantBackend:
    """A fresh instance of mutant *name*."""
    return getattr(sys.modules[__name__], MUTANTS[name].name)()


def kernel(*operations: str, fault: str, name: str) -> Callable[[Kernel], Kernel]:
    """Register the decorated function as the kernel of *operations* in mutant *name*."""

    def decorate(function: Kernel) -> Kernel:
        _register(Mutant(name, operations, fault, tuple((op, function) for op in operations)))
        return function

    return decorate


def execute_override(*operations: str, fault: str, name: str) -> Callable[[Any], Any]:
    """Register the decorated ``execute(backend, operation, args, acc, options)``."""

    def decorate(function: Any) -> Any:
        _register(Mutant(name, operations, fault, (), function))
        return function

    return decorate


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=F32).view(U32)


def _float_inputs(plan: OperationPlan, args: Any) -> list[Any]:
    return [np.asarray(materialise(plan, i, a)) for i, a in enumerate(args[: len(plan.operands)])]


def _result(backend: Any, values: np.ndarray, dtype: np.dtype = F32) -> np.ndarray:
    out = new_array(backend, np.shape(values), dtype)
    out[...] = values
    return out


def _unary(function: Callable[[np.ndarray], np.ndarray]) -> Kernel:
    """A Float32 unary kernel computing ``function(float32 array)`` (its own faulty way)."""

    def compute(backend: Any, plan: OperationPlan, x: Any) -> np.ndarray:
        (v,) = _float_inputs(plan, (x,))
        with np.errstate(all="ignore"):
            values = np.asarray(function(v.astype(F32)))
        return _result(backend, values.astype(F32))

    return compute


def _round_to_bits(x: np.ndarray, bits: int) -> np.ndarray:
    """float64 *x* rounded to *bits* significant bits (nearest even; Veltkamp splitting)."""
    factor = float(2 ** (53 - bits) + 1)
    with np.errstate(all="ignore"):
        t = x * factor
        return np.where(np.isfinite(t), t - (t - x), x)


def _toward_zero(exact: np.ndarray) -> np.ndarray:
    """float64 values rounded to binary32 toward zero (overflow gives +-MAX_FINITE)."""
    with np.errstate(all="ignore"):
        nearest = exact.astype(F32)
        away = np.abs(nearest.astype(F64)) > np.abs(exact)
        toward = np.nextafter(nearest, np.float32(0.0), dtype=F32)
        return np.where(away & np.isfinite(exact), toward, nearest).astype(F32)


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


# ---------------------------------------------------------------------------
# Accumulations
# ---------------------------------------------------------------------------


def _reduced(plan: OperationPlan, x: Any, axis: Any, keepdims: Any) -> tuple[np.ndarray, Any]:
    from backends.cpu.reductions import _layout

    v = np.asarray(materialise(plan, 0, x))
    return _layout(plan.operation, v, axis, keepdims)


@kernel(
    "reduce_sum",
    name="reduce_sum_float32_accumulator",
    fault="Float32 accumulation when a Float64 accumulator was requested",
)
def _sum_f32(backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False):
    if plan.accumulator_dtype is not DType.Float64:
        return KERNELS["reduce_sum"](backend, plan, x, axis, keepdims)
    from backends.cpu.reductions import sequential_reduce

    data, shape = _reduced(plan, x, axis, keepdims)
    out = new_array(backend, shape, F32)
    out.reshape(-1)[...] = sequential_reduce(data, np.add, 0.0, F32)
    return out


@kernel(
    "reduce_sum",
    name="reduce_sum_int32_checks_partial_sums",
    fault="Int32 reduce_sum raises when a partial sum leaves Int32 (the final sum fits)",
)
def _sum_partials(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> Any:
    if plan.output is DType.Int32:
        data, _ = _reduced(plan, x, axis, keepdims)
        partial = np.cumsum(data.astype(I64), axis=1)
        if partial.size and (partial.max() > 2**31 - 1 or partial.min() < -(2**31)):
            raise OverflowError("reduce_sum: a partial sum leaves Int32")
    return KERNELS["reduce_sum"](backend, plan, x, axis, keepdims)


@kernel(
    "reduce_prod",
    name="reduce_prod_float64_accumulator",
    fault="reduce_prod accumulates in float64 and rounds once (not sequential binary32)",
)
def _prod64(backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False):
    data, shape = _reduced(plan, x, axis, keepdims)
    out = new_array(backend, shape, F32)
    with np.errstate(all="ignore"):
        out.reshape(-1)[...] = np.prod(data.astype(F64), axis=1).astype(F32)
    return out


@kernel(
    "cumsum",
    name="cumsum_parallel_scan",
    fault="cumsum by a Hillis-Steele parallel scan (a different association than sequential)",
)
def _scan(backend: Any, plan: OperationPlan, x: Any, axis: Any) -> Any:
    from backends.cpu.convert import normalise_axis

    v = np.asarray(materialise(plan, 0, x))
    axis = normalise_axis(plan.operation, axis, v.ndim)
    out = new_array(backend, v.shape, F32)
    work = np.moveaxis(v.astype(F32).copy(), axis, -1)
    step = 1
    with np.errstate(all="ignore"):
        while step < work.shape[-1]:
            shifted = work.copy()
            shifted[..., step:] = work[..., step:] + work[..., :-step]
            work = shifted
            step *= 2
        work = work + np.float32(0.0)
    out[...] = np.moveaxis(work, -1, axis)
    return out


@kernel(
    "cumsum",
    name="cumsum_starts_at_first_term",
    fault="cumsum starts from the first term, not +0 (a prefix of -0 terms stays -0)",
)
def _cumsum_zero(backend: Any, plan: OperationPlan, x: Any, axis: Any) -> Any:
    from backends.cpu.convert import normalise_axis

    v = np.asarray(materialise(plan, 0, x))
    axis = normalise_axis(plan.operation, axis, v.ndim)
    out = new_array(backend, v.shape, F32)
    if out.size:
        with np.errstate(all="ignore"):
            np.add.accumulate(v, axis=axis, dtype=F32, out=out)
    return out


@kernel("reduce_max", name="reduce_max_ignores_nan", fault="reduce_max ignores NaN (nanmax)")
def _nanmax(backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False):
    out = KERNELS["reduce_max"](backend, plan, x, axis, keepdims)
    data, _ = _reduced(plan, x, axis, keepdims)
    if data.shape[1]:
        with np.errstate(all="ignore"), __import__("warnings").catch_warnings():
            __import__("warnings").simplefilter("ignore")
            ignoring = np.nanmax(data, axis=1)
        finite = ~np.isnan(ignoring)
        out.reshape(-1)[finite] = ignoring[finite]
    return out


@kernel(
    "reduce_max",
    name="reduce_max_zero_order",
    fault="reduce_max keeps the first of equal values: reduce_max([-0, +0]) = -0",
)
def _max_zero(backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False):
    data, shape = _reduced(plan, x, axis, keepdims)
    if data.shape[1] == 0:
        return KERNELS["reduce_max"](backend, plan, x, axis, keepdims)
    out = new_array(backend, shape, F32)
    with np.errstate(all="ignore"):
        out.reshape(-1)[...] = np.maximum.reduce(data, axis=1)
    return out


@kernel(
    "reduce_min",
    name="reduce_min_canonical_nan",
    fault="reduce_min returns the canonical NaN, not the first NaN's bits",
)
def _min_nan(backend: Any, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False):
    out = KERNELS["reduce_min"](backend, plan, x, axis, keepdims)
    out[np.isnan(out)] = np.float32(np.nan)
    return out


def _arg_input(plan: OperationPlan, x: Any, axis: Any) -> tuple[np.ndarray, Any]:
    v = np.asarray(materialise(plan, 0, x))
    if axis is None:
        return v.reshape(1, v.size), ()
    from backends.cpu.convert import normalise_axis

    axis = normalise_axis(plan.operation, axis, v.ndim)
    return _reduced(plan, x, axis, False)


@kernel("argmax", name="argmax_last_wins", fault="argmax ties go to the last index")
def _argmax_last(backend: Any, plan: OperationPlan, x: Any, axis: Any = None) -> Any:
    from backends.cpu.reductions import _order_keys

    data, shape = _arg_input(plan, x, axis)
    if data.shape[1] == 0:
        return KERNELS["argmax"](backend, plan, x, axis)
    with np.errstate(all="ignore"):
        keys = _order_keys(np.ascontiguousarray(data + np.float32(0.0)).view(np.int32))
    index = data.shape[1] - 1 - keys[:, ::-1].argmax(axis=1)  # the last of equal maxima
    nan = np.isnan(data)
    rows = nan.any(axis=1)
    index[rows] = nan[rows].argmax(axis=1)  # the first NaN still wins
    return _result(backend, index.reshape(shape), I32)


@kernel("argmax", name="argmax_ignores_nan", fault="argmax ignores NaN (nanargmax)")
def _argmax_nan(backend: Any, plan: OperationPlan, x: Any, axis: Any = None) -> Any:
    data, shape = _arg_input(plan, x, axis)
    if data.shape[1] == 0 or np.isnan(data).all(axis=1).any():
        return KERNELS["argmax"](backend, plan, x, axis)
    index = np.nanargmax(data, axis=1)
    return _result(backend, index.reshape(shape), I32)


@kernel(
    "argmin",
    name="argmin_orders_zeros",
    fault="argmin treats -0 as smaller than +0 (the zeros do not tie)",
)
def _argmin_zero(backend: Any, plan: OperationPlan, x: Any, axis: Any = None) -> Any:
    from backends.cpu.reductions import _order_keys

    data, shape = _arg_input(plan, x, axis)
    if data.shape[1] == 0:
        return KERNELS["argmin"](backend, plan, x, axis)
    keys = _order_keys(np.ascontiguousarray(data).view(np.int32))
    index = keys.argmin(axis=1)
    nan = np.isnan(data)
    rows = nan.any(axis=1)
    index[rows] = nan[rows].argmax(axis=1)
    return _result(backend, index.reshape(shape), I32)


# ---------------------------------------------------------------------------
# matmul and conv
# ---------------------------------------------------------------------------


@kernel(
    "matmul",
    name="matmul_fused_multiply_add",
    fault="matmul products are not rounded (fused multiply-add, float64 products)",
)
def _matmul_fma(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    if plan.output is not DType.Float32:
        return KERNELS["matmul"](backend, plan, a, b)
    x, y = _float_inputs(plan, (a, b))
    if x.ndim != 2 or y.ndim != 2 or x.shape[1] != y.shape[0]:
        return KERNELS["matmul"](backend, plan, a, b)
    out = new_array(backend, (x.shape[0], y.shape[1]), F32)
    acc_dtype = F64 if plan.accumulator_dtype is DType.Float64 else F32
    acc = np.zeros(out.shape, acc_dtype)
    with np.errstate(all="ignore"):
        for k in range(x.shape[1]):
            exact = np.multiply.outer(x[:, k].astype(F64), y[k].astype(F64))
            acc = (acc.astype(F64) + exact).astype(acc_dtype)  # one rounding per step
    out[...] = acc
    return out


@kernel(
    "matmul",
    name="matmul_float32_accumulator",
    fault="matmul accumulates in Float32 when a Float64 accumulator was requested",
)
def _matmul_f32(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    if plan.accumulator_dtype is not DType.Float64:
        return KERNELS["matmul"](backend, plan, a, b)
    from backends.cpu.structured import _matmul_shapes, float_matmul

    x, y = _float_inputs(plan, (a, b))
    m, _, n = _matmul_shapes(plan.operation, x, y)
    out = new_array(backend, (m, n), F32)
    return float_matmul(x, y, F32, out)


@kernel(
    "matmul", name="matmul_int32_wraps", fault="Int32 matmul wraps around instead of OverflowError"
)
def _matmul_wraps(backend: Any, plan: OperationPlan, a: Any, b: Any) -> Any:
    if plan.output is not DType.Int32:
        return KERNELS["matmul"](backend, plan, a, b)
    from backends.cpu.structured import _matmul_shapes

    x, y = _float_inputs(plan, (a, b))
    m, _, n = _matmul_shapes(plan.operation, x, y)
    with np.errstate(all="ignore"):
        wide = (x.astype(I64) @ y.astype(I64)) & 0xFFFFFFFF
    return _result(backend, wide.astype(np.uint32).view(I32).reshape(m, n), I32)


@kernel(
    "conv_general",
    name="conv_fused_multiply_add",
    fault="conv_general adds each exact product with one rounding (fma), not round(x * w)",
)
def _conv_fma(backend: Any, plan: OperationPlan, lhs: Any, rhs: Any, *parameters: Any) -> Any:
    from backends.cpu import structured

    x = np.asarray(materialise(plan, 0, lhs))
    w = np.asarray(materialise(plan, 1, rhs))
    parameters = (*parameters, *(None, None, None, None, 1)[len(parameters) :])
    g = structured._conv_geometry(plan.operation, x, w, *parameters)
    groups, batch, out_channels = g["groups"], g["batch"], g["out_channels"]
    group_channels, out_spatial = g["group_channels"], g["out_spatial"]
    per_group = out_channels // groups
    out = new_array(backend, (batch, out_channels, *out_spatial), F32)
    acc = np.zeros((batch, groups, per_group, *out_spatial), F32)
    if acc.size and group_channels:
        padded = structured._padded_input(x, g)
        xp = padded.reshape(batch, groups, group_channels, *padded.shape[2:])
        weights = w.reshape(groups, per_group, group_channels, *g["window"])
        ones = (1,) * len(out_spatial)
        with np.errstate(all="ignore"):
            for position in np.ndindex(*g["window"]):
                index = [slice(None)] * 3
                for p, rd, s, n in zip(position, g["rhs_dilation"], g["strides"], out_spatial):
                    index.append(slice(p * rd, p * rd + (n - 1) * s + 1, s))
                view = xp[tuple(index)]
                for c in range(group_channels):
                    weight = weights[(slice(None), slice(None), c, *position)]
                    term = view[:, :, c, None].astype(F64) * weight.reshape(
                        1, groups, per_group, *ones
                    ).astype(F64)  # exact: no rounding of the product
                    acc = (acc.astype(F64) + term).astype(F32)
    out[...] = acc.reshape(out.shape)
    return out


# ---------------------------------------------------------------------------
# Indexing, ordering, selection
# ---------------------------------------------------------------------------


@kernel(
    "gather",
    name="gather_negative_indices_wrap",
    fault="gather accepts negative indices and wraps them (numpy take), no IndexError",
)
def _gather_wrap(backend: Any, plan: OperationPlan, data: Any, indices: Any, axis: Any) -> Any:
    from backends.cpu.convert import normalise_axis

    d = np.asarray(materialise(plan, 0, data))
    i = np.asarray(materialise(plan, 1, indices))
    axis = normalise_axis(plan.operation, axis, d.ndim)
    if i.size and (i.max() >= d.shape[axis] or i.min() < -d.shape[axis]):
        return KERNELS["gather"](backend, plan, data, indices, axis)
    return _result(backend, np.take(d, i, axis=axis))


@kernel(
    "scatter",
    name="scatter_duplicates_last_wins",
    fault="scatter accepts duplicate indices (the last update wins), no ValueError",
)
def _scatter_dup(
    backend: Any, plan: OperationPlan, base: Any, indices: Any, updates: Any, axis: Any
) -> Any:
    from backends.cpu.structured import _flat_updates, _scatter_operands

    b, i, u, axis = _scatter_operands(plan, base, indices, updates, axis)
    out = new_array(backend, b.shape, F32)
    out[...] = b
    flat = i.reshape(-1)
    np.moveaxis(out, axis, 0)[flat] = _flat_updates(b, i, u, axis)
    return out


@kernel(
    "scatter_add",
    name="scatter_add_reversed_order",
    fault="scatter_add applies the updates of a repeated index in reverse order",
)
def _scatter_add_rev(
    backend: Any, plan: OperationPlan, base: Any, indices: Any, updates: Any, axis: Any
) -> Any:
    from backends.cpu.structured import _flat_updates, _scatter_operands

    b, i, u, axis = _scatter_operands(plan, base, indices, updates, axis)
    out = new_array(backend, b.shape, F32)
    out[...] = b
    target = np.moveaxis(out, axis, 0)
    source = _flat_updates(b, i, u, axis)
    flat = i.reshape(-1)
    with np.errstate(all="ignore"):
        for position in range(flat.size - 1, -1, -1):
            target[flat[position]] = target[flat[position]] + source[position]
    return out


@kernel(
    "select",
    name="select_arithmetic_blend",
    fault="select as cond * t + (1 - cond) * f: NaNs leak from the other branch, -0 lost",
)
def _select_blend(backend: Any, plan: OperationPlan, cond: Any, on_true: Any, on_false: Any):
    c, t, f = _float_inputs(plan, (cond, on_true, on_false))
    with np.errstate(all="ignore"):
        c = c.astype(F32)
        return _result(backend, c * t + (np.float32(1.0) - c) * f)


def _sort_keys(x: np.ndarray) -> np.ndarray:
    from backends.cpu.structured import _sort_keys as keys

    return keys(x)


@kernel(
    "_sort_indices",
    name="sort_unstable",
    fault="sort is not stable: equal keys come out in reverse order",
)
def _sort_unstable(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = -1, descending: Any = False
) -> Any:
    from backends.cpu.convert import normalise_axis

    v = np.asarray(materialise(plan, 0, x))
    axis = normalise_axis(plan.operation, axis, v.ndim)
    keys = _sort_keys(v)
    if descending:
        keys = -keys
    flipped = np.flip(keys, axis=axis)
    order = np.argsort(flipped, axis=axis, kind="stable")
    order = v.shape[axis] - 1 - order
    return _result(backend, order, I32)


@kernel(
    "_sort_values",
    name="sort_nans_first",
    fault="NaNs sort first in ascending order (and last descending)",
)
def _sort_nan(
    backend: Any, plan: OperationPlan, x: Any, axis: Any = -1, descending: Any = False
) -> Any:
    from backends.cpu.convert import normalise_axis

    v = np.asarray(materialise(plan, 0, x))
    axis = normalise_axis(plan.operation, axis, v.ndim)
    keys = _sort_keys(v)
    keys[np.isnan(v)] = -(2**31) - 1  # below every non-NaN key
    if descending:
        keys = -keys
    order = np.argsort(keys, axis=axis, kind="stable")
    return _result(backend, np.take_along_axis(v, order, axis=axis))


@kernel(
    "_topk_values",
    name="topk_nans_not_largest",
    fault="topk(largest=True) treats NaN as the smallest value (NaNs never selected first)",
)
def _topk_nan(
    backend: Any, plan: OperationPlan, x: Any, k: Any, axis: Any = -1, largest: Any = True
) -> Any:
    from backends.cpu.convert import normalise_axis

    v = np.asarray(materialise(plan, 0, x))
    axis = normalise_axis(plan.operation, axis, v.ndim)
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or not 0 <= k <= v.shape[axis]:
        return KERNELS["_topk_values"](backend, plan, x, k, axis, largest)
    keys = _sort_keys(v)
    keys[np.isnan(v)] = -(2**31) - 1 if largest else 2**31
    order = np.argsort(-keys if largest else keys, axis=axis, kind="stable")
    order = np.take(order, np.arange(int(k)), axis=axis)
    return _result(backend, np.take_along_axis(v, order, axis=axis))


@kernel("_topk_indices", name="topk_ties_prefer_later", fault="topk breaks ties by the later index")
def _topk_ties(
    backend: Any, plan: OperationPlan, x: Any, k: Any, axis: Any = -1, largest: Any = True
) -> Any:
    from backends.cpu.convert import normalise_axis

    v = np.asarray(materialise(plan, 0, x))
    axis = normalise_axis(plan.operation, axis, v.ndim)
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or not 0 <= k <= v.shape[axis]:
        return KERNELS["_topk_indices"](backend, plan, x, k, axis, largest)
    keys = _sort_keys(v)
    if largest:
        keys = -keys
    flipped = np.flip(keys, axis=axis)
    order = v.shape[axis] - 1 - np.argsort(flipped, axis=axis, kind="stable")
    return _result(backend, np.take(order, np.arange(int(k)), axis=axis), I32)


# ---------------------------------------------------------------------------
# The kill table (python -m conformance.mutants)
# ---------------------------------------------------------------------------


def kill(name: str, profile: str = "ci") -> dict[str, Any]:
    """Run the suite's checks for mutant *name*'s operations; what killed it.

    Returns ``{"mutant", "operations", "killed", "check", "plan", "classes",
    "example", "problem"}`` -- *check* is the first check that failed
    (boundary, corpus, invalid, generated), *classes* the input classes of
    the failing call and *result_classes* the result classes of its expected
    value.
    """
    from oracle import resolvable_plans

    from .result_classes import result_classes_hit
    from .suite import CHECKS, PROFILES, Checker, HungCall, NonConformance, applies

    mutant = MUTANTS[name]
    backend = mutant_backend(name)
    plans = [p for p in resolvable_plans() if p.operation in mutant.operations]
    for kind in CHECKS:
        for plan in plans:
            if not applies(kind, plan):
                continue
            checker = Checker(backend, f"conformance.mutants:{name}", plan, kind, PROFILES[profile])
            try:
                CHECKS[kind](checker)
            except (NonConformance, HungCall) as failure:
                call = checker.killing_call
                classes = sorted(c.name for c in call.classes) if call is not None else []
                results = sorted(c.name for c in result_classes_hit(call)) if call else []
                report = failure.report
                return {
                    "mutant": name,
                    "operations": list(mutant.operations),
                    "fault": mutant.fault,
                    "killed": True,
                    "check": kind,
                    "plan": plan.describe(),
                    "classes": classes,
                    "result_classes": results,
                    "note": call.note if call is not None else "",
                    "problem": report.problem,
                    "rule": report.rule,
                    "report": report.text(),
                }
    return {
        "mutant": name,
        "operations": list(mutant.operations),
        "fault": mutant.fault,
        "killed": False,
        "check": None,
    }


def markdown_table(results: list[dict[str, Any]]) -> str:
    """``docs/mutants.md``: which check and which classes killed each mutant."""
    killed = sum(1 for r in results if r["killed"])
    lines = [
        "# Mutants: the suite's detection power",
        "",
        "Generated by `python -m conformance.mutants > docs/mutants.md` (the `ci` profile;",
        "`tests/test_mutants.py` checks that every mutant is killed and listed here).",
        "Each mutant is the CPU backend with one realistic fault (`conformance/mutants.py`).",
        "The checks run in the order boundary examples, corpus, invalid calls, generated",
        "calls; *killed by* is the first that failed, with the failing call's input",
        "classes (for a corpus kill, the classes of the single failing case) and the",
        "result classes of its expected value (after `result:`).",
        "",
        f"{killed} of {len(results)} mutants killed by the `ci` profile"
        + (
            f"; {len(results) - killed} known gaps (see the end of the table)."
            if killed < len(results)
            else "."
        ),
        "",
        "| mutant | operations | fault | killed by | plan | failing call: classes / note | "
        "rule broken |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        if not r["killed"]:
            gap = KNOWN_GAPS.get(r["mutant"])
            if gap:
                lines.append(
                    f"| `{r['mutant']}` | {', '.join(r['operations'])} | {r['fault']} | "
                    f"**survives ci** (known gap) | | {gap} | |"
                )
                continue
            lines.append(
                f"| `{r['mutant']}` | {', '.join(r['operations'])} | {r['fault']} | "
                f"**SURVIVED** | | | |"
            )
            continue
        classes = ", ".join(r["classes"]) or "-"
        if r.get("result_classes"):
            classes += "; result: " + ", ".join(r["result_classes"])
        note = f" ({r['note']})" if r.get("note") else ""
        rule = r["rule"].replace("|", "/")
        lines.append(
            f"| `{r['mutant']}` | {', '.join(r['operations'])} | {r['fault']} | {r['check']} | "
            f"`{r['plan']}` | {classes}{note} | {rule} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:  # pragma: no cover - a generator for docs/mutants.md
    results = [kill(name) for name in MUTANTS]
    results.sort(key=lambda r: (not r["killed"], 0))  # known gaps last, otherwise catalogue order
    print(markdown_table(results), end="")
    survivors = {r["mutant"] for r in results if not r["killed"]}
    return 0 if survivors <= set(KNOWN_GAPS) else 1


# The result-class faults register themselves in MUTANTS (an import cycle that is
# safe either way round: result_mutants needs only Mutant and MutantBackend).
from . import result_mutants  # noqa: E402, F401

if __name__ == "__main__":  # pragma: no cover
    # run as a script, this file is __main__: the catalogue the result mutants
    # registered in is the importable conformance.mutants
    from conformance.mutants import main as _main

    sys.exit(_main())
