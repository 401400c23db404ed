"""What every reproduction module beside a survey table shares (numpy and the standard library only).

A reproduction module (``docs/backends/<backend>_repro.py``; the contract is
``tests/test_survey_reproductions.py``) gives its library's own calls for the
operations (``CALLS``: operation -> a function of the plan and the decoded
arguments) and the cause of each published class (``CAUSES``:
``operation@class`` -> one of the checks below), then builds its
``REPRODUCTIONS`` with :func:`reproductions`.  Each reproduction re-runs the
class's minimal example from the report -- the same input bits -- through the
library alone, and fails (AssertionError) when the library now behaves as the
specification requires.

The checks, one per cause:

* :func:`wrong_value` -- an element of the result is not the required one,
  and differs from it the way the class says (``wrong-value:subnormal``: a
  subnormal was required and something else came; ``1-ulp``: one binary32
  step away; ``outside-interval``: outside the acceptance interval the report
  gives for a FLOATING sum ...).  The required bits are the report's
  expected bits (the reference's correctly rounded or exact value).  An
  example that deviated "only inside the corpus batch" is re-run with each
  tensor repeated, so the library takes its vectorised path.
* :func:`wrong_shape` -- the result's shape is not the required one.
* :func:`no_exception` -- the call returns (or raises something else) where
  the specification requires the exception the report names.
* :func:`other_exception` -- the call raises, but not the exception required.
* :func:`raises` -- the call raises where a value was required.
* :func:`warns` -- the call warns (an IEEE flag as a warning) where the
  specification forbids it.

This module is loaded by path (:func:`load`) by its siblings, so it never
needs to be on ``sys.path`` and imports nothing of plancheck.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import math
import re
import warnings
from collections.abc import Callable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent

_TENSOR_DTYPES = {"Float32": np.float32, "Int32": np.int32, "Bool": np.bool_}
_HEX = re.compile(r"\(0x([0-9A-Fa-f]{8})\)")
_SHAPE = re.compile(r"^(Float32|Int32|Bool)\[([0-9, ]*)\]")
_MIN_NORMAL_BITS = 0x00800000
#: how many copies of an element the vectorised path gets (several SIMD vectors)
BATCH_COPIES = 64


def load(path: Path) -> Any:
    """Import the module at *path* under a private name (a sibling, by path)."""
    spec = importlib.util.spec_from_file_location(f"_repro_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------
# The report's examples and their arguments
# ---------------------------------------------------------------------------


@functools.cache
def examples(report: str) -> dict[str, Mapping[str, Any]]:
    """``operation@class`` -> the class's minimal example in the report *report* (a file name)."""
    data = json.loads((HERE / report).read_text())
    return {f"{c['operation']}@{c['class']}": c["example"] for c in data["deviation_classes"]}


def decode(argument: Any) -> Any:
    """One argument of a report's call: a tensor as a numpy array (bit for bit), a
    ``{"float": hex}`` as float, a ``{"tuple": [...]}`` as tuple, a ``{"fraction":
    [n, d]}`` as Fraction; everything else as it is."""
    if isinstance(argument, dict):
        if "tensor" in argument:
            dtype = _TENSOR_DTYPES[argument["tensor"]]
            shape = tuple(argument["shape"])
            if "bits" in argument:
                bits = np.array([int(b, 16) for b in argument["bits"]], dtype=np.uint32)
                return bits.view(np.float32).reshape(shape)
            return np.array(argument["values"], dtype=dtype).reshape(shape)
        if "float" in argument:
            return float.fromhex(argument["float"])
        if "tuple" in argument:
            return tuple(decode(a) for a in argument["tuple"])
        if "fraction" in argument:
            return Fraction(*argument["fraction"])
    if isinstance(argument, list):
        return [decode(a) for a in argument]
    return argument


def operand_kinds(plan: str) -> list[str]:
    """The operand spellings of a plan: ``pow(Int32->Float32, weak->Float32) ...`` ->
    ``["Int32->Float32", "weak->Float32"]``."""
    inside = plan[plan.index("(") + 1 : plan.index(")")]
    return [part.strip() for part in inside.split(",") if part.strip()]


def float64_accumulator(plan: str) -> bool:
    """Whether the plan accumulates in Float64 (``acc=floating[Float64]``)."""
    return "floating[Float64]" in plan


# ---------------------------------------------------------------------------
# Running a call
# ---------------------------------------------------------------------------


