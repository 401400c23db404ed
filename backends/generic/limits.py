"""How big a call Generic evaluates: the oracle's limits, applied at the same points.

Generic is pure-Python arithmetic like the oracle, so a call whose result or
work is huge although its inputs are tiny -- ``matmul`` of (2**20, 0) x
(0, 2**20) is 2**40 zeros -- would hang it.  It refuses such a call before
computing or allocating anything, with :class:`GenericLimitError`, under the
oracle's limits (:data:`oracle.limits.MAX_RESULT_ELEMENTS` result elements,
:data:`oracle.limits.MAX_TERMS` scalar terms of work, and the same bound on
the span of an operand's non-zero extents), checked where the oracle checks
them.  A call the oracle evaluates, Generic evaluates; one the oracle refuses,
Generic refuses.

:class:`GenericLimitError` subclasses :class:`oracle.limits.OracleLimitError`
(a MemoryError): it is not one of the policy's errors -- the call is valid --
and ``except oracle.limits.OracleLimitError`` catches the refusals of both.
"""

from __future__ import annotations

import math

from oracle.errors import integer_text, shape_text
from oracle.limits import MAX_RESULT_ELEMENTS, MAX_TERMS, OracleLimitError

__all__ = [
    "MAX_RESULT_ELEMENTS",
    "MAX_TERMS",
    "GenericLimitError",
    "check_operand_extents",
    "check_size",
]


class GenericLimitError(OracleLimitError):
    """A valid call too large for the Generic reference to evaluate."""


def check_size(operation: str, elements: int, terms: int = 0) -> None:
    """Refuse a call of *elements* result elements or *terms* scalar terms beyond the limits."""
    if elements > MAX_RESULT_ELEMENTS:
        raise GenericLimitError(
            f"{operation}: the result has {integer_text(elements)} elements; Generic "
            f"evaluates at most {MAX_RESULT_ELEMENTS} (oracle.limits.MAX_RESULT_ELEMENTS)"
        )
    if terms > MAX_TERMS:
        raise GenericLimitError(
            f"{operation}: the call needs {integer_text(terms)} scalar terms; Generic "
            f"evaluates at most {MAX_TERMS} (oracle.limits.MAX_TERMS)"
        )


def check_operand_extents(operation: str, position: int, shape: tuple[int, ...]) -> None:
    """Refuse an operand whose non-zero extents multiply to more than the result limit.

    A (2**40, 0) tensor holds nothing, but a reduction over its axis 1 walks
    2**40 positions.
    """
    span = math.prod(max(extent, 1) for extent in shape)
    if span > MAX_RESULT_ELEMENTS:
        raise GenericLimitError(
            f"{operation}: operand {position} of shape {shape_text(shape)} spans "
            f"{integer_text(span)} positions (the product of its non-zero extents); Generic "
            f"evaluates at most {MAX_RESULT_ELEMENTS} (oracle.limits.MAX_RESULT_ELEMENTS)"
        )
