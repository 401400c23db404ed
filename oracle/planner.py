"""The central planner: resolve an operation's operands to its OperationPlan.

:func:`resolve_operation_plan` is the one place where dtypes are decided.  It
looks the operation up, classifies every operand by role (a DType is a tensor,
a real Python number a weak scalar), selects the overload with exactly that
role signature, validates every tensor dtype (abstract categories, compound and
unimplemented dtypes, and dtypes outside the overload's domain are refused with
the exception the policy names), calls the overload's rule, checks the plan
against the registration, and applies any accumulator choice.  It reads no
tensor element and depends on nothing but its arguments.

Validation order (left to right within each step): unknown operation;
conflicting accumulator arguments and options; operand kinds; role signature;
tensor dtypes position by position; the rule (weak Int32 range); accumulator.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import product
from typing import TypeGuard, TypeVar

from . import errors
from .dtypes import CompoundDType, DType, DTypeCategory, SimpleDType
from .facts import OperationFacts
from .operations import BUILTIN_FACTS, BUILTIN_OPERATIONS
from .plan import Accumulation, OperandRole, OperationPlan
from .registry import OperationOverload, OperationSpec
from .rules import is_weak_integer, is_weak_scalar

__all__ = [
    "ACCUMULATOR_CONFIGURABLE_OPERATIONS",
    "IMPLEMENTED_STORAGE_DTYPES",
    "SUPPORTED_ACCUMULATOR_DTYPES",
    "SUPPORTED_TENSOR_DTYPES",
    "WEAK_SCALAR_PROBES",
    "OperationExecutionOptions",
    "get_operation",
    "operation_execution_options",
    "operation_facts",
    "plan_accumulator_variants",
    "registered_operations",
    "resolvable_plans",
    "resolve_operation_plan",
]

#: The default tensor domain offered to every unrestricted tensor operand.
SUPPORTED_TENSOR_DTYPES: tuple[SimpleDType, ...] = (DType.Float32, DType.Int32)
#: Storage dtypes the planner implements: the tensor domain plus Bool, which is
#: accepted only where an overload's domain names it.
IMPLEMENTED_STORAGE_DTYPES: tuple[SimpleDType, ...] = (*SUPPORTED_TENSOR_DTYPES, DType.Bool)
#: The floating accumulators a configurable operation may request.
SUPPORTED_ACCUMULATOR_DTYPES: tuple[SimpleDType, ...] = (DType.Float32, DType.Float64)
#: The operations whose floating accumulator is configurable (from the table).
ACCUMULATOR_CONFIGURABLE_OPERATIONS: tuple[str, ...] = tuple(
    name for name, facts in BUILTIN_FACTS.items() if facts.accumulator_configurable
)
#: One probe per weak-scalar branch: an Int32-range integer, a non-integral
#: float, a bool, and integers just outside the Int32 range on each side.
WEAK_SCALAR_PROBES: tuple[object, ...] = (2, 0.5, True, -1, 2**31, -(2**31) - 1)

_REGISTRY: dict[str, OperationSpec] = {spec.name: spec for spec in BUILTIN_OPERATIONS}


def registered_operations() -> tuple[OperationSpec, ...]:
    """Every registered OperationSpec, in operation-name order."""
    return tuple(_REGISTRY[name] for name in sorted(_REGISTRY))


_T = TypeVar("_T")


def _is_instance(value: object, kind: type[_T]) -> TypeGuard[_T]:
    """``isinstance``, False for an object whose ``__class__`` lookup raises."""
    try:
        return isinstance(value, kind)
    except Exception:
        return False


def _plain_name(name: object) -> str | None:
    """*name* as an exact ``str`` (a str subclass is copied, so its own
    ``__eq__``/``__hash__`` are never called), or None for a non-string."""
    return "".join((name,)) if _is_instance(name, str) else None


def get_operation(operation: str) -> OperationSpec:
    """The OperationSpec registered as *operation* (NotImplementedError if none)."""
    name = _plain_name(operation)
    spec = _REGISTRY.get(name) if name is not None else None
    if spec is None:
        raise errors.unregistered_operation(operation)
    return spec


def operation_facts(operation: str) -> OperationFacts:
    """The value facts of registered *operation* (NotImplementedError if none)."""
    return BUILTIN_FACTS[get_operation(operation).name]


def _validated_accumulator(operation: str, accumulator_dtype: object) -> SimpleDType:
    if not _is_instance(accumulator_dtype, SimpleDType):
        raise TypeError(
            f"{operation}: accumulator_dtype must be a simple dtype such as DType.Float64, "
            f"got {errors.describe(accumulator_dtype)}"
        )
    if not any(accumulator_dtype is d for d in SUPPORTED_ACCUMULATOR_DTYPES):
        supported = ", ".join(d.name for d in SUPPORTED_ACCUMULATOR_DTYPES)
        raise NotImplementedError(
            f"{operation}: {accumulator_dtype!r} is not an implemented floating accumulator "
            f"(supported: {supported})"
        )
    return accumulator_dtype


@dataclass(frozen=True)
class OperationExecutionOptions:
    """Validated execution options for one accumulator-configurable operation.

    ``accumulator_dtype=None`` selects the policy default.  A non-configurable
    operation or a non-simple accumulator is a TypeError; an unimplemented
    simple accumulator is a NotImplementedError.
    """

    operation: str
    accumulator_dtype: SimpleDType | None = None

    def __post_init__(self) -> None:
        name = _plain_name(self.operation)
        if name not in ACCUMULATOR_CONFIGURABLE_OPERATIONS:
            configurable = ", ".join(ACCUMULATOR_CONFIGURABLE_OPERATIONS)
            raise TypeError(
                f"execution options apply only to {configurable}; "
                f"{errors.describe(self.operation)} has no configurable accumulator"
            )
        object.__setattr__(self, "operation", name)
        if self.accumulator_dtype is not None:
            _validated_accumulator(self.operation, self.accumulator_dtype)


def operation_execution_options(
    operation: str, *, accumulator_dtype: SimpleDType | None = None
) -> OperationExecutionOptions:
    """Build validated :class:`OperationExecutionOptions` (same rules)."""
    return OperationExecutionOptions(operation, accumulator_dtype)


def _role_of(operation: str, position: int, operand: object) -> OperandRole:
    try:
        if isinstance(operand, DType):
            return OperandRole.TENSOR
        weak = is_weak_scalar(operand)
    except Exception as error:  # an object whose __class__ lookup raises
        raise errors.operand_kind(operation, position, operand) from error
    if weak:
        return OperandRole.WEAK_SCALAR
    raise errors.operand_kind(operation, position, operand)


def _weak_value(operation: str, position: int, operand: object) -> object:
    """A weak scalar as the rules see it: a bool or an integral as an exact
    ``bool``/``int`` (read once, here), any other real number unchanged.

    An integral whose ``__int__`` raises is the TypeError of a non-real
    weak scalar, never the object's own exception.
    """
    if isinstance(operand, bool):
        return operand
    if not is_weak_integer(operand):
        return operand
    try:
        return int(operand)
    except Exception as error:
        raise errors.unreadable_weak_scalar(operation, position, operand, error) from error


#: A role signature longer than this is shown by its start and its length.
_ROLES_SHOWN = 8


def _select_overload(spec: OperationSpec, operands: tuple[object, ...]) -> OperationOverload:
    roles = tuple(_role_of(spec.name, p, o) for p, o in enumerate(operands))
    for overload in spec.overloads:
        if overload.roles == roles:
            return overload
    shown = [role.value for role in roles[:_ROLES_SHOWN]]
    if len(roles) > _ROLES_SHOWN:
        shown.append(f"... {len(roles)} operands in all")
    received = ", ".join(shown) or "no operands"
    raise errors.unmatched_signature(spec.name, received, (o.signature() for o in spec.overloads))


def _check_tensor_dtypes(
    operation: str, overload: OperationOverload, operands: tuple[object, ...]
) -> None:
    domains = iter(overload.tensor_domains or ())
    for position, (role, dtype) in enumerate(zip(overload.roles, operands)):
        if role is not OperandRole.TENSOR:
            continue
        domain = next(domains, SUPPORTED_TENSOR_DTYPES)
        if isinstance(dtype, DTypeCategory):
            raise errors.abstract_category(operation, position, dtype)
        if isinstance(dtype, CompoundDType):
            raise errors.compound_deferred(operation, position, dtype)
        if not any(dtype is implemented for implemented in IMPLEMENTED_STORAGE_DTYPES):
            raise errors.unimplemented_dtype(operation, position, dtype, IMPLEMENTED_STORAGE_DTYPES)
        if not any(dtype is allowed for allowed in domain):
            raise errors.outside_domain(operation, position, dtype, domain)


def _check_agreement(
    plan: object, spec: OperationSpec, overload: OperationOverload, operands: tuple[object, ...]
) -> OperationPlan:
    """The rule's plan must match the registration; a mismatch is a registry bug."""
    problems = []
    if not isinstance(plan, OperationPlan):
        raise RuntimeError(f"{spec.name}: rule returned {plan!r}, not an OperationPlan")
    if plan.operation != spec.name:
        problems.append(f"operation {plan.operation!r}")
    if plan.roles != overload.roles:
        problems.append(f"roles {plan.roles}")
    for operand_plan, operand, role in zip(plan.operands, operands, overload.roles):
        if role is OperandRole.TENSOR and operand_plan.dtype is not operand:
            problems.append(f"source dtype {operand_plan.dtype!r} for {operand!r}")
    floating = plan.accumulation is Accumulation.FLOATING
    if floating != (plan.accumulator_dtype is not None):
        problems.append("accumulator_dtype present exactly when accumulation is FLOATING")
    if problems:
        raise RuntimeError(
            f"{spec.name}: rule produced a plan disagreeing on {'; '.join(problems)}"
        )
    return plan


