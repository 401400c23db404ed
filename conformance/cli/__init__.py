"""The ``plancheck`` command line.

``plancheck plans [--op NAME ...] [--json | --table]``
    print every resolvable plan as reports, test ids and deviation files spell
    it (:mod:`conformance.cli.plans_command`).
``plancheck backends [--json]``
    every built-in backend and adapter, whether its library is installed, and
    the extra that installs it (:mod:`conformance.cli.backends_command`).
``plancheck --version``
    plancheck's version.
``plancheck exhaustive --backend NAME --op OP [--shard I/N]``
    check every input of unary plans against the certified oracle
    (:mod:`conformance.exhaustive`); ``--table`` prints the accuracy table.
``plancheck call [--backend NAME] [--accumulator DTYPE] [--expect-error] OPERATION ARG...``
    run one operation on one backend with literal arguments (see
    :mod:`conformance.model.literals`), print the backend, the plan, the result with
    its bit patterns and the oracle's verdict (:mod:`conformance.cli.call_command`).
    Exit status 0 when the result conforms, 1 when it does not, 2 for a usage
    error (an unknown operation or backend, a malformed literal, a call that
    does not plan without ``--expect-error``), 3 when the oracle declines.
``plancheck run --backend X [--op NAME ...] [--profile P] [--report out.json|.md|.html]
[--workers N]``
    run the conformance suite (:mod:`conformance.suite`) through pytest and
    pytest-xdist, print the conformance table per operation.  Exit status 0
    when everything run conforms, 1 on any non-conformance (a failure, a
    timeout, a crash, an incomplete coverage matrix), 2 for a usage error
    (unknown operation or backend, bad option, a backend whose loading
    exits), 3 when the run is incomplete with nothing non-conforming found
    (interrupted by SIGINT/SIGTERM, or only the oracle itself failed).
``plancheck diff --backend A --backend B [--op NAME ...] [--profile P]``
    the same calls on two backends, every disagreement grouped by class
    (:mod:`conformance.cli.diff`); 0 when they agree everywhere, 1 when not, 2
    for a usage error, 3 when interrupted with no disagreement found.
``plancheck survey [--measure NAME ...]``
    write the survey of the outside libraries' committed reports, docs/survey.md and
    docs/survey.html (:mod:`conformance.cli.survey`), re-measuring the named ones first.
``plancheck repro '<json>' [--backend X]``
    re-run exactly one call (the JSON of a failure report) and print its full
    report; 0 when it conforms, 1 when it does not, 2 for a usage error, 3
    for an oracle error.
"""

from __future__ import annotations

import argparse
import sys
import types
from typing import Any

from conformance.cli.messages import error_text, suggestion
from conformance.model.options import max_examples as _max_examples
from conformance.model.options import seconds as _seconds
from conformance.model.options import seed as _seed
from conformance.model.options import ulp_count as _ulp_count
from conformance.model.sanitize import terminal_text

# ---------------------------------------------------------------------------
# plancheck run / plancheck repro
# ---------------------------------------------------------------------------

#: exit statuses of ``run``, ``diff`` and ``repro``: 0 complete and conforming, 1 a
#: non-conformance found, 2 a usage or input error, 3 incomplete (interrupted, only
#: oracle errors, no verdict) with nothing non-conforming found
CONFORMS, NOT_CONFORMING, USAGE_ERROR, INCOMPLETE = 0, 1, 2, 3
ORACLE_ERROR = INCOMPLETE

