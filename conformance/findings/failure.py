"""The failure report of one call: what a person needs to act on a finding.

:func:`failure_report` builds a :class:`FailureReport` from a runner
:class:`~conformance.judge.runner.Outcome`: operation, plan, every input with
its bit patterns, expected vs actual, the ULP distance, the broken rule (the
plan's semantics sentence and the rule of the problem, :data:`PROBLEM_RULES`),
the ``plancheck repro`` line (:mod:`conformance.model.codec`) and a Python
snippet (:func:`python_snippet`).  :func:`oracle_error_report` does the same
for plancheck's own failures.
"""

from __future__ import annotations

import math
import re
import shlex
import struct
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from conformance.findings.elements import element_class
from conformance.findings.warning_element import WARNING_FLAGS, warned_element, warning_flag
from conformance.model.calls import REPRO_PRELUDE, Call, Family, parameters_of, split_arguments
from conformance.model.codec import (
    encode_call,
    repro_command,
)
from conformance.model.sanitize import terminal_text
from oracle import DType, Tensor, binary32, get_operation
from oracle.expectation import Interval
from oracle.operations import BUILTIN_FACTS

__all__ = [
    "PROBLEM_RULES",
    "REPRO_LIMIT",
    "FailureReport",
    "class_mismatches",
    "failure_report",
    "format_outcome",
    "mismatch_line",
    "oracle_error_report",
    "printed_repro",
    "python_snippet",
    "semantics_of",
    "show_arguments",
    "show_parameter",
    "show_tensor",
    "show_value",
    "warning_details",
]

#: at most this many elements of one tensor are listed in a report
MAX_ELEMENTS = 24
#: the longest ``reproduce:`` or ``python:`` line a report prints, in characters; a
#: longer one (a call with large tensors: a 1,025-element sort's is 13.5 kB) is printed
#: as ``plancheck repro --backend X @FILE`` with the call's JSON in a file beside the
#: report (:mod:`conformance.report.repro_files`), or, without a report file, as a line
#: saying where the call is (the report's ``call`` field)
REPRO_LIMIT = 2000
#: at most this many mismatches are listed in a report
MAX_MISMATCHES = 8


_QUIETING_IMPORT = "from oracle.binary32 import from_bits; "
_EXACT_IMPORT = "from oracle.binary32 import from_bits_exact as from_bits; "
#: What a :func:`python_snippet` imports: :data:`REPRO_PRELUDE` with ``from_bits``
#: bound to the exact conversion, so that a NaN element written
#: ``from_bits(0x7f800001)`` stays that signalling NaN on its way to the backend
#: (``oracle.binary32.from_bits`` quiets it), then ``reproduce``.
SNIPPET_PRELUDE = (
    REPRO_PRELUDE.replace(_QUIETING_IMPORT, _EXACT_IMPORT)
    if _QUIETING_IMPORT in REPRO_PRELUDE
    else REPRO_PRELUDE + _EXACT_IMPORT
) + "from conformance.report import reproduce; "


def python_snippet(call: Call, backend: str | None = None) -> str:
    """One line of Python that runs *call* on *backend* and prints the full report
    (on the oracle alone, ``Call.repro()``, when *backend* is None).

    Float32 tensor elements keep their exact bits, signalling NaNs included.
    """
    if backend is None:
        return call.repro()
    expression = call.expression("reproduce")
    expression = f"reproduce({backend!r}, " + expression[len("reproduce(") :]
    return f"{SNIPPET_PRELUDE}{expression}"


# ---------------------------------------------------------------------------
# Showing values
# ---------------------------------------------------------------------------


def _float_name(value: Any) -> str:
    """A Float32 value as reports name it: its repr, ``signalling nan`` for a signalling
    NaN (as ``plancheck call`` prints it)."""
    return "signalling nan" if isinstance(value, binary32.SignallingNaN) else repr(value)


def _element(dtype: Any, value: Any) -> str:
    if dtype is DType.Float32:
        return f"{_float_name(value)} (0x{binary32.to_bits(value):08X})"
    if dtype is DType.Int32:
        return f"{value} (0x{value & 0xFFFFFFFF:08X})"
    return repr(value)


