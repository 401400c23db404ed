"""Where every rule the judge applies comes from: its *authority*.

Each deviation class (:mod:`conformance.findings.finding`) rests on exactly one of

``specification``
    a SHALL of the policy specification (``operation-dtype-policy.txt``), quoted
    word for word with its requirement's heading;
``reference``
    a value rule of the reference semantics (``reference-semantics.md``), quoted
    word for word with its section, and what it rests on (:attr:`Authority.source`):
    a clause of IEEE 754-2019, of C99 Annex F, or the reference document itself;
``convention``
    a choice plancheck made where both are silent (which exception type, which
    parameter values are invalid, what a call may do to its process), stated in
    ``docs/semantics/conventions.md`` with why it was chosen.

:data:`RULES` is the one table: rows of (class patterns, operations, path) and the
authority, read first match first.  :func:`authority_of` answers for a class of an
operation and plan; a class no row covers is a :class:`LookupError` -- plancheck's
mistake, caught by ``tests/test_authority_table.py``, which enumerates every class
the judge can produce.  :func:`reported_class` folds the classes of one cause into
one (item "one cause, one class"): every exception of the wrong *type* for a
convention of an operation is ``wrong-exception:convention``, and every "not
correctly rounded" element of a correctly rounded operation (``1-ulp``,
``many-ulps``, ``subnormal``) is ``wrong-value:accuracy``; the old spellings stay
valid in known-deviations files (:data:`FOLDED`).
"""

from __future__ import annotations

import fnmatch
import functools
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from conformance.findings.conv_rules import CONV_RULES
from conformance.model.capabilities import FEATURES
from oracle import resolvable_plans

__all__ = [
    "AUTHORITIES",
    "FOLDED",
    "RULES",
    "UNJUDGEABLE",
    "Authority",
    "Rule",
    "authority_fields",
    "authority_of",
    "fails_the_run",
    "negative_padding",
    "parse_authorities",
    "plan_path",
    "reported_class",
    "unsourced_rule",
]

#: the authorities, strongest first (``--judge`` takes these names)
AUTHORITIES = ("specification", "reference", "convention")

POLICY = "operation-dtype-policy"
VALUES = "reference-semantics"
CONVENTIONS = "docs/semantics/conventions.md"


@dataclass(frozen=True)
class Authority:
    """The authority of one rule: *name* (one of :data:`AUTHORITIES`), the *document*
    and *section* that state it, its *text* quoted word for word, *source* (what a
    reference rule rests on: ``IEEE 754-2019 §9.2``, ``C99 Annex F.9.4.4``, ``the
    reference document``) and, for a convention, its *key* (the section of
    ``docs/semantics/conventions.md``) and *why* it was chosen."""

    name: str
    document: str
    section: str
    text: str
    source: str = ""
    key: str = ""
    why: str = ""

    @property
    def label(self) -> str:
        """``specification``, ``reference (IEEE 754-2019 §9.2)``, ``convention
        (exception-types)``: the tag a class line shows."""
        if self.name == "convention":
            return f"convention ({self.key})"
        if self.name == "reference" and self.source:
            return f"reference ({self.source})"
        return self.name

    def cite(self) -> str:
        """``"<text>" (<document>, <section>)``."""
        return f'"{self.text}" ({self.document}, {self.section})'

    def as_dict(self) -> dict[str, str]:
        return {
            "authority": self.name,
            "document": self.document,
            "section": self.section,
            "text": self.text,
            "source": self.source,
            "key": self.key,
            "why": self.why,
            "label": self.label,
        }


# ---------------------------------------------------------------------------
# The clauses, quoted word for word
# ---------------------------------------------------------------------------

_EXACT_SEMANTICS = "Requirement: Arithmetic and accumulation values have exact semantics"


def _spec(section: str, text: str) -> Authority:
    return Authority("specification", POLICY, section, text)


def _ref(section: str, text: str, source: str = "the reference document") -> Authority:
    return Authority("reference", VALUES, section, text, source)


def _convention(key: str, text: str, why: str) -> Authority:
    return Authority("convention", CONVENTIONS, key, text, key=key, why=why)


S_BINARY32 = _spec(_EXACT_SEMANTICS, "Arithmetic.BINARY32 SHALL mean IEEE-754 binary32, "
                   "round-to-nearest-even, without wider intermediates, reassociation, or fused "
                   "contraction.")  # fmt: skip
