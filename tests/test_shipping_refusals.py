"""An unexpected exception is named after a feature only when the backend refused it
(issue 22, item 7; conformance/findings/refusals.py).

The backends are in tests/shipping_backends.py and tests/faulty_backend.py, given by
import path as another project's would be; the runs are subprocesses.
"""

from __future__ import annotations

import json
from pathlib import Path

from shipping_cli import run_cli

from conformance.findings.finding import group
from conformance.model.capabilities import FEATURES
from conformance.report.html import render_html
from conformance.report.markdown import markdown_report
from conformance.report.table import ConformanceTable

NO_NEGATIVE_PADDING = "shipping_backends:NoNegativePadding"
#: refuses a positive padding on some inputs, computes it on others (tests/report31_backend.py)
POSITIVE_PADDING = "report31_backend:RefusesPositivePadding"
_cli = run_cli


def _classes(tmp_path: Path, name: str = "r.json") -> list[dict]:
    return json.loads((tmp_path / name).read_text(encoding="utf-8"))["deviation_classes"]


def test_a_refused_negative_padding_is_its_own_class_and_feature(tmp_path: Path) -> None:
    """A convolution that refuses a negative padding differs from plancheck's convention
    that it crops: one class, conv-negative-padding, also the feature to declare
    (issue 27; issue 31: conv-padding no longer the only one)."""
    done = _cli(tmp_path, "run", "--backend", NO_NEGATIVE_PADDING, "--op", "conv_general",
                "--workers", "0", "--report", "r.json")  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    classes = _classes(tmp_path)
    assert [c["class"] for c in classes] == ["conv-negative-padding"]  # was conv-stride
    assert "negative padding is not supported" in classes[0]["example"]["actual"]
    assert "conv_general@conv-negative-padding  unexpected exception" in done.stdout
    others = [f for f in FEATURES if f != "conv-negative-padding"]
    assert not any(f"conv_general@{feature} " in done.stdout for feature in others)
    declared = _cli(tmp_path, "run", "--backend", NO_NEGATIVE_PADDING, "--op", "conv_general",
                    "--workers", "0", "--unsupported", "conv-negative-padding")  # fmt: skip
    assert declared.returncode == 0, declared.stdout + declared.stderr
    assert "not supported (not judged): conv-negative-padding (" in declared.stdout


def test_a_refused_feature_keeps_its_documented_spelling(tmp_path: Path) -> None:
    done = _cli(tmp_path, "run", "--backend", "faulty_backend:SizeZeroRefusing", "--op", "neg",
                "--op", "reduce_sum", "--workers", "0", "--report", "r.json")  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    selectors = {c["operation"] + "@" + c["class"] for c in _classes(tmp_path)}
    assert selectors == {"neg@zero-size", "reduce_sum@zero-size"}
    declared = _cli(tmp_path, "run", "--backend", "faulty_backend:SizeZeroRefusing", "--op",
                    "neg", "--op", "reduce_sum", "--workers", "0", "--unsupported",
                    "zero-size")  # fmt: skip
    assert declared.returncode == 0, declared.stdout + declared.stderr


