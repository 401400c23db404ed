"""``plancheck run`` as a newcomer meets it (issue 13): a node id after ``--`` runs
exactly that node, every failure count names its unit and the counts printed in
different places agree, and ``plancheck backends`` says whether a device exists."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.cli import main as plancheck

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
#: pytest's last line for exactly one item run (warnings from the environment allowed)
_ONE_PASSED = r"=* ?1 passed(, \d+ warnings?)? in [\d.]+s ?=*"
NODE = "conformance/suite.py::test_boundary_examples[cpu-exp(Float32) binary32 -> Float32]"


def _plancheck(cwd: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), str(ROOT), env.get("PYTHONPATH", "")])
    env["NO_COLOR"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "conformance.cli", *arguments],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


@pytest.mark.parametrize("where", ["repository", "elsewhere"])
def test_a_node_id_after_the_separator_runs_exactly_that_node(tmp_path, where):
    cwd = ROOT if where == "repository" else tmp_path
    done = _plancheck(cwd, "run", "--backend", "cpu", "--workers", "0", "--", NODE)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert re.fullmatch(_ONE_PASSED, done.stdout.strip().splitlines()[-1]), done.stdout[-2000:]
    rows = [line.split()[0] for line in _table(done.stdout)]
    assert rows == ["exp"]


def test_a_node_id_beside_an_option_still_selects_it(tmp_path):
    # --workers auto (the default) sizes the run by the node ids given: no workers for one
    done = _plancheck(tmp_path, "run", "--backend", "cpu", "--", "-rA", NODE)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (passed,) = re.findall(r"^PASSED (.*)$", done.stdout, re.M)  # relative to the rootdir
    assert passed.endswith(NODE), passed
    assert re.fullmatch(_ONE_PASSED, done.stdout.strip().splitlines()[-1]), done.stdout[-2000:]


def _table(out: str) -> list[str]:
    """The rows of the conformance table (between its rule and the verdict line)."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("operation "))
    assert set(lines[start + 1]) <= {"-", " "}, lines[start + 1]
    rows = []
    for line in lines[start + 2 :]:
        if re.match(r"\d+ operations?, ", line):
            break
        rows.append(line)
    return rows


_CALLS = re.compile(
    r"(\d+) failing calls? \((\d+) examples?(?:, (\d+) corpus cases?)?\) in (\d+) deviation class"
)


_CLOSING = r"^plancheck failures: (.*) \(pytest: (\d+) failed items?(?:, (\d+) xfailed)?\)$"


