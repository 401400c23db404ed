"""The MLX adapter (``backends.get("mlx")``) and what the suite reports about it.

These tests pin mlx 0.32.4 with its CPU-only Linux build (the ``mlx`` extra,
``mlx[cpu]``): the deviations asserted below are measured facts about that
build (docs/backends/mlx.md).  Skipped when mlx is not installed.
"""

from __future__ import annotations

import numpy as np
import pytest

mx = pytest.importorskip("mlx.core", reason="mlx is not installed (pip install 'plancheck[mlx]')")

import adapter_checks as checks  # noqa: E402

import backends  # noqa: E402
from backends.adapters import mlx_cpu  # noqa: E402
from backends.adapters.array_namespace import KERNELS  # noqa: E402
from backends.errors import NotMeasured  # noqa: E402
from conformance.host.client import BackendHost  # noqa: E402
from conformance.judge.runner import Problem  # noqa: E402
from oracle import DType, registered_operations  # noqa: E402


@pytest.fixture(scope="module")
def backend():
    return backends.get("mlx")


def _f32(*bits: int, shape: tuple[int, ...] | None = None):
    array = np.array(bits, dtype=np.uint32).view(np.float32)
    return mx.array(array.reshape(shape if shape is not None else (len(bits),)))


def _bits(result) -> list[int]:
    return np.array(result).reshape(-1).view(np.uint32).tolist()


# ---------------------------------------------------------------------------
# The adapter itself
# ---------------------------------------------------------------------------


def test_registry_name_version_and_declared_features(backend):
    assert isinstance(backend, mlx_cpu.MlxBackend)
    assert backend.name == "mlx"
    assert backend.version == mx.__version__
    assert backend.unsupported == {"sort-descending", "topk-smallest"}
    assert backends.EXTRAS["mlx"] == ("mlx", "mlx")
    assert mx.default_device() == mx.cpu
    checks.listed_as_installed("mlx")


def test_every_operation_has_a_kernel_and_mlx_s_own_functions_replace_formulas():
    assert set(mlx_cpu.MLX_KERNELS) == {spec.name for spec in registered_operations()}
    own = {op for op, kernel in mlx_cpu.MLX_KERNELS.items() if kernel is not KERNELS[op]}
    assert own == {"sigmoid", "rsqrt", "erf", "silu", "softplus", "elu", "relu", "gelu",
                   "leaky_relu", "reduce_sum", *mlx_cpu.NOT_IN_MLX}  # fmt: skip
    assert all(callable(getattr(mx, name)) for name in mlx_cpu.MLX_FUNCTIONS.values())
    for missing in ("fmod", "exp2", "rint"):
        assert not hasattr(mx, missing), missing


@pytest.mark.parametrize("operation", sorted(mlx_cpu.NOT_IN_MLX))
def test_an_operation_mlx_lacks_is_refused_after_planning(backend, operation):
    checks.refused_after_planning(backend, operation, r"mlx 0\.32\.4 has no function")


def test_float64_accumulators_are_mlx_s_float64_arithmetic(backend):
    """mx.matmul and mx.sum of float64 operands on the CPU stream, cast back: the
    products and the sum exact in double, one rounding to float32."""
    a = _f32(0xBF800002, 0x3F800001, shape=(1, 2))
    b = _f32(0x3F800000, 0x3F800001, shape=(2, 1))
    wide = np.array(a).astype(np.float64) @ np.array(b).astype(np.float64)
    got = backend.execute("matmul", a, b, accumulator_dtype=DType.Float64)
    assert _bits(got) == wide.astype(np.float32).view(np.uint32).reshape(-1).tolist()
    total = backend.execute("reduce_sum", _f32(0x4B800000, 0x3F800000, 0xCB800000),
                            accumulator_dtype=DType.Float64)  # fmt: skip
    assert _bits(total) == [0x3F800000]  # 2**24 + 1 - 2**24: exact in double
    assert _bits(backend.execute("reduce_sum", _f32(0x4B800000, 0x3F800000, 0xCB800000))) == [0]


def test_forms_mlx_has_no_argument_for_are_not_measured(backend):
    x = _f32(0x3F800000)
    for descending in (True, 1):
        with pytest.raises(NotMeasured, match="no descending argument"):
            backend.execute("_sort_values", x, 0, descending)
    with pytest.raises(NotMeasured, match="no largest argument"):
        backend.execute("_topk_values", x, 1, 0, False)
    with pytest.raises(NotMeasured, match=r"padding as 1 \(low, high\) int pairs"):
        backend.execute("conv_general", _f32(0, 0, shape=(1, 1, 2)), _f32(0, shape=(1, 1, 1)),
                        (1,), (0, 0))  # fmt: skip
    assert dict(backend.composed_operations) == {}


def test_argument_errors_are_mlx_s_own(backend):
    """No validation layer: an axis out of range is mlx's IndexError, message and all."""
    x = _f32(0x3F800000, 0x40000000)
    for operation, args, direct in (
        ("reduce_sum", (x, 3), lambda: mx.sum(x, axis=3)),
        ("_sort_values", (x, 2), lambda: mx.sort(x, axis=2)),
        ("scatter", (x, mx.array([0], dtype=mx.int32), _f32(0), 4), lambda: mx.moveaxis(x, 4, 0)),
    ):
        with pytest.raises(Exception) as expected:
            direct()
        with pytest.raises(type(expected.value)) as info:
            backend.execute(operation, *args)
        assert str(info.value) == str(expected.value)


