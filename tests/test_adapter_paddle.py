"""The PaddlePaddle adapter (``backends.get("paddle")``) and what the suite reports about it.

These tests pin paddlepaddle 3.3.1 on the CPU (the ``paddle`` extra): the
deviations asserted below are measured facts about that build
(docs/backends/paddle.md), so another Paddle may flip them.  Skipped when
paddle is not installed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

paddle = pytest.importorskip(
    "paddle", reason="paddle is not installed (pip install 'plancheck[paddle]')"
)

import backends  # noqa: E402
from backends.adapters import paddle_cpu  # noqa: E402
from backends.errors import NotMeasured  # noqa: E402
from conformance.findings.deviations import load_deviations  # noqa: E402
from conformance.generate.strategies import boundary_examples  # noqa: E402
from conformance.judge.runner import Problem, run_call  # noqa: E402
from conformance.report import call_from_json  # noqa: E402
from oracle import (  # noqa: E402
    DType,
    Tensor,
    registered_operations,
    resolvable_plans,
    resolve_operation_plan,
)
from oracle.binary32 import from_bits  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
XFAIL = ROOT / "docs" / "backends" / "paddle.xfail"


@pytest.fixture(scope="module")
def backend():
    return backends.get("paddle")


def _f32(*bits: int) -> paddle.Tensor:
    return paddle.to_tensor(np.array(bits, dtype=np.uint32).view(np.float32))


def _bits(result: paddle.Tensor) -> list[int]:
    return [int(b) for b in result.numpy().reshape(-1).view(np.uint32)]


# ---------------------------------------------------------------------------
# The adapter itself
# ---------------------------------------------------------------------------


def test_registry_name_version_place_and_kernels(backend):
    assert backend.name == "paddle"
    assert isinstance(backend, paddle_cpu.PaddleBackend)
    assert backend.version == f"paddlepaddle {paddle.__version__}"
    assert paddle.get_device() == "cpu"
    assert set(paddle_cpu.KERNELS) == {spec.name for spec in registered_operations()}


def test_plancheck_backends_lists_paddle_with_its_extra():
    done = subprocess.run([sys.executable, "-m", "conformance.cli", "backends", "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    row = next(r for r in json.loads(done.stdout) if r["name"] == "paddle")
    assert row["library"] == "paddle" and row["installed"] is True
    assert backends.EXTRAS["paddle"] == ("paddle", "paddle")


def test_without_paddle_the_error_names_the_extra():
    code = (
        "import sys; sys.modules['paddle'] = None\n"
        "import backends\n"
        "try:\n    backends.get('paddle')\n"
        "except backends.BackendLoadError as error:\n    print(error)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert "needs paddle" in done.stdout and "pip install 'plancheck[paddle]'" in done.stdout, (
        done.stdout + done.stderr
    )


def test_tensor_exchange_keeps_every_bit(backend):
    patterns = [0, 0x80000000, 1, 0x807FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
                0x7FC00001, 0x7F800001, 0xFFA00000, 0x3F800000, 0x7F7FFFFF]  # fmt: skip
    oracle_tensor = Tensor.from_bits(DType.Float32, (13,), patterns)
    native = backend.from_tensor(oracle_tensor)
    assert native.dtype == paddle.float32 and native.place.is_cpu_place()
    assert _bits(native) == patterns
    assert backend.to_tensor(native).bits() == tuple(patterns)
    for tensor in (
        Tensor(DType.Int32, (2, 2), (-(2**31), 2**31 - 1, 0, -1)),
        Tensor(DType.Bool, (3,), (True, False, True)),
        Tensor(DType.Float32, (), (from_bits(0x80000000),)),
        Tensor(DType.Float32, (0, 3), ()),
    ):
        assert backend.to_tensor(backend.from_tensor(tensor)) == tensor


def test_native_tensors_of_other_kinds_are_refused(backend):
    with pytest.raises(TypeError, match="float32, int32 and bool"):
        backend.execute("neg", paddle.zeros([2], dtype=paddle.float64))
    with pytest.raises(TypeError, match=r"expected a paddle\.Tensor"):
        backend.to_tensor(np.zeros(2, np.float32))


@pytest.mark.parametrize("operation", sorted(paddle_cpu.MISSING))
def test_operations_paddle_lacks_are_declared_not_composed(backend, operation):
    x = backend.from_tensor(Tensor.from_nested([1.5, -2.0], DType.Float32))
    args = (x, x) if operation == "rem" else (x,)
    before = backend.allocations
    with pytest.raises(NotMeasured, match=f"paddle {paddle.__version__} has no"):
        backend.execute(operation, *args)
    assert backend.allocations == before
    assert dict(backend.composed_operations) == {}


def test_an_axis_out_of_range_is_paddle_s_own_error(backend):
    x = backend.from_tensor(Tensor.from_nested([1.5, -2.0], DType.Float32))
    with pytest.raises(Exception) as expected:
        paddle.sum(x, axis=3)
    with pytest.raises(type(expected.value)):
        backend.execute("reduce_sum", x, 3)
    with pytest.raises(NotMeasured, match=r"padding as 1 \(low, high\) int pairs"):
        backend.execute("conv_general", paddle.zeros([1, 1, 2]), paddle.zeros([1, 1, 1]),
                        (1,), (0, 0))  # fmt: skip


def test_planner_errors_come_first(backend, monkeypatch):
    ran = []
    monkeypatch.setitem(paddle_cpu.KERNELS, "mul", lambda *a: ran.append(a))
    with pytest.raises(OverflowError) as info:
        backend.execute("mul", paddle.zeros([2], dtype=paddle.int32), 2**31)
    with pytest.raises(OverflowError) as planner:
        resolve_operation_plan("mul", DType.Int32, 2**31)
    assert str(info.value) == str(planner.value) and not ran


def test_results_are_paddle_s_own(backend):
    """The kernels hand the work to Paddle: the adapter's results are Paddle's calls'."""
    x = _f32(0x3F800000, 0x40000000, 0xC0400000, 0x33800000)
    F = paddle.nn.functional
    assert _bits(backend.execute("exp", x)) == _bits(paddle.exp(x))
    assert _bits(backend.execute("gelu", x)) == _bits(F.gelu(x))
    assert _bits(backend.execute("softplus", x)) == _bits(F.softplus(x))
    a = paddle.arange(6, dtype=paddle.float32).reshape([2, 3]) / 7
    assert _bits(backend.execute("matmul", a, a.T)) == _bits(paddle.matmul(a, a.T))
    assert _bits(backend.execute("cumsum", x, 0)) == _bits(paddle.cumsum(x, 0))
    indices = paddle.to_tensor(np.array([[2, 0]], np.int32))
    taken = backend.execute("gather", a, indices, 1)
    assert taken.shape == [2, 1, 2]
    assert _bits(taken) == [int(b) for b in a.numpy()[:, [[2, 0]]].reshape(-1).view(np.uint32)]


