"""Literal call arguments for the command line.

One argument is either a tensor literal ``DTYPE:DATA`` -- a dtype name, a colon
and nested lists -- or a plain value (a weak scalar or a non-dtype parameter
such as an axis).  Values are Python-like literals extended for binary32 work:

* ``nan``, ``inf``, ``-inf``, ``-0.0``;
* ``hex('0x1.fffffep+127')`` -- a C99 hexadecimal float, exact (a binary64
  value: a weak scalar may be any float, a Float32 element must be binary32);
* ``bits(0x7fc00001)`` -- a Float32 element given by its bit pattern, kept
  exactly: ``Float32:[bits(0x7f800001)]`` is a tensor holding the signalling
  NaN 0x7F800001 (an :class:`oracle.binary32.SignallingNaN`), which reaches the
  backend as those bits.  Outside a Float32 tensor (a weak scalar, a
  parameter) a value is a Python float, which cannot hold a signalling NaN:
  ``bits`` of one there is refused rather than quietly changed;
* ``f32(-3.3)`` -- the decimal written inside, rounded once (to nearest, ties
  to even) to binary32: ``-3.3`` alone is refused in a Float32 tensor because
  it is not a binary32 value, and rounding it through binary64 first could
  round twice;
* ``Fraction(1, 3)``, ``Fraction('-7/2')``, ``Fraction('1.5e-3')`` -- an exact
  rational weak scalar;
* ``true``/``false`` as well as ``True``/``False``, ``None``, tuples ``(0, 1)``.

Examples: ``Float32:[1.5, nan, bits(0x80000000)]``, ``Int32:[[1, 2], [3, 4]]``,
``Bool:[true, false]``, ``2``, ``0.5``, ``(0, -1)``, ``Float32:[f32(0.1)]``.

A literal is untrusted text.  Whatever it says, reading it either returns a
value or raises :class:`LiteralError` (a ValueError) with a message naming the
offending part: no other exception escapes, nothing is evaluated, and the
work is bounded -- the text, its nesting depth and its exponents are limited
(:data:`MAX_TEXT`, :data:`MAX_DEPTH`, :data:`MAX_EXPONENT`), so a literal can
neither exhaust memory nor hang the parser (``Fraction('1e999999999')`` would
otherwise build a billion-digit integer).
"""

from __future__ import annotations

import ast
import math
import re
from fractions import Fraction
from typing import Any

from oracle import DType, Tensor, binary32

__all__ = [
    "MAX_DEPTH",
    "MAX_EXPONENT",
    "MAX_TEXT",
    "LiteralError",
    "format_value",
    "parse_argument",
]

#: The longest argument read, in characters.
MAX_TEXT = 1_000_000
#: The deepest nesting of lists, tuples and calls.
MAX_DEPTH = 32
#: The largest decimal exponent (``1e400``) or hexadecimal binary exponent
#: magnitude accepted inside ``Fraction('...')``, ``f32(...)`` and ``hex('...')``:
#: far beyond binary32's range, small enough to compute with exactly.
MAX_EXPONENT = 10_000

_NAMES = {"nan": math.nan, "inf": math.inf, "true": True, "false": False}
_CONSTANTS = {"True": True, "False": False, "None": None}
#: ``Fraction('...')`` text: an optional sign, a decimal with an optional
#: exponent, or a ratio of two integers.
_RATIONAL = re.compile(
    r"\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE](?P<exponent>[+-]?\d+))?\s*"
    r"|\s*[+-]?\d+\s*/\s*\d+\s*"
)
_HEX_EXPONENT = re.compile(r"[pP]([+-]?\d+)")


class LiteralError(ValueError):
    """A command-line literal that cannot be read (a usage error)."""


def _segment(node: ast.AST, text: str) -> str:
    shown = ast.get_source_segment(text, node) or text
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _bounded_exponent(written: str, exponent: str | None, what: str) -> None:
    if exponent is not None and abs(int(exponent)) > MAX_EXPONENT:
        raise LiteralError(
            f"{what}({written[:40]!r}): exponent beyond +-{MAX_EXPONENT} "
            "(far outside binary32's range; write inf or 0 instead)"
        )


