"""``plancheck exhaustive``: run, resume and summarise exhaustive sweeps.

Exit status (docs/exhaustive.md):

====  =====================================================================
0     every selected plan has a verdict for every selected shard, from
      records of the current backend build and oracle, and all conform;
      ``--prune``: the state file was pruned (or had nothing to prune)
1     non-conformance was found (in this run or in the recorded evidence)
2     usage or input error: an unknown plan, backend or option value, a
      state path that cannot hold a state file, an output file that cannot
      be written -- reported before any work
3     incomplete, with nothing non-conforming found: interrupted (SIGINT,
      SIGTERM), a shard without a verdict (a lost worker), a damaged or
      foreign state file, or (``--table``, ``--certification``) a plan not
      covered in full
====  =====================================================================

The options are a table (:data:`OPTIONS`) shared with the pytest plugin
:mod:`conformance.exhaustive.pytest_plugin`, which offers the sweep's subset as
``--exhaustive-NAME``.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn, TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    ProgressColumn,
    TaskProgressColumn,
    TextColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as RichProgress
from rich.table import Column
from rich.text import Text

from conformance.exhaustive import sweep as X
from conformance.exhaustive.state import StateError, Store, backend_identity
from conformance.exhaustive.summary import (
    PlanSummary,
    accuracy_table,
    certified_error,
    error_text,
    summarise,
)
from conformance.host import malloc
from conformance.model.sanitize import terminal_line
from oracle import vectorised as V

__all__ = ["ITEMS", "OPTIONS", "SWEEP_OPTIONS", "add_arguments", "main", "select"]

#: the sweep's pytest items (:mod:`conformance.exhaustive.items`), run by path by ``--jobs``
ITEMS = Path(__file__).resolve().with_name("items.py")


def _int_in(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: an integer in [low, high]."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is outside [{low}, {high}]")
        return value

    return parse


def _seconds(text: str) -> float:
    """An argparse type: a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is not a positive number of seconds")
    return value


