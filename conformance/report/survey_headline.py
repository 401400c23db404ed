"""A library's survey headline, generated from its report (issue 28, item 3).

The hand-written headlines missed the worst cases and mislabelled witnesses.  This
module writes the sentence from the report's data only:

* the classes, and their counts by authority when the classes carry one (issue 27's
  ``authority`` field on each class record; a report without it says so);
* the worst recorded witness whose correct result is a normal number: its operation,
  its inputs, the library's result and the correct one with their bits, the ULP
  distance and the real (absolute and relative) error;
* the largest ULP distance of any class (over the corpus, whose cases are counted but
  not listed: its input is the class's example when that is the worst, else unknown);
* the configuration that changes results, from the report's ``configuration`` field
  (:mod:`conformance.model.configuration`; ``jax_enable_x64``, threads, device,
  flushing) when present, else the recorded version line.

Witnesses are labelled exactly: every float with its bits, every Python int in full
(with its powers of two when it has three set bits or fewer: ``2**54 + 2**30 + 1``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = [
    "Witness",
    "authority_counts",
    "configuration_phrase",
    "headline",
    "headline_classes",
    "label_float32",
    "label_inputs",
    "label_integer",
    "library_classes",
    "not_measured_counts",
    "worst_witness",
]

_MIN_NORMAL = 2.0**-126
_INT_INPUT = re.compile(r"^int (-?\d+)( \(.*\))?$")
_FRACTION_INPUT = re.compile(r"^Fraction (-?\d+)/(\d+)$")
#: a Float32 element as the report prints it: a decimal (with '.', 'e', inf or nan) and bits
_FLOAT32_INPUT = re.compile(r"^(-?(?:[\d.]+(?:e[+-]?\d+)?|inf|nan)) \(0x([0-9A-Fa-f]{8})\)$")


def _float(bits: int) -> float:
    return float(np.array([bits], dtype=np.uint32).view(np.float32)[0])


def label_float32(bits: int) -> str:
    """A binary32 value as its shortest decimal and its bits: ``-15.787513 (0xC17C99A7)``."""
    value = np.array([bits], dtype=np.uint32).view(np.float32)[0]
    return f"{value!s} (0x{bits:08X})"  # numpy's str: the shortest float32 round-trip


def label_integer(n: int) -> str:
    """*n* exactly: in decimal, preceded by its powers of two when it is a sum or
    difference of at most three (``2**54 + 2**30 + 1 (18014399583223809)``,
    ``2**31 - 1 (2147483647)``)."""
    magnitude, sign = abs(n), "-" if n < 0 else ""
    if magnitude < 2**16:
        return str(n)

    def powers(m: int) -> list[int]:
        return [b for b in range(m.bit_length() - 1, -1, -1) if m >> b & 1]

    def term(b: int) -> str:
        return "1" if b == 0 else "2" if b == 1 else f"2**{b}"

    up = powers(magnitude)
    if len(up) <= 3:
        text = " + ".join(term(b) for b in up)
    elif len(powers(magnitude + 1)) == 1:  # 2**k - 1
        text = f"{term(powers(magnitude + 1)[0])} - 1"
    else:
        return str(n)
    return f"{sign}({text}) ({n})" if sign else f"{text} ({n})"


def label_inputs(text: str) -> str:
    """A mismatch's ``inputs`` text with each Python int and integral Fraction labelled
    by :func:`label_integer` and each Float32 element by :func:`label_float32` (its
    shortest float32 decimal; Int32 elements and other tokens are kept as printed)."""
    parts = []
    for part in (p.strip() for p in text.split(", ")):
        whole, fraction = _INT_INPUT.match(part), _FRACTION_INPUT.match(part)
        element = _FLOAT32_INPUT.match(part)
        if element and any(c in element[1] for c in ".ein"):
            parts.append(label_float32(int(element[2], 16)))
        elif whole:
            parts.append(f"int {label_integer(int(whole[1]))}{whole[2] or ''}")
        elif fraction and int(fraction[2]) == 1:
            parts.append(f"Fraction {label_integer(int(fraction[1]))}")
        else:
            parts.append(part)
    return ", ".join(parts)


@dataclass(frozen=True)
class Witness:
    """One listed element of a failing call: where, the inputs, and the two results."""

    operation: str
    inputs: str
    expected_bits: int
    actual_bits: int
    ulp: int
    #: ``operation@class`` of the class it was listed in (None: a failure record's element)
    key: str | None = None

    @property
    def error(self) -> Fraction:
        """The real (absolute) error, exactly (both results are finite: see
        :func:`worst_witness`)."""
        return abs(Fraction(_float(self.actual_bits)) - Fraction(_float(self.expected_bits)))

    def describe(self) -> str:
        expected = Fraction(_float(self.expected_bits))
        relative = f", relative {float(self.error / abs(expected)):.3g}" if expected else ""
        return (
            f"{self.operation}({label_inputs(self.inputs)}) = {label_float32(self.actual_bits)} "
            f"for {label_float32(self.expected_bits)}: {self.ulp:,} ULP, real error "
            f"{float(self.error):.3g}{relative}"
        )


def library_classes(
    report: Mapping[str, Any], backend: str | None = None
) -> list[Mapping[str, Any]]:
    """The deviation classes of *backend* that are the library's: those of the adapter's
    composition (``composed``, issue 27) are left out."""
    return [
        c
        for c in report.get("deviation_classes") or ()
        if (backend is None or c.get("backend", backend) == backend) and not c.get("composed")
    ]


_BITS = re.compile(r"\(0x([0-9A-Fa-f]{8})\)\s*$")


def _labelled(text: Any) -> str:
    """A report's ``"<decimal> (0x<bits>)"`` element as :func:`label_float32` writes it."""
    found = _BITS.search(str(text))
    return label_float32(int(found[1], 16)) if found else str(text)


