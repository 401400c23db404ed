"""Known-deviations files (issue 22, item 8): the class part is checked part by part
with a precise message (the valid spellings, the nearest one), and a strict mode
fails the run on entries that no longer fail (pytest's ``xfail_strict``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.findings.deviations import load_deviations
from conformance.findings.finding import (
    WARNING_FLAGS,
    WRONG_VALUE_ELEMENTS,
    class_spelling_problem,
    element_class,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("neg@wrong-value:signed-zeros: typo", ["'signed-zeros' after wrong-value:",
                                                "did you mean wrong-value:signed-zero?",
                                                "signed-zero, zero"]),
        ("neg@warning:bogus: typo", ["'bogus' after warning:", "overflow, underflow",
                                     "a warning category's name"]),
        ("neg@missing-exception:error-bad-axs: typo", ["did you mean "
                                                       "missing-exception:error-bad-axis?"]),
        ("neg@wrnog-value:nan: typo", ["did you mean wrong-value:nan?"]),
        ("neg@raises-: typo", ["raises- takes an exception type's name"]),
    ],
)  # fmt: skip
def test_a_typo_in_the_class_part_is_a_precise_usage_error(
    tmp_path: Path, line: str, words: list[str]
) -> None:
    path = tmp_path / "known.txt"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(pytest.UsageError) as caught:
        load_deviations(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: neg@")
    for word in words:
        assert word in message


@pytest.mark.parametrize(
    "cls",
    ["wrong-value:signed-zero", "wrong-value:1-ulp", "warning:overflow",
     "warning:RuntimeWarning", "raises-ValueError", "missing-exception:error-bad-axis",
     "wrong-exception:ValueError|TypeError", "missing-exception:error", "zero-size", "hang",
     "input-modified", "allocation-before-error"],
)  # fmt: skip
def test_every_spelling_the_reports_print_is_accepted(cls: str) -> None:
    assert class_spelling_problem(cls) is None


def test_the_vocabulary_holds_what_the_classifier_produces() -> None:
    inf, nan = float("inf"), float("nan")
    samples = [(nan, 1.0), (nan, nan), (1.0, nan), (0.0, -0.0), (inf, 1.0), (1.0, inf),
               (0.0, 1.0), (1e-40, 0.0), (1.0, -1.0), (1.0, 1.0000001), ("[0, 1]", 2.0),
               (True, False), (1, 2)]  # fmt: skip
    for expected, actual in samples:
        assert element_class(expected, actual, 1) in WRONG_VALUE_ELEMENTS
    assert set(WARNING_FLAGS) == {"overflow", "underflow", "invalid", "divide-by-zero"}


def _run(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    return subprocess.run(
        [sys.executable, *argv], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip


def test_strict_mode_fails_the_run_on_a_stale_entry(tmp_path: Path) -> None:
    known = tmp_path / "known.txt"
    known.write_text("neg@wrong-value:signed-zero: fixed long ago\n", encoding="utf-8")
    cli = ["-m", "conformance.cli", "run", "--backend", "cpu", "--op", "neg", "--workers", "0",
           "--xfail", str(known)]  # fmt: skip
    lenient = _run(tmp_path, *cli)
    assert lenient.returncode == 0, lenient.stdout + lenient.stderr
    assert "listed deviation no longer fails: neg@wrong-value:signed-zero" in lenient.stdout
    strict = _run(tmp_path, *cli, "--xfail-strict")
    assert strict.returncode == 1, strict.stdout + strict.stderr
    assert "-- the run fails (strict)" in strict.stdout
    # the ini setting, as pytest's xfail_strict
    ini = _run(tmp_path, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--pyargs",
               "conformance.suite", "--plancheck-backend", "cpu", "--plancheck-op", "neg",
               "--plancheck-xfail", str(known), "-o", "plancheck_xfail_strict=true")  # fmt: skip
    assert ini.returncode == 1, ini.stdout + ini.stderr
    bad = _run(tmp_path, "-m", "pytest", "-p", "no:cacheprovider", "--pyargs",
               "conformance.suite", "--plancheck-backend", "cpu",
               "--plancheck-xfail-strict", "maybe")  # fmt: skip
    assert bad.returncode == 4  # pytest's usage error
    assert "--plancheck-xfail-strict 'maybe': expected true or false" in bad.stderr
