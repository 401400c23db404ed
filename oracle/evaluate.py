"""``oracle.expected``: the reference outcome of one operation call.

The flow is the one of the whole project: the central planner fixes the plan;
each dtype operand is materialised in its plan's ``convert_to`` dtype (one
correct rounding of the exact value); the operation's reference rule computes
the result; the outcome becomes an :class:`~oracle.expectation.Expectation`.
Every failure the specification names -- planning errors, Int32 overflow at
the plan's narrowing point, bad shapes and indices -- becomes an Expectation
that requires that exception.

Elementwise rules are scalar functions (``oracle.reference.exact``,
``.integer``, ``.rounded``) applied under numpy-style broadcasting here;
reductions and structured operations (``.accumulate``, ``.structured``) take
whole tensors.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeGuard

import numpy as np

from . import binary32, errors
from .dtypes import DType, SimpleDType
from .expectation import Bounded, Conformance, Expectation
from .facts import Family
from .limits import OracleLimitError, check_operand_extents, check_size
from .operations import BUILTIN_FACTS, BUILTIN_OPERATIONS
from .plan import Accumulation, Arithmetic, OperandRole, OperationPlan
from .planner import OperationExecutionOptions, get_operation, resolve_operation_plan
from .reference import accumulate, exact, integer, rounded, structured
from .registry import OperationSpec
from .tensor import INT32_MAX, INT32_MIN, Tensor, unravel_index

__all__ = ["REFERENCES", "Reference", "broadcast_shapes", "expected"]

#: The exceptions a conforming call may be required to raise.
SPECIFIED_ERRORS = (TypeError, ValueError, NotImplementedError, OverflowError, IndexError)


@dataclass(frozen=True)
class Reference:
    """How the oracle evaluates one operation.

    *float_rule* is the binary32 rule, *int_rule* the Int32 rule (elementwise
    operations only); *tensor_rule* is a whole-tensor rule ``f(plan, *args)``.
    *rounded* marks the correctly rounded class, *nan_bits* the operations
    that copy NaN bits.
    """

    float_rule: Callable[..., Any] | None = None
    int_rule: Callable[..., Any] | None = None
    tensor_rule: Callable[..., Any] | None = None
    rounded: bool = False
    nan_bits: bool = False


def _has_integer_branch(spec: OperationSpec) -> bool:
    return any(getattr(o.rule, "integer", None) is not None for o in spec.overloads)


#: Families whose rules take whole tensors, and the module holding them.
_TENSOR_RULE_MODULES = {
    Family.REDUCE: accumulate,
    Family.ARG: accumulate,
    Family.SCAN: accumulate,
    Family.MATMUL: structured,
    Family.CONV: structured,
    Family.GATHER: structured,
    Family.SCATTER: structured,
    Family.SCATTER_ADD: structured,
    Family.SORT: structured,
    Family.TOPK: structured,
}


def _reference(spec: OperationSpec) -> Reference:
    """The reference of one registered operation, from the table's facts.

    An elementwise operation's binary32 rule is ``oracle.reference.rounded.<name>``
    for the correctly rounded class and ``.exact.<name>`` otherwise, and its
    Int32 rule ``.integer.<name>`` when a promotion rule has an integer branch;
    every other family's rule is ``.accumulate.<name>`` or ``.structured.<name>``.
    A row without its rule fails here, at import, naming it.
    """
    facts = BUILTIN_FACTS[spec.name]
    try:
        if facts.family is not Family.ELEMENTWISE:
            rule = getattr(_TENSOR_RULE_MODULES[facts.family], spec.name)
            return Reference(tensor_rule=rule, nan_bits=facts.nan_bit_copy)
        is_rounded = facts.conformance is Conformance.CORRECTLY_ROUNDED
        return Reference(
            float_rule=getattr(rounded if is_rounded else exact, spec.name),
            int_rule=getattr(integer, spec.name) if _has_integer_branch(spec) else None,
            rounded=is_rounded,
            nan_bits=facts.nan_bit_copy,
        )
    except AttributeError as error:
        raise ImportError(
            f"oracle: operation {spec.name!r} has no reference rule: {error}"
        ) from error


#: Operation name -> its reference rule.  Every registered operation has one.
REFERENCES: dict[str, Reference] = {spec.name: _reference(spec) for spec in BUILTIN_OPERATIONS}


def broadcast_shapes(operation: str, shapes: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """numpy broadcasting of *shapes*; ValueError naming them when they clash."""
    rank = max((len(shape) for shape in shapes), default=0)
    padded = [(1,) * (rank - len(shape)) + tuple(shape) for shape in shapes]
    result = []
    for extents in zip(*padded):
        sizes = {n for n in extents if n != 1}
        if len(sizes) > 1:
            raise ValueError(
                f"{operation}: shapes {' and '.join(map(str, shapes))} do not broadcast"
            )
        result.append(sizes.pop() if sizes else 1)
    return tuple(result)


def _materialise(
    operation: str, position: int, value: Any, operand_role: OperandRole, target: SimpleDType
) -> Any:
    """One operand in its plan's compute dtype: a Tensor, or a bare scalar value.

    A weak scalar is read once more here (the planner read its kind): a
    real number whose exact value cannot be read -- its own ``__int__`` or
    ``as_integer_ratio`` raises, or it is a ``numbers.Real`` of a type with
    no exact value -- is the TypeError of a non-real weak scalar.
    """
    if operand_role is OperandRole.WEAK_SCALAR:
        try:
            if target is DType.Int32:
                return int(value)
            return binary32.round_to_binary32(value)
        except Exception as error:
            raise errors.unreadable_weak_scalar(operation, position, value, error) from error
    tensor: Tensor = value
    if tensor.dtype is target:
        return tensor
    if target is DType.Float32 and tensor.dtype is DType.Int32:
        return Tensor(
            target, tensor.shape, tuple(binary32.round_to_binary32(v) for v in tensor.values)
        )
    raise AssertionError(f"no conversion from {tensor.dtype!r} to {target!r} in any plan")


def _broadcast_values(operand: Any, shape: tuple[int, ...]) -> Sequence[Any]:
    """The operand's values in row-major order of the broadcast *shape*."""
    if not isinstance(operand, Tensor):
        return itertools.repeat(operand, math.prod(shape))  # type: ignore[return-value]
    if operand.shape == shape:
        return operand.values
    own = (1,) * (len(shape) - operand.ndim) + operand.shape
    strides = []
    step = 1
    for extent in reversed(own):
        strides.append(step if extent != 1 else 0)
        step *= extent
    strides.reverse()
    ranges = [range(n) for n in shape]
    return [
        operand.values[sum(i * s for i, s in zip(index, strides))]
        for index in itertools.product(*ranges)
    ]


