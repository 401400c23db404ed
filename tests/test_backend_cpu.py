"""The CPU backend: hand-derived facts, errors before allocation, and correct rounding.

Every expected value here is derived from ``reference-semantics.md`` by hand
or computed independently of the backend: transcendentals against MPFR
(gmpy2; single functions in the binary32 context, composites at high
precision rounded with :func:`oracle.binary32.round_mpfr`), sums, products,
matmul and conv against slow Python loops that round every step with numpy
float32 scalars.
"""

from __future__ import annotations

import itertools
import math
import os
import re
from fractions import Fraction
from typing import ClassVar

import gmpy2
import numpy as np
import pytest

import backends
import oracle
from backends.cpu import CPUBackend, erf_tables, transcendental
from backends.cpu.convert import round_rational, weak_to_float32
from backends.cpu.elementwise import LEAKY_RELU_SLOPE
from oracle import DType, Tensor, operation_execution_options
from oracle import vectorised as oracle_vectorised
from oracle.binary32 import binary32_context, round_mpfr
from oracle.reference import rounded as reference_rounded

# The backends are silent on IEEE exceptions: a RuntimeWarning is a failure.
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

F32 = np.float32
I32 = np.int32
INT32_MAX, INT32_MIN = 2**31 - 1, -(2**31)
#: inputs per transcendental function (about 10**5 by default)
SAMPLES = int(os.environ.get("PLANCHECK_CPU_SAMPLES", "100000"))


@pytest.fixture
def cpu() -> CPUBackend:
    return CPUBackend()


def f32(*values: float) -> np.ndarray:
    return np.array(values, dtype=F32)


def bits(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, dtype=F32).view(np.uint32)


def from_bits(*patterns: int) -> np.ndarray:
    return np.array(patterns, dtype=np.uint32).view(F32)


