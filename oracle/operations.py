"""The registry of built-in operations, as a table.

Each row of :data:`_TABLE` is one operation: its name, its overloads (a role
signature such as ``"TW"`` -- tensor then weak scalar -- with the optional
dtype domain of each tensor role), its promotion rule, its dtype-operand
positions among the forward arguments and whether it is public -- the dtype
plan, :data:`BUILTIN_OPERATIONS` -- and its value facts
(:class:`~oracle.facts.OperationFacts`: call family and with it the non-dtype
parameters, conformance class, NaN bit copy, configurable accumulator, the
semantics sentence), :data:`BUILTIN_FACTS`.  Every per-operation list of the
oracle is derived from these two; the value rules themselves live in
``oracle.reference`` under the operation's name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .dtypes import DType, SimpleDType
from .facts import Conformance, Family, OperationFacts
from .plan import Accumulation as Acc
from .plan import Arithmetic as Ar
from .plan import OperandRole
from .registry import OperationOverload, OperationSpec
from .rules import Branch, PromotionRule, WeakIntegers

__all__ = ["BUILTIN_FACTS", "BUILTIN_OPERATIONS"]

F32 = DType.Float32
I32 = DType.Int32
BOOL = DType.Bool

_FLOAT32 = Branch(Ar.BINARY32, F32)
_INT32_CHECKED = Branch(Ar.INT32_EXACT_CHECKED, I32)

NUMERIC = PromotionRule(floating=_FLOAT32, integer=_INT32_CHECKED)
TO_FLOAT32 = PromotionRule(floating=_FLOAT32)
PREDICATE = PromotionRule(floating=Branch(Ar.BINARY32, BOOL))
PRESERVE = PromotionRule(floating=_FLOAT32, integer=Branch(Ar.INT32_EXACT, I32))
INTEGER_EXPONENT = PromotionRule(
    floating=_FLOAT32, integer=_INT32_CHECKED, weak_integers=WeakIntegers.EXPONENT
)
FLOATING_SUM = PromotionRule(
    floating=Branch(Ar.BINARY32, F32, Acc.FLOATING),
    integer=Branch(Ar.INT32_EXACT_CHECKED, I32, Acc.EXACT_INTEGER),
)

POW_RULES = {"TT": TO_FLOAT32, "TW": INTEGER_EXPONENT, "WT": TO_FLOAT32}


def ordered(
    accumulation: Acc, output: SimpleDType = F32, kept: tuple[int, ...] = ()
) -> PromotionRule:
    """A Float32 rule whose terms combine by an ordered *accumulation*."""
    return PromotionRule(floating=Branch(Ar.BINARY32, output, accumulation), kept_positions=kept)


def copying(kept: tuple[int, ...]) -> PromotionRule:
    """A Float32 rule with no accumulation whose *kept* operands keep their dtype."""
    return PromotionRule(floating=_FLOAT32, kept_positions=kept)


# Overloads: (roles, tensor domains or None).  A domain letter list such as
# (F32,) per tensor role restricts that position; None leaves the default.
_ANY = None
_ONLY_F32_1 = ((F32,),)
_ONLY_F32_2 = ((F32,), (F32,))

EXACT = Conformance.EXACT
ROUNDED = Conformance.CORRECTLY_ROUNDED
BOUNDED = Conformance.BOUNDED

_IEEE = (
    "IEEE correctly rounded: one rounding to nearest, ties to even, subnormals kept "
    "(no flush-to-zero), overflow to +-inf"
)
_FUNCTION = "correctly rounded: the exact function of the exact binary32 input, rounded once"
_ORDERS = "stable; NaNs last ascending and first descending; -0 and +0 compare equal"


@dataclass(frozen=True)
class _Row:
    """One operation of the table: its dtype plan and its value facts."""

    name: str
    overloads: Sequence[tuple[str, object]]
    rule: PromotionRule | dict[str, PromotionRule]  # one rule, or one per role letters
    family: Family
    conformance: Conformance
    semantics: str
    positions: tuple[int, ...] | None = None  # dtype_operand_positions
    public: bool = True
    nan_bit_copy: bool = False
    accumulator_configurable: bool = False


def _unary(
    name: str, conformance: Conformance, semantics: str, *, nan_bit_copy: bool = False
) -> _Row:
    """A Float32-only unary elementwise operation."""
    return _Row(
        name, [("T", _ONLY_F32_1)], TO_FLOAT32, Family.ELEMENTWISE, conformance, semantics,
        nan_bit_copy=nan_bit_copy,
    )  # fmt: skip


def _activation(name: str, conformance: Conformance, semantics: str) -> _Row:
    """A unary activation that also takes Int32 (converted to Float32)."""
    return _Row(name, [("T", _ANY)], TO_FLOAT32, Family.ELEMENTWISE, conformance, semantics)


def _predicate(name: str, overload: str, semantics: str) -> _Row:
    domains = _ONLY_F32_1 if overload == "T" else _ONLY_F32_2
    return _Row(name, [(overload, domains)], PREDICATE, Family.ELEMENTWISE, EXACT, semantics)


_ELEMENTWISE = Family.ELEMENTWISE
_EXTREME = (
    "the first NaN wins (bits kept); otherwise the extreme with -0 < +0; empty raises ValueError"
)
_ARG = "the first NaN wins, otherwise the first index of the extreme; -0 and +0 tie"
_AXIS_SCATTER = (0, 1, 2)
_SCATTER_DOMAINS = ((F32,), (I32,), (F32,))

_TABLE: list[_Row] = [
    _Row("add", [("TT", _ANY)], NUMERIC, _ELEMENTWISE, EXACT, _IEEE),
    _Row("sub", [("TT", _ANY)], NUMERIC, _ELEMENTWISE, EXACT, _IEEE),
    _Row("elementwise_mul", [("TT", _ANY)], NUMERIC, _ELEMENTWISE, EXACT, _IEEE),
    _Row("mul", [("TT", _ANY), ("TW", _ANY)], NUMERIC, _ELEMENTWISE, EXACT, _IEEE),
    _Row("div", [("TT", _ANY)], TO_FLOAT32, _ELEMENTWISE, EXACT, _IEEE),
    # Only tensor ** weak integer exponent may stay Int32; the other two are Float32.
    _Row(
        "pow",
        [("TT", _ANY), ("TW", _ANY), ("WT", _ANY)],
        POW_RULES,
        _ELEMENTWISE,
        ROUNDED,
        "C99/IEEE pow special cases, otherwise correctly rounded; Int32 pow exact and checked",
    ),
    _Row(
        "maximum",
        [("TT", _ONLY_F32_2)],
        TO_FLOAT32,
        _ELEMENTWISE,
        EXACT,
        "IEEE 754-2019 maximum: NaN if either operand is NaN, and -0 < +0 in either order",
    ),
    _Row(
        "minimum",
        [("TT", _ONLY_F32_2)],
        TO_FLOAT32,
        _ELEMENTWISE,
        EXACT,
        "IEEE 754-2019 minimum: NaN if either operand is NaN, and -0 < +0 in either order",
    ),
    _Row(
        "rem",
        [("TT", _ONLY_F32_2)],
        TO_FLOAT32,
        _ELEMENTWISE,
        EXACT,
        "C fmod: exact, the sign of the dividend; fmod(x, +-0) = NaN, fmod(+-inf, y) = NaN, "
        "fmod(x, +-inf) = x, fmod(-6, 3) = -0",
    ),
    *[
        _predicate(name, "TT", "IEEE comparisons: NaN unordered, -0 == +0")
        for name in ("eq", "ne", "lt", "le")
    ],
    # The unary operations, correctly rounded first, in the order the exhaustive
    # sweep and its reports list them (vectorised.ROUNDED_OPS, then EXACT_OPS).
    _activation("exp", ROUNDED, _FUNCTION),
    *[_unary(name, ROUNDED, _FUNCTION) for name in ("exp2", "log", "log2", "sin", "cos")],
    _activation("tanh", ROUNDED, _FUNCTION),
    _unary("erf", ROUNDED, _FUNCTION),
    _unary(
        "rsqrt",
        ROUNDED,
        "1/sqrt(x) rounded once; rsqrt(+0) = +inf, rsqrt(-0) = -inf, negative -> NaN",
    ),
    _activation(
        "sigmoid", ROUNDED, "1 / (1 + e^-x) correctly rounded as one function; sigmoid(-inf) = +0"
    ),
    _activation(
        "silu", ROUNDED, "x * sigmoid(x) correctly rounded as one function; silu(-inf) = -0"
    ),
    _activation(
        "softplus", ROUNDED, "log(1 + e^x), no threshold, correctly rounded; softplus(-inf) = +0"
    ),
    _activation(
        "gelu",
        ROUNDED,
        "x/2 * (1 + erf(x / sqrt 2)) (the erf form, not the tanh approximation), correctly "
        "rounded as one function; gelu(-inf) = -0",
    ),
    _activation("elu", ROUNDED, "x if x > 0 else expm1(x), correctly rounded; elu(-0) = -0"),
    _unary("neg", EXACT, "bit copy: the sign bit flipped (NaN bits kept)", nan_bit_copy=True),
    _unary("abs", EXACT, "bit copy: the sign bit cleared (NaN bits kept)", nan_bit_copy=True),
    _unary("sign", EXACT, "+1 or -1, +0 for both zeros, NaN for NaN"),
    _unary("recip", EXACT, _IEEE),
    _unary("sqrt", EXACT, _IEEE),
    _unary("floor", EXACT, "keeps signed zeros (floor(0.5) = +0)"),
    _unary("ceil", EXACT, "keeps signed zeros (ceil(-0.5) = -0)"),
    _unary("round", EXACT, "half to even (2.5 -> 2, -0.5 -> -0)"),
    _Row(
        "relu",
        [("T", _ANY)],
        PRESERVE,
        _ELEMENTWISE,
        EXACT,
        "maximum(x, +0): relu(NaN) = NaN, relu(-0) = +0; Int32 relu is exact",
    ),
    _activation(
        "leaky_relu",
        EXACT,
        "x if x >= 0 else round(0.01f * x), slope bits 0x3C23D70A; leaky_relu(-0) = -0",
    ),
    _predicate("logical_not", "T", "x == 0 (+-0 -> True, NaN -> False)"),
    _Row(
        "reduce_sum",
        [("T", _ANY)],
        FLOATING_SUM,
        Family.REDUCE,
        BOUNDED,
        "sequential sums start at +0 in ascending logical order; FLOATING accepts every "
        "result some order in the accumulator dtype could give; Int32: exact, only the final "
        "sum checked",
        positions=(0,),
        accumulator_configurable=True,
    ),
    _Row(
        "reduce_prod",
        [("T", _ONLY_F32_1)],
        ordered(Acc.SEQUENTIAL_BINARY32_PRODUCT),
        Family.REDUCE,
        EXACT,
        "products start at 1, ascending logical order, each step rounded",
        positions=(0,),
    ),
    _Row(
        "reduce_max",
        [("T", _ONLY_F32_1)],
        ordered(Acc.MAXIMUM),
        Family.REDUCE,
        EXACT,
        _EXTREME,
        positions=(0,),
        nan_bit_copy=True,
    ),
    _Row(
        "reduce_min",
        [("T", _ONLY_F32_1)],
        ordered(Acc.MINIMUM),
        Family.REDUCE,
        EXACT,
        _EXTREME,
        positions=(0,),
        nan_bit_copy=True,
    ),
    _Row(
        "argmax",
        [("T", _ONLY_F32_1)],
        ordered(Acc.ARGMAX, I32),
        Family.ARG,
        EXACT,
        _ARG,
        positions=(0,),
    ),
    _Row(
        "argmin",
        [("T", _ONLY_F32_1)],
        ordered(Acc.ARGMIN, I32),
        Family.ARG,
        EXACT,
        _ARG,
        positions=(0,),
    ),
    _Row(
        "cumsum",
        [("T", _ONLY_F32_1)],
        ordered(Acc.SEQUENTIAL_BINARY32),
        Family.SCAN,
        EXACT,
        "inclusive prefix sums from +0, each prefix rounded",
        positions=(0,),
    ),
    _Row(
        "matmul",
        [("TT", _ANY)],
        FLOATING_SUM,
        Family.MATMUL,
        BOUNDED,
        "each product rounded to binary32 first (no fused multiply-add), accumulated per the "
        "plan, one final rounding; Int32: exact, only the final value checked",
        accumulator_configurable=True,
    ),
    _Row(
        "conv_general",
        [("TT", _ONLY_F32_2)],
        ordered(Acc.SEQUENTIAL_BINARY32),
        Family.CONV,
        EXACT,
        "cross-correlation; terms round(x * w) added from +0, window positions outer, input "
        "channels inner; padding contributes round(0 * w)",
        positions=(0, 1),
    ),
    _Row(
        "gather",
        [("TT", ((F32,), (I32,)))],
        copying(kept=(1,)),
        Family.GATHER,
        EXACT,
        "numpy.take; indices in [0, n) else IndexError; values copied bit-exactly",
        positions=(0, 1),
        nan_bit_copy=True,
    ),
    _Row(
        "scatter",
        [("TTT", _SCATTER_DOMAINS)],
        copying(kept=(1,)),
        Family.SCATTER,
        EXACT,
        "distinct indices (ValueError otherwise); bits copied",
        positions=_AXIS_SCATTER,
        nan_bit_copy=True,
    ),
    _Row(
        "scatter_add",
        [("TTT", _SCATTER_DOMAINS)],
        ordered(Acc.SEQUENTIAL_BINARY32, kept=(1,)),
        Family.SCATTER_ADD,
        EXACT,
        "from a copy of base, each update added in ascending logical order of updates, "
        "rounding after every addition",
        positions=_AXIS_SCATTER,
    ),
    _Row(
        "select",
        [("TTT", ((BOOL,), (F32,), (F32,)))],
        copying(kept=(0,)),
        _ELEMENTWISE,
        EXACT,
        "numpy broadcasting; the chosen operand's bits are copied",
        nan_bit_copy=True,
    ),
    _Row(
        "clamp",
        [
            ("TTT", ((F32,), (F32,), (F32,))),
            ("TTW", ((F32,), (F32,))),
            ("TWT", ((F32,), (F32,))),
            ("TWW", ((F32,),)),
        ],
        TO_FLOAT32,
        _ELEMENTWISE,
        EXACT,
        "minimum(maximum(x, lo), hi) with the IEEE 754-2019 rules; lo > hi gives hi",
    ),
    _Row(
        "_sort_values",
        [("T", _ONLY_F32_1)],
        TO_FLOAT32,
        Family.SORT,
        EXACT,
        _ORDERS,
        positions=(0,),
        public=False,
        nan_bit_copy=True,
    ),
    _Row(
        "_sort_indices",
        [("T", _ONLY_F32_1)],
        PromotionRule(Branch(Ar.BINARY32, I32)),
        Family.SORT,
        EXACT,
        _ORDERS,
        positions=(0,),
        public=False,
    ),
    _Row(
        "_topk_values",
        [("T", _ONLY_F32_1)],
        TO_FLOAT32,
        Family.TOPK,
        EXACT,
        _ORDERS,
        positions=(0,),
        public=False,
        nan_bit_copy=True,
    ),
    _Row(
        "_topk_indices",
        [("T", _ONLY_F32_1)],
        PromotionRule(Branch(Ar.BINARY32, I32)),
        Family.TOPK,
        EXACT,
        _ORDERS,
        positions=(0,),
        public=False,
    ),
]

_ROLE_LETTERS = {"T": OperandRole.TENSOR, "W": OperandRole.WEAK_SCALAR}


def _build(row: _Row) -> OperationSpec:
    rules = row.rule
    return OperationSpec(
        name=row.name,
        overloads=tuple(
            OperationOverload(
                roles=tuple(_ROLE_LETTERS[letter] for letter in letters),
                rule=rules[letters] if isinstance(rules, dict) else rules,
                tensor_domains=domains,  # type: ignore[arg-type]
            )
            for letters, domains in row.overloads
        ),
        public=row.public,
        dtype_operand_positions=row.positions,
    )


def _facts(row: _Row) -> OperationFacts:
    return OperationFacts(
        name=row.name,
        family=row.family,
        conformance=row.conformance,
        semantics=row.semantics,
        nan_bit_copy=row.nan_bit_copy,
        accumulator_configurable=row.accumulator_configurable,
    )


#: Every built-in operation, in operation-name order.
BUILTIN_OPERATIONS: tuple[OperationSpec, ...] = tuple(
    sorted((_build(row) for row in _TABLE), key=lambda spec: spec.name)
)
#: The value facts of every built-in operation, by name, in table order (the
#: order of the lists derived from it).
BUILTIN_FACTS: dict[str, OperationFacts] = {row.name: _facts(row) for row in _TABLE}
