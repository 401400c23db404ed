"""The array-api-strict adapter (``backends.get("array-api-strict")``) and what the suite
reports about it.

These tests pin array-api-strict 2.6.1 (the ``array-api-strict`` extra), which
implements the array API standard 2025.12: the deviations asserted below are
measured facts about that version (docs/backends/array-api-strict.md).
Skipped when the library is not installed.
"""

from __future__ import annotations

import numpy as np
import pytest

xp = pytest.importorskip(
    "array_api_strict",
    reason="array-api-strict is not installed (pip install 'plancheck[array-api-strict]')",
)

import adapter_checks as checks  # noqa: E402

import backends  # noqa: E402
from backends.adapters import array_api_strict as adapter  # noqa: E402
from backends.adapters.array_namespace import KERNELS  # noqa: E402
from conformance.judge.runner import Problem  # noqa: E402
from oracle import DType, registered_operations  # noqa: E402

# numpy's IEEE flags are silenced by the adapter: a RuntimeWarning is a failure.
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


@pytest.fixture(scope="module")
def backend():
    return backends.get("array-api-strict")


def _f32(*bits: int, shape: tuple[int, ...] | None = None):
    array = np.array(bits, dtype=np.uint32).view(np.float32)
    return xp.asarray(array.reshape(shape if shape is not None else (len(bits),)))


def _bits(result) -> list[int]:
    return np.from_dlpack(result).reshape(-1).view(np.uint32).tolist()


# ---------------------------------------------------------------------------
# The adapter itself
# ---------------------------------------------------------------------------


def test_registry_name_version_and_the_standard_measured(backend):
    assert isinstance(backend, adapter.ArrayApiStrictBackend)
    assert backend.name == "array-api-strict"
    assert backend.version == xp.__version__
    assert adapter.API_VERSION == xp.__array_api_version__ == "2025.12"
    assert backends.EXTRAS["array-api-strict"] == ("array_api_strict", "array-api-strict")
    checks.listed_as_installed("array-api-strict")


def test_every_operation_has_a_kernel_and_the_standard_ones_are_the_shared_table():
    operations = {spec.name for spec in registered_operations()}
    assert set(adapter.STANDARD_KERNELS) == operations
    standard = operations - set(adapter.NOT_IN_STANDARD)
    assert all(adapter.STANDARD_KERNELS[op] is KERNELS[op] for op in standard)
    # every function the table names is the namespace's; none of numpy's extras is there
    assert all(callable(getattr(xp, name)) for name in adapter.STANDARD_FUNCTIONS.values())
    for missing in ("fmod", "exp2", "rsqrt", "erf", "power", "rint", "cumsum", "top_k"):
        assert not hasattr(xp, missing), missing


@pytest.mark.parametrize("operation", sorted(adapter.NOT_IN_STANDARD))
def test_an_operation_the_standard_lacks_is_refused_after_planning(backend, operation):
    checks.refused_after_planning(backend, operation, r"array API standard 2025\.12 has no")


def test_planner_errors_still_come_first(backend):
    with pytest.raises(TypeError):  # exp2 has no Int32 plan: the planner's refusal
        backend.execute("exp2", xp.asarray(np.zeros(2, np.int32)))


def test_a_float64_accumulator_is_the_standard_s_float64_computation(backend):
    """The standard's matmul takes no dtype but computes in its operands' dtype: the
    Float64 accumulator is xp.matmul of float64 operands, narrowed by xp.astype."""
    a = _f32(0xBF800002, 0x3F800001, shape=(1, 2))
    b = _f32(0x3F800000, 0x3F800001, shape=(2, 1))
    wide = xp.matmul(xp.astype(a, xp.float64), xp.astype(b, xp.float64))
    got = backend.execute("matmul", a, b, accumulator_dtype=DType.Float64)
    assert _bits(got) == _bits(xp.astype(wide, xp.float32))
    assert _bits(backend.execute("reduce_sum", _f32(0x3F800000), accumulator_dtype=DType.Float64))


def test_the_adapter_composes_nothing(backend):
    assert dict(backend.composed_operations) == {}


@pytest.mark.parametrize(
    ("operation", "args", "direct"),
    [
        ("reduce_sum", (np.zeros((2, 2), np.float32), 2), lambda x: xp.sum(x, axis=2)),
        ("reduce_sum", (np.zeros((2, 2), np.float32), (0, 0)), lambda x: xp.sum(x, axis=(0, 0))),
        ("cumsum", (np.zeros(2, np.float32), 1), lambda x: xp.cumulative_sum(x, axis=1)),
        ("argmax", (np.zeros(0, np.float32),), lambda x: xp.argmax(x)),
        ("_sort_values", (np.zeros(2, np.float32), 3), lambda x: xp.sort(x, axis=3)),
    ],
)  # fmt: skip
def test_argument_errors_are_the_library_s_own(backend, operation, args, direct):
    """No validation layer: the adapter raises exactly what the library raises."""
    native = xp.asarray(args[0])
    with pytest.raises(Exception) as expected:
        direct(native)
    with pytest.raises(type(expected.value)) as info:
        backend.execute(operation, native, *args[1:])
    assert type(info.value) is type(expected.value)
    assert str(info.value) == str(expected.value)