#: the exit statuses, as ``--help`` lists them (per command where they differ)
EXIT_STATUSES = {
    "run": "exit status: 0 everything run conforms (to the authorities --judge names: by "
    "default the specification, the reference and plancheck's conventions; classes of the "
    "others are reported as differences that do not fail); 1 a non-conformance (a new class "
    "of a judged authority, a timeout, a crash or an unreadable result whatever --judge names, "
    "a coverage gap, a stale known deviation with --xfail-strict); 2 a usage error; 3 "
    "incomplete with nothing non-conforming found (interrupted, only oracle errors)",
    "diff": "exit status: 0 the backends agree on every call; 1 they disagree; 2 a usage "
    "error; 3 interrupted with no disagreement found",
    "repro": "exit status: 0 the call conforms; 1 it does not; 2 a usage error; 3 the oracle "
    "declines or fails",
    "call": "exit status: 0 the result conforms; 1 it does not; 2 a usage error (an unknown "
    "operation or backend, a malformed literal, a call that does not plan without "
    "--expect-error); 3 the oracle declines",
    "exhaustive": "exit status: 0 every selected plan has a current verdict for every selected "
    "shard and all conform; 1 non-conformance found; 2 a usage error; 3 incomplete "
    "(interrupted, a shard without a verdict, a damaged state file, --table on a plan not "
    "covered in full)",
    "plans": "exit status: 0 listed; 2 a usage error (an unknown operation)",
    "backends": "exit status: 0",
    "plot": "exit status: 0 the plot is written; 2 a usage error (or matplotlib missing)",
}


def _load_problem(name: str) -> str | None:
    """Why backend *name* cannot be loaded, or None.  A backend whose loading exits
    (``builtins:exit``, a constructor calling ``sys.exit``) is a usage error too."""
    from conformance.host.client import BackendHost, HostCrashed, HostLoadError, HostTimeout

    host = BackendHost(name)  # loaded in a host process: never in plancheck's own
    try:
        declared = host.ensure().get("unsupported")
    except HostLoadError as error:  # what the backend raised, without its class's name
        return f"cannot load backend {name!r}: {error_text(error.error)}"
    except (HostCrashed, HostTimeout) as error:
        return f"cannot load backend {name!r}: {error}"
    finally:
        host.close()
    return declared if isinstance(declared, str) else None


def _usage(command: str, message: str) -> int:
    print(f"plancheck {command}: {message}", file=sys.stderr)
    return USAGE_ERROR


def _workers(text: str) -> str:
    if text == "auto":
        return text
    try:
        count = int(text)
    except ValueError:
        count = -1
    if count < 0:
        raise argparse.ArgumentTypeError(f"expected 'auto' or a count >= 0, got {text!r}")
    return str(count)


class _RunObserver:
    """Collects the plugin's verdict at the end of a ``plancheck run`` session (and
    tells the plugin to name options as ``plancheck run`` spells them)."""

    plancheck_cli = True
    result: str | None = None

    def pytest_sessionstart(self, session: Any) -> None:
        # pytest-xdist, at -q and not on a terminal, prints "bringing up nodes..." when the
        # workers start and again when they have collected: once is the news
        status = session.config.pluginmanager.get_plugin("terminaldistreporter")
        if status is not None and hasattr(status, "ensure_show_status"):
            show = status.ensure_show_status
            shown: list[bool] = []

            def once() -> None:
                if not shown:
                    shown.append(True)
                    show()

            status.ensure_show_status = once

    def pytest_unconfigure(self, config: Any) -> None:
        from conformance.pytest_plugin import state_of

        state = state_of(config)
        self.result = state.result if state is not None else None


#: the report formats, by file suffix
REPORT_SUFFIXES = (".json", ".md", ".html")


def _report_problem(path: str) -> str | None:
    """Why ``--report PATH`` cannot be written, or None (checked before the run; no
    directory is created)."""
    import os

    if not path.lower().endswith(REPORT_SUFFIXES):
        return f"--report: expected a .json, .md or .html path, got {path!r}"
    directory = os.path.dirname(path) or "."
    if not os.path.isdir(directory):
        return f"--report {path}: the directory {directory} does not exist"
    return None


