"""Weak exponents binary32 cannot hold (issue 30, item 3): POW_ODD_EXPONENT_ABOVE_2_24,
the boundary pairs that reach it, and the float fast path it catches."""

from __future__ import annotations

import pytest

import backends
from conformance.classes.applicability import applicable_classes
from conformance.classes.boundary import ORDER_CLASS_GROUPS, Boundary, Group
from conformance.generate.examples import _pair_examples, boundary_examples
from conformance.generate.families import classes_hit
from conformance.judge.coverage import CoverageMatrix
from conformance.model.calls import Call, forward_arguments
from conformance.mutants import mutant_backend
from oracle import Arithmetic, DType, Tensor, expected, resolvable_plans

B = Boundary
I32 = DType.Int32
PLANS = resolvable_plans()
INT_POW = next(
    p for p in PLANS if p.operation == "pow" and p.compute is Arithmetic.INT32_EXACT_CHECKED
)
CLASS = B.POW_ODD_EXPONENT_ABOVE_2_24


def pow_call(bases, exponent):
    x = Tensor(I32, (len(bases),), tuple(bases))
    return Call("pow", forward_arguments("pow", [x, exponent], {}), None, INT_POW)


def test_the_class_is_counted_with_the_order_classes_and_only_int32_pow_sees_it():
    assert CLASS.group is Group.NARROWED_EXPONENT and CLASS.group in ORDER_CLASS_GROUPS
    assert [p for p in PLANS if CLASS in applicable_classes(p)] == [INT_POW]


@pytest.mark.parametrize(
    ("bases", "exponent", "hit"),
    [
        ((-1,), 2**24 + 1, True),  # rounds down to 2**24
        ((-1, 0, 1), 2**24 + 3, True),  # rounds up to 2**24 + 4
        ((1, -1), 2**31 - 1, True),  # rounds up to 2**31
        ((-1,), 2**24 - 1, False),  # odd, but a binary32 value
        ((-1,), 2**25 + 2, False),  # not a binary32 value, but even: the sign is kept
        ((0, 1), 2**24 + 1, False),  # no -1
        ((-1, 2), 2**24 + 1, False),  # 2 overflows: the call raises, no result to judge
    ],
)
def test_the_class_is_an_odd_exponent_above_2_24_on_minus_one_in_a_returning_call(
    bases, exponent, hit
):
    call = pow_call(bases, exponent)
    assert (CLASS in classes_hit(call)) is hit
    assert (expected("pow", *call.args).error is None) is (2 not in bases)


def test_the_boundary_pairs_reach_it_with_both_odd_exponents():
    calls = [c for c in _pair_examples(INT_POW) if CLASS in classes_hit(c)]
    exponents = {c.operands[1] for c in calls}
    assert exponents == {2**24 + 1, 2**31 - 1}
    for c in calls:
        assert not c.raises and set(c.operands[0].values) == {-1, 0, 1}
    assert CLASS in set().union(*map(classes_hit, boundary_examples(INT_POW)))


def test_an_overflowing_base_no_longer_hides_the_others():
    by_value: dict[object, list[Call]] = {}
    for c in _pair_examples(INT_POW):
        by_value.setdefault(c.operands[1], []).append(c)
    for value in (2**24 + 1, 2**31 - 1):
        calls = by_value[value]
        assert [bool(c.raises) for c in calls] == [False, True], value  # quiet ones, then one
        loud = calls[1]
        assert expected("pow", *loud.args).error is not None
        assert len(loud.operands[0].values) == 1
    for plan in PLANS:  # every pair call the oracle accepts as the call declares
        for c in _pair_examples(plan):
            error = expected(c.operation, *c.args, **c.kwargs()).error
            assert (error is None) is (not c.raises), c


def test_the_float_fast_path_fires_on_the_pairs_and_sleeps_up_to_2_24():
    mutant, cpu = mutant_backend("pow_int32_float32_exponent_above_2_24"), backends.get("cpu")

    def run(backend, bases, exponent):
        x = backend.from_tensor(Tensor(I32, (len(bases),), tuple(bases)))
        return backend.to_tensor(backend.execute("pow", x, exponent)).values

    assert run(cpu, (-1, 0, 1), 2**24 + 1) == (-1, 0, 1)
    assert run(mutant, (-1, 0, 1), 2**24 + 1) == (1, 0, 1)
    assert run(mutant, (-1, 0, 1), 2**31 - 1) == (1, 0, 1)
    for exponent in (3, 2**24 - 1, 2**24):
        assert run(mutant, (-1, 0, 1), exponent) == run(cpu, (-1, 0, 1), exponent)
    with pytest.raises(OverflowError):
        run(mutant, (2,), 2**24 + 1)


def test_coverage_counts_it_as_an_order_pair_and_misses_it_without_the_split_pairs():
    matrix = CoverageMatrix([INT_POW])
    for c in boundary_examples(INT_POW):
        pair = "base" in c.note and c.operands[1] in (2**24 + 1, 2**31 - 1)
        if not pair:  # the weak class representative 2**31 - 1 meets the neutral base only
            matrix.record_classes(INT_POW, classes_hit(c))
    assert [cls for _, cls in matrix.missing()] == [CLASS]
    assert matrix.as_dict()["summary"]["order_pairs_missing"] == 1