S_CHECKED = _spec(_EXACT_SEMANTICS, "INT32_EXACT_CHECKED SHALL mean exact integer arithmetic "
                  "with an OverflowError when the exact result leaves Int32 range.")  # fmt: skip
S_INT32_EXACT = _spec(_EXACT_SEMANTICS, "INT32_EXACT SHALL mean exact integer arithmetic for a "
                      "plan whose result is known to remain in range.")  # fmt: skip
S_EXACT_INTEGER = _spec(_EXACT_SEMANTICS, "EXACT_INTEGER SHALL combine exactly over integers "
                        "and check only the final narrowing to Int32.")  # fmt: skip
S_FLOATING = _spec(_EXACT_SEMANTICS, "Accumulation.FLOATING SHALL combine terms in the plan's "
                   "separate floating accumulator_dtype, with association order chosen by the "
                   "backend.")  # fmt: skip
S_SEQUENTIAL = _spec(_EXACT_SEMANTICS, "SEQUENTIAL_BINARY32 and SEQUENTIAL_BINARY32_PRODUCT SHALL "
                     "combine in ascending logical order, rounding in binary32 after every "
                     "addition or multiplication.")  # fmt: skip
S_EXTREMA = _spec(_EXACT_SEMANTICS, "MAXIMUM and MINIMUM SHALL apply the reference Float32 NaN "
                  "and signed-zero rules in logical order. ARGMAX and ARGMIN SHALL additionally "
                  "retain the first winning logical ordinal.")  # fmt: skip
S_WEAK_OVERFLOW = _spec(
    "Requirement: Weak scalars select branches without acquiring a dtype",
    "When an integer plan needs to represent the weak scalar as Int32, a value outside "
    "[-2**31, 2**31 - 1] SHALL fail with OverflowError.",
)
S_PLANNING = _spec(
    "Requirement: Resolution selects exact roles before applying policy",
    "When operation is unregistered, resolution SHALL fail with NotImplementedError. When "
    "operands has the wrong count or an unmatched role signature, contains a non-DType tensor "
    "operand, or contains a non-real weak scalar, resolution SHALL fail with TypeError.",
)
S_OUTPUT = _spec(
    "Requirement: One immutable plan carries the complete dtype decision",
    "output names the result dtype and SHALL be a SimpleDType.",
)

R_CORRECTLY_ROUNDED = "correctly rounded — the reference is the exact mathematical function of " \
    "the exact binary32 inputs, rounded once"  # fmt: skip
R_SPECIAL = "special values (NaN, ±inf, ±0, and exact points such as exp(0) = 1, erf(-0) = -0) " \
    "must still match exactly."  # fmt: skip
R_ROUNDING = _ref("Values and conversions", "Every computed binary32 result is rounded once, to "
                  "nearest, ties to even, with subnormals (no flush-to-zero), overflow to ±inf.",
                  "IEEE 754-2019 §4.3, §7.4, §7.5")  # fmt: skip
R_WARNINGS = _ref("Values and conversions", "IEEE exceptions (overflow, underflow, invalid, "
                  "divide-by-zero) never raise or warn.", "IEEE 754-2019 §7.1 (default "
                  "exception handling)")  # fmt: skip
R_NAN_BITS = _ref("Values and conversions", "NaN: a result that must be NaN may be any NaN "
                  "(payload and sign unspecified), except for bit-copy operations, which preserve "
                  "the input bits exactly")  # fmt: skip
R_SIGN_BITS = _ref("Values and conversions", "neg (flips the sign bit), abs (clears it)",
                   "IEEE 754-2019 §5.5.1 (sign bit operations)")  # fmt: skip
R_MAXMIN = _ref("Elementwise rules", "maximum/minimum follow IEEE 754-2019 maximum/minimum: NaN "
                "if either operand is NaN, and -0 < +0, so maximum(+0, -0) = +0 and minimum(+0, "
                "-0) = -0 in either argument order.", "IEEE 754-2019 §9.6")  # fmt: skip
