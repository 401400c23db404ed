"""What issue 32's phase 3 (conformance.classes, generate, mutants checked) made explicit.

Each test fails on the code before the change: a scalar reaching an exact integer
result that needs a tensor raised AttributeError deep inside, a weak scalar's missing
dtype was passed on as None, and ``_valid_k`` returned numpy's bool for a numpy k.
"""

from __future__ import annotations

import numpy as np
import pytest

from conformance.classes.result_values import exact_integer_results
from conformance.generate.rule_operands import plan_operands, tensor_dtype
from conformance.model.calls import Call
from conformance.mutants.structured import _valid_k
from oracle import DType, Tensor
from oracle.planner import OperandRole, resolve_operation_plan


def test_exact_integer_results_names_a_scalar_where_a_tensor_is_needed() -> None:
    plan = resolve_operation_plan("reduce_sum", DType.Int32)
    call = Call("reduce_sum", (5,), None, plan)
    with pytest.raises(TypeError, match=r"reduce_sum: operand 0 is the scalar 5"):
        exact_integer_results(call)


def test_exact_integer_results_of_tensors_unchanged() -> None:
    plan = resolve_operation_plan("reduce_sum", DType.Int32)
    call = Call("reduce_sum", (Tensor(DType.Int32, (2, 2), (1, 2, 3, 4)),), None, plan)
    assert exact_integer_results(call) == [10]


def test_tensor_dtype_of_a_tensor_and_of_a_weak_scalar() -> None:
    plan = resolve_operation_plan("mul", DType.Float32, 2)
    tensor_operand, weak_operand = plan.operands
    assert tensor_operand.role is OperandRole.TENSOR
    assert tensor_dtype(tensor_operand) is DType.Float32
    assert weak_operand.role is OperandRole.WEAK_SCALAR
    with pytest.raises(ValueError, match="weak scalar operand has no storage dtype"):
        tensor_dtype(weak_operand)
    tensor, weak = plan_operands(plan, {0: (3,)})
    assert (tensor.dtype, tensor.shape) == (DType.Float32, (3,))
    assert not isinstance(weak, Tensor)


@pytest.mark.parametrize("k", [2, np.int32(2), np.int64(0)])
def test_valid_k_is_a_python_bool(k: object) -> None:
    assert _valid_k(k, 3) is True
    assert _valid_k(k, -1) is False
