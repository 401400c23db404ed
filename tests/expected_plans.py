"""The expected operation plans, written as data from the specification alone.

This table is the independent statement of the operation dtype policy
(``operation-dtype-policy`` specification, ``docs/decisions.md``) that the
planner is checked against.  It is *not* derived from the resolver code: every
row can be read against one specification sentence, quoted in the comment
above its group.

Row grammar (one row per line; ``#`` starts a comment)::

    OPERATIONS  OPERAND...  => CONVERT_TO... | COMPUTE | ACCUMULATION | ACC | OUTPUT
    OPERATIONS  OPERAND...  !! EXCEPTION@POSITION

* OPERATIONS is a comma-separated list of operation names sharing the row.
* Each OPERAND is a pattern for one positional policy operand:

  - a tensor operand: a comma-separated list of ``F32``, ``I32``, ``Bool``, or
    ``T`` for any of the three;
  - a weak scalar: ``w:`` followed by a comma-separated list of probe names or
    group names from :data:`WEAK_GROUPS` (``w:any`` is every probe).

* CONVERT_TO lists the ``convert_to`` dtype of each operand; COMPUTE is an
  ``Arithmetic`` member name, ACCUMULATION an ``Accumulation`` member name or
  ``-`` for None; ACC is the accumulator dtype or ``-`` for None; OUTPUT the
  result dtype.  The source ``dtype`` of an operand plan is not a column: the
  specification fixes it (the tensor's own dtype, ``None`` for a weak scalar).
* ``!! TypeError@1`` means resolution raises TypeError and the message names
  operand 1 (0-based).  Error rows are written "first failing position
  first": the positions before the named one are valid.

Every combination of a registered overload with tensor operands drawn from
(Float32, Int32, Bool) and weak scalars drawn from :data:`WEAK_PROBES` must
match exactly one row of :data:`TABLE`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from oracle import DType

TENSORS = {"F32": DType.Float32, "I32": DType.Int32, "Bool": DType.Bool}
#: dtype names usable in the result columns (Float64 only as an accumulator)
RESULT_DTYPES = {**TENSORS, "F64": DType.Float64}

#: The weak-scalar probes, by the name the table uses.
WEAK_PROBES: dict[str, object] = {
    "2": 2,
    "0.5": 0.5,
    "True": True,
    "-1": -1,
    "0": 0,
    "2**31-1": 2**31 - 1,
    "2**31": 2**31,
    "-2**31": -(2**31),
    "-2**31-1": -(2**31) - 1,
    "1/3": Fraction(1, 3),
    "np.int32(3)": np.int32(3),
    "np.float32(1.5)": np.float32(1.5),
}

#: Groups of probes, by the branch the specification says they select.
WEAK_GROUPS: dict[str, tuple[str, ...]] = {
    # "Integral values other than bool SHALL select the integer kind", inside Int32
    "int": ("2", "-1", "0", "2**31-1", "-2**31", "np.int32(3)"),
    # pow: "a weak integer exponent in [0, 2**31 - 1]"
    "nat": ("2", "0", "2**31-1", "np.int32(3)"),
    # pow: "a negative integer"
    "neg": ("-1", "-2**31"),
    # "a value outside [-2**31, 2**31 - 1]"
    "bigint": ("2**31", "-2**31-1"),
    # "real non-integral values ... SHALL select the floating kind"
    "real": ("0.5", "1/3", "np.float32(1.5)"),
    # "and bool SHALL select the floating kind" (numpy.bool_ is not a real
    # number, hence no weak scalar at all: tests/test_planner_hostile.py)
    "bool": ("True",),
    "any": tuple(WEAK_PROBES),
}

TABLE = """
# ---------------------------------------------------------------------------
# Core promotion families.
# "For tensor/tensor add, sub, mul, and elementwise_mul, two Int32 operands SHALL
#  remain Int32 and use checked exact arithmetic; any Float32 operand SHALL convert
#  both operands to Float32 and produce Float32 binary32 output."
# "Bool SHALL not participate in numeric promotion." (outside the domain: TypeError)
add,sub,mul,elementwise_mul  I32 I32         => I32 I32 | INT32_EXACT_CHECKED | - | - | I32
add,sub,mul,elementwise_mul  F32 F32,I32     => F32 F32 | BINARY32            | - | - | F32
add,sub,mul,elementwise_mul  I32 F32         => F32 F32 | BINARY32            | - | - | F32
add,sub,mul,elementwise_mul  Bool T          !! TypeError@0
add,sub,mul,elementwise_mul  F32,I32 Bool    !! TypeError@1