R_CLAMP = _ref(
    "Elementwise rules",
    "clamp(x, lo, hi) = minimum(maximum(x, lo), hi) with those "
    "rules; bounds are not validated (lo > hi gives hi).",
    "IEEE 754-2019 §9.6",
)
R_RELU = _ref("Elementwise rules", "relu(x) = maximum(x, +0): relu(NaN) = NaN, relu(-0) = +0.",
              "IEEE 754-2019 §9.6")  # fmt: skip
R_LEAKY = _ref("Elementwise rules", "leaky_relu: x if x >= 0 else round(0.01f * x) with the "
               "fixed slope 0.01f (bits 0x3C23D70A).")  # fmt: skip
R_COMPARE = _ref("Elementwise rules", "eq/ne/lt/le: IEEE comparisons (NaN unordered, -0 == +0).",
                 "IEEE 754-2019 §5.11")  # fmt: skip
R_LOGICAL_NOT = _ref("Elementwise rules", "logical_not(x) is x == 0 (±0 → True, NaN → False).",
                     "IEEE 754-2019 §5.11")  # fmt: skip
R_SIGN = _ref("Elementwise rules", "sign: +1 or -1, +0 for both zeros, NaN for NaN.")
R_ROUND = _ref(
    "Elementwise rules",
    "round: half to even (2.5 → 2, -0.5 → -0). floor/ceil keep signed zeros (ceil(-0.5) = -0).",
    "IEEE 754-2019 §5.9 (roundToIntegral)",
)
R_FMOD = _ref("Elementwise rules", "rem is C fmod: exact, the sign of the dividend; fmod(x, ±0) = "
              "NaN, fmod(±inf, y) = NaN, fmod(x, ±inf) = x, fmod(-6, 3) = -0.",
              "C99 §7.12.10.1 and Annex F.9.7.1")  # fmt: skip
R_POW = _ref("Elementwise rules", "Floating pow follows C99/IEEE pow special cases (pow(x, ±0) = "
             "1 even for NaN x, pow(1, y) = 1 even for NaN y, pow(-1, ±inf) = 1, negative finite "
             "base with non-integer exponent → NaN, pow(-0, -1) = -inf).",
             "C99 Annex F.9.4.4")  # fmt: skip
R_SEQUENTIAL_ZERO = _ref("Structured operations", "Sequential sums (cumsum, scatter_add, "
                         "conv_general, and the built-in backends' common order for reduce_sum) "
                         "start at +0, so the sum of only -0 terms is +0")  # fmt: skip
R_ORDER = _ref("Structured operations", "stable; NaNs form one class placed last ascending and "
               "first descending (so NaNs win topk largest); -0 and +0 compare equal (stable "
               "order decides); topk returns the first k of that order.")  # fmt: skip
R_GATHER = _ref("Structured operations", "gather(data, indices, axis): like numpy.take: the index "
                "array's shape replaces axis. Indices must lie in [0, n): anything else raises "
                "IndexError. Values are copied bit-exactly.")  # fmt: skip
R_SCATTER = _ref("Structured operations", "scatter(base, indices, updates, axis): returns a new "
                 "tensor shaped like base; updates has the gather-result shape; indices must be "
                 "distinct (ValueError otherwise); copies bits.")  # fmt: skip
R_SELECT = _ref("Structured operations", "select(cond, on_true, on_false): numpy broadcasting; "
                "copies the chosen operand's bits; the other branch is never read.")  # fmt: skip
R_SHAPES = _ref("Structured operations", "Binary elementwise operations, predicates, select and "
                "clamp broadcast like numpy; other shape mismatches raise ValueError naming the "
                "shapes.")  # fmt: skip
R_AXES = _ref("Structured operations", "axis None reduces everything; an int or tuple names axes "
              "(negative allowed, duplicates are an error).")  # fmt: skip
R_EMPTY = _ref("Structured operations", "Empty sum = +0, empty product = 1; empty "
               "max/min/argmax/argmin raise ValueError.")  # fmt: skip
R_INDEX = _ref("Structured operations", "Indices must lie in [0, n): anything else raises "
               "IndexError.")  # fmt: skip
R_DUPLICATES = _ref("Structured operations", "indices must be distinct (ValueError otherwise)")
R_GENERAL = _ref("Reference value semantics (decisions for the oracle)", "These are the rules "
                 "plancheck's oracle states and both built-in backends must meet.")  # fmt: skip