# ---------------------------------------------------------------------------
# The suite's verdicts: measured deviations are reported, conforming calls conform
# ---------------------------------------------------------------------------


def _f32_json(*bits: int) -> str:
    listed = ",".join(f'"0x{b:08x}"' for b in bits)
    return f'{{"tensor":"Float32","shape":[{len(bits)}],"bits":[{listed}]}}'


#: (deviation, call JSON, the problem the runner must report) -- docs/backends/paddle.md
DEVIATIONS = [
    ("int32 add wraps", '{"op":"add","args":[{"tensor":"Int32","shape":[1],"values":[2147483647]},'
     '{"tensor":"Int32","shape":[1],"values":[1]}]}', Problem.MISSING_EXCEPTION),
    ("int32 matmul through float32", '{"op":"matmul","args":[{"tensor":"Int32","shape":[1,2],'
     '"values":[16777217,0]},{"tensor":"Int32","shape":[2,1],"values":[1,1]}]}',
     Problem.WRONG_VALUE),
    ("a subnormal equals zero", f'{{"op":"eq","args":[{_f32_json(0xECC)},{_f32_json(0)}]}}',
     Problem.WRONG_VALUE),
    ("neg(+0) is +0", f'{{"op":"neg","args":[{_f32_json(0)}]}}', Problem.WRONG_VALUE),
    ("vectorised exp of -2**22", f'{{"op":"exp","args":[{_f32_json(*[0xCA800000] * 16)}]}}',
     Problem.WRONG_VALUE),
    ("relu(NaN) is 0", f'{{"op":"relu","args":[{_f32_json(0x7FC00000)}]}}', Problem.WRONG_VALUE),
    ("no int32 relu kernel", '{"op":"relu","args":[{"tensor":"Int32","shape":[1],"values":[3]}]}',
     Problem.UNEXPECTED_EXCEPTION),
    ("clip takes one-element bounds", f'{{"op":"clamp","args":[{_f32_json(0, 0)},'
     f'{_f32_json(0, 0)},{_f32_json(0x3F800000, 0x3F800000)}]}}', Problem.UNEXPECTED_EXCEPTION),
    ("axis () reduces everything", f'{{"op":"reduce_sum","args":[{_f32_json(0x3F800000, 0)},'
     '{"tuple":[]},false]}', Problem.WRONG_SHAPE_OR_DTYPE),
    ("rem has no paddle operation", f'{{"op":"rem","args":[{_f32_json(0x3F800000)},'
     f'{_f32_json(0x3F800000)}]}}', Problem.UNEXPECTED_EXCEPTION),
    ("gather takes a negative index", '{"op":"gather","args":[{"tensor":"Float32","shape":[1],'
     '"bits":["0x00000000"]},{"tensor":"Int32","shape":[1],"values":[-1]},0]}',
     Problem.MISSING_EXCEPTION),
    ("topk ties are not stable", f'{{"op":"_topk_indices","args":[{_f32_json(*[0xBF900000] * 4)},'
     '1,0,true]}', Problem.WRONG_VALUE),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "problem"), DEVIATIONS, ids=[d[0] for d in DEVIATIONS])
