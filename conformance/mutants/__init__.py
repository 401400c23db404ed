"""The mutant catalogue: realistic faulty backends that the suite must catch.

Each mutant is the CPU backend (:class:`backends.cpu.CPUBackend`) with one
fault a real kernel could have, injected by replacing the kernel of one
operation (or, for the private promotion tables and the allocation fault,
``execute``).  :data:`MUTANTS` maps each name to a :class:`Mutant` record --
the operations it breaks and the fault -- and every mutant is also a module
attribute, so it is a backend reference like any other::

    plancheck run --backend conformance.mutants:mul_round_toward_zero

The faults whose trigger is a class of the *result* (flush-to-zero of
subnormal results, overflow or saturation one step early, same-sign zero
extrema, Int32 results at the edge refused) live in
:mod:`conformance.mutants.result`, which registers them here: the catalogue
is both modules together.

``tests/test_mutants.py`` proves that the ``ci`` profile of the shipped suite
kills every one of them (running only the checks of the mutant's operations),
and ``python -m conformance.mutants`` prints the table of which check and
which boundary classes killed which mutant (``docs/mutants.md``).

The faults are chosen to be real and distinct: each one changes a result the
reference semantics fixes (``shared/spec/reference-semantics.md``), so a
mutant that survives means the suite lacks power, never that the mutant is
harmless.  (Two tempting candidates are *not* faults and are not here: adding
two binary32 numbers in float64 and rounding once is correctly rounded, and
numpy's pairwise ``np.sum`` is a valid order for a FLOATING ``reduce_sum``.)
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from backends.cpu import KERNELS, CPUBackend
from backends.cpu.convert import F32, F64, materialise
from backends.cpu.elementwise import new_array
from oracle import OperationPlan

__all__ = [
    "KNOWN_GAPS",
    "MUTANTS",
    "Mutant",
    "MutantBackend",
    "kill",
    "markdown_table",
    "mutant_backend",
]

U32 = np.dtype(np.uint32)
_TINY = np.float32(2.0**-126)
Kernel = Callable[..., Any]


@dataclass(frozen=True)
class Mutant:
    """One faulty backend: its *name*, the *operations* it breaks and the *fault*."""

    name: str
    operations: tuple[str, ...]
    fault: str
    kernels: tuple[tuple[str, Kernel], ...] = ()
    execute: Callable[..., Any] | None = None


class MutantBackend(CPUBackend):
    """The CPU backend with the kernels (or ``execute``) of one :class:`Mutant`."""

    mutant: Mutant

    def execute(
        self, operation: str, *args: Any, accumulator_dtype: Any = None, options: Any = None
    ) -> Any:
        override = self.mutant.execute
        if override is not None:
            return override(self, operation, args, accumulator_dtype, options)
        return super().execute(
            operation, *args, accumulator_dtype=accumulator_dtype, options=options
        )

    def correct_execute(
        self, operation: str, args: Any, accumulator_dtype: Any = None, options: Any = None
    ) -> Any:
        return CPUBackend.execute(
            self, operation, *args, accumulator_dtype=accumulator_dtype, options=options
        )


MUTANTS: dict[str, Mutant] = {}

#: Mutants the ``ci`` profile does not kill yet, with the witness call that
#: would (a gap of the strategies' boundary examples).  Empty: every mutant is
#: killed, and ``tests/test_mutants.py`` keeps it so.  The last two gaps
#: (``weak_int_via_float64``, ``conv_fused_multiply_add``) were closed by the
#: weak class WEAK_DOUBLE_ROUNDING and the rounded-products example of matmul
#: and conv_general.
KNOWN_GAPS: dict[str, str] = {}


def _register(mutant: Mutant) -> None:
    assert mutant.name not in MUTANTS, mutant.name
    MUTANTS[mutant.name] = mutant
    cls = type(
        mutant.name,
        (MutantBackend,),
        {
            "name": f"mutant:{mutant.name}",
            "mutant": mutant,
            "kernels": {**KERNELS, **dict(mutant.kernels)},
            "__doc__": f"Mutant {mutant.name} ({', '.join(mutant.operations)}): {mutant.fault}",
            "__module__": __name__,
        },
    )
    setattr(sys.modules[__name__], mutant.name, cls)


def mutant_backend(name: str) -> MutantBackend:
    """A fresh instance of mutant *name*."""
    return getattr(sys.modules[__name__], MUTANTS[name].name)()


def kernel(*operations: str, fault: str, name: str) -> Callable[[Kernel], Kernel]:
    """Register the decorated function as the kernel of *operations* in mutant *name*."""

    def decorate(function: Kernel) -> Kernel:
        _register(Mutant(name, operations, fault, tuple((op, function) for op in operations)))
        return function

    return decorate


def execute_override(*operations: str, fault: str, name: str) -> Callable[[Any], Any]:
    """Register the decorated ``execute(backend, operation, args, acc, options)``."""

    def decorate(function: Any) -> Any:
        _register(Mutant(name, operations, fault, (), function))
        return function

    return decorate


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=F32).view(U32)


def _float_inputs(plan: OperationPlan, args: Any) -> list[Any]:
    return [np.asarray(materialise(plan, i, a)) for i, a in enumerate(args[: len(plan.operands)])]


def _result(backend: Any, values: np.ndarray, dtype: np.dtype = F32) -> np.ndarray:
    out = new_array(backend, np.shape(values), dtype)
    out[...] = values
    return out


def _unary(function: Callable[[np.ndarray], np.ndarray]) -> Kernel:
    """A Float32 unary kernel computing ``function(float32 array)`` (its own faulty way)."""

    def compute(backend: Any, plan: OperationPlan, x: Any) -> np.ndarray:
        (v,) = _float_inputs(plan, (x,))
        with np.errstate(all="ignore"):
            values = np.asarray(function(v.astype(F32)))
        return _result(backend, values.astype(F32))

    return compute


def _round_to_bits(x: np.ndarray, bits: int) -> np.ndarray:
    """float64 *x* rounded to *bits* significant bits (nearest even; Veltkamp splitting)."""
    factor = float(2 ** (53 - bits) + 1)
    with np.errstate(all="ignore"):
        t = x * factor
        return np.where(np.isfinite(t), t - (t - x), x)


def _toward_zero(exact: np.ndarray) -> np.ndarray:
    """float64 values rounded to binary32 toward zero (overflow gives +-MAX_FINITE)."""
    with np.errstate(all="ignore"):
        nearest = exact.astype(F32)
        away = np.abs(nearest.astype(F64)) > np.abs(exact)
        toward = np.nextafter(nearest, np.float32(0.0), dtype=F32)
        return np.where(away & np.isfinite(exact), toward, nearest).astype(F32)


# ---------------------------------------------------------------------------
# The kill table (python -m conformance.mutants)
# ---------------------------------------------------------------------------


def kill(name: str, profile: str = "ci") -> dict[str, Any]:
    """Run the suite's checks for mutant *name*'s operations; what killed it.

    Returns ``{"mutant", "operations", "killed", "check", "plan", "classes",
    "example", "problem"}`` -- *check* is the first check that failed
    (boundary, corpus, invalid, generated), *classes* the input classes of
    the failing call and *result_classes* the result classes of its expected
    value.
    """
    from conformance.classes.result import result_classes_hit
    from conformance.generate.families import classes_hit
    from conformance.judge.checker import Checker, HungCall, NonConformance
    from conformance.judge.checks import CHECKS, applies
    from conformance.judge.profiles import PROFILES
    from oracle import resolvable_plans

    mutant = MUTANTS[name]
    backend = mutant_backend(name)
    plans = [p for p in resolvable_plans() if p.operation in mutant.operations]
    for kind in CHECKS:
        for plan in plans:
            if not applies(kind, plan):
                continue
            checker = Checker(backend, f"conformance.mutants:{name}", plan, kind, PROFILES[profile])
            try:
                CHECKS[kind](checker)
            except (NonConformance, HungCall) as failure:
                call = checker.killing_call
                classes = sorted(c.name for c in classes_hit(call)) if call is not None else []
                results = sorted(c.name for c in result_classes_hit(call)) if call else []
                report = failure.report
                return {
                    "mutant": name,
                    "operations": list(mutant.operations),
                    "fault": mutant.fault,
                    "killed": True,
                    "check": kind,
                    "plan": plan.describe(),
                    "classes": classes,
                    "result_classes": results,
                    "note": call.note if call is not None else "",
                    "problem": report.problem,
                    "rule": report.rule,
                    "report": report.text(),
                }
    return {
        "mutant": name,
        "operations": list(mutant.operations),
        "fault": mutant.fault,
        "killed": False,
        "check": None,
    }


def markdown_table(results: list[dict[str, Any]]) -> str:
    """``docs/mutants.md``: which check and which classes killed each mutant."""
    killed = sum(1 for r in results if r["killed"])
    lines = [
        "# Mutants: the suite's detection power",
        "",
        "Generated by `python -m conformance.mutants > docs/mutants.md` (the `ci` profile;",
        "`tests/test_mutants.py` checks that every mutant is killed and listed here).",
        "Each mutant is the CPU backend with one realistic fault (`conformance/mutants/`).",
        "The checks run in the order boundary examples, corpus, invalid calls, generated",
        "calls; *killed by* is the first that failed, with the failing call's input",
        "classes (for a corpus kill, the classes of the single failing case) and the",
        "result classes of its expected value (after `result:`).",
        "",
        f"{killed} of {len(results)} mutants killed by the `ci` profile"
        + (
            f"; {len(results) - killed} known gaps (see the end of the table)."
            if killed < len(results)
            else "."
        ),
        "",
        "| mutant | operations | fault | killed by | plan | failing call: classes / note | "
        "rule broken |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        if not r["killed"]:
            gap = KNOWN_GAPS.get(r["mutant"])
            if gap:
                lines.append(
                    f"| `{r['mutant']}` | {', '.join(r['operations'])} | {r['fault']} | "
                    f"**survives ci** (known gap) | | {gap} | |"
                )
                continue
            lines.append(
                f"| `{r['mutant']}` | {', '.join(r['operations'])} | {r['fault']} | "
                f"**SURVIVED** | | | |"
            )
            continue
        classes = ", ".join(r["classes"]) or "-"
        if r.get("result_classes"):
            classes += "; result: " + ", ".join(r["result_classes"])
        note = f" ({r['note']})" if r.get("note") else ""
        rule = r["rule"].replace("|", "/")
        lines.append(
            f"| `{r['mutant']}` | {', '.join(r['operations'])} | {r['fault']} | {r['check']} | "
            f"`{r['plan']}` | {classes}{note} | {rule} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:  # pragma: no cover - a generator for docs/mutants.md
    results = [kill(name) for name in MUTANTS]
    results.sort(key=lambda r: (not r["killed"], 0))  # known gaps last, otherwise catalogue order
    print(markdown_table(results), end="")
    survivors = {r["mutant"] for r in results if not r["killed"]}
    return 0 if survivors <= set(KNOWN_GAPS) else 1


# The faults register themselves in MUTANTS, in this order (an import cycle that is
# safe either way round: the fault modules need only the machinery above).  Run as
# a script, this file is __main__, and the catalogue is the importable
# conformance.mutants (imported, with its faults, by the line below).
if __name__ != "__main__":
    from conformance.mutants import elementwise as mutants_elementwise  # noqa: F401
    from conformance.mutants import result as result_mutants  # noqa: F401
    from conformance.mutants import structured as mutants_structured  # noqa: F401
else:  # pragma: no cover
    from conformance.mutants import main as _main

    sys.exit(_main())