# "Int32 tensor/weak-integer mul SHALL remain Int32; floating or bool scalars SHALL
#  select Float32."  "When an integer plan needs to represent the weak scalar as
#  Int32, a value outside [-2**31, 2**31 - 1] SHALL fail with OverflowError.  The
#  same value MAY select a floating plan without that Int32 range failure."
mul  I32 w:int              => I32 I32 | INT32_EXACT_CHECKED | - | - | I32
mul  I32 w:bigint           !! OverflowError@1
mul  I32 w:real,bool        => F32 F32 | BINARY32            | - | - | F32
mul  F32 w:any              => F32 F32 | BINARY32            | - | - | F32
mul  Bool w:any             !! TypeError@0

# "Division SHALL convert both operands to Float32 and output Float32 for every
#  Float32 or Int32 pair."
div  F32,I32 F32,I32        => F32 F32 | BINARY32 | - | - | F32
div  Bool T                 !! TypeError@0
div  F32,I32 Bool           !! TypeError@1

# "Tensor/tensor pow SHALL convert every pair to Float32 and output Float32."
pow  F32,I32 F32,I32        => F32 F32 | BINARY32 | - | - | F32
pow  Bool T                 !! TypeError@0
pow  F32,I32 Bool           !! TypeError@1

# "For tensor/weak-scalar pow, an Int32 base SHALL remain Int32 only for a weak
#  integer exponent in [0, 2**31 - 1]; a negative integer, larger integer,
#  floating scalar, or bool SHALL select Float32."  Scenario: "the plan retains
#  exact integer arithmetic and uses the original exponent without floating
#  conversion" (decisions.md: INT32_EXACT_CHECKED).
pow  I32 w:nat                    => I32 I32 | INT32_EXACT_CHECKED | - | - | I32
pow  I32 w:neg,bigint,real,bool   => F32 F32 | BINARY32            | - | - | F32
pow  F32 w:any                    => F32 F32 | BINARY32            | - | - | F32
pow  Bool w:any                   !! TypeError@0

# "Reverse weak-scalar/tensor pow SHALL output Float32."
pow  w:any F32,I32                => F32 F32 | BINARY32 | - | - | F32
pow  w:any Bool                   !! TypeError@1

# "The Float32-only unary and binary operations SHALL require Float32 and output
#  Float32."  (the issue's binary group: maximum, minimum, rem)
maximum,minimum,rem  F32 F32         => F32 F32 | BINARY32 | - | - | F32
maximum,minimum,rem  I32,Bool T      !! TypeError@0
maximum,minimum,rem  F32 I32,Bool    !! TypeError@1

# "Float32 comparisons and logical_not SHALL output Bool."  Bool is accepted only
# where an overload's domain requires it (decisions.md: only select's condition).
eq,ne,lt,le  F32 F32                 => F32 F32 | BINARY32 | - | - | Bool
eq,ne,lt,le  I32,Bool T              !! TypeError@0
eq,ne,lt,le  F32 I32,Bool            !! TypeError@1
logical_not  F32                     => F32     | BINARY32 | - | - | Bool
logical_not  I32,Bool                !! TypeError@0

# "relu SHALL preserve Float32 or Int32." (decisions.md: Int32 relu is INT32_EXACT)
relu  F32                            => F32 | BINARY32    | - | - | F32
relu  I32                            => I32 | INT32_EXACT | - | - | I32
relu  Bool                           !! TypeError@0

# "The other floating activations SHALL convert Int32 to Float32 and output Float32."
elu,exp,gelu,leaky_relu,sigmoid,silu,softplus,tanh  F32,I32  => F32 | BINARY32 | - | - | F32
elu,exp,gelu,leaky_relu,sigmoid,silu,softplus,tanh  Bool     !! TypeError@0

# "The Float32-only unary and binary operations SHALL require Float32 and output
#  Float32."  (the issue's unary group)
neg,abs,sign,recip,sqrt,rsqrt,exp2,log     F32       => F32 | BINARY32 | - | - | F32
log2,sin,cos,erf,floor,ceil,round          F32       => F32 | BINARY32 | - | - | F32
neg,abs,sign,recip,sqrt,rsqrt,exp2,log     I32,Bool  !! TypeError@0
log2,sin,cos,erf,floor,ceil,round          I32,Bool  !! TypeError@0