C_EXCEPTION_TYPES = _convention(
    "exception-types",
    "An invalid argument raises the exception type Python and numpy use for it: ValueError for "
    "a shape mismatch, an axis out of range or named twice, an empty extremum, duplicate scatter "
    "indices and a parameter value out of range; IndexError for an index outside [0, n); "
    "TypeError for an argument of the wrong type.",
    "the reference names these types for plancheck's own backends only; they are what Python "
    "and numpy raise, one type per kind of mistake",
)
C_PARAMETERS = _convention(
    "parameter-values",
    "keepdims, descending and largest are bools; k is an int, not a bool, in [0, n].",
    "the specification reads a bool as no integer when it selects a plan; plancheck reads "
    "counts and flags the same way",
)
C_ALLOCATION = _convention(
    "error-before-allocation",
    "Every argument error of a call is raised before the backend allocates its result.",
    "the specification requires it of planning failures; plancheck's backends extend it to "
    "every argument error so a failing call leaves nothing behind",
)
C_FUNCTIONAL = _convention(
    "functional-calls",
    "A call never modifies its inputs, and its result shares no memory with its inputs or an "
    "earlier result and never changes after the call returned it.",
    "tensors are values: a call that writes into an operand or returns a view changes what a "
    "later call sees",
)
C_ENVIRONMENT = _convention(
    "clean-environment",
    "A call leaves the floating-point environment (round to nearest, gradual underflow) and "
    "numpy's error state and functions as it found them.",
    "a mode left behind breaks the rounding rule of every later call in the process and "
    "blames it for it",
)
C_HARNESS = _convention(
    "harness",
    "Every call returns within the per-call timeout and leaves its process alive; execute "
    "returns a native tensor that to_tensor accepts.",
    "a call that hangs, kills its process or returns what the protocol cannot read cannot be "
    "judged at all",
)

C_NEGATIVE_PADDING = _convention(
    "negative-padding",
    "A negative padding crops the input: a (low, high) pair below zero removes that many "
    "positions from that side, as XLA's conv_general_dilated does; a padding that leaves a "
    "negative extent is an error.",
    "the reference gives padding as a (low, high) pair and says nothing of negative values; "
    "XLA's reading keeps every pair an operation, where refusing them would not",
)

#: every convention, by key (docs/semantics/conventions.md has one section each)
CONVENTION_RULES = {
    a.key: a for a in (C_EXCEPTION_TYPES, C_PARAMETERS, C_ALLOCATION, C_FUNCTIONAL,
                       C_ENVIRONMENT, C_HARNESS, C_NEGATIVE_PADDING)
}  # fmt: skip


# ---------------------------------------------------------------------------
# Operation groups and plan paths
# ---------------------------------------------------------------------------

#: IEEE 754 basic arithmetic (§5.4.1) under Arithmetic.BINARY32
BASIC = frozenset("add sub mul elementwise_mul div sqrt recip".split())
#: correctly rounded functions listed by IEEE 754-2019 §9.2 (the rest: the reference's own)
IEEE_FUNCTIONS = frozenset("exp exp2 log log2 sin cos tanh rsqrt pow".split())
#: the correctly rounded operations (reference-semantics, "Conformance classes" 2)
CORRECTLY_ROUNDED = IEEE_FUNCTIONS | frozenset("erf sigmoid silu softplus gelu elu".split())
SEQUENTIAL = frozenset("cumsum reduce_prod conv_general scatter_add".split())
EXTREMA = frozenset("reduce_max reduce_min argmax argmin".split())
FLOATING = frozenset("reduce_sum matmul".split())
ORDER = frozenset("_sort_values _sort_indices _topk_values _topk_indices".split())
COMPARISONS = frozenset("eq ne lt le".split())


@functools.cache
def _plans() -> dict[str, Any]:
    return {p.describe(): p for p in resolvable_plans()}


def plan_path(plan: Any) -> str | None:
    """``int32`` for a plan of exact integer arithmetic or accumulation, ``float``
    otherwise, None when *plan* (an OperationPlan or its description) is unknown."""
    if isinstance(plan, str):
        plan = _plans().get(plan)
    if plan is None:
        return None
    accumulation = getattr(plan.accumulation, "name", "")
    if plan.compute.name.startswith("INT32") or accumulation == "EXACT_INTEGER":
        return "int32"
    return "float"


