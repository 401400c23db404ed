"""The call machinery the reproduction modules share (docs/backends/repro_common.py).

No outside library is needed: the call tables here are numpy's, or a module
written into a temporary directory beside its own report, as a library's
reproduction module sits beside its report.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

BACKENDS_DOCS = Path(__file__).resolve().parents[1] / "docs" / "backends"
COMMON_PATH = BACKENDS_DOCS / "repro_common.py"


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"_test_repro_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


common = _load(COMMON_PATH)

_ONE = {"tensor": "Float32", "shape": [1], "bits": ["0x3f800000"]}


def _call(op: str) -> dict:
    return {"v": 1, "op": op, "args": [_ONE], "plan": f"{op}(Float32) binary32 -> Float32"}


def test_an_operation_without_a_call_is_the_modules_error_not_the_librarys() -> None:
    """A missing call must not pass for the library's exception (a ``raises`` class
    would be shown by a KeyError of the module)."""
    with pytest.raises(KeyError):
        common.run(_call("exp"), {}, np.asarray)


def test_no_call_goes_through_and_a_library_error_is_the_outcome() -> None:
    def refused(plan, x):
        raise common.NoCall("no spelling")

    def fails(plan, x):
        raise ValueError("the library's own")

    with pytest.raises(common.NoCall):
        common.run(_call("exp"), {"exp": refused}, np.asarray)
    outcome = common.run(_call("exp"), {"exp": fails}, np.asarray)
    assert isinstance(outcome.error, ValueError) and outcome.value is None


class _Standard:
    """A namespace with the array API standard's names and no fmod, exp2 or astype method."""

    float32, float64, int32 = np.float32, np.float64, np.int32

    def __getattr__(self, name: str):
        if name in ("fmod", "exp2", "power", "rint", "cumsum"):
            raise AttributeError(name)
        return getattr(np, name)

    pow = staticmethod(np.power)
    round = staticmethod(np.rint)
    cumulative_sum = staticmethod(np.cumsum)


def test_namespace_calls_renames_and_leaves_out_what_a_namespace_lacks() -> None:
    casts = []

    def astype(array, dtype):
        casts.append(dtype)
        return np.asarray(array).astype(dtype)

    names = {"pow": "pow", "round": "round", "cumsum": "cumulative_sum"}
    calls = common.namespace_calls(_Standard(), np.asarray, {"astype": astype}, names)
    # what it has no function or hook for has no call (never a composition)
    for absent in ("rem", "exp2", "sigmoid", "conv_general", "scatter", "_sort_values"):
        assert absent not in calls, absent
    x, unary = np.array([1.5, 2.5, -0.5], np.float32), "op(Float32) binary32 -> Float32"
    assert calls["round"](unary, x).tolist() == [2.0, 2.0, -0.0]
    assert calls["pow"]("pow(Float32, weak->Float32)", x, 2).tolist() == [2.25, 6.25, 0.25]
    assert calls["cumsum"](unary, x, 0).tolist() == [1.5, 4.0, 3.5]
    assert calls["argmax"](unary, x).dtype == np.int32 and casts == [np.int32]


def test_the_scatter_axis_is_judged_by_the_librarys_moveaxis() -> None:
    hooks = {"scatter": lambda b, where, u: b}
    calls = common.namespace_calls(np, np.asarray, hooks)
    base, index, update = np.zeros(3, np.float32), np.array([0], np.int32), np.ones(1, np.float32)
    plan = "scatter(Float32, Int32, Float32) binary32 -> Float32"
    with pytest.raises(np.exceptions.AxisError):
        calls["scatter"](plan, base, index, update, 1)


_MODULE = """
from importlib.util import module_from_spec, spec_from_file_location
import os, time
common = module_from_spec(spec_from_file_location("repro_common", {common!r}))
common.__spec__.loader.exec_module(common)
REPORT = "fake.json"
CALLS = {{
    "abort": lambda plan, x: os.abort(),
    "sleep": lambda plan, x: time.sleep(30),
    "exp": lambda plan, x: x,
}}
"""


@pytest.fixture
def fake_report(tmp_path: Path) -> str:
    """A report of four classes beside its reproduction module (``fake_repro.py``)."""
    classes = [
        {"operation": op, "class": cls, "example": {"call": _call(op)}}
        for op, cls in (("abort", "crash"), ("exp", "crash"), ("sleep", "hang"), ("exp", "hang"))
    ]
    report = tmp_path / "fake.json"
    report.write_text(json.dumps({"deviation_classes": classes, "options": {"timeout_s": 1}}))
    (tmp_path / "fake_repro.py").write_text(_MODULE.format(common=str(COMMON_PATH)))
    return str(report)


def test_a_crash_and_a_hang_run_in_a_child_process(fake_report: str) -> None:
    assert common.cause_of("abort@crash") is common.crashes
    assert common.cause_of("sleep@hang") is common.hangs
    assert "signal 6" in common.crashes("abort@crash", fake_report, {}, np.asarray)
    assert "no return within 1 s" in common.hangs("sleep@hang", fake_report, {}, np.asarray)
    with pytest.raises(AssertionError, match="exited with status 0"):
        common.crashes("exp@crash", fake_report, {}, np.asarray)
    with pytest.raises(AssertionError, match="ended within 1 s"):
        common.hangs("exp@hang", fake_report, {}, np.asarray)


def test_main_prints_each_class_and_exits_by_the_outcome(capsys) -> None:
    def shown() -> str:
        return "k1: shown by the call as printed"

    def conforms() -> None:
        raise AssertionError("k2: the required bits")

    assert common.main({"k1": shown}, {"k3": "nondeterministic"}) == 0
    assert common.main({"k1": shown, "k2": conforms}) == 1
    out = capsys.readouterr().out
    assert "k1: reproduced -- shown by the call as printed" in out
    assert "k3: not reproduced alone: nondeterministic" in out
    assert "k2: NOT REPRODUCED: k2: the required bits" in out
    assert "1 of 2 classes reproduced" in out
