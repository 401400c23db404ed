"""The planner against the expected-plan table written from the specification.

``tests/expected_plans.py`` states, as data, the plan (or the exception) of
every registered operation, overload and operand combination over Float32,
Int32 and Bool tensors and a set of weak scalars.  These tests check that the
table covers the registry exactly, that every row agrees with
``resolve_operation_plan``, and that the registry itself is the one the issue
lists.
"""

from __future__ import annotations

import numbers
import re
from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from expected_plans import (
    ROWS,
    TENSORS,
    WEAK_GROUPS,
    WEAK_PROBES,
    Expected,
    Row,
    parse,
)

from oracle import (
    WEAK_SCALAR_PROBES,
    Accumulation,
    Arithmetic,
    DType,
    OperandPlan,
    OperandRole,
    OperationPlan,
    operation_execution_options,
    registered_operations,
    resolvable_plans,
    resolve_operation_plan,
)
from oracle.registry import OperationSpec

F32, I32, F64 = DType.Float32, DType.Int32, DType.Float64
RESULT = {"F32": F32, "I32": I32, "Bool": DType.Bool, "F64": F64}
CONFIGURABLE = ("reduce_sum", "matmul")

#: The registry the issue lists: name -> (public, dtype_operand_positions).
_REDUCTIONS = "reduce_sum reduce_prod reduce_max reduce_min argmax argmin cumsum".split()
_INTERNAL = "_sort_values _sort_indices _topk_values _topk_indices".split()
_PUBLIC = (
    "add sub elementwise_mul div mul pow maximum minimum rem eq ne lt le logical_not "
    "relu elu exp gelu leaky_relu sigmoid silu softplus tanh "
    "neg abs sign recip sqrt rsqrt exp2 log log2 sin cos erf floor ceil round "
    "reduce_sum reduce_prod reduce_max reduce_min argmax argmin cumsum "
    "matmul conv_general gather scatter scatter_add select clamp"
).split()
ISSUE_REGISTRY: dict[str, tuple[bool, tuple[int, ...] | None]] = {
    **{name: (True, None) for name in _PUBLIC},
    **{name: (True, (0,)) for name in _REDUCTIONS},
    **{name: (False, (0,)) for name in _INTERNAL},
    "conv_general": (True, (0, 1)),
    "gather": (True, (0, 1)),
    "scatter": (True, (0, 1, 2)),
    "scatter_add": (True, (0, 1, 2)),
}

Token = tuple[bool, str]  # (is a tensor, dtype name or weak probe name)


def _registry_combinations() -> list[tuple[str, tuple[Token, ...]]]:
    """Every registered overload over (F32, I32, Bool) tensors and the weak probes."""
    combinations = []
    for spec in registered_operations():
        for overload in spec.overloads:
            choices = [
                [(True, name) for name in TENSORS]
                if role is OperandRole.TENSOR
                else [(False, name) for name in WEAK_PROBES]
                for role in overload.roles
            ]
            combinations += [(spec.name, combo) for combo in product(*choices)]
    return combinations


def _expand(row: Row) -> list[tuple[str, tuple[Token, ...]]]:
    """Every concrete (operation, combination) a row's patterns denote."""
    choices = [[(p.tensor, name) for name in sorted(p.names)] for p in row.operands]
    return [(op, combo) for op in row.operations for combo in product(*choices)]


def _operands(combination: tuple[Token, ...]) -> tuple[object, ...]:
    return tuple(TENSORS[name] if tensor else WEAK_PROBES[name] for tensor, name in combination)


def _render(operation: str, combination: tuple[Token, ...]) -> str:
    return f"{operation}({', '.join(name if t else 'w:' + name for t, name in combination)})"


