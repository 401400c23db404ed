"""The defects the type checker found (issue 32), each pinned by a test.

* the call codec built a :class:`~conformance.model.calls.Call` whose plan was None
  and accepted a dtype category as a tensor's dtype or as the accumulator;
* a FLOATING plan without an accumulator dtype reached the interval reference;
* the generic backend read ``as_integer_ratio`` from any :class:`numbers.Real`.
"""

from __future__ import annotations

import numbers
from dataclasses import replace

import pytest

from backends.generic.convert import to_float32
from conformance.model.calls import Call, resolve_call_plan
from conformance.model.codec import decode_call, encode_call
from oracle import DType, Tensor, resolve_operation_plan
from oracle.reference.accumulate import reduce_sum

F32 = DType.Float32


def _document() -> dict:
    x = Tensor(F32, (2,), (1.0, 2.0))
    plan = resolve_operation_plan("reduce_sum", F32)
    return encode_call(Call("reduce_sum", (x,), None, plan))


def test_a_decoded_call_without_a_plan_name_gets_the_planners_plan() -> None:
    document = _document()
    document.pop("plan", None)
    call = decode_call(document)
    assert call.plan == resolve_call_plan("reduce_sum", call.args) == call.resolve()


@pytest.mark.parametrize("name", ["Floating", "MXFP4"])
def test_a_tensor_of_a_category_or_compound_dtype_is_not_a_call(name: str) -> None:
    document = _document()
    document["args"][0]["tensor"] = name
    with pytest.raises(ValueError, match=f"simple dtype, not {name}"):
        decode_call(document)


def test_a_category_accumulator_is_not_a_call() -> None:
    document = _document()
    document["accumulator_dtype"] = "Floating"
    with pytest.raises(ValueError, match="accumulator_dtype Floating is not a simple dtype"):
        decode_call(document)


def test_a_floating_plan_naming_no_accumulator_is_refused_by_the_reference() -> None:
    plan = replace(resolve_operation_plan("reduce_sum", F32), accumulator_dtype=None)
    with pytest.raises(ValueError, match="names no accumulator_dtype"):
        reduce_sum(plan, Tensor(F32, (2,), (1.0, 2.0)))


class _OpaqueReal:
    """A Real (registered) with no exact value: no ``as_integer_ratio``."""

    def __float__(self) -> float:
        return 0.5


numbers.Real.register(_OpaqueReal)


def test_the_generic_backend_refuses_a_real_without_an_exact_value() -> None:
    with pytest.raises(TypeError, match="_OpaqueReal has no exact value"):
        to_float32(_OpaqueReal())
    assert to_float32(0.1) == float.fromhex("0x1.99999ap-4")
