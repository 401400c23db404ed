"""Expectations and verdicts: what a conforming result is, and why one is not.

:func:`oracle.expected` returns an :class:`Expectation`, one of:

* an exact result (conformance class EXACT): every element must match bit for
  bit, except that a NaN may be any NaN unless the operation copies bits
  (``nan_bits=True``);
* a correctly rounded result (CORRECTLY_ROUNDED): the reference is the exact
  function rounded once; a backend may be granted a ULP budget, but special
  values (NaN, +-inf, +-0) and exact points (``exact_points``) must still match
  exactly;
* a bounded acceptance set (BOUNDED, FLOATING accumulation): one
  :class:`Interval` per element;
* an expected exception (``error``), checked with :meth:`Expectation.check_raised`.

:meth:`Expectation.check` returns a :class:`Verdict` whose ``mismatches`` list
every non-conforming element with expected, actual, both bit patterns and the
ULP distance.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from . import binary32
from .dtypes import DType
from .plan import OperationPlan
from .tensor import Tensor

__all__ = ["Bounded", "Conformance", "Expectation", "Interval", "Mismatch", "Verdict"]


class Conformance(enum.Enum):
    """The conformance classes of ``docs/semantics.md``."""

    EXACT = "exact"
    CORRECTLY_ROUNDED = "correctly rounded"
    BOUNDED = "bounded"


@dataclass(frozen=True)
class Interval:
    """The acceptance set of one FLOATING-accumulation result element.

    Accepted: any NaN when *nan*, and any non-NaN binary32 value in
    ``[lo, hi]`` (which may include +-inf; ``lo = hi = nan`` accepts no
    number, so ``Interval(nan, nan, nan=True)`` means "must be NaN").  A zero
    must be +0, and -0 is also accepted when *negative_zero* (every term was
    -0).  *exact* is the exact sum of the already rounded terms when it is
    finite (for reports).
    """

    lo: float
    hi: float
    nan: bool = False
    negative_zero: bool = False
    exact: Fraction | None = None

    def accepts(self, value: float) -> bool:
        if math.isnan(value):
            return self.nan
        if not self.lo <= value <= self.hi:
            return False
        if value == 0 and math.copysign(1.0, value) < 0:
            return self.negative_zero
        return True

    def __str__(self) -> str:
        parts = []
        if self.lo <= self.hi:
            zero = " (-0 allowed)" if self.negative_zero else ""
            parts.append(f"[{self.lo!r}, {self.hi!r}]{zero}")
        if self.nan:
            parts.append("NaN")
        return " or ".join(parts) or "nothing"


@dataclass(frozen=True)
class Mismatch:
    """One non-conforming element."""

    index: tuple[int, ...]
    expected: Any
    actual: Any
    expected_bits: int | None
    actual_bits: int | None
    ulp: int | None
    rule: str

    def __str__(self) -> str:
        def shown(value: Any, bits: int | None) -> str:
            return f"{value!r}" if bits is None else f"{value!r} (0x{bits:08X})"

        ulp = "" if self.ulp is None else f", {self.ulp} ULP"
        return (
            f"  at {self.index}: expected {shown(self.expected, self.expected_bits)}, "
            f"got {shown(self.actual, self.actual_bits)}{ulp} -- {self.rule}"
        )


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking one actual result against an Expectation."""

    ok: bool
    summary: str
    mismatches: tuple[Mismatch, ...] = ()

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        lines = [("PASS: " if self.ok else "FAIL: ") + self.summary]
        lines.extend(str(m) for m in self.mismatches)
        return "\n".join(lines)


def _bits_of(dtype: DType, value: Any) -> int | None:
    if dtype is DType.Float32 and isinstance(value, float):
        return binary32.to_bits(value)
    if dtype is DType.Int32 and isinstance(value, int):
        return value & 0xFFFFFFFF
    return None


def _same_float(expected: float, actual: float, nan_bits: bool) -> bool:
    if math.isnan(expected) or math.isnan(actual):
        if nan_bits:
            return binary32.to_bits(expected) == binary32.to_bits(actual)
        return math.isnan(expected) and math.isnan(actual)
    return binary32.to_bits(expected) == binary32.to_bits(actual)


def _is_special(value: float) -> bool:
    return math.isnan(value) or math.isinf(value) or value == 0


def _conformity(size: int, failing: int = 0) -> str:
    """``1 element conforms``, ``3 elements conform``; with *failing*: ``1 of 3
    elements does not conform``, ``2 of 3 elements do not conform``."""
    elements = f"{size} element{'' if size == 1 else 's'}"
    if not failing:
        return f"{elements} conform{'s' if size == 1 else ''}"
    return f"{failing} of {elements} {'does' if failing == 1 else 'do'} not conform"


