"""A vectorised, certified oracle for every Float32 unary operation.

:func:`certified` returns, for a float32 array, exactly what the scalar
reference rules return element by element (:mod:`oracle.reference.rounded`
for the correctly rounded class, :mod:`oracle.reference.exact` for the exact
class) -- NaN-ness for NaN results, the input's bits for the bit copies
``neg``/``abs`` -- but at numpy speed.  :func:`certified_range` does the same
for every bit pattern of a contiguous range (the exhaustive sweep), and
:func:`certified_int32` for Int32 inputs (one correct rounding to Float32
first, as every activation's Int32 plan says).

How the correctly rounded class is certified (the proof is in
``docs/exhaustive.md``)
------------------------------------------------------------------------

For a finite nonzero float32 input ``x`` the oracle evaluates a float64
formula ``y`` of ``f(x)`` (numpy, and ``scipy.special`` for erf/erfc) whose
relative error is bounded by a *stated* bound ``B(x) * u`` (``u = 2**-53``,
:func:`error_bound`): ``|y - f(x)| <= B u |f(x)| + eta`` with
``eta = 2**-1060`` covering float64 underflow.  Rounding to nearest is
monotone, so if no binary32 rounding boundary (a midpoint between two
neighbouring binary32 values, the overflow threshold ``2**128 - 2**103``,
or one of the subnormal midpoints ``(k + 1/2) 2**-149``) lies within the
error interval around ``y``, then ``f(x)`` and ``y`` round to the same
binary32 value: ``float32(y)``.  :func:`near_boundary` flags every ``y``
within the *tolerance* ``SAFETY * B(x) * u * |y|`` (a safety factor of
:data:`SAFETY` = 128 over the stated bound) of a boundary; exactly those
inputs -- about 2 in 10**6 for exp -- are settled by the scalar MPFR oracle.

The premises, stated as what they are
-------------------------------------

B(x) is *proven* from the rounding of every float64 step (each IEEE step
is within u) and the condition numbers of the formulas, *given* the error
of each library call, which is an assumption: the code below is numpy's and
scipy's, not ours, and its accuracy is documented nowhere we can cite.
numpy's float64 exp, exp2, tanh, expm1 and log1p on this machine are its
own SIMD kernels (they differ from glibc's ``math.exp`` ... in about 5% of
sampled inputs; log and log2 in a few), so no glibc guarantee applies
either.  The assumed library errors, and the largest errors measured
against MPFR at 200 bits (``tests/test_vectorised_premises.py`` re-checks
them with a margin of 2 on every run, at the known worst points and on a
seeded sample):

* one numpy call (exp, exp2, log, log2, sin, cos, tanh, expm1, log1p):
  :data:`LIBM` = 4u (2 ulp); measured at most 1.56u (tanh), 1.12u (exp2),
  1.13u (exp), below 1u for the others: a margin of 2.5x;
* ``scipy.special.erf``: :data:`ERF` = 16u; measured 2.94u (5.4x);
* ``scipy.special.erfc`` on the arguments gelu gives it, ``t <= 10.16``
  (gelu is -0 below x = -14.356, a plateau, so larger t never reach it):
  :data:`ERFC` = 160u; measured 68u near t = 9.92 (2.35x).  Until issue 15
  this was 64u, below the measured error: the bound was false (harmlessly,
  inside the safety factor).  Beyond t = 10.5 scipy's erfc errs by up to
  544u (t = 26.6), which is why the premise is stated for t <= 10.5 only,
  and why a gelu input below -10.5 sqrt 2 that reaches the float64 path
  goes to MPFR instead.

The constant ``1/sqrt 2`` is ``sqrt(0.5)``, correctly rounded (relative
error 0.62u, below 0.71u = 2**-54 / (1/sqrt 2)); it used to be
``1 / sqrt(2.0)``, two roundings and -0.80u.  gelu's bound, ERFC + 3 +
2 x**2 for x < 0, is mostly proven: the rounded argument carries < 2u,
amplified by erfc's condition number < x**2 + 1.  Measured, gelu's float64
error reaches 0.8 of that bound (x near -11.3, where the argument's error
dominates), so gelu's margin over its *stated* bound is about 1.25x, not
the 2x to 4x of the library premises; that part of the bound is a proof,
not an assumption, and the safety factor of 128 still applies on top.

Four shortcuts avoid float64 work where the answer is known in closed form,
each with its own argument:

* *definitional segments*: NaN inputs give NaN; ``log``, ``log2`` and
  ``rsqrt`` of a negative number (``-inf`` included) are NaN; ``elu(x) = x``
  for ``x > 0``;
* *plateaus*: on a bit range where ``f`` is monotone (:data:`MONOTONE`), the
  correctly rounded result is monotone too, so the inputs whose result equals
  the result at one end form a run starting at that end.  Its length is found
  by bisection with the scalar oracle (about 32 calls), and the whole run is
  filled with that value: ``exp(x) = inf`` for ``x >= 88.72284``, ``tanh(x) =
  1`` for ``x >= 9.01``, ``sigmoid(x) = +0`` below ``-103.28`` ...;
* *identity segments*: ``sin(x)`` and ``tanh(x)`` for ``|x| <= 2**-12`` and
  ``elu(x)`` for ``-2**-25 <= x <= 0`` round to x itself (the argument is at
  :data:`_IDENTITY`); with cos's plateau of 1 for ``|x| <= 2**-12`` this takes
  45% of the bit patterns of sin, cos and tanh off the float64 path;
* *tiny arguments of silu and gelu*: for ``0 < |x| <= 2**-75``,
  ``f(x) = x/2 + e`` with ``0 < e < x**2 <= 2**-150`` (``silu(x) - x/2 =
  (x/2) tanh(x/2)``, ``gelu(x) - x/2 = (x/2) erf(x/sqrt 2)``), so the result
  is ``x/2`` when that is a binary32 value and its upper neighbour when
  ``x/2`` is a midpoint (odd subnormal multiples), with no evaluation at all.
  Without this rule every odd subnormal would be a hard case.

The exact class (neg, abs, sign, recip, sqrt, floor, ceil, round, relu,
leaky_relu, logical_not) is computed with integer operations on the bit
patterns, or with one correctly rounded IEEE float64 operation whose hard
cases (a quotient or root within ``2**-50`` of a binary32 midpoint) are
settled by the exact rational rules; ``leaky_relu``'s product of two binary32
values is exact in float64 and rounded once by the cast.

:data:`STATS` counts scalar-oracle calls (the naive part of the work).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from .binary32 import from_bits, round_float64_array, to_bits
from .expectation import Conformance
from .facts import Family
from .operations import BUILTIN_FACTS
from .plan import OperandRole
from .planner import get_operation
from .reference import exact as _exact
from .reference import rounded as _rounded

__all__ = [
    "ACTIVATIONS",
    "EXACT_OPS",
    "MONOTONE",
    "NUMPY_UFUNCS",
    "OPS",
    "ROUNDED_OPS",
    "SAFETY",
    "STATS",
    "Segment",
    "bit_patterns",
    "certified",
    "certified_binary",
    "certified_int32",
    "certified_range",
    "constant_range",
    "error_bound",
    "exact_points",
    "float64_value",
    "int32_to_float32",
    "near_boundary",
    "output_dtype",
    "segments",
]

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
U32 = np.dtype(np.uint32)


def _unary_operations() -> dict[str, tuple[bool, bool]]:
    """Every unary elementwise operation of the table, in table order:
    name -> (correctly rounded?, also takes Int32?)."""
    found = {}
    for name, facts in BUILTIN_FACTS.items():
        spec = get_operation(name)
        if facts.family is not Family.ELEMENTWISE or len(spec.overloads) != 1:
            continue
        (overload,) = spec.overloads
        if overload.roles != (OperandRole.TENSOR,):
            continue
        rounded = facts.conformance is Conformance.CORRECTLY_ROUNDED
        found[name] = (rounded, overload.tensor_domains is None)  # None: Float32 and Int32
    return found


_UNARY = _unary_operations()
#: the correctly rounded unary operations (from the operation table)
ROUNDED_OPS: tuple[str, ...] = tuple(op for op, (rounded, _) in _UNARY.items() if rounded)
#: the exact unary operations (from the operation table)
EXACT_OPS: tuple[str, ...] = tuple(op for op, (rounded, _) in _UNARY.items() if not rounded)
#: every Float32 unary operation of the registry
OPS: tuple[str, ...] = ROUNDED_OPS + EXACT_OPS
#: unary operations that also take Int32 tensors (converted to Float32; relu keeps Int32)
ACTIVATIONS: tuple[str, ...] = tuple(op for op, (_, int32) in _UNARY.items() if int32)

#: safety factor of the detection tolerance over the stated error bound
SAFETY = 128
_U = 2.0**-53
#: assumed error of one numpy float64 call (exp, exp2, log, log2, sin, cos, tanh,
#: expm1, log1p; numpy's own SIMD kernels here, not glibc's): 2 ulp; measured <= 1.56u
LIBM = 4.0
#: assumed error of scipy.special.erf; measured <= 2.94u
ERF = 16.0
#: assumed error of scipy.special.erfc for t <= 10.5 (gelu's domain); measured <= 68u
ERFC = 160.0

_SIGN = np.uint32(0x80000000)
_MAG = np.uint32(0x7FFFFFFF)
_INF_BITS = np.uint32(0x7F800000)
_NAN_BITS = np.uint32(0x7FC00000)
_ONE_BITS = np.uint32(0x3F800000)
#: elements per piece of float64 work: since the passes an array's extremes make idle are
#: skipped, 2**16 runs faster than 2**14 for every operation measured, in one process and
#: in the hosted sweep (``benchmarks/bench_exhaustive.py --chunks``; docs/exhaustive.md,
#: Performance)
_CHUNK = 1 << 16

STATS = {"scalar": 0, "evaluated": 0}
"""Counters: scalar-oracle calls and float64 evaluations since import."""


def output_dtype(op: str) -> np.dtype:
    """bool for logical_not, float32 otherwise (Float32 plans)."""
    return np.dtype(np.bool_) if op == "logical_not" else F32


# ---------------------------------------------------------------------------
# float64 formulas and their stated error bounds
# ---------------------------------------------------------------------------

#: 1/sqrt(2) correctly rounded (sqrt of the exact 0.5): relative error 0.62u < 2**-54 / (1/sqrt 2)
_INV_SQRT2 = math.sqrt(0.5)
#: gelu's float64 formula is trusted for x >= -10.5 sqrt 2 (erfc's argument t <= 10.5)
_GELU_PREMISE_LOW = -10.5 / _INV_SQRT2


def _special() -> ModuleType:
    import scipy.special  # noqa: PLC0415 (only erf and gelu need scipy)

    return scipy.special


def _gelu64(x: np.ndarray) -> np.ndarray:
    # x/2 * (1 + erf(x/sqrt2)) = x/2 * erfc(-x/sqrt2); erfc(-t) = 1 + erf(t) has no
    # cancellation for t >= 0 and erfc(t) none for t > 0.
    return (0.5 * x) * _special().erfc(-x * _INV_SQRT2)


#: operation -> the numpy ufunc that computes the same mathematical function, in the
#: precision it is called in.  The one home of this fact: the oracle's float64 formulas
#: (below), the CPU backend's float64 formulas (backends/cpu/transcendental.py) and the
#: sweep's raw float32 ufuncs (``conformance.exhaustive.numpy_float32``) read it; each
#: computes independently.  Operations absent here have no single numpy ufunc.
NUMPY_UFUNCS: dict[str, np.ufunc] = {
    "exp": np.exp,
    "exp2": np.exp2,
    "log": np.log,
    "log2": np.log2,
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
    "neg": np.negative,
    "abs": np.abs,
    "sign": np.sign,
    "sqrt": np.sqrt,
    "floor": np.floor,
    "ceil": np.ceil,
    "round": np.rint,
    "logical_not": np.logical_not,
}

_FORMULAS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    **{op: ufunc for op, ufunc in NUMPY_UFUNCS.items() if op in ROUNDED_OPS},
    "erf": lambda x: _special().erf(x),
    "rsqrt": lambda x: 1.0 / np.sqrt(x),
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "silu": lambda x: x / (1.0 + np.exp(-x)),
    "softplus": lambda x: np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x))),
    "gelu": _gelu64,
    "elu": np.expm1,  # only x <= 0 reaches it (x > 0 is a definitional segment)
}

#: the stated bound B (relative error <= B u) per formula, for finite nonzero x
_BOUNDS: dict[str, float] = {
    "exp": LIBM,
    "exp2": LIBM,
    "log": LIBM,
    "log2": LIBM,
    "sin": LIBM,
    "cos": LIBM,
    "tanh": LIBM,
    "erf": ERF,
    "rsqrt": 2.0 + 1.0,  # sqrt and the division: 2u, +1u for second-order terms
    "sigmoid": LIBM + 2.0,  # exp (condition <= 1 through 1/(1+t)), +1, /
    "silu": LIBM + 2.0,
    "softplus": 2 * LIBM + 1.0,  # exp, log1p (condition <= 1), the positive sum
    "elu": LIBM,
}


def error_bound(op: str, x: np.ndarray) -> np.ndarray | float:
    """The stated bound B: ``|float64_value(op, x) - f(x)| <= B u |f(x)| + eta``.

    A number for every operation except gelu, whose bound depends on x:
    ``B = ERFC + 3`` for x >= 0 and ``ERFC + 3 + 2 x**2`` for x < 0 (the
    rounded ``t = -x/sqrt 2`` carries 2u, amplified by erfc's condition number
    ``< 2 t**2 + 1 = x**2 + 1``).
    """
    if op == "gelu":
        x = np.asarray(x, dtype=F64)
        return ERFC + 3.0 + np.where(x < 0, 2.0 * x * x, 0.0)
    return _BOUNDS[op]


def float64_value(op: str, x: np.ndarray) -> np.ndarray:
    """The float64 formula of correctly rounded operation *op* at float32 *x* (float64)."""
    with np.errstate(all="ignore"):
        return _FORMULAS[op](np.asarray(x, dtype=F32).astype(F64))


# ---------------------------------------------------------------------------
# Detecting values too close to a binary32 rounding boundary
# ---------------------------------------------------------------------------

_LOW29 = np.uint64((1 << 29) - 1)
_HALF29 = 1 << 28
_MAG64 = np.uint64((1 << 63) - 1)
_MIN_NORMAL_BITS = np.uint64(0x3810000000000000)  # float64 bits of 2**-126
_NORMAL_SPAN = np.uint64(0x7FF0000000000000 - 0x3810000000000000)
_MIN_NORMAL = 2.0**-126
_SCALE149 = 2.0**149
_ETA149 = 2.0**-1060 * 2.0**149  # eta on the 2**-149 grid


def _all_normal(y: np.ndarray) -> bool:
    """Whether every element of the float64 array *y* lies in the normal binary32 range
    ``2**-126 <= |y| < inf``, decided by its two extremes (all of one sign; a NaN makes
    both extremes NaN, and the answer False)."""
    if not y.size:
        return True
    low, high = float(y.min()), float(y.max())
    return (low >= _MIN_NORMAL and high < math.inf) or (high <= -_MIN_NORMAL and low > -math.inf)


def near_boundary(y: np.ndarray, tolerance: np.ndarray | float) -> np.ndarray:
    """Mask of float64 *y* within ``tolerance * |y|`` (+ eta) of a binary32 rounding boundary.

    Normal binary32 range (``2**-126 <= |y| < inf``): the boundaries in the
    binade of ``y`` are the float64 values whose 29 low significand bits are
    ``2**28`` (the overflow threshold ``2**128 - 2**103`` included); the
    float64 ulp of ``y`` is at least ``|y| 2**-53``, so a distance of more than
    ``T = tolerance 2**53 + 2`` float64 ulps is more than ``tolerance |y|``,
    and a boundary of a neighbouring binade is at least ``2**27`` ulps away.
    The test ``|low29 - 2**28| <= T`` is done as one unsigned comparison.
    Below ``2**-126`` the grid is ``2**-149`` and ``z = |y| 2**149`` is exact,
    so the test is ``|frac(z) - 1/2| <= tolerance z + eta 2**149``.  NaN and
    +-inf are never flagged; ``tolerance`` may be an array of *y*'s shape.
    """
    bits = np.ascontiguousarray(y, dtype=F64).view(np.uint64)
    tol = np.asarray(tolerance, dtype=F64)
    if tol.ndim == 0:
        t = int(float(tol) * 2.0**53) + 2
        if t >= _HALF29 >> 1:
            raise ValueError("near_boundary: tolerance too large for the binade test")
        low = bits & _LOW29
        low -= np.uint64(_HALF29 - t)
        hard = low <= np.uint64(2 * t)
        if _all_normal(y):  # the range tests below would change nothing
            return hard
    else:
        limits = (tol * 2.0**53).astype(np.int64) + 2
        low = (bits & _LOW29).view(np.int64) - _HALF29
        hard = np.abs(low) <= limits
    magnitude = bits & _MAG64
    offset = magnitude - _MIN_NORMAL_BITS  # wraps below 2**-126
    hard &= offset < _NORMAL_SPAN
    small = magnitude < _MIN_NORMAL_BITS
    if small.any():
        where = np.flatnonzero(small)
        z = np.abs(bits[where].view(F64)) * _SCALE149
        tz = tol if tol.ndim == 0 else tol.reshape(-1)[where]
        hard[where] = np.abs(z - np.floor(z) - 0.5) <= tz * z + _ETA149
    return hard


# ---------------------------------------------------------------------------
# The scalar oracle for the flagged elements
# ---------------------------------------------------------------------------


def _scalar(op: str, values: np.ndarray) -> np.ndarray:
    """The scalar reference rule, element by element (float32 result)."""
    STATS["scalar"] += int(values.size)
    if op in _rounded.UNARY:
        rule = _rounded.UNARY[op]
        return np.array([rule(v)[0] for v in values.astype(F64).tolist()], dtype=F32)
    rule = getattr(_exact, op)
    return np.array([rule(v) for v in values.astype(F64).tolist()], dtype=F32)


def _scalar_bits(op: str, bits: int) -> int:
    value = _scalar(op, np.array([bits], dtype=U32).view(F32))
    return int(value.view(U32)[0])


# ---------------------------------------------------------------------------
# Segments: definitional ranges and certified plateaus
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Segment:
    """Bit patterns ``lo..hi`` (inclusive) whose result is *value* (bits) or the input."""

    lo: int
    hi: int
    value: int | None  #: result bits; None means the result is the input itself
    why: str

    def __len__(self) -> int:
        return self.hi - self.lo + 1


_POS_INF = 0x7F800000
_NEG_ZERO = 0x80000000
_NEG_INF = 0xFF800000

#: bit ranges (inclusive) on which f is monotone, per operation (see docs/exhaustive.md)
MONOTONE: dict[str, tuple[tuple[int, int], ...]] = {
    # increasing on the whole line: both halves (bits ascend with |x|)
    **{
        op: ((0x00000000, _POS_INF), (_NEG_ZERO, _NEG_INF))
        for op in ("exp", "exp2", "tanh", "erf", "sigmoid", "softplus", "elu")
    },
    # silu decreases on (-inf, -1.2785], gelu on (-inf, -0.7518]: |x| >= 2 resp. 1
    "silu": ((to_bits(-2.0), _NEG_INF),),
    "gelu": ((to_bits(-1.0), _NEG_INF),),
    # cos decreases on [0, pi] (and is even): |x| <= 3 on both signs (its plateau of 1)
    "cos": ((0x00000000, to_bits(3.0)), (_NEG_ZERO, to_bits(-3.0))),
}
_NAN_SEGMENTS = (
    Segment(0x7F800001, 0x7FFFFFFF, int(_NAN_BITS), "NaN input"),
    Segment(0xFF800001, 0xFFFFFFFF, int(_NAN_BITS), "NaN input"),
)
_DEFINITIONAL: dict[str, tuple[Segment, ...]] = {
    **{
        op: (Segment(0x80000001, _NEG_INF, int(_NAN_BITS), f"{op} of a negative number"),)
        for op in ("log", "log2", "rsqrt")
    },
    "elu": (Segment(0x00000001, _POS_INF, None, "elu(x) = x for x > 0"),),
}
#: a plateau shorter than this is left to the float64 path
_MIN_PLATEAU = 256

#: Identity segments: ``|x| <= T`` (zeros included) whose result is x itself.
#: sin(x) = x - e and tanh(x) = x - e with ``0 < e <= |x|**3/3`` for x > 0 (odd,
#: alternating series), and elu(x) = expm1(x) = x + e with ``0 < e <= x**2/2`` for
#: x < 0: e moves x towards zero by less than ``2**-25 |x|`` when ``|x| <= 2**-12``
#: (``x**2/3 <= 2**-25.58``) resp. ``|x| <= 2**-25``.  Half the binary32 spacing
#: below a normal ``|x|`` is at least ``2**-25 |x|`` (exactly that at a power of
#: two, where the spacing below halves), and ``2**-150`` for a subnormal (``e``
#: is far smaller there), so the result rounds back to x.
_IDENTITY: dict[str, tuple[tuple[int, int], ...]] = {
    **{
        op: ((0x00000000, to_bits(2.0**-12)), (_NEG_ZERO, to_bits(-(2.0**-12))))
        for op in ("sin", "tanh")
    },
    "elu": ((_NEG_ZERO, to_bits(-(2.0**-25))),),
}


def _plateau(op: str, lo: int, hi: int, from_low: bool) -> Segment | None:
    """The run of inputs at one end of a monotone range sharing that end's result."""
    start = lo if from_low else hi
    target = _scalar_bits(op, start)
    if (target & 0x7FFFFFFF) > 0x7F800000:  # a NaN result is no plateau
        return None
    good, bad = 0, hi - lo + 1  # offsets from start: good has the target, bad does not
    while bad - good > 1:
        middle = (good + bad) // 2
        b = start + middle if from_low else start - middle
        if _scalar_bits(op, b) == target:
            good = middle
        else:
            bad = middle
    if good + 1 < _MIN_PLATEAU:
        return None
    first, last = (start, start + good) if from_low else (start - good, start)
    # spot checks inside the run (insurance against a wrong monotonicity claim)
    for fraction in (0.0, 0.001, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1.0):
        b = first + round((last - first) * fraction)
        if _scalar_bits(op, b) != target:
            raise AssertionError(f"{op}: plateau {first:#x}..{last:#x} broken at {b:#x}")
    value = from_bits(target)
    return Segment(first, last, target, f"plateau {op} = {value!r}")


