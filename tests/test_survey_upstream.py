"""docs/survey-upstream.json: every headline class's upstream status, and its reproduction.

The file's contract is conformance/report/survey_upstream.py's; these tests hold the
committed data to it, check each recorded correct value against plancheck's oracle, and
run every reproduction whose library this interpreter imports (the others skip with a
reason; ``python -m conformance.report.survey_upstream --python PATH`` runs them
against another interpreter).
"""

from __future__ import annotations

import ast
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from conformance.report import survey_upstream as up
from oracle.reference import rounded

ROOT = Path(__file__).resolve().parents[1]
ENTRIES = up.load()
WITH_REPRODUCTION = [e for e in ENTRIES if e.reproduction is not None]
#: modules a reproduction may import besides its library (numpy and the standard library)
ALLOWED = {"numpy", "math", "struct", "faulthandler", "sys"}
LIBRARY_MODULES = {
    "numpy": {"numpy"},
    "torch": {"torch"},
    "jax": {"jax"},
    "tensorflow": {"tensorflow"},
    "onnxruntime": {"onnxruntime", "onnx"},
    "paddle": {"paddle"},
    "array_api_strict": {"array_api_strict"},
    "mlx": {"mlx"},
}


def _bits(value: float) -> int:
    return int(np.array([value], dtype=np.float32).view(np.uint32)[0])


def _float(bits: str) -> float:
    return float(np.array([int(bits, 16)], dtype=np.uint32).view(np.float32)[0])


def _report_classes(backend: str) -> set[str]:
    data = json.loads((ROOT / "docs" / "backends" / f"{backend}.json").read_text())
    return {f"{c['operation']}@{c['class']}" for c in data["deviation_classes"]}


def test_the_committed_file_loads_and_covers_every_library() -> None:
    assert {e.backend for e in ENTRIES} == {
        "numpy-native", "torch", "jax", "tensorflow", "onnxruntime", "paddle",
        "array-api-strict", "mlx",
    }  # fmt: skip
    assert {e.status for e in ENTRIES} <= set(up.STATUSES)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.label[:60])
def test_every_named_class_is_a_class_of_the_libraries_report(entry: up.Entry) -> None:
    missing = set(entry.classes) - _report_classes(entry.backend)
    assert not missing, f"{entry.label}: no such class in {entry.backend}.json: {missing}"


@pytest.mark.parametrize("entry", WITH_REPRODUCTION, ids=lambda e: e.label[:60])
def test_a_reproduction_imports_only_its_library_numpy_and_the_standard_library(
    entry: up.Entry,
) -> None:
    assert entry.reproduction is not None
    names: set[str] = set()
    for node in ast.walk(ast.parse(entry.reproduction["source"])):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    allowed = ALLOWED | LIBRARY_MODULES[entry.reproduction["library"]]
    assert names <= allowed, f"{entry.label} imports {sorted(names - allowed)}"


@pytest.mark.parametrize(
    "entry",
    [e for e in WITH_REPRODUCTION if "oracle" in e.reproduction],
    ids=lambda e: e.label[:60],
)
def test_the_recorded_correct_value_is_the_oracles(entry: up.Entry) -> None:
    oracle = entry.reproduction["oracle"]  # type: ignore[index]
    value, _exact = getattr(rounded, oracle["function"])(*map(_float, oracle["args"]))
    assert f"0x{_bits(value):08X}" == oracle["bits"].upper().replace("0X", "0x")


def _import_name(entry: up.Entry) -> str:
    return up.IMPORT_NAMES[entry.reproduction["library"]]  # type: ignore[index]


@pytest.mark.parametrize("entry", WITH_REPRODUCTION, ids=lambda e: e.label[:60])
def test_every_reproduction_shows_its_deviation_alone(entry: up.Entry) -> None:
    name = _import_name(entry)
    if importlib.util.find_spec(name.split(".")[0]) is None:
        pytest.skip(f"{name} is not installed: run python -m conformance.report.survey_upstream")
    ran = up.run_reproduction(entry, sys.executable, timeout=600)
    assert ran.shown, f"{entry.label}: exit {ran.returncode}\n{ran.output[-2000:]}"
    oracle = entry.reproduction.get("oracle")  # type: ignore[union-attr]
    if oracle is not None:  # the printed correct value is the oracle's, bit for bit
        correct = [line for line in ran.output.splitlines() if line.startswith("correct")]
        assert correct and oracle["bits"].upper()[2:] in correct[0].upper()


def _write(tmp_path: Path, entry: dict) -> Path:
    path = tmp_path / "upstream.json"
    path.write_text(json.dumps({"format": "plancheck-survey-upstream/1", "entries": [entry]}))
    return path


BASE = {"backend": "torch", "headline": "h", "classes": ["rem@wrong-value:spurious-nan"]}
ISSUE = {"kind": "issue", "ref": "pytorch/pytorch#1", "url": "u", "state": "open", "quote": "q"}


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({**BASE, "status": "maybe"}, "is not one of"),
        ({**BASE, "status": "known issue", "references": []}, "needs an issue reference"),
        (
            {**BASE, "status": "known issue", "references": [{**ISSUE, "ref": "#12"}]},
            "owner/repo#N",
        ),
        (
            {**BASE, "status": "known issue", "references": [{**ISSUE, "quote": ""}]},
            "a url and a quote",
        ),
        ({**BASE, "status": "documented", "references": [ISSUE]}, "documentation reference"),
        ({**BASE, "status": "not found", "queries": []}, "queries"),
        (
            {**BASE, "status": "not found", "queries": [{"corpus": "issues", "query": "x"}]},
            "reproduction",
        ),
        ({**BASE, "status": "out of scope"}, "note"),
        ({**BASE, "classes": [], "status": "known issue", "references": [ISSUE]}, "names no class"),
    ],
)
def test_a_broken_entry_is_refused_with_its_reason(
    tmp_path: Path, entry: dict, message: str
) -> None:
    with pytest.raises(up.UpstreamDataError, match=message):
        up.load(_write(tmp_path, entry))


def test_the_column_cell_names_the_reference_or_the_reproduction(tmp_path: Path) -> None:
    known = up.load(_write(tmp_path, {**BASE, "status": "known issue", "references": [ISSUE]}))[0]
    assert up.cell(known) == "known issue: [pytorch/pytorch#1](u)"
    assert up.cell(None) == ""
    rows = up.by_class(ENTRIES, "torch")
    assert up.cell(rows["rem@wrong-value:spurious-nan"]).startswith(
        "known issue: [pytorch/pytorch#193753]"
    )
    assert up.cell(rows["pow@wrong-value:accuracy"]).startswith("not found")


def test_a_reproduction_that_conforms_is_not_shown() -> None:
    source = "print('deviates: False')"
    entry = up.Entry("numpy-native", "h", ("x@y",), "not found", (), (), (), {
        "library": "numpy", "expect": "deviates", "source": source}, None)  # fmt: skip
    assert not up.run_reproduction(entry).shown
    killed = up.Entry("numpy-native", "h", ("x@y",), "not found", (), (), (), {
        "library": "numpy", "expect": "signal", "source": "print('fine')"}, None)  # fmt: skip
    assert not up.run_reproduction(killed).shown
