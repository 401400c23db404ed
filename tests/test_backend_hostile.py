"""Generic and CPU under hostile input: size limits, and objects whose methods raise.

* Generic is pure Python: a call whose result or work is huge although its
  inputs are tiny would run for hours.  It refuses such a call at once, with
  ``GenericLimitError`` (an ``oracle.limits.OracleLimitError``, a
  MemoryError), exactly where the oracle refuses it.
* Every argument of ``execute`` may be a caller's object whose ``__int__``,
  ``__index__``, ``__float__``, ``__eq__``, ``__hash__``, ``__repr__``,
  ``__iter__`` or ``__len__`` raises: a backend entry point then raises one
  of the policy's exceptions (TypeError, ValueError, IndexError,
  OverflowError, NotImplementedError) or returns a result -- never the
  object's own ZeroDivisionError or RuntimeError.
"""

from __future__ import annotations

import contextlib

import pytest

import backends
import oracle
from backends.generic import GenericLimitError
from backends.generic.limits import check_size
from oracle import DType, Tensor
from oracle.limits import MAX_RESULT_ELEMENTS, MAX_TERMS, OracleLimitError

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

F32, I32, BOOL = DType.Float32, DType.Int32, DType.Bool
SPEC_ERRORS = (TypeError, ValueError, IndexError, OverflowError, NotImplementedError)


def _zeros(*shape: int) -> Tensor:
    count = 1
    for extent in shape:
        count *= extent
    return Tensor(F32, shape, (0.0,) * count)


# -- the size limit -----------------------------------------------------------------------------

HUGE_CALLS = [
    pytest.param("matmul", lambda: (_zeros(2**20, 0), _zeros(0, 2**20)), id="matmul-empty-inner"),
    pytest.param("matmul", lambda: (_zeros(2**12, 2**6), _zeros(2**6, 2**12)), id="matmul-terms"),
    pytest.param("add", lambda: (_zeros(2**11, 1), _zeros(1, 2**12)), id="broadcast"),
    pytest.param("reduce_sum", lambda: (_zeros(2**40, 0), 1), id="reduce-empty-axis"),
    pytest.param("_sort_values", lambda: (_zeros(2**30, 0), 0), id="sort-empty"),
    pytest.param(
        "conv_general",
        lambda: (_zeros(1, 1, 4), _zeros(1, 1, 2), None, ((2**30, 2**30),)),
        id="conv-padding",
    ),
    pytest.param(
        "gather",
        lambda: (_zeros(1, 2**10), Tensor(I32, (2**13,), (0,) * 2**13), 0),
        id="gather-result",
    ),
]


@pytest.mark.parametrize(("operation", "args"), HUGE_CALLS)
def test_generic_refuses_what_the_oracle_refuses_before_computing(operation, args):
    arguments = args()
    with pytest.raises(OracleLimitError):
        oracle.expected(operation, *arguments)
    generic = backends.get("generic")
    native = [generic.from_tensor(a) if isinstance(a, Tensor) else a for a in arguments]
    with pytest.raises(GenericLimitError, match="Generic evaluates at most") as refused:
        generic.execute(operation, *native)
    assert isinstance(refused.value, MemoryError)
    assert generic.allocations == 0


def test_the_limits_are_the_oracles():
    check_size("probe", MAX_RESULT_ELEMENTS, MAX_TERMS)
    with pytest.raises(GenericLimitError):
        check_size("probe", MAX_RESULT_ELEMENTS + 1)
    with pytest.raises(GenericLimitError):
        check_size("probe", 1, MAX_TERMS + 1)
    with pytest.raises(GenericLimitError, match="bits"):  # too large to print: its size
        check_size("probe", 10**5000)


def test_a_shape_error_still_comes_before_the_result_size_limit():
    """(2**11, 3) x (2, 2**12) would have 2**23 elements, but its shapes do not match."""
    generic = backends.get("generic")
    a, b = generic.from_tensor(_zeros(2**11, 3)), generic.from_tensor(_zeros(2, 2**12))
    with pytest.raises(ValueError, match="matmul"):
        generic.execute("matmul", a, b)


# -- objects whose methods raise -----------------------------------------------------------------


def _raises(*args, **kwargs):
    raise ZeroDivisionError("a hostile dunder")


