"""conformance.generate.corpus: the deterministic TestFloat-style boundary corpus."""

from __future__ import annotations

import numpy as np
import pytest

from conformance.generate.corpus import (
    CorpusResult,
    case_count,
    check_corpus,
    compare,
    corpus_calls,
    corpus_plans,
    level_operands,
    level_values,
)
from oracle import DType, OperandRole, binary32, resolve_operation_plan
from oracle.binary32 import FloatClass, classify_bits

F32 = DType.Float32
ADD = resolve_operation_plan("add", F32, F32)
LT = resolve_operation_plan("lt", F32, F32)
NEG = resolve_operation_plan("neg", F32)
EXP = resolve_operation_plan("exp", F32)


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint32)


def test_level_counts():
    assert len(level_values(1, 2)) == 212
    assert case_count(1, 2) == 44_944  # TestFloat level 1, binary32 two operands: 46,464
    assert case_count(2, 2) == 2720**2 == 7_398_400  # TestFloat level 2: about 7.5 million
    assert case_count(1, 1) == 2720 and case_count(2, 1) == 98_224
    assert case_count(1, 3) == 48**3 and case_count(2, 3) == 90**3
    a, b = level_operands(1, 2)
    assert len(a) == len(b) == case_count(1, 2)
    pairs = set(zip(_bits(a).tolist(), _bits(b).tolist()))
    assert len(pairs) == case_count(1, 2)  # every combination exactly once


@pytest.mark.parametrize(("level", "arity"), [(1, 1), (1, 2), (1, 3), (2, 2), (2, 3)])
def test_every_level_holds_every_special_class(level, arity):
    bits = _bits(level_values(level, arity)).tolist()
    assert len(set(bits)) == len(bits)
    classes = {classify_bits(b) for b in bits}
    assert classes == set(FloatClass) - {FloatClass.SIGNALING_NAN}
    wanted = {
        0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x00000001, 0x80000001,
        0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0x7FC00000, 0xFFC00000,
    }  # fmt: skip
    if arity != 3:
        wanted |= {0x007FFFFF, 0x807FFFFF, 0x7FC00001}
    assert wanted <= set(bits)
    nans = [b for b in bits if (b & 0x7FFFFFFF) > 0x7F800000]
    assert all(b & 0x00400000 for b in nans)  # quiet only: floats cannot carry sNaN
    assert len({b & 0x7FFFFF for b in nans}) > 1  # several payloads


def test_level_two_unary_adds_neighbours():
    one = set(_bits(level_values(1, 1)).tolist())
    two = set(_bits(level_values(2, 1)).tolist())
    assert one < two
    assert 0x3F800000 + 64 in two and 0x3F800000 - 64 in two

    def ordinals(bits):
        bits = np.array(sorted(bits), dtype=np.int64)
        bits = bits[(bits & 0x7FFFFFFF) <= 0x7F800000]
        return np.where(bits >> 31, -(bits & 0x7FFFFFFF), bits)

    anchors = np.sort(ordinals(one))
    added = ordinals(two - one)
    right = np.clip(np.searchsorted(anchors, added), 0, len(anchors) - 1)
    left = np.clip(right - 1, 0, len(anchors) - 1)
    nearest = np.minimum(np.abs(anchors[right] - added), np.abs(anchors[left] - added))
    assert len(added) == len(two - one)  # neighbours are never NaN
    assert nearest.min() > 0 and nearest.max() <= 64


def test_operands_are_cached_and_read_only():
    assert level_operands(1, 2) is level_operands(1, 2)
    with pytest.raises(ValueError):
        level_operands(1, 2)[0][0] = 1.0
    with pytest.raises(ValueError, match="no corpus level"):
        level_operands(3, 2)


def test_corpus_plans_are_the_float32_elementwise_plans():
    plans = corpus_plans()
    names = {p.operation for p in plans}
    assert {"add", "sub", "mul", "div", "lt", "eq", "neg", "exp", "clamp", "maximum"} <= names
    assert not names & {"reduce_sum", "matmul", "select", "gather"}
    for plan in plans:
        assert all(o.role is OperandRole.TENSOR and o.dtype is F32 for o in plan.operands)
    assert resolve_operation_plan("add", F32, DType.Int32) not in plans
    assert resolve_operation_plan("mul", F32, 2.0) not in plans


def _numpy_add(a, b):
    with np.errstate(all="ignore"):
        return a + b


def test_check_corpus_passes_a_correct_backend():
    result = check_corpus(ADD, _numpy_add, _numpy_add, nan_bits=False)
    assert isinstance(result, CorpusResult) and result.ok and bool(result)
    assert result.cases == 44_944 and result.failures == 0 and "PASS" in str(result)


def test_check_corpus_finds_flush_to_zero():
    def flush(a, b):
        out = _numpy_add(a, b)
        tiny = (out != 0) & (np.abs(out) < binary32.MIN_NORMAL)
        return np.where(tiny, np.float32(0.0), out).astype(np.float32)

    result = check_corpus(ADD, flush, _numpy_add, nan_bits=False, max_reports=3)
    assert not result.ok and result.failures > 0 and len(result.mismatches) == 3
    for mismatch in result.mismatches:
        assert mismatch.actual == 0 and 0 < (mismatch.expected & 0x7FFFFFFF) < 0x00800000
    assert "FAIL" in str(result) and "0x" in str(result)


