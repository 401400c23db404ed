"""Cheap probes of a process's floating-point environment.

:func:`probe` measures, by arithmetic on numpy float32 / float64 arrays (the
same SSE/NEON unit the backends and the oracle use): flush-to-zero (a normal
times 0.5 giving a subnormal), denormals-are-zero (a subnormal scaled up to a
normal), the rounding mode (``1 + 0.75 ulp`` and its negation, which tell all
four IEEE modes apart) and numpy's error state.  Every operand is built from
bit patterns at run time (never a literal the bytecode compiler could fold
under another environment).  :func:`deviations` names what is not standard as
finding classes (``fp-environment:flush-to-zero``, ...).

The judge calls :func:`judge_environment_problem` at start and refuses to judge
in an environment that is not standard; the backend host probes around every
call and reports a change as a finding of the backend.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypedDict

import numpy as np

__all__ = [
    "DEFAULT_NUMPY_ERRORS",
    "Environment",
    "NumpyErrors",
    "deviations",
    "judge_environment_problem",
    "probe",
]

#: what ``np.seterr`` accepts for one kind of error
ErrorHandling = Literal["ignore", "warn", "raise", "call", "print", "log"]


class NumpyErrors(TypedDict):
    """numpy's error state, as ``np.geterr()`` returns it and ``np.seterr(**state)`` takes
    it back."""

    divide: ErrorHandling
    over: ErrorHandling
    under: ErrorHandling
    invalid: ErrorHandling


#: numpy's default error state (what ``np.seterr`` gives a fresh process)
DEFAULT_NUMPY_ERRORS: NumpyErrors = {
    "divide": "warn",
    "over": "warn",
    "under": "ignore",
    "invalid": "warn",
}

_SMALLEST_NORMAL = np.array([0x00800000], dtype=np.uint32).view(np.float32)
_HALF = np.array([0x3F000000], dtype=np.uint32).view(np.float32)
_SMALLEST_SUBNORMAL = np.array([0x00000001], dtype=np.uint32).view(np.float32)
_TWO_TO_30 = np.array([0x4E800000], dtype=np.uint32).view(np.float32)
_ONE = np.array([0x3FF0000000000000], dtype=np.uint64).view(np.float64)
_THREE_QUARTER_ULP = np.array([(1023 - 53) << 52 | 1 << 51], dtype=np.uint64).view(np.float64)


@dataclass(frozen=True)
class Environment:
    """What :func:`probe` saw."""

    flush_to_zero: bool
    denormals_are_zero: bool
    rounding: str  #: to-nearest, upward, downward, toward-zero
    numpy_errors: tuple[tuple[str, str], ...]


def probe() -> Environment:
    """The floating-point environment of the calling thread (a few microseconds)."""
    numpy_errors = tuple((kind, str(handling)) for kind, handling in sorted(np.geterr().items()))
    with np.errstate(all="ignore"):
        ftz = bool((_SMALLEST_NORMAL * _HALF)[0] == 0)
        daz = bool((_SMALLEST_SUBNORMAL * _TWO_TO_30)[0] == 0)
        up = bool((_ONE + _THREE_QUARTER_ULP)[0] > _ONE[0])
        down = bool((-_ONE - _THREE_QUARTER_ULP)[0] < -_ONE[0])
    rounding = {(True, True): "to-nearest", (True, False): "upward",
                (False, True): "downward", (False, False): "toward-zero"}[(up, down)]  # fmt: skip
    return Environment(ftz, daz, rounding, numpy_errors)


def deviations(environment: Environment) -> list[str]:
    """The finding classes of what is not standard in *environment* (empty: standard)."""
    found = []
    if environment.flush_to_zero:
        found.append("fp-environment:flush-to-zero")
    if environment.denormals_are_zero:
        found.append("fp-environment:denormals-are-zero")
    if environment.rounding != "to-nearest":
        found.append(f"fp-environment:rounding-{environment.rounding}")
    if dict(environment.numpy_errors) != DEFAULT_NUMPY_ERRORS:
        found.append("numpy-state:error-state")
    return found


def judge_environment_problem(seen: Environment | None = None) -> str | None:
    """Why the judge's own process cannot judge (None when its environment is standard):
    of *seen*, or of a fresh :func:`probe`."""
    seen = probe() if seen is None else seen
    found = deviations(seen)
    if not found:
        return None
    return (
        f"plancheck refuses to judge: its own floating-point environment is not standard "
        f"({', '.join(found)}; numpy error state {dict(seen.numpy_errors)}). Something loaded "
        f"into plancheck's process before the run (a sitecustomize, a plugin, an extension "
        f"built with -Ofast) changed it; run plancheck in a clean environment"
    )
