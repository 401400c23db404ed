"""Property tests of the central planner, its plan records and plan enumeration.

Resolution of *anything* -- any operation name, any operand tuple, any
accumulator request -- either returns a plan that agrees with the registered
overload or raises exactly one of the four policy exceptions, and it always
answers the same way for the same inputs.
"""

from __future__ import annotations

import dataclasses
import numbers
import os
import subprocess
import sys
import uuid

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle import (
    ACCUMULATOR_CONFIGURABLE_OPERATIONS,
    SUPPORTED_ACCUMULATOR_DTYPES,
    SUPPORTED_TENSOR_DTYPES,
    WEAK_SCALAR_PROBES,
    Accumulation,
    Arithmetic,
    CompoundDType,
    DType,
    DTypeCategory,
    OperandPlan,
    OperandRole,
    OperationExecutionOptions,
    OperationPlan,
    SimpleDType,
    get_operation,
    is_differentiable,
    operation_execution_options,
    plan_accumulator_variants,
    registered_operations,
    resolvable_plans,
    resolve_operation_plan,
)

F32, I32, BOOL, F64 = DType.Float32, DType.Int32, DType.Bool, DType.Float64
T, W = OperandRole.TENSOR, OperandRole.WEAK_SCALAR
ALLOWED = (TypeError, ValueError, NotImplementedError, OverflowError)
IMPLEMENTED = (F32, I32, BOOL)
CONFIGURABLE = ("matmul", "reduce_sum")
NAMES = [spec.name for spec in registered_operations()]

BUILTINS = [
    DType.from_name(name)
    for name in (
        "Any Floating Integer Boolean Float32 Int32 Bool Float64 Int8 Float16 BFloat16 "
        "E4M3 E5M2 E2M1 E8M0 MXFP4 MXFP8 NVFP4"
    ).split()
]
_CATEGORY = DTypeCategory(f"PropCategory_{uuid.uuid4().hex}")
EXTENSIONS = [
    _CATEGORY,
    DTypeCategory(f"PropNested_{uuid.uuid4().hex}", _CATEGORY),
    SimpleDType(f"PropSimple_{uuid.uuid4().hex}", bits=7, category=DType.Integer),
    CompoundDType(f"PropCompound_{uuid.uuid4().hex}", element=I32, scale=F32, block_size=4),
]


class EqualsFloat32:
    def __eq__(self, other):
        return other is F32 or isinstance(other, EqualsFloat32)

    def __hash__(self):
        return hash(F32)

    def __repr__(self):
        return "EqualsFloat32()"


@st.composite
def fresh_dtypes(draw):
    """A newly constructed (and so newly registered) extension descriptor."""
    kind = draw(st.sampled_from(["category", "simple", "compound"]))
    name = f"Fresh_{kind}_{uuid.uuid4().hex}"
    if kind == "category":
        return DTypeCategory(name, draw(st.sampled_from([DType.Any, DType.Floating, _CATEGORY])))
    if kind == "simple":
        category = draw(st.sampled_from([DType.Floating, DType.Integer, DType.Boolean, _CATEGORY]))
        return SimpleDType(name, bits=draw(st.integers(1, 128)), category=category)
    return CompoundDType(name, element=DType.E2M1, scale=DType.E8M0, block_size=32)


implemented_dtypes = st.sampled_from(IMPLEMENTED)
any_dtypes = st.one_of(implemented_dtypes, st.sampled_from(BUILTINS + EXTENSIONS), fresh_dtypes())
int32_edges = st.sampled_from([0, 1, -1, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**63])
weak_reals = st.one_of(
    st.integers(-(2**33), 2**33),
    int32_edges,
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.fractions(),
    st.booleans(),
    st.builds(np.int32, st.integers(-(2**31), 2**31 - 1)),
    st.builds(np.int64, st.integers(-(2**63), 2**63 - 1)),
    st.builds(np.uint64, st.integers(0, 2**64 - 1)),
    st.builds(np.float32, st.floats(width=32)),
    st.sampled_from([np.bool_(True), np.bool_(False), np.float16(0.5), np.int8(-3)]),
)
non_reals = st.one_of(
    st.complex_numbers(allow_nan=False),
    st.decimals(allow_nan=False),
    st.text(max_size=3),
    st.binary(max_size=2),
    st.none(),
    st.builds(object),
    st.just(EqualsFloat32()),
    st.sampled_from([DType, SimpleDType, np.float32, np.dtype("float32"), int, [F32], (F32,)]),
    st.builds(np.complex64, st.floats(width=32, allow_nan=False)),
)
operands = st.one_of(implemented_dtypes, any_dtypes, weak_reals, non_reals)
operation_names = st.one_of(
    st.sampled_from(NAMES),
    st.sampled_from(NAMES),
    st.sampled_from(["", "Add", "add ", "_sort", "reduce-sum", "sort", "topk", "cast"]),
    st.text(max_size=12),
    st.sampled_from([None, 0, b"add", ("add",)]),
)
accumulators = st.one_of(
    st.none(),
    st.sampled_from([F32, F64, DType.Float16, I32, DType.Any, DType.MXFP4, EXTENSIONS[2]]),
    st.sampled_from(["Float64", 64, 1.0, EqualsFloat32()]),
)
options_values = st.one_of(
    st.none(),
    st.builds(
        operation_execution_options,
        st.sampled_from(CONFIGURABLE),
        accumulator_dtype=st.sampled_from([None, F32, F64]),
    ),
    st.sampled_from(["reduce_sum", F64]),
)