# ---------------------------------------------------------------------------
# Structured operation families.
# "Float32 reduce_sum SHALL use floating accumulation and output Float32; Int32
#  reduce_sum SHALL use exact-integer accumulation and output Int32."  The
#  default accumulator is Float32 (the Float64 choice "widens" it); decisions.md:
#  Int32 reduce_sum/matmul use INT32_EXACT_CHECKED compute, EXACT_INTEGER.
reduce_sum  F32                  => F32 | BINARY32            | FLOATING      | F32 | F32
reduce_sum  I32                  => I32 | INT32_EXACT_CHECKED | EXACT_INTEGER | -   | I32
reduce_sum  Bool                 !! TypeError@0

# "Float32 reduce_prod, extrema reductions, arg reductions, and cumsum SHALL use
#  their corresponding ordered accumulation.  Arg reductions SHALL output Int32;
#  the others SHALL output Float32."  (decisions.md: they accept Float32 only)
reduce_prod  F32                 => F32 | BINARY32 | SEQUENTIAL_BINARY32_PRODUCT | - | F32
reduce_max   F32                 => F32 | BINARY32 | MAXIMUM                     | - | F32
reduce_min   F32                 => F32 | BINARY32 | MINIMUM                     | - | F32
argmax       F32                 => F32 | BINARY32 | ARGMAX                      | - | I32
argmin       F32                 => F32 | BINARY32 | ARGMIN                      | - | I32
cumsum       F32                 => F32 | BINARY32 | SEQUENTIAL_BINARY32         | - | F32
reduce_prod,reduce_max,reduce_min,argmax,argmin,cumsum  I32,Bool  !! TypeError@0

# "Float32 matmul and mixed Float32/Int32 matmul SHALL convert terms to Float32,
#  use floating accumulation, and output Float32; Int32/Int32 matmul SHALL use
#  exact integer accumulation and output Int32."
matmul  F32 F32,I32              => F32 F32 | BINARY32            | FLOATING      | F32 | F32
matmul  I32 F32                  => F32 F32 | BINARY32            | FLOATING      | F32 | F32
matmul  I32 I32                  => I32 I32 | INT32_EXACT_CHECKED | EXACT_INTEGER | -   | I32
matmul  Bool T                   !! TypeError@0
matmul  F32,I32 Bool             !! TypeError@1

# "conv_general and scatter_add SHALL use sequential binary32 accumulation.
#  gather, scatter, Float32 conv_general ... SHALL output Float32."
#  (decisions.md: conv_general accepts Float32 only; index operands keep Int32)
conv_general  F32 F32            => F32 F32 | BINARY32 | SEQUENTIAL_BINARY32 | - | F32
conv_general  I32,Bool T         !! TypeError@0
conv_general  F32 I32,Bool       !! TypeError@1
gather        F32 I32            => F32 I32 | BINARY32 | - | - | F32
gather        I32,Bool T         !! TypeError@0
gather        F32 F32,Bool       !! TypeError@1
scatter       F32 I32 F32        => F32 I32 F32 | BINARY32 | -                   | - | F32
scatter_add   F32 I32 F32        => F32 I32 F32 | BINARY32 | SEQUENTIAL_BINARY32 | - | F32
scatter,scatter_add  I32,Bool T T     !! TypeError@0
scatter,scatter_add  F32 F32,Bool T   !! TypeError@1
scatter,scatter_add  F32 I32 I32,Bool !! TypeError@2

# "select SHALL require Bool, Float32, Float32 tensor operands."  Scenario: "a
#  Float32 binary32 plan with no accumulation" (decisions.md: condition keeps Bool)
select  Bool F32 F32             => Bool F32 F32 | BINARY32 | - | - | F32
select  F32,I32 T T              !! TypeError@0
select  Bool I32,Bool T          !! TypeError@1
select  Bool F32 I32,Bool        !! TypeError@2

# "clamp SHALL require a Float32 value and each bound SHALL be either a Float32
#  tensor or weak real scalar; all four bound-role combinations SHALL output
#  Float32."  (weak bounds are materialised as Float32, so no Int32 range check)
clamp  F32 F32 F32               => F32 F32 F32 | BINARY32 | - | - | F32
clamp  I32,Bool T T              !! TypeError@0
clamp  F32 I32,Bool T            !! TypeError@1
clamp  F32 F32 I32,Bool          !! TypeError@2
clamp  F32 F32 w:any             => F32 F32 F32 | BINARY32 | - | - | F32
clamp  I32,Bool T w:any          !! TypeError@0
clamp  F32 I32,Bool w:any        !! TypeError@1
clamp  F32 w:any F32             => F32 F32 F32 | BINARY32 | - | - | F32
clamp  I32,Bool w:any T          !! TypeError@0
clamp  F32 w:any I32,Bool        !! TypeError@2
clamp  F32 w:any w:any           => F32 F32 F32 | BINARY32 | - | - | F32
clamp  I32,Bool w:any w:any      !! TypeError@0

