"""Differential mode: the same calls on two backends, every disagreement by class.

``plancheck diff --backend A --backend B [--op NAME ...] [--profile P] [--seed S]
[--unsupported FEATURE ...] [--xfail FILE] [--report out.json|.md] [--workers N]``
compares, for every selected plan, exactly the calls ``plancheck run`` judges:
the boundary examples, witness calls and signalling-NaN calls
(:func:`conformance.judge.checks.boundary_calls`), one call per validation rule
(:func:`conformance.generate.validation.invalid_examples`), the generated valid
and invalid calls of the profile's budget (the same hypothesis digest and seed
as the run's first search pass, :func:`conformance.judge.checks.search_digest`)
and the corpus of every corpus plan.  Results are compared bit for bit,
NaN-ness standing in for NaN bits where the operation leaves payloads free;
two exceptions agree when they have the same type or when the specification
allows both.  Each disagreement says which side the oracle accepts and is
grouped into the deviation classes of :mod:`conformance.findings.finding` (the
class of the side the oracle rejects; ``bits-differ`` when it accepts both,
e.g. two FLOATING sums in different orders).  The hygiene rules are not part
of a comparison (``plancheck run`` judges them).

Every differing corpus case is classified, vectorised against the oracle's
corpus results; the first case of each class is re-run alone on both sides as
the class's example (a case that agrees alone is reported as differing only
inside its batch).  ``--unsupported`` features (and each backend's own) leave
the calls needing them uncompared, counted; ``--xfail`` marks the classes a
known-deviations entry covers as known (they do not fail the exit status).
``--workers`` is accepted for symmetry with ``run``: each backend runs in its
own host process (:mod:`conformance.host`), as in ``run``, and the comparison
in this one -- so neither backend's floating-point environment, patches or
state reach the other backend, the oracle or the comparison.  A host's
findings about its backend (its environment, results changed after return)
are hygiene: ``plancheck run`` judges them, the comparison does not.

Exit status: 0 when the backends agree on every call (or only on known
classes), 1 when they do not, 2 for a usage error, 3 when the comparison is
incomplete (interrupted, or the oracle failed) and no disagreement was found.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import hypothesis.core
import numpy as np
import pytest
from hypothesis import settings

from conformance.cli.messages import error_text, suggestion
from conformance.findings.authority import unsourced_rule
from conformance.findings.deviations import Deviation, load_deviations
from conformance.findings.failure import REPRO_LIMIT, show_arguments
from conformance.findings.finding import element_class, findings_of, group
from conformance.findings.refusals import refusal_evidence
from conformance.generate import corpus as corpus_module
from conformance.generate.strategies import calls, invalid_calls
from conformance.generate.validation import invalid_examples
from conformance.host.client import BackendHost, HostCrashed, HostLoadError, HostTimeout
from conformance.judge.checks import applies, boundary_calls, search
from conformance.judge.corpus_check import (
    _chunks,
    _corpus_reference,
    _single_case,
    _to_array,
    hosted_result,
)
from conformance.judge.profiles import PROFILES
from conformance.judge.runner import (
    OracleError,
    Outcome,
    Problem,
    agree,
    is_real_interrupt,
    run_call,
    watch_interrupts,
    wire_arguments,
)
from conformance.model.calls import Call
from conformance.model.capabilities import declared_by, features_of, parse_features
from conformance.model.sanitize import markdown_text, terminal_text
from conformance.report import failure_report
from conformance.report.markdown import _code_block, class_details
from conformance.report.table import counted
from conformance.report.terminal_table import render_table
from oracle import OperationPlan, resolvable_plans

__all__ = ["Comparison", "compare_call", "diff_plan", "main"]


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
    #: feature -> calls not compared because a backend does not support it
    not_supported: Counter[str] = field(default_factory=Counter)
    #: the features not compared (``--unsupported`` and both backends' own)
    unsupported: frozenset[str] = frozenset()
    _seen: set[Call] = field(default_factory=set)
    #: the compared calls a result was due for, and those either side raised on
    #: instead: which features a side refused (:mod:`conformance.findings.refusals`)
    due: list[Call] = field(default_factory=list)
    raised: set[Call] = field(default_factory=set)

    def supports(self, call: Call) -> bool:
        """Whether *call* is compared; a call needing an unsupported feature is counted."""
        if not self.unsupported:
            return True
        needed = features_of(call) & self.unsupported
        if needed:
            self.not_supported.update(needed)
            return False
        return True

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
    lines += [f"  arg {i}:      {text}" for i, text in enumerate(show_arguments(call))]
    lines.append(f"  oracle:     {report.expected}")
    for label, outcome in zip(labels, (first, second)):
        shown = failure_report(outcome, label)
        accepted = "accepted" if _accepted(outcome) else "REJECTED"
        lines.append(f"  {label}: {shown.actual}  [{accepted}]")
    for label, outcome in zip(labels, (first, second)):
        repro = failure_report(outcome, label).repro
        if len(repro) > REPRO_LIMIT:  # bounded as every printed repro line
            repro = (
                f"({len(repro)} characters, more than {REPRO_LIMIT}: the call's JSON is the "
                "diff report's `call` field, run by `plancheck repro --backend X @FILE`)"
            )
        lines.append(f"  reproduce on {label}: {repro}")
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
    if not comparison.supports(call) or unsourced_rule(call) is not None:
        return True  # a rule no source supports is compared no more than run judges it
    try:
        first = run_call(backends_[0], call, timeout=timeout)
        second = run_call(backends_[1], call, timeout=timeout)
    except OracleError as error:
        comparison.oracle_errors.append(f"{error} -- {call.repro()}")
        return True
    comparison.compared += 1
    if first.expectation.error is None:
        comparison.due.append(call)
        if Problem.UNEXPECTED_EXCEPTION in (first.problem, second.problem):
            comparison.raised.add(call)
    if _same(first, second):
        return True
    verdict, blamed = _side(first, second, comparison.labels)
    findings = findings_of(blamed) if not blamed.verdict.ok else []
    classes = [f.cls for f in findings if f.kind not in ("warning", "input modified")]
    if not classes:
        classes = ["bits-differ"]
    size = sum(getattr(a, "size", 0) for a in call.args) + len(call.args)
    needed = sorted(features_of(call))
    for cls in dict.fromkeys(classes):
        comparison.records.append({
            **({"features_needed": [needed], "raised": type(blamed.raised).__name__}
               if cls.startswith("raises-") else {}),
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
    """The corpus on both sides, vectorised.  Every differing case is classified
    against the oracle's corpus results (:func:`_corpus_classes`); the first case
    of each class is re-run alone on both sides for the class's example, and the
    class counts all its cases."""

    plan = comparison.plan
    pieces: list[list[np.ndarray]] = [[], []]
    raised: list[list[np.ndarray]] = [[], []]
    judged: list[np.ndarray] = []
    for chunk in _chunks(plan, level):
        size = chunk.args[0].size
        judged.append(np.full(size, comparison.supports(chunk)))
        for side, backend in enumerate(backends_):
            try:
                if not judged[-1][0]:
                    raise _NotCompared
                pieces[side].append(_to_array(_run_chunk(backend, plan, chunk, timeout)))
                raised[side].append(np.zeros(size, bool))
            except BaseException as error:  # compared case by case below
                if isinstance(error, KeyboardInterrupt) and is_real_interrupt(error):
                    raise
                pieces[side].append(np.full(size, np.nan, np.float32))
                raised[side].append(np.full(size, not isinstance(error, _NotCompared)))
    if not judged:
        return
    first, second = (np.concatenate(p) for p in pieces)
    failed = [np.concatenate(r) for r in raised]
    compared = np.concatenate(judged)
    comparison.corpus_cases += int(compared.sum())
    if first.dtype == np.bool_ or second.dtype == np.bool_:
        differ = first != second
    else:
        nan_bits = corpus_module._default_nan_bits(plan.operation)
        differ = first.view(np.uint32) != second.view(np.uint32)
        if not nan_bits:
            differ &= ~(np.isnan(first) & np.isnan(second))
    differ = (differ | (failed[0] != failed[1])) & compared
    comparison.corpus_differ += int(differ.sum())
    if not differ.any():
        return
    operands = corpus_module.level_operands(level, len(plan.operands))
    for cls, indices in _corpus_classes(plan, level, (first, second), failed, differ).items():
        index = indices[0]
        bits = tuple(int(o[index : index + 1].view(np.uint32)[0]) for o in operands)
        call = _single_case(plan, bits, f"corpus level {level} case {index}")
        before = len(comparison.records)
        compare_call(comparison, backends_, call, timeout)
        if len(comparison.records) > before:  # the case disagrees alone: its own classes
            comparison.records[before]["count"] += len(indices) - 1
            continue
        comparison.records.append({
            "backend": " vs ".join(comparison.labels),
            "operation": plan.operation,
            "plan": plan.describe(),
            "class": cls,
            "kind": "disagreement",
            "rule": "the results differ only inside the corpus batch (the case agrees alone)",
            "count": len(indices),
            "size": 0,
            "example": {"note": f"corpus level {level} case {index}", "repro": "",
                        "text": f"corpus level {level} case {index} differs inside its batch "
                        f"and agrees alone: {call.repro()}"},
        })  # fmt: skip


class _NotCompared(Exception):
    """A corpus chunk needing an unsupported feature: neither side runs it."""


def _run_chunk(backend: Any, plan: OperationPlan, chunk: Call, timeout: float | None) -> Any:
    """The result Tensor of a corpus *chunk* on *backend*: in its host (the backend's
    exception rebuilt and raised here, a hang as :class:`HostTimeout`), or in this
    process for a backend object a caller of :func:`diff_plan` passes."""
    if isinstance(backend, BackendHost):
        return hosted_result(
            backend.run(plan.operation, wire_arguments(chunk.args), {}, timeout, tag=chunk)
        )
    native = backend.execute(plan.operation, *(backend.from_tensor(a) for a in chunk.args))
    return backend.to_tensor(native)


def _corpus_classes(
    plan: OperationPlan, level: int, results: tuple[np.ndarray, np.ndarray],
    raised: list[np.ndarray], differ: np.ndarray,
) -> dict[str, list[int]]:  # fmt: skip
    """Class -> the differing corpus cases of that class: the class of the side the
    oracle rejects (``raises`` when it raised, else the element's class), the first
    side's when it rejects both, ``bits-differ`` when it accepts both."""
    expected, exact = _corpus_reference(plan, level)
    nan_bits = corpus_module._default_nan_bits(plan.operation)
    accepted = [
        corpus_module.compare(expected, r, nan_bits=nan_bits, exact=exact)[0] & ~f
        for r, f in zip(results, raised)
    ]
    by_class: dict[str, list[int]] = {}
    for index in np.flatnonzero(differ).tolist():
        a_ok, b_ok = bool(accepted[0][index]), bool(accepted[1][index])
        if a_ok and b_ok:
            cls = "bits-differ"
        else:
            side = 1 if a_ok else 0
            if raised[side][index]:
                cls = "raises"
            elif expected.dtype == np.bool_:
                cls = "wrong-value:bool"
            else:
                cls = "wrong-value:" + element_class(
                    float(expected[index]), float(results[side][index]), None
                )
        by_class.setdefault(cls, []).append(index)
    return by_class


def diff_plan(labels: tuple[str, str], backends_: tuple[Any, Any], plan: OperationPlan,
              profile: Any, timeout: float | None = 10.0,
              unsupported: frozenset[str] = frozenset()) -> Comparison:  # fmt: skip
    """Compare two backends on every call ``plancheck run`` judges for *plan* under
    *profile* (the module docstring lists them), leaving out the calls that need an
    *unsupported* feature."""

    comparison = Comparison(labels, plan, unsupported=unsupported)

    def body(call: Call) -> None:
        compare_call(comparison, backends_, call, timeout)

    # per check, as `plancheck run`'s items: a call is counted once per check
    for kind, deterministic, strategy, examples in (
        ("boundary", boundary_calls(plan), None, 0),
        ("generated", (), calls(plan), profile.max_examples),
        ("invalid", invalid_examples(plan), invalid_calls(plan), profile.invalid_examples),
    ):
        if not applies(kind, plan):
            continue
        comparison._seen.clear()
        for call in deterministic:
            compare_call(comparison, backends_, call, timeout)
        if strategy is None or strategy.is_empty:
            continue
        # the one search body of run's checks: the same calls as `plancheck run` draws
        search(strategy, settings(profile.settings(examples, shrink=False)), kind, plan, body)
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


#: the report formats of ``plancheck diff --report``
REPORT_SUFFIXES = (".json", ".md")


def _options_problem(arguments: argparse.Namespace) -> str | None:
    """The first usage error of the options besides the backends, or None."""
    report = getattr(arguments, "report", None)
    if report:
        if not report.lower().endswith(REPORT_SUFFIXES):
            return f"--report: diff writes a .json or .md report, got {report!r}"
        directory = Path(report).parent
        if not directory.is_dir():
            return f"--report {report}: the directory {directory} does not exist"
    try:
        parse_features(getattr(arguments, "unsupported", []) or [], "--unsupported")
    except ValueError as error:
        return str(error)
    return None


def _known(deviations: list[Deviation], labels: list[str], entry: dict[str, Any]) -> str | None:
    """The reason of the first known deviation covering a disagreement class (on
    either backend), or None."""
    for deviation in deviations:
        for plan in entry["plans"]:
            if any(deviation.covers(label, entry["operation"], plan, entry["class"],
                                    entry.get("raised"))
                   for label in labels):  # fmt: skip
                return deviation.reason or deviation.selector
    return None


def main(arguments: argparse.Namespace) -> int:
    """``plancheck diff`` (its options are declared in :mod:`conformance.cli`)."""

    labels = list(dict.fromkeys(arguments.backend))
    if len(labels) != 2:
        _say("plancheck diff: give exactly two different --backend options", file=sys.stderr)
        return 2
    known_ops = sorted({p.operation for p in resolvable_plans()})
    unknown = [op for op in arguments.op if op not in known_ops]
    if unknown:
        named = ", ".join(op + suggestion(op, known_ops) for op in unknown)
        _say(f"plancheck diff: unknown operation(s): {named} (see `plancheck plans`)",
             file=sys.stderr)  # fmt: skip
        return 2
    problem = _options_problem(arguments)
    if problem is not None:
        _say(f"plancheck diff: {problem}", file=sys.stderr)
        return 2
    loaded = [BackendHost(label) for label in labels]  # each backend only in its host
    try:
        for host in loaded:  # both import their backends at once; ensure() says how it went
            with contextlib.suppress(Exception):
                host.start()
        for label, host in zip(labels, loaded):
            try:
                declared = host.ensure().get("unsupported")
            except HostLoadError as error:
                problem = f"cannot load backend {label!r}: {error_text(error.error)}"
            except (HostCrashed, HostTimeout) as error:
                problem = f"cannot load backend {label!r}: {error}"
            else:
                problem = declared if isinstance(declared, str) else None
            if problem is not None:
                _say(f"plancheck diff: {problem}", file=sys.stderr)
                return 2
        return _compare(arguments, labels, loaded)
    finally:
        for host in loaded:
            host.close()


def _compare(arguments: argparse.Namespace, labels: list[str], loaded: list[BackendHost]) -> int:
    """:func:`main` once both backends are loaded in their hosts."""
    deviations: list[Deviation] = []
    try:
        unsupported = parse_features(getattr(arguments, "unsupported", []) or [])
        for backend in loaded:
            unsupported |= declared_by(backend)
        if getattr(arguments, "xfail", None):
            deviations = load_deviations(arguments.xfail)
    except (ValueError, pytest.UsageError) as error:
        _say(f"plancheck diff: {error}", file=sys.stderr)
        return 2
    profile = PROFILES[arguments.profile]
    seed = getattr(arguments, "seed", None)
    if seed is not None:  # as the plugin does: the seed decides every search
        profile = dataclasses.replace(profile, derandomize=False)
        hypothesis.core.global_force_seed = seed
    timeout = arguments.timeout or None
    pair = (labels[0], labels[1])
    per_operation: dict[str, Counter[str]] = {}
    records: list[dict[str, Any]] = []
    #: (the pair's label, operation) -> the features refused and supported
    evidence: dict[tuple[str, str], tuple[set[str], set[str]]] = {}
    oracle_errors: list[str] = []
    not_supported: Counter[str] = Counter()
    restore = watch_interrupts()
    interrupted = False
    try:
        for plan in resolvable_plans():
            if arguments.op and plan.operation not in arguments.op:
                continue
            comparison = diff_plan(pair, (loaded[0], loaded[1]), plan, profile, timeout,
                                   frozenset(unsupported))  # fmt: skip
            row = per_operation.setdefault(plan.operation, Counter())
            row.update(plans=1, calls=comparison.compared, corpus=comparison.corpus_cases,
                       disagree=comparison.disagreements)  # fmt: skip
            records.extend(comparison.records)
            where = (" vs ".join(pair), plan.operation)
            refused, supported = evidence.setdefault(where, (set(), set()))
            found = refusal_evidence(comparison.due, comparison.raised)
            refused.update(found[0])
            supported.update(found[1])
            oracle_errors.extend(comparison.oracle_errors)
            not_supported.update(comparison.not_supported)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        restore()
        if seed is not None:
            hypothesis.core.global_force_seed = None
    seed_text = f", seed {seed}" if seed is not None else ", seed: derandomized"
    _say(f"plancheck diff: {labels[0]} vs {labels[1]}, profile {profile.name}{seed_text}")
    rows = [(op, row["plans"], row["calls"], row["corpus"], row["disagree"])
            for op, row in per_operation.items()]  # fmt: skip
    table = render_table(("operation", "plans", "calls", "corpus", "disagree"), rows,
                         right=(1, 2, 3, 4))  # fmt: skip
    print(table)  # cells escaped by render_table
    if not_supported:
        shown = ", ".join(f"{name} ({n} calls)" for name, n in sorted(not_supported.items()))
        _say(f"not supported (not compared): {shown}")
    classes = [c.as_dict() for c in group(records, evidence)]
    for entry in classes:
        entry["known"] = _known(deviations, labels, entry)
    new = [c for c in classes if c["known"] is None]
    if classes:
        _say(f"disagreement classes: {len(classes)} ({len(new)} new, "
             f"{len(classes) - len(new)} known)")  # fmt: skip
        for entry in classes:
            plans = len(entry["plans"])
            in_plans = f" in {plans} plans" if plans > 1 else ""
            known = f"  [known: {entry['known']}]" if entry["known"] is not None else ""
            _say(f"  {entry['operation']}@{entry['class']}  {entry['count']} calls{in_plans}; "
                  f"{entry['rule']}{known}")  # fmt: skip
        for entry in new:
            _say(class_details(entry).replace(f"; paste as `{entry['selector']}: reason`", ""))
    for message in oracle_errors[:10]:
        _say(f"ORACLE ERROR (not a backend's fault): {message}")
    total = sum(row["calls"] for row in per_operation.values())
    cases = sum(row["corpus"] for row in per_operation.values())
    compared = f"({total} calls and {cases} corpus cases compared)"
    if new:
        status, closing = (
            1,
            (
                f"{labels[0]} and {labels[1]} DISAGREE: "
                f"{counted(len(classes), 'class', 'classes')} {compared}"
                + (" -- INCOMPLETE: interrupted" if interrupted else "")
            ),
        )
    elif interrupted:
        status = 3
        closing = f"INCOMPLETE (interrupted): no new disagreement in the {compared[1:-1]} so far"
    elif oracle_errors:
        status = 3
        closing = f"{len(oracle_errors)} oracle errors; otherwise {labels[0]} and {labels[1]} agree"
    elif classes:
        status = 0
        closing = (f"{labels[0]} and {labels[1]} agree except {len(classes)} known "
                   f"disagreement classes {compared}")  # fmt: skip
    else:
        status = 0
        closing = f"{labels[0]} and {labels[1]} agree on every call {compared}"
    _say(closing)
    report = getattr(arguments, "report", None)
    if report:
        document = {
            "format": "plancheck-diff/1",
            "backends": labels,
            "profile": profile.name,
            "seed": seed,
            "complete": not interrupted,
            "result": closing,
            "exit_status": status,
            "options": {"operations": list(arguments.op), "unsupported": sorted(unsupported),
                        "xfail": [d.selector for d in deviations], "timeout_s": timeout},
            "table": {op: dict(row) for op, row in per_operation.items()},
            "not_supported": dict(not_supported),
            "classes": classes,
            "oracle_errors": oracle_errors,
        }  # fmt: skip
        _write_report(Path(report), document)
        _say(f"plancheck diff report: {report}")
    return status


def _write_report(path: Path, document: dict[str, Any]) -> None:
    """The diff's document as JSON, or as Markdown (the closing line, the table, one
    line per class and each new class's details in fenced blocks)."""
    if path.suffix.lower() == ".json":
        path.write_text(json.dumps(document, indent=2, default=str) + "\n", encoding="utf-8")
        return
    lines = [f"# plancheck diff: {' vs '.join(document['backends'])}", "",
             markdown_text(document["result"]), "",
             "| operation | plans | calls | corpus | disagree |",
             "| --- | ---: | ---: | ---: | ---: |"]  # fmt: skip
    for op, row in document["table"].items():
        lines.append(f"| {markdown_text(op)} | {row.get('plans', 0)} | {row.get('calls', 0)} | "
                     f"{row.get('corpus', 0)} | {row.get('disagree', 0)} |")  # fmt: skip
    for entry in document["classes"]:
        known = f" (known: {entry['known']})" if entry["known"] is not None else ""
        lines += ["", f"## {markdown_text(entry['operation'] + '@' + entry['class'])}: "
                  f"{entry['count']} calls{markdown_text(known)}", ""]  # fmt: skip
        lines += _code_block(class_details(entry))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