def _apply_accumulator(plan: OperationPlan, accumulator_dtype: object) -> OperationPlan:
    operation = plan.operation
    if operation not in ACCUMULATOR_CONFIGURABLE_OPERATIONS:
        raise TypeError(
            f"{operation}: accumulator_dtype is configurable only for "
            f"{', '.join(ACCUMULATOR_CONFIGURABLE_OPERATIONS)}"
        )
    accumulator = _validated_accumulator(operation, accumulator_dtype)
    if plan.accumulation is not Accumulation.FLOATING:
        raise TypeError(
            f"{operation}: this plan accumulates exactly over integers "
            f"({plan.accumulation.value if plan.accumulation else 'no accumulation'}); "
            f"it cannot use the floating accumulator {accumulator!r}"
        )
    return replace(plan, accumulator_dtype=accumulator)


def resolve_operation_plan(
    operation: str,
    *operands: object,
    accumulator_dtype: SimpleDType | None = None,
    options: OperationExecutionOptions | None = None,
) -> OperationPlan:
    """Resolve *operation* applied to *operands* to its immutable plan.

    Each tensor operand is passed as its storage dtype, each weak scalar as
    its Python value.  Raises NotImplementedError for an unregistered
    operation, a compound dtype or an unimplemented simple dtype; TypeError for
    a wrong count or role signature, a non-DType non-real operand, an abstract
    category, a dtype outside the overload's domain, conflicting
    accumulator_dtype and options, or an accumulator request the plan cannot
    take; ValueError for options of another operation; OverflowError for a weak
    integer outside Int32 on an integer path.
    """
    spec = get_operation(operation)
    operation = spec.name  # an exact str from here on
    if accumulator_dtype is not None and options is not None:
        raise TypeError(f"{operation}: pass either accumulator_dtype or options, not both")
    if options is not None:
        if not _is_instance(options, OperationExecutionOptions):
            raise TypeError(
                f"{operation}: options must be OperationExecutionOptions, "
                f"got {errors.describe(options)}"
            )
        if options.operation != operation:
            raise ValueError(
                f"{operation}: options were validated for {options.operation!r}, "
                f"not for {operation!r}"
            )
        accumulator_dtype = options.accumulator_dtype
    overload = _select_overload(spec, operands)
    _check_tensor_dtypes(operation, overload, operands)
    operands = tuple(
        operand if role is OperandRole.TENSOR else _weak_value(operation, position, operand)
        for position, (role, operand) in enumerate(zip(overload.roles, operands))
    )
    plan = _check_agreement(overload.rule(operation, *operands), spec, overload, operands)
    if accumulator_dtype is not None:
        plan = _apply_accumulator(plan, accumulator_dtype)
    return plan


