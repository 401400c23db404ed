"""The ONNX Runtime adapter (``backends.get("onnxruntime")``) and what the suite reports about it.

These tests pin onnxruntime 1.32.0 and onnx 1.23.2 (the ``onnxruntime`` extra) on
the CPU execution provider with one intra-op thread: the deviations asserted
below are measured facts about that build (docs/backends/onnxruntime.md).
Skipped when onnxruntime is not installed.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

ort = pytest.importorskip(
    "onnxruntime", reason="onnxruntime is not installed (pip install 'plancheck[onnxruntime]')"
)
onnx = pytest.importorskip(
    "onnx", reason="onnx is not installed (pip install 'plancheck[onnxruntime]')"
)

import backends  # noqa: E402
from backends.adapters import onnxruntime_cpu  # noqa: E402
from backends.errors import NotMeasured  # noqa: E402
from conformance.generate.strategies import boundary_examples  # noqa: E402
from conformance.judge.runner import Problem, run_call  # noqa: E402
from conformance.report import call_from_json  # noqa: E402
from oracle import DType, Tensor, registered_operations, resolvable_plans  # noqa: E402

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


@pytest.fixture
def backend():
    return backends.get("onnxruntime")


def _f32(*bits: int, shape: tuple[int, ...] | None = None) -> np.ndarray:
    array = np.array(bits, dtype=np.uint32).view(np.float32)
    return array.reshape(shape if shape is not None else (len(bits),))


def _bits(array: np.ndarray) -> list[int]:
    return array.reshape(-1).view(np.uint32).tolist()


@pytest.fixture
def models(backend, monkeypatch):
    """Every model the backend builds a session for, in order."""
    built = []
    session = backend.session

    def recording(model):
        built.append(model)
        return session(model)

    monkeypatch.setattr(backend, "session", recording)
    return built


# ---------------------------------------------------------------------------
# The adapter itself
# ---------------------------------------------------------------------------


def test_registry_name_version_and_kernels(backend):
    assert backend.name == "onnxruntime" and backend.version == ort.__version__
    assert isinstance(backend, onnxruntime_cpu.OnnxRuntimeBackend)
    assert set(onnxruntime_cpu.KERNELS) == {spec.name for spec in registered_operations()}
    assert backend.unsupported == {"conv-lhs-dilation"}
    assert dict(backend.composed_operations) == {}  # every mapped operation is one node
    listing = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "backends"], capture_output=True, text=True
    )
    assert listing.returncode == 0
    assert any(line.split()[:3] == ["onnxruntime", "onnxruntime", "installed"]
               for line in listing.stdout.splitlines())  # fmt: skip


def test_the_onnx_defaults_the_mapping_relies_on():
    """LeakyRelu, Elu, Swish and Gelu run at ONNX's defaults: slope 0.01, alpha 1,
    alpha 1 and the erf form -- the plans' constants."""
    defaults = {
        ("LeakyRelu", "alpha"): pytest.approx(0.01),
        ("Elu", "alpha"): 1.0,
        ("Swish", "alpha"): 1.0,
        ("Gelu", "approximate"): b"none",
    }
    for (op_type, name), value in defaults.items():
        attribute = onnx.defs.get_schema(op_type, onnxruntime_cpu.OPSET).attributes[name]
        assert onnx.helper.get_attribute_value(attribute.default_value) == value


def test_every_call_is_one_node_on_the_cpu_provider_with_one_thread(backend, models):
    x = _f32(0x3F800000, 0x40000000)
    i = np.array([1, 2], dtype=np.int32)
    backend.execute("add", x, i)  # Int32 -> Float32 through ORT's Cast, then Add
    backend.execute("_topk_indices", x, 1)
    assert [m.graph.node[0].op_type for m in models] == ["Cast", "Add", "TopK"]
    for model in models:
        assert len(model.graph.node) == 1
        assert [(o.domain, o.version) for o in model.opset_import] == [("", 24)]
    session = backend.session(models[0])
    assert session.get_providers() == ["CPUExecutionProvider"]
    assert session.get_session_options().intra_op_num_threads == 1