def test_paddle_deviations_are_reported_as_their_fault_kind(backend, name, text, problem):
    outcome = run_call(backend, call_from_json(text))
    assert not outcome.ok
    assert outcome.problem == problem, outcome.verdict


def test_exp_of_the_same_value_alone_conforms(backend):
    """exp(-2**22) is 0 through Paddle's scalar loop; only its 8-lane loop returns
    the subnormal 0x001FFEB0."""
    alone = call_from_json(f'{{"op":"exp","args":[{_f32_json(0xCA800000)}]}}')
    assert run_call(backend, alone).ok


def test_what_the_published_table_calls_conforming_conforms_on_every_boundary_example(backend):
    report = json.loads((ROOT / "docs" / "backends" / "paddle.json").read_text())
    rows = report["table"]["paddle"].items()
    conforming = {op for op, row in rows if row["status"] == "conforms"}
    assert {"abs", "floor", "round", "sign", "div", "select", "_sort_values"} <= conforming
    failing = [
        f"{call.repro()}: {outcome.verdict}"
        for plan in resolvable_plans()
        if plan.operation in conforming
        for call in boundary_examples(plan)
        if not (outcome := run_call(backend, call)).ok
    ]
    assert not failing, "\n".join(failing)


# ---------------------------------------------------------------------------
# plancheck run with the published known-deviations file
# ---------------------------------------------------------------------------


def test_plancheck_run_with_the_published_xfail_file(tmp_path):
    report = tmp_path / "paddle.json"
    command = [sys.executable, "-m", "conformance.cli", "run", "--backend", "paddle",
               "--op", "abs", "--op", "eq", "--workers", "0", "--xfail", str(XFAIL),
               "--report", str(report)]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    document = json.loads(report.read_text())
    status = {op: row["status"] for op, row in document["table"]["paddle"].items()}
    assert status == {"abs": "conforms", "eq": "xfail"}
    assert not document["failures"]


def test_the_xfail_file_names_every_class_of_the_published_report():
    report = json.loads((ROOT / "docs" / "backends" / "paddle.json").read_text())
    published = {f"{c['operation']}@{c['class']}" for c in report["deviation_classes"]}
    # the file's lines are selectors (OPERATION/PLAN@CLASS, or OPERATION@CLASS for every plan)
    listed = {f"{d.operation}@{d.cls}" for d in load_deviations(XFAIL)}
    assert published <= listed, sorted(published - listed)
