"""Hung and crashed calls: the plugin's watchdogs and the records they leave.

A call the per-call timeout cannot stop (a loop in native code, a swallowed
``BaseException``, a reset timer) is cut by a watchdog and reported as a
``hang`` with its repro; a worker process that dies is a ``crash`` of the item
it was running.  Each xdist worker writes the call it has in flight to a small
per-worker file before the call starts (:meth:`FaultRecords._inflight`), so the
controller can name the call even after the worker is gone:

* the worker's own watchdog (:class:`conformance.judge.runner.Watchdog`) fires after
  :func:`watchdog_limit` seconds, marks the in-flight record and ends the
  worker with :data:`HANG_EXIT`; in a single process it records the hang in
  the report and ends the run with status 1;
* the controller's watchdog (:meth:`FaultRecords._watch_workers`) kills a worker
  stuck in native code that holds the GIL, which no thread of the worker can
  stop;
* xdist replaces the dead worker, and :meth:`FaultRecords.pytest_handlecrashitem`
  turns the in-flight record into the item's hang or crash record.

:class:`FaultRecords` is a mixin of :class:`conformance.pytest_plugin.state.PlancheckState`.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal as signals
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from conformance.findings.failure import show_arguments
from conformance.host.first_call import largest_allowance
from conformance.judge.runner import Watchdog
from conformance.pytest_plugin.fields import StateFields
from conformance.report import FailureReport, decode_call, encode_call, repro_command

if TYPE_CHECKING:
    from conformance.pytest_plugin.parametrize import Case

__all__ = ["HANG_EXIT", "INFLIGHT_ELEMENTS", "FaultRecords", "watchdog_limit"]


#: the exit status of an xdist worker the watchdog ended (the controller reports a hang)
HANG_EXIT = 75
#: a call with more tensor elements than this (a corpus chunk) is written to the in-flight
#: file by its note only (encoding 4096 elements per chunk would cost more than the call);
#: a hang the worker's own watchdog sees still gets its full repro
INFLIGHT_ELEMENTS = 256


def watchdog_limit(timeout: float) -> float:
    """Seconds after which the watchdog ends a call the per-call *timeout* did not stop
    (the timeout plus as much again, at least 2 s)."""
    return timeout + max(2.0, timeout)


def _describe_call(failure: Any, call_data: Any, label: str, what: str) -> None:
    """Fill *failure*'s inputs, repro lines and note from an encoded call (if decodable)."""

    if call_data is None:
        return
    try:
        call = decode_call(call_data)
    except ValueError:
        return
    failure.inputs = show_arguments(call)
    failure.repro = repro_command(call, label)
    failure.python = call.repro()
    failure.call = call_data
    failure.note = f"{what}: {call.note or call.operation}"