def test_sessions_are_cached_per_plan_attributes_and_ranks(backend):
    a, b = _f32(0x3F800000, 0x40000000), _f32(0x40400000, 0x40800000)
    backend.execute("add", a, b)
    backend.execute("add", b, a)
    backend.execute("add", _f32(1, 2, 3), _f32(4, 5, 6))  # same ranks: same session
    assert backend.sessions_built == 1
    backend.execute("add", a.reshape(2, 1), b)  # another rank
    backend.execute("mul", a, b)  # another operation
    backend.execute("reduce_sum", a, 0, True)
    backend.execute("reduce_sum", a, 0, False)  # another attribute
    assert backend.sessions_built == 5


def test_weak_scalars_are_0d_inputs_of_the_plans_dtype(backend, models):
    x = _f32(0x3F800000)
    assert _bits(backend.execute("mul", x, 2.5)) == [0x40200000]
    assert _bits(backend.execute("mul", x, 3)) == [0x40400000]
    assert backend.sessions_built == 1  # the value is an input, not a constant
    weak = models[0].graph.input[1].type.tensor_type
    assert weak.elem_type == onnx.TensorProto.FLOAT and len(weak.shape.dim) == 0
    ints = np.array([7], dtype=np.int32)
    assert backend.execute("mul", ints, 3).tolist() == [21]
    assert models[-1].graph.input[1].type.tensor_type.elem_type == onnx.TensorProto.INT32


def test_tensor_exchange_keeps_every_bit(backend):
    patterns = [0, 0x80000000, 1, 0x807FFFFF, 0x7F800000, 0xFFC00000, 0x7FC00001, 0x7F800001]
    tensor = Tensor.from_bits(DType.Float32, (8,), patterns)  # a signalling NaN included
    native = backend.from_tensor(tensor)
    assert _bits(native) == patterns and backend.to_tensor(native).bits() == tuple(patterns)
    for other in (Tensor(DType.Int32, (2,), (-(2**31), 2**31 - 1)),
                  Tensor(DType.Bool, (), (True,)), Tensor(DType.Float32, (0, 2), ())):  # fmt: skip
        assert backend.to_tensor(backend.from_tensor(other)) == other
    with pytest.raises(TypeError, match="float32, int32 and bool"):
        backend.execute("neg", np.zeros(2, np.float64))
    with pytest.raises(TypeError, match=r"expected a numpy\.ndarray"):
        backend.to_tensor([1.0])


@pytest.mark.parametrize(
    ("operation", "args", "options", "why"),
    [
        ("exp2", (_f32(0),), {}, "no Exp2"),
        ("ne", (_f32(0), _f32(0)), {}, "no NotEqual"),
        (
            "scatter",
            (_f32(0, 0, shape=(1, 2)), np.zeros(1, np.int32), _f32(0, shape=(1, 1)), 1),
            {},
            "leading axis only, not 1",
        ),
        (
            "conv_general",
            (_f32(0, 0, shape=(1, 1, 2)), _f32(0, shape=(1, 1, 1)), (1,), ((0, 0, 1),)),
            {},
            r"padding as 1 \(low, high\) int pairs",
        ),
        ("_topk_values", (_f32(0), 2**70), {}, "no ONNX tensor form"),
        (
            "conv_general",
            (_f32(0, 0, shape=(1, 1, 2)), _f32(0, shape=(1, 1, 1)), (1,), ((0, 0),), (2,), (1,), 1),
            {},
            "input .lhs. dilation",
        ),
    ],
)
def test_what_has_no_single_node_is_not_measured_before_running(
    backend, models, operation, args, options, why
):
    with pytest.raises(NotMeasured, match=why):
        backend.execute(operation, *args, **options)
    assert not models and backend.allocations == 0


