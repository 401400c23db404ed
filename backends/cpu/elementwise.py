"""Elementwise kernels with exact results: IEEE binary32 and checked Int32.

Every kernel receives ``(backend, plan, *forward_args)``, materialises its
operands as the plan says (:func:`backends.cpu.convert.materialise`), checks
shapes, calls ``backend.allocated()`` and writes one new result array.

Float32 arithmetic is numpy's float32 ufuncs, which are IEEE 754 binary32
operations (round to nearest even, subnormals, no FMA contraction, no wider
intermediates) for ``+ - * /``, ``sqrt``, ``fmod`` (exact), ``floor``,
``ceil`` and ``rint`` (half to even).  The rest is spelled out here:

* ``maximum``/``minimum``: IEEE 754-2019 -- NaN if either operand is NaN, and
  ``-0 < +0`` in either argument order (numpy's own ``maximum`` returns the
  first argument of an equal pair, so zeros are repaired from the bit
  patterns: ``max`` = AND of the two patterns, ``min`` = OR);
* ``neg``/``abs`` flip/clear the sign bit (NaN payloads kept);
* ``sign``: +-1, +0 for both zeros, NaN for NaN;
* ``relu(x) = maximum(x, +0)`` (relu(-0) = +0, NaN stays NaN);
* ``leaky_relu``: x if x >= 0 else round(0.01f * x), slope bits 0x3C23D70A;
* predicates and ``logical_not`` (``x == 0``) give bool arrays.

Int32 ``INT32_EXACT_CHECKED`` kernels never wrap.  They run a chunk of
:data:`INT_CHUNK` elements at a time: where the chunk's operand extremes
bound every exact result inside Int32 the int32 ufunc is exact; any other
chunk is computed exactly in int64 and range-checked (OverflowError).  The
int32 buffer is handed out -- and counted by ``backend.allocated()`` -- only
after every chunk has passed, so an overflow leaves the count unchanged.
Int32 ``pow`` by a weak exponent never forms a huge power (:func:`int_pow`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from oracle import Arithmetic, DType, OperationPlan

from .convert import (
    F32,
    I32,
    I64,
    INT32_MAX,
    INT32_MIN,
    broadcast_shape,
    check_int32_range,
    materialise,
)

__all__ = [
    "KERNELS",
    "LEAKY_RELU_SLOPE",
    "check_out",
    "ieee_maximum",
    "ieee_minimum",
    "new_array",
]

U32 = np.dtype(np.uint32)
SIGN = np.uint32(0x80000000)
MAGNITUDE = np.uint32(0x7FFFFFFF)
#: The fixed leaky_relu slope 0.01f, by its bit pattern.
LEAKY_RELU_SLOPE = np.array(0x3C23D70A, dtype=U32).view(F32)[()]


def new_array(backend: Any, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """The array a kernel writes its result into: the *out* of the caller's
    ``execute_into`` when one is pending (ValueError when it has another dtype or
    shape, before anything is written), else a new one, counted as one result
    allocation on *backend*."""
    out = backend.take_out() if hasattr(backend, "take_out") else None
    if out is None:
        backend.allocated()
        return np.empty(shape, dtype)
    check_out(out, dtype, shape)
    return out


def check_out(out: np.ndarray, dtype: np.dtype, shape: tuple[int, ...]) -> None:
    """ValueError unless *out* has the result's *dtype* and *shape*."""
    if out.dtype != dtype or out.shape != tuple(shape):
        raise ValueError(
            f"out is a {out.dtype} array of shape {out.shape}; the result of this call "
            f"is {np.dtype(dtype)} of shape {tuple(shape)}"
        )


def _shape(value: Any) -> tuple[int, ...]:
    return np.shape(value)


def _bits(value: Any) -> Any:
    return np.asarray(value, dtype=F32).view(U32)


# ---------------------------------------------------------------------------
# IEEE 754-2019 maximum / minimum
# ---------------------------------------------------------------------------


