"""``plancheck diff`` sees what ``run`` sees (issue 22, item 6): the same calls
(boundary, witness, signalling-NaN and validation-rule calls, the same searches),
every differing corpus case classified, and the run options --report,
--unsupported, --seed, --workers and --xfail."""

from __future__ import annotations

import json
from pathlib import Path

from shipping_cli import run_cli

from conformance.generate.signalling_nans import signalling_nan_examples
from conformance.generate.witnesses import witness_calls
from conformance.judge.checks import boundary_calls
from oracle import resolvable_plans

FAULTY = "faulty_backend:SizeZeroRefusing"


_cli = run_cli


def test_the_boundary_calls_hold_the_witness_and_signalling_nan_calls() -> None:
    plan = next(p for p in resolvable_plans() if p.operation == "reduce_max")
    shared = boundary_calls(plan)
    for call in (*witness_calls(plan), *signalling_nan_examples(plan)):
        assert call in shared


def test_diff_compares_as_many_calls_as_run_judges(tmp_path: Path) -> None:
    ops = ["--op", "add", "--op", "reduce_max", "--op", "gather", "--op", "neg"]
    run = _cli(tmp_path, "run", "--backend", "cpu", *ops, "--workers", "0", "--report", "r.json")
    assert run.returncode == 0, run.stdout + run.stderr
    diff = _cli(tmp_path, "diff", "--backend", "cpu", "--backend", "generic", *ops,
                "--report", "d.json")  # fmt: skip
    assert diff.returncode == 0, diff.stdout + diff.stderr
    judged = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["table"]["cpu"]
    compared = json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))["table"]
    assert {op: row["examples"] for op, row in judged.items()} == {
        op: row["calls"] for op, row in compared.items()
    }
    assert {op: row["corpus_cases"] for op, row in judged.items()} == {
        op: row["corpus"] for op, row in compared.items()
    }


def test_every_differing_corpus_case_is_classified(tmp_path: Path) -> None:
    done = _cli(tmp_path, "diff", "--backend", "cpu", "--backend", "shipping_backends:Chunky",
                "--op", "exp", "--report", "d.json")  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    document = json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))
    assert document["table"]["exp"]["disagree"] == 2720  # every corpus case: chunks refused
    assert sum(c["count"] for c in document["classes"]) == 2720
    assert "only the first" not in done.stdout


def test_diff_takes_the_run_options(tmp_path: Path) -> None:
    (tmp_path / "known.txt").write_text("floor@wrong-value:signed-zero: known\n", encoding="utf-8")
    base = ["diff", "--backend", "cpu", "--backend", FAULTY, "--op", "floor", "--op", "neg"]
    plain = _cli(tmp_path, *base)
    assert plain.returncode == 1
    assert "floor@wrong-value:signed-zero" in plain.stdout and "zero-size" in plain.stdout
    declared = _cli(tmp_path, *base, "--unsupported", "zero-size", "--seed", "7", "--workers",
                    "2", "--xfail", "known.txt", "--report", "d.md")  # fmt: skip
    assert declared.returncode == 0, declared.stdout + declared.stderr
    assert "seed 7" in declared.stdout
    assert "not supported (not compared): zero-size (" in declared.stdout
    assert "[known: known]" in declared.stdout
    assert "agree except 1 known disagreement classes" in declared.stdout
    markdown = (tmp_path / "d.md").read_text(encoding="utf-8")
    assert markdown.startswith("# plancheck diff: cpu vs faulty_backend:SizeZeroRefusing")
    assert "## floor@wrong-value:signed-zero" in markdown
    bad = _cli(tmp_path, *base, "--report", "d.html")
    assert bad.returncode == 2 and "diff writes a .json or .md report" in bad.stderr
    typo = _cli(tmp_path, *base, "--unsupported", "zero-sized")
    assert typo.returncode == 2
