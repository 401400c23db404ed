"""The operation table carries the facts, and every derived list follows it (issue 12, item 1).

Each test checks a derived list against ``registered_operations()`` and an
independent statement of the fact (the planner's own answer, or the
reference semantics' text), so a new table row that lacks a rule anywhere --
or a hand edit of a derived list -- fails here, naming it.
"""

from __future__ import annotations

import inspect

import pytest

from oracle import (
    ACCUMULATOR_CONFIGURABLE_OPERATIONS,
    FAMILY_PARAMETERS,
    Conformance,
    DType,
    Family,
    OperandRole,
    OperationFacts,
    OperationSpec,
    evaluate,
    operation_facts,
    registered_operations,
    resolve_operation_plan,
    vectorised,
)
from oracle.operations import BUILTIN_FACTS
from oracle.reference import accumulate, exact, rounded, structured

F32, I32, F64 = DType.Float32, DType.Int32, DType.Float64
NAMES = [spec.name for spec in registered_operations()]

# reference-semantics.md, "Conformance classes" and "NaN"
CORRECTLY_ROUNDED = set(
    "exp exp2 log log2 sin cos tanh erf sigmoid silu softplus gelu elu rsqrt pow".split()
)
BOUNDED = {"reduce_sum", "matmul"}
NAN_BIT_COPIES = set(
    "neg abs gather scatter select _sort_values _topk_values reduce_max reduce_min".split()
)


def test_every_registered_operation_has_facts_and_nothing_else_does() -> None:
    assert sorted(BUILTIN_FACTS) == NAMES
    for name in NAMES:
        facts = operation_facts(name)
        assert isinstance(facts, OperationFacts) and facts.name == name
        assert facts.semantics and facts.parameters == FAMILY_PARAMETERS[facts.family]
    with pytest.raises(NotImplementedError):
        operation_facts("no_such_operation")


def test_conformance_classes_and_bit_copies_are_the_reference_semantics() -> None:
    classes = {name: operation_facts(name).conformance for name in NAMES}
    assert {n for n, c in classes.items() if c is Conformance.CORRECTLY_ROUNDED} == (
        CORRECTLY_ROUNDED
    )
    assert {n for n, c in classes.items() if c is Conformance.BOUNDED} == BOUNDED
    assert {n for n in NAMES if operation_facts(n).nan_bit_copy} == NAN_BIT_COPIES


@pytest.mark.parametrize("spec", registered_operations(), ids=lambda spec: spec.name)
def test_the_family_fixes_the_forward_arguments(spec: OperationSpec) -> None:
    facts = operation_facts(spec.name)
    if not facts.parameters:  # elementwise, matmul: every argument is a dtype operand
        assert spec.dtype_operand_positions is None
        return
    positions = spec.dtype_operand_positions
    assert positions is not None
    assert positions == tuple(range(len(positions)))  # operands first, then parameters
    rule = evaluate.REFERENCES[spec.name].tensor_rule
    parameters = list(inspect.signature(rule).parameters)[1 + len(positions) :]
    assert parameters == [p.name for p in facts.parameters]


def test_accumulator_configurable_operations_are_those_the_planner_widens() -> None:
    widened = set()
    for spec in registered_operations():
        operands = [F32 for _ in spec.overloads[0].roles]
        try:
            resolve_operation_plan(spec.name, *operands, accumulator_dtype=F64)
        except TypeError:
            continue
        widened.add(spec.name)
    assert set(ACCUMULATOR_CONFIGURABLE_OPERATIONS) == widened == {"matmul", "reduce_sum"}


def test_every_operation_has_its_reference_rule() -> None:
    assert sorted(evaluate.REFERENCES) == NAMES
    modules = {accumulate, structured} | {exact, rounded}
    for name in NAMES:
        reference = evaluate.REFERENCES[name]
        rules = [r for r in (reference.float_rule, reference.int_rule, reference.tensor_rule) if r]
        assert rules, name
        assert all(inspect.getmodule(r) in modules | {evaluate.integer} for r in rules), name
        assert reference.nan_bits == operation_facts(name).nan_bit_copy
        assert reference.rounded == (
            operation_facts(name).conformance is Conformance.CORRECTLY_ROUNDED
        )


def test_a_row_without_a_rule_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = OperationSpec(name="frobnicate", overloads=registered_operations()[0].overloads[:1])
    monkeypatch.setitem(
        BUILTIN_FACTS,
        "frobnicate",
        OperationFacts("frobnicate", Family.ELEMENTWISE, Conformance.EXACT, "made up"),
    )
    with pytest.raises(ImportError, match="frobnicate"):
        evaluate._reference(spec)


def _unary_float32_operations() -> dict[str, bool]:
    """name -> takes Int32 too, from the planner alone."""
    found = {}
    for spec in registered_operations():
        if [o.roles for o in spec.overloads] != [(OperandRole.TENSOR,)]:
            continue
        if operation_facts(spec.name).family is not Family.ELEMENTWISE:
            continue
        try:
            resolve_operation_plan(spec.name, I32)
            found[spec.name] = True
        except TypeError:
            found[spec.name] = False
    return found


def test_vectorised_lists_cover_every_unary_operation() -> None:
    unary = _unary_float32_operations()
    assert set(vectorised.OPS) == set(unary)
    assert len(vectorised.OPS) == len(set(vectorised.OPS))
    assert set(vectorised.ACTIVATIONS) == {name for name, int32 in unary.items() if int32}
    assert set(vectorised.ROUNDED_OPS) == set(unary) & CORRECTLY_ROUNDED
    for op in vectorised.ROUNDED_OPS:
        assert op in rounded.UNARY  # the scalar rule the hard cases go to
    for op in vectorised.EXACT_OPS:
        assert callable(getattr(exact, op))
