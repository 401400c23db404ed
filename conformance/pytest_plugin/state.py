"""The plugin's state: the options of the session, its backends, and what it measured.

One :class:`PlancheckState` per pytest process (the controller and every
xdist worker), registered as a plugin by :func:`conformance.pytest_plugin.pytest_configure`.
"""

from __future__ import annotations

import dataclasses
import math
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import hypothesis.core
import pytest
from hypothesis.statistics import collector, describe_statistics

from conformance.findings.authority import authority_of, parse_authorities
from conformance.findings.deviations import Deviation
from conformance.findings.deviations import load as load_deviation_file
from conformance.host.client import BackendHost, HostCrashed, HostLoadError, HostTimeout
from conformance.judge.budgets import parse_budgets
from conformance.judge.checker import Checker
from conformance.judge.profiles import PROFILES
from conformance.model.capabilities import declared_by, parse_features
from conformance.pytest_plugin.aggregation import CHECKER, Aggregation
from conformance.pytest_plugin.coverage import CoverageCheck
from conformance.pytest_plugin.faults import FaultRecords
from conformance.pytest_plugin.options import DEFAULT_TIMEOUT, typed
from conformance.pytest_plugin.parametrize import Case, Parametrization
from conformance.pytest_plugin.reporting import Reporting
from conformance.report import ConformanceTable, ReportWriter
from oracle import resolvable_plans

if TYPE_CHECKING:
    from hypothesis.internal.conjecture.engine import StatisticsDict

__all__ = ["PlancheckState"]


def _load_error_text(error: BaseException) -> str:
    """Why a backend did not load, for a person: what the backend raised without its
    class's name (as ``plancheck run`` says it), else the host's own message."""
    cause = getattr(error, "error", None) if isinstance(error, HostLoadError) else None
    if cause is None:
        return str(error)
    text = str(cause.args[0]) if len(cause.args) == 1 else str(cause)
    return text.strip() or f"{type(cause).__name__} (no message)"


