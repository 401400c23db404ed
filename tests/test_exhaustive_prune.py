"""``plancheck exhaustive --prune``: the state file loses only records that never count.

A record counts when its backend's current build, this plancheck and its plan's
current oracle made it, and no later record of the same plan, range, budget and role
replaces it.  Pruning removes the others of the named backends and plans -- and so
must leave every verdict, summary and table exactly as it was, every other line
byte for byte in its order, and a file it cannot read untouched.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conformance.cli import main as cli_main
from conformance.exhaustive.state import StateError, Store

SHARD = ["--op", "neg", "--dtype", "Float32", "--no-progress"]


def _run(*args: str, state: Path) -> int:
    return cli_main(["exhaustive", *args, "--state", str(state)])


def _lines(state: Path) -> list[bytes]:
    return state.read_bytes().splitlines(keepends=True)


def _stale_copy(line: bytes, **changes: str) -> bytes:
    """*line*'s record with *changes*: still a valid record, no longer a current one."""
    record = json.loads(line)
    record.update(changes)
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


def _outputs(state: Path, capsys: pytest.CaptureFixture[str]) -> list[tuple[int, str]]:
    """(exit status, stdout) of the table and the certification of every plan of neg."""
    found = []
    for mode in ("--table", "--certification"):
        capsys.readouterr()
        status = _run(mode, "--op", "neg,abs", state=state)
        found.append((status, capsys.readouterr().out))
    return found


def test_prune_removes_what_never_counts_and_changes_no_verdict(tmp_path, capsys):
    state = tmp_path / "s.jsonl"
    assert _run(*SHARD, "--shard", "3/65536", state=state) == 0
    assert _run(*SHARD, "--shard", "3/65536", "--fresh", state=state) == 0  # replaces it
    assert _run(*SHARD, "--shard", "4/65536", state=state) == 0
    assert _run(*SHARD, "--shard", "5/65536", "--also", "numpy-float32", state=state) == 0
    first, second, third, fourth, measured = _lines(state)
    # another build of cpu, another oracle, and a budget of its own (that one counts)
    another_build = _stale_copy(third, identity="cpu@0123456789abcdef")
    another_oracle = _stale_copy(third, oracle="0" * 16)
    budgeted = _stale_copy(fourth, ulp_budget=1)  # type: ignore[arg-type]
    another_plan = _stale_copy(third, identity="cpu@0123456789abcdef", plan="abs:Float32")
    state.write_bytes(first + another_build + second + third + another_oracle + fourth
                      + measured + budgeted + another_plan)  # fmt: skip
    before = _outputs(state, capsys)
    capsys.readouterr()

    assert _run("--prune", "--op", "neg", state=state) == 0
    report = capsys.readouterr().out
    assert "3 records of cpu removed (2 made by another build" in report
    assert "1 replaced by a later record of the same range); 6 records kept" in report
    # what counts, the numpy-float32 record and the other plan's line stay, in order
    assert _lines(state) == [second, third, fourth, measured, budgeted, another_plan]
    assert _outputs(state, capsys) == before

    capsys.readouterr()
    assert _run("--prune", "--op", "neg", state=state) == 0  # nothing left to prune
    assert "0 records of cpu removed" in capsys.readouterr().out
    assert _lines(state) == [second, third, fourth, measured, budgeted, another_plan]


def test_prune_of_also_backends_and_every_plan(tmp_path, capsys):
    state = tmp_path / "s.jsonl"
    assert _run(*SHARD, "--shard", "6/65536", "--also", "numpy-float32", state=state) == 0
    checked, measured = _lines(state)
    old_numpy = _stale_copy(measured, identity="numpy-float32@numpy-0.0")
    other_plan = _stale_copy(checked, identity="cpu@0123456789abcdef", plan="abs:Float32")
    state.write_bytes(old_numpy + checked + measured + other_plan)
    assert _run("--prune", "--also", "numpy-float32", state=state) == 0
    assert _lines(state) == [checked, measured]
    assert "1 records of numpy-float32 removed" in capsys.readouterr().out


def test_a_state_file_that_cannot_be_read_is_left_as_it_was(tmp_path, capsys):
    state = tmp_path / "s.jsonl"
    assert _run(*SHARD, "--shard", "7/65536", state=state) == 0
    damaged = state.read_bytes() + b'{"format": "plancheck-exhaustive/3", "backend"'
    state.write_bytes(damaged)
    assert _run("--prune", state=state) == 3
    assert "damaged" in capsys.readouterr().err
    assert state.read_bytes() == damaged
    with pytest.raises(StateError):
        Store(state).prune("cpu", ["neg:Float32"])
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".prune")]


@pytest.mark.parametrize("other", ["--table", "--certification", "--fresh"])
def test_prune_is_a_mode_of_its_own(tmp_path, capsys, other):
    state = tmp_path / "s.jsonl"
    assert _run("--prune", other, state=state) == 2
    assert "--prune rewrites the state file and does nothing else" in capsys.readouterr().err
    assert not state.exists()


def test_prune_keeps_the_file_mode_and_leaves_no_temporary(tmp_path):
    state = tmp_path / "s.jsonl"
    assert _run(*SHARD, "--shard", "8/65536", state=state) == 0
    (line,) = _lines(state)
    state.write_bytes(_stale_copy(line, oracle="f" * 16) + line)
    state.chmod(0o640)
    pruned = Store(state).prune("cpu", ["neg:Float32"])
    assert (pruned.stale, pruned.superseded, pruned.kept) == (1, 0, 1)
    assert pruned.bytes_after == len(line) < pruned.bytes_before
    assert _lines(state) == [line]
    assert state.stat().st_mode & 0o777 == 0o640
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".prune")]
