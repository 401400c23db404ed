"""Every published deviation class of an outside library reproduces without plancheck.

Each table in ``docs/backends/`` may have a reproduction module beside it,
``docs/backends/<backend>_repro.py``, with this contract (docs/survey.md):

* ``LIBRARY``: the import name of the library (the test skips, with a reason,
  where it is not installed);
* ``REPORT``: the file name of the JSON report beside it whose deviation
  classes it reproduces;
* ``REPRODUCTIONS``: ``operation@class`` (spelt as the report and deviation
  files spell it) -> a callable of no arguments that calls the library alone
  and raises AssertionError, saying what it saw, when the library behaves as
  the specification requires.

A module imports the library, numpy and the standard library only (mpmath
for a correct value where it needs one), never plancheck's packages, so an
engineer of the library can run it as it is.  The test asserts that the keys
are exactly the report's classes (a class without a reproduction is
unpublished evidence; a reproduction without a class is stale) and that each
reproduction shows its deviation.
"""

from __future__ import annotations

import ast
import importlib.util
import json
from pathlib import Path

import pytest

BACKENDS_DOCS = Path(__file__).resolve().parents[1] / "docs" / "backends"
REPRO_FILES = sorted(BACKENDS_DOCS.glob("*_repro.py"))
PLANCHECK_PACKAGES = {"oracle", "backends", "conformance", "plancheck_pytest"}


def _imported_top_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _assigned_string(path: Path, name: str) -> str:
    for node in ast.parse(path.read_text(), filename=str(path)).body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            return node.value.value
    raise AssertionError(f"{path.name} has no module-level string {name} = '...'")


def _report_classes(report: Path) -> set[str]:
    data = json.loads(report.read_text())
    return {f"{c['operation']}@{c['class']}" for c in data["deviation_classes"]}


@pytest.mark.parametrize("path", REPRO_FILES, ids=lambda p: p.name)
def test_reproduction_module_never_imports_plancheck(path: Path) -> None:
    assert not (_imported_top_names(path) & PLANCHECK_PACKAGES), (
        f"{path.name} imports plancheck: a reproduction calls the library alone"
    )
    assert (BACKENDS_DOCS / _assigned_string(path, "REPORT")).is_file()


@pytest.mark.parametrize("path", REPRO_FILES, ids=lambda p: p.name)
def test_every_published_class_reproduces_directly(path: Path) -> None:
    library = _assigned_string(path, "LIBRARY")
    pytest.importorskip(library, reason=f"{library} is not installed: its reproductions skip")
    spec = importlib.util.spec_from_file_location(f"_survey_repro_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    published = _report_classes(BACKENDS_DOCS / module.REPORT)
    reproduced = set(module.REPRODUCTIONS)
    missing, stale = sorted(published - reproduced), sorted(reproduced - published)
    assert not missing, f"classes with no reproduction: {missing}"
    assert not stale, f"reproductions of no class: {stale}"

    not_shown = []
    for name, reproduce in sorted(module.REPRODUCTIONS.items()):
        try:
            reproduce()
        except AssertionError as error:
            not_shown.append(f"{name}: {error}")
    assert not not_shown, "deviations that did not reproduce:\n" + "\n".join(not_shown)
