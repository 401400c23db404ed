"""Tests for oracle.reference.integer: exact Int32 elementwise rules.

References are Python's own unbounded integers; the overflow boundaries of
the checked power are hand-derived (46340**2 = 2147395600 fits, 46341**2 =
2147488281 does not; 3**19 = 1162261467 fits, 3**20 = 3486784401 does not;
(-2)**31 = -2**31 fits, 2**31 does not).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from oracle.reference import integer
from oracle.reference.integer import INT32_MAX, INT32_MIN, POW_EXPONENT_MAX

int32 = st.integers(INT32_MIN, INT32_MAX) | st.sampled_from(
    [INT32_MIN, INT32_MIN + 1, -1, 0, 1, INT32_MAX - 1, INT32_MAX, 2**16, -(2**16), 46341]
)


def test_constants():
    assert (INT32_MIN, INT32_MAX) == (-(2**31), 2**31 - 1)
    assert POW_EXPONENT_MAX == 2**31 - 1


@given(x=int32, y=int32)
@example(x=INT32_MAX, y=INT32_MAX)
@example(x=INT32_MIN, y=INT32_MIN)
@example(x=INT32_MIN, y=-1)
def test_add_sub_mul_relu_are_exact(x, y):
    assert integer.add(x, y) == x + y
    assert integer.sub(x, y) == x - y
    assert integer.mul(x, y) == x * y
    assert integer.relu(x) == (x if x > 0 else 0)
    for value in (integer.add(x, y), integer.sub(x, y), integer.mul(x, y), integer.relu(x)):
        assert type(value) is int


def test_results_leave_the_range_unwrapped_for_the_caller_to_check():
    # The plan's narrowing point checks these; the rules never wrap or saturate.
    assert integer.add(INT32_MAX, 1) == 2**31
    assert integer.sub(INT32_MIN, 1) == -(2**31) - 1
    assert integer.mul(2**30, 2) == 2**31
    assert integer.mul(INT32_MIN, -1) == 2**31
    assert integer.mul(INT32_MIN, INT32_MIN) == 2**62
    assert integer.relu(INT32_MIN) == 0
    assert integer.relu(INT32_MAX) == INT32_MAX


@given(base=st.integers(-60, 60), exponent=st.integers(0, 40))
def test_pow_matches_python_for_small_cases(base, exponent):
    expected = base**exponent
    if INT32_MIN <= expected <= INT32_MAX:
        assert integer.pow(base, exponent) == expected
    else:
        with pytest.raises(OverflowError):
            integer.pow(base, exponent)


BOUNDARY_BASES = [
    0, 1, -1, 2, -2, 3, -3, 7, 10, -10, 1290, -1290, 1291, -1291, 46340, -46340, 46341,
    -46341, 2**15, 2**16, INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1,
]  # fmt: skip


@pytest.mark.parametrize("base", BOUNDARY_BASES)
def test_pow_boundary_bases_for_every_exponent_up_to_64(base):
    for exponent in range(65):
        expected = base**exponent
        if INT32_MIN <= expected <= INT32_MAX:
            assert integer.pow(base, exponent) == expected, (base, exponent)
        else:
            with pytest.raises(OverflowError, match=rf"pow: Int32 {base} \*\* {exponent} "):
                integer.pow(base, exponent)


FITS = [
    (0, 0, 1),
    (5, 0, 1),
    (INT32_MIN, 0, 1),
    (0, 1, 0),
    (INT32_MIN, 1, INT32_MIN),
    (INT32_MAX, 1, INT32_MAX),
    (2, 30, 2**30),
    (-2, 31, -(2**31)),
    (46340, 2, 2147395600),
    (-46340, 2, 2147395600),
    (3, 19, 1162261467),
    (-3, 19, -1162261467),
    (1290, 3, 2146689000),
    (-1290, 3, -2146689000),
    (-(2**15), 2, 2**30),
    (2**15, 2, 2**30),
]
OVERFLOWS = [
    (2, 31),
    (-2, 32),
    (46341, 2),
    (-46341, 2),
    (3, 20),
    (-3, 20),
    (1291, 3),
    (-1291, 3),
    (2**16, 2),
    (INT32_MIN, 2),
    (INT32_MAX, 2),
    (-(2**31), 3),
]


@pytest.mark.parametrize(("base", "exponent", "expected"), FITS)
def test_pow_fits(base, exponent, expected):
    assert integer.pow(base, exponent) == expected


@pytest.mark.parametrize(("base", "exponent"), OVERFLOWS)
def test_pow_overflows_naming_base_and_exponent(base, exponent):
    with pytest.raises(OverflowError, match=rf"pow: Int32 {base} \*\* {exponent} overflows"):
        integer.pow(base, exponent)


@pytest.mark.parametrize("exponent", [0, 1, 2, 3, 31, 32, 2**31 - 2, POW_EXPONENT_MAX])
def test_pow_of_0_1_and_minus_1_is_exact_for_every_exponent(exponent):
    assert integer.pow(0, exponent) == (1 if exponent == 0 else 0)
    assert integer.pow(1, exponent) == 1
    assert integer.pow(-1, exponent) == (-1 if exponent % 2 else 1)


@pytest.mark.parametrize("base", [2, -2, 3, -3, 46341, INT32_MAX, INT32_MIN])
@pytest.mark.parametrize("exponent", [32, 33, 1000, 2**20, 2**31 - 2, POW_EXPONENT_MAX])
def test_pow_huge_exponent_overflows_without_materialising_the_power(base, exponent):
    # 3 ** (2**31 - 1) has about 3.4e9 bits: computing it would take minutes
    # and gigabytes, so finishing at all shows the bound is decided first.
    with pytest.raises(OverflowError, match=rf"{base} \*\* {exponent}"):
        integer.pow(base, exponent)


@given(base=int32, exponent=st.integers(32, POW_EXPONENT_MAX))
def test_pow_with_exponent_above_31_fits_only_for_0_1_minus_1(base, exponent):
    if base in (0, 1, -1):
        assert integer.pow(base, exponent) == (-1 if base == -1 and exponent % 2 else abs(base))
    else:
        with pytest.raises(OverflowError):
            integer.pow(base, exponent)


def test_pow_exponent_31_fits_only_for_minus_2_among_large_bases():
    fitting = [b for b in range(-100, 101) if INT32_MIN <= b**31 <= INT32_MAX]
    assert fitting == [-2, -1, 0, 1]
    for base in range(-100, 101):
        if base in fitting:
            assert integer.pow(base, 31) == base**31
        else:
            with pytest.raises(OverflowError):
                integer.pow(base, 31)


@pytest.mark.parametrize("exponent", [-1, -(2**31), 2**31, 2**40])
def test_pow_exponent_outside_its_range_is_a_value_error(exponent):
    with pytest.raises(ValueError, match=r"pow: operand 1 \(exponent\)"):
        integer.pow(2, exponent)


@pytest.mark.parametrize("exponent", [True, 2.0, None])
def test_pow_exponent_must_be_an_integer(exponent):
    with pytest.raises(TypeError, match=r"pow: operand 1 \(exponent\)"):
        integer.pow(2, exponent)


def test_operands_are_validated_with_operation_and_position():
    with pytest.raises(ValueError, match=r"add: operand 1 = 2147483648 lies outside"):
        integer.add(0, 2**31)
    with pytest.raises(ValueError, match=r"pow: operand 0 = -2147483649"):
        integer.pow(INT32_MIN - 1, 0)
    with pytest.raises(TypeError, match=r"mul: operand 0 must be an Int32 integer"):
        integer.mul(True, 1)
    with pytest.raises(TypeError, match=r"relu: operand 0"):
        integer.relu(1.0)
    # numpy integers are accepted and give Python ints
    value = integer.mul(np.int32(INT32_MAX), np.int64(2))
    assert value == 2 * INT32_MAX and type(value) is int
    assert type(integer.pow(np.int32(-2), np.int64(31))) is int