def _shard(text: str) -> tuple[int, int]:
    try:
        return X.parse_shard(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


#: (name, argparse keyword arguments) of every option of ``plancheck exhaustive``
OPTIONS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("backend", {"default": "cpu", "help": "cpu, generic, numpy-float32, module:attr"}),
    ("op", {"default": "all", "help": "a unary operation, a comma list, or all"}),
    ("dtype", {"choices": ["Float32", "Int32", "both"], "default": "both",
               "help": "input dtype (Int32 only for the activations)"}),
    ("shard", {"type": _shard, "default": None, "help": "run only shard I/N"}),
    ("shards", {"type": _int_in(1, 1 << 32), "default": None,
                "help": f"shard count N (default {X.DEFAULT_SHARDS}; with --sample K, 512 K: "
                "one 2**23/K slice of every binade)"}),
    ("sample", {"type": _int_in(1, 1 << 32), "default": 1,
                "help": "K: only every K-th shard (a 1/K stratified sample)"}),
    ("ulp-budget", {"type": _int_in(0, 1 << 32), "default": 0,
                    "help": "ULP budget, correctly rounded ops"}),
    ("state", {"default": str(X.DEFAULT_STATE),
               "help": "state file (resumption, evidence; default %(default)s, in the "
               "current directory)"}),
    ("fresh", {"action": "store_true", "help": "check every shard again (records are kept)"}),
    ("also", {"default": "", "help": "backends measured alongside, e.g. numpy-float32"}),
    ("every-int32", {"action": "store_true",
                     "help": "evaluate every Int32 input with the oracle, no plateaus or "
                     "identity tails (the benchmark's baseline)"}),
    ("timeout", {"type": _seconds, "default": X.DEFAULT_TIMEOUT,
                 "help": "seconds the backend may take on one chunk of 2**20 inputs; past "
                 "it its host process is killed and the shard is non-conforming (hang) "
                 "(default %(default)g)"}),
    ("jobs", {"type": _int_in(1, 4096), "default": 1,
              "help": "N > 1: run the shards as pytest items on N xdist workers"}),
    ("naive-sample", {"type": _int_in(0, 10**7), "default": 0,
                      "help": "also time the scalar MPFR oracle on this many inputs"}),
    ("table", {"action": "store_true",
               "help": "print the accuracy table of --backend from the state"}),
    ("certification", {"action": "store_true",
                       "help": "print the certification table of --backend (beside the --also "
                       "backends' accuracy) from the state"}),
    ("prune", {"action": "store_true",
               "help": "remove from --state the records of --backend (and --also) for the "
               "selected plans that can never count again: made by another build, plancheck, "
               "oracle or record format, or replaced by a later record of the same range "
               "(no verdict changes; other backends' records are kept)"}),
    ("markdown", {"default": None, "help": "write the accuracy table (Markdown) here"}),
    ("json", {"default": None, "help": "write the accuracy table (JSON) here"}),
    ("no-progress", {"action": "store_true", "help": "no progress bar"}),
)  # fmt: skip
#: the options that configure the sweep itself (the pytest plugin's ``--exhaustive-NAME``)
SWEEP_OPTIONS = ("backend", "op", "dtype", "shard", "shards", "sample", "ulp-budget", "state",
                 "fresh", "also", "every-int32", "timeout")  # fmt: skip


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``plancheck exhaustive``."""
    for name, options in OPTIONS:
        parser.add_argument(f"--{name}", **options)


def select(op: str, dtype: str) -> list[str]:
    """The plans of ``--op`` and ``--dtype``; KeyError for an unknown or empty selection."""
    ops = None if op == "all" else [o.strip() for o in op.split(",") if o.strip()]
    if ops == []:
        raise KeyError("--op names no operation")
    for name in ops or ():
        if name not in V.OPS:
            close = difflib.get_close_matches(name, V.OPS, n=2, cutoff=0.6)
            hint = f" (did you mean {' or '.join(close)}?)" if close else ""
            raise KeyError(
                f"--op {name}: not a Float32 unary operation{hint}; the exhaustive sweep "
                f"covers {', '.join(V.OPS)}"
            )
    plans = X.plan_ids(ops, int32=dtype != "Float32")
    if dtype == "Int32":
        plans = [p for p in plans if p.endswith(":Int32")]
        if not plans:
            raise KeyError(f"no Int32 plan for {op}: only {', '.join(V.ACTIVATIONS)} take Int32")
    return plans


def selection(
    shard: tuple[int, int] | None, shards: int | None, sample: int
) -> tuple[int, list[int]]:
    """(shard count, selected shard indices); ValueError when nothing is selected."""
    if shard is not None:
        if shards is not None and shards != shard[1]:
            raise ValueError(
                f"--shards {shards} conflicts with --shard {shard[0]}/{shard[1]} (the N of "
                "I/N is the shard count): give one of them, or the same N in both"
            )
        return shard[1], [shard[0]]
    count = X.default_shards(shards, sample)
    indices = X.sampled_shards(count, sample)
    if not indices:
        raise ValueError(f"--sample {sample} of {count} shards selects no shard")
    return count, indices


class _Usage(Exception):
    """A usage error of ``plancheck exhaustive`` (exit status 2)."""


def _load_backend(name: str) -> None:
    try:
        backend_identity(name)
    except (KeyboardInterrupt, X.Interrupted):
        raise
    except BaseException as error:  # ImportError, TypeError, SystemExit from builtins:exit ...
        raise _Usage(f"cannot load backend {name!r}: {_reason(error)}") from None


def _reason(error: BaseException) -> str:
    """An error's message for a person: its text, the type's name only when it has none
    (a bare ``SystemExit``)."""
    text = str(error.args[0]) if len(error.args) == 1 else str(error)
    return text.strip() or f"{type(error).__name__} (no message)"


def _writable(path: str | None, what: str) -> None:
    if path is None:
        return
    parent = Path(path).resolve().parent
    if not parent.is_dir() or not os.access(parent, os.W_OK) or Path(path).is_dir():
        raise _Usage(f"{what} {path}: its directory does not exist or is not writable")


def _prepare(arguments: argparse.Namespace) -> tuple[list[str], int, list[int], list[str], Store]:
    """Validate everything before any work; :class:`_Usage` on a usage error."""
    if arguments.table and arguments.certification:
        raise _Usage("--table and --certification are exclusive")
    if arguments.prune and (arguments.table or arguments.certification or arguments.fresh):
        raise _Usage("--prune rewrites the state file and does nothing else: run it without "
                     "--table, --certification or --fresh")  # fmt: skip
    try:
        plans = select(arguments.op, arguments.dtype)
        count, indices = selection(arguments.shard, arguments.shards, arguments.sample)
    except (KeyError, ValueError) as error:
        raise _Usage(str(error.args[0]) if error.args else str(error)) from None
    also = [a.strip() for a in arguments.also.split(",") if a.strip()]
    for name in [arguments.backend, *also]:
        _load_backend(name)
    _writable(arguments.markdown, "--markdown")
    _writable(arguments.json, "--json")
    try:
        store = Store(arguments.state)
    except StateError as error:
        raise _Usage(str(error)) from None
    return plans, count, indices, also, store


def main(arguments: argparse.Namespace) -> int:
    """``plancheck exhaustive`` (the exit statuses are in the module docstring)."""
    try:
        plans, count, indices, also, store = _prepare(arguments)
    except _Usage as error:
        print(f"plancheck exhaustive: {error}", file=sys.stderr)
        return 2
    try:
        store.load()  # a damaged or foreign state file is refused before any work
        if arguments.certification:
            return _certification(arguments, plans, also, store)
        if arguments.table:
            return _tables(arguments, plans, store)
        if arguments.prune:
            return _prune(plans, [arguments.backend, *also], store)
        return _sweep(arguments, plans, count, indices, also, store)
    except StateError as error:
        print(f"plancheck exhaustive: INCOMPLETE: {error}", file=sys.stderr)
        return error.status


# ---------------------------------------------------------------------------
# The sweep
# ---------------------------------------------------------------------------


@contextmanager
def _owned_signals() -> Iterator[None]:
    """SIGINT and SIGTERM raise :class:`Interrupted`; a backend's own
    KeyboardInterrupt or SystemExit is then a finding about its call."""

    def interrupt(number: int, frame: FrameType | None) -> NoReturn:
        raise X.Interrupted(signal.Signals(number).name)

    previous = {s: signal.signal(s, interrupt) for s in (signal.SIGINT, signal.SIGTERM)}
    X.SIGNALS_OWNED = True
    try:
        yield
    finally:
        X.SIGNALS_OWNED = False
        for number, handler in previous.items():
            signal.signal(number, handler)


def _sweep(
    arguments: argparse.Namespace,
    plans: list[str],
    count: int,
    indices: list[int],
    also: list[str],
    store: Store,
) -> int:
    began = time.perf_counter()
    interrupted: str | None = None
    bad_plans: list[str] = []  # found non-conforming in this run, whatever happens next
    try:
        with _owned_signals():
            if arguments.jobs > 1:
                # the hosts that loaded the backends to check them stay (idle: no CPU):
                # the summary asks them for the backends' identities again
                status = _pytest(arguments, count, also)
                if status == 4:  # pytest's usage error
                    return 2
            else:
                _sequential(arguments, plans, count, indices, also, store, bad_plans)
    except X.Interrupted as signal_name:
        interrupted = str(signal_name)
    except (X.JudgeEnvironmentError, OSError) as error:  # plancheck's own process or room
        print(f"plancheck exhaustive: INCOMPLETE: {error}", file=sys.stderr)
        return 1 if bad_plans else 3
    except StateError as error:  # the state file went bad under the sweep
        print(f"plancheck exhaustive: INCOMPLETE: {error}", file=sys.stderr)
        return 1 if bad_plans else error.status
    found_bad = bool(bad_plans)
    try:
        wall = time.perf_counter() - began
        ok, complete = _report(arguments, plans, count, indices, store, interrupted, wall)
    except StateError as error:
        print(f"plancheck exhaustive: INCOMPLETE: {error}", file=sys.stderr)
        return 1 if found_bad else error.status
    if arguments.naive_sample and interrupted is None:
        for plan in plans:
            op, _ = X.split_plan(plan)
            rate = X.naive_rate(op, arguments.naive_sample)
            print(
                f"naive scalar MPFR oracle, {op}: {rate:,.0f} inputs/s "
                f"({X.TOTAL / rate / 3600:.1f} h for 2**32 on one core)"
            )
    if found_bad or not ok:
        return 1
    return 0 if complete else 3


def _sequential(
    arguments: argparse.Namespace,
    plans: list[str],
    count: int,
    indices: list[int],
    also: list[str],
    store: Store,
    bad: list[str],
) -> None:
    """Run every selected shard in this process; the plans found non-conforming go to *bad*.

    A plan another sweep is checking on the same state file (its claim is
    held) is put off, and then waited for: its shards are found recorded.
    """
    deferred: list[str] = []
    for wait, todo in ((False, plans), (True, deferred)):
        for plan in list(todo):
            claim = store.claim(f"{arguments.backend}|{plan}", wait=False)
            if claim is None and not wait:
                print(f"another sweep is checking {plan} on {store.path}: later", file=sys.stderr)
                deferred.append(plan)
                continue
            if claim is None:
                print(f"waiting for the other sweep on {plan} ...", file=sys.stderr)
                claim = store.claim(f"{arguments.backend}|{plan}", wait=True)
            try:
                _run_plan(arguments, plan, count, indices, also, store, bad)
            finally:
                claim.release()


def _run_plan(
    arguments: argparse.Namespace,
    plan: str,
    count: int,
    indices: list[int],
    also: list[str],
    store: Store,
    bad: list[str],
) -> None:
    total = sum(X.shard_range(i, count)[1] - X.shard_range(i, count)[0] for i in indices)
    with Progress(f"{arguments.backend} {plan}", total, enabled=not arguments.no_progress) as bar:
        for i in indices:
            result, _, _ = X.run_shard(
                arguments.backend, plan, i, count, ulp_budget=arguments.ulp_budget,
                state=store.path, fresh=arguments.fresh, also=also, progress=bar,
                plateaus=not arguments.every_int32, timeout=arguments.timeout,
            )  # fmt: skip
            if not result.ok and plan not in bad:
                bad.append(plan)
            if X.stopped_by_host(result):  # a hang or crash: the plan's verdict is known
                break


def _report(
    arguments: argparse.Namespace,
    plans: list[str],
    count: int,
    indices: list[int],
    store: Store,
    interrupted: str | None,
    wall: float,
) -> tuple[bool, bool]:
    """Print the verdict of every selected plan from the records; (ok, complete).

    Two times are stated: the *wall* time of this run, and the *worker* time of the
    records (each shard's own time, summed: with N workers it is up to N times the wall
    time; a resumed shard brings the time it took when it was checked)."""
    ranges = {X.shard_range(i, count) for i in indices}
    records = [
        r
        for r in X.current_records(store.load(), arguments.backend)
        if (r["start"], r["stop"]) in ranges
        and r["ulp_budget"] == arguments.ulp_budget
        and r["role"] == "checked"
    ]
    summaries = {s.plan: s for s in summarise(records, arguments.backend)}
    ok = complete = True
    tally = {"CERTIFIED": 0, "CONFORMS": 0, "NON-CONFORMING": 0, "INCOMPLETE": 0}
    for plan in plans:
        summary = summaries.get(plan)
        missing = len(ranges) - (summary.shards if summary else 0)
        bad = summary is not None and not summary.ok
        ok &= not bad
        complete &= missing == 0
        verdict = (
            "NON-CONFORMING" if bad
            else "INCOMPLETE" if missing
            else "CERTIFIED" if summary is not None and summary.complete
            else "CONFORMS"
        )  # fmt: skip
        tally[verdict] += 1
        if summary is None:
            print(f"INCOMPLETE: {arguments.backend} {plan}: none of the {len(ranges)} selected "
                  "shards has a verdict")  # fmt: skip
            continue
        coverage = (
            "all 2**32 inputs"
            if summary.complete
            else f"{summary.covered:,} inputs ({100 * summary.covered / X.TOTAL:.2f}%)"
        )
        print(
            f"{verdict}: {arguments.backend} {plan} over {coverage}: "
            f"{summary.inputs:,} checked, {summary.non_conforming:,} non-conforming "
            f"(budget {summary.ulp_budget} ULP), {summary.not_correctly_rounded:,} not "
            f"correctly rounded, max {summary.max_ulp} ULP, max error "
            f"{error_text(summary, certified_error(summary))} ulp, "
            f"{summary.seconds:.1f} s of worker time"
            + (f"; {missing} of {len(ranges)} selected shards have no verdict" if missing else "")
        )
        for error in summary.errors:  # from the state file: escaped again
            print(f"  error: {terminal_line(error, X.ERROR_TEXT_LIMIT)}")
        if summary.environment:
            found = terminal_line(", ".join(summary.environment), X.ERROR_TEXT_LIMIT)
            print(f"  environment: {found} (observed by the backend's host around its calls: "
                  "its results are judged as produced, the plan is not certified)")  # fmt: skip
        for item in summary.offenders:
            print("  " + X.describe_offender(plan, item))
    counts = ", ".join(f"{n} {name.lower()}" for name, n in tally.items() if n)
    head = "INCOMPLETE" if not complete or interrupted else "COMPLETE"
    why = f" (interrupted by {interrupted})" if interrupted else ""
    worker = sum(s.seconds for s in summaries.values() if s.plan in plans)
    print(f"{head}{why}: {len(plans)} plans of {arguments.backend}: {counts}; wall time "
          f"{wall:.1f} s (this run), worker time {worker:.1f} s (the records' shards, "
          "summed)")  # fmt: skip
    return ok, complete and interrupted is None


def _pytest(arguments: argparse.Namespace, count: int, also: list[str]) -> int:
    """Run the selected shards as pytest items on ``--jobs`` xdist workers; pytest's status."""
    items = ITEMS  # shipped in the package: an installed plancheck has it too
    values = {
        "backend": arguments.backend,
        "op": arguments.op,
        "dtype": arguments.dtype,
        "shards": str(count),
        "sample": str(arguments.sample),
        "ulp-budget": str(arguments.ulp_budget),
        "state": str(Path(arguments.state).resolve()),
        "also": ",".join(also),
        "timeout": repr(arguments.timeout),
    }
    if arguments.shard:
        values["shard"] = f"{arguments.shard[0]}/{arguments.shard[1]}"
    # no ini file (-c devnull): a project around the installation (its addopts, its
    # plugins) does not reach the sweep; the plugin registers the marker itself
    command = [sys.executable, "-m", "pytest", str(items), "-m", "exhaustive", "-q",
               "-c", os.devnull, "--rootdir", str(items.parent), "--strict-markers",
               "-p", "conformance.exhaustive.pytest_plugin", "-p", "no:cacheprovider",
               "-n", str(arguments.jobs)]  # fmt: skip
    for name, value in values.items():
        command += [f"--exhaustive-{name}", value]
    if arguments.fresh:
        command.append("--exhaustive-fresh")
    if arguments.every_int32:
        command.append("--exhaustive-every-int32")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANCHECK_EXHAUSTIVE_")}
    env = malloc.with_settings(env)  # the judges keep freed chunk memory from their start
    child = subprocess.Popen(command, env=env)  # the caller's directory: its backends
    try:
        return child.wait()
    except X.Interrupted:  # pass it on; the records written so far stay
        child.send_signal(signal.SIGINT)
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        raise


