"""The planner's error taxonomy: every failure the specification names.

Each refusal is checked for its exception type and for a message that names the
operation and, where one applies, the operand position.  Valid operand tuples
for each overload come from the specification's table (tests/expected_plans.py),
not from the registry's rules.
"""

from __future__ import annotations

import re
import uuid
from decimal import Decimal
from fractions import Fraction
from functools import partial

import numpy as np
import pytest
from expected_plans import ROWS, TENSORS, WEAK_PROBES

from oracle import (
    CompoundDType,
    DType,
    DTypeCategory,
    OperandRole,
    OperationExecutionOptions,
    OperationOverload,
    OperationSpec,
    SimpleDType,
    get_operation,
    operation_execution_options,
    registered_operations,
    resolve_operation_plan,
)

F32, I32, F64 = DType.Float32, DType.Int32, DType.Float64
T, W = OperandRole.TENSOR, OperandRole.WEAK_SCALAR

EXT_CATEGORY = DTypeCategory(f"ErrCategory_{uuid.uuid4().hex}")
EXT_NESTED = DTypeCategory(f"ErrNested_{uuid.uuid4().hex}", EXT_CATEGORY)
EXT_SIMPLE = SimpleDType(f"ErrSimple_{uuid.uuid4().hex}", bits=24, category=DType.Floating)
EXT_COMPOUND = CompoundDType(
    f"ErrCompound_{uuid.uuid4().hex}", element=DType.E4M3, scale=DType.E8M0, block_size=8
)

CATEGORIES = [DType.Any, DType.Floating, DType.Integer, DType.Boolean, EXT_CATEGORY, EXT_NESTED]
COMPOUNDS = [DType.MXFP4, DType.MXFP8, DType.NVFP4, EXT_COMPOUND]
UNIMPLEMENTED = [
    DType.Int8,
    DType.Float16,
    DType.BFloat16,
    DType.E4M3,
    DType.E5M2,
    DType.E2M1,
    DType.E8M0,
    DType.Float64,
    EXT_SIMPLE,
]
OPERATIONS = [spec.name for spec in registered_operations()]


class EqualsFloat32:
    """Compares (and hashes) equal to DType.Float32 without being it."""

    def __eq__(self, other):
        return other is DType.Float32 or isinstance(other, EqualsFloat32)

    def __hash__(self):
        return hash(DType.Float32)

    def __repr__(self):
        return "EqualsFloat32()"


def _ident(value: object) -> str:
    """A parameter id that is the same in every xdist worker (no uuids, no addresses)."""
    extensions = {
        id(d): f"extension_{type(d).__name__}"
        for d in (EXT_CATEGORY, EXT_NESTED, EXT_SIMPLE, EXT_COMPOUND)
    }
    if id(value) in extensions:
        return extensions[id(value)]
    if type(value) is object:
        return "object()"
    return repr(value)


def _valid_operands() -> dict[tuple[str, tuple[OperandRole, ...]], tuple[object, ...]]:
    """The first operand tuple the specification table resolves, per overload."""
    valid: dict[tuple[str, tuple[OperandRole, ...]], tuple[object, ...]] = {}
    for row in ROWS:
        if row.expected.error is not None:
            continue
        operands = tuple(
            TENSORS[min(p.names)] if p.tensor else WEAK_PROBES[min(p.names)] for p in row.operands
        )
        roles = tuple(T if p.tensor else W for p in row.operands)
        for operation in row.operations:
            valid.setdefault((operation, roles), operands)
    return valid


VALID = _valid_operands()
OVERLOADS = [
    (op, roles) for op in OPERATIONS for roles in (o.roles for o in get_operation(op).overloads)
]


def _tensor_positions(roles):
    return [p for p, role in enumerate(roles) if role is T]


def _at(operation: str, position: int) -> str:
    return rf"{re.escape(operation)}\b.*\boperand {position}\b"


def failure(call: partial, error: type[Exception], pattern: str) -> str | None:
    """None when *call* raises *error* with a message matching *pattern*, else why not."""
    try:
        result = call()
    except Exception as raised:
        if type(raised) is not error:
            return f"expected {error.__name__}, got {type(raised).__name__}: {raised}"
        if not re.search(pattern, str(raised)):
            return f"message {str(raised)!r} does not match {pattern!r}"
        return None
    return f"expected {error.__name__}, got {result!r}"


