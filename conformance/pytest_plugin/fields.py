"""What the mixins of the plugin's state share, declared for the type checker.

:class:`~conformance.pytest_plugin.state.PlancheckState` is assembled from one
mixin per concern (:mod:`.parametrize`, :mod:`.aggregation`, :mod:`.coverage`,
:mod:`.reporting`, :mod:`.faults`); each reads attributes that
``PlancheckState.__init__`` sets and calls methods another mixin defines.  Every
mixin derives from :class:`StateFields`, which declares those attributes and
methods with their types, so a checker (mypy) verifies each mixin on its own and
reports a misspelt attribute or a mismatched signature.

The declarations exist only for the checker (``if TYPE_CHECKING``): at run time
``StateFields`` is empty, the values are ``PlancheckState.__init__``'s and the
methods are the mixins' own.  An attribute a mixin starts to use is declared here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["StateFields"]

if TYPE_CHECKING:
    from collections import Counter
    from pathlib import Path

    import pytest

    from conformance.findings.deviations import Deviation
    from conformance.findings.finding import DeviationClass
    from conformance.host.client import BackendHost
    from conformance.judge.profiles import Profile
    from conformance.judge.runner import Watchdog
    from conformance.model.calls import Call
    from conformance.pytest_plugin.parametrize import Case
    from conformance.report import ConformanceTable, ReportWriter
    from oracle import OperationPlan


class StateFields:
    """The attributes and cross-mixin methods of the plugin's state (for the checker)."""

    if TYPE_CHECKING:
        # -- the session's options (PlancheckState.__init__) -----------------------
        config: pytest.Config
        labels: list[str]
        ops: list[str] | None
        profile: Profile
        seed: int | None
        ulp_budgets: dict[str, int]
        judged: frozenset[str]
        #: the per-call timeout in seconds; None: none
        timeout: float | None
        deviations: list[Deviation]
        unsupported: frozenset[str]
        all_plans: tuple[OperationPlan, ...]
        plans: tuple[OperationPlan, ...]
        is_worker: bool
        #: the hosts of the backends this process has loaded, by label
        _backends: dict[str, BackendHost]
        # -- hung and crashed calls (faults) ---------------------------------------
        _inflight_fd: int | None
        _watchdog: Watchdog | None
        _current: dict[str, Any] | None
        _current_call: Call | None
        inflight_dir: str | None
        # -- what the run measured (the controller) --------------------------------
        #: every report file the run writes; the first (None: no report)
        report_paths: list[Path]
        report_path: Path | None
        #: the report being written (a failed write names it); why a write failed
        writing: Path
        report_error: str
        table: ConformanceTable
        started: float
        started_text: str
        collected: dict[str, Case]
        partially_selected: dict[str, int]
        collected_items: int
        finished: int
        failures: list[dict[str, Any]]
        crashes: list[dict[str, Any]]
        oracle_errors: list[dict[str, Any]]
        xfailed: list[dict[str, Any]]
        errors: list[str]
        refusal_evidence: dict[tuple[str, str], tuple[set[str], set[str]]]
        class_records: list[dict[str, Any]]
        not_supported: dict[str, Counter[str]]
        not_measured: dict[str, Counter[tuple[str, str]]]
        not_judged: dict[str, Counter[str]]
        coverage_rows: dict[str, dict[str, list[Any]]]
        coverage_skipped: dict[str, dict[str, list[Any]]]
        coverage_summary: dict[str, dict[str, Any]]
        coverage_complete: bool
        result: str
        complete: bool
        _cases_by_test: dict[str, Case] | None
        _writers: list[ReportWriter]

        # -- methods one mixin (or the state) defines and another calls ------------
        def backend(self, label: str) -> BackendHost: ...
        def unsupported_by(self, label: str) -> frozenset[str]: ...
        def case_of(self, nodeid: str) -> Case | None: ...
        def _write(self) -> None: ...
        def interrupted(self) -> bool: ...
        def _coverage_blames_backend(self) -> bool: ...
        def deviation_classes(self) -> list[DeviationClass]: ...
        def stale_deviations(self) -> list[dict[str, str]]: ...
        def respelled_deviations(self) -> list[dict[str, str]]: ...
        def stale_fails(self) -> bool: ...
        def class_dicts(self) -> list[dict[str, Any]]: ...
        def excused_by(self, label: str) -> list[str]: ...