def test_every_failure_count_names_its_unit_and_the_counts_agree(tmp_path):
    report = tmp_path / "out.json"
    done = _plancheck(
        tmp_path, "run", "--backend", "faulty_backend:SizeZeroRefusing", "--workers", "0",
        "--op", "floor", "--op", "exp", "--op", "sqrt", "--report", str(report),
    )  # fmt: skip
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    assert "\x1b[" not in out  # NO_COLOR
    # the table: failing examples per operation, failing corpus cases in parentheses
    rows = _table(out)
    assert {row.split()[0] for row in rows} == {"floor", "exp", "sqrt"}
    fail_column = sum(int(row.split()[4]) for row in rows)
    corpus_failing = sum(int(n) for row in rows for n in re.findall(r"\((\d+) failing\)", row))
    # the verdict line under the table
    verdict = next(line for line in out.splitlines() if re.match(r"\d+ operations?, ", line))
    total, examples, corpus, classes = (int(n or 0) for n in _CALLS.search(verdict).groups())
    assert "NOT CONFORMING: exp, floor, sqrt" in verdict
    assert examples == fail_column > 0 and corpus == corpus_failing
    assert total == examples + corpus
    # the deviation-class lines: one line per class, each counting its calls
    heading = re.search(r"^deviation classes: (\d+) \((\d+) new, (\d+) known\)(; .*)?$", out,
                        re.M)  # fmt: skip
    assert heading is not None, out[-3000:]
    listed = re.findall(r"^  \S+@\S+\s+[a-z ]+, (\d+) calls?", out, re.M)
    assert int(heading.group(1)) == len(listed) == classes == 7
    # the closing line puts the three units side by side, pytest's count included
    closing = re.search(_CLOSING, out, re.M)
    assert closing is not None, out[-3000:]
    again = _CALLS.search(closing.group(1))
    assert tuple(int(n or 0) for n in again.groups()) == (total, examples, corpus, classes)
    pytest_failed = int(re.search(r"^(\d+) failed", out.splitlines()[-1]).group(1))
    assert int(closing.group(2)) == pytest_failed
    # and the report file counts the same things
    data = json.loads(report.read_text(encoding="utf-8"))
    table = data["table"]["faulty_backend:SizeZeroRefusing"]
    assert sum(row["failed"] for row in table.values()) == examples
    assert sum(row["corpus_failed"] for row in table.values()) == corpus
    assert sum(row["failed_items"] for row in table.values()) == pytest_failed
    assert len(data["deviation_classes"]) == classes
    # known deviations: the failing calls stay counted, pytest's items are xfailed
    (tmp_path / "known.txt").write_text("floor: loses the sign of zero\n", encoding="utf-8")
    known = _plancheck(
        tmp_path, "run", "--backend", "faulty_backend:SizeZeroRefusing", "--workers", "0",
        "--op", "floor", "--unsupported", "zero-size", "--xfail", str(tmp_path / "known.txt"),
    )  # fmt: skip
    assert known.returncode == 0, known.stdout[-3000:]
    closing = re.search(_CLOSING, known.stdout, re.M)
    assert closing is not None and closing.group(2) == "0", known.stdout[-3000:]
    xfailed = re.search(r"(\d+) xfailed", known.stdout.splitlines()[-1])
    assert closing.group(3) == xfailed.group(1) and int(xfailed.group(1)) > 0
    assert "conforms except 1 known deviation class" in known.stdout


