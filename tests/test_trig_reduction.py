"""oracle.trig: the exact argument reduction of large binary32 sin/cos arguments.

Every claim of the module docstring is checked against mpmath at 600 bits
(an independent evaluation of x * 2/pi, not the module's table): the
quadrant, the sign of the reduced argument, r within 4.3u of |f| pi/2, and
the values within LIBM + REDUCTION_ERROR units.
"""

from __future__ import annotations

import gmpy2
import mpmath
import numpy as np
import pytest

from oracle import trig
from oracle import vectorised as V

U = 2.0**-53


def _large_patterns(per_exponent: int, seed: int) -> np.ndarray:
    """Random significands at every exponent of |x| >= 2**28, both signs, plus the
    extremes of each binade and the largest finite binary32."""
    rng = np.random.default_rng(seed)
    biased = np.repeat(np.arange(155, 255, dtype=np.uint32), per_exponent)
    fraction = rng.integers(0, 1 << 23, biased.size, dtype=np.uint32)
    fraction[::per_exponent] = 0  # 2**e itself
    fraction[1::per_exponent] = (1 << 23) - 1  # the top of the binade
    bits = (biased << np.uint32(23)) | fraction
    bits[::2] |= np.uint32(0x80000000)
    return np.concatenate([bits, np.array([0x7F7FFFFF, trig.LARGE], np.uint32)])


def _exact_reduction(x: float) -> tuple[int, mpmath.mpf]:
    """(q mod 4, f) with |x| 2/pi = q + f, f in [-1/2, 1/2), at 600 bits."""
    with mpmath.workprec(600):
        value = abs(mpmath.mpf(x)) * 2 / mpmath.pi
        q = int(mpmath.floor(value + mpmath.mpf(0.5)))
        return q % 4, value - q


def test_the_reduction_matches_an_independent_high_precision_one():
    bits = _large_patterns(6, seed=3)
    q, negative, r, unsure = trig.reduce_quadrant(bits)
    assert not unsure.any()
    for i, x in enumerate(bits.view(np.float32).astype(np.float64).tolist()):
        q_exact, f_exact = _exact_reduction(x)
        assert int(q[i]) == q_exact, x
        assert bool(negative[i]) == (f_exact < 0), x
        with mpmath.workprec(600):
            r_exact = abs(f_exact) * mpmath.pi / 2
            error = abs((mpmath.mpf(float(r[i])) - r_exact) / r_exact) / U
        assert error <= 4.3, (x, float(error))


@pytest.mark.parametrize("op", ["sin", "cos"])
def test_values_are_within_the_stated_bound(op):
    bits = _large_patterns(4, seed=5 if op == "sin" else 6)
    y, unsure = trig.sin_cos(op, bits.view(np.float32))
    assert not unsure.any()
    bound = V.LIBM + trig.REDUCTION_ERROR
    function = getattr(gmpy2, op)
    with gmpy2.context(precision=300):
        for x, value in zip(bits.view(np.float32).astype(np.float64).tolist(), y.tolist()):
            exact = function(gmpy2.mpfr(x))
            error = float(abs((gmpy2.mpfr(value) - exact) / exact)) / U
            assert error <= bound, (op, x, error)


@pytest.mark.parametrize("bad", [0x4D7FFFFF, 0x7F800000, 0x3F800000])
def test_arguments_outside_the_reduced_range_are_refused(bad):
    with pytest.raises(ValueError, match="2\\*\\*28"):
        trig.reduce_quadrant(np.array([bad], np.uint32))


def test_the_oracle_takes_the_reduction_for_large_arguments_and_agrees_with_mpfr():
    bits = _large_patterns(3, seed=11)
    x = bits.view(np.float32)
    for op in ("sin", "cos"):
        expected = np.array([V._scalar(op, x[i : i + 1])[0] for i in range(x.size)], np.float32)
        assert np.array_equal(V.certified(op, x).view(np.uint32), expected.view(np.uint32))


@pytest.mark.parametrize("op", ["sin", "cos"])
def test_the_cpu_backends_own_reduction_is_within_its_bound(op):
    """backends/cpu/trig.py reduces in float64 pieces (not the oracle's integers)."""
    from backends.cpu import trig as cpu_trig

    x = _large_patterns(4, seed=21 if op == "sin" else 22).view(np.float32).astype(np.float64)
    y, unsure = cpu_trig.reduced_sin_cos(op, x)
    assert not unsure.any()
    bound = V.LIBM + 4.0
    function = getattr(gmpy2, op)
    with gmpy2.context(precision=300):
        for xi, value in zip(x.tolist(), y.tolist()):
            exact = function(gmpy2.mpfr(xi))
            error = float(abs((gmpy2.mpfr(value) - exact) / exact)) / U
            assert error <= bound, (op, xi, error)
