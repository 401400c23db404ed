"""Certificates per plan: what a record's oracle digest covers (conformance.exhaustive.digest).

A record stays valid while the code and the table row that determine *its*
plan's expected values stay the same: moving a module, renaming an import
alias, editing a docstring or adding another operation's row keeps every
digest; changing one plan's formula changes that plan's digest and no other.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from conformance import exhaustive as X
from conformance.exhaustive import compare, digest
from conformance.exhaustive.state import FORMAT, OLD_FORMATS, Store, is_current
from oracle import operations, planner
from oracle import vectorised as V
from oracle.reference import rounded

ROOT = Path(__file__).resolve().parents[1]
PLANS = X.plan_ids()


def _all_parts() -> dict[str, list[str]]:
    return {plan: digest.digest_parts(plan) for plan in PLANS}


def _load(name: str, path: Path):
    """Import *path* as module *name* (a module "moved" inside the project)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """A loader of source text as a module of the project (``conformance.scratch_N``)."""
    made = []

    def load(source: str):
        name = f"conformance.scratch_{len(made)}"
        path = tmp_path / f"scratch_{len(made)}.py"
        path.write_text(textwrap.dedent(source))
        made.append(name)
        return _load(name, path)

    yield load
    for name in made:
        sys.modules.pop(name, None)


def test_every_plan_has_its_own_stable_digest():
    first = {plan: digest.plan_digest(plan) for plan in PLANS}
    assert len(set(first.values())) == len(PLANS)  # 34 plans, 34 digests
    assert first == {plan: digest._hash(p.encode() for p in parts)
                     for plan, parts in _all_parts().items()}  # fmt: skip
    assert all(len(d) == 16 and int(d, 16) >= 0 for d in first.values())


def test_the_digest_reaches_the_plans_own_formula_and_row():
    parts = digest.digest_parts("exp:Float32")
    text = "\n".join(parts)
    assert "data _FORMULAS = entry exp: numpy" in text and " exp " in text
    assert "data _BOUNDS = entry exp: 4.0" in text
    assert any(p.startswith("FunctionDef(name='certified_range'") for p in parts)
    assert any(p.startswith("FunctionDef(name='near_boundary'") for p in parts)
    assert "facts {'name': 'exp'" in parts[-1] and "semantics" not in parts[-1]
    assert any(p.startswith("library numpy ") for p in parts)
    # an exact plan does not reach the correctly rounded machinery at all
    neg = "\n".join(digest.digest_parts("neg:Float32"))
    assert "near_boundary" not in neg and "_FORMULAS" not in neg and "_exact_chunk" in neg


def test_moving_the_comparison_module_and_renaming_an_alias_keeps_every_digest(tmp_path):
    source = Path(compare.__file__).read_text()
    moved = source.replace(
        "from oracle import vectorised as V\n", "from oracle import vectorised as VEC\n"
    )
    moved = moved.replace("V.", "VEC.").replace("VEC.EC.", "VEC.")
    moved = "# moved to another package, reformatted\n" + moved.replace(
        '"""One chunk', '"""Moved: one chunk'
    )
    assert moved != source and "VEC.certified_range" in moved
    path = tmp_path / "elsewhere.py"
    path.write_text(moved)
    module = _load("conformance.relocated.elsewhere", path)
    try:
        for plan in ("exp:Float32", "neg:Float32", "gelu:Int32", "relu:Int32"):
            assert digest.digest_parts(plan, roots=module.ROOTS) == digest.digest_parts(plan)
    finally:
        sys.modules.pop("conformance.relocated.elsewhere", None)


def test_adding_a_table_row_keeps_every_existing_digest(monkeypatch):
    assert "exp_hypothetical" not in operations.BUILTIN_FACTS  # a made-up operation
    before = _all_parts()
    exp_facts = operations.BUILTIN_FACTS["exp"]
    monkeypatch.setitem(
        operations.BUILTIN_FACTS,
        "exp_hypothetical",
        dataclasses.replace(exp_facts, name="exp_hypothetical"),
    )
    spec = planner.get_operation("exp")
    monkeypatch.setitem(
        planner._REGISTRY, "exp_hypothetical", dataclasses.replace(spec, name="exp_hypothetical")
    )
    monkeypatch.setitem(V._FORMULAS, "exp_hypothetical", np.expm1)
    monkeypatch.setitem(V._BOUNDS, "exp_hypothetical", V.LIBM)
    monkeypatch.setitem(V.NUMPY_UFUNCS, "exp_hypothetical", np.expm1)
    monkeypatch.setitem(V.MONOTONE, "exp_hypothetical", V.MONOTONE["exp"])
    monkeypatch.setitem(rounded.UNARY, "exp_hypothetical", rounded.exp)
    monkeypatch.setattr(V, "OPS", (*V.OPS, "exp_hypothetical"))
    monkeypatch.setattr(V, "ROUNDED_OPS", (*V.ROUNDED_OPS, "exp_hypothetical"))
    monkeypatch.setattr(V, "ACTIVATIONS", (*V.ACTIVATIONS, "exp_hypothetical"))
    assert digest.digest_parts("exp_hypothetical:Float32") != before["exp:Float32"]
    assert _all_parts() == before


