"""The planner and the oracle under hostile input (issue 15, items 5 and 11).

Every failure is one of the specification's exceptions with a short message:
a huge integer is never printed in full (Python refuses beyond 4300 digits),
an object whose own dunder methods raise gives the TypeError of a non-real
weak scalar (never its RuntimeError or ZeroDivisionError), ``numpy.bool_`` is
not a real number, and a valid call too large for the oracle is refused
before any work with ``OracleLimitError``.
"""

from __future__ import annotations

import numpy as np
import pytest

from oracle import DType, OperationExecutionOptions, Tensor, expected, resolve_operation_plan
from oracle.errors import REPR_LIMIT, describe
from oracle.limits import MAX_RESULT_ELEMENTS, OracleLimitError

F32, I32 = DType.Float32, DType.Int32
MESSAGE_LIMIT = 400


class _Raises(Exception):
    """The hostile objects' own exception (never a spec exception)."""


class HostileInt(int):
    def __int__(self) -> int:
        raise ZeroDivisionError("from __int__")

    def __index__(self) -> int:
        raise ZeroDivisionError("from __index__")

    def __repr__(self) -> str:
        raise RuntimeError("from __repr__")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("from __eq__")

    def __hash__(self) -> int:
        raise ZeroDivisionError("from __hash__")


class HostileFloat(float):
    def as_integer_ratio(self) -> tuple[int, int]:
        raise ZeroDivisionError("from as_integer_ratio")

    def __float__(self) -> float:
        raise RuntimeError("from __float__")

    def __repr__(self) -> str:
        raise RuntimeError("from __repr__")


class HostileClass:
    """An object whose ``__class__`` lookup (used by isinstance) raises."""

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        raise _Raises("from __class__")


class HostileName(str):
    def __eq__(self, other: object) -> bool:
        raise RuntimeError("from __eq__")

    def __hash__(self) -> int:
        raise ZeroDivisionError("from __hash__")

    def __format__(self, spec: str) -> str:
        raise RuntimeError("from __format__")

    def __repr__(self) -> str:
        raise RuntimeError("from __repr__")


def _error(call, *args, **kwargs) -> BaseException:
    try:
        call(*args, **kwargs)
    except Exception as error:  # the type is what is under test
        str(error)  # the message itself must be printable
        return error
    raise AssertionError("expected an exception")


@pytest.mark.parametrize(
    "value", [10**5000, -(10**5000), 2**100000], ids=["1e5000", "-1e5000", "2**1e5"]
)
def test_a_huge_weak_integer_is_an_overflow_error_with_a_short_message(value) -> None:
    error = _error(resolve_operation_plan, "mul", I32, value)
    assert type(error) is OverflowError
    assert len(str(error)) < MESSAGE_LIMIT
    assert "bits" in str(error) and "decimal digits" in str(error)
    # on a floating path the same value is accepted (the spec's MAY)
    assert resolve_operation_plan("mul", F32, value).output is F32


def test_a_huge_pow_exponent_keeps_the_floating_branch() -> None:
    assert resolve_operation_plan("pow", I32, 10**5000).output is F32


# factories: pytest must not touch a hostile object while collecting
NON_REAL = {
    "hostile-int": lambda: HostileInt(3),
    "hostile-class": HostileClass,
    "numpy-true": lambda: np.bool_(True),
    "numpy-false": lambda: np.bool_(False),
    "complex": lambda: 1j,
    "str": lambda: "2",
    "none": lambda: None,
}


@pytest.mark.parametrize("make", NON_REAL.values(), ids=NON_REAL.keys())
@pytest.mark.parametrize("operation", ["mul", "pow"])
def test_a_non_real_or_unreadable_weak_scalar_is_a_type_error(operation, make) -> None:
    error = _error(resolve_operation_plan, operation, I32, make())
    assert type(error) is TypeError, repr(error)
    assert f"{operation}: operand 1" in str(error)
    assert len(str(error)) < MESSAGE_LIMIT