def show_tensor(tensor: Tensor, limit: int = MAX_ELEMENTS) -> str:
    """``Float32[2, 1] [1.5 (0x3FC00000), nan (0x7FC00000)]`` (at most *limit* elements)."""
    shown = [_element(tensor.dtype, v) for v in tensor.values[:limit]]
    more = tensor.size - len(shown)
    tail = f", ... ({more} more)" if more > 0 else ""
    return f"{tensor.dtype.name}{list(tensor.shape)} [{', '.join(shown)}{tail}]"


def show_value(value: Any) -> str:
    """A forward-argument value with its exact form and bit pattern."""
    if isinstance(value, Tensor):
        return show_tensor(value)
    if isinstance(value, np.generic):
        inner = value.item()
        if isinstance(value, np.float32):
            return f"numpy.float32 {inner!r} (0x{binary32.to_bits(float(inner)):08X})"
        return f"numpy.{type(value).__name__} {inner!r}"
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, float):
        (bits,) = struct.unpack("<Q", struct.pack("<d", value))
        exact = "" if math.isnan(value) or math.isinf(value) else f" = {value.hex()}"
        return f"float {value!r}{exact} (binary64 0x{bits:016X})"
    if isinstance(value, int):
        hex_form = f" (0x{value & 0xFFFFFFFF:08X} as Int32)" if -(2**31) <= value < 2**31 else ""
        return f"int {value}{hex_form}"
    if isinstance(value, Fraction):
        return f"Fraction {value.numerator}/{value.denominator}"
    return repr(value)


#: a non-dtype argument's text is cut to this many characters (an invalid call's argument
#: may be any object; the repro line keeps it whole)
PARAMETER_TEXT = 200


def show_parameter(name: str, value: Any) -> str:
    """A non-dtype argument as what it is: ``axis=-1``, ``keepdims=True``,
    ``padding=((0, -1), (1, 1))``, ``axis='0'`` -- the Python value the backend receives
    (its ``repr``), never a dtype reading of it (an axis is no Int32)."""
    text = show_tensor(value) if isinstance(value, Tensor) else repr(value)
    if len(text) > PARAMETER_TEXT:
        text = text[: PARAMETER_TEXT - 3] + "..."
    return f"{name}={terminal_text(text, PARAMETER_TEXT)}"


def show_arguments(call: Call) -> list[str]:
    """Every forward argument of *call* as a report shows it, in order: a dtype operand
    (a tensor, a weak scalar) with its exact form and bits (:func:`show_value`), a
    non-dtype parameter by name and value (:func:`show_parameter`).  A call that does
    not fit its operation's signature (an invalid call may not) shows each argument
    with :func:`show_value`."""
    try:
        operands, _ = split_arguments(call.operation, call.args)
        declared = get_operation(call.operation).dtype_operand_positions
        positions = set(range(len(operands)) if declared is None else declared)
        names = [p.name for p in parameters_of(call.operation)]
    except Exception:  # an argument list its operation cannot split: show what is there
        return [show_value(a) for a in call.args]
    shown, rest = [], iter(names)
    for position, value in enumerate(call.args):
        name = None if position in positions else next(rest, None)
        shown.append(show_value(value) if name is None else show_parameter(name, value))
    return shown


def _show_expected(expectation: Any) -> str:
    if expectation.error is not None:
        return f"raises {type(expectation.error).__name__}: {expectation.error}"
    if expectation.result is not None:
        return show_tensor(expectation.result)
    bounds: Sequence[Interval] = expectation.bounds or ()
    shown = [str(b) for b in bounds[:MAX_ELEMENTS]]
    more = len(bounds) - len(shown)
    tail = f", ... ({more} more)" if more > 0 else ""
    shape = list(expectation.shape or ())
    return f"Float32{shape} within [{'; '.join(shown)}{tail}]"


def _show_actual(outcome: Any) -> str:
    if outcome.actual is not None:
        return show_tensor(outcome.actual)
    if outcome.raised is not None:
        return f"raised {type(outcome.raised).__name__}: {outcome.raised}"
    if outcome.native is not None:
        return f"{type(outcome.native).__name__}: {outcome.native!r}"[:400]
    return "nothing"


