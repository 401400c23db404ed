"""The Generic backend: spec scenarios, hand-derived facts and properties.

Generic is the pure-Python executable reference (spec: "Generic is the
concrete semantic reference"); these tests check it on its own.  Agreement
with the oracle is checked elsewhere.
"""

from __future__ import annotations

import ast
import math
import struct
from fractions import Fraction
from pathlib import Path

import gmpy2
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import backends
import oracle
from backends.generic import GenericBackend, GenericTensor
from backends.generic.binary32 import round_dyadic, round_float, round_ratio
from backends.generic.elementwise import LEAKY_SLOPE
from oracle import (
    Accumulation,
    DType,
    DTypeCategory,
    Tensor,
    operation_execution_options,
    registered_operations,
    resolvable_plans,
)
from oracle.plan import OperandRole

# The backends are silent on IEEE exceptions: a RuntimeWarning is a failure.
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

F32, I32, BOOL, F64 = DType.Float32, DType.Int32, DType.Bool, DType.Float64
INT32_MAX, INT32_MIN = 2**31 - 1, -(2**31)


def _extension_category() -> DType:
    try:
        return DType.from_name("GenericTestExtension")
    except KeyError:
        return DTypeCategory("GenericTestExtension")


CATEGORIES = [DType.Any, DType.Floating, DType.Integer, _extension_category()]


@pytest.fixture
def backend() -> GenericBackend:
    return GenericBackend()


def gt(data, dtype=F32) -> GenericTensor:
    """A GenericTensor from nested data."""
    return GenericTensor.from_tensor(Tensor.from_nested(data, dtype))


def run(backend, operation, *args, **kwargs) -> Tensor:
    return backend.to_tensor(backend.execute(operation, *args, **kwargs))


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def from_bits(b: int) -> float:
    return float(np.array([b], dtype=np.uint32).view(np.float32)[0])


