"""pytest plugin of the exhaustive sweep: options, and the state kept by the controller.

:mod:`conformance.exhaustive.items` (shipped in the package; the checkout's
``tests/test_exhaustive_sweep.py`` collects the same items) makes every
(plan, shard) a pytest item.  Loaded with ``-p conformance.exhaustive_pytest``
(or ``-p conformance.exhaustive.pytest_plugin``), this plugin

* registers the ``exhaustive`` marker itself, so the items run with
  ``--strict-markers`` from an installed wheel in any directory;
* adds the sweep's options as ``--exhaustive-NAME`` (the same table as
  ``plancheck exhaustive``'s options, :data:`conformance.exhaustive.cli.OPTIONS`:
  ``--exhaustive-backend``, ``--exhaustive-op``, ``--exhaustive-dtype``,
  ``--exhaustive-shard``, ``--exhaustive-shards``, ``--exhaustive-sample``,
  ``--exhaustive-ulp-budget``, ``--exhaustive-state``, ``--exhaustive-fresh``,
  ``--exhaustive-also``, ``--exhaustive-every-int32``, ``--exhaustive-timeout``),
  validated by the same types;
* refuses to run (exit status 3) in a process whose floating-point environment
  is not standard; the backend itself runs only in host processes
  (:mod:`conformance.exhaustive.hosted`), so no item imports it;
* makes the *controller* (the pytest process itself, or pytest-xdist's
  controller) the only writer of the state file: a worker -- a local
  process or one on another machine reached through an xdist gateway
  (``--tx ssh=host//python=...``) -- checks its shard and attaches the
  records to its test report; the controller validates them and appends
  them.  Shards may therefore finish on any worker, in any order, on
  machines that do not share the state file's filesystem;
* reads the state once, before any worker starts, and tells every worker
  which shards are already recorded (with their verdicts) for which backend
  build and oracle: a worker skips a shard recorded for *its own* build (the
  identity is computed where the backend runs) and checks it otherwise;
* claims every selected plan for the whole session (the claims of
  :class:`conformance.exhaustive.state.Store`), so a second sweep on the same
  state file waits for those plans and then finds them recorded.

Without the plugin the items still run (configured by the
``PLANCHECK_EXHAUSTIVE_*`` environment variables, see the test module), and
every worker appends its own records to the state file under its lock.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from dataclasses import dataclass
from typing import Any

import pytest
from filelock import FileLock

from conformance.exhaustive import sweep as X
from conformance.exhaustive.cli import OPTIONS, SWEEP_OPTIONS, select, selection
from conformance.exhaustive.state import FORMAT, StateError, Store, current_key
from conformance.host.client import shared_host
from conformance.host.fpenv import judge_environment_problem

__all__ = ["MARKER", "Settings", "run_item", "settings"]

_ACTIVE = pytest.StashKey[bool]()
_RECORDED = pytest.StashKey[dict[str, int]]()
_SETTINGS = pytest.StashKey["Settings"]()
_PROPERTY = "plancheck_exhaustive_records"
_WORKER_KEY = "plancheck_exhaustive_recorded"


@dataclass(frozen=True)
class Settings:
    """What the sweep's items check, and where the evidence goes."""

    backend: str
    plans: list[str]
    shards: int
    indices: list[int]
    state: str
    ulp_budget: int
    also: list[str]
    fresh: bool
    every_int32: bool = False
    timeout: float = X.DEFAULT_TIMEOUT


def _dest(name: str) -> str:
    return "exhaustive_" + name.replace("-", "_")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("plancheck-exhaustive", "plancheck exhaustive sweep")
    for name, options in OPTIONS:
        if name not in SWEEP_OPTIONS:
            continue
        kwargs = {k: v for k, v in options.items() if k != "default"}
        if kwargs.get("action") == "store_true":
            kwargs.update(action="store_const", const=True)
        group.addoption(f"--exhaustive-{name}", dest=_dest(name), default=None, **kwargs)


