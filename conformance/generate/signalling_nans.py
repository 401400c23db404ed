"""Signalling NaNs for the operations that copy NaN bits.

The operations whose rows say ``nan_bit_copy`` (abs, neg, select, gather,
scatter, reduce_max/min, the sort and topk values: ``oracle.operation_facts``)
return an input NaN with its bits, and the reference semantics makes no
exception for a *signalling* NaN: ``neg`` of ``0x7F800001`` is
``0xFF800001``, still signalling.  A kernel that computes in a way that
quiets NaNs (an arithmetic negation, a float64 round trip, a compare-and-
select through an FPU register on some targets) sets the quiet bit and is
wrong.  A Python float cannot carry such a pattern, so the calls here are
built from bit patterns (``Tensor.from_bits``; the oracle keeps them as
``binary32.SignallingNaN``).

:func:`signalling_nan_examples` takes each valid boundary example of a
bit-copy plan that has a NaN in a Float32 tensor operand and replaces its
NaNs by signalling patterns (:data:`PATTERNS`, in turn).  A backend that
declares the ``signalling-nan`` capability unsupported
(:mod:`conformance.model.capabilities`) is not judged on them: the checker counts
them under that feature instead.
"""

from __future__ import annotations

import functools

from conformance.generate.strategies import boundary_examples
from conformance.model.calls import Call
from oracle import DType, OperationPlan, Tensor, operation_facts

__all__ = ["PATTERNS", "signalling_nan_examples"]

#: signalling binary32 NaNs: both signs, the smallest and largest payloads, a middle one
PATTERNS = (0x7F800001, 0xFFA00000, 0x7FBFFFFF, 0xFF800001, 0x7F80F00D)


def _is_nan_bits(bits: int) -> bool:
    return (bits & 0x7F800000) == 0x7F800000 and bits & 0x007FFFFF != 0


def _signalling(tensor: Tensor, start: int) -> tuple[Tensor, int]:
    """*tensor* with its NaNs replaced by signalling patterns from PATTERNS[start:]."""
    bits = list(tensor.bits())
    for index, pattern in enumerate(bits):
        if _is_nan_bits(pattern):
            bits[index] = PATTERNS[start % len(PATTERNS)]
            start += 1
    return Tensor.from_bits(tensor.dtype, tensor.shape, bits), start


def _with_nans(call: Call) -> bool:
    return any(
        isinstance(a, Tensor)
        and a.dtype is DType.Float32
        and any(_is_nan_bits(b) for b in a.bits())
        for a in call.args
    )


@functools.cache
def _examples(plan: OperationPlan) -> tuple[Call, ...]:
    if not operation_facts(plan.operation).nan_bit_copy:
        return ()
    examples = []
    for call in boundary_examples(plan):
        if call.raises or not _with_nans(call):
            continue
        args, used = [], 0
        for argument in call.args:
            if isinstance(argument, Tensor) and argument.dtype is DType.Float32:
                argument, used = _signalling(argument, used)
            args.append(argument)
        note = f"signalling NaNs in place of the NaNs of: {call.note}"
        examples.append(Call(call.operation, tuple(args), call.accumulator_dtype, plan, (), note))
    return tuple(examples)


def signalling_nan_examples(plan: OperationPlan) -> list[Call]:
    """Calls of *plan* with signalling NaN inputs (empty unless the operation copies
    NaN bits); see the module docstring."""
    return list(_examples(plan))
