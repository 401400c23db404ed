"""What the reproduction modules beside the survey tables share (numpy, mpmath, stdlib).

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
  expected bits (the reference's correctly rounded or exact value).  The
  example runs exactly as the report prints it: a class that shows only on a
  vectorised path is printed by the judge as its case repeated to the
  shortest length that shows it (``Float32[32]``, note "repeated 32 times"),
  so the printed call is the failing call.  A report measured before that
  (an example marked "only inside the corpus batch", a 1-element call) whose
  printed call conforms alone raises :class:`ConformsAlone`, naming the
  shortest repetition that shows the class (:data:`REPEAT_LENGTHS`).
* :func:`wrong_shape` -- the result's shape is not the required one.
* :func:`no_exception` -- the call returns (or raises something else) where
  the specification requires the exception the report names.
* :func:`other_exception` -- the call raises, but not the exception required.
* :func:`raises` -- the call raises where a value was required.
* :func:`warns` -- the call warns (an IEEE flag as a warning) where the
  specification forbids it.
* :func:`crashes` -- the call kills its process (a ``crash`` class), and
  :func:`hangs` -- the call does not return (a ``hang`` class): both run the
  example in a child Python process that loads the report's module
  (``<report stem>_repro.py``) and calls it through its ``CALLS``.

A module's call raises :class:`NoCall` for arguments its table has no spelling
for (never taken for the library's exception); a class no call of the library
alone shows is named in the module's ``NOT_ALONE`` with why and gets no
reproduction.  :func:`main` is a module's ``python NAME_repro.py``.

This module is loaded by path (:func:`load`) by its siblings, so it never
needs to be on ``sys.path`` and imports nothing of plancheck.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import math
import operator
import re
import subprocess
import sys
import warnings
from collections.abc import Callable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath
import numpy as np

HERE = Path(__file__).resolve().parent

_TENSOR_DTYPES = {"Float32": np.float32, "Int32": np.int32, "Bool": np.bool_}
_HEX = re.compile(r"\(0x([0-9A-Fa-f]{8})\)")
_SHAPE = re.compile(r"^(Float32|Int32|Bool)\[([0-9, ]*)\]")
_MIN_NORMAL_BITS = 0x00800000
#: the repetition lengths tried for a case that conforms alone -- the judge's own ladder
#: (``conformance.judge.corpus_check.BATCH_REPRO_LENGTHS``; a test keeps them equal)
REPEAT_LENGTHS = (8, 16, 32, 64, 128, 256, 1024)


class NoCall(Exception):
    """A module's call table has no spelling for these arguments (e.g. mlx's sort has no
    descending argument): raised by the module's call, never taken for the library's
    exception -- :func:`run` lets it through."""


class ConformsAlone(AssertionError):
    """The report's printed example conforms when run alone (as printed); the class
    shows only when the case is repeated *shows_at* times (None: at no length tried).

    Raised only for examples the report marks "only inside the corpus batch" (reports
    measured before the judge printed the repeated case); the survey test accepts one
    only where ``docs/backends/examples-conforming-alone.json`` records it."""

    def __init__(self, key: str, shows_at: int | None) -> None:
        where = f"repeated {shows_at} times" if shows_at else "at no repetition length tried"
        super().__init__(f"{key}: the printed example conforms alone; the class shows {where}")
        self.key, self.shows_at = key, shows_at


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


@functools.cache
def failures(report: str) -> tuple[Mapping[str, Any], ...]:
    """Every failing call the report lists (each with its first mismatching elements)."""
    return tuple(json.loads((HERE / report).read_text()).get("failures") or ())


def decode(argument: Any) -> Any:
    """One argument of a report's call: a tensor as a numpy array (bit for bit), a
    ``{"float": hex}`` as float, a ``{"tuple": [...]}`` as tuple, a ``{"fraction":
    [n, d]}`` as Fraction, a ``{"numpy": type, "value": v}`` as that numpy scalar (a
    ``{"numpy": "float32", "bits": hex}`` by its bits); everything else as it is."""
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
        if "numpy" in argument:  # a numpy scalar, e.g. {"numpy": "int32", "value": -5}
            if "bits" in argument:  # a numpy.float32 by its bits: {"numpy": "float32", "bits"}
                return np.uint32(int(argument["bits"], 16)).view(np.float32)
            return getattr(np, argument["numpy"])(argument["value"])
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


def run(
    call: Mapping[str, Any],
    calls: Mapping[str, Callable[..., Any]],
    to_numpy: Callable[[Any], np.ndarray],
    repeat: int = 1,
) -> Outcome:
    """Run the report's *call* through the library's function for its operation.

    *repeat*: every 1-element tensor argument is repeated that many times (1: the call
    exactly as printed).  An operation *calls* has no function for is a KeyError of the
    module, raised here, never taken for the library's exception."""
    function = calls[call["op"]]
    args = [decode(a) for a in call["args"]]
    if repeat > 1:
        args = [
            np.repeat(a.reshape(-1), repeat) if isinstance(a, np.ndarray) and a.size == 1 else a
            for a in args
        ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = function(call.get("plan", ""), *args)
            value = to_numpy(result)
        except NoCall:
            raise
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
    bits = [int(b, 16) for b in _HEX.findall(str(example.get("expected", "")))]
    if not found:
        return [(None, bits[0])] if bits else []
    match = _SHAPE.match(str(example.get("expected", "")))
    if match and match[1] == "Float32":  # a truncated list: the text has every element
        shape = tuple(int(n) for n in match[2].split(",") if n.strip())
        if len(bits) == math.prod(shape):
            found += [(index, b) for index, b in zip(np.ndindex(shape), bits)]
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


#: the element sorts a class stands for, where it is not one sort: ``accuracy`` (issue
#: 27: a correctly rounded operation's 1-ulp, many-ulps and subnormal elements are one
#: class), ``exact-point`` (an exact point's result, whatever way it differs)
CLASS_SORTS: dict[str, frozenset[str] | None] = {
    "accuracy": frozenset({"1-ulp", "many-ulps", "subnormal"}),
    "exact-point": None,  # any element that differs
}


def class_shown(sort: str, seen: set[str]) -> bool:
    """Whether the element sorts *seen* show the class whose spelling ends in *sort*."""
    wanted = CLASS_SORTS.get(sort, frozenset({sort}))
    if wanted is None:
        return bool(seen - {"None"})
    return bool(wanted & seen)


def _shows(record: Mapping[str, Any], sort: str) -> bool:
    """Whether a failure record's listed elements show the class of *sort* (by its bits)."""
    return class_shown(
        sort,
        {
            str(_mismatch_sort(m["expected_bits"], m["actual_bits"], np.uint32))
            for m in record.get("mismatches") or ()
            if m.get("expected_bits") is not None and m.get("actual_bits") is not None
        },
    )


def _evidence(key: str, report: str) -> list[Mapping[str, Any]]:
    """The class's minimal example, then -- when the example lists only its first
    mismatching elements and none of the class's sort -- the report's other failing
    calls of the operation whose listed elements show it."""
    example, sort = examples(report)[key], key.rpartition(":")[2]
    operation = key.partition("@")[0]
    more = [f for f in failures(report) if f.get("operation") == operation and _shows(f, sort)]
    return [example, *more[:2]]


def round_binary32(value: Any) -> int:
    """The bits of an mpmath value rounded once to binary32 (nearest, ties to even,
    subnormals kept, overflow to infinity)."""
    if mpmath.isnan(value):
        return 0x7FC00000
    sign = 0x80000000 if value < 0 else 0
    magnitude = abs(value)
    if magnitude == 0:
        return sign
    if mpmath.isinf(magnitude):
        return sign | 0x7F800000
    exponent = max(int(mpmath.floor(mpmath.log(magnitude, 2))), -126)
    quantum = mpmath.mpf(2) ** (exponent - 23)
    units = int(mpmath.nint(magnitude / quantum))  # nint: ties to even
    value64 = float(units * quantum)
    if value64 >= 2.0**128 - 2.0**103:  # rounds to infinity
        return sign | 0x7F800000
    return sign | int(np.array([value64], dtype=np.float32).view(np.uint32)[0])


def _stable_top(bits: np.ndarray, k: int) -> list[int]:
    """The first *k* of the reference order for topk largest: NaNs first, then values
    descending, ties (-0 and +0 too) in input order."""
    values = [_float(int(b)) for b in bits]

    def rank(i: int) -> tuple[bool, float]:
        return (not math.isnan(values[i]), 0.0 if math.isnan(values[i]) else -values[i])

    order = sorted(range(len(values)), key=rank)
    return [int(bits[i]) for i in order[:k]]


def _exp_reference(bits: np.ndarray) -> list[int]:
    mpmath.mp.prec = 200
    return [round_binary32(mpmath.exp(mpmath.mpf(_float(int(b))))) for b in bits.reshape(-1)]


#: independent references of whole results, for the operations whose published example
#: lists only its first mismatching elements and not one of the class's sort:
#: operation -> (call args -> the required bit patterns, row-major)
REFERENCES: dict[str, Callable[..., list[int]]] = {
    "exp": lambda x: _exp_reference(x.view(np.uint32)),
    "_topk_values": lambda x, k, axis=-1, largest=True: (
        _stable_top(x.view(np.uint32).reshape(-1), k) if x.ndim == 1 and largest else []
    ),
}


def _by_reference(key: str, example: Mapping[str, Any], got: np.ndarray) -> set[str]:
    """The element sorts of *got* against :data:`REFERENCES` (empty when there is none)."""
    reference = REFERENCES.get(key.partition("@")[0])
    if reference is None or got.dtype != np.uint32:
        return set()
    required = reference(*[decode(a) for a in example["call"]["args"]])
    return {str(_mismatch_sort(r, g, np.uint32)) for r, g in zip(required, got.reshape(-1))}


def _sorts_of(key: str, example: Mapping[str, Any], got: np.ndarray, whole: bool) -> set[str]:
    """The element sorts of result *got* against the example's required elements (*whole*:
    compare every element with the example's one required element -- a repeated case)."""
    seen = set()
    for index, required in _required(example):
        positions = np.ndindex(got.shape) if index is None or whole else [index]
        for position in positions:
            seen.add(str(_mismatch_sort(required, got[position], got.dtype)))
    return seen | _by_reference(key, example, got)


def shows_at(key: str, report: str, calls: Mapping[str, Any], to_numpy: Any) -> int | None:
    """The shortest of 1 and :data:`REPEAT_LENGTHS` at which the class's example, its
    1-element tensors repeated, shows the class (None: none of them)."""
    example, sort = examples(report)[key], key.rpartition(":")[2]
    for length in (1, *REPEAT_LENGTHS):
        outcome = run(example["call"], calls, to_numpy, repeat=length)
        if outcome.error is None and class_shown(
            sort, _sorts_of(key, example, _elements(outcome.value), whole=length > 1)
        ):
            return length
    return None


def wrong_value(key: str, report: str, calls: Mapping[str, Any], to_numpy: Any) -> str:
    """The class's element differs from the required one the way the class names, in the
    example run exactly as printed (or, when its listed elements show none of the class's
    sort, in the report's other failing calls of the operation)."""
    sort, seen, shown = key.rpartition(":")[2], set(), []
    for example in _evidence(key, report):
        outcome = run(example["call"], calls, to_numpy)
        assert outcome.error is None, f"{key}: {outcome.describe()} instead of a value"
        got = _elements(outcome.value)
        shown.append(got.reshape(-1)[:8].tolist())
        seen |= _sorts_of(key, example, got, whole=False)
        if class_shown(sort, seen):
            return f"{key}: shown by the call as printed"
    if "corpus batch" in examples(report)[key].get("problem", ""):
        raise ConformsAlone(key, shows_at(key, report, calls, to_numpy))
    raise AssertionError(
        f"{key}: the library's results {shown} do not show the class (element sorts seen: "
        f"{sorted(seen)})"
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


def wrong_dtype(key: str, report: str, calls: Mapping[str, Any], to_numpy: Any) -> None:
    """The result's element type is not the required one."""
    example = examples(report)[key]
    outcome = run(example["call"], calls, to_numpy)
    assert outcome.error is None, f"{key}: {outcome.describe()} instead of a value"
    match = _SHAPE.match(str(example["expected"]))
    assert match, f"{key}: the report's expected value names no type"
    required = {"Float32": "float32", "Int32": "int32", "Bool": "bool", "Float64": "float64"}
    got = str(np.asarray(outcome.value).dtype)
    assert got != required.get(match[1], match[1]), f"{key}: the type is {got}, as required"


def differs(key: str, report: str, calls: Mapping[str, Any], to_numpy: Any) -> None:
    """The call does not do what the example requires, whatever way: a required exception
    not raised or of another type, a required value raised instead or not equal
    (bits).  For classes that stand for one cause of several effects (a convention of
    plancheck's such as a negative padding)."""
    example = examples(report)[key]
    outcome = run(example["call"], calls, to_numpy)
    if str(example.get("expected", "")).startswith("raises "):
        names = {c.__name__ for c in type(outcome.error).__mro__} if outcome.error else set()
        assert not names & _required_exception(example), f"{key}: raised as required"
        return
    if outcome.error is not None:
        return
    got = _elements(outcome.value)
    seen = {str(_mismatch_sort(r, got[i] if i is not None else got.reshape(-1)[0], got.dtype))
            for i, r in _required(example)}  # fmt: skip
    match = _SHAPE.match(str(example.get("expected", "")))
    shape = tuple(int(n) for n in match[2].split(",") if n.strip()) if match else None
    assert seen - {"None"} or (shape is not None and np.shape(got) != shape), (
        f"{key}: the result {got.reshape(-1)[:8].tolist()} is the required one"
    )


def _required_exception(example: Mapping[str, Any]) -> set[str]:
    """The exception types the reference raises (``raises ValueError: ...``)."""
    match = re.match(r"raises ([A-Za-z_|]+)", str(example.get("expected", "")))
    assert match, f"the report's example names no required exception: {example.get('expected')}"
    return set(match[1].split("|"))


def no_exception(key: str, report: str, calls: Mapping[str, Any], to_numpy: Any) -> None:
    """The required exception is not raised."""
    example = examples(report)[key]
    required = _required_exception(example)
    outcome = run(example["call"], calls, to_numpy)
    names = {c.__name__ for c in type(outcome.error).__mro__} if outcome.error else set()
    assert not names & required, f"{key}: raised {type(outcome.error).__name__}, as required"


def other_exception(key: str, report: str, calls: Mapping[str, Any], to_numpy: Any) -> None:
    """An exception is raised, but not one of the required types."""
    example = examples(report)[key]
    required = _required_exception(example)
    outcome = run(example["call"], calls, to_numpy)
    assert outcome.error is not None, f"{key}: {outcome.describe()}, no exception at all"
    names = {c.__name__ for c in type(outcome.error).__mro__}
    assert not names & required, f"{key}: raised {type(outcome.error).__name__}, as required"


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


_CHILD = """
import importlib.util, pathlib, sys
import numpy
spec = importlib.util.spec_from_file_location("repro_child", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
report = str(pathlib.Path(sys.argv[1]).with_name(module.REPORT))
call = module.common.examples(report)[sys.argv[2]]["call"]
print("calling", flush=True)
print(module.common.run(call, module.CALLS, numpy.asarray).describe(), flush=True)
"""


def _child(key: str, report: str, stderr: int = subprocess.DEVNULL) -> subprocess.Popen[str]:
    """A Python process that loads the report's reproduction module
    (``<report stem>_repro.py`` beside it) and runs the class's example through its
    ``CALLS``; it prints "calling" just before the call, then what the call did."""
    module = HERE / report.replace(".json", "_repro.py")
    return subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(module), key],
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
    )