def assert_all_fail(cases) -> None:
    """*cases*: (partial call, error, pattern); report every call that does not fail so."""
    cases = list(cases)
    assert cases
    problems = []
    for call, error, pattern in cases:
        why = failure(call, error, pattern)
        if why:
            arguments = ", ".join(
                [*map(repr, call.args), *(f"{k}={v!r}" for k, v in call.keywords.items())]
            )
            problems.append(f"{call.func.__name__}({arguments}): {why}")
    assert not problems, "\n".join(problems[:40])


def test_every_overload_has_valid_operands_from_the_table():
    missing = [key for key in OVERLOADS if key not in VALID]
    assert not missing
    for (operation, _), operands in VALID.items():
        resolve_operation_plan(operation, *operands)


# -- unregistered operations -----------------------------------------------------------------


@pytest.mark.parametrize(
    "operation", ["no_such_operation", "Add", "add ", "", "sort", "_sort", "topk", "transpose"]
)
def test_an_unregistered_operation_is_not_implemented(operation):
    with pytest.raises(NotImplementedError, match=re.escape(repr(operation))):
        resolve_operation_plan(operation, F32, F32)


@pytest.mark.parametrize("operation", [None, 3, b"add", ("add",), DType.Float32], ids=repr)
def test_a_non_string_operation_is_not_implemented(operation):
    with pytest.raises(NotImplementedError, match="not registered"):
        resolve_operation_plan(operation, F32)  # type: ignore[arg-type]


def test_an_unhashable_operation_is_not_implemented():
    with pytest.raises(NotImplementedError, match="not registered"):
        resolve_operation_plan(["add"], F32, F32)  # type: ignore[arg-type]


# -- operand count and role signature --------------------------------------------------------


def test_a_wrong_operand_count_is_a_type_error():
    assert_all_fail(
        (
            partial(resolve_operation_plan, operation, *([F32] * count)),
            TypeError,
            rf"{re.escape(operation)}: no overload accepts",
        )
        for operation in OPERATIONS
        for count in range(5)
        if count not in {len(o.roles) for o in get_operation(operation).overloads}
    )


@pytest.mark.parametrize(
    ("operation", "operands"),
    [
        ("add", (F32, 2)),
        ("add", (2, F32)),
        ("sub", (2, 3)),
        ("mul", (2, F32)),
        ("mul", (2, 3)),
        ("pow", (2, 3)),
        ("div", (F32, 0.5)),
        ("matmul", (F32, 1.0)),
        ("exp", (1.0,)),
        ("relu", (True,)),
        ("reduce_sum", (3,)),
        ("clamp", (2, F32, F32)),
        ("clamp", (2, 0, 1)),
        ("select", (True, F32, F32)),
        ("gather", (F32, 0)),
        ("scatter", (F32, 0, F32)),
        ("eq", (F32, 0.0)),
        ("maximum", (F32, 0.0)),
    ],
)
def test_an_unmatched_role_signature_is_a_type_error(operation, operands):
    with pytest.raises(TypeError, match=rf"{re.escape(operation)}: no overload accepts"):
        resolve_operation_plan(operation, *operands)


NON_DTYPE_TENSORS = [
    "Float32",
    None,
    object(),
    EqualsFloat32(),
    DType,
    SimpleDType,
    [F32],
    (F32,),
    np.dtype("float32"),
    np.float32,
    1j,
    Decimal("1.5"),
]


def _replaced(operands, position, value):
    return (*operands[:position], value, *operands[position + 1 :])


def test_a_non_dtype_operand_in_any_position_is_a_type_error():
    assert_all_fail(
        (
            partial(
                resolve_operation_plan,
                operation,
                *_replaced(VALID[(operation, roles)], position, bad),
            ),
            TypeError,
            _at(operation, position) + ".*must be a DType",
        )
        for operation, roles in OVERLOADS
        for position in range(len(roles))
        for bad in NON_DTYPE_TENSORS
    )


def test_an_object_equal_to_float32_does_not_select_its_plan():
    """Dtype matching uses descriptor identity."""
    impostor = EqualsFloat32()
    assert impostor == DType.Float32 and DType.Float32 == impostor
    assert hash(impostor) == hash(DType.Float32)
    for operation in ("add", "exp", "reduce_sum", "select"):
        operands = list(VALID[(operation, tuple(T for _ in get_operation(operation).roles))])
        position = len(operands) - 1
        operands[position] = impostor
        with pytest.raises(TypeError, match=_at(operation, position)):
            resolve_operation_plan(operation, *operands)


