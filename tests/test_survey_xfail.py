"""The known-deviations file written from a report (conformance.report.survey_xfail)."""

from __future__ import annotations

import json
from pathlib import Path

from conformance.findings.deviations import load_deviations
from conformance.report.survey_xfail import main, xfail_text

ROOT = Path(__file__).resolve().parents[1]
CLASSES = [
    {"backend": "lib", "operation": "exp", "class": "wrong-value:accuracy", "kind": "wrong value",
     "authority": "reference", "count": 3,
     "selector": "exp/exp(Float32) binary32 -> Float32@wrong-value:accuracy"},
    {"backend": "lib", "operation": "gelu", "class": "wrong-value:accuracy", "kind": "wrong value",
     "authority": "reference", "count": 1, "composed": "x * Phi(x)",
     "selector": "gelu/gelu(Float32) binary32 -> Float32@wrong-value:accuracy"},
]  # fmt: skip


def test_one_line_a_class_that_the_run_reads_back(tmp_path: Path) -> None:
    report = {"backends": ["lib"], "backend_versions": {"lib": "lib 1.0"}, "profile": "ci",
              "started": "2026-12-06T00:00:00+0000", "deviation_classes": CLASSES}  # fmt: skip
    text = xfail_text(report, "lib")
    assert (
        "exp/exp(Float32) binary32 -> Float32@wrong-value:accuracy: wrong value "
        "(reference), 3 calls" in text
    )
    assert "(reference, the adapter's composition), 1 calls" in text
    path = tmp_path / "lib.json"
    path.write_text(json.dumps(report))
    assert main([str(path)]) == 0
    found = load_deviations(tmp_path / "lib.xfail")
    assert [(d.operation, d.cls) for d in found] == [
        ("exp", "wrong-value:accuracy"),
        ("gelu", "wrong-value:accuracy"),
    ]


def test_every_committed_file_is_its_reports_classes() -> None:
    for report in sorted((ROOT / "docs" / "backends").glob("*.json")):
        data = json.loads(report.read_text())
        if "configuration" not in data or not isinstance(data, dict):
            continue
        backend = data["backends"][0]
        extra = report.with_suffix(".intermittent")
        intermittent = extra.read_text() if extra.is_file() else ""
        assert (ROOT / "docs" / "backends" / f"{backend}.xfail").read_text() == xfail_text(
            data, backend, intermittent
        ), f"{backend}.xfail is stale: python -m conformance.report.survey_xfail {report}"


def test_intermittent_classes_are_appended_and_read_back(tmp_path: Path) -> None:
    """A class one run shows and another not (an intermittent hang) is kept beside the
    report with its evidence, and the file covers it on every plan of its operation."""
    report = {"backends": ["lib"], "backend_versions": {"lib": "lib 1.0"}, "profile": "ci",
              "started": "2026-12-06T00:00:00+0000", "deviation_classes": CLASSES}  # fmt: skip
    path = tmp_path / "lib.json"
    path.write_text(json.dumps(report))
    (tmp_path / "lib.intermittent").write_text(
        "# seen in two runs of five\nreduce_sum@hang: Float32[0] timed out in run 3\n"
    )
    assert main([str(path)]) == 0
    text = (tmp_path / "lib.xfail").read_text()
    assert text.index("wrong-value:accuracy") < text.index("Intermittent classes")
    assert "# seen in two runs of five" in text
    found = load_deviations(tmp_path / "lib.xfail")
    (hang,) = [d for d in found if d.cls == "hang"]
    assert hang.covers("lib", "reduce_sum", "any plan", "hang")
    assert hang.reason == "Float32[0] timed out in run 3"