class PlancheckState(Parametrization, Aggregation, CoverageCheck, Reporting, FaultRecords):
    """The plugin's state, one per pytest process: the options, the backends, and
    (on the controller) what the run measured.

    Each concern is a mixin of its own module: the cases (:mod:`.parametrize`),
    the records of finished items (:mod:`.aggregation`), coverage
    (:mod:`.coverage`), the document and the terminal (:mod:`.reporting`), hung
    and crashed calls (:mod:`.faults`).
    """

    def __init__(self, config: Any) -> None:
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
            # what --hypothesis-seed sets (hypothesis types the global by its initial None)
            hypothesis.core.global_force_seed = self.seed  # type: ignore[assignment]
        self.ulp_budgets = parse_budgets(option.plancheck_ulp_budget, typed(config, "ulp-budget"))
        try:
            self.judged = parse_authorities(
                getattr(option, "plancheck_judge", None) or ["all"], typed(config, "judge")
            )
        except ValueError as error:
            raise pytest.UsageError(str(error)) from None
        timeout = DEFAULT_TIMEOUT if option.plancheck_timeout is None else option.plancheck_timeout
        if not (timeout >= 0 and math.isfinite(timeout)):
            raise pytest.UsageError(
                f"{typed(config, 'timeout')}: expected seconds >= 0, got {timeout}"
            )
        self.timeout = timeout or None
        self.deviations: list[Deviation] = []
        self.unsupported: frozenset[str] = frozenset()
        if option.plancheck_xfail:
            self.deviations, self.unsupported = load_deviation_file(option.plancheck_xfail)
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
        self._backends: dict[str, BackendHost] = {}
        for label in self.labels:
            self.backend(label)  # a usage error now rather than one per test
            self.unsupported_by(label)
        self.is_worker = workerinput is not None
        if not self.is_worker and getattr(option, "numprocesses", None):
            self.close_hosts()  # an xdist controller runs no calls: its workers have hosts
        self.worker_id = workerinput.get("workerid") if workerinput else None
        self._inflight_fd: int | None = None
        self._watchdog = None
        self._current = None
        self._current_call = None
        inflight_dir = workerinput.get("plancheck_inflight") if workerinput else None
        if inflight_dir:
            path = os.path.join(inflight_dir, f"{self.worker_id}.json")
            self._inflight_fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
        self.inflight_dir: str | None = None
        # controller side
        reports = option.plancheck_report or []
        if isinstance(reports, str):  # set by a caller that predates repeatable reports
            reports = [reports]
        #: every report file the run writes (``--plancheck-report``, repeatable), in order
        self.report_paths: list[Path] = list(
            dict.fromkeys(Path(config.invocation_params.dir) / r for r in reports)
        )
        #: the first of them: where the terminal sends a reader for what it leaves out,
        #: and beside which large calls are written (None: no report)
        self.report_path = self.report_paths[0] if self.report_paths else None
        self.table = ConformanceTable()
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
        #: (backend, operation) -> (refused, supported) features, from every check's record
        self.refusal_evidence: dict[tuple[str, str], tuple[set[str], set[str]]] = {}
        self.class_records: list[dict[str, Any]] = []
        self.not_supported: dict[str, Counter[str]] = {}
        #: backend -> (operation, message) -> calls the adapter could not map (NotMeasured)
        self.not_measured: dict[str, Counter[tuple[str, str]]] = {}
        #: backend -> why -> calls not judged: the rule they break rests on no source
        self.not_judged: dict[str, Counter[str]] = {}
        self.coverage_rows: dict[str, dict[str, list[Any]]] = {}
        #: per backend and plan: calls not judged (unsupported) and the classes they hit
        self.coverage_skipped: dict[str, dict[str, list[Any]]] = {}
        self.coverage_summary: dict[str, dict[str, Any]] = {}
        self.coverage_complete = True
        self.result = "running"
        self.complete = False
        self._cases_by_test: dict[str, Case] | None = None
        self._writers: list[ReportWriter] = []
        self.report_error = ""
        if self.report_paths and not self.is_worker:
            for report_file in self.report_paths:
                try:
                    self._writers.append(ReportWriter(report_file))
                except OSError as error:
                    raise pytest.UsageError(f"{typed(config, 'report')}: {error}") from None
            self._write()

    # -- backends and cases ------------------------------------------------------

    def backend(self, label: str) -> BackendHost:
        backend = self._backends.get(label)
        if backend is None:
            backend = BackendHost(label)  # the backend runs only in its host process
            try:
                backend.ensure()
            except (HostLoadError, HostCrashed, HostTimeout) as error:
                backend.close()
                raise pytest.UsageError(
                    f"{typed(self.config, 'backend')} {label}: cannot load it: "
                    f"{_load_error_text(error)}"
                ) from None
            self._backends[label] = backend
        return backend

    def unsupported_by(self, label: str) -> frozenset[str]:
        """The features not judged for backend *label*: the options' and its own."""
        declared = self.backend(label).info.get("unsupported")
        if isinstance(declared, str):  # the host's ValueError of declared_by
            raise pytest.UsageError(declared)
        try:
            return self.unsupported | declared_by(self.backend(label))
        except ValueError as error:
            raise pytest.UsageError(str(error)) from None

    def _write(self) -> None:
        """Write the report; a failure (disk full, the directory made read-only) is
        kept in :attr:`report_error`: the run goes on, the verdict is printed and
        the session ends with status 3 and the reason (pytest_sessionfinish)."""
        try:
            super()._write()
        except OSError as error:
            where = getattr(self, "writing", self.report_path)
            self.report_error = f"the report {where} could not be written: {error}"

    def close_hosts(self) -> None:
        """Kill every backend host of this process (and whatever the backends forked)."""
        for host in self._backends.values():
            host.close()

    def checker(self, node: Any, case: Case) -> Checker:

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
        checker.judged = self.judged
        checker.deviation = self.deviation_for(case.label, case.plan)
        checker.unsupported = self.unsupported_by(case.label)
        checker.known = lambda finding, label=case.label: self.known_reason(
            label, finding.operation, finding.plan, finding.cls, finding.raised,
            authority_of(finding.cls, finding.operation, finding.plan).name,
        )  # fmt: skip
        checker.cache_dir = self._cache_dir()
        node.stash[CHECKER] = checker
        return checker

    def _cache_dir(self) -> str | None:
        cache = getattr(self.config, "cache", None)
        if cache is None:
            return None
        try:
            return str(cache.mkdir("plancheck-corpus"))
        except OSError:
            return None

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

        searches: list[str] = []

        def note(stats: StatisticsDict) -> None:
            stats["nodeid"] = f"{item.nodeid} (search {len(searches) + 1})"
            searches.append(describe_statistics(stats))
            item.hypothesis_statistics = "\n\n".join(searches)

        # hypothesis types its collector by its initial value (None), not by the
        # callbacks it holds
        with collector.with_value(note):  # type: ignore[arg-type]
            return (yield)

    # -- hooks: the controller (or the only process) -----------------------------

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        if self.inflight_dir is None:
            self.inflight_dir = tempfile.mkdtemp(prefix="plancheck-inflight-")
            if self.timeout:
                threading.Thread(target=self._watch_workers, args=(self.inflight_dir,),
                                 name="plancheck-worker-watchdog", daemon=True).start()  # fmt: skip
        node.workerinput["plancheck_inflight"] = self.inflight_dir
        node.workerinput["plancheck_seed"] = self.seed

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: Any, exitstatus: Any) -> None:
        if self.is_worker:
            if self._inflight_fd is not None:
                os.close(self._inflight_fd)
            return
        self._coverage()
        status = int(session.exitstatus)
        failing = not self.coverage_complete or self.stale_fails() or self.new_classes_found()
        if failing and status == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
            status = 1
        if status in (0, 1) and self.respelled_deviations():
            session.exitstatus = pytest.ExitCode.USAGE_ERROR  # the file needs new spellings
            status = int(session.exitstatus)
        self.complete = status in (0, 1)
        self.result = self._result(status)
        self._write()
        if self.report_error:
            sys.stderr.write(f"plancheck: {self.report_error}\n")
            session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
        if self.inflight_dir:
            shutil.rmtree(self.inflight_dir, ignore_errors=True)

    # -- the terminal summary ------------------------------------------------------