def _check_int32(operation: str, values: Sequence[int], shape: tuple[int, ...]) -> None:
    for flat, value in enumerate(values):
        if not INT32_MIN <= value <= INT32_MAX:
            where = unravel_index(flat, shape)
            raise OverflowError(
                f"{operation}: exact Int32 result {value} at {where} leaves "
                f"[{INT32_MIN}, {INT32_MAX}]"
            )


def _evaluate_elementwise(
    reference: Reference, plan: OperationPlan, operands: Sequence[Any]
) -> tuple[Tensor, tuple[bool, ...] | None]:
    integer_plan = plan.compute is not Arithmetic.BINARY32
    rule = reference.int_rule if integer_plan else reference.float_rule
    assert rule is not None, f"{plan.operation}: no rule for {plan.compute}"
    shape = broadcast_shapes(
        plan.operation, [o.shape if isinstance(o, Tensor) else () for o in operands]
    )
    check_size(plan.operation, math.prod(shape), math.prod(shape))
    columns = [_broadcast_values(o, shape) for o in operands]
    results = [rule(*arguments) for arguments in zip(*columns)] if math.prod(shape) else []
    exact_points = None
    if reference.rounded and not integer_plan:
        exact_points = tuple(flag for _, flag in results)
        results = [value for value, _ in results]
    if plan.compute is Arithmetic.INT32_EXACT_CHECKED:
        _check_int32(plan.operation, results, shape)
    return Tensor(plan.output, shape, tuple(results)), exact_points


