"""Every scenario of the operation dtype policy specification, one test each."""

import pytest

from oracle import (
    Accumulation,
    Arithmetic,
    DType,
    OperandRole,
    operation_execution_options,
    resolvable_plans,
    resolve_operation_plan,
)

F32, I32 = DType.Float32, DType.Int32


def test_inspect_a_mixed_add_plan():
    plan = resolve_operation_plan("add", I32, F32)
    assert [o.convert_to for o in plan.operands] == [F32, F32]
    assert [o.dtype for o in plan.operands] == [I32, F32]
    assert plan.compute is Arithmetic.BINARY32
    assert plan.accumulation is None and plan.accumulator_dtype is None
    assert plan.output is F32
    with pytest.raises(AttributeError):
        plan.output = I32  # type: ignore[misc]
    assert hash(plan) == hash(resolve_operation_plan("add", I32, F32))


def test_distinguish_exact_reduction_accumulation():
    plan = resolve_operation_plan("reduce_sum", I32)
    assert plan.accumulation is Accumulation.EXACT_INTEGER
    assert plan.output is I32 and plan.accumulator_dtype is None


@pytest.mark.parametrize("operation", ["mul", "pow"])
def test_select_tensor_and_scalar_overloads_separately(operation):
    tensor_tensor = resolve_operation_plan(operation, I32, I32)
    tensor_weak = resolve_operation_plan(operation, I32, 3)
    assert tensor_tensor.roles == (OperandRole.TENSOR, OperandRole.TENSOR)
    assert tensor_weak.roles == (OperandRole.TENSOR, OperandRole.WEAK_SCALAR)
    assert tensor_weak.operands[1].dtype is None


def test_reject_an_unknown_operation():
    with pytest.raises(NotImplementedError, match="not registered"):
        resolve_operation_plan("no_such_operation", F32)


def test_treat_bool_as_a_weak_floating_scalar():
    plan = resolve_operation_plan("mul", I32, True)
    assert plan.output is F32
    assert plan.operands[1].convert_to is F32


@pytest.mark.parametrize("value", [2**31, -(2**31) - 1, 10**30])
def test_reject_an_out_of_range_integer_scalar_on_an_integer_path(value):
    with pytest.raises(OverflowError, match="outside"):
        resolve_operation_plan("mul", I32, value)
    # The same value may select a floating plan without the range failure.
    assert resolve_operation_plan("mul", F32, value).output is F32


@pytest.mark.parametrize("exponent", [0, 2**24 + 1, 2**31 - 1])
def test_preserve_an_integer_exponent_exactly(exponent):
    plan = resolve_operation_plan("pow", I32, exponent)
    assert plan.output is I32
    assert plan.compute is Arithmetic.INT32_EXACT_CHECKED
    assert plan.operands[1].convert_to is I32


@pytest.mark.parametrize("exponent", [-1, 2**31, 0.5, True])
def test_other_exponents_select_float32(exponent):
    assert resolve_operation_plan("pow", I32, exponent).output is F32


def test_plan_integer_division_as_floating():
    plan = resolve_operation_plan("div", I32, I32)
    assert [o.convert_to for o in plan.operands] == [F32, F32]
    assert plan.output is F32


def test_plan_a_masked_selection():
    plan = resolve_operation_plan("select", DType.Bool, F32, F32)
    assert plan.compute is Arithmetic.BINARY32
    assert plan.accumulation is None
    assert plan.output is F32
    assert plan.operands[0].convert_to is DType.Bool


@pytest.mark.parametrize(
    ("operation", "operands"),
    [
        ("select", (F32, F32, F32)),
        ("select", (DType.Bool, I32, F32)),
        ("clamp", (I32, F32, F32)),
        ("gather", (F32, F32)),
        ("scatter", (I32, I32, F32)),
        ("exp2", (I32,)),
        ("add", (DType.Bool, F32)),
    ],
)
def test_refuse_a_wrong_structured_operand_dtype(operation, operands):
    with pytest.raises(TypeError, match="outside this overload's domain"):
        resolve_operation_plan(operation, *operands)


def test_widen_a_float32_reduction_accumulator():
    base = resolve_operation_plan("reduce_sum", F32)
    options = operation_execution_options("reduce_sum", accumulator_dtype=DType.Float64)
    wide = resolve_operation_plan("reduce_sum", F32, options=options)
    assert wide.accumulator_dtype is DType.Float64
    assert base.accumulator_dtype is F32
    assert (wide.operands, wide.compute, wide.output) == (base.operands, base.compute, base.output)


def test_enumerate_policy_coverage():
    plans = resolvable_plans()
    for operation in ("reduce_sum", "matmul"):
        accumulators = {
            p.accumulator_dtype for p in plans if p.operation == operation and p.output is F32
        }
        assert accumulators == {F32, DType.Float64}
    assert {p.operation for p in plans} >= {"mul", "pow", "select", "clamp"}


@pytest.mark.parametrize("category", [DType.Any, DType.Floating, DType.Integer])
def test_refuse_an_abstract_category_uniformly(category):
    with pytest.raises(TypeError, match="abstract category"):
        resolve_operation_plan("add", category, F32)


def test_refuse_an_unimplemented_simple_encoding():
    for narrow in (DType.Int8, DType.Float16, DType.BFloat16, DType.E4M3, DType.E2M1):
        with pytest.raises(NotImplementedError, match="never widened"):
            resolve_operation_plan("add", narrow, F32)


def test_refuse_compound_planning_separately():
    with pytest.raises(NotImplementedError, match="representation-aware"):
        resolve_operation_plan("exp", DType.MXFP4)


@pytest.mark.parametrize("category", [DType.Any, DType.Floating])
def test_reject_generic_category_operands_through_central_planning(category):
    import backends
    from backends.generic import GenericTensor

    generic = backends.get("generic")
    operand = GenericTensor(category, (2,), (1.0, 2.0))
    before = generic.allocations
    with pytest.raises(TypeError, match="abstract category"):
        generic.execute("add", operand, generic.from_tensor(_f32(1.0, 2.0)))
    assert generic.allocations == before


def test_compare_reference_and_cpu_results():
    import backends
    from conformance.judge.runner import agree
    from oracle import Tensor, expected

    generic, cpu = backends.get("generic"), backends.get("cpu")
    x = Tensor.from_nested([[1.5, -0.0], [2.0**-149, 2.0**127]], F32)
    y = Tensor.from_nested([2, -7], I32)
    results = [
        b.to_tensor(b.execute("add", b.from_tensor(x), b.from_tensor(y))) for b in (generic, cpu)
    ]
    expectation = expected("add", x, y)
    for result in results:
        assert result.dtype is expectation.plan.output
        assert expectation.check(result).ok
    assert agree(results[0], results[1], nan_bits=False)


def _f32(*values):
    from oracle import Tensor

    return Tensor(F32, (len(values),), values)