def crashes(key: str, report: str, calls: Mapping[str, Any], to_numpy: Any) -> str:
    """The call kills its process (a signal, e.g. SIGABRT from C++), where the
    specification requires a value or an exception: run in a child process."""
    child = _child(key, report, subprocess.PIPE)
    try:
        output, errors = child.communicate(timeout=300)
    finally:
        child.kill()
    said = (output.splitlines()[1:] or errors.strip().splitlines()[-1:] or [""])[0]
    assert child.returncode < 0, f"{key}: the process exited with status {child.returncode}: {said}"
    return f"{key}: the process was killed by signal {-child.returncode}"


def hangs(key: str, report: str, calls: Mapping[str, Any], to_numpy: Any) -> str:
    """The call does not return within the report's per-call timeout (``timeout_s`` of
    its options; 10 s when it names none): run in a child process, killed after."""
    options = json.loads((HERE / report).read_text()).get("options") or {}
    seconds = float(options.get("timeout_s") or 10)
    child = _child(key, report)
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "calling", f"{key}: the child did not start"
        child.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        return f"{key}: no return within {seconds:g} s"
    finally:
        child.kill()
        child.wait()
    raise AssertionError(f"{key}: the call ended within {seconds:g} s")


#: the cause of each class kind: the class spelling's head -> its check
BY_KIND: dict[str, Callable[..., None]] = {
    "wrong-value": wrong_value,
    "missing-exception": no_exception,
    "wrong-exception": other_exception,
    "warning": warns,
    "crash": crashes,
    "hang": hangs,
}


