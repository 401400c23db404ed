"""``plancheck run``'s controls: the HTML report, the header, the seed, the example
count, and the usage errors of its options (exit 2, named as the user typed them,
no directory created)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conformance.cli import main as plancheck
from conformance.report import validate_report

ROOT = Path(__file__).resolve().parent.parent


def _run(tmp_path: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--workers", "0", *arguments],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


class _Tags(HTMLParser):
    """Every start tag and whether the page is well nested."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.open: list[str] = []
        self.balanced = True

    _VOID = frozenset(
        {"meta", "br", "hr", "img", "input", "link", "rect", "line", "circle", "path"}
    )

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)
        if tag not in self._VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._VOID:
            return
        if not self.open or self.open.pop() != tag:
            self.balanced = False


def test_run_writes_an_html_report_with_the_heat_map_and_the_run_facts(tmp_path):
    page_path = tmp_path / "out.html"
    done = _run(tmp_path, "--backend", "cpu", "--op", "neg", "--seed", "1234",
                "--report", str(page_path))  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    page = page_path.read_text(encoding="utf-8")
    parser = _Tags()
    parser.feed(page)
    parser.close()
    assert parser.balanced and not parser.open, parser.open
    assert page.startswith("<!DOCTYPE html>") or page.lower().startswith("<!doctype html>")
    assert "svg" in parser.tags and 'class="heatmap"' in page  # the coverage matrix
    assert "1234" in page  # the seed
    assert "library versions" in page
    assert not any(t in parser.tags for t in ("script", "link", "img"))


def test_the_json_report_carries_versions_seed_and_the_matrix(tmp_path):
    report = tmp_path / "out.json"
    done = _run(tmp_path, "--backend", "cpu", "--op", "neg", "--seed", "77",
                "--max-examples", "3", "--report", str(report))  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    data = json.loads(report.read_text(encoding="utf-8"))
    validate_report(data)
    assert data["seed"] == 77
    assert data["plancheck_version"]
    assert data["backend_versions"]["cpu"].startswith("plancheck ")
    matrix = data["coverage"]["cpu"]["matrix"]
    assert [row["plan"] for row in matrix["plans"]] == ["neg(Float32) binary32 -> Float32"]
    assert matrix["classes"]
    # the header names backend, version, profile, seed and the number of plans
    head = done.stdout.splitlines()[0]
    assert "profile ci (3 generated calls per plan)" in head
    assert "seed 77 (repeat with --seed 77)" in head and "1 plan of 1 operation" in head
    assert done.stdout.splitlines()[1] == "backend cpu: " + data["backend_versions"]["cpu"]


def test_a_random_profile_prints_the_seed_it_drew_and_records_it(tmp_path):
    report = tmp_path / "out.json"
    done = _run(tmp_path, "--backend", "cpu", "--op", "neg", "--profile", "dev",
                "--max-examples", "2", "--report", str(report))  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    seed = json.loads(report.read_text(encoding="utf-8"))["seed"]
    assert isinstance(seed, int)
    assert f"seed {seed} (repeat with --seed {seed})" in done.stdout.splitlines()[0]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--report", "{missing}/out.md"], "does not exist"),
        (["--report", "{missing}/out.html"], "does not exist"),
        (["--report", "out.txt"], ".json, .md or .html"),
        (["--ulp-budget", "exp=x"], "--ulp-budget: expected OP=N"),
        (["--ulp-budget", "add=1"], "--ulp-budget: add is not a correctly rounded"),
        (["--unsupported", "no-such-feature"], "--unsupported"),
        (["--seed", "-1"], "--seed"),
        (["--max-examples", "0"], "--max-examples"),
        (["--op", "nosuchop"], "unknown operation"),
    ],
)
def test_bad_run_options_are_usage_errors_named_as_typed(arguments, message, tmp_path, capsys):
    missing = tmp_path / "no" / "such" / "dir"
    arguments = [a.format(missing=missing) for a in arguments]
    with pytest.raises(SystemExit) if arguments[0] in ("--seed", "--max-examples") else _no_raise():
        status = plancheck(["run", "--backend", "cpu", *arguments])
        assert status == 2
    err = capsys.readouterr().err
    assert message in err
    assert "--plancheck-" not in err
    assert not (tmp_path / "no").exists()  # no directory created


class _no_raise:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return False


def test_the_plugin_names_its_own_options_and_refuses_a_missing_directory(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--plancheck-backend", "cpu",
         "--plancheck-op", "neg", "--plancheck-report", str(tmp_path / "gone" / "out.md")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]
    assert "--plancheck-report" in done.stderr and "does not exist" in done.stderr
    assert not (tmp_path / "gone").exists()


