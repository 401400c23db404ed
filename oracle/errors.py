"""The planner's error messages, one builder per kind.

Every message names the operation, the operand position (0-based) where one
applies, what was received and what was expected, so that a person can act on
it without reading the planner.  The exception *type* is the one the policy
specification names for that failure.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from .dtypes import INT32_MAX, INT32_MIN, DType

__all__ = [
    "REPR_LIMIT",
    "abstract_category",
    "compound_deferred",
    "describe",
    "integer_text",
    "operand_kind",
    "outside_domain",
    "shape_text",
    "unimplemented_dtype",
    "unmatched_signature",
    "unreadable_weak_scalar",
    "unregistered_operation",
    "weak_integer_range",
]


#: The longest representation of a caller's object a message quotes.
REPR_LIMIT = 80
_LOG10_2 = math.log10(2)


def describe(value: object) -> str:
    """A short, safe description of a caller's *value* for an error message.

    Never raises and never grows with the value: the type name and the
    ``repr`` cut at :data:`REPR_LIMIT` characters; an integer of more than
    40 digits is given by its size (``int <16610 bits, about 5001 decimal
    digits>``), and an object whose ``repr`` raises by that fact.
    """
    try:
        kind = type(value).__name__
        if isinstance(value, int):
            return f"{kind} {integer_text(value)}"
        if type(value) is tuple and all(type(item) is int for item in value):
            shown = shape_text(value)
        else:
            shown = repr(value)
    except Exception as error:  # a hostile __repr__, __class__ or __abs__
        return f"<an object whose repr raised {type(error).__name__}>"
    if len(shown) > REPR_LIMIT:
        shown = shown[: REPR_LIMIT - 3] + "..."
    return f"{kind} {shown}"


def shape_text(shape: tuple[int, ...]) -> str:
    """A tuple of ints (a shape) as Python writes it, huge extents by size."""
    items = [integer_text(n) for n in shape]
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def integer_text(value: int) -> str:
    """*value* in decimal, or its size when it has more than 40 digits.

    Python refuses to print an int of more than 4300 digits at all, and a
    message should never be that long anyway.
    """
    value = int(value)
    bits = abs(value).bit_length()
    if bits <= 132:  # 2**132 has 40 decimal digits
        return str(value)
    sign = "negative, " if value < 0 else ""
    return f"<{sign}{bits} bits, about {int(bits * _LOG10_2) + 1} decimal digits>"


def _at(operation: str, position: int) -> str:
    return f"{operation}: operand {position}"


def _names(dtypes: Iterable[DType]) -> str:
    return ", ".join(dtype.name for dtype in dtypes)


def unregistered_operation(operation: object) -> NotImplementedError:
    return NotImplementedError(
        f"operation {describe(operation)} is not registered; see oracle.registered_operations()"
    )


def operand_kind(operation: str, position: int, value: object) -> TypeError:
    return TypeError(
        f"{_at(operation, position)} must be a DType (tensor operand) or a real Python "
        f"number (weak scalar, a numbers.Real: int, float, bool, Fraction, numpy real "
        f"scalars); got {describe(value)}"
    )


def unreadable_weak_scalar(
    operation: str, position: int, value: object, error: Exception
) -> TypeError:
    return TypeError(
        f"{_at(operation, position)}: the weak scalar {describe(value)} claims to be a real "
        f"number but its value cannot be read ({type(error).__name__} from the object)"
    )


def unmatched_signature(operation: str, received: str, accepted: Iterable[str]) -> TypeError:
    return TypeError(
        f"{operation}: no overload accepts operands ({received}); "
        f"accepted signatures: {'; '.join(accepted)}"
    )


def abstract_category(operation: str, position: int, dtype: DType) -> TypeError:
    return TypeError(
        f"{_at(operation, position)}: {dtype!r} is an abstract category, not an operation "
        f"storage dtype; pass a concrete SimpleDType such as DType.Float32"
    )


def compound_deferred(operation: str, position: int, dtype: DType) -> NotImplementedError:
    return NotImplementedError(
        f"{_at(operation, position)}: {dtype!r} is a compound dtype; representation-aware "
        f"planning for compound dtypes is deferred and not implemented"
    )


def unimplemented_dtype(
    operation: str, position: int, dtype: object, implemented: Iterable[DType]
) -> NotImplementedError:
    return NotImplementedError(
        f"{_at(operation, position)}: {dtype!r} is registered but has no operation "
        f"implementation (implemented storage dtypes: {_names(implemented)}); it is never "
        f"widened to an implemented dtype"
    )


def outside_domain(
    operation: str, position: int, dtype: object, domain: Iterable[DType]
) -> TypeError:
    return TypeError(
        f"{_at(operation, position)}: {dtype!r} is outside this overload's domain; "
        f"expected one of: {_names(domain)}"
    )


def weak_integer_range(operation: str, position: int, value: int) -> OverflowError:
    return OverflowError(
        f"{_at(operation, position)}: weak integer {integer_text(value)} must be "
        f"materialised as Int32 on this integer path but lies outside [{INT32_MIN}, {INT32_MAX}]"
    )
