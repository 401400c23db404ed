"""The numba adapter (``backends.get("numba")``) and what the suite reports about it.

These tests pin numba 0.68.1 (the ``numba`` extra): the behaviours asserted below
are measured facts about that version's implementation of the numpy functions
(docs/backends/numba.md).  Skipped when numba is not installed.
"""

from __future__ import annotations

import numpy as np
import pytest

numba = pytest.importorskip(
    "numba", reason="numba is not installed (pip install 'plancheck[numba]')"
)

import adapter_checks as checks  # noqa: E402

import backends  # noqa: E402
from backends.adapters import numba_cpu  # noqa: E402
from backends.errors import NotMeasured  # noqa: E402
from conformance.host.first_call import host_info  # noqa: E402
from oracle import registered_operations  # noqa: E402


@pytest.fixture(scope="module")
def backend():
    return backends.get("numba")


def _f32(*values, shape=None):
    array = np.array(values, dtype=np.float32)
    return array.reshape(shape) if shape is not None else array


def test_registry_name_version_extra_and_first_call_allowance(backend):
    assert isinstance(backend, numba_cpu.NumbaBackend)
    assert backend.name == "numba" and backend.version == numba.__version__
    assert backends.EXTRAS["numba"] == ("numba", "numba")
    assert host_info(backend) == {"first_call_allowance": 60.0, "first_call_key": "signature"}
    checks.listed_as_installed("numba")


def test_every_operation_has_a_kernel():
    assert set(numba_cpu.NUMBA_KERNELS) == {spec.name for spec in registered_operations()}


def test_the_exchange_keeps_every_bit_signalling_nans_included(backend):
    checks.exchange_keeps_bits(
        backend, lambda a: np.asarray(a).reshape(-1).view(np.uint32).tolist()
    )


def test_what_numba_cannot_express_is_not_measured_after_planning(backend):
    checks.refused_after_planning(backend, "conv_general", "numba has no convolution")
    i = np.ones((1, 1), np.int32)
    with pytest.raises(NotMeasured, match="float arrays only"):
        backend.execute("matmul", i, i)
    with pytest.raises(NotMeasured, match="one axis, not a tuple"):
        backend.execute("reduce_sum", _f32(1, 2, shape=(1, 2)), (0, 1))
    with pytest.raises(TypeError):  # planning errors first, as the planner raises them
        backend.execute("add", _f32(1), np.ones(1, np.float64))


def test_results_keep_the_plans_dtype_where_numba_keeps_it(backend):
    x = _f32(1.5, -2.0)
    assert backend.execute("add", x, x).dtype == np.float32
    total = backend.execute("reduce_sum", x)  # numba returns a Python float: boxed, 0-d
    assert isinstance(total, np.ndarray) and total.shape == () and total.dtype == np.float32
    assert backend.execute("argmax", x).dtype == np.int32
    assert backend.execute("reduce_max", _f32(1, 2, 3, 4, shape=(2, 2)), 1, True).shape == (2, 1)
    order = backend.execute("_topk_indices", _f32(3, np.nan, -0.0, 0.0, 1), 2, 0, True)
    assert order.tolist() == [1, 0] and order.dtype == np.int32


def test_measured_numba_weak_floats_are_float64_and_int32_wraps(backend):
    """numba types a Python float as float64 and promotes with it (no weak scalars);
    its int32 add wraps modulo 2**32 (expected: OverflowError)."""
    x = _f32(1.5, -2.0)
    assert backend.execute("mul", x, 2.5).dtype == np.float64
    assert backend.execute("pow", 2.0, x).dtype == np.float64
    assert backend.execute("mul", x, 3).dtype == np.float32  # a Python int does not widen
    big = np.array([2**31 - 1], np.int32)
    assert backend.execute("add", big, big).tolist() == [-2]


def test_measured_numba_maximum_signed_zero_depends_on_argument_order(backend):
    neg, pos = _f32(-0.0), _f32(0.0)
    assert np.signbit(backend.execute("maximum", neg, pos)).tolist() == [True]
    assert np.signbit(backend.execute("maximum", pos, neg)).tolist() == [False]


def test_measured_numba_int32_sums_wrap(backend):
    """np.sum(x, dtype=np.int32) wraps modulo 2**32 (expected: OverflowError)."""
    i = np.array([[2**31 - 1, 1]], np.int32)
    assert backend.execute("reduce_sum", i).tolist() == -(2**31)
    assert backend.execute("reduce_sum", i, 1, True).tolist() == [[-(2**31)]]
    assert backend.unsupported == {"axis-tuple"}


def test_composed_operations_are_named_and_reach_the_host(backend):
    composed = backend.composed_operations
    assert set(composed) <= set(numba_cpu.NUMBA_KERNELS)
    assert {"reduce_max", "_sort_values", "_topk_indices", "scatter_add"} <= set(composed)
    assert "add" not in composed and "exp" not in composed  # one numba call each
    from conformance.host.client import BackendHost

    host = BackendHost("numba")
    try:
        assert host.composed == composed
        assert host.info["first_call_allowance"] == 60.0
    finally:
        host.close()


def test_scatter_takes_multidimensional_indices_along_any_axis(backend):
    """numba takes one 1-d index array: the adapter flattens the indices and the
    matching dimensions of the updates (it once moved only the first of them)."""
    base = np.zeros((2, 4), np.float32)
    indices = np.array([[0, 2], [3, 1]], np.int32)
    updates = np.arange(8, dtype=np.float32).reshape(2, 2, 2)
    expected = base.copy()
    expected[:, indices] = updates
    for axis in (1, -1):
        assert backend.execute("scatter", base, indices, updates, axis).tolist() == (
            expected.tolist()
        )
        assert backend.execute("scatter_add", base, indices, updates, axis).tolist() == (
            expected.tolist()
        )
    assert base.tolist() == np.zeros((2, 4)).tolist()  # a copy, the input untouched
