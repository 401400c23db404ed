"""``plancheck exhaustive``: evidence behind every verdict, and one meaning per exit status.

0 complete and conforming, 1 non-conformance found, 2 usage or input error,
3 incomplete (interrupted, a shard without a verdict, a damaged or foreign
state file).  The backends below are importable as ``test_exhaustive_cli:NAME``
(``tests`` is on ``sys.path``; subprocesses get it through ``PYTHONPATH``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import backends
from conformance import exhaustive as X
from conformance.cli import main as cli_main
from conformance.exhaustive.state import FORMAT, Store, backend_identity, current_key

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
NEG_SHARD = ["--op", "neg", "--dtype", "Float32", "--shard", "77/65536", "--no-progress"]


class _Wrapped:
    """The CPU backend with its output changed by :meth:`spoil` (the fast exchange kept)."""

    name = "wrapped"

    def __init__(self) -> None:
        self.cpu = backends.get("cpu")

    def from_tensor(self, tensor):
        return self.cpu.from_tensor(tensor)

    def to_tensor(self, native):
        return self.cpu.to_tensor(native)

    def from_numpy(self, array):
        return np.array(array)

    def to_numpy(self, native):
        return np.asarray(native)

    def execute(self, operation, *args, **options):
        return self.spoil(np.asarray(self.cpu.execute(operation, *args, **options)))

    def spoil(self, out: np.ndarray) -> np.ndarray:
        return out


class WrongEverywhere(_Wrapped):
    """Every result one ULP (bit 0) off."""

    def spoil(self, out):
        out = out.copy()
        out.view(np.uint32)[...] ^= np.uint32(1)
        return out


class Slow(_Wrapped):
    """Conforming, 0.15 s a call (a sweep long enough to race or interrupt)."""

    def spoil(self, out):
        time.sleep(0.15)
        return out


class RaisesKeyboardInterrupt(_Wrapped):
    def spoil(self, out):
        raise KeyboardInterrupt("from inside the backend")


class WrongThenDamagesTheState(WrongEverywhere):
    """Wrong everywhere; its second call cuts a line into the state file (``DAMAGE_STATE``)."""

    calls = 0

    def spoil(self, out):
        WrongThenDamagesTheState.calls += 1
        if WrongThenDamagesTheState.calls == 2:
            with open(os.environ["DAMAGE_STATE"], "a") as state:
                state.write('{"format": "plancheck-exh')
        return super().spoil(out)


class OverwritesItsInput(_Wrapped):
    """Conforming results, but it zeroes the array it was given."""

    def from_numpy(self, array):
        result = np.array(array)
        array[...] = 0
        return result


class RaisesWithEscapes(_Wrapped):
    def spoil(self, out):
        raise ValueError("\x1b[2J\x1b[31mred\r\nfake line | " + "x" * 5000)


def _run(*args: str, state: Path) -> int:
    return cli_main(["exhaustive", *args, "--state", str(state)])


def _spawn(*args: str, state: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(ROOT)]))
    command = [sys.executable, "-m", "conformance.cli", "exhaustive", *args, "--state", str(state)]
    return subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _records(state: Path) -> list[dict]:
    return [json.loads(line) for line in state.read_text().splitlines()]


# ---------------------------------------------------------------------------
# Issue 15 item 2: a verdict is never claimed without evidence
# ---------------------------------------------------------------------------


def test_a_damaged_last_line_is_refused_and_nothing_is_appended(tmp_path, capsys):
    state = tmp_path / "s.jsonl"
    assert _run(*NEG_SHARD, state=state) == 0
    good = state.read_text()
    state.write_text(good + good[: len(good) // 2])  # an append cut in the middle
    wrong = "test_exhaustive_cli:WrongEverywhere"
    assert _run(*NEG_SHARD, "--backend", wrong, state=state) == 3
    err = capsys.readouterr().err
    assert "s.jsonl:2" in err and "damaged" in err and "INCOMPLETE" in err
    assert state.read_text() == good + good[: len(good) // 2]  # untouched


def test_foreign_and_old_format_lines_are_refused(tmp_path, capsys):
    state = tmp_path / "s.jsonl"
    for line, why in [
        ('{"backend": "cpu", "plan": "neg:Float32", "start": 0, "stop": 4294967296}', "format"),
        ("[1, 2, 3]", "not a record"),
        ("1" * 5000, "not a JSON record"),
        ("[" * 100000, "not a JSON record"),
    ]:
        state.write_text(line + "\n")
        assert _run(*NEG_SHARD, "--table", state=state) == 3
        assert why in capsys.readouterr().err
    record = X.to_record(X.ShardResult("cpu", "neg:Float32", 0, 1 << 32, inputs=1 << 32))
    for field, bad, why in [
        ("inputs", 5, "counts"),
        ("start", -1, "range"),
        ("plan", "sin:Int32", "no unary plan"),
        ("max_ulp", True, "max_ulp"),
    ]:
        state.write_text(json.dumps({**record, field: bad}) + "\n")
        assert _run(*NEG_SHARD, "--certification", state=state) == 3
        assert why in capsys.readouterr().err


@pytest.mark.parametrize("path", ["/dev/null", "DIRECTORY", "/proc/version/x.jsonl"])
def test_a_state_path_that_cannot_hold_a_state_file_is_a_usage_error(tmp_path, capsys, path):
    state = tmp_path if path == "DIRECTORY" else Path(path)
    wrong = "test_exhaustive_cli:WrongEverywhere"
    assert _run(*NEG_SHARD, "--backend", wrong, state=state) == 2
    assert "state file" in capsys.readouterr().err


def test_a_backend_wrong_everywhere_is_non_conforming_in_every_summary(tmp_path, capsys):
    state = tmp_path / "s.jsonl"
    wrong = "test_exhaustive_cli:WrongEverywhere"
    assert _run(*NEG_SHARD, "--backend", wrong, state=state) == 1
    out = capsys.readouterr().out
    assert "NON-CONFORMING: test_exhaustive_cli:WrongEverywhere neg:Float32" in out
    assert "65,536 non-conforming" in out
    assert _run(*NEG_SHARD, "--backend", wrong, "--table", state=state) == 1
    assert _run(*NEG_SHARD, "--backend", wrong, "--certification", state=state) == 1
    # a resumed run reads the recorded verdict: still 1, nothing run again
    assert _run(*NEG_SHARD, "--backend", wrong, state=state) == 1
    assert len(_records(state)) == 1


def test_overlapping_shard_counts_are_counted_once(tmp_path, capsys):
    state = tmp_path / "s.jsonl"
    common = ["--op", "neg", "--dtype", "Float32", "--no-progress"]
    assert _run(*common, "--shard", "0/4096", state=state) == 0
    assert _run(*common, "--shard", "0/8192", state=state) == 0  # inside the first
    assert _run(*common, "--shard", "1/8192", state=state) == 0  # inside the first
    assert _run(*common, "--shard", "2/8192", state=state) == 0  # beside it
    capsys.readouterr()
    assert _run(*common, "--table", state=state) == 3  # not all 2**32 inputs
    row = next(line for line in capsys.readouterr().out.splitlines() if "neg:Float32" in line)
    assert f"| neg:Float32 | {(1 << 20) + (1 << 19):,} |" in row
    (summary,) = X.summarise(_records(state), "cpu")
    assert summary.inputs == summary.covered == (1 << 20) + (1 << 19) and summary.shards == 2


def test_table_and_certification_exit_statuses_follow_the_verdict(tmp_path, capsys):
    state = tmp_path / "s.jsonl"
    whole = X.ShardResult("cpu", "neg:Float32", 0, 1 << 32, 0, 1, inputs=1 << 32)
    Store(state).append([X.to_record(whole)])
    table = ["--op", "neg", "--dtype", "Float32", "--state", str(state)]
    assert cli_main(["exhaustive", "--table", *table]) == 0
    assert cli_main(["exhaustive", "--certification", *table]) == 0
    assert "| neg:Float32 | **all 2**32** |" in capsys.readouterr().out
    assert cli_main(["exhaustive", "--table", "--op", "neg,exp", "--state", str(state)]) == 3
    assert (
        "no records of cpu under --ulp-budget 0 for exp:Float32, exp:Int32"
        in capsys.readouterr().err
    )
    bad = X.ShardResult("cpu", "neg:Float32", 5, 6, inputs=1, non_conforming=1)
    Store(state).append([X.to_record(bad)])  # overlaps the whole range: still counted as bad
    assert cli_main(["exhaustive", "--table", *table]) == 1
    assert cli_main(["exhaustive", "--certification", *table]) == 1


def test_records_of_another_backend_build_or_oracle_are_not_reused(tmp_path, monkeypatch, capsys):
    module = tmp_path / "changing_backend.py"
    module.write_text("from test_exhaustive_cli import _Wrapped as Backend\n# version 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    state = tmp_path / "s.jsonl"
    args = [*NEG_SHARD, "--backend", "changing_backend:Backend"]
    assert _run(*args, state=state) == 0
    assert _run(*args, state=state) == 0 and len(_records(state)) == 1  # resumed
    module.write_text("from test_exhaustive_cli import _Wrapped as Backend\n# version 2\n")
    backend_identity.cache_clear()
    sys.modules.pop("changing_backend", None)
    assert _run(*args, state=state) == 0
    first, second = _records(state)
    assert first["identity"] != second["identity"]  # checked again, not "certified"
    capsys.readouterr()
    assert _run(*args, "--table", state=state) == 3
    assert "1 records of changing_backend:Backend" in capsys.readouterr().err
    # a record made by another oracle is not reused either
    monkeypatch.setattr("conformance.exhaustive.state.oracle_digest", lambda plan: "another-oracle")
    assert _run(*args, state=state) == 0 and len(_records(state)) == 3


def test_two_sweeps_on_one_state_file_check_each_shard_once(tmp_path):
    state = tmp_path / "s.jsonl"
    args = ["--backend", "test_exhaustive_cli:Slow", "--op", "neg,abs", "--dtype", "Float32",
            "--shards", "8192", "--sample", "1024", "--no-progress"]  # fmt: skip
    first = _spawn(*args, state=state)
    second = _spawn(*args, "--op", "abs,neg", state=state)
    outputs = [p.communicate(timeout=120) for p in (first, second)]
    assert [p.returncode for p in (first, second)] == [0, 0], outputs
    records = _records(state)
    keys = [(r["plan"], r["start"]) for r in records]
    assert len(keys) == len(set(keys)) == 16  # 2 plans x 8 shards, none checked twice
    assert all("COMPLETE: 2 plans" in out for out, _ in outputs)


def test_non_conformance_found_outranks_a_state_file_that_goes_bad(tmp_path, monkeypatch, capsys):
    state = tmp_path / "s.jsonl"
    monkeypatch.setenv("DAMAGE_STATE", str(state))
    backend = "test_exhaustive_cli:WrongThenDamagesTheState"
    args = ["--op", "neg", "--dtype", "Float32", "--shards", "65536", "--sample", "32768",
            "--backend", backend, "--no-progress"]  # fmt: skip
    assert _run(*args, state=state) == 1  # the first shard was found wrong: 1, not 3
    assert "damaged" in capsys.readouterr().err
    assert len(state.read_text().splitlines()) == 2  # the record, then the cut line only


# ---------------------------------------------------------------------------
# Issue 15 item 3 and issue 13 item 7: one meaning per exit status
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["--sample", "0"],
        ["--shards", "0"],
        ["--shards", str(1 << 33)],
        ["--ulp-budget", "-1"],
        ["--jobs", "0"],
        ["--naive-sample", "-5"],
        ["--shard", "5/4"],
        ["--shard", "x"],
        ["--op", "nosuch"],
        ["--op", ","],
        ["--op", "sin", "--dtype", "Int32"],
        ["--shards", "4", "--sample", "64"],
        ["--backend", "nosuch"],
        ["--backend", "builtins:exit"],
        ["--backend", "os:getcwd"],
        ["--also", "nosuch.module:thing"],
        ["--markdown", "/nonexistent/dir/t.md", "--table"],
        ["--table", "--certification"],
    ],
)
def test_usage_errors_exit_2_before_any_work(tmp_path, capsys, args):
    state = tmp_path / "s.jsonl"
    try:
        status = _run("--op", "neg", *args, state=state)
    except SystemExit as stop:  # argparse's own usage errors
        status = stop.code
    assert status == 2
    assert not state.exists()
    assert capsys.readouterr().err


def test_a_backend_that_overwrites_its_input_changes_nothing_the_sweep_reports(tmp_path, capsys):
    state = tmp_path / "s.jsonl"
    backend = "test_exhaustive_cli:OverwritesItsInput"
    assert _run(*NEG_SHARD, "--backend", backend, "--also", "numpy-float32", state=state) == 0
    checked, measured = _records(state)
    assert checked["non_conforming"] == 0 and measured["non_conforming"] == 0


def test_a_keyboard_interrupt_raised_by_the_backend_is_a_finding(tmp_path, capsys):
    state = tmp_path / "s.jsonl"
    assert _run(*NEG_SHARD, "--backend", "test_exhaustive_cli:RaisesKeyboardInterrupt",
                state=state) == 1  # fmt: skip
    assert "KeyboardInterrupt raised inside the call" in capsys.readouterr().out
    (record,) = _records(state)
    assert record["non_conforming"] == record["inputs"]


def test_a_backend_message_cannot_drive_the_terminal(tmp_path, capsys):
    state = tmp_path / "s.jsonl"
    assert _run(*NEG_SHARD, "--backend", "test_exhaustive_cli:RaisesWithEscapes",
                state=state) == 1  # fmt: skip
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\r" not in out and "\\x1b[31mred" in out
    assert len(max(out.splitlines(), key=len)) < 700


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_leaves_a_consistent_state_and_an_incomplete_verdict(tmp_path, number):
    state = tmp_path / "s.jsonl"
    args = ["--backend", "test_exhaustive_cli:Slow", "--op", "neg", "--dtype", "Float32",
            "--shards", "65536", "--sample", "256", "--no-progress"]  # fmt: skip
    sweep = _spawn(*args, state=state)
    # Three lines on disk before the signal: the append in flight when it lands is
    # rolled back (all or nothing), so at least two records must survive.  The
    # wait is for progress, not for a time: the deadline only turns a stuck
    # sweep into a clear failure instead of a hang.
    deadline = time.monotonic() + 600
    while not state.exists() or len(state.read_bytes().splitlines()) < 3:
        assert sweep.poll() is None, sweep.communicate()
        assert time.monotonic() < deadline, "the sweep wrote fewer than 3 records in 600 s"
        time.sleep(0.05)
    sweep.send_signal(number)
    out, err = sweep.communicate(timeout=60)
    assert sweep.returncode == 3, (out, err)
    assert f"INCOMPLETE (interrupted by {signal.Signals(number).name})" in out
    assert "Traceback" not in err
    records = Store(state).load()  # every line a complete record
    assert 2 <= len(records) < 256
    assert "CERTIFIED" not in out and "COMPLETE:" not in out.replace("INCOMPLETE", "")


def test_the_summary_counts_only_current_records_of_the_selected_shards(tmp_path, capsys):
    state = tmp_path / "s.jsonl"
    stale = X.to_record(
        X.ShardResult("cpu", "neg:Float32", *X.shard_range(77, 65536), inputs=65536),
        {**current_key("cpu", "neg:Float32"), "oracle": "older"},
    )
    Store(state).append([stale])
    assert _run(*NEG_SHARD, state=state) == 0
    assert len(_records(state)) == 2  # the stale record did not count as a verdict
    assert _records(state)[1]["oracle"] == current_key("cpu", "neg:Float32")["oracle"]
    assert _records(state)[1]["format"] == FORMAT


class DiesOnOne(_Wrapped):
    """Kills its own process (its host) on the chunk holding 2.0: a crash of the backend."""

    def spoil(self, out):
        return out

    def from_numpy(self, array):
        if np.any(array.view(np.uint32) == np.uint32(0x40000000)):
            os._exit(1)
        return np.array(array)


class KillsItsJudge(DiesOnOne):
    """Kills the process that started its host (the judge: a worker lost mid-shard) on
    the chunk holding 2.0."""

    def from_numpy(self, array):
        if np.any(array.view(np.uint32) == np.uint32(0x40000000)):
            os.kill(os.getppid(), signal.SIGKILL)
            time.sleep(10)  # dead by then: the reply never comes
        return np.array(array)
