"""A backend whose report must tell the whole story (issue 31, item 3; helper report31).

``Story`` is ``faulty_backend.SizeZeroRefusing`` (size-0 tensors refused; floor, exp
and sqrt faulty) with three more faults, each made to exercise one part of the report:

* ``add`` returns NaN everywhere on a rank-6 Float32 result: the class's only calls
  are 96-element ones, whose repro line is longer than the bound (2,000 characters);
* ``mul`` is 2 ULP low on a normal Float32 result and 1000 ULP low when the result is
  at least 1e30: the class's smallest example is a 2-ULP call, its worst element 1000;
* ``reduce_sum`` refuses ``keepdims=True``: its example shows the non-dtype arguments
  (``axis=...``, ``keepdims=True``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from faulty_backend import SizeZeroRefusing

from backends.cpu import CPUBackend

_MIN_NORMAL = np.float32(2.0**-126)


class Story(SizeZeroRefusing):
    """SizeZeroRefusing with the add, mul and reduce_sum faults above."""

    name = "story"

    def execute(self, operation: str, *args: Any, **options: Any) -> Any:
        if operation == "reduce_sum" and len(args) > 2 and args[2] is True:
            raise ValueError("reduce_sum: keepdims is not supported")
        result = super().execute(operation, *args, **options)
        if not isinstance(result, np.ndarray) or result.dtype != np.float32:
            return result
        if operation == "add" and result.ndim == 6:
            return np.full_like(result, np.nan)
        if operation == "mul":
            magnitude = np.abs(result)
            normal = np.isfinite(result) & (magnitude >= _MIN_NORMAL)
            step = np.where(magnitude >= np.float32(1e30), 1000, 2).astype(np.uint32)
            bits = result.view(np.uint32).copy()
            bits[normal] -= step[normal]  # toward zero: stays finite and normal
            return bits.view(np.float32)
        return result


class RefusesPositivePadding(CPUBackend):
    """The CPU backend, except that conv_general refuses a positive padding bound on an
    input whose last extent is odd (ValueError): the calls needing ``conv-padding``
    raise on some and compute on others, so the feature is not refused and the class
    is named after the exception, ``raises-ValueError``."""

    name = "refuses-positive-padding"

    def execute(self, operation: str, *args: Any, **options: Any) -> Any:
        if (
            operation == "conv_general"
            and len(args) > 3
            and isinstance(args[3], tuple)
            and any(isinstance(b, int) and b > 0 for pair in args[3] for b in pair)
            and np.shape(args[0])[-1] % 2 == 1
        ):
            raise ValueError("conv_general: positive padding is not supported")
        return super().execute(operation, *args, **options)
