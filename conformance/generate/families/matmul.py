"""The matmul family: (M, K) x (K, N), each product rounded, then accumulated.

:func:`measure` records the sum classes of every output element's terms.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from hypothesis import strategies as st

from conformance.classes.boundary import (
    F32,
    I32,
    LENGTHS,
    B,
    PlanFacts,
)
from conformance.generate.accumulator_witnesses import witness as accumulator_witness
from conformance.generate.families.measures import Invalid as _Invalid
from conformance.generate.families.measures import (
    _sum_classes,
    accumulation_classes,
)
from conformance.generate.families.shapes import add_length
from conformance.generate.int32_partials import witness as int32_partial_witness
from conformance.generate.order_values import cancelling_terms, integer_terms
from conformance.generate.primitives import (
    _finish,
    _fits,
    _make,
    _neutral,
    _operand_dtype,
    _tensor,
    _tensor_of,
)
from conformance.generate.rule_operands import Fault, plan_operands
from conformance.model.calls import Call, Family
from oracle import Accumulation, Arithmetic, DType, OperationPlan, Tensor, binary32
from oracle.dtypes import INT32_MAX, INT32_MIN


def _terms_of_products(plan: OperationPlan, a: Any, b: Any) -> Any:
    if plan.compute is Arithmetic.BINARY32:
        fa = binary32.round_to_binary32(a) if not isinstance(a, float) else a
        fb = binary32.round_to_binary32(b) if not isinstance(b, float) else b
        return float(np.float32(np.float32(fa) * np.float32(fb)))
    return int(a) * int(b)


def _matmul(call: Call, facts: PlanFacts, operands, hits) -> None:
    a, b = operands
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        hits.add(B.ERROR_SHAPE_MISMATCH)
        raise _Invalid
    m, k = a.shape
    n = b.shape[1]
    plan = facts.plan
    with np.errstate(all="ignore"):
        for i in range(m):
            for j in range(n):
                terms = [
                    _terms_of_products(plan, a.values[i * k + t], b.values[t * n + j])
                    for t in range(k)
                ]
                _sum_classes(terms, hits)
                accumulation_classes(plan, terms, hits)
                if plan.compute is not Arithmetic.BINARY32:
                    total = sum(terms)
                    if INT32_MIN <= total <= INT32_MAX and any(
                        not INT32_MIN <= t <= INT32_MAX for t in terms
                    ):
                        hits.add(B.INT32_TERM_OUTSIDE)


FAMILIES = frozenset({Family.MATMUL})


def measure(
    call: Call, facts: PlanFacts, operands: Sequence[Any], parameters: dict, hits: set
) -> None:
    """Add the classes of *call* to *hits* (raises Invalid for a refused structure)."""
    _matmul(call, facts, operands, hits)
    a, b = operands
    if a.shape[0] >= 2 and b.shape[1] >= 2:  # a gemm tile, not a vector product
        add_length(a.shape[1], hits)


# -- generation: valid calls, invalid calls, structural examples -----------------------


@st.composite
def _matmul_calls(draw: Any, plan: OperationPlan) -> Call:
    m, k, n = (draw(st.integers(0, 4)) for _ in range(3))
    a = draw(_tensor(_operand_dtype(plan, 0), (m, k)))
    b = draw(_tensor(_operand_dtype(plan, 1), (k, n)))
    return _finish(draw, plan, [a, b], {})


@st.composite
def _invalid_matmul(draw: Any, plan: OperationPlan) -> Call:
    m, k, n = (draw(st.integers(1, 3)) for _ in range(3))
    k2 = k + draw(st.integers(1, 2))
    a = draw(_tensor(_operand_dtype(plan, 0), (m, k)))
    b = draw(_tensor(_operand_dtype(plan, 1), (k2, n)))
    return _make(plan, [a, b], raises=(ValueError,), note=f"inner dimensions {k} and {k2}")


@functools.cache
def valid_calls(plan: OperationPlan) -> st.SearchStrategy[Call]:
    """Valid calls whose arguments select exactly *plan* (cached per plan)."""
    return _matmul_calls(plan)


@functools.cache
def invalid_calls(plan: OperationPlan) -> st.SearchStrategy[Call] | None:
    """Calls of *plan* with one structural fault (None: the plan has none)."""
    return _invalid_matmul(plan)


def structural_examples(
    plan: OperationPlan, facts: PlanFacts, tensor: Callable[..., Tensor]
) -> list[Call]:
    """Shapes, parameters and error paths of *plan* as deterministic calls; *tensor*
    makes ordinary tensors (``tensor(shape, dtype=operand 0's, start=1.0)``)."""
    out: list[Call] = []
    d1 = _operand_dtype(plan, 1)
    out.append(_make(plan, [tensor((0, 2)), tensor((2, 3), d1)], note="M = 0"))
    out.append(_make(plan, [tensor((2, 0)), tensor((0, 3), d1)], note="K = 0"))
    out.append(
        _make(
            plan,
            [tensor((2, 3)), tensor((2, 3), d1)],
            raises=(ValueError,),
            note="inner dimensions differ",
        )
    )
    return out


def _terms(plan: OperationPlan, position: int, count: int, seed: int) -> tuple[Any, ...]:
    """Order-sensitive finite values for operand *position* (Int32 ones stay small
    for an Int32 plan and use 21 bits when converted to Float32)."""
    dtype = _operand_dtype(plan, position)
    if dtype is F32:
        return cancelling_terms(count, seed)
    converted = plan.operands[position].convert_to is F32
    return integer_terms(count, seed, 2**20 if converted else 1000)


def _accumulator_witness_operands(plan: OperationPlan, witness: Sequence[float]) -> list[Tensor]:
    """A 2 x K by K x 2 product whose outputs (0, 0) and (1, 1) sum *witness* times
    ones: along a row of the left operand and down a column of the right one (each
    where that operand is Float32; the other factors are ones)."""
    k = len(witness)
    sides = []
    for position in (0, 1):
        dtype = _operand_dtype(plan, position)
        ones = [_neutral(dtype)] * k
        terms = list(witness) if dtype is F32 else ones
        if position == 0:  # rows: the witness, then ones
            sides.append(_tensor_of(dtype, [*terms, *ones], (2, k)))
        else:  # columns: ones, then the witness
            sides.append(_tensor_of(dtype, [v for pair in zip(ones, terms) for v in pair], (k, 2)))
    return sides


def shape_examples(plan: OperationPlan, facts: PlanFacts) -> list[Call]:
    """A 2 x K by K x 2 product for every K of LENGTHS (a gemm tile, not a vector
    product), with order-sensitive values; with a Float64 accumulator, the K terms
    of two outputs are an accumulator witness
    (:mod:`conformance.generate.accumulator_witnesses`) wherever one exists; with
    an EXACT_INTEGER accumulation, the K terms of the first row's two outputs are
    an Int32 partial-sum witness (:mod:`conformance.generate.int32_partials`,
    K >= 4) times ones."""
    out = []
    float64 = plan.accumulator_dtype is DType.Float64
    exact = plan.accumulation is Accumulation.EXACT_INTEGER
    for k in LENGTHS:
        partial = int32_partial_witness(k) if exact else None
        if partial is not None:
            a = _tensor_of(I32, [*partial, *integer_terms(k, k)], (2, k))
            b = _tensor_of(I32, [1] * (2 * k), (k, 2))
            out.append(_make(plan, [a, b], note=f"K = {k}, an Int32 partial-sum witness"))
            continue
        witness = accumulator_witness(k) if float64 else None
        if witness is not None:
            operands = _accumulator_witness_operands(plan, witness)
            out.append(_make(plan, operands, note=f"K = {k}, a Float64-accumulator witness"))
            continue
        a = _tensor_of(_operand_dtype(plan, 0), _terms(plan, 0, 2 * k, k), (2, k))
        b = _tensor_of(_operand_dtype(plan, 1), _terms(plan, 1, 2 * k, k + 1), (k, 2))
        out.append(_make(plan, [a, b], note=f"K = {k}"))
    return out


def embed_group(plan: OperationPlan, group: list[Any], note: str, options: dict) -> Call | None:
    """A 1 x n by n x 1 product whose terms are *group* times ones (on whichever side
    the values fit; None when neither)."""
    n = len(group)
    for side in (0, 1):
        dtype = _operand_dtype(plan, side)
        other = _operand_dtype(plan, 1 - side)
        if _fits(dtype, group):
            ones = _tensor_of(other, [_neutral(other)] * n, (n, 1) if side == 0 else (1, n))
            terms = _tensor_of(dtype, group, (1, n) if side == 0 else (n, 1))
            return _make(plan, [terms, ones] if side == 0 else [ones, terms], note=note)
    return None


def pass_through(plan: OperationPlan, values: Sequence[float], note: str) -> Call | None:
    """An n x 1 by 1 x 1 product of the Float32 *values* and a one (a 1 x 1 by 1 x n
    one when the left operand is not Float32)."""
    n = len(values)
    dtypes = [_operand_dtype(plan, i) for i in (0, 1)]
    if F32 not in dtypes:
        return None
    side = dtypes.index(F32)
    other = dtypes[1 - side]
    one = _tensor_of(other, [_neutral(other)], (1, 1))
    if side == 0:
        return _make(plan, [_tensor_of(F32, values, (n, 1)), one], note=note)
    return _make(plan, [one, _tensor_of(F32, values, (1, n))], note=note)


# -- validation rules: one faulty call each (conformance.generate.validation) ---------


def validation_rules(plan: OperationPlan) -> Iterator[Fault]:
    """The faulty calls of matmul's validation rules: operand shapes that do not fit."""
    yield "inner dimensions 3 and 4 differ", plan_operands(plan, {0: (2, 3), 1: (4, 2)}), {}
    yield "a rank-1 left operand", plan_operands(plan, {0: (3,), 1: (3, 2)}), {}
    yield "a rank-3 right operand", plan_operands(plan, {0: (2, 3), 1: (1, 3, 2)}), {}