NON_REAL_SCALARS = [1j, complex(2, 0), Decimal("2"), Decimal("0.5"), "2", "", None, np.complex64(1)]


@pytest.mark.parametrize(
    ("operation", "operands", "position"),
    [
        ("mul", (F32, None), 1),
        ("mul", (I32, None), 1),
        ("pow", (I32, None), 1),
        ("pow", (None, F32), 0),
        ("clamp", (F32, F32, None), 2),
        ("clamp", (F32, None, F32), 1),
        ("clamp", (F32, 0.0, None), 2),
        ("clamp", (F32, None, 1.0), 1),
    ],
)
def test_a_non_real_weak_scalar_is_a_type_error(operation, operands, position):
    for bad in NON_REAL_SCALARS:
        replaced = tuple(bad if i == position else o for i, o in enumerate(operands))
        with pytest.raises(TypeError, match=_at(operation, position) + ".*real Python number"):
            resolve_operation_plan(operation, *replaced)


# -- abstract, compound and unimplemented dtypes, position by position ----------------------


def _in_every_tensor_position(dtypes, error, text):
    """Every registered overload with each of *dtypes* in each tensor position."""
    for operation, roles in OVERLOADS:
        valid = VALID[(operation, roles)]
        for position in _tensor_positions(roles):
            for dtype in dtypes:
                yield (
                    partial(resolve_operation_plan, operation, *_replaced(valid, position, dtype)),
                    error,
                    _at(operation, position) + ".*" + text,
                )


def test_every_category_in_every_tensor_position_is_an_abstract_category():
    assert_all_fail(_in_every_tensor_position(CATEGORIES, TypeError, "abstract category"))


def test_every_compound_in_every_tensor_position_is_deferred():
    assert_all_fail(
        _in_every_tensor_position(COMPOUNDS, NotImplementedError, "representation-aware")
    )


def test_every_unimplemented_simple_dtype_in_every_tensor_position_is_not_implemented():
    assert_all_fail(_in_every_tensor_position(UNIMPLEMENTED, NotImplementedError, "never widened"))


@pytest.mark.parametrize(
    ("operation", "operands", "position"),
    [
        ("add", (DType.Bool, F32), 0),
        ("matmul", (F32, DType.Bool), 1),
        ("exp2", (I32,), 0),
        ("eq", (F32, I32), 1),
        ("logical_not", (DType.Bool,), 0),
        ("reduce_prod", (I32,), 0),
        ("conv_general", (I32, F32), 0),
        ("gather", (F32, F32), 1),
        ("scatter", (F32, I32, I32), 2),
        ("select", (F32, F32, F32), 0),
        ("clamp", (F32, 0, I32), 2),
        ("_sort_indices", (I32,), 0),
    ],
)
def test_a_dtype_outside_the_domain_is_a_type_error(operation, operands, position):
    with pytest.raises(TypeError, match=_at(operation, position) + ".*outside this overload"):
        resolve_operation_plan(operation, *operands)


@pytest.mark.parametrize(
    ("operation", "operands", "position"),
    [
        ("mul", (I32, 2**31), 1),
        ("mul", (I32, -(2**31) - 1), 1),
        ("mul", (I32, 10**30), 1),
        ("mul", (I32, np.int64(2**40)), 1),
        ("mul", (I32, np.uint64(2**64 - 1)), 1),
    ],
)
def test_a_weak_integer_outside_int32_on_an_integer_path_overflows(operation, operands, position):
    value = int(operands[position])
    with pytest.raises(OverflowError, match=_at(operation, position) + f".*{value}"):
        resolve_operation_plan(operation, *operands)


