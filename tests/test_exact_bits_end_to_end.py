"""Float32 bits reach the backend exactly: literals, the call codec, ``plancheck call``,
``plancheck repro`` and the ``python:`` line of a failure report.

A signalling NaN is the pattern a Python float cannot hold (converting one
sets its quiet bit), so it is what these tests send: 0x7F800001 must arrive
as 0x7F800001, not 0x7FC00001.  The backends are a CPU backend that records
the Float32 bits it is given, and one that also quiets the NaN ``reduce_max``
returns (a real framework's deviation class ``reduce_max@wrong-value:nan-bits``):
its repro must fail, which it cannot if the input was quieted on the way in.
"""

from __future__ import annotations

import importlib
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest

import backends
from conformance.cli import main
from conformance.judge.runner import run_call
from conformance.model.calls import Call
from conformance.model.codec import call_from_json, call_to_json, decode_value, encode_value
from conformance.model.literals import LiteralError, parse_argument
from conformance.report import failure_report
from oracle import DType, Tensor

SIGNALLING = 0x7F800001
NEGATIVE_SIGNALLING = 0xFFA00000
F32 = DType.Float32

RECORDER_MODULE = """\
import numpy as np

from backends.cpu import CPUBackend


class Recorder(CPUBackend):
    \"\"\"The CPU backend, noting the bits of every Float32 array it is asked to compute on.\"\"\"

    name = "recorder"
    received = []

    def execute(self, operation, *args, **keywords):
        for value in args:
            if isinstance(value, np.ndarray) and value.dtype == np.float32:
                Recorder.received.append(value.view(np.uint32).ravel().tolist())
        return super().execute(operation, *args, **keywords)


class Quieting(Recorder):
    \"\"\"Sets the quiet bit of the NaN reduce_max returns (it should copy the NaN's bits).\"\"\"

    name = "quieting"

    def execute(self, operation, *args, **keywords):
        out = super().execute(operation, *args, **keywords)
        if operation == "reduce_max":
            bits = out.view(np.uint32)
            out = np.where(np.isnan(out), bits | np.uint32(0x00400000), bits).view(np.float32)
        return out
"""


@pytest.fixture
def recorder(tmp_path: Path, monkeypatch):
    """The module ``bitsrecorder`` (Recorder, Quieting) in the working directory."""
    (tmp_path / "bitsrecorder.py").write_text(RECORDER_MODULE)
    path = list(sys.path)
    monkeypatch.chdir(tmp_path)
    backends.get("bitsrecorder:Recorder")  # imported from the working directory
    module = sys.modules["bitsrecorder"]
    module.Recorder.received.clear()
    yield module
    sys.path[:] = path
    sys.modules.pop("bitsrecorder", None)
    importlib.invalidate_caches()


def _reduce_max_call() -> Call:
    x = Tensor.from_bits(F32, (2,), (0x3F800000, SIGNALLING))
    return Call("reduce_max", (x,), None, Call("reduce_max", (x,), None, None).resolve())


def _quieting_report():
    """The failure report of the reduce_max call on the quieting backend, as a run writes it."""
    name = "bitsrecorder:Quieting"
    return failure_report(run_call(backends.get(name), _reduce_max_call()), name)


# -- the literal and the codec -------------------------------------------------------------


def test_a_bits_literal_keeps_a_signalling_nan():
    tensor = parse_argument(f"Float32:[bits({SIGNALLING:#x}), bits({NEGATIVE_SIGNALLING:#x}), 1.5]")
    assert tensor.bits() == (SIGNALLING, NEGATIVE_SIGNALLING, 0x3FC00000)
    assert parse_argument(f"Float32:bits({SIGNALLING:#x})").bits() == (SIGNALLING,)
    assert parse_argument("bits(0x3fc00000)") == 1.5  # an ordinary pattern is a float anywhere


@pytest.mark.parametrize("text", [f"bits({SIGNALLING:#x})", f"(0, bits({SIGNALLING:#x}))"])
def test_a_signalling_nan_outside_a_float32_tensor_is_refused_not_quieted(text):
    with pytest.raises(LiteralError, match=r"signalling NaN.*'Float32:bits\(0x7F800001\)'"):
        parse_argument(text)


def test_the_codec_round_trip_keeps_signalling_nans():
    call = _reduce_max_call()
    decoded = call_from_json(call_to_json(call))
    assert decoded.args[0].bits() == (0x3F800000, SIGNALLING)
    scalar = np.array([NEGATIVE_SIGNALLING], np.uint32).view(np.float32)[0]
    encoded = encode_value(scalar)
    assert encoded == {"numpy": "float32", "bits": f"0x{NEGATIVE_SIGNALLING:08x}"}
    assert int(np.asarray(decode_value(encoded)).view(np.uint32)) == NEGATIVE_SIGNALLING


# -- plancheck call and plancheck repro ----------------------------------------------------


def test_plancheck_call_passes_the_exact_bits(recorder, capsys):
    status = main(
        ["call", "--backend", "bitsrecorder:Recorder", "neg", f"Float32:[bits({SIGNALLING:#x})]"]
    )
    output = capsys.readouterr().out
    assert status == 0, output
    # the call runs in the backend's host (issue 29): what it received is seen in the
    # result -- neg of the signalling NaN is the signalling NaN with its sign flipped,
    # which a quieted input (0x7FC00001) cannot give
    assert "signalling nan (0x7F800001)" in output
    assert f"(0x{SIGNALLING | 0x80000000:08X})" in output.split("result:")[1]
    assert recorder.Recorder.received == []  # never imported in plancheck's own process


def test_the_repro_of_a_nan_bits_deviation_reproduces(recorder, capsys):
    report = _quieting_report()
    assert report.problem != "conforms"
    command = shlex.split(report.repro)
    assert command[:4] == ["plancheck", "repro", "--backend", "bitsrecorder:Quieting"]
    # the repro runs the backend in its host process (issue 20): what it received is
    # seen in the verdicts -- Quieting fails on the signalling NaN, Recorder keeps it
    assert main(command[1:]) == 1, capsys.readouterr().out  # not conforming, as the run found
    # the same call on the conforming backend passes: the failure is the quieting
    assert main(["repro", "--backend", "bitsrecorder:Recorder", *command[4:]]) == 0


def test_the_printed_python_line_passes_the_exact_bits(recorder, capsys):
    report = _quieting_report()
    (line,) = [line for line in report.text().splitlines() if line.strip().startswith("python:")]
    snippet = line.split("python:", 1)[1].strip()
    recorder.Recorder.received.clear()
    capsys.readouterr()
    exec(snippet, {})  # what a person pastes into Python
    printed = capsys.readouterr().out
    assert recorder.Recorder.received == [[0x3F800000, SIGNALLING]]
    assert printed.startswith("NON-CONFORMANCE"), printed
    assert "NaN bits must be preserved" in printed