#: the classes that stand for one cause of several effects (issue 27): any difference
ONE_CAUSE = ("conv-negative-padding",)


def cause_of(
    key: str, causes: Mapping[str, Callable[..., None]] | None = None
) -> Callable[..., None]:
    """The check of class *key* (``operation@class``): a library's own check for the class
    spelling when *causes* has one, else by its kind; a wrong shape by its element; a
    capability feature (``zero-size``, ``weak-scalar`` ...) by :func:`raises`."""
    cls = key.partition("@")[2]
    if causes and cls in causes:
        return causes[cls]
    if cls in ("wrong-value:shape-or-dtype", "wrong-value:shape"):
        return wrong_shape
    if cls == "wrong-value:dtype":
        return wrong_dtype
    if cls in ONE_CAUSE:
        return differs
    return BY_KIND.get(cls.partition(":")[0], raises)


def reproductions(
    report: str,
    keys: list[str],
    calls: Mapping[str, Any],
    to_numpy: Callable[[Any], np.ndarray],
    causes: Mapping[str, Callable[..., None]] | None = None,
) -> dict[str, Callable[[], None]]:
    """``REPRODUCTIONS`` of a module: each published key -> its check bound to the call
    table (*causes*: class spelling -> the library's own check, for classes no general
    check can show, e.g. a result that is the input's own buffer)."""
    return {
        key: functools.partial(cause_of(key, causes), key, report, calls, to_numpy) for key in keys
    }