@st.composite
def calls(draw):
    """Anything at all: (operation, operands, accumulator_dtype, options)."""
    return (
        draw(operation_names),
        tuple(draw(st.lists(operands, max_size=4))),
        draw(st.one_of(st.none(), accumulators)),
        draw(st.one_of(st.none(), options_values)),
    )


@st.composite
def overload_calls(draw):
    """A registered overload's role shape, filled mostly with implemented dtypes."""
    spec = draw(st.sampled_from(registered_operations()))
    overload = draw(st.sampled_from(spec.overloads))
    domains = overload.tensor_domains or ()
    tensors = iter(domains)
    values = []
    for role in overload.roles:
        domain = next(tensors, IMPLEMENTED)
        if role is W:
            values.append(draw(weak_reals))
        elif draw(st.integers(0, 5)):  # mostly a dtype of the overload's own domain
            values.append(draw(st.sampled_from(domain if domains else (F32, I32))))
        else:
            values.append(draw(any_dtypes))
    accumulator = draw(accumulators) if draw(st.integers(0, 3)) == 0 else None
    options = draw(options_values) if draw(st.integers(0, 3)) == 0 else None
    return spec.name, tuple(values), accumulator, options


def outcome(operation, values, accumulator, options):
    """("plan", plan) or ("error", type, message); any other exception propagates."""
    try:
        plan = resolve_operation_plan(
            operation, *values, accumulator_dtype=accumulator, options=options
        )
    except ALLOWED as error:
        return ("error", type(error), str(error))
    return ("plan", plan)


def check_plan(plan, operation, values, accumulator, options):
    assert isinstance(plan, OperationPlan)
    assert plan.operation == operation and operation in NAMES
    spec = get_operation(operation)
    roles = tuple(T if isinstance(v, DType) else W for v in values)
    assert plan.roles == roles
    assert roles in [overload.roles for overload in spec.overloads]
    assert len(plan.operands) == len(values)
    for position, (operand, value) in enumerate(zip(plan.operands, values)):
        assert isinstance(operand, OperandPlan)
        if operand.role is T:
            assert operand.dtype is value
            # only implemented storage dtypes are planned, Bool only as select's condition
            assert any(value is d for d in IMPLEMENTED)
            if value is BOOL:
                assert (operation, position) == ("select", 0)
        else:
            assert operand.dtype is None
        assert isinstance(operand.convert_to, SimpleDType)
        assert any(operand.convert_to is d for d in IMPLEMENTED)
    assert isinstance(plan.compute, Arithmetic)
    assert plan.accumulation is None or isinstance(plan.accumulation, Accumulation)
    assert isinstance(plan.output, SimpleDType) and any(plan.output is d for d in IMPLEMENTED)
    floating = plan.accumulation is Accumulation.FLOATING
    assert (plan.accumulator_dtype is not None) == floating
    if floating:
        assert any(plan.accumulator_dtype is d for d in SUPPORTED_ACCUMULATOR_DTYPES)
    requested = accumulator if options is None else options.accumulator_dtype
    if requested is not None:
        assert operation in CONFIGURABLE and plan.accumulator_dtype is requested
    again = resolve_operation_plan(
        operation, *values, accumulator_dtype=accumulator, options=options
    )
    assert again == plan and hash(again) == hash(plan)