def _expected_plan(
    operation: str, combination: tuple[Token, ...], expected: Expected, accumulator: str | None
) -> OperationPlan:
    """The OperationPlan record the row states (built, not resolved)."""
    assert expected.convert_to is not None and expected.compute is not None
    return OperationPlan(
        operation=operation,
        operands=tuple(
            OperandPlan(
                OperandRole.TENSOR if tensor else OperandRole.WEAK_SCALAR,
                TENSORS[name] if tensor else None,
                RESULT[target],
            )
            for (tensor, name), target in zip(combination, expected.convert_to)
        ),
        compute=Arithmetic[expected.compute],
        accumulation=None if expected.accumulation is None else Accumulation[expected.accumulation],
        accumulator_dtype=None if accumulator is None else RESULT[accumulator],
        output=RESULT[expected.output],  # type: ignore[index]
    )


def _message_names(operation: str, position: int, message: str) -> bool:
    return re.search(rf"{re.escape(operation)}\b.*\boperand {position}\b", message) is not None


def _check(
    operation: str, combination: tuple[Token, ...], expected: Expected, **request: object
) -> str | None:
    """Resolve one combination; describe the disagreement with *expected*, if any."""
    where = _render(operation, combination) + (f" {request}" if request else "")
    operands = _operands(combination)
    try:
        plan = resolve_operation_plan(operation, *operands, **request)  # type: ignore[arg-type]
    except Exception as error:
        if expected.error is None:
            return f"{where}: expected a plan, raised {type(error).__name__}: {error}"
        if type(error) is not expected.error:
            return f"{where}: expected {expected.error.__name__}, got {type(error).__name__}"
        if not _message_names(operation, expected.position, str(error)):  # type: ignore[arg-type]
            return f"{where}: message does not name operand {expected.position}: {error}"
        return None
    if expected.error is not None:
        return f"{where}: expected {expected.error.__name__}, got plan {plan.describe()}"
    accumulator = request.get("accumulator_dtype")
    if "options" in request:
        accumulator = request["options"].accumulator_dtype  # type: ignore[attr-defined]
    accumulator_name = expected.accumulator
    if accumulator is not None:
        accumulator_name = next(k for k, v in RESULT.items() if v is accumulator)
    want = _expected_plan(operation, combination, expected, accumulator_name)
    if plan != want:
        return f"{where}: got {plan.describe()}, expected {want.describe()}"
    for got, source in zip(plan.operands, operands):
        if got.dtype is not None and got.dtype is not source:
            return f"{where}: operand source dtype {got.dtype!r} is not the input {source!r}"
    return None


# -- the table itself ------------------------------------------------------------------------


def test_table_parses_to_rows_with_expectations():
    assert len(ROWS) > 80
    for row in ROWS:
        expected = row.expected
        if expected.error is None:
            assert None not in (expected.convert_to, expected.compute, expected.output), row.text
            assert expected.compute in Arithmetic.__members__, row.text
            assert expected.accumulation in (None, *Accumulation.__members__), row.text
        else:
            assert 0 <= expected.position < len(row.operands), row.text


@pytest.mark.parametrize(
    "bad_row",
    [
        "add F32 F16 => F32 F32 | BINARY32 | - | - | F32",  # unknown dtype
        "add F32 w:huge => F32 F32 | BINARY32 | - | - | F32",  # unknown probe
        "add F32 F32 => F32 | BINARY32 | - | - | F32",  # convert_to count
        "add F32 F32 => F32 F32 | BINARY32 | - | F32",  # column count
        "add F32 F32",  # no expectation
        "add F32 F32 !! KeyError@0",  # not a policy exception
    ],
)
def test_parser_rejects_a_malformed_row(bad_row):
    with pytest.raises(ValueError, match="table line 1"):
        parse(bad_row)


def test_weak_groups_select_the_branch_the_specification_names():
    """The table's vocabulary: each group holds exactly the probes of its kind."""

    def integral(value):
        return isinstance(value, numbers.Integral) and not isinstance(value, bool)

    values = WEAK_PROBES
    in_range = {n for n, v in values.items() if integral(v) and -(2**31) <= v <= 2**31 - 1}
    assert set(WEAK_GROUPS["int"]) == in_range
    assert set(WEAK_GROUPS["nat"]) == {n for n in in_range if values[n] >= 0}
    assert set(WEAK_GROUPS["neg"]) == {n for n in in_range if values[n] < 0}
    assert set(WEAK_GROUPS["bigint"]) == {
        n for n, v in values.items() if integral(v) and n not in in_range
    }
    assert set(WEAK_GROUPS["bool"]) == {n for n, v in values.items() if isinstance(v, bool)}
    assert set(WEAK_GROUPS["real"]) == set(values) - {
        *WEAK_GROUPS["int"],
        *WEAK_GROUPS["bigint"],
        *WEAK_GROUPS["bool"],
    }
    assert set(WEAK_GROUPS["any"]) == set(values)


