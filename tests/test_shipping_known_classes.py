"""A deviations file listing the classes a report prints is enough for exit status 0
(issue 23's findings in plancheck): a known crash is an expected failure like any known
class, and a listed ``raises-<Exception>`` class takes the feature classes the report
folds into it.

The backends are in tests/known_class_backends.py, given by import path as another
project's would be; the runs are subprocesses.
"""

from __future__ import annotations

import json
from pathlib import Path

from shipping_cli import run_cli

from conformance.findings.deviations import Deviation


def _report(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))


def test_a_known_crash_is_an_expected_failure(tmp_path: Path) -> None:
    (tmp_path / "known.xfail").write_text("reduce_sum@crash: aborts on keepdims=1\n")
    argv = ("run", "--backend", "known_class_backends:Aborts", "--op", "reduce_sum",
            "--workers", "0", "--report", "r.json")  # fmt: skip
    unknown = run_cli(tmp_path, *argv)
    assert unknown.returncode == 1, unknown.stdout + unknown.stderr
    assert _report(tmp_path)["table"]["known_class_backends:Aborts"]["reduce_sum"]["status"] == (
        "CRASH"
    )
    known = run_cli(tmp_path, *argv, "--xfail", "known.xfail")
    assert known.returncode == 0, known.stdout + known.stderr
    report = _report(tmp_path)
    row = report["table"]["known_class_backends:Aborts"]["reduce_sum"]
    assert (row["status"], row["crashes"]) == ("xfail", 0) and row["xfailed_items"] >= 1
    assert report["crashes"] == [] and report["xfailed"]
    (crash,) = report["deviation_classes"]
    assert (crash["class"], crash["known"]) == ("crash", "aborts on keepdims=1")
    assert "conforms except 1 known deviation class" in known.stdout


def test_a_listed_raises_class_takes_the_feature_classes_the_report_folds(
    tmp_path: Path,
) -> None:
    argv = ("run", "--backend", "known_class_backends:NoExp2", "--op", "exp2",
            "--workers", "0", "--report", "r.json")  # fmt: skip
    unlisted = run_cli(tmp_path, *argv)
    assert unlisted.returncode == 1, unlisted.stdout + unlisted.stderr
    printed = [(c["class"], c["count"]) for c in _report(tmp_path)["deviation_classes"]]
    ((selector, _),) = printed  # the feature classes folded in
    assert selector == "raises-NotImplementedError"
    (tmp_path / "known.xfail").write_text(f"exp2@{selector}: this library has no exp2\n")
    listed = run_cli(tmp_path, *argv, "--xfail", "known.xfail")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    report = _report(tmp_path)
    assert [(c["class"], c["count"]) for c in report["deviation_classes"]] == printed
    assert report["deviation_classes"][0]["known"] == "this library has no exp2"
    assert report["deviation_classes"][0]["raised"] == "NotImplementedError"
    assert report["stale_xfail"] == []


def test_a_raises_entry_covers_feature_classes_of_its_exception_type_only() -> None:
    entry = Deviation("exp2", "no exp2", cls="raises-NotImplementedError")
    where = ("b", "exp2", "exp2(Float32) binary32 -> Float32")
    assert entry.covers(*where, "rank-0", "NotImplementedError")
    assert entry.covers(*where, "raises-NotImplementedError")
    assert not entry.covers(*where, "rank-0", "ValueError")
    assert not entry.covers(*where, "rank-0")  # not an unexpected exception's class
    assert not entry.covers(*where, "wrong-value:nan", "NotImplementedError")
    assert not Deviation("exp2", "", cls="rank-0").covers(
        *where, "raises-NotImplementedError", "NotImplementedError"
    )
