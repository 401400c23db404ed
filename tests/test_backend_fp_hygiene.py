"""The built-in backends are silent on IEEE exceptions.

The policy specifies a value for every overflow, underflow, invalid
operation and division by zero; none of them is an error or a warning.  A
backend that lets numpy signal them breaks a user's ``np.seterr(all="raise")``
or ``pytest -W error`` (a RuntimeWarning becomes an exception in the middle of
a conforming call).  Here every call of every plan's boundary examples, and
the same calls with their Float32 operands overwritten by hostile bit
patterns (signalling NaNs, values whose sums and products overflow, the
smallest subnormals), runs under ``np.errstate(all="raise")`` with every
warning an error, on Generic and CPU.  A spec exception (TypeError,
ValueError, IndexError, OverflowError, NotImplementedError) is an allowed
outcome; a FloatingPointError or a warning is not.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import numpy as np
import pytest

import backends
from conformance.generate.strategies import boundary_examples
from oracle import DType, Tensor, resolvable_plans

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

F32 = DType.Float32
SPEC_ERRORS = (TypeError, ValueError, IndexError, OverflowError, NotImplementedError)

#: bit patterns written into Float32 operands, cyclically: neighbours repeat so
#: a sum or product of two of them overflows (3e38 + 3e38, MAX * 2 ...)
HOSTILE_BITS = (
    0x7F7FFFFF,  # MAX_FINITE
    0x7F7FFFFF,
    0x7F61D59C,  # about 3e38
    0x7F61D59C,
    0xFF7FFFFF,  # -MAX_FINITE
    0xFF7FFFFF,
    0x7F800000,  # +inf
    0xFF800000,  # -inf
    0x7F800001,  # signalling NaN, smallest payload
    0xFFA00000,  # negative signalling NaN
    0x7FBFFFFF,  # signalling NaN, largest payload
    0x7FC00000,  # quiet NaN
    0x00000001,  # smallest subnormal
    0x00000001,
    0x80000001,
    0x00000000,  # +0
    0x80000000,  # -0
    0x3F800000,  # 1
    0xBF800000,  # -1
    0x00800000,  # MIN_NORMAL
    0x60AD78EC,  # 1e20
    0x60AD78EC,
)


def _hostile(shape: tuple[int, ...], offset: int) -> np.ndarray:
    count = int(np.prod(shape))
    bits = [HOSTILE_BITS[(offset + i) % len(HOSTILE_BITS)] for i in range(count)]
    return np.array(bits, dtype=np.uint32).view(np.float32).reshape(shape)


def _arrays(args: tuple) -> Iterator[tuple]:
    """The call's arguments as arrays, then with Float32 operands overwritten."""
    plain = tuple(a.to_numpy() if isinstance(a, Tensor) else a for a in args)
    yield plain
    if not any(isinstance(a, Tensor) and a.dtype is F32 for a in args):
        return
    for offset in range(len(HOSTILE_BITS)):
        yield tuple(
            _hostile(a.shape, offset) if isinstance(a, Tensor) and a.dtype is F32 else p
            for a, p in zip(args, plain)
        )


def _native(backend, value):
    if not isinstance(value, np.ndarray):
        return value
    if hasattr(backend, "from_numpy"):
        return backend.from_numpy(value)
    return backend.from_tensor(Tensor.from_numpy(value))


def _run_silently(backend, operation: str, args: tuple, accumulator, allowed=SPEC_ERRORS) -> None:
    native = [_native(backend, a) for a in args]
    keywords = {} if accumulator is None else {"accumulator_dtype": accumulator}
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            backend.to_tensor(backend.execute(operation, *native, **keywords))
        except (FloatingPointError, Warning):
            raise
        except allowed:
            pass


def _backend(name: str):
    if name == "torch":
        pytest.importorskip("torch")
    return backends.get(name)


@pytest.mark.parametrize("backend_name", ["generic", "cpu", "numpy-native", "torch"])
@pytest.mark.parametrize("plan", resolvable_plans(), ids=lambda plan: plan.describe())
def test_boundary_examples_and_hostile_operands_raise_no_fp_signal(backend_name, plan):
    """Generic and CPU raise only spec errors; an adapter may raise what its library
    raises (its conformance tests judge that), but never an IEEE signal."""
    backend = _backend(backend_name)
    allowed = SPEC_ERRORS if backend_name in ("generic", "cpu") else Exception
    for call in boundary_examples(plan):
        for args in _arrays(call.args):
            _run_silently(backend, call.operation, args, call.accumulator_dtype, allowed)


def _f32(*bits: int) -> np.ndarray:
    return np.array(bits, dtype=np.uint32).view(np.float32)


@pytest.mark.parametrize("backend_name", ["generic", "cpu"])
@pytest.mark.parametrize(
    ("operation", "args", "accumulator"),
    [
        ("relu", (_f32(0x7F800001, 0xFFA00000),), None),
        ("sign", (_f32(0x7F800001, 0xFFA00000),), None),
        ("reduce_sum", (np.array([3e38, 3e38], np.float32),), DType.Float64),
        ("reduce_sum", (np.array([-3e38, -3e38], np.float32),), DType.Float64),
        ("matmul", (np.full((1, 2), 3e38, np.float32), np.full((2, 1), 3e38, np.float32)), None),
        (
            "matmul",
            (np.full((1, 2), 3e38, np.float32), np.full((2, 1), 3e38, np.float32)),
            DType.Float64,
        ),
    ],
)
def test_reported_fp_signals_are_silent(backend_name, operation, args, accumulator):
    """The cases of the hardening issue: each raised under np.seterr(all="raise")."""
    previous = np.seterr(all="raise")
    try:
        _run_silently(backends.get(backend_name), operation, args, accumulator)
    finally:
        np.seterr(**previous)