def test_every_registered_combination_matches_exactly_one_row():
    """Fails when an operation or overload is registered without table rows."""
    problems = []
    combinations = _registry_combinations()
    for operation, combination in combinations:
        rows = [r for r in ROWS if r.matches(operation, combination)]
        if len(rows) != 1:
            lines = [r.line for r in rows]
            problems.append(f"{_render(operation, combination)}: matched by rows {lines}")
    assert len(combinations) > 1000
    assert not problems, "\n".join(problems[:50])


def test_every_row_denotes_registered_combinations_only():
    """Fails when a row names an operation or overload that is not registered."""
    registered = set(_registry_combinations())
    problems = [
        f"line {row.line}: {_render(*combo)} is not a registered combination"
        for row in ROWS
        for combo in _expand(row)
        if combo not in registered
    ]
    assert not problems, "\n".join(problems[:50])


# -- the planner against the table -----------------------------------------------------------


@pytest.mark.parametrize("operation", sorted(ISSUE_REGISTRY))
def test_resolution_matches_the_table(operation):
    problems = []
    checked = 0
    for row in ROWS:
        if operation not in row.operations:
            continue
        for op, combination in _expand(row):
            if op == operation:
                checked += 1
                problems.append(_check(op, combination, row.expected))  # type: ignore[arg-type]
    problems = [p for p in problems if p]
    assert checked, f"no table row for {operation}"
    assert not problems, "\n".join(problems)


def test_accumulator_requests_follow_the_table():
    """Float64 widens only a configurable floating plan; everything else keeps its error.

    "Changing a floating accumulator SHALL leave operand conversions, compute
    arithmetic, and output dtype unchanged."  A non-configurable operation or an
    exact-integer plan fails with TypeError; operand faults are found before
    the accumulator request (decisions.md, validation order).
    """
    problems = []
    floating_rows = 0
    for row in ROWS:
        expected = row.expected
        for op, combination in _expand(row):
            floating = op in CONFIGURABLE and expected.accumulation == "FLOATING"
            floating_rows += floating
            if expected.error is None and not floating:
                # no operand is at fault, so the message names no position
                where = _render(op, combination)
                try:
                    resolve_operation_plan(op, *_operands(combination), accumulator_dtype=F64)
                    problems.append(f"{where}: accepted a Float64 accumulator")
                except TypeError as error:
                    if op not in str(error):
                        problems.append(f"{where}: message does not name {op}: {error}")
                except Exception as error:
                    problems.append(f"{where}: {type(error).__name__} {error}")
                continue
            problems.append(_check(op, combination, expected, accumulator_dtype=F64))
            problems.append(_check(op, combination, expected, accumulator_dtype=F32))
            if floating:
                options = operation_execution_options(op, accumulator_dtype=F64)
                problems.append(_check(op, combination, expected, options=options))
    problems = [p for p in problems if p]
    assert floating_rows == 4  # Float32 reduce_sum; matmul F32/F32, F32/I32, I32/F32
    assert not problems, "\n".join(problems)


def test_default_accumulator_options_select_the_policy_default():
    for operation, operands in (("reduce_sum", (F32,)), ("matmul", (F32, I32))):
        options = operation_execution_options(operation)
        assert resolve_operation_plan(operation, *operands, options=options) == (
            resolve_operation_plan(operation, *operands)
        )


# -- decisions the table relies on -----------------------------------------------------------


#: decisions.md: WEAK_SCALAR_PROBES = (2, 0.5, True, -1, 2**31, -2**31 - 1)
DEFAULT_PROBES = ("2", "0.5", "True", "-1", "2**31", "-2**31-1")