def ieee_maximum(a: Any, b: Any, out: np.ndarray) -> np.ndarray:
    """IEEE maximum of float32 operands into *out* (broadcast shape)."""
    np.maximum(a, b, out=out)
    _repair_zeros(a, b, out, np.bitwise_and)
    return out


def ieee_minimum(a: Any, b: Any, out: np.ndarray) -> np.ndarray:
    """IEEE minimum of float32 operands into *out* (broadcast shape)."""
    np.minimum(a, b, out=out)
    _repair_zeros(a, b, out, np.bitwise_or)
    return out


def _repair_zeros(a: Any, b: Any, out: np.ndarray, combine: np.ufunc) -> None:
    # Only a pair of zeros is ambiguous (numpy returns one of them): there
    # the AND of the patterns is +0 unless both are -0, the OR is -0 unless
    # both are +0.  A zero result against a nonzero operand is already right.
    zero = out == 0
    if zero.any():
        zero &= np.equal(a, b)
        bits = combine(_bits(a), _bits(b))
        out.view(U32)[zero] = np.broadcast_to(bits, out.shape)[zero]


# ---------------------------------------------------------------------------
# Float32 binary operations
# ---------------------------------------------------------------------------

_FLOAT_BINARY = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "elementwise_mul": np.multiply,
    "div": np.divide,
    "rem": np.fmod,  # C fmod: exact, sign of the dividend
}
_PREDICATES = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal}
_INT_BINARY = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "elementwise_mul": np.multiply,
}


def _binary_operands(plan: OperationPlan, a: Any, b: Any) -> tuple[Any, Any, tuple[int, ...]]:
    x = materialise(plan, 0, a)
    y = materialise(plan, 1, b)
    return x, y, broadcast_shape(plan.operation, _shape(x), _shape(y))


def _float_binary(backend: Any, plan: OperationPlan, a: Any, b: Any) -> np.ndarray:
    x, y, shape = _binary_operands(plan, a, b)
    out = new_array(backend, shape, F32)
    with np.errstate(all="ignore"):
        _FLOAT_BINARY[plan.operation](x, y, out=out)
    return out


#: elements per chunk of the checked Int32 kernels (operands and buffers stay in L2)
INT_CHUNK = 1 << 16


def _checked_binary(backend: Any, plan: OperationPlan, a: Any, b: Any) -> np.ndarray:
    """Exact Int32 add/sub/mul, OverflowError before a result is handed out.

    The work runs a chunk at a time in an int32 buffer that becomes the result
    only when every chunk has passed (``allocated()`` is called then): a
    chunk whose operand extremes prove every exact result fits Int32 uses the
    int32 ufunc (exact there); any other chunk is computed exactly in int64
    and range-checked.  Chunking keeps the extremes pass and the arithmetic
    on data already in cache.
    """
    x, y, shape = _binary_operands(plan, a, b)
    ufunc = _INT_BINARY[plan.operation]
    operation = plan.operation
    x, y = np.asarray(x, dtype=I32), np.asarray(y, dtype=I32)  # a weak int fits (planner)
    xf, yf = (np.ascontiguousarray(v).reshape(-1) for v in np.broadcast_arrays(x, y))
    buffer = np.empty(shape, I32)
    flat = buffer.reshape(-1)
    wide = None
    for start in range(0, flat.size, INT_CHUNK):
        stop = min(flat.size, start + INT_CHUNK)
        xc, yc, oc = xf[start:stop], yf[start:stop], flat[start:stop]
        if _fits_int32(operation, xc, yc):
            ufunc(xc, yc, out=oc)  # no element can leave Int32: exact
            continue
        if wide is None:
            wide = np.empty(min(flat.size, INT_CHUNK), I64)
        part = wide[: stop - start]
        ufunc(xc, yc, out=part, dtype=I64)
        check_int32_range(operation, int(part.min()), int(part.max()))
        oc[...] = part
    backend.allocated()
    return buffer