# -- validation order (decisions.md) ---------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "pattern"),
    [
        # unknown operation first
        (
            lambda: resolve_operation_plan(
                "nope", "junk", accumulator_dtype=F64, options=operation_execution_options("matmul")
            ),
            NotImplementedError,
            "not registered",
        ),
        # then conflicting accumulator_dtype and options
        (
            lambda: resolve_operation_plan(
                "add", "junk", accumulator_dtype=F64, options=operation_execution_options("matmul")
            ),
            TypeError,
            "either accumulator_dtype or options",
        ),
        # then operand kinds, before the role signature and dtypes
        (
            lambda: resolve_operation_plan("add", DType.Any, "junk"),
            TypeError,
            "add: operand 1 must be a DType",
        ),
        (
            lambda: resolve_operation_plan("add", DType.MXFP4, F32, "junk"),
            TypeError,
            "add: operand 2 must be a DType",
        ),
        # then the role signature, before the dtypes
        (lambda: resolve_operation_plan("add", DType.MXFP4), TypeError, "no overload accepts"),
        (
            lambda: resolve_operation_plan("exp", DType.Any, DType.Float16),
            TypeError,
            "no overload accepts",
        ),
        # then dtypes position by position
        (
            lambda: resolve_operation_plan("add", DType.MXFP4, DType.Any),
            NotImplementedError,
            "add: operand 0.*representation-aware",
        ),
        (
            lambda: resolve_operation_plan("add", DType.Float16, DType.Any),
            NotImplementedError,
            "add: operand 0.*never widened",
        ),
        (
            lambda: resolve_operation_plan("maximum", I32, DType.Float16),
            TypeError,
            "maximum: operand 0.*outside",
        ),
        (
            lambda: resolve_operation_plan("add", DType.Bool, DType.MXFP4),
            TypeError,
            "add: operand 0.*outside",
        ),
        # then the weak Int32 range, then the accumulator request
        (
            lambda: resolve_operation_plan("mul", I32, 2**31, accumulator_dtype=F64),
            OverflowError,
            "mul: operand 1",
        ),
        (
            lambda: resolve_operation_plan("reduce_sum", DType.Float16, accumulator_dtype="x"),
            NotImplementedError,
            "reduce_sum: operand 0",
        ),
        (
            lambda: resolve_operation_plan("reduce_sum", DType.Any, accumulator_dtype=DType.Int8),
            TypeError,
            "reduce_sum: operand 0.*abstract",
        ),
    ],
)
def test_the_first_failing_check_decides_the_exception(call, error, pattern):
    for _ in range(2):  # and it does so every time
        with pytest.raises(error, match=pattern):
            call()


# -- accumulator requests and execution options ----------------------------------------------


@pytest.mark.parametrize(
    ("operation", "operands"), [("reduce_sum", (F32,)), ("matmul", (F32, I32)), ("add", (F32, F32))]
)
def test_accumulator_dtype_and_options_together_are_a_type_error(operation, operands):
    options = OperationExecutionOptions("matmul" if operation == "add" else operation, F64)
    for accumulator in (F64, F32, DType.Float16, "junk"):
        with pytest.raises(TypeError, match=rf"{operation}: pass either accumulator_dtype or"):
            resolve_operation_plan(
                operation, *operands, accumulator_dtype=accumulator, options=options
            )


@pytest.mark.parametrize(
    ("operation", "operands", "other"),
    [
        ("reduce_sum", (F32,), "matmul"),
        ("matmul", (F32, F32), "reduce_sum"),
        ("add", (F32, F32), "matmul"),
        ("reduce_prod", (F32,), "reduce_sum"),
    ],
)
def test_options_for_another_operation_are_a_value_error(operation, operands, other):
    for accumulator in (None, F32, F64):
        options = operation_execution_options(other, accumulator_dtype=accumulator)
        with pytest.raises(ValueError, match=rf"{operation}: options .*{other}"):
            resolve_operation_plan(operation, *operands, options=options)


@pytest.mark.parametrize("options", ["reduce_sum", F64, ("reduce_sum", F64), 0], ids=repr)
def test_options_that_are_not_execution_options_are_a_type_error(options):
    with pytest.raises(TypeError, match="reduce_sum: options must be"):
        resolve_operation_plan("reduce_sum", F32, options=options)  # type: ignore[arg-type]


NOT_CONFIGURABLE = [name for name in OPERATIONS if name not in ("reduce_sum", "matmul")]


def test_execution_options_for_a_non_configurable_operation_are_a_type_error():
    assert len(NOT_CONFIGURABLE) == len(OPERATIONS) - 2
    operations = [*NOT_CONFIGURABLE, "no_such_operation", "", None, "Reduce_sum", "matmul "]
    assert_all_fail(
        (partial(maker, operation, accumulator_dtype=accumulator), TypeError, "no configurable")
        for operation in operations
        for accumulator in (None, F64, DType.Float16, DType.Any)
        for maker in (operation_execution_options, OperationExecutionOptions)
    )


def test_an_accumulator_for_a_non_configurable_operation_is_a_type_error():
    assert_all_fail(
        (
            partial(
                resolve_operation_plan,
                operation,
                *VALID[(operation, roles)],
                accumulator_dtype=accumulator,
            ),
            TypeError,
            rf"{re.escape(operation)}: accumulator_dtype",
        )
        for operation, roles in OVERLOADS
        if operation in NOT_CONFIGURABLE
        for accumulator in (F32, F64)
    )


