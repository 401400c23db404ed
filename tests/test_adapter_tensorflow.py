"""The TensorFlow adapter (``backends.get("tensorflow")``) and what the suite reports about it.

These tests pin tensorflow-cpu 2.21.0 (the ``tensorflow`` extra), eager CPU
operations with one intra-op and one inter-op thread: the deviations asserted
below are measured facts about that build (docs/backends/tensorflow.md), so
another TensorFlow may flip them.  Skipped when TensorFlow is not installed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

# the adapter first: it sets TF_CPP_MIN_LOG_LEVEL before TensorFlow is imported
tensorflow_cpu = pytest.importorskip(
    "backends.adapters.tensorflow_cpu",
    reason="tensorflow is not installed (pip install 'plancheck[tensorflow]')",
)
tf = tensorflow_cpu.tf

import backends  # noqa: E402
from backends.errors import NotMeasured  # noqa: E402
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

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

ROOT = Path(__file__).resolve().parents[1]
XFAIL = ROOT / "docs" / "backends" / "tensorflow.xfail"


@pytest.fixture(scope="module")
def backend():
    return backends.get("tensorflow")


def _f32(*bits: int, shape: tuple[int, ...] | None = None):
    array = np.array(bits, dtype=np.uint32).view(np.float32)
    return tf.constant(array.reshape(shape if shape is not None else (len(bits),)))


def _bits(result) -> list[int]:
    return [int(b) for b in np.asarray(result.numpy()).reshape(-1).view(np.uint32)]


def _cpu(operation: str, *args, **options):
    """The CPU backend's result of the same call (the adapter's layout steps are checked
    against it on values whose sums are exact)."""
    cpu = backends.get("cpu")
    native = [cpu.from_tensor(Tensor.from_numpy(a.numpy())) if isinstance(a, tf.Tensor) else a
              for a in args]  # fmt: skip
    return cpu.to_tensor(cpu.execute(operation, *native, **options))


# ---------------------------------------------------------------------------
# The adapter itself
# ---------------------------------------------------------------------------


def test_registry_name_threads_kernels_and_declared_features(backend):
    assert backend.name == "tensorflow"
    assert isinstance(backend, tensorflow_cpu.TensorFlowBackend)
    assert backend.version == f"tensorflow {tf.__version__}"
    assert backend.num_threads == (1, 1)
    assert tf.config.threading.get_intra_op_parallelism_threads() == 1
    assert tf.config.threading.get_inter_op_parallelism_threads() == 1
    assert set(tensorflow_cpu.KERNELS) == {spec.name for spec in registered_operations()}
    assert backend.unsupported == {"topk-smallest"}


def test_the_thread_count_is_fixed_once_tensorflow_has_started(backend):
    backend.execute("neg", _f32(0x3F800000))  # the runtime has started
    with pytest.raises(backends.BackendLoadError, match="runtime already started"):
        tensorflow_cpu.TensorFlowBackend(num_threads=2)
    assert tensorflow_cpu.TensorFlowBackend(num_threads=None).num_threads == (1, 1)
    assert tensorflow_cpu.TensorFlowBackend(num_threads=1).num_threads == (1, 1)


def test_plancheck_backends_lists_tensorflow():
    done = subprocess.run([sys.executable, "-m", "conformance.cli", "backends", "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    row = next(r for r in json.loads(done.stdout) if r["name"] == "tensorflow")
    assert row["library"] == "tensorflow" and row["installed"] is True


def test_without_tensorflow_the_load_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorflow", None)  # import tensorflow -> ImportError
    monkeypatch.delitem(sys.modules, "backends.adapters.tensorflow_cpu")
    with pytest.raises(backends.BackendLoadError, match=r"pip install 'plancheck\[tensorflow\]'"):
        backends.get("tensorflow")


def test_tensor_exchange_keeps_every_bit(backend):
    patterns = [0, 0x80000000, 1, 0x807FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
                0x7FC00001, 0x7F800001, 0xFFA00000, 0x3F800000, 0x7F7FFFFF]  # fmt: skip
    oracle_tensor = Tensor.from_bits(DType.Float32, (13,), patterns)
    native = backend.from_tensor(oracle_tensor)
    assert native.dtype == tf.float32 and tuple(native.shape) == (13,)
    assert _bits(native) == patterns  # signalling NaNs (0x7F800001, 0xFFA00000) included
    assert backend.to_tensor(native).bits() == tuple(patterns)
    for tensor in (
        Tensor(DType.Int32, (2, 2), (-(2**31), 2**31 - 1, 0, -1)),
        Tensor(DType.Bool, (3,), (True, False, True)),
        Tensor(DType.Float32, (), (-0.0,)),
        Tensor(DType.Float32, (0, 3), ()),
    ):
        assert backend.to_tensor(backend.from_tensor(tensor)) == tensor


def test_native_tensors_of_other_kinds_are_refused(backend):
    with pytest.raises(TypeError, match="float32, int32 and bool"):
        backend.execute("neg", tf.zeros([2], tf.float64))
    with pytest.raises(TypeError, match=r"expected a tf\.Tensor"):
        backend.to_tensor(np.zeros(2, np.float32))


@pytest.mark.parametrize(
    ("operation", "args", "options", "operands"),
    [
        ("exp2", lambda: (tf.zeros([2], tf.int32),), {}, (DType.Int32,)),
        ("mul", lambda: (tf.zeros([2], tf.int32), 2**31), {}, (DType.Int32, 2**31)),
        ("mul", lambda: (tf.zeros([2]), "2"), {}, (DType.Float32, "2")),
        ("reduce_sum", lambda: (tf.zeros([2], tf.int32),), {"accumulator_dtype": DType.Float64},
         (DType.Int32,)),
        ("select", lambda: (tf.zeros([2]),) * 3, {}, (DType.Float32,) * 3),
    ],
)  # fmt: skip
def test_planner_errors_are_the_planners_and_come_before_tensorflow(
    backend, monkeypatch, operation, args, options, operands
):
    with pytest.raises(Exception) as planned:
        resolve_operation_plan(operation, *operands, **options)
    ran = []
    monkeypatch.setitem(tensorflow_cpu.KERNELS, operation, lambda *a: ran.append(a))
    before = backend.allocations
    with pytest.raises(type(planned.value)) as info:
        backend.execute(operation, *args(), **options)  # tensors made after the backend
    assert str(info.value) == str(planned.value)
    assert not ran and backend.allocations == before


def test_results_are_tensorflow_s_own(backend):
    """The kernels hand the work to TensorFlow: the adapter's results are its calls'."""
    x = _f32(0x3F800000, 0x40000000, 0xC0400000, 0x33800000, 0x7FC00001, 0x80000000)
    assert _bits(backend.execute("exp", x)) == _bits(tf.math.exp(x))
    assert _bits(backend.execute("gelu", x)) == _bits(tf.nn.gelu(x, approximate=False))
    assert _bits(backend.execute("exp2", x)) == _bits(tf.experimental.numpy.exp2(x))
    assert _bits(backend.execute("cumsum", x, 0)) == _bits(tf.math.cumsum(x, axis=0))
    assert _bits(backend.execute("_sort_values", x)) == _bits(tf.sort(x))
    a = tf.reshape(tf.range(6, dtype=tf.float32), [2, 3]) / 7
    assert _bits(backend.execute("matmul", a, tf.transpose(a))) == _bits(
        tf.linalg.matmul(a, tf.transpose(a))
    )


def test_the_layout_steps_compute_the_reference_call(backend):
    """conv_general's channels-last transposes, padding, cropping and input dilation, the
    scatter and top-k axis moves and the flat argmax give the reference result where
    TensorFlow's arithmetic is exact (small integers)."""
    lhs = tf.reshape(tf.range(2 * 4 * 5 * 3, dtype=tf.float32) % 7 - 3, [2, 4, 5, 3])
    rhs = tf.reshape(tf.range(6 * 2 * 2 * 2, dtype=tf.float32) % 5 - 2, [6, 2, 2, 2])
    for strides, padding, lhs_dilation, rhs_dilation in [
        ((2, 1), ((1, -1), (2, 0)), (1, 1), (1, 1)),
        ((1, 1), ((0, 1), (-1, 1)), (2, 1), (1, 2)),  # TensorFlow: no stride with dilation
    ]:
        args = (lhs, rhs, strides, padding, lhs_dilation, rhs_dilation, 2)
        assert backend.to_tensor(backend.execute("conv_general", *args)) == _cpu(
            "conv_general", *args
        )
    base = tf.reshape(tf.range(12, dtype=tf.float32), [3, 4])
    indices = tf.constant([[3, 0], [0, 0]], tf.int32)
    updates = tf.reshape(tf.range(12, dtype=tf.float32), [3, 2, 2])
    for operation in ("scatter_add", "gather"):
        args = (base, indices, updates, 1) if operation == "scatter_add" else (base, indices, 1)
        assert backend.to_tensor(backend.execute(operation, *args)) == _cpu(operation, *args)
    x = tf.constant([[1.0, 5.0, 2.0], [4.0, 3.0, 6.0]])
    for operation, args in [("_topk_values", (x, 1, 0)), ("_topk_indices", (x, 2, 1)),
                            ("argmax", (x,)), ("argmin", (x, 0))]:  # fmt: skip
        assert backend.to_tensor(backend.execute(operation, *args)) == _cpu(operation, *args)