class FaultRecords(StateFields):
    """The in-flight file, the watchdogs and the hang and crash records of
    :class:`~conformance.pytest_plugin.state.PlancheckState` (whose attributes they use)."""

    def _inflight(self, test: str, call: Any) -> None:
        """A backend call starts (*call*) or ends (None): arm or disarm the watchdog
        and, in an xdist worker, write the call to the in-flight file."""
        if call is None:
            if self._watchdog is not None:
                self._watchdog.disarm()
            if self._inflight_fd is not None and self._current is not None:
                self._write_inflight({"test": self._current.get("test"), "call": None})
            return

        self._current_call = call
        size = sum(getattr(a, "size", 0) for a in call.args)
        if size > INFLIGHT_ELEMENTS:  # a corpus chunk: its note says which cases
            self._current = {"test": test, "call": None, "note": call.note, "large": True}
        else:
            try:
                self._current = {"test": test, "call": encode_call(call)}
            except TypeError:
                self._current = {"test": test, "call": None, "note": call.note}
        self._current.update(armed=time.time(), pid=os.getpid())
        if self._inflight_fd is not None:
            self._write_inflight(self._current)
        if self._watchdog is None and self.timeout:
            allowance = largest_allowance(list(self._backends.values()))  # a first call's compile
            self._watchdog = Watchdog(watchdog_limit(self.timeout + allowance), self._hung)
        if self._watchdog is not None:
            self._watchdog.arm()

    def _write_inflight(self, content: dict[str, Any]) -> None:
        assert self._inflight_fd is not None
        data = json.dumps(content).encode()
        os.pwrite(self._inflight_fd, data, 0)
        os.ftruncate(self._inflight_fd, len(data))

    def _hung(self) -> None:
        """The watchdog fired (in its thread): the call in flight outlived the timeout's
        reach.  An xdist worker marks its in-flight record and ends itself (the
        controller reports a hang and replaces it); a single process records the
        hang in the report and ends the run with status 1."""

        current = dict(self._current or {}, hang=True)
        if current.get("large") and self._current_call is not None:
            with contextlib.suppress(TypeError):  # encoded only now (see INFLIGHT_ELEMENTS)
                current["call"] = encode_call(self._current_call)
        if self._inflight_fd is not None:
            self._write_inflight(current)
            os._exit(HANG_EXIT)
        case = self.case_of(current.get("test", ""))
        record = self._hang_record(
            current.get("test", ""), case, current.get("call"), current.get("note", "")
        )
        self.table.add(record, "failed")
        self.finished += 1
        self.failures.extend(record["failures"])
        self.class_records.extend(record["classes"])
        self.complete = False
        self.result = "not conforming (a call hung beyond the watchdog; the run was stopped)"
        self._write()
        text = record["failures"][0]["text"]
        capture = self.config.pluginmanager.getplugin("capturemanager")
        if capture is not None:
            capture.suspend_global_capture(in_=False)
        sys.stderr.write(
            f"\nplancheck: {text}\nplancheck: the run was stopped (run with --workers 1 or more "
            f"to go on after a hang)\n"
        )
        sys.stderr.flush()
        os._exit(1)

    def _watch_workers(self, directory: str) -> None:
        """The controller's watchdog: a worker whose call has been in flight past the
        limit (a loop in native code that holds the GIL, which no thread of the
        worker can stop) is killed; xdist replaces it and the crash hook reports
        the call as a hang."""

        assert self.timeout is not None
        while os.path.isdir(directory):
            time.sleep(0.5)
            allowance = largest_allowance(
                list(self._backends.values())
            )  # after the worker's watchdog
            limit = watchdog_limit(self.timeout + allowance) + 2
            try:
                names = os.listdir(directory)
            except OSError:
                return
            for name in names:
                path = Path(directory, name)
                try:
                    data = json.loads(path.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    continue  # being rewritten
                armed, pid = data.get("armed"), data.get("pid")
                if data.get("call") is None or not armed or not pid or data.get("hang"):
                    continue
                if time.time() - float(armed) > limit:
                    try:
                        path.write_text(json.dumps(dict(data, hang=True)), encoding="utf-8")
                        os.kill(int(pid), signals.SIGKILL)
                    except (OSError, ValueError):
                        pass

    def _hang_record(
        self, test: str, case: Case | None, call_data: Any, note: str = ""
    ) -> dict[str, Any]:
        """The record of a test item whose call the watchdog cut."""

        label = case.label if case else "?"
        limit = watchdog_limit(self.timeout) if self.timeout else 0
        failure = FailureReport(
            backend=label,
            operation=case.plan.operation if case else "?",
            plan=case.plan.describe() if case else "?",
            problem="timeout",
            summary=f"the call ran {limit:g} s, past the per-call timeout of {self.timeout:g} s "
            f"which could not interrupt it (a loop in native code, a swallowed "
            f"BaseException, a reset timer); the watchdog ended its process",
            rule=f"every call returns within the per-call timeout (no result within "
            f"{self.timeout:g} s, ended after {limit:g} s)",
            test=test,
        )
        failure.note = f"the call the watchdog cut: {note}" if note else ""
        _describe_call(failure, call_data, label, "the call the watchdog cut")
        example = failure.as_dict()
        return {
            "backend": label, "operation": failure.operation, "plan": failure.plan,
            "kind": case.kind if case else "", "test": test, "status": "timeout",
            "failures": [example],
            "classes": [{"backend": label, "operation": failure.operation, "plan": failure.plan,
                         "class": "hang", "kind": "hang", "rule": failure.rule, "count": 1,
                         "size": 0, "example": example}],
        }  # fmt: skip

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: Any, sched: Any) -> None:

        case = self.case_of(crashitem)
        worker = getattr(getattr(getattr(report, "node", None), "gateway", None), "id", None)
        call_data = None
        data: dict[str, Any] = {}
        if self.inflight_dir and worker:
            try:
                text = Path(self.inflight_dir, f"{worker}.json").read_text(encoding="utf-8")
                data = json.loads(text)
                if data.get("test") == crashitem:
                    call_data = data.get("call")
                else:
                    data = {}
            except (OSError, ValueError):
                call_data, data = None, {}
        if data.get("hang"):
            report.plancheck = self._hang_record(crashitem, case, call_data, data.get("note", ""))
            return
        label = case.label if case else "?"
        failure = FailureReport(
            backend=label,
            operation=case.plan.operation if case else "?",
            plan=case.plan.describe() if case else "?",
            problem="crash",
            summary=f"the worker process {worker} died while running this test item "
            f"(pytest-xdist replaced it and the run went on)",
            rule="the backend must not kill its process",
            test=crashitem,
        )
        if call_data is not None:
            _describe_call(failure, call_data, label, "the call the worker had started")
        elif data.get("note"):
            failure.note = f"the call the worker had started: {data['note']}"
        else:
            failure.note = "the worker died outside a backend call (or before its first one)"
        report.plancheck = {
            "backend": label,
            "operation": failure.operation,
            "plan": failure.plan,
            "kind": case.kind if case else "",
            "test": crashitem,
            "status": "crash",
            "failures": [failure.as_dict()],
            "classes": [
                {"backend": label, "operation": failure.operation, "plan": failure.plan,
                 "class": "crash", "kind": "crash", "rule": failure.rule, "count": 1,
                 "size": 0, "example": failure.as_dict()}
            ],
        }  # fmt: skip