def test_axis_tuple_empty_is_no_reduction_and_parameters_are_onnx_runtime_s_to_judge(backend):
    """No validation layer: a bool or float axis, a float k reach ONNX Runtime as the
    typed input they are and it refuses them (its InvalidGraph); a keepdims of 1 and a
    list axis are ONNX's own spellings, which it accepts."""
    x = _f32(0x3F800000, 0x40000000)
    assert _bits(backend.execute("reduce_sum", x, ())) == _bits(x)
    assert _bits(backend.execute("reduce_sum", x, None)) == [0x40400000]
    assert _bits(backend.execute("reduce_sum", x, [0])) == [0x40400000]
    assert _bits(backend.execute("reduce_max", x, 0, 1)) == [0x40000000]
    for operation, args in (("reduce_sum", (x, True)), ("reduce_sum", (x, 0.0)),
                            ("_topk_values", (x, 1.0)), ("cumsum", (x, 0.5))):  # fmt: skip
        with pytest.raises(ort.capi.onnxruntime_pybind11_state.InvalidGraph):
            backend.execute(operation, *args)
    with pytest.raises(ort.capi.onnxruntime_pybind11_state.Fail):
        backend.execute("reduce_sum", x, 1)  # out of range: ORT's own check
    assert backend.allocations == 4


def test_logical_not_is_one_equal_node_with_zero(backend, models):
    """Equal(x, 0): +-0 -> True, NaN -> False, anything else False."""
    x = _f32(0x00000000, 0x80000000, 0x7FC00000, 0x3F800000, 0x00000001, 0xFF800000)
    assert backend.execute("logical_not", x).tolist() == [True, True, False, False, False, False]
    assert [m.graph.node[0].op_type for m in models] == ["Equal"]


def test_argmax_over_everything_is_argmax_of_the_flattened_data(backend, models):
    x = _f32(0x3F800000, 0x40400000, 0x40000000, 0x40400000, shape=(2, 2))
    assert backend.execute("argmax", x).tolist() == 1
    assert backend.execute("argmin", x, None).tolist() == 0
    assert [m.graph.node[0].op_type for m in models] == ["ArgMax", "ArgMin"]


def test_a_float64_accumulator_is_the_node_in_double(backend, models):
    """Cast to double, the node in double, Cast back: products exact, one rounding."""
    a = _f32(0xBF800002, 0x3F800001, shape=(1, 2))
    b = _f32(0x3F800000, 0x3F800001, shape=(2, 1))
    wide = a.astype(np.float64) @ b.astype(np.float64)
    got = backend.execute("matmul", a, b, accumulator_dtype=DType.Float64)
    assert _bits(got) == _bits(wide.astype(np.float32))
    total = backend.execute("reduce_sum", _f32(0x4B800000, 0x3F800000, 0xCB800000),
                            accumulator_dtype=DType.Float64)  # fmt: skip
    assert _bits(total) == [0x3F800000]  # 2**24 + 1 - 2**24, exact in double
    computing = [m for m in models if m.graph.node[0].op_type != "Cast"]
    assert [m.graph.node[0].op_type for m in computing] == ["MatMul", "ReduceSum"]
    for model in computing:  # the node itself computes in double
        assert model.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.DOUBLE


def test_results_are_the_sessions_own(backend):
    x = _f32(0x3F800000, 0x40000000, 0xC0400000, 0x33800000)
    for operation, op_type in (("exp", "Exp"), ("gelu", "Gelu"), ("tanh", "Tanh")):
        model = onnxruntime_cpu.single_node_model(
            op_type, [(onnx.TensorProto.FLOAT, 1)], [onnx.TensorProto.FLOAT], {}
        )
        direct = ort.InferenceSession(model.SerializeToString()).run(None, {"x0": x})[0]
        assert _bits(backend.execute(operation, x)) == _bits(direct)


# ---------------------------------------------------------------------------
# Measured deviations (docs/backends/onnxruntime.md)
# ---------------------------------------------------------------------------

