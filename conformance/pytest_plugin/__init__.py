"""The plancheck pytest plugin (entry point ``pytest11: plancheck``).

Harmless unless a ``--plancheck-*`` option is given: it then validates the
options, adds the shipped suite :mod:`conformance.suite` to the run,
aggregates what every test item measured (on the xdist controller, from the
records the workers attach to their reports), prints the per-operation
conformance table at the end and writes the report file.

Options
-------
``--plancheck-backend NAME|module:attribute`` (repeatable)
    the backends under test (``backends.get`` names); required to run the suite.
``--plancheck-op NAME`` (repeatable)
    restrict the suite to these operations.
``--plancheck-profile ci|dev|thorough``
    how hard to search (:data:`conformance.suite.PROFILES`; default ``ci``).
``--plancheck-ulp-budget OP=N`` (repeatable)
    a ULP budget for a correctly rounded operation (special values and exact
    points must still match exactly).
``--plancheck-timeout SECONDS``
    the per-call timeout (default 10; 0 disables it).
``--plancheck-xfail FILE``
    known deviations by class (text, ``.toml`` or ``.json``; see
    :func:`load_deviations`): an item whose every deviation class is covered is
    an expected failure, a class the file does not cover fails the item, and a
    listed deviation that covered no class is reported as no longer failing.
``--plancheck-unsupported FEATURE`` (repeatable)
    a capability feature the backends do not support
    (:data:`conformance.model.capabilities.FEATURES`): calls that need it are not
    judged, only counted.  A backend's own ``unsupported`` attribute adds to it.
``--plancheck-report PATH``
    ``.json``, ``.md`` or ``.html`` (the directory must exist); rewritten after
    every finished test item.

Every check judges all its calls and records *deviation classes*
(:mod:`conformance.findings.finding`); an item fails when it found a class that no
known deviation covers, is an expected failure when every class it found is
known, and passes otherwise.  The controller groups the classes of all items
and prints one line per class, then one details block per class.

With pytest-xdist only the controller writes the report; the workers attach
their measurements to the test reports, and a worker that dies is reported
as a crash of the item it was running, with the call it had started (from a
small per-worker in-flight file).  A call the per-call timeout cannot stop is
cut by a watchdog (:class:`conformance.judge.runner.Watchdog` in the worker, and
the controller's, which kills a worker stuck in native code) and reported as
a hang.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import random
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conformance.findings.deviations import Deviation, load_deviations
from conformance.findings.deviations import load as _load
from conformance.judge.checker import Checker
from conformance.judge.checks import applies
from conformance.judge.profiles import PROFILES
from conformance.model.versions import backend_version, plancheck_version
from conformance.pytest_plugin.faults import FaultRecords
from conformance.pytest_plugin.item_check import run_check
from conformance.pytest_plugin.options import (
    DEFAULT_TIMEOUT,
    active,
    add_options,
    apply_ini,
    parse_budgets,
    typed,
)

#: the parameter of a suite test with no case in the selection (deselected by the plugin)
EMPTY = "plancheck: no case"

__all__ = [
    "EMPTY",
    "Case",
    "Deviation",
    "PlancheckState",
    "load_deviations",
    "run_check",
    "state_of",
]

_STATE = pytest.StashKey["PlancheckState"]()
_CHECKER = pytest.StashKey[Any]()
_TEST_KINDS = {
    "test_boundary_examples": "boundary",
    "test_generated_calls": "generated",
    "test_invalid_calls": "invalid",
    "test_corpus": "corpus",
}
_KIND_TESTS = {kind: name for name, kind in _TEST_KINDS.items()}
_COVERAGE_KINDS = ("boundary", "generated", "invalid")


# ---------------------------------------------------------------------------
# Options (conformance.pytest_plugin.options)
# ---------------------------------------------------------------------------


def pytest_addoption(parser: Any) -> None:
    add_options(parser)


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_auto_num_workers(config: Any) -> int | None:
    """``-n auto`` on a plancheck run: workers by the amount of work
    (:func:`conformance.model.options.auto_workers`), not by the CPUs alone; None
    (xdist decides) for other runs or when PYTEST_XDIST_AUTO_NUM_WORKERS is set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    apply_ini(config)
    if not config.option.plancheck_backend:
        return None
    from conformance.model.options import auto_workers
    from oracle import resolvable_plans

    ops = set(config.option.plancheck_op)
    plans = sum(1 for p in resolvable_plans() if not ops or p.operation in ops)
    return auto_workers(plans * len(set(config.option.plancheck_backend)))