NON_SIMPLE_ACCUMULATORS = [
    *CATEGORIES,
    *COMPOUNDS,
    "Float64",
    64,
    1.0,
    True,
    np.float64,
    np.dtype("float64"),
    EqualsFloat32(),
    object(),
]


@pytest.mark.parametrize("accumulator", NON_SIMPLE_ACCUMULATORS, ids=_ident)
@pytest.mark.parametrize(
    ("operation", "operands"), [("reduce_sum", (F32,)), ("matmul", (F32, F32))]
)
def test_a_non_simple_accumulator_is_a_type_error(operation, operands, accumulator):
    with pytest.raises(TypeError, match=rf"{operation}: accumulator_dtype must be a simple"):
        resolve_operation_plan(operation, *operands, accumulator_dtype=accumulator)
    with pytest.raises(TypeError, match=rf"{operation}: accumulator_dtype must be a simple"):
        operation_execution_options(operation, accumulator_dtype=accumulator)


UNIMPLEMENTED_ACCUMULATORS = [
    DType.Float16,
    DType.BFloat16,
    DType.E4M3,
    DType.E5M2,
    DType.E2M1,
    DType.E8M0,
    DType.Int32,
    DType.Int8,
    DType.Bool,
    EXT_SIMPLE,
]


@pytest.mark.parametrize("accumulator", UNIMPLEMENTED_ACCUMULATORS, ids=_ident)
@pytest.mark.parametrize(
    ("operation", "operands"), [("reduce_sum", (F32,)), ("matmul", (I32, F32))]
)
def test_an_unimplemented_simple_accumulator_is_not_implemented(operation, operands, accumulator):
    """Only Float32 and Float64 are supported floating accumulators; any other
    simple dtype (Int32 included: it is simple but not a supported accumulator)
    is an unimplemented simple accumulator."""
    pattern = rf"{operation}: {re.escape(repr(accumulator))} is not an implemented floating"
    with pytest.raises(NotImplementedError, match=pattern):
        resolve_operation_plan(operation, *operands, accumulator_dtype=accumulator)
    with pytest.raises(NotImplementedError, match=pattern):
        operation_execution_options(operation, accumulator_dtype=accumulator)
    with pytest.raises(NotImplementedError, match=pattern):
        OperationExecutionOptions(operation, accumulator)


@pytest.mark.parametrize(
    ("operation", "operands"), [("reduce_sum", (I32,)), ("matmul", (I32, I32))]
)
@pytest.mark.parametrize("accumulator", [F32, F64])
def test_an_exact_integer_plan_refuses_a_floating_accumulator(operation, operands, accumulator):
    pattern = rf"{operation}: this plan accumulates exactly over integers"
    with pytest.raises(TypeError, match=pattern):
        resolve_operation_plan(operation, *operands, accumulator_dtype=accumulator)
    options = operation_execution_options(operation, accumulator_dtype=accumulator)
    with pytest.raises(TypeError, match=pattern):
        resolve_operation_plan(operation, *operands, options=options)
    # default options are not a floating-accumulator request
    plan = resolve_operation_plan(
        operation, *operands, options=operation_execution_options(operation)
    )
    assert plan.accumulator_dtype is None and plan.output is I32


def test_execution_options_are_immutable_validated_values():
    options = operation_execution_options("matmul", accumulator_dtype=F64)
    assert options == OperationExecutionOptions("matmul", F64)
    assert hash(options) == hash(OperationExecutionOptions("matmul", F64))
    assert options.operation == "matmul" and options.accumulator_dtype is F64
    assert operation_execution_options("reduce_sum").accumulator_dtype is None
    with pytest.raises(AttributeError):
        options.accumulator_dtype = F32  # type: ignore[misc]
    with pytest.raises(TypeError):
        operation_execution_options("matmul", F64)  # type: ignore[misc]  # keyword-only


# -- OperationOverload and OperationSpec construction ----------------------------------------


def _rule(operation, *operands):  # never called: construction only
    raise AssertionError("not called")


@pytest.mark.parametrize(
    ("roles", "domains"),
    [
        ((T, T), ((F32,),)),
        ((T, T), ((F32,), (F32,), (F32,))),
        ((T, W), ((F32,), (F32,))),
        ((T,), ()),
        ((W,), ((F32,),)),
        ((T, T), ((F32,), ())),
        ((T,), ((),)),
        ((T, W, T), ((F32, I32), [])),
    ],
)
def test_bad_tensor_domains_are_a_value_error(roles, domains):
    with pytest.raises(ValueError, match="tensor_domains"):
        OperationOverload(roles, _rule, domains)


