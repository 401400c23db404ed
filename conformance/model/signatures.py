"""Operation signatures as data: what ``execute(operation, *args)`` receives.

For every registered operation, :func:`signatures` gives its forward arguments in
order -- the dtype operands (tensors, or weak Python scalars where an overload
allows one) and the non-dtype parameters (axes, flags, ``k``, the conv geometry)
-- each with its name, the values it accepts, its default and a one-line meaning,
and the positions a weak scalar may take with the plans that put it there
(``pow(weak->Float32, Float32)``).  ``plancheck plans --signatures`` prints them
(``--json`` as data, ``--markdown`` as the table docs/new-backend.md carries).

Where each fact comes from:

* the operands' number, order and roles (tensor or weak scalar per overload) and
  the dtypes a tensor position accepts: the registry
  (:func:`oracle.get_operation`, :func:`oracle.resolvable_plans`);
* the non-dtype parameters (name, kind, default, required): the operation's
  family, :data:`oracle.facts.FAMILY_PARAMETERS`, the table
  :func:`conformance.model.calls.split_arguments` reads calls by;
* the names of the operands, the meaning of every operand and parameter and the
  accepted values of each parameter kind: the tables of this module
  (:data:`OPERAND_NAMES`, :data:`OPERAND_MEANINGS`, :data:`PARAMETER_MEANINGS`,
  :data:`ACCEPTS`), which tests/test_newcomer_signatures.py checks against the
  registry and against every call the suite's families build, so they cannot
  drift.

How arguments arrive: positionally, operands at the operation's
``dtype_operand_positions`` (all first), parameters after them in the order
listed; a trailing optional parameter may be omitted (the suite's generated calls
do omit them) and then takes its default.  ``accumulator_dtype``
(reduce_sum, matmul) is a keyword, not a forward argument.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from oracle import DType, OperandRole, get_operation, registered_operations, resolvable_plans
from oracle.facts import FAMILY_PARAMETERS, Family, ParameterKind
from oracle.planner import ACCUMULATOR_CONFIGURABLE_OPERATIONS, operation_facts

from .calls import family_of

__all__ = [
    "ACCEPTS",
    "OPERAND_MEANINGS",
    "OPERAND_NAMES",
    "PARAMETER_MEANINGS",
    "WEAK_VALUES",
    "Argument",
    "Signature",
    "markdown_table",
    "signature_of",
    "signatures",
    "text_lines",
]

#: what a weak scalar may be, wherever an overload allows one
WEAK_VALUES = "a Python int, float or bool, a fractions.Fraction, or a numpy scalar"

#: ParameterKind -> the values a parameter of that kind accepts (the reference's checks)
ACCEPTS: dict[ParameterKind, str] = {
    ParameterKind.AXES: "None, an int, or a tuple of distinct ints (negative counts from the "
    "end; () reduces nothing)",
    ParameterKind.OPTIONAL_AXIS: "None or an int (negative counts from the end)",
    ParameterKind.AXIS: "an int (negative counts from the end)",
    ParameterKind.FLAG: "a bool",
    ParameterKind.COUNT: "an int in [0, extent of axis]",
    ParameterKind.PER_SPATIAL: "a tuple (or list) of ints >= 1, one per spatial dimension",
    ParameterKind.PADDING: "a tuple (or list) of (low, high) int pairs, one per spatial "
    "dimension; negative crops",
    ParameterKind.GROUPS: "an int >= 1 dividing both channel counts",
}

#: (family, parameter name) -> what the parameter means, in one line
PARAMETER_MEANINGS: dict[tuple[Family, str], str] = {
    (Family.REDUCE, "axis"): "the dimensions reduced; None reduces all",
    (Family.REDUCE, "keepdims"): "keep each reduced dimension with extent 1",
    (Family.ARG, "axis"): "None: the index into the flattened tensor; an int: along it",
    (Family.SCAN, "axis"): "the dimension of the inclusive prefix sums",
    (Family.CONV, "window_strides"): "the window's step per spatial dimension",
    (Family.CONV, "padding"): "zeros added before (low) and after (high) each spatial "
    "dimension, after lhs dilation",
    (Family.CONV, "lhs_dilation"): "lhs_dilation - 1 zeros inserted between input elements "
    "(transposed convolution)",
    (Family.CONV, "rhs_dilation"): "the spacing of the kernel taps (atrous convolution)",
    (Family.CONV, "feature_group_count"): "channels split into this many groups, each "
    "convolved with its own slice of rhs",
    (Family.GATHER, "axis"): "the dimension of data the indices select along "
    "(numpy.take(data, indices, axis))",
    (Family.SCATTER, "axis"): "the dimension of base the indices select along",
    (Family.SCATTER_ADD, "axis"): "the dimension of base the indices select along",
    (Family.SORT, "axis"): "the dimension sorted",
    (Family.SORT, "descending"): "descending order (stable in the original order, not the "
    "reversed ascending sort)",
    (Family.TOPK, "k"): "how many elements to keep along axis",
    (Family.TOPK, "axis"): "the dimension searched",
    (Family.TOPK, "largest"): "the k largest (first of the descending order); False: the k "
    "smallest",
}

#: operation -> the names of its dtype operands, in forward-argument order
OPERAND_NAMES: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(
        "abs ceil cos elu erf exp exp2 floor gelu leaky_relu log log2 logical_not neg recip relu "
        "round rsqrt sigmoid sign silu sin softplus sqrt tanh reduce_sum reduce_prod reduce_max "
        "reduce_min argmax argmin cumsum _sort_values _sort_indices _topk_values "
        "_topk_indices".split(),
        ("x",),
    ),
    **dict.fromkeys(
        "add sub mul elementwise_mul div rem maximum minimum eq ne lt le matmul".split(), ("a", "b")
    ),
    "pow": ("base", "exponent"),
    "clamp": ("x", "lo", "hi"),
    "select": ("condition", "on_true", "on_false"),
    "conv_general": ("lhs", "rhs"),
    "gather": ("data", "indices"),
    "scatter": ("base", "indices", "updates"),
    "scatter_add": ("base", "indices", "updates"),
}

#: (operation, operand name) -> its meaning where the name alone does not say it
OPERAND_MEANINGS: dict[tuple[str, str], str] = {
    ("rem", "a"): "the dividend (the result has its sign)",
    ("rem", "b"): "the divisor",
    ("div", "a"): "the dividend",
    ("div", "b"): "the divisor",
    ("matmul", "a"): "(M, K), 2-D",
    ("matmul", "b"): "(K, N), 2-D",
    ("clamp", "lo"): "the lower bound (lo > hi gives hi)",
    ("clamp", "hi"): "the upper bound",
    ("select", "condition"): "where to take on_true; the three broadcast together",
    ("conv_general", "lhs"): "[batch, in_channels, *spatial]",
    ("conv_general", "rhs"): "[out_channels, in_channels // groups, *window], not flipped",
    ("gather", "data"): "the tensor read (numpy.take)",
    ("gather", "indices"): "Int32 positions in [0, n) along axis (no wrapping: IndexError); "
    "the result is data.shape[:axis] + indices.shape + data.shape[axis+1:]",
    ("scatter", "base"): "copied, then written where gather(base, indices, axis) reads",
    ("scatter", "indices"): "Int32 positions in [0, n), distinct (else ValueError)",
    ("scatter", "updates"): "the values written, shaped exactly as that gather's result",
    ("scatter_add", "base"): "copied, then updates added where gather(base, indices, axis) reads",
    ("scatter_add", "indices"): "Int32 positions in [0, n); duplicates accumulate in order",
    ("scatter_add", "updates"): "the values added, shaped exactly as that gather's result",
}

_ELEMENTWISE_MEANING = "broadcast together (numpy rules)"


@dataclass(frozen=True)
class Argument:
    """One forward argument of an operation.

    *kind* is ``tensor`` (a native tensor only), ``tensor or weak scalar``, or the
    parameter kind's value (``axes``, ``flag``, ...).  *default* is the value an
    omitted argument takes; *required* says it has none.
    """

    position: int
    name: str
    kind: str
    accepts: str
    default: Any
    required: bool
    meaning: str

    def as_dict(self) -> dict[str, Any]:
        default = self.default if not isinstance(self.default, tuple) else list(self.default)
        return {"position": self.position, "name": self.name, "kind": self.kind,
                "accepts": self.accepts, "default": None if self.required else default,
                "required": self.required, "meaning": self.meaning}  # fmt: skip


@dataclass(frozen=True)
class Signature:
    """Everything ``execute(operation, *args)`` receives, in order.

    *weak_plans* maps each position a weak scalar may take to the plans that put
    one there (``describe()`` spelling); *accumulator_dtype* says whether the
    ``accumulator_dtype`` keyword may be passed; *reached_by* names the public
    operation a private one serves.
    """

    operation: str
    family: str
    public: bool
    arguments: tuple[Argument, ...]
    weak_plans: dict[int, tuple[str, ...]]
    accumulator_dtype: bool
    semantics: str

    def call(self) -> str:
        """The call as text: ``pow(base, exponent)``, defaults shown."""
        parts = [a.name if a.required else f"{a.name}={a.default!r}" for a in self.arguments]
        keyword = ", accumulator_dtype=None" if self.accumulator_dtype else ""
        return f"{self.operation}({', '.join(parts)}{keyword})"

    def as_dict(self) -> dict[str, Any]:
        return {"operation": self.operation, "family": self.family, "public": self.public,
                "call": self.call(), "arguments": [a.as_dict() for a in self.arguments],
                "weak_positions": {str(p): list(v) for p, v in self.weak_plans.items()},
                "accumulator_dtype": self.accumulator_dtype,
                "semantics": self.semantics}  # fmt: skip


def _tensor_dtypes(operation: str) -> dict[int, list[str]]:
    """Operand index -> the dtypes a tensor takes there in some resolvable plan."""
    found: dict[int, list[str]] = {}
    for plan in resolvable_plans():
        if plan.operation != operation:
            continue
        for index, operand in enumerate(plan.operands):
            if operand.dtype is not None and operand.dtype.name not in found.setdefault(index, []):
                found[index].append(operand.dtype.name)
    order = [d.name for d in (DType.Float32, DType.Int32, DType.Bool)]
    return {i: sorted(v, key=order.index) for i, v in found.items()}


def _weak_plans(operation: str) -> dict[int, tuple[str, ...]]:
    """Operand index -> the plans with a weak scalar there."""
    found: dict[int, list[str]] = {}
    for plan in resolvable_plans():
        if plan.operation != operation:
            continue
        for index, operand in enumerate(plan.operands):
            if operand.role is OperandRole.WEAK_SCALAR:
                found.setdefault(index, []).append(plan.describe())
    return {i: tuple(v) for i, v in sorted(found.items())}


def signature_of(operation: str) -> Signature:
    """The signature of a registered *operation* (ValueError for another name, as the
    registry raises it)."""
    spec = get_operation(operation)
    family = family_of(operation)
    facts = operation_facts(operation)
    names = OPERAND_NAMES[operation]
    count = len(spec.overloads[0].roles)
    if len(names) != count:
        raise ValueError(f"{operation}: {len(names)} operand names for {count} operands")
    weak = {i for o in spec.overloads for i, r in enumerate(o.roles)
            if r is OperandRole.WEAK_SCALAR}  # fmt: skip
    dtypes = _tensor_dtypes(operation)
    positions = spec.dtype_operand_positions or tuple(range(count))
    arguments = []
    for index, (name, position) in enumerate(zip(names, positions, strict=True)):
        tensor = "a tensor of " + " or ".join(dtypes.get(index, ["?"]))
        accepts = f"{tensor}, or {WEAK_VALUES}" if index in weak else tensor
        meaning = OPERAND_MEANINGS.get((operation, name))
        if meaning is None:
            meaning = _ELEMENTWISE_MEANING if family is Family.ELEMENTWISE and count > 1 else (
                "the input")  # fmt: skip
        kind = "tensor or weak scalar" if index in weak else "tensor"
        arguments.append(Argument(position, name, kind, accepts, None, True, meaning))
    for offset, parameter in enumerate(FAMILY_PARAMETERS[family]):
        arguments.append(Argument(
            count + offset, parameter.name, parameter.kind.value, ACCEPTS[parameter.kind],
            parameter.default, parameter.required,
            PARAMETER_MEANINGS[(family, parameter.name)],
        ))  # fmt: skip
    return Signature(
        operation=operation,
        family=family.value,
        public=spec.public,
        arguments=tuple(arguments),
        weak_plans=_weak_plans(operation),
        accumulator_dtype=operation in ACCUMULATOR_CONFIGURABLE_OPERATIONS,
        semantics=facts.semantics,
    )


def signatures() -> tuple[Signature, ...]:
    """Every registered operation's signature, in operation-name order."""
    return tuple(signature_of(spec.name) for spec in registered_operations())


