"""Accuracy in the surveys' measure: the largest real error in ulps, with its input.

The published libm surveys give ``|y - f(x)|`` in ulps of the exact value
``f(x)``; plancheck's integer distance to the correctly rounded value is kept
beside it.  The worst input is the one with the largest real error, not the
first one at the largest integer distance.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, getcontext

import numpy as np
import pytest

from conformance import exhaustive as X
from conformance.cli import main as cli_main
from conformance.exhaustive import ulp_error
from conformance.exhaustive.summary import certified_error
from oracle import vectorised as V
from oracle.binary32 import from_bits, to_bits

#: e to 40 digits (a constant, not a library's evaluation)
E = Decimal("2.718281828459045235360287471352662497757")


def test_ulp_is_the_binary32_spacing_of_the_exact_values_binade():
    values = np.array([1.0, 1.9999999, 2.0, 3.0, 2.0**-126, 2.0**-127, 0.0, -6.0, 2.0**127])
    expected = [2.0**-23, 2.0**-23, 2.0**-22, 2.0**-22, 2.0**-149, 2.0**-149, 2.0**-149,
                2.0**-21, 2.0**104]  # fmt: skip
    assert ulp_error.ulp(values).tolist() == expected


def test_real_error_of_one_result_against_a_constant():
    getcontext().prec = 40
    correct = 0x402DF854  # exp(1) correctly rounded
    for bits in (correct, correct + 1, correct - 2):
        y = Decimal(from_bits(bits))
        want = float(abs(y - E) / Decimal(2.0**-22))  # [2, 4): ulp 2**-22
        got = ulp_error.real_error("exp", 1.0, from_bits(bits), from_bits(correct))
        assert got == pytest.approx(want, rel=1e-12)
    assert ulp_error.real_error("exp", 1.0, from_bits(correct), from_bits(correct)) < 0.5
    assert ulp_error.real_error("exp", 88.0, math.inf, 1.6516363e38) == math.inf
    assert math.isnan(ulp_error.real_error("log", -1.0, 0.0, math.nan))


def test_the_vectorised_errors_agree_with_mpmath_within_the_oracles_bound():
    x = np.array([0.1, 1.0, 7.5, -3.25, 80.0, -100.0], np.float32)
    for op in ("exp", "sin", "tanh", "sigmoid", "gelu", "log2", "rsqrt", "elu"):
        expected = V.certified(op, np.abs(x) if op in ("log2", "rsqrt") else x)
        inputs = np.abs(x) if op in ("log2", "rsqrt") else x
        actual = np.nextafter(expected, np.float32(np.inf))
        fast, ambiguous = ulp_error.errors(actual, ulp_error.exact_float64(op, inputs, expected))
        for xi, ai, ei, fi, unsure in zip(inputs, actual, expected, fast, ambiguous):
            slow = ulp_error.real_error(op, float(xi), float(ai), float(ei))
            if unsure:  # a power of two in float64: an upper bound, exact from below
                assert slow <= fi * (1 + 1e-8), (op, xi)
            else:  # within the oracle's stated bound B u, in ulps (|f| / ulp(f) < 2**24)
                bound = float(np.max(V.error_bound(op, np.float64(xi)))) * 2.0**-53 * 2.0**24
                assert abs(fi - slow) <= bound, (op, xi)
                assert bound < 1e-4  # far below the 4th digit of any error >= 0.5 (ranking)
    # sigmoid(80) is just below 1: one ulp above 1.0 is 2 ulps (of 2**-24) away
    (fast,), (unsure,) = ulp_error.errors(np.float32([1 + 2**-23]), np.array([1.0]))
    assert unsure and fast == 2.0
    assert ulp_error.real_error("sigmoid", 80.0, 1 + 2**-23, 1.0) == pytest.approx(2.0)


def test_an_ambiguous_worst_is_settled_by_mpmath():
    start = to_bits(80.0)  # sigmoid rounds to 1.0 here; its float64 value is 1.0 exactly
    (result,) = X.check_range(_perturbed(set(range(start, start + 8))), "sigmoid:Float32",
                              start, start + 4096)  # fmt: skip
    assert result.max_ulp == 1 and result.max_error == pytest.approx(2.0, abs=1e-9)


def _perturbed(positions: set[int]):
    """A backend that is the reference, one ULP up at the given bit patterns."""

    def run(op: str, x: np.ndarray) -> np.ndarray:
        out = V.certified(op, x)
        bits = x.view(np.uint32)
        hit = np.isin(bits, np.fromiter(positions, np.uint32))
        out[hit] = np.nextafter(out[hit], np.float32(np.inf))
        return out

    return run


def test_the_worst_input_is_the_worst_not_the_first_at_that_distance():
    start = to_bits(1.0)
    chosen = set(range(start, start + 4096, 37))
    (result,) = X.check_range(_perturbed(chosen), "exp:Float32", start, start + 4096)
    assert result.max_ulp == 1 and result.not_correctly_rounded == len(chosen)
    points = np.array(sorted(chosen), np.uint32)
    x = points.view(np.float32)
    correct = V.certified("exp", x)
    up = np.nextafter(correct, np.float32(np.inf))
    errors = {
        int(p): ulp_error.real_error("exp", float(xi), float(u), float(c))
        for p, xi, u, c in zip(points, x, up, correct)
    }
    worst = max(errors, key=errors.get)
    assert worst != min(chosen)  # the first one at distance 1 is not the worst
    assert result.worst_error[0] == worst and result.worst[0] == worst
    assert result.max_error == pytest.approx(errors[worst], rel=1e-9)
    assert 1.0 < result.max_error < 1.5


def _record(plan: str, shard: int, worst: int, error: float) -> dict:
    start, stop = X.shard_range(shard, 65536)
    result = X.ShardResult("numpy-float32", plan, start, stop, shard, 65536, inputs=stop - start,
                           non_conforming=1, not_correctly_rounded=1, max_ulp=1,
                           worst=[worst, 0, 1, 1, error], max_error=error,
                           worst_error=[worst, 0, 1, error], role="measured")  # fmt: skip
    return X.to_record(result)


def test_a_summary_keeps_the_worst_real_error_over_its_records():
    plan = "exp:Float32"
    records = [_record(plan, 100, 0x100, 0.7), _record(plan, 200, 0x200, 1.3),
               _record(plan, 300, 0x300, 0.9)]  # fmt: skip
    (summary,) = X.summarise(records, "numpy-float32")
    assert summary.max_error == 1.3 and summary.worst_error[0] == 0x200
    assert summary.worst[0] == 0x200  # at the same distance, the largest real error


def test_the_table_prints_the_real_error_to_4_digits_with_its_input(tmp_path, capsys):
    state = tmp_path / "s.jsonl"
    shard = X.shard_of(to_bits(1.0), 4096)
    args = ["exhaustive", "--backend", "numpy-float32", "--op", "exp,neg", "--dtype", "Float32",
            "--state", str(state), "--no-progress"]  # fmt: skip
    assert cli_main([*args, "--shard", f"{shard}/4096"]) == 1  # numpy's exp is not exact
    out = capsys.readouterr().out
    assert re.search(r"wall time \d+\.\d s \(this run\), worker time \d+\.\d s", out)
    assert cli_main([*args, "--table", "--json", str(tmp_path / "t.json")]) == 1
    table = capsys.readouterr().out
    row = next(line for line in table.splitlines() if line.startswith("| exp:Float32"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    error, worst, distance = cells[3], cells[4], cells[5]
    (summary,) = [s for s in X.summarise(X.load_state(state), "numpy-float32")
                  if s.plan == "exp:Float32"]  # fmt: skip
    assert error == f"{certified_error(summary):#.4g}" and len(error.replace(".", "")) >= 4
    assert float(error) != int(distance)  # the real error, not the integer distance
    assert worst.startswith(f"0x{summary.worst_error[0]:08X} (")
    neg = next(line for line in table.splitlines() if line.startswith("| neg:Float32"))
    assert "| <= 0.5 |" in neg


def test_table_under_another_budget_says_where_the_records_are(tmp_path, capsys):
    state = tmp_path / "s.jsonl"
    args = ["exhaustive", "--op", "neg", "--dtype", "Float32", "--state", str(state)]
    assert cli_main([*args, "--shard", "9/65536", "--no-progress"]) == 0
    capsys.readouterr()
    assert cli_main([*args, "--table", "--ulp-budget", "2"]) == 3
    err = capsys.readouterr().err
    assert "no records of cpu under --ulp-budget 2 for neg:Float32" in err
    assert "exist under --ulp-budget 0" in err
    assert cli_main([*args, "--table"]) == 3  # found: a sample, so incomplete, not absent
    captured = capsys.readouterr()
    assert "| neg:Float32 | 65,536 |" in captured.out and "no records" not in captured.err
    assert cli_main([*args, "--certification", "--ulp-budget", "2"]) == 3
    assert "exist under --ulp-budget 0" in capsys.readouterr().err