def same(actual: np.ndarray, expected: np.ndarray) -> bool:
    """Bit-exact equality, with any NaN matching any NaN."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return False
    if actual.dtype != F32:
        return bool(np.array_equal(actual, expected))
    nan = np.isnan(actual) & np.isnan(expected)
    return bool(np.all(nan | (bits(actual) == bits(expected))))


# ---------------------------------------------------------------------------
# Native values
# ---------------------------------------------------------------------------


def test_backend_is_registered_and_maps_dtypes(cpu):
    assert backends.get("cpu").name == "cpu"
    assert cpu.dtype_of(f32(1)) is DType.Float32
    assert cpu.dtype_of(np.array([1], I32)) is DType.Int32
    assert cpu.dtype_of(np.array([True])) is DType.Bool
    assert cpu.dtype_of(np.array(1.5, F32)) is DType.Float32  # 0-d arrays are tensors
    assert cpu.dtype_of(1.5) is None and cpu.dtype_of(np.float32(1.5)) is None


@pytest.mark.parametrize(
    "array",
    [
        np.zeros(3, np.float64),
        np.zeros(3, np.int64),
        np.zeros(3, np.float16),
        np.zeros(3, ">f4"),
        np.ma.array(np.zeros(3, F32)),
    ],
    ids=["float64", "int64", "float16", "big-endian", "masked"],
)
def test_foreign_arrays_are_refused_before_allocation(cpu, array):
    with pytest.raises(TypeError, match="cpu backend"):
        cpu.execute("add", array, f32(1, 2, 3))
    assert cpu.allocations == 0


def test_tensor_exchange_keeps_bits(cpu):
    t = Tensor(DType.Float32, (2, 2), (1.5, -0.0, math.inf, 2.0**-149))
    native = cpu.from_tensor(t)
    assert native.dtype == F32 and native.shape == (2, 2)
    assert cpu.to_tensor(native) == t
    signalling = from_bits(0x7F800001, 0xFFA00001)
    assert bits(cpu.from_tensor(cpu.to_tensor(signalling))).tolist() in (
        [0x7F800001, 0xFFA00001],
        [0x7FC00001, 0xFFE00001],  # a platform that quiets NaNs through Python floats
    )
    assert cpu.to_tensor(np.array([1, 2], I32)) == Tensor(DType.Int32, (2,), (1, 2))
    with pytest.raises(TypeError):
        cpu.to_tensor(np.zeros(2))


def test_results_are_new_arrays_even_for_0d(cpu):
    out = cpu.execute("add", np.array(1.0, F32), np.array(2.0, F32))
    assert type(out) is np.ndarray and out.shape == () and out.dtype == F32 and out == 3
    x = np.array([1, -2], I32)
    r = cpu.execute("relu", x)
    assert r is not x and r.tolist() == [1, 0]


# ---------------------------------------------------------------------------
# Conversions
# ---------------------------------------------------------------------------


def test_int32_to_float32_rounds_once(cpu):
    x = np.array([2**24 + 1, 2**24 + 3, INT32_MAX, INT32_MIN], I32)
    out = cpu.execute("add", x, f32(0, 0, 0, 0))
    assert out.tolist() == [16777216.0, 16777220.0, 2147483648.0, -2147483648.0]


def test_weak_scalars_round_their_exact_value(cpu):
    one = f32(1.0)
    # (2**24 + 1) * 2**29 + 1: float64 would round it to a binary32 midpoint, then to even
    n = (2**24 + 1) * 2**29 + 1
    assert float(weak_to_float32(n)) == 2.0**53 + 2.0**30
    assert cpu.execute("mul", one, n).tolist() == [2.0**53 + 2.0**30]
    assert cpu.execute("mul", one, 2**24 + 1).dtype == F32  # a Float32 tensor: float branch
    assert float(weak_to_float32(10**400)) == math.inf
    assert float(weak_to_float32(-(10**400))) == -math.inf
    assert float(weak_to_float32(Fraction(1, 3))) == float(np.float32(1 / 3))
    assert float(weak_to_float32(Fraction(-1, 3 * 2**149))) == -0.0
    assert math.copysign(1, weak_to_float32(Fraction(-1, 3 * 2**149))) == -1
    assert float(weak_to_float32(Fraction(3, 2**151))) == 2.0**-149  # 0.75 ulp rounds up
    assert float(weak_to_float32(Fraction(1, 2**150))) == 0.0  # a tie goes to even (0)
    assert float(weak_to_float32(True)) == 1.0 and float(weak_to_float32(np.bool_(False))) == 0
    assert float(weak_to_float32(0.1)) == float(np.float32(0.1))
    assert float(weak_to_float32(2**128 - 2**103)) == math.inf  # the overflow tie
    assert float(weak_to_float32(2**128 - 2**103 - 1)) == float(np.finfo(F32).max)


def test_round_rational_matches_exact_rounding_on_random_values():
    rng = np.random.default_rng(5)
    for _ in range(2000):
        n = int(rng.integers(-(2**62), 2**62)) * 2 ** int(rng.integers(-40, 40))
        d = int(rng.integers(1, 2**40))
        q = Fraction(n) / d
        expected = np.float32(round_mpfr(gmpy2.mpfr(gmpy2.mpq(q.numerator, q.denominator), 300)))
        got = round_rational(q.numerator, q.denominator)
        assert bits(got) == bits(expected), q


# ---------------------------------------------------------------------------
# Elementwise Float32
# ---------------------------------------------------------------------------


def test_rem_is_c_fmod(cpu):
    x = f32(5, -5, -6, 7, math.inf, -math.inf, 3, -3, 0, -0.0, 2.0**-149)
    y = f32(0, -0.0, 3, math.inf, 2, 2, -math.inf, math.inf, 5, 5, 3)
    out = cpu.execute("rem", x, y)
    assert np.isnan(out[:2]).all() and np.isnan(out[4:6]).all()
    assert bits(out[2]) == bits(F32(-0.0))  # fmod(-6, 3) = -0
    assert out[3] == 7 and out[6] == 3 and bits(out[7]) == bits(F32(-3))
    assert bits(out[8:]).tolist() == bits(f32(0, -0.0, 2.0**-149)).tolist()
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(20000) * np.exp2(rng.integers(-30, 30, 20000))).astype(F32)
    b = (rng.standard_normal(20000) * np.exp2(rng.integers(-30, 30, 20000))).astype(F32)
    got = cpu.execute("rem", a, b)
    exact = np.array([math.fmod(float(u), float(v)) for u, v in zip(a, b)]).astype(F32)
    assert same(got, exact)  # fmod is exact, so math.fmod in binary64 is exact too


@pytest.mark.parametrize("order", [0, 1])
def test_maximum_minimum_signed_zeros_and_nan(cpu, order):
    pz, nz = f32(0.0), f32(-0.0)
    a, b = (pz, nz) if order == 0 else (nz, pz)
    assert bits(cpu.execute("maximum", a, b)) == bits(pz)
    assert bits(cpu.execute("minimum", a, b)) == bits(nz)
    assert np.isnan(cpu.execute("maximum", f32(math.nan), f32(1))).all()
    assert np.isnan(cpu.execute("minimum", f32(1), f32(math.nan))).all()
    assert bits(cpu.execute("maximum", nz, nz)) == bits(nz)
    assert bits(cpu.execute("minimum", pz, pz)) == bits(pz)
    x = f32(1, -2, 0.0, -0.0, math.inf, 0.0, -0.0, 0.0, -0.0)
    y = f32(-1, -3, -0.0, 0.0, -math.inf, -1, -1, 1, 1)
    assert (
        bits(cpu.execute("maximum", x, y)).tolist()
        == bits(f32(1, -2, 0.0, 0.0, math.inf, 0.0, -0.0, 1, 1)).tolist()
    )
    assert (
        bits(cpu.execute("minimum", x, y)).tolist()
        == bits(f32(-1, -3, -0.0, -0.0, -math.inf, -1, -1, 0.0, -0.0)).tolist()
    )


def test_broadcasting_binary_and_shape_errors(cpu):
    out = cpu.execute("add", np.ones((2, 1), F32), f32(1, 2, 3))
    assert out.shape == (2, 3)
    with pytest.raises(ValueError, match=r"\(2,\).*\(3,\)"):
        cpu.execute("add", f32(1, 2), f32(1, 2, 3))
    assert cpu.allocations == 1


def test_unary_bit_operations_keep_nan_payloads(cpu):
    x = from_bits(0x7F800001, 0xFFC12345, 0x00000001, 0x80000000)
    assert bits(cpu.execute("neg", x)).tolist() == [0xFF800001, 0x7FC12345, 0x80000001, 0]
    assert bits(cpu.execute("abs", x)).tolist() == [0x7F800001, 0x7FC12345, 1, 0]


def test_rounding_sign_and_activations(cpu):
    x = f32(2.5, -0.5, 0.5, 1.5, -2.5, -0.0)
    assert bits(cpu.execute("round", x)).tolist() == bits(f32(2, -0.0, 0, 2, -2, -0.0)).tolist()
    assert bits(cpu.execute("ceil", f32(-0.5, -0.0))).tolist() == bits(f32(-0.0, -0.0)).tolist()
    assert bits(cpu.execute("floor", f32(-0.0, 0.5))).tolist() == bits(f32(-0.0, 0.0)).tolist()
    s = cpu.execute("sign", f32(-3, -0.0, 0.0, 7, math.nan, -math.inf))
    assert bits(s[:4]).tolist() == bits(f32(-1, 0, 0, 1)).tolist() and np.isnan(s[4])
    assert s[5] == -1
    r = cpu.execute("relu", f32(-0.0, -1, 2, math.nan))
    assert bits(r[:3]).tolist() == bits(f32(0, 0, 2)).tolist() and np.isnan(r[3])
    assert cpu.execute("relu", np.array([-5, 5], I32)).tolist() == [0, 5]
    assert bits(LEAKY_RELU_SLOPE) == 0x3C23D70A
    lr = cpu.execute("leaky_relu", f32(-0.0, -1, 3, -math.inf, math.nan))
    assert bits(lr[0]) == 0x80000000 and lr[1] == np.float32(-1) * LEAKY_RELU_SLOPE
    assert lr[2] == 3 and lr[3] == -math.inf and np.isnan(lr[4])
    assert cpu.execute("leaky_relu", np.array([-100], I32)).tolist() == [
        float(np.float32(-100) * LEAKY_RELU_SLOPE)
    ]
    rec = cpu.execute("recip", f32(0.0, -0.0, 3, math.inf))
    assert rec.tolist()[:2] == [math.inf, -math.inf] and rec[2] == np.float32(1) / np.float32(3)
    assert bits(rec[3]) == 0


def test_predicates(cpu):
    x = f32(math.nan, 0.0, 1, 2)
    y = f32(math.nan, -0.0, 2, 1)
    assert cpu.execute("eq", x, y).tolist() == [False, True, False, False]
    assert cpu.execute("ne", x, y).tolist() == [True, False, True, True]
    assert cpu.execute("lt", x, y).tolist() == [False, False, True, False]
    assert cpu.execute("le", x, y).tolist() == [False, True, True, False]
    assert cpu.execute("logical_not", f32(0.0, -0.0, math.nan, 1)).tolist() == [
        True,
        True,
        False,
        False,
    ]
    assert cpu.execute("eq", x, y).dtype == np.bool_


def test_division_of_int32_is_float32(cpu):
    out = cpu.execute("div", np.array([1, 7, 0], I32), np.array([3, 0, 0], I32))
    assert out.dtype == F32 and out[0] == np.float32(1) / np.float32(3)
    assert out[1] == math.inf and np.isnan(out[2])


# ---------------------------------------------------------------------------
# Int32 checked arithmetic
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("operation", "a", "b"),
    [
        ("add", [INT32_MAX], [1]),
        ("add", [INT32_MIN], [-1]),
        ("sub", [INT32_MIN], [1]),
        ("sub", [0], [INT32_MIN]),
        ("mul", [2**16], [2**15]),
        ("elementwise_mul", [INT32_MIN], [-1]),
    ],
)
def test_int32_overflow_raises_before_allocation(cpu, operation, a, b):
    with pytest.raises(OverflowError, match=operation):
        cpu.execute(operation, np.array(a, I32), np.array(b, I32))
    assert cpu.allocations == 0


def test_int32_exact_near_the_range_edges(cpu):
    # the extremes alone would overflow, the exact results do not
    a = np.array([INT32_MAX, INT32_MIN], I32)
    b = np.array([-1, 1], I32)
    assert cpu.execute("add", a, b).tolist() == [INT32_MAX - 1, INT32_MIN + 1]
    assert cpu.execute("sub", a, -b).tolist() == [INT32_MAX - 1, INT32_MIN + 1]
    assert cpu.execute("mul", np.array([-(2**16), 2**15], I32), np.array([2**15, -(2**16)], I32))[
        0
    ] == -(2**31)
    assert cpu.execute("mul", np.array([3, -7], I32), 5).tolist() == [15, -35]
    with pytest.raises(OverflowError):
        cpu.execute("mul", np.array([3, 2**30], I32), 2)
    assert cpu.execute("mul", np.array([3], I32), 2).dtype == I32


def test_int32_pow_is_exact_and_checked(cpu):
    b = np.array([0, 1, -1, 2, -2, 3], I32)
    assert cpu.execute("pow", b, 0).tolist() == [1] * 6  # 0 ** 0 = 1
    assert cpu.execute("pow", b, 19).tolist() == [0, 1, -1, 2**19, -(2**19), 3**19]
    assert cpu.execute("pow", np.array([-2], I32), 31).tolist() == [INT32_MIN]
    assert cpu.execute("pow", np.array([46340], I32), 2).tolist() == [46340**2]
    assert cpu.execute("pow", np.array([0, 1, -1], I32), INT32_MAX).tolist() == [0, 1, -1]
    assert cpu.execute("pow", np.array([0, 1, -1], I32), 2**31 - 2).tolist() == [0, 1, 1]
    assert cpu.execute("pow", np.array([INT32_MIN], I32), 1).tolist() == [INT32_MIN]
    for base, exponent in [(2, 31), (-3, 31), (46341, 2), (2, 32), (-2, 2**31 - 1), (1291, 3)]:
        with pytest.raises(OverflowError):
            cpu.execute("pow", np.array([1, base], I32), exponent)
    assert cpu.allocations == 7
    # negative and large exponents take the float branch
    assert cpu.execute("pow", np.array([2], I32), -1).tolist() == [0.5]
    assert cpu.execute("pow", np.array([2], I32), 2**31).tolist() == [math.inf]


# ---------------------------------------------------------------------------
# Floating pow special cases (C99 Annex F)
# ---------------------------------------------------------------------------


def test_pow_special_cases(cpu):
    nan, inf = math.nan, math.inf
    cases = [
        (nan, 0.0, 1.0),
        (nan, -0.0, 1.0),
        (1.0, nan, 1.0),
        (1.0, inf, 1.0),
        (-1.0, inf, 1.0),
        (-1.0, -inf, 1.0),
        (-2.0, 0.5, nan),
        (-0.0, -1.0, -inf),
        (0.0, -1.0, inf),
        (-0.0, -2.0, inf),
        (-0.0, 3.0, -0.0),
        (-0.0, 2.0, 0.0),
        (0.5, inf, 0.0),
        (0.5, -inf, inf),
        (2.0, inf, inf),
        (2.0, -inf, 0.0),
        (-inf, -3.0, -0.0),
        (-inf, -2.0, 0.0),
        (-inf, 3.0, -inf),
        (-inf, 0.5, inf),
        (inf, -0.5, 0.0),
        (inf, 2.0, inf),
        (-8.0, 1.0 / 3.0, nan),
        (-2.0, 3.0, -8.0),
        (-2.0, 2.0**25, inf),
        (-0.5, 2.0**25, 0.0),
        (nan, 1.0, nan),
        (2.0, nan, nan),
        (4097.0, 2.0, 16785408.0),  # 16785409 is a binary32 midpoint: ties to even
        (66049.0, 1.5, 16974592.0),  # 257**3 = 16974593, another exact midpoint
        (2.0, -150.0, 0.0),  # 2**-150: the tie between 0 and 2**-149
        (2.0, -149.0, 2.0**-149),
        (-2.0, -149.0, -(2.0**-149)),
    ]
    x = f32(*(c[0] for c in cases))
    y = f32(*(c[1] for c in cases))
    expected = f32(*(c[2] for c in cases))
    assert same(cpu.execute("pow", x, y), expected)
    assert same(cpu.execute("pow", x, 2.0), cpu.execute("pow", x, f32(2.0)))
    assert same(cpu.execute("pow", 2.0, f32(-150, 3)), f32(0, 8))


# ---------------------------------------------------------------------------
# Correct rounding of the transcendentals
# ---------------------------------------------------------------------------

_DOMAINS = {  # (low exponent, high exponent) of the interesting magnitudes
    "exp": (-30, 7),
    "exp2": (-30, 8),
    "log": (-149, 127),
    "log2": (-149, 127),
    "sin": (-149, 127),
    "cos": (-149, 127),
    "tanh": (-40, 5),
    "erf": (-40, 3),
    "rsqrt": (-149, 127),
    "sigmoid": (-30, 7),
    "silu": (-30, 7),
    "softplus": (-30, 7),
    "gelu": (-30, 5),
    "elu": (-30, 7),
    "pow": (-10, 10),
}

_SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0]


def _log_uniform(rng: np.random.Generator, count: int, low: int, high: int) -> np.ndarray:
    exponent = rng.integers(low, high + 1, count)
    mantissa = rng.random(count) + 1.0
    sign = np.where(rng.random(count) < 0.5, -1.0, 1.0)
    with np.errstate(over="ignore"):
        return (sign * mantissa * np.exp2(exponent.astype(float))).astype(F32)


def _boundary_inputs(name: str) -> list[float]:
    """Inputs around the function's overflow / underflow / saturation thresholds."""
    points = {
        "exp": [88.72283935546875, -87.33654022216797, -103.97208404541016, -103.2789],
        "exp2": [128.0, -126.0, -149.0, -150.0, -149.5],
        "sigmoid": [-87.0, -88.72, -103.9, 16.6355, 17.0],
        "silu": [-87.0, -103.0, -110.0],
        "softplus": [-87.3, -103.97, 16.0, 17.0, 88.0],
        "gelu": [-13.0, -14.0, -15.0, -16.0, -16.97, -17.0, 5.0, 6.0],
        "elu": [-16.6355, -17.0, -88.0],
        "tanh": [9.010913, 0.0004],
        "erf": [3.832506, 3.9, 3.92, 4.0, 0.5, 1.0],
    }.get(name, [])
    out = []
    for p in points:
        for direction in (math.inf, -math.inf):
            v = np.float32(p)
            for _ in range(4):
                out.append(float(v))
                v = np.nextafter(v, np.float32(direction))
    return out