def _environment(name: str, default: str) -> str:
    return os.environ.get("PLANCHECK_EXHAUSTIVE_" + name, default)


def settings(config: pytest.Config) -> Settings:
    """The sweep's settings: each ``--exhaustive-NAME`` option, else its
    ``PLANCHECK_EXHAUSTIVE_NAME`` variable, else the command line's default.

    :class:`pytest.UsageError` for a selection that names nothing or an
    invalid variable.  Worked out once per session.
    """
    if _SETTINGS not in config.stash:
        config.stash[_SETTINGS] = _settings(config)
    return config.stash[_SETTINGS]


def _settings(config: pytest.Config) -> Settings:

    def option(name: str) -> Any:
        return config.getoption(_dest(name), default=None)

    try:
        op, dtype = option("op"), option("dtype")
        if op is not None or dtype is not None:
            plans = select(op or "all", dtype or "both")
        elif _environment("PLANS", ""):
            plans = [p for p in _environment("PLANS", "").split(",") if p]
            for plan in plans:
                X.split_plan(plan)
        else:
            ops = [o for o in _environment("OPS", "").split(",") if o]
            plans = X.plan_ids(ops or None)
        sample = option("sample") or int(_environment("SAMPLE", "1"))
        shards = option("shards") or (int(_environment("SHARDS", "0")) or None)
        count, indices = selection(option("shard"), shards, sample)
        budget = option("ulp-budget")
        budget = int(_environment("ULP_BUDGET", "0")) if budget is None else budget
        if budget < 0:
            raise ValueError(f"ULP budget {budget}: need >= 0")
        timeout = option("timeout") or float(_environment("TIMEOUT", repr(X.DEFAULT_TIMEOUT)))
        if not 0 < timeout < float("inf"):
            raise ValueError(f"timeout {timeout}: need a positive number of seconds")
    except (KeyError, ValueError) as error:
        raise pytest.UsageError(f"plancheck exhaustive: {error}") from None
    also = option("also")
    also = _environment("ALSO", "") if also is None else also
    return Settings(
        backend=option("backend") or _environment("BACKEND", "cpu"),
        plans=plans,
        shards=count,
        indices=indices,
        state=option("state") or _environment("STATE", str(X.DEFAULT_STATE)),
        ulp_budget=budget,
        also=[a for a in also.split(",") if a],
        fresh=bool(option("fresh")) or _environment("FRESH", "") == "1",
        every_int32=bool(option("every-int32")),
        timeout=timeout,
    )


def _key(identity: dict[str, str], plan: str, start: int, stop: int, budget: int) -> str:
    return json.dumps(
        [identity["identity"], identity["plancheck"], identity["oracle"], plan, start, stop, budget]
    )


class Controller:
    """The state file's one writer in a plugin session (see the module docstring)."""

    def __init__(self, config: pytest.Config, chosen: Settings) -> None:
        self.settings = chosen
        self.written = 0
        self.problems: list[str] = []
        self.store = Store(chosen.state)
        self.claims: list[FileLock] = []
        busy = []
        for plan in chosen.plans:
            claim = self.store.claim(f"{chosen.backend}|{plan}", wait=False)
            if claim is None:
                busy.append(plan)
            else:
                self.claims.append(claim)
        for plan in busy:
            print(f"waiting for another sweep checking {plan} ...", file=sys.stderr)
            self.claims.append(self.store.claim(f"{chosen.backend}|{plan}", wait=True))
        recorded: dict[str, int] = {}
        if not chosen.fresh:
            for r in self.store.load():
                current_format = r["format"] == FORMAT
                if r["backend"] == chosen.backend and r["role"] == "checked" and current_format:
                    key = _key(r, r["plan"], r["start"], r["stop"], r["ulp_budget"])
                    bad = bool(r.get("error") or r.get("environment"))
                    recorded[key] = r["non_conforming"] + bad
        config.stash[_RECORDED] = recorded

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:  # xdist's WorkerController
        node.workerinput[_WORKER_KEY] = json.dumps(node.config.stash[_RECORDED])

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":  # the teardown report carries the same properties
            return
        for name, value in report.user_properties:
            if name != _PROPERTY:
                continue
            if not isinstance(value, str):
                self.problems.append(f"{report.nodeid}: a {type(value).__name__}, not a record")
                continue
            try:
                self.store.append(json.loads(value))
                self.written += 1
            except (StateError, ValueError) as error:
                self.problems.append(f"{report.nodeid}: {error}")

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.problems and session.exitstatus == 0:
            session.exitstatus = 3

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        terminalreporter.write_line(
            f"plancheck exhaustive: {self.written} shard records appended to {self.store.path}"
        )
        for problem in self.problems:
            terminalreporter.write_line(f"plancheck exhaustive: NOT RECORDED: {problem}", red=True)

    def pytest_unconfigure(self) -> None:
        for claim in self.claims:
            claim.release()


