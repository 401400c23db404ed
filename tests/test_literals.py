"""The command-line literal parser treats its text as untrusted data.

Every malformed, hostile or oversized literal is a :class:`LiteralError` (a
ValueError: the commands turn it into exit status 2) that names the problem;
nothing else escapes and nothing runs long.
"""

import math
from fractions import Fraction

import pytest

from conformance.model.literals import (
    MAX_DEPTH,
    MAX_TEXT,
    LiteralError,
    format_value,
    parse_argument,
)
from oracle import DType, binary32


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("hex('0x1p99999')", "exponent beyond"),
        ("hex('0x1p1024')", "binary64 range"),
        ("hex('zz')", "hex("),
        ("hex(1)", "one string"),
        ("Fraction(1, 0)", "zero denominator"),
        ("Fraction('3/0')", "zero denominator"),
        ("Fraction('1e999999999')", "exponent beyond"),
        ("Fraction('1e-999999999')", "exponent beyond"),
        ("Fraction('abc')", "not a decimal"),
        ("Fraction(1.5)", "one string or one or two integers"),
        ("Fraction(True, 2)", "one string or one or two integers"),
        ("f32(1e99999)", "exponent beyond"),
        ("f32('1.5')", "f32 takes one decimal"),
        ("f32(1, 2)", "f32 takes one decimal"),
        ("bits(-1)", "32-bit pattern"),
        ("bits(0x100000000)", "32-bit pattern"),
        ("bits(1.0)", "32-bit pattern"),
        ("open('/etc/passwd')", "the functions are"),
        ("__import__('os').system('true')", "as a literal"),
        ("1 + 2", "as a literal"),
        ("-'a'", "cannot negate"),
        ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "nested deeper"),
        ("[" * 100_000 + "]" * 100_000, "nested deeper"),
        ("1" * 5000, "cannot parse"),
        ("x" * (MAX_TEXT + 1), "characters"),
        ("Float32:[0.1]", "not exactly representable"),
        ("Float32:['x']", "Float32 tensor"),
        ("Nosuch:[1]", "unknown dtype"),
        ("Int32:[2147483648]", "outside the Int32 range"),
        ("[1,", "cannot parse"),
    ],
)
def test_hostile_literals_are_literal_errors(text, message):
    with pytest.raises(LiteralError, match=None) as caught:
        parse_argument(text)
    assert message in str(caught.value)
    assert isinstance(caught.value, ValueError)
    assert len(str(caught.value)) < 300


def test_f32_rounds_the_written_decimal_once():
    # -3.3 rounds to the binary32 nearest the decimal, ties to even.
    assert parse_argument("f32(-3.3)") == binary32.round_fraction(Fraction("-3.3"))
    tensor = parse_argument("Float32:[f32(0.1), f32(-0.0), f32(1e39), f32(-inf), f32(nan)]")
    assert tensor.dtype is DType.Float32
    values = tensor.values
    assert binary32.to_bits(values[0]) == 0x3DCCCCCD
    assert binary32.to_bits(values[1]) == 0x80000000
    assert values[2] == math.inf and values[3] == -math.inf and math.isnan(values[4])


def test_f32_does_not_round_twice():
    # 1 + 2**-24 + 2**-54 written in decimal: binary64 rounds it to 1 + 2**-24,
    # a binary32 tie that would then round to even (1.0); rounded once it is
    # above the midpoint and rounds up.
    exact = 1 + Fraction(1, 2**24) + Fraction(1, 2**54)
    written = format(exact.numerator * 10**60 // exact.denominator, "d")
    decimal = written[0] + "." + written[1:]
    assert Fraction(decimal) > 1 + Fraction(1, 2**24)
    assert float(decimal) == 1 + 2**-24  # the binary64 double rounding trap
    assert parse_argument(f"f32({decimal})") == 1 + 2**-23


def test_valid_literals_still_read():
    assert parse_argument("Fraction('1.5e-3')") == Fraction(3, 2000)
    assert parse_argument("Fraction(' -7 / 2 ')") == Fraction(-7, 2)
    assert parse_argument("hex('0x1.0000001p0')") == float.fromhex("0x1.0000001p0")
    assert parse_argument("  (0, -1)  ") == (0, -1)
    assert parse_argument("[" * MAX_DEPTH + "1" + "]" * MAX_DEPTH) is not None


def test_a_weak_int_is_shown_by_value_not_its_low_bits():
    assert format_value(-5) == "-5 (0xFFFFFFFB)"
    assert format_value(2**40) == "1099511627776 (outside Int32)"
    assert "0x" not in format_value(-(2**64))
    huge = format_value(10**5000)
    assert "16610 bits" in huge and len(huge) < 80
