"""Translating a call's parameters into a library's spelling, or refusing to (NotMeasured).

An adapter translates conventions (docs/adapter-policy.md): where the library
takes the parameter itself (an axis, ``keepdim``, ``k``) the value is passed as
the caller gave it and the library judges it.  These helpers are for the other
case, a parameter the library has no argument for, which the adapter must turn
into something else (a per-side padding into a pad of the input, an input
dilation into zeros between the elements, a ``descending`` flag into a
direction string).  Such a translation is defined for the forms it names and
for nothing else: a value of another form has no spelling in the library, so
it raises :class:`~backends.errors.NotMeasured` (the judge counts the call as
not measured) -- never a plancheck exception type, and never a guess.

Nothing here validates: a well-formed value is translated whatever its
numbers are (a negative padding, a huge stride), and what the library does
with it is the measurement.
"""

from __future__ import annotations

import contextlib
import numbers
from collections.abc import Sequence
from typing import Any

from ..errors import NotMeasured

__all__ = ["bool_flag", "int_value", "padding_pairs", "per_dimension"]


def bool_flag(value: Any) -> bool | None:
    """*value* as a Python bool if it is a ``bool`` or a numpy bool, else None.

    For a flag the library spells differently (a direction string, an absent
    argument): only a real flag has a translation.
    """
    if isinstance(value, bool):
        return value
    if type(value).__name__ == "bool" and type(value).__module__ == "numpy":
        return bool(value)
    return None


def int_value(value: Any) -> int | None:
    """*value* as a Python int if it is an integer other than a bool, else None."""
    if isinstance(value, numbers.Integral) and bool_flag(value) is None:
        return int(value)
    return None


def _refuse(library: str, parameter: str, value: Any, form: str) -> NotMeasured:
    shown = type(value).__name__
    with contextlib.suppress(Exception):  # a caller's __repr__: the type name is enough
        shown = f"{shown} {value!r}"[:80]
    return NotMeasured(
        f"{library} has no argument for {parameter}: the adapter translates {form} only, "
        f"not {shown}: not measured"
    )


def padding_pairs(
    library: str, padding: Any, spatial: int
) -> tuple[tuple[int, int], ...]:  # fmt: skip
    """conv_general's *padding* as *spatial* ``(low, high)`` int pairs (None: zeros).

    For a library without a per-side padding argument, where the adapter pads or
    crops the input itself: any other form has no translation (NotMeasured).
    """
    if padding is None:
        return ((0, 0),) * spatial
    form = f"padding as {spatial} (low, high) int pairs"
    try:
        pairs = tuple(tuple(pair) for pair in padding)
    except Exception as error:
        raise _refuse(library, "a per-side padding", padding, form) from error
    ints = tuple(tuple(int_value(v) for v in pair) for pair in pairs)
    if len(ints) != spatial or any(len(p) != 2 or None in p for p in ints):
        raise _refuse(library, "a per-side padding", padding, form)
    return ints  # type: ignore[return-value]


def per_dimension(library: str, name: str, value: Any, spatial: int) -> tuple[int, ...]:
    """*value* as *spatial* ints of at least 1 (None: ones).

    For a per-dimension parameter the library has no argument for (an input
    dilation the adapter writes as zeros between the elements).
    """
    if value is None:
        return (1,) * spatial
    form = f"{name} as {spatial} ints of at least 1"
    try:
        items: Sequence[Any] = tuple(value)
    except Exception as error:
        raise _refuse(library, name, value, form) from error
    ints = tuple(int_value(v) for v in items)
    if len(ints) != spatial or any(v is None or v < 1 for v in ints):
        raise _refuse(library, name, value, form)
    return ints  # type: ignore[return-value]
