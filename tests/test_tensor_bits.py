"""oracle.Tensor keeps every Float32 element's exact bit pattern (issue 15, item 7).

A plain Python float cannot carry a binary32 signalling NaN; the Tensor keeps
it as a ``binary32.SignallingNaN`` so that the bit-copy operations of the
reference semantics (neg, abs, gather, scatter, select, sort/topk values,
reduce_max/reduce_min) can be held to the exact bits.
"""

from __future__ import annotations

import copy
import os
import pickle
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from oracle import DType, Tensor, binary32, expected
from oracle.binary32 import SignallingNaN

SNAN = 0x7F800001  # positive signalling NaN, smallest payload
SNAN_NEG = 0xFFA00000  # negative signalling NaN, payload 0x200000
QNAN_PAYLOAD = 0x7FC00001
PATTERNS = [0x00000000, 0x80000000, 0x3F800000, 0x00000001, 0x7F800000, 0xFF800000]
PATTERNS += [SNAN, SNAN_NEG, 0x7FBFFFFF, QNAN_PAYLOAD, 0xFFFFFFFF]


def _f32(bits: list[int]) -> np.ndarray:
    return np.array(bits, dtype=np.uint32).view(np.float32)


def _bits(*patterns: int) -> Tensor:
    return Tensor.from_bits(DType.Float32, (len(patterns),), patterns)


def test_from_numpy_keeps_signalling_nans() -> None:
    tensor = Tensor.from_numpy(_f32(PATTERNS))
    assert tensor.bits() == tuple(PATTERNS)
    assert (tensor.to_numpy().view(np.uint32) == np.array(PATTERNS, dtype=np.uint32)).all()
    assert binary32.classify(tensor.values[PATTERNS.index(SNAN)]) is (
        binary32.FloatClass.SIGNALING_NAN
    )


def test_from_bits_is_the_inverse_of_bits_for_every_dtype() -> None:
    assert _bits(*PATTERNS).bits() == tuple(PATTERNS)
    ints = Tensor.from_bits(DType.Int32, (3,), [0xFFFFFFFF, 0x80000000, 7])
    assert ints.values == (-1, -(2**31), 7) and ints.bits() == (0xFFFFFFFF, 0x80000000, 7)
    bools = Tensor.from_bits(DType.Bool, (2,), [1, 0])
    assert bools.values == (True, False)
    with pytest.raises(ValueError, match="outside"):
        Tensor.from_bits(DType.Float32, (1,), [2**32])
    with pytest.raises(ValueError, match="outside"):
        Tensor.from_bits(DType.Bool, (1,), [2])
    with pytest.raises(TypeError, match="must be an int"):
        Tensor.from_bits(DType.Float32, (1,), [1.0])


def test_signalling_and_quiet_nans_are_different_tensors() -> None:
    assert _bits(SNAN) != _bits(SNAN | 0x00400000)
    assert _bits(SNAN) == Tensor.from_numpy(_f32([SNAN]))
    assert hash(_bits(SNAN)) == hash(Tensor.from_numpy(_f32([SNAN])))


def test_numpy_float32_scalars_keep_their_bits() -> None:
    scalar = _f32([SNAN_NEG])[0]
    assert Tensor(DType.Float32, (1,), (scalar,)).bits() == (SNAN_NEG,)
    assert binary32.to_bits(scalar) == SNAN_NEG


def test_signalling_nan_survives_pickle_and_copy() -> None:
    tensor = _bits(SNAN, SNAN_NEG)
    assert pickle.loads(pickle.dumps(tensor)).bits() == (SNAN, SNAN_NEG)
    assert copy.deepcopy(tensor).bits() == (SNAN, SNAN_NEG)


def test_signalling_nan_value_contract() -> None:
    value = SignallingNaN(SNAN_NEG)
    assert isinstance(value, float) and value != value
    assert repr(value) == "SignallingNaN(0xFFA00000)" and str(value) == "nan"
    assert binary32.to_bits(value + 1.0) != SNAN_NEG  # arithmetic quiets it
    assert binary32.to_bits(binary32.negate(value)) == SNAN_NEG ^ 0x80000000
    assert binary32.to_bits(binary32.absolute(value)) == SNAN_NEG & 0x7FFFFFFF
    for pattern in PATTERNS:
        assert binary32.to_bits(binary32.from_bits_exact(pattern)) == pattern
    with pytest.raises(ValueError, match="not a binary32 signalling NaN"):
        SignallingNaN(QNAN_PAYLOAD)
    with pytest.raises(TypeError):
        SignallingNaN(1.0)  # type: ignore[arg-type]


def _result_bits(operation: str, *args: object) -> tuple[int, ...]:
    outcome = expected(operation, *args)
    assert outcome.error is None and outcome.result is not None, outcome
    assert outcome.nan_bits, f"{operation} is a bit-copy operation"
    return outcome.result.bits()