def check_error(kind, message, operation, values, accumulator, options):
    assert kind in ALLOWED
    registered = isinstance(operation, str) and operation in NAMES
    if not registered:
        assert kind is NotImplementedError
        return
    assert operation in message
    if accumulator is not None and options is not None:
        assert kind is TypeError and "either" in message
        return
    if options is not None and (
        not isinstance(options, OperationExecutionOptions) or options.operation != operation
    ):
        assert kind is (ValueError if isinstance(options, OperationExecutionOptions) else TypeError)
        return
    assert kind is not ValueError
    bad = [p for p, v in enumerate(values) if not isinstance(v, DType) and not _is_real(v)]
    if bad:
        assert kind is TypeError and f"operand {bad[0]} must be a DType" in message
        return
    roles = tuple(T if isinstance(v, DType) else W for v in values)
    if roles not in [o.roles for o in get_operation(operation).overloads]:
        assert kind is TypeError and "no overload accepts" in message
        return
    tensors = [p for p, role in enumerate(roles) if role is T]
    if tensors:
        first = values[tensors[0]]
        if isinstance(first, DTypeCategory):
            assert kind is TypeError and "abstract category" in message
        elif isinstance(first, CompoundDType):
            assert kind is NotImplementedError and "representation-aware" in message
        elif not any(first is d for d in IMPLEMENTED):
            assert kind is NotImplementedError and "never widened" in message


def _is_real(value) -> bool:
    return isinstance(value, numbers.Real)  # numpy.bool_ is not: a TypeError


def check_call(call):
    result = outcome(*call)
    if result[0] == "plan":
        check_plan(result[1], *call)
    else:
        check_error(result[1], result[2], *call)
    return result


# -- resolution of anything ------------------------------------------------------------------


@given(calls())
def test_resolving_anything_gives_a_consistent_plan_or_a_policy_exception(call):
    check_call(call)


@given(overload_calls())
def test_resolving_registered_shapes_gives_a_consistent_plan_or_a_policy_exception(call):
    check_call(call)


@settings(max_examples=40)
@given(overload_calls(), st.lists(st.one_of(calls(), overload_calls()), max_size=3))
def test_resolution_is_deterministic_and_depends_only_on_its_inputs(call, others):
    first = check_call(call)
    for other in others:  # interleaved calls, some registering fresh dtypes
        check_call(other)
    assert outcome(*call) == first


def test_resolution_does_not_depend_on_later_registrations():
    before = [outcome(name, (F32,), None, None) for name in NAMES]
    SimpleDType(f"Late_{uuid.uuid4().hex}", bits=32, category=DType.Floating)
    DTypeCategory(f"LateCategory_{uuid.uuid4().hex}")
    assert [outcome(name, (F32,), None, None) for name in NAMES] == before


# -- plan records ----------------------------------------------------------------------------

ALL_PLANS = resolvable_plans(
    tensor_dtypes=(F32, I32, BOOL), weak_scalars=(*WEAK_SCALAR_PROBES, 0, 2**31 - 1, -(2**31))
)


def test_plans_are_immutable_and_hashable():
    assert len(ALL_PLANS) > 90
    for plan in ALL_PLANS:
        with pytest.raises(dataclasses.FrozenInstanceError):
            plan.output = F64  # type: ignore[misc]
        with pytest.raises(dataclasses.FrozenInstanceError):
            plan.operands[0].convert_to = F64  # type: ignore[misc]
        with pytest.raises(dataclasses.FrozenInstanceError):
            del plan.operation
        assert isinstance(plan.operands, tuple)
        copy = dataclasses.replace(plan)
        assert copy == plan and copy is not plan and hash(copy) == hash(plan)
        assert {plan: 1}[copy] == 1


def test_records_have_exactly_the_specified_fields_and_no_autograd_field():
    assert [f.name for f in dataclasses.fields(OperandPlan)] == ["role", "dtype", "convert_to"]
    assert [f.name for f in dataclasses.fields(OperationPlan)] == [
        "operation",
        "operands",
        "compute",
        "accumulation",
        "accumulator_dtype",
        "output",
    ]
    # autograd eligibility follows from the result dtype: only exact Float32
    for plan in ALL_PLANS:
        assert is_differentiable(plan) is (plan.output is F32)


def test_enum_members_are_the_specified_ones():
    assert [m.name for m in OperandRole] == ["TENSOR", "WEAK_SCALAR"]
    assert [m.name for m in Arithmetic] == ["BINARY32", "INT32_EXACT_CHECKED", "INT32_EXACT"]
    assert {m.name for m in Accumulation} == {
        "FLOATING",
        "SEQUENTIAL_BINARY32",
        "SEQUENTIAL_BINARY32_PRODUCT",
        "MAXIMUM",
        "MINIMUM",
        "ARGMAX",
        "ARGMIN",
        "EXACT_INTEGER",
    }
    assert SUPPORTED_ACCUMULATOR_DTYPES == (F32, F64)
    assert set(ACCUMULATOR_CONFIGURABLE_OPERATIONS) == set(CONFIGURABLE)