def test_version(capsys):
    from conformance.model.versions import plancheck_version

    with pytest.raises(SystemExit) as exit_info:
        plancheck(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"plancheck {plancheck_version()}"


def test_backends_lists_every_known_name_and_how_to_install_a_missing_one(monkeypatch, capsys):
    import importlib.util

    import backends

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "jax" else real(name, *a)
    )
    assert plancheck(["backends", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert list(rows) == backends.known_names()
    assert rows["jax:gpu"]["installed"] is False
    assert rows["jax:gpu"]["install"] == "pip install 'plancheck[jax]'"
    assert rows["cpu"]["installed"] is True and rows["cpu"]["install"] is None
    assert plancheck(["backends"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("jax ") and "pip install 'plancheck[jax]'" in line for line in lines)


def test_plugin_options_come_from_ini_settings(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\nplancheck_backend = cpu\nplancheck_op =\n    neg\n    abs\n"
        "plancheck_seed = 9\nplancheck_max_examples = 2\nplancheck_report = out.json\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    data = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert data["seed"] == 9 and sorted(data["table"]["cpu"]) == ["abs", "neg"]
    assert "(2 generated calls per plan)" in done.stdout
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\nplancheck_backend = cpu\nplancheck_max_examples = many\n", encoding="utf-8"
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 4 and "plancheck_max_examples" in done.stderr


def _faulty_run(tmp_path: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "tests"), str(ROOT), env.get("PYTHONPATH", "")])
    env.pop("NO_COLOR", None)
    return subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--workers", "0", "--backend",
         "faulty_backend:SizeZeroRefusing", "--op", "floor", "--unsupported", "zero-size",
         *arguments],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def test_fail_is_coloured_only_when_colour_is_on_and_known_classes_are_named(tmp_path):
    coloured = _faulty_run(tmp_path, "--", "--color=yes")
    assert coloured.returncode == 1, coloured.stdout[-2000:]
    row = next(line for line in coloured.stdout.splitlines() if line.startswith("floor "))
    assert row.endswith("\x1b[1;31mFAIL\x1b[0m"), repr(row)  # bold red, drawn by rich
    plain = _faulty_run(tmp_path, "--", "--color=no")
    assert "\x1b[" not in plain.stdout
    (tmp_path / "known.txt").write_text("floor: loses the sign of zero\n", encoding="utf-8")
    known = _faulty_run(tmp_path, "--xfail", str(tmp_path / "known.txt"))
    assert known.returncode == 0, known.stdout[-2000:]
    assert "conforms except 1 known deviation class" in known.stdout
    assert "every operation conforms" not in known.stdout


def test_auto_workers_follow_the_amount_of_work():
    from conformance.model.options import PLANS_PER_WORKER, auto_workers

    assert auto_workers(5, 16) == 0  # a few plans: one process is faster
    assert auto_workers(2 * PLANS_PER_WORKER - 1, 16) == 0
    assert auto_workers(2 * PLANS_PER_WORKER, 16) == 2
    assert auto_workers(102, 2) == 2  # the full run on two CPUs
    assert auto_workers(102, 16) == 102 // PLANS_PER_WORKER
    assert auto_workers(1000, 1) == 0  # never more workers than CPUs


def test_n_auto_runs_a_small_plancheck_run_without_workers(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env.pop("PYTEST_XDIST_AUTO_NUM_WORKERS", None)
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "auto",
         "--plancheck-backend", "cpu", "--plancheck-op", "neg"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "created:" not in done.stdout and "bringing up nodes" not in done.stdout


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--backend", "cpu", "--timeout", "-1"],
        ["run", "--backend", "cpu", "--timeout", "nan"],
        ["run", "--backend", "cpu", "--timeout", "inf"],
        ["repro", "--timeout", "-1", "{}"],
        ["repro", "--ulp-budget", "-3", "{}"],
        ["diff", "--backend", "cpu", "--backend", "generic", "--timeout", "nan"],
        ["call", "--ulp-budget", "-1", "neg", "Float32:[1]"],
        ["run", "--backend", "cpu", "--workers", "-2"],
    ],
)
def test_out_of_range_options_are_usage_errors(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        plancheck(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "expected" in err and "Traceback" not in err


def test_hypothesis_show_statistics_shows_the_suite_searches(tmp_path):
    done = _run(tmp_path, "--backend", "cpu", "--op", "neg", "--", "--hypothesis-show-statistics")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    section = done.stdout.split("Hypothesis Statistics", 1)[1]
    assert "test_generated_calls[cpu-neg(Float32) binary32 -> Float32] (search 1)" in section
    assert "passing" in section and "during generate phase" in section


_RECORDING_BACKEND = '''
import os
import backends

class Recording:
    """The CPU backend, writing the bits of every Float32 input it receives to calls.txt."""

    name = "recording"

    def __init__(self):
        self.cpu = backends.get("cpu")

    def from_tensor(self, tensor):
        return self.cpu.from_tensor(tensor)

    def to_tensor(self, native):
        return self.cpu.to_tensor(native)

    def execute(self, operation, *args, **options):
        with open(os.path.join(os.path.dirname(__file__), "calls.txt"), "a") as log:
            arrays = [a for a in args if hasattr(a, "view")]
            log.write(" ".join(a.view("uint32").tobytes().hex() for a in arrays))
            log.write("\\n")
        return self.cpu.execute(operation, *args, **options)
'''


def _generated_calls(directory: Path, seed: int) -> list[str]:
    directory.mkdir()
    (directory / "recording.py").write_text(_RECORDING_BACKEND)
    done = _run(directory, "--backend", "recording:Recording", "--op", "exp", "--profile", "dev",
                "--seed", str(seed), "--max-examples", "12")  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"seed {seed} (repeat with --seed {seed})" in done.stdout.splitlines()[0]
    return (directory / "calls.txt").read_text().splitlines()


def test_the_same_seed_repeats_the_same_generated_calls(tmp_path):
    first = _generated_calls(tmp_path / "a", 2024)
    again = _generated_calls(tmp_path / "b", 2024)
    other = _generated_calls(tmp_path / "c", 2025)
    assert len(first) >= 12 and first == again
    assert other != first


def test_a_partial_selection_is_not_held_to_full_coverage(tmp_path):
    """`-k generated` runs a part on purpose: its coverage gaps are not a failure,
    and the run says that coverage was not enforced for those plans."""
    done = _run(tmp_path, "--backend", "cpu", "--op", "exp", "--", "-k", "generated")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "coverage not enforced for 2 plans whose checks were only partly selected" in (
        done.stdout
    )
    whole = _run(tmp_path, "--backend", "cpu", "--op", "exp")
    assert whole.returncode == 0 and "not enforced" not in whole.stdout
    assert "(plan, result class) pairs hit" in whole.stdout
