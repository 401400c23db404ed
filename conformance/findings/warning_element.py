"""The element an IEEE warning concerns, found from the call's inputs and the oracle.

A backend's warning (``RuntimeWarning: overflow encountered in exp``) names the IEEE
flag it signals (:func:`conformance.findings.finding.warning_flag`) but not where.
:func:`warned_element` names the first element, in row-major order of the expected
result, whose expected value (the oracle's correctly rounded or exact result) *is*
the condition that flag signals, given the input elements it comes from:

``overflow``
    an infinite expected value from finite inputs (rounding made it infinite);
``divide-by-zero``
    an infinite expected value from finite inputs one of which is zero (``1 / 0``,
    ``log(0)``);
``invalid``
    a NaN expected value from inputs none of which is a NaN (``0 / 0``,
    ``sqrt(-1)``);
``underflow``
    a subnormal expected value, or a zero one from finite non-zero inputs
    (``exp(-200)``);

any other warning (its flag is the category's name) concerns no element.  The
inputs an element comes from are the operand elements at its position under
broadcasting for elementwise operations, and every operand element (and scalar)
otherwise -- a reduction's infinite sum of finite terms overflowed.  None when no
element shows the condition: the warning then came from a step of the backend's
own (an intermediate that overflowed, a cast), not from the result.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from conformance.model.calls import Call, Family
from oracle import Tensor, binary32

__all__ = ["WARNING_FLAGS", "element_inputs", "warned_element", "warning_flag"]

#: IEEE flag -> words of numpy's warning messages that name it
_FLAG_WORDS = {
    "overflow": ("overflow",),
    "underflow": ("underflow",),
    "divide-by-zero": ("divide by zero", "division by zero"),
    "invalid": ("invalid value", "invalid"),
}


#: the IEEE flags of ``warning:<flag>`` (else the warning's category name)
WARNING_FLAGS = tuple(_FLAG_WORDS)


def warning_flag(category: str, message: str) -> str:
    """The IEEE flag a warning (or FloatingPointError) message names, else its category."""
    text = message.lower()
    for flag, words in _FLAG_WORDS.items():
        if any(word in text for word in words):
            return flag
    return category


def _numbers(values: Sequence[Any]) -> list[float]:
    return [
        float(v)
        for v in values
        if isinstance(v, (int, float, Fraction)) and not isinstance(v, bool)
    ]


def element_inputs(call: Call, flat: int, shape: Sequence[int]) -> list[float] | None:
    """The input numbers the result element at row-major position *flat* (of a result
    of *shape*) comes from: for an elementwise call the operand elements at its
    position under broadcasting, else every operand element; None when a tensor
    operand cannot be indexed so."""
    if call.family is not Family.ELEMENTWISE:
        found: list[float] = []
        for operand in call.args:
            found += _numbers(operand.values if isinstance(operand, Tensor) else [operand])
        return found
    index = []
    for size in reversed(shape):
        index.append(flat % size if size else 0)
        flat //= size or 1
    index.reverse()
    found = []
    for operand in call.operands:
        if not isinstance(operand, Tensor):
            found += _numbers([operand])
            continue
        rank = len(operand.shape)
        tail = index[len(index) - rank :] if rank else []
        position = 0
        for i, n in zip(tail, operand.shape):
            position = position * n + (0 if n == 1 else i)
        if position >= operand.size:
            return None
        found += _numbers([operand.values[position]])
    return found


def _shows(flag: str, expected: float, inputs: list[float]) -> bool:
    finite = all(math.isfinite(x) for x in inputs)
    if flag in ("overflow", "divide-by-zero"):
        zero = any(x == 0 for x in inputs)
        return math.isinf(expected) and finite and (zero or flag == "overflow")
    if flag == "invalid":
        return math.isnan(expected) and not any(math.isnan(x) for x in inputs)
    if flag == "underflow":
        if expected != 0:
            return abs(expected) < binary32.MIN_NORMAL
        return finite and bool(inputs) and all(x != 0 for x in inputs)
    return False


def warned_element(flag: str, call: Call, expected: Tensor | None) -> int | None:
    """The row-major position of the first element of *expected* that shows the
    condition *flag* signals (see the module docstring); None when none does, the
    flag is no IEEE flag, or there is no exact expected tensor (an accumulation
    judged by intervals)."""
    if expected is None:
        return None
    every = None if call.family is Family.ELEMENTWISE else element_inputs(call, 0, ())
    for flat, value in enumerate(expected.values):
        if not isinstance(value, float):
            continue
        inputs = every if every is not None else element_inputs(call, flat, expected.shape)
        if inputs is not None and _shows(flag, value, inputs):
            return flat
    return None
