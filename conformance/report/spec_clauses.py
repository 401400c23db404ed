"""The specification's words behind each deviation class, for the survey page.

Where two libraries disagree on an operation, the survey
(:mod:`conformance.report.survey`) says which one the specification supports
and quotes the clause that decides it.  :data:`CLAUSES` holds those clauses,
quoted word for word from the user's specification: the policy
(``operation-dtype-policy.txt``, cited by its requirement's heading) and the
reference value semantics it delegates the values to
(``reference-semantics.md``, cited by its section).  :func:`clause_for` picks
the clause of one class spelling (``wrong-value:signed-zero``,
``missing-exception:error-bad-axis``, ``zero-size`` ...); a class the table
does not know gets :data:`GENERAL`, the clause that makes the reference the
behaviour to meet.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CLAUSES", "GENERAL", "Clause", "clause_for"]

_POLICY = "operation-dtype-policy"
_VALUES = "reference-semantics"


@dataclass(frozen=True)
class Clause:
    """One quoted clause: *document* and *section* locate it, *text* is verbatim."""

    document: str
    section: str
    text: str

    def cite(self) -> str:
        """``"<text>" (<document>, <section>)``."""
        return f'"{self.text}" ({self.document}, {self.section})'


_BINARY32 = Clause(
    _POLICY,
    "Requirement: Arithmetic and accumulation values have exact semantics",
    "Arithmetic.BINARY32 SHALL mean IEEE-754 binary32, round-to-nearest-even, without wider "
    "intermediates, reassociation, or fused contraction.",
)
_CHECKED = Clause(
    _POLICY,
    "Requirement: Arithmetic and accumulation values have exact semantics",
    "INT32_EXACT_CHECKED SHALL mean exact integer arithmetic with an OverflowError when the "
    "exact result leaves Int32 range.",
)
_ORDERED = Clause(
    _POLICY,
    "Requirement: Arithmetic and accumulation values have exact semantics",
    "MAXIMUM and MINIMUM SHALL apply the reference Float32 NaN and signed-zero rules in logical "
    "order. ARGMAX and ARGMIN SHALL additionally retain the first winning logical ordinal.",
)
_FLOATING = Clause(
    _POLICY,
    "Requirement: Arithmetic and accumulation values have exact semantics",
    "Accumulation.FLOATING SHALL combine terms in the plan's separate floating "
    "accumulator_dtype, with association order chosen by the backend.",
)
_IEEE_VALUES = Clause(
    _POLICY,
    "Requirement: Generic is the concrete semantic reference",
    "IEEE singularities and overflow to infinity SHALL produce IEEE values rather than Python "
    "arithmetic exceptions.",
)
_WEAK = Clause(
    _POLICY,
    "Requirement: Weak scalars select branches without acquiring a dtype",
    "A weak scalar SHALL be a real Python number. [...] The same value MAY select a floating "
    "plan without that Int32 range failure.",
)
_SUBNORMALS = Clause(
    _VALUES,
    "Values and conversions",
    "Every computed binary32 result is rounded once, to nearest, ties to even, with subnormals "
    "(no flush-to-zero), overflow to ±inf.",
)
_CORRECTLY_ROUNDED = Clause(
    _VALUES,
    "Conformance classes",
    "correctly rounded — the reference is the exact mathematical function of the exact "
    "binary32 inputs, rounded once",
)
_SIGNED_ZERO = Clause(
    _VALUES, "Values and conversions", "Signed zero is always significant: +0 and -0 are "
    "different results."
)  # fmt: skip
_NAN_BITS = Clause(
    _VALUES,
    "Values and conversions",
    "NaN: a result that must be NaN may be any NaN (payload and sign unspecified), except for "
    "bit-copy operations, which preserve the input bits exactly",
)
_SHAPE_ERRORS = Clause(
    _VALUES,
    "Structured operations",
    "Binary elementwise operations, predicates, select and clamp broadcast like numpy; other "
    "shape mismatches raise ValueError naming the shapes.",
)
_AXIS_ERRORS = Clause(
    _VALUES,
    "Structured operations",
    "axis None reduces everything; an int or tuple names axes (negative allowed, duplicates "
    "are an error).",
)
_EMPTY_EXTREMUM = Clause(
    _VALUES,
    "Structured operations",
    "Empty sum = +0, empty product = 1; empty max/min/argmax/argmin raise ValueError.",
)
_PARAMETERS = Clause(
    _VALUES,
    "Structured operations",
    "Structured operations (non-dtype parameters are ordinary arguments, never weak scalars)",
)
_INDEX_ERRORS = Clause(
    _VALUES,
    "Structured operations",
    "Indices must lie in [0, n): anything else raises IndexError. [...] indices must be "
    "distinct (ValueError otherwise)",
)
_ORDER = Clause(
    _VALUES,
    "Structured operations",
    "stable; NaNs form one class placed last ascending and first descending (so NaNs win topk "
    "largest); -0 and +0 compare equal (stable order decides); topk returns the first k of "
    "that order.",
)
_AXES = Clause(
    _VALUES,
    "Structured operations",
    "reduce_sum/reduce_prod/reduce_max/reduce_min(x, axis=None, keepdims=False): axis None "
    "reduces everything; an int or tuple names axes",
)
_BROADCAST = Clause(
    _VALUES,
    "Structured operations",
    "Binary elementwise operations, predicates, select and clamp broadcast like numpy",
)

#: what the reference is, for a class with no clause of its own
GENERAL = Clause(
    _POLICY,
    "Requirement: Generic is the concrete semantic reference",
    "For concrete Float32, Int32, and Bool plans, Generic SHALL execute the resolved plan as "
    "the behavioral reference.",
)

#: class spelling, or its part before the colon, or its part after it -> the clause
CLAUSES: dict[str, Clause] = {
    "missing-exception:int32-result-overflow": _CHECKED,
    "wrong-exception:int32-result-overflow": _CHECKED,
    "wrong-value:1-ulp": _CORRECTLY_ROUNDED,
    "wrong-value:many-ulps": _CORRECTLY_ROUNDED,
    "wrong-value:subnormal": _SUBNORMALS,
    "wrong-value:zero": _SUBNORMALS,
    "wrong-value:overflow": _SUBNORMALS,
    "wrong-value:infinity": _SUBNORMALS,
    "wrong-value:sign": _BINARY32,
    "wrong-value:nan": _BINARY32,
    "wrong-value:spurious-nan": _BINARY32,
    "wrong-value:outside-interval": _FLOATING,
    "wrong-value:signed-zero": _SIGNED_ZERO,
    "wrong-value:nan-bits": _NAN_BITS,
    "wrong-value:integer": _ORDERED,
    "wrong-value:bool": _BINARY32,
    "wrong-value:shape-or-dtype": _AXES,
    "missing-exception:error-index-negative": _INDEX_ERRORS,
    "missing-exception:error-index-too-large": _INDEX_ERRORS,
    "missing-exception:error-scatter-duplicate": _INDEX_ERRORS,
    "wrong-exception:error-index-negative": _INDEX_ERRORS,
    "wrong-exception:error-index-too-large": _INDEX_ERRORS,
    "error-shape-mismatch": _SHAPE_ERRORS,
    "error-bad-axis": _AXIS_ERRORS,
    "error-empty-extremum": _EMPTY_EXTREMUM,
    "error-bad-parameter": _PARAMETERS,
    "missing-exception": _SHAPE_ERRORS,
    "wrong-exception": _SHAPE_ERRORS,
    "warning": _IEEE_VALUES,
    "weak-scalar": _WEAK,
    "broadcasting": _BROADCAST,
    "sort": _ORDER,
}

#: the correctly rounded operations (reference-semantics, "Conformance classes" 2); a
#: wrong value of any other Float32 operation is a binary32 arithmetic fault
_CORRECTLY_ROUNDED_OPERATIONS = frozenset(
    "exp exp2 log log2 sin cos tanh erf sigmoid silu softplus gelu elu rsqrt pow".split()
)
_ULP_CLASSES = frozenset({"wrong-value:1-ulp", "wrong-value:many-ulps"})

#: operations whose wrong integers are positions in a stable order (not arg reductions)
_ORDER_OPERATIONS = frozenset({"_sort_indices", "_topk_indices", "_sort_values", "_topk_values"})


def clause_for(cls: str, operation: str = "") -> Clause:
    """The clause that decides class *cls* of *operation* (:data:`GENERAL` when none is
    listed): the exact spelling first, then its element or error class
    (``error-bad-axis``), then its kind (``missing-exception``).  A wrong value of an
    operation outside the correctly rounded list is the binary32 arithmetic clause; wrong
    positions or values of sort and topk are the stable-order rule."""
    if operation in _ORDER_OPERATIONS and cls.startswith("wrong-value:"):
        return CLAUSES["sort"]
    if cls in _ULP_CLASSES and operation and operation not in _CORRECTLY_ROUNDED_OPERATIONS:
        return _BINARY32
    if cls in CLAUSES:
        return CLAUSES[cls]
    head, _, tail = cls.partition(":")
    return CLAUSES.get(tail) or CLAUSES.get(head) or GENERAL
