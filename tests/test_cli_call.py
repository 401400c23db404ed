"""``plancheck call``: one literal call on one backend, with plan, bits and verdict."""

import math

import pytest

from conformance.cli import main
from conformance.literals import parse_argument
from oracle import DType, Tensor, binary32


def test_literals_cover_tensors_specials_bits_and_scalars():
    tensor = parse_argument("Float32:[1.5, nan, -inf, bits(0x80000001), hex('0x1p-149')]")
    assert tensor.dtype is DType.Float32 and tensor.shape == (5,)
    assert math.isnan(tensor.values[1]) and tensor.values[2] == -math.inf
    assert binary32.to_bits(tensor.values[3]) == 0x80000001
    assert tensor.values[4] == binary32.MIN_SUBNORMAL
    assert parse_argument("Int32:[[1, 2], [3, 4]]") == Tensor(DType.Int32, (2, 2), (1, 2, 3, 4))
    assert parse_argument("Bool:[true, False]").values == (True, False)
    assert parse_argument("(0, -1)") == (0, -1)
    assert parse_argument("2") == 2 and parse_argument("0.5") == 0.5
    assert parse_argument("Fraction(1, 3)") * 3 == 1


@pytest.mark.parametrize("text", ["Float32:[1, 'x']", "open('f')", "Float32:[0.1]"])
def test_bad_literals_are_refused(text):
    with pytest.raises((ValueError, TypeError)):
        parse_argument(text)


@pytest.mark.parametrize("backend", ["generic", "cpu"])
def test_call_prints_plan_result_bits_and_verdict(backend, capsys):
    status = main(["call", "--backend", backend, "add", "Float32:[1.5, -0.0]", "Int32:[2, 0]"])
    out = capsys.readouterr().out
    assert status == 0
    assert "add(Float32, Int32->Float32) binary32 -> Float32" in out
    assert "3.5 (0x40600000)" in out and "0.0 (0x00000000)" in out
    assert "PASS" in out


def test_required_exception_conforms(capsys):
    assert main(["call", "mul", "Int32:[2147483647]", "2"]) == 0
    out = capsys.readouterr().out
    assert "raised OverflowError" in out and "as required" in out


def test_a_non_conforming_backend_exits_1(capsys):
    status = main(
        [
            "call",
            "--backend",
            "tests.test_cli_call:ROUND_TOWARD_ZERO",
            "add",
            "Float32:[1.0]",
            "Float32:[hex('0x1.8p-24')]",
        ]
    )
    out = capsys.readouterr().out
    assert status == 1 and "FAIL" in out and "1 ULP" in out


def test_usage_errors_exit_2(capsys):
    assert main(["call", "add", "Float32:[0.1]"]) == 2
    assert "not exactly representable" in capsys.readouterr().err


class _TruncatingAdd:
    """A faulty backend: add truncates toward zero instead of rounding."""

    name = "truncating-add"

    def __init__(self):
        import backends

        self._cpu = backends.get("cpu")

    def from_tensor(self, tensor):
        return self._cpu.from_tensor(tensor)

    def to_tensor(self, native):
        return self._cpu.to_tensor(native)

    def execute(self, operation, *args, **keywords):
        import numpy as np

        result = self._cpu.execute(operation, *args, **keywords)
        if operation == "add":
            exact = np.asarray(args[0], np.float64) + np.asarray(args[1], np.float64)
            nearest = exact.astype(np.float32)
            too_far = np.abs(nearest.astype(np.float64)) > np.abs(exact)
            return np.where(too_far, np.nextafter(nearest, np.float32(0)), nearest)
        return result


ROUND_TOWARD_ZERO = _TruncatingAdd