# ---------------------------------------------------------------------------
# Tables from the state file
# ---------------------------------------------------------------------------


def _evidence(
    store: Store, backend: str, budget: int
) -> tuple[list[PlanSummary], int, dict[str, list[int]]]:
    """(summaries of *backend*'s current records under *budget*, records ignored as another
    build's, plan -> the other budgets its current checked records were made under)."""
    records = [r for r in store.load() if r["backend"] == backend]
    valid = X.current_records(records, backend)
    current = [r for r in valid if r["role"] == "measured" or r["ulp_budget"] == budget]
    elsewhere: dict[str, set[int]] = {}
    for r in valid:
        if r["role"] == "checked" and r["ulp_budget"] != budget:
            elsewhere.setdefault(r["plan"], set()).add(r["ulp_budget"])
    others = {plan: sorted(budgets) for plan, budgets in elsewhere.items()}
    return summarise(current, backend), len(records) - len(valid), others


def _absent_note(
    backend: str, absent: list[str], budget: int, others: dict[str, list[int]]
) -> None:
    """Say which plans have no records under *budget*, and where records of them are."""
    if not absent:
        return
    print(f"no records of {backend} under --ulp-budget {budget} for {', '.join(absent)}",
          file=sys.stderr)  # fmt: skip
    by_budget: dict[int, list[str]] = {}
    for plan in absent:
        for other in others.get(plan, []):
            by_budget.setdefault(other, []).append(plan)
    for other, found in sorted(by_budget.items()):
        print(f"note: records of {backend} for {', '.join(found)} exist under --ulp-budget "
              f"{other} (the budget decides which results conform; run with --ulp-budget "
              f"{other} to see them)", file=sys.stderr)  # fmt: skip