# "internal sort/topk value plans ... SHALL output Float32; internal sort/topk
#  index plans ... SHALL output Int32."  (decisions.md: Float32 only)
_sort_values,_topk_values    F32       => F32 | BINARY32 | - | - | F32
_sort_indices,_topk_indices  F32       => F32 | BINARY32 | - | - | I32
_sort_values,_topk_values,_sort_indices,_topk_indices  I32,Bool  !! TypeError@0
"""


@dataclass(frozen=True)
class Pattern:
    """One operand pattern: a tensor over some dtype names, or a weak scalar."""

    tensor: bool
    names: frozenset[str]

    def matches(self, token: tuple[bool, str]) -> bool:
        return token[0] == self.tensor and token[1] in self.names


@dataclass(frozen=True)
class Expected:
    """The expected plan, or the expected exception and the position it names."""

    convert_to: tuple[str, ...] | None = None
    compute: str | None = None
    accumulation: str | None = None
    accumulator: str | None = None
    output: str | None = None
    error: type[Exception] | None = None
    position: int | None = None


@dataclass(frozen=True)
class Row:
    line: int
    text: str
    operations: tuple[str, ...]
    operands: tuple[Pattern, ...]
    expected: Expected

    def matches(self, operation: str, combination: tuple[tuple[bool, str], ...]) -> bool:
        return (
            operation in self.operations
            and len(combination) == len(self.operands)
            and all(p.matches(t) for p, t in zip(self.operands, combination))
        )


_ERRORS = {
    "TypeError": TypeError,
    "ValueError": ValueError,
    "NotImplementedError": NotImplementedError,
    "OverflowError": OverflowError,
}


def _operand(token: str) -> Pattern:
    if token.startswith("w:"):
        names: set[str] = set()
        for name in token[2:].split(","):
            if name in WEAK_GROUPS:
                names.update(WEAK_GROUPS[name])
            elif name in WEAK_PROBES:
                names.add(name)
            else:
                raise ValueError(f"unknown weak scalar probe or group {name!r}")
        return Pattern(False, frozenset(names))
    if token == "T":
        return Pattern(True, frozenset(TENSORS))
    names = set(token.split(","))
    if not names <= set(TENSORS):
        raise ValueError(f"unknown tensor dtype in {token!r}")
    return Pattern(True, frozenset(names))


def _dtype_name(token: str) -> str | None:
    if token == "-":
        return None
    if token not in RESULT_DTYPES:
        raise ValueError(f"unknown dtype {token!r}")
    return token


def _expected(text: str, separator: str, arity: int) -> Expected:
    if separator == "!!":
        name, _, position = text.strip().partition("@")
        return Expected(error=_ERRORS[name], position=int(position))
    columns = [column.strip() for column in text.split("|")]
    if len(columns) != 5:
        raise ValueError(f"a plan needs 5 columns, got {len(columns)}")
    convert_to = tuple(columns[0].split())
    if len(convert_to) != arity:
        raise ValueError(f"{len(convert_to)} convert_to dtypes for {arity} operands")
    for name in convert_to:
        _dtype_name(name)
    return Expected(
        convert_to=convert_to,
        compute=columns[1],
        accumulation=None if columns[2] == "-" else columns[2],
        accumulator=_dtype_name(columns[3]),
        output=_dtype_name(columns[4]),
    )


def parse(text: str) -> tuple[Row, ...]:
    """Parse table *text* into rows (ValueError naming the line for a bad row)."""
    rows = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            separator = next((s for s in ("=>", "!!") if s in line), None)
            if separator is None:
                raise ValueError("a row needs '=>' or '!!'")
            left, right = line.split(separator, 1)
            operations, *tokens = left.split()
            operands = tuple(_operand(token) for token in tokens)
            expected = _expected(right, separator, len(operands))
        except (ValueError, KeyError, StopIteration) as error:
            raise ValueError(f"table line {number}: {raw.strip()!r}: {error}") from None
        rows.append(Row(number, raw.strip(), tuple(operations.split(",")), operands, expected))
    return tuple(rows)


ROWS = parse(TABLE)
