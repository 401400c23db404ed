"""The jax adapter: complete, planned centrally, measured with JAX's defaults.

Skipped when jax is not installed (CI does not install it; ``pip install
plancheck[jax]`` does).  What is asserted: every registered operation has a
kernel and every resolvable plan executes with the plan's output dtype and
shape, planner errors come before jax is touched, and the suite reports
JAX's real deviations as the right fault kinds: Float32 add conforms, Int32
add wraps, exp is not correctly rounded, ``jnp.take`` fills an out-of-range
index with NaN instead of raising IndexError, a Python int outside int32 is
refused by jax even on a Float32 plan, and a Float64 accumulator request is
truncated to float32 (JAX says so itself, x64 being off).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="jax is an optional extra: pip install plancheck[jax]")

import jax.numpy as jnp  # noqa: E402

import backends  # noqa: E402
from backends.adapters.array_namespace import KERNELS  # noqa: E402
from backends.adapters.jax_cpu import JaxBackend  # noqa: E402
from backends.errors import NotMeasured  # noqa: E402
from conformance.generate.strategies import boundary_examples  # noqa: E402
from conformance.judge.runner import Problem, run_call  # noqa: E402
from conformance.model.calls import Call  # noqa: E402
from oracle import (  # noqa: E402
    DType,
    Tensor,
    get_operation,
    registered_operations,
    resolvable_plans,
    resolve_operation_plan,
)
from oracle import vectorised as V  # noqa: E402

# The backends are silent on IEEE exceptions: a RuntimeWarning is a failure.
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

PLANS = resolvable_plans()
LIBRARY_FAULTS = {
    Problem.WRONG_VALUE,
    Problem.MISSING_EXCEPTION,
    Problem.WRONG_EXCEPTION,
    Problem.UNEXPECTED_EXCEPTION,  # jax refuses Python ints outside int32 (tested below)
}
#: how many boundary examples per plan the completeness test runs (each new
#: shape is a new XLA compilation)
EXAMPLES_PER_PLAN = 1


@pytest.fixture(scope="module")
def backend():
    return backends.get("jax")


def _call(operation, *args, accumulator_dtype=None):
    policy = get_operation(operation).policy_operands(args)
    operands = [a.dtype if isinstance(a, Tensor) else a for a in policy]
    plan = resolve_operation_plan(operation, *operands, accumulator_dtype=accumulator_dtype)
    return Call(operation, args, accumulator_dtype, plan)


def _f32(*values):
    return Tensor(DType.Float32, (len(values),), tuple(float(v) for v in values))


def _i32(*values):
    return Tensor(DType.Int32, (len(values),), tuple(values))


def test_jax_defaults_hold():
    assert jax.config.jax_enable_x64 is False  # the adapter enables nothing
    assert JaxBackend().device.platform == "cpu"


def test_every_registered_operation_has_a_kernel():
    names = {spec.name for spec in registered_operations()}
    assert set(JaxBackend.kernels) == names
    own = {name for name in names if JaxBackend.kernels[name] is not KERNELS[name]}
    assert own == {"sigmoid", "silu", "softplus", "elu", "relu", "leaky_relu", "gelu", "rsqrt",
                   "erf"}  # fmt: skip


@pytest.mark.filterwarnings("ignore:Explicitly requested dtype float64")  # class 11, tested below
def test_every_plan_executes_with_the_plan_dtype_and_shape(backend):
    for plan in PLANS:
        results = [run_call(backend, c) for c in boundary_examples(plan)[:EXAMPLES_PER_PLAN]]
        returned = [o for o in results if o.actual is not None]
        assert returned, f"{plan.describe()}: no boundary example returned a result"
        for outcome in returned:
            assert outcome.actual.dtype is plan.output, outcome.verdict
            expected = outcome.expectation
            if expected.error is None:
                shape = expected.result.shape if expected.result is not None else expected.shape
                assert outcome.actual.shape == shape, outcome.verdict
        problems = {o.problem for o in results if o.problem is not None}
        assert problems <= LIBRARY_FAULTS, (plan.describe(), problems)


class _Recorder:
    def __init__(self, module):
        self._module = module
        self.touched: list[str] = []

    def __getattr__(self, name):
        self.touched.append(name)
        return getattr(self._module, name)


def test_planner_errors_come_before_jax(backend):
    class Spy(JaxBackend):
        pass

    spy = Spy()
    spy.xp = _Recorder(jnp)
    x = spy.from_tensor(_i32(1, 2))
    for operation, args, operands in [
        ("mul", (x, 2**31), (DType.Int32, 2**31)),
        ("sqrt", (x,), (DType.Int32,)),
        ("no_such_operation", (x,), (DType.Int32,)),
    ]:
        with pytest.raises(Exception) as planned:
            resolve_operation_plan(operation, *operands)
        with pytest.raises(type(planned.value)) as raised:
            spy.execute(operation, *args)
        assert str(raised.value) == str(planned.value)
    with pytest.raises(TypeError, match="float16"):
        spy.execute("add", x, jnp.asarray(np.ones(2, np.float16)))
    assert spy.xp.touched == [] and spy.allocations == 0
    spy.execute("add", x, x)
    assert spy.xp.touched == ["add"] and spy.allocations == 1


def _subnormal(value):
    return value != 0 and abs(value) < 2.0**-126


def test_float32_add_conforms_except_that_subnormals_are_flushed(backend):
    """XLA's CPU code runs with flush-to-zero: a subnormal input or result
    becomes a zero; and jax raises TypeError, not ValueError, for operand
    shapes that do not broadcast.  Everything else of add conforms."""
    checked = 0
    for plan in PLANS:
        if plan.operation != "add" or plan.output is not DType.Float32:
            continue
        for call in boundary_examples(plan):
            outcome = run_call(backend, call)
            checked += 1
            if outcome.ok:
                continue
            if outcome.problem == Problem.WRONG_EXCEPTION:  # jax: TypeError for bad shapes
                assert outcome.expectation.raises is ValueError, call.repro()
                assert isinstance(outcome.raised, TypeError), call.repro()
                assert "incompatible shapes" in str(outcome.raised)
                continue
            assert outcome.problem == Problem.WRONG_VALUE, call.repro()
            subnormal_input = any(_subnormal(v) for a in call.args for v in a.values)
            for mismatch in outcome.verdict.mismatches:
                flushed_result = _subnormal(mismatch.expected) and mismatch.actual == 0.0
                assert flushed_result or subnormal_input, (str(mismatch), call.repro())
    assert checked > 20
    # a subnormal input read as zero (DAZ), a subnormal result of normal inputs set to zero (FTZ)
    call = _call("add", _f32(2.0**-149, -(2.0**-126)), _f32(0.0, 1.5 * 2.0**-126))
    flushed = run_call(backend, call)
    assert flushed.expectation.result.values == (2.0**-149, 2.0**-127)
    assert flushed.problem == Problem.WRONG_VALUE
    assert flushed.actual.bits() == (0, 0)


def test_int32_add_overflow_wraps_instead_of_raising(backend):
    outcome = run_call(backend, _call("add", _i32(2**31 - 1, 5), _i32(1, 6)))
    assert outcome.expectation.raises is OverflowError
    assert outcome.problem == Problem.MISSING_EXCEPTION
    assert list(outcome.actual.values) == [-(2**31), 11]


def test_exp_is_not_correctly_rounded(backend):
    x = np.random.default_rng(20261202).uniform(-87, 88, 1 << 14).astype(np.float32)
    got = np.asarray(backend.execute("exp", backend.from_tensor(Tensor.from_numpy(x))))
    want = V.certified("exp", x)
    wrong = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))
    assert wrong.size, "jax's exp was correctly rounded on the whole sample"
    distance = int(np.abs(got.view(np.int32).astype(np.int64) - want.view(np.int32))[wrong].max())
    call = _call("exp", _f32(*x[wrong[:16]].tolist()))
    assert run_call(backend, call).problem == Problem.WRONG_VALUE
    assert run_call(backend, call, ulp_budget=distance).ok


def test_gather_fills_out_of_range_indices_with_nan(backend):
    outcome = run_call(backend, _call("gather", _f32(1, 2, 3), _i32(0, 3), 0))
    assert outcome.expectation.raises is IndexError
    assert outcome.problem == Problem.MISSING_EXCEPTION
    assert outcome.actual.values[0] == 1.0 and np.isnan(outcome.actual.values[1])


def test_python_int_outside_int32_is_refused_by_jax_on_a_float32_plan(backend):
    call = _call("mul", _f32(1.0), 2**40)
    assert call.plan.output is DType.Float32  # the planner accepts it: a weak float branch
    outcome = run_call(backend, call)
    assert outcome.problem == Problem.UNEXPECTED_EXCEPTION
    assert isinstance(outcome.raised, OverflowError)


def test_float64_accumulator_is_truncated_to_float32(backend):
    x = backend.from_tensor(_f32(1.0, *[2.0**-24] * 96))  # a shape no other test traces
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = backend.execute("reduce_sum", x, accumulator_dtype=DType.Float64)
    assert result.dtype == jnp.float32
    assert any("float64" in str(w.message) and "truncated" in str(w.message) for w in caught)
    # 2**24 + 1 - 2**24 is 1 in Float64 accumulation; jax's float32 sum gives 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call = _call("reduce_sum", _f32(2.0**24, 1.0, -(2.0**24)), accumulator_dtype=DType.Float64)
        outcome = run_call(backend, call)
    assert call.plan.accumulator_dtype is DType.Float64
    assert outcome.problem == Problem.WRONG_VALUE, outcome.verdict
    assert outcome.actual.values == (0.0,)


def test_the_smallest_k_is_not_measured_and_nothing_is_composed(backend):
    """lax.top_k has no smallest-k: the adapter refuses it (NotMeasured, declared
    unsupported) rather than negating the input; every activation is jax's own."""
    x = jnp.asarray(np.array([1.0, 2.0], np.float32))
    for largest in (False, 1):
        with pytest.raises(NotMeasured, match="no smallest-k"):
            backend.execute("_topk_values", x, 1, 0, largest)
    assert backend.unsupported == {"topk-smallest"}
    assert dict(backend.composed_operations) == {}
    values, indices = jax.lax.top_k(x, 1, axis=0)
    assert backend.execute("_topk_values", x, 1, 0, True).tolist() == values.tolist()
    assert backend.execute("_topk_indices", x, 1, 0, True).tolist() == indices.tolist()


def test_an_axis_out_of_range_is_jax_s_own_error(backend):
    x = jnp.asarray(np.zeros(2, np.float32))
    with pytest.raises(Exception) as expected:
        jnp.sum(x, axis=3)
    with pytest.raises(type(expected.value)) as info:
        backend.execute("reduce_sum", x, 3)
    assert str(info.value) == str(expected.value)