_COS8 = ",".join(['"0x3f000010"'] * 8)

#: (deviation, call JSON, the problem the runner must report)
DEVIATIONS = [
    ("int32 wraps", '{"op":"add","args":[{"tensor":"Int32","shape":[1],"values":[2147483647]},'
     '{"tensor":"Int32","shape":[1],"values":[1]}]}', Problem.MISSING_EXCEPTION),
    ("shape error is Fail", '{"op":"add","args":[{"tensor":"Float32","shape":[2],"bits":'
     '["0x3f800000","0x3f800000"]},{"tensor":"Float32","shape":[3],"bits":["0x3f800000",'
     '"0x3f800000","0x3f800000"]}]}', Problem.WRONG_EXCEPTION),
    ("clip ignores a NaN bound", '{"op":"clamp","args":[{"tensor":"Float32","shape":[1],'
     '"bits":["0x3f800000"]},{"float":"nan"},2]}', Problem.WRONG_VALUE),
    ("clip takes 0-d bounds only", '{"op":"clamp","args":[{"tensor":"Float32","shape":[2],'
     '"bits":["0x3f800000","0x3f800000"]},{"tensor":"Float32","shape":[2],"bits":'
     '["0x00000000","0x00000000"]},2]}', Problem.UNEXPECTED_EXCEPTION),
    ("where(True, -0, +0) is +0", '{"op":"select","args":[{"tensor":"Bool","shape":[1],'
     '"values":[true]},{"tensor":"Float32","shape":[1],"bits":["0x80000000"]},{"tensor":'
     '"Float32","shape":[1],"bits":["0x00000000"]}]}', Problem.WRONG_VALUE),
    ("reduce_max skips NaN", '{"op":"reduce_max","args":[{"tensor":"Float32","shape":[3],'
     '"bits":["0x3f800000","0x7fc00001","0xffd2a4c6"]},null,false]}', Problem.WRONG_VALUE),
    ("elu of a tiny negative is +0", '{"op":"elu","args":[{"tensor":"Float32","shape":[1],'
     '"bits":["0x80800000"]}]}', Problem.WRONG_VALUE),
    ("swish(-inf) is NaN", '{"op":"silu","args":[{"tensor":"Float32","shape":[1],"bits":'
     '["0xff800000"]}]}', Problem.WRONG_VALUE),
    ("cos in the vectorised kernel", f'{{"op":"cos","args":[{{"tensor":"Float32","shape":[8],'
     f'"bits":[{_COS8}]}}]}}', Problem.WRONG_VALUE),
    ("negative gather index wraps", '{"op":"gather","args":[{"tensor":"Float32","shape":[1],'
     '"bits":["0x00000000"]},{"tensor":"Int32","shape":[1],"values":[-1]},0]}',
     Problem.MISSING_EXCEPTION),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "problem"), DEVIATIONS, ids=[d[0] for d in DEVIATIONS])
def test_onnxruntime_deviations_are_reported_as_their_fault_kind(backend, name, text, problem):
    outcome = run_call(backend, call_from_json(text))
    assert not outcome.ok
    assert outcome.problem == problem, outcome.verdict


def test_cos_of_the_same_element_alone_conforms(backend):
    """The cos deviation lives in ORT's vectorised kernel: one element alone is right."""
    alone = call_from_json(
        '{"op":"cos","args":[{"tensor":"Float32","shape":[1],"bits":["0x3f000010"]}]}'
    )
    assert run_call(backend, alone).ok


@pytest.mark.parametrize("operation", ["neg", "abs", "floor", "ceil", "round", "recip", "sign",
                                       "sqrt", "leaky_relu"])  # fmt: skip
def test_conforming_operations_conform_on_their_boundary_examples(backend, operation):
    for plan in (p for p in resolvable_plans() if p.operation == operation):
        for call in boundary_examples(plan):
            outcome = run_call(backend, call)
            assert outcome.ok, f"{outcome.verdict}\n{call.repro()}"
