"""Operation signatures as data (issue 31 item 1), checked so they cannot drift.

The signature tables (:mod:`conformance.model.signatures`) are checked against the
registry (operations, operand counts, weak positions, tensor dtypes), against the
families' parameter facts, against every valid call the suite's families build
(each argument where the signature puts it, of the form it says it accepts), and
against the copy in docs/new-backend.md (regenerated and compared).
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from conformance.cli import main as plancheck_main
from conformance.generate.families import module_of
from conformance.generate.strategies import boundary_examples
from conformance.model.calls import family_of
from conformance.model.signatures import (
    ACCEPTS,
    OPERAND_MEANINGS,
    OPERAND_NAMES,
    PARAMETER_MEANINGS,
    markdown_table,
    signature_of,
    signatures,
)
from oracle import OperandRole, Tensor, get_operation, registered_operations, resolvable_plans
from oracle.facts import FAMILY_PARAMETERS, ParameterKind

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "new-backend.md"
#: what WEAK_VALUES says a weak scalar may be
WEAK_TYPES = (int, float, bool, Fraction, np.generic)
BEGIN, END = "<!-- signatures: begin -->", "<!-- signatures: end -->"


def _int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _ints(value, least: int) -> bool:
    return isinstance(value, (tuple, list)) and all(_int(v) and v >= least for v in value)


def _form_ok(kind: str, value, call) -> bool:
    """Whether *value* has the form ACCEPTS says for a parameter of *kind* in *call*
    (written here independently of the module under test)."""
    operands = call.operands
    if kind == ParameterKind.AXES.value:
        return value is None or _int(value) or (
            isinstance(value, tuple) and all(_int(v) for v in value)
            and len(set(value)) == len(value)
        )  # fmt: skip
    if kind == ParameterKind.OPTIONAL_AXIS.value:
        return value is None or _int(value)
    if kind == ParameterKind.AXIS.value:
        return _int(value)
    if kind == ParameterKind.FLAG.value:
        return isinstance(value, bool)
    if kind == ParameterKind.COUNT.value:
        x, axis = operands[0], call.parameters["axis"]
        return _int(value) and 0 <= value <= (x.shape[axis] if x.shape else 1)
    spatial = len(operands[0].shape) - 2
    if kind == ParameterKind.PER_SPATIAL.value:
        return _ints(value, 1) and len(value) == spatial
    if kind == ParameterKind.PADDING.value:
        return isinstance(value, (tuple, list)) and len(value) == spatial and all(
            isinstance(p, (tuple, list)) and len(p) == 2 and all(_int(v) for v in p)
            for p in value
        )  # fmt: skip
    if kind == ParameterKind.GROUPS.value:
        lhs, rhs = operands
        return _int(value) and value >= 1 and lhs.shape[1] % value == rhs.shape[0] % value == 0
    raise AssertionError(f"no form check for parameter kind {kind}")


def test_every_operation_has_a_signature_and_every_table_row_is_used():
    names = {spec.name for spec in registered_operations()}
    assert [s.operation for s in signatures()] == sorted(names)
    assert set(OPERAND_NAMES) == names
    assert {(op, n) for op, n in OPERAND_MEANINGS} <= {
        (op, n) for op, ns in OPERAND_NAMES.items() for n in ns
    }
    assert set(PARAMETER_MEANINGS) == {
        (family, p.name) for family, ps in FAMILY_PARAMETERS.items() for p in ps
    }
    assert set(ACCEPTS) == set(ParameterKind)


@pytest.mark.parametrize("operation", sorted(s.name for s in registered_operations()))
def test_operands_and_weak_positions_are_the_registrys(operation):
    sig, spec = signature_of(operation), get_operation(operation)
    operands = [a for a in sig.arguments if a.kind.startswith("tensor")]
    assert all(len(o.roles) == len(operands) for o in spec.overloads)
    positions = spec.dtype_operand_positions or tuple(range(len(operands)))
    assert [a.position for a in operands] == list(positions)
    weak = {i for o in spec.overloads for i, r in enumerate(o.roles)
            if r is OperandRole.WEAK_SCALAR}  # fmt: skip
    assert {i for i, a in enumerate(operands) if a.kind == "tensor or weak scalar"} == weak
    plans = [p for p in resolvable_plans() if p.operation == operation]
    for index in range(len(operands)):
        expected = tuple(p.describe() for p in plans
                         if p.operands[index].role is OperandRole.WEAK_SCALAR)  # fmt: skip
        assert sig.weak_plans.get(index, ()) == expected
        dtypes = {p.operands[index].dtype.name for p in plans if p.operands[index].dtype}
        listed = re.match(r"a tensor of ([\w ]+?)(,|$)", operands[index].accepts).group(1)
        assert set(listed.split(" or ")) == dtypes
    parameters = [a for a in sig.arguments if not a.kind.startswith("tensor")]
    assert [(a.name, a.kind, a.default, a.required) for a in parameters] == [
        (p.name, p.kind.value, p.default, p.required)
        for p in FAMILY_PARAMETERS[next(f for f in FAMILY_PARAMETERS if f.value == sig.family)]
    ]


def test_pow_takes_a_weak_base_first():
    sig = signature_of("pow")
    assert sig.call() == "pow(base, exponent)"
    assert "pow(weak->Float32, Float32) binary32 -> Float32" in sig.weak_plans[0]
    assert "pow(Int32, weak->Int32) int32_exact_checked -> Int32" in sig.weak_plans[1]
    conv = signature_of("conv_general")
    assert [a.name for a in conv.arguments] == [
        "lhs", "rhs", "window_strides", "padding", "lhs_dilation", "rhs_dilation",
        "feature_group_count",
    ]  # fmt: skip
    assert signature_of("reduce_sum").call() == (
        "reduce_sum(x, axis=None, keepdims=False, accumulator_dtype=None)"
    )


def test_every_valid_call_the_families_build_fits_its_signature():
    checked = 0
    for plan in resolvable_plans():
        sig = signature_of(plan.operation)
        for call in boundary_examples(plan):
            if call.raises:  # a deliberately malformed call
                continue
            assert len(call.args) <= len(sig.arguments), call.repro()
            assert len(call.args) >= sum(a.required for a in sig.arguments), call.repro()
            for argument, value in zip(sig.arguments, call.args):
                if argument.kind == "tensor":
                    assert isinstance(value, Tensor), (argument, call.repro())
                    assert value.dtype.name in argument.accepts
                elif argument.kind == "tensor or weak scalar":
                    assert isinstance(value, (Tensor, *WEAK_TYPES)), (argument, call.repro())
                else:
                    assert _form_ok(argument.kind, value, call), (argument.name, call.repro())
                checked += 1
    assert checked > 5000


@pytest.mark.parametrize("operation", sorted(s.name for s in registered_operations()))
def test_generated_calls_omit_only_trailing_optional_parameters(operation):
    """The hypothesis strategies of the families may leave trailing optional parameters
    out; what they pass still sits where the signature says."""
    sig = signature_of(operation)
    plan = next(p for p in resolvable_plans() if p.operation == operation)
    required = sum(a.required for a in sig.arguments)

    @settings(max_examples=8, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(module_of(family_of(operation)).valid_calls(plan))
    def check(call):
        assert required <= len(call.args) <= len(sig.arguments), call.repro()
        for argument, value in zip(sig.arguments, call.args):
            if not argument.kind.startswith("tensor"):
                assert _form_ok(argument.kind, value, call), (argument.name, call.repro())

    check()


def test_the_guide_carries_the_generated_table():
    text = GUIDE.read_text(encoding="utf-8")
    assert text.count(BEGIN) == text.count(END) == 1
    carried = text.split(BEGIN)[1].split(END)[0].strip("\n") + "\n"
    assert carried == markdown_table(), (
        "docs/new-backend.md's signature table is stale: regenerate it with "
        "`plancheck plans --signatures --markdown`"
    )


def test_the_command_prints_signatures_as_text_json_and_markdown(capsys):
    assert plancheck_main(["plans", "--signatures", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert records == [s.as_dict() for s in signatures()]
    pow_record = next(r for r in records if r["operation"] == "pow")
    assert pow_record["weak_positions"]["0"][0].startswith("pow(weak->Float32, Float32)")
    assert plancheck_main(["plans", "--signatures", "--op", "gather"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("gather(data, indices, axis)\n") and "numpy.take" in text
    assert plancheck_main(["plans", "--signatures", "--markdown"]) == 0
    assert capsys.readouterr().out == markdown_table()
    assert plancheck_main(["plans", "--markdown"]) == 2
    assert "add --signatures" in capsys.readouterr().err
    assert plancheck_main(["plans", "--signatures", "--table"]) == 2
