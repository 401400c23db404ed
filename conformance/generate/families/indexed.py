"""The indexed family: gather, scatter and scatter_add along one axis.

:func:`measure` records the index classes (out of range, negative,
duplicates) and the sum classes of scatter_add's accumulations.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

from conformance.classes.boundary import (
    F32,
    I32,
    SCATTER_UPDATE_COUNTS,
    B,
    Boundary,
    PlanFacts,
    plan_facts,
)
from conformance.generate.families.measures import Invalid as _Invalid
from conformance.generate.families.measures import (
    _sum_classes,
    accumulation_classes,
)
from conformance.generate.families.reduction import _axis_ok
from conformance.generate.families.shapes import add_length
from conformance.generate.order_values import sum_witness
from conformance.generate.primitives import (
    _AXIS_ERRORS,
    _finish,
    _fits,
    _make,
    _operand_dtype,
    _tensor,
    _tensor_of,
)
from conformance.generate.rule_operands import (
    Fault,
    plan_operands,
    tensor,
    tensor_dtype,
    tensor_positions,
)
from conformance.model.calls import Call, Family
from oracle import OperationPlan, Tensor


def _index_classes(indices: Tensor, n: int, family: Family, hits: set[Boundary]) -> None:
    values = indices.values
    if not values:
        hits.add(B.INDEX_EMPTY)
    if any(v < 0 for v in values):
        hits.add(B.ERROR_INDEX_NEGATIVE)
    if any(v >= n for v in values):
        hits.add(B.ERROR_INDEX_TOO_LARGE)
    if 0 in values and n > 0:
        hits.add(B.INDEX_FIRST)
    if n - 1 in values and n > 0:
        hits.add(B.INDEX_LAST)
    if len(set(values)) < len(values):
        hits.add(B.ERROR_SCATTER_DUPLICATE if family is Family.SCATTER else B.INDEX_DUPLICATE)


def _indexed(
    call: Call,
    facts: PlanFacts,
    operands: Sequence[Any],
    parameters: dict[str, Any],
    hits: set[Boundary],
) -> None:
    data, indices = operands[0], operands[1]
    axis = parameters.get("axis")
    if data.ndim == 0 or not _axis_ok(axis, data.ndim):
        hits.add(B.ERROR_BAD_AXIS)
        raise _Invalid
    axis = int(axis)
    if axis < 0:
        hits.add(B.AXIS_NEGATIVE)
        axis %= data.ndim
    n = data.shape[axis]
    _index_classes(indices, n, facts.family, hits)
    if facts.family is Family.GATHER:
        return
    updates = operands[2]
    expected = (*data.shape[:axis], *indices.shape, *data.shape[axis + 1 :])
    if updates.shape != expected:
        hits.add(B.ERROR_SHAPE_MISMATCH)
        raise _Invalid
    bad = any(not 0 <= v < n for v in indices.values)
    if facts.family is not Family.SCATTER_ADD or bad:
        return
    targets: dict[int, list[float]] = {}
    base_index = np.arange(data.size).reshape(data.shape)
    for flat, update in enumerate(updates.values):
        where = np.unravel_index(flat, updates.shape) if updates.shape else ()
        pre = where[:axis]
        index_position = where[axis : axis + indices.ndim]
        post = where[axis + indices.ndim :]
        i = indices.values[
            int(np.ravel_multi_index(index_position, indices.shape)) if indices.shape else 0
        ]
        data_index = (*pre, i, *post)
        target = int(base_index[data_index])
        targets.setdefault(target, [data.values[target]]).append(update)
    for terms in targets.values():
        _sum_classes(terms, hits)
        accumulation_classes(facts.plan, terms, hits)
        add_length(len(terms) - 1, hits, SCATTER_UPDATE_COUNTS)


FAMILIES = frozenset({Family.GATHER, Family.SCATTER, Family.SCATTER_ADD})


def measure(
    call: Call, facts: PlanFacts, operands: Sequence[Any], parameters: dict, hits: set
) -> None:
    """Add the classes of *call* to *hits* (raises Invalid for a refused structure)."""
    _indexed(call, facts, operands, parameters, hits)


# -- generation: valid calls, invalid calls, structural examples -----------------------


def _index_tensor(draw: Any, n: int, distinct: bool) -> Tensor:
    if distinct:
        count = draw(st.integers(0, n))
        values = draw(st.permutations(range(n)))[:count] if n else []
        if count == 1 and draw(st.booleans()):
            return Tensor(I32, (), tuple(values))
        if count and count % 2 == 0 and draw(st.booleans()):
            return Tensor(I32, (2, count // 2), tuple(values))
        return Tensor(I32, (count,), tuple(values))
    shape = draw(array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3))
    if n == 0:
        shape = (0,)
    size = math.prod(shape)
    values = draw(st.lists(st.integers(0, n - 1), min_size=size, max_size=size)) if n else []
    return Tensor(I32, shape, tuple(values))


@st.composite
def _indexed_calls(draw: Any, plan: OperationPlan) -> Call:
    family = plan_facts(plan).family
    shape = draw(array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    a = axis % len(shape)
    n = shape[a]
    indices = _index_tensor(draw, n, distinct=family is Family.SCATTER)
    data = draw(_tensor(_operand_dtype(plan, 0), shape))
    operands: list[Any] = [data, indices]
    if family is not Family.GATHER:
        updates_shape = (*shape[:a], *indices.shape, *shape[a + 1 :])
        operands.append(draw(_tensor(_operand_dtype(plan, 2), updates_shape)))
    return _finish(draw, plan, operands, {"axis": axis})


@st.composite
def _invalid_indexed(draw: Any, plan: OperationPlan) -> Call:
    family = plan_facts(plan).family
    shape = draw(array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=3))
    axis = draw(st.integers(0, len(shape) - 1))
    n = shape[axis]
    kinds = ["negative", "large"]
    if family is not Family.GATHER:
        kinds.append("updates")
    if family is Family.SCATTER:
        kinds.append("duplicate")
    kind = draw(st.sampled_from(kinds))
    good = list(draw(st.permutations(range(n))))[: draw(st.integers(0, n - 1))] if n > 1 else []
    raises: tuple[type[Exception], ...]
    if kind == "negative":
        values, raises, note = [*good, draw(st.integers(-n - 2, -1))], (IndexError,), "negative"
    elif kind == "large":
        values, raises, note = [*good, draw(st.integers(n, n + 3))], (IndexError,), "too large"
    elif kind == "duplicate":
        i = draw(st.integers(0, n - 1))
        values, raises, note = [i, i], (ValueError,), "duplicate scatter index"
    else:
        values, raises, note = list(range(n)), (ValueError,), "updates shape mismatch"
    values = [v for v in values]
    draw(st.randoms()).shuffle(values)
    indices = Tensor(I32, (len(values),), tuple(values))
    data = draw(_tensor(F32, shape))
    operands: list[Any] = [data, indices]
    if family is not Family.GATHER:
        updates_shape = list((*shape[:axis], len(values), *shape[axis + 1 :]))
        if kind == "updates":
            updates_shape[axis] += 1
        operands.append(draw(_tensor(F32, tuple(updates_shape))))
    return _make(plan, operands, {"axis": axis}, raises=raises, note=f"index: {note}")


@functools.cache
def valid_calls(plan: OperationPlan) -> st.SearchStrategy[Call]:
    """Valid calls whose arguments select exactly *plan* (cached per plan)."""
    return _indexed_calls(plan)


@functools.cache
def invalid_calls(plan: OperationPlan) -> st.SearchStrategy[Call] | None:
    """Calls of *plan* with one structural fault (None: the plan has none)."""
    return _invalid_indexed(plan)


def structural_examples(
    plan: OperationPlan, facts: PlanFacts, tensor: Callable[..., Tensor]
) -> list[Call]:
    """Shapes, parameters and error paths of *plan* as deterministic calls; *tensor*
    makes ordinary tensors (``tensor(shape, dtype=operand 0's, start=1.0)``)."""
    family = facts.family
    out: list[Call] = []
    data = tensor((3,))
    duplicates = family is not Family.SCATTER

    def indexed(data: Tensor, indices: Sequence[int] | Tensor, axis: int = 0, **kw: Any) -> Call:
        if not isinstance(indices, Tensor):
            indices = _tensor_of(I32, indices)
        operands: list[Any] = [data, indices]
        if family is not Family.GATHER:
            a = axis % data.ndim
            shape = (*data.shape[:a], *indices.shape, *data.shape[a + 1 :])
            if kw.pop("bad_updates", False):
                shape = (*shape[:-1], shape[-1] + 1) if shape else (1,)
            operands.append(tensor(shape, F32, start=10.0))
        return _make(plan, operands, {"axis": axis}, **kw)

    out.append(indexed(data, [0, 2, 2] if duplicates else [2, 0], note="first, last (dup)"))
    out.append(indexed(data, [], note="no indices"))
    out.append(indexed(data, Tensor(I32, (), (1,)), note="0-d indices"))
    out.append(indexed(tensor((2, 3)), [2, 0], axis=-1, note="negative axis"))
    out.append(indexed(data, [0, -1], raises=(IndexError,), note="a negative index"))
    out.append(indexed(data, [3], raises=(IndexError,), note="an index = n"))
    out.append(indexed(data, [0], axis=1, raises=_AXIS_ERRORS, note="axis out of range"))
    if family is Family.SCATTER:
        out.append(indexed(data, [1, 1], raises=(ValueError,), note="duplicate indices"))
    if family is not Family.GATHER:
        out.append(
            indexed(
                data,
                [0, 1],
                bad_updates=True,
                raises=(ValueError,),
                note="updates of the wrong shape",
            )
        )
    return out


def shape_examples(plan: OperationPlan, facts: PlanFacts) -> list[Call]:
    """scatter_add: one call whose target t receives SCATTER_UPDATE_COUNTS[t] updates,
    interleaved (duplicates never adjacent); each target's base and updates, in
    index order, are an order witness
    (:func:`~conformance.generate.order_values.sum_witness`)."""
    if facts.family is not Family.SCATTER_ADD:
        return []
    targets = len(SCATTER_UPDATE_COUNTS)
    terms = [list(sum_witness(count + 1, salt=1)) for count in SCATTER_UPDATE_COUNTS]
    base = _tensor_of(F32, [row.pop(0) for row in terms])
    indices: list[int] = []
    update_values: list[float] = []
    while any(terms):
        for target in range(targets):
            if terms[target]:
                indices.append(target)
                update_values.append(terms[target].pop(0))
    updates = _tensor_of(F32, update_values)
    note = f"{', '.join(map(str, SCATTER_UPDATE_COUNTS))} updates on one target each"
    return [_make(plan, [base, _tensor_of(I32, indices), updates], {"axis": 0}, note=note)]


def embed_group(plan: OperationPlan, group: list[Any], note: str, options: dict) -> Call | None:
    """scatter_add: the group's first value as the base of target 0, the rest as
    updates on it; gather and scatter: the group as data at every index (scatter
    writes it reversed).  None for an empty group or values that are not floats."""
    family = plan_facts(plan).family
    if not _fits(F32, group) or not group:
        return None
    if family is Family.SCATTER_ADD:
        base = _tensor_of(F32, group[:1])
        indices = _tensor_of(I32, [0] * (len(group) - 1))
        updates = _tensor_of(F32, group[1:])
        return _make(plan, [base, indices, updates], {"axis": 0}, note=note)
    data = _tensor_of(F32, group)
    indices = _tensor_of(I32, range(len(group)))
    operands: list[Any] = [data, indices]
    if family is Family.SCATTER:
        operands.append(_tensor_of(F32, group[::-1]))
    return _make(plan, operands, {"axis": 0}, note=note)


def pass_through(plan: OperationPlan, values: Sequence[float], note: str) -> Call | None:
    """Gather of the Float32 *values* at every index; scatter of one update (the
    first value again) onto them; scatter_add of -0 onto them."""
    family = plan_facts(plan).family
    data = _tensor_of(F32, values)
    if family is Family.GATHER:
        return _make(plan, [data, _tensor_of(I32, range(len(values)))], {"axis": 0}, note=note)
    update = values[0] if family is Family.SCATTER else -0.0
    operands = [data, _tensor_of(I32, [0]), _tensor_of(F32, [update])]
    return _make(plan, operands, {"axis": 0}, note=note)


# -- validation rules: one faulty call each (conformance.generate.validation) ---------


def validation_rules(plan: OperationPlan) -> Iterator[Fault]:
    """The faulty calls of gather's, scatter's and scatter_add's validation rules."""
    family = plan_facts(plan).family
    positions = tensor_positions(plan)

    def call(values: tuple[int, ...], axis: int = 0, updates: int | None = None) -> list[Any]:
        operands = plan_operands(plan, {positions[0]: (3, 2)})
        operands[positions[1]] = Tensor(I32, (len(values),), values)
        if family is not Family.GATHER:
            rows = len(values) if updates is None else updates
            operands[positions[2]] = tensor(tensor_dtype(plan.operands[positions[2]]), (rows, 2))
        return operands

    yield "index 3 out of range [0, 3)", call((0, 3)), {"axis": 0}
    yield "index -1 (negative indices are out of range)", call((-1, 1)), {"axis": 0}
    yield "axis 2 out of range for 2 dimensions", call((0, 1)), {"axis": 2}
    yield "axis 1.0 is not an int", call((0, 1)), {"axis": 1.0}
    if family is not Family.GATHER:
        yield "updates have 3 rows for 2 indices", call((0, 1), updates=3), {"axis": 0}
    if family is Family.SCATTER:
        yield "duplicate scatter indices", call((1, 1)), {"axis": 0}
