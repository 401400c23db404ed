"""Int32 partial sums of parallel orders (issue 30, item 1): the INT32_PARTIAL_ORDER
classes, their witnesses, and the kernel faults they reach."""

from __future__ import annotations

import pytest

import backends
from conformance.classes.applicability import applicable_classes
from conformance.classes.boundary import (
    INT32_MAX,
    LENGTHS,
    ORDER_CLASS_GROUPS,
    Boundary,
    Group,
)
from conformance.generate.examples import boundary_examples
from conformance.generate.families import classes_hit, classes_of_calls
from conformance.generate.int32_partials import (
    PARTIAL_CLASSES,
    WITNESS_TERM,
    partial_classes,
    partial_sums,
    witness,
)
from conformance.mutants import MUTANTS, kernel_paths, mutant_backend
from oracle import DType, Tensor, expected, resolvable_plans

B = Boundary
I32 = DType.Int32
PARTIAL = {c for c in Boundary if c.group is Group.INT32_PARTIAL_ORDER}
PLANS = resolvable_plans()
REDUCE_SUM = next(p for p in PLANS if p.operation == "reduce_sum" and p.output is I32)
MATMUL = next(p for p in PLANS if p.operation == "matmul" and p.output is I32)


def test_the_group_is_counted_with_the_order_classes():
    assert Group.INT32_PARTIAL_ORDER in ORDER_CLASS_GROUPS
    assert set(PARTIAL_CLASSES.values()) == PARTIAL
    assert len(PARTIAL) == 12  # pairwise, two halves, 7 block sizes, 3 lane counts


def test_only_the_exact_integer_plans_can_see_them():
    for plan in PLANS:
        seen = applicable_classes(plan) & PARTIAL
        assert seen == (PARTIAL if plan in (REDUCE_SUM, MATMUL) else set()), plan.describe()


def test_partial_sums_follow_each_order():
    row = [1, 2, 3, 4, 5]
    assert list(partial_sums(row, "two halves")) == [1, 3, 3, 7, 12, 3, 15]
    assert list(partial_sums(row, "blocks of 2")) == [1, 3, 3, 7, 5, 3, 10, 15]
    assert list(partial_sums(row, "4 lanes")) == [1, 6, 2, 3, 4, 6, 8, 11, 15]
    assert list(partial_sums(row, "pairwise")) == [3, 7, 10, 15]
    with pytest.raises(KeyError, match="no order"):
        list(partial_sums(row, "reversed"))


def test_a_class_needs_the_total_inside_and_its_own_order_outside():
    big = WITNESS_TERM
    # alternating: the sequential, pairwise, halves and block sums stay inside, even lanes do not
    alternating = [big, -big] * 8 + [big]
    assert partial_classes(alternating) == {
        B.INT32_PARTIAL_LANES_4,
        B.INT32_PARTIAL_LANES_8,
        B.INT32_PARTIAL_LANES_16,
    }
    assert partial_classes([big, big, big, big]) == set()  # the total leaves: no class
    assert partial_classes([INT32_MAX, 1, -1, -5]) == {  # (MAX + 1) starts every order
        B.INT32_PARTIAL_TWO_HALVES,
        B.INT32_PARTIAL_PAIRWISE,
        B.INT32_PARTIAL_BLOCKS_2,
    }
    assert partial_classes([1, 2, 3]) == set()


@pytest.mark.parametrize("n", [n for n in LENGTHS if n >= 4])
def test_the_witness_of_each_length_hits_every_order_that_differs_there(n):
    row = witness(n)
    assert row is not None and len(row) == n
    assert all(-(2**31) <= t <= INT32_MAX for t in row)
    assert -(2**31) <= sum(row) <= INT32_MAX
    orders = {"two halves", "pairwise"}
    orders |= {f"blocks of {b}" for b in (2, 4, 8, 16, 32, 64, 128) if n >= b + 2}
    orders |= {f"{lanes} lanes" for lanes in (4, 8, 16) if n > lanes}
    assert partial_classes(row) == {PARTIAL_CLASSES[o] for o in orders}
    assert witness(n) == row  # deterministic
    assert expected("reduce_sum", Tensor(I32, (n,), row)).error is None


def test_short_rows_have_no_witness():
    assert [witness(n) for n in (1, 2, 3)] == [None, None, None]


@pytest.mark.parametrize("plan", [REDUCE_SUM, MATMUL], ids=lambda p: p.operation)
def test_the_boundary_examples_hit_every_partial_class(plan):
    calls = boundary_examples(plan)
    assert classes_of_calls(calls) >= PARTIAL
    witnesses = [c for c in calls if "Int32 partial-sum witness" in c.note]
    assert len(witnesses) == sum(n >= 4 for n in LENGTHS)  # no extra calls: the LENGTH rows
    for call in witnesses:
        assert not call.raises and B.INT32_PARTIAL_SUM_OUTSIDE in classes_hit(call)


# -- the faults ---------------------------------------------------------------------------

INT32_FAULTS = [m.name for m in kernel_paths.FAULTS if m.operations[0] in ("reduce_sum", "matmul")]


def _run(backend, operation, *tensors):
    try:
        out = backend.execute(operation, *(backend.from_tensor(t) for t in tensors))
    except OverflowError:
        return "OverflowError"
    return backend.to_tensor(out).values


def _args(operation, row):
    n = len(row)
    if operation == "reduce_sum":
        return (Tensor(I32, (n,), row),)
    return Tensor(I32, (1, n), row), Tensor(I32, (n, 1), (1,) * n)


@pytest.mark.parametrize("name", INT32_FAULTS)
def test_each_int32_fault_fires_on_a_witness_and_sleeps_below_its_length(name):
    assert len(INT32_FAULTS) >= 6
    (operation,) = MUTANTS[name].operations
    mutant, cpu = mutant_backend(name), backends.get("cpu")
    fired = [
        n
        for n in LENGTHS
        if n >= 4
        and _run(mutant, operation, *_args(operation, witness(n)))
        != _run(cpu, operation, *_args(operation, witness(n)))
    ]
    assert fired and min(fired) > 8, (name, fired)
    outcome = _run(mutant, operation, *_args(operation, witness(max(LENGTHS))))
    assert outcome != _run(cpu, operation, *_args(operation, witness(max(LENGTHS))))
    if name.endswith("_checked"):
        assert outcome == "OverflowError"  # the exact total fits: the reference returns it
    short = tuple(range(1, 9))  # 8 terms: every fault is dormant
    assert _run(mutant, operation, *_args(operation, short)) == (36,)
