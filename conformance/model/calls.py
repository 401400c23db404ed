"""One complete operation call, and the table of non-dtype parameters.

A :class:`Call` is everything needed to run one operation once, on the
oracle or on a backend: the operation name, its full forward arguments
(:class:`oracle.Tensor` operands, weak Python scalars and the non-dtype
parameters, in forward-argument order), the requested accumulator dtype, the
plan the call is meant to exercise and, derived from its values by
:func:`conformance.generate.families.classes_hit`, the boundary classes it hits.

Which forward arguments are dtype operands comes from the registry
(``OperationSpec.dtype_operand_positions``); each operation's family and the
names and kinds of its non-dtype parameters are facts of its row in the
operation table (``oracle.operation_facts(name).family``,
``oracle.FAMILY_PARAMETERS``): nothing here is kept per operation.
:data:`SIGNATURES` is the derived view of the non-elementwise rows.

``Call.repro()`` gives a one-line Python snippet that re-runs exactly the
call; floats are written exactly (``float.fromhex``) and NaNs by their bit
pattern (``from_bits(0x7fc00001)``).
"""

from __future__ import annotations

import math
import numbers
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

import oracle as _oracle
from oracle import (
    DType,
    OperationPlan,
    OperationSpec,
    SimpleDType,
    Tensor,
    binary32,
    get_operation,
    resolve_operation_plan,
)

__all__ = [
    "REPRO_PRELUDE",
    "SIGNATURES",
    "Call",
    "Family",
    "Parameter",
    "ParameterKind",
    "family_of",
    "forward_arguments",
    "literal",
    "parameters_of",
    "repro_namespace",
    "resolve_call_plan",
    "split_arguments",
]


# The call shapes are facts of the operation table (oracle.operations): the family of
# each row and each family's non-dtype parameters.  The suite reads them from there.
Family = _oracle.Family
ParameterKind = _oracle.ParameterKind
Parameter = _oracle.Parameter
#: Family -> its non-dtype parameters, in forward-argument order after the operands.
FAMILY_PARAMETERS = _oracle.FAMILY_PARAMETERS


def family_of(operation: str) -> Family:
    """The call family of a registered *operation* (its row's ``family``)."""
    return _oracle.operation_facts(operation).family


#: The call shape of every registered operation that is not a plain elementwise
#: one, derived from the operation table (a view kept for readers of this name).
SIGNATURES: dict[str, Family] = {
    spec.name: family_of(spec.name)
    for spec in _oracle.registered_operations()
    if family_of(spec.name) is not Family.ELEMENTWISE
}


def parameters_of(operation: str) -> tuple[Parameter, ...]:
    """The non-dtype parameters of *operation*, in forward-argument order."""
    return FAMILY_PARAMETERS[family_of(operation)]


def _operand_positions(spec: OperationSpec, count: int) -> tuple[int, ...]:
    if spec.dtype_operand_positions is None:
        return tuple(range(count))
    return spec.dtype_operand_positions


def forward_arguments(
    operation: str, operands: Sequence[Any], parameters: Mapping[str, Any] | Sequence[Any] = ()
) -> tuple[Any, ...]:
    """Place *operands* at the dtype positions and *parameters* in the others.

    *parameters* is a mapping by name (missing optional ones are omitted from
    the end only; a missing one in the middle gets its default) or a sequence
    in declared order.
    """
    spec = get_operation(operation)
    declared = parameters_of(operation)
    if isinstance(parameters, Mapping):
        unknown = set(parameters) - {p.name for p in declared}
        if unknown:
            raise TypeError(f"{operation}: unknown parameters {sorted(unknown)}")
        last = max((i for i, p in enumerate(declared) if p.name in parameters), default=-1)
        values = [parameters.get(p.name, p.default) for p in declared[: last + 1]]
    else:
        values = list(parameters)
    positions = _operand_positions(spec, len(operands))
    total = len(operands) + len(values)
    arguments: list[Any] = [None] * total
    rest = iter(values)
    operand_iter = iter(operands)
    for index in range(total):
        arguments[index] = next(operand_iter) if index in positions else next(rest)
    return tuple(arguments)