def _worst_mismatch(c: Mapping[str, Any]) -> dict[str, Any] | None:
    """A class's ``worst`` record (its largest ULP distance over every case, with its
    inputs) as a mismatch, or None when the report has none or it is not a Float32 one."""
    worst = c.get("worst")
    if not isinstance(worst, Mapping):
        return None
    expected, actual = (
        _BITS.search(str(worst.get("expected", ""))),
        _BITS.search(str(worst.get("actual", ""))),
    )
    if expected is None or actual is None:
        return None
    return {
        "ulp": worst.get("ulp"),
        "inputs": worst.get("inputs", ""),
        "expected_bits": int(expected[1], 16),
        "actual_bits": int(actual[1], 16),
        "rule": c.get("rule", ""),
    }


def _mismatches(
    report: Mapping[str, Any], backend: str | None = None
) -> Iterator[tuple[str, Mapping[str, Any], str | None]]:
    composed = {c["operation"] for c in report.get("deviation_classes") or () if c.get("composed")}
    accuracy = {  # a failure record's element counts for its operation's accuracy class
        c["operation"]: f"{c['operation']}@{c['class']}"
        for c in library_classes(report, backend)
        if c.get("class") in ACCURACY_CLASSES
    }
    for record in report.get("failures") or ():
        if record.get("operation") in composed:
            continue
        for m in record.get("mismatches") or ():
            operation = record.get("operation", "?")
            yield operation, m, accuracy.get(operation)
    for c in library_classes(report, backend):
        for m in c.get("example", {}).get("mismatches") or ():
            yield c["operation"], m, f"{c['operation']}@{c['class']}"
        worst = _worst_mismatch(c)
        if worst is not None:
            yield c["operation"], worst, f"{c['operation']}@{c['class']}"


def worst_witness(
    report: Mapping[str, Any], normal_only: bool = True, backend: str | None = None
) -> Witness | None:
    """The listed element with the largest ULP distance (ties: the first listed) among
    the inaccurate ones: judged by a correctly rounded rule, both results finite,
    nonzero and of the same sign (a wrong sign, a zero, a NaN or an infinity is a class
    of its own, not an accuracy) -- and, with *normal_only*, the correct result a normal
    number.  The elements are the listed ones (failures, class examples) and each
    class's ``worst`` case (its inputs recorded); the adapter's compositions are left
    out."""
    best: Witness | None = None
    for operation, m, key in _mismatches(report, backend):
        ulp, e, a = m.get("ulp"), m.get("expected_bits"), m.get("actual_bits")
        if not isinstance(ulp, int) or not isinstance(e, int) or not isinstance(a, int):
            continue
        if not str(m.get("rule", "")).startswith("correctly rounded"):
            continue
        value, got = _float(e), _float(a)
        if not (np.isfinite(value) and np.isfinite(got)) or (e ^ a) & 0x80000000 or got == 0:
            continue
        if normal_only and abs(value) < _MIN_NORMAL:
            continue
        if best is None or ulp > best.ulp:
            best = Witness(operation, str(m.get("inputs", "")), e, a, ulp, key)
    return best