def _fraction(arguments: list[Any], shown: str) -> Fraction:
    if len(arguments) == 1 and isinstance(arguments[0], str):
        written = arguments[0]
        match = _RATIONAL.fullmatch(written)
        if match is None:
            raise LiteralError(f"{shown}: not a decimal or an integer ratio")
        _bounded_exponent(written, match.group("exponent"), "Fraction")
        if re.fullmatch(r"[^/]*/\s*0+\s*", written):
            raise LiteralError(f"{shown}: zero denominator")
        return Fraction(re.sub(r"\s+", "", written))
    if not 1 <= len(arguments) <= 2 or not all(
        isinstance(a, int) and not isinstance(a, bool) for a in arguments
    ):
        raise LiteralError(f"{shown}: Fraction takes one string or one or two integers")
    if len(arguments) == 2 and arguments[1] == 0:
        raise LiteralError(f"{shown}: zero denominator")
    return Fraction(*arguments)


def _hex(arguments: list[Any], shown: str) -> float:
    if len(arguments) != 1 or not isinstance(arguments[0], str):
        raise LiteralError(f"{shown}: hex takes one string such as '0x1.8p-3'")
    written = arguments[0]
    exponent = _HEX_EXPONENT.search(written)
    _bounded_exponent(written, exponent.group(1) if exponent else None, "hex")
    try:
        value = float.fromhex(written)
    except (ValueError, OverflowError) as error:
        raise LiteralError(
            f"{shown}: {error} (binary64 range; binary32 ends at 0x1.fffffep+127)"
        ) from None
    return value


def _bits(arguments: list[Any], shown: str) -> float:
    if (
        len(arguments) != 1
        or not isinstance(arguments[0], int)
        or isinstance(arguments[0], bool)
        or not 0 <= arguments[0] <= 0xFFFFFFFF
    ):
        raise LiteralError(f"{shown}: bits takes one 32-bit pattern, 0 to 0xFFFFFFFF")
    return binary32.from_bits_exact(arguments[0])


def _f32(node: ast.Call, text: str, shown: str) -> float:
    """``f32(decimal)``: the decimal *as written*, rounded once to binary32."""
    if len(node.args) != 1:
        raise LiteralError(f"{shown}: f32 takes one decimal number")
    argument = node.args[0]
    negative = False
    while isinstance(argument, ast.UnaryOp) and isinstance(argument.op, (ast.USub, ast.UAdd)):
        negative ^= isinstance(argument.op, ast.USub)
        argument = argument.operand
    if isinstance(argument, ast.Name) and argument.id.lower() in ("nan", "inf"):
        value = _NAMES[argument.id.lower()]
        return -value if negative else value
    written = ast.get_source_segment(text, argument)
    if (
        not isinstance(argument, ast.Constant)
        or isinstance(argument.value, bool)
        or not isinstance(argument.value, (int, float))
        or written is None
    ):
        raise LiteralError(f"{shown}: f32 takes one decimal number such as f32(-3.3)")
    match = _RATIONAL.fullmatch(written)
    if match is None or "/" in written:
        raise LiteralError(f"{shown}: f32 takes a decimal number, not {written!r}")
    _bounded_exponent(written, match.group("exponent"), "f32")
    exact = Fraction(written)
    return binary32.round_fraction(-exact if negative else exact, negative_zero=negative)


def _call(node: ast.Call, text: str, depth: int) -> Any:
    shown = _segment(node, text)
    if not isinstance(node.func, ast.Name) or node.keywords:
        raise LiteralError(f"cannot read {shown!r} as a literal")
    if node.func.id == "f32":
        return _f32(node, text, shown)
    readers = {"Fraction": _fraction, "hex": _hex, "bits": _bits}
    if node.func.id not in readers:
        raise LiteralError(
            f"cannot read {shown!r} as a literal: the functions are bits, hex, f32 and Fraction"
        )
    arguments = [_value(argument, text, depth + 1) for argument in node.args]
    return readers[node.func.id](arguments, shown)