def _table_status(plans: list[str], summaries: dict[str, PlanSummary]) -> int:
    if any(not s.ok for s in summaries.values() if s.plan in plans):
        return 1
    return 0 if all(p in summaries and summaries[p].complete for p in plans) else 3


def _stale_note(backend: str, stale: int) -> None:
    if stale:
        print(f"note: {stale} records of {backend} were made by another build of it, another "
              "plancheck, another oracle of their plan or in an older record format; they are "
              "not counted", file=sys.stderr)  # fmt: skip


def _certification(
    arguments: argparse.Namespace, plans: list[str], also: list[str], store: Store
) -> int:
    summaries: dict[str, dict[str, PlanSummary]] = {}
    for name in [arguments.backend, *also]:
        found, stale, others = _evidence(store, name, arguments.ulp_budget)
        summaries[name] = {s.plan: s for s in found}
        _stale_note(name, stale)
        if name == arguments.backend:
            absent = [p for p in plans if p not in summaries[name]]
            _absent_note(name, absent, arguments.ulp_budget, others)
    print(certification_table(plans, summaries, arguments.backend, also), end="")
    return _table_status(plans, summaries[arguments.backend])


def certification_table(
    plans: list[str],
    summaries: dict[str, dict[str, PlanSummary]],
    backend: str,
    also: list[str],
) -> str:
    """Markdown: per plan, the coverage and verdict of *backend*, and the accuracy
    (largest real error in ulps, largest integer ULP distance, share not correctly
    rounded) of every *also* backend beside it."""
    head = "| plan | coverage | inputs checked | " + backend + ": non-conforming | max ULP |"
    rule = "|---|---|---:|---:|---:|"
    for name in also:
        head += f" {name}: max error (ulps) | {name}: max ULP | {name}: not correctly rounded |"
        rule += "---:|---:|---:|"
    lines = [head, rule]
    for plan in plans:
        s = summaries[backend].get(plan)
        if s is None:
            lines.append(f"| {plan} | not run | | | |" + " | | |" * len(also))
            continue
        coverage = "**all 2**32**" if s.complete else f"sample, {100 * s.covered / X.TOTAL:.2f}%"
        row = f"| {plan} | {coverage} | {s.inputs:,} | {s.non_conforming:,} | {s.max_ulp} |"
        for name in also:
            m = summaries[name].get(plan)
            if m is None:
                row += " n/a | n/a | n/a |"
            else:
                share = 100 * m.not_correctly_rounded / m.inputs if m.inputs else 0.0
                error = error_text(m, certified_error(m))
                row += f" {error} | {m.max_ulp} | {m.not_correctly_rounded:,} ({share:.3g}%) |"
        lines.append(row)
    return "\n".join(lines) + "\n"


