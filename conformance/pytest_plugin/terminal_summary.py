"""The plancheck part of pytest's terminal summary.

Per backend: the conformance table (alarming results coloured where pytest
colours: a terminal, ``NO_COLOR`` unset, or ``--color=yes``), the verdict line
(``every operation conforms``, ``conforms except N known deviation classes``,
``NOT CONFORMING: ...``, or ``INCOMPLETE``), what was not judged, one line per
deviation class and the details of the new ones, the coverage of the plan x
boundary-class matrix; then the run's totals, plancheck's own errors, crashes,
oracle errors and known deviations that no longer fail.

The run starts with :func:`header_lines`.  Every line passes through
:func:`conformance.model.sanitize.terminal_text`: backend text (exception messages,
reprs, class names built from exception types) cannot reach the terminal as
control sequences.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from conformance.host.first_call import statement
from conformance.model.sanitize import terminal_text
from conformance.model.versions import backend_version, plancheck_version
from conformance.pytest_plugin.options import typed
from conformance.report.coverage_summary import coverage_line
from conformance.report.markdown import (
    TERMINAL_DETAILS,
    class_details,
    class_lines,
    not_judged_line,
    not_measured_line,
    not_supported_line,
)
from conformance.report.table import counted, failing_calls

__all__ = ["details_left_out", "header_lines", "write_summary"]

#: a terminal line longer than this is cut (with a visible marker)
_LINE_LIMIT = 20_000


def header_lines(state: Any) -> list[str]:
    """What the run is: plancheck's version, each backend with the version it runs,
    the profile, the seed (enough to repeat the run) and the number of plans."""
    operations = len({p.operation for p in state.plans})
    seed = (
        f"seed {state.seed} (repeat with --seed {state.seed})"
        if state.seed is not None
        else "seed: derandomized (the same calls every run)"
    )
    lines = [
        f"plancheck {plancheck_version()}: profile {state.profile.name} "
        f"({state.profile.max_examples} generated calls per plan), {seed}, "
        f"{counted(len(state.plans), 'plan')} of {counted(operations, 'operation')}"
    ]
    for label in state.labels:
        version = terminal_text(backend_version(state.backend(label)), 200)
        allowance = statement(getattr(state.backend(label), "info", {}))  # compile time
        lines.append(
            f"backend {terminal_text(label, 200)}: {version}{allowance and '; '}{allowance}"
        )
    return lines


def details_left_out(state: Any, classes: int, shown: int) -> str:
    """The line saying how many detail blocks of a backend's *classes* the terminal
    left out (it shows *shown*: the first :data:`TERMINAL_DETAILS` new ones) and where
    they are: the report files of the run, or the option that writes one.  Empty when
    none was left out."""
    left = classes - shown
    if left <= 0:
        return ""
    blocks = f"{left} detail block{'s' * (left != 1)} left out ({shown} of {classes} shown"
    blocks += ", new classes first)"
    readable = [p for p in state.report_paths if p.suffix.lower() in (".md", ".html")]
    paths = readable or list(state.report_paths)
    if paths:
        return f"{blocks}: every block is in {', '.join(str(p) for p in paths)}"
    option = typed(state.config, "report")
    return f"{blocks}: {option} out.md (or .html, .json) writes every block"


def write_summary(state: Any, terminalreporter: Any, exitstatus: Any) -> None:
    """The plancheck part of pytest's terminal summary for the plugin state *state*."""
    if state.is_worker or not state.labels:
        return
    complete = int(exitstatus) in (0, 1)
    interrupted = state.interrupted() or int(exitstatus) == 2

    def write(line: str) -> None:  # backend text may carry terminal escapes
        terminalreporter.write_line(terminal_text(line, _LINE_LIMIT))

    elapsed = time.time() - state.started
    classes = state.class_dicts()
    for label in state.table.backends():
        terminalreporter.write_sep("=", f"plancheck conformance: {terminal_text(label, 200)}")
        mine = [c for c in classes if c["backend"] == label]
        known = len([c for c in mine if c["known"] is not None])
        differences = len([c for c in mine if c["known"] is None and not c.get("judged", True)])
        # the table's cells are escaped before rich draws them (conformance.report.terminal_table):
        # its lines, coloured where pytest colours, are written as they are
        colour = bool(getattr(terminalreporter, "hasmarkup", False))
        text = state.table.format_text(
            label, complete, known, colour=colour, classes=len(mine), differences=differences
        )
        for line in text.splitlines():
            terminalreporter.write_line(line)
        if state.not_supported.get(label):
            write(not_supported_line(state.not_supported[label]))
        for line in not_measured_line(state.not_measured_entries(label)):
            write(line)
        if state.not_judged.get(label):
            write(not_judged_line(state.not_judged[label]))
        for line in class_lines(mine):
            write(line)
        new = [c for c in mine if c["known"] is None and c.get("judged", True)]
        new += [c for c in mine if c["known"] is None and not c.get("judged", True)]
        left_out = details_left_out(state, len(mine), min(len(new), TERMINAL_DETAILS))
        if left_out and len(new) > TERMINAL_DETAILS:
            write(f"details of the first {TERMINAL_DETAILS} of {len(new)} new classes follow")
        for entry in new[:TERMINAL_DETAILS]:
            for line in class_details(entry).splitlines():
                write(line)
        if left_out:
            write(left_out)
        coverage = state.coverage_summary.get(label)
        if interrupted:
            write(
                f"coverage: not judged, the run was interrupted after {state.finished} of "
                f"{counted(state.collected_items, 'test item')} (the table shows what finished)"
            )
        elif coverage:
            write(
                f"coverage: {coverage_line(coverage, coverage.get('excused_by') or ())}"
                + ("" if not coverage["missing"] else " -- INCOMPLETE, the run fails:")
            )
            for line in coverage["missing"][:20]:
                write(f"  missing {line}")
        partial = state.partially_selected.get(label, 0)
        if partial:
            write(
                f"coverage not enforced for {partial} plan{'s' * (partial != 1)} whose checks "
                "were only partly selected (-k, -m or node ids)"
            )
    if interrupted and not state.table.backends():
        write("plancheck: INCOMPLETE (interrupted before any test item finished): no verdict")
    totals = [state.table.totals(label) for label in state.table.backends()]
    stats = getattr(terminalreporter, "stats", {})
    failed_items = len(stats.get("failed", ()))
    xfailed_items = len(stats.get("xfailed", ()))
    examples = sum(t["examples"] for t in totals)
    cases = sum(t["corpus_cases"] for t in totals)
    if totals:
        write(
            f"plancheck: {examples} examples and {cases} corpus cases in {elapsed:.1f} s "
            f"({examples / max(elapsed, 1e-9):.0f} examples/s), profile {state.profile.name}"
        )
    if any(t["failed"] or t["corpus_failed"] for t in totals) or classes or failed_items:
        xfailed_text = f", {xfailed_items} xfailed" if xfailed_items else ""
        calls = failing_calls(
            sum(t["failed"] for t in totals), sum(t["corpus_failed"] for t in totals)
        )
        write(
            f"plancheck failures: {calls}"
            f" in {counted(len(classes), 'deviation class', 'deviation classes')} "
            f"(pytest: {counted(failed_items, 'failed item')}{xfailed_text})"
        )
    for error in state.errors[:3]:  # plancheck's own failures (pytest runs with --tb=no)
        write(f"plancheck INTERNAL ERROR (please report it): {error}")
    if len(state.errors) > 3:
        write(f"... {len(state.errors) - 3} more internal errors in the report file")
    oracle_title = "oracle errors (not the backend's fault)"
    for title, entries in (("crashes", state.crashes), (oracle_title, state.oracle_errors)):
        if entries:
            capped = " (at most 3 of each check)" if entries is state.oracle_errors else ""
            write(f"plancheck {title}: {counted(len(entries), 'call')}{capped}")
            for entry in entries[:10]:
                write(
                    f"  {entry.get('operation')}: {entry.get('problem')} -- "
                    f"{entry.get('plan')} [{entry.get('test', '').rpartition('::')[2]}]"
                )
    strict = " -- the run fails (strict)" if state.stale_fails() else ""
    for stale in state.stale_deviations():
        write(f"plancheck: listed deviation no longer fails: {stale['selector']} "
              f"({stale['reason']}){strict}")  # fmt: skip
    for entry in state.respelled_deviations():
        write(
            f"plancheck: usage error: the known deviation {entry['selector']} names a class "
            f"now spelt {entry['now']} (an unexpected exception is named after a feature "
            "only when the backend refused every call needing it); respell the entry"
        )
    if state.report_paths:
        heading = "plancheck report" + "s" * (len(state.report_paths) > 1)
        write(f"{heading}: {', '.join(str(p) for p in state.report_paths)}")
    if interrupted:
        _quiet_interrupt_banner(terminalreporter)


def _quiet_interrupt_banner(terminalreporter: Any) -> None:
    """pytest ends an interrupted session with a ``!!! KeyboardInterrupt !!!`` banner and
    the place the exception was raised -- here always a line of plancheck's signal
    handler (:func:`conformance.judge.runner.watch_interrupts`), a traceback that says
    nothing the summary above does not.  The banner stays, as a plain statement."""
    memo = getattr(terminalreporter, "_keyboardinterrupt_memo", None)
    crash = getattr(memo, "reprcrash", None)
    if memo is not None and dataclasses.is_dataclass(crash) and not isinstance(crash, type):
        # without "KeyboardInterrupt" in the message pytest prints the banner only
        memo.reprcrash = dataclasses.replace(crash, message="interrupted (Ctrl-C or SIGTERM)")