def test_numpy_bool_is_not_a_weak_scalar_but_bool_is() -> None:
    """Spec: a weak scalar SHALL be a real Python number; numpy.bool_ is not numbers.Real."""
    assert resolve_operation_plan("mul", I32, True).output is F32
    with pytest.raises(TypeError, match="real Python number"):
        resolve_operation_plan("mul", F32, np.bool_(True))
    with pytest.raises(TypeError, match="real Python number"):
        resolve_operation_plan("clamp", F32, np.bool_(False), 1.0)
    outcome = expected("mul", Tensor(F32, (1,), (2.0,)), np.bool_(True))
    assert isinstance(outcome.error, TypeError)


def test_a_hostile_operation_name_is_read_as_a_plain_string() -> None:
    plan = resolve_operation_plan(HostileName("mul"), I32, 3)
    assert plan.operation == "mul" and type(plan.operation) is str
    error = _error(resolve_operation_plan, HostileName("no_such"), I32)
    assert type(error) is NotImplementedError
    options = OperationExecutionOptions(HostileName("matmul"), accumulator_dtype=DType.Float64)
    assert type(options.operation) is str
    assert resolve_operation_plan("matmul", F32, F32, options=options).accumulator_dtype is (
        DType.Float64
    )
    assert type(_error(OperationExecutionOptions, HostileName("add"))) is TypeError


@pytest.mark.parametrize(
    "make",
    [lambda: HostileInt(1), HostileClass, lambda: 10**5000, lambda: "x" * 10**6],
    ids=["int", "class", "huge", "long"],
)
def test_describe_is_short_and_never_raises(make) -> None:
    text = describe(make())
    assert len(text) <= REPR_LIMIT + 40


def test_hostile_accumulator_and_options_are_type_errors() -> None:
    for call in (
        lambda: resolve_operation_plan("reduce_sum", F32, accumulator_dtype=HostileClass()),
        lambda: resolve_operation_plan("reduce_sum", F32, options=HostileInt(2)),
    ):
        assert type(_error(call)) is TypeError


# -- the oracle ---------------------------------------------------------------


def test_oracle_expects_a_type_error_for_an_unreadable_weak_scalar() -> None:
    x = Tensor(F32, (1,), (3.0,))
    outcome = expected("mul", x, HostileFloat(0.5))
    assert isinstance(outcome.error, TypeError), outcome
    assert "cannot be read" in str(outcome.error)
    outcome = expected("mul", Tensor(I32, (1,), (3,)), HostileInt(2))
    assert isinstance(outcome.error, TypeError), outcome


def test_oracle_parameters_with_hostile_dunders_are_type_errors() -> None:
    x = Tensor(F32, (2,), (1.0, 2.0))
    for args in ((x, HostileInt(0)), (x, HostileClass())):
        outcome = expected("reduce_sum", *args)
        assert isinstance(outcome.error, TypeError), outcome
    outcome = expected("_topk_values", x, 10**5000, -1, True)
    assert isinstance(outcome.error, ValueError) and len(str(outcome.error)) < MESSAGE_LIMIT


@pytest.mark.parametrize(
    "make",
    [lambda: HostileFloat(1.0), HostileClass, lambda: np.bool_(True)],
    ids=["float", "class", "numpy-bool"],
)
def test_tensor_values_with_hostile_dunders_are_type_errors(make) -> None:
    assert type(_error(Tensor, F32, (1,), (make(),))) is TypeError
    assert type(_error(Tensor, I32, (1,), (HostileInt(1),))) is TypeError


def test_tensor_shapes_and_nesting_are_bounded() -> None:
    assert type(_error(Tensor, F32, (HostileInt(1),), (1.0,))) is ValueError
    assert type(_error(Tensor, F32, (1,) * 65, (1.0,))) is ValueError
    deep: list = [1.0]
    for _ in range(5000):
        deep = [deep]
    error = _error(Tensor.from_nested, deep, F32)
    assert type(error) is ValueError and "deeper than" in str(error)
    error = _error(Tensor, F32, (10**5000,), ())
    assert type(error) is ValueError and len(str(error)) < MESSAGE_LIMIT
    huge = Tensor(F32, (10**5000, 0), ())
    assert "5001 decimal digits" in repr(huge)
    with pytest.raises(OracleLimitError):
        huge.tolist()
    assert Tensor(F32, (3, 0), ()).tolist() == [[], [], []]