class Outcome:
    """What the library did: *value* (a numpy array) or *error*, and its *warnings*."""

    def __init__(self, value: Any, error: BaseException | None, caught: list[Any]) -> None:
        self.value, self.error, self.warnings = value, error, caught

    def describe(self) -> str:
        if self.error is not None:
            return f"raised {type(self.error).__name__}: {str(self.error)[:120]}"
        return f"returned {np.asarray(self.value).dtype}{list(np.shape(self.value))}"


def run(call: Mapping[str, Any], calls: Mapping[str, Callable[..., Any]],
        to_numpy: Callable[[Any], np.ndarray], batch: bool = False) -> Outcome:  # fmt: skip
    """Run the report's *call* through the library's function for its operation.

    *batch*: every 1-element tensor argument is repeated :data:`BATCH_COPIES` times."""
    args = [decode(a) for a in call["args"]]
    if batch:
        args = [np.repeat(a.reshape(-1), BATCH_COPIES) if isinstance(a, np.ndarray) and
                a.size == 1 else a for a in args]  # fmt: skip
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = calls[call["op"]](call.get("plan", ""), *args)
            value = to_numpy(result)
        except Exception as error:  # the library's own exception is the finding
            return Outcome(None, error, list(caught))
    return Outcome(value, None, list(caught))


# ---------------------------------------------------------------------------
# The element sorts of wrong-value classes, on bits
# ---------------------------------------------------------------------------


def _float(bits: int) -> float:
    return float(np.array([bits], dtype=np.uint32).view(np.float32)[0])


def _ordinal(bits: int) -> int:
    return -(bits & 0x7FFFFFFF) if bits & 0x80000000 else bits


def element_sort(expected: int, actual: int) -> str:
    """How binary32 *actual* differs from the required *expected* (both bit patterns),
    spelt as the ``wrong-value:`` classes spell it."""
    e, a = _float(expected), _float(actual)
    if math.isnan(e):
        return "nan-bits" if math.isnan(a) else "nan"
    if math.isnan(a):
        return "spurious-nan"
    if e == 0 and a == 0:
        return "signed-zero"
    if math.isinf(e):
        return "infinity"
    if math.isinf(a):
        return "overflow"
    if e == 0:
        return "zero"
    if expected & 0x7FFFFFFF < _MIN_NORMAL_BITS:
        return "subnormal"
    if math.copysign(1, e) != math.copysign(1, a):
        return "sign"
    return "1-ulp" if abs(_ordinal(expected) - _ordinal(actual)) == 1 else "many-ulps"


# ---------------------------------------------------------------------------
# The checks, one per cause
# ---------------------------------------------------------------------------


def _elements(value: np.ndarray) -> np.ndarray:
    array = np.asarray(value)
    return array.view(np.uint32) if array.dtype == np.float32 else array


def _required(example: Mapping[str, Any]) -> list[tuple[tuple[int, ...] | None, Any]]:
    """(index, required element) of each mismatch the report lists; an example with no
    list (a corpus-batch finding) gives its one expected bit pattern at every index."""
    found = []
    for m in example.get("mismatches") or ():
        if m.get("expected_bits") is not None:
            found.append((tuple(m["index"]), m["expected_bits"]))
        else:  # a Bool, or a FLOATING interval "'[lo, hi]'"
            found.append((tuple(m["index"]), m["expected"]))
    if not found:
        bits = _HEX.findall(str(example.get("expected", "")))
        found = [(None, int(bits[0], 16))] if bits else []
    return found


def _mismatch_sort(required: Any, got: Any, dtype: Any) -> str | None:
    """The class element of one element that differs from *required* (None: it conforms)."""
    if isinstance(required, str) and required.startswith("'["):  # an acceptance interval
        low, high = (float(x) for x in required.strip("'[]").split(","))
        value = _float(int(got))
        if math.isnan(value):
            return "spurious-nan"
        return None if low <= value <= high else "outside-interval"
    if isinstance(required, str):  # a Bool
        return None if str(bool(got)) == required else "bool"
    if dtype != np.uint32:  # an Int32 result
        return None if int(got) == required else "integer"
    if int(got) == required:
        return None
    if math.isnan(_float(required)) and math.isnan(_float(int(got))):
        return "nan-bits"
    return element_sort(required, int(got))