@pytest.hookimpl(trylast=True)
def pytest_configure(config: Any) -> None:
    apply_ini(config)
    if not active(config):
        return
    state = PlancheckState(config)
    config.stash[_STATE] = state
    config.pluginmanager.register(state, "plancheck-state")
    from conformance.judge.runner import watch_interrupts

    state.restore_signals = watch_interrupts()
    if state.labels:
        _add_suite(config)


def pytest_unconfigure(config: Any) -> None:
    state = state_of(config)
    if state is not None and state.restore_signals is not None:
        state.restore_signals()
        state.restore_signals = None


def state_of(config: Any) -> PlancheckState | None:
    """The plugin's state for *config* (None when no plancheck option was given)."""
    return config.stash.get(_STATE, None)


def _suite_path() -> Path:
    """The file of :mod:`conformance.suite`, found without importing it."""
    return Path(__file__).resolve().parents[1] / "suite.py"


def _names_suite(config: Any, argument: str) -> bool:
    target = _suite_path()
    text = argument.split("::")[0]
    if config.option.pyargs:
        import importlib.util

        try:
            spec = importlib.util.find_spec(text)
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.origin and Path(spec.origin).resolve() == target:
            return True
    path = Path(text)
    if not path.is_absolute():
        path = Path(config.invocation_params.dir) / path
    try:
        return path.resolve() == target
    except OSError:
        return False


def _add_suite(config: Any) -> None:
    if any(_names_suite(config, a) for a in config.args):
        return
    config.args = [*config.args, str(_suite_path())]