@pytest.mark.parametrize(
    ("operation", "args"),
    [
        ("matmul", (Tensor(F32, (2**20, 0), ()), Tensor(F32, (0, 2**20), ()))),
        ("matmul", (Tensor(I32, (2**20, 0), ()), Tensor(I32, (0, 2**20), ()))),
        ("reduce_sum", (Tensor(F32, (2**40, 0), ()), 1)),
        ("cumsum", (Tensor(F32, (0, 2**40), ()), 0)),
        (
            "add",
            (Tensor(F32, (4096, 1), (0.0,) * 4096), Tensor(F32, (1, 4096), (0.0,) * 4096)),
        ),
        (
            "gather",
            (Tensor(F32, (1, 2**12), (0.0,) * 2**12), Tensor(I32, (2**11,), (0,) * 2**11), 0),
        ),
        (
            "conv_general",
            (
                Tensor(F32, (1, 1, 2), (1.0, 2.0)),
                Tensor(F32, (1, 1, 1), (1.0,)),
                (1,),
                ((0, 0),),
                (2**40,),
                (1,),
                1,
            ),
        ),
    ],
    ids=["matmul-f32", "matmul-i32", "reduce-empty", "cumsum-empty", "broadcast", "gather", "conv"],
)
def test_a_call_too_large_for_the_oracle_is_refused_before_any_work(operation, args) -> None:
    with pytest.raises(OracleLimitError, match=str(MAX_RESULT_ELEMENTS)):
        expected(operation, *args)


def test_the_limit_is_no_verdict_and_small_empty_calls_still_evaluate() -> None:
    assert issubclass(OracleLimitError, MemoryError)
    assert not issubclass(OracleLimitError, (TypeError, ValueError, OverflowError))
    outcome = expected("matmul", Tensor(F32, (3, 0), ()), Tensor(F32, (0, 2), ()))
    assert outcome.bounds is not None and outcome.shape == (3, 2)
    outcome = expected("reduce_sum", Tensor(F32, (1000, 0), ()), 1)
    assert outcome.bounds is not None and outcome.shape == (1000,)


class HostileSequence(list):
    def __len__(self) -> int:
        raise ZeroDivisionError("from __len__")


def test_public_helpers_refuse_hostile_arguments_with_type_errors() -> None:
    from oracle import plan_accumulator_variants

    assert type(_error(plan_accumulator_variants, "reduce_sum")) is TypeError
    assert type(_error(Tensor.from_nested, HostileSequence([1.0]), F32)) is TypeError
    x = Tensor(F32, (2,), (1.0, 2.0))
    assert x[(1,)] == 2.0
    assert type(_error(x.__getitem__, ("0",))) is TypeError
    assert type(_error(expected("neg", x).check, [1.0, 2.0])) is TypeError


def test_a_huge_operand_list_gives_a_short_message() -> None:
    error = _error(resolve_operation_plan, "add", *([F32] * 100_000))
    assert type(error) is TypeError and "100000 operands in all" in str(error)
    assert len(str(error)) < MESSAGE_LIMIT


class PlainInt(int):
    """An int subclass that behaves: a type the oracle does not know, but readable."""


def test_the_size_limit_wins_over_a_foreign_but_readable_argument() -> None:
    data = Tensor(F32, (1, 2**12), (0.0,) * 2**12)
    indices = Tensor(I32, (2**11,), (0,) * 2**11)
    with pytest.raises(OracleLimitError):
        expected("gather", data, indices, PlainInt(0))
    small = expected("gather", Tensor(F32, (2,), (1.0, 2.0)), Tensor(I32, (1,), (1,)), PlainInt(0))
    assert small.result is not None and small.result.values == (2.0,)