def _conformance(reference: Reference, plan: OperationPlan) -> Conformance:
    if plan.accumulation is Accumulation.FLOATING:
        return Conformance.BOUNDED
    if reference.rounded and plan.compute is Arithmetic.BINARY32:
        return Conformance.CORRECTLY_ROUNDED
    return Conformance.EXACT


def expected(
    operation: str,
    *args: Any,
    accumulator_dtype: SimpleDType | None = None,
    options: OperationExecutionOptions | None = None,
) -> Expectation:
    """The Expectation for ``operation(*args)``.

    *args* are the operation's full forward arguments: :class:`Tensor`
    operands, weak Python scalars and the non-dtype parameters (axes, ``k``,
    flags, conv parameters).  The plan is resolved through the central
    planner exactly as a backend resolves it.

    A valid call too large to evaluate (see :mod:`oracle.limits`) raises
    :class:`~oracle.limits.OracleLimitError` before anything is computed:
    that is no statement about the call, so it is never an Expectation.
    """
    try:
        spec = get_operation(operation)
        operation = spec.name
        operands = [a.dtype if _is_tensor(a) else a for a in spec.policy_operands(args)]
        plan = resolve_operation_plan(
            operation, *operands, accumulator_dtype=accumulator_dtype, options=options
        )
    except SPECIFIED_ERRORS as error:
        return Expectation(operation, None, args, error=error)
    for position, argument in enumerate(args):
        if _is_tensor(argument):
            check_operand_extents(operation, position, argument.shape)
    reference = REFERENCES[operation]
    conformance = _conformance(reference, plan)
    nan_bits = reference.nan_bits
    positions = spec.dtype_operand_positions or range(len(plan.operands))
    materialised = list(args)
    try:
        for position, operand_plan in zip(positions, plan.operands):
            materialised[position] = _materialise(
                operation, position, args[position], operand_plan.role, operand_plan.convert_to
            )
        if reference.tensor_rule is not None:
            outcome = reference.tensor_rule(plan, *materialised)
            if isinstance(outcome, Bounded):
                return Expectation(
                    operation,
                    plan,
                    args,
                    conformance,
                    bounds=outcome.intervals,
                    shape=outcome.shape,
                    nan_bits=nan_bits,
                )
            return Expectation(
                operation, plan, args, conformance, result=outcome, nan_bits=nan_bits
            )
        result, exact_points = _evaluate_elementwise(reference, plan, materialised)
    except SPECIFIED_ERRORS as error:
        return Expectation(operation, plan, args, error=error)
    except OracleLimitError:
        raise
    except Exception as error:
        foreign = _foreign_argument(args)
        if foreign is None:
            raise  # an oracle fault, not the caller's object
        return Expectation(
            operation, plan, args, error=_unreadable_argument(operation, foreign, args, error)
        )
    return Expectation(
        operation,
        plan,
        args,
        conformance,
        result=result,
        exact_points=exact_points,
        nan_bits=nan_bits,
    )


#: The argument types the oracle knows how to read (non-dtype parameters,
#: weak scalars and tensors), exactly or as base classes; anything else is the
#: caller's own object.
_KNOWN_TYPES = frozenset({bool, int, float, str, type(None), Fraction})
_KNOWN_BASES = (Tensor, np.integer, np.floating, np.bool_)


def _is_known(value: object, depth: int = 0) -> bool:
    kind = type(value)  # never the object's own __class__
    if kind in (tuple, list):
        return depth < 8 and all(_is_known(item, depth + 1) for item in value)  # type: ignore[attr-defined]
    return kind in _KNOWN_TYPES or issubclass(kind, _KNOWN_BASES)


def _is_tensor(value: object) -> TypeGuard[Tensor]:
    return issubclass(type(value), Tensor)  # type(), not the object's own __class__


def _foreign_argument(args: Sequence[Any]) -> int | None:
    """The position of the first argument of a type the oracle does not know."""
    return next((p for p, a in enumerate(args) if not _is_known(a)), None)


def _unreadable_argument(
    operation: str, position: int, args: Sequence[Any], error: Exception
) -> TypeError:
    return TypeError(
        f"{operation}: argument {position} ({errors.describe(args[position])}) could not be "
        f"read: {type(error).__name__} from the object"
    )
