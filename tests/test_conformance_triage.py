"""Triage of an outside backend: declared capabilities, deviation classes, hygiene
rules, known deviations by class, grouped reports and the differential mode.

The backend under test is ``tests/faulty_backend.py``: the CPU backend wrapped
so that it refuses every size-0 tensor, with three injected faults (floor loses
the sign of zero, exp warns on overflow, sqrt overwrites its input).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import backends
from conformance.cli import main as plancheck
from conformance.findings.finding import element_class, findings_of, group
from conformance.judge.checker import Checker, NonConformance
from conformance.judge.checks import check_boundary, check_generated
from conformance.judge.profiles import PROFILES
from conformance.judge.runner import run_call
from conformance.model.calls import Call
from conformance.model.capabilities import FEATURES, features_of, parse_features
from conformance.report import validate_report
from oracle import DType, Tensor, binary32, resolvable_plans, resolve_operation_plan

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
FAULTY = "faulty_backend:SizeZeroRefusing"
#: the operations of the end-to-end runs: the three faulty ones and five that are not
OPERATIONS = ("floor", "exp", "sqrt", "neg", "reduce_sum", "gather")


def _f32(shape, values):
    return Tensor(DType.Float32, shape, tuple(values))


def _call(operation, *args, **keywords):
    operands = [a.dtype if isinstance(a, Tensor) else a for a in args]
    from oracle.planner import get_operation

    policy = get_operation(operation).policy_operands(tuple(operands))
    plan = resolve_operation_plan(operation, *policy, **keywords)
    return Call(operation, args, keywords.get("accumulator_dtype"), plan)


# ---------------------------------------------------------------------------
# Capabilities
# ---------------------------------------------------------------------------


def test_the_vocabulary_holds_the_required_features():
    assert {"zero-size", "rank-0", "broadcasting", "negative-axis", "signalling-nan"} <= set(
        FEATURES
    )


def test_features_are_derived_from_the_call():
    assert features_of(_call("neg", _f32((0,), ()))) == {"zero-size"}
    assert features_of(_call("neg", _f32((), (1.0,)))) == {"rank-0"}
    assert features_of(_call("add", _f32((2,), (1.0, 2.0)), _f32((1,), (3.0,)))) == {"broadcasting"}
    assert features_of(_call("mul", _f32((2,), (1.0, 2.0)), 2.5)) == {"weak-scalar"}
    signalling = _f32((1,), (binary32.from_bits(0x7FA00000),))
    if binary32.to_bits(signalling.values[0]) == 0x7FA00000:  # the Tensor keeps it signalling
        assert "signalling-nan" in features_of(_call("neg", signalling))
    assert "negative-axis" in features_of(_call("cumsum", _f32((2,), (1.0, 2.0)), -1))
    assert "negative-axis" not in features_of(_call("cumsum", _f32((2,), (1.0, 2.0)), 0))
    # a convolution whose window does not fit its input has an empty result
    lhs, rhs = _f32((1, 1, 1), (2.0,)), _f32((1, 1, 2), (1.0, 1.0))
    empty = _call("conv_general", lhs, rhs, (1,), ((0, 0),), (1,), (1,), 1)
    assert "zero-size" in features_of(empty)
    fits = _call("conv_general", lhs, rhs, (1,), ((1, 0),), (1,), (1,), 1)
    assert "zero-size" not in features_of(fits)


def test_an_unknown_feature_is_a_usage_error_listing_the_vocabulary(capsys):
    with pytest.raises(ValueError, match="zero-size"):
        parse_features(["size-zero"])
    assert plancheck(["run", "--backend", "cpu", "--unsupported", "size-zero"]) == 2
    error = capsys.readouterr().err
    assert "size-zero" in error and all(name in error for name in FEATURES)


def test_an_unsupported_call_is_counted_not_judged():
    class RefusesEmpty:
        name = "refuses-empty"

        def __init__(self):
            self.cpu = backends.get("cpu")
            self.from_tensor, self.to_tensor = self.cpu.from_tensor, self.cpu.to_tensor

        def execute(self, operation, *args, **options):
            if any(isinstance(a, np.ndarray) and a.size == 0 for a in args):
                raise ValueError("no size 0")
            return self.cpu.execute(operation, *args, **options)

    plan = next(p for p in resolvable_plans() if p.operation == "neg")
    refused = Checker(RefusesEmpty(), "r", plan, "boundary")
    with pytest.raises(NonConformance):
        check_boundary(refused)
    assert [e["class"] for e in refused.classes.values()] == ["zero-size"]
    declared = Checker(RefusesEmpty(), "r", plan, "boundary", unsupported=frozenset({"zero-size"}))
    check_boundary(declared)  # nothing judged fails
    assert declared.not_supported["zero-size"] > 0 and not declared.classes
    assert declared.examples == refused.examples - declared.not_supported["zero-size"]


# ---------------------------------------------------------------------------
# Findings: every class, hygiene
# ---------------------------------------------------------------------------


def test_element_classes():
    assert element_class(-0.0, 0.0, 0) == "signed-zero"
    assert element_class(float("nan"), 1.0, None) == "nan"
    assert element_class(1.0, float("nan"), None) == "spurious-nan"
    assert element_class(2.0**-140, 0.0, 5) == "subnormal"
    assert element_class(1.5, 1.5000001, 1) == "1-ulp"
    assert element_class(1.5, 1.75, 100) == "many-ulps"
    assert element_class(float("inf"), 3.0, None) == "infinity"
    assert element_class(3, 4, None) == "integer"


class _TwoFaults:
    """floor loses the sign of zero AND turns NaN into 0: two classes in one plan."""

    name = "two-faults"

    def __init__(self):
        self.cpu = backends.get("cpu")
        self.from_tensor, self.to_tensor = self.cpu.from_tensor, self.cpu.to_tensor

    def execute(self, operation, *args, **options):
        result = self.cpu.execute(operation, *args, **options)
        if operation == "floor":
            result = np.where((result == 0) | np.isnan(result), np.float32(0.0), result)
        return result


@pytest.mark.parametrize("check", [check_boundary, check_generated], ids=["boundary", "generated"])
def test_a_check_keeps_looking_after_the_first_class(check):
    plan = next(p for p in resolvable_plans() if p.operation == "floor")
    # A derandomized search is reproducible for one process, but hypothesis
    # also draws constants from the modules loaded (so a full-suite worker
    # generates other examples than a lone run): a budget of 300 examples a
    # pass makes meeting a NaN input certain either way.
    profile = dataclasses.replace(PROFILES["ci"], max_examples=300)
    checker = Checker(_TwoFaults(), "two", plan, "x", profile)
    with pytest.raises(NonConformance) as failure:
        check(checker)
    classes = {e["class"] for e in checker.classes.values()}
    assert {"wrong-value:signed-zero", "wrong-value:nan"} <= classes
    assert "deviation classes of this check" in str(failure.value)
    for entry in checker.classes.values():
        assert entry["count"] >= 1 and entry["example"].repro.startswith("plancheck repro")


def test_hygiene_warnings_and_modified_inputs_are_findings():
    cpu = backends.get("cpu")

    class Noisy:
        name = "noisy"
        from_tensor, to_tensor = cpu.from_tensor, cpu.to_tensor

        def execute(self, operation, *args, **options):
            result = cpu.execute(operation, *args, **options)
            if operation == "neg":
                warnings.warn("overflow encountered in cast", RuntimeWarning, stacklevel=1)
            if operation == "abs":
                args[0][...] = 7.0
            return result

    x = _f32((2,), (1.5, -2.0))
    noisy = run_call(Noisy(), _call("neg", x))
    assert not noisy.ok and noisy.problem == "warning" and noisy.verdict.mismatches == ()
    assert [f.cls for f in findings_of(noisy)] == ["warning:overflow"]
    modified = run_call(Noisy(), _call("abs", x))
    assert not modified.ok and modified.modified == (0,)
    assert [f.cls for f in findings_of(modified)] == ["input-modified"]
    assert x.values == (1.5, -2.0)  # the Tensor itself is never shared with the backend
    assert run_call(cpu, _call("neg", x)).ok


def test_a_one_element_fault_shows_that_element_and_its_inputs():
    from conformance.mutants import kill

    report = kill("softplus_threshold")["report"]
    assert "Float32[29] (elements: see the mismatches)" in report
    assert "at (23,) from (12.5 (0x41480000)): expected 12.500003814697266 (0x41480004)" in report
    shown = report.split("  reproduce:")[0]
    assert shown.count("0x41480000") == 2  # the input and the wrong result, nothing else


def test_grouping_folds_plans_and_keeps_known_apart():
    record = {"backend": "b", "operation": "add", "class": "zero-size",
              "kind": "wrong exception", "rule": "r", "count": 2, "size": 3,
              "example": {"repro": "x", "plan": "p1"}}  # fmt: skip
    classes = group([
        dict(record, plan="p1"),
        dict(record, plan="p2", size=1, example={"repro": "y", "plan": "p2"}),
        dict(record, plan="p3", known="listed"),
    ])  # fmt: skip
    assert [(c.plans, c.count, c.known) for c in classes] == [
        (["p1", "p2"], 4, None),
        (["p3"], 2, "listed"),
    ]
    # the paste line names the plans the class was seen on (a third plan is new)
    assert classes[0].repro == "y" and classes[0].selector == "add/p1 | p2@zero-size"


# ---------------------------------------------------------------------------
# End to end: the size-0-refusing backend
# ---------------------------------------------------------------------------


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), str(ROOT), env.get("PYTHONPATH", "")])
    return env


def _plancheck(tmp_path, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "conformance.cli", *arguments],
        cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def _run(tmp_path, *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
    report = tmp_path / "out.json"
    options = [a for op in OPERATIONS for a in ("--op", op)]
    done = _plancheck(tmp_path, "run", "--backend", FAULTY, *options, "--workers", "2",
                      "--report", str(report), *extra)  # fmt: skip
    data = json.loads(report.read_text(encoding="utf-8"))
    validate_report(data)
    return done, data


def _class_names(data) -> set[str]:
    return {f"{c['operation']}@{c['class']}" for c in data["deviation_classes"]}


def test_with_zero_size_unsupported_only_the_three_faults_remain(tmp_path):
    done, data = _run(tmp_path, "--unsupported", "zero-size")
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert {c["operation"] for c in data["deviation_classes"]} == {"floor", "exp", "sqrt"}
    names = _class_names(data)
    assert {"floor@wrong-value:signed-zero", "sqrt@input-modified"} <= names
    assert "exp@warning:overflow" in names
    kinds = {c["kind"] for c in data["deviation_classes"]}
    assert kinds == {"wrong value", "warning", "input modified"}
    table = data["table"][FAULTY]
    assert {op for op, row in table.items() if row["status"] != "conforms"} == {
        "floor", "exp", "sqrt",
    }  # fmt: skip
    assert data["not_supported"][FAULTY]["zero-size"] > 0
    assert "not supported (not judged): zero-size" in done.stdout
    assert len(done.stdout.splitlines()) < 300


def test_without_the_declaration_size_0_is_one_class_per_operation(tmp_path):
    done, data = _run(tmp_path)
    assert done.returncode == 1
    zero = [c for c in data["deviation_classes"] if c["class"] == "zero-size"]
    assert sorted(c["operation"] for c in zero) == sorted(OPERATIONS)
    faults = [c for c in data["deviation_classes"] if c["class"] != "zero-size"]
    assert {c["operation"] for c in faults} == {"floor", "exp", "sqrt"}  # still reported
    for entry in data["deviation_classes"]:
        assert entry["repro"].startswith(f"plancheck repro --backend {FAULTY}")
        assert entry["count"] >= 1 and entry["example"]["text"]
    lines = done.stdout.splitlines()
    assert len(lines) < 400  # bounded by the classes, not by the failing items
    assert sum(1 for line in lines if line.startswith("--- ")) <= 12 + 1


def test_known_classes_by_class_and_stale_entries(tmp_path):
    known = tmp_path / "known.txt"
    known.write_text(
        "unsupported: zero-size\n"
        "floor@wrong-value:signed-zero: floor drops the sign of zero (ticket 1)\n"
        "exp@warning:overflow: numpy warns (ticket 2)\n"
        "neg@wrong-value:nan: listed, never seen\n",
        encoding="utf-8",
    )
    done, data = _run(tmp_path, "--xfail", str(known))
    assert done.returncode == 1  # sqrt's class is new
    by_name = {f"{c['operation']}@{c['class']}": c for c in data["deviation_classes"]}
    assert by_name["floor@wrong-value:signed-zero"]["known"].startswith("floor drops")
    assert by_name["sqrt@input-modified"]["known"] is None
    # a known class does not hide another class of the same plan
    assert by_name["exp@warning:overflow"]["known"] == "numpy warns (ticket 2)"
    assert by_name["exp@warning:underflow"]["known"] is None
    assert data["table"][FAULTY]["exp"]["status"] == "FAIL"
    assert data["table"][FAULTY]["floor"]["status"] == "xfail"
    assert data["table"][FAULTY]["sqrt"]["status"] == "FAIL"
    assert [s["selector"] for s in data["stale_xfail"]] == ["neg@wrong-value:nan"]


def test_a_backend_declares_what_it_does_not_support(tmp_path):
    (tmp_path / "declaring.py").write_text(
        "from faulty_backend import SizeZeroRefusing\n\n"
        "class Declaring(SizeZeroRefusing):\n    unsupported = {'zero-size'}\n\n"
        "class Wrong(SizeZeroRefusing):\n    unsupported = {'size-zero'}\n",
        encoding="utf-8",
    )
    env = _env()
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env["PYTHONPATH"]])
    report = tmp_path / "out.json"
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--backend", "declaring:Declaring",
         "--op", "floor", "--op", "neg", "--workers", "0", "--report", str(report)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    data = json.loads(report.read_text(encoding="utf-8"))
    validate_report(data)
    assert _class_names(data) == {"floor@wrong-value:signed-zero"}
    assert data["table"]["declaring:Declaring"]["neg"]["status"] == "conforms"
    markdown = tmp_path / "out.md"
    subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--backend", "declaring:Declaring",
         "--op", "floor", "--workers", "0", "--report", str(markdown)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    text = markdown.read_text(encoding="utf-8")
    assert "not supported (not judged): zero-size" in text
    assert text.count("### `declaring:Declaring`: `floor@wrong-value:signed-zero`") == 1
    wrong = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--backend", "declaring:Wrong",
         "--op", "neg"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert wrong.returncode == 2 and "size-zero" in wrong.stderr and "zero-size" in wrong.stderr


# ---------------------------------------------------------------------------
# Differential mode
# ---------------------------------------------------------------------------


def test_cpu_and_generic_agree(tmp_path):
    ops = ("add", "reduce_sum", "matmul", "floor", "gather", "argmax", "pow", "_topk_values")
    done = _plancheck(tmp_path, "diff", "--backend", "cpu", "--backend", "generic",
                      *(a for op in ops for a in ("--op", op)))  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:]
    assert "cpu and generic agree on every call" in done.stdout


def test_diff_against_a_faulty_backend_names_the_class(tmp_path):
    done = _plancheck(tmp_path, "diff", "--backend", "cpu", "--backend", FAULTY, "--op", "floor")
    assert done.returncode == 1
    assert "floor@wrong-value:signed-zero" in done.stdout
    assert f"the oracle accepts cpu, rejects {FAULTY}" in done.stdout
    assert _plancheck(tmp_path, "diff", "--backend", "cpu").returncode == 2
