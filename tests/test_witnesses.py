"""Witnesses of the result classes: found, reproducible, and strong enough to kill."""

from __future__ import annotations

import importlib.resources
import itertools
import math

import numpy as np
import pytest

import backends
from conformance.classes.result import HARD_TO_ROUND_ULPS, ResultClass, result_classes_hit
from conformance.exhaustive import plan_ids
from conformance.generate import witnesses
from conformance.generate.witnesses import applicable_result_classes
from conformance.judge.runner import run_call
from conformance.mutants import result as result_mutants
from oracle import DType, binary32, expected, resolvable_plans
from oracle import vectorised as V

R = ResultClass
DATA = witnesses.load()


def test_the_data_ships_with_the_package_is_small_and_covers_every_unary_plan():
    resource = importlib.resources.files("conformance.generate").joinpath(
        "data", witnesses.DATA_FILE
    )
    assert len(resource.read_bytes()) < 1_000_000
    assert set(DATA["plans"]) == set(plan_ids())
    assert DATA["generator"] == "python -m conformance.witnesses --write"
    assert DATA["scan_points"] == witnesses.SCAN_POINTS
    assert DATA["hard_sample"] == witnesses.HARD_SAMPLE


@pytest.mark.parametrize("identifier", ["exp:Float32", "sigmoid:Int32", "recip:Float32"])
def test_a_regeneration_reproduces_the_shipped_records(identifier):
    fresh, shipped = witnesses.generate_plan(identifier), DATA["plans"][identifier]
    # thresholds and classes come from the certified oracle: identical everywhere
    assert fresh["thresholds"] == shipped["thresholds"]
    assert fresh["reached"] == shipped["reached"]
    # the distances come from float64 libm values, which may differ in the last bit
    # on another machine (about 2**-29 ULP here)
    assert [p for p, _ in fresh["hardest"]] == [p for p, _ in shipped["hardest"]]
    for (_, new), (_, old) in zip(fresh["hardest"], shipped["hardest"]):
        assert new == pytest.approx(old, rel=1e-3, abs=1e-8)


def test_the_canonical_text_and_its_digest_are_stable():
    data = witnesses.generate(["round:Float32", "relu:Int32"])
    assert witnesses.dumps(data) == witnesses.dumps(
        witnesses.generate(["relu:Int32", "round:Float32"])
    )
    assert len(witnesses.digest(data)) == 64


def _kind(value: float) -> str:
    if math.isnan(value):
        return "nan"
    magnitude = abs(value)
    if magnitude == 0 or math.isinf(value):
        return f"{'-' if math.copysign(1, value) < 0 else '+'}{'zero' if magnitude == 0 else 'inf'}"
    if magnitude < binary32.MIN_NORMAL:
        return "subnormal"
    return "one" if magnitude == 1 else "max" if magnitude == binary32.MAX_FINITE else "normal"


def _adjacent_edges(identifier: str) -> list[tuple[float, float, str, str]]:
    """Adjacent threshold inputs whose results differ in kind, by the scalar MPFR oracle."""
    plan = witnesses.unary_plan(identifier)
    positions = sorted(witnesses._decode(plan, p) for p in DATA["plans"][identifier]["thresholds"])
    edges = []
    for a, b in itertools.pairwise(positions):
        if b - a != 1 or (a < 0x80000000) != (b < 0x80000000):
            continue
        xa, xb = (binary32.from_bits(p) for p in (a, b))
        ka, kb = (_kind(expected(plan.operation, _tensor(x)).result.values[0]) for x in (xa, xb))
        if ka != kb:
            edges.append((xa, xb, ka, kb))
    return edges


def _tensor(x: float):
    from oracle import Tensor

    return Tensor(DType.Float32, (1,), (x,))


def test_exp_thresholds_are_adjacent_inputs_on_both_sides_of_each_edge():
    kinds = {frozenset((ka, kb)) for _, _, ka, kb in _adjacent_edges("exp:Float32")}
    # the largest input whose exp is subnormal and the smallest whose exp is normal; the
    # last +0 and the first 2**-149; the last finite result and the first +inf
    for pair in (("subnormal", "normal"), ("+zero", "subnormal"), ("normal", "+inf")):
        assert frozenset(pair) in kinds, pair


def test_saturating_functions_have_their_saturation_edge():
    for identifier in ("tanh:Float32", "erf:Float32", "sigmoid:Float32"):
        edges = _adjacent_edges(identifier)
        assert any({ka, kb} == {"normal", "one"} and abs(xa) >= 1 for xa, _, ka, kb in edges)


