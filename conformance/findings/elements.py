"""The sort of one mismatching element of a wrong value: the ``<element>`` of the
deviation class ``wrong-value:<element>`` (:mod:`conformance.findings.finding`), and
what a failure report shows one element of (:mod:`conformance.findings.failure`).
"""

from __future__ import annotations

import math
from typing import Any

from oracle import binary32

__all__ = ["WRONG_VALUE_ELEMENTS", "element_class"]

_MIN_NORMAL = binary32.MIN_NORMAL


def _is_float(value: Any) -> bool:
    return isinstance(value, float)


def element_class(expected: Any, actual: Any, ulp: int | None) -> str:
    """The sort of one mismatching element (``signed-zero``, ``1-ulp`` ...)."""
    if isinstance(expected, str):  # an acceptance interval, printed
        if _is_float(actual) and math.isnan(actual):
            return "spurious-nan"
        return "outside-interval"
    if isinstance(expected, bool) or isinstance(actual, bool):
        return "bool"
    if not (_is_float(expected) and _is_float(actual)):
        return "integer"
    if math.isnan(expected):
        return "nan-bits" if math.isnan(actual) else "nan"
    if math.isnan(actual):
        return "spurious-nan"
    if expected == 0 and actual == 0:
        return "signed-zero"
    if math.isinf(expected):
        return "infinity"
    if math.isinf(actual):
        return "overflow"
    if expected == 0:
        return "zero"
    if abs(expected) < _MIN_NORMAL:
        return "subnormal"
    if math.copysign(1.0, expected) != math.copysign(1.0, actual):
        return "sign"
    return "1-ulp" if ulp == 1 else "many-ulps"


#: the element sorts of ``wrong-value:<element>``: :func:`element_class`'s, the
#: result-form ones (``dtype``, ``shape``; ``shape-or-dtype`` and ``type`` as before) and
#: ``accuracy`` (``1-ulp``, ``many-ulps`` and ``subnormal`` of a correctly rounded
#: operation, one class: :func:`conformance.findings.authority.reported_class`); and
#: ``exact-point`` (a correctly rounded operation's exact point, ``exp(0) = 1``, missed:
#: a special value of its own, never folded into ``accuracy``)
WRONG_VALUE_ELEMENTS = (
    "nan", "nan-bits", "spurious-nan", "signed-zero", "zero", "subnormal", "infinity",
    "overflow", "sign", "1-ulp", "many-ulps", "outside-interval", "integer", "bool",
    "shape-or-dtype", "type", "accuracy", "exact-point", "dtype", "shape",
)  # fmt: skip
