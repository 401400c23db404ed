"""Materialising operands: Int32 -> Float32 and weak scalars, exactly once.

The plan fixes the dtype every operand is computed in (``OperandPlan.convert_to``);
this module turns the forward arguments into numpy values of that dtype and
nothing else.  Every conversion to Float32 is one correct rounding of the
operand's *exact* value (round to nearest, ties to even, subnormals kept,
overflow to +-inf):

* an Int32 array goes through numpy's ``int32 -> float32`` cast, which is the
  hardware conversion (exact int -> float32 in round-to-nearest-even mode;
  ``2**24 + 1 -> 16777216.0``);
* a weak Python ``float`` (or numpy floating scalar) goes through the
  ``float64 -> float32`` cast, one rounding of its exact binary64 value;
* a weak ``int``, ``Fraction`` or other exact rational is rounded here with
  integer arithmetic (:func:`round_rational`), so an int beyond ``2**53`` is
  never rounded twice through float64 and ``10**400`` becomes ``inf``;
* ``bool`` is 1.0 or 0.0.

The backend's *native* tensors are numpy arrays (see :mod:`backends.cpu`);
weak scalars are Python numbers and numpy scalars.  This module also holds
the small validation helpers every kernel family shares (shape broadcasting,
axis normalisation, the Int32 range check), so that every check runs before
the kernel calls ``backend.allocated()``.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any

import numpy as np

from oracle import DType, OperandRole, OperationPlan

from ..parameters import describe, is_flag, read_int, read_items, unreadable_weak_scalar

__all__ = [
    "F32",
    "F64",
    "I32",
    "I64",
    "INT32_MAX",
    "INT32_MIN",
    "broadcast_shape",
    "check_int32_range",
    "int32_to_float32",
    "materialise",
    "normalise_axes",
    "normalise_axis",
    "round_rational",
    "weak_to_float32",
    "weak_to_int",
]

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
I32 = np.dtype(np.int32)
I64 = np.dtype(np.int64)
INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1

_PRECISION = 24  # binary32 significand bits
_EMIN = -126  # exponent of the smallest normal binade
_OVERFLOW_BITS = 128  # a value >= 2**128 after rounding is +-inf


# ---------------------------------------------------------------------------
# Exact rationals -> binary32
# ---------------------------------------------------------------------------


def round_rational(n: int, d: int) -> np.float32:
    """The binary32 value nearest to ``n / d`` (``d > 0``), ties to even.

    Integer arithmetic only: the quantum of the result is
    ``2**(max(e, -126) - 23)`` for ``2**e <= |n/d| < 2**(e+1)``, the
    significand is ``n / d`` divided by that quantum, rounded half to even,
    and a result of ``2**128`` or more is infinite.  An exact zero is +0; a
    nonzero value that underflows keeps its sign.
    """
    if d <= 0:
        raise ValueError(f"round_rational needs a positive denominator, got {d}")
    if n == 0:
        return np.float32(0.0)
    negative = n < 0
    n = -n if negative else n
    # e = floor(log2(n / d))
    e = n.bit_length() - d.bit_length()
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1
    q = max(e, _EMIN) - (_PRECISION - 1)
    num, den = (n, d << q) if q >= 0 else (n << -q, d)
    m, r = divmod(num, den)
    if 2 * r > den or (2 * r == den and m & 1):
        m += 1
    # ldexp is exact: m < 2**25 and q >= -149
    value = math.inf if m.bit_length() + q > _OVERFLOW_BITS else math.ldexp(m, q)
    return np.float32(-value if negative else value)


def weak_to_float32(value: Any) -> np.float32:
    """Materialise the weak scalar *value* as Float32 (one correct rounding).

    bool -> 1.0/0.0; float and numpy floating scalars -> the float64 (or
    float32) cast of their exact value (a numpy float32 scalar keeps its
    bits); ints, Fractions and other exact rationals -> :func:`round_rational`.
    Another real type is rounded from ``value.as_integer_ratio()`` when it
    has one, else through ``float(value)``.
    """
    if isinstance(value, (bool, np.bool_)):
        return np.float32(1.0 if value else 0.0)
    if isinstance(value, np.float32):
        return value  # already binary32 (immutable; bits kept)
    if isinstance(value, (float, np.float16, np.float64)):
        return _cast64(value)
    if isinstance(value, numbers.Integral):
        return round_rational(int(value), 1)
    if isinstance(value, (Fraction, numbers.Rational)):
        return round_rational(int(value.numerator), int(value.denominator))
    if isinstance(value, np.floating):  # longdouble and friends
        if not np.isfinite(value):
            return _cast64(value)
        if value == 0:
            return np.float32(-0.0 if np.signbit(value) else 0.0)
        n, d = value.as_integer_ratio()
        return round_rational(int(n), int(d))
    ratio = getattr(value, "as_integer_ratio", None)
    if ratio is not None:
        as_float = float(value)
        if not math.isfinite(as_float) or as_float == 0.0:
            return _cast64(as_float)
        n, d = ratio()
        return round_rational(int(n), int(d))
    return _cast64(float(value))


def _cast64(value: Any) -> np.float32:
    """The float64 -> float32 cast: one IEEE rounding (overflow to +-inf, silently)."""
    with np.errstate(all="ignore"):
        return np.float64(value).astype(F32)


def weak_to_int(value: Any) -> int:
    """Materialise a weak integer for an Int32 plan (the planner checked its range)."""
    return int(value)


def int32_to_float32(array: np.ndarray) -> np.ndarray:
    """Int32 -> Float32, one correct rounding per element (a new array)."""
    return array.astype(F32)


def materialise(plan: OperationPlan, position: int, value: Any) -> Any:
    """Operand *position* of *plan* in its ``convert_to`` dtype.

    A tensor is returned as is when no conversion is needed (kernels never
    write into it) and converted Int32 -> Float32 otherwise.  A weak scalar
    becomes a numpy float32 scalar (Float32) or a Python int (Int32).
    """
    operand = plan.operands[position]
    target = operand.convert_to
    if operand.role is OperandRole.WEAK_SCALAR:
        try:
            if target is DType.Float32:
                return weak_to_float32(value)
            if target is DType.Int32:
                return weak_to_int(value)
        except Exception as error:  # the scalar's own __int__/__float__/as_integer_ratio
            raise unreadable_weak_scalar(plan.operation, position, value, error) from error
        raise NotImplementedError(f"{plan.operation}: cannot materialise a weak {target!r}")
    if target is operand.dtype:
        return value
    if operand.dtype is DType.Int32 and target is DType.Float32:
        return int32_to_float32(value)
    raise NotImplementedError(
        f"{plan.operation}: no conversion from {operand.dtype!r} to {target!r}"
    )


# ---------------------------------------------------------------------------
# Shared validation
# ---------------------------------------------------------------------------


def broadcast_shape(operation: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The numpy broadcast of *shapes*, or ValueError naming them."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        listed = ", ".join(str(tuple(s)) for s in shapes)
        raise ValueError(f"{operation}: operand shapes {listed} do not broadcast") from None


def _is_index(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not is_flag(value)


def normalise_axis(operation: str, axis: Any, ndim: int, name: str = "axis") -> int:
    """A single axis in ``[-ndim, ndim)`` as a non-negative int.

    TypeError for a non-integer (bool included), ValueError out of range.
    """
    axis = read_int(operation, name, axis)
    if not -ndim <= axis < ndim:
        raise ValueError(
            f"{operation}: {name} {axis} is out of range for a {ndim}-dimensional tensor"
        )
    return axis % ndim


def normalise_axes(operation: str, axis: Any, ndim: int) -> tuple[int, ...]:
    """``None`` (every axis), an int or a tuple of ints -> sorted unique axes.

    Duplicates (after normalising negative axes) and out-of-range axes are
    ValueError; anything else (a float, a bool, a list) is TypeError.
    """
    if axis is None:
        return tuple(range(ndim))
    if _is_index(axis):
        return (normalise_axis(operation, axis, ndim),)
    if not isinstance(axis, tuple):
        raise TypeError(
            f"{operation}: axis must be None, an int or a tuple of ints, got {describe(axis)}"
        )
    names = read_items(operation, "axis", axis, "None, an int or a tuple of ints")
    axes = [normalise_axis(operation, a, ndim) for a in names]
    if len(set(axes)) != len(axes):
        raise ValueError(f"{operation}: duplicate axes in {describe(axis)}")
    return tuple(sorted(axes))


def check_int32_range(operation: str, low: int, high: int) -> None:
    """OverflowError unless ``[low, high]`` lies inside Int32."""
    if low < INT32_MIN or high > INT32_MAX:
        bad = low if low < INT32_MIN else high
        raise OverflowError(
            f"{operation}: the exact Int32 result {bad} lies outside [{INT32_MIN}, {INT32_MAX}]"
        )
