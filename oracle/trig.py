"""sin and cos of large binary32 arguments: exact argument reduction, vectorised.

numpy's float64 ``sin``/``cos`` are fast up to ``|x| < 2**28`` and about six
times slower beyond, where the library reduces the argument modulo pi/2 the
slow way -- and 40% of all binary32 bit patterns lie there.  This module
reduces such arguments itself, exactly, with integer arithmetic on numpy's
uint64, and hands only the reduced argument (``|r| <= pi/4``, the library's
fast path) to ``np.sin``/``np.cos``.

The reduction (Payne and Hanek's idea, with the whole product kept exact)
-------------------------------------------------------------------------

A binary32 ``|x| >= 2**28`` is ``m * 2**E`` with an integer ``2**23 <= m <
2**24`` and ``5 <= E <= 104``.  Write ``F = x * 2/pi``; only ``F mod 4``
matters (sin and cos have period 4 in units of pi/2).  For each ``E`` the
table holds the integer

    N_E = floor(2**(E + 126) * 2/pi) mod 2**128,

computed once from ``mpmath`` at 400 bits (:func:`_table`), as four 32-bit
limbs.  Then ``R = m * N_E mod 2**128`` is computed exactly (four 56-bit
partial products with carries), and ``R * 2**-126`` equals ``F mod 4`` less
an error in ``[0, m 2**-126) < 2**-102`` (the floor, multiplied by m; the
reduction modulo 4 is exact).  Adding ``2**125`` (one half) and splitting
off the top two bits gives the nearest quadrant ``q`` and the signed
fraction ``f = F - q`` in ``[-1/2, 1/2)`` as a 126-bit integer; its
magnitude is converted to float64 in two 64-bit halves (three IEEE roundings:
relative error below ``2.01 u``, ``u = 2**-53``) -- the negative side skips
the two's-complement ``+1``, one more unit of ``2**-126``.  Whenever
``|f| < 2**-45`` the element is reported *unsure* (the caller settles it with
MPFR), so the absolute error ``< 2**-101.9`` is below ``2**-56.9 |f|``:
``|f|`` carries less than ``2.2 u``.  Then ``r = |f| * fl(pi/2)`` adds two
roundings (``fl(pi/2)`` and the product): ``r`` is within ``4.3 u`` of
``|f| pi/2``.

sin and cos of ``x = (q + f) pi/2`` are ``+-sin(r)`` or ``+-cos(r)`` by
quadrant; on ``|r| <= pi/4`` the relative condition numbers of sin and cos
are at most 1 and ``(pi/4) tan(pi/4) < 0.79``, so the value is within
``LIBM + 4.3 u`` (one library call on the reduced argument, the same premise
as every other library call of the oracle) plus a final rounding of nothing
(the sign is exact).  :data:`REDUCTION_ERROR` states the 6 added to ``LIBM``.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["LARGE", "REDUCTION_ERROR", "reduce_quadrant", "sin_cos"]

#: bit pattern of 2**28: from here on numpy's float64 sin/cos leave their fast path
LARGE = 0x4D800000
_E_FIRST, _E_LAST = 5, 104
_M32 = np.uint64(0xFFFFFFFF)
_LOW30 = np.uint64((1 << 30) - 1)
_HALF = np.uint64(1 << 29)  # one half at the top limb (bit 125 of the 128-bit fraction)
#: below this |f| an element is unsure (the truncation error is not yet negligible)
_UNSURE = 2.0**-45
_PIO2 = np.pi / 2  # fl(pi/2): relative error < 2**-53


#: what the reduction adds to the library call's error bound, in units of 2**-53
REDUCTION_ERROR = 6.0


@functools.cache
def _table() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The limbs (least significant first) of N_E for E = 5 .. 104, as uint64 arrays."""
    import mpmath

    with mpmath.workprec(400):  # 2**(104 + 126 + 2) * 2/pi needs ~232 bits before the point
        two_over_pi = 2 / mpmath.pi
        values = [
            int(mpmath.floor(mpmath.ldexp(two_over_pi, e + 126))) % (1 << 128)
            for e in range(_E_FIRST, _E_LAST + 1)
        ]
    return tuple(  # type: ignore[return-value]
        np.array([(v >> (32 * k)) & 0xFFFFFFFF for v in values], dtype=np.uint64) for k in range(4)
    )