def main(
    reproductions: Mapping[str, Callable[[], Any]], not_alone: Mapping[str, str] | None = None
) -> int:
    """Run every reproduction of a module and print what each showed (a module's
    ``python NAME_repro.py``); the classes of *not_alone* are listed with why.  Returns
    the exit status: 0 when every reproduction showed its class, 1 otherwise."""
    failed = 0
    for key, reproduce in sorted(reproductions.items()):
        try:
            shown = reproduce()
        except AssertionError as error:
            failed += 1
            print(f"{key}: NOT REPRODUCED: {error}")
        except Exception as error:  # the reproduction itself broke: say so, run the rest
            failed += 1
            print(f"{key}: ERROR {type(error).__name__}: {error}")
        else:
            detail = str(shown).removeprefix(f"{key}: ") if shown else ""
            print(f"{key}: reproduced{f' -- {detail}' if detail else ''}")
    for key, why in sorted((not_alone or {}).items()):
        print(f"{key}: not reproduced alone: {why}")
    print(f"{len(reproductions) - failed} of {len(reproductions)} classes reproduced")
    return 1 if failed else 0


# ---------------------------------------------------------------------------
# The array-namespace call table (numpy, jax.numpy): one table, the library's hooks
# ---------------------------------------------------------------------------

_NAMESPACE_BINARY = {
    "add": "add",
    "sub": "subtract",
    "mul": "multiply",
    "elementwise_mul": "multiply",
    "div": "divide",
    "rem": "fmod",
    "maximum": "maximum",
    "minimum": "minimum",
    "eq": "equal",
    "ne": "not_equal",
    "lt": "less",
    "le": "less_equal",
    "pow": "power",
}
_NAMESPACE_UNARY = {
    "neg": "negative",
    "abs": "abs",
    "sign": "sign",
    "sqrt": "sqrt",
    "recip": "reciprocal",
    "floor": "floor",
    "ceil": "ceil",
    "round": "rint",
    "exp": "exp",
    "exp2": "exp2",
    "log": "log",
    "log2": "log2",
    "sin": "sin",
    "cos": "cos",
    "tanh": "tanh",
    "logical_not": "logical_not",
}