def test_enum_values_are_immutable_and_hashable():
    for enum in (OperandRole, Arithmetic, Accumulation):
        for member in enum:
            assert {member: 1}[member] == 1
            with pytest.raises(AttributeError):
                member.value = "changed"  # type: ignore[misc]
            with pytest.raises(AttributeError):
                setattr(enum, member.name, member)


dtype_fields = st.one_of(st.none(), any_dtypes, st.sampled_from(["Float32", 32, EqualsFloat32()]))


@settings(max_examples=50)
@given(
    st.one_of(st.sampled_from(list(OperandRole)), st.sampled_from(["tensor", None])),
    dtype_fields,
    dtype_fields,
)
def test_operand_plan_fields_are_validated(role, dtype, convert_to):
    valid = (
        isinstance(role, OperandRole)
        and (isinstance(dtype, SimpleDType) if role is T else dtype is None)
        and isinstance(convert_to, SimpleDType)
    )
    if valid:
        record = OperandPlan(role, dtype, convert_to)
        assert (record.role, record.dtype, record.convert_to) == (role, dtype, convert_to)
    else:
        with pytest.raises(TypeError):
            OperandPlan(role, dtype, convert_to)


@settings(max_examples=50)
@given(
    st.one_of(st.sampled_from(NAMES), st.none(), st.integers()),
    st.one_of(
        st.just(None),
        st.just([]),
        st.just(()),
        st.lists(st.sampled_from(ALL_PLANS[0].operands), max_size=2).map(tuple),
    ),
    st.sampled_from([*Arithmetic, "binary32"]),
    st.sampled_from([None, *Accumulation, "floating"]),
    dtype_fields,
    dtype_fields,
)
def test_operation_plan_fields_are_validated(
    operation, operand_plans, compute, accumulation, accumulator, output
):
    valid = (
        isinstance(operation, str)
        and isinstance(operand_plans, tuple)
        and isinstance(compute, Arithmetic)
        and (accumulation is None or isinstance(accumulation, Accumulation))
        and (accumulator is None or isinstance(accumulator, SimpleDType))
        and isinstance(output, SimpleDType)
    )
    arguments = (operation, operand_plans, compute, accumulation, accumulator, output)
    if valid:
        assert OperationPlan(*arguments) == OperationPlan(*arguments)
    else:
        with pytest.raises(TypeError):
            OperationPlan(*arguments)


# -- accumulator variants --------------------------------------------------------------------


@pytest.mark.parametrize("accumulator", [None, F32, F64])
def test_plan_accumulator_variants_put_the_base_first(accumulator):
    checked = 0
    for plan in ALL_PLANS:
        if accumulator is not None:
            if plan.accumulation is not Accumulation.FLOATING:
                continue
            plan = dataclasses.replace(plan, accumulator_dtype=accumulator)
        variants = plan_accumulator_variants(plan)
        assert isinstance(variants, tuple) and variants[0] is plan
        configurable = plan.operation in CONFIGURABLE
        if configurable and plan.accumulation is Accumulation.FLOATING:
            checked += 1
            assert len(variants) == 2 == len(set(variants))
            assert {v.accumulator_dtype for v in variants} == set(SUPPORTED_ACCUMULATOR_DTYPES)
            for variant in variants:
                assert (
                    dataclasses.replace(variant, accumulator_dtype=plan.accumulator_dtype) == plan
                )
        else:
            assert variants == (plan,)
    # Float32 reduce_sum and matmul over F32/F32, F32/I32 and I32/F32
    assert checked >= 4


# -- enumeration -----------------------------------------------------------------------------


def _overload_of(plan):
    spec = get_operation(plan.operation)
    return next(o for o in spec.overloads if o.roles == plan.roles)


def test_default_enumeration_covers_every_overload_and_both_accumulators():
    plans = resolvable_plans()
    assert plans == resolvable_plans(SUPPORTED_TENSOR_DTYPES, WEAK_SCALAR_PROBES)
    assert SUPPORTED_TENSOR_DTYPES == (F32, I32)
    assert len(set(plans)) == len(plans)
    shapes = {(p.operation, p.roles) for p in plans}
    registered = {(s.name, o.roles) for s in registered_operations() for o in s.overloads}
    assert shapes == registered
    for operation, sources in (
        ("reduce_sum", (F32,)),
        ("matmul", (F32, F32)),
        ("matmul", (F32, I32)),
        ("matmul", (I32, F32)),
    ):
        accumulators = [
            p.accumulator_dtype
            for p in plans
            if p.operation == operation and tuple(o.dtype for o in p.operands) == sources
        ]
        assert sorted(a.name for a in accumulators) == ["Float32", "Float64"]
    order = [NAMES.index(p.operation) for p in plans]
    assert order == sorted(order)