def test_a_deviation_spelt_the_old_way_is_a_usage_error_naming_the_new(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_text("conv_general@conv-padding: no positive padding\n")
    old = _cli(tmp_path, "run", "--backend", POSITIVE_PADDING, "--op", "conv_general",
               "--workers", "0", "--xfail", "old.txt", "--report", "r.json")  # fmt: skip
    assert old.returncode == 2, old.stdout + old.stderr
    assert ("the known deviation conv_general@conv-padding names a class now spelt "
            "conv_general@raises-ValueError") in old.stdout  # fmt: skip
    assert "listed deviation no longer fails" not in old.stdout  # not silently stale
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["respelled_xfail"] == [{"selector": "conv_general@conv-padding",
                                          "now": "conv_general@raises-ValueError",
                                          "reason": "no positive padding"}]  # fmt: skip
    assert report["result"].startswith("usage error")
    (tmp_path / "new.txt").write_text(
        "conv_general@raises-ValueError: no positive padding\n"
        "conv_general@conv-negative-padding: nor a crop of it\n"
    )
    new = _cli(tmp_path, "run", "--backend", POSITIVE_PADDING, "--op", "conv_general",
               "--workers", "0", "--xfail", "new.txt")  # fmt: skip
    assert new.returncode == 0, new.stdout + new.stderr


def test_diff_names_refusals_alike(tmp_path: Path) -> None:
    padding = _cli(tmp_path, "diff", "--backend", "cpu", "--backend", NO_NEGATIVE_PADDING,
                   "--op", "conv_general")  # fmt: skip
    assert padding.returncode == 1, padding.stdout + padding.stderr
    assert "conv_general@conv-negative-padding" in padding.stdout
    assert "raises-" not in padding.stdout
    assert "DISAGREE: 1 class (" in padding.stdout
    empty = _cli(tmp_path, "diff", "--backend", "cpu", "--backend",
                 "faulty_backend:SizeZeroRefusing", "--op", "neg")  # fmt: skip
    assert "neg@zero-size" in empty.stdout and "raises-" not in empty.stdout


def _record(cls: str, needed: list[list[str]] | None = None, **more: object) -> dict:
    record = {"backend": "b", "operation": "conv_general", "plan": "p", "class": cls,
              "kind": "unexpected exception", "rule": "r", "count": 2, "size": 1,
              "example": {"repro": "x"}, "raised": "ValueError", **more}  # fmt: skip
    if needed is not None:
        record["features_needed"] = needed
    return record


def test_grouping_weighs_every_checks_evidence() -> None:
    known = {("b", "conv_general", "p", "raises-ValueError"): "ticket 1"}
    reason = lambda *key: known.get(key[:4])  # noqa: E731  (backend, operation, plan, class)
    # a feature one check found refused but another computed is not refused
    evidence = {("b", "conv_general"): ({"zero-size"}, {"zero-size", "conv-padding"})}
    (found,) = group([_record("zero-size")], evidence, reason)
    assert (found.cls, found.known) == ("raises-ValueError", "ticket 1")
    # a raises- class whose calls all need a feature refused elsewhere joins it
    evidence = {("b", "conv_general"): ({"zero-size"}, {"conv-padding"})}
    records = [_record("zero-size"),
               _record("raises-ValueError", [["conv-padding", "zero-size"]])]  # fmt: skip
    (found,) = group(records, evidence, reason)
    assert (found.cls, found.count, found.known) == ("zero-size", 4, None)
    # ... but not when one of its calls needs no refused feature
    records[1] = _record("raises-ValueError", [["conv-padding", "zero-size"], ["conv-padding"]])
    assert sorted(c.cls for c in group(records, evidence, reason)) == [
        "raises-ValueError", "zero-size"]  # fmt: skip
    # the exception also comes on calls needing no feature: not about the feature
    records[1] = _record("raises-ValueError", [[]])
    (found,) = group(records, evidence, reason)
    assert (found.cls, found.count) == ("raises-ValueError", 4)


def test_the_report_files_name_the_new_spelling() -> None:
    entry = {"selector": "conv_general@conv-stride", "now": "conv_general@raises-ValueError",
             "reason": "no negative padding"}  # fmt: skip
    document = {"format": "plancheck-report/1", "backends": [], "complete": True, "table": {},
                "respelled_xfail": [entry]}  # fmt: skip
    assert ("<li><code>conv_general@conv-stride</code> is now spelt "
            "<code>conv_general@raises-ValueError</code>: no negative padding</li>"
            ) in render_html(document)  # fmt: skip
    markdown = markdown_report(document, ConformanceTable()).splitlines()
    assert ("- `conv_general@conv-stride` is now spelt `conv_general@raises-ValueError`: "
            "no negative padding") in markdown  # fmt: skip