#: the structured operations of :func:`namespace_calls` -> the hook each one calls
_HOOK_OF = {
    "conv_general": "conv",
    "scatter": "scatter",
    "scatter_add": "scatter_add",
    "_sort_values": "sort",
    "_sort_indices": "sort",
    "_topk_values": "topk",
    "_topk_indices": "topk",
}


def namespace_calls(
    xp: Any,
    native: Callable[[np.ndarray], Any],
    hooks: Mapping[str, Callable[..., Any]],
    names: Mapping[str, str] | None = None,
) -> dict[str, Callable[..., Any]]:
    """The calls of an array namespace *xp* for every operation, as the array-namespace
    adapters make them: the plan's conversions (``Int32->Float32``: ``astype``), then
    one ``xp`` function.  *native* turns a numpy array into the library's; *hooks*
    supplies what the namespaces do differently (``erf``, the activations, ``conv``,
    ``scatter``, ``scatter_add``, ``sort``, ``topk``, ``matmul_float64``), each a
    function of the converted arguments, and optionally ``astype`` (``(array, dtype)
    -> array``, for arrays without an ``astype`` method: the array API standard's
    ``xp.astype``).  *names*: operation -> the ``xp`` function's name where it is not
    numpy's (the standard's ``pow``, ``round``, ``cumulative_sum``).  An operation
    whose hook or ``xp`` function the library lacks (the standard has no ``fmod``) has
    no call: the table leaves it out rather than composing one."""
    renamed = {**_NAMESPACE_BINARY, **_NAMESPACE_UNARY, "cumsum": "cumsum", **(names or {})}
    astype = hooks.get("astype", lambda array, dtype: array.astype(dtype))

    def operands(plan: str, args: tuple[Any, ...]) -> list[Any]:
        kinds, out = operand_kinds(plan), []
        for position, value in enumerate(args):
            if isinstance(value, np.ndarray):
                kind = kinds[position] if position < len(kinds) else ""
                out.append(
                    native(value.astype(np.float32) if kind.endswith("->Float32") else value)
                )
            elif isinstance(value, Fraction):
                out.append(float(value))
            elif isinstance(value, np.generic):  # a numpy scalar: its exact Python value
                out.append(value.item())
            else:
                out.append(value)
        return out

    def plain(function: Callable[..., Any]) -> Callable[..., Any]:
        return lambda plan, *args: function(*operands(plan, args))

    def reduce_sum(plan: str, x: Any, axis: Any = None, keepdims: Any = False) -> Any:
        (v,) = operands(plan, (x,))
        if "exact_integer" in plan:
            return xp.sum(v, axis=axis, keepdims=keepdims, dtype=xp.int32)
        if float64_accumulator(plan):
            return astype(xp.sum(v, axis=axis, keepdims=keepdims, dtype=xp.float64), xp.float32)
        return xp.sum(v, axis=axis, keepdims=keepdims)

    def reduction(name: str) -> Callable[..., Any]:
        def call(plan: str, x: Any, axis: Any = None, keepdims: Any = False) -> Any:
            return getattr(xp, name)(*operands(plan, (x,)), axis=axis, keepdims=keepdims)

        return call

    def arg(name: str) -> Callable[..., Any]:
        return lambda plan, x, axis=None: astype(
            getattr(xp, name)(*operands(plan, (x,)), axis=axis), xp.int32
        )

    def matmul(plan: str, a: Any, b: Any) -> Any:
        x, y = operands(plan, (a, b))
        if float64_accumulator(plan) and "int32_exact" not in plan:
            return hooks["matmul_float64"](x, y)
        return xp.matmul(x, y)

    def indexed(name: str) -> Callable[..., Any]:
        def call(plan: str, base: Any, indices: Any, updates: Any, axis: Any) -> Any:
            b, i, u = operands(plan, (base, indices, updates))
            xp.moveaxis(b, axis, 0)  # the library judges the axis first, as the adapters do
            where = (slice(None),) * (operator.index(axis) % b.ndim) + (i,)
            return hooks[name](b, where, u)

        return call

    def clamp(plan: str, x: Any, low: Any, high: Any) -> Any:
        return xp.clip(*operands(plan, (x, low, high)))

    calls: dict[str, Callable[..., Any]] = {
        **{
            op: plain(getattr(xp, renamed[op]))
            for op in (*_NAMESPACE_BINARY, *_NAMESPACE_UNARY)
            if hasattr(xp, renamed[op])
        },
        **{
            op: plain(hooks[op])
            for op in (
                "rsqrt",
                "sigmoid",
                "silu",
                "softplus",
                "elu",
                "relu",
                "leaky_relu",
                "erf",
                "gelu",
            )
            if op in hooks
        },
        "clamp": clamp,
        "select": plain(xp.where),
        "reduce_sum": reduce_sum,
        "reduce_prod": reduction("prod"),
        "reduce_max": reduction("max"),
        "reduce_min": reduction("min"),
        "argmax": arg("argmax"),
        "argmin": arg("argmin"),
        "cumsum": lambda plan, x, axis: getattr(xp, renamed["cumsum"])(
            *operands(plan, (x,)), axis=axis
        ),
        "matmul": matmul,
        "conv_general": lambda plan, lhs, rhs, *rest: hooks["conv"](
            *operands(plan, (lhs, rhs)), *rest
        ),
        "gather": lambda plan, d, i, axis: xp.take(*operands(plan, (d, i)), axis=axis),
        "scatter": indexed("scatter"),
        "scatter_add": indexed("scatter_add"),
        "_sort_values": lambda plan, x, axis=-1, down=False: hooks["sort"](
            *operands(plan, (x,)), axis, down, True
        ),
        "_sort_indices": lambda plan, x, axis=-1, down=False: hooks["sort"](
            *operands(plan, (x,)), axis, down, False
        ),
        "_topk_values": lambda plan, x, k, axis=-1, largest=True: hooks["topk"](
            *operands(plan, (x,)), k, axis, largest, True
        ),
        "_topk_indices": lambda plan, x, k, axis=-1, largest=True: hooks["topk"](
            *operands(plan, (x,)), k, axis, largest, False
        ),
    }
    return {op: call for op, call in calls.items() if op not in _HOOK_OF or _HOOK_OF[op] in hooks}