def test_nan_rules():
    def other_nan(x):
        return np.where(np.isnan(x), np.float32(binary32.from_bits(0x7FC00123)), -x).astype(
            np.float32
        )

    def neg(x):
        return np.negative(x)

    assert check_corpus(NEG, other_nan, neg, nan_bits=False).ok
    assert not check_corpus(NEG, other_nan, neg, nan_bits=True).ok
    assert not check_corpus(NEG, other_nan, neg).ok  # the oracle says neg copies NaN bits


def test_ulp_budget_never_covers_special_values():
    def reference(x):
        with np.errstate(all="ignore"):
            return np.exp(x.astype(np.float64)).astype(np.float32)

    def one_ulp_off(x):
        out = reference(x)
        regular = np.isfinite(out) & (out != 0)
        nudged = np.nextafter(out, np.float32(np.inf), dtype=np.float32)
        return np.where(regular, nudged, out).astype(np.float32)

    failing = check_corpus(EXP, one_ulp_off, reference, nan_bits=False)
    assert not failing.ok and failing.max_ulp == 1  # failing cases count in max_ulp too
    assert "(max 1 ULP)" in str(failing).splitlines()[0]
    result = check_corpus(EXP, one_ulp_off, reference, nan_bits=False, ulp_budget=1)
    assert result.ok and result.max_ulp == 1

    def exact_points(x):
        return reference(x), x == 0  # exp(+-0) = 1 exactly

    result = check_corpus(EXP, one_ulp_off, exact_points, nan_bits=False, ulp_budget=1)
    assert not result.ok

    def inf_to_max(x):
        out = reference(x)
        return np.where(np.isinf(out), np.float32(binary32.MAX_FINITE), out).astype(np.float32)

    assert not check_corpus(EXP, inf_to_max, reference, nan_bits=False, ulp_budget=5).ok


def test_predicates_compare_booleans():
    def lt(a, b):
        return a < b

    def le(a, b):
        return a <= b

    assert check_corpus(LT, lt, lt, nan_bits=False).ok
    result = check_corpus(LT, le, lt, nan_bits=False)
    assert not result.ok and result.mismatches[0].ulp is None


def test_wrong_shape_or_dtype_fails_every_case():
    result = check_corpus(ADD, lambda a, b: _numpy_add(a, b)[:-1], _numpy_add, nan_bits=False)
    assert result.failures == result.cases
    result = check_corpus(ADD, lambda a, b: _numpy_add(a, b).astype(np.float64), _numpy_add,
                          nan_bits=False)  # fmt: skip
    assert result.failures == result.cases


def test_compare_directly():
    expected = np.array([1.0, -0.0, np.nan], dtype=np.float32)
    actual = np.array([1.0, 0.0, np.nan], dtype=np.float32)
    ok, _ = compare(expected, actual)
    assert ok.tolist() == [True, False, True]


def test_corpus_calls_cover_the_corpus_in_chunks():
    chunks = list(corpus_calls(LT, level=1, chunk=10_000))
    assert len(chunks) == 5
    a, b = level_operands(1, 2)
    first = np.array(chunks[0].args[0].values, dtype=np.float32)
    assert np.array_equal(_bits(first), _bits(a[:10_000]))
    assert sum(c.args[1].size for c in chunks) == len(b)
    assert all(c.resolve() == LT for c in chunks)


def test_the_corpus_cache_is_believed_only_when_its_content_hash_matches(tmp_path, monkeypatch):
    from conformance.judge import corpus_check as suite

    plan = resolve_operation_plan("neg", DType.Float32)
    compute = suite._corpus_reference.__wrapped__  # past the in-memory cache
    reference, exact = compute(plan, 1, str(tmp_path))
    (path,) = tmp_path.glob("*.npz")
    with np.load(path) as data:
        assert str(data["digest"]) == suite._content_digest(plan, 1, reference, exact)

    real = suite._compute_reference
    calls = []

    def counting(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(suite, "_compute_reference", counting)
    again, _ = compute(plan, 1, str(tmp_path))  # intact: read, not recomputed
    assert calls == [] and again.tobytes() == reference.tobytes()

    # an edit that keeps the stored digest: one result changed
    edited = reference.copy()
    edited[3] = np.float32(1234.5)
    arrays = {
        "expected": edited,
        "digest": np.array(suite._content_digest(plan, 1, reference, exact)),
    }
    if exact is not None:
        arrays["exact"] = exact
    np.savez(path, **arrays)
    got, _ = compute(plan, 1, str(tmp_path))
    assert len(calls) == 1 and got.tobytes() == reference.tobytes()
    # the rewritten entry is good again
    compute(plan, 1, str(tmp_path))
    assert len(calls) == 1

    # a damaged file (truncated) and a file without a digest (an older format)
    path.write_bytes(path.read_bytes()[:100])
    assert compute(plan, 1, str(tmp_path))[0].tobytes() == reference.tobytes()
    assert len(calls) == 2
    np.savez(path, expected=reference)
    assert compute(plan, 1, str(tmp_path))[0].tobytes() == reference.tobytes()
    assert len(calls) == 3