def _check_run_options(arguments: argparse.Namespace) -> str | None:
    """The first usage error of a ``plancheck run`` command line, or None."""
    import pytest

    from conformance.findings.deviations import load_deviations
    from conformance.judge.budgets import parse_budgets
    from oracle.planner import resolvable_plans  # the oracle: only once a command runs

    operations = {p.operation for p in resolvable_plans()}
    unknown = [op for op in arguments.op if op not in operations]
    if unknown:
        named = ", ".join(op + suggestion(op, sorted(operations)) for op in unknown)
        return f"unknown operation(s): {named} (see `plancheck plans`)"
    for name in arguments.backend:
        problem = _load_problem(name)
        if problem is not None:
            return problem
    if arguments.timeout is not None and not arguments.timeout >= 0:
        return f"--timeout: expected seconds >= 0, got {arguments.timeout}"
    for path in arguments.report:
        problem = _report_problem(path)
        if problem is not None:
            return problem
    from conformance.findings.authority import parse_authorities
    from conformance.model.capabilities import parse_features

    try:
        parse_features(arguments.unsupported, "--unsupported")
        if arguments.judge:
            parse_authorities(arguments.judge, "--judge")
    except ValueError as error:
        return str(error)
    try:
        parse_budgets(arguments.ulp_budget, "--ulp-budget")
        if arguments.xfail:
            load_deviations(arguments.xfail)
    except pytest.UsageError as error:
        return str(error)
    return None


def _pytest_arguments(arguments: argparse.Namespace, ini: str) -> list[str]:
    import importlib.util
    import os

    spec = importlib.util.find_spec("conformance.suite")  # not imported here: pytest
    assert spec is not None and spec.origin is not None  # rewrites its asserts
    package_parent = os.path.dirname(os.path.dirname(spec.origin))
    extra, selected = _node_ids(list(arguments.pytest_args), spec.origin, package_parent)
    workers = arguments.workers
    if selected and workers == "auto":  # the work is the node ids given, not every plan
        from conformance.model.options import auto_workers

        workers = str(auto_workers(selected))
    args = [
        *([] if selected else [spec.origin]),
        "-c",
        ini,
        "--rootdir",  # node ids read conformance/suite.py::...
        package_parent,
        "-o",
        f"cache_dir={os.path.join(os.getcwd(), '.pytest_cache')}",
        "-q",
        "--no-header",
        "-o",
        "console_output_style=count",
        "--plancheck-profile",
        arguments.profile,
    ]
    for name in arguments.backend:
        args += ["--plancheck-backend", name]
    for operation in arguments.op:
        args += ["--plancheck-op", operation]
    for feature in arguments.unsupported:
        args += ["--plancheck-unsupported", feature]
    # the plugin's summary groups every failure by class: no per-item failure blocks
    args += ["--tb=no", "-rE"]
    # this command imported plancheck's packages before pytest started: from a wheel,
    # pytest would warn that it cannot rewrite the asserts of its own plugin modules
    args += ["-W", "ignore::pytest.PytestAssertRewriteWarning"]
    for budget in arguments.ulp_budget:
        args += ["--plancheck-ulp-budget", budget]
    if arguments.timeout is not None:
        args += ["--plancheck-timeout", str(arguments.timeout)]
    if arguments.seed is not None:
        args += ["--plancheck-seed", str(arguments.seed)]
    if arguments.max_examples is not None:
        args += ["--plancheck-max-examples", str(arguments.max_examples)]
    if arguments.xfail:
        args += ["--plancheck-xfail", arguments.xfail]
    if arguments.xfail_strict:
        args += ["--plancheck-xfail-strict", "true"]
    for judged in arguments.judge:
        args += ["--plancheck-judge", judged]
    for path in dict.fromkeys(arguments.report):
        args += ["--plancheck-report", path]
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        args += ["-p", "conformance.pytest_plugin"]
        if workers != "0":
            args += ["-p", "xdist.plugin"]
    if workers != "0":
        args += ["-n", workers]
    return args + extra


def _node_ids(pytest_args: list[str], suite: str, package_parent: str) -> tuple[list[str], int]:
    """*pytest_args* with each node id of the suite (``conformance/suite.py::test[...]``,
    as test ids and repro lines print it) pointed at the installed suite file, and
    the number of node ids given (``--workers auto`` sizes the run by it).

    A node id after ``--`` is the selection: the suite's own path is then not
    passed as well (pytest would run the whole file beside the node id).  A node
    id whose file part is not the suite's is left to pytest as the user wrote it.
    """
    import os

    relative = os.path.relpath(suite, package_parent).replace(os.sep, "/")
    names = {relative, os.path.basename(suite), suite.replace(os.sep, "/")}
    out, selected = [], 0
    for argument in pytest_args:
        path, colons, rest = argument.partition("::")
        if colons and not argument.startswith("-") and path.endswith(".py"):
            selected += 1
            if path.replace(os.sep, "/") in names or (
                os.path.exists(path) and os.path.samefile(path, suite)
            ):
                argument = f"{suite}::{rest}"
        out.append(argument)
    return out, selected


