"""Every class spelling a report can print is accepted in a known-deviations file: the
host's classes too (issue 23's findings in plancheck: ``result-aliases-input`` was
refused).  The classes are enumerated where they are produced: every environment
:func:`conformance.host.fpenv.deviations` can name, and every class literal the host's
modules append to a reply."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

from conformance.findings.deviations import load_deviations
from conformance.findings.finding import class_spelling_problem
from conformance.findings.host_classes import HOST_CLASSES
from conformance.host import fpenv

HOST = Path(fpenv.__file__).resolve().parent
#: the four IEEE 754 rounding directions, as fpenv.Environment.rounding names them
ROUNDINGS = ("to-nearest", "upward", "downward", "toward-zero")


def _environment_classes() -> set[str]:
    changed = tuple((k, "raise") for k in fpenv.DEFAULT_NUMPY_ERRORS)
    default = tuple(sorted(fpenv.DEFAULT_NUMPY_ERRORS.items()))
    return {
        cls
        for ftz, daz, rounding, errors in itertools.product(
            (False, True), (False, True), ROUNDINGS, (default, changed)
        )
        for cls in fpenv.deviations(fpenv.Environment(ftz, daz, rounding, errors))
    }


def _appended_literals() -> set[str]:
    """The string constants the host's modules append to a list (its finding classes)."""
    found = set()
    for path in HOST.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "append"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                found.add(node.args[0].value)
    return found


def test_every_class_the_host_produces_is_in_the_vocabulary() -> None:
    produced = _environment_classes() | _appended_literals()
    assert len(_environment_classes()) == 6  # ftz, daz, 3 roundings, numpy's error state
    assert {"result-aliases-input", "numpy-state:patched"} <= produced
    assert produced <= set(HOST_CLASSES)
    assert {c: class_spelling_problem(c) for c in produced} == dict.fromkeys(produced)


def test_a_deviations_file_names_every_host_class_and_the_plain_ones(tmp_path: Path) -> None:
    spellings = (*HOST_CLASSES, "crash", "hang")
    path = tmp_path / "known.xfail"
    path.write_text("".join(f"add@{cls}: seen\n" for cls in spellings), encoding="utf-8")
    assert [d.cls for d in load_deviations(path)] == list(spellings)


@pytest.mark.parametrize(
    ("wrong", "hint"),
    [("fp-environment:flush-to-zer", "fp-environment:flush-to-zero"),
     ("result-aliases-inputs", "result-aliases-input"),
     ("numpy-state:patch", "numpy-state:patched")],
)  # fmt: skip
def test_a_misspelt_host_class_is_refused_with_the_nearest(wrong: str, hint: str) -> None:
    problem = class_spelling_problem(wrong)
    assert problem is not None and f"did you mean {hint}?" in problem
