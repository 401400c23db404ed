"""Killing a mutant: the shipped suite's checks, run against one mutant backend.

:func:`kill` runs the checks of the judging engine for the mutant's
operations only, in the order of :data:`CHECKS` (boundary examples, corpus,
invalid calls, generated calls), plan by plan, and stops at the first that
fails.  The judging engine (:mod:`conformance.judge`) is imported here and
nowhere else in the package.
"""

from __future__ import annotations

from typing import Any

from conformance.classes.result import result_classes_hit
from conformance.generate.families import classes_hit
from conformance.judge.checker import Checker, HungCall, NonConformance
from conformance.judge.checks import CHECKS, applies
from conformance.judge.profiles import PROFILES
from conformance.mutants.catalogue import mutant_backend
from conformance.mutants.mutant import PUBLIC_MODULE
from oracle import resolvable_plans

__all__ = ["kill"]


def kill(name: str, profile: str = "ci") -> dict[str, Any]:
    """Run the suite's checks for mutant *name*'s operations; what killed it.

    Returns ``{"mutant", "operations", "fault", "killed", "check"}`` and, when
    killed, ``"plan"``, ``"classes"`` (the input classes of the failing call),
    ``"result_classes"`` (the result classes of its expected value), ``"note"``,
    ``"problem"``, ``"rule"`` and ``"report"`` (the failure report's text).
    *check* is the first check that failed, None for a survivor.  An unknown
    *name* or *profile* raises KeyError.
    """
    backend = mutant_backend(name)
    mutant = backend.mutant
    if profile not in PROFILES:
        raise KeyError(f"no profile {profile!r}: the profiles are {', '.join(PROFILES)}")
    reference = f"{PUBLIC_MODULE}:{name}"
    plans = [p for p in resolvable_plans() if p.operation in mutant.operations]
    for kind in CHECKS:
        for plan in plans:
            if not applies(kind, plan):
                continue
            checker = Checker(backend, reference, plan, kind, PROFILES[profile])
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
