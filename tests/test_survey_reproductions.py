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
  the specification requires;
* ``NOT_ALONE`` (optional, a literal dict): ``operation@class`` -> why no call of
  the library alone shows the class (it showed only inside the run); the survey
  prints these as not reproduced alone.

A module imports the library, numpy and the standard library only (mpmath
for a correct value where it needs one), never plancheck's packages, so an
engineer of the library can run it as it is.  The test asserts that the keys
are exactly the report's classes (a class without a reproduction is
unpublished evidence; a reproduction without a class is stale) and that each
reproduction shows its deviation.

Every example reproduces alone (issue 28): the reproductions built on
``repro_common.py`` run the report's example exactly as printed.  The judge
prints a case that fails only on a vectorised path as the case repeated to the
shortest length that fails (``Float32[32]``, "repeated 32 times"), so the
printed call is the failing call.  Reports measured before that print a
1-element call marked "only inside the corpus batch"; when it conforms alone
the reproduction raises ``ConformsAlone`` with the length that shows the class,
and the test accepts it only where ``docs/backends/examples-conforming-alone.json``
records that very example with that length (a re-measured report drops out of
the file: the test then requires its removal).  Since the re-measurement of
2026-12-06 no report prints such an example and the file is gone.
"""

from __future__ import annotations

import ast
import importlib.util
import json
from pathlib import Path

import pytest

from conformance.judge.corpus_check import BATCH_REPRO_LENGTHS

BACKENDS_DOCS = Path(__file__).resolve().parents[1] / "docs" / "backends"
REPRO_FILES = sorted(BACKENDS_DOCS.glob("*_repro.py"))
LEDGER = BACKENDS_DOCS / "examples-conforming-alone.json"
#: a report written by the current judge (trimmed): its vectorised-path examples are printed
#: as the case repeated to the failing length
REPEATED_FIXTURE = Path(__file__).resolve().parent / "data" / "survey_torch_repeated_examples.json"
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


def _ledger() -> dict[tuple[str, str], dict]:
    """(report, operation@class) -> the recorded example that conforms alone."""
    entries = json.loads(LEDGER.read_text())["entries"] if LEDGER.is_file() else []
    return {(e["report"], e["key"]): e for e in entries}


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"_survey_repro_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
    module = _load(path)

    published = _report_classes(BACKENDS_DOCS / module.REPORT)
    reproduced = set(module.REPRODUCTIONS)
    # a class no call of the library alone shows is named with why (the survey prints it)
    not_alone = dict(getattr(module, "NOT_ALONE", {}))
    assert set(not_alone) <= published - reproduced, "NOT_ALONE names a stale or shown class"
    assert all(str(why).strip() for why in not_alone.values()), "NOT_ALONE without a reason"
    missing = sorted(published - reproduced - set(not_alone))
    stale = sorted(reproduced - published)
    assert not missing, f"classes with no reproduction: {missing}"
    assert not stale, f"reproductions of no class: {stale}"

    ledger, not_shown = _ledger(), []
    for name, reproduce in sorted(module.REPRODUCTIONS.items()):
        try:
            reproduce()
        except AssertionError as error:
            recorded = ledger.get((module.REPORT, name))
            if (
                hasattr(error, "shows_at")
                and recorded
                and recorded["conforms_alone"]
                and (recorded["shows_at"] == error.shows_at)
            ):
                continue  # a published example recorded as conforming alone, at that length
            not_shown.append(f"{name}: {error}")
    assert not not_shown, "deviations that did not reproduce:\n" + "\n".join(not_shown)


def test_the_conforming_alone_ledger_is_exactly_the_reports_unrepeated_batch_examples() -> None:
    """Every published 1-element example marked "only inside the corpus batch" is recorded
    (with its inputs), and every record names such an example of a committed report: a
    re-measured report, whose examples are printed repeated, leaves no record behind."""
    found = {}
    for report in sorted(BACKENDS_DOCS.glob("*.json")):
        data = json.loads(report.read_text())
        for c in data.get("deviation_classes", ()):
            if "corpus batch" in (c["example"].get("problem") or ""):
                found[(report.name, f"{c['operation']}@{c['class']}")] = c["example"].get("inputs")
    recorded = {key: entry["inputs"] for key, entry in _ledger().items()}
    assert sorted(set(found) - set(recorded)) == [], "examples not recorded in the ledger"
    assert sorted(set(recorded) - set(found)) == [], "ledger records no published example names"
    assert {k: v for k, v in recorded.items() if found[k] != v} == {}, "inputs differ"
    for entry in _ledger().values():  # a measured record says where the class shows
        assert entry["measured_with"] is None or entry["shows_at"] != 1, entry


def test_the_repeat_lengths_are_the_judges() -> None:
    common = _load(BACKENDS_DOCS / "repro_common.py")
    assert tuple(common.REPEAT_LENGTHS) == tuple(BATCH_REPRO_LENGTHS)


def test_the_judges_repeated_example_is_the_failing_call_as_printed() -> None:
    """The format the judge writes now (a report of torch's elu, rem and exp2): each
    example is run exactly as printed and shows its class, and a repeated example's length
    is the shortest repetition that shows it."""
    pytest.importorskip("torch", reason="torch is not installed: its reproductions skip")
    module = _load(BACKENDS_DOCS / "torch_repro.py")
    common, report = module.common, str(REPEATED_FIXTURE)
    to_numpy = next(iter(module.REPRODUCTIONS.values())).args[3]
    data = json.loads(REPEATED_FIXTURE.read_text())
    repeated = 0
    for c in data["deviation_classes"]:
        key, example = f"{c['operation']}@{c['class']}", c["example"]
        assert "corpus batch" not in example["problem"]
        assert common.wrong_value(key, report, module.CALLS, to_numpy).endswith("as printed")
        length = example["call"]["args"][0]["shape"][0]
        if "repeated" in (example.get("note") or ""):
            repeated += 1
            single = json.loads(json.dumps(example["call"]))
            for arg in single["args"]:
                arg["shape"], arg["bits"] = [1], arg["bits"][:1]
            outcome = common.run(single, module.CALLS, to_numpy)
            assert outcome.error is None and length in common.REPEAT_LENGTHS
            assert f"repeated {length} times" in example["note"]
    assert repeated >= 2, "the fixture no longer holds repeated examples"