def test_smallest_k_is_declared_and_not_measured(backend):
    before = backend.allocations
    for largest in (False, 1):
        with pytest.raises(NotMeasured, match="no smallest-k"):
            backend.execute("_topk_values", _f32(0x3F800000, 0x40000000), 1, 0, largest)
    assert backend.allocations == before
    assert dict(backend.composed_operations) == {}


def test_what_tensorflow_has_no_spelling_for_is_not_measured(backend):
    lhs = tf.zeros([1, 4, 3])
    rhs = tf.zeros([2, 2, 1])  # C / C_w = 2 groups: TensorFlow infers them
    with pytest.raises(NotMeasured, match="infers 4 / 2 = 2 groups"):
        backend.execute("conv_general", lhs, rhs, (1,), ((0, 0),), (1,), (1,), 1)
    with pytest.raises(NotMeasured, match=r"padding as 1 \(low, high\) int pairs"):
        backend.execute("conv_general", lhs, rhs, (1,), (0, 0), (1,), (1,), 2)
    with pytest.raises(NotMeasured, match="direction string"):
        backend.execute("_sort_values", tf.zeros([2]), 0, 1)


def test_an_axis_out_of_range_is_tensorflow_s_own_error(backend):
    x = tf.zeros([2])
    for operation, args, direct in (
        ("reduce_sum", (x, 3), lambda: tf.math.reduce_sum(x, axis=3)),
        ("_topk_values", (x, 1, 3), lambda: tf.experimental.numpy.moveaxis(x, 3, -1)),
    ):
        with pytest.raises(Exception) as expected:
            direct()
        with pytest.raises(type(expected.value)):
            backend.execute(operation, *args)