def same(a: float, b: float) -> bool:
    """Equal as binary32 results: the same value and sign, or both NaN."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1, a) == math.copysign(1, b)


def _same_up_to_zero_sign(a: float, b: float) -> bool:
    return same(a, b) or (a == 0 and b == 0)


def scalar(backend, operation, *args, **kwargs):
    result = run(backend, operation, *args, **kwargs)
    assert result.shape == ()
    return result.values[0]


def one(x, dtype=F32) -> GenericTensor:
    return gt(x, dtype)


# -- a sample call for every operation ------------------------------------------------------------

_DATA = {F32: [1.5, -2.0, 0.25], I32: [3, -1, 2], BOOL: [True, False, True]}


def _vector(dtype) -> GenericTensor:
    return GenericTensor(dtype, (3,), tuple(_DATA.get(dtype, [1.0, 2.0, 3.0])))


def _matrix(dtype) -> GenericTensor:
    values = _DATA.get(dtype, [1.0, 2.0, 3.0])
    return GenericTensor(dtype, (2, 2), (*values, values[0]))


def _sample_args(operation: str, operands: list) -> tuple:
    """Forward arguments for *operation* given its policy operands."""
    if operation == "matmul":
        return tuple(_matrix(o) if isinstance(o, DType) else o for o in operands)
    tensors = [_vector(o) if isinstance(o, DType) else o for o in operands]
    if operation == "conv_general":
        lhs, rhs = operands
        return (
            GenericTensor(lhs, (1, 1, 3), (1.0, 2.0, 3.0)),
            GenericTensor(rhs, (1, 1, 2), (1.0, -1.0)),
        )
    if operation == "gather":
        return (tensors[0], GenericTensor(operands[1], (2,), (0, 2)), 0)
    if operation in ("scatter", "scatter_add"):
        return (
            tensors[0],
            GenericTensor(operands[1], (2,), (0, 2)),
            GenericTensor(operands[2], (2,), (5.0, 6.0)),
            0,
        )
    if operation == "cumsum":
        return (*tensors, 0)
    if operation.startswith("_topk"):
        return (*tensors, 2)
    return tuple(tensors)


def _weak_probe(convert_to) -> object:
    return 2 if convert_to is I32 else 0.5


def _plan_cases():
    cases = []
    for plan in resolvable_plans():
        operands = [
            o.dtype if o.role is OperandRole.TENSOR else _weak_probe(o.convert_to)
            for o in plan.operands
        ]
        cases.append(pytest.param(plan, operands, id=plan.describe()))
    return cases


@pytest.mark.parametrize(("plan", "operands"), _plan_cases())
def test_every_resolvable_plan_executes_with_the_plans_output_dtype(backend, plan, operands):
    args = _sample_args(plan.operation, operands)
    accumulator = plan.accumulator_dtype if plan.accumulation is Accumulation.FLOATING else None
    if backend.plan(plan.operation, *args, accumulator_dtype=accumulator) != plan:
        pytest.skip("the sample weak scalar selects another plan")
    result = backend.execute(plan.operation, *args, accumulator_dtype=accumulator)
    assert isinstance(result, GenericTensor)
    assert result.dtype is plan.output
    assert result.differentiable is (plan.output is F32)
    assert backend.allocations == 1
    backend.to_tensor(result)  # every value is valid for the dtype


def test_every_registered_operation_has_a_kernel(backend):
    assert {spec.name for spec in registered_operations()} <= set(backend.kernels)


def test_backends_get_generic():
    backend = backends.get("generic")
    assert isinstance(backend, GenericBackend)
    assert isinstance(backend, backends.Backend)
    assert backend.name == "generic"


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module or "")
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_generic_is_pure_python_and_independent_of_the_oracle_arithmetic():
    forbidden = ("numpy", "gmpy2", "oracle.binary32", "oracle.reference", "oracle.evaluate")
    # the exchange format's carrier of a signalling NaN, not arithmetic
    allowed = {"oracle.binary32", "oracle.binary32.SignallingNaN"}
    for path in Path(backends.generic.__file__).parent.glob("*.py"):
        for name in _imports(path) - allowed:
            assert not name.startswith(forbidden), (path.name, name)
        if "oracle.binary32" in _imports(path):
            assert _imports(path) & allowed == allowed, path.name


# -- GenericTensor --------------------------------------------------------------------------------


def test_generic_tensor_is_immutable_and_stores_any_descriptor():
    tensor = GenericTensor(DType.Any, (2,), (1.0, 2.0))
    assert tensor.dtype is DType.Any and tensor.shape == (2,) and tensor.values == (1.0, 2.0)
    with pytest.raises(AttributeError):
        tensor.dtype = F32  # type: ignore[misc]
    assert GenericTensor(DType.Int8, (), (1,)).dtype is DType.Int8
    with pytest.raises(ValueError, match="needs 2 values"):
        GenericTensor(F32, (2,), (1.0,))


def test_differentiable_exactly_for_float32():
    assert GenericTensor(F32, (), (1.0,)).differentiable
    assert not GenericTensor(I32, (), (1,)).differentiable
    assert not GenericTensor(BOOL, (), (True,)).differentiable
    assert not GenericTensor(F64, (), (1.0,)).differentiable


def test_tensor_round_trip_keeps_nan_bits(backend):
    tensor = Tensor.from_numpy(
        np.array([0x7FC01234, 0xFFC00001, 0x80000000], np.uint32).view(np.float32)
    )
    native = backend.from_tensor(tensor)
    assert isinstance(native, GenericTensor)
    assert backend.to_tensor(native).bits() == tensor.bits()


def test_dtype_of(backend):
    assert backend.dtype_of(gt([1], I32)) is I32
    assert backend.dtype_of(GenericTensor(DType.Any, (), (0,))) is DType.Any
    assert backend.dtype_of(Tensor.from_nested([1.0], F32)) is None
    assert backend.dtype_of(2.0) is None


def test_an_exchange_tensor_is_not_a_generic_operand(backend):
    with pytest.raises(TypeError):
        backend.execute("exp", Tensor.from_nested([1.0], F32))
    assert backend.allocations == 0


# -- central planning refuses before Generic allocates --------------------------------------------


def _first_tensor_replaced(plan_operands, dtype):
    replaced = list(plan_operands)
    position = next(i for i, o in enumerate(replaced) if isinstance(o, DType))
    replaced[position] = dtype
    return replaced


def _one_case_per_operation():
    seen, cases = set(), []
    for plan in resolvable_plans():
        if plan.operation in seen:
            continue
        seen.add(plan.operation)
        operands = [
            o.dtype if o.role is OperandRole.TENSOR else _weak_probe(o.convert_to)
            for o in plan.operands
        ]
        cases.append(pytest.param(plan.operation, operands, id=plan.operation))
    return cases


@pytest.mark.parametrize(("operation", "operands"), _one_case_per_operation())
@pytest.mark.parametrize("category", CATEGORIES, ids=lambda c: c.name)
def test_reject_generic_category_operands_through_central_planning(
    backend, operation, operands, category
):
    args = _sample_args(operation, _first_tensor_replaced(operands, category))
    with pytest.raises(TypeError, match="abstract category"):
        backend.execute(operation, *args)
    assert backend.allocations == 0


@pytest.mark.parametrize("category", CATEGORIES, ids=lambda c: c.name)
def test_a_category_in_any_tensor_position_is_refused(backend, category):
    x = gt([1.0, 2.0])
    for args in [
        (x, GenericTensor(category, (2,), (1.0, 2.0))),
        (GenericTensor(category, (2,), (1, 2)), x),
    ]:
        with pytest.raises(TypeError, match="abstract category"):
            backend.execute("add", *args)
    assert backend.allocations == 0


@pytest.mark.parametrize(("operation", "operands"), _one_case_per_operation())
def test_compound_and_unimplemented_dtypes_are_refused(backend, operation, operands):
    for dtype, message in [
        (DType.MXFP4, "representation-aware"),
        (DType.Int8, "never widened"),
        (DType.Float16, "never widened"),
        (F64, "never widened"),
    ]:
        args = _sample_args(operation, _first_tensor_replaced(operands, dtype))
        with pytest.raises(NotImplementedError, match=message):
            backend.execute(operation, *args)
    assert backend.allocations == 0


def test_unregistered_operation_is_refused(backend):
    with pytest.raises(NotImplementedError, match="not registered"):
        backend.execute("no_such_operation", gt([1.0]))
    assert backend.allocations == 0


def test_a_wrong_operand_dtype_is_refused_not_promoted(backend):
    with pytest.raises(TypeError, match="outside this overload's domain"):
        backend.execute("select", gt([1.0]), gt([1.0]), gt([2.0]))
    with pytest.raises(TypeError, match="outside this overload's domain"):
        backend.execute("add", gt([True], BOOL), gt([1.0]))
    assert backend.allocations == 0


def test_an_integer_plan_refuses_a_floating_accumulator(backend):
    with pytest.raises(TypeError, match="exactly over integers"):
        backend.execute("reduce_sum", gt([1, 2], I32), accumulator_dtype=F64)
    assert backend.allocations == 0


@pytest.mark.parametrize(
    ("error", "operation", "args", "kwargs"),
    [
        (ValueError, "add", lambda: (gt([1.0, 2.0]), gt([1.0, 2.0, 3.0])), {}),
        (
            ValueError,
            "select",
            lambda: (gt([True, False], BOOL), gt([1.0, 2.0, 3.0]), gt([1.0])),
            {},
        ),
        (ValueError, "clamp", lambda: (gt([1.0, 2.0]), gt([0.0, 0.0, 0.0]), 1.0), {}),
        (ValueError, "matmul", lambda: (gt([[1.0, 2.0]]), gt([[1.0, 2.0]])), {}),
        (ValueError, "matmul", lambda: (gt([1.0, 2.0]), gt([[1.0], [2.0]])), {}),
        (
            ValueError,
            "conv_general",
            lambda: (gt([[[1.0]]]), gt([[[1.0]], [[1.0]]]), None, None, None, None, 2),
            {},
        ),
        (ValueError, "conv_general", lambda: (gt([[[1.0, 2.0]]]), gt([[[1.0]]]), (0,)), {}),
        (ValueError, "conv_general", lambda: (gt([[[1.0, 2.0]]]), gt([[[1.0]]]), (1, 1)), {}),
        (TypeError, "conv_general", lambda: (gt([[[1.0, 2.0]]]), gt([[[1.0]]]), (1.5,)), {}),
        (ValueError, "scatter", lambda: (gt([1.0, 2.0]), gt([0], I32), gt([1.0, 2.0]), 0), {}),
        (ValueError, "scatter", lambda: (gt([1.0, 2.0]), gt([1, 1], I32), gt([1.0, 2.0]), 0), {}),
        (IndexError, "scatter", lambda: (gt([1.0, 2.0]), gt([2], I32), gt([1.0]), 0), {}),
        (IndexError, "scatter_add", lambda: (gt([1.0, 2.0]), gt([-1], I32), gt([1.0]), 0), {}),
        (IndexError, "gather", lambda: (gt([1.0, 2.0]), gt([0, 2], I32), 0), {}),
        (IndexError, "gather", lambda: (gt([1.0, 2.0]), gt([-1], I32), 0), {}),
        (ValueError, "reduce_sum", lambda: (gt([[1.0]]), (0, -2)), {}),
        (ValueError, "reduce_sum", lambda: (gt([1.0]), 1), {}),
        (IndexError, "reduce_prod", lambda: (gt([1.0]), -2), {}),
        (TypeError, "reduce_sum", lambda: (gt([1.0]), 0.0), {}),
        (TypeError, "reduce_sum", lambda: (gt([1.0]), None, 1), {}),
        (ValueError, "reduce_max", lambda: (gt([]),), {}),
        (ValueError, "reduce_min", lambda: (GenericTensor(F32, (2, 0), ()), 1), {}),
        (ValueError, "argmax", lambda: (gt([]),), {}),
        (ValueError, "argmin", lambda: (GenericTensor(F32, (0, 2), ()), 0), {}),
        (ValueError, "cumsum", lambda: (gt([1.0]), 1), {}),
        (ValueError, "_topk_values", lambda: (gt([1.0, 2.0]), 3), {}),
        (ValueError, "_topk_indices", lambda: (gt([1.0, 2.0]), -1), {}),
        (TypeError, "_topk_values", lambda: (gt([1.0, 2.0]), 1.0), {}),
        (TypeError, "_sort_values", lambda: (gt([1.0, 2.0]),), {"descending": "yes"}),
        (ValueError, "_sort_indices", lambda: (gt(1.0),), {}),
        (OverflowError, "add", lambda: (gt([INT32_MAX], I32), gt([1], I32)), {}),
        (OverflowError, "reduce_sum", lambda: (gt([INT32_MAX, 1], I32),), {}),
        (OverflowError, "pow", lambda: (gt([2], I32), 31), {}),
        (TypeError, "add", lambda: (gt([1.0]), "1"), {}),
        (OverflowError, "mul", lambda: (gt([1], I32), 2**31), {}),
    ],
)
def test_every_error_comes_before_allocation(backend, error, operation, args, kwargs):
    with pytest.raises(error):
        backend.execute(operation, *args(), **kwargs)
    assert backend.allocations == 0


def test_a_shape_error_names_the_shapes(backend):
    with pytest.raises(ValueError, match=r"\(2,\) and \(3,\)"):
        backend.execute("add", gt([1.0, 2.0]), gt([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match=r"\(1, 2\) and \(1, 2\)"):
        backend.execute("matmul", gt([[1.0, 2.0]]), gt([[1.0, 2.0]]))


def test_each_success_allocates_once(backend):
    x = gt([1.0, 2.0])
    backend.execute("add", x, x)
    backend.execute("reduce_sum", x)
    backend.execute("_topk_indices", x, 1)
    assert backend.allocations == 3


# -- Bool, Int32 and IEEE results -----------------------------------------------------------------


@pytest.mark.parametrize("operation", ["eq", "ne", "lt", "le"])
def test_bool_results_are_python_bools_and_not_differentiable(backend, operation):
    x, y = gt([1.0, math.nan, -0.0, 2.0]), gt([1.0, math.nan, 0.0, 1.0])
    result = backend.execute(operation, x, y)
    assert result.dtype is BOOL and not result.differentiable
    assert all(type(v) is bool for v in result.values)
    expected = {
        "eq": (True, False, True, False),
        "ne": (False, True, False, True),
        "lt": (False, False, False, False),
        "le": (True, False, True, False),
    }[operation]
    assert result.values == expected


def test_logical_not_is_x_equal_zero(backend):
    result = backend.execute("logical_not", gt([0.0, -0.0, math.nan, 1.0, -math.inf]))
    assert result.values == (True, True, False, False, False)
    assert all(type(v) is bool for v in result.values) and not result.differentiable


@pytest.mark.parametrize(
    ("operation", "a", "b"),
    [
        ("add", INT32_MAX, 1),
        ("sub", INT32_MIN, 1),
        ("mul", 65536, 32768),
        ("elementwise_mul", -65536, 32769),
    ],
)
def test_int32_overflow_raises_rather_than_wrapping(backend, operation, a, b):
    with pytest.raises(OverflowError, match="outside"):
        backend.execute(operation, gt([a], I32), gt([b], I32))


def test_int32_exact_checked_paths(backend):
    assert run(backend, "mul", gt([65536], I32), gt([-32768], I32)).values == (INT32_MIN,)
    assert run(backend, "sub", gt([INT32_MIN + 1], I32), gt([1], I32)).values == (INT32_MIN,)
    mul_weak = backend.execute("mul", gt([3, -3], I32), 715827882)
    assert mul_weak.dtype is I32 and mul_weak.values == (2147483646, -2147483646)
    with pytest.raises(OverflowError):
        backend.execute("mul", gt([4], I32), 2**30)
    assert run(backend, "relu", gt([INT32_MIN, 0, 5], I32)).values == (0, 0, 5)


@pytest.mark.parametrize(
    ("base", "exponent", "expected"),
    [
        (0, 0, 1),
        (5, 0, 1),
        (0, INT32_MAX, 0),
        (1, INT32_MAX, 1),
        (-1, INT32_MAX, -1),
        (-1, 2**31 - 2, 1),
        (-2, 31, INT32_MIN),
        (2, 30, 2**30),
        (3, 19, 3**19),
        (-3, 19, -(3**19)),
        (46340, 2, 46340**2),
    ],
)
def test_int32_pow_is_exact(backend, base, exponent, expected):
    result = backend.execute("pow", gt([base], I32), exponent)
    assert result.dtype is I32 and result.values == (expected,)


@pytest.mark.parametrize(
    ("base", "exponent"), [(2, 31), (-2, 32), (3, INT32_MAX), (46341, 2), (-3, 21)]
)
def test_int32_pow_overflow_is_checked_without_building_the_power(backend, base, exponent):
    with pytest.raises(OverflowError):
        backend.execute("pow", gt([base], I32), exponent)


def test_int32_pow_with_other_exponents_is_float32(backend):
    assert backend.execute("pow", gt([2], I32), -1).values == (0.5,)
    assert backend.execute("pow", gt([2], I32), 2**31).values == (math.inf,)
    assert backend.execute("pow", gt([2], I32), gt([3], I32)).values == (8.0,)
    assert backend.execute("pow", 2, gt([3], I32)).values == (8.0,)


def test_ieee_singularities_give_ieee_values(backend):
    def one_value(operation, *values):
        return scalar(backend, operation, *(gt(v) for v in values))

    assert one_value("div", 1.0, 0.0) == math.inf
    assert one_value("div", -1.0, 0.0) == -math.inf
    assert one_value("div", 1.0, -0.0) == -math.inf
    assert math.isnan(one_value("div", 0.0, 0.0))
    assert math.isnan(one_value("div", math.inf, math.inf))
    assert one_value("recip", -0.0) == -math.inf
    assert one_value("log", 0.0) == -math.inf and one_value("log2", -0.0) == -math.inf
    assert math.isnan(one_value("log", -1.0)) and math.isnan(one_value("sqrt", -1.0))
    assert math.isnan(one_value("mul", 0.0, math.inf))
    assert math.isnan(one_value("sub", math.inf, math.inf))
    assert one_value("add", 3.4028234663852886e38, 3.4028234663852886e38) == math.inf
    assert one_value("mul", f32(-1e30), f32(1e30)) == -math.inf
    assert one_value("exp", 100.0) == math.inf and one_value("exp", -200.0) == 0.0
    assert math.isnan(one_value("rem", 1.0, 0.0)) and math.isnan(one_value("rem", math.inf, 1.0))
    assert one_value("pow", 0.0, -1.0) == math.inf and one_value("pow", -0.0, -1.0) == -math.inf
    assert one_value("pow", 10.0, 39.0) == math.inf
    assert math.isnan(one_value("sin", math.inf)) and math.isnan(one_value("cos", -math.inf))


def test_division_of_int32_is_float32(backend):
    result = backend.execute("div", gt([1, 7], I32), gt([3, 0], I32))
    assert result.dtype is F32 and result.values == (f32(1 / 3), math.inf)


# -- conversions ----------------------------------------------------------------------------------


def test_int32_to_float32_is_one_correct_rounding(backend):
    result = run(backend, "add", gt([2**24 + 1, 2**24 + 3, -(2**24) - 1, INT32_MAX], I32), gt(0.0))
    assert result.values == (16777216.0, 16777220.0, -16777216.0, 2147483648.0)


@pytest.mark.parametrize(
    ("weak", "expected"),
    [
        (2**24 + 1, 16777216.0),
        (2**31, 2147483648.0),
        (2**128, math.inf),
        (2**128 - 2**103, math.inf),  # exactly halfway to 2**128: rounds to even, overflows
        (2**128 - 2**103 - 1, 3.4028234663852886e38),
        (-(10**400), -math.inf),
        (Fraction(1, 3), f32(1 / 3)),
        (Fraction(-1, 10**60), -0.0),
        (Fraction(3, 2**150), 2.0**-148),  # 1.5 * 2**-149: a tie, to even
        (Fraction(1, 2**150), 0.0),
        (0.1, f32(0.1)),
        (1 + 2**-24, 1.0),  # a binary64 tie, to even
        (1 + 2**-24 + 2**-52, 1.0000001192092896),  # rounded from the exact binary64 value
        (-0.0, -0.0),
        (True, 1.0),
        (np.float64(-2.5), -2.5),
        (np.int64(-(2**40) - 1), float(-(2**40))),
    ],
)
def test_weak_scalars_round_once_from_their_exact_value(backend, weak, expected):
    result = backend.execute("mul", gt([1.0]), weak)
    assert result.dtype is F32
    assert same(result.values[0], expected), (result.values[0], expected)


def test_weak_nan_and_infinity(backend):
    assert math.isnan(backend.execute("mul", gt([1.0]), math.nan).values[0])
    assert backend.execute("clamp", gt([5.0, -5.0]), -math.inf, 2**200).values == (5.0, -5.0)


def test_bool_weak_scalar_selects_float32(backend):
    result = backend.execute("mul", gt([3], I32), True)
    assert result.dtype is F32 and result.values == (3.0,)


# -- hand-derived value facts ---------------------------------------------------------------------


def test_gelu_of_minus_ten_is_a_tiny_normal_number(backend):
    value = scalar(backend, "gelu", gt(-10.0))
    assert value < 0 and -value > 2.0**-126
    assert math.isclose(value, -7.619853e-23, rel_tol=1e-6)


@pytest.mark.parametrize(
    ("operation", "x", "expected"),
    [
        ("exp", 0.0, 1.0),
        ("exp", -0.0, 1.0),
        ("exp", -math.inf, 0.0),
        ("exp2", -150.0, 0.0),  # 2**-150 is halfway between 0 and 2**-149: ties to even
        ("exp2", -149.0, 2.0**-149),
        ("exp2", 127.0, 2.0**127),
        ("exp2", 128.0, math.inf),
        ("exp2", 0.5, f32(math.sqrt(2))),
        ("log", 1.0, 0.0),
        ("log2", 2.0**-149, -149.0),
        ("log2", math.inf, math.inf),
        ("sin", -0.0, -0.0),
        ("cos", -0.0, 1.0),
        ("tanh", -math.inf, -1.0),
        ("tanh", -0.0, -0.0),
        ("erf", -0.0, -0.0),
        ("erf", math.inf, 1.0),
        ("rsqrt", 0.0, math.inf),
        ("rsqrt", -0.0, -math.inf),
        ("rsqrt", math.inf, 0.0),
        ("rsqrt", 4.0, 0.5),
        ("rsqrt", -4.0, math.nan),
        ("sigmoid", -math.inf, 0.0),
        ("sigmoid", 0.0, 0.5),
        ("silu", -math.inf, -0.0),
        ("silu", -0.0, -0.0),
        ("gelu", -math.inf, -0.0),
        ("gelu", -0.0, -0.0),
        ("gelu", -30.0, -0.0),
        ("softplus", -math.inf, 0.0),
        ("softplus", 0.0, f32(math.log(2))),
        ("elu", -0.0, -0.0),
        ("elu", -math.inf, -1.0),
        ("elu", 3.0, 3.0),
        ("relu", -0.0, 0.0),
        ("relu", math.nan, math.nan),
        ("leaky_relu", -0.0, -0.0),
        ("leaky_relu", -100.0, f32(f32(0.01) * -100.0)),
        ("sign", -0.0, 0.0),
        ("sign", -3.0, -1.0),
        ("sign", math.nan, math.nan),
        ("round", 2.5, 2.0),
        ("round", -0.5, -0.0),
        ("round", 3.5, 4.0),
        ("floor", -0.5, -1.0),
        ("floor", -0.0, -0.0),
        ("ceil", -0.5, -0.0),
        ("sqrt", -0.0, -0.0),
        ("recip", 3.0, f32(1 / 3)),
    ],
)
def test_special_points(backend, operation, x, expected):
    assert same(scalar(backend, operation, gt(x)), expected)


def test_leaky_relu_slope_is_binary32_one_hundredth():
    assert bits(LEAKY_SLOPE) == 0x3C23D70A


@pytest.mark.parametrize(
    ("operation", "x", "y", "expected"),
    [
        ("maximum", 0.0, -0.0, 0.0),
        ("maximum", -0.0, 0.0, 0.0),
        ("minimum", 0.0, -0.0, -0.0),
        ("minimum", -0.0, 0.0, -0.0),
        ("maximum", math.nan, 1.0, math.nan),
        ("minimum", 1.0, math.nan, math.nan),
        ("rem", -6.0, 3.0, -0.0),
        ("rem", 7.0, -3.0, 1.0),
        ("rem", -7.5, math.inf, -7.5),
        ("rem", 1.0, -0.0, math.nan),
        ("pow", math.nan, 0.0, 1.0),
        ("pow", math.nan, -0.0, 1.0),
        ("pow", 1.0, math.nan, 1.0),
        ("pow", -1.0, math.inf, 1.0),
        ("pow", -1.0, -math.inf, 1.0),
        ("pow", -8.0, f32(1 / 3), math.nan),
        ("pow", -0.0, -1.0, -math.inf),
        ("pow", -0.0, -2.0, math.inf),
        ("pow", -0.0, 3.0, -0.0),
        ("pow", -0.0, 0.5, 0.0),
        ("pow", 0.5, -math.inf, math.inf),
        ("pow", 2.0, -math.inf, 0.0),
        ("pow", -math.inf, 3.0, -math.inf),
        ("pow", -math.inf, -3.0, -0.0),
        ("pow", -math.inf, 2.0, math.inf),
        ("pow", math.inf, -0.5, 0.0),
        ("pow", -2.0, 3.0, -8.0),
        ("pow", -2.0, -1.0, -0.5),
        ("pow", 2.0, 0.5, f32(math.sqrt(2))),
        ("pow", 4.0, 0.5, 2.0),
        ("pow", 2.0**-100, 1.5, 0.0),  # 2**-150: exactly halfway, ties to +0
        ("pow", 2.0**-100, -1.25, 2.0**125),
        ("pow", 1.0 + 2.0**-12, 2.0, 1.0 + 2.0**-11),  # exactly a midpoint: ties to even
        ("pow", 3.0, 2.0**24, math.inf),
        ("pow", 9.0, -0.5, f32(1 / 3)),
        ("pow", 16.0, 0.25, 2.0),
    ],
)
def test_binary_special_points(backend, operation, x, y, expected):
    assert same(scalar(backend, operation, gt(x), gt(y)), expected)


def test_pow_with_a_huge_exponent_near_one_is_correctly_rounded(backend):
    x, y = 1.0 - 2.0**-24, 2.0**30  # exp(2**30 * log1p(-2**-24)), just below exp(-64)
    with gmpy2.context(_BINARY32_CONTEXT):
        expected = float(gmpy2.mpfr(x) ** gmpy2.mpfr(y))
    assert scalar(backend, "pow", gt(x), gt(y)) == expected != f32(math.exp(-64))


def test_nan_bit_copies(backend):
    payload = from_bits(0x7FC01234)
    x = Tensor.from_numpy(
        np.array([0x7FC01234, 0x3F800000, 0xFFC00042], np.uint32).view(np.float32)
    )
    native = backend.from_tensor(x)
    assert run(backend, "neg", native).bits() == (0xFFC01234, 0xBF800000, 0x7FC00042)
    assert run(backend, "abs", native).bits() == (0x7FC01234, 0x3F800000, 0x7FC00042)
    assert run(backend, "gather", native, gt([2, 0], I32), 0).bits() == (0xFFC00042, 0x7FC01234)
    assert run(backend, "reduce_max", native).bits() == (0x7FC01234,)
    assert run(backend, "reduce_min", backend.execute("_sort_values", native)).bits() == (
        0x7FC01234,
    )
    assert run(backend, "_sort_values", native).bits() == (0x3F800000, 0x7FC01234, 0xFFC00042)
    assert run(backend, "_topk_values", native, 2).bits() == (0x7FC01234, 0xFFC00042)
    chosen = run(backend, "select", gt([True, False, True], BOOL), native, gt([0.0, 0.0, 0.0]))
    assert chosen.bits() == (0x7FC01234, 0, 0xFFC00042)
    scattered = run(
        backend,
        "scatter",
        gt([1.0, 2.0]),
        gt([1], I32),
        backend.from_tensor(Tensor(F32, (1,), (payload,))),
        0,
    )
    assert scattered.bits() == (0x3F800000, 0x7FC01234)


_SIGNALLING = (0x7F800001, 0xFFA00000, 0x7FBFFFFF, 0xFF800001)


def _signalling_tensor() -> Tensor:
    return Tensor.from_bits(F32, (4,), _SIGNALLING)


@pytest.mark.parametrize(
    ("operation", "args"),
    [
        ("neg", lambda x: (x,)),
        ("abs", lambda x: (x,)),
        ("gather", lambda x: (x, Tensor.from_nested([3, 0, 2], I32), 0)),
        (
            "scatter",
            lambda x: (
                Tensor.from_nested([1.0, 2.0, 3.0, 4.0, 5.0], F32),
                Tensor.from_nested([4, 0, 2, 1], I32),
                x,
                0,
            ),
        ),
        ("select", lambda x: (Tensor.from_nested([True, False, True, False], BOOL), x, x)),
        ("_sort_values", lambda x: (x,)),
        ("_topk_values", lambda x: (x, 3)),
        ("reduce_max", lambda x: (x,)),
        ("reduce_min", lambda x: (x,)),
    ],
)
def test_bit_copies_keep_signalling_nans(backend, operation, args):
    """Through oracle.Tensor, a signalling NaN keeps its exact pattern in every bit copy."""
    call = args(_signalling_tensor())
    expected = oracle.expected(operation, *call)
    assert expected.error is None and expected.nan_bits
    native = [backend.from_tensor(a) if isinstance(a, Tensor) else a for a in call]
    result = run(backend, operation, *native)
    assert result.bits() == expected.result.bits()
    assert expected.check(result).ok


def test_neg_and_abs_of_signalling_nans(backend):
    native = backend.from_tensor(_signalling_tensor())
    assert run(backend, "neg", native).bits() == (0xFF800001, 0x7FA00000, 0xFFBFFFFF, 0x7F800001)
    assert run(backend, "abs", native).bits() == (0x7F800001, 0x7FA00000, 0x7FBFFFFF, 0x7F800001)


# -- reductions and accumulators ------------------------------------------------------------------


def test_reduce_sum_starts_from_plus_zero(backend):
    assert run(backend, "reduce_sum", gt([-0.0, -0.0])).bits() == (0,)
    assert run(backend, "reduce_sum", gt([-0.0]), accumulator_dtype=F64).bits() == (0,)
    assert run(backend, "reduce_sum", gt([])).values == (0.0,)
    assert run(backend, "reduce_sum", gt([], I32)).values == (0,)
    assert run(backend, "reduce_prod", gt([])).values == (1.0,)
    assert run(backend, "cumsum", gt([-0.0, -0.0]), 0).bits() == (0, 0)


_CANCELLATION = [2.0**24, 1.0, -(2.0**24)]


def test_float32_and_float64_accumulators_differ_on_cancellation(backend):
    x = gt(_CANCELLATION)
    narrow = backend.execute("reduce_sum", x)
    wide = backend.execute("reduce_sum", x, accumulator_dtype=F64)
    by_options = backend.execute(
        "reduce_sum", x, options=operation_execution_options("reduce_sum", accumulator_dtype=F64)
    )
    assert narrow.values == (0.0,)  # 2**24 + 1 rounds to 2**24 in binary32
    assert wide.values == (1.0,) and by_options.values == (1.0,)
    assert narrow.dtype is wide.dtype is F32 and wide.differentiable


def test_matmul_accumulator_variants_keep_float32_storage(backend):
    a, b = gt([_CANCELLATION]), gt([[1.0], [1.0], [1.0]])
    narrow = backend.execute("matmul", a, b)
    wide = backend.execute("matmul", a, b, accumulator_dtype=F64)
    assert narrow.dtype is wide.dtype is F32
    assert narrow.shape == wide.shape == (1, 1)
    assert narrow.values == (0.0,) and wide.values == (1.0,)


def test_float64_accumulator_rounds_once_at_the_end(backend):
    terms = [1.0, 2.0**-24, 2.0**-24]  # binary32 steps: 1 + 2**-24 ties back to 1, twice
    assert run(backend, "reduce_sum", gt(terms)).values == (1.0,)
    assert run(backend, "reduce_sum", gt(terms), accumulator_dtype=F64).values == (1.0 + 2.0**-23,)


def test_float32_sum_is_sequential_in_ascending_logical_order(backend):
    x = gt([[1.0, 2.0**-24], [2.0**-24, 0.0]])
    # Column 0: 1 + 2**-24 -> 1; row-major over axis None: ((1 + 2**-24) + 2**-24) + 0 -> 1.
    assert run(backend, "reduce_sum", x).values == (1.0,)
    assert run(backend, "reduce_sum", gt([2.0**-24, 2.0**-24, 1.0])).values == (1.0 + 2.0**-23,)


def test_int32_partial_sums_may_leave_the_range(backend):
    x = gt([INT32_MAX, 1, -1], I32)
    result = backend.execute("reduce_sum", x)
    assert result.dtype is I32 and result.values == (INT32_MAX,)
    product = backend.execute("matmul", gt([[INT32_MAX, 1, -2]], I32), gt([[1], [1], [1]], I32))
    assert product.values == (INT32_MAX - 1,)
    with pytest.raises(OverflowError):
        backend.execute("matmul", gt([[65536]], I32), gt([[32768]], I32))


def test_mixed_matmul_converts_int32_terms(backend):
    result = backend.execute("matmul", gt([[2**24 + 1]], I32), gt([[1.0]]))
    assert result.dtype is F32 and result.values == (16777216.0,)


def test_matmul_rounds_each_product_first(backend):
    # (1 + 2**-12)**2 = 1 + 2**-11 + 2**-24 rounds to 1 + 2**-11 (a tie, to even) before adding.
    x = 1.0 + 2.0**-12
    a, b = gt([[x, 2.0**-24]]), gt([[x], [1.0]])
    assert run(backend, "matmul", a, b, accumulator_dtype=F64).values == (1.0 + 2.0**-11,)
    assert run(backend, "matmul", gt([[0.0]]), gt([[math.inf]])).values[0] != 0.0  # NaN


def test_matmul_with_empty_inner_dimension(backend):
    assert run(
        backend, "matmul", GenericTensor(F32, (2, 0), ()), GenericTensor(F32, (0, 1), ())
    ).values == (0.0, 0.0)
    assert run(
        backend, "matmul", GenericTensor(I32, (1, 0), ()), GenericTensor(I32, (0, 1), ())
    ).values == (0,)


def test_reductions_over_axes(backend):
    x = gt([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert run(backend, "reduce_sum", x, 0).values == (5.0, 7.0, 9.0)
    assert run(backend, "reduce_sum", x, -1, True).shape == (2, 1)
    assert run(backend, "reduce_sum", x, (0, 1), True).tolist() == [[21.0]]
    assert run(backend, "reduce_prod", x, 1).values == (6.0, 120.0)
    assert run(backend, "reduce_max", x, (1,)).values == (3.0, 6.0)
    assert run(backend, "reduce_min", x, None, True).tolist() == [[1.0]]
    assert run(backend, "argmax", x).values == (5,)
    assert run(backend, "argmin", x, 0).values == (0, 0, 0)
    assert run(backend, "cumsum", x, 1).tolist() == [[1.0, 3.0, 6.0], [4.0, 9.0, 15.0]]
    assert run(backend, "reduce_sum", GenericTensor(F32, (0, 3), ()), 1).shape == (0,)


def test_extrema_signed_zero_and_nan_rules(backend):
    assert run(backend, "reduce_max", gt([-0.0, 0.0])).bits() == (0,)
    assert run(backend, "reduce_min", gt([0.0, -0.0])).bits() == (0x80000000,)
    assert run(backend, "argmax", gt([-0.0, 0.0])).values == (0,)  # -0 and +0 tie: first wins
    assert run(backend, "argmin", gt([0.0, -0.0])).values == (0,)
    assert run(backend, "argmax", gt([1.0, math.nan, math.nan, 5.0])).values == (1,)
    assert run(backend, "argmin", gt([1.0, 0.5, 0.5, math.nan])).values == (3,)
    assert run(backend, "argmax", gt([3.0, 3.0, 1.0])).values == (0,)
    assert run(backend, "argmax", gt(2.0)).values == (0,)


# -- structured -----------------------------------------------------------------------------------


def test_conv_general_cross_correlation_with_padding_and_dilation(backend):
    lhs = gt([[[1.0, 2.0, 3.0]]])
    rhs = gt([[[1.0, 10.0]]])
    assert run(backend, "conv_general", lhs, rhs).tolist() == [[[21.0, 32.0]]]
    padded = run(backend, "conv_general", lhs, rhs, (1,), ((1, 1),))
    assert padded.tolist() == [[[10.0, 21.0, 32.0, 3.0]]]
    strided = run(backend, "conv_general", lhs, rhs, (2,), ((1, 1),), (1,), (1,), 1)
    assert strided.tolist() == [[[10.0, 32.0]]]
    lhs_dilated = run(backend, "conv_general", lhs, rhs, None, None, (2,))  # 1 0 2 0 3
    assert lhs_dilated.tolist() == [[[1.0, 20.0, 2.0, 30.0]]]
    rhs_dilated = run(backend, "conv_general", lhs, rhs, None, None, None, (2,))
    assert rhs_dilated.tolist() == [[[31.0]]]


def test_conv_general_groups_and_hole_terms(backend):
    lhs = gt([[[1.0], [2.0], [3.0], [4.0]]])  # batch 1, 4 channels, width 1
    rhs = gt([[[1.0], [1.0]], [[10.0], [100.0]]])  # 2 groups of 2 input channels
    assert run(backend, "conv_general", lhs, rhs, None, None, None, None, 2).tolist() == [
        [[3.0], [430.0]]
    ]
    # A padding position contributes round(0 * w): an infinite weight makes it NaN.
    nan = run(backend, "conv_general", gt([[[1.0]]]), gt([[[1.0, math.inf]]]), None, ((0, 1),))
    assert math.isnan(nan.values[0])


def test_gather_scatter_and_scatter_add(backend):
    data = gt([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    gathered = run(backend, "gather", data, gt([[2, 0]], I32), 1)
    assert gathered.shape == (2, 1, 2) and gathered.tolist() == [[[3.0, 1.0]], [[6.0, 4.0]]]
    assert run(backend, "gather", data, gt(1, I32), 0).tolist() == [4.0, 5.0, 6.0]
    scattered = run(backend, "scatter", data, gt([1], I32), gt([[9.0], [8.0]]), -1)
    assert scattered.tolist() == [[1.0, 9.0, 3.0], [4.0, 8.0, 6.0]]
    base, twice, tiny = gt([-0.0, 1.0]), gt([1, 1], I32), gt([2.0**-24, 2.0**-24])
    added = run(backend, "scatter_add", base, twice, tiny, 0)
    assert added.bits() == (0x80000000, bits(1.0))  # sequential: 1 + 2**-24 ties back to 1, twice
    minus_zero = run(backend, "scatter_add", gt([-0.0]), gt([0], I32), gt([-0.0]), 0)
    assert minus_zero.bits() == (0x80000000,)  # starts from base, not from +0


def test_select_and_clamp_broadcast(backend):
    chosen = run(backend, "select", gt([[True], [False]], BOOL), gt([1.0, 2.0]), gt(0.0))
    assert chosen.tolist() == [[1.0, 2.0], [0.0, 0.0]]
    clamped = run(backend, "clamp", gt([[-5.0, 0.5, 5.0, math.nan]]), gt([[0.0], [1.0]]), 1.0)
    assert clamped.shape == (2, 4)
    assert clamped.values[:3] == (0.0, 0.5, 1.0) and math.isnan(clamped.values[3])
    assert run(backend, "clamp", gt([0.5, -0.0]), 2.0, 1.0).values == (1.0, 1.0)  # lo > hi gives hi
    assert run(backend, "clamp", gt([-0.0]), 0.0, 1.0).bits() == (0,)
    weak = run(backend, "clamp", gt([0.0]), 0.1, 1)
    assert weak.values == (f32(0.1),)


def test_sort_and_topk_stability_nans_and_signed_zeros(backend):
    x = gt([0.0, math.nan, -1.0, -0.0, 2.0, math.nan, 0.0])
    assert run(backend, "_sort_indices", x).values == (2, 0, 3, 6, 4, 1, 5)
    assert run(backend, "_sort_indices", x, -1, True).values == (1, 5, 4, 0, 3, 6, 2)
    assert run(backend, "_topk_indices", x, 3).values == (1, 5, 4)
    assert run(backend, "_topk_indices", x, 4, 0, False).values == (2, 0, 3, 6)
    assert run(backend, "_sort_values", x).bits()[:4] == (bits(-1.0), 0, 0x80000000, 0)
    matrix = gt([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    assert run(backend, "_sort_values", matrix, 0, True).tolist() == [
        [3.0, 5.0, 4.0],
        [0.0, 1.0, 2.0],
    ]
    top = run(backend, "_topk_values", matrix, 2, 1)
    assert top.shape == (2, 2) and top.tolist() == [[3.0, 2.0], [5.0, 4.0]]
    assert run(backend, "_topk_indices", matrix, 0).shape == (2, 0)


# -- properties against numpy float32 and MPFR ----------------------------------------------------

finite_or_not = st.floats(width=32, allow_nan=True, allow_infinity=True)
_NUMPY_BINARY = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "rem": np.fmod,
    "maximum": np.maximum,  # numpy does not order signed zeros: compared up to a zero's sign
    "minimum": np.minimum,
}
_NUMPY_UNARY = {
    "sqrt": np.sqrt,
    "recip": np.reciprocal,
    "floor": np.floor,
    "ceil": np.ceil,
    "round": np.rint,
    "neg": np.negative,
    "abs": np.abs,
}


@settings(max_examples=60)
@given(st.lists(st.tuples(finite_or_not, finite_or_not), min_size=1, max_size=8))
def test_binary_arithmetic_matches_numpy_float32(pairs):
    backend = GenericBackend()
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    x, y = np.array(xs, np.float32), np.array(ys, np.float32)
    with np.errstate(all="ignore"):
        for operation, function in _NUMPY_BINARY.items():
            got = run(backend, operation, gt(xs), gt(ys)).values
            expected = function(x, y).tolist()
            agree = same if operation not in ("maximum", "minimum") else _same_up_to_zero_sign
            assert all(agree(g, e) for g, e in zip(got, expected)), (operation, xs, ys, got)
        for operation in ("eq", "ne", "lt", "le"):
            got = run(backend, operation, gt(xs), gt(ys)).values
            expected = {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y}[operation].tolist()
            assert list(got) == expected, operation


@settings(max_examples=60)
@given(st.lists(finite_or_not, min_size=1, max_size=8))
def test_unary_arithmetic_matches_numpy_float32(xs):
    backend = GenericBackend()
    x = np.array(xs, np.float32)
    with np.errstate(all="ignore"):
        for operation, function in _NUMPY_UNARY.items():
            got = run(backend, operation, gt(xs)).values
            expected = function(x).tolist()
            assert all(same(g, e) for g, e in zip(got, expected)), (operation, xs, got, expected)


@given(st.lists(st.integers(INT32_MIN, INT32_MAX), min_size=1, max_size=8))
def test_int32_to_float32_matches_numpy(values):
    backend = GenericBackend()
    got = run(backend, "add", gt(values, I32), gt(0.0)).values
    assert list(got) == np.array(values, np.int32).astype(np.float32).tolist()


@given(st.floats(allow_nan=False, allow_infinity=True) | st.floats(-1e-40, 1e-40))
def test_round_float_matches_numpy_cast(x):
    with np.errstate(all="ignore"):
        assert same(round_float(x), float(np.float32(x)))


_BINARY32_CONTEXT = gmpy2.context(precision=24, emin=-148, emax=128, subnormalize=True)


def _mpfr_binary32(value) -> float:
    with gmpy2.context(_BINARY32_CONTEXT):
        return float(gmpy2.mpfr(value))


@given(st.fractions(max_denominator=2**200) | st.integers(-(2**200), 2**200).map(Fraction))
def test_round_ratio_matches_mpfr(q):
    assert same(
        round_ratio(q.numerator, q.denominator),
        _mpfr_binary32(gmpy2.mpq(q.numerator, q.denominator)),
    )


@given(st.integers(-(2**40), 2**40), st.integers(-400, 300))
def test_round_dyadic_matches_mpfr(n, e):
    expected = _mpfr_binary32(gmpy2.mpq(n) * gmpy2.mpq(2) ** e)
    if n < 0 and expected == 0:
        expected = -0.0
    assert same(round_dyadic(n, e), expected)


_MPFR_FUNCTIONS = {
    "exp": gmpy2.exp,
    "exp2": gmpy2.exp2,
    "log": gmpy2.log,
    "log2": gmpy2.log2,
    "sin": gmpy2.sin,
    "cos": gmpy2.cos,
    "tanh": gmpy2.tanh,
    "erf": gmpy2.erf,
    "rsqrt": gmpy2.rec_sqrt,
}


@settings(max_examples=40)
@given(st.sampled_from(sorted(_MPFR_FUNCTIONS)), st.floats(width=32) | st.floats(-20, 20, width=32))
@example("rsqrt", -0.0)
@example("rsqrt", 0.0)
def test_transcendentals_are_correctly_rounded(operation, x):
    with gmpy2.context(_BINARY32_CONTEXT):
        expected = float(_MPFR_FUNCTIONS[operation](gmpy2.mpfr(x)))
    if operation == "rsqrt" and x == 0 and math.copysign(1.0, x) < 0:
        # MPFR defines rec_sqrt(-0) = +Inf; the reference rule is 1/sqrt(-0) = 1/-0 = -inf
        # (reference-semantics.md: "rsqrt(-0) = -inf"), so MPFR is not the oracle there.
        expected = -math.inf
    assert same(scalar(GenericBackend(), operation, gt(x)), expected)


@settings(max_examples=60)
@given(
    st.floats(width=32) | st.sampled_from([-2.0, 0.5, 4.0, 9.0, 1.0 + 2**-23, 2.0**-100]),
    st.floats(width=32)
    | st.integers(-70, 70).map(float)
    | st.integers(-64, 64).map(lambda n: n / 4),
)
def test_pow_is_correctly_rounded(x, y):
    with gmpy2.context(_BINARY32_CONTEXT):
        expected = float(gmpy2.mpfr(x) ** gmpy2.mpfr(y))
    assert same(scalar(GenericBackend(), "pow", gt(x), gt(y)), expected)