def _hostile(base: type, value, *dunders: str):
    return type(f"Hostile{base.__name__}", (base,), dict.fromkeys(dunders, _raises))(value)


_NUMBER_DUNDERS = ("__repr__", "__eq__", "__hash__", "__lt__", "__le__", "__gt__", "__ge__")
HOSTILE = {
    "int-index": _hostile(int, 1, "__index__", "__int__"),
    "int-repr": _hostile(int, 1, "__repr__"),
    "int-all": _hostile(int, 1, "__index__", "__int__", "__float__", "__bool__", *_NUMBER_DUNDERS),
    "float-all": _hostile(float, 1.5, "__float__", "__int__", "__bool__", *_NUMBER_DUNDERS),
    "tuple": _hostile(tuple, (0,), "__iter__", "__len__", "__getitem__", "__repr__"),
    "list": _hostile(list, [(0, 0)], "__iter__", "__len__", "__getitem__", "__repr__"),
    "object": type("Hostile", (), dict.fromkeys(("__index__", "__int__", "__repr__"), _raises))(),
    "huge-int": 10**5000,
}


def _calls(backend, value) -> list[tuple[str, tuple]]:
    def native(data, dtype):
        return backend.from_tensor(Tensor.from_nested(data, dtype))

    x, xi = native([[1.0, 2.0], [3.0, 4.0]], F32), native([[1, 2], [3, 4]], I32)
    indices, condition = native([0, 1], I32), native([True, False], BOOL)
    lhs, rhs = native([[[1.0, 2.0, 3.0]]], F32), native([[[1.0]]], F32)
    return [
        ("add", (x, value)),
        ("mul", (xi, value)),
        ("pow", (xi, value)),
        ("clamp", (x, value, value)),
        ("select", (condition, x, value)),
        ("reduce_sum", (x, value)),
        ("reduce_sum", (x, (value,))),
        ("reduce_sum", (x, 0, value)),
        ("argmax", (x, value)),
        ("cumsum", (x, value)),
        ("gather", (x, indices, value)),
        ("_sort_values", (x, value)),
        ("_sort_values", (x, -1, value)),
        ("_topk_values", (x, value)),
        ("_topk_values", (x, 1, value)),
        ("conv_general", (lhs, rhs, value)),
        ("conv_general", (lhs, rhs, (value,))),
        ("conv_general", (lhs, rhs, None, value)),
        ("conv_general", (lhs, rhs, None, (value,))),
        ("conv_general", (lhs, rhs, None, ((value, 0),))),
        ("conv_general", (lhs, rhs, None, None, None, None, value)),
        (value, (x,)),
    ]


@pytest.mark.parametrize("backend_name", ["generic", "cpu"])
@pytest.mark.parametrize("label", sorted(HOSTILE))
def test_hostile_arguments_give_only_the_policys_exceptions(backend_name, label):
    backend = backends.get(backend_name)
    value = HOSTILE[label]
    for operation, args in _calls(backend, value):
        # a huge padding is a size the reference refuses (OracleLimitError)
        with contextlib.suppress(*SPEC_ERRORS, OracleLimitError):
            backend.execute(operation, *args)
    for entry in (backend.from_tensor, backend.to_tensor):
        with pytest.raises(TypeError):
            entry(value)


@pytest.mark.parametrize("backend_name", ["generic", "cpu"])
def test_an_unreadable_weak_scalar_is_a_type_error(backend_name):
    backend = backends.get(backend_name)
    xi = backend.from_tensor(Tensor.from_nested([1, 2], I32))
    unreadable = _hostile(int, 3, "__int__", "__index__")
    expected = oracle.expected("mul", Tensor.from_nested([1, 2], I32), unreadable)
    assert isinstance(expected.error, TypeError)
    with pytest.raises(TypeError, match="cannot be read"):
        backend.execute("mul", xi, unreadable)


@pytest.mark.parametrize("backend_name", ["generic", "cpu"])
def test_an_unreadable_int_parameter_is_a_type_error_as_in_the_oracle(backend_name):
    backend = backends.get(backend_name)
    x = Tensor.from_nested([3.0, 1.0, 2.0], F32)
    k = _hostile(int, 1, "__int__", "__index__")
    assert isinstance(oracle.expected("_topk_values", x, k).error, TypeError)
    with pytest.raises(TypeError, match="readable int"):
        backend.execute("_topk_values", backend.from_tensor(x), k)