def test_the_exchange_keeps_every_bit_signalling_nans_included(backend):
    checks.exchange_keeps_bits(backend, _bits)


def test_arrays_of_other_dtypes_and_other_objects_are_refused(backend):
    with pytest.raises(TypeError, match="float32, int32 and bool"):
        backend.execute("neg", xp.asarray(np.zeros(2, np.float64)))
    with pytest.raises(TypeError, match="array_api_strict array"):
        backend.to_tensor(np.zeros(2, np.float32))


def test_every_standard_plan_runs_with_its_output_dtype(backend):
    checks.plans_keep_their_output_dtype(backend, {*adapter.NOT_IN_STANDARD, "logical_not"})


def test_results_are_the_library_s_own(backend):
    x = _f32(0x3F800000, 0x3FE00000, 0xC0400000, 0x33800000)
    assert _bits(backend.execute("exp", x)) == _bits(xp.exp(x))
    assert _bits(backend.execute("cumsum", x, 0)) == _bits(xp.cumulative_sum(x, axis=0))
    a = xp.reshape(xp.arange(6, dtype=xp.float32), (2, 3)) / 7
    assert _bits(backend.execute("matmul", a, a.mT)) == _bits(xp.matmul(a, a.mT))
    order = backend.execute("_sort_indices", x, 0, True)
    assert np.from_dlpack(order).tolist() == [1, 0, 3, 2]


# ---------------------------------------------------------------------------
# Measured deviations of array-api-strict 2.6.1 (docs/backends/array-api-strict.md)
# ---------------------------------------------------------------------------

DEVIATIONS = [
    ("int32 add wraps", '{"op":"add","args":[{"tensor":"Int32","shape":[1],"values":'
     '[2147483647]},{"tensor":"Int32","shape":[1],"values":[1]}]}',
     Problem.MISSING_EXCEPTION),
    ("clip refuses min > max", '{"op":"clamp","args":[{"tensor":"Float32","shape":[1],'
     '"bits":["0x00000000"]},{"tensor":"Float32","shape":[1],"bits":["0x00000000"]},'
     '{"tensor":"Float32","shape":[1],"bits":["0x80000001"]}]}', Problem.UNEXPECTED_EXCEPTION),
    ("a weak bool beside a float array", '{"op":"mul","args":[{"tensor":"Float32","shape":[1],'
     '"bits":["0x3f800000"]},true]}', Problem.UNEXPECTED_EXCEPTION),
    ("logical_not of a float", '{"op":"logical_not","args":[{"tensor":"Float32","shape":[1],'
     '"bits":["0xc0000000"]}]}', Problem.UNEXPECTED_EXCEPTION),
    ("take of 2-d indices", '{"op":"gather","args":[{"tensor":"Float32","shape":[2],"bits":'
     '["0x3f800000","0x40000000"]},{"tensor":"Int32","shape":[1,1],"values":[1]},0]}',
     Problem.UNEXPECTED_EXCEPTION),
    ("maximum signed zero", '{"op":"maximum","args":[{"tensor":"Float32","shape":[1],"bits":'
     '["0x00000000"]},{"tensor":"Float32","shape":[1],"bits":["0x80000000"]}]}',
     Problem.WRONG_VALUE),
    ("a weak int rounded twice", '{"op":"mul","args":[{"tensor":"Float32","shape":[1],"bits":'
     '["0x3f800000"]},18014399583223809]}', Problem.WRONG_VALUE),
    ("exp 1 ULP", '{"op":"exp","args":[{"tensor":"Float32","shape":[],"bits":["0x3f800000"]}]}',
     Problem.WRONG_VALUE),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "problem"), DEVIATIONS, ids=[d[0] for d in DEVIATIONS])
def test_deviations_are_reported_as_their_fault_kind(backend, name, text, problem):
    checks.reported_as(backend, text, problem)


CONFORMING = ["neg", "abs", "floor", "ceil", "round", "div", "eq", "lt", "le", "ne", "select",
              "argmax", "argmin", "reduce_prod"]  # fmt: skip


@pytest.mark.parametrize("operation", CONFORMING)
def test_conforming_operations_conform_on_every_boundary_example(backend, operation):
    # reduce_prod's one class: keepdims=1 is accepted (a missing TypeError)
    checks.conforms_on_boundary_examples(backend, operation, Problem.MISSING_EXCEPTION
                                         if operation == "reduce_prod" else "")  # fmt: skip


def test_plancheck_run_with_the_published_xfail_file(tmp_path):
    xfail = checks.ROOT / "docs" / "backends" / "array-api-strict.xfail"
    document = checks.run_with_xfail("array-api-strict", xfail, ("neg", "maximum"),
                                     tmp_path / "report.json")  # fmt: skip
    status = {op: row["status"] for op, row in document["table"]["array-api-strict"].items()}
    assert status == {"neg": "conforms", "maximum": "xfail"}
    assert {x["problem"] for x in document["xfailed"]} == {Problem.WRONG_VALUE}
