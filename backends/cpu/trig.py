"""float64 sin and cos of large binary32 arguments by a three-piece reduction.

numpy's float64 ``sin``/``cos`` leave their fast path at ``|x| >= 2**28``
(about six times slower there, and 40% of all binary32 bit patterns lie
there).  This kernel reduces those arguments itself in float64 arithmetic
(the oracle, :mod:`oracle.trig`, does it differently, in exact integers:
the two are checked against each other by the exhaustive sweep).

For ``|x| = m 2**E`` (``2**23 <= m < 2**24`` an integer, ``5 <= E <= 104``)
let ``C_E = 2**E 2/pi mod 4``; then ``|x| 2/pi = m C_E (mod 4)``.  The
table splits ``C_E = c1 + c2 + c3 + t``: ``c1`` is ``C_E`` cut to multiples
of ``2**-27`` (at most 29 bits), ``c2`` the next 29 bits (multiples of
``2**-56``, below ``2**-27``), ``c3`` the rest rounded to float64 (below
``2**-56``) and ``|t| <= 2**-110``.  Then

* ``m c1`` (at most 53 bits) and ``m c2`` are exact; ``m c1`` is reduced
  modulo 4 and to its nearest integer ``k`` exactly (``a = m c1 - k`` in
  ``[-1/2, 1/2]``, a multiple of ``2**-27``);
* ``a + m c2`` is split exactly by TwoSum into ``s + e``; ``s`` is brought
  back into ``[-1/2, 1/2]`` by an exact +-1 (and ``k`` adjusted);
* ``f = s + (e + m c3)``: ``m c3`` (below ``2**-32``) carries at most
  ``2**-86``, ``m t`` at most ``2**-86``, the inner sum (below ``2**-31``) one
  rounding of at most ``2**-85``: ``e + m c3`` is within ``2**-84`` of
  ``e + m (c3 + t)``, and the final sum adds one rounding.

So ``f`` is within ``2**-84 + u |f|`` of ``|x| 2/pi - q``; an element with
``|f| < 2**-30`` is returned *unsure* (the caller recomputes it with MPFR),
so ``f`` carries at most ``1.5 u`` and ``r = f fl(pi/2)`` at most ``3.5 u``.
sin and cos on ``|r| <= pi/4`` have condition numbers at most 1, so the
values are within one library call's error plus ``4 u``.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["LARGE_VALUE", "reduced_sin_cos"]

#: the first argument reduced here
LARGE_VALUE = 2.0**28
_FIRST_EXPONENT = 5  # E of 2**28 = 2**23 * 2**5
_PIO2 = np.pi / 2
_UNSURE = 2.0**-30


@functools.cache
def _pieces() -> np.ndarray:
    """[E - 5, piece]: c1, c2, c3 of C_E = 2**E 2/pi mod 4 for E = 5 .. 104."""
    import mpmath

    rows = []
    with mpmath.workprec(500):
        for e in range(_FIRST_EXPONENT, 105):
            c = mpmath.fmod(mpmath.ldexp(2 / mpmath.pi, e), 4)
            c1 = mpmath.floor(mpmath.ldexp(c, 27)) / 2**27
            c2 = mpmath.floor(mpmath.ldexp(c - c1, 56)) / 2**56
            rows.append((float(c1), float(c2), float(c - c1 - c2)))
    return np.array(rows, dtype=np.float64)


def reduced_sin_cos(name: str, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(float64 sin or cos, unsure mask) of float64 *x* holding binary32 ``|x| >= 2**28``."""
    magnitude = np.abs(x)
    bits = magnitude.astype(np.float32).view(np.uint32)
    exponent = (bits >> np.uint32(23)).astype(np.intp) - 150
    m = np.ldexp(magnitude, -exponent)  # the integer significand, exactly
    pieces = _pieces()
    row = exponent - _FIRST_EXPONENT
    p1 = m * pieces[row, 0]  # exact
    p1 -= 4.0 * np.floor(p1 * 0.25)  # modulo 4, exact
    k = np.rint(p1)
    a = p1 - k  # exact, in [-1/2, 1/2]
    p2 = m * pieces[row, 1]  # exact
    s = a + p2  # TwoSum: s + e = a + p2 exactly
    virtual = s - a
    e = (a - (s - virtual)) + (p2 - virtual)
    over, under = s > 0.5, s < -0.5
    s = np.where(over, s - 1.0, np.where(under, s + 1.0, s))  # exact (Sterbenz)
    k += over.astype(np.float64) - under.astype(np.float64)
    f = s + (e + m * pieces[row, 2])
    r = f * _PIO2
    q = k.astype(np.int64) & 3
    sin_r, cos_r = np.sin(r), np.cos(r)
    if name == "sin":  # sin, cos, -sin, -cos by quadrant; odd in x
        value = np.where(q & 1, cos_r, sin_r)
        value = np.where(q >= 2, -value, value)
        value = np.copysign(1.0, x) * value
    else:  # cos, -sin, -cos, sin by quadrant
        value = np.where(q & 1, sin_r, cos_r)
        value = np.where((q == 1) | (q == 2), -value, value)
    return value, np.abs(f) < _UNSURE