def authority_counts(report: Mapping[str, Any], backend: str | None = None) -> Counter[str] | None:
    """The library's classes by their ``authority`` (issue 27); None when no class
    carries one."""
    classes = library_classes(report, backend)
    if not any("authority" in c for c in classes):
        return None
    return Counter(str(c.get("authority") or "unrecorded") for c in classes)


#: the accuracy classes: a result of the right kind that is not the correctly rounded one
ACCURACY_CLASSES = ("wrong-value:accuracy", "wrong-value:1-ulp", "wrong-value:many-ulps")
#: the authorities in the order the sentence counts them
AUTHORITY_ORDER = ("specification", "reference", "convention")


def _largest_class(
    report: Mapping[str, Any], backend: str | None = None
) -> Mapping[str, Any] | None:
    """The library's accuracy class with the largest ULP distance (over all its cases).

    A report of issue 27's judge folds accuracy into ``wrong-value:accuracy`` (a correctly
    rounded operation's only); there, a ``many-ulps`` class is another cause (an order, a
    bound applied last) and is not ranked."""
    classes = library_classes(report, backend)
    folded = any(c.get("class") == "wrong-value:accuracy" for c in classes)
    accepted = ("wrong-value:accuracy",) if folded else ACCURACY_CLASSES
    ranked = [
        c
        for c in classes
        if c.get("class") in accepted
        and not str(c.get("operation", "_")).startswith("_")  # sort/topk: an order, not a value
        and isinstance(c.get("max_ulp"), int)
    ]
    return max(ranked, key=lambda c: c["max_ulp"], default=None)


def _device(found: Any) -> str | None:
    if isinstance(found, list):
        return ", ".join(str(d) for d in found) or None
    return None if found in (None, "") or isinstance(found, Mapping) else str(found)


def _pool(pool: Mapping[str, Any]) -> str:
    """A threadpoolctl pool: ``openblas 0.3.31 (numpy's) 2``; the package is the folder
    that holds the library (``paddle/libs/libiomp5.so``: paddle's)."""
    parts = str(pool.get("filepath") or "").replace(chr(92), "/").split("/")[:-1]
    while parts and parts[-1] in ("libs", "lib", "lib64"):
        parts.pop()
    package = parts[-1].removesuffix(".libs") if parts else "?"
    if str(pool.get("filepath") or "").startswith(("/usr/", "/lib")):
        package = "the system"
    version = f" {pool['version']}" if pool.get("version") else ""
    return f"{pool.get('internal_api')}{version} ({package}'s) {pool.get('num_threads')}"


def _thread_phrases(threads: Mapping[str, Any]) -> list[str]:
    """Each pool with its size (0: the library's default, one per core)."""
    found = []
    for name in ("intra_op", "inter_op"):
        n = threads.get(name)
        if isinstance(n, int):
            found.append(f"{name.replace('_', '-')} {n}{' (its default)' if n == 0 else ''}")
    math = threads.get("cpu_math_library")
    if isinstance(math, Mapping):
        found += [f"cpu math {v}" for v in math.values() if isinstance(v, int)]
    blas = threads.get("blas_openmp")
    if isinstance(blas, list):
        found += [_pool(p) for p in blas if isinstance(p, Mapping)]
    return found


