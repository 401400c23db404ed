"""The registry of built-in operations, as a table.

Each row of :data:`_TABLE` is one operation: its name, its overloads (a role
signature such as ``"TW"`` -- tensor then weak scalar -- with the optional
dtype domain of each tensor role), its promotion rule, its dtype-operand
positions among the forward arguments and whether it is public.  The value
semantics behind each name live in ``docs/semantics.md`` and the oracle; this
module fixes only the dtype plan.
"""

from __future__ import annotations

from collections.abc import Sequence

from .dtypes import DType
from .plan import Accumulation as Acc
from .plan import Arithmetic as Ar
from .plan import OperandRole
from .registry import OperationOverload, OperationSpec
from .rules import Branch, PromotionRule, WeakIntegers

__all__ = ["BUILTIN_OPERATIONS"]

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


def ordered(accumulation: Acc, output: DType = F32, kept: tuple[int, ...] = ()) -> PromotionRule:
    """A Float32 rule whose terms combine by an ordered *accumulation*."""
    return PromotionRule(floating=Branch(Ar.BINARY32, output, accumulation), kept_positions=kept)


def copying(kept: tuple[int, ...]) -> PromotionRule:
    """A Float32 rule with no accumulation whose *kept* operands keep their dtype."""
    return PromotionRule(floating=_FLOAT32, kept_positions=kept)


_UNARY_FLOAT32 = "neg abs sign recip sqrt rsqrt exp2 log log2 sin cos erf floor ceil round".split()
_ACTIVATIONS = "elu exp gelu leaky_relu sigmoid silu softplus tanh".split()

# Overloads: (roles, tensor domains or None).  A domain letter list such as
# (F32,) per tensor role restricts that position; None leaves the default.
_ANY = None
_ONLY_F32_1 = ((F32,),)
_ONLY_F32_2 = ((F32,), (F32,))

# A row's rule is one PromotionRule for all its overloads, or a mapping from
# each overload's role letters to its rule.
_Rules = PromotionRule | dict[str, PromotionRule]
_Row = tuple[str, Sequence[tuple[str, object]], _Rules, object, bool]

_TABLE: list[_Row] = [
    # name, overloads, rule(s), dtype_operand_positions, public
    ("add", [("TT", _ANY)], NUMERIC, None, True),
    ("sub", [("TT", _ANY)], NUMERIC, None, True),
    ("elementwise_mul", [("TT", _ANY)], NUMERIC, None, True),
    ("mul", [("TT", _ANY), ("TW", _ANY)], NUMERIC, None, True),
    ("div", [("TT", _ANY)], TO_FLOAT32, None, True),
    # Only tensor ** weak integer exponent may stay Int32; the other two are Float32.
    ("pow", [("TT", _ANY), ("TW", _ANY), ("WT", _ANY)], POW_RULES, None, True),
    ("maximum", [("TT", _ONLY_F32_2)], TO_FLOAT32, None, True),
    ("minimum", [("TT", _ONLY_F32_2)], TO_FLOAT32, None, True),
    ("rem", [("TT", _ONLY_F32_2)], TO_FLOAT32, None, True),
    ("eq", [("TT", _ONLY_F32_2)], PREDICATE, None, True),
    ("ne", [("TT", _ONLY_F32_2)], PREDICATE, None, True),
    ("lt", [("TT", _ONLY_F32_2)], PREDICATE, None, True),
    ("le", [("TT", _ONLY_F32_2)], PREDICATE, None, True),
    ("logical_not", [("T", _ONLY_F32_1)], PREDICATE, None, True),
    ("relu", [("T", _ANY)], PRESERVE, None, True),
    *[(name, [("T", _ANY)], TO_FLOAT32, None, True) for name in _ACTIVATIONS],
    *[(name, [("T", _ONLY_F32_1)], TO_FLOAT32, None, True) for name in _UNARY_FLOAT32],
    ("reduce_sum", [("T", _ANY)], FLOATING_SUM, (0,), True),
    ("reduce_prod", [("T", _ONLY_F32_1)], ordered(Acc.SEQUENTIAL_BINARY32_PRODUCT), (0,), True),
    ("reduce_max", [("T", _ONLY_F32_1)], ordered(Acc.MAXIMUM), (0,), True),
    ("reduce_min", [("T", _ONLY_F32_1)], ordered(Acc.MINIMUM), (0,), True),
    ("argmax", [("T", _ONLY_F32_1)], ordered(Acc.ARGMAX, I32), (0,), True),
    ("argmin", [("T", _ONLY_F32_1)], ordered(Acc.ARGMIN, I32), (0,), True),
    ("cumsum", [("T", _ONLY_F32_1)], ordered(Acc.SEQUENTIAL_BINARY32), (0,), True),
    ("matmul", [("TT", _ANY)], FLOATING_SUM, None, True),
    ("conv_general", [("TT", _ONLY_F32_2)], ordered(Acc.SEQUENTIAL_BINARY32), (0, 1), True),
    ("gather", [("TT", ((F32,), (I32,)))], copying(kept=(1,)), (0, 1), True),
    ("scatter", [("TTT", ((F32,), (I32,), (F32,)))], copying(kept=(1,)), (0, 1, 2), True),
    (
        "scatter_add",
        [("TTT", ((F32,), (I32,), (F32,)))],
        ordered(Acc.SEQUENTIAL_BINARY32, kept=(1,)),
        (0, 1, 2),
        True,
    ),
    ("select", [("TTT", ((BOOL,), (F32,), (F32,)))], copying(kept=(0,)), None, True),
    (
        "clamp",
        [
            ("TTT", ((F32,), (F32,), (F32,))),
            ("TTW", ((F32,), (F32,))),
            ("TWT", ((F32,), (F32,))),
            ("TWW", ((F32,),)),
        ],
        TO_FLOAT32,
        None,
        True,
    ),
    ("_sort_values", [("T", _ONLY_F32_1)], TO_FLOAT32, (0,), False),
    ("_sort_indices", [("T", _ONLY_F32_1)], PromotionRule(Branch(Ar.BINARY32, I32)), (0,), False),
    ("_topk_values", [("T", _ONLY_F32_1)], TO_FLOAT32, (0,), False),
    ("_topk_indices", [("T", _ONLY_F32_1)], PromotionRule(Branch(Ar.BINARY32, I32)), (0,), False),
]

_ROLE_LETTERS = {"T": OperandRole.TENSOR, "W": OperandRole.WEAK_SCALAR}


def _build(row: _Row) -> OperationSpec:
    name, overloads, rules, positions, public = row
    return OperationSpec(
        name=name,
        overloads=tuple(
            OperationOverload(
                roles=tuple(_ROLE_LETTERS[letter] for letter in letters),
                rule=rules[letters] if isinstance(rules, dict) else rules,
                tensor_domains=domains,  # type: ignore[arg-type]
            )
            for letters, domains in overloads
        ),
        public=public,
        dtype_operand_positions=positions,  # type: ignore[arg-type]
    )


#: Every built-in operation, in operation-name order.
BUILTIN_OPERATIONS: tuple[OperationSpec, ...] = tuple(
    sorted((_build(row) for row in _TABLE), key=lambda spec: spec.name)
)
