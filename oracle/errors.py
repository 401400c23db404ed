"""The planner's error messages, one builder per kind.

Every message names the operation, the operand position (0-based) where one
applies, what was received and what was expected, so that a person can act on
it without reading the planner.  The exception *type* is the one the policy
specification names for that failure.
"""

from __future__ import annotations

from collections.abc import Iterable

from .dtypes import INT32_MAX, INT32_MIN, DType

__all__ = [
    "abstract_category",
    "compound_deferred",
    "operand_kind",
    "outside_domain",
    "unimplemented_dtype",
    "unmatched_signature",
    "unregistered_operation",
    "weak_integer_range",
]


def _at(operation: str, position: int) -> str:
    return f"{operation}: operand {position}"


def _names(dtypes: Iterable[DType]) -> str:
    return ", ".join(dtype.name for dtype in dtypes)


def unregistered_operation(operation: object) -> NotImplementedError:
    return NotImplementedError(
        f"operation {operation!r} is not registered; see oracle.registered_operations()"
    )


def operand_kind(operation: str, position: int, value: object) -> TypeError:
    return TypeError(
        f"{_at(operation, position)} must be a DType (tensor operand) or a real Python "
        f"number (weak scalar); got {type(value).__name__} {value!r}"
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
    operation: str, position: int, dtype: DType, implemented: Iterable[DType]
) -> NotImplementedError:
    return NotImplementedError(
        f"{_at(operation, position)}: {dtype!r} is registered but has no operation "
        f"implementation (implemented storage dtypes: {_names(implemented)}); it is never "
        f"widened to an implemented dtype"
    )


def outside_domain(
    operation: str, position: int, dtype: DType, domain: Iterable[DType]
) -> TypeError:
    return TypeError(
        f"{_at(operation, position)}: {dtype!r} is outside this overload's domain; "
        f"expected one of: {_names(domain)}"
    )


def weak_integer_range(operation: str, position: int, value: int) -> OverflowError:
    return OverflowError(
        f"{_at(operation, position)}: weak integer {value} must be materialised as Int32 on "
        f"this integer path but lies outside [{INT32_MIN}, {INT32_MAX}]"
    )