def _extremes(value: Any) -> tuple[int, int] | None:
    array = np.asarray(value)
    if array.size == 0:
        return None
    return int(array.min()), int(array.max())


def _fits_int32(operation: str, x: Any, y: Any) -> bool:
    """True when the operands' extremes prove every exact result fits Int32."""
    ex, ey = _extremes(x), _extremes(y)
    if ex is None or ey is None:
        return True  # an empty result
    (xlo, xhi), (ylo, yhi) = ex, ey
    if operation == "add":
        low, high = xlo + ylo, xhi + yhi
    elif operation == "sub":
        low, high = xlo - yhi, xhi - ylo
    else:
        bound = max(-xlo, xhi) * max(-ylo, yhi)
        low, high = -bound, bound
    return low >= INT32_MIN and high <= INT32_MAX


def arithmetic(backend: Any, plan: OperationPlan, a: Any, b: Any) -> np.ndarray:
    """add, sub, mul, elementwise_mul, div, rem (tensor/tensor or tensor/weak)."""
    if plan.compute is Arithmetic.INT32_EXACT_CHECKED:
        return _checked_binary(backend, plan, a, b)
    return _float_binary(backend, plan, a, b)


def extremum(backend: Any, plan: OperationPlan, a: Any, b: Any) -> np.ndarray:
    """maximum / minimum with IEEE 754-2019 semantics."""
    x, y, shape = _binary_operands(plan, a, b)
    out = new_array(backend, shape, F32)
    (ieee_maximum if plan.operation == "maximum" else ieee_minimum)(x, y, out)
    return out


def predicate(backend: Any, plan: OperationPlan, a: Any, b: Any) -> np.ndarray:
    """eq, ne, lt, le: IEEE comparisons (NaN unordered, -0 == +0) -> bool."""
    x, y, shape = _binary_operands(plan, a, b)
    out = new_array(backend, shape, np.dtype(np.bool_))
    _PREDICATES[plan.operation](x, y, out=out)
    return out


# ---------------------------------------------------------------------------
# Unary operations
# ---------------------------------------------------------------------------


def _unary_input(plan: OperationPlan, x: Any) -> np.ndarray:
    return np.asarray(materialise(plan, 0, x))


def neg(backend: Any, plan: OperationPlan, x: Any) -> np.ndarray:
    v = _unary_input(plan, x)
    out = new_array(backend, v.shape, F32)
    np.bitwise_xor(v.view(U32), SIGN, out=out.view(U32))
    return out


def abs_(backend: Any, plan: OperationPlan, x: Any) -> np.ndarray:
    v = _unary_input(plan, x)
    out = new_array(backend, v.shape, F32)
    np.bitwise_and(v.view(U32), MAGNITUDE, out=out.view(U32))
    return out


def sign(backend: Any, plan: OperationPlan, x: Any) -> np.ndarray:
    v = _unary_input(plan, x)
    out = new_array(backend, v.shape, F32)
    np.sign(v, out=out)
    np.add(out, np.float32(0.0), out=out)  # both zeros -> +0; NaN stays NaN
    return out


def _float_unary(ufunc: np.ufunc) -> Any:
    def kernel(backend: Any, plan: OperationPlan, x: Any) -> np.ndarray:
        v = _unary_input(plan, x)
        out = new_array(backend, v.shape, F32)
        with np.errstate(all="ignore"):
            ufunc(v, out=out)
        return out

    kernel.__name__ = ufunc.__name__
    return kernel


def recip(backend: Any, plan: OperationPlan, x: Any) -> np.ndarray:
    v = _unary_input(plan, x)
    out = new_array(backend, v.shape, F32)
    with np.errstate(all="ignore"):
        np.divide(np.float32(1.0), v, out=out)
    return out