def spread_and_pad(x: np.ndarray, lhs_dilation: Any, padding: Any) -> np.ndarray:
    """A conv input with ``lhs_dilation - 1`` zeros between its elements along each
    spatial axis, then padded by ``padding`` ((low, high) per axis; negative crops)."""
    spatial = x.ndim - 2
    for axis, step in enumerate(lhs_dilation or (1,) * spatial, start=2):
        if step > 1 and x.shape[axis] > 1:
            shape = [*x.shape[:axis], (x.shape[axis] - 1) * step + 1, *x.shape[axis + 1 :]]
            spread = np.zeros(shape, x.dtype)
            spread[(slice(None),) * axis + (slice(None, None, step),)] = x
            x = spread
    pads = tuple(padding or ((0, 0),) * spatial)
    crop = (slice(max(-lo, 0), x.shape[d + 2] - max(-hi, 0)) for d, (lo, hi) in enumerate(pads))
    x = x[(slice(None), slice(None), *crop)]
    return np.pad(x, ((0, 0), (0, 0), *((max(lo, 0), max(hi, 0)) for lo, hi in pads)))


def formula_hooks(xp: Any) -> dict[str, Callable[..., Any]]:
    """The activations as float32 formulas of namespace calls (where the library has no
    function of its own): ``1/sqrt``, ``1/(1+exp(-x))``, ``x/(1+exp(-x))``,
    ``logaddexp(0, x)``, ``where(x > 0, x, expm1(x))``, ``maximum(x, 0)``, ``where(x >= 0,
    x, 0.01f x)``."""
    one, slope = xp.float32(1), xp.float32(0.01)
    return {
        "rsqrt": lambda x: one / xp.sqrt(x),
        "sigmoid": lambda x: one / (one + xp.exp(-x)),
        "silu": lambda x: x / (one + xp.exp(-x)),
        "softplus": lambda x: xp.logaddexp(xp.float32(0), x),
        "elu": lambda x: xp.where(x > 0, x, xp.expm1(x)),
        "relu": lambda x: xp.maximum(x, 0),
        "leaky_relu": lambda x: xp.where(x >= 0, x, x * slope),
    }