# ---------------------------------------------------------------------------
# Failure reports
# ---------------------------------------------------------------------------

#: The rule a fault without element mismatches breaks, by runner Problem.
PROBLEM_RULES = {
    "wrong exception": "an invalid call raises the exception type its rule names (the class's "
    "authority says whose rule)",
    "missing exception": "this call must raise (the class's authority says whose rule)",
    "unexpected exception": "a conforming call returns a result (no exception)",
    "wrong type": "backend protocol: execute returns a native tensor that to_tensor accepts",
    "wrong shape or dtype": "the plan fixes the result dtype; the semantics fix its shape",
    "timeout": "every call returns within the per-call timeout",
    "allocation before error": "backend protocol: every planning, shape and index error is "
    "raised before a result is allocated",
    "crash": "the backend must not kill its process",
    "warning": "IEEE exceptions never raise or warn (reference semantics)",
    "input modified": "a call never modifies its inputs",
    "oracle error": "none -- the oracle itself failed; this is not the backend's fault",
}


_INT32_SEMANTICS = (
    "Int32 arithmetic is exact over the integers; leaving [-2**31, 2**31 - 1] where the plan "
    "narrows raises OverflowError (never wraps, never saturates)"
)


def semantics_of(plan: Any) -> str:
    """The reference-semantics rule of *plan*'s operation, as the operation table
    states it (:data:`oracle.operations.BUILTIN_FACTS`); Int32 paths lead with the
    Int32 rule."""
    facts = BUILTIN_FACTS.get(plan.operation)
    text = facts.semantics if facts is not None else ""
    if plan.compute.name.startswith("INT32"):
        return f"{_INT32_SEMANTICS}; {text}" if text else _INT32_SEMANTICS
    return text


#: a report lists whole tensors only up to this many elements when it can show the
#: mismatching elements with their inputs instead
ELIDE_ABOVE = 8


def _element_count(text: str) -> int:
    """The element count of a :func:`show_tensor` text (0 for other values)."""

    match = re.match(r"(?:Float32|Int32|Bool)\[([\d, ]*)\]", text)
    if match is None:
        return 0
    count = 1
    for dim in match.group(1).split(","):
        if dim.strip():
            count *= int(dim)
    return count


def _summary(text: str) -> str:
    """``Float32[64]`` for a tensor text (elements left out), the text otherwise."""
    if _element_count(text) > ELIDE_ABOVE:
        return text.split("] [", 1)[0] + "] (elements: see the mismatches)"
    return text