def wrong_value(key: str, report: str, calls: Mapping[str, Any], to_numpy: Any) -> None:
    """The class's element differs from the required one the way the class names."""
    example, sort = examples(report)[key], key.rpartition(":")[2]
    batch = "corpus batch" in example.get("problem", "")
    outcome = run(example["call"], calls, to_numpy, batch=batch)
    assert outcome.error is None, f"{key}: {outcome.describe()} instead of a value"
    got = _elements(outcome.value)
    seen = []
    for index, required in _required(example):
        positions = np.ndindex(got.shape) if index is None or batch else [index]
        for position in positions:
            found = _mismatch_sort(required, got[position], got.dtype)
            seen.append(found)
            if found == sort:
                return
    assert False, (
        f"{key}: the library's result {got.reshape(-1)[:8].tolist()} does not show the class "
        f"(element sorts seen: {sorted(set(map(str, seen)))})"
    )


def wrong_shape(key: str, report: str, calls: Mapping[str, Any], to_numpy: Any) -> None:
    """The result's shape is not the required one."""
    example = examples(report)[key]
    outcome = run(example["call"], calls, to_numpy)
    assert outcome.error is None, f"{key}: {outcome.describe()} instead of a value"
    match = _SHAPE.match(str(example["expected"]))
    assert match, f"{key}: the report's expected value names no shape"
    required = tuple(int(n) for n in match[2].split(",") if n.strip())
    assert np.shape(outcome.value) != required, f"{key}: the shape is {required}, as required"


def no_exception(key: str, report: str, calls: Mapping[str, Any], to_numpy: Any) -> None:
    """The required exception is not raised."""
    example = examples(report)[key]
    required = tuple(example["call"].get("raises") or ())
    outcome = run(example["call"], calls, to_numpy)
    assert outcome.error is None or type(outcome.error).__name__ not in required, (
        f"{key}: raised {type(outcome.error).__name__}, as required"
    )


def other_exception(key: str, report: str, calls: Mapping[str, Any], to_numpy: Any) -> None:
    """An exception is raised, but not one of the required types."""
    example = examples(report)[key]
    required = tuple(example["call"].get("raises") or ())
    outcome = run(example["call"], calls, to_numpy)
    assert outcome.error is not None, f"{key}: {outcome.describe()}, no exception at all"
    names = {c.__name__ for c in type(outcome.error).__mro__}
    assert not names & set(required), f"{key}: raised {type(outcome.error).__name__}, as required"


def raises(key: str, report: str, calls: Mapping[str, Any], to_numpy: Any) -> None:
    """The call raises where the specification requires a value."""
    outcome = run(examples(report)[key]["call"], calls, to_numpy)
    assert outcome.error is not None, f"{key}: {outcome.describe()}, a value as required"


def warns(key: str, report: str, calls: Mapping[str, Any], to_numpy: Any) -> None:
    """The call emits a warning naming the class's IEEE flag (or raises numpy's
    FloatingPointError); IEEE exceptions never warn in the specification."""
    flag = key.rpartition(":")[2].replace("-", " ")
    outcome = run(examples(report)[key]["call"], calls, to_numpy)
    texts = [str(w.message).lower() for w in outcome.warnings]
    if outcome.error is not None:
        texts.append(str(outcome.error).lower())
    assert any(flag.split()[0] in t for t in texts), f"{key}: no {flag} warning ({texts})"


#: the cause of each class kind: the class spelling's head -> its check
BY_KIND: dict[str, Callable[..., None]] = {
    "wrong-value": wrong_value,
    "missing-exception": no_exception,
    "wrong-exception": other_exception,
    "warning": warns,
}


def cause_of(key: str) -> Callable[..., None]:
    """The check of class *key* (``operation@class``): by its kind, a wrong shape by its
    element, a capability feature (``zero-size``, ``weak-scalar`` ...) by :func:`raises`."""
    cls = key.partition("@")[2]
    if cls == "wrong-value:shape-or-dtype":
        return wrong_shape
    return BY_KIND.get(cls.partition(":")[0], raises)


def reproductions(report: str, keys: list[str], calls: Mapping[str, Any],
                  to_numpy: Callable[[Any], np.ndarray]) -> dict[str, Callable[[], None]]:  # fmt: skip
    """``REPRODUCTIONS`` of a module: each published key -> its check bound to the call table."""
    return {
        key: functools.partial(cause_of(key), key, report, calls, to_numpy) for key in keys
    }
