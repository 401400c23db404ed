"""The certified vectorised oracle, shard arithmetic and the exhaustive sweep machinery.

Fast tests for the default run: samples against the scalar reference rules,
the stated float64 error bounds against MPFR, the plateaus, a small
exhaustive-style sweep over restricted bit ranges, the shard arithmetic, and a
faulty backend with one wrong input out of 2**32 caught by its shard.  The
long versions (>= 10**6 inputs) are marked ``exhaustive``.
"""

from __future__ import annotations

import itertools
import json
import math
import sys
from multiprocessing import resource_tracker

import gmpy2
import numpy as np
import pytest

from conformance import exhaustive as X
from conformance.cli import main as cli_main
from oracle import vectorised as V
from oracle.binary32 import from_bits, round_to_binary32, to_bits
from oracle.reference import exact, rounded

SPECIAL_BITS = [
    0x00000000,
    0x80000000,
    0x7F800000,
    0xFF800000,  # zeros, infinities
    0x7FC00000,
    0xFFC00000,
    0x7F800001,
    0xFF800001,
    0x7FBFFFFF,
    0x7FFFFFFF,  # NaNs
    0x00000001,
    0x80000001,
    0x00000002,
    0x00000003,
    0x007FFFFF,
    0x807FFFFF,  # subnormals
    0x00800000,
    0x80800000,
    0x7F7FFFFF,
    0xFF7FFFFF,  # extreme normals
    0x3F800000,
    0xBF800000,
    0x3F000000,
    0xBF000000,
    0x40000000,
    0xC0000000,
    0x34000000,
    0xB4000000,
    0x33800000,
    0xB3800000,  # 2**-23, 2**-24
    0x1A000000,
    0x9A000000,
    0x1A7FFFFF,
    0x1A800000,  # around 2**-75
]