@dataclass
class FailureReport:
    """Everything about one non-conforming call (or a crash, or an oracle error)."""

    backend: str
    operation: str
    plan: str
    problem: str
    summary: str
    inputs: list[str] = field(default_factory=list)
    expected: str = ""
    actual: str = ""
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    mismatch_count: int = 0
    #: the first mismatching element of each element class of the call, in the order
    #: the classes first occur, each a :attr:`mismatches` entry with its ``class``
    #: (``wrong-value:nan``): the example of every class it is reported under shows
    #: an element of that class, even beyond the first :data:`MAX_MISMATCHES`
    class_mismatches: list[dict[str, Any]] = field(default_factory=list)
    rule: str = ""
    conformance: str = ""
    ulp: int | None = None
    repro: str = ""
    python: str = ""
    call: dict[str, Any] | None = None
    test: str = ""
    note: str = ""
    semantics: str = ""
    #: the IEEE warnings the call emitted (``Category: message``), or the
    #: FloatingPointError it raised
    warnings: list[str] = field(default_factory=list)
    #: each of :attr:`warnings` with its ``category``, ``message``, ``flag`` and the
    #: element it concerns (:func:`warning_details`): ``index`` (None when no element
    #: shows the flag's condition), ``inputs``, ``expected``
    warning_details: list[dict[str, Any]] = field(default_factory=list)
    #: the file holding :attr:`call`'s JSON when :attr:`repro` is longer than
    #: :data:`REPRO_LIMIT` and the run writes a report ('' otherwise): the printed
    #: lines then read ``plancheck repro --backend X @FILE``
    repro_file: str = ""

    def repro_lines(self) -> list[tuple[str, str]]:
        """The ``reproduce:`` and ``python:`` lines as a report prints them, each at
        most about :data:`REPRO_LIMIT` characters: a longer one names the file holding
        the call (:attr:`repro_file`), or, without one, says where the call is."""
        lines = []
        for title, text in (("reproduce", self.repro), ("python", self.python)):
            if not text:
                continue
            if len(text) > REPRO_LIMIT:
                text = self._long_repro(title, len(text))
            lines.append((title, text))
        return lines

    def _long_repro(self, title: str, length: int) -> str:
        if self.repro_file:
            if title == "reproduce":
                return f"plancheck repro --backend {shlex.quote(self.backend)} " + shlex.quote(
                    "@" + self.repro_file
                )
            return (
                "from conformance.report import reproduce_file; "
                f"reproduce_file({self.backend!r}, {self.repro_file!r})"
            )
        return (
            f"({length} characters, more than {REPRO_LIMIT}: the call's JSON is the report "
            "file's `call` field; a run with --report PATH writes it to a file beside the "
            "report and prints `plancheck repro --backend X @FILE`)"
        )

    def _elided(self) -> bool:
        """Whether the whole tensors are left out: every mismatch shows its inputs, and
        some tensor has more elements than :data:`ELIDE_ABOVE`."""
        return (
            bool(self.mismatches)
            and all(m.get("inputs") for m in self.mismatches)
            and any(_element_count(text) > ELIDE_ABOVE for text in [*self.inputs, self.expected])
        )

    def text(self) -> str:
        """The report as a person reads it.

        When every mismatch can show the input elements it came from and the
        tensors are large, the tensors are summarised by dtype and shape and
        only the mismatching elements are listed (the repro line has them all).
        """
        head = "ORACLE ERROR" if self.problem == "oracle error" else "NON-CONFORMANCE"
        lines = [
            f"{head}: backend {self.backend}, operation {self.operation}: {self.problem}",
            f"  plan:       {self.plan}",
        ]
        elided = self._elided()
        if self.conformance:
            lines.append(f"  conformance class: {self.conformance}")
        if self.note:
            lines.append(f"  call:       {self.note}")
        for position, text in enumerate(self.inputs):
            lines.append(f"  arg {position}:      {_summary(text) if elided else text}")
        if self.expected:
            lines.append(f"  expected:   {_summary(self.expected) if elided else self.expected}")
        if self.actual:
            lines.append(f"  actual:     {_summary(self.actual) if elided else self.actual}")
        for detail in self.warning_details or [{"text": w} for w in self.warnings]:
            lines.append(f"  warning:    {_warning_line(detail)}")
        if self.ulp is not None:
            lines.append(f"  ULP distance (max over mismatches): {self.ulp}")
        if self.mismatches:
            shown = len(self.mismatches)
            lines.append(f"  mismatches ({self.mismatch_count}, first {shown}):")
            lines.extend(f"    {mismatch_line(m)}" for m in self.mismatches)
        further = self.further_class_mismatches()
        if further:
            lines.append(f"  the first mismatch of each class not among those ({len(further)}):")
            lines.extend(f"    {m['class']}: {mismatch_line(m)}" for m in further)
        lines.append(f"  rule broken: {self.rule}")
        if self.semantics:
            lines.append(f"  semantics:  {self.semantics}")
        lines.append(f"  verdict:    {self.summary}")
        for title, text in self.repro_lines():
            lines.append(f"  {title + ':':<11} {text}")
        return "\n".join(lines)

    def further_class_mismatches(self) -> list[dict[str, Any]]:
        """The :attr:`class_mismatches` not among the listed :attr:`mismatches` (the
        first :data:`MAX_MISMATCHES` in the same order, so a class with an element
        listed has its first one listed): empty when the list shows every class."""
        listed = {tuple(m["index"]) for m in self.mismatches}
        return [m for m in self.class_mismatches if tuple(m["index"]) not in listed]

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["text"] = self.text()
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FailureReport:
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})


