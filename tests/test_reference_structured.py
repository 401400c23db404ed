"""Tests for oracle.reference.structured: matmul, conv_general, gather/scatter, sort/topk.

Independent evidence: hand-derived edge cases for every rule; numpy models
(numpy.take, fancy-index assignment, stable argsort, int64 matmul, float32
loops over explicitly padded and dilated numpy arrays for conv_general) on
hypothesis-drawn small cases; and brute-force enumeration of evaluation
orders for the FLOATING matmul interval.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from oracle import DType, resolve_operation_plan
from oracle.binary32 import MAX_FINITE, MIN_SUBNORMAL, from_bits, to_bits
from oracle.expectation import Bounded
from oracle.reference import structured as ops
from oracle.tensor import Tensor

F32, F64, I32 = DType.Float32, DType.Float64, DType.Int32
INF, NAN = math.inf, math.nan
MAX, TINY = MAX_FINITE, MIN_SUBNORMAL
NAN_A = from_bits(0x7FC12345)
NAN_B = from_bits(0xFFC0BEEF)

MATMUL32 = resolve_operation_plan("matmul", F32, F32)
MATMUL64 = resolve_operation_plan("matmul", F32, F32, accumulator_dtype=F64)
MATMUL_MIXED = resolve_operation_plan("matmul", I32, F32)
MATMUL_I = resolve_operation_plan("matmul", I32, I32)
CONV = resolve_operation_plan("conv_general", F32, F32)
GATHER = resolve_operation_plan("gather", F32, I32)
SCATTER = resolve_operation_plan("scatter", F32, I32, F32)
SCATTER_ADD = resolve_operation_plan("scatter_add", F32, I32, F32)
SORT_V = resolve_operation_plan("_sort_values", F32)
SORT_I = resolve_operation_plan("_sort_indices", F32)
TOPK_V = resolve_operation_plan("_topk_values", F32)
TOPK_I = resolve_operation_plan("_topk_indices", F32)


def t32(data) -> Tensor:
    return Tensor.from_nested(data, F32)


def ti32(data) -> Tensor:
    return Tensor.from_nested(data, I32)


def same(got: float, want: float) -> bool:
    if math.isnan(got) or math.isnan(want):
        return math.isnan(got) and math.isnan(want)
    return to_bits(got) == to_bits(want)


def all_same(got: Tensor, want: np.ndarray) -> bool:
    return got.shape == want.shape and all(
        same(g, float(w)) for g, w in zip(got.values, want.ravel())
    )


finite32 = st.floats(width=32, allow_nan=False, allow_infinity=False)
any32 = st.floats(width=32)
small_values = st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 3.0, 1.5, 2.0**-20, 2.0**20])


@st.composite
def arrays(draw, shape, elements=any32):
    values = draw(st.lists(elements, min_size=math.prod(shape), max_size=math.prod(shape)))
    return np.array(values, dtype=np.float32).reshape(shape)


# ---------------------------------------------------------------------------
# matmul
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a_shape", "b_shape"), [((2,), (2, 1)), ((2, 3), (3,)), ((1, 2, 3), (3, 1)), ((2, 3), (2, 3))]
)
def test_matmul_shape_errors_name_the_shapes(a_shape, b_shape):
    a = Tensor(F32, a_shape, (1.0,) * math.prod(a_shape))
    b = Tensor(F32, b_shape, (1.0,) * math.prod(b_shape))
    with pytest.raises(ValueError, match=re_shapes(a_shape, b_shape)):
        ops.matmul(MATMUL32, a, b)


def re_shapes(*shapes) -> str:
    import re

    return ".*".join(re.escape(str(s)) for s in shapes)


def test_matmul_empty_inner_dimension():
    a, b = Tensor(F32, (2, 0), ()), Tensor(F32, (0, 3), ())
    got = ops.matmul(MATMUL32, a, b)
    assert isinstance(got, Bounded) and got.shape == (2, 3)
    assert all(iv.accepts(0.0) and not iv.accepts(-0.0) for iv in got.intervals)
    got = ops.matmul(MATMUL_I, Tensor(I32, (2, 0), ()), Tensor(I32, (0, 1), ()))
    assert got == ti32([[0], [0]])
    assert ops.matmul(MATMUL32, Tensor(F32, (0, 2), ()), t32([[1.0], [2.0]])).shape == (0, 1)


def test_matmul_int32_exact_with_only_the_final_value_checked():
    a = ti32([[2**31 - 1, 2**31 - 1, -(2**31 - 1)]])
    b = ti32([[1], [1], [1]])
    assert ops.matmul(MATMUL_I, a, b) == ti32([[2**31 - 1]])
    # products themselves outside Int32: 65536 * 65536 = 2**32
    assert ops.matmul(MATMUL_I, ti32([[65536, -65536]]), ti32([[65536], [65536]])) == ti32([[0]])
    with pytest.raises(OverflowError, match=r"\(0, 1\)"):
        ops.matmul(MATMUL_I, ti32([[1, 65536]]), ti32([[0, 65536], [0, 32768]]))


def test_matmul_rounds_each_product_first():
    # (1 + 2**-12)**2 = 1 + 2**-11 + 2**-24 rounds (ties to even) to 1 + 2**-11;
    # a fused multiply-add would keep the 2**-24.
    x = 1 + 2.0**-12
    a = t32([[x, -(1 + 2.0**-11)]])
    b = t32([[x], [1.0]])
    for plan in (MATMUL32, MATMUL64):
        (iv,) = ops.matmul(plan, a, b).intervals
        assert iv.accepts(0.0) and not iv.accepts(2.0**-24) and (iv.lo, iv.hi) == (0.0, 0.0)


def test_matmul_special_products():
    got = ops.matmul(MATMUL32, t32([[0.0, 1.0]]), t32([[INF], [2.0]]))
    assert got.intervals[0].nan and not got.intervals[0].accepts(INF)  # 0 * inf = NaN
    got = ops.matmul(MATMUL32, t32([[-0.0]]), t32([[3.0]]))
    assert got.intervals[0].accepts(-0.0)  # the only term is -0
    got = ops.matmul(MATMUL32, t32([[-0.0, 0.0]]), t32([[3.0], [3.0]]))  # terms -0, +0
    assert got.intervals[0].accepts(0.0) and not got.intervals[0].accepts(-0.0)
    got = ops.matmul(MATMUL32, t32([[-0.0, 0.0]]), t32([[3.0], [-3.0]]))  # terms -0, -0
    assert got.intervals[0].accepts(-0.0) and got.intervals[0].accepts(0.0)
    got = ops.matmul(MATMUL32, t32([[TINY, TINY]]), t32([[0.5], [0.5]]))
    # each product rounds to +0 (a tie to even), so the sum is +0, not TINY
    assert (got.intervals[0].lo, got.intervals[0].hi) == (0.0, 0.0)


def test_matmul_mixed_plan_takes_materialised_float32_operands():
    # Int32 2**24 + 1 reaches the oracle already converted (rounded) to 2**24
    a = t32([[16777216.0, 1.0]])
    got = ops.matmul(MATMUL_MIXED, a, t32([[1.0], [1.0]]))
    assert got.intervals[0].accepts(16777216.0)
    assert not got.intervals[0].accepts(16777218.0)  # 2**24 + 1 rounds to 2**24 (even)
    with pytest.raises(TypeError, match="Float32"):
        ops.matmul(MATMUL_MIXED, ti32([[1]]), t32([[1.0]]))


def all_orders(terms, accumulator):
    kind = np.float32 if accumulator is F32 else np.float64
    results = set()
    with np.errstate(all="ignore"):
        for perm in itertools.permutations(terms):
            # left-to-right and balanced trees over every permutation
            total = kind(perm[0]) if perm else kind(0)
            for v in perm[1:]:
                total = kind(total + kind(v))
            results.add(float(np.float32(total)))
            if len(perm) == 4:
                pair = kind(kind(perm[0]) + kind(perm[1])) + kind(kind(perm[2]) + kind(perm[3]))
                results.add(float(np.float32(kind(pair))))
    return results


@given(st.integers(0, 3), st.integers(0, 4), st.integers(0, 3), st.data())
def test_matmul_accepts_every_order_of_rounded_products(m, k, n, data):
    a = data.draw(arrays((m, k), finite32 | small_values))
    b = data.draw(arrays((k, n), finite32 | small_values))
    for plan, accumulator in ((MATMUL32, F32), (MATMUL64, F64)):
        got = ops.matmul(plan, Tensor.from_numpy(a), Tensor.from_numpy(b))
        assert got.shape == (m, n)
        with np.errstate(all="ignore"):
            products = a[:, :, None] * b[None, :, :]  # float32 products, rounded
        for flat, iv in enumerate(got.intervals):
            i, j = divmod(flat, n)
            for r in all_orders([float(p) for p in products[i, :, j]], accumulator):
                assert iv.accepts(r), (a, b, i, j, r, iv)


@given(st.integers(0, 3), st.integers(0, 4), st.integers(0, 3), st.data())
def test_matmul_int32_matches_numpy_int64(m, k, n, data):
    ints = st.integers(-(2**31), 2**31 - 1) | st.integers(-5, 5)
    a = np.array(data.draw(st.lists(ints, min_size=m * k, max_size=m * k)), np.int64).reshape(m, k)
    b = np.array(data.draw(st.lists(ints, min_size=k * n, max_size=k * n)), np.int64).reshape(k, n)
    exact = [
        [sum(int(a[i, t]) * int(b[t, j]) for t in range(k)) for j in range(n)] for i in range(m)
    ]
    ta = Tensor(I32, (m, k), tuple(int(v) for v in a.ravel()))
    tb = Tensor(I32, (k, n), tuple(int(v) for v in b.ravel()))
    if all(-(2**31) <= v < 2**31 for row in exact for v in row):
        got = ops.matmul(MATMUL_I, ta, tb)
        assert got.shape == (m, n) and list(got.values) == [v for row in exact for v in row]
        small = (np.abs(a) < 2**15).all() and (np.abs(b) < 2**15).all()
        if small:
            assert list(got.values) == (a @ b).ravel().tolist()
    else:
        with pytest.raises(OverflowError):
            ops.matmul(MATMUL_I, ta, tb)


# ---------------------------------------------------------------------------
# conv_general
# ---------------------------------------------------------------------------


def numpy_conv(lhs, rhs, strides, padding, lhs_dil, rhs_dil, groups):
    """Direct float32 loop over an explicitly dilated, padded (or cropped) numpy input."""
    batch, in_ch, *spatial = lhs.shape
    out_ch, group_in, *window = rhs.shape
    nd = len(spatial)
    dilated_shape = [(n - 1) * d + 1 if n else 0 for n, d in zip(spatial, lhs_dil)]
    dilated = np.zeros((batch, in_ch, *dilated_shape), np.float32)
    dilated[(slice(None), slice(None), *(slice(None, None, d) for d in lhs_dil))] = lhs
    # padding: first pad by the positive parts, then crop the negative parts
    pos = [(max(lo, 0), max(hi, 0)) for lo, hi in padding]
    padded = np.pad(dilated, [(0, 0), (0, 0), *pos])
    crop = tuple(
        slice(max(-lo, 0), padded.shape[2 + d] - max(-hi, 0)) for d, (lo, hi) in enumerate(padding)
    )
    padded = padded[(slice(None), slice(None), *crop)]
    eff = [(k - 1) * r + 1 for k, r in zip(window, rhs_dil)]
    out_sp = [(p - e) // s + 1 if p >= e else 0 for p, e, s in zip(padded.shape[2:], eff, strides)]
    out = np.zeros((batch, out_ch, *out_sp), np.float32)
    per_group = out_ch // groups
    with np.errstate(all="ignore"):
        for n_, o in itertools.product(range(batch), range(out_ch)):
            g = o // per_group
            for pos_out in itertools.product(*(range(e) for e in out_sp)):
                total = np.float32(0.0)
                for w in itertools.product(*(range(k) for k in window)):
                    where = tuple(pos_out[d] * strides[d] + w[d] * rhs_dil[d] for d in range(nd))
                    for c in range(group_in):
                        x = padded[(n_, g * group_in + c, *where)]
                        total = np.float32(total + np.float32(x * rhs[(o, c, *w)]))
                out[(n_, o, *pos_out)] = total
    return out


@st.composite
def conv_cases(draw):
    nd = draw(st.integers(0, 2))
    groups = draw(st.integers(1, 2))
    group_in = draw(st.integers(0, 2))
    per_group_out = draw(st.integers(1, 2))
    batch = draw(st.integers(0, 2))
    spatial = [draw(st.integers(0, 4)) for _ in range(nd)]
    window = [draw(st.integers(1, 3)) for _ in range(nd)]
    strides = [draw(st.integers(1, 3)) for _ in range(nd)]
    lhs_dil = [draw(st.integers(1, 2)) for _ in range(nd)]
    rhs_dil = [draw(st.integers(1, 2)) for _ in range(nd)]
    padding = []
    for d in range(nd):
        extent = (spatial[d] - 1) * lhs_dil[d] + 1 if spatial[d] else 0
        lo = draw(st.integers(-min(extent, 2), 2))
        hi = draw(st.integers(-min(extent + lo, 2) if extent + lo > 0 else 0, 2))
        padding.append((lo, hi))
    elements = small_values | finite32 | st.sampled_from([INF, -INF, NAN, TINY, -MAX])
    lhs = draw(arrays((batch, groups * group_in, *spatial), elements))
    rhs = draw(arrays((groups * per_group_out, group_in, *window), elements))
    return lhs, rhs, strides, padding, lhs_dil, rhs_dil, groups


@given(conv_cases())
def test_conv_general_matches_a_numpy_float32_loop(case):
    lhs, rhs, strides, padding, lhs_dil, rhs_dil, groups = case
    got = ops.conv_general(
        CONV,
        Tensor.from_numpy(lhs),
        Tensor.from_numpy(rhs),
        window_strides=strides,
        padding=padding,
        lhs_dilation=lhs_dil,
        rhs_dilation=rhs_dil,
        feature_group_count=groups,
    )
    want = numpy_conv(lhs, rhs, strides, padding, lhs_dil, rhs_dil, groups)
    assert all_same(got, want), (got, want)


def test_conv_general_defaults_and_a_hand_example():
    lhs = t32([[[1.0, 2.0, 3.0, 4.0]]])  # batch 1, 1 channel, width 4
    rhs = t32([[[1.0, 10.0]]])
    assert ops.conv_general(CONV, lhs, rhs) == t32([[[21.0, 32.0, 43.0]]])  # not flipped
    got = ops.conv_general(CONV, lhs, rhs, [2], [(1, 0)], [1], [1], 1)
    assert got == t32([[[10.0, 32.0]]])
    got = ops.conv_general(CONV, lhs, rhs, lhs_dilation=[2])  # 1 0 2 0 3 0 4
    assert got == t32([[[1.0, 20.0, 2.0, 30.0, 3.0, 40.0]]])
    got = ops.conv_general(CONV, lhs, rhs, rhs_dilation=[3])  # taps 0 and 3
    assert got == t32([[[41.0]]])
    got = ops.conv_general(CONV, lhs, rhs, padding=[(-1, -1)])  # crops to 2 3
    assert got == t32([[[32.0]]])


def test_conv_general_term_order_and_rounding():
    # terms are added from +0, window positions outer, channels inner:
    # (pos 0, ch 0) = 2**24, (pos 0, ch 1) = 1, (pos 1, ch 0) = 1, (pos 1, ch 1) = -2**24;
    # rounding after each: 2**24, 2**24 (tie to even), 2**24, 0
    lhs = t32([[[2.0**24, 1.0], [1.0, -(2.0**24)]]])  # channel 0: 2**24, 1; channel 1: 1, -2**24
    rhs = t32([[[1.0, 1.0], [1.0, 1.0]]])
    assert ops.conv_general(CONV, lhs, rhs).values == (0.0,)
    # channels outer would give 2**24 + 1 (lost), then 1 - 2**24 ... = 1: the order matters
    swapped = t32([[[2.0**24, 1.0], [1.0, -(2.0**24)]]])
    assert ops.conv_general(CONV, swapped, t32([[[1.0, 0.0], [1.0, 0.0]]])).values == (2.0**24,)


def test_conv_general_padding_and_holes_contribute_zero_times_weight():
    lhs = t32([[[1.0]]])
    got = ops.conv_general(CONV, lhs, t32([[[INF, 1.0]]]), padding=[(0, 1)])
    assert got.values == (INF,)  # 1 * inf + (+0 * 1)
    got = ops.conv_general(CONV, lhs, t32([[[1.0, INF]]]), padding=[(0, 1)])
    assert math.isnan(got.values[0])  # the padded position: +0 * inf = NaN
    got = ops.conv_general(CONV, t32([[[1.0, 2.0]]]), t32([[[1.0, NAN]]]), lhs_dilation=[2])
    assert all(math.isnan(v) for v in got.values)  # holes: +0 * NaN
    # +0 * -w = -0, added to +0 stays +0; -0 inputs times +w are -0 too
    got = ops.conv_general(CONV, t32([[[-0.0]]]), t32([[[-1.0, 5.0]]]), padding=[(1, 1)])
    assert got.bits() == (0x00000000, 0x00000000)
    got = ops.conv_general(CONV, t32([[[-0.0]]]), t32([[[5.0]]]))
    assert got.bits() == (0x00000000,)  # +0 + (-0 * 5) = +0


def test_conv_general_groups():
    lhs = t32([[[1.0], [2.0], [3.0], [4.0]]])  # 4 channels, width 1
    rhs = t32([[[1.0], [10.0]], [[100.0], [1000.0]]])  # 2 groups, 1 output each
    got = ops.conv_general(CONV, lhs, rhs, feature_group_count=2)
    assert got == t32([[[21.0], [4300.0]]])


def test_conv_general_empty_results():
    lhs = t32([[[1.0, 2.0]]])
    assert ops.conv_general(CONV, lhs, t32([[[1.0, 1.0, 1.0]]])).shape == (1, 1, 0)
    assert ops.conv_general(CONV, Tensor(F32, (0, 1, 3), ()), t32([[[1.0]]])).shape == (0, 1, 3)
    got = ops.conv_general(CONV, Tensor(F32, (1, 0, 2), ()), Tensor(F32, (3, 0, 1), ()))
    assert got.shape == (1, 3, 2) and got.bits() == (0,) * 6  # empty sums are +0
    # no spatial dimensions: a matmul-like sum over channels
    got = ops.conv_general(CONV, t32([[1.0, 2.0]]), t32([[3.0, 4.0]]))
    assert got == t32([[11.0]])


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"window_strides": [0]}, ValueError, "window_strides"),
        ({"window_strides": [1, 1]}, ValueError, "spatial"),
        ({"window_strides": 1}, TypeError, "window_strides"),
        ({"window_strides": [1.0]}, TypeError, "window_strides"),
        ({"window_strides": [True]}, TypeError, "window_strides"),
        ({"padding": [(0, 0), (0, 0)]}, ValueError, "padding"),
        ({"padding": [0]}, TypeError, "padding"),
        ({"padding": [(0, 0, 0)]}, ValueError, "pair"),
        ({"padding": "SAME"}, TypeError, "padding"),
        ({"padding": [(0.5, 0)]}, TypeError, "padding"),
        ({"padding": [(-3, -3)]}, ValueError, "negative extent"),
        ({"lhs_dilation": [0]}, ValueError, "lhs_dilation"),
        ({"rhs_dilation": [-1]}, ValueError, "rhs_dilation"),
        ({"feature_group_count": 0}, ValueError, "feature_group_count"),
        ({"feature_group_count": 2}, ValueError, "divide"),
        ({"feature_group_count": True}, TypeError, "feature_group_count"),
        ({"feature_group_count": 1.0}, TypeError, "feature_group_count"),
    ],
)
def test_conv_general_parameter_errors(kwargs, error, match):
    lhs = t32([[[1.0, 2.0, 3.0, 4.0]]])
    rhs = t32([[[1.0, 1.0]]])
    with pytest.raises(error, match=match):
        ops.conv_general(CONV, lhs, rhs, **kwargs)


def test_conv_general_shape_errors():
    with pytest.raises(ValueError, match=re_shapes((1, 2, 3), (1, 2))):
        ops.conv_general(CONV, Tensor(F32, (1, 2, 3), (0.0,) * 6), t32([[1.0, 1.0]]))
    with pytest.raises(ValueError, match="rank"):
        ops.conv_general(CONV, t32([1.0]), t32([1.0]))
    with pytest.raises(ValueError, match="rhs dimension 1"):
        ops.conv_general(CONV, Tensor(F32, (1, 2, 3), (0.0,) * 6), t32([[[1.0]]]))
    with pytest.raises(ValueError, match="window extent"):
        ops.conv_general(CONV, t32([[[1.0]]]), Tensor(F32, (1, 1, 0), ()))
    with pytest.raises(ValueError, match="divide"):
        rhs = Tensor(F32, (3, 1, 1), (1.0,) * 3)
        ops.conv_general(CONV, Tensor(F32, (1, 2, 1), (1.0,) * 2), rhs, feature_group_count=2)


# ---------------------------------------------------------------------------
# gather / scatter / scatter_add
# ---------------------------------------------------------------------------


@st.composite
def take_cases(draw):
    shape = tuple(draw(st.lists(st.integers(0, 3), min_size=1, max_size=3)))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    n = shape[axis]
    index_shape = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    if n == 0:
        index_shape = (0,)
    indices = draw(
        st.lists(
            st.integers(0, max(n - 1, 0)),
            min_size=math.prod(index_shape),
            max_size=math.prod(index_shape),
        )
    )
    data = draw(arrays(shape, any32))
    return data, np.array(indices, np.int32).reshape(index_shape), axis


@given(take_cases())
def test_gather_matches_numpy_take(case):
    data, indices, axis = case
    got = ops.gather(GATHER, Tensor.from_numpy(data), Tensor.from_numpy(indices), axis)
    want = np.take(data, indices, axis=axis)
    assert got.shape == want.shape
    assert got.bits() == tuple(int(b) for b in want.view(np.uint32).ravel())


def test_gather_copies_bits_and_scalar_indices():
    data = Tensor(F32, (2, 2), (NAN_A, -0.0, NAN_B, 1.0))
    got = ops.gather(GATHER, data, Tensor.scalar(0, I32), 1)
    assert got.shape == (2,) and got.bits() == (0x7FC12345, 0xFFC0BEEF)
    assert got.values[0] is data.values[0]
    got = ops.gather(GATHER, data, ti32([[1, 1]]), -2)
    assert got.shape == (1, 2, 2) and got.bits()[:2] == (0xFFC0BEEF, to_bits(1.0))


@pytest.mark.parametrize("index", [-1, 3, 2**31 - 1])
def test_gather_index_errors(index):
    with pytest.raises(IndexError, match=r"\[0, 3\)"):
        ops.gather(GATHER, t32([1.0, 2.0, 3.0]), ti32([0, index]), 0)


def test_gather_argument_errors():
    with pytest.raises(IndexError):
        ops.gather(GATHER, Tensor(F32, (0,), ()), ti32([0]), 0)
    assert ops.gather(GATHER, Tensor(F32, (0,), ()), Tensor(I32, (0,), ()), 0).shape == (0,)
    with pytest.raises(ValueError, match="out of range"):
        ops.gather(GATHER, t32([1.0]), ti32([0]), 1)
    with pytest.raises(ValueError, match="0-d"):
        ops.gather(GATHER, Tensor.scalar(1.0, F32), ti32([0]), 0)
    for axis in (None, 0.0, True):
        with pytest.raises(TypeError):
            ops.gather(GATHER, t32([1.0]), ti32([0]), axis)
    with pytest.raises(TypeError, match="Int32"):
        ops.gather(GATHER, t32([1.0]), t32([0.0]), 0)


@st.composite
def scatter_cases(draw, distinct=True):
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    n = shape[axis]
    positions = st.integers(0, n - 1)
    if distinct:
        flat = draw(st.lists(positions, unique=True, max_size=n))
        index_shape = draw(st.sampled_from([(len(flat),)] + ([(1, len(flat))] if flat else [])))
    else:
        flat = draw(st.lists(positions, max_size=5))
        index_shape = (len(flat),)
    indices = np.array(flat, np.int32).reshape(index_shape)
    base = draw(arrays(shape, any32))
    normalized = axis % len(shape)
    update_shape = (*shape[:normalized], *index_shape, *shape[normalized + 1 :])
    updates = draw(arrays(update_shape, any32))
    return base, indices, updates, axis


@given(scatter_cases())
def test_scatter_matches_numpy_fancy_assignment(case):
    base, indices, updates, axis = case
    got = ops.scatter(
        SCATTER,
        Tensor.from_numpy(base),
        Tensor.from_numpy(indices),
        Tensor.from_numpy(updates),
        axis,
    )
    want = base.copy()
    a = axis % base.ndim
    moved = np.moveaxis(want, a, 0)  # a view: assignments land in want
    upd = np.moveaxis(updates.reshape((*base.shape[:a], indices.size, *base.shape[a + 1 :])), a, 0)
    moved[indices.ravel()] = upd
    assert got.bits() == tuple(int(b) for b in want.view(np.uint32).ravel())


@given(scatter_cases(distinct=False))
def test_scatter_add_matches_a_numpy_float32_loop(case):
    base, indices, updates, axis = case
    got = ops.scatter_add(
        SCATTER_ADD,
        Tensor.from_numpy(base),
        Tensor.from_numpy(indices),
        Tensor.from_numpy(updates),
        axis,
    )
    a = axis % base.ndim
    want = base.copy()
    touched = np.zeros(base.shape, bool)
    with np.errstate(all="ignore"):
        for where in itertools.product(*(range(n) for n in updates.shape)):  # logical order
            target = (*where[:a], int(indices[where[a]]), *where[a + 1 :])
            want[target] = np.float32(want[target] + updates[where])
            touched[target] = True
    for g, w, t, b in zip(got.values, want.ravel(), touched.ravel(), base.ravel()):
        if t:
            assert same(g, float(w))
        else:
            assert to_bits(g) == int(np.array([b]).view(np.uint32)[0])  # bit copy


def test_scatter_rules():
    base = Tensor(F32, (2, 3), (1.0, 2.0, 3.0, 4.0, 5.0, NAN_A))
    got = ops.scatter(SCATTER, base, ti32([2, 0]), t32([[NAN_B, -0.0], [7.0, 8.0]]), 1)
    assert got.bits() == (
        to_bits(-0.0),
        to_bits(2.0),
        0xFFC0BEEF,
        to_bits(8.0),
        to_bits(5.0),
        to_bits(7.0),
    )
    got = ops.scatter(SCATTER, base, ti32([1]), t32([[9.0, 9.0, 9.0]]), 0)
    assert got.values[:3] == (1.0, 2.0, 3.0) and got.values[3:] == (9.0,) * 3
    assert ops.scatter(SCATTER, base, Tensor(I32, (0,), ()), Tensor(F32, (2, 0), ()), 1) == base


def test_scatter_errors_in_order():
    base = t32([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"\(2,\).*\(3,\)"):  # shape before range
        ops.scatter(SCATTER, base, ti32([0, 5]), t32([1.0, 2.0, 3.0]), 0)
    with pytest.raises(IndexError):  # range before duplicates
        ops.scatter(SCATTER, base, ti32([5, 5]), t32([1.0, 2.0]), 0)
    with pytest.raises(IndexError):
        ops.scatter(SCATTER, base, ti32([-1]), t32([1.0]), 0)
    with pytest.raises(ValueError, match="distinct"):
        ops.scatter(SCATTER, base, ti32([[1, 2], [0, 1]]), t32([[1.0, 2.0], [3.0, 4.0]]), 0)
    with pytest.raises(TypeError):
        ops.scatter(SCATTER, base, ti32([0]), t32([1.0]), 0.0)


def test_scatter_add_rules():
    base = t32([2.0**24, -0.0, 5.0])
    # each addition rounds: 2**24 + 1 + 1 stays 2**24 (ties to even)
    got = ops.scatter_add(SCATTER_ADD, base, ti32([0, 1, 0]), t32([1.0, -0.0, 1.0]), 0)
    assert got.bits() == (to_bits(2.0**24), 0x80000000, to_bits(5.0))  # -0 + -0 = -0
    got = ops.scatter_add(SCATTER_ADD, base, ti32([1]), t32([0.0]), 0)
    assert got.bits()[1] == 0  # -0 + +0 = +0
    got = ops.scatter_add(SCATTER_ADD, t32([INF, MAX]), ti32([0, 1, 1]), t32([-INF, MAX, -MAX]), 0)
    assert math.isnan(got.values[0]) and got.values[1] == INF  # MAX + MAX overflows first
    with pytest.raises(ValueError, match="shape"):
        ops.scatter_add(SCATTER_ADD, base, ti32([0]), t32([1.0, 2.0]), 0)
    with pytest.raises(IndexError):
        ops.scatter_add(SCATTER_ADD, base, ti32([3]), t32([1.0]), 0)


# ---------------------------------------------------------------------------
# sort / topk
# ---------------------------------------------------------------------------


def test_sort_nan_and_signed_zero_rules():
    x = t32([3.0, NAN_A, -0.0, 0.0, NAN_B, -0.0, 1.0])
    ascending = ops._sort_values(SORT_V, x)
    assert ascending.bits() == (
        0x80000000,
        0x00000000,
        0x80000000,
        to_bits(1.0),
        to_bits(3.0),
        0x7FC12345,
        0xFFC0BEEF,
    )
    assert ops._sort_indices(SORT_I, x) == ti32([2, 3, 5, 6, 0, 1, 4])
    descending = ops._sort_values(SORT_V, x, descending=True)
    assert descending.bits() == (
        0x7FC12345,
        0xFFC0BEEF,
        to_bits(3.0),
        to_bits(1.0),
        0x80000000,
        0x00000000,
        0x80000000,
    )
    # stable in original order, not the reverse of the ascending order
    assert ops._sort_indices(SORT_I, x, descending=True) == ti32([1, 4, 0, 6, 2, 3, 5])


def test_descending_is_stable_in_original_order():
    x = t32([1.0, 2.0, 1.0, 2.0])
    assert ops._sort_indices(SORT_I, x, descending=True) == ti32([1, 3, 0, 2])
    assert ops._sort_indices(SORT_I, x) == ti32([0, 2, 1, 3])


def test_topk_rules():
    x = t32([3.0, NAN_A, -0.0, 5.0, 0.0, NAN_B])
    assert ops._topk_values(TOPK_V, x, 3).bits() == (0x7FC12345, 0xFFC0BEEF, to_bits(5.0))
    assert ops._topk_indices(TOPK_I, x, 3) == ti32([1, 5, 3])
    smallest = ops._topk_values(TOPK_V, x, 3, largest=False)
    assert smallest.bits() == (0x80000000, 0, to_bits(3.0))
    assert ops._topk_indices(TOPK_I, x, 6, largest=False) == ti32([2, 4, 0, 3, 1, 5])
    assert ops._topk_values(TOPK_V, x, 0) == Tensor(F32, (0,), ())
    m = t32([[1.0, 4.0], [3.0, 2.0]])
    assert ops._topk_values(TOPK_V, m, 1, axis=0) == t32([[3.0, 4.0]])
    assert ops._topk_indices(TOPK_I, m, 1) == ti32([[1], [0]])


def test_sort_and_topk_keep_the_very_float_objects():
    nan = from_bits(0x7FC0BEEF)
    x = Tensor(F32, (3,), (1.0, nan, 0.5))
    assert ops._sort_values(SORT_V, x).values[2] is x.values[1]
    assert ops._topk_values(TOPK_V, x, 1).values[0] is x.values[1]


@pytest.mark.parametrize("k", [-1, 4])
def test_topk_k_out_of_range(k):
    with pytest.raises(ValueError, match=r"\[0, 3\]"):
        ops._topk_values(TOPK_V, t32([1.0, 2.0, 3.0]), k)


def test_sort_topk_argument_errors():
    x = t32([1.0, 2.0])
    for bad in (True, 1.0, None):
        with pytest.raises(TypeError, match="k"):
            ops._topk_indices(TOPK_I, x, bad)
    with pytest.raises(TypeError, match="descending"):
        ops._sort_values(SORT_V, x, descending=1)
    with pytest.raises(TypeError, match="largest"):
        ops._topk_values(TOPK_V, x, 1, largest="yes")
    with pytest.raises(ValueError, match="out of range"):
        ops._sort_values(SORT_V, x, axis=1)
    with pytest.raises(ValueError, match="0-d"):
        ops._sort_indices(SORT_I, Tensor.scalar(1.0, F32))
    with pytest.raises(TypeError):
        ops._sort_indices(SORT_I, x, axis=None)
    assert ops._sort_values(SORT_V, Tensor(F32, (2, 0), ())).shape == (2, 0)
    assert ops._topk_values(TOPK_V, Tensor(F32, (0, 3), ()), 2).shape == (0, 2)


@st.composite
def sort_cases(draw, elements=any32):
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=1, max_size=2)))
    values = st.sampled_from([0.0, -0.0, 1.0, -1.0, NAN, INF, 2.0]) | elements
    array = draw(arrays(shape, values))
    return array, draw(st.integers(-len(shape), len(shape) - 1))


def descending_model(line: np.ndarray) -> list[int]:
    nan = [i for i in range(len(line)) if np.isnan(line[i])]
    rest = [i for i in range(len(line)) if not np.isnan(line[i])]
    order = np.argsort(-line[rest], kind="stable") if rest else []
    return nan + [rest[i] for i in order]


@given(sort_cases(), st.booleans())
def test_sort_matches_numpy_stable_argsort(case, descending):
    array, axis = case
    x = Tensor.from_numpy(array)
    got_indices = ops._sort_indices(SORT_I, x, axis=axis, descending=descending)
    got_values = ops._sort_values(SORT_V, x, axis=axis, descending=descending)
    moved = np.moveaxis(array, axis, -1)
    if descending:
        lines = moved.reshape(-1, moved.shape[-1]) if moved.size else np.zeros((0, 0), np.float32)
        model = np.array([descending_model(line) for line in lines], dtype=np.int64)
        model = model.reshape(moved.shape)
    else:
        model = np.argsort(moved, axis=-1, kind="stable")  # NaNs last, -0 == +0
    want_values = np.take_along_axis(moved, model, axis=-1)
    assert list(got_indices.values) == np.moveaxis(model, -1, axis).ravel().tolist()
    want_bits = np.moveaxis(want_values, -1, axis).view(np.uint32).ravel()
    assert got_values.bits() == tuple(int(b) for b in want_bits)


@given(sort_cases(), st.booleans(), st.data())
def test_topk_is_a_prefix_of_the_sort(case, largest, data):
    array, axis = case
    x = Tensor.from_numpy(array)
    k = data.draw(st.integers(0, array.shape[axis]))
    order = ops._sort_indices(SORT_I, x, axis=axis, descending=largest)
    full = np.array(order.values, dtype=np.int64).reshape(array.shape)
    prefix = np.take(full, range(k), axis=axis) if k else None
    got = ops._topk_indices(TOPK_I, x, k, axis=axis, largest=largest)
    values = ops._topk_values(TOPK_V, x, k, axis=axis, largest=largest)
    assert got.shape == values.shape
    if k:
        assert list(got.values) == prefix.ravel().tolist()
        taken = np.take_along_axis(array, prefix.astype(np.int64), axis=axis)
        assert values.bits() == tuple(int(b) for b in taken.view(np.uint32).ravel())