def split_arguments(operation: str, args: Sequence[Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The dtype operands and the named non-dtype parameters (defaults filled in)."""
    spec = get_operation(operation)
    operands = spec.policy_operands(args)
    positions = set(_operand_positions(spec, len(operands)))
    others = [a for i, a in enumerate(args) if i not in positions]
    parameters = {}
    for index, parameter in enumerate(parameters_of(operation)):
        parameters[parameter.name] = others[index] if index < len(others) else parameter.default
    return tuple(operands), parameters


# ---------------------------------------------------------------------------
# Exact source text of argument values
# ---------------------------------------------------------------------------

#: What a :meth:`Call.repro` line imports before the call itself.
REPRO_PRELUDE = (
    "from fractions import Fraction; import numpy as np; "
    "from oracle import DType, Tensor; from oracle.binary32 import from_bits; "
)


def repro_namespace() -> dict[str, Any]:
    """The names a :meth:`Call.expression` needs, for ``eval``."""
    namespace: dict[str, Any] = {}
    exec(REPRO_PRELUDE, namespace)
    return namespace


def _float_literal(x: float, binary32_bits: bool) -> str:
    if math.isnan(x):
        if binary32_bits:
            return f"from_bits(0x{binary32.to_bits(x):08x})"
        return "-float('nan')" if math.copysign(1.0, x) < 0 else "float('nan')"
    if math.isinf(x):
        return "float('inf')" if x > 0 else "-float('inf')"
    text = repr(float(x))
    if len(text) <= 12:
        return text  # repr round-trips exactly; short ones are easier to read
    return f"float.fromhex({float(x).hex()!r})"


def literal(value: Any) -> str:
    """Exact Python source for one forward-argument value.

    Handles :class:`Tensor`, dtypes, None, bools, ints, floats, Fractions,
    numpy scalars and (nested) tuples and lists of those.
    """
    if isinstance(value, Tensor):
        float_values = value.dtype is DType.Float32
        items = [_float_literal(v, True) if float_values else repr(v) for v in value.values]
        values = "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        return f"Tensor(DType.{value.dtype.name}, {value.shape!r}, {values})"
    if isinstance(value, SimpleDType):
        return f"DType.{value.name}"
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, np.generic):
        inner = value.item()
        if isinstance(value, np.floating):
            inner_text = _float_literal(float(inner), isinstance(value, np.float32))
        else:
            inner_text = repr(inner)
        return f"np.{type(value).__name__}({inner_text})"
    if isinstance(value, float):
        return _float_literal(value, False)
    if isinstance(value, int):
        return repr(int(value))
    if isinstance(value, Fraction):
        return f"Fraction({value.numerator}, {value.denominator})"
    if isinstance(value, tuple):
        items = [literal(v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if type(value) is str:  # a parameter of the wrong type, e.g. axis='0'
        return repr(value)
    raise TypeError(f"no exact literal for {type(value).__name__} {value!r}")


def _value_key(value: Any) -> Any:
    """A hashable key equal exactly when two argument values are the same call input."""
    if isinstance(value, Tensor):
        return ("T", value.dtype.name, value.shape, value.bits())
    if isinstance(value, np.generic):
        return ("np", type(value).__name__, _value_key(value.item()))
    if isinstance(value, float):
        return ("f", type(value).__name__, struct.pack("<d", value))
    if isinstance(value, (bool, int)):
        return ("i", type(value).__name__, int(value))
    if isinstance(value, Fraction):
        return ("q", value.numerator, value.denominator)
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(_value_key(v) for v in value))
    if isinstance(value, numbers.Number) or value is None or isinstance(value, (str, DType)):
        return ("o", type(value).__name__, repr(value))
    raise TypeError(f"unsupported argument {value!r}")


# ---------------------------------------------------------------------------
# The call record
# ---------------------------------------------------------------------------


def _policy_operands(operands: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(o.dtype if isinstance(o, Tensor) else o for o in operands)


def resolve_call_plan(
    operation: str, args: Sequence[Any], accumulator_dtype: SimpleDType | None = None
) -> OperationPlan:
    """The plan the central planner selects for ``operation(*args)`` (the planner's
    exceptions for a call that does not plan): :meth:`Call.resolve` before a
    :class:`Call` exists."""
    operands = split_arguments(operation, tuple(args))[0]
    return resolve_operation_plan(
        operation, *_policy_operands(operands), accumulator_dtype=accumulator_dtype
    )


@dataclass(frozen=True, eq=False)
class Call:
    """One complete call of *operation* meant to exercise *plan*.

    *args* are the full forward arguments; *accumulator_dtype* is passed as the
    keyword of the same name (None: not passed).  *raises* is empty for a call
    whose outcome the oracle decides (which may still be an error, such as an
    Int32 overflow), and otherwise the exception types an invalid call must
    raise.  *note* says what a constructed call was built for.

    Equality and hashing are exact (bit patterns, value types).
    """

    operation: str
    args: tuple[Any, ...]
    accumulator_dtype: SimpleDType | None
    plan: OperationPlan
    raises: tuple[type[BaseException], ...] = ()
    note: str = ""
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    # -- structure ------------------------------------------------------------

    @property
    def family(self) -> Family:
        return family_of(self.operation)

    @property
    def operands(self) -> tuple[Any, ...]:
        """The dtype-policy operands (Tensors and weak scalars) in plan order."""
        return split_arguments(self.operation, self.args)[0]

    @property
    def parameters(self) -> dict[str, Any]:
        """The non-dtype parameters by name (omitted ones at their defaults)."""
        return split_arguments(self.operation, self.args)[1]

    def policy_operands(self) -> tuple[Any, ...]:
        """What the planner sees: each tensor as its dtype, each weak scalar as itself."""
        return _policy_operands(self.operands)

    def resolve(self) -> OperationPlan:
        """The plan the central planner selects for this call's arguments."""
        return resolve_call_plan(self.operation, self.args, self.accumulator_dtype)

    def kwargs(self) -> dict[str, Any]:
        """Keyword arguments of the call (``accumulator_dtype`` when requested)."""
        if self.accumulator_dtype is None:
            return {}
        return {"accumulator_dtype": self.accumulator_dtype}

    # -- reproduction ---------------------------------------------------------

    def expression(self, function: str = "expected") -> str:
        """``function('op', arg, ..., accumulator_dtype=...)`` with exact literals."""
        parts = [repr(self.operation), *(literal(a) for a in self.args)]
        if self.accumulator_dtype is not None:
            parts.append(f"accumulator_dtype={literal(self.accumulator_dtype)}")
        return f"{function}({', '.join(parts)})"

    def repro(self, function: str = "oracle:expected") -> str:
        """A one-line, paste-able Python reproduction of this call.

        *function* is ``module:attribute`` (or ``module.attribute``) of what to
        call, by default :func:`oracle.expected`::

            from fractions import Fraction; ...; from oracle import expected; expected('add', ...)
        """
        module, _, attribute = function.rpartition(":")
        if not module:
            module, _, attribute = function.rpartition(".")
        return f"{REPRO_PRELUDE}from {module} import {attribute}; {self.expression(attribute)}"

    # -- identity -------------------------------------------------------------

    def key(self) -> tuple[Any, ...]:
        return (
            self.operation,
            tuple(_value_key(a) for a in self.args),
            self.accumulator_dtype,
            self.plan,
            self.raises,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Call):
            return NotImplemented
        return self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        raises = f" raises {'|'.join(e.__name__ for e in self.raises)}" if self.raises else ""
        note = f"  # {self.note}" if self.note else ""
        arguments = ", ".join(literal(a) for a in self.args)
        if self.accumulator_dtype is not None:
            arguments += f", accumulator_dtype={literal(self.accumulator_dtype)}"
        return f"<Call {self.operation}({arguments}){raises}{note}>"