def _prune(plans: list[str], names: list[str], store: Store) -> int:
    """``--prune``: each backend's records that can never count again, removed."""
    for name in names:
        pruned = store.prune(name, plans)
        print(f"{store.path}: {pruned.stale + pruned.superseded:,} records of {name} removed "
              f"({pruned.stale:,} made by another build of it, another plancheck, another "
              f"oracle of their plan or in an older record format; {pruned.superseded:,} "
              f"replaced by a later record of the same range); {pruned.kept:,} records kept; "
              f"{pruned.bytes_before:,} -> {pruned.bytes_after:,} bytes")  # fmt: skip
    return 0


def _tables(arguments: argparse.Namespace, plans: list[str], store: Store) -> int:
    found, stale, others = _evidence(store, arguments.backend, arguments.ulp_budget)
    _stale_note(arguments.backend, stale)
    summaries = [s for s in found if s.plan in plans]
    absent = [p for p in plans if p not in {s.plan for s in summaries}]
    _absent_note(arguments.backend, absent, arguments.ulp_budget, others)
    markdown, rows = accuracy_table(summaries)
    print(markdown, end="")
    if arguments.markdown:
        complete = sum(s.complete for s in summaries)
        heading = (
            f"# Accuracy of `{arguments.backend}` over the exhaustive sweep\n\n"
            f"Generated by `plancheck exhaustive --backend {arguments.backend} --table` from "
            f"the sweep's state file.  Per plan: inputs checked, coverage (all 2**32 "
            f"inputs, or the stratified sample's share), the largest real error "
            f"|y - f(x)| in ulps of the exact value f(x) with the input that attains it "
            f"(the measure of the libm accuracy surveys; from mpmath at that input; "
            f"`<= 0.5` where every result is correctly rounded), the largest integer "
            f"distance in ULPs to the correctly rounded result, how many "
            f"results are not correctly rounded (a NaN for a NaN counts as correct unless the "
            f"operation copies NaN bits), how many have the wrong NaN-ness, and how many are "
            f"non-conforming under the budget used.  The reference is the certified oracle "
            f"(`oracle/vectorised.py`, docs/exhaustive.md).  {complete} of "
            f"{len(summaries)} plans are covered in full; the shards took "
            f"{sum(s.seconds for s in summaries):,.0f} s of worker time (summed over the "
            f"shards; the wall time of a sweep is in its own output).\n\n"
        )
        Path(arguments.markdown).write_text(heading + markdown)
    if arguments.json:
        document = {"backend": arguments.backend, "plans": rows}
        Path(arguments.json).write_text(json.dumps(document, indent=1) + "\n")
    return _table_status(plans, {s.plan: s for s in summaries})