@dataclass(frozen=True)
class Expectation:
    """What a conforming backend must produce for one call.

    Exactly one of *result*, *bounds* and *error* is set.  *plan* is None only
    when planning itself failed.
    """

    operation: str
    plan: OperationPlan | None
    arguments: tuple[Any, ...]
    conformance: Conformance | None = None
    result: Tensor | None = None
    bounds: tuple[Interval, ...] | None = None
    shape: tuple[int, ...] | None = None
    error: BaseException | None = None
    nan_bits: bool = False
    exact_points: tuple[bool, ...] | None = field(default=None, repr=False)

    @property
    def raises(self) -> type[BaseException] | None:
        return type(self.error) if self.error is not None else None

    def _title(self) -> str:
        plan = self.plan.describe() if self.plan is not None else "no plan"
        return f"{self.operation}: {plan}"

    def check(self, actual: Tensor, ulp_budget: int = 0) -> Verdict:
        """Compare *actual* with this expectation (ULP budget for CORRECTLY_ROUNDED)."""
        title = self._title()
        if not issubclass(type(actual), Tensor):
            raise TypeError(f"{title}: check() takes an oracle.Tensor, got {type(actual).__name__}")
        if self.error is not None:
            return Verdict(
                False, f"{title}: expected {type(self.error).__name__}: {self.error}, got a result"
            )
        output = self.plan.output if self.plan is not None else None
        shape = self.result.shape if self.result is not None else self.shape
        if actual.dtype is not output or actual.shape != shape:
            return Verdict(
                False,
                f"{title}: expected dtype {output!r} shape {shape}, "
                f"got dtype {actual.dtype!r} shape {actual.shape}",
            )
        if self.bounds is not None:
            mismatches = self._check_bounds(actual)
        else:
            mismatches = self._check_values(actual, ulp_budget)
        if mismatches:
            return Verdict(False, f"{title}: {_conformity(actual.size, len(mismatches))}",
                           tuple(mismatches))  # fmt: skip
        return Verdict(True, f"{title}: {_conformity(actual.size)}")

    def _check_bounds(self, actual: Tensor) -> list[Mismatch]:
        assert self.bounds is not None
        found = []
        for flat, (interval, value) in enumerate(zip(self.bounds, actual.values)):
            if not interval.accepts(value):
                found.append(
                    Mismatch(
                        actual.index(flat),
                        str(interval),
                        value,
                        None,
                        binary32.to_bits(value),
                        None,
                        "FLOATING accumulation: no evaluation order in the accumulator dtype "
                        "gives this value",
                    )
                )
        return found

    def _check_values(self, actual: Tensor, ulp_budget: int) -> list[Mismatch]:
        assert self.result is not None
        dtype = self.result.dtype
        found = []
        for flat, (expected, value) in enumerate(zip(self.result.values, actual.values)):
            if dtype is not DType.Float32:
                if expected != value or type(expected) is not type(value):
                    found.append(
                        Mismatch(
                            actual.index(flat),
                            expected,
                            value,
                            _bits_of(dtype, expected),
                            _bits_of(dtype, value),
                            None,
                            "exact",
                        )
                    )
                continue
            rule = self._float_rule(flat, expected, value, ulp_budget)
            if rule is not None:
                found.append(
                    Mismatch(
                        actual.index(flat),
                        expected,
                        value,
                        binary32.to_bits(expected),
                        binary32.to_bits(value),
                        None if math.isnan(expected) else binary32.ulp_distance(expected, value),
                        rule,
                    )
                )
        return found

    def _float_rule(self, flat: int, expected: float, actual: float, budget: int) -> str | None:
        """None when *actual* conforms, else the name of the rule it breaks."""
        if _same_float(expected, actual, self.nan_bits):
            return None
        if self.conformance is not Conformance.CORRECTLY_ROUNDED or budget <= 0:
            if self.nan_bits and math.isnan(expected):
                return "bit copy: NaN bits must be preserved"
            if expected == 0 and actual == 0:
                return "signed zero is significant"
            if self.conformance is Conformance.CORRECTLY_ROUNDED:
                return "correctly rounded (0 ULP budget)"
            return "exact"
        exact_point = self.exact_points is not None and self.exact_points[flat]
        if _is_special(expected) or _is_special(actual) or exact_point:
            return "special values and exact points must match exactly"
        distance = binary32.ulp_distance(expected, actual)
        if distance is None or distance > budget:
            return f"correctly rounded within {budget} ULP"
        return None

    def check_raised(self, exc: BaseException) -> Verdict:
        """Check that *exc* is the exception this expectation requires."""
        title = self._title()
        if self.error is None:
            return Verdict(False, f"{title}: expected a result, got {type(exc).__name__}: {exc}")
        if isinstance(exc, type(self.error)):
            return Verdict(True, f"{title}: raised {type(exc).__name__} as required")
        return Verdict(
            False,
            f"{title}: expected {type(self.error).__name__} ({self.error}), "
            f"got {type(exc).__name__}: {exc}",
        )


@dataclass(frozen=True)
class Bounded:
    """A FLOATING-accumulation reference: the result shape and one Interval per element."""

    shape: tuple[int, ...]
    intervals: tuple[Interval, ...]