def test_changing_one_plans_formula_changes_exactly_that_plans_digest(monkeypatch):
    before = _all_parts()
    monkeypatch.setitem(V._FORMULAS, "log", np.log1p)  # log's formula, wrong on purpose
    after = _all_parts()
    assert [p for p in PLANS if after[p] != before[p]] == ["log:Float32"]
    monkeypatch.setitem(V._BOUNDS, "exp", 5.0)  # exp's stated bound: both exp plans
    after = _all_parts()
    assert [p for p in PLANS if after[p] != before[p]] == [
        "exp:Float32", "log:Float32", "exp:Int32"
    ]  # fmt: skip


def test_an_edited_branch_changes_only_the_plan_that_takes_it(scratch):
    original = scratch('''
        def reference(op, x):
            """The reference of a few plans."""
            if op == "exp":
                return x + 1.0
            if op in ("sin", "cos"):
                return _helper(op, x) * 2.0
            return _helper(op, x)

        def _helper(op, x):
            if op == "log":
                return x - 1.0
            return x
    ''')
    edited = scratch('''
        def reference(op, x):
            """The reference of a few plans."""
            if op == "exp":
                return x + 1.0
            if op in ("sin", "cos"):
                return _helper(op, x) * 2.0
            return _helper(op, x)

        def _helper(op, x):
            if op == "log":
                return x - 2.0  # the edit: log's branch only
            return x
    ''')
    reworded = scratch('''
        def reference(op, x):  # only a docstring, a comment and the layout change
            """Reworded."""
            if op == "exp":
                return (x
                        + 1.0)
            if op in ("sin", "cos"):
                return _helper(op, x) * 2.0
            return _helper(op, x)

        def _helper(op, x):
            """Now documented."""
            if op == "log":
                return x - 1.0
            return x
    ''')

    def parts(module, plan):
        return digest.digest_parts(plan, roots=[module.reference])

    for plan in ("exp:Float32", "sin:Float32", "cos:Float32", "neg:Float32"):
        assert parts(original, plan) == parts(edited, plan), plan
    assert parts(original, "log:Float32") != parts(edited, "log:Float32")
    for plan in ("exp:Float32", "sin:Float32", "log:Float32", "neg:Float32"):
        assert parts(original, plan) == parts(reworded, plan), plan
    assert parts(original, "exp:Float32") != parts(original, "sin:Float32")


def test_a_call_passing_another_operation_walks_the_callee_unspecialised(scratch):
    module = scratch("""
        def reference(op, x):
            return _helper("log", x)

        def _helper(op, x):
            if op == "log":
                return x - 1.0
            return x
    """)
    edited = scratch("""
        def reference(op, x):
            return _helper("log", x)

        def _helper(op, x):
            if op == "log":
                return x - 2.0
            return x
    """)
    # exp's reference calls the log branch: an edit there must reach exp's digest
    assert digest.digest_parts("exp:Float32", roots=[module.reference]) != digest.digest_parts(
        "exp:Float32", roots=[edited.reference]
    )


def test_the_prose_of_a_row_is_not_covered_but_its_facts_are(monkeypatch):
    before = digest.digest_parts("neg:Float32")
    neg = operations.BUILTIN_FACTS["neg"]
    monkeypatch.setitem(
        operations.BUILTIN_FACTS, "neg", dataclasses.replace(neg, semantics="reworded")
    )
    assert digest.digest_parts("neg:Float32") == before
    monkeypatch.setitem(
        operations.BUILTIN_FACTS, "neg", dataclasses.replace(neg, nan_bit_copy=False)
    )
    assert digest.digest_parts("neg:Float32") != before


def test_state_the_oracle_mutates_is_not_covered():
    before = {plan: digest.digest_parts(plan) for plan in ("exp:Float32", "sigmoid:Float32")}
    X.check_range(X.numpy_float32, "exp:Float32", 0x42B00000, 0x42B10000)  # STATS, MPFR flags
    X.check_range(X.numpy_float32, "sigmoid:Float32", 0xC2B00000, 0xC2B10000)
    assert V.STATS["scalar"] > 0
    assert {plan: digest.digest_parts(plan) for plan in before} == before


def test_records_of_the_previous_format_are_read_and_never_current(tmp_path):
    # three records of the certification run before certificates per plan
    committed = (
        (ROOT / "tests" / "data" / "exhaustive-state-format2.jsonl").read_text().splitlines()
    )
    old = [json.loads(line) for line in committed]
    assert {r["format"] for r in old} <= set(OLD_FORMATS)
    state = tmp_path / "s.jsonl"
    state.write_text("\n".join(committed) + "\n")
    loaded = Store(state).load()
    assert loaded == old
    assert not any(is_current(r) for r in loaded)
    assert X.current_records(loaded, "cpu") == []
    fresh = X.run_shard("cpu", "neg:Float32", 3, 65536, state=state)[0]
    records = Store(state).load()
    assert fresh.ok and records[-1]["format"] == FORMAT and is_current(records[-1])


def test_a_digest_does_not_depend_on_what_the_process_ran_before():
    """A counter the oracle keeps (``oracle.vectorised.STATS``) is state even for a plan
    whose closure only reads it: the last plan of a sweep (leaky_relu:Int32) got
    another digest in a worker that had run other plans first, so its records never
    counted in a fresh process."""
    fresh = digest.plan_digest.__wrapped__("leaky_relu:Int32")
    X.check_range("cpu", "sigmoid:Int32", 0, 1 << 16)
    assert V.STATS["evaluated"] or V.STATS["scalar"]
    assert digest.plan_digest.__wrapped__("leaky_relu:Int32") == fresh