def relu(backend: Any, plan: OperationPlan, x: Any) -> np.ndarray:
    v = _unary_input(plan, x)
    if plan.output is DType.Int32:
        out = new_array(backend, v.shape, I32)
        np.maximum(v, 0, out=out)
        return out
    out = new_array(backend, v.shape, F32)
    np.maximum(v, np.float32(0.0), out=out)
    np.add(out, np.float32(0.0), out=out)  # relu(-0) = +0
    return out


def leaky_relu(backend: Any, plan: OperationPlan, x: Any) -> np.ndarray:
    v = _unary_input(plan, x)
    out = new_array(backend, v.shape, F32)
    with np.errstate(all="ignore"):
        np.multiply(v, LEAKY_RELU_SLOPE, out=out)
    np.copyto(out, v, where=v >= 0)  # x >= 0 (so -0 stays -0); NaN -> NaN * slope
    return out


def logical_not(backend: Any, plan: OperationPlan, x: Any) -> np.ndarray:
    v = _unary_input(plan, x)
    out = new_array(backend, v.shape, np.dtype(np.bool_))
    np.equal(v, np.float32(0.0), out=out)
    return out


# ---------------------------------------------------------------------------
# Int32 pow with a weak integer exponent (the integer branch of pow)
# ---------------------------------------------------------------------------


def _int_root_floor(value: int, e: int) -> int:
    """The largest n >= 0 with n**e <= value (e >= 1, value >= 0)."""
    n = round(value ** (1.0 / e))
    while n**e > value:
        n -= 1
    while (n + 1) ** e <= value:
        n += 1
    return n


def int_pow(backend: Any, plan: OperationPlan, base: Any, exponent: Any) -> np.ndarray:
    """Exact checked ``base ** e`` for an Int32 base and a weak e in [0, 2**31 - 1].

    Never forms a huge power: 0, 1 and -1 are exact for every exponent; any
    |base| >= 2 overflows for e >= 32; otherwise |base| is clipped just past
    the largest magnitude whose power fits, so every int64 power stays below
    2**62, and clipped elements are overflows by construction.
    """
    b = np.asarray(materialise(plan, 0, base))
    e = materialise(plan, 1, exponent)
    operation = plan.operation
    if e == 0:
        out = new_array(backend, b.shape, I32)
        out.fill(1)  # 0 ** 0 = 1
        return out
    magnitude = np.abs(b.astype(I64))
    big = magnitude >= 2
    if e >= 32:
        if big.any():
            raise OverflowError(
                f"{operation}: |base| >= 2 raised to {e} leaves Int32 "
                f"(first such base {int(b[big].flat[0])})"
            )
        out = new_array(backend, b.shape, I32)
        np.copyto(out, b)
        if e % 2 == 0:
            out[b == -1] = 1
        return out
    limit = _int_root_floor(INT32_MAX + 1, e)  # |b| <= limit may fit (b negative)
    over = magnitude > limit
    if over.any():
        raise OverflowError(
            f"{operation}: {int(b[over].flat[0])} ** {e} leaves [{INT32_MIN}, {INT32_MAX}]"
        )
    wide = np.power(magnitude, e)
    if e % 2:
        wide = np.where(b < 0, -wide, wide)
    if wide.size:
        check_int32_range(operation, int(wide.min()), int(wide.max()))
    out = new_array(backend, b.shape, I32)
    np.copyto(out, wide, casting="unsafe")
    return out


KERNELS = {
    **dict.fromkeys(["add", "sub", "mul", "elementwise_mul", "div", "rem"], arithmetic),
    "maximum": extremum,
    "minimum": extremum,
    **dict.fromkeys(_PREDICATES, predicate),
    "logical_not": logical_not,
    "neg": neg,
    "abs": abs_,
    "sign": sign,
    "recip": recip,
    "sqrt": _float_unary(np.sqrt),
    "floor": _float_unary(np.floor),
    "ceil": _float_unary(np.ceil),
    "round": _float_unary(np.rint),
    "relu": relu,
    "leaky_relu": leaky_relu,
}