def _run(arguments: argparse.Namespace) -> int:
    import os
    import tempfile

    import pytest

    if arguments.pytest_args[:1] == ["--"]:
        arguments.pytest_args = arguments.pytest_args[1:]
    problem = _check_run_options(arguments)
    if problem is not None:
        return _usage("run", problem)
    with tempfile.TemporaryDirectory(prefix="plancheck-run-") as directory:
        ini = os.path.join(directory, "pytest.ini")
        with open(ini, "w", encoding="utf-8") as handle:
            handle.write("[pytest]\n")  # isolate the run from the project's own pytest options
        observer = _RunObserver()
        status = int(pytest.main(_pytest_arguments(arguments, ini), plugins=[observer]))
    if status == pytest.ExitCode.OK:
        return CONFORMS
    if status in (pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.NO_TESTS_COLLECTED):
        return USAGE_ERROR
    if observer.result in ("oracle errors", "incomplete (interrupted)"):
        return INCOMPLETE
    if status == pytest.ExitCode.TESTS_FAILED or (observer.result or "").startswith("not conf"):
        return NOT_CONFORMING
    return INCOMPLETE  # an internal error or an interruption before any verdict


def _repro(arguments: argparse.Namespace) -> int:
    from conformance.host.client import BackendHost
    from conformance.judge.runner import OracleError, run_call
    from conformance.report import call_from_json, format_outcome

    text = arguments.call
    try:
        if text == "-":
            text = sys.stdin.read()
        elif text.startswith("@"):
            with open(text[1:], encoding="utf-8") as handle:
                text = handle.read()
        call = call_from_json(text)
    except (OSError, ValueError) as error:
        return _usage("repro", str(error))
    problem = _load_problem(arguments.backend)
    if problem is not None:
        return _usage("repro", problem)
    backend = BackendHost(arguments.backend)
    try:
        outcome = run_call(backend, call, arguments.ulp_budget, timeout=arguments.timeout or None)
    except OracleError as error:
        head = "NO VERDICT" if error.declined else "ORACLE ERROR (not the backend's fault)"
        print(f"{head}: {terminal_text(str(error))}\npython: {call.repro()}")
        return ORACLE_ERROR
    print(terminal_text(format_outcome(outcome, arguments.backend), 1_000_000))
    return CONFORMS if outcome.ok else NOT_CONFORMING


def _diff(arguments: argparse.Namespace) -> int:
    from conformance.cli.diff import main as diff_main  # imports hypothesis: only when diff runs

    return diff_main(arguments)