def _hard_neighbourhood(name: str, rng: np.random.Generator, count: int) -> np.ndarray:
    """Inputs whose float64 result lies within 2**16 ulp64 of a binary32 midpoint.

    This window is 8 times the backend's fallback tolerance, so it holds both
    elements that go to MPFR and elements just outside the tolerance.
    """
    low, high = _DOMAINS[name]
    candidates = _log_uniform(rng, 2_000_000, low, high)
    formula = transcendental.float64_formula(name)
    with np.errstate(all="ignore"):
        y = np.abs(formula(candidates.astype(np.float64)))
    low29 = (y.view(np.int64) & ((1 << 29) - 1)) - (1 << 28)
    near = (np.abs(low29) <= 1 << 16) & (y >= 2.0**-126) & np.isfinite(y)
    picked = candidates[near][:count]
    neighbours = [picked, np.nextafter(picked, F32(math.inf)), np.nextafter(picked, F32(-math.inf))]
    return np.concatenate(neighbours)


def _inputs(name: str, count: int) -> np.ndarray:
    rng = np.random.default_rng(sum(map(ord, name)))
    low, high = _DOMAINS[name]
    powers = [s * 2.0**e for e in range(-149, 128) for s in (1.0, -1.0)]
    structured = np.array(
        _SPECIAL
        + powers
        + _boundary_inputs(name)
        + [2.0**-149, -(2.0**-149), 2.0**-126 - 2.0**-149, float(np.finfo(F32).max)],
        dtype=F32,
    )
    hard = _hard_neighbourhood(name, rng, count // 10)
    random_bits = rng.integers(0, 2**32, count // 5, dtype=np.uint64).astype(np.uint32).view(F32)
    normal = (rng.standard_normal(count // 10) * 4).astype(F32)
    rest = count - structured.size - hard.size - random_bits.size - normal.size
    uniform = _log_uniform(rng, max(rest, 0), low, high)
    return np.concatenate([structured, hard, random_bits, normal, uniform])


def _mp_direct(function):
    def reference(xs: np.ndarray) -> np.ndarray:
        with binary32_context():
            return np.array([float(function(gmpy2.mpfr(float(v)))) for v in xs], dtype=F32)

    return reference


def _rounded_high_precision(formula, xs: np.ndarray, precision: int = 160) -> np.ndarray:
    """formula at *precision* bits, rounded with round_mpfr; re-done at 4x where close."""
    out = np.empty(xs.size, F32)
    for i, v in enumerate(xs.tolist()):
        p = precision
        while True:
            with gmpy2.context(precision=p):
                value = formula(gmpy2.mpfr(v))
            r = round_mpfr(value)
            with gmpy2.context(precision=4 * p):
                check = round_mpfr(formula(gmpy2.mpfr(v)))
            if math.isnan(r) or struct_bits(r) == struct_bits(check):
                out[i] = r
                break
            p *= 4
    return out


def struct_bits(x: float) -> int:
    return int(np.float32(x).view(np.uint32))


def _mp_sigmoid(x):
    return 1 / (1 + gmpy2.exp(-x))


def _mp_silu(x):
    return x * _mp_sigmoid(x)


def _mp_softplus(x):
    if x > 50:
        return x + gmpy2.log1p(gmpy2.exp(-x))
    return gmpy2.log1p(gmpy2.exp(x))


def _mp_gelu(x):
    t = x / gmpy2.sqrt(gmpy2.mpfr(2))
    if x < 0:  # 1 + erf(t) = erfc(-t), without the cancellation
        return x / 2 * gmpy2.erfc(-t)
    return x / 2 * (1 + gmpy2.erf(t))


def _mp_elu(x):
    return x if x > 0 else gmpy2.expm1(x)


_REFERENCES = {
    "exp": _mp_direct(gmpy2.exp),
    "exp2": _mp_direct(gmpy2.exp2),
    "log": _mp_direct(gmpy2.log),
    "log2": _mp_direct(gmpy2.log2),
    "sin": _mp_direct(gmpy2.sin),
    "cos": _mp_direct(gmpy2.cos),
    "tanh": _mp_direct(gmpy2.tanh),
    "erf": _mp_direct(gmpy2.erf),
    # MPFR's rec_sqrt(-0) is +inf; the reference semantics say rsqrt(-0) = -inf
    "rsqrt": _mp_direct(
        lambda x: -gmpy2.inf() if x == 0 and gmpy2.is_signed(x) else gmpy2.rec_sqrt(x)
    ),
    "elu": _mp_direct(lambda x: x if x > 0 else gmpy2.expm1(x)),
}
_COMPOSITES = {
    "sigmoid": _mp_sigmoid,
    "silu": _mp_silu,
    "softplus": _mp_softplus,
    "gelu": _mp_gelu,
}


@pytest.mark.parametrize("name", sorted(set(_REFERENCES) | set(_COMPOSITES)))
def test_transcendental_is_correctly_rounded(cpu, name):
    count = SAMPLES
    x = _inputs(name, count)
    got = cpu.execute(name, x)
    expected = _REFERENCES[name](x) if name in _REFERENCES else _composite_reference(name, x)
    bad = ~((bits(got) == bits(expected)) | (np.isnan(got) & np.isnan(expected)))
    assert not bad.any(), (
        f"{name}: {int(bad.sum())} of {x.size} differ, first inputs "
        f"{[float.hex(float(v)) for v in x[bad][:5]]} -> {got[bad][:5]} vs {expected[bad][:5]}"
    )


@pytest.mark.parametrize("name", ["silu", "gelu"])
def test_tiny_silu_gelu_need_no_fallback(cpu, name, monkeypatch):
    """Odd subnormals put x/2 on a binary32 midpoint; the closed form settles them.

    f(x) = x/2 + e with 0 < e, so a midpoint x/2 rounds away from it towards
    +inf.  The fallback (about 1 ms an input) must not be reached, and the
    results must agree with MPFR.
    """
    smallest = np.arange(1, 4097, dtype=np.uint32)
    near_normal = np.arange(0x007FF000, 0x00801000, dtype=np.uint32)
    magnitudes = np.concatenate([smallest, near_normal, [0x1A000000, 0x1A7FFFFF]]).astype(np.uint32)
    x = np.concatenate([magnitudes, magnitudes | np.uint32(0x80000000)]).view(F32)

    def refuse(values):
        raise AssertionError(f"{name}: {values.size} tiny inputs reached the fallback")

    monkeypatch.setitem(transcendental._FALLBACKS, name, refuse)
    got = cpu.execute(name, x)
    expected = _composite_reference(name, x)
    assert (bits(got) == bits(expected)).all()
    odd = (magnitudes[: smallest.size] & 1) == 1
    halves = x[: smallest.size].astype(np.float64) / 2
    assert (got[: smallest.size][odd].astype(np.float64) > halves[odd]).all()


def _composite_reference(name: str, x: np.ndarray) -> np.ndarray:
    """Composite functions: MPFR at 128 bits, rounded to binary64, then to binary32.

    That double rounding is only trusted where the binary64 value is farther
    than 2**-40 (relative) from every binary32 midpoint (found with
    ``nextafter``, independently of the backend's bit test); the rest go
    through :func:`_rounded_high_precision`.
    """
    formula = _COMPOSITES[name]
    out = np.empty(x.size, F32)
    finite = np.isfinite(x) & (x != 0)
    out[~finite] = _composite_specials(name, x[~finite])
    xs = x[finite]
    with gmpy2.context(precision=128):
        y = np.array([float(formula(gmpy2.mpfr(v))) for v in xs.tolist()])
    with np.errstate(all="ignore"):
        r = y.astype(F32)
        r64 = r.astype(np.float64)
        up = np.nextafter(r, F32(math.inf)).astype(np.float64)
        down = np.nextafter(r, F32(-math.inf)).astype(np.float64)
        distance = np.minimum(np.abs(y - (r64 + up) / 2), np.abs(y - (r64 + down) / 2))
        overflow = np.abs(np.abs(y) - (2.0**128 - 2.0**103))
    near = (distance <= np.abs(y) * 2.0**-40) | (overflow <= np.abs(y) * 2.0**-40)
    r[near] = _rounded_high_precision(formula, xs[near])
    out[finite] = r
    return out


def _composite_specials(name: str, x: np.ndarray) -> np.ndarray:
    table = {
        "sigmoid": {math.inf: 1.0, -math.inf: 0.0, 0.0: 0.5},
        "silu": {math.inf: math.inf, -math.inf: -0.0, 0.0: 0.0},
        "softplus": {math.inf: math.inf, -math.inf: 0.0, 0.0: math.log(2)},
        "gelu": {math.inf: math.inf, -math.inf: -0.0, 0.0: 0.0},
    }[name]
    out = []
    for v in x.tolist():
        if math.isnan(v):
            out.append(math.nan)
        elif v == 0 and name in ("silu", "gelu"):
            out.append(v)  # keeps the sign of zero
        else:
            out.append(table[v])
    return np.array(out, dtype=F32)


def _pow_inputs(count: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(77)
    quarter = count // 4
    base = np.abs(_log_uniform(rng, quarter, -12, 12))
    exponent = (rng.standard_normal(quarter) * 6).astype(F32)
    # integer exponents, negative bases included
    ibase = _log_uniform(rng, quarter, -6, 6)
    iexp = rng.integers(-40, 40, quarter).astype(F32)
    # whole range of both (mostly 0, inf or NaN results, and huge exponents)
    wbase = rng.integers(0, 2**32, quarter, dtype=np.uint64).astype(np.uint32).view(F32)
    wexp = _log_uniform(rng, quarter, -20, 20)
    # hard neighbourhoods: results within 2**16 ulp64 of a binary32 midpoint
    hb = np.abs(_log_uniform(rng, 2_000_000, -8, 8))
    he = (rng.standard_normal(2_000_000) * 4).astype(F32)
    with np.errstate(all="ignore"):
        z = np.power(hb.astype(np.float64), he.astype(np.float64))
    low = (z.view(np.int64) & ((1 << 29) - 1)) - (1 << 28)
    near = (np.abs(low) <= 1 << 16) & (z >= 2.0**-126) & np.isfinite(z)
    hb, he = hb[near][: count // 8], he[near][: count // 8]
    # exact midpoints and exact results: small integers to small integer powers
    sb = np.arange(1, 5000, dtype=F32)
    sb = np.concatenate([sb, -sb, sb * F32(0.5)])
    se = np.resize(f32(2, 3, 1.5, 0.5, -2, -1, 0.25), sb.size)
    x = np.concatenate([base, ibase, wbase, wbase[::-1], hb, sb])
    y = np.concatenate([exponent, iexp, wexp, wbase, he, se])
    return x, y


def test_pow_is_correctly_rounded(cpu):
    x, y = _pow_inputs(SAMPLES)
    got = cpu.execute("pow", x, y)
    finite = np.isfinite(x) & np.isfinite(y) & (x != 0) & (y != 0) & (x != 1)
    with binary32_context():
        expected = np.array(
            [
                float(gmpy2.mpfr(float(a)) ** gmpy2.mpfr(float(b)))
                for a, b in zip(x[finite], y[finite])
            ],
            dtype=F32,
        )
    assert same(got[finite], expected)
    # the weak-scalar overloads materialise the scalar once, then the same kernel
    assert same(cpu.execute("pow", x[:1000], 0.5), cpu.execute("pow", x[:1000], f32(0.5)))
    assert same(cpu.execute("pow", 3, y[:1000]), cpu.execute("pow", f32(3), y[:1000]))


def test_exact_points_and_limits(cpu):
    assert bits(cpu.execute("exp", f32(0.0, -0.0))).tolist() == [0x3F800000] * 2
    assert bits(cpu.execute("erf", f32(-0.0, 0.0))).tolist() == [0x80000000, 0]
    assert bits(cpu.execute("sigmoid", f32(-math.inf))) == 0
    assert bits(cpu.execute("silu", f32(-math.inf, -0.0))).tolist() == [0x80000000] * 2
    assert bits(cpu.execute("gelu", f32(-math.inf, -0.0))).tolist() == [0x80000000] * 2
    assert bits(cpu.execute("softplus", f32(-math.inf))) == 0
    assert bits(cpu.execute("elu", f32(-0.0, -math.inf))).tolist() == [0x80000000, 0xBF800000]
    assert bits(cpu.execute("tanh", f32(-0.0))) == 0x80000000
    assert cpu.execute("log", f32(1.0, 0.0, -1.0)).tolist()[:2] == [0.0, -math.inf]
    r = cpu.execute("rsqrt", f32(0.0, -0.0, math.inf, -1.0))
    assert r.tolist()[:2] == [math.inf, -math.inf] and bits(r[2]) == 0 and np.isnan(r[3])
    # gelu's negative tail is a normal number, not 0
    g = cpu.execute("gelu", f32(-10.0))
    assert 7.0e-23 < -float(g[0]) < 8.0e-23
    assert cpu.execute("gelu", np.array([2, -3], I32)).dtype == F32


@pytest.mark.parametrize(
    ("name", "bound"),
    [
        ("exp", 4),
        ("log", 4),
        ("sin", 4),
        ("cos", 4),
        ("tanh", 4),
        ("exp2", 4),
        ("log2", 4),
        ("rsqrt", 2),
        ("sigmoid", 11),
        ("silu", 11),
        ("softplus", 9),
        ("erf", 35),
        ("gelu", 205),
        ("elu", 4),
    ],
)
def test_float64_formulas_meet_their_stated_bounds(name, bound):
    """The error bounds the fallback detection relies on, measured against MPFR."""
    rng = np.random.default_rng(9)
    low, high = _DOMAINS[name]
    x = np.concatenate([_log_uniform(rng, 4000, low, high), (rng.standard_normal(2000) * 3)])
    x = x.astype(F32)
    if name in ("log", "log2", "rsqrt"):
        x = np.abs(x)
    with np.errstate(all="ignore"):
        y = transcendental.float64_formula(name)(x.astype(np.float64))
    formula = {
        "exp": gmpy2.exp,
        "log": gmpy2.log,
        "sin": gmpy2.sin,
        "cos": gmpy2.cos,
        "tanh": gmpy2.tanh,
        "exp2": gmpy2.exp2,
        "log2": gmpy2.log2,
        "rsqrt": gmpy2.rec_sqrt,
        "erf": gmpy2.erf,
        "elu": _mp_elu,
        **_COMPOSITES,
    }[name]
    worst = 0.0
    with gmpy2.context(precision=200):
        for v, approx in zip(x.tolist(), y.tolist()):
            exact = formula(gmpy2.mpfr(v))
            if not gmpy2.is_finite(exact) or exact == 0 or not math.isfinite(approx):
                continue
            if approx == 0 and abs(exact) < 2.0**-160:
                continue  # a documented cut-off (gelu for x < -16.97): rounds to 0 anyway
            if name == "erf" and abs(v) >= 4:  # the documented shortcut erf = +-1
                assert approx == round_mpfr(exact) == math.copysign(1.0, v)
                continue
            error = abs((gmpy2.mpfr(approx) - exact) / exact) * 2**53
            worst = max(worst, float(error))
    assert worst <= bound, (name, worst)


def test_fallback_is_exercised_and_rare():
    rng = np.random.default_rng(3)
    x = _log_uniform(rng, 200_000, -20, 6)
    with np.errstate(all="ignore"):
        y = np.exp(x.astype(np.float64))
    hard = transcendental.near_rounding_boundary(y)
    assert 0 < hard.sum() < 40  # about 2 * 2**13 / 2**29 of all elements
    # a subnormal midpoint and the overflow threshold are flagged
    assert transcendental.near_rounding_boundary(
        np.array([2.0**-150, 1.5 * 2.0**-149, 2.0**128 - 2.0**103, 1.0, 0.0, math.inf])
    ).tolist() == [True, True, True, False, False, False]


def test_a_value_below_2_to_the_minus_151_is_never_tested_on_the_subnormal_grid():
    # the subnormal branch starts at 2**-151: below it nothing is within 50% of a midpoint
    tiny = np.array([2.0**-151, np.nextafter(2.0**-151, 0), 1e-300, 5e-324])
    flagged = transcendental.near_rounding_boundary(tiny)
    assert not flagged.any()


@pytest.mark.parametrize("name", sorted(transcendental.SATURATION))
def test_a_saturated_input_rounds_as_its_bound_does(name):
    """The stated reason for each clamp, recomputed with MPFR: f(low) is below 2**-151
    (rounds to +0, far from the midpoint 2**-150), f(high) is past the overflow threshold
    2**128 - 2**103 (+inf); f increases, so every input beyond a bound rounds the same."""
    low, high = transcendental.SATURATION[name]
    function = {"exp": gmpy2.exp, "exp2": gmpy2.exp2}[name]
    with gmpy2.context(precision=200):
        assert function(gmpy2.mpfr(low)) < gmpy2.mpfr(2) ** -151
        assert function(gmpy2.mpfr(high)) > gmpy2.mpfr(2) ** 128 - gmpy2.mpfr(2) ** 103
    assert np.float32(low) == low and np.float32(high) == high  # exact binary32 bounds


@pytest.mark.parametrize("name", sorted(transcendental.SATURATION))
def test_the_clamped_kernel_agrees_with_the_oracle_around_and_past_its_bounds(name):
    low, high = (np.float32(v) for v in transcendental.SATURATION[name])
    around = [
        np.nextafter(bound, direction, dtype=np.float32)
        for bound in (low, high)
        for direction in (-np.inf, np.inf)
    ]
    x = np.array(
        [low, high, *around, -np.inf, np.inf, np.nan, -3.4e38, 3.4e38, -1.0, 0.0, -0.0],
        dtype=np.float32,
    )
    got = transcendental.correctly_rounded(name, x)
    for value, result in zip(x.tolist(), got.tolist()):
        want, _ = getattr(reference_rounded, name)(value)  # the oracle's certified value
        assert np.float32(result).tobytes() == np.float32(want).tobytes() or (
            math.isnan(result) and math.isnan(want)
        ), (name, value, result, want)


@pytest.mark.parametrize("name", sorted(transcendental.ROUNDS_TO_ONE))
def test_every_input_near_zero_rounds_to_one_as_stated(name):
    """The stated reason, recomputed with MPFR at the interval's ends (f increases, so
    every input between them lies between their values): f(tiny) is below the midpoint
    1 + 2**-24 above 1, f(-tiny) above the midpoint 1 - 2**-25 below it."""
    tiny = transcendental.ROUNDS_TO_ONE[name]
    function = {"exp": gmpy2.exp, "exp2": gmpy2.exp2}[name]
    with gmpy2.context(precision=200):
        assert function(gmpy2.mpfr(tiny)) < 1 + gmpy2.mpfr(2) ** -24
        assert function(gmpy2.mpfr(-tiny)) > 1 - gmpy2.mpfr(2) ** -25
    assert np.float32(tiny) == tiny


@pytest.mark.parametrize("name", sorted(transcendental.SATURATION))
def test_a_piece_on_a_plateau_is_filled_and_agrees_with_the_oracle(name):
    """Pieces wholly beyond a saturation bound or within ROUNDS_TO_ONE of zero skip the
    formula; a piece that reaches one input past a plateau's end, or holds a NaN, does
    not: every result agrees with the oracle's certified value."""
    low, high = transcendental.SATURATION[name]
    tiny = transcendental.ROUNDS_TO_ONE[name]
    n = transcendental.CHUNK

    def run(first: float, direction: float) -> np.ndarray:
        """n consecutive float32 values from *first*, going toward *direction*."""
        values = [np.float32(first)]
        for _ in range(n - 1):
            values.append(np.nextafter(values[-1], np.float32(direction), dtype=np.float32))
        return np.array(values, dtype=np.float32)

    pieces = {
        "below": run(low, -np.inf),
        "above": run(high, np.inf),
        "near zero, positive": run(tiny, 0.0),
        "near zero, negative": run(-tiny, 0.0),
        "one past the plateau": np.concatenate(
            [run(tiny, 0.0)[1:], [np.nextafter(np.float32(tiny), np.float32(1), dtype=np.float32)]]
        ),
        "a NaN inside": np.concatenate([run(high, np.inf)[:-1], [np.float32(np.nan)]]),
    }
    skipped = {
        label: transcendental._plateau_value(name, float(x.min()), float(x.max())) is not None
        for label, x in pieces.items()
    }
    assert skipped == {
        "below": True,
        "above": True,
        "near zero, positive": True,
        "near zero, negative": True,
        "one past the plateau": False,
        "a NaN inside": False,
    }
    x = np.concatenate(list(pieces.values()))
    got = transcendental.correctly_rounded(name, x).view(np.uint32)
    want = oracle_vectorised.certified(name, x).view(np.uint32)
    nan = np.isnan(x)
    assert np.array_equal(got[~nan], want[~nan])
    assert np.isnan(got[nan].view(np.float32)).all()


def test_erf_tables_regenerate():
    assert erf_tables.fit() == (erf_tables.P, erf_tables.G)


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------


def _slow_sum32(values) -> np.float32:
    acc = np.float32(0.0)
    for v in values:
        acc = np.float32(acc + np.float32(v))
    return acc


def _slow_sum64(values) -> np.float32:
    acc = 0.0
    for v in values:
        acc += float(v)
    return np.float32(acc)


def _wild(rng, shape) -> np.ndarray:
    return (rng.standard_normal(shape) * np.exp2(rng.integers(-20, 20, shape))).astype(F32)


@pytest.mark.parametrize("shape", [(300, 7), (3, 20000), (1, 1), (0, 4)])
@pytest.mark.parametrize("accumulator", [DType.Float32, DType.Float64])
def test_reduce_sum_uses_the_builtin_order(cpu, shape, accumulator):
    rng = np.random.default_rng(11)
    x = _wild(rng, shape)
    got = cpu.execute("reduce_sum", x, 1, accumulator_dtype=accumulator)
    slow = _slow_sum32 if accumulator is DType.Float32 else _slow_sum64
    expected = np.array([slow(row) for row in x], dtype=F32).reshape(shape[0])
    assert same(got, expected)
    options = operation_execution_options("reduce_sum", accumulator_dtype=accumulator)
    assert same(cpu.execute("reduce_sum", x, 1, options=options), expected)
    if shape[0]:
        assert same(cpu.execute("reduce_sum", x.T.copy(), 0, accumulator_dtype=accumulator), got)


def test_reduce_sum_differs_from_pairwise_and_reduces_axes_in_logical_order(cpu):
    rng = np.random.default_rng(2)
    x = _wild(rng, (4, 5, 600))
    got = cpu.execute("reduce_sum", x, (0, 2), True)
    assert got.shape == (1, 5, 1)
    for j in range(5):
        assert bits(got[0, j, 0]) == bits(_slow_sum32(x[:, j, :].reshape(-1)))
    flat = cpu.execute("reduce_sum", x)
    assert flat.shape == () and bits(flat) == bits(_slow_sum32(x.reshape(-1)))
    assert bits(flat) != bits(np.sum(x))  # numpy's pairwise sum is another order


def test_reduce_sum_signed_zeros_and_empty(cpu):
    assert bits(cpu.execute("reduce_sum", f32(-0.0, -0.0))) == 0  # from +0
    assert (
        bits(cpu.execute("reduce_sum", f32(-0.0), None, False, accumulator_dtype=DType.Float64))
        == 0
    )
    assert bits(cpu.execute("reduce_sum", np.zeros((0,), F32))) == 0
    assert cpu.execute("reduce_sum", np.zeros((2, 0), F32), 1).tolist() == [0.0, 0.0]
    assert bits(cpu.execute("reduce_sum", f32(-0.0), ())) == 0  # axis=(): one term each
    assert np.isnan(cpu.execute("reduce_sum", f32(math.inf, -math.inf)))


def test_reduce_sum_int32_checks_only_the_final_value(cpu):
    x = np.array([INT32_MAX, INT32_MAX, -INT32_MAX, -INT32_MAX, 5], I32)
    assert cpu.execute("reduce_sum", x).tolist() == 5
    with pytest.raises(OverflowError):
        cpu.execute("reduce_sum", np.array([INT32_MAX, 1], I32))
    assert cpu.allocations == 1
    assert cpu.execute("reduce_sum", np.zeros((0,), I32)).tolist() == 0
    with pytest.raises(TypeError):
        cpu.execute("reduce_sum", x, accumulator_dtype=DType.Float64)


def test_reduce_prod_is_sequential_from_one(cpu):
    rng = np.random.default_rng(4)
    x = (1 + rng.standard_normal((5, 3000)) * 0.01).astype(F32)
    expected = []
    for row in x:
        acc = np.float32(1.0)
        for v in row:
            acc = np.float32(acc * v)
        expected.append(acc)
    assert same(cpu.execute("reduce_prod", x, -1), np.array(expected, F32))
    assert cpu.execute("reduce_prod", np.zeros((0,), F32)).tolist() == 1.0
    assert bits(cpu.execute("reduce_prod", f32(-0.0))) == 0x80000000


def test_reduce_max_min_first_nan_and_signed_zeros(cpu):
    x = np.stack(
        [
            f32(1, 0.0, -0.0, 2),
            from_bits(0x3F800000, 0x7FC00001, 0xFFC00002, 0x40000000),
            f32(-0.0, 0.0, -0.0, -0.0),
            f32(0.0, -0.0, -1, -math.inf),
        ]
    )
    mx = cpu.execute("reduce_max", x, 1)
    mn = cpu.execute("reduce_min", x, 1)
    assert bits(mx).tolist() == [0x40000000, 0x7FC00001, 0, 0]
    assert bits(mn).tolist() == [0x80000000, 0x7FC00001, 0x80000000, 0xFF800000]
    assert cpu.execute("reduce_max", x, None, True).shape == (1, 1)


def test_argmax_argmin(cpu):
    x = np.stack([f32(0.0, -0.0, 0.0), f32(-0.0, 0.0, 1), f32(3, math.nan, math.nan)])
    assert cpu.execute("argmax", x, 1).tolist() == [0, 2, 1]
    assert cpu.execute("argmin", x, 1).tolist() == [0, 0, 1]
    assert cpu.execute("argmax", x).tolist() == 7 and cpu.execute("argmax", x).dtype == I32
    assert cpu.execute("argmin", f32(2, 1, 1, 3)).tolist() == 1
    assert cpu.execute("argmax", x, 0).tolist() == [2, 2, 2]


def test_cumsum_prefixes_from_plus_zero(cpu):
    x = f32(-0.0, -0.0, 1, 2.0**-30, -1)
    out = cpu.execute("cumsum", x, 0)
    assert bits(out[:2]).tolist() == [0, 0] and out[2] == 1
    rng = np.random.default_rng(6)
    y = _wild(rng, (6, 500))
    for axis in (0, 1):
        got = cpu.execute("cumsum", y, axis)
        moved = np.moveaxis(y, axis, -1)
        expected = np.empty_like(moved)
        for idx in np.ndindex(moved.shape[:-1]):
            acc = np.float32(0.0)
            for j, v in enumerate(moved[idx]):
                acc = np.float32(acc + v)
                expected[(*idx, j)] = acc
        assert same(got, np.moveaxis(expected, -1, axis))


@pytest.mark.parametrize(
    ("operation", "args", "error"),
    [
        ("reduce_max", (np.zeros((2, 0), F32), 1), ValueError),
        ("reduce_min", (np.zeros((0,), F32),), ValueError),
        ("argmax", (np.zeros((0, 3), F32), 0), ValueError),
        ("argmin", (np.zeros((0,), F32),), ValueError),
        ("reduce_sum", (np.zeros((2, 2), F32), (0, -2)), ValueError),
        ("reduce_sum", (np.zeros((2, 2), F32), 2), ValueError),
        ("reduce_sum", (np.zeros((2, 2), F32), 1.0), TypeError),
        ("reduce_sum", (np.zeros((2, 2), F32), [0]), TypeError),
        ("reduce_sum", (np.zeros((2, 2), F32), True), TypeError),
        ("reduce_prod", (np.zeros((2, 2), F32), 0, 1), TypeError),
        ("argmax", (np.zeros((2, 2), F32), -3), ValueError),
        ("argmax", (np.zeros((2, 2), F32), (0,)), TypeError),
        ("cumsum", (np.zeros((2, 2), F32), 2), ValueError),
        ("cumsum", (np.zeros((), F32), 0), ValueError),
        ("cumsum", (np.zeros((2,), F32), None), TypeError),
    ],
)
def test_reduction_errors_before_allocation(cpu, operation, args, error):
    with pytest.raises(error):
        cpu.execute(operation, *args)
    assert cpu.allocations == 0


# ---------------------------------------------------------------------------
# matmul
# ---------------------------------------------------------------------------


def _slow_matmul(a: np.ndarray, b: np.ndarray, wide: bool) -> np.ndarray:
    m, k = a.shape
    n = b.shape[1]
    out = np.empty((m, n), F32)
    for i in range(m):
        for j in range(n):
            acc = 0.0 if wide else np.float32(0.0)
            for kk in range(k):
                term = np.float32(a[i, kk] * b[kk, j])  # float32 * float32 -> float32
                acc = acc + float(term) if wide else np.float32(acc + term)
            out[i, j] = acc
    return out


@pytest.mark.parametrize("shape", [(7, 33, 5), (1, 3000, 1), (2, 500, 3), (40, 3, 700), (3, 0, 2)])
@pytest.mark.parametrize("accumulator", [DType.Float32, DType.Float64])
def test_matmul_rounds_every_product_and_adds_k_in_order(cpu, shape, accumulator):
    m, k, n = shape
    rng = np.random.default_rng(8)
    a, b = _wild(rng, (m, k)), _wild(rng, (k, n))
    got = cpu.execute("matmul", a, b, accumulator_dtype=accumulator)
    assert same(got, _slow_matmul(a, b, accumulator is DType.Float64))
    if k == 0:
        assert bits(got).tolist() == [[0] * n] * m


def test_matmul_no_fused_multiply_add(cpu):
    # 1 + 2**-24 squared: the product rounds to 1 + 2**-23; a fused or wide
    # evaluation of x*x - (1 + 2**-23) would give 2**-48 instead of 0.
    x = np.float32(1 + 2.0**-23)
    a = f32(x, -1.0).reshape(1, 2)
    b = f32(x, float(np.float32(x * x))).reshape(2, 1)
    assert bits(cpu.execute("matmul", a, b)) == [[0]]
    assert bits(cpu.execute("matmul", a, b, accumulator_dtype=DType.Float64)) == [[0]]


def test_matmul_mixed_and_int32(cpu):
    a = np.array([[1, 2], [3, 4]], I32)
    b = f32(0.5, 1, 2, 3).reshape(2, 2)
    out = cpu.execute("matmul", a, b)
    assert out.dtype == F32 and out.tolist() == [[4.5, 7], [9.5, 15]]
    ints = cpu.execute("matmul", a, a)
    assert ints.dtype == I32 and ints.tolist() == [[7, 10], [15, 22]]
    rng = np.random.default_rng(12)
    big = rng.integers(INT32_MIN, INT32_MAX, (6, 40), dtype=np.int64).astype(I32)
    # columns that cancel: the partial sums are far outside int64, the result is small
    other = np.zeros((40, 3), I32)
    other[0, 0], other[1, 0] = 1, -1
    big[:, 1] = big[:, 0]
    other[2:, 1] = 1
    other[:, 2] = rng.integers(-3, 3, 40)
    exact = [[sum(int(x) * int(y) for x, y in zip(row, col)) for col in other.T] for row in big]
    if all(INT32_MIN <= v <= INT32_MAX for row in exact for v in row):
        assert cpu.execute("matmul", big, other).tolist() == exact
    else:
        with pytest.raises(OverflowError):
            cpu.execute("matmul", big, other)
    huge = np.full((2, 4), INT32_MIN, I32)
    pm = np.array([[INT32_MIN], [INT32_MIN], [INT32_MAX], [INT32_MAX]], I32)
    exact_huge = 2 * 2**62 - 2 * 2**31 * (2**31 - 1)  # = 2**32: out of range
    assert exact_huge == 2**32
    with pytest.raises(OverflowError):
        cpu.execute("matmul", huge, pm)
    pm2 = np.array([[INT32_MIN], [INT32_MAX], [1], [0]], I32)
    # (-2**31)(-2**31) + (-2**31)(2**31 - 1) + (-2**31)(1) = 0
    assert cpu.execute("matmul", huge, pm2).tolist() == [[0], [0]]


@pytest.mark.parametrize(
    ("a", "b"),
    [((2, 3), (2, 3)), ((3,), (3, 1)), ((2, 2, 2), (2, 2)), ((), (1, 1))],
)
def test_matmul_shape_errors_before_allocation(cpu, a, b):
    with pytest.raises(ValueError, match="matmul"):
        cpu.execute("matmul", np.zeros(a, F32), np.zeros(b, F32))
    assert cpu.allocations == 0


# ---------------------------------------------------------------------------
# conv_general
# ---------------------------------------------------------------------------


def _slow_conv(lhs, rhs, strides, padding, lhs_dil, rhs_dil, groups):
    batch, _, *spatial = lhs.shape
    cout, cg, *window = rhs.shape
    nd = len(spatial)
    strides = strides or (1,) * nd
    padding = padding or ((0, 0),) * nd
    lhs_dil = lhs_dil or (1,) * nd
    rhs_dil = rhs_dil or (1,) * nd
    dilated = [(s - 1) * a + 1 if s else 0 for s, a in zip(spatial, lhs_dil)]
    out_sp = []
    for d in range(nd):
        padded = dilated[d] + padding[d][0] + padding[d][1]
        span = (window[d] - 1) * rhs_dil[d] + 1
        out_sp.append((padded - span) // strides[d] + 1 if padded >= span else 0)
    out = np.empty((batch, cout, *out_sp), F32)
    per_group = cout // groups
    for n in range(batch):
        for co in range(cout):
            g = co // per_group
            for o in itertools.product(*(range(e) for e in out_sp)):
                acc = np.float32(0.0)
                for w in itertools.product(*(range(e) for e in window)):
                    source = []
                    for d in range(nd):
                        p = o[d] * strides[d] + w[d] * rhs_dil[d] - padding[d][0]
                        if 0 <= p < dilated[d] and p % lhs_dil[d] == 0:
                            source.append(p // lhs_dil[d])
                        else:
                            source = None
                            break
                    for c in range(cg):
                        x = np.float32(0.0) if source is None else lhs[(n, g * cg + c, *source)]
                        acc = np.float32(acc + np.float32(x * rhs[(co, c, *w)]))
                out[(n, co, *o)] = acc
    return out


@pytest.mark.parametrize(
    ("lhs_shape", "rhs_shape", "params"),
    [
        ((2, 3, 7), (4, 3, 3), {}),
        ((1, 4, 6, 5), (6, 2, 2, 3), {"feature_group_count": 2, "window_strides": (2, 1)}),
        ((2, 2, 5, 4), (2, 2, 3, 2), {"padding": ((1, 2), (0, 1)), "rhs_dilation": (1, 2)}),
        ((1, 2, 4, 4), (3, 2, 2, 2), {"lhs_dilation": (2, 1), "padding": ((-1, 1), (1, -1))}),
        ((1, 1, 3), (1, 1, 5), {}),  # window larger than the input: empty output
        ((2, 3), (4, 3), {}),  # no spatial dimension
    ],
)
def test_conv_general_against_a_slow_loop(cpu, lhs_shape, rhs_shape, params):
    rng = np.random.default_rng(13)
    lhs, rhs = _wild(rng, lhs_shape), _wild(rng, rhs_shape)
    got = cpu.execute(
        "conv_general",
        lhs,
        rhs,
        params.get("window_strides"),
        params.get("padding"),
        params.get("lhs_dilation"),
        params.get("rhs_dilation"),
        params.get("feature_group_count", 1),
    )
    expected = _slow_conv(
        lhs,
        rhs,
        params.get("window_strides"),
        params.get("padding"),
        params.get("lhs_dilation"),
        params.get("rhs_dilation"),
        params.get("feature_group_count", 1),
    )
    assert same(got, expected)


def test_conv_holes_contribute_zero_times_weight(cpu):
    lhs = f32(1, 2).reshape(1, 1, 2)
    rhs = f32(math.inf, 1).reshape(1, 1, 2)
    # padding puts a +0 under the inf weight: 0 * inf = NaN
    out = cpu.execute("conv_general", lhs, rhs, None, ((1, 0),))
    assert np.isnan(out[0, 0, 0]) and out[0, 0, 1] == math.inf
    neg = cpu.execute("conv_general", f32(-0.0).reshape(1, 1, 1), f32(1).reshape(1, 1, 1))
    assert bits(neg) == [[[0]]]  # the sum starts at +0


@pytest.mark.parametrize(
    ("lhs_shape", "rhs_shape", "args", "error"),
    [
        ((1, 2, 4), (1, 3, 2), (), ValueError),
        ((1, 2, 4), (1, 2, 2, 2), (), ValueError),
        ((1, 2, 4), (1, 2, 0), (), ValueError),
        ((1, 2, 4), (1, 2, 2), ((0,),), ValueError),
        ((1, 2, 4), (1, 2, 2), ((1, 1),), ValueError),
        ((1, 2, 4), (1, 2, 2), ("1",), TypeError),
        ((1, 2, 4), (1, 2, 2), (None, ((-5, 0),)), ValueError),
        ((1, 2, 4), (1, 2, 2), (None, (1, 1)), TypeError),
        ((1, 2, 4), (1, 2, 2), (None, None, None, None, 0), ValueError),
        ((1, 2, 4), (1, 2, 2), (None, None, None, None, 1.0), TypeError),
        ((1, 4, 4), (3, 2, 2), (None, None, None, None, 2), ValueError),
        ((1, 2, 4), (1, 2, 2), (None, None, (0,)), ValueError),
    ],
)
def test_conv_errors_before_allocation(cpu, lhs_shape, rhs_shape, args, error):
    with pytest.raises(error):
        cpu.execute("conv_general", np.zeros(lhs_shape, F32), np.zeros(rhs_shape, F32), *args)
    assert cpu.allocations == 0


# ---------------------------------------------------------------------------
# gather / scatter / scatter_add / select / clamp
# ---------------------------------------------------------------------------


def test_gather_is_take_with_bit_copies(cpu):
    data = from_bits(0x7F800001, 0x3F800000, 0x80000000, 0xFFC00001).reshape(2, 2)
    idx = np.array([[1, 0, 1]], I32)
    out = cpu.execute("gather", data, idx, 1)
    assert out.shape == (2, 1, 3)
    assert bits(out).reshape(-1).tolist() == bits(np.take(data, idx, axis=1)).reshape(-1).tolist()
    assert bits(cpu.execute("gather", data, np.array(1, I32), 0)).tolist() == [
        0x80000000,
        0xFFC00001,
    ]


@pytest.mark.parametrize(
    ("indices", "axis", "error"),
    [([-1], 0, IndexError), ([2], 0, IndexError), ([0], 2, ValueError), ([0], 0.0, TypeError)],
)
def test_gather_errors_before_allocation(cpu, indices, axis, error):
    with pytest.raises(error):
        cpu.execute("gather", np.zeros((2, 2), F32), np.array(indices, I32), axis)
    assert cpu.allocations == 0


def test_scatter_and_errors(cpu):
    base = np.zeros((3, 2), F32)
    updates = from_bits(0x7F800001, 1, 2, 3).reshape(2, 2)
    out = cpu.execute("scatter", base, np.array([2, 0], I32), updates, 0)
    assert bits(out).tolist() == [[2, 3], [0, 0], [0x7F800001, 1]]
    assert bits(base).tolist() == [[0, 0]] * 3
    for indices, upd_shape, error in [
        ([1, 1], (2, 2), ValueError),
        ([3, 0], (2, 2), IndexError),
        ([0, 1], (2, 3), ValueError),
        ([-1, 0], (2, 2), IndexError),
    ]:
        with pytest.raises(error):
            cpu.execute("scatter", base, np.array(indices, I32), np.zeros(upd_shape, F32), 0)
    assert cpu.allocations == 1


def test_scatter_add_is_sequential_in_update_order(cpu):
    big, tiny = np.float32(2.0**24), np.float32(1.0)
    base = f32(0.0, -0.0, 5)
    idx = np.array([0, 0, 0, 2, 0], I32)
    upd = f32(big, tiny, tiny, 1, -big)
    out = cpu.execute("scatter_add", base, idx, upd, 0)
    # ((0 + 2**24) + 1) + 1 rounds twice to 2**24, then - 2**24 = 0
    assert bits(out).tolist() == [0, 0x80000000, bits(F32(6))]
    rng = np.random.default_rng(14)
    base2 = _wild(rng, (4, 5, 3))
    idx2 = rng.integers(0, 5, (7, 2)).astype(I32)
    upd2 = _wild(rng, (4, 7, 2, 3))
    got = cpu.execute("scatter_add", base2, idx2, upd2, 1)
    expected = base2.copy()
    for p in range(4):
        for a in range(7):
            for b in range(2):
                for q in range(3):
                    t = idx2[a, b]
                    expected[p, t, q] = np.float32(expected[p, t, q] + upd2[p, a, b, q])
    assert same(got, expected)


def test_select_copies_bits_with_broadcasting(cpu):
    cond = np.array([[True], [False]])
    t = from_bits(0x7F800001, 0x00000001)
    f = from_bits(0xFFC00001)
    out = cpu.execute("select", cond, t, f)
    assert bits(out).tolist() == [[0x7F800001, 1], [0xFFC00001, 0xFFC00001]]
    with pytest.raises(ValueError):
        cpu.execute("select", np.array([True, False, True]), t, f)
    with pytest.raises(TypeError):
        cpu.execute("select", f32(1, 0), t, f)
    assert cpu.allocations == 1


def test_clamp_rules(cpu):
    x = f32(-0.0, 0.0, 5, -5, math.nan, 1)
    out = cpu.execute("clamp", x, 0.0, 2)
    assert bits(out[:4]).tolist() == bits(f32(0.0, 0.0, 2, 0.0)).tolist() and np.isnan(out[4])
    assert cpu.execute("clamp", f32(1), 3, 2).tolist() == [2.0]  # lo > hi gives hi
    lo = f32(-0.0)
    assert bits(cpu.execute("clamp", f32(0.0, -0.0), lo, f32(-0.0))).tolist() == [0x80000000] * 2
    assert cpu.execute("clamp", x, f32(0, 0, 0, 0, 0, 0), 0.5).shape == (6,)
    assert cpu.execute("clamp", f32(0.3), Fraction(1, 3), 1.0).tolist() == [
        float(np.float32(1 / 3))
    ]


# ---------------------------------------------------------------------------
# sort / topk
# ---------------------------------------------------------------------------


def test_sort_is_stable_with_nans_and_signed_zeros(cpu):
    x = f32(1, math.nan, -0.0, 0.0, -1, math.nan, 1, -0.0)
    up = cpu.execute("_sort_indices", x)
    down = cpu.execute("_sort_indices", x, -1, True)
    assert up.tolist() == [4, 2, 3, 7, 0, 6, 1, 5] and up.dtype == I32
    assert down.tolist() == [1, 5, 0, 6, 2, 3, 7, 4]
    values = cpu.execute("_sort_values", x)
    assert bits(values[:4]).tolist() == bits(f32(-1, -0.0, 0.0, -0.0)).tolist()
    assert cpu.execute("_topk_indices", x, 3).tolist() == [1, 5, 0]
    assert cpu.execute("_topk_indices", x, 2, -1, False).tolist() == [4, 2]
    assert cpu.execute("_topk_values", x, 0).shape == (0,)
    m = f32(3, 1, 2, 0).reshape(2, 2)
    assert cpu.execute("_sort_values", m, 0).tolist() == [[2, 0], [3, 1]]
    assert cpu.execute("_topk_values", m, 1, 0).tolist() == [[3, 1]]


@pytest.mark.parametrize(
    ("operation", "args", "error"),
    [
        ("_topk_values", (3, -1), ValueError),
        ("_topk_values", (-1,), ValueError),
        ("_topk_values", (1.0,), TypeError),
        ("_topk_indices", (1, 0, 1), TypeError),
        ("_sort_values", (1,), ValueError),
        ("_sort_indices", (0, "yes"), TypeError),
    ],
)
def test_sort_errors_before_allocation(cpu, operation, args, error):
    with pytest.raises(error):
        cpu.execute(operation, f32(1, 2), *args)
    assert cpu.allocations == 0


# ---------------------------------------------------------------------------
# Planning errors come first
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("operation", "args", "error"),
    [
        ("nonexistent", (f32(1),), NotImplementedError),
        ("add", (f32(1), [1.0]), TypeError),
        ("add", (f32(1), 1.0), TypeError),  # tensor/weak add has no overload
        ("add", (f32(1), DType.Float32), TypeError),
        ("sqrt", (np.array([4], I32),), TypeError),
        ("select", (np.array([1], I32), f32(1), f32(1)), TypeError),
        ("mul", (np.array([1], I32), 2**31), OverflowError),
        ("gather", (f32(1), f32(0), 0), TypeError),
        ("reduce_max", (np.array([1], I32),), TypeError),
        ("exp", (np.zeros(2, np.float64),), TypeError),
    ],
)
def test_planning_errors_before_allocation(cpu, operation, args, error):
    with pytest.raises(error):
        cpu.execute(operation, *args)
    assert cpu.allocations == 0


def test_allocation_count_is_one_per_result(cpu):
    cpu.execute("exp", f32(1, 2))
    cpu.execute("matmul", np.ones((2, 2), F32), np.ones((2, 2), F32))
    cpu.execute("reduce_sum", np.ones((2, 2), I32))
    assert cpu.allocations == 3


# -- signalling NaNs through oracle.Tensor ---------------------------------------------------------

_SIGNALLING = (0x7F800001, 0xFFA00000, 0x7FBFFFFF, 0xFF800001)


@pytest.mark.parametrize(
    ("operation", "args"),
    [
        ("neg", lambda x: (x,)),
        ("abs", lambda x: (x,)),
        ("gather", lambda x: (x, Tensor.from_nested([3, 0, 2], DType.Int32), 0)),
        (
            "scatter",
            lambda x: (
                Tensor.from_nested([1.0, 2.0, 3.0, 4.0, 5.0], DType.Float32),
                Tensor.from_nested([4, 0, 2, 1], DType.Int32),
                x,
                0,
            ),
        ),
        ("select", lambda x: (Tensor.from_nested([True, False, True, False], DType.Bool), x, x)),
        ("_sort_values", lambda x: (x,)),
        ("_topk_values", lambda x: (x, 3)),
        ("reduce_max", lambda x: (x,)),
        ("reduce_min", lambda x: (x,)),
    ],
)
def test_bit_copies_keep_signalling_nans_through_the_tensor_exchange(cpu, operation, args):
    call = args(Tensor.from_bits(DType.Float32, (4,), _SIGNALLING))
    expected = oracle.expected(operation, *call)
    assert expected.error is None and expected.nan_bits
    native = [cpu.from_tensor(a) if isinstance(a, Tensor) else a for a in call]
    result = cpu.to_tensor(cpu.execute(operation, *native))
    assert result.bits() == expected.result.bits()


# -- execute_into: the optional result buffer (backends/protocol.py ExecuteInto) --------


@pytest.mark.parametrize(
    ("operation", "args", "out_dtype", "out_shape"),
    [
        ("exp", (np.linspace(-90, 90, 37, dtype=np.float32),), np.float32, (37,)),
        ("exp", (np.arange(-5, 5, dtype=np.int32).reshape(2, 5),), np.float32, (2, 5)),
        ("logical_not", (np.array([0.0, -0.0, 1.5, np.nan], np.float32),), np.bool_, (4,)),
        ("relu", (np.array([-3, 0, 7], np.int32),), np.int32, (3,)),
        ("add", (np.ones((3, 1), np.float32), np.arange(4, dtype=np.float32)), np.float32, (3, 4)),
        ("reduce_sum", (np.arange(12, dtype=np.float32).reshape(3, 4), 1), np.float32, (3,)),
        ("sin", (np.array(1.25, np.float32),), np.float32, ()),
    ],
)
def test_execute_into_writes_the_result_of_execute_into_out(cpu, operation, args, out_dtype,
                                                            out_shape):  # fmt: skip
    expected = cpu.execute(operation, *args)
    before = cpu.allocations
    out = np.full(out_shape, 7, out_dtype)
    returned = cpu.execute_into(operation, *args, out=out)
    assert returned is out
    assert out.tobytes() == expected.tobytes() and out.dtype == expected.dtype
    assert cpu.allocations == before  # the result was not allocated: it is out
    assert cpu.take_out() is None  # nothing left pending for the next call


def test_execute_into_refuses_a_wrong_out_before_writing_into_it(cpu):
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    for out, error, words in [
        (np.zeros(8, np.int32), ValueError, "int32 array of shape (8,)"),  # the result's dtype
        (np.zeros(9, np.float32), ValueError, "shape (9,)"),
        (np.zeros(8, np.float64), TypeError, "float64"),  # not a cpu array
        ([0.0] * 8, TypeError, "list"),
        (np.zeros(16, np.float32)[::2], ValueError, "C-contiguous"),
        (x, ValueError, "shares memory with an operand"),
    ]:
        before = np.array(out, copy=True)
        with pytest.raises(error, match=re.escape(words)):
            cpu.execute_into("exp", x, out=out)
        assert np.array_equal(np.asarray(out), before)  # untouched
    frozen = np.zeros(8, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="writeable"):
        cpu.execute_into("exp", x, out=frozen)
    assert cpu.take_out() is None  # a refused call leaves nothing pending
    assert cpu.execute("exp", x).dtype == np.float32  # and the next call allocates


def test_execute_into_copies_the_result_of_a_kernel_with_a_buffer_of_its_own():
    class OwnBuffer(CPUBackend):
        kernels: ClassVar = {**CPUBackend.kernels, "neg": lambda backend, plan, x: -np.asarray(x)}

    backend = OwnBuffer()
    x = np.array([1.5, -0.0, np.inf], np.float32)
    out = np.zeros(3, np.float32)
    assert backend.execute_into("neg", x, out=out) is out
    assert out.view(np.uint32).tolist() == [0xBFC00000, 0x00000000, 0xFF800000]
    with pytest.raises(ValueError, match="shape"):  # the same check after the kernel
        backend.execute_into("neg", x, out=np.zeros(4, np.float32))
