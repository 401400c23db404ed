"""Literal call arguments for the command line.

One argument is either a tensor literal ``DTYPE:DATA`` -- a dtype name, a colon
and nested lists -- or a plain value (a weak scalar or a non-dtype parameter
such as an axis).  Values are Python-like literals extended for binary32 work:

* ``nan``, ``inf``, ``-inf``, ``-0.0``;
* ``hex('0x1.fffffep+127')`` -- a C99 hexadecimal float, exact;
* ``bits(0x7fc00001)`` -- a Float32 element given by its bit pattern;
* ``Fraction(1, 3)`` -- an exact rational weak scalar;
* ``true``/``false`` as well as ``True``/``False``, ``None``, tuples ``(0, 1)``.

Examples: ``Float32:[1.5, nan, bits(0x80000000)]``, ``Int32:[[1, 2], [3, 4]]``,
``Bool:[true, false]``, ``2``, ``0.5``, ``(0, -1)``.
"""

from __future__ import annotations

import ast
import math
from fractions import Fraction
from typing import Any

from oracle import DType, Tensor, binary32

__all__ = ["format_value", "parse_argument"]

_NAMES = {"nan": math.nan, "inf": math.inf, "true": True, "false": False}


def _value(node: ast.AST, text: str) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, bool, type(None))):
        return node.value
    if isinstance(node, ast.Name) and node.id.lower() in _NAMES:
        return _NAMES[node.id.lower()]
    if isinstance(node, ast.Name) and node.id in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _value(node.operand, text)
        return -operand if isinstance(node.op, ast.USub) else +operand
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_value(item, text) for item in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        arguments = [_value(argument, text) for argument in node.args]
        if node.func.id == "bits" and len(arguments) == 1:
            return binary32.from_bits(arguments[0])
        if node.func.id == "hex" and len(arguments) == 1 and isinstance(arguments[0], str):
            return float.fromhex(arguments[0])
        if node.func.id == "Fraction" and 1 <= len(arguments) <= 2:
            return Fraction(*arguments)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    raise ValueError(f"cannot read {ast.get_source_segment(text, node) or text!r} as a literal")


def parse_argument(text: str) -> Any:
    """One command-line argument as a Tensor or a plain value."""
    head, colon, data = text.partition(":")
    if colon and head.strip().isidentifier() and not head.strip().startswith("0x"):
        dtype = DType.from_name(head.strip())
        nested = _value(ast.parse(data.strip(), mode="eval").body, data)
        return Tensor.from_nested(nested, dtype)  # type: ignore[arg-type]
    return _value(ast.parse(text.strip(), mode="eval").body, text)


def format_value(value: Any) -> str:
    """A value with its bit pattern where it has one: ``1.5 (0x3FC00000)``."""
    if isinstance(value, float) and binary32.is_binary32(value):
        return f"{value!r} (0x{binary32.to_bits(value):08X})"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value} (0x{value & 0xFFFFFFFF:08X})"
    return repr(value)