def test_elementwise_bit_copies_keep_signalling_nans() -> None:
    x = _bits(SNAN, SNAN_NEG, 0x3F800000)
    assert _result_bits("neg", x) == (SNAN | 0x80000000, SNAN_NEG & 0x7FFFFFFF, 0xBF800000)
    assert _result_bits("abs", x) == (SNAN, SNAN_NEG & 0x7FFFFFFF, 0x3F800000)
    cond = Tensor(DType.Bool, (3,), (True, False, True))
    other = _bits(0, 0, 0)
    assert _result_bits("select", cond, x, other) == (SNAN, 0, 0x3F800000)
    assert _result_bits("select", cond, other, x) == (0, SNAN_NEG, 0)


def test_structured_bit_copies_keep_signalling_nans() -> None:
    x = _bits(0x3F800000, SNAN_NEG, SNAN, 0x40000000)
    indices = Tensor(DType.Int32, (3,), (2, 1, 2))
    assert _result_bits("gather", x, indices, 0) == (SNAN, SNAN_NEG, SNAN)
    base = _bits(0, 0, 0, 0)
    updates = _bits(SNAN_NEG, SNAN)
    positions = Tensor(DType.Int32, (2,), (3, 0))
    assert _result_bits("scatter", base, positions, updates, 0) == (SNAN, 0, 0, SNAN_NEG)
    # NaNs form one class placed last ascending, stable: SNAN_NEG before SNAN
    assert _result_bits("_sort_values", x, -1, False) == (0x3F800000, 0x40000000, SNAN_NEG, SNAN)
    assert _result_bits("_topk_values", x, 2, -1, True) == (SNAN_NEG, SNAN)


@pytest.mark.parametrize("operation", ["reduce_max", "reduce_min"])
def test_extreme_reductions_return_the_first_nan_with_its_bits(operation: str) -> None:
    x = _bits(0x3F800000, SNAN_NEG, SNAN)
    assert _result_bits(operation, x) == (SNAN_NEG,)


def test_check_holds_bit_copies_to_the_signalling_bits() -> None:
    outcome = expected("neg", _bits(SNAN))
    assert outcome.check(_bits(SNAN | 0x80000000))
    quieted = outcome.check(_bits(SNAN | 0x80400000))
    assert not quieted and "NaN bits must be preserved" in str(quieted)
    # an arithmetic operation of a signalling NaN may return any NaN
    assert expected("mul", _bits(SNAN), 1.0).check(_bits(0x7FC00000))


# -- bits under any floating-point environment (issue 29, item 1) ---------------------------

#: run in a process whose environment is FTZ + DAZ + round upward (x86-64 glibc: MXCSR is
#: the 4 bytes at offset 28 of fenv_t); the Tensor must keep every pattern
_HOSTILE = """
import ctypes, ctypes.util, struct, sys
import numpy as np
from oracle import Tensor
from conformance.host import fpenv
libm = ctypes.CDLL(ctypes.util.find_library("m"))
env = ctypes.create_string_buffer(64)
libm.fegetenv(env)
raw = bytearray(env.raw)
struct.pack_into("<I", raw, 28, struct.unpack_from("<I", raw, 28)[0] | 0x8040)
libm.fesetenv(ctypes.create_string_buffer(bytes(raw), 64))
libm.fesetround(0x800)
seen = set(fpenv.deviations(fpenv.probe()))
assert {"fp-environment:flush-to-zero", "fp-environment:denormals-are-zero",
        "fp-environment:rounding-upward"} <= seen, seen
patterns = [int(p) for p in sys.argv[1:]]
for size in (1, 7, len(patterns)):  # one element at a time, and vectorised
    part = patterns[:size]
    tensor = Tensor.from_numpy(np.array(part, dtype=np.uint32).view(np.float32))
    assert list(tensor.bits()) == part, [hex(b) for b in tensor.bits()]
    assert tensor.to_numpy().view(np.uint32).tolist() == part
    assert Tensor.from_bits(tensor.dtype, tensor.shape, part) == tensor
print("ok")
"""


@pytest.mark.skipif(
    sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"),
    reason="sets MXCSR through glibc's x86-64 fenv_t",
)
def test_tensors_keep_their_bits_under_ftz_daz_and_upward_rounding() -> None:
    rng = np.random.default_rng(29)
    subnormals = [0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00400000, 0x00000003]
    patterns = PATTERNS[:4] + subnormals + PATTERNS[4:]  # the small path sees subnormals
    patterns += rng.integers(0, 1 << 32, 64, dtype=np.uint64).tolist()
    patterns += rng.integers(0, 1 << 23, 32, dtype=np.uint64).tolist()  # more subnormals
    done = subprocess.run(
        [sys.executable, "-c", _HOSTILE, *map(str, patterns)],
        capture_output=True, text=True, timeout=120,
        env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent)),
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stdout + done.stderr
