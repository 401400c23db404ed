"""Differential mode: the same calls on two backends, every disagreement by class.

``plancheck diff --backend A --backend B [--op NAME ...] [--profile P]`` runs
every boundary example, the generated valid and invalid calls of the
profile's budget and the corpus of every selected plan on both backends and
compares the results: bit for bit, NaN-ness standing in for NaN bits where
the operation leaves payloads free; two exceptions agree when they have the
same type or when the specification allows both (an invalid call may raise
one of several types).  Each disagreement says which side the oracle accepts and is
grouped into the deviation classes of :mod:`conformance.findings.finding` (the class
of the side the oracle rejects; ``bits-differ`` when it accepts both, e.g.
two FLOATING sums in different orders).  The hygiene rules are not part of
a comparison (``plancheck run`` judges them).

Exit status: 0 when the backends agree on every call, 1 when they do not,
2 for a usage error, 3 when the comparison is incomplete (interrupted, or the
oracle failed) and no disagreement was found.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import given, settings

import backends
from conformance.findings.finding import findings_of, group
from conformance.generate import corpus as corpus_module
from conformance.generate.strategies import boundary_examples, calls, invalid_calls
from conformance.judge.checks import applies
from conformance.judge.corpus_check import _chunks, _single_case, _to_array
from conformance.judge.profiles import PROFILES
from conformance.judge.reproducible import without_local_constants
from conformance.judge.runner import (
    OracleError,
    Outcome,
    agree,
    is_real_interrupt,
    run_call,
    watch_interrupts,
)
from conformance.model.calls import Call
from conformance.model.sanitize import terminal_text
from conformance.report import failure_report, show_value
from conformance.report.markdown import class_details
from conformance.report.terminal_table import render_table
from oracle import OperationPlan, resolvable_plans

__all__ = ["CORPUS_RERUNS", "Comparison", "compare_call", "diff_plan", "main"]

#: differing corpus cases re-run alone per plan, to classify them and give examples
CORPUS_RERUNS = 64


@dataclass
class Comparison:
    """What comparing two backends on one plan found."""

    labels: tuple[str, str]
    plan: OperationPlan
    compared: int = 0
    corpus_cases: int = 0
    corpus_differ: int = 0  #: corpus cases whose results differ (vectorised comparison)
    records: list[dict[str, Any]] = field(default_factory=list)
    oracle_errors: list[str] = field(default_factory=list)
    _seen: set[Call] = field(default_factory=set)

    @property
    def disagreements(self) -> int:
        """Calls that disagree, corpus cases included (each counted once)."""
        calls_ = sum(1 for r in self.records if not r["example"].get("note", "").startswith(
            "corpus"))  # fmt: skip
        return calls_ + self.corpus_differ


def _accepted(outcome: Outcome) -> bool:
    return outcome.verdict.ok


def _same(first: Outcome, second: Outcome) -> bool:
    if first.timed_out or second.timed_out:
        return False
    if (first.raised is None) != (second.raised is None):
        return False
    if first.raised is not None:  # the same type, or two types the specification allows
        same_type = type(first.raised) is type(second.raised)
        return same_type or (first.verdict.ok and second.verdict.ok)
    if first.actual is None or second.actual is None:
        return first.actual is second.actual
    return agree(first.actual, second.actual, first.expectation.nan_bits)


def _side(first: Outcome, second: Outcome, labels: tuple[str, str]) -> tuple[str, Outcome]:
    """Which side the oracle accepts, and the outcome whose class names the disagreement."""
    a_ok, b_ok = _accepted(first), _accepted(second)
    if a_ok and not b_ok:
        return f"the oracle accepts {labels[0]}, rejects {labels[1]}", second
    if b_ok and not a_ok:
        return f"the oracle accepts {labels[1]}, rejects {labels[0]}", first
    if a_ok and b_ok:
        return "the oracle accepts both", first
    return "the oracle rejects both", first


def _example(call: Call, first: Outcome, second: Outcome, labels: tuple[str, str],
             verdict: str) -> dict[str, Any]:  # fmt: skip
    """The example report of a disagreement: both sides, the oracle, repro lines."""
    report = failure_report(second if verdict.endswith(f"rejects {labels[1]}") else first,
                            labels[0])  # fmt: skip
    lines = [
        f"DISAGREEMENT: {labels[0]} vs {labels[1]}, operation {call.operation}: {verdict}",
        f"  plan:       {report.plan}",
    ]
    if call.note:
        lines.append(f"  call:       {call.note}")
    lines += [f"  arg {i}:      {show_value(a)}" for i, a in enumerate(call.args)]
    lines.append(f"  oracle:     {report.expected}")
    for label, outcome in zip(labels, (first, second)):
        shown = failure_report(outcome, label)
        accepted = "accepted" if _accepted(outcome) else "REJECTED"
        lines.append(f"  {label}: {shown.actual}  [{accepted}]")
    for label, outcome in zip(labels, (first, second)):
        lines.append(f"  reproduce on {label}: {failure_report(outcome, label).repro}")
    data = report.as_dict()
    data["text"] = "\n".join(lines)
    data["problem"] = f"disagreement: {verdict}"
    return data


def compare_call(comparison: Comparison, backends_: tuple[Any, Any], call: Call,
                 timeout: float | None) -> bool:  # fmt: skip
    """Run *call* on both backends; False (and a record per class) when they disagree."""
    if call in comparison._seen:
        return True
    comparison._seen.add(call)
    try:
        first = run_call(backends_[0], call, timeout=timeout)
        second = run_call(backends_[1], call, timeout=timeout)
    except OracleError as error:
        comparison.oracle_errors.append(f"{error} -- {call.repro()}")
        return True
    comparison.compared += 1
    if _same(first, second):
        return True
    verdict, blamed = _side(first, second, comparison.labels)
    findings = findings_of(blamed) if not blamed.verdict.ok else []
    classes = [f.cls for f in findings if f.kind not in ("warning", "input modified")]
    if not classes:
        classes = ["bits-differ"]
    size = sum(getattr(a, "size", 0) for a in call.args) + len(call.args)
    for cls in dict.fromkeys(classes):
        comparison.records.append({
            "backend": " vs ".join(comparison.labels),
            "operation": call.operation,
            "plan": call.plan.describe(),
            "class": cls,
            "kind": "disagreement",
            "rule": verdict,
            "count": 1,
            "size": size,
            "example": _example(call, first, second, comparison.labels, verdict),
        })  # fmt: skip
    return False


def _compare_corpus(comparison: Comparison, backends_: tuple[Any, Any], level: int,
                    timeout: float | None) -> None:  # fmt: skip
    """The corpus on both sides, vectorised; each differing case is re-run alone."""

    plan = comparison.plan
    pieces: list[list[np.ndarray]] = [[], []]
    for chunk in _chunks(plan, level):
        for side, backend in enumerate(backends_):
            try:
                native = backend.execute(
                    plan.operation, *(backend.from_tensor(a) for a in chunk.args)
                )
                pieces[side].append(_to_array(backend.to_tensor(native)))
            except BaseException as error:  # compared case by case below
                if isinstance(error, KeyboardInterrupt) and is_real_interrupt(error):
                    raise
                pieces[side].append(np.full(chunk.args[0].size, np.nan, np.float32))
    first, second = (np.concatenate(p) for p in pieces)
    comparison.corpus_cases += int(first.size)
    if first.dtype == np.bool_ or second.dtype == np.bool_:
        differ = first != second
    else:
        nan_bits = corpus_module._default_nan_bits(plan.operation)
        differ = first.view(np.uint32) != second.view(np.uint32)
        if not nan_bits:
            differ &= ~(np.isnan(first) & np.isnan(second))
    operands = corpus_module.level_operands(level, len(plan.operands))
    comparison.corpus_differ += int(differ.sum())
    for index in np.flatnonzero(differ)[:CORPUS_RERUNS].tolist():
        bits = tuple(int(o[index : index + 1].view(np.uint32)[0]) for o in operands)
        call = _single_case(plan, bits, f"corpus level {level} case {index}")
        compare_call(comparison, backends_, call, timeout)


def diff_plan(labels: tuple[str, str], backends_: tuple[Any, Any], plan: OperationPlan,
              profile: Any, timeout: float | None = 10.0) -> Comparison:  # fmt: skip
    """Compare two backends on every call the suite makes for *plan* under *profile*."""

    comparison = Comparison(labels, plan)
    for call in boundary_examples(plan):
        compare_call(comparison, backends_, call, timeout)

    def body(call: Call) -> None:
        compare_call(comparison, backends_, call, timeout)

    for strategy, examples in ((calls(plan), profile.max_examples),
                               (invalid_calls(plan), profile.invalid_examples)):  # fmt: skip
        if strategy.is_empty:
            continue
        body._hypothesis_internal_add_digest = (  # type: ignore[attr-defined]
            f"plancheck diff {plan.describe()}".encode()
        )
        with without_local_constants():  # the same calls as `plancheck run` draws
            settings(profile.settings(examples, shrink=False))(given(strategy)(body))()
    if applies("corpus", plan):
        _compare_corpus(comparison, backends_, profile.corpus_level, timeout)
    return comparison


# ---------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------


def _say(text: str, file: Any = None) -> None:
    """Print one line of ``plancheck diff`` output with the control characters of
    backend text (exception messages, class names built from exception types)
    made visible."""
    print(terminal_text(text, 1_000_000), file=file)


def main(arguments: argparse.Namespace) -> int:
    """``plancheck diff`` (its options are declared in :mod:`conformance.cli`)."""

    labels = list(dict.fromkeys(arguments.backend))
    if len(labels) != 2:
        _say("plancheck diff: give exactly two different --backend options", file=sys.stderr)
        return 2
    known = {p.operation for p in resolvable_plans()}
    unknown = [op for op in arguments.op if op not in known]
    if unknown:
        _say(f"plancheck diff: unknown operation(s): {', '.join(unknown)} (see `plancheck "
              f"plans`)", file=sys.stderr)  # fmt: skip
        return 2
    loaded = []
    for label in labels:
        try:
            loaded.append(backends.get(label))
        except (Exception, SystemExit, GeneratorExit) as error:
            _say(f"plancheck diff: cannot load backend {label!r}: {type(error).__name__}: "
                  f"{error}", file=sys.stderr)  # fmt: skip
            return 2
    profile = PROFILES[arguments.profile]
    timeout = arguments.timeout or None
    pair = (labels[0], labels[1])
    per_operation: dict[str, Counter[str]] = {}
    records: list[dict[str, Any]] = []
    oracle_errors: list[str] = []
    restore = watch_interrupts()
    interrupted = False
    try:
        for plan in resolvable_plans():
            if arguments.op and plan.operation not in arguments.op:
                continue
            comparison = diff_plan(pair, (loaded[0], loaded[1]), plan, profile, timeout)
            row = per_operation.setdefault(plan.operation, Counter())
            row.update(plans=1, calls=comparison.compared, corpus=comparison.corpus_cases,
                       disagree=comparison.disagreements)  # fmt: skip
            records.extend(comparison.records)
            oracle_errors.extend(comparison.oracle_errors)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        restore()
    _say(f"plancheck diff: {labels[0]} vs {labels[1]}, profile {profile.name}")
    table = render_table(
        ("operation", "plans", "calls", "corpus", "disagree"),
        [(op, row["plans"], row["calls"], row["corpus"], row["disagree"])
         for op, row in per_operation.items()],
        right=(1, 2, 3, 4),
    )  # fmt: skip
    print(table)  # cells escaped by render_table
    classes = [c.as_dict() for c in group(records)]
    if classes:
        _say(f"disagreement classes: {len(classes)}")
        for entry in classes:
            plans = len(entry["plans"])
            where = f" in {plans} plans" if plans > 1 else ""
            _say(f"  {entry['operation']}@{entry['class']}  {entry['count']} calls{where}; "
                  f"{entry['rule']}")  # fmt: skip
        for entry in classes:
            _say(class_details(entry).replace(f"; paste as `{entry['selector']}: reason`", ""))
    for error in oracle_errors[:10]:
        _say(f"ORACLE ERROR (not a backend's fault): {error}")
    total = sum(row["calls"] for row in per_operation.values())
    cases = sum(row["corpus"] for row in per_operation.values())
    if classes:
        _say(f"{labels[0]} and {labels[1]} DISAGREE: {len(classes)} classes "
              f"({total} calls and {cases} corpus cases compared)"
              + (" -- INCOMPLETE: interrupted" if interrupted else ""))  # fmt: skip
        return 1
    if interrupted:
        _say(f"INCOMPLETE (interrupted): no disagreement in the {total} calls and {cases} "
              f"corpus cases compared so far")  # fmt: skip
        return 3
    if oracle_errors:
        _say(f"{len(oracle_errors)} oracle errors; otherwise {labels[0]} and {labels[1]} agree")
        return 3
    _say(f"{labels[0]} and {labels[1]} agree on every call ({total} calls and {cases} corpus "
          f"cases compared)")  # fmt: skip
    return 0