# ---------------------------------------------------------------------------
# Known deviations (the xfail file)
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Test cases and the per-item run
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One parametrization of the suite: a backend label, a plan and a check kind."""

    label: str
    plan: Any
    kind: str

    @property
    def id(self) -> str:
        return f"{self.label}-{self.plan.describe()}"

    @property
    def test_name(self) -> str:
        return f"{_KIND_TESTS[self.kind]}[{self.id}]"


# ---------------------------------------------------------------------------
# The state (one per pytest process) and the controller's aggregation
# ---------------------------------------------------------------------------


class PlancheckState(FaultRecords):
    """The plugin's state: options, backends, and (on the controller) the run's results."""

    def __init__(self, config: Any) -> None:
        from oracle import resolvable_plans

        self.config = config
        self.restore_signals: Any = None  #: set by pytest_configure (conformance.judge.runner)
        option = config.option
        self.labels: list[str] = list(dict.fromkeys(option.plancheck_backend))
        self.ops = list(dict.fromkeys(option.plancheck_op)) or None
        self.profile = PROFILES[option.plancheck_profile or "ci"]
        if option.plancheck_max_examples is not None:
            self.profile = dataclasses.replace(
                self.profile, max_examples=option.plancheck_max_examples
            )
        workerinput = getattr(config, "workerinput", None)
        #: the search's seed: the option's; on a random profile without one, a fresh seed
        #: the controller draws and hands to its workers; None: derandomized (ci)
        self.seed: int | None = option.plancheck_seed
        if workerinput is not None:
            self.seed = workerinput.get("plancheck_seed", self.seed)
        elif self.seed is None and not self.profile.derandomize:
            self.seed = random.getrandbits(32)
        if self.seed is not None:
            self.profile = dataclasses.replace(self.profile, derandomize=False)
            import hypothesis.core

            hypothesis.core.global_force_seed = self.seed  # what --hypothesis-seed sets
        self.ulp_budgets = parse_budgets(option.plancheck_ulp_budget, typed(config, "ulp-budget"))
        timeout = DEFAULT_TIMEOUT if option.plancheck_timeout is None else option.plancheck_timeout
        if not (timeout >= 0 and math.isfinite(timeout)):
            raise pytest.UsageError(
                f"{typed(config, 'timeout')}: expected seconds >= 0, got {timeout}"
            )
        self.timeout = timeout or None
        self.deviations: list[Deviation] = []
        self.unsupported: frozenset[str] = frozenset()
        if option.plancheck_xfail:
            self.deviations, self.unsupported = _load(option.plancheck_xfail)
        from conformance.model.capabilities import parse_features

        try:
            self.unsupported |= parse_features(
                option.plancheck_unsupported, typed(config, "unsupported")
            )
        except ValueError as error:
            raise pytest.UsageError(str(error)) from None
        all_plans = self.all_plans = resolvable_plans()
        if self.ops:
            known = {p.operation for p in all_plans}
            unknown = [op for op in self.ops if op not in known]
            if unknown:
                raise pytest.UsageError(
                    f"{typed(self.config, 'op')}: unknown operation(s) {', '.join(unknown)} "
                    f"(see `plancheck plans`)"
                )
        self.plans = tuple(p for p in all_plans if self.ops is None or p.operation in self.ops)
        self._backends: dict[str, Any] = {}
        for label in self.labels:
            self.backend(label)  # a usage error now rather than one per test
            self.unsupported_by(label)
        self.is_worker = workerinput is not None
        self.worker_id = workerinput.get("workerid") if workerinput else None
        self._inflight_fd: int | None = None
        self._watchdog: Any = None
        self._current: dict[str, Any] | None = None
        self._current_call: Any = None
        inflight_dir = workerinput.get("plancheck_inflight") if workerinput else None
        if inflight_dir:
            path = os.path.join(inflight_dir, f"{self.worker_id}.json")
            self._inflight_fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
        self.inflight_dir: str | None = None
        # controller side
        report = option.plancheck_report
        self.report_path = Path(config.invocation_params.dir) / report if report else None
        self.table = _new_table()
        self.started = time.time()
        self.started_text = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        self.collected: dict[str, Case] = {}
        #: per backend, the plans only some of whose class-hitting checks were selected
        self.partially_selected: dict[str, int] = {}
        self.collected_items = 0
        self.finished = 0
        self.failures: list[dict[str, Any]] = []
        self.crashes: list[dict[str, Any]] = []
        self.oracle_errors: list[dict[str, Any]] = []
        self.xfailed: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.deviation_failed: Counter[Deviation] = Counter()
        self.class_records: list[dict[str, Any]] = []
        self.not_supported: dict[str, Counter[str]] = {}
        self.coverage_rows: dict[str, dict[str, list[Any]]] = {}
        #: per backend and plan: calls not judged (unsupported) and the classes they hit
        self.coverage_skipped: dict[str, dict[str, list[Any]]] = {}
        self.coverage_summary: dict[str, dict[str, Any]] = {}
        self.coverage_complete = True
        self.result = "running"
        self.complete = False
        self._cases_by_test: dict[str, Case] | None = None
        self._writer = None
        if self.report_path is not None and not self.is_worker:
            from conformance.report import ReportWriter

            try:
                self._writer = ReportWriter(self.report_path)
            except FileNotFoundError as error:
                raise pytest.UsageError(f"{typed(config, 'report')}: {error}") from None
            self._write()

    # -- the header --------------------------------------------------------------

    def pytest_sessionstart(self, session: Any) -> None:
        if self.is_worker or not self.labels:
            return
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            from conformance.pytest_plugin.terminal_summary import header_lines

            for line in header_lines(self):
                reporter.write_line(line)

    # -- backends and cases ------------------------------------------------------

    def backend(self, label: str) -> Any:
        backend = self._backends.get(label)
        if backend is None:
            import backends

            try:
                backend = backends.get(label)
            except (Exception, SystemExit, GeneratorExit) as error:  # builtins:exit included
                raise pytest.UsageError(
                    f"{typed(self.config, 'backend')} {label}: cannot load it: "
                    f"{type(error).__name__}: {error}"
                ) from None
            self._backends[label] = backend
        return backend

    def unsupported_by(self, label: str) -> frozenset[str]:
        """The features not judged for backend *label*: the options' and its own."""
        from conformance.model.capabilities import declared_by

        try:
            return self.unsupported | declared_by(self.backend(label))
        except ValueError as error:
            raise pytest.UsageError(str(error)) from None

    def known_reason(self, label: str, operation: str, plan: str, cls: str) -> str | None:
        """The reason of the first known deviation covering a class, or None."""
        for deviation in self.deviations:
            if deviation.covers(label, operation, plan, cls):
                return deviation.reason or deviation.selector
        return None

    def cases(self, kind: str) -> list[Case]:

        # backend-major: a plan's corpus reference, cached on disk by the first
        # backend's item, is usually ready when the next backend's item starts
        return [
            Case(label, plan, kind)
            for label in self.labels
            for plan in self.plans
            if applies(kind, plan)
        ]

    def deviation_for(self, label: str, plan: Any) -> Deviation | None:
        return next((d for d in self.deviations if d.matches(label, plan)), None)

    def checker(self, node: Any, case: Case) -> Any:

        checker = Checker(
            backend=self.backend(case.label),
            label=case.label,
            plan=case.plan,
            kind=case.kind,
            profile=self.profile,
            ulp_budgets=self.ulp_budgets,
            timeout=self.timeout,
            test=node.nodeid,
            inflight=self._inflight,
        )
        checker.deviation = self.deviation_for(case.label, case.plan)
        checker.unsupported = self.unsupported_by(case.label)
        checker.known = lambda finding, label=case.label: self.known_reason(
            label, finding.operation, finding.plan, finding.cls
        )
        checker.cache_dir = self._cache_dir()
        node.stash[_CHECKER] = checker
        return checker

    def _cache_dir(self) -> str | None:
        cache = getattr(self.config, "cache", None)
        if cache is None:
            return None
        try:
            return str(cache.mkdir("plancheck-corpus"))
        except OSError:
            return None

    def case_of(self, nodeid: str) -> Case | None:
        if self._cases_by_test is None:
            self._cases_by_test = {
                case.test_name: case for kind in _KIND_TESTS for case in self.cases(kind)
            }
        return self._cases_by_test.get(nodeid.rpartition("::")[2])

    # -- hooks: every process ----------------------------------------------------

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: Any) -> Any:
        """With ``--hypothesis-show-statistics``: collect the statistics of every
        hypothesis search a suite item runs (hypothesis' own plugin collects them
        only for ``@given`` test functions) where its summary finds them."""
        if not item.config.getoption("hypothesis_show_statistics", False) or (
            self.case_of(item.nodeid) is None
        ):
            return (yield)
        from hypothesis.statistics import collector, describe_statistics

        searches: list[str] = []

        def note(stats: dict[str, Any]) -> None:
            stats["nodeid"] = f"{item.nodeid} (search {len(searches) + 1})"
            searches.append(describe_statistics(stats))
            item.hypothesis_statistics = "\n\n".join(searches)

        with collector.with_value(note):
            return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: Any, call: Any) -> Any:
        report = yield
        checker = item.stash.get(_CHECKER, None)
        if checker is not None and call.when == "call":
            record = checker.record()
            record["xfail"] = getattr(checker, "xfail", None)
            if getattr(checker, "error_text", None):
                record["error_text"] = checker.error_text
            # as JSON text: pytest-xdist's channel (execnet) cannot carry every Python
            # value a record holds, e.g. a weak int below -2**31 such as -(2**64)
            report.plancheck = json.dumps(record)
        return report

    # -- hooks: the controller (or the only process) -----------------------------

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        if self.inflight_dir is None:
            self.inflight_dir = tempfile.mkdtemp(prefix="plancheck-inflight-")
            if self.timeout:
                import threading

                threading.Thread(target=self._watch_workers, args=(self.inflight_dir,),
                                 name="plancheck-worker-watchdog", daemon=True).start()  # fmt: skip
        node.workerinput["plancheck_inflight"] = self.inflight_dir
        node.workerinput["plancheck_seed"] = self.seed

    def _collected_ids(self, ids: Iterable[str]) -> None:
        if self.collected_items:
            return
        ids = list(ids)
        self.collected_items = len(ids)
        for nodeid in ids:
            case = self.case_of(nodeid)
            if case is not None:
                self.collected[nodeid] = case
        self._write()

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: Any) -> None:
        self._collected_ids(ids)

    def pytest_collection_modifyitems(self, config: Any, items: list[Any]) -> None:
        empty = [i for i in items if getattr(i, "callspec", None) is not None
                 and i.callspec.params.get("plancheck_case") is EMPTY]  # fmt: skip
        if empty:
            config.hook.pytest_deselected(items=empty)
            items[:] = [i for i in items if i not in empty]

    def pytest_collection_finish(self, session: Any) -> None:
        if not self.is_worker and not hasattr(self.config, "workerinput"):
            if session.config.pluginmanager.has_plugin("dsession"):
                return  # xdist's controller: the workers collect
            self._collected_ids(item.nodeid for item in session.items)

    def pytest_runtest_logreport(self, report: Any) -> None:
        if self.is_worker:
            return
        record = getattr(report, "plancheck", None)
        if isinstance(record, str):
            record = json.loads(record)
        if record is None:
            if report.failed and report.when in ("setup", "teardown", "???"):
                case = self.case_of(report.nodeid)
                if case is None:
                    return
                record = {"backend": case.label, "operation": case.plan.operation,
                          "plan": case.plan.describe(), "kind": case.kind,
                          "test": report.nodeid, "status": "error"}  # fmt: skip
                self.errors.append(f"{report.nodeid}: {report.when} failed")
            else:
                return
        if record.get("status") == "crash":
            outcome = "crashed"
        elif hasattr(report, "wasxfail"):
            outcome = "xfailed"
        elif record.get("status") == "error":
            outcome = "error"
        else:
            outcome = report.outcome
        self.table.add(record, outcome)
        self.finished += 1
        if record.get("status") == "error" and record.get("error_text"):
            self.errors.append(f"{report.nodeid}: {record['error_text']}")
        failures = record.get("failures", [])
        for entry in record.get("classes", []):
            entry = dict(entry, known=self.known_reason(
                entry["backend"], entry["operation"], entry["plan"], entry["class"]))  # fmt: skip
            self.class_records.append(entry)
            for deviation in self.deviations:
                if deviation.covers(entry["backend"], entry["operation"], entry["plan"],
                                    entry["class"]):  # fmt: skip
                    self.deviation_failed[deviation] += 1
                    break
        skipped = record.get("not_supported") or {}
        if skipped:
            self.not_supported.setdefault(record["backend"], Counter()).update(skipped)
        if outcome == "crashed":
            self.crashes.extend(failures)
        elif outcome == "xfailed":
            self.xfailed.extend(dict(f, xfail=record.get("xfail")) for f in failures[:1])
        elif outcome == "failed":
            self.failures.extend(failures[:3])
        self.oracle_errors.extend(record.get("oracle_errors", [])[:3])
        coverage = record.get("coverage")
        if coverage and record.get("kind") in _COVERAGE_KINDS:
            row = self.coverage_rows.setdefault(record["backend"], {}).setdefault(
                record["plan"], [0, Counter(), Counter()]
            )
            row[0] += coverage["calls"]
            row[1].update(coverage["hits"])
            row[2].update(coverage.get("result_hits", {}))
            skipped_row = self.coverage_skipped.setdefault(record["backend"], {}).setdefault(
                record["plan"], [0, Counter(), Counter()]
            )
            skipped_row[0] += coverage.get("skipped", 0)
            skipped_row[1].update(coverage.get("skipped_hits", {}))
            skipped_row[2].update(coverage.get("skipped_result_hits", {}))
        self._write()

    def _coverage(self) -> None:
        from conformance.report.coverage_summary import summarise

        order = {p: i for i, p in enumerate(self.all_plans)}
        for label in self.labels:
            selected: dict[Any, set[str]] = {}
            for case in self.collected.values():
                if case.label == label and case.kind in _COVERAGE_KINDS:
                    selected.setdefault(case.plan, set()).add(case.kind)
            # a plan is held to full coverage only when every check of it that
            # hits classes was selected: `-k generated` or one node id runs a
            # part on purpose, and its gaps are not the backend's
            required = sorted(
                (plan for plan, kinds in selected.items()
                 if all(kind in kinds for kind in _COVERAGE_KINDS if applies(kind, plan))),
                key=order.__getitem__,
            )  # fmt: skip
            self.partially_selected[label] = len(selected) - len(required)
            if not required:
                continue
            summary = summarise(
                required, self.coverage_rows.get(label, {}), self.coverage_skipped.get(label, {})
            )
            self.coverage_summary[label] = summary
            if summary["missing"]:
                self.coverage_complete = False

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: Any, exitstatus: Any) -> None:
        if self.is_worker:
            if self._inflight_fd is not None:
                os.close(self._inflight_fd)
            return
        self._coverage()
        status = int(session.exitstatus)
        if not self.coverage_complete and status == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
            status = 1
        self.complete = status in (0, 1)
        self.result = self._result(status)
        self._write()
        if self.inflight_dir:
            shutil.rmtree(self.inflight_dir, ignore_errors=True)

    def found_nonconformance(self) -> bool:
        """Whether some finished item found a new deviation class (or crashed, hung)."""
        statuses = {row.status for b in self.table.backends() for _, row in self.table.rows(b)}
        return bool(statuses & {"FAIL", "TIMEOUT", "CRASH"})

    def _coverage_blames_backend(self) -> bool:
        """Coverage gaps other than those of operations the oracle failed on."""
        excused = {
            (label, op)
            for label in self.table.backends()
            for op, row in self.table.rows(label)
            if row.status == "ORACLE ERROR"
        }
        return any(
            (label, line.partition("(")[0]) not in excused
            for label, summary in self.coverage_summary.items()
            for line in summary["missing"]
        )

    def _result(self, status: int) -> str:
        """conforms / not conforming / oracle errors / failed / pytest exit status N."""
        if status == 0:
            return "conforms"
        if status == pytest.ExitCode.INTERRUPTED:
            return "not conforming (interrupted)" if self.found_nonconformance() else (
                "incomplete (interrupted)"
            )  # fmt: skip
        if status != 1:
            return f"pytest exit status {status}"
        statuses = {row.status for b in self.table.backends() for _, row in self.table.rows(b)}
        if statuses - {"conforms", "xfail", "ORACLE ERROR"} or self._coverage_blames_backend():
            return "not conforming"
        if "ORACLE ERROR" in statuses or self.oracle_errors:
            return "oracle errors"
        return "failed"  # something outside the suite failed

    # -- the report ----------------------------------------------------------------

    def stale_deviations(self) -> list[dict[str, str]]:
        """Listed deviations that covered none of the classes found (of selected plans)."""
        stale = []
        for deviation in self.deviations:
            matched = [c for c in self.collected.values() if deviation.matches(c.label, c.plan)]
            if matched and not self.deviation_failed[deviation]:
                stale.append({"selector": deviation.selector, "reason": deviation.reason})
        return stale

    def deviation_classes(self) -> list[Any]:
        """The run's deviation classes (:func:`conformance.findings.finding.group`)."""
        from conformance.findings.finding import group

        return group(self.class_records)

    def document(self) -> dict[str, Any]:
        from conformance.report import REPORT_FORMAT

        elapsed = time.time() - self.started
        totals = {label: self.table.totals(label) for label in self.table.backends()}
        examples = sum(t["examples"] for t in totals.values())
        return {
            "format": REPORT_FORMAT,
            "complete": self.complete,
            "result": self.result,
            "started": self.started_text,
            "updated": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "elapsed_s": round(elapsed, 2),
            "examples_per_s": round(examples / elapsed, 1) if elapsed > 0 else None,
            "profile": self.profile.name,
            "plancheck_version": plancheck_version(),
            "seed": self.seed,
            "backends": self.labels,
            "backend_versions": {
                label: backend_version(self.backend(label)) for label in self.labels
            },
            "operations": self.ops,
            "options": {
                "unsupported": {label: sorted(self.unsupported_by(label)) for label in self.labels},
                "ulp_budgets": self.ulp_budgets,
                "timeout_s": self.timeout,
                "xfail": [d.selector for d in self.deviations],
            },
            "collected_items": self.collected_items,
            "finished_items": self.finished,
            "totals": totals,
            "table": self.table.as_dict(),
            "failures": self.failures,
            "crashes": self.crashes,
            "oracle_errors": self.oracle_errors,
            "xfailed": self.xfailed,
            "deviation_classes": [c.as_dict() for c in self.deviation_classes()],
            "not_supported": {label: dict(c) for label, c in self.not_supported.items()},
            "stale_xfail": self.stale_deviations(),
            "errors": self.errors,
            "coverage": self.coverage_summary,
        }

    def _write(self) -> None:
        if self._writer is not None:
            self._writer.write(self.document(), self.table)

    # -- the terminal summary ------------------------------------------------------

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: Any) -> None:
        from conformance.pytest_plugin.terminal_summary import write_summary

        write_summary(self, terminalreporter, exitstatus)


def _new_table() -> Any:
    from conformance.report import ConformanceTable

    return ConformanceTable()