@functools.cache
def segments(op: str) -> tuple[Segment, ...]:
    """Every segment of *op* (NaN inputs, definitional ranges, certified plateaus), sorted."""
    found = [*_NAN_SEGMENTS, *_DEFINITIONAL.get(op, ())]
    for lo, hi in _IDENTITY.get(op, ()):
        for b in (lo, (lo + hi) // 2, hi):  # spot checks (insurance, like the plateaus')
            if _scalar_bits(op, b) != b:
                raise AssertionError(f"{op}: identity segment {lo:#x}..{hi:#x} broken at {b:#x}")
        found.append(
            Segment(lo, hi, None, f"{op}(x) rounds to x for |x| <= {abs(from_bits(hi))!r}")
        )
    for lo, hi in MONOTONE.get(op, ()):
        for from_low in (True, False):
            segment = _plateau(op, lo, hi, from_low)
            if segment is not None:
                found.append(segment)
    found.sort(key=lambda s: s.lo)
    merged: list[Segment] = []
    for segment in found:  # plateaus from both ends of a range may meet: drop overlaps
        if merged and segment.lo <= merged[-1].hi:
            if segment.hi <= merged[-1].hi:
                continue
            segment = Segment(merged[-1].hi + 1, segment.hi, segment.value, segment.why)
        merged.append(segment)
    return tuple(merged)


# ---------------------------------------------------------------------------
# Correctly rounded evaluation of the remaining (finite) inputs
# ---------------------------------------------------------------------------

_TINY_HALF = 2.0**-75  # silu/gelu: f(x) = x/2 + e, 0 < e < x**2 <= 2**-150


def _half_plus(x: np.ndarray) -> np.ndarray:
    """round(x/2 + e) for 0 < e < 2**-150 and |x| <= 2**-75: x/2, or its upper
    neighbour when x/2 is a midpoint (float32 result)."""
    h = x.astype(F64) * 0.5  # exact
    r = h.astype(F32)
    below = r.astype(F64) < h  # ties-to-even went down: take the neighbour above
    r[below] = np.nextafter(r[below], np.float32(np.inf))
    return r


def _finite_nonzero(x: np.ndarray) -> bool:
    """Whether every element of the float32 array *x* is finite and not +-0, decided by
    its two extremes (two reductions, not a pass that writes): all of one sign and both
    extremes finite.  A NaN makes both extremes NaN, and the answer False."""
    if not x.size:
        return True
    low, high = float(x.min()), float(x.max())
    return (low > 0.0 or high < 0.0) and -math.inf < low and high < math.inf


def _evaluate(op: str, x: np.ndarray) -> np.ndarray:
    """Correctly rounded *op* of float32 *x* (any values; no segments applied)."""
    out = np.empty(x.shape, F32)
    for start in range(0, x.size, _CHUNK):
        part = x[start : start + _CHUNK]
        out[start : start + _CHUNK] = _evaluate_chunk(op, part)
    return out


def _evaluate_chunk(op: str, x: np.ndarray) -> np.ndarray:
    bits = x.view(U32)
    STATS["evaluated"] += int(x.size)
    with np.errstate(all="ignore"):
        x64 = x.astype(F64)
        y = _FORMULAS[op](x64)
        result = y.astype(F32)
        tolerance = SAFETY * _U * error_bound(op, x64)
        hard = near_boundary(y, tolerance)
    if not _finite_nonzero(x):
        # zeros, infinities and NaNs (magnitude - 1 wraps for zeros): the scalar rule decides
        hard |= ((bits & _MAG) - np.uint32(1)) >= np.uint32(0x7F7FFFFF)
    if op == "gelu":  # erfc's premise holds for t <= 10.5 only: MPFR beyond (the -0
        hard |= x64 < _GELU_PREMISE_LOW  # plateau normally keeps these away)
    if op in ("silu", "gelu"):
        magnitude = bits & _MAG
        tiny = (magnitude != 0) & (magnitude <= np.uint32(to_bits(_TINY_HALF)))
        if tiny.any():
            result[tiny] = _half_plus(x[tiny])
            hard &= ~tiny
    positions = np.flatnonzero(hard)
    if positions.size:
        nan = (bits[positions] & _MAG) > _INF_BITS
        result[positions[nan]] = np.float32(np.nan)
        rest = positions[~nan]
        if rest.size:
            result[rest] = _scalar(op, x[rest])
    return result


# ---------------------------------------------------------------------------
# The exact class, vectorised
# ---------------------------------------------------------------------------

_SLOPE64 = float(_exact.LEAKY_RELU_SLOPE)


def _nan_to_canonical(bits: np.ndarray, out_bits: np.ndarray) -> None:
    nan = (bits & _MAG) > _INF_BITS
    out_bits[nan] = _NAN_BITS


def _to_integral(bits: np.ndarray, mode: str) -> np.ndarray:
    """floor / ceil / round (half even) on bit patterns, uint32 arithmetic only.

    With ``s = 150 - E`` fraction bits below the binary point (E the biased
    exponent, 127 <= E < 150), clearing the low s bits of the magnitude
    truncates, and adding ``2**s`` to the truncated magnitude adds one to the
    integer (a carry moves into the exponent field, which is the next binade).
    |x| >= 2**23, infinities and NaNs are integral already; |x| < 1 gives a
    signed zero or a signed one.
    """
    sign = bits & _SIGN
    magnitude = bits & _MAG
    biased = magnitude >> np.uint32(23)
    negative = sign != 0
    shift = np.clip(np.int32(150) - biased.astype(np.int32), 0, 23).astype(np.uint32)
    unit = np.left_shift(np.uint32(1), shift)
    mask = unit - np.uint32(1)
    frac = magnitude & mask
    truncated = magnitude & ~mask
    has_frac = frac != 0
    if mode == "floor":
        up = negative & has_frac
        small = np.where(negative & (magnitude != 0), _ONE_BITS, np.uint32(0))
    elif mode == "ceil":
        up = ~negative & has_frac
        small = np.where(~negative & (magnitude != 0), _ONE_BITS, np.uint32(0))
    else:
        half = unit >> np.uint32(1)
        # the integer's lowest bit sits at bit s (for E = 127 that is the exponent's
        # lowest bit, 1, and the integer is 1: odd, as it should be)
        odd = (truncated >> shift) & np.uint32(1)
        up = has_frac & ((frac > half) | ((frac == half) & (odd == 1)))
        small = np.where(magnitude > np.uint32(0x3F000000), _ONE_BITS, np.uint32(0))
    rounded = truncated + np.where(up, unit, np.uint32(0))
    out = np.where(biased < np.uint32(127), small, rounded) | sign
    out[magnitude > _INF_BITS] = _NAN_BITS
    return out


def _ieee_hard_settle(op: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """float32(y) for a correctly rounded float64 y = op(x), hard cases exactly."""
    result = y.astype(F32)
    hard = near_boundary(y, 2.0**-50)
    if hard.any():
        result[hard] = _scalar(op, x[hard])
    return result


def _exact_op(op: str, x: np.ndarray) -> np.ndarray:
    """The exact-class *op* of a 1-D float32 array, in cache-sized pieces."""
    if x.size <= _CHUNK:
        return _exact_chunk(op, x)
    out = np.empty(x.shape, output_dtype(op))
    for start in range(0, x.size, _CHUNK):
        out[start : start + _CHUNK] = _exact_chunk(op, x[start : start + _CHUNK])
    return out


def _exact_chunk(op: str, x: np.ndarray) -> np.ndarray:
    bits = x.view(U32)
    if op == "neg":
        return (bits ^ _SIGN).view(F32)
    if op == "abs":
        return (bits & _MAG).view(F32)
    if op == "logical_not":
        return (bits & _MAG) == 0
    if op in ("floor", "ceil", "round"):
        return _to_integral(bits, op).view(F32)
    magnitude = bits & _MAG
    nan = magnitude > _INF_BITS
    negative = (bits & _SIGN) != 0
    if op == "sign":
        out = np.where(negative, np.uint32(0xBF800000), _ONE_BITS)
        out[magnitude == 0] = 0
        out[nan] = _NAN_BITS
        return out.view(F32)
    if op == "relu":
        out = np.where(negative, np.uint32(0), bits)
        out[nan] = _NAN_BITS
        return out.view(F32)
    with np.errstate(all="ignore"):
        x64 = x.astype(F64)
        if op == "leaky_relu":
            product = (x64 * _SLOPE64).astype(F32)  # the exact product, rounded once
            out = np.where(negative, product.view(U32), bits)
            out[magnitude == 0] = bits[magnitude == 0]
            out[nan] = _NAN_BITS
            return out.view(F32)
        if op == "recip":
            return _ieee_hard_settle(op, x, 1.0 / x64)
        if op == "sqrt":
            return _ieee_hard_settle(op, x, np.sqrt(x64))
    raise KeyError(op)


# ---------------------------------------------------------------------------
# Public entry points
# ---------------------------------------------------------------------------


def _check_op(op: str) -> None:
    if op not in OPS:
        raise KeyError(f"{op!r} is not a Float32 unary operation; choose from {', '.join(OPS)}")


def certified(op: str, x: np.ndarray) -> np.ndarray:
    """The reference result of unary *op* on the float32 array *x* (any shape).

    float32 results (bool for logical_not).  A NaN result is the canonical quiet
    NaN, except that neg and abs copy the input's bits.
    """
    _check_op(op)
    x = np.asarray(x)
    if x.dtype != F32:
        raise TypeError(f"certified: expected a float32 array, got {x.dtype}")
    flat = np.ascontiguousarray(x).reshape(-1)
    if op in EXACT_OPS:
        return _exact_op(op, flat).reshape(x.shape)
    bits = flat.view(U32)
    out = np.empty(flat.shape, F32)
    out_bits = out.view(U32)
    remaining = np.ones(flat.shape, bool)
    for segment in segments(op):
        inside = (bits >= np.uint32(segment.lo)) & (bits <= np.uint32(segment.hi))
        if not inside.any():
            continue
        out_bits[inside] = bits[inside] if segment.value is None else np.uint32(segment.value)
        remaining &= ~inside
    positions = np.flatnonzero(remaining)
    if positions.size == flat.size:
        out = _evaluate(op, flat)
    elif positions.size:
        out[positions] = _evaluate(op, flat[positions])
    return out.reshape(x.shape)


def certified_range(op: str, start: int, stop: int) -> np.ndarray:
    """:func:`certified` of every bit pattern ``start <= b < stop``, in order."""
    _check_op(op)
    if not 0 <= start <= stop <= 1 << 32:
        raise ValueError(f"certified_range: bad range [{start:#x}, {stop:#x})")
    if op in EXACT_OPS:
        return _exact_op(op, _patterns(start, stop))
    out = np.empty(stop - start, F32)
    out_bits = out.view(U32)
    cursor = start
    for segment in segments(op):
        lo, hi = max(segment.lo, start), min(segment.hi + 1, stop)
        if lo >= hi:
            continue
        if cursor < lo:
            _evaluate_range(op, cursor, lo, out[cursor - start : lo - start])
        if segment.value is None:
            out_bits[lo - start : hi - start] = bit_patterns(lo, hi)
        else:
            out_bits[lo - start : hi - start] = segment.value
        cursor = hi
    if cursor < stop:
        _evaluate_range(op, cursor, stop, out[cursor - start :])
    return out


def _evaluate_range(op: str, start: int, stop: int, out: np.ndarray) -> None:
    """:func:`_evaluate` of the patterns ``start <= b < stop`` into *out*, each piece's
    patterns made where it is evaluated (they stay in the core's cache: a range's
    patterns are never made whole)."""
    for lo in range(start, stop, _CHUNK):
        hi = min(lo + _CHUNK, stop)
        out[lo - start : hi - start] = _evaluate_chunk(op, _patterns(lo, hi))


def constant_range(op: str, start: int, stop: int) -> int | None:
    """The result bits every pattern ``start <= b < stop`` has under *op* when the range
    lies wholly inside one segment of constant result (a plateau, NaN inputs, a
    definitional range: :func:`segments`), else None (an empty range too).  The
    exhaustive sweep compares such a chunk with the one value instead of an array of it
    (:func:`conformance.exhaustive.compare.expected_chunk`)."""
    _check_op(op)
    if op in EXACT_OPS or start >= stop:
        return None
    for segment in segments(op):
        if segment.lo <= start and stop - 1 <= segment.hi:
            return segment.value
    return None


def bit_patterns(start: int, stop: int) -> np.ndarray:
    """The uint32 bit patterns ``start <= b < stop`` (``0 <= start <= stop <= 2**32``),
    built in uint32 (several times cheaper than an arange in uint64 and a cast)."""
    patterns = np.arange(stop - start, dtype=U32)
    patterns += np.uint32(start)  # no wrap: start + (stop - start - 1) < 2**32
    return patterns


def _patterns(start: int, stop: int) -> np.ndarray:
    return bit_patterns(start, stop).view(F32)


def int32_to_float32(n: np.ndarray) -> np.ndarray:
    """Int32 -> Float32, one correct rounding, from first principles.

    The int32 value is exact in float64; :func:`oracle.binary32.round_float64_array`
    rounds it with integer arithmetic (not the hardware conversion the CPU
    backend uses).
    """
    return round_float64_array(np.asarray(n, dtype=np.int32).astype(F64))


def certified_int32(op: str, n: np.ndarray) -> np.ndarray:
    """The reference result of *op* on an Int32 array (the Int32 plan of an activation).

    relu keeps Int32 (``max(n, 0)``, exact); the others convert to Float32 first.
    """
    if op not in ACTIVATIONS:
        raise KeyError(f"{op!r} has no Int32 plan; choose from {', '.join(ACTIVATIONS)}")
    n = np.asarray(n, dtype=np.int32)
    if op == "relu":
        return np.maximum(n, np.int32(0))
    return certified(op, int32_to_float32(n))


def exact_points(op: str, x: np.ndarray, expected: np.ndarray | None = None) -> np.ndarray:
    """Mask of inputs whose mathematical result is exactly representable and finite nonzero.

    A ULP budget never applies there (nor to NaN, +-inf and +-0 results, which
    the comparison always checks exactly).  Every exact-class element is exact.
    """
    x = np.asarray(x, dtype=F32)
    if op in EXACT_OPS:
        return np.ones(x.shape, bool)
    bits = x.view(U32)
    magnitude = bits & _MAG
    biased = (magnitude >> np.uint32(23)).astype(np.int64)
    fraction = magnitude & np.uint32(0x7FFFFF)
    negative = (bits & _SIGN) != 0
    power_of_two = (fraction == 0) & (biased > 0) & (biased < 255)
    if op == "exp" or op == "sigmoid":
        mask = magnitude == 0
        if op == "sigmoid":
            mask |= bits == np.uint32(_POS_INF)
        return mask
    if op == "exp2":
        with np.errstate(invalid="ignore"):
            return (np.floor(x) == x) & (x >= -149) & (x <= 127)
    if op == "log2":
        subnormal_power = (biased == 0) & (fraction != 0) & ((fraction & (fraction - 1)) == 0)
        return ~negative & (power_of_two | subnormal_power) & (bits != _ONE_BITS)
    if op == "cos":
        return magnitude == 0
    if op in ("tanh", "erf"):
        return magnitude == _INF_BITS
    if op == "rsqrt":
        even = ((biased - 127) % 2) == 0
        subnormal_power = (biased == 0) & (fraction != 0) & ((fraction & (fraction - 1)) == 0)
        # a subnormal 2**k, k = -149 + bit position: even k
        position = np.zeros(x.shape, np.int64)
        if subnormal_power.any():
            position[subnormal_power] = np.log2(fraction[subnormal_power]).astype(np.int64)
        subnormal_even = subnormal_power & (((position - 149) % 2) == 0)
        return ~negative & ((power_of_two & even) | subnormal_even)
    if op == "elu":
        return (~negative & (magnitude != 0) & (magnitude < _INF_BITS)) | (
            bits == np.uint32(_NEG_INF)
        )
    return np.zeros(x.shape, bool)


# ---------------------------------------------------------------------------
# add, sub, mul, div: one float64 operation and an exact tie-break
# ---------------------------------------------------------------------------

_BINARY = ("add", "sub", "mul", "div")


def certified_binary(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IEEE binary32 ``add``/``sub``/``mul``/``div`` of float32 arrays, exactly.

    ``s = fl64(a op b)`` is one correctly rounded float64 operation, and
    rounding to nearest is monotone, so ``float32(s)`` is the correctly
    rounded binary32 result unless ``s`` is exactly a binary32 midpoint
    ``m`` while the exact result is not (on the side of ``m`` that
    ``a op b`` lies on, every value rounds like ``s`` otherwise).  That case
    is decided exactly: for add/sub the float64 TwoSum error ``e`` (``s + e
    = a op b``) gives the side; for div ``m * b`` is exact in float64 (25 + 24
    bits), ``a - m b`` is exact (Sterbenz), and its sign times the sign of
    ``b`` gives the side; a product of two binary32 values is exact in
    float64 (48 bits, far from float64 underflow), so mul never needs it.
    (By Figueroa's double-rounding theorem, 53 >= 2 * 24 + 2, the case never
    occurs in the normal range; the check makes the result independent of it.)
    Special values follow from IEEE float64 arithmetic itself.  1-D or any
    shape; the work is done in cache-sized pieces.
    """
    if op not in _BINARY:
        raise KeyError(f"{op!r}: certified_binary takes {', '.join(_BINARY)}")
    a = np.ascontiguousarray(a, dtype=F32)
    b = np.ascontiguousarray(b, dtype=F32)
    shape = np.broadcast_shapes(a.shape, b.shape)
    a, b = np.broadcast_to(a, shape).reshape(-1), np.broadcast_to(b, shape).reshape(-1)
    out = np.empty(a.size, F32)
    with np.errstate(all="ignore"):
        for start in range(0, a.size, _CHUNK):
            stop = start + _CHUNK
            out[start:stop] = _binary_chunk(op, a[start:stop], b[start:stop])
    return out.reshape(shape)


def _binary_chunk(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a64, b64 = a.astype(F64), b.astype(F64)
    if op == "mul":
        return (a64 * b64).astype(F32)
    if op == "div":
        s = a64 / b64
    else:
        if op == "sub":
            b64 = -b64
        s = a64 + b64
    r = s.astype(F32)
    # candidate exact midpoints: normal range, low 29 bits exactly 2**28; below 2**-126
    # every element is looked at (rare in practice)
    bits = s.view(np.uint64)
    magnitude = bits & _MAG64
    candidate = (bits & _LOW29) == np.uint64(_HALF29)
    candidate &= (magnitude - _MIN_NORMAL_BITS) < _NORMAL_SPAN
    small = np.flatnonzero(magnitude < _MIN_NORMAL_BITS)
    if small.size:  # the 2**-149 grid: z = |s| 2**149 is exact; a midpoint has frac 1/2
        z = np.abs(s[small]) * _SCALE149
        candidate[small] = (z - np.floor(z)) == 0.5
    where = np.flatnonzero(candidate)
    if where.size:
        r[where] = _fix_midpoints(op, s[where], a64[where], b64[where], r[where])
    return r


def _fix_midpoints(
    op: str, s: np.ndarray, a64: np.ndarray, b64: np.ndarray, r: np.ndarray
) -> np.ndarray:
    r64 = r.astype(F64)
    r64 = np.where(np.isinf(r64), np.copysign(2.0**128, s), r64)
    towards = np.where(s > r64, np.float32(np.inf), np.float32(-np.inf))
    neighbour = np.nextafter(r, towards).astype(F64)
    neighbour = np.where(np.isinf(neighbour), np.copysign(2.0**128, s), neighbour)
    midpoint = (s != r64) & ((s - r64) == (neighbour - s))
    if not midpoint.any():
        return r
    if op == "div":
        side = np.sign(a64 - s * b64) * np.sign(b64)
    else:
        virtual_b = s - a64
        side = np.sign((a64 - (s - virtual_b)) + (b64 - virtual_b))
    # side > 0: the exact result is above s: the neighbour of s on that side
    up, down = np.float32(np.inf), np.float32(-np.inf)
    above = np.where(r64 > s, r, np.nextafter(r, up))
    below = np.where(r64 < s, r, np.nextafter(r, down))
    fixed = np.where(side > 0, above, np.where(side < 0, below, r))
    return np.where(midpoint, fixed, r)
