"""``plancheck call``: one literal call on one backend, with plan, bits and verdict."""

import math

import pytest

from conformance.cli import main
from conformance.model.literals import parse_argument
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


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["call", "--backend", "cpu", "addd", "Float32:[1]"], "did you mean add?"),
        (["call", "--backend", "cpux", "neg", "Float32:[1]"], "did you mean 'cpu'?"),
        (["call", "neg"], "neg does not plan with these arguments"),
        (["call", "add", "Float32:[1]"], "pass --expect-error"),
        (["call", "neg", "Float32:[1, "], "plancheck call:"),
        (["call", "--expect-error", "neg", "Float32:[1]"], "--expect-error: neg plans"),
    ],
)
def test_mistakes_are_usage_errors_not_passes(argv, message, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert "PASS" not in captured.out


def test_a_planning_error_asked_for_on_purpose_is_checked(capsys):
    assert main(["call", "--backend", "cpu", "--expect-error", "add", "Float32:[1]"]) == 0
    out = capsys.readouterr().out
    assert "raised TypeError" in out and "PASS" in out


def test_the_help_example_plans_and_conforms(capsys):
    from conformance.cli.call_command import EXAMPLE

    argv = EXAMPLE.split(" ", 1)[1]
    import shlex

    assert main(shlex.split(argv)) == 0
    out = capsys.readouterr().out
    assert out.startswith("backend:   cpu (plancheck ")
    assert "add(Float32, Float32) binary32 -> Float32" in out and "PASS" in out


def test_backend_text_cannot_reach_the_terminal_raw(capsys):
    assert (
        main(["call", "--backend", "tests.test_cli_call:ANSI_RAISING", "neg", "Float32:[1]"]) == 1
    )
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\x1b[2J" in out


class _AnsiRaising:
    name = "ansi"

    def from_tensor(self, tensor):
        return tensor

    def to_tensor(self, native):
        return native

    def execute(self, operation, *args, **options):
        raise RuntimeError("\x1b[2Jscreen cleared")


ANSI_RAISING = _AnsiRaising()