def reduce_quadrant(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(q, negative f, r, unsure) for binary32 bit patterns with ``|x| >= 2**28`` (finite).

    ``|x| = (q + f) pi/2`` with ``q`` in 0..3 the quadrant modulo 4 (uint64),
    ``f`` in ``[-1/2, 1/2)``; *negative f* is ``f < 0`` and ``r ~ |f| pi/2``
    (float64, within 4.3u, see the module docstring); *unsure* marks the
    elements with ``|f| < 2**-45`` whose r is not certified.
    """
    magnitude = bits.astype(np.uint64) & np.uint64(0x7FFFFFFF)
    m = (magnitude & np.uint64(0x7FFFFF)) | np.uint64(0x800000)
    index = (magnitude >> np.uint64(23)).astype(np.intp) - (150 + _E_FIRST)
    if index.size and (index.min() < 0 or index.max() > _E_LAST - _E_FIRST):
        raise ValueError("reduce_quadrant: every |x| must be a finite binary32 >= 2**28")
    limbs = _table()
    carry = m * limbs[0].take(index)
    r0 = carry & _M32
    carry = (carry >> np.uint64(32)) + m * limbs[1].take(index)
    r1 = carry & _M32
    carry = (carry >> np.uint64(32)) + m * limbs[2].take(index)
    r2 = carry & _M32
    carry = (carry >> np.uint64(32)) + m * limbs[3].take(index)
    top = (carry + _HALF) & _M32  # + one half, modulo 2**128
    q = top >> np.uint64(30)
    t = top & _LOW30  # f + 1/2 = (t, r2, r1, r0) * 2**-126
    negative = t < _HALF
    g3 = np.where(negative, (_HALF - np.uint64(1)) - t, t - _HALF)  # |f|: top 29 bits
    g2 = np.where(negative, _M32 - r2, r2)
    g1 = np.where(negative, _M32 - r1, r1)
    g0 = np.where(negative, _M32 - r0, r0)
    high = ((g3 << np.uint64(32)) | g2).astype(np.float64)
    low = ((g1 << np.uint64(32)) | g0).astype(np.float64)
    magnitude_f = high * 2.0**-62 + low * 2.0**-126
    return q, negative, magnitude_f * _PIO2, magnitude_f < _UNSURE


def sin_cos(op: str, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(float64 value, unsure) of sin or cos (*op*) at float32 *x*, ``|x| >= 2**28`` finite.

    The value is within ``LIBM + REDUCTION_ERROR`` units of 2**-53 (relative)
    of the true one, except where *unsure* is set (settle those exactly).
    """
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    q, negative, r, unsure = reduce_quadrant(bits)
    sin_r, cos_r = np.sin(r), np.cos(r)
    signed_sin = np.where(negative, -sin_r, sin_r)  # sin of the signed reduced argument
    if op == "sin":  # sin(q pi/2 + rho): sin, cos, -sin, -cos by quadrant; odd in x
        value = np.where(q & np.uint64(1), cos_r, signed_sin)
        flip = (q >= np.uint64(2)) ^ ((bits & np.uint32(0x80000000)) != 0)
    elif op == "cos":  # cos, -sin, -cos, sin by quadrant; even in x
        value = np.where(q & np.uint64(1), signed_sin, cos_r)
        flip = (q == np.uint64(1)) | (q == np.uint64(2))
    else:
        raise KeyError(f"sin_cos: {op!r} is neither sin nor cos")
    return np.where(flip, -value, value), unsure