def _value(node: ast.AST, text: str, depth: int = 0) -> Any:
    if depth > MAX_DEPTH:
        raise LiteralError(f"literal nested deeper than {MAX_DEPTH} levels")
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, bool, str)):
        return node.value
    if isinstance(node, ast.Constant) and node.value is None:
        return None
    if isinstance(node, ast.Name) and node.id.lower() in _NAMES:
        return _NAMES[node.id.lower()]
    if isinstance(node, ast.Name) and node.id in _CONSTANTS:
        return _CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _value(node.operand, text, depth + 1)
        if isinstance(operand, bool) or not isinstance(operand, (int, float, Fraction)):
            raise LiteralError(f"cannot negate {_segment(node.operand, text)!r}")
        return -operand if isinstance(node.op, ast.USub) else +operand
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_value(item, text, depth + 1) for item in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Call):
        return _call(node, text, depth)
    raise LiteralError(f"cannot read {_segment(node, text)!r} as a literal")


def _parse(text: str) -> Any:
    text = text.strip()
    if len(text) > MAX_TEXT:
        raise LiteralError(f"literal of {len(text):,} characters (at most {MAX_TEXT:,})")
    if _depth(text) > MAX_DEPTH:
        raise LiteralError(f"literal nested deeper than {MAX_DEPTH} levels")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as error:
        reason = error.msg if isinstance(error, SyntaxError) else str(error) or type(error).__name__
        reason = reason.split(";")[0][:120]
        raise LiteralError(f"cannot parse {text[:60]!r}: {reason}") from None
    return _value(tree.body, text)


def _depth(text: str) -> int:
    """The deepest bracket nesting of *text*, measured before parsing it."""
    depth = deepest = 0
    for character in text:
        if character in "[(":
            depth += 1
            deepest = max(deepest, depth)
        elif character in "])":
            depth -= 1
    return deepest


def parse_argument(text: str) -> Any:
    """One command-line argument as a Tensor or a plain value.

    Raises :class:`LiteralError` (a ValueError) for anything that is not a
    literal of the grammar above or not a valid element of the named dtype.
    """
    head, colon, data = text.partition(":")
    if colon and head.strip().isidentifier():
        try:
            dtype = DType.from_name(head.strip())
        except (KeyError, ValueError) as error:
            raise LiteralError(f"unknown dtype {head.strip()!r} in {text[:60]!r}") from error
        nested = _parse(data)
        try:
            return Tensor.from_nested(nested, dtype)  # type: ignore[arg-type]
        except (TypeError, ValueError, NotImplementedError) as error:
            raise LiteralError(f"{head.strip()} tensor {data.strip()[:60]!r}: {error}") from None
    value = _parse(text)
    signalling = _signalling_nan(value)
    if signalling is not None:
        raise LiteralError(
            f"{text.strip()[:60]!r}: bits(0x{signalling.bits:08X}) is a signalling NaN, which "
            "only a Float32 tensor element carries (a Python float would quiet it); write "
            f"'Float32:bits(0x{signalling.bits:08X})' for a 0-d tensor, or nan for a weak NaN"
        )
    return value


def _signalling_nan(value: Any) -> binary32.SignallingNaN | None:
    """The first signalling NaN in a plain (non-tensor) literal value, or None."""
    if isinstance(value, binary32.SignallingNaN):
        return value
    if isinstance(value, (list, tuple)):
        for item in value:
            found = _signalling_nan(item)
            if found is not None:
                return found
    return None


def format_value(value: Any) -> str:
    """A value with its bit pattern where it has one: ``1.5 (0x3FC00000)``,
    ``signalling nan (0x7F800001)``.

    An int shows its Int32 bit pattern only when it is an Int32 value; a weak
    integer outside that range is shown as its value alone, never as its low
    32 bits.
    """
    if isinstance(value, binary32.SignallingNaN):
        return f"signalling nan (0x{value.bits:08X})"
    if isinstance(value, float) and binary32.is_binary32(value):
        return f"{value!r} (0x{binary32.to_bits(value):08X})"
    if isinstance(value, int) and not isinstance(value, bool):
        if -(2**31) <= value < 2**31:
            return f"{value} (0x{value & 0xFFFFFFFF:08X})"
        return f"{value} (outside Int32)" if abs(value) < 10**60 else _huge(value)
    return repr(value)


def _huge(value: int) -> str:
    sign = "-" if value < 0 else ""
    return f"{sign}(an integer of {abs(value).bit_length()} bits, outside Int32)"
