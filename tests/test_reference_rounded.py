"""Tests of the certified correctly rounded references (oracle.reference.rounded).

The MPFR implementation (:mod:`oracle.reference.rounded`) and the independent
mpmath one (:mod:`oracle.reference.rounded_mpmath`) must return the same
``(value, exact)`` pair -- the same bit pattern (NaN-ness for NaN) and the same
exactness flag -- on

* hypothesis-generated binary32 operands of every class (built from bit
  patterns: zeros, subnormals, every binade, huge values, infinities, NaN),
* a structured sweep per function (all powers of two, a grid over all bit
  patterns, neighbourhoods of the overflow/underflow/saturation thresholds,
  binary32 values near multiples of pi/2, the gelu/silu negative tails),
* the hardest-to-round binary32 inputs found by an exhaustive numpy sweep
  refined with mpmath (``HARD_CASES``).

Special values, limits, signed zeros, exact points and pow's C99 table are
checked against explicit expectations, and numpy's float32 functions must be
within a few ULP (a sanity check, not conformance).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle.binary32 import (
    MAX_FINITE,
    MIN_NORMAL,
    MIN_SUBNORMAL,
    from_bits,
    next_down,
    next_up,
    round_to_binary32,
    to_bits,
    ulp_distance,
)
from oracle.reference import rounded, rounded_mpmath

INF = math.inf
NAN = math.nan
UNARY = sorted(rounded.UNARY)


def _key(result: tuple[float, bool]) -> tuple[object, bool]:
    value, exact = result
    return ("nan" if math.isnan(value) else to_bits(value)), exact


def _agree(name: str, *operands: float) -> None:
    expected = rounded_mpmath.FUNCTIONS[name](*operands)
    actual = rounded.FUNCTIONS[name](*operands)
    assert _key(actual) == _key(expected), (name, operands, actual, expected)


def _b32(x: float) -> float:
    return round_to_binary32(x)


def _neighbourhood(x: float, n: int) -> list[float]:
    """The binary32 value nearest x and its n neighbours on each side."""
    centre = _b32(x)
    values = [centre]
    lo = hi = centre
    for _ in range(n):
        lo, hi = next_down(lo), next_up(hi)
        values += [lo, hi]
    return [v for v in values if math.isfinite(v)]


# ---------------------------------------------------------------------------
# Operand strategies (bit patterns of every class)
# ---------------------------------------------------------------------------

SPECIALS = [0.0, -0.0, INF, -INF, NAN, MIN_SUBNORMAL, -MIN_SUBNORMAL, MIN_NORMAL]
SPECIALS += [-MIN_NORMAL, MAX_FINITE, -MAX_FINITE, 1.0, -1.0, 0.5, 2.0, -2.0]


def _pattern(sign: bool, biased: int, fraction: int) -> float:
    return from_bits((sign << 31) | (biased << 23) | fraction)


_signs = st.booleans()
_fractions = st.integers(0, (1 << 23) - 1)
binary32_values = st.one_of(
    st.sampled_from(SPECIALS),
    st.integers(0, (1 << 32) - 1).map(from_bits),  # anything, NaN payloads included
    st.builds(_pattern, _signs, st.just(0), st.integers(1, (1 << 23) - 1)),  # subnormals
    st.builds(_pattern, _signs, st.integers(1, 254), _fractions),  # every binade
    st.builds(_pattern, _signs, st.integers(100, 134), _fractions),  # 2**-27 .. 2**8
    st.builds(_pattern, _signs, st.integers(126, 133), _fractions),  # 0.5 .. 128
)


@pytest.mark.parametrize("name", UNARY)
@settings(max_examples=150)
@given(x=binary32_values)
def test_mpfr_and_mpmath_agree_on_generated_operands(name: str, x: float) -> None:
    _agree(name, x)


# pow: bases near 1, powers of two, perfect powers and negatives; integer,
# half-integer and small dyadic exponents besides arbitrary ones.
_pow_bases = st.one_of(
    binary32_values,
    st.integers(-4096, 4096).map(lambda k: from_bits(0x3F800000 + k)),  # near 1
    st.integers(-149, 127).map(lambda k: math.ldexp(1.0, k)),
    st.sampled_from([-2.0, -0.5, -3.0, 3.0, 9.0, 81.0, 6561.0, 0.25, 4097.0, -4097.0]),
    st.integers(-(1 << 12), 1 << 12).map(float),
)
_pow_exponents = st.one_of(
    binary32_values,
    st.integers(-300, 300).map(float),
    st.integers(-64, 64).map(lambda k: k / 8),
    st.sampled_from([0.5, -0.5, 0.25, 1.5, -1.5, 2.0**24, 2.0**24 + 2, 1e30, -1e30]),
)


@settings(max_examples=500)
@given(x=_pow_bases, y=_pow_exponents)
def test_pow_mpfr_and_mpmath_agree(x: float, y: float) -> None:
    _agree("pow", _b32(x), _b32(y))


# ---------------------------------------------------------------------------
# Structured sweep
# ---------------------------------------------------------------------------


def _common_sweep() -> list[float]:
    values = list(SPECIALS)
    for k in range(-149, 128):  # every power of two, both signs
        values += [math.ldexp(1.0, k), -math.ldexp(1.0, k)]
    step = (1 << 32) // 512  # a grid over all bit patterns
    values += [from_bits(b) for b in range(7, 1 << 32, step)]
    values += [_b32(k / 16) for k in range(-160, 161)]  # near 0 and small arguments
    return values


def _root(f, x0: float) -> float:
    mp = mpmath.MPContext()
    mp.prec = 80
    return float(mp.findroot(lambda v: f(mp, v), x0))


def _thresholds() -> dict[str, list[float]]:
    """Arguments at which each function crosses 2**-126, 2**-149 or the underflow
    to zero, overflows, or starts rounding to its limit (1 - 2**-25, 1 - 2**-24)."""
    mp = mpmath.MPContext()
    mp.prec = 80
    ln2 = math.log(2)
    tiny = [-126 * ln2, -149 * ln2, -150 * ln2, math.log(3) - 150 * ln2]
    overflow = math.log(2.0**128 - 2.0**103)
    near_one = [-25 * ln2, -24 * ln2, 25 * ln2, 24 * ln2]  # 1 +- 2**-25, 2**-24
    saturate = [1 - mp.mpf(2) ** -25, 1 - mp.mpf(2) ** -24, 1 - mp.mpf(2) ** -23]
    tanh_one = [float(mp.atanh(s)) for s in saturate]
    erf_one = [float(mp.erfinv(s)) for s in saturate]
    sigmoid_one = [float(mp.log(s / (1 - s))) for s in saturate]
    silu_tail = [
        _root(lambda mp, v, k=k: mp.log(-v) + v + k * mp.ln2, -90.0) for k in (126, 149, 150)
    ]
    gelu_tail = [
        _root(lambda mp, v, k=k: mp.log(-v / 2 * mp.erfc(-v / mp.sqrt(2))) + k * mp.ln2, -13.0)
        for k in (126, 149, 150)
    ]
    return {
        "exp": [*tiny, overflow, *near_one],
        "exp2": [-126.0, -149.0, -150.0, -149.5, -150.5, 127.99999, 128.0],
        "log": [1.0, 2.0, 0.5],
        "log2": [1.0, 2.0, 0.5],
        "sin": [math.pi * k for k in range(1, 40)],
        "cos": [math.pi * (k + 0.5) for k in range(0, 40)],
        "tanh": [*tanh_one, *(-t for t in tanh_one), 2.0**-12, 2.0**-11],
        "erf": [*erf_one, *(-t for t in erf_one), 2.0**-12],
        "rsqrt": [4.0, 2.0**-148, 2.0**126, 2.0**127, MAX_FINITE],
        "sigmoid": [*tiny, *sigmoid_one],
        "silu": [*silu_tail, *sigmoid_one, 30.0],
        "softplus": [*tiny, *sigmoid_one, 88.0],
        "gelu": [*gelu_tail, -10.0, 5.0, 5.5, 6.0, 6.5],
        "elu": [-25 * ln2, -24 * ln2, -(2.0**-24), -(2.0**-12)],
    }


def _pi_multiples() -> list[float]:
    """binary32 values near k*pi/2 (k = 1..256) and the per-binade closest ones."""
    mp = mpmath.MPContext()
    mp.prec = 100
    values = []
    for k in range(1, 257):
        values += _neighbourhood(float(k * mp.pi / 2), 1)
    values += [from_bits(b) for b in PI_HALF_MULTIPLES]
    return values + [-v for v in values]


# The binary32 value closest to a multiple of pi/2 in each binade 2**0 .. 2**127
# (an exhaustive fixed-point search over every significand); the 48 closest of
# those 128.
# 0x6F79BE45 = 16367173 * 2**72, within 1.7e-9 of a multiple of pi/2, is the
# classic worst case of binary32 argument reduction.
PI_HALF_MULTIPLES = [
    0x4096CBE4, 0x4116CBE4, 0x437CE5F1, 0x43FCE5F1, 0x447CE5F1, 0x44FCE5F1, 0x474D246F,
    0x47CD246F, 0x4882665E, 0x4A2562AE, 0x4AA562AE, 0x4C2332E9, 0x4CA332E9, 0x4E13D4A5,
    0x50A3E87F, 0x5123E87F, 0x51A3E87F, 0x5223E87F, 0x52A3E87F, 0x53B146A6, 0x543146A6,
    0x54B146A6, 0x5C07BCD0, 0x5C87BCD0, 0x5FE4112C, 0x62EC1B4A, 0x642E0733, 0x65898498,
    0x66098498, 0x66898498, 0x6946E3BB, 0x6A1976F1, 0x6A9976F1, 0x6B1976F1, 0x6C55DA58,
    0x6CD5DA58, 0x6D2063C2, 0x6F79BE45, 0x6FF9BE45, 0x7079BE45, 0x70F9BE45, 0x7179BE45,
    0x723FA09A, 0x72BFA09A, 0x77584625, 0x77D84625, 0x79407F54, 0x7EBDCDA0,
]  # fmt: skip


def _tail_grid(lo: float, hi: float, count: int) -> list[float]:
    return [_b32(lo + (hi - lo) * i / count) for i in range(count + 1)]


def _sweep(name: str) -> list[float]:
    values = _common_sweep()
    for t in _THRESHOLDS[name]:
        values += _neighbourhood(t, 12)
    if name in ("sin", "cos"):
        values += _pi_multiples()
    if name in ("silu", "gelu", "sigmoid", "softplus", "exp", "elu"):
        values += _tail_grid(-120.0, -1.0, 300)
    if name == "exp2":
        for k in range(-152, 130):
            values += _neighbourhood(float(k), 1)
    if name in ("log", "log2"):
        values += _neighbourhood(1.0, 64)
    if name == "rsqrt":
        for k in range(-149, 128):
            values += _neighbourhood(math.ldexp(1.0, k), 1)
    values += [from_bits(b) for b, _ in HARD_CASES.get(name, ())]
    unique = {("nan" if math.isnan(v) else to_bits(v)): v for v in values}
    return list(unique.values())


_THRESHOLDS = _thresholds()


@pytest.mark.parametrize("name", UNARY)
def test_mpfr_and_mpmath_agree_on_structured_sweep(name: str) -> None:
    sweep = _sweep(name)
    assert len(sweep) > 1000
    mismatches = []
    for x in sweep:
        actual, expected = rounded.UNARY[name](x), rounded_mpmath.UNARY[name](x)
        if _key(actual) != _key(expected):
            mismatches.append((x, actual, expected))
    assert not mismatches, mismatches[:10]


def test_pow_structured_sweep() -> None:
    bases = [0.0, -0.0, INF, -INF, NAN, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 10.0]
    bases += [MIN_SUBNORMAL, MAX_FINITE, -MAX_FINITE, MIN_NORMAL, 9.0, 6561.0, 4097.0]
    bases += [from_bits(0x3F800001), from_bits(0x3F7FFFFF), 1.5, _b32(0.1)]
    exponents = [0.0, -0.0, INF, -INF, NAN, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.5, -0.5]
    exponents += [0.25, 1.5, -1.5, 127.0, 128.0, -149.0, -150.0, 2.0**24, _b32(1 / 3)]
    exponents += [MAX_FINITE, -MAX_FINITE, MIN_SUBNORMAL, 2.0**31, _b32(0.1)]
    for x in bases:
        for y in exponents:
            _agree("pow", x, y)


# ---------------------------------------------------------------------------
# Hard cases: exact value extremely close to a binary32 midpoint
# ---------------------------------------------------------------------------

# (bits, k): the exact value lies within 2**-k ulp of a binary32 midpoint.  Found by
# sweeping binary32 inputs with numpy float64 approximations (every input of exp and
# exp2 with a normal result, every positive input of log and log2, every input of
# rsqrt in [1, 4), which covers all of them; every 16th/8th/4th/2nd input of the
# others) and refining every candidate within 2**-18 ulp of a midpoint with mpmath:
# the first entry of exp, exp2, log, log2 and rsqrt is the hardest binary32 case.
HARD_CASES: dict[str, list[tuple[int, int]]] = {
    "exp": [(0xC16912CD, 28), (0xBBF0EDF1, 27), (0x377EFF81, 27)],
    "exp2": [(0xB52D1F9A, 34), (0xBCF3A937, 32), (0x3B429D37, 30)],
    "log": [(0x65D890D3, 34), (0x4C5D65A5, 33), (0x4D604EBE, 32)],
    "log2": [(0x3EA07AB9, 27), (0x40207AB9, 27), (0x002452A4, 27)],
    "sin": [(0x6446CEC0, 28), (0x616D8730, 26), (0x401F2100, 25)],
    "cos": [(0x5922AA80, 29), (0x39800000, 28), (0x4B511330, 25)],
    "tanh": [(0x40ACB4D0, 25), (0x4013CD84, 24), (0x3ADBC904, 24)],
    "erf": [(0x3AA60E18, 25), (0xBAA60E18, 25), (0x3E1FCC60, 24)],
    "rsqrt": [(0x403A18E3, 28), (0x4009F038, 25), (0x407FFFFE, 24)],
    "sigmoid": [(0xB3800000, 52), (0x34000000, 50), (0xB4400000, 47)],
    "silu": [(0xBF503320, 25), (0x3C3E6610, 25), (0x3ECEA6B0, 25)],
    "softplus": [(0x39EA41D0, 33), (0x40A3F888, 29), (0x3FD7F6B4, 25)],
    "gelu": [(0x3C419978, 25), (0xBC419978, 25), (0x3CD2BCD8, 24)],
    "elu": [(0xBB7B3B6C, 27), (0xBCDE0D30, 25), (0xBCD475D0, 25)],
}


def _exact_value(name: str, x: float):
    mp = mpmath.MPContext()
    mp.prec = 300
    return {
        "exp": lambda: mp.exp(x),
        "exp2": lambda: mp.power(2, x),
        "log": lambda: mp.log(x),
        "log2": lambda: mp.log(x, 2),
        "sin": lambda: mp.sin(x),
        "cos": lambda: mp.cos(x),
        "tanh": lambda: mp.tanh(x),
        "erf": lambda: mp.erf(x),
        "rsqrt": lambda: 1 / mp.sqrt(x),
        "sigmoid": lambda: 1 / (1 + mp.exp(-x)),
        "silu": lambda: x / (1 + mp.exp(-x)),
        "softplus": lambda: mp.log1p(mp.exp(x)),
        "gelu": lambda: x / 2 * mp.erfc(-x / mp.sqrt(2)),
        "elu": lambda: mp.expm1(x),
    }[name]()


def _midpoint_distance(name: str, x: float) -> float:
    """log2 of the distance (in binary32 ulps) of name(x) from the nearest midpoint."""
    v = abs(_exact_value(name, x))
    mp = mpmath.MPContext()
    mp.prec = 300
    exponent = max(int(mp.floor(mp.log(v, 2))), -126)
    w = v / mp.mpf(2) ** (exponent - 23)
    return float(mp.log(abs(w - mp.floor(w) - 0.5), 2))


@pytest.mark.parametrize(
    ("name", "bits", "k"), [(n, b, k) for n, cases in sorted(HARD_CASES.items()) for b, k in cases]
)
def test_hard_cases(name: str, bits: int, k: int) -> None:
    x = from_bits(bits)
    assert _midpoint_distance(name, x) < -k
    _agree(name, x)
    assert not rounded.UNARY[name](x)[1]


@pytest.mark.parametrize(
    ("name", "bits"),
    [
        ("exp2", 0xBCF3A937),
        ("exp2", 0x3B429D37),
        ("log", 0x65D890D3),
        ("log", 0x4C5D65A5),
        ("softplus", 0x39EA41D0),
        ("sigmoid", 0xB4400000),
    ],
)
def test_float64_then_float32_double_rounds_hard_cases(name: str, bits: int) -> None:
    # The correctly rounded binary64 value, rounded again to binary32, is one ulp
    # off: the reference must not be computed that way.
    x = from_bits(bits)
    twice = round_to_binary32(float(_exact_value(name, x)))
    value, _ = rounded.UNARY[name](x)
    assert ulp_distance(twice, value) == 1


def _odd_quanta() -> list[int]:
    return [*range(1, 200, 2), *range((1 << 23) - 201, (1 << 23) + 201, 2)]


@pytest.mark.parametrize("name", ["silu", "gelu"])
@pytest.mark.parametrize("module", [rounded, rounded_mpmath], ids=["mpfr", "mpmath"])
def test_half_of_an_odd_quantum_is_not_a_tie(module, name: str) -> None:
    # silu(x) = x/2 + x**2/4 + ... and gelu(x) = x/2 + x**2/sqrt(2 pi) + ...: for
    # x = n * 2**-149 with n odd and x < 2**-125, x/2 is a binary32 midpoint and the
    # exact value is just above it in magnitude for x > 0 and just below it for
    # x < 0 (by about x**2).  Rounding x/2 ties-to-even would be wrong for half of
    # them; a Ziv loop needs about 150 + 24 bits more than the distance suggests.
    for n in _odd_quanta():
        x = n * MIN_SUBNORMAL
        assert module.UNARY[name](x) == ((n + 1) // 2 * MIN_SUBNORMAL, False)
        value, exact = module.UNARY[name](-x)
        assert to_bits(value) == to_bits(-((n // 2) * MIN_SUBNORMAL)) and not exact


def _subnormal_traps() -> list[tuple[float, float]]:
    """(y, v24) for y near -126 and -140 where 2**y rounded to 24 bits, v24, is
    inexact and exactly a midpoint of the subnormal grid (an odd multiple of 2**-150)."""
    mp = mpmath.MPContext()
    mp.prec = 200
    traps = []
    for start in (-126.0, -140.0):
        y = start
        for _ in range(300):
            y = next_down(y)
            v = mp.power(2, y)
            with mp.workprec(24):
                v24 = +v
            scaled = v24 * mp.mpf(2) ** 150
            if v24 != v and scaled == mp.floor(scaled) and int(scaled) % 2 == 1:
                traps.append((y, v24))
    return traps


def test_subnormalize_avoids_double_rounding() -> None:
    # MPFR first rounds 2**y to 24 bits; when that lands exactly on a midpoint of
    # the subnormal grid, a second ties-to-even rounding could go the wrong way:
    # subnormalize must use the sign of the first rounding error instead.
    traps = _subnormal_traps()
    assert len(traps) > 100
    naive_wrong = 0
    for y, v24 in traps:
        _agree("exp2", y)
        value, _ = rounded.exp2(y)
        naive_wrong += round_to_binary32(v24) != value
    assert naive_wrong > 10


def test_ziv_loop_raises_precision_when_needed(monkeypatch) -> None:
    used: list[int] = []
    directed = rounded._directed_contexts

    def spy(precision: int):
        used.append(precision)
        return directed(precision)

    monkeypatch.setattr(rounded, "_directed_contexts", spy)
    assert rounded.silu(1.0) == (_b32(1 / (1 + math.exp(-1))), False)
    assert used == [64]
    used.clear()
    rounded.sigmoid(-(2.0**-24))  # 1/2 - 2**-26 + 2**-74 / 3 ...: 2**-52.6 ulp from a midpoint
    assert used == [64, 128]
    used.clear()
    rounded.silu(MIN_SUBNORMAL)  # 2**-150 (1 + 2**-150 ...)
    assert max(used) >= 256


# ---------------------------------------------------------------------------
# Special values, limits, signed zeros and exact points
# ---------------------------------------------------------------------------

LOG2_ROUNDED = _b32(math.log(2))
SPECIAL_CASES = [
    # exp / exp2
    ("exp", 0.0, 1.0, True),
    ("exp", -0.0, 1.0, True),
    ("exp", INF, INF, True),
    ("exp", -INF, 0.0, True),
    ("exp", NAN, NAN, True),
    ("exp", 89.0, INF, False),
    ("exp", -104.0, 0.0, False),
    ("exp2", 3.0, 8.0, True),
    ("exp2", -149.0, MIN_SUBNORMAL, True),
    ("exp2", -150.0, 0.0, False),  # the midpoint 2**-150 ties to +0
    ("exp2", 127.0, 2.0**127, True),
    ("exp2", 128.0, INF, False),
    ("exp2", -0.0, 1.0, True),
    ("exp2", -INF, 0.0, True),
    # log / log2
    ("log", 1.0, 0.0, True),
    ("log", 0.0, -INF, True),
    ("log", -0.0, -INF, True),
    ("log", INF, INF, True),
    ("log", -1.0, NAN, True),
    ("log", -INF, NAN, True),
    ("log", -MIN_SUBNORMAL, NAN, True),
    ("log2", 8.0, 3.0, True),
    ("log2", 0.5, -1.0, True),
    ("log2", MIN_SUBNORMAL, -149.0, True),
    ("log2", 1.0, 0.0, True),
    ("log2", -0.0, -INF, True),
    ("log2", -2.0, NAN, True),
    # sin / cos / tanh / erf
    ("sin", 0.0, 0.0, True),
    ("sin", -0.0, -0.0, True),
    ("sin", INF, NAN, True),
    ("sin", -INF, NAN, True),
    ("sin", MIN_SUBNORMAL, MIN_SUBNORMAL, False),
    ("cos", 0.0, 1.0, True),
    ("cos", -0.0, 1.0, True),
    ("cos", INF, NAN, True),
    ("tanh", -0.0, -0.0, True),
    ("tanh", 0.0, 0.0, True),
    ("tanh", INF, 1.0, True),
    ("tanh", -INF, -1.0, True),
    ("tanh", 10.0, 1.0, False),
    ("tanh", -MIN_SUBNORMAL, -MIN_SUBNORMAL, False),
    ("erf", -0.0, -0.0, True),
    ("erf", 0.0, 0.0, True),
    ("erf", INF, 1.0, True),
    ("erf", -INF, -1.0, True),
    ("erf", 4.0, 1.0, False),
    # rsqrt
    ("rsqrt", 4.0, 0.5, True),
    ("rsqrt", 0.25, 2.0, True),
    ("rsqrt", 2.0**-148, 2.0**74, True),
    ("rsqrt", 0.0, INF, True),
    ("rsqrt", -0.0, -INF, True),
    ("rsqrt", INF, 0.0, True),
    ("rsqrt", -INF, NAN, True),
    ("rsqrt", -4.0, NAN, True),
    ("rsqrt", NAN, NAN, True),
    ("rsqrt", 2.0, _b32(1 / math.sqrt(2)), False),
    ("rsqrt", 8.0, _b32(1 / math.sqrt(8)), False),
    # sigmoid
    ("sigmoid", 0.0, 0.5, True),
    ("sigmoid", -0.0, 0.5, True),
    ("sigmoid", INF, 1.0, True),
    ("sigmoid", -INF, 0.0, True),
    ("sigmoid", NAN, NAN, True),
    ("sigmoid", 20.0, 1.0, False),
    ("sigmoid", -MAX_FINITE, 0.0, False),
    ("sigmoid", MAX_FINITE, 1.0, False),
    # silu
    ("silu", 0.0, 0.0, True),
    ("silu", -0.0, -0.0, True),
    ("silu", INF, INF, True),
    ("silu", -INF, -0.0, True),
    ("silu", NAN, NAN, True),
    ("silu", -MAX_FINITE, -0.0, False),
    ("silu", -120.0, -0.0, False),
    ("silu", MAX_FINITE, MAX_FINITE, False),
    # softplus
    ("softplus", 0.0, LOG2_ROUNDED, False),
    ("softplus", -0.0, LOG2_ROUNDED, False),
    ("softplus", INF, INF, True),
    ("softplus", -INF, 0.0, True),
    ("softplus", NAN, NAN, True),
    ("softplus", -MAX_FINITE, 0.0, False),
    ("softplus", MAX_FINITE, MAX_FINITE, False),
    ("softplus", 100.0, 100.0, False),
    # gelu
    ("gelu", 0.0, 0.0, True),
    ("gelu", -0.0, -0.0, True),
    ("gelu", INF, INF, True),
    ("gelu", -INF, -0.0, True),
    ("gelu", NAN, NAN, True),
    ("gelu", -MAX_FINITE, -0.0, False),
    ("gelu", -20.0, -0.0, False),
    ("gelu", MAX_FINITE, MAX_FINITE, False),
    ("gelu", 10.0, 10.0, False),
    # elu
    ("elu", 0.0, 0.0, True),
    ("elu", -0.0, -0.0, True),
    ("elu", INF, INF, True),
    ("elu", -INF, -1.0, True),
    ("elu", NAN, NAN, True),
    ("elu", 3.5, 3.5, True),
    ("elu", MIN_SUBNORMAL, MIN_SUBNORMAL, True),
    ("elu", -MIN_SUBNORMAL, -MIN_SUBNORMAL, False),
    ("elu", -20.0, -1.0, False),
]


@pytest.mark.parametrize(("name", "x", "value", "exact"), SPECIAL_CASES)
@pytest.mark.parametrize("module", [rounded, rounded_mpmath], ids=["mpfr", "mpmath"])
def test_special_values(module, name: str, x: float, value: float, exact: bool) -> None:
    assert _key(module.UNARY[name](x)) == _key((value, exact))


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("module", [rounded, rounded_mpmath], ids=["mpfr", "mpmath"])
def test_nan_gives_nan(module, name: str) -> None:
    for bits in (0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FFFFFFF):
        value, exact = module.UNARY[name](from_bits(bits))
        assert math.isnan(value) and exact


def test_gelu_negative_tail_is_normal() -> None:
    value, exact = rounded.gelu(-10.0)
    assert value == _b32(-7.619853024160527e-23) and not exact
    assert abs(value) >= MIN_NORMAL


@pytest.mark.parametrize("module", [rounded, rounded_mpmath], ids=["mpfr", "mpmath"])
def test_negative_tails_underflow_through_subnormals_to_minus_zero(module) -> None:
    for name in ("silu", "gelu"):
        values = [module.UNARY[name](_b32(-x / 8))[0] for x in range(80, 1000)]
        assert all(math.copysign(1.0, v) < 0 for v in values)  # never +0
        assert any(0 < -v < MIN_NORMAL for v in values)  # subnormal results occur
        assert to_bits(values[-1]) == to_bits(-0.0)


# ---------------------------------------------------------------------------
# pow: the C99 Annex F table
# ---------------------------------------------------------------------------

POW_CASES = [
    # pow(x, +-0) = 1 for any x, even NaN
    (NAN, 0.0, 1.0, True),
    (NAN, -0.0, 1.0, True),
    (-INF, 0.0, 1.0, True),
    (0.0, -0.0, 1.0, True),
    (-3.0, 0.0, 1.0, True),
    # pow(+1, y) = 1 for any y, even NaN
    (1.0, NAN, 1.0, True),
    (1.0, INF, 1.0, True),
    (1.0, -INF, 1.0, True),
    (1.0, -7.5, 1.0, True),
    # NaN otherwise
    (NAN, 1.0, NAN, True),
    (2.0, NAN, NAN, True),
    (-1.0, NAN, NAN, True),
    # pow(-1, +-inf) = 1
    (-1.0, INF, 1.0, True),
    (-1.0, -INF, 1.0, True),
    # y = +-inf
    (0.5, INF, 0.0, True),
    (-0.5, INF, 0.0, True),
    (2.0, INF, INF, True),
    (-2.0, INF, INF, True),
    (0.5, -INF, INF, True),
    (-0.5, -INF, INF, True),
    (2.0, -INF, 0.0, True),
    (-2.0, -INF, 0.0, True),
    (0.0, -INF, INF, True),
    (-0.0, INF, 0.0, True),
    # x = +inf
    (INF, -2.0, 0.0, True),
    (INF, -0.5, 0.0, True),
    (INF, 0.5, INF, True),
    (INF, 3.0, INF, True),
    # x = -inf
    (-INF, -3.0, -0.0, True),
    (-INF, -2.0, 0.0, True),
    (-INF, -0.5, 0.0, True),
    (-INF, 3.0, -INF, True),
    (-INF, 2.0, INF, True),
    (-INF, 0.5, INF, True),
    (-INF, 2.0**24, INF, True),
    # x = +-0
    (-0.0, -1.0, -INF, True),
    (0.0, -1.0, INF, True),
    (-0.0, -3.0, -INF, True),
    (-0.0, -2.0, INF, True),
    (-0.0, -0.5, INF, True),
    (0.0, -0.5, INF, True),
    (-0.0, 3.0, -0.0, True),
    (0.0, 3.0, 0.0, True),
    (-0.0, 2.0, 0.0, True),
    (-0.0, 0.5, 0.0, True),
    (-0.0, 2.0**24, 0.0, True),
    # finite negative base, non-integer exponent
    (-2.0, 0.5, NAN, True),
    (-8.0, _b32(1 / 3), NAN, True),
    (-MIN_SUBNORMAL, 1.5, NAN, True),
    # exact powers
    (2.0, 3.0, 8.0, True),
    (-2.0, 3.0, -8.0, True),
    (-2.0, 2.0, 4.0, True),
    (4.0, 0.5, 2.0, True),
    (9.0, 0.5, 3.0, True),
    (6561.0, 0.25, 9.0, True),
    (0.25, -1.5, 8.0, True),
    (2.0, -149.0, MIN_SUBNORMAL, True),
    (-2.0, -149.0, -MIN_SUBNORMAL, True),
    (0.5, 149.0, MIN_SUBNORMAL, True),
    (2.0, 127.0, 2.0**127, True),
    (-1.0, 2.0**24 + 2, 1.0, True),
    (-1.0, 3.0, -1.0, True),
    (3.0, 15.0, 14348907.0, True),
    # rounded: ties, overflow, underflow (signs follow the parity of y)
    (4097.0, 2.0, 16785408.0, False),  # 16785409 is a midpoint: ties to even
    (3 * 2.0**-75, 2.0, 4 * MIN_SUBNORMAL, False),  # 4.5 * 2**-149 ties to 4 * 2**-149
    (2.0, 128.0, INF, False),
    (-2.0, 129.0, -INF, False),
    (2.0, -150.0, 0.0, False),  # the midpoint 2**-150 ties to +0
    (-0.5, 150.0, 0.0, False),
    (-0.5, 151.0, -0.0, False),
    (2.0, 0.5, _b32(math.sqrt(2)), False),
    (3.0, 16.0, 43046720.0, False),  # 43046721 is rounded
    (10.0, -1.0, _b32(0.1), False),
]


@pytest.mark.parametrize(("x", "y", "value", "exact"), POW_CASES)
@pytest.mark.parametrize("module", [rounded, rounded_mpmath], ids=["mpfr", "mpmath"])
def test_pow_special_cases(module, x: float, y: float, value: float, exact: bool) -> None:
    assert _key(module.pow(x, y)) == _key((value, exact))


@pytest.mark.parametrize(("x", "y", "value", "exact"), POW_CASES)
def test_mpfr_pow_implements_the_same_special_cases(x, y, value, exact) -> None:
    # rounded.pow decides the special cases itself; MPFR's mpfr_pow agrees.
    assert _key(rounded._native("pow", x, y)) == _key((value, exact))


# ---------------------------------------------------------------------------
# Exact points
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("module", [rounded, rounded_mpmath], ids=["mpfr", "mpmath"])
def test_exact_points(module) -> None:
    for k in range(-149, 128):
        assert module.exp2(float(k)) == (math.ldexp(1.0, k), True)
        assert module.log2(math.ldexp(1.0, k)) == (float(k), True)
        expected = (math.ldexp(1.0, -k // 2), True) if k % 2 == 0 else None
        if expected is not None:
            assert module.rsqrt(math.ldexp(1.0, k)) == expected
        else:
            assert not module.rsqrt(math.ldexp(1.0, k))[1]
    for k in range(1, 60):
        assert module.pow(2.0, float(k)) == (math.ldexp(1.0, k), True)
    for base in range(2, 50):
        for power in range(1, 6):
            value = base**power
            if value < 2**24:
                assert module.pow(float(base), float(power)) == (float(value), True)
                if power in (2, 4):  # a dyadic root exponent
                    assert module.pow(float(value), 1.0 / power) == (float(base), True)
    # the only exact finite points of the transcendental functions are at 0 (and x > 0 for elu)
    for x in (1.0, -1.0, 0.5, MIN_SUBNORMAL, 3.0):
        for name in ("exp", "sin", "tanh", "erf", "sigmoid", "silu", "softplus", "gelu"):
            assert not module.UNARY[name](x)[1], (name, x)
    for x in (0.5, MIN_SUBNORMAL, 3.0, MAX_FINITE, next_up(1.0), next_down(1.0)):
        assert not module.log(x)[1]
        assert not module.log2(x)[1] or x == 0.5 or x == MIN_SUBNORMAL


# ---------------------------------------------------------------------------
# numpy float32 sanity (not conformance: numpy is not correctly rounded)
# ---------------------------------------------------------------------------

_NUMPY = {
    "exp": np.exp,
    "exp2": np.exp2,
    "log": np.log,
    "log2": np.log2,
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
    "rsqrt": lambda x: np.float32(1) / np.sqrt(x),
    "softplus": lambda x: np.logaddexp(np.float32(0), x),
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
}


@pytest.mark.parametrize("name", sorted(_NUMPY))
def test_numpy_float32_within_a_few_ulp(name: str) -> None:
    xs = [x for x in _sweep(name) if not (name in ("sin", "cos") and abs(x) > 2.0**20)]
    array = np.array(xs, dtype=np.float32)
    with np.errstate(all="ignore"):
        got = np.asarray(_NUMPY[name](array), dtype=np.float32)
    worst = 0
    for x, g in zip(xs, got.tolist()):
        value, _ = rounded.UNARY[name](x)
        if math.isnan(value):
            assert math.isnan(g), (name, x, g)
            continue
        distance = ulp_distance(value, g)
        assert distance is not None and distance <= 4, (name, x, value, g)
        worst = max(worst, distance)
    assert worst <= 4


def test_numpy_float32_pow_within_a_few_ulp() -> None:
    for x in (0.5, 1.5, 2.0, 3.0, 10.0, _b32(0.1), 1000.0):
        for y in (-3.0, -0.5, 0.5, 1.5, 2.0, 7.0, _b32(1 / 3)):
            got = float(np.power(np.float32(x), np.float32(y)))
            assert ulp_distance(rounded.pow(x, y)[0], got) <= 4


# ---------------------------------------------------------------------------
# API, operand validation and the certification cap
# ---------------------------------------------------------------------------


def test_both_modules_expose_the_same_functions() -> None:
    assert set(rounded.FUNCTIONS) == set(rounded_mpmath.FUNCTIONS)
    expected = {"exp", "exp2", "log", "log2", "sin", "cos", "tanh", "erf", "rsqrt"}
    expected |= {"sigmoid", "silu", "softplus", "gelu", "elu", "pow"}
    assert set(rounded.FUNCTIONS) == expected


@pytest.mark.parametrize("module", [rounded, rounded_mpmath], ids=["mpfr", "mpmath"])
def test_operand_validation(module) -> None:
    with pytest.raises(ValueError, match="binary32"):
        module.exp(0.1)
    with pytest.raises(TypeError):
        module.exp("1")
    with pytest.raises(TypeError):
        module.exp(1)
    with pytest.raises(ValueError):
        module.pow(2.0, 0.1)
    assert module.exp(np.float32(1.0)) == module.exp(1.0)


def test_ziv_cap_raises_certification_error(monkeypatch) -> None:
    monkeypatch.setattr(rounded, "MAX_PRECISION", 32)
    with pytest.raises(rounded.CertificationError, match="sigmoid"):
        rounded.sigmoid(1.0)
    monkeypatch.setattr(rounded_mpmath, "MAX_PRECISION", 128)
    with pytest.raises(rounded_mpmath.CertificationError, match="gelu"):
        rounded_mpmath.gelu(1.0)