def test_tensor_domains_default_to_none_and_are_kept_in_order():
    assert OperationOverload((T, T), _rule).tensor_domains is None
    overload = OperationOverload([T, W, T], _rule, [[I32, F32], (DType.Bool,)])
    assert overload.roles == (T, W, T)
    assert overload.tensor_domains == ((I32, F32), (DType.Bool,))
    assert OperationOverload((W, W), _rule, ()).tensor_domains == ()


def test_overload_roles_must_be_operand_roles_and_rule_callable():
    with pytest.raises(ValueError, match="OperandRole"):
        OperationOverload(("tensor",), _rule)
    with pytest.raises(ValueError, match="callable"):
        OperationOverload((T,), "rule")  # type: ignore[arg-type]


TT = OperationOverload((T, T), _rule)
TW = OperationOverload((T, W), _rule)
TT_RESTRICTED = OperationOverload((T, T), _rule, ((F32,), (F32,)))
SINGLE = OperationOverload((T,), _rule)


@pytest.mark.parametrize(
    ("overloads", "positions", "pattern"),
    [
        ((), None, "non-empty"),
        ([], None, "non-empty"),
        ((TT, TT), None, "duplicate"),
        ((TT, TW, TT_RESTRICTED), None, "duplicate"),
        ((TT,), (1, 0), "increasing"),
        ((TT,), (0, 0), "unique"),
        ((TT,), (-1, 0), "non-negative"),
        ((TT,), (0, -1), "non-negative"),
        ((TT,), (0,), "length"),
        ((TT,), (0, 1, 2), "length"),
        ((SINGLE, TT), (0,), "length"),
        ((TT,), (0, 1.0), "non-negative ints"),
        ((TT,), (0, True), "non-negative ints"),
    ],
)
def test_bad_operation_specs_are_a_value_error(overloads, positions, pattern):
    with pytest.raises(ValueError, match=pattern):
        OperationSpec("custom", overloads, dtype_operand_positions=positions)


def test_operation_spec_defaults_and_valid_positions():
    spec = OperationSpec("custom", (TT,))
    assert spec.public is True and spec.dtype_operand_positions is None
    spaced = OperationSpec("custom", [TT, TW], public=False, dtype_operand_positions=[0, 3])
    assert spaced.overloads == (TT, TW) and spaced.dtype_operand_positions == (0, 3)
    assert spaced.public is False
    assert spaced.policy_operands([F32, "axis", None, F32]) == (F32, F32)


@pytest.mark.parametrize("public", [1, "yes", None])
def test_public_must_be_a_bool(public):
    with pytest.raises(ValueError, match="public"):
        OperationSpec("custom", (TT,), public=public)  # type: ignore[arg-type]


def test_single_overload_spec_exposes_roles_and_rule():
    spec = OperationSpec("custom", (TW,))
    assert spec.roles == (T, W) and spec.rule is _rule
    for name in ("add", "exp", "reduce_sum", "select"):
        registered = get_operation(name)
        assert registered.roles == registered.overloads[0].roles
        assert registered.rule is registered.overloads[0].rule


@pytest.mark.parametrize("name", ["mul", "pow", "clamp", "custom"])
def test_multiple_overload_spec_hides_roles_and_rule(name):
    spec = OperationSpec("custom", (TT, TW)) if name == "custom" else get_operation(name)
    assert len(spec.overloads) > 1
    with pytest.raises(AttributeError, match="overloads"):
        _ = spec.roles
    with pytest.raises(AttributeError, match="overloads"):
        _ = spec.rule
    assert not hasattr(spec, "roles") and not hasattr(spec, "rule")


@pytest.mark.parametrize("operation", ["mul", "pow", "clamp"])
def test_tensor_and_weak_signatures_are_distinct_overloads(operation):
    signatures = [overload.roles for overload in get_operation(operation).overloads]
    assert len(set(signatures)) == len(signatures) > 1
    assert (T, T) in signatures or (T, T, T) in signatures


def test_weak_scalar_values_are_accepted_where_real():
    """Counterpart of the refusals: these reals are weak scalars, not errors."""
    for value in (0, -0.0, float("inf"), float("nan"), Fraction(7, 2), np.float16(1), np.int16(4)):
        assert resolve_operation_plan("mul", F32, value).output is F32