def _correctly_rounded_function(operation: str) -> Authority:
    source = "IEEE 754-2019 §9.2" if operation in IEEE_FUNCTIONS else "the reference document"
    return _ref("Conformance classes", R_CORRECTLY_ROUNDED, source)


def _special_values(operation: str) -> Authority:
    if operation == "pow":
        return R_POW
    source = "IEEE 754-2019 §9.2.1" if operation in IEEE_FUNCTIONS else "the reference document"
    return _ref("Conformance classes", R_SPECIAL, source)


#: the value rule of an exact Float32 operation outside basic arithmetic
_EXACT_VALUE_RULES: dict[str, Authority] = {
    "neg": R_SIGN_BITS, "abs": R_SIGN_BITS, "maximum": R_MAXMIN, "minimum": R_MAXMIN,
    "clamp": R_CLAMP, "relu": R_RELU, "leaky_relu": R_LEAKY, "sign": R_SIGN, "floor": R_ROUND,
    "ceil": R_ROUND, "round": R_ROUND, "rem": R_FMOD, "eq": R_COMPARE, "ne": R_COMPARE,
    "lt": R_COMPARE, "le": R_COMPARE, "logical_not": R_LOGICAL_NOT, "gather": R_GATHER,
    "scatter": R_SCATTER, "select": R_SELECT,
}  # fmt: skip


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """One row: the classes (fnmatch patterns) of the operations (None: every one) on the
    plan path (``int32``, ``float``; None: either) whose authority is *authority*
    (an :class:`Authority`, or a function of the operation giving one)."""

    classes: tuple[str, ...]
    operations: frozenset[str] | None
    path: str | None
    authority: Any

    def matches(self, cls: str, operation: str, path: str | None) -> bool:
        if self.operations is not None and operation not in self.operations:
            return False
        if self.path is not None and path != self.path:
            return False
        return any(fnmatch.fnmatchcase(cls, pattern) for pattern in self.classes)

    def resolve(self, operation: str) -> Authority:
        return self.authority(operation) if callable(self.authority) else self.authority


_ACCURACY = ("wrong-value:accuracy", "wrong-value:1-ulp", "wrong-value:many-ulps",
             "wrong-value:subnormal", "wrong-value:zero", "wrong-value:overflow")  # fmt: skip
_SPECIAL = ("wrong-value:nan", "wrong-value:spurious-nan", "wrong-value:infinity",
            "wrong-value:exact-point",
            "wrong-value:signed-zero", "wrong-value:sign", "wrong-value:integer",
            "wrong-value:bool", "wrong-value:outside-interval")  # fmt: skip
#: error classes whose raising at all the reference states (their type: a convention);
#: conv_general's rules by what they check (conformance.findings.conv_rules) rest where
#: their one class error-shape-mismatch rested
_REFERENCE_ERRORS = {
    "error-shape-mismatch": R_SHAPES, "error-bad-axis": R_AXES, "error-empty-extremum": R_EMPTY,
    "error-index-negative": R_INDEX, "error-index-too-large": R_INDEX,
    "error-scatter-duplicate": R_DUPLICATES,
    **dict.fromkeys(CONV_RULES, R_SHAPES),
}  # fmt: skip
_FEATURE_RULES: dict[str, Authority] = {
    "broadcasting": R_SHAPES, "negative-axis": R_AXES, "axis-tuple": R_AXES, "keepdims": R_AXES,
    "zero-size": R_EMPTY, "signalling-nan": R_NAN_BITS, "sort-descending": R_ORDER,
    "topk-smallest": R_ORDER,
}  # fmt: skip