def _operands_of(plan: str) -> str:
    """``pow(weak->Float32, Float32) binary32 -> Float32`` -> ``pow(weak->Float32, Float32)``."""
    return plan[: plan.index(")") + 1]


def _weak_text(sig: Signature) -> str:
    operands = [a for a in sig.arguments if a.kind.startswith("tensor")]
    return "; ".join(
        f"{operands[p].name}: " + ", ".join(f"`{_operands_of(plan)}`" for plan in plans)
        for p, plans in sig.weak_plans.items()
    )


def text_lines(sig: Signature) -> list[str]:
    """*sig* for the terminal: the call, one line per argument, the weak positions."""
    lines = [sig.call()]
    width = max(len(a.name) for a in sig.arguments)
    for a in sig.arguments:
        default = "required" if a.required else f"default {a.default!r}"
        lines.append(f"  {a.name:<{width}}  {a.accepts}; {default}; {a.meaning}")
    if sig.weak_plans:
        lines.append(f"  weak scalars: {_weak_text(sig).replace('`', '')}")
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown_table(table: tuple[Signature, ...] | None = None) -> str:
    """The signatures as the Markdown docs/new-backend.md carries: one table of the
    calls (operands, parameters with defaults, weak positions), then one of every
    parameter's accepted values and meaning."""
    table = signatures() if table is None else table
    lines = [
        "| operation | forward arguments (defaults) | operand dtypes | a weak scalar may be |",
        "| --- | --- | --- | --- |",
    ]
    for sig in table:
        operands = [a for a in sig.arguments if a.kind.startswith("tensor")]
        shown = "; ".join(
            f"{a.name}: {a.accepts.split(', or ')[0].removeprefix('a tensor of ')}"
            + (f" ({OPERAND_MEANINGS[(sig.operation, a.name)]})"
               if (sig.operation, a.name) in OPERAND_MEANINGS else "")
            for a in operands
        )  # fmt: skip
        lines.append(
            f"| `{sig.operation}` | `{_cell(sig.call())}` | {_cell(shown)} | "
            f"{_cell(_weak_text(sig)) or '-'} |"
        )
    lines += [
        "",
        "| family | parameter | accepts | default | meaning |",
        "| --- | --- | --- | --- | --- |",
    ]
    for family, parameters in FAMILY_PARAMETERS.items():
        for parameter in parameters:
            default = "required" if parameter.required else f"`{parameter.default!r}`"
            lines.append(
                f"| {family.value} | `{parameter.name}` | {_cell(ACCEPTS[parameter.kind])} | "
                f"{default} | {_cell(PARAMETER_MEANINGS[(family, parameter.name)])} |"
            )
    return "\n".join(lines) + "\n"