def test_enumeration_with_float32_tensors_only():
    plans = resolvable_plans(tensor_dtypes=(F32,))
    for plan in plans:
        if _overload_of(plan).tensor_domains is None:
            assert all(o.dtype in (None, F32) for o in plan.operands), plan.describe()
    # restricted overloads enumerate their own domains: gather keeps its Int32 indices
    assert any(p.operation == "gather" and p.operands[1].dtype is I32 for p in plans)
    assert any(p.operation == "select" and p.operands[0].dtype is BOOL for p in plans)
    assert set(plans) < set(resolvable_plans())


def test_enumeration_without_weak_scalars():
    plans = resolvable_plans(weak_scalars=())
    assert all(W not in p.roles for p in plans)
    assert set(plans) == {p for p in resolvable_plans() if W not in p.roles}


@pytest.mark.parametrize(
    "tensor_dtypes",
    [(), (DType.Any, DType.Float16, DType.MXFP4, EXTENSIONS[2]), (BOOL,)],
    ids=["empty", "unplannable", "bool"],
)
def test_enumeration_over_an_unplannable_tensor_domain(tensor_dtypes):
    plans = resolvable_plans(tensor_dtypes=tensor_dtypes, weak_scalars=())
    assert plans
    assert all(_overload_of(p).tensor_domains is not None for p in plans)
    assert plans == resolvable_plans(tensor_dtypes=(), weak_scalars=())


def test_enumeration_order_follows_the_supplied_domains():
    forward = resolvable_plans(tensor_dtypes=(F32, I32))
    backward = resolvable_plans(tensor_dtypes=(I32, F32))
    assert set(forward) == set(backward)
    add_forward = [p for p in forward if p.operation == "add"]
    add_backward = [p for p in backward if p.operation == "add"]
    assert add_forward[0].operands[0].dtype is F32
    assert add_backward[0].operands[0].dtype is I32


def test_enumeration_skips_refused_weak_scalars():
    plans = resolvable_plans(weak_scalars=(2**40,))
    mul = {
        tuple(o.dtype for o in p.operands) for p in plans if p.operation == "mul" and W in p.roles
    }
    assert mul == {(F32, None)}  # Int32 * 2**40 overflows; Float32 * 2**40 is planned


@settings(max_examples=12)
@given(
    st.lists(st.sampled_from([F32, I32, BOOL, DType.Float16, DType.Any]), unique=True),
    st.lists(
        st.sampled_from([2, 0.5, True, -1, 0, 2**31, -(2**31) - 1, 2**31 - 1]), unique_by=repr
    ),
)
def test_enumeration_is_monotone_in_its_domains(tensor_dtypes, weak_scalars):
    plans = resolvable_plans(tensor_dtypes, weak_scalars)
    assert len(set(plans)) == len(plans)
    assert set(plans) <= set(ALL_PLANS)
    assert set(plans) <= set(resolvable_plans((*tensor_dtypes, F32), (*weak_scalars, 0.5)))
    assert plans == resolvable_plans(tuple(tensor_dtypes), tuple(weak_scalars))


RENDER = """
def render(plans):
    def name(dtype):
        return "-" if dtype is None else dtype.name
    lines = []
    for plan in plans:
        operands = ",".join(
            f"{o.role.name}:{name(o.dtype)}:{name(o.convert_to)}" for o in plan.operands
        )
        accumulation = "-" if plan.accumulation is None else plan.accumulation.name
        lines.append(
            f"{plan.operation}|{operands}|{plan.compute.name}|{accumulation}"
            f"|{name(plan.accumulator_dtype)}|{name(plan.output)}"
        )
    return "\\n".join(lines)
"""


def test_enumeration_is_identical_across_processes(tmp_path):
    namespace: dict[str, object] = {}
    exec(RENDER, namespace)
    local = namespace["render"](resolvable_plans())  # type: ignore[operator]
    script = RENDER + "\nfrom oracle import resolvable_plans\nprint(render(resolvable_plans()))\n"
    outputs = []
    for seed in ("0", "4242"):
        environment = {**os.environ, "PYTHONHASHSEED": seed}
        completed = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            env=environment,
            cwd=tmp_path,
            check=True,
            timeout=120,
        )
        outputs.append(completed.stdout.rstrip("\n"))
    assert outputs[0] == outputs[1] == local
    assert len(local.splitlines()) == len(resolvable_plans())