#: the table, first match first (tests/test_authority_table.py: every class the judge
#: produces has a row)
RULES: tuple[Rule, ...] = (
    # -- the specification's exceptions ------------------------------------------------
    Rule(("missing-exception:int32-result-overflow", "wrong-exception:int32-result-overflow"),
         None, None, S_CHECKED),
    Rule(("missing-exception:OverflowError", "wrong-exception:OverflowError"),
         None, None, S_WEAK_OVERFLOW),
    Rule(("missing-exception:TypeError", "wrong-exception:TypeError",
          "missing-exception:NotImplementedError", "wrong-exception:NotImplementedError"),
         None, None, S_PLANNING),
    # -- the reference's errors (raising at all); their types are conventions ------------
    *(Rule((f"missing-exception:{b}",), None, None, a) for b, a in _REFERENCE_ERRORS.items()),
    Rule(("missing-exception:error-bad-parameter",), None, None, C_PARAMETERS),
    Rule(("missing-exception:*",), None, None, C_EXCEPTION_TYPES),
    Rule(("wrong-exception:*",), None, None, C_EXCEPTION_TYPES),
    Rule(("allocation-before-error",), None, None, C_ALLOCATION),
    Rule(("conv-negative-padding",), None, None, C_NEGATIVE_PADDING),  # conv_general's only
    # -- results of the wrong form -------------------------------------------------------
    Rule(("wrong-value:dtype",), None, None, S_OUTPUT),
    Rule(("wrong-value:shape", "wrong-value:shape-or-dtype"), None, None, R_GENERAL),
    Rule(("wrong-value:type",), None, None, C_HARNESS),
    # -- values --------------------------------------------------------------------------
    Rule(("wrong-value:nan-bits",), None, None, R_NAN_BITS),
    Rule(("wrong-value:*",), None, "int32", lambda op: S_INT32_EXACT if op == "relu"
         else S_EXACT_INTEGER if op in FLOATING else S_CHECKED),
    Rule(("wrong-value:*",), ORDER, None, R_ORDER),
    Rule(("wrong-value:*",), EXTREMA, None, S_EXTREMA),
    Rule(("wrong-value:*",), FLOATING, None, S_FLOATING),
    Rule(("wrong-value:signed-zero",), SEQUENTIAL, None, R_SEQUENTIAL_ZERO),
    Rule(("wrong-value:*",), SEQUENTIAL, None, S_SEQUENTIAL),
    Rule(_ACCURACY, CORRECTLY_ROUNDED, None, _correctly_rounded_function),
    Rule(_SPECIAL, CORRECTLY_ROUNDED, None, _special_values),
    Rule(("wrong-value:*",), BASIC, None, S_BINARY32),
    Rule(("wrong-value:*",), frozenset(_EXACT_VALUE_RULES), None, _EXACT_VALUE_RULES.__getitem__),
    # -- calls that raised where a result was due ----------------------------------------
    *(Rule((f,), None, None, a) for f, a in _FEATURE_RULES.items()),
    Rule(("raises-*", *FEATURES), None, None, R_GENERAL),
)  # fmt: skip

#: the hygiene classes and what they rest on (matched before :data:`RULES`)
_HYGIENE: tuple[Rule, ...] = (
    Rule(("warning:*",), None, None, R_WARNINGS),
    Rule(("input-modified", "result-*"), None, None, C_FUNCTIONAL),
    Rule(("fp-environment:*", "numpy-state:*"), None, None, C_ENVIRONMENT),
    Rule(("hang", "crash"), None, None, C_HARNESS),
)


def authority_of(cls: str, operation: str, plan: Any = None) -> Authority:
    """The authority of class *cls* (as reports spell it) of *operation* on *plan* (an
    OperationPlan, its description, or None when unknown).  LookupError when no row
    of :data:`RULES` covers it (a gap in the table, never the backend's fault)."""
    path = plan_path(plan) if plan is not None else None
    for rule in (*_HYGIENE, *RULES):
        if rule.matches(cls, operation, path):
            return rule.resolve(operation)
    raise LookupError(f"no authority for class {cls!r} of {operation!r}")


# ---------------------------------------------------------------------------
# One cause, one class
# ---------------------------------------------------------------------------

#: a folded class -> the earlier spellings it holds (a known-deviations entry spelt
#: either way covers it)
FOLDED: dict[str, tuple[str, ...]] = {
    "wrong-value:accuracy": ("wrong-value:1-ulp", "wrong-value:many-ulps",
                             "wrong-value:subnormal"),
    "wrong-exception:convention": ("wrong-exception:*",),
    "wrong-value:shape-or-dtype": ("wrong-value:shape", "wrong-value:dtype"),
    # conv_general's rules were all error-shape-mismatch before they were named
    "missing-exception:error-shape-mismatch": tuple(f"missing-exception:{r}" for r in CONV_RULES),
}  # fmt: skip


