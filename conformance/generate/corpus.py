"""The deterministic boundary corpus: TestFloat-style operand patterns.

Beside the random search, every Float32 elementwise plan (unary, binary and
the ternary clamp, predicates included) is checked on structured operands
built like TestFloat's levels: every combination of a sign, an *exponent
pattern* (the biased exponent: zero/subnormal, the smallest normal binades,
around 1, the integer-ULP binades 2**23 and 2**24, the largest binades, and
255 for inf/NaN) and a *significand pattern* (zero, the lowest bits, one
below and at the quiet bit, all ones ...) per operand, and every combination
of those values across operands.

=====  ============================  ===========================  ================
level  values per operand            two-operand cases            one / three
=====  ============================  ===========================  ================
1      212 (2 x 12 x 9, deduped)     44,944 (TestFloat: 46,464)   2,720 / 110,592
2      2,720 (2 x 37 x 37, deduped)  7,398,400 (TestFloat: ~7.5M) 98,224 / 729,000
=====  ============================  ===========================  ================

(The counts are computed, see :func:`case_count`; with exponent 255 the
significand is forced quiet -- a Python float cannot carry a signalling NaN
to the oracle -- and duplicates are dropped.)  One-operand level 1 uses the
level-2 value set, level 2 adds the 64 binary32 neighbours on either side of
each of those values; three-operand levels use smaller sets so the cube stays
tractable.

Operands come as read-only float32 arrays (:func:`level_operands`, cached):
case ``i`` is ``(a[i], b[i], ...)``.  Checking is vectorised and outside
hypothesis: :func:`check_corpus` runs a backend function and a reference
function over the whole corpus and compares bit patterns (any NaN for any NaN
unless the operation copies NaN bits; an optional ULP budget for correctly
rounded operations, never on special values).  :func:`corpus_calls` cuts the
corpus into ordinary :class:`~conformance.model.calls.Call` values for checkers that
go through the oracle.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from conformance.model.calls import Call, Family, family_of, forward_arguments
from oracle import DType, OperandRole, OperationPlan, Tensor, binary32, resolvable_plans
from oracle.evaluate import REFERENCES

__all__ = [
    "EXPONENTS",
    "SIGNIFICANDS",
    "UNARY_NEIGHBOURS",
    "CorpusMismatch",
    "CorpusResult",
    "case_count",
    "check_corpus",
    "compare",
    "corpus_calls",
    "corpus_plans",
    "level_operands",
    "level_values",
]

_QUIET = 0x00400000

#: Biased exponent patterns per pattern set.
EXPONENTS: dict[str, tuple[int, ...]] = {
    "small": (0, 1, 127, 128, 254, 255),
    "ternary": (0, 1, 2, 126, 127, 128, 253, 254, 255),
    "level1": (0, 1, 2, 103, 126, 127, 128, 150, 151, 253, 254, 255),
    "level2": (
        *(0, 1, 2, 3, 4, 22, 23, 24, 25, 26, 63, 64, 65, 101, 102, 103, 104, 125, 126, 127),
        *(128, 129, 149, 150, 151, 152, 153, 190, 191, 192, 229, 230, 231, 252, 253, 254, 255),
    ),
}
#: Significand (fraction field) patterns per pattern set.
SIGNIFICANDS: dict[str, tuple[int, ...]] = {
    "small": (0x000000, 0x000001, 0x400000, 0x7FFFFF),
    "ternary": (0x000000, 0x000001, 0x400000, 0x7FFFFE, 0x7FFFFF),
    "level1": (
        *(0x000000, 0x000001, 0x000002, 0x3FFFFF, 0x400000),
        *(0x400001, 0x555555, 0x7FFFFE, 0x7FFFFF),
    ),
    "level2": (
        *(0x000000, 0x000001, 0x000002, 0x000003, 0x000004, 0x000007, 0x000008, 0x00000F),
        *(0x000010, 0x0000FF, 0x000100, 0x000FFF, 0x001000, 0x00FFFF, 0x010000, 0x1FFFFF),
        *(0x200000, 0x200001, 0x2AAAAA, 0x3FFFFC, 0x3FFFFD, 0x3FFFFE, 0x3FFFFF, 0x400000),
        *(0x400001, 0x400002, 0x400003, 0x555555, 0x5FFFFF, 0x600000, 0x7FFF00, 0x7FFFF0),
        *(0x7FFFF8, 0x7FFFFC, 0x7FFFFD, 0x7FFFFE, 0x7FFFFF),
    ),
}
#: (level, arity) -> the pattern set of each operand's values.
_PATTERN_SET: dict[tuple[int, int], str] = {
    (1, 1): "level2",
    (2, 1): "level2",
    (1, 2): "level1",
    (2, 2): "level2",
    (1, 3): "small",
    (2, 3): "ternary",
}
#: one-operand level 2 adds this many binary32 neighbours on each side of every value
UNARY_NEIGHBOURS = 64


def _pattern_values(name: str) -> np.ndarray:
    """sign x exponent x significand, NaNs quiet, duplicates dropped, in pattern order."""
    exponents = np.array(EXPONENTS[name], dtype=np.uint32)
    significands = np.array(SIGNIFICANDS[name], dtype=np.uint32)
    sign, exponent, significand = np.meshgrid(
        np.array([0, 1], dtype=np.uint32), exponents, significands, indexing="ij"
    )
    significand = np.where(
        (exponent == 255) & (significand != 0), significand | _QUIET, significand
    )
    bits = ((sign << 31) | (exponent << 23) | significand).ravel()
    _, first = np.unique(bits, return_index=True)
    return bits[np.sort(first)]


def _with_neighbours(bits: np.ndarray, count: int) -> np.ndarray:
    values = bits.view(np.float32)
    finite = bits[np.isfinite(values)]
    magnitude = (finite & 0x7FFFFFFF).astype(np.int64)
    ordinal = np.where(finite >> 31 == 1, -magnitude, magnitude)
    steps = np.arange(-count, count + 1, dtype=np.int64)
    around = (ordinal[:, None] + steps[None, :]).ravel()
    limit = 0x7F800000
    around = around[np.abs(around) <= limit]
    around_bits = np.where(around < 0, (-around) | 0x80000000, around).astype(np.uint32)
    merged = np.concatenate([bits, around_bits])
    _, first = np.unique(merged, return_index=True)
    return merged[np.sort(first)]


@functools.cache
def _level_bits(level: int, arity: int) -> np.ndarray:
    if (level, arity) not in _PATTERN_SET:
        raise ValueError(f"no corpus level {level} for {arity} operands (levels 1 and 2, 1-3)")
    bits = _pattern_values(_PATTERN_SET[level, arity])
    if arity == 1 and level == 2:
        bits = _with_neighbours(bits, UNARY_NEIGHBOURS)
    bits.setflags(write=False)
    return bits


def level_values(level: int, arity: int = 2) -> np.ndarray:
    """The distinct float32 values each operand takes at *level* (read-only)."""
    return _level_bits(level, arity).view(np.float32)


@functools.cache
def level_operands(level: int, arity: int) -> tuple[np.ndarray, ...]:
    """The corpus operands: *arity* read-only float32 arrays of one length.

    Case ``i`` is ``tuple(a[i] for a in operands)``; every combination of
    :func:`level_values` across the operands occurs once, the first operand
    varying slowest.
    """
    values = level_values(level, arity)
    grids = np.meshgrid(*([values] * arity), indexing="ij")
    operands = tuple(np.ascontiguousarray(g.ravel()) for g in grids)
    for operand in operands:
        operand.setflags(write=False)
    return operands


def case_count(level: int, arity: int) -> int:
    """How many cases :func:`level_operands` holds."""
    return len(level_values(level, arity)) ** arity


def corpus_plans() -> tuple[OperationPlan, ...]:
    """Every elementwise plan whose operands are all Float32 tensors (1-3 of them)."""
    return tuple(
        plan
        for plan in resolvable_plans()
        if family_of(plan.operation) is Family.ELEMENTWISE
        and 1 <= len(plan.operands) <= 3
        and all(o.role is OperandRole.TENSOR and o.dtype is DType.Float32 for o in plan.operands)
    )


def _default_nan_bits(operation: str) -> bool:
    return REFERENCES[operation].nan_bits


@dataclass(frozen=True)
class CorpusMismatch:
    """One failing corpus case."""

    index: int
    operands: tuple[int, ...]  #: operand bit patterns
    expected: int  #: expected bits (0/1 for Bool)
    actual: int
    ulp: int | None

    def __str__(self) -> str:
        shown = ", ".join(f"0x{b:08X} ({binary32.from_bits(b)!r})" for b in self.operands)
        ulp = "" if self.ulp is None else f", {self.ulp} ULP"
        return (
            f"  case {self.index}: ({shown}) expected 0x{self.expected:08X}, "
            f"got 0x{self.actual:08X}{ulp}"
        )


@dataclass(frozen=True)
class CorpusResult:
    """The outcome of :func:`check_corpus` on one plan and level."""

    plan: OperationPlan
    level: int
    cases: int
    failures: int
    mismatches: tuple[CorpusMismatch, ...]
    max_ulp: int = 0  #: the largest finite ULP distance over all cases, failing ones included

    @property
    def ok(self) -> bool:
        return self.failures == 0

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        head = "PASS" if self.ok else "FAIL"
        lines = [
            f"{head}: {self.plan.describe()} corpus level {self.level}: "
            f"{self.failures} of {self.cases} cases differ (max {self.max_ulp} ULP)"
        ]
        lines.extend(str(m) for m in self.mismatches)
        return "\n".join(lines)


def _bits(array: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(array).view(np.uint32)


def compare(
    expected: np.ndarray,
    actual: np.ndarray,
    *,
    nan_bits: bool = False,
    ulp_budget: int = 0,
    exact: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised conformance of *actual* to *expected*: (ok mask, ULP distances).

    Bool arrays compare by value.  Float32: identical bits, or two NaNs (same
    bits required when *nan_bits*); with *ulp_budget* > 0, a finite nonzero
    expected value also accepts a finite nonzero actual value of the same sign
    within the budget, except where *exact* (a bool mask of exact points) is set.
    """
    if expected.dtype == np.bool_:
        return expected == actual, np.zeros(expected.shape, dtype=np.int64)
    e_bits, a_bits = _bits(expected), _bits(actual)
    e_nan, a_nan = np.isnan(expected), np.isnan(actual)
    same = e_bits == a_bits
    if not nan_bits:
        same |= e_nan & a_nan
    distance = binary32.ulp_distance_array(expected, actual)
    if ulp_budget:
        regular = (
            np.isfinite(expected)
            & np.isfinite(actual)
            & (expected != 0)
            & (actual != 0)
            & ((e_bits >> 31) == (a_bits >> 31))
        )
        if exact is not None:
            regular &= ~exact
        same |= regular & (distance <= ulp_budget)
    return same, distance