# ---------------------------------------------------------------------------
# The suite's verdicts: measured deviations of TensorFlow 2.21.0
# ---------------------------------------------------------------------------

_F = '{{"tensor":"Float32","shape":[{n}],"bits":[{bits}]}}'


def _lanes(pattern: str, n: int = 64) -> str:
    """A Float32 tensor of *n* copies of *pattern* (TensorFlow's vectorised path)."""
    return _F.format(n=n, bits=",".join([f'"{pattern}"'] * n))


#: (deviation, call JSON, the problem the runner must report) -- docs/backends/tensorflow.md
DEVIATIONS = [
    ("subnormal input read as 0 (DAZ)", '{"op":"add","args":[' + _F.format(n=1, bits='"0x00000001"')
     + "," + _F.format(n=1, bits='"0x00000000"') + "]}", Problem.WRONG_VALUE),
    ("int32 wraps", '{"op":"add","args":[{"tensor":"Int32","shape":[1],"values":[2147483647]},'
     '{"tensor":"Int32","shape":[1],"values":[1]}]}', Problem.MISSING_EXCEPTION),
    ("shape error is InvalidArgumentError", '{"op":"add","args":[' + _F.format(n=2, bits=
     '"0x3f800000","0x3f800000"') + "," + _F.format(n=3, bits='"0x3f800000","0x3f800000",'
     '"0x3f800000"') + "]}", Problem.WRONG_EXCEPTION),
    ("clip_by_value applies lo last", '{"op":"clamp","args":[' + _F.format(n=1, bits=
     '"0x3f800000"') + ",3,2]}", Problem.WRONG_VALUE),
    ("empty reduce_max is -inf", '{"op":"reduce_max","args":[{"tensor":"Float32","shape":[0],'
     '"bits":[]},null,false]}', Problem.MISSING_EXCEPTION),
    ("sort leaves NaN in place", '{"op":"_sort_values","args":[' + _F.format(n=3, bits=
     '"0x3f800000","0x7fc00000","0x3f000000"') + ",0,true]}", Problem.WRONG_VALUE),
    ("weak int rounded through binary64", '{"op":"mul","args":[' + _F.format(n=1, bits=
     '"0x3f800000"') + ",18014399583223809]}", Problem.WRONG_VALUE),
    ("matmul products not rounded", '{"op":"matmul","args":[{"tensor":"Float32","shape":[1,2],'
     '"bits":["0xbf800002","0x3f800001"]},{"tensor":"Float32","shape":[2,1],"bits":'
     '["0x3f800000","0x3f800001"]}]}', Problem.WRONG_VALUE),
    ("reciprocal off by 1 ULP, vector path",
     '{"op":"recip","args":[' + _lanes("0x00800000") + "]}", Problem.WRONG_VALUE),
    ("silu(-inf) NaN, vector path",
     '{"op":"silu","args":[' + _lanes("0xff800000") + "]}", Problem.WRONG_VALUE),
    ("strides with dilation refused", '{"op":"conv_general","args":[{"tensor":"Float32","shape":'
     '[1,1,5],"bits":["0x3f800000","0x3f800000","0x3f800000","0x3f800000","0x3f800000"]},'
     '{"tensor":"Float32","shape":[1,1,2],"bits":["0x3f800000","0x3f800000"]},{"tuple":[2]},'
     '{"tuple":[{"tuple":[0,0]}]},{"tuple":[1]},{"tuple":[2]},1]}', Problem.UNEXPECTED_EXCEPTION),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "problem"), DEVIATIONS, ids=[d[0] for d in DEVIATIONS])
