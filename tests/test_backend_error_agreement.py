"""Differential fuzz of invalid calls: Generic and CPU raise what the oracle states.

Every call of an operation with non-dtype parameters (reductions, scans,
matmul, conv_general, gather/scatter, sort/topk) is built from a small pool of
shapes and a pool of parameter values that mixes valid ones with every kind of
mistake (a float, a bool, ``numpy.bool_``, None, a string, a list for a
tuple, wrong lengths, out-of-range axes and k, negative padding).  For each
call the oracle states an outcome (``oracle.expected(...).error`` or a
result); each built-in backend must then raise an instance of that exception
type, or return a result when the oracle states one.  A call with several
faults checks that the backends validate in the oracle's order.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import backends
import oracle
from conformance.model.calls import Family, family_of, forward_arguments, parameters_of
from oracle import DType, OperandRole, Tensor, resolvable_plans

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

F32, I32 = DType.Float32, DType.Int32

#: operand shapes: 0-d, empty, vectors, matrices, conv-shaped 3-d tensors
SHAPES = [(), (0,), (3,), (2, 3), (1, 1, 3), (1, 2, 3), (2, 2, 2), (2, 1, 2), (1, 1, 0), (2, 0)]


def _raises(*args, **kwargs):
    raise ZeroDivisionError("a hostile dunder")


def _hostile(base: type, value, *dunders: str):
    """An instance of a *base* subclass whose *dunders* raise ZeroDivisionError."""
    return type(f"Hostile{base.__name__}", (base,), dict.fromkeys(dunders, _raises))(value)


#: parameter values: valid ints, flags and tuples beside every kind of mistake
PARAMETERS = [
    None,
    0,
    1,
    2,
    -1,
    -5,
    5,
    np.int64(1),
    1.5,
    1.0,
    True,
    False,
    np.bool_(True),
    "x",
    (),
    (0,),
    [0],
    (1,),
    (2,),
    (-1,),
    (0, 0),
    (1, 1),
    (1.5,),
    ((0, 0),),
    [(0, 0)],
    ((-3, -3),),
    ((-1, 0),),
    ((1, 2),),
    ((1,),),
    ((1, 2, 3),),
    ((0.5, 0),),
    ((0, 0), (0, 0)),
    range(1),
    # objects whose own methods raise, and an int too large to print
    _hostile(int, 1, "__int__", "__index__"),
    _hostile(int, 1, "__repr__"),
    _hostile(int, 0, "__eq__", "__hash__"),
    _hostile(tuple, (1,), "__iter__", "__len__", "__getitem__"),
    _hostile(list, [(0, 0)], "__iter__", "__len__", "__getitem__"),
    10**5000,
]

_PLANS = [p for p in resolvable_plans() if family_of(p.operation) is not Family.ELEMENTWISE]
_BACKENDS = {name: backends.get(name) for name in ("generic", "cpu")}


def _values(dtype, count: int, draw) -> tuple:
    if dtype is DType.Bool:
        return tuple(draw(st.lists(st.booleans(), min_size=count, max_size=count)))
    if dtype is I32:
        return tuple(draw(st.lists(st.integers(-1, 3), min_size=count, max_size=count)))
    choices = st.sampled_from([1.0, -2.0, 0.5, 3.0, -0.0])
    return tuple(draw(st.lists(choices, min_size=count, max_size=count)))


@st.composite
def invalid_calls(draw):
    """(operation, tensor operands, parameter choices) with random shapes and parameters."""
    plan = draw(st.sampled_from(_PLANS))
    operands = []
    for operand in plan.operands:
        if operand.role is OperandRole.WEAK_SCALAR:
            operands.append(1.0)
            continue
        shape = draw(st.sampled_from(SHAPES))
        operands.append(
            Tensor(operand.dtype, shape, _values(operand.dtype, int(np.prod(shape)), draw))
        )
    declared = parameters_of(plan.operation)
    count = draw(st.integers(0, len(declared)))
    # positions in PARAMETERS (None: the default), so that hypothesis never has to
    # print a hostile value
    chosen = [
        draw(st.integers(0, len(PARAMETERS) - 1)) if draw(st.booleans()) else None
        for _ in declared[:count]
    ]
    return plan.operation, tuple(operands), tuple(chosen)


def _arguments(operation: str, operands: tuple, chosen: tuple) -> tuple:
    declared = parameters_of(operation)
    values = [
        parameter.default if index is None else PARAMETERS[index]
        for parameter, index in zip(declared, chosen)
    ]
    return forward_arguments(operation, operands, values)


#: weak scalars: every kind the planner accepts or refuses, and unreadable ones
WEAK_SCALARS = [
    1.5,
    -0.0,
    float("nan"),
    float("inf"),
    3,
    -(2**31),
    2**31,
    10**400,
    True,
    Fraction(1, 3),
    np.float32(0.1),
    np.int64(7),
    np.bool_(True),
    None,
    "1",
    1j,
    _hostile(int, 3, "__int__", "__index__"),
    # (a value is read through __int__ / as_integer_ratio; a raising __eq__ is not
    # reading, and the two sides compare differently: docs/backend-generic.md)
    _hostile(float, 1.5, "__float__", "as_integer_ratio", "__repr__"),
]

_ELEMENTWISE = [p for p in resolvable_plans() if family_of(p.operation) is Family.ELEMENTWISE]


@st.composite
def elementwise_calls(draw):
    """(operation, arguments as (tensor or weak-scalar index)) with random shapes and scalars."""
    plan = draw(st.sampled_from(_ELEMENTWISE))
    arguments = []
    for operand in plan.operands:
        if operand.role is OperandRole.WEAK_SCALAR or draw(st.integers(0, 9)) == 0:
            arguments.append(draw(st.integers(0, len(WEAK_SCALARS) - 1)))
            continue
        shape = draw(st.sampled_from(SHAPES[:4]))
        values = _values(operand.dtype, int(np.prod(shape)), draw)
        arguments.append(Tensor(operand.dtype, shape, values))
    return plan.operation, tuple(arguments)


@settings(max_examples=1000)
@given(elementwise_calls())
def test_elementwise_calls_raise_what_the_oracle_states(call):
    """Shapes that do not broadcast, and weak scalars of every kind, planned or refused."""
    operation, arguments = call
    args = tuple(WEAK_SCALARS[a] if isinstance(a, int) else a for a in arguments)
    expected = oracle.expected(operation, *args).error
    for name, backend in _BACKENDS.items():
        raised = _outcome(backend, operation, args)
        if expected is None:
            assert raised is None, f"{name}: the oracle states a result, got {raised!r}"
        else:
            assert isinstance(raised, type(expected)), (
                f"{name}: the oracle states {type(expected).__name__} ({expected}), got {raised!r}"
            )


def _outcome(backend, operation: str, args: tuple) -> BaseException | None:
    native = [backend.from_tensor(a) if isinstance(a, Tensor) else a for a in args]
    try:
        backend.execute(operation, *native)
    except Exception as error:  # compared with the oracle's statement below
        return error
    return None


@settings(max_examples=1000)
@given(invalid_calls())
def test_generic_and_cpu_raise_what_the_oracle_states(call):
    operation, operands, chosen = call
    args = _arguments(operation, operands, chosen)
    expected = oracle.expected(operation, *args).error
    for name, backend in _BACKENDS.items():
        raised = _outcome(backend, operation, args)
        if expected is None:
            assert raised is None, f"{name}: the oracle states a result, got {raised!r}"
        else:
            assert isinstance(raised, type(expected)), (
                f"{name}: the oracle states {type(expected).__name__} ({expected}), got {raised!r}"
            )


# -- the faults the fuzz found, one example each ---------------------------------------------


def _f32(shape):
    return Tensor(F32, shape, tuple(float(i) for i in range(int(np.prod(shape)))))


CASES = [
    # a negative padded extent: (3 - 2 - 2) < 0
    ("conv_general", (_f32((1, 1, 3)), _f32((1, 1, 1)), None, ((-2, -2),)), ValueError),
    # topk's k is required: None is not "the whole line"
    ("_topk_values", (_f32((3,)), None), TypeError),
    ("_topk_indices", (_f32((3,)), None), TypeError),
    # k is checked before the flag (ValueError for k, not TypeError for the flag)
    ("_topk_values", (_f32((3,)), 4, -1, "yes"), ValueError),
    # a padding entry that is not a pair is a TypeError (a wrong-length pair a ValueError)
    ("conv_general", (_f32((1, 1, 3)), _f32((1, 1, 1)), None, (0,)), TypeError),
    ("conv_general", (_f32((1, 1, 3)), _f32((1, 1, 1)), None, ((0, 0, 0),)), ValueError),
    # entries are read before the count: a float entry is a TypeError even at a wrong length
    ("conv_general", (_f32((1, 1, 3)), _f32((1, 1, 1)), (1.5, 1.5)), TypeError),
    # per-dimension parameters are tuples or lists
    ("conv_general", (_f32((1, 1, 3)), _f32((1, 1, 1)), range(1, 2)), TypeError),
    ("conv_general", (_f32((1, 1, 3)), _f32((1, 1, 1)), 1), TypeError),
]


@pytest.mark.parametrize("backend_name", sorted(_BACKENDS))
@pytest.mark.parametrize(("operation", "args", "error"), CASES)
def test_found_faults(backend_name, operation, args, error):
    assert isinstance(oracle.expected(operation, *args).error, error)
    backend = _BACKENDS[backend_name]
    before = getattr(backend, "allocations", 0)
    assert isinstance(_outcome(backend, operation, args), error)
    assert getattr(backend, "allocations", 0) == before


@pytest.mark.parametrize("backend_name", sorted(_BACKENDS))
@pytest.mark.parametrize("flag", [np.bool_(True), np.bool_(False)])
def test_a_numpy_bool_is_a_flag_as_in_the_oracle(backend_name, flag):
    backend = _BACKENDS[backend_name]
    x = backend.from_tensor(_f32((2, 3)))
    for operation, args in [
        ("reduce_sum", (x, 0, flag)),
        ("_sort_values", (x, -1, flag)),
        ("_topk_indices", (x, 1, -1, flag)),
    ]:
        backend.execute(operation, *args)