# ---------------------------------------------------------------------------
# Progress
# ---------------------------------------------------------------------------


class _Rate(ProgressColumn):
    """Inputs per second, in millions (rich's own speed column counts bytes)."""

    def render(self, task: Any) -> Text:
        speed = task.finished_speed or task.speed
        return Text("   ... M/s" if speed is None else f"{speed / 1e6:6.1f} M/s")


class Progress:
    """The sweep's progress on stderr: drawn by rich on a terminal (a live bar,
    cleared when the plan is done), plain lines every 10 s otherwise (logs, CI:
    no ANSI codes, one readable line per update).  Call it with the number of
    inputs just checked; ``enabled=False`` (``--no-progress``) prints nothing.
    Use it as a context manager, or call :meth:`close`, to stop the live bar."""

    def __init__(
        self, label: str, total: int, stream: TextIO | None = None, enabled: bool = True
    ) -> None:
        self.label, self.total, self.done = terminal_line(label), total, 0
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.began = time.perf_counter()
        self.last = 0.0
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._bar: RichProgress | None = None
        self._task: Any = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _start(self) -> None:
        console = Console(file=self.stream, highlight=False, markup=False, emoji=False)

        def fixed() -> Column:  # a live line is never wrapped (a narrow terminal cuts it)
            return Column(no_wrap=True, overflow="ellipsis")

        self._bar = RichProgress(
            TextColumn("{task.description}", markup=False, table_column=fixed()),
            BarColumn(bar_width=30),
            TaskProgressColumn(table_column=fixed()),
            TextColumn("{task.completed:.3e}/{task.total:.3e}", table_column=fixed()),
            _Rate(table_column=fixed()),
            TextColumn("ETA", table_column=fixed()),
            TimeRemainingColumn(table_column=fixed()),
            console=console,
            transient=True,
            refresh_per_second=5,
        )
        self._task = self._bar.add_task(self.label, total=self.total)
        self._bar.start()

    def close(self) -> None:
        """Stop the live bar (it is cleared from the terminal)."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def __call__(self, count: int) -> None:
        self.done += count
        if not self.enabled:
            return
        if self.tty:
            if self._bar is None and self.done < self.total:
                self._start()
            if self._bar is not None:
                self._bar.update(self._task, completed=self.done)
                if self.done >= self.total:
                    self.close()
            return
        now = time.perf_counter()
        if now - self.last < 10.0 and self.done < self.total:
            return
        self.last = now
        elapsed = now - self.began
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate else 0.0
        share = 100 * self.done / self.total if self.total else 100.0
        self.stream.write(
            f"{self.label} {share:5.1f}% {self.done:.3e}/{self.total:.3e} "
            f"{rate / 1e6:6.1f} M/s ETA {eta:5.0f} s\n"
        )
        self.stream.flush()
