"""Operation specifications: positional overloads and the registry records.

An :class:`OperationSpec` names one dispatch operation and every positional
:class:`OperationOverload` it accepts.  Each overload has a role signature
(tensor or weak scalar per policy operand), a resolver *rule* that produces the
:class:`~oracle.plan.OperationPlan`, and optionally the dtype domain of each
tensor role.  The registry of built-in operations is data in
:mod:`oracle.operations`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from .dtypes import DType
from .plan import OperandRole, OperationPlan

__all__ = ["OperationOverload", "OperationSpec", "PlanRule"]

#: A resolver: called as ``rule(operation, *operands)`` with each tensor operand
#: as its (already validated) SimpleDType and each weak scalar as its value.
PlanRule = Callable[..., OperationPlan]


@dataclass(frozen=True)
class OperationOverload:
    """One positional role signature, its resolver and optional tensor domains.

    *tensor_domains*, when given, holds one non-empty ordered tuple of dtypes
    per TENSOR role (in positional order).  It is both the set of dtypes that
    position accepts and the enumeration domain of :func:`resolvable_plans`.
    ``None`` means the caller supplies the domain (the implemented tensor
    dtypes, by default).
    """

    roles: tuple[OperandRole, ...]
    rule: PlanRule
    tensor_domains: tuple[tuple[DType, ...], ...] | None = None

    def __post_init__(self) -> None:
        roles = tuple(self.roles)
        if not all(isinstance(role, OperandRole) for role in roles):
            raise ValueError(f"roles must contain OperandRole values, got {self.roles!r}")
        object.__setattr__(self, "roles", roles)
        if not callable(self.rule):
            raise ValueError(f"rule must be callable, got {self.rule!r}")
        if self.tensor_domains is None:
            return
        domains = tuple(tuple(domain) for domain in self.tensor_domains)
        tensor_count = roles.count(OperandRole.TENSOR)
        if len(domains) != tensor_count:
            raise ValueError(
                f"tensor_domains has {len(domains)} domains for {tensor_count} tensor roles"
            )
        for index, domain in enumerate(domains):
            if not domain:
                raise ValueError(f"tensor_domains[{index}] is empty")
            if not all(isinstance(dtype, DType) for dtype in domain):
                raise ValueError(f"tensor_domains[{index}] must contain DType values: {domain!r}")
        object.__setattr__(self, "tensor_domains", domains)

    def signature(self) -> str:
        """The role signature as text, e.g. ``tensor, weak_scalar``."""
        return ", ".join(role.value for role in self.roles)


@dataclass(frozen=True)
class OperationSpec:
    """One registered dispatch operation and all of its positional overloads.

    *dtype_operand_positions* lists the forward-argument positions that are
    dtype-policy operands (``None``: every forward argument is one); the other
    forward arguments (axes, strides, flags, ...) never become weak scalars.
    """

    name: str
    overloads: tuple[OperationOverload, ...]
    public: bool = True
    dtype_operand_positions: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty str, got {self.name!r}")
        overloads = tuple(self.overloads)
        if not overloads:
            raise ValueError(f"{self.name}: overloads must be non-empty")
        if not all(isinstance(overload, OperationOverload) for overload in overloads):
            raise ValueError(f"{self.name}: overloads must be OperationOverload values")
        signatures = [overload.roles for overload in overloads]
        if len(set(signatures)) != len(signatures):
            raise ValueError(f"{self.name}: duplicate overload role signature")
        object.__setattr__(self, "overloads", overloads)
        if not isinstance(self.public, bool):
            raise ValueError(f"{self.name}: public must be a bool, got {self.public!r}")
        if self.dtype_operand_positions is not None:
            positions = self._validated_positions(self.dtype_operand_positions, signatures)
            object.__setattr__(self, "dtype_operand_positions", positions)

    def _validated_positions(
        self, positions: Sequence[int], signatures: list[tuple[OperandRole, ...]]
    ) -> tuple[int, ...]:
        positions = tuple(positions)
        if not all(type(p) is int and p >= 0 for p in positions):
            raise ValueError(f"{self.name}: dtype_operand_positions must be non-negative ints")
        if any(later <= earlier for earlier, later in pairwise(positions)):
            raise ValueError(
                f"{self.name}: dtype_operand_positions must be unique and increasing: {positions}"
            )
        if any(len(signature) != len(positions) for signature in signatures):
            raise ValueError(
                f"{self.name}: dtype_operand_positions {positions} must have the length of "
                f"every overload"
            )
        return positions

    def _single(self) -> OperationOverload:
        if len(self.overloads) != 1:
            raise AttributeError(
                f"{self.name} has {len(self.overloads)} overloads; use .overloads instead"
            )
        return self.overloads[0]

    @property
    def roles(self) -> tuple[OperandRole, ...]:
        """The only overload's roles (AttributeError for a multi-overload operation)."""
        return self._single().roles

    @property
    def rule(self) -> PlanRule:
        """The only overload's rule (AttributeError for a multi-overload operation)."""
        return self._single().rule

    def policy_operands(self, forward_arguments: Sequence[object]) -> tuple[object, ...]:
        """Pick the dtype-policy operands out of the full forward arguments."""
        if self.dtype_operand_positions is None:
            return tuple(forward_arguments)
        return tuple(
            forward_arguments[p] for p in self.dtype_operand_positions if p < len(forward_arguments)
        )