def test_weak_scalar_probes_are_the_documented_ones():
    documented = [WEAK_PROBES[name] for name in DEFAULT_PROBES]
    assert [(type(v), v) for v in WEAK_SCALAR_PROBES] == [(type(v), v) for v in documented]


@pytest.mark.parametrize(
    ("scalar", "output"),
    [
        (2.0, F32),
        (Fraction(4, 2), F32),
        (np.float64(2.0), F32),
        (-0.0, F32),
        (float("nan"), F32),
        (np.int64(5), I32),
        (np.int8(-3), I32),
        (np.uint16(7), I32),
        (False, F32),
    ],
)
def test_integral_kind_is_a_type_not_a_value(scalar, output):
    """decisions.md: 2.0 and Fraction(4, 2) select the floating kind."""
    plan = resolve_operation_plan("mul", I32, scalar)
    assert plan.output is output
    assert plan.operands[1].convert_to is output
    assert plan.operands[1].dtype is None


def test_resolvable_plans_are_the_table_plans_over_the_default_domain():
    """Every table plan over the default domain (and its accumulator variants) is
    enumerated, and nothing else is."""
    defaults = set(DEFAULT_PROBES)
    expected: set[OperationPlan] = set()
    for row in ROWS:
        if row.expected.error is not None:
            continue
        for op, combination in _expand(row):
            if all(tensor or name in defaults for tensor, name in combination):
                expected.add(
                    _expected_plan(op, combination, row.expected, row.expected.accumulator)
                )
                if op in CONFIGURABLE and row.expected.accumulation == "FLOATING":
                    for accumulator in ("F32", "F64"):
                        expected.add(_expected_plan(op, combination, row.expected, accumulator))
    plans = resolvable_plans()
    missing = sorted(p.describe() for p in expected - set(plans))
    extra = sorted(p.describe() for p in set(plans) - expected)
    assert not missing, "\n".join(missing)
    assert not extra, "\n".join(extra)


# -- the registry ----------------------------------------------------------------------------


def test_registered_operations_are_exactly_the_issue_list_in_name_order():
    names = [spec.name for spec in registered_operations()]
    assert names == sorted(ISSUE_REGISTRY)
    assert len(set(names)) == len(names)
    assert all(isinstance(spec, OperationSpec) for spec in registered_operations())


def test_public_flag_and_dtype_operand_positions():
    registered = {
        spec.name: (spec.public, spec.dtype_operand_positions) for spec in registered_operations()
    }
    assert registered == ISSUE_REGISTRY
    assert all(type(public) is bool for public, _ in registered.values())


@pytest.mark.parametrize(
    ("operation", "forward", "policy"),
    [
        ("reduce_sum", (F32, (0, 1), True), (F32,)),
        ("argmax", (F32, 0, False), (F32,)),
        ("cumsum", (F32, -1), (F32,)),
        ("_topk_values", (F32, 3, 0, True), (F32,)),
        ("conv_general", (F32, F32, (1, 1), ((0, 0), (0, 0)), 1), (F32, F32)),
        ("gather", (F32, I32, 0), (F32, I32)),
        ("scatter_add", (F32, I32, F32, 0), (F32, I32, F32)),
        ("add", (F32, I32), (F32, I32)),
    ],
)
def test_non_dtype_arguments_do_not_become_weak_scalars(operation, forward, policy):
    """Scenario: axes, strides, padding and flags stay out of planning."""
    spec = next(s for s in registered_operations() if s.name == operation)
    operands = spec.policy_operands(forward)
    assert operands == policy
    plan = resolve_operation_plan(operation, *operands)
    assert OperandRole.WEAK_SCALAR not in plan.roles
    # and the whole forward argument list is refused as policy operands
    if operands != forward:
        with pytest.raises(TypeError, match=operation):
            resolve_operation_plan(operation, *forward)


@pytest.mark.parametrize("name", ["reshape", "transpose", "broadcast_to", "cast", "copy", "view"])
def test_representation_only_operations_are_not_registered(name):
    assert name not in {spec.name for spec in registered_operations()}
    with pytest.raises(NotImplementedError, match=name):
        resolve_operation_plan(name, F32)
