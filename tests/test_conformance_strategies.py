"""conformance.generate.strategies and conformance.model.calls: generated calls select their
plan."""

from __future__ import annotations

import math
import sys
import types
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oracle
from conformance.classes.applicability import applicable_classes
from conformance.classes.boundary import Boundary, Group
from conformance.generate.families import classes_hit, classes_of_calls
from conformance.generate.primitives import accumulator_choices, weak_scalars
from conformance.generate.signalling_nans import signalling_nan_examples
from conformance.generate.strategies import boundary_examples, calls, invalid_calls
from conformance.model import calls as calls_module
from conformance.model.calls import SIGNATURES, Call, Family, family_of, literal, repro_namespace
from oracle import (
    DType,
    OperandRole,
    Tensor,
    get_operation,
    registered_operations,
    resolvable_plans,
    resolve_operation_plan,
)

F32, I32 = DType.Float32, DType.Int32
MAX_FINITE = oracle.binary32.MAX_FINITE
PLANS = resolvable_plans()
IDS = [plan.describe() for plan in PLANS]
_FEW = settings(
    max_examples=5,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def _reresolved(call: Call) -> oracle.OperationPlan:
    """The plan re-resolved from the call's own forward arguments."""
    spec = get_operation(call.operation)
    operands = [a.dtype if isinstance(a, Tensor) else a for a in spec.policy_operands(call.args)]
    return resolve_operation_plan(
        call.operation, *operands, accumulator_dtype=call.accumulator_dtype
    )


# -- the family table ----------------------------------------------------------


def test_every_registered_operation_has_a_call_shape():
    for spec in registered_operations():
        family = family_of(spec.name)
        if spec.name not in SIGNATURES:
            assert family is Family.ELEMENTWISE
            assert spec.dtype_operand_positions is None
        parameters = calls_module.parameters_of(spec.name)
        for overload in spec.overloads:
            total = len(overload.roles) + len(parameters)
            positions = spec.dtype_operand_positions or range(len(overload.roles))
            assert max(positions, default=-1) < total


def test_forward_arguments_place_operands_by_dtype_positions():
    x, i = Tensor(F32, (2,), (1.0, 2.0)), Tensor(I32, (1,), (0,))
    assert calls_module.forward_arguments("gather", [x, i], {"axis": 0}) == (x, i, 0)
    assert calls_module.forward_arguments("_topk_values", [x], {"k": 1}) == (x, 1)
    args = calls_module.forward_arguments("reduce_sum", [x], {"keepdims": True})
    assert args == (x, None, True)
    assert calls_module.split_arguments("reduce_sum", (x,)) == (
        (x,),
        {"axis": None, "keepdims": False},
    )


# -- strategies select exactly their plan ---------------------------------------


@pytest.mark.parametrize("plan", PLANS, ids=IDS)
def test_calls_reresolve_to_their_plan(plan):
    @_FEW
    @given(calls(plan))
    def check(call):
        assert call.plan == plan
        assert not call.raises
        assert _reresolved(call) == plan
        assert call.resolve() == plan

    check()


@pytest.mark.parametrize("plan", PLANS, ids=IDS)
def test_invalid_calls_keep_the_plan_and_name_one_fault(plan):
    strategy = invalid_calls(plan)
    if strategy.is_empty:
        facts = [o for o in plan.operands if o.role is OperandRole.TENSOR]
        assert family_of(plan.operation) is Family.ELEMENTWISE and len(facts) == 1
        assert Boundary.INT32_RESULT_OVERFLOW not in applicable_classes(plan)
        return

    @settings(max_examples=3, suppress_health_check=[HealthCheck.too_slow])
    @given(strategy)
    def check(call):
        assert _reresolved(call) == plan
        assert call.raises
        errors = {c for c in classes_hit(call) if c.group is Group.ERROR}
        errors |= classes_hit(call) & {Boundary.INT32_RESULT_OVERFLOW}
        assert errors, call

    check()


@pytest.mark.parametrize("plan", PLANS, ids=IDS)
def test_boundary_examples_hit_every_applicable_class(plan):
    """The boundary check's calls (boundary examples and their signalling-NaN twins,
    which alone hit the LANES_SIGNALLING classes) hit every applicable class."""
    examples = boundary_examples(plan)
    for call in examples:
        assert _reresolved(call) == plan, call
    judged = [*examples, *signalling_nan_examples(plan)]
    missing = applicable_classes(plan) - classes_of_calls(judged)
    assert not missing, sorted(c.name for c in missing)
    signalling = {Boundary.LANES_SIGNALLING_NAN_MAIN, Boundary.LANES_SIGNALLING_NAN_TAIL}
    assert not signalling & classes_of_calls(examples)  # a repro line cannot carry them
    assert boundary_examples(plan) == examples  # deterministic


def test_boundary_examples_are_valid_exactly_when_they_declare_no_error():
    """Cross-check against the oracle: a call with ``raises`` fails as declared."""
    for plan in PLANS:
        for call in boundary_examples(plan):
            error = oracle.expected(call.operation, *call.args, **call.kwargs()).error
            if call.raises:
                assert isinstance(error, call.raises), (call, error)
            elif error is not None:
                assert isinstance(error, OverflowError), (call, error)
                assert Boundary.INT32_RESULT_OVERFLOW in classes_hit(call), call


# -- weak scalars and accumulators are derived by resolution -------------------


def _plan(operation, *operands, **kw):
    return resolve_operation_plan(operation, *operands, **kw)


def _weak_classes(plan):
    return {c.name for c in applicable_classes(plan) if c.group is Group.WEAK}


def test_weak_classes_follow_the_planner():
    pow_int = _plan("pow", I32, 3)
    assert _weak_classes(pow_int) == {
        "WEAK_NONNEGATIVE_INT",
        "WEAK_INT32_MAX",
        "WEAK_NUMPY_SCALAR",
    }
    pow_float = _plan("pow", I32, -1)
    assert {
        "WEAK_NEGATIVE_INT",
        "WEAK_BOOL",
        "WEAK_FLOAT",
        "WEAK_FRACTION",
        "WEAK_TWO_POW_31",
        "WEAK_INT32_MIN",
        "WEAK_BELOW_INT32_MIN",
    } <= _weak_classes(pow_float)
    assert "WEAK_NONNEGATIVE_INT" not in _weak_classes(pow_float)
    mul_int = _plan("mul", I32, 3)
    assert "WEAK_TWO_POW_31" not in _weak_classes(mul_int)  # OverflowError, not a plan
    assert {"WEAK_INT32_MIN", "WEAK_NEGATIVE_INT"} <= _weak_classes(mul_int)
    mul_float = _plan("mul", F32, 3)
    assert {
        "WEAK_TWO_POW_31",
        "WEAK_BELOW_INT32_MIN",
        "WEAK_INT32_MAX",
        "WEAK_CONVERSION_TIE",
        "WEAK_ROUNDS_TO_INF",
    } <= _weak_classes(mul_float)


@_FEW
@given(st.data())
def test_weak_scalars_select_the_plan(data):
    pow_int = _plan("pow", I32, 3)
    value = data.draw(weak_scalars(pow_int, 1))
    assert isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    assert 0 <= int(value) <= 2**31 - 1
    pow_float = _plan("pow", I32, 0.5)
    value = data.draw(weak_scalars(pow_float, 1))
    assert _plan("pow", I32, value) == pow_float


def test_accumulator_choices():
    default = _plan("reduce_sum", F32)
    wide = _plan("reduce_sum", F32, accumulator_dtype=DType.Float64)
    assert accumulator_choices(default) == (None, F32)
    assert accumulator_choices(wide) == (DType.Float64,)
    assert accumulator_choices(_plan("reduce_sum", I32)) == (None,)
    assert accumulator_choices(_plan("add", F32, F32)) == (None,)


# -- Call: identity and reproduction -----------------------------------------------


def test_call_equality_is_exact():
    plan = _plan("add", F32, F32)
    nan_a = oracle.binary32.from_bits(0x7FC00001)
    nan_b = oracle.binary32.from_bits(0x7FC00002)
    a = Call("add", (Tensor(F32, (1,), (nan_a,)), Tensor(F32, (), (-0.0,))), None, plan)
    same = Call("add", (Tensor(F32, (1,), (nan_a,)), Tensor(F32, (), (-0.0,))), None, plan)
    other_nan = Call("add", (Tensor(F32, (1,), (nan_b,)), Tensor(F32, (), (-0.0,))), None, plan)
    other_zero = Call("add", (Tensor(F32, (1,), (nan_a,)), Tensor(F32, (), (0.0,))), None, plan)
    assert a == same and hash(a) == hash(same)
    assert a != other_nan and a != other_zero
    weak = _plan("mul", F32, 2)
    assert Call("mul", (Tensor(F32, (), (1.0,)), 2), None, weak) != Call(
        "mul", (Tensor(F32, (), (1.0,)), 2.0), None, _plan("mul", F32, 2.0)
    )
    assert "mul(" in repr(Call("mul", (Tensor(F32, (), (1.0,)), 2), None, weak))


def test_literals_are_exact():
    namespace = repro_namespace()
    values = [
        Tensor(F32, (3,), (MAX_FINITE, -0.0, oracle.binary32.from_bits(0xFFC00123))),
        Tensor(I32, (2, 1), (-(2**31), 7)),
        Tensor(DType.Bool, (), (True,)),
        0.1, -0.0, math.inf, 2**200, True, Fraction(-1, 3),
        np.float32(1.5), np.float64(0.1), np.int64(-3), np.bool_(False),
        None, (0, -1), ((1, 2), (0, 0)), DType.Float64,
    ]  # fmt: skip
    for value in values:
        back = eval(literal(value), namespace)
        assert calls_module._value_key(back) == calls_module._value_key(value), literal(value)
    assert "from_bits(0xffc00123)" in literal(values[0])
    assert "float.fromhex('0x1.fffffe" in literal(values[0])


def test_repro_expressions_rebuild_equivalent_calls():
    namespace = repro_namespace()

    def rebuild(operation, *args, accumulator_dtype=None):
        return operation, args, accumulator_dtype

    namespace["rebuild"] = rebuild
    for plan in PLANS:
        for call in boundary_examples(plan):
            operation, args, accumulator = eval(call.expression("rebuild"), namespace)
            again = Call(operation, args, accumulator, call.plan, call.raises, call.note)
            assert again == call


def test_repro_line_is_one_pasteable_statement(monkeypatch):
    seen = []
    probe = types.ModuleType("plancheck_repro_probe")
    probe.record = lambda operation, *args, **kwargs: seen.append((operation, args, kwargs))
    monkeypatch.setitem(sys.modules, "plancheck_repro_probe", probe)
    plan = _plan("reduce_sum", F32, accumulator_dtype=DType.Float64)
    call = next(c for c in boundary_examples(plan) if c.accumulator_dtype is not None)
    line = call.repro("plancheck_repro_probe:record")
    assert "\n" not in line
    exec(line, {})
    operation, args, kwargs = seen[0]
    assert Call(operation, args, kwargs["accumulator_dtype"], plan) == Call(
        call.operation, call.args, call.accumulator_dtype, plan
    )
    # the default target is the oracle itself
    namespace: dict = {}
    exec(call.repro(), namespace)


def test_call_shapes_are_the_operation_tables_facts():
    """No per-operation list in conformance.model.calls: the rows give family and parameters."""
    import conformance.model.calls as calls_module
    from conformance.generate.families import MODULES, module_of

    assert calls_module.Family is oracle.Family
    assert calls_module.FAMILY_PARAMETERS is oracle.FAMILY_PARAMETERS
    for spec in registered_operations():
        facts = oracle.operation_facts(spec.name)
        assert family_of(spec.name) is facts.family
        assert (spec.name in SIGNATURES) is (facts.family is not Family.ELEMENTWISE)
        assert module_of(facts.family) in MODULES  # every family has its module