def test_inversion_finds_the_exact_extreme_results_of_exp2():
    found = {witnesses._decode(witnesses.unary_plan("exp2:Float32"), p)
             for p in DATA["plans"]["exp2:Float32"]["thresholds"]}  # fmt: skip
    assert binary32.to_bits(-149.0) in found and binary32.to_bits(-126.0) in found


@pytest.mark.parametrize("operation", ["exp", "exp2", "tanh", "erf", "sigmoid", "softplus"])
def test_a_monotone_function_has_one_edge_per_pair_of_kinds(operation):
    plan = witnesses.unary_plan(f"{operation}:Float32")
    edges = witnesses.threshold_edges(plan)
    kinds = [tuple(sorted(witnesses._kinds(plan, list(edge)).tolist())) for edge in edges]
    halves = [edge[0] >= 0x80000000 for edge in edges]
    assert len(set(zip(kinds, halves))) == len(edges)


def test_the_hardest_inputs_are_sorted_close_and_correctly_rounded():
    for identifier in ("exp:Float32", "log2:Float32", "tanh:Float32"):
        hardest = DATA["plans"][identifier]["hardest"]
        distances = [d for _, d in hardest]
        assert len(hardest) == witnesses.HARDEST and distances == sorted(distances)
        assert distances[0] <= HARD_TO_ROUND_ULPS
        plan = witnesses.unary_plan(identifier)
        for bits, _ in hardest[:3]:
            x = binary32.from_bits(int(bits, 16))
            vector = V.certified(plan.operation, np.array([x], np.float32))[0]
            assert expected(plan.operation, _tensor(x)).result.values[0] == float(vector)


def test_witness_calls_hit_every_applicable_class_of_every_plan():
    for plan in resolvable_plans():
        hit: set[ResultClass] = set()
        for call in witnesses.witness_calls(plan):
            assert call.resolve() == plan
            hit |= result_classes_hit(call)
        assert applicable_result_classes(plan) <= hit, plan.describe()


def test_the_mutant_operation_lists_match_the_witness_data():
    def reaching(cls: ResultClass) -> set[str]:
        return {op for op in V.ROUNDED_OPS if cls.name in DATA["plans"][f"{op}:Float32"]["reached"]}

    assert set(result_mutants.FLUSH_TO_ZERO_OPERATIONS) == reaching(R.SUBNORMAL)
    assert set(result_mutants.OVERFLOW_OPERATIONS) == reaching(R.OVERFLOW_EDGE_INF)


def test_result_mutants_merge_into_the_catalogue_and_resolve_as_backends():
    from conformance.mutants import MUTANTS

    assert set(result_mutants.RESULT_MUTANTS) <= set(MUTANTS)
    for name, mutant in result_mutants.RESULT_MUTANTS.items():
        assert MUTANTS[name] is mutant
        for module in ("conformance.mutants.result", "conformance.mutants"):
            backend = backends.get(f"{module}:{name}")
            assert backend.mutant is mutant and backend.name == f"mutant:{name}"


def _plans_of(operations) -> list:
    return [p for p in resolvable_plans() if p.operation in operations]


@pytest.mark.parametrize("name", sorted(result_mutants.RESULT_MUTANTS))
def test_every_result_mutant_is_killed_by_the_witness_calls(name):
    """On every plan of its operation to which the result class it breaks applies."""
    mutant = result_mutants.RESULT_MUTANTS[name]
    target = result_mutants.TARGETS[name]
    backend = result_mutants.result_mutant_backend(name)
    plans = [p for p in _plans_of(mutant.operations) if target in applicable_result_classes(p)]
    assert plans, f"{name}: no plan of {mutant.operations} reaches {target.name}"
    for plan in plans:
        calls = witnesses.witness_calls(plan)
        assert any(not run_call(backend, call).ok for call in calls), (
            f"{name} survives the witness calls of {plan.describe()}"
        )


@pytest.mark.parametrize("backend_name", ["cpu", "generic"])
def test_conforming_backends_pass_every_witness_call(backend_name):
    backend = backends.get(backend_name)
    for plan in resolvable_plans():
        for call in witnesses.witness_calls(plan):
            outcome = run_call(backend, call)
            assert outcome.ok, str(outcome.verdict)


def test_command_line_usage_errors_exit_2(capsys):
    """(``--write --plan P`` merges one record: tests/test_witnesses_merge.py.)"""
    with pytest.raises(SystemExit) as exit_info:
        witnesses.main(["--plan", "nope:Float32"])
    assert exit_info.value.code == 2
    assert witnesses.main(["--check", "--plan", "relu:Int32"]) == 0
    assert "up to date" in capsys.readouterr().out