#: the marker of the sweep's items (registered by the plugin: no ini file is needed)
MARKER = "exhaustive: full sweeps over all 2**32 inputs (opt-in: -m exhaustive)"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER)
    problem = judge_environment_problem()  # the judge's own process, before any shard
    if problem is not None:
        pytest.exit(f"plancheck exhaustive: {problem}", returncode=3)
    config.stash[_ACTIVE] = True
    if hasattr(config, "workerinput"):
        config.stash[_RECORDED] = json.loads(config.workerinput.get(_WORKER_KEY, "{}"))
        _start_hosts(config)
        return
    if config.option.collectonly or config.option.help:
        return
    try:
        controller = Controller(config, settings(config))
    except StateError as error:
        pytest.exit(f"plancheck exhaustive: {error}", returncode=error.status)
    config.pluginmanager.register(controller, "plancheck-exhaustive-controller")


def _start_hosts(config: pytest.Config) -> None:
    """Start loading this worker's backends in their hosts now, while pytest collects:
    the first item finds them loaded (a host's start is a second of a short sweep's
    wall time otherwise).  Anything wrong is left to the items to report."""
    try:
        chosen = settings(config)
    except Exception:  # a usage error: the items report it
        return
    for name in [chosen.backend, *chosen.also]:
        if name != "numpy-float32":
            with contextlib.suppress(Exception):
                shared_host(name).start()


def run_item(request: pytest.FixtureRequest, plan: str, shard: int) -> X.ShardResult:
    """Check one (plan, shard) item: through the controller with the plugin, else directly."""
    config = request.config
    chosen = settings(config)
    if not config.stash.get(_ACTIVE, False):
        result, _, _ = X.run_shard(
            chosen.backend, plan, shard, chosen.shards, ulp_budget=chosen.ulp_budget,
            state=chosen.state, fresh=chosen.fresh, also=chosen.also,
            plateaus=not chosen.every_int32, timeout=chosen.timeout,
        )  # fmt: skip
        return result
    start, stop = X.shard_range(shard, chosen.shards)
    key = _key(current_key(chosen.backend, plan), plan, start, stop, chosen.ulp_budget)
    recorded = config.stash.get(_RECORDED, {})
    if key in recorded:  # recorded for this worker's own backend build and oracle
        return X.ShardResult(
            chosen.backend, plan, start, stop, shard, chosen.shards, chosen.ulp_budget,
            inputs=stop - start, non_conforming=recorded[key],
            error="recorded non-conforming (see the state file)" if recorded[key] else None,
        )  # fmt: skip
    result, _, records = X.run_shard(
        chosen.backend, plan, shard, chosen.shards, ulp_budget=chosen.ulp_budget,
        also=chosen.also, record=False, plateaus=not chosen.every_int32,
        timeout=chosen.timeout,
    )  # fmt: skip
    request.node.user_properties.append((_PROPERTY, json.dumps(records)))
    return result