def printed_repro(example: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The ``reproduce`` and ``python`` lines of a failure report dict as every format
    prints them (:meth:`FailureReport.repro_lines`: bounded by :data:`REPRO_LIMIT`)."""
    report = FailureReport(
        backend=str(example.get("backend") or ""), operation=str(example.get("operation") or ""),
        plan="", problem="", summary="", repro=str(example.get("repro") or ""),
        python=str(example.get("python") or ""), repro_file=str(example.get("repro_file") or ""),
    )  # fmt: skip
    return report.repro_lines()


def _inputs_at(call: Call, index: Sequence[int]) -> str:
    """The operand elements an elementwise result element at *index* came from
    (numpy broadcasting), with their bits; '' for other families."""

    if call.family is not Family.ELEMENTWISE:
        return ""
    shown = []
    for operand in call.operands:
        if not isinstance(operand, Tensor):
            shown.append(show_value(operand))
            continue
        rank = len(operand.shape)
        tail = list(index[len(index) - rank :]) if rank else []
        position = tuple(0 if n == 1 else i for i, n in zip(tail, operand.shape))
        flat = 0
        for i, n in zip(position, operand.shape):
            flat = flat * n + i
        if flat >= operand.size:
            return ""
        shown.append(_element(operand.dtype, operand.values[flat]))
    return ", ".join(shown)


def _mismatch_dict(m: Any, call: Call | None = None) -> dict[str, Any]:
    def shown(value: Any, bits: int | None) -> str:
        return f"{value!r}" if bits is None else f"{_float_name(value)} (0x{bits:08X})"

    return {
        "index": list(m.index),
        "inputs": _inputs_at(call, m.index) if call is not None else "",
        "expected": shown(m.expected, m.expected_bits),
        "actual": shown(m.actual, m.actual_bits),
        "expected_bits": m.expected_bits,
        "actual_bits": m.actual_bits,
        "ulp": m.ulp,
        "rule": m.rule,
    }


def mismatch_line(m: Mapping[str, Any]) -> str:
    """One mismatching element as a report line: ``at (3,) from (INPUTS): expected E,
    got A, N ULP  [rule: R]``."""
    ulp = "" if m.get("ulp") is None else f", {m['ulp']} ULP"
    inputs = f" from ({m['inputs']})" if m.get("inputs") else ""
    return (
        f"at {tuple(m['index'])}{inputs}: expected {m['expected']}, "
        f"got {m['actual']}{ulp}  [rule: {m['rule']}]"
    )


def class_mismatches(mismatches: Sequence[Any], call: Call | None = None) -> list[dict[str, Any]]:
    """The first of *mismatches* (a verdict's) of each element class, with its
    ``class`` (``wrong-value:<element>``, :func:`~conformance.findings.elements.element_class`),
    in the order the classes first occur."""
    first: dict[str, Any] = {}
    for m in mismatches:
        first.setdefault(f"wrong-value:{element_class(m.expected, m.actual, m.ulp)}", m)
    return [{"class": cls, **_mismatch_dict(m, call)} for cls, m in first.items()]


def _warnings_of(outcome: Any) -> list[str]:
    """The warnings of a call as the report shows them: each ``Category: message`` it
    emitted, and a FloatingPointError it raised (numpy's errstate turned into one)."""
    shown = [terminal_text(w, 500) for w in getattr(outcome, "warnings", ())]
    raised = getattr(outcome, "raised", None)
    if isinstance(raised, FloatingPointError):
        shown.append(terminal_text(f"FloatingPointError: {raised}", 500))
    return shown


def warning_details(outcome: Any) -> list[dict[str, Any]]:
    """The warnings of a call (:func:`_warnings_of`) each with its category, message,
    IEEE flag and the element it concerns: the first element of the expected result
    that shows the flag's condition given its inputs
    (:func:`conformance.findings.warning_element.warned_element` says how it is
    found), its index, input elements and expected value with their bits."""
    expected = getattr(outcome.expectation, "result", None)
    details = []
    for text in _warnings_of(outcome):
        category, _, message = text.partition(": ")
        flag = warning_flag(category, message)
        flat = warned_element(flag, outcome.call, expected)
        detail: dict[str, Any] = {
            "text": text, "category": category, "message": message, "flag": flag,
            "index": None, "inputs": "", "expected": "",
        }  # fmt: skip
        if flat is not None and expected is not None:
            index = list(np.unravel_index(flat, expected.shape)) if expected.shape else []
            detail["index"] = [int(i) for i in index]
            detail["inputs"] = _inputs_at(outcome.call, detail["index"])
            detail["expected"] = _element(expected.dtype, expected.values[flat])
        details.append(detail)
    return details


def _warning_line(detail: Mapping[str, Any]) -> str:
    """``RuntimeWarning: overflow encountered in exp -- element (3,) from (...): expected
    inf (0x7F800000)``; an IEEE flag no element shows says so."""
    text = str(detail.get("text") or f"{detail.get('category')}: {detail.get('message')}")
    if detail.get("index") is not None:
        inputs = f" from ({detail['inputs']})" if detail.get("inputs") else ""
        return f"{text} -- element {tuple(detail['index'])}{inputs}: expected {detail['expected']}"
    if detail.get("flag") in WARNING_FLAGS:
        return f"{text} -- no element of the expected result shows {detail['flag']}"
    return text


def failure_report(outcome: Any, backend: str, test: str = "") -> FailureReport:
    """The :class:`FailureReport` of a runner Outcome (conforming or not)."""
    call: Call = outcome.call
    expectation = outcome.expectation
    plan = expectation.plan.describe() if expectation.plan is not None else call.plan.describe()
    mismatches = list(outcome.verdict.mismatches)
    ulps = [m.ulp for m in mismatches if m.ulp is not None]
    if mismatches:
        rules = sorted({m.rule for m in mismatches}, key=[m.rule for m in mismatches].index)
        rule = "; ".join(rules)
    else:
        rule = PROBLEM_RULES.get(outcome.problem or "", "")
        if outcome.problem == "timeout":
            rule = f"{rule} ({outcome.raised})"
    try:
        encoded = encode_call(call)
        repro = repro_command(call, backend)
        python = python_snippet(call, backend)
    except TypeError as error:  # a value without an exact encoding (not from our strategies)
        encoded, repro, python = None, f"(no exact encoding: {error})", call.repro()
    return FailureReport(
        backend=backend,
        operation=call.operation,
        plan=plan,
        problem=outcome.problem or ("conforms" if outcome.ok else "non-conformance"),
        summary=terminal_text(outcome.verdict.summary),
        inputs=show_arguments(call)
        + ([f"accumulator_dtype={call.accumulator_dtype.name}"] if call.accumulator_dtype else []),
        expected=_show_expected(expectation),
        actual=terminal_text(_show_actual(outcome)),
        mismatches=[_mismatch_dict(m, call) for m in mismatches[:MAX_MISMATCHES]],
        mismatch_count=len(mismatches),
        class_mismatches=class_mismatches(mismatches, call),
        rule=rule,
        conformance=expectation.conformance.value if expectation.conformance else "",
        ulp=max(ulps) if ulps else None,
        repro=repro,
        python=python,
        call=encoded,
        test=test,
        note=call.note,
        warnings=_warnings_of(outcome),
        warning_details=warning_details(outcome),
        semantics=semantics_of(expectation.plan or call.plan)
        if (expectation.plan or call.plan)
        else "",
    )


def oracle_error_report(error: Any, backend: str, test: str = "") -> FailureReport:
    """The report of an :class:`~conformance.judge.runner.OracleError` (not the backend's fault)."""
    call: Call = error.call
    try:
        encoded, repro = encode_call(call), repro_command(call, backend)
    except TypeError:
        encoded, repro = None, ""
    return FailureReport(
        backend=backend,
        operation=call.operation,
        plan=call.plan.describe() if call.plan is not None else "(unknown)",
        problem="oracle error",
        summary=str(error),
        inputs=show_arguments(call),
        rule=PROBLEM_RULES["oracle error"],
        repro=repro,
        python=call.repro(),
        call=encoded,
        test=test,
        note=call.note,
    )


def format_outcome(outcome: Any, backend: str) -> str:
    """The full report of one call, conforming or not (what ``plancheck repro`` prints)."""
    report = failure_report(outcome, backend)
    if outcome.ok:
        lines = report.text().splitlines()
        lines[0] = f"CONFORMS: backend {backend}, operation {report.operation}"
        lines = [line for line in lines if not line.startswith("  rule broken")]
        return "\n".join(lines)
    return report.text()