def _random_bits(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    uniform = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    moderate = (rng.standard_normal(n) * 6).astype(np.float32).view(np.uint32)
    tiny = (rng.standard_normal(n // 4) * 1e-6).astype(np.float32).view(np.uint32)
    return np.concatenate([np.array(SPECIAL_BITS, np.uint32), uniform, moderate, tiny])


def _scalar_reference(op: str, x: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):  # signalling NaNs quieten
        values = x.astype(np.float64).tolist()
    if op in rounded.UNARY:
        rule = rounded.UNARY[op]
        return np.array([rule(v)[0] for v in values], dtype=np.float32)
    rule = getattr(exact, op)
    return np.array([rule(v) for v in values], dtype=V.output_dtype(op))


def _assert_same(op: str, x: np.ndarray, got: np.ndarray, want: np.ndarray) -> None:
    if op == "logical_not":
        bad = np.flatnonzero(got != want)
    else:
        g, w = got.view(np.uint32), want.view(np.uint32)
        if op in ("neg", "abs"):
            # the scalar rules go through Python floats, which quiet signalling NaNs:
            # the vectorised bit copy is checked against the bit rule for NaNs
            bits = x.view(np.uint32)
            rule = bits ^ np.uint32(0x80000000) if op == "neg" else bits & np.uint32(0x7FFFFFFF)
            w = np.where(np.isnan(x), rule, w)
            bad = np.flatnonzero(g != w)
        else:
            bad = np.flatnonzero((g != w) & ~(np.isnan(got) & np.isnan(want)))
    shown = [(f"0x{int(b):08X}", got[i], want[i]) for i, b in zip(bad[:5], x.view(np.uint32)[bad])]
    assert bad.size == 0, f"{op}: {bad.size} differ from the scalar rule: {shown}"


@pytest.mark.parametrize("op", V.OPS)
def test_certified_matches_the_scalar_oracle_on_a_sample(op):
    x = _random_bits(1500, seed=V.OPS.index(op)).view(np.float32)
    _assert_same(op, x, V.certified(op, x), _scalar_reference(op, x))


def _hardest_inputs(op: str, start: int, count: int, keep: int) -> np.ndarray:
    """The *keep* inputs of a range whose float64 value is nearest a rounding boundary."""
    x = (np.arange(count, dtype=np.uint64) + start).astype(np.uint32).view(np.float32)
    y = V.float64_value(op, x)
    with np.errstate(all="ignore"):
        bits = np.abs(y).view(np.uint64)
        low = (bits & np.uint64((1 << 29) - 1)).astype(np.int64)
        distance = np.abs(low - (1 << 28)).astype(np.float64)
        distance[~np.isfinite(y) | (np.abs(y) < 2.0**-126)] = np.inf
    return x[np.argsort(distance, kind="stable")[:keep]]


KNOWN_HARD = {
    "exp2": [-150.0],  # 2**-150 is exactly the midpoint between +0 and 2**-149: ties to +0
    "sigmoid": [2.0**-23, 3 * 2.0**-23, -(2.0**-24), 2.0**-22],  # 1/2 + x/4 is a midpoint
    "silu": [from_bits(1), from_bits(3), -from_bits(5), from_bits(0x00FFFFFF), 2.0**-75],
    "gelu": [from_bits(1), -from_bits(1), from_bits(0x00800001), -(2.0**-75), 2.0**-74],
    "cos": [k * 2.0**-12 for k in (1, 3, 5, 7)],
    "exp": [2.0**-24, -(2.0**-25), 88.72283935546875, 88.72283172607422, -103.97207641601562],
    "tanh": [9.010913848876953, 9.010913848876953 - 2**-20],
    "erf": [3.919205904006958, 3.9192056655883789],
}


@pytest.mark.parametrize("op", V.ROUNDED_OPS)
def test_certified_on_the_hardest_cases_of_two_binades(op):
    picks = [
        _hardest_inputs(op, 0x3F800000, 1 << 17, 40),  # [1, 1.03)
        _hardest_inputs(op, 0xBE000000, 1 << 17, 40),  # around -0.125
        np.array(KNOWN_HARD.get(op, []), dtype=np.float32),
    ]
    x = np.concatenate(picks)
    _assert_same(op, x, V.certified(op, x), _scalar_reference(op, x))


def _mpfr_value(op: str, x: float) -> gmpy2.mpfr:
    with gmpy2.context(precision=200, emin=gmpy2.get_emin_min(), emax=gmpy2.get_emax_max()):
        v = gmpy2.mpfr(x)
        if op == "rsqrt":
            return gmpy2.rec_sqrt(v)
        if op == "sigmoid":
            return 1 / (1 + gmpy2.exp(-v))
        if op == "silu":
            return v / (1 + gmpy2.exp(-v))
        if op == "softplus":
            return gmpy2.log1p(gmpy2.exp(v)) if v <= 0 else v + gmpy2.log1p(gmpy2.exp(-v))
        if op == "gelu":
            return v / 2 * gmpy2.erfc(-v / gmpy2.sqrt(2))
        if op == "elu":
            return gmpy2.expm1(v)
        return getattr(gmpy2, op)(v)


def measured_errors(op: str, x: np.ndarray) -> np.ndarray:
    """|float64_value - f| / (|f| u) per input (0 where f is 0 or not finite)."""
    y = V.float64_value(op, x).tolist()
    errors = []
    for xi, yi in zip(x.astype(np.float64).tolist(), y):
        f = _mpfr_value(op, xi)
        if not gmpy2.is_regular(f) or abs(f) < 2.0**-1000 or not math.isfinite(yi):
            errors.append(0.0)
            continue
        with gmpy2.context(precision=200):
            errors.append(float(abs((gmpy2.mpfr(yi) - f) / f)) * 2.0**53)
    return np.array(errors)


def _evaluated_sample(op: str, n: int, seed: int) -> np.ndarray:
    """Finite nonzero inputs outside every segment (those the float64 path sees)."""
    x = _random_bits(n, seed).view(np.float32)
    bits = x.view(np.uint32)
    keep = np.isfinite(x) & (x != 0)
    for segment in V.segments(op):
        keep &= ~((bits >= segment.lo) & (bits <= segment.hi))
    return x[keep]


@pytest.mark.parametrize("op", V.ROUNDED_OPS)
def test_stated_float64_error_bound_holds_on_a_sample(op):
    x = _evaluated_sample(op, 600, seed=100 + V.ROUNDED_OPS.index(op))
    errors = measured_errors(op, x)
    bound = np.broadcast_to(V.error_bound(op, x.astype(np.float64)), errors.shape)
    worst = int(np.argmax(errors / bound))
    assert np.all(errors <= bound), (op, float(x[worst]), errors[worst], bound[worst])


@pytest.mark.exhaustive
@pytest.mark.parametrize("op", V.ROUNDED_OPS)
def test_stated_bound_and_certified_values_on_many_inputs(op):
    """Opt-in: about 80,000 evaluated inputs per operation (over 10**6 in all) against
    MPFR at 200 bits, and 60,000 patterns per operation against the scalar oracle."""
    x = _evaluated_sample(op, 40_000, seed=7 + V.ROUNDED_OPS.index(op))
    bound = np.broadcast_to(V.error_bound(op, x.astype(np.float64)), x.shape)
    errors = measured_errors(op, x)
    worst = int(np.argmax(errors))
    print(
        f"\nBOUND {op}: {x.size} inputs, max float64 error {errors[worst]:.2f} u at "
        f"x = {float(x[worst])!r} (stated bound {float(np.max(bound)):.0f} u)"
    )
    assert np.all(errors <= bound), (op, float(errors.max()))
    everything = _random_bits(24_000, seed=11).view(np.float32)
    _assert_same(op, everything, V.certified(op, everything), _scalar_reference(op, everything))


@pytest.mark.exhaustive
@pytest.mark.parametrize("op", V.OPS)
def test_certified_against_the_scalar_oracle_on_many_patterns(op):
    """Opt-in: 75,000 patterns per operation (1.9 million in all): uniform bit
    patterns, N(0, 36) values, tiny values and every special class."""
    x = _random_bits(60_000, seed=1000 + V.OPS.index(op)).view(np.float32)
    _assert_same(op, x, V.certified(op, x), _scalar_reference(op, x))
    print(f"\nSCALAR {op}: {x.size} patterns agree")


@pytest.mark.parametrize("op", [op for op in V.ROUNDED_OPS if op in V.MONOTONE])
def test_plateaus_are_maximal_runs_of_one_value(op):
    found = [s for s in V.segments(op) if s.why.startswith("plateau")]
    assert found, op
    for segment in found:
        for b in (segment.lo, segment.hi, (segment.lo + segment.hi) // 2):
            value, _ = rounded.UNARY[op](from_bits(b))
            assert to_bits(value) == segment.value, (op, hex(b))
        # just outside the run (within the monotone range) the result differs
        for b in (segment.lo - 1, segment.hi + 1):
            inside_range = any(lo <= b <= hi for lo, hi in V.MONOTONE[op])
            if inside_range and b not in (0x7FFFFFFF, 0x80000000 - 1):
                value, _ = rounded.UNARY[op](from_bits(b))
                assert to_bits(value) != segment.value, (op, hex(b))


@pytest.mark.parametrize("op", ["sin", "tanh", "elu"])
def test_identity_segments_hold_on_a_sample_and_at_their_ends(op):
    found = [s for s in V.segments(op) if s.value is None and "rounds to x" in s.why]
    assert found, op
    rng = np.random.default_rng(V.OPS.index(op))
    for segment in found:
        picks = rng.integers(segment.lo, segment.hi + 1, 300, dtype=np.uint64).tolist()
        for b in [segment.lo, segment.hi, *picks]:
            value, _ = rounded.UNARY[op](from_bits(b))
            assert to_bits(value) == b, (op, hex(b))


def test_segments_and_ranges_agree_with_the_masked_path():
    for op in ("exp", "tanh", "elu", "gelu", "log", "neg", "round"):
        for start in (0x42B17000, 0xC2CFF000, 0x00000000, 0x7F7FF000, 0xFF7FF000, 0xBF800000):
            x = (np.arange(1 << 13, dtype=np.uint64) + start).astype(np.uint32).view(np.float32)
            a = V.certified_range(op, start, start + (1 << 13))
            b = V.certified(op, x)
            assert np.array_equal(a.view(np.uint32), b.view(np.uint32)), (op, hex(start))


def test_tiny_silu_and_gelu_rule():
    # f(x) = x/2 + e, 0 < e < x**2: an odd subnormal's half is a midpoint -> upper neighbour
    x = np.array([from_bits(k) for k in (1, 2, 3, 0x80000001, 0x80000003)], dtype=np.float32)
    want = [from_bits(1), from_bits(1), from_bits(2), -0.0, -from_bits(1)]
    for op in ("silu", "gelu"):
        assert V.certified(op, x).tolist() == want
        assert [rounded.UNARY[op](float(v))[0] for v in x] == want


def test_int32_plans_convert_then_apply():
    n = np.array(
        [
            0,
            1,
            -1,
            7,
            -7,
            2**24,
            2**24 + 1,
            2**24 + 3,
            -(2**24) - 1,
            2**31 - 1,
            -(2**31),
            88,
            89,
            -103,
            -104,
            17,
            -17,
            9,
            -9,
            123456789,
            -987654321,
        ],
        dtype=np.int32,
    )
    converted = V.int32_to_float32(n)
    assert converted.tolist() == [round_to_binary32(int(v)) for v in n.tolist()]
    for op in V.ACTIVATIONS:
        got = V.certified_int32(op, n)
        if op == "relu":
            assert got.dtype == np.int32 and got.tolist() == [max(v, 0) for v in n.tolist()]
            continue
        _assert_same(op, converted, got, _scalar_reference(op, converted))


def test_exact_points_agree_with_the_scalar_flags():
    x = np.concatenate(
        [
            np.arange(-160, 140, dtype=np.float32),
            np.ldexp(np.float32(1), np.arange(-149, 128)).astype(np.float32),
            _random_bits(300, 3).view(np.float32),
            np.array([np.inf, -np.inf, 0.0, -0.0], np.float32),
        ]
    )
    for op in V.ROUNDED_OPS:
        mask = V.exact_points(op, x)
        for xi, flagged in zip(x.tolist(), mask.tolist()):
            value, is_exact = rounded.UNARY[op](xi)
            regular = math.isfinite(value) and value != 0
            assert flagged == (is_exact and regular), (op, xi)


# ---------------------------------------------------------------------------
# Shards
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("count", [1, 2, 3, 7, 64, 1000, 4096, 2**20 - 1, 2**32])
def test_shards_cover_every_input_exactly_once(count):
    # consecutive ranges that start at 0, end at 2**32 and never overlap: a partition
    indices = range(count) if count <= 4096 else [0, 1, 2, count // 2, count - 2, count - 1]
    previous_stop = None
    for i in indices:
        start, stop = X.shard_range(i, count)
        assert start < stop
        assert stop - start in (X.TOTAL // count, X.TOTAL // count + 1)
        if previous_stop is not None and i - 1 in indices:
            assert start == previous_stop
        previous_stop = stop
    assert X.shard_range(0, count)[0] == 0
    assert X.shard_range(count - 1, count)[1] == X.TOTAL
    for i in range(min(count, 4096) - 1):  # the stop of one is the start of the next
        assert X.shard_range(i, count)[1] == X.shard_range(i + 1, count)[0]


def test_shard_of_finds_the_one_shard_holding_a_pattern():
    rng = np.random.default_rng(5)
    patterns = [0, 1, X.TOTAL - 1, 0x7F800000, 0x80000000, *rng.integers(0, 2**32, 200).tolist()]
    for count in (1, 3, 64, 1000, 65536):
        for p in patterns:
            i = X.shard_of(p, count)
            start, stop = X.shard_range(i, count)
            assert start <= p < stop
            if i > 0:
                assert X.shard_range(i - 1, count)[1] <= p
            if i < count - 1:
                assert X.shard_range(i + 1, count)[0] > p
    assert sum(b - a for a, b in (X.shard_range(i, 64) for i in range(64))) == X.TOTAL


# ---------------------------------------------------------------------------
# Sweeps
# ---------------------------------------------------------------------------


SWEEP_STARTS = (0x00000000, 0x3F7FF800, 0x80000000, 0xBF7FF800, 0x42B17000, 0x7F7FF800)


@pytest.mark.parametrize("plan", X.plan_ids())
def test_small_exhaustive_sweep_of_the_cpu_backend(plan):
    """Every input of six 2**11-wide bit ranges (zeros, 1, -1, overflow, inf/NaN)."""
    for start in SWEEP_STARTS:
        (result,) = X.check_range("cpu", plan, start, start + 2048, chunk=1024)
        assert result.ok, result.describe()
        assert result.inputs == 2048


class OneWrongInput:
    """The CPU backend with exactly one corrupted output, at bit pattern *pattern*."""

    def __init__(self, pattern: int, flip: int = 1) -> None:
        self.pattern, self.flip = pattern, flip
        self.inner = X.runner("cpu")
        self.__name__ = "faulty"

    def __call__(self, op, x):
        out = np.array(self.inner(op, x))
        where = np.flatnonzero(x.view(np.uint32) == np.uint32(self.pattern))
        out.view(np.uint32)[where] ^= np.uint32(self.flip)
        return out


@pytest.mark.parametrize(("plan", "count"), [("neg:Float32", 4096), ("exp:Float32", 65536)])
def test_a_backend_with_one_wrong_input_in_2_to_the_32_is_caught(plan, count):
    wrong = 0x3F8CCCCD  # 1.1f
    shard = X.shard_of(wrong, count)
    start, stop = X.shard_range(shard, count)
    assert start <= wrong < stop  # the shard arithmetic puts it in this shard and no other
    assert all(
        not (a <= wrong < b) for a, b in (X.shard_range(i, count) for i in (shard - 1, shard + 1))
    )
    (result,) = X.check_range(OneWrongInput(wrong), plan, start, stop)
    assert result.inputs == stop - start
    assert result.non_conforming == 1 and result.not_correctly_rounded == 1
    assert result.max_ulp == 1
    assert result.offenders[0][0] == wrong
    (clean,) = X.check_range("cpu", plan, start, stop)
    assert clean.ok


def test_ulp_budget_accepts_near_misses_but_never_exact_points():
    (one,) = X.check_range(
        OneWrongInput(0x3F8CCCCD), "exp:Float32", 0x3F8CC000, 0x3F8CD000, ulp_budget=1
    )
    assert one.ok and one.not_correctly_rounded == 1
    (zero,) = X.check_range(OneWrongInput(0x00000000), "exp:Float32", 0, 4096, ulp_budget=4)
    assert zero.non_conforming == 1  # exp(0) = 1 is exact: no budget


def test_run_shard_records_and_resumes(tmp_path):
    state = tmp_path / "state.jsonl"
    first, resumed, records = X.run_shard("cpu", "neg:Float32", 77, 65536, state=state)
    assert first.ok and not resumed and len(records) == 1
    again, resumed, records = X.run_shard("cpu", "neg:Float32", 77, 65536, state=state)
    assert resumed and records == [] and again.inputs == first.inputs == 65536
    stored = X.load_state(state)
    assert len(stored) == 1 and stored[0]["shard"] == 77
    _, resumed, _ = X.run_shard("cpu", "neg:Float32", 77, 65536, state=state, fresh=True)
    assert not resumed and len(X.load_state(state)) == 2
    (summary,) = X.summarise(X.load_state(state), "cpu")
    assert summary.covered == summary.inputs == 65536 and not summary.complete


def test_numpy_float32_comparison_runs_for_every_op():
    x = _random_bits(200, 9).view(np.float32)
    for op in V.OPS:
        if op in X.NUMPY_MISSING:
            with pytest.raises(KeyError):
                X.numpy_float32(op, x)
            continue
        assert X.numpy_float32(op, x).shape == x.shape
    (measured,) = X.check_range("numpy-float32", "exp:Float32", 0x3F800000, 0x3F800000 + 65536)
    assert measured.inputs == 65536 and measured.max_ulp >= 0


def test_cli_exhaustive_shard_summary_and_table(tmp_path, capsys):
    state = tmp_path / "s.jsonl"
    code = cli_main(
        [
            "exhaustive",
            "--backend",
            "cpu",
            "--op",
            "neg,exp",
            "--dtype",
            "Float32",
            "--shard",
            "1234/65536",
            "--state",
            str(state),
            "--no-progress",
            "--also",
            "numpy-float32",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "CONFORMS: cpu neg:Float32" in out and "65,536 checked" in out
    assert "CERTIFIED" not in out  # a shard is not all 2**32 inputs
    markdown, js = tmp_path / "t.md", tmp_path / "t.json"
    code = cli_main(
        [
            "exhaustive",
            "--backend",
            "numpy-float32",
            "--op",
            "exp",
            "--table",
            "--dtype",
            "Float32",
            "--state",
            str(state),
            "--markdown",
            str(markdown),
            "--json",
            str(js),
        ]
    )
    assert code == 3  # a sample is not a complete verdict
    assert "| exp:Float32 | 65,536 |" in markdown.read_text()
    assert json.loads(js.read_text())["plans"][0]["inputs"] == 65536
    capsys.readouterr()
    certification = ["exhaustive", "--certification", "--op", "neg,exp,sin", "--dtype", "Float32"]
    code = cli_main([*certification, "--also", "numpy-float32", "--state", str(state)])
    rows = {line.split(" | ")[0][2:]: line for line in capsys.readouterr().out.splitlines()}
    assert code == 3  # sin was not run
    # 65,536 inputs, 0 non-conforming, max 0 ULP; numpy's measured figures beside them
    assert rows["neg:Float32"].startswith(
        "| neg:Float32 | sample, 0.00% | 65,536 | 0 | 0 | <= 0.5 | 0 | 0 "
    )
    assert rows["exp:Float32"].startswith("| exp:Float32 | sample, 0.00% | 65,536 | 0 | 0 |")
    assert "not run" in rows["sin:Float32"]
    assert cli_main(["exhaustive", "--op", "nosuch", "--state", str(state)]) == 2


@pytest.mark.parametrize("op", ["floor", "ceil", "round"])
def test_to_integral_around_every_binade_that_changes_the_rule(op):
    """All patterns near 0.5, 1, 2**22, 2**23 and 2**24 (both signs), against the scalar rule."""
    starts = [to_bits(v) - 1024 for v in (0.5, 1.0, 1.5, 2.0**22, 2.0**23, 2.0**24)]
    starts += [s | 0x80000000 for s in starts]
    bits = np.concatenate([np.arange(s, s + 2048, dtype=np.uint32) for s in starts])
    x = bits.view(np.float32)
    _assert_same(op, x, V.certified(op, x), _scalar_reference(op, x))


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_certified_binary_matches_the_exact_rules(op):
    from conformance.generate.corpus import level_operands

    a, b = level_operands(1, 2)
    rng = np.random.default_rng(21)
    pick = rng.choice(a.size, 5000, replace=False)
    extra = rng.integers(0, 2**32, (2, 3000), dtype=np.uint64).astype(np.uint32).view(np.float32)
    a = np.concatenate([a[pick], extra[0], np.float32([1.0, 2.0**-126, 3.0])])
    b = np.concatenate([b[pick], extra[1], np.float32([2.0**-24, -(2.0**-150), 7.0])])
    got = V.certified_binary(op, a, b)
    with np.errstate(invalid="ignore"):
        pairs = zip(a.astype(np.float64).tolist(), b.astype(np.float64).tolist())
    want = np.array([getattr(exact, op)(x, y) for x, y in pairs], np.float32)
    _assert_same(op, a, got, want)
    assert X.count_mismatches(want, got) == (0, 0)


def test_sampled_shards_are_evenly_spread():
    assert X.sampled_shards(8) == list(range(8))
    assert X.sampled_shards(4096, 64) == list(range(32, 4096, 64))
    starts = [X.shard_range(i, 4096)[0] for i in X.sampled_shards(4096, 64)]
    assert len(starts) == 64 and all(b - a == 64 << 20 for a, b in itertools.pairwise(starts))


@pytest.mark.parametrize("sample", [2, 64, 4096])
def test_a_sample_takes_a_slice_of_every_binade(sample):
    count = X.default_shards(None, sample)
    assert X.default_shards(None, 1) == X.DEFAULT_SHARDS and X.default_shards(7, sample) == 7
    binades = set()
    for index in X.sampled_shards(count, sample):
        start, stop = X.shard_range(index, count)
        assert stop - start == (1 << 23) // sample
        binades.add(start >> 23)  # sign and exponent field
    assert binades == set(range(512))  # both signs, subnormals, every exponent, inf/NaN


class _NumpyExchange:
    """A backend with the optional fast exchange; it records that it was used."""

    name = "exchange"

    def __init__(self):
        import backends

        self.cpu = backends.get("cpu")
        self.exchanged = 0

    def from_tensor(self, tensor):  # the slow path must not be taken
        raise AssertionError("the sweep went through oracle.Tensor")

    def to_tensor(self, native):
        raise AssertionError("the sweep went through oracle.Tensor")

    def from_numpy(self, array):
        self.exchanged += 1
        return array.copy()

    def to_numpy(self, native):
        return np.asarray(native)

    def execute(self, operation, *args, **options):
        return self.cpu.execute(operation, *args, **options)


def test_the_fast_exchange_keeps_signalling_nans():
    from conformance.host.server import sweep_call  # the host's side of the sweep

    backend = _NumpyExchange()
    x = np.array([0x7F800001, 0xFF800001, 0x7FA00000, 0x3F800000], np.uint32).view(np.float32)
    out = sweep_call(backend, "neg", x)
    assert backend.exchanged == 1
    assert out.view(np.uint32).tolist() == [0xFF800001, 0x7F800001, 0xFFA00000, 0xBF800000]
    for hosted in ("test_exhaustive_unit:_NumpyExchange", "generic"):  # both exchanges
        run = X.runner(hosted)
        assert run("neg", x).view(np.uint32).tolist() == out.view(np.uint32).tolist()
        (result,) = X.check_range(hosted, "neg:Float32", 0x7F800000, 0x7F800000 + 4096)
        assert result.non_conforming == 0 and not result.environment


class _Into:
    """A backend with the optional result buffer (``execute_into``); *how* it treats
    *out*: ``"into"`` computes into it, ``"elsewhere"`` returns a new array and leaves
    *out* alone, ``"scribble"`` writes garbage into *out* and returns a new array."""

    name = "into"
    how = "into"

    def __init__(self):
        import backends

        self.cpu = backends.get("cpu")
        self.outs = []  #: the out of each call

    def from_tensor(self, tensor):
        raise AssertionError("the sweep went through oracle.Tensor")

    def to_tensor(self, native):
        raise AssertionError("the sweep went through oracle.Tensor")

    def from_numpy(self, array):
        return array

    def to_numpy(self, native):
        return np.asarray(native)

    def execute(self, operation, *args, **options):
        return self.cpu.execute(operation, *args, **options)

    def execute_into(self, operation, *args, out, **options):
        self.outs.append(out)
        if self.how == "into":
            return self.cpu.execute_into(operation, *args, out=out, **options)
        if self.how == "scribble":
            out.view(np.uint8)[:] = 0xA5
        return self.cpu.execute(operation, *args, **options)


class _IntoWrongDtype(_Into):
    """Deviates from the plan: logical_not returns float32 (0.0 / 1.0), so its
    ``execute_into`` refuses the plan's Bool *out*, as the CPU backend's would."""

    def execute(self, operation, *args, **options):
        result = self.cpu.execute(operation, *args, **options)
        return result.astype(np.float32) if operation == "logical_not" else result

    def execute_into(self, operation, *args, out, **options):
        self.outs.append(out)
        result = self.execute(operation, *args, **options)
        if result.dtype != out.dtype:
            raise ValueError(f"out is {out.dtype}, the result {result.dtype}")
        out[...] = result
        return out


def test_a_backend_refusing_the_plans_out_is_judged_by_its_plain_call():
    (result,) = X.check_range("test_exhaustive_unit:_IntoWrongDtype", "logical_not:Float32",
                              0x3F800000, 0x3F800000 + 4096)  # fmt: skip
    assert result.non_conforming == 4096
    assert result.error == "backend returned float32[4096], expected bool[4096]"
    (fine,) = X.check_range("test_exhaustive_unit:_IntoWrongDtype", "exp:Float32",
                            0x3F800000, 0x3F800000 + 4096)  # fmt: skip
    assert fine.ok


class _IntoElsewhere(_Into):
    how = "elsewhere"


class _IntoScribble(_Into):
    how = "scribble"


@pytest.mark.parametrize("label", ["_Into", "_IntoElsewhere", "_IntoScribble"])
@pytest.mark.parametrize(("plan", "start"), [("exp:Float32", 0x42AE0000),
                                             ("logical_not:Float32", 0x7F7FF000),
                                             ("exp:Int32", 0xFFFFF000)])  # fmt: skip
def test_the_host_offers_its_shared_memory_as_the_result_buffer(label, plan, start):
    from conformance.exhaustive.compare import split_plan
    from conformance.host.segment import Segment
    from conformance.host.server import Host

    op, dtype = split_plan(plan)
    numpy_dtype = "<f4" if dtype == "Float32" else "<i4"
    host = Host()
    host.load(f"test_exhaustive_unit:{label}")
    segment = Segment.create(1 << 16)
    try:
        reply = host.sweep(op, segment.name, numpy_dtype, 4096, start)
        where, result_dtype, shape = reply["result"]
        assert where == "segment" and shape == (4096,) and "raised" not in reply
        got = segment.view(result_dtype, 4096, output=True)
        patterns = V.bit_patterns(start, start + 4096).view(numpy_dtype)
        expected = host.backend.cpu.execute(op, patterns)
        assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()
        (out,) = host.backend.outs  # offered once: the segment's outputs half, typed
        assert out.dtype == expected.dtype and out.shape == (4096,)
        attached = host.segments[segment.name]  # the host's mapping of the judge's segment
        assert out.ctypes.data == attached.view(np.uint8, 1, output=True).ctypes.data
    finally:
        for attached in host.segments.values():
            attached.close()
        if sys.version_info < (3, 13):  # attaching here dropped the owner's registration
            resource_tracker.register(segment.memory._name, "shared_memory")
        segment.close()
    (checked,) = X.check_range(f"test_exhaustive_unit:{label}", plan, start, start + 4096)
    assert checked.ok and checked.non_conforming == 0