def plan_accumulator_variants(plan: OperationPlan) -> tuple[OperationPlan, ...]:
    """*plan* first, then its other supported floating-accumulator variants.

    A plan that is not a configurable floating plan has only itself;
    anything but an OperationPlan is a TypeError.
    """
    if not _is_instance(plan, OperationPlan):
        raise TypeError(f"expected a resolved OperationPlan, got {errors.describe(plan)}")
    if (
        plan.operation not in ACCUMULATOR_CONFIGURABLE_OPERATIONS
        or plan.accumulation is not Accumulation.FLOATING
    ):
        return (plan,)
    others = (
        replace(plan, accumulator_dtype=dtype)
        for dtype in SUPPORTED_ACCUMULATOR_DTYPES
        if dtype is not plan.accumulator_dtype
    )
    return (plan, *others)


def _operand_choices(
    overload: OperationOverload, tensor_dtypes: Sequence[DType], weak_scalars: Sequence[object]
) -> list[Sequence[object]]:
    domains = iter(overload.tensor_domains or ())
    return [
        next(domains, tensor_dtypes) if role is OperandRole.TENSOR else weak_scalars
        for role in overload.roles
    ]


def resolvable_plans(
    tensor_dtypes: Sequence[DType] = SUPPORTED_TENSOR_DTYPES,
    weak_scalars: Sequence[object] = WEAK_SCALAR_PROBES,
) -> tuple[OperationPlan, ...]:
    """Every distinct plan any registered overload selects over the given domains.

    An overload with its own ``tensor_domains`` enumerates those; the others
    offer *tensor_dtypes* to each tensor role and *weak_scalars* to each weak
    role.  Combinations the planner refuses are skipped.  Each plan is followed
    by its accumulator variants; the result is deduplicated and ordered by
    registry order, overload order and operand enumeration order.
    """
    plans: dict[OperationPlan, None] = {}
    for spec in registered_operations():
        for overload in spec.overloads:
            choices = _operand_choices(overload, tensor_dtypes, weak_scalars)
            for operands in product(*choices):
                try:
                    plan = resolve_operation_plan(spec.name, *operands)
                except (TypeError, NotImplementedError, OverflowError):
                    continue
                for variant in plan_accumulator_variants(plan):
                    plans.setdefault(variant, None)
    return tuple(plans)