def reported_class(cls: str, operation: str, plan: Any = None) -> str:
    """The class *cls* is reported under: ``wrong-value:accuracy`` for a ``1-ulp``,
    ``many-ulps`` or ``subnormal`` element of a correctly rounded operation on its
    Float32 path, ``wrong-exception:convention`` for an exception of the wrong type
    where the type is plancheck's convention; *cls* itself otherwise."""
    if (
        cls in FOLDED["wrong-value:accuracy"]
        and operation in CORRECTLY_ROUNDED
        and plan_path(plan) != "int32"
    ):
        return "wrong-value:accuracy"
    if (
        cls.startswith("wrong-exception:")
        and cls != "wrong-exception:convention"
        and authority_of(cls, operation, plan).name == "convention"
    ):
        return "wrong-exception:convention"
    return cls


def authority_fields(cls: str, operation: str, plan: Any = None) -> dict[str, Any]:
    """What a class record carries about its authority: ``authority`` (the name) and
    ``clause`` (:meth:`Authority.as_dict`)."""
    found = authority_of(cls, operation, plan)
    return {"authority": found.name, "clause": found.as_dict()}


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool) or type(value).__name__ == "bool_"


def _axis_members(call: Any) -> list[Any]:
    try:
        axis = call.parameters.get("axis")
    except Exception:  # a call of no registered family: nothing to say
        return []
    return list(axis) if isinstance(axis, tuple) else [axis]


#: rules plancheck once judged that no source supports: a call that must raise only
#: because of one is not judged (name -> (why, the call breaks it))
UNSOURCED: dict[str, tuple[str, Any]] = {
    "bool-axis": (
        "a bool axis must raise: no source says so (an int names an axis, and a bool is an int)",
        lambda call: any(_is_bool(a) for a in _axis_members(call)),
    ),
    "list-axis": (
        "a list axis must raise TypeError: no source says so",
        lambda call: any(isinstance(a, list) for a in _axis_members(call)),
    ),
}


def negative_padding(call: Any) -> bool:
    """Whether *call* is a convolution with a negative padding bound: whatever it does
    differently rests on plancheck's convention ``negative-padding`` (the reference does
    not say what a negative padding means), one class ``conv-negative-padding``."""
    if getattr(call, "operation", None) != "conv_general":
        return False
    try:
        padding = call.parameters.get("padding")
        return any(bound < 0 for pair in padding for bound in pair)
    except Exception:  # a malformed padding (a validation rule's call): not a crop
        return False


def unsourced_rule(call: Any) -> str | None:
    """Why *call* is not judged when it must raise only by a rule no source supports
    (:data:`UNSOURCED`); None for every other call."""
    if not getattr(call, "raises", ()):
        return None
    for why, breaks in UNSOURCED.values():
        if breaks(call):
            return why
    return None


#: the classes that mean no result could be judged at all: a call that hung, killed its
#: process, or returned what the backend protocol cannot read.  They rest on the
#: convention ``harness``, yet they are no evidence of conformance to any authority, so
#: they fail the run whatever ``--judge`` names (:func:`fails_the_run`)
UNJUDGEABLE = ("hang", "crash", "wrong-value:type")


def fails_the_run(cls: str, authority: str | None, judged: Collection[str]) -> bool:
    """Whether a new class *cls* resting on *authority* fails a run judging the
    authorities *judged* (``--judge``): when its authority is judged, and always for
    a class of :data:`UNJUDGEABLE` (no result could be judged: not a difference)."""
    return cls in UNJUDGEABLE or authority in judged


def parse_authorities(values: Iterable[str], option: str = "--judge") -> frozenset[str]:
    """The authorities named by *values* (each a name or a comma list; ``all`` for all
    three); ValueError naming *option* for an unknown name or an empty list."""
    found: set[str] = set()
    for value in values:
        for name in str(value).replace(" ", ",").split(","):
            name = name.strip().lower()
            if not name:
                continue
            if name == "all":
                found.update(AUTHORITIES)
                continue
            if name not in AUTHORITIES:
                raise ValueError(
                    f"{option}: unknown authority {name!r}; expected a comma list of "
                    f"{', '.join(AUTHORITIES)} (or all)"
                )
            found.add(name)
    if not found:
        raise ValueError(f"{option}: expected a comma list of {', '.join(AUTHORITIES)}")
    return frozenset(found)
