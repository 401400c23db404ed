"""How big a call the oracle evaluates: the result-size and work limits.

The oracle is exact pure-Python arithmetic: about a microsecond per element
step and far more for a bounded FLOATING sum.  A call whose *result* is huge
although its inputs are tiny -- ``matmul`` of (2**20, 0) x (0, 2**20) is
2**40 zeros, a broadcast of (2**20, 1) and (1, 2**20) 2**40 elements, a
convolution with a wide dilation -- would hang it.  Such a call is refused
before anything is computed or allocated, with :class:`OracleLimitError`.

That error is *not* a verdict about the operation: the call is valid and a
backend may well compute it.  ``oracle.expected`` therefore raises it instead
of returning an Expectation that requires an exception, so that a caller can
tell "the oracle will not say" from "the call must fail".  It subclasses
MemoryError, the exception a backend itself raises for a result it cannot
allocate.

The limits (:data:`MAX_RESULT_ELEMENTS` elements of the result and
:data:`MAX_TERMS` scalar terms of work, e.g. the M*N*K products of a
matmul) are far above anything the conformance suite generates.  Measured
on the 2-core development machine under load: 2**20 neg elements take 4.4 s,
2**20 matmul terms 4.0 s, 2**16 exp elements 0.4 s and 2**16 gelu elements
6.2 s (MPFR for a composite function), so the largest accepted call takes
seconds for the exact rules, about 16 s for a matmul and under two minutes
for the slowest correctly rounded rule.
"""

from __future__ import annotations

from .errors import integer_text, shape_text

__all__ = [
    "MAX_RESULT_ELEMENTS",
    "MAX_TERMS",
    "OracleLimitError",
    "check_operand_extents",
    "check_size",
]

#: The largest result, in elements, the oracle evaluates (2**20 = 1048576).
MAX_RESULT_ELEMENTS = 2**20
#: The most scalar terms (products, window taps) the oracle evaluates (2**22).
MAX_TERMS = 2**22


class OracleLimitError(MemoryError):
    """A valid call too large for the oracle to evaluate (no verdict)."""


def check_size(operation: str, elements: int, terms: int = 0) -> None:
    """Refuse a call of *elements* result elements and *terms* terms of work.

    Raises :class:`OracleLimitError` naming the sizes and the limits when
    either exceeds its limit; returns None otherwise.
    """
    if elements > MAX_RESULT_ELEMENTS:
        raise OracleLimitError(
            f"{operation}: the result has {integer_text(elements)} elements; the oracle "
            f"evaluates at most {MAX_RESULT_ELEMENTS} (oracle.limits.MAX_RESULT_ELEMENTS)"
        )
    if terms > MAX_TERMS:
        raise OracleLimitError(
            f"{operation}: the call needs {integer_text(terms)} scalar terms; the oracle "
            f"evaluates at most {MAX_TERMS} (oracle.limits.MAX_TERMS)"
        )


def check_operand_extents(operation: str, position: int, shape: tuple[int, ...]) -> None:
    """Refuse an operand whose non-zero extents span more than the result limit.

    An empty tensor of shape (2**40, 0) holds no value, but reducing its
    axis 1 gives 2**40 zeros: every rule walks the non-zero extents of its
    operands, so their product bounds the work of reductions, scans, sorts
    and scatters.  :class:`OracleLimitError` when it exceeds
    :data:`MAX_RESULT_ELEMENTS`.
    """
    span = 1
    for extent in shape:
        span *= max(extent, 1)
    if span > MAX_RESULT_ELEMENTS:
        raise OracleLimitError(
            f"{operation}: operand {position} of shape {shape_text(shape)} spans "
            f"{integer_text(span)} positions (the product of its non-zero extents); "
            f"the oracle evaluates at most "
            f"{MAX_RESULT_ELEMENTS} (oracle.limits.MAX_RESULT_ELEMENTS)"
        )