def _add_run_parsers(commands: Any) -> None:
    run = commands.add_parser(
        "run",
        epilog=EXIT_STATUSES["run"],
        help="run the conformance suite on a backend (through pytest and xdist)",
        description="Example: plancheck run --backend cpu --op add --op exp --report out.md",
    )
    run.add_argument(
        "--backend",
        action="append",
        required=True,
        help="generic, cpu or package.module:attribute (repeatable)",
    )
    run.add_argument(
        "--op",
        action="append",
        default=[],
        metavar="NAME",
        help="only these operations (repeatable)",
    )
    run.add_argument(
        "--profile",
        choices=("ci", "dev", "thorough"),
        default="ci",
        help="ci: derandomized, fast (default); dev: random + local database; "
        "thorough: many examples, corpus level 2",
    )
    run.add_argument(
        "--report",
        action="append",
        default=[],
        metavar="PATH",
        help="write the report (.json, .md or .html; the directory must exist); repeatable: "
        "--report out.json --report out.md writes both from one run",
    )
    run.add_argument(
        "--workers",
        type=_workers,
        default="auto",
        help="pytest-xdist workers: 'auto' (default: none for a few plans, one per 16 plans "
        "up to the CPU count), N, or 0 for none",
    )
    run.add_argument(
        "--timeout",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="per-call timeout (default 10; 0: none)",
    )
    run.add_argument(
        "--ulp-budget",
        action="append",
        default=[],
        metavar="OP=N",
        help="ULP budget for a correctly rounded operation (repeatable); all=N (or '*=N') "
        "for every correctly rounded operation at once, OP=M still overriding it",
    )
    run.add_argument(
        "--judge",
        action="append",
        default=[],
        metavar="AUTHORITIES",
        help="the authorities whose classes fail the run: specification, reference, "
        "convention (comma list or repeatable; default all three: every rule judged); the "
        "classes of the others are reported as differences that do not fail; a hang, a crash "
        "or a result to_tensor refuses always fails (no result could be judged)",
    )
    run.add_argument(
        "--xfail",
        metavar="FILE",
        help="known deviations file: OP[/PLAN[ | PLAN...]][@CLASS]: reason per line; OP and "
        "CLASS may be patterns (*@wrong-exception:*), @authority:NAME covers an authority",
    )
    run.add_argument(
        "--xfail-strict",
        action="store_true",
        help="a listed deviation that no longer fails fails the run (pytest's xfail_strict)",
    )
    run.add_argument(
        "--seed",
        type=_seed,
        default=None,
        help="the search's random seed (printed at the start of every run; the same seed "
        "repeats the run; default: derandomized for ci, a fresh one for dev and thorough)",
    )
    run.add_argument(
        "--max-examples",
        type=_max_examples,
        default=None,
        metavar="N",
        help="generated calls per (backend, plan), instead of the profile's",
    )
    run.add_argument(
        "--unsupported",
        action="append",
        default=[],
        metavar="FEATURE",
        help="a capability feature the backend does not support (repeatable): calls that "
        "need it are counted, not judged (zero-size, rank-0, broadcasting, negative-axis, "
        "signalling-nan, ...; an unknown name lists them all)",
    )
    run.add_argument(
        "pytest_args", nargs=argparse.REMAINDER, help="after --: more pytest arguments"
    )
    run.set_defaults(handler=_run)
    diff = commands.add_parser(
        "diff",
        epilog=EXIT_STATUSES["diff"],
        help="run the same calls on two backends and report every disagreement by class",
        description="Example: plancheck diff --backend cpu --backend generic --op add",
    )
    diff.add_argument("--backend", action="append", required=True,
                      help="exactly two: generic, cpu or package.module:attribute")  # fmt: skip
    diff.add_argument("--op", action="append", default=[], metavar="NAME",
                      help="only these operations (repeatable)")  # fmt: skip
    diff.add_argument("--profile", choices=("ci", "dev", "thorough"), default="ci",
                      help="how many calls (as plancheck run)")  # fmt: skip
    diff.add_argument("--timeout", type=_seconds, default=10.0, metavar="SECONDS",
                      help="per-call timeout (0: none)")  # fmt: skip
    diff.add_argument("--seed", type=_seed, default=None,
                      help="the search's random seed (as plancheck run)")  # fmt: skip
    diff.add_argument("--unsupported", action="append", default=[], metavar="FEATURE",
                      help="a capability feature not compared (repeatable; as run)")  # fmt: skip
    diff.add_argument("--xfail", metavar="FILE",
                      help="known deviations: the disagreement classes it covers are known "
                      "and do not fail the exit status")  # fmt: skip
    diff.add_argument("--report", metavar="PATH",
                      help="write the comparison (.json or .md; its directory must "
                      "exist)")  # fmt: skip
    diff.add_argument("--workers", type=_workers, default="auto",
                      help="accepted as plancheck run takes it; diff runs in this process "
                      "(both backends' results are compared in memory)")  # fmt: skip
    diff.set_defaults(handler=_diff)
    repro = commands.add_parser(
        "repro",
        epilog=EXIT_STATUSES["repro"],
        help="re-run exactly one call from a failure report and print its full report",
        description='Example: plancheck repro --backend cpu \'{"v":1,"op":"neg",...}\'',
    )
    repro.add_argument("call", help="the call's JSON (from a report), '-' for stdin, @FILE")
    repro.add_argument("--backend", default="generic", help="generic, cpu or module:attribute")
    repro.add_argument(
        "--ulp-budget", type=_ulp_count, default=0, help="ULP budget for rounded ops"
    )
    repro.add_argument("--timeout", type=_seconds, default=10.0, help="seconds (0: none)")
    repro.set_defaults(handler=_repro)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="plancheck",
        description="plancheck: operation dtype policy oracle and conformance",
        epilog="exit status (run, diff, repro, call, exhaustive): 0 conforms (or agrees); 1 "
        "a non-conformance (or a disagreement); 2 a usage error; 3 incomplete, with nothing "
        "non-conforming found (interrupted, oracle errors); `plancheck COMMAND --help` "
        "gives each command's",
    )
    from conformance.model.versions import plancheck_version

    parser.add_argument("--version", action="version", version=f"plancheck {plancheck_version()}")
    commands = parser.add_subparsers(dest="command", required=True)
    from conformance.cli import backends_command

    listing = commands.add_parser(
        "backends",
        epilog=EXIT_STATUSES["backends"],
        help="every known backend, whether it is installed, and how to install it",
    )
    backends_command.add_arguments(listing)
    listing.set_defaults(handler=backends_command.main)
    from conformance.cli import plans_command

    plans = commands.add_parser(
        "plans",
        epilog=EXIT_STATUSES["plans"],
        help="print every resolvable plan, as reports and deviation files spell it",
    )
    plans_command.add_arguments(plans)
    plans.set_defaults(handler=plans_command.main)
    from conformance.cli import call_command

    call = commands.add_parser(
        "call",
        epilog=EXIT_STATUSES["call"],
        help="run one operation on one backend with literal arguments",
    )
    call_command.add_arguments(call)
    call.set_defaults(handler=call_command.main)
    exhaustive = commands.add_parser(
        "exhaustive",
        epilog=EXIT_STATUSES["exhaustive"],
        help="certify unary plans over all 2**32 inputs (sharded, resumable)",
        description="Example: plancheck exhaustive --backend cpu --op exp --shard 3/64",
    )
    _exhaustive_module().add_arguments(exhaustive)
    exhaustive.set_defaults(handler=lambda arguments: _exhaustive_module().main(arguments))
    plot = commands.add_parser(
        "plot",
        epilog=EXIT_STATUSES["plot"],
        help="draw one unary operation's ULP error against its input (PNG; extra 'plot')",
        description="Example: plancheck plot --backend numpy-float32 --op exp --out exp.png",
    )
    from conformance.cli import plot as plot_module

    plot_module.add_arguments(plot)
    plot.set_defaults(handler=plot_module.main)
    from conformance.cli import survey as survey_command

    survey = commands.add_parser(
        "survey",
        epilog=survey_command.EXIT_STATUS,
        help="write the survey page of the outside libraries' reports (docs/survey.md, .html)",
    )
    survey_command.add_arguments(survey)
    survey.set_defaults(handler=survey_command.main)
    _add_run_parsers(commands)
    return parser


def _exhaustive_module() -> types.ModuleType:
    from conformance import exhaustive

    return exhaustive


def main(argv: list[str] | None = None) -> int:
    """The ``plancheck`` command; a closed output pipe ends it quietly with status 1.

    A judge whose own floating-point environment is not standard refuses at once
    (status 3), before the oracle's modules compute their constants.  Ctrl-C before
    a subcommand's own handling of it (while plancheck starts: its imports, the
    backend's loading) ends the command with one line and status 3 (incomplete),
    never a traceback."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("plancheck: interrupted (Ctrl-C) while starting: no verdict", file=sys.stderr)
        return INCOMPLETE


def _main(argv: list[str] | None) -> int:
    from conformance.host.fpenv import judge_environment_problem

    problem = judge_environment_problem()
    if problem is not None:
        print(f"plancheck: {problem}", file=sys.stderr)
        return INCOMPLETE
    arguments = build_parser().parse_args(argv)
    try:
        status = arguments.handler(arguments)
        sys.stdout.flush()
    except BrokenPipeError:  # ``plancheck plans | head``
        from oracle.__main__ import quiet_stdout

        quiet_stdout()
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