def check_corpus(
    plan: OperationPlan,
    backend_fn: Callable[..., Any],
    reference_fn: Callable[..., Any],
    *,
    level: int = 1,
    nan_bits: bool | None = None,
    ulp_budget: int = 0,
    max_reports: int = 20,
) -> CorpusResult:
    """Run *backend_fn* and *reference_fn* on the corpus of *plan* and compare.

    Both functions take the operand float32 arrays and return an array of the
    same length (float32, or bool for a predicate plan); *reference_fn* may
    return ``(values, exact_mask)``.  *nan_bits* defaults to whether the
    oracle copies NaN bits for the operation.
    """
    arity = len(plan.operands)
    operands = level_operands(level, arity)
    if nan_bits is None:
        nan_bits = _default_nan_bits(plan.operation)
    reference = reference_fn(*operands)
    exact = None
    if isinstance(reference, tuple):
        reference, exact = reference
    expected = np.asarray(reference)
    actual = np.asarray(backend_fn(*operands))
    output = np.bool_ if plan.output is DType.Bool else np.float32
    if expected.dtype != output:
        raise TypeError(f"reference_fn returned {expected.dtype}, the plan outputs {output}")
    cases = len(operands[0])
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        mismatch = CorpusMismatch(-1, (), 0, 0, None)
        return CorpusResult(plan, level, cases, cases, (mismatch,), 0)
    ok, distance = compare(expected, actual, nan_bits=nan_bits, ulp_budget=ulp_budget, exact=exact)
    failing = np.flatnonzero(~ok)
    reports = []
    for index in failing[:max_reports].tolist():
        if output is np.bool_:
            e, a, ulp = int(expected[index]), int(actual[index]), None
        else:
            e = int(_bits(expected[index : index + 1])[0])
            a = int(_bits(actual[index : index + 1])[0])
            d = int(distance[index])
            ulp = None if d < 0 else d
        bits = tuple(int(_bits(o[index : index + 1])[0]) for o in operands)
        reports.append(CorpusMismatch(index, bits, e, a, ulp))
    # the largest finite ULP distance of any case, conforming (under a budget) or not
    finite = distance[distance >= 0] if output is np.float32 else np.zeros(0)
    max_ulp = int(finite.max()) if finite.size else 0
    return CorpusResult(plan, level, cases, int(failing.size), tuple(reports), max_ulp)


def corpus_calls(plan: OperationPlan, level: int = 1, chunk: int = 4096) -> Iterator[Call]:
    """The corpus of *plan* as calls on 1-D tensors of at most *chunk* cases each."""
    operands = level_operands(level, len(plan.operands))
    total = len(operands[0])
    for start in range(0, total, chunk):
        tensors = []
        for operand in operands:
            piece = operand[start : start + chunk]
            tensors.append(Tensor(DType.Float32, (len(piece),), tuple(piece.tolist())))
        yield Call(
            plan.operation,
            forward_arguments(plan.operation, tensors),
            None,
            plan,
            note=f"corpus level {level} cases {start}..{start + len(tensors[0].values) - 1}",
        )
