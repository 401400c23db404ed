"""A small test backend for the authority tests (tests/test_authority_*.py).

:class:`ProbeBackend` is the CPU backend with four faults, one per thing the judge
must tell apart:

* ``exp2`` is *not measured*: the adapter raises :class:`backends.errors.NotMeasured`
  before anything runs (the judge counts the calls, never a class);
* ``exp`` is declared composed (``composed_operations``) and its positive finite
  results are one ULP high: an accuracy class of the adapter's composition, resting on
  the reference (not counted as the library's);
* ``reduce_sum`` raises RuntimeError instead of ValueError/TypeError for bad axes and
  flags: exceptions of the wrong *type*, resting on plancheck's convention -- one class
  for the operation, whatever rule or plan raised it;
* ``mul`` wraps Int32 overflow instead of raising OverflowError: a SHALL of the
  specification (INT32_EXACT_CHECKED);
* ``conv_general`` refuses a negative padding (plancheck's convention reads it as a
  crop): one class ``conv-negative-padding``, resting on that convention.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from backends.cpu import CPUBackend
from backends.errors import NotMeasured


class ProbeBackend(CPUBackend):
    """The CPU backend with the faults of the module docstring."""

    name = "authority-probe"
    composed_operations: ClassVar[dict[str, str]] = {"exp": "exp2(x * log2(e)) (test composition)"}

    def execute(self, operation: str, *args: Any, **keywords: Any) -> Any:
        if operation == "conv_general" and _negative(args):
            raise ValueError("probe: padding must be >= 0")
        if operation == "exp2":
            raise NotMeasured("the probe has no exp2: not measured")
        if operation == "reduce_sum":
            try:
                return super().execute(operation, *args, **keywords)
            except (ValueError, TypeError) as error:
                raise RuntimeError(f"probe: {error}") from None
        if operation == "mul" and all(
            isinstance(a, np.ndarray) and a.dtype == np.int32 for a in args[:2]
        ):
            with np.errstate(all="ignore"):
                return np.asarray(np.multiply(args[0], args[1], dtype=np.int32))
        result = super().execute(operation, *args, **keywords)
        if operation == "exp" and isinstance(result, np.ndarray):
            result = result.copy()
            up = np.isfinite(result) & (result > 0) & (result < np.float32(3e38))
            result[up] = np.nextafter(result[up], np.float32(np.inf))
        return result


def _negative(args: tuple[Any, ...]) -> bool:
    """Whether a conv_general call's padding (its fourth argument) has a negative bound."""
    try:
        return any(bound < 0 for pair in args[3] for bound in pair)
    except (IndexError, TypeError):
        return False
