"""``python -m conformance.witnesses --write --plan P`` merges one plan's record."""

from __future__ import annotations

import json

import pytest

from conformance.generate import witnesses


def test_merging_replaces_one_record_and_keeps_every_other(tmp_path, monkeypatch):
    shipped = witnesses.load()
    stale = json.loads(json.dumps(shipped))
    stale["plans"]["relu:Int32"] = {"stale": True}
    target = tmp_path / "witnesses.json"
    target.write_text(witnesses.dumps(stale))
    monkeypatch.setattr(witnesses, "_data_path", lambda: target)
    monkeypatch.setattr(witnesses, "load", lambda: json.loads(target.read_text()))

    assert witnesses.main(["--write", "--plan", "relu:Int32"]) == 0

    written = json.loads(target.read_text())
    assert written["plans"]["relu:Int32"] == witnesses.generate_plan("relu:Int32")
    others = {k: v for k, v in written["plans"].items() if k != "relu:Int32"}
    assert others == {k: v for k, v in shipped["plans"].items() if k != "relu:Int32"}
    assert {k: v for k, v in written.items() if k != "plans"} == {
        k: v for k, v in shipped.items() if k != "plans"
    }


def test_records_of_another_search_setting_are_not_merged():
    shipped = witnesses.load()
    fresh = dict(witnesses.generate(["round:Float32"]), scan_points=shipped["scan_points"] + 1)
    with pytest.raises(ValueError, match="scan_points"):
        witnesses.merged(shipped, fresh)