def test_tensorflow_deviations_are_reported_as_their_fault_kind(backend, name, text, problem):
    outcome = run_call(backend, call_from_json(text))
    assert not outcome.ok
    assert outcome.problem == problem, outcome.verdict


def test_the_vectorised_deviations_are_absent_on_one_element(backend):
    """recip and cos deviate only on TensorFlow's vectorised path; the same element alone
    conforms (which is why the reproductions run 64 copies of a corpus case)."""
    for operation, pattern in (("recip", "0x00800000"), ("cos", "0x3f000010")):
        lanes = '{"op":"' + operation + '","args":[' + _lanes(pattern) + "]}"
        assert run_call(backend, call_from_json(lanes)).problem == Problem.WRONG_VALUE
        element = _F.format(n=1, bits=f'"{pattern}"')
        one = '{"op":"' + operation + '","args":[' + element + "]}"
        assert run_call(backend, call_from_json(one)).ok


@pytest.mark.parametrize("operation", ["neg", "abs", "round"])
def test_conforming_operations_conform_on_every_boundary_example(backend, operation):
    for plan in (p for p in resolvable_plans() if p.operation == operation):
        for call in boundary_examples(plan):
            outcome = run_call(backend, call)
            assert outcome.ok, f"{outcome.verdict}\n{call.repro()}"


# ---------------------------------------------------------------------------
# plancheck run with the published known-deviations file
# ---------------------------------------------------------------------------


def test_plancheck_run_with_the_published_xfail_file(tmp_path):
    report = tmp_path / "tensorflow.json"
    command = [sys.executable, "-m", "conformance.cli", "run", "--backend", "tensorflow",
               "--op", "neg", "--op", "ceil", "--workers", "0", "--xfail", str(XFAIL),
               "--report", str(report)]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    document = json.loads(report.read_text())
    status = {op: row["status"] for op, row in document["table"]["tensorflow"].items()}
    assert status == {"neg": "conforms", "ceil": "xfail"}
    assert {x["problem"] for x in document["xfailed"]} == {Problem.WRONG_VALUE}
    assert not document["failures"]