def configuration_phrase(report: Mapping[str, Any], backend: str) -> str:
    """What the library computed under, from the report's ``configuration`` record of
    *backend* (the settings that change results: device, every thread pool, x64,
    TF32, flushing), else its recorded version line."""
    found = (report.get("configuration") or {}).get(backend)
    if not isinstance(found, Mapping):
        version = (report.get("backend_versions") or {}).get(backend)
        return f"version recorded as {version!r}; configuration not recorded"
    parts = [f"{found.get('library', backend)} {found.get('version', '?')}"]
    device = _device(found.get("device"))
    if device:
        parts.append(f"device {device}")
    threads = found.get("threads") or {}
    pools = _thread_phrases(threads)
    own = any(k in threads for k in ("intra_op", "inter_op", "cpu_math_library"))
    if not own:
        pools.insert(0, "its own pool at its default (not readable)")
    if not isinstance(threads.get("blas_openmp"), list):
        pools.append("BLAS/OpenMP pools not recorded")
    parts.append("threads: " + ", ".join(pools))
    flags = found.get("flags") or {}
    if "jax_enable_x64" in flags:
        on = flags["jax_enable_x64"] is True
        parts.append("jax_enable_x64 on" if on else "jax_enable_x64 off (its default)")
    if flags.get("tensor_float_32") is True:
        gpu = any("GPU" in str(d).upper() for d in (found.get("device") or ()))
        parts.append("TF32 enabled" if gpu else "TF32 flag on (GPU only: no effect on this CPU)")
    if flags.get("flushes_subnormals") is True or flags.get("process_flushes_subnormals") is True:
        parts.append("subnormals flushed inside its operations (FTZ/DAZ)")
    return ", ".join(parts)


def not_measured_counts(report: Mapping[str, Any], backend: str) -> tuple[int, int]:
    """(calls, operations) of *backend* its adapter could not map (``NotMeasured``)."""
    entries = (report.get("not_measured") or {}).get(backend) or ()
    calls = sum(int(e.get("count") or 0) for e in entries)
    return calls, len({e.get("operation") for e in entries})


def headline_classes(report: Mapping[str, Any], backend: str) -> list[str]:
    """The classes (``operation@class``) the sentence names: the least accurate result's
    and the largest accuracy distance's, when the sentence names them."""
    found = []
    worst = worst_witness(report, backend=backend)
    if worst is not None and worst.key:
        found.append(worst.key)
    largest = _largest_class(report, backend)
    if largest is not None and (worst is None or largest["max_ulp"] > worst.ulp):
        found.append(f"{largest['operation']}@{largest['class']}")
    return list(dict.fromkeys(found))


def headline(report: Mapping[str, Any], backend: str | None = None) -> str:
    """The survey's sentence for *backend* (default: the report's only backend).

    It counts the library's classes only (the adapter's compositions are named apart),
    by authority -- a ``convention`` class is a difference from plancheck's choice
    where the specification is silent, not a violation -- and says how many calls
    were not measured."""
    backend = backend or (report.get("backends") or ["?"])[0]
    classes = library_classes(report, backend)
    everything = [
        c for c in report.get("deviation_classes") or () if c.get("backend", backend) == backend
    ]
    operations = {c["operation"] for c in classes}
    total = (report.get("totals") or {}).get(backend, {}).get("operations")
    of = f" of {total}" if isinstance(total, int) else ""
    parts = [f"{len(classes)} deviation classes in {len(operations)}{of} operations"]
    counts = authority_counts(report, backend)
    if counts:
        known = [a for a in AUTHORITY_ORDER] + sorted(set(counts) - set(AUTHORITY_ORDER))
        parts.append("by authority: " + ", ".join(f"{counts.get(a, 0)} {a}" for a in known))
    else:
        parts.append("authority not recorded")
    composed = len(everything) - len(classes)
    if composed:
        parts.append(f"{composed} more in the adapter's compositions (not the library's)")
    calls, ops = not_measured_counts(report, backend)
    if calls:
        parts.append(f"{calls:,} calls in {ops} operations not measured (no mapping)")
    worst = worst_witness(report, backend=backend)
    if worst is not None:
        parts.append(f"least accurate result measured (a normal number): {worst.describe()}")
    largest = _largest_class(report, backend)
    if largest is not None and (worst is None or largest["max_ulp"] > worst.ulp):
        recorded = largest.get("worst")
        worst_case: Mapping[str, Any] = recorded if isinstance(recorded, Mapping) else {}
        where = (
            f"at {largest['operation']}({label_inputs(str(worst_case['inputs']))}) = "
            f"{_labelled(worst_case.get('actual'))} for {_labelled(worst_case.get('expected'))}"
            if worst_case.get("inputs") and worst_case.get("ulp") == largest["max_ulp"]
            else "that input is not listed"
        )
        parts.append(
            f"largest ULP distance of an accuracy class: {largest['operation']} "
            f"{largest['max_ulp']:,} ULP ({largest['class']}, over {largest.get('count', '?')}"
            f" cases; {where})"
        )
    parts.append(f"measured with {configuration_phrase(report, backend)}")
    return f"**`{backend}`**: " + "; ".join(parts)