def test_the_exchange_keeps_every_bit_signalling_nans_included(backend):
    checks.exchange_keeps_bits(backend, _bits)


def test_arrays_of_other_dtypes_and_other_objects_are_refused(backend):
    with pytest.raises(TypeError, match="float32, int32 and bool"):
        backend.execute("neg", mx.array([1.0], dtype=mx.float16))
    with pytest.raises(TypeError, match=r"mlx\.core\.array"):
        backend.to_tensor(np.zeros(2, np.float32))


def _empty_reduction(call) -> bool:
    """mlx's empty reductions hang at random inside ``mx.eval`` (docs/backends/mlx.intermittent)."""
    return call.operation in ("reduce_prod", "reduce_sum") and any(
        getattr(a, "size", None) == 0 for a in call.args
    )


def test_every_plan_runs_with_its_output_dtype():
    # in a host with a timeout: in this process such a hang stopped the whole suite
    host = BackendHost("mlx")
    try:
        checks.plans_keep_their_output_dtype(
            host, mlx_cpu.NOT_IN_MLX, timeout=10.0, may_hang=_empty_reduction
        )
    finally:
        host.close()


def test_results_are_the_library_s_own(backend):
    x = _f32(0x3F800000, 0x3FE00000, 0xC0400000, 0x33800000)
    assert _bits(backend.execute("exp", x)) == _bits(mx.exp(x))
    assert _bits(backend.execute("gelu", x)) == _bits(mlx_cpu.mlx.nn.gelu(x))
    assert _bits(backend.execute("cumsum", x, 0)) == _bits(mx.cumsum(x, axis=0))
    a = mx.reshape(mx.arange(6, dtype=mx.float32), (2, 3)) / 7
    assert _bits(backend.execute("matmul", a, a.T)) == _bits(mx.matmul(a, a.T))


# ---------------------------------------------------------------------------
# Measured deviations of mlx 0.32.4 on the CPU (docs/backends/mlx.md)
# ---------------------------------------------------------------------------

DEVIATIONS = [
    ("int32 add wraps", '{"op":"add","args":[{"tensor":"Int32","shape":[1],"values":'
     '[2147483647]},{"tensor":"Int32","shape":[1],"values":[1]}]}', Problem.MISSING_EXCEPTION),
    ("int32 matmul refused", '{"op":"matmul","args":[{"tensor":"Int32","shape":[1,1],'
     '"values":[16777216]},{"tensor":"Int32","shape":[1,1],"values":[2]}]}',
     Problem.UNEXPECTED_EXCEPTION),
    ("sign(NaN) is 0", '{"op":"sign","args":[{"tensor":"Float32","shape":[1],"bits":'
     '["0x7fc00001"]}]}', Problem.WRONG_VALUE),
    ("elu(-0) is +0", '{"op":"elu","args":[{"tensor":"Float32","shape":[1],"bits":'
     '["0x80000000"]}]}', Problem.WRONG_VALUE),
    ("gelu(-inf) is NaN", '{"op":"gelu","args":[{"tensor":"Float32","shape":[1],"bits":'
     '["0xff800000"]}]}', Problem.WRONG_VALUE),
    ("topk not sorted", '{"op":"_topk_values","args":[{"tensor":"Float32","shape":[3],"bits":'
     '["0x00000001","0xc0e00000","0x40e00000"]},3,0]}', Problem.WRONG_VALUE),
    ("a Python int beyond int64", '{"op":"mul","args":[{"tensor":"Float32","shape":[1],'
     '"bits":["0x3f800000"]},340282366920938463463374607431768211456]}',
     Problem.UNEXPECTED_EXCEPTION),
    ("axis out of range is IndexError", '{"op":"argmax","args":[{"tensor":"Float32",'
     '"shape":[1],"bits":["0x00000000"]},1]}', Problem.WRONG_EXCEPTION),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "problem"), DEVIATIONS, ids=[d[0] for d in DEVIATIONS])
def test_deviations_are_reported_as_their_fault_kind(backend, name, text, problem):
    checks.reported_as(backend, text, problem)


CONFORMING = ["abs", "ceil", "div", "eq", "floor", "le", "leaky_relu", "logical_not", "lt", "ne",
              "neg", "recip", "relu", "round", "select", "sqrt"]  # fmt: skip


@pytest.mark.parametrize("operation", CONFORMING)
def test_conforming_operations_conform_on_every_boundary_example(backend, operation):
    checks.conforms_on_boundary_examples(backend, operation)


def test_plancheck_run_with_the_published_xfail_file(tmp_path):
    xfail = checks.ROOT / "docs" / "backends" / "mlx.xfail"
    document = checks.run_with_xfail("mlx", xfail, ("neg", "sign"), tmp_path / "report.json")
    status = {op: row["status"] for op, row in document["table"]["mlx"].items()}
    assert status == {"neg": "conforms", "sign": "xfail"}
