"""conformance/report/survey_headline.py: a library's headline written from its report."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from conformance.model.configuration import record
from conformance.report import survey_headline as sh

BACKENDS = Path(__file__).resolve().parents[1] / "docs" / "backends"
LIBRARIES = [
    "numpy-native", "torch", "jax", "tensorflow", "onnxruntime", "paddle", "array-api-strict",
    "mlx",
]  # fmt: skip


def _report(backend: str) -> dict:
    return json.loads((BACKENDS / f"{backend}.json").read_text())


def _bits(value: float) -> int:
    return int(np.array([value], dtype=np.float32).view(np.uint32)[0])


def _mismatch(expected: float, actual: float, ulp: int, rule="correctly rounded (0 ULP budget)"):
    return {"inputs": "0.5 (0x3F000000)", "expected_bits": _bits(expected),
            "actual_bits": _bits(actual), "ulp": ulp, "rule": rule}  # fmt: skip


def _synthetic(*mismatches, classes=()) -> dict:
    return {
        "backends": ["lib"],
        "failures": [{"operation": "exp", "mismatches": list(mismatches)}],
        "deviation_classes": list(classes),
        "backend_versions": {"lib": "lib 1.0"},
    }


@pytest.mark.parametrize(
    ("n", "label"),
    [
        (18014399583223809, "2**54 + 2**30 + 1 (18014399583223809)"),
        (2**54 + 1, "2**54 + 1 (18014398509481985)"),
        (2**31 - 1, "2**31 - 1 (2147483647)"),
        (-(2**31), "-(2**31) (-2147483648)"),
        (16777217, "2**24 + 1 (16777217)"),
        (12345, "12345"),
        (123456789123, "123456789123"),
    ],
)
def test_an_integer_witness_is_labelled_exactly(n: int, label: str) -> None:
    assert sh.label_integer(n) == label
    assert str(n) in label


def test_the_array_api_strict_witness_is_the_int_it_is() -> None:
    """The published witness of the weak-int double rounding is 2**54 + 2**30 + 1."""
    example = next(
        c["example"] for c in _report("array-api-strict")["deviation_classes"]
        if c["operation"] == "mul" and c["class"] == "wrong-value:1-ulp"
    )  # fmt: skip
    label = sh.label_inputs(example["mismatches"][0]["inputs"])
    assert "int 2**54 + 2**30 + 1 (18014399583223809)" in label
    assert "1.0 (0x3F800000)" in label


def test_inputs_keep_their_bits_and_int32_elements_are_untouched() -> None:
    text = "-2.980232594040899e-08 (0xB3000001), -453 (0xFFFFFE3B), Fraction 16777217/1"
    assert sh.label_inputs(text) == (
        "-2.9802326e-08 (0xB3000001), -453 (0xFFFFFE3B), Fraction 2**24 + 1 (16777217)"
    )


def test_the_witness_is_the_least_accurate_normal_result_not_a_special_value() -> None:
    report = _synthetic(
        _mismatch(1.0, 1.0000001, 1),
        _mismatch(2.0, -2.0, 2**31),  # a wrong sign: its own class
        _mismatch(1e-40, 3e-40, 10**6),  # a subnormal correct result
        _mismatch(0.25, 0.0, 10**9),  # a zero: its own class
        _mismatch(0.5, 0.5000305, 512),
        _mismatch(3.0, 3.5, 10**6, rule="exact"),  # not an accuracy rule
    )
    worst = sh.worst_witness(report)
    assert worst is not None and worst.ulp == 512
    assert worst.error == abs(Fraction(float(np.float32(0.5000305))) - Fraction(1, 2))
    assert sh.worst_witness(report, normal_only=False).ulp == 10**6  # the subnormal one


def test_the_real_error_is_exact() -> None:
    witness = sh.Witness("exp", "", _bits(1.0), _bits(1.0) + 1, 1)
    assert witness.error == Fraction(1, 2**23)
    assert "real error 1.19e-07, relative 1.19e-07" in witness.describe()


def test_authorities_are_counted_when_the_classes_carry_them() -> None:
    plain = _synthetic(classes=[{"operation": "exp", "class": "wrong-value:1-ulp"}])
    assert sh.authority_counts(plain) is None
    assert "authority not recorded" in sh.headline(plain)
    classes = [
        {"operation": "exp", "class": "wrong-value:1-ulp", "authority": "specification"},
        {
            "operation": "add",
            "class": "missing-exception:int32-result-overflow",
            "authority": "specification",
        },
        {
            "operation": "gather",
            "class": "wrong-exception:error-bad-axis",
            "authority": "convention",
        },
    ]
    counted = _synthetic(classes=classes)
    assert sh.authority_counts(counted) == {"specification": 2, "convention": 1}
    assert "by authority: 2 specification, 0 reference, 1 convention" in sh.headline(counted)


def test_the_adapters_compositions_and_unmapped_calls_are_not_the_librarys() -> None:
    classes = [
        {"operation": "exp", "class": "wrong-value:accuracy", "authority": "reference"},
        {"operation": "gelu", "class": "wrong-value:accuracy", "authority": "reference",
         "composed": "x * (1 + erf(x / sqrt(2))) / 2"},
    ]  # fmt: skip
    report = _synthetic(classes=classes)
    report["not_measured"] = {"lib": [
        {"operation": "sort", "message": "no descending sort", "count": 3},
        {"operation": "sort", "message": "other", "count": 2},
        {"operation": "topk", "message": "no k", "count": 1},
    ]}  # fmt: skip
    sentence = sh.headline(report, "lib")
    assert sentence.startswith("**`lib`**: 1 deviation classes in 1 ")
    assert "0 specification, 1 reference, 0 convention" in sentence
    assert "1 more in the adapter's compositions (not the library's)" in sentence
    assert "6 calls in 2 operations not measured" in sentence


def test_the_configuration_that_changes_results_is_part_of_the_sentence() -> None:
    report = _synthetic()
    assert sh.configuration_phrase(report, "lib") == (
        "version recorded as 'lib 1.0'; configuration not recorded"
    )
    report["configuration"] = {"lib": {
        "library": "jax", "version": "0.10.2", "device": ["cpu:0"],
        "threads": {"intra_op": 1}, "flags": {"jax_enable_x64": False, "flushes_subnormals": True},
    }}  # fmt: skip
    phrase = sh.configuration_phrase(report, "lib")
    assert phrase == (
        "jax 0.10.2, device cpu:0, threads: intra-op 1, BLAS/OpenMP pools not recorded, "
        "jax_enable_x64 off (its default), subnormals flushed inside its operations (FTZ/DAZ)"
    )
    report["configuration"]["lib"]["threads"] = {"blas_openmp": [
        {"internal_api": "openblas", "version": "0.3.31", "num_threads": 2,
         "filepath": "/v/site-packages/numpy.libs/libscipy_openblas64_.so"},
    ]}  # fmt: skip
    assert "threads: its own pool at its default (not readable), openblas 0.3.31 (numpy's) 2" in (
        sh.configuration_phrase(report, "lib")
    )
    report["configuration"] = {"lib": record("numpy")}  # the recorder's own format
    assert sh.configuration_phrase(report, "lib").startswith(f"numpy {np.__version__}, device cpu")


@pytest.mark.parametrize("backend", LIBRARIES)
def test_every_committed_report_gets_a_sentence_from_its_data(backend: str) -> None:
    report = _report(backend)
    sentence = sh.headline(report, backend)
    classes = [c for c in report["deviation_classes"] if not c.get("composed")]
    assert sentence.startswith(f"**`{backend}`**: {len(classes)} deviation classes")
    folded = any(c["class"] == "wrong-value:accuracy" for c in classes)  # issue 27's judge
    ranked = ("wrong-value:accuracy",) if folded else sh.ACCURACY_CLASSES
    accuracy = [
        c["max_ulp"] for c in classes
        if c["class"] in ranked and not c["operation"].startswith("_")
        and isinstance(c["max_ulp"], int)
    ]  # fmt: skip
    witness = sh.worst_witness(report, backend=backend)
    if accuracy and (witness is None or max(accuracy) > witness.ulp):
        assert f"{max(accuracy):,} ULP" in sentence
    if witness is not None:
        assert f"0x{witness.expected_bits:08X}" in sentence and f"{witness.ulp:,} ULP" in sentence
