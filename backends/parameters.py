"""Reading a call's non-dtype parameters (axes, ``k``, flags, conv tuples) as data.

The parameters of ``execute`` come from the caller, and a caller's object can
do anything in its special methods.  These readers give the built-in
backends one behaviour that matches the oracle's
(:mod:`oracle.reference.accumulate`):

* an integer parameter is a :class:`numbers.Integral` other than ``bool`` and
  ``numpy.bool_`` (``int``, ``numpy.int64``, an ``int`` subclass); anything
  else is a TypeError;
* a flag is a ``bool`` or a ``numpy.bool_``; anything else is a TypeError;
* a per-dimension parameter (conv strides, dilations, padding and its pairs)
  is a ``tuple`` or a ``list``; anything else is a TypeError.

An exception raised by the value's own ``__int__``, ``__iter__``,
``__len__`` or ``__repr__`` becomes a TypeError (chained to the original),
never a RuntimeError or ZeroDivisionError out of a backend.  Error messages
show values through :func:`describe`, which never raises and never prints
more than :data:`SHOWN_CHARACTERS` characters (a 5,000-digit integer is shown
by its size).

numpy is not imported here: a ``numpy.bool_`` can only exist once numpy is
loaded, so it is recognised through ``sys.modules`` (the Generic backend
stays free of numpy).
"""

from __future__ import annotations

import numbers
import sys
from typing import Any

__all__ = [
    "SHOWN_CHARACTERS",
    "describe",
    "is_flag",
    "read_flag",
    "read_int",
    "read_items",
    "unreadable_weak_scalar",
]

#: The longest text :func:`describe` returns.
SHOWN_CHARACTERS = 80
#: Integers wider than this are described by their size (repr of a 5,000-digit
#: int raises ValueError under Python's int-to-str limit, and is unreadable).
_WIDEST_SHOWN_INT_BITS = 128


def describe(value: Any) -> str:
    """The type name and a bounded repr of *value*, for an error message; never raises."""
    kind = type(value).__name__
    if isinstance(value, int) and int.bit_length(value) > _WIDEST_SHOWN_INT_BITS:
        return f"{kind} of {int.bit_length(value)} bits"
    try:
        text = repr(value)
    except Exception as error:  # the caller's __repr__
        return f"{kind} (its repr raised {type(error).__name__})"
    if not isinstance(text, str):
        return kind
    if len(text) > SHOWN_CHARACTERS:
        text = text[: SHOWN_CHARACTERS - 3] + "..."
    return f"{kind} {text}"


def _is_numpy_bool(value: Any) -> bool:
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.bool_)


def is_flag(value: Any) -> bool:
    """Whether *value* is a bool or a ``numpy.bool_``."""
    return isinstance(value, bool) or _is_numpy_bool(value)


def read_int(operation: str, name: str, value: Any) -> int:
    """*value* as a Python int (see the module docstring); TypeError otherwise."""
    if is_flag(value) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{operation}: {name} must be an int, got {describe(value)}")
    try:
        return int(value)
    except Exception as error:  # the caller's __int__
        raise TypeError(
            f"{operation}: {name} must be a readable int; {describe(value)} raised "
            f"{type(error).__name__}"
        ) from error


def read_flag(operation: str, name: str, value: Any) -> bool:
    """*value* as a Python bool; TypeError unless it is a bool or ``numpy.bool_``."""
    if not is_flag(value):
        raise TypeError(f"{operation}: {name} must be a bool, got {describe(value)}")
    return bool(value)  # neither bool nor numpy.bool_ can be subclassed


def read_items(operation: str, name: str, value: Any, expected: str) -> tuple[Any, ...]:
    """The items of a tuple or list *value*; TypeError naming *expected* otherwise."""
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{operation}: {name} must be {expected}, got {describe(value)}")
    try:
        return tuple(value)
    except Exception as error:  # a subclass's __iter__ or __len__
        raise TypeError(
            f"{operation}: {name} {describe(value)} cannot be read ({type(error).__name__})"
        ) from error


def unreadable_weak_scalar(
    operation: str, position: int, value: Any, error: Exception
) -> TypeError:
    """The TypeError of a weak scalar whose exact value cannot be read (its own
    ``__int__``, ``__float__`` or ``as_integer_ratio`` raised), as the oracle has it."""
    return TypeError(
        f"{operation}: operand {position}: the weak scalar {describe(value)} claims to be a "
        f"real number but its value cannot be read ({type(error).__name__} from the object)"
    )
