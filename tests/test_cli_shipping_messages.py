"""The command line's messages (issue 22, item 10): suggestions, no Python reprs or
exception class names, a conflicting shard selection refused, the exit statuses
and the default state file in ``--help``, and xdist's start-up line printed once."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.cli import main as plancheck

ROOT = Path(__file__).resolve().parent.parent


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = plancheck(list(argv))
        except SystemExit as stop:  # argparse: --help, usage errors
            status = int(stop.code or 0)
    return status, out.getvalue(), err.getvalue()


def test_run_suggests_the_operation_meant() -> None:
    status, _, err = _run("run", "--backend", "cpu", "--op", "expp")
    assert status == 2
    assert "unknown operation(s): expp (did you mean exp or exp2?)" in err


def test_exhaustive_names_an_unknown_operation_plainly() -> None:
    status, _, err = _run("exhaustive", "--backend", "cpu", "--op", "add")
    assert status == 2
    assert err.startswith("plancheck exhaustive: --op add: not a Float32 unary operation;")
    assert "('" not in err and "add'" not in err  # no tuple, no broken quote
    assert "exp, exp2, log" in err
    status, _, err = _run("exhaustive", "--backend", "cpu", "--op", "expp")
    assert "(did you mean exp or exp2?)" in err


def test_shards_conflicting_with_the_shard_is_a_usage_error(tmp_path: Path) -> None:
    state = str(tmp_path / "s.jsonl")
    status, _, err = _run("exhaustive", "--backend", "cpu", "--op", "neg", "--shards", "64",
                            "--shard", "0/4096", "--state", state, "--no-progress")  # fmt: skip
    assert status == 2
    assert "--shards 64 conflicts with --shard 0/4096" in err
    assert not Path(state).exists()  # refused before any work


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (["run", "--backend", "builtins:exit"], "creating it raised SystemExit(None)"),
        (["run", "--backend", "nosuch_module_x:X"], "no module named 'nosuch_module_x'"),
        (["exhaustive", "--backend", "nosuch_module_x:X"], "no module named 'nosuch_module_x'"),
    ],
)
def test_messages_carry_no_exception_class_name(argv: list[str], shown: str) -> None:
    status, _, err = _run(*argv)
    assert status == 2
    assert shown in err
    for name in ("BackendLoadError:", "ValueError:", "ModuleNotFoundError:", "ImportError:"):
        assert name not in err


@pytest.mark.parametrize("command", ["run", "diff", "repro", "call", "exhaustive"])
def test_help_lists_the_exit_statuses(command: str) -> None:
    status, out, _ = _run(command, "--help")
    assert status == 0
    text = " ".join(out.split())
    assert "exit status: 0" in text and "; 2 a usage error" in text and "; 3 " in text
    status, out, _ = _run("--help")
    assert "exit status (run, diff, repro, call, exhaustive): 0" in " ".join(out.split())


def test_exhaustive_help_names_the_default_state_file() -> None:
    _, out, _ = _run("exhaustive", "--help")
    assert "default .plancheck/exhaustive.jsonl" in " ".join(out.split())


def test_bringing_up_nodes_is_printed_once(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--backend", "cpu", "--op", "neg",
         "--workers", "2"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("bringing up nodes...") == 1
