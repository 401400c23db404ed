"""The PyTorch adapter (``backends.get("torch")``) and what the suite reports about it.

These tests hold for torch 2.13.0 (what CI installs) and torch 2.15.0 (the
``torch`` extra, the version docs/backends/torch.md measures) on the CPU with
one thread: the deviations asserted below are measured facts about both
builds (run against each on 2026-12-03; the few that depend on the CPU are
:data:`CPU_DEPENDENT`).  Skipped when torch is not installed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="torch is not installed (pip install 'plancheck[torch]')"
)

import backends  # noqa: E402
from backends.adapters import torch_cpu  # noqa: E402
from backends.errors import NotMeasured  # noqa: E402
from conformance.generate.strategies import boundary_examples  # noqa: E402
from conformance.judge.runner import Problem, expectation_of, run_call  # noqa: E402
from conformance.report import call_from_json  # noqa: E402
from oracle import (  # noqa: E402
    DType,
    Tensor,
    registered_operations,
    resolvable_plans,
    resolve_operation_plan,
)
from oracle.binary32 import from_bits  # noqa: E402

# The backends are silent on IEEE exceptions: a RuntimeWarning is a failure.
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

ROOT = Path(__file__).resolve().parents[1]
XFAIL = ROOT / "docs" / "backends" / "torch.xfail"


@pytest.fixture(scope="module")
def backend():
    return backends.get("torch")


def _f32(*bits: int, shape: tuple[int, ...] | None = None) -> torch.Tensor:
    array = np.array(bits, dtype=np.uint32).view(np.float32)
    return torch.from_numpy(array.reshape(shape if shape is not None else (len(bits),)))


def _bits(result: torch.Tensor) -> list[int]:
    return [int(b) for b in result.numpy().reshape(-1).view(np.uint32)]


# ---------------------------------------------------------------------------
# The adapter itself
# ---------------------------------------------------------------------------


def test_registry_name_thread_setting_and_kernels(backend):
    assert backend.name == "torch"
    assert isinstance(backend, torch_cpu.TorchBackend)
    assert torch.get_num_threads() == 1 == backend.num_threads
    assert set(torch_cpu.KERNELS) == {spec.name for spec in registered_operations()}


def test_leaving_the_thread_count_alone():
    torch.set_num_threads(2)
    try:
        assert torch_cpu.TorchBackend(num_threads=None).num_threads == 2
    finally:
        torch.set_num_threads(1)


def test_tensor_exchange_keeps_every_bit(backend):
    patterns = [0, 0x80000000, 1, 0x807FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
                0x7FC00001, 0x7FFFFFFF, 0xFFD2A4C6, 0x3F800000, 0x7F7FFFFF]  # fmt: skip
    oracle_tensor = Tensor(DType.Float32, (13,), tuple(from_bits(b) for b in patterns))
    native = backend.from_tensor(oracle_tensor)
    assert native.dtype == torch.float32 and tuple(native.shape) == (13,)
    assert _bits(native) == list(oracle_tensor.bits()) == patterns
    assert backend.to_tensor(native) == oracle_tensor
    for tensor in (
        Tensor(DType.Int32, (2, 2), (-(2**31), 2**31 - 1, 0, -1)),
        Tensor(DType.Bool, (3,), (True, False, True)),
        Tensor(DType.Float32, (), (-0.0,)),
        Tensor(DType.Float32, (0, 3), ()),
    ):
        assert backend.to_tensor(backend.from_tensor(tensor)) == tensor


def test_native_tensors_of_other_kinds_are_refused(backend):
    with pytest.raises(TypeError, match="float32, int32 and bool"):
        backend.execute("neg", torch.zeros(2, dtype=torch.float64))
    with pytest.raises(TypeError, match=r"expected a torch\.Tensor"):
        backend.to_tensor(np.zeros(2, np.float32))
    with pytest.raises(TypeError, match="strided cpu tensors"):
        backend.execute("neg", torch.zeros(2).to_sparse())


# -- devices and the exchange ------------------------------------------------------------------


def test_torch_cpu_is_the_cpu_device_and_the_bare_name():
    for name in ("torch", "torch:cpu"):
        chosen = backends.get(name)
        assert chosen.name == "torch" and chosen.device.type == "cpu"
        native = chosen.from_tensor(Tensor.from_nested([1.5, -2.0], DType.Float32))
        assert native.device.type == "cpu"
        assert chosen.to_tensor(chosen.execute("neg", native)).bits() == (0xBFC00000, 0x40000000)


def test_an_absent_cuda_device_is_refused_when_the_backend_is_made():
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    with pytest.raises(backends.BackendLoadError, match="no CUDA device"):
        torch_cpu.TorchBackend(device="cuda")
    with pytest.raises(ValueError, match="'cpu' or 'cuda'"):
        torch_cpu.TorchBackend(device="mps")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
def test_torch_cuda_runs_the_boundary_examples_of_neg_and_add():
    chosen = backends.get("torch:cuda")
    assert chosen.name == "torch:cuda"
    for plan in resolvable_plans():
        if plan.operation in ("neg", "add"):
            for call in boundary_examples(plan):
                outcome = run_call(chosen, call)
                assert outcome.problem not in (
                    Problem.UNEXPECTED_EXCEPTION,
                    Problem.WRONG_TYPE,
                    Problem.WRONG_SHAPE_OR_DTYPE,
                ), outcome.verdict


def test_the_tensor_exchange_keeps_signalling_nans(backend):
    patterns = (0x7F800001, 0xFFA00000, 0x7FBFFFFF, 0x3F800000)
    tensor = Tensor.from_bits(DType.Float32, (4,), patterns)
    native = backend.from_tensor(tensor)
    assert native.numpy().view(np.uint32).tolist() == list(patterns)
    assert backend.to_tensor(native).bits() == patterns


def test_every_plan_runs_with_its_output_dtype_and_shape(backend):
    """Every resolvable plan, on every boundary example: the dtype is the plan's
    output, and the shape is the oracle's -- except the one shape deviation of
    torch, ``dim=()`` reducing every dimension."""
    for plan in resolvable_plans():
        results = 0
        for call in boundary_examples(plan):
            outcome = run_call(backend, call)
            assert outcome.problem != Problem.WRONG_TYPE, call.repro()
            if outcome.actual is None:
                continue
            results += 1
            assert outcome.actual.dtype is plan.output, call.repro()
            if outcome.expectation.error is not None:  # wrapped Int32: no reference shape
                assert outcome.problem == Problem.MISSING_EXCEPTION, call.repro()
                continue
            expectation = outcome.expectation
            result = expectation.result
            shape = result.shape if result is not None else expectation.shape
            if outcome.problem == Problem.WRONG_SHAPE_OR_DTYPE:
                assert plan.operation in ("reduce_sum", "reduce_max", "reduce_min")
                assert call.args[1] == (), call.repro()
                assert outcome.actual.shape == (1,) * call.args[0].ndim * call.args[2]
            else:
                assert outcome.actual.shape == shape, call.repro()
        assert results, plan.describe()


# ---------------------------------------------------------------------------
# Errors: the planner's first, then the argument checks, before any allocation
# ---------------------------------------------------------------------------


def _planner_error(operation, *operands, **options):
    with pytest.raises(Exception) as info:
        resolve_operation_plan(operation, *operands, **options)
    return info.value


@pytest.mark.parametrize(
    ("operation", "args", "options", "operands"),
    [
        ("exp2", (torch.zeros(2, dtype=torch.int32),), {}, (DType.Int32,)),
        ("mul", (torch.zeros(2, dtype=torch.int32), 2**31), {}, (DType.Int32, 2**31)),
        ("mul", (torch.zeros(2), "2"), {}, (DType.Float32, "2")),
        (
            "reduce_sum",
            (torch.zeros(2, dtype=torch.int32),),
            {"accumulator_dtype": DType.Float64},
            (DType.Int32,),
        ),
        ("select", (torch.zeros(2), torch.zeros(2), torch.zeros(2)), {}, (DType.Float32,) * 3),
        ("no_such_operation", (torch.zeros(2),), {}, (DType.Float32,)),
    ],
)
def test_planner_errors_are_the_planners_and_come_first(
    backend, monkeypatch, operation, args, options, operands
):
    expected = _planner_error(operation, *operands, **options)
    ran = []
    if operation in torch_cpu.KERNELS:
        monkeypatch.setitem(torch_cpu.KERNELS, operation, lambda *a: ran.append(a))
    before = backend.allocations
    with pytest.raises(type(expected)) as info:
        backend.execute(operation, *args, **options)
    assert str(info.value) == str(expected)
    assert not ran and backend.allocations == before


_I32 = torch.int32

#: (operation, adapter arguments, the torch call a torch user writes for them): the adapter
#: checks nothing itself, so it raises exactly what torch raises (type and message)
ARGUMENT_ERRORS = [
    ("add", (torch.zeros(2), torch.zeros(3)), lambda: torch.add(torch.zeros(2), torch.zeros(3))),
    ("select", (torch.ones(2, dtype=torch.bool), torch.zeros(3), torch.zeros(2)),
     lambda: torch.where(torch.ones(2, dtype=torch.bool), torch.zeros(3), torch.zeros(2))),
    ("reduce_sum", (torch.zeros(2, 2), (0, -2)), lambda: torch.sum(torch.zeros(2, 2), (0, -2))),
    ("reduce_sum", (torch.zeros(2, 2), 5), lambda: torch.sum(torch.zeros(2, 2), 5)),
    ("reduce_sum", (torch.zeros(2, 2), None, 1),
     lambda: torch.sum(torch.zeros(2, 2), None, keepdim=1)),
    ("reduce_max", (torch.zeros(2, 0), 1), lambda: torch.amax(torch.zeros(2, 0), 1)),
    ("argmin", (torch.zeros(0),), lambda: torch.argmin(torch.zeros(0))),
    ("argmax", (torch.zeros(2), True), lambda: torch.argmax(torch.zeros(2), dim=True)),
    ("cumsum", (torch.zeros(2), 1), lambda: torch.cumsum(torch.zeros(2), 1)),
    ("matmul", (torch.zeros(2, 3), torch.zeros(2, 3)),
     lambda: torch.matmul(torch.zeros(2, 3), torch.zeros(2, 3))),
    ("gather", (torch.zeros(3), torch.tensor([3], dtype=_I32), 0),
     lambda: torch.index_select(torch.zeros(3), 0, torch.tensor([3], dtype=_I32))),
    ("gather", (torch.zeros(3), torch.tensor([0], dtype=_I32), 1),
     lambda: torch.index_select(torch.zeros(3), 1, torch.tensor([0], dtype=_I32))),
    ("scatter_add", (torch.zeros(3), torch.tensor([0], dtype=_I32), torch.zeros(2), 0),
     lambda: torch.zeros(3).index_add_(0, torch.tensor([0], dtype=_I32), torch.zeros(2))),
    ("_topk_values", (torch.zeros(3), 4), lambda: torch.topk(torch.zeros(3), 4)),
    ("_topk_values", (torch.zeros(3), True), lambda: torch.topk(torch.zeros(3), True)),
    ("_sort_values", (torch.zeros(3), 0, 1),
     lambda: torch.sort(torch.zeros(3), dim=0, descending=1, stable=True)),
    ("_sort_values", (torch.zeros(3), 2), lambda: torch.sort(torch.zeros(3), dim=2, stable=True)),
    ("conv_general", (torch.zeros(1, 2, 3), torch.zeros(1, 1, 2), (1,), ((0, 0),), (1,), (1,), 1),
     lambda: torch.nn.functional.conv1d(torch.zeros(1, 2, 3), torch.zeros(1, 1, 2))),
]  # fmt: skip


@pytest.mark.parametrize(
    ("operation", "args", "direct"), ARGUMENT_ERRORS, ids=[e[0] for e in ARGUMENT_ERRORS]
)
def test_argument_errors_are_torch_s_own(backend, operation, args, direct):
    """No validation layer: the adapter's exception is torch's, type and message, and
    nothing is counted as allocated."""
    with pytest.raises(Exception) as expected:
        direct()
    before = backend.allocations
    with pytest.raises(type(expected.value)) as info:
        backend.execute(operation, *args)
    assert type(info.value) is type(expected.value)
    assert str(info.value) == str(expected.value)
    assert not isinstance(info.value, NotMeasured)
    assert backend.allocations == before


@pytest.mark.parametrize(
    ("operation", "args", "missing"),
    [
        ("reduce_prod", (torch.ones(2, 2), ()), "reduces no dimension"),
        ("reduce_prod", (torch.ones(2, 2), (0, 1), 1), "keepdims True or False only"),
        ("conv_general", (torch.ones(1, 1, 2), torch.ones(1, 1, 1), None, ((0, 0, 0),)),
         "padding as 1 .low, high. int pairs"),
        ("conv_general", (torch.ones(1, 1, 2), torch.ones(1, 1, 1), None, None, (0,)),
         "lhs_dilation as 1 ints of at least 1"),
        ("conv_general", (torch.ones(1, 1, 1, 1, 1, 1), torch.ones(1, 1, 1, 1, 1, 1)),
         "4 spatial dimensions"),
    ],
)  # fmt: skip
def test_what_torch_has_no_argument_for_is_not_measured(backend, operation, args, missing):
    before = backend.allocations
    with pytest.raises(NotMeasured, match=missing):
        backend.execute(operation, *args)
    assert backend.allocations == before


def test_torch_composes_nothing(backend):
    assert dict(backend.composed_operations) == {}


# ---------------------------------------------------------------------------
# The suite's verdicts: conforming calls conform, torch's deviations are reported
# ---------------------------------------------------------------------------

_ONES16 = ",".join(['"0x3f800000"'] * 16)
_TINY16 = ",".join(['"0x00000001"'] * 16)
_ZEROS16 = ",".join(['"0x00000000"'] * 16)
_NEGZEROS16 = ",".join(['"0x80000000"'] * 16)
_INF2 = ",".join(['"0x7f800000"'] * 2)

#: (deviation, call JSON, the problem the runner must report) -- docs/backends/torch.md
DEVIATIONS = [
    ("int32 wraps", '{"op":"add","args":[{"tensor":"Int32","shape":[1],"values":[2147483647]},'
     '{"tensor":"Int32","shape":[1],"values":[1]}]}', Problem.MISSING_EXCEPTION),
    ("int32 pow wraps", '{"op":"pow","args":[{"tensor":"Int32","shape":[1],"values":[2]},31]}',
     Problem.MISSING_EXCEPTION),
    ("int32 matmul wraps", '{"op":"matmul","args":[{"tensor":"Int32","shape":[1,2],"values":'
     '[2147483647,1]},{"tensor":"Int32","shape":[2,1],"values":[1,1]}]}',
     Problem.MISSING_EXCEPTION),
    ("int32 sum narrowing wraps", '{"op":"reduce_sum","args":[{"tensor":"Int32","shape":[2],'
     '"values":[2147483647,1]},null,false]}', Problem.MISSING_EXCEPTION),
    ("scatter duplicates", '{"op":"scatter","args":[{"tensor":"Float32","shape":[1],"bits":'
     '["0x00000000"]},{"tensor":"Int32","shape":[2],"values":[0,0]},{"tensor":"Float32",'
     '"shape":[2],"bits":["0x3f800000","0x40000000"]},0]}', Problem.MISSING_EXCEPTION),
    ("weak int beyond int64", '{"op":"mul","args":[{"tensor":"Float32","shape":[1],"bits":'
     '["0x3f800000"]},18446744073709551616]}', Problem.UNEXPECTED_EXCEPTION),
    ("weak float beyond float32", '{"op":"clamp","args":[{"tensor":"Float32","shape":[1],'
     '"bits":["0x3f800000"]},{"float":"0x0.0p+0"},{"float":"0x1.0p+128"}]}',
     Problem.UNEXPECTED_EXCEPTION),
    ("dim=() reduces all", '{"op":"reduce_sum","args":[{"tensor":"Float32","shape":[2],"bits":'
     '["0x3f800000","0x40000000"]},{"tuple":[]},false]}', Problem.WRONG_SHAPE_OR_DTYPE),
    ("maximum signed zero", '{"op":"maximum","args":[{"tensor":"Float32","shape":[],"bits":'
     '["0x80000000"]},{"tensor":"Float32","shape":[],"bits":["0x00000000"]}]}',
     Problem.WRONG_VALUE),
    ("maximum signed zero, vector path", '{"op":"maximum","args":[{"tensor":"Float32",'
     f'"shape":[16],"bits":[{_ZEROS16}]}},{{"tensor":"Float32","shape":[16],"bits":'
     f'[{_NEGZEROS16}]}}]}}', Problem.WRONG_VALUE),
    ("relu(-0)", '{"op":"relu","args":[{"tensor":"Float32","shape":[],"bits":["0x80000000"]}]}',
     Problem.WRONG_VALUE),
    ("clamp keeps -0", '{"op":"clamp","args":[{"tensor":"Float32","shape":[1],"bits":'
     '["0x80000000"]},0,2]}', Problem.WRONG_VALUE),
    ("reduce_max signed zero", '{"op":"reduce_max","args":[{"tensor":"Float32","shape":[2],'
     '"bits":["0x80000000","0x00000000"]},null,false]}', Problem.WRONG_VALUE),
    ("reduce_max NaN bits", '{"op":"reduce_max","args":[{"tensor":"Float32","shape":[2],'
     '"bits":["0x3f800000","0x7fc00001"]},null,false]}', Problem.WRONG_VALUE),
    ("sign(NaN)", '{"op":"sign","args":[{"tensor":"Float32","shape":[],"bits":["0x7fc00000"]}]}',
     Problem.WRONG_VALUE),
    ("fmod vector path", f'{{"op":"rem","args":[{{"tensor":"Float32","shape":[16],"bits":'
     f'[{_ONES16}]}},{{"tensor":"Float32","shape":[16],"bits":[{_TINY16}]}}]}}',
     Problem.WRONG_VALUE),
    ("sqrt not correctly rounded", '{"op":"sqrt","args":[{"tensor":"Float32","shape":[],'
     '"bits":["0x01000010"]}]}', Problem.WRONG_VALUE),
    ("silu(-inf)", '{"op":"silu","args":[{"tensor":"Float32","shape":[],"bits":["0xff800000"]}]}',
     Problem.WRONG_VALUE),
    ("gelu(+inf), vector path", f'{{"op":"gelu","args":[{{"tensor":"Float32","shape":[2],'
     f'"bits":[{_INF2}]}}]}}', Problem.WRONG_VALUE),
    ("silu subnormal underflow", '{"op":"silu","args":[{"tensor":"Float32","shape":[],"bits":'
     '["0x00000001"]}]}', Problem.WRONG_VALUE),
    ("cumsum wider accumulator", '{"op":"cumsum","args":[{"tensor":"Float32","shape":[3],'
     '"bits":["0x4b800000","0x3f800000","0xcb800000"]},0]}', Problem.WRONG_VALUE),
    ("conv order", '{"op":"conv_general","args":[{"tensor":"Float32","shape":[1,1,3],"bits":'
     '["0x4b800000","0x3f800000","0xcb800000"]},{"tensor":"Float32","shape":[1,1,3],"bits":'
     '["0x3f800000","0x3f800000","0x3f800000"]},{"tuple":[1]},{"tuple":[{"tuple":[0,0]}]},'
     '{"tuple":[1]},{"tuple":[1]},1]}', Problem.WRONG_VALUE),
    ("matmul unrounded products", '{"op":"matmul","args":[{"tensor":"Float32","shape":[1,2],'
     '"bits":["0xbf800002","0x3f800001"]},{"tensor":"Float32","shape":[2,1],"bits":'
     '["0x3f800000","0x3f800001"]}]}', Problem.WRONG_VALUE),
    ("matmul float64 unrounded products", '{"op":"matmul","args":[{"tensor":"Float32",'
     '"shape":[1,2],"bits":["0xbf800002","0x3f800001"]},{"tensor":"Float32","shape":[2,1],'
     '"bits":["0x3f800000","0x3f800001"]}],"accumulator_dtype":"Float64"}',
     Problem.WRONG_VALUE),
    ("matmul -0", '{"op":"matmul","args":[{"tensor":"Float32","shape":[1,2],"bits":'
     '["0x00000001","0x80000001"]},{"tensor":"Float32","shape":[2,1],"bits":'
     '["0x3f000000","0x3f000000"]}]}', Problem.WRONG_VALUE),
    ("topk ties", '{"op":"_topk_indices","args":[{"tensor":"Float32","shape":[4],"bits":'
     '["0x00000000","0x00000000","0x00000000","0x00000000"]},1,0,true]}', Problem.WRONG_VALUE),
    ("exp 1 ULP", '{"op":"exp","args":[{"tensor":"Float32","shape":[],"bits":["0x33800000"]}]}',
     Problem.WRONG_VALUE),
]  # fmt: skip


#: deviations measured on the machine docs/backends/torch.md was first written on that
#: depend on the CPU's kernels: on another x86-64 CPU (MKL's small sgemm/conv paths, its
#: vector sqrt) torch may compute these calls conformingly -- torch 2.13.0 and 2.15.0 both
#: do on the machine of 2026-12-03
CPU_DEPENDENT = {"sqrt not correctly rounded", "conv order", "matmul unrounded products",
                 "matmul -0"}  # fmt: skip


@pytest.mark.parametrize(("name", "text", "problem"), DEVIATIONS, ids=[d[0] for d in DEVIATIONS])
def test_torch_deviations_are_reported_as_their_fault_kind(backend, name, text, problem):
    outcome = run_call(backend, call_from_json(text))
    if outcome.ok and name in CPU_DEPENDENT:
        pytest.skip(f"torch {torch.__version__} computes this call conformingly on this CPU")
    assert not outcome.ok
    assert outcome.problem == problem, outcome.verdict


def test_a_ulp_budget_accepts_torch_exp_but_not_its_special_values(backend):
    close = call_from_json(DEVIATIONS[-1][1])
    assert run_call(backend, close, ulp_budget=1).ok
    silu = call_from_json(next(d[1] for d in DEVIATIONS if d[0] == "silu(-inf)"))
    assert not run_call(backend, silu, ulp_budget=10**6).ok  # NaN for -0: never budgeted


def test_the_same_values_conform_off_the_vector_path(backend):
    """fmod and maximum deviate only in torch's vectorised loop body (16 float32
    lanes here); the same element alone takes the scalar path and conforms."""
    rem = call_from_json(
        '{"op":"rem","args":[{"tensor":"Float32","shape":[1],"bits":["0x3f800000"]},'
        '{"tensor":"Float32","shape":[1],"bits":["0x00000001"]}]}'
    )
    assert run_call(backend, rem).ok
    maximum = call_from_json(
        '{"op":"maximum","args":[{"tensor":"Float32","shape":[1],"bits":["0x00000000"]},'
        '{"tensor":"Float32","shape":[1],"bits":["0x80000000"]}]}'
    )
    assert run_call(backend, maximum).ok


@pytest.mark.parametrize(
    "operation",
    ["neg", "abs", "floor", "ceil", "round", "recip", "div", "eq", "lt", "le", "ne",
     "logical_not", "leaky_relu", "select", "gather", "scatter_add", "argmax", "argmin",
     "_sort_values", "_sort_indices"],
)  # fmt: skip
def test_conforming_operations_conform_on_every_boundary_example(backend, operation):
    """Every value conforms; the calls the reference refuses torch refuses too, with its
    own exception type (a wrong exception type is the only problem allowed)."""
    for plan in (p for p in resolvable_plans() if p.operation == operation):
        for call in boundary_examples(plan):
            outcome = run_call(backend, call)
            if outcome.problem == Problem.WRONG_EXCEPTION:
                continue
            assert outcome.ok, f"{outcome.verdict}\n{call.repro()}"


def test_results_are_torch_s_own(backend):
    """The kernels hand the work to torch: the adapter's results are the torch calls'."""
    x = _f32(0x3F800000, 0x40000000, 0xC0400000, 0x33800000)
    assert _bits(backend.execute("exp", x)) == _bits(torch.exp(x))
    assert _bits(backend.execute("gelu", x)) == _bits(torch.nn.functional.gelu(x))
    a = torch.arange(6, dtype=torch.float32).reshape(2, 3) / 7
    assert _bits(backend.execute("matmul", a, a.T)) == _bits(torch.matmul(a, a.T))
    assert _bits(backend.execute("cumsum", x, 0)) == _bits(torch.cumsum(x, 0))
    assert expectation_of(call_from_json(DEVIATIONS[0][1])).error is not None


# ---------------------------------------------------------------------------
# plancheck run with the published known-deviations file
# ---------------------------------------------------------------------------


def test_plancheck_run_with_the_published_xfail_file(tmp_path):
    report = tmp_path / "torch.json"
    command = [sys.executable, "-m", "conformance.cli", "run", "--backend", "torch",
               "--op", "neg", "--op", "sign", "--workers", "0", "--xfail", str(XFAIL),
               "--report", str(report)]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    document = json.loads(report.read_text())
    status = {op: row["status"] for op, row in document["table"]["torch"].items()}
    assert status == {"neg": "conforms", "sign": "xfail"}
    assert {x["problem"] for x in document["xfailed"]} == {Problem.WRONG_VALUE}
    assert not document["failures"]