def test_backends_says_whether_the_device_of_a_device_form_exists(monkeypatch, capsys):
    """The device is checked by loading the backend as ``--backend torch:cuda`` does:
    an adapter whose device is absent (BackendLoadError) reads ``no CUDA device``."""
    import backends
    from backends.errors import BackendLoadError

    class NoCuda(backends.get("cpu").__class__):
        def __init__(self, device: str = "cpu") -> None:
            super().__init__()
            if device != "cpu":
                raise BackendLoadError(f"torch:{device}: no such device here")

    module = type(sys)("fake_torch_adapter")
    module.NoCuda = NoCuda
    monkeypatch.setitem(sys.modules, "fake_torch_adapter", module)
    monkeypatch.setitem(backends.BUILTIN_BACKENDS, "torch", "fake_torch_adapter:NoCuda")
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: object() if name == "torch" else real(name, *a),
    )
    assert plancheck(["backends", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["torch:cuda"]["device_present"] is False
    assert rows["torch:cuda"]["device_problem"] == "torch:cuda: no such device here"
    assert rows["torch:cpu"]["device_present"] is None and rows["torch"]["installed"]
    assert plancheck(["backends"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("torch:cuda "))
    assert re.fullmatch(r"torch:cuda\s+torch\s+installed, no CUDA device", line), line


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_backends_with_the_real_torch_matches_torch_cuda_is_available(capsys):
    import torch

    assert plancheck(["backends"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("torch:cuda "))
    if torch.cuda.is_available():
        assert line.endswith("installed, CUDA device present"), line
    else:  # this machine: a CPU build of torch, no device
        assert line.endswith("installed, no CUDA device"), line


def test_diff_table_counts_agree_with_the_closing_line(tmp_path):
    faulty = "faulty_backend:SizeZeroRefusing"
    done = _plancheck(tmp_path, "diff", "--backend", "cpu", "--backend", faulty,
                      "--op", "floor", "--op", "neg")  # fmt: skip
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("operation "))
    assert lines[start].split() == ["operation", "plans", "calls", "corpus", "disagree"]
    assert re.fullmatch(r"-+( {2}-+){4}", lines[start + 1]), lines[start + 1]
    rows = {}
    for line in lines[start + 2 :]:
        if not re.match(r"\w+ +\d", line):
            break
        name, *numbers = line.split()
        rows[name] = [int(n) for n in numbers]
    assert set(rows) == {"floor", "neg"} and all(r[0] == 1 and r[3] > 0 for r in rows.values())
    closing = re.search(
        r"DISAGREE: (\d+) classes \((\d+) calls and (\d+) corpus cases", done.stdout
    )
    assert closing is not None, done.stdout[-2000:]
    assert int(closing.group(2)) == sum(r[1] for r in rows.values())
    assert int(closing.group(3)) == sum(r[2] for r in rows.values())
    assert f"disagreement classes: {closing.group(1)}" in done.stdout


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_sweep_progress_is_plain_lines_off_a_terminal_and_a_rich_bar_on_one():
    from conformance.exhaustive.cli import Progress

    label = "cpu exp[bold]:Float32 \x1b[2J"  # rich markup and a control sequence in a label
    plain = io.StringIO()
    with Progress(label, 1000, stream=plain) as progress:
        progress(400)
        progress(600)
    lines = plain.getvalue().splitlines()
    assert "\x1b" not in plain.getvalue()  # no ANSI codes in a log
    assert lines[-1].startswith("cpu exp[bold]:Float32 \\x1b[2J 100.0% 1.000e+03/1.000e+03")
    assert 1 <= len(lines) <= 2  # throttled: the first update and the last
    quiet = io.StringIO()
    with Progress(label, 1000, stream=quiet, enabled=False) as progress:  # --no-progress
        progress(1000)
    assert quiet.getvalue() == ""
    terminal = _Terminal()
    with Progress(label, 1000, stream=terminal) as progress:
        progress(500)
        assert progress._bar is not None  # live while the plan runs
    text = terminal.getvalue()
    assert "\x1b[" in text and "50%" in text and "5.000e+02/1.000e+03" in text
    assert "cpu exp[bold]:Float32 \\x1b[2J" in text and "\x1b[2J" not in text
    assert progress._bar is None  # stopped (and, transient, cleared) on leaving


def test_terminal_tables_escape_cells_never_read_markup_and_never_cut(monkeypatch):
    from conformance.report.terminal_table import ALARMING_STYLES, render_table

    monkeypatch.setenv("COLUMNS", "20")  # a narrow terminal must not cut or wrap a cell
    long = "cpu-exp(Float32) binary32 -> Float32 " * 8
    hostile = "[bold red]boom[/] \x1b]0;title\x07 [0x7fc00000]"
    text = render_table(("plan", "n", "result"), [(long, 3, "FAIL"), (hostile, 12, "ok")],
                        right=(1,), styles=ALARMING_STYLES)  # fmt: skip
    header, rule, first, second = text.split("\n")
    assert "\x1b" not in text and "\x07" not in text  # no colour asked, controls escaped
    assert first.startswith(long) and first.endswith("  3  FAIL")
    assert second.startswith("[bold red]boom[/] \\x1b]0;title\\x07 [0x7fc00000]")
    assert re.fullmatch(r"-+  -+  -+", rule) and len(rule) == len(header)
    assert header.split() == ["plan", "n", "result"]
    assert header.rindex("n  result") == first.rindex("3  FAIL")  # numbers right-aligned
    coloured = render_table(("result",), [("FAIL",), ("conforms",)], styles=ALARMING_STYLES,
                            colour=True)  # fmt: skip
    assert "\x1b[1;31mFAIL\x1b[0m" in coloured and "conforms\x1b" not in coloured


def test_features_of_an_invalid_convolution_with_a_malformed_padding_pair():
    """An invalid call (the suite's test_invalid_calls) may carry a padding "pair" of
    one number: measuring its features must not raise (it was an INTERNAL ERROR of
    every run with --unsupported zero-size and conv_general)."""
    from conformance.model.calls import Call
    from conformance.model.capabilities import features_of
    from oracle import DType, Tensor, resolve_operation_plan

    lhs = Tensor(DType.Float32, (1, 1, 1), (2.0,))
    rhs = Tensor(DType.Float32, (1, 1, 2), (1.0, 1.0))
    plan = resolve_operation_plan("conv_general", DType.Float32, DType.Float32)
    for padding in (((1,),), ((1, 2, 3),), (7,)):
        call = Call("conv_general", (lhs, rhs, (1,), padding, (1,), (1,), 1), None, plan)
        assert "zero-size" not in features_of(call)
