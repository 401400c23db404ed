"""Findings and deviation classes: what a run found, grouped by cause.

Every judged call that does not conform yields one or more *findings*
(:func:`findings_of`): the operation, the plan, the rule broken, the *kind* of
fault (:data:`KINDS`) and a *class* spelled so that a person can read it and
paste it into the known-deviations file.  Findings are grouped once, after
judging, into *deviation classes* (:func:`group`): each is reported once, with
its count and one minimal example.

Class spellings (the part after ``@`` in ``operation[/plan]@class``):

``wrong-value:<element>``
    a wrong result value; *element* names what the first mismatching element
    of that sort was expected to be and what came back: ``nan`` (a NaN was
    due), ``nan-bits`` (a NaN with other bits), ``spurious-nan`` (a NaN where
    none was due), ``signed-zero`` (the other zero), ``zero`` (a zero was due),
    ``subnormal`` (a subnormal was due), ``infinity``, ``overflow`` (an
    infinity where a finite value was due), ``sign``, ``1-ulp``, ``many-ulps``,
    ``outside-interval`` (a FLOATING accumulation outside its acceptance
    interval), ``integer``, ``bool``; ``accuracy`` for every ``1-ulp``,
    ``many-ulps`` and ``subnormal`` element of a correctly rounded operation (one
    class: its worst ULP, real error and input are kept, :attr:`Finding.worst`);
    ``wrong-value:dtype``, ``wrong-value:shape`` (``shape-or-dtype`` before) and
    ``wrong-value:type`` for a result of the wrong form.  One call can yield
    several findings, one per element sort.
``<feature>``
    the backend raised where a result was due, on a call that needs a
    capability feature (:mod:`conformance.model.capabilities`) it refused: every
    call of the check needing it raised (:mod:`conformance.findings.refusals`),
    e.g. ``zero-size``;
``raises-<Exception>``
    the backend raised where a result was due, and no feature of the call was
    refused, e.g. ``raises-ValueError``;
``missing-exception:<boundary>``, ``wrong-exception:<boundary>``
    an invalid call did not raise, or raised another type; *boundary* is the
    call's error class (``error-bad-axis``, ``int32-result-overflow`` ...) or
    else the exception type that was due; every wrong *type* where the type is
    plancheck's convention is one class, ``wrong-exception:convention``;
``allocation-before-error``
    the required exception came only after a result was allocated;
``warning:<flag>``
    the call emitted an IEEE warning or raised numpy's FloatingPointError;
    *flag* is ``overflow``, ``underflow``, ``invalid``, ``divide-by-zero`` or
    else the warning's category name;
``input-modified``
    the call changed the bits of one of its inputs;
``hang``, ``crash``
    the call ran past the timeout, or killed its process;
``fp-environment:<what>``, ``numpy-state:<what>``, ``result-...``
    what the backend host observed around the call
    (:mod:`conformance.findings.host_classes`).

Every class names its authority (:mod:`conformance.findings.authority`): the
specification's SHALL, the reference's value rule or plancheck's convention it
rests on.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from conformance.classes.boundary import Boundary
from conformance.exhaustive.ulp_error import real_error
from conformance.findings.authority import authority_fields, negative_padding, reported_class
from conformance.findings.conv_rules import CONV_RULES, conv_rule
from conformance.findings.elements import WRONG_VALUE_ELEMENTS, element_class
from conformance.findings.failure import PROBLEM_RULES, _inputs_at
from conformance.findings.host_classes import HOST_CLASSES, HOST_PARTS
from conformance.findings.warning_element import WARNING_FLAGS, warning_flag
from conformance.generate.families import classes_hit
from conformance.model.capabilities import FEATURES, features_of, first_feature

__all__ = [
    "KINDS",
    "PLAIN_CLASSES",
    "WARNING_FLAGS",
    "WRONG_VALUE_ELEMENTS",
    "DeviationClass",
    "Finding",
    "class_spelling_problem",
    "element_class",
    "findings_of",
    "group",
    "warning_flag",
]

#: the kinds of fault, in the order reports list them
KINDS = (
    "wrong value",
    "missing exception",
    "wrong exception",
    "unexpected exception",
    "warning",
    "input modified",
    "crash",
    "hang",
    "environment",
    "aliasing",
)


@dataclass
class Finding:
    """One deviation class seen in one call (see the module docstring for *cls*)."""

    operation: str
    plan: str
    kind: str
    cls: str
    rule: str
    ulp: int | None = None  #: the largest ULP distance of this class's elements in the call
    #: the capability features the call needs (an unexpected exception's: it is classed
    #: under a refused one when the check is over, :mod:`conformance.findings.refusals`)
    features: frozenset[str] = frozenset()
    #: the exception type the backend raised (an unexpected exception's): a known
    #: ``raises-<type>`` deviation covers the call whatever feature it is named after
    raised: str | None = None
    #: the worst element of a class with ULP distances (an accuracy class's, and any
    #: other whose elements are a nonzero ULP distance off): ``ulp``, ``index``,
    #: ``inputs``, ``expected``, ``actual`` and (unary operations) ``real_error`` in ulps
    worst: dict[str, Any] | None = None

    def key(self) -> tuple[str, str, str]:
        return (self.operation, self.plan, self.cls)


# ---------------------------------------------------------------------------
# Classifying one call
# ---------------------------------------------------------------------------


#: the classes with nothing after a colon (besides the capability features);
#: ``conv-negative-padding``: every finding of a convolution with a negative padding
#: (plancheck's convention that it crops, :mod:`conformance.findings.authority`)
PLAIN_CLASSES = ("input-modified", "hang", "crash", "allocation-before-error",
                 "conv-negative-padding")  # fmt: skip

#: an exception or warning type's name, as ``raises-<Exception>`` and the
#: exception and warning classes spell it (``ValueError``, ``RuntimeWarning``,
#: ``ValueError|TypeError`` when several types were due)
_TYPE_NAME = re.compile(r"[A-Z][A-Za-z0-9_]*(\|[A-Z][A-Za-z0-9_]*)*")


def error_boundaries() -> tuple[str, ...]:
    """The error classes ``missing-exception:`` and ``wrong-exception:`` name
    (``error-bad-axis``, ``int32-result-overflow`` ...): :func:`_boundary`'s choice."""
    return (
        tuple(
            b.name.lower().replace("_", "-")
            for b in Boundary
            if b.value[0].name in ("ERROR", "INT32_RESULT")
            and (b.name.startswith("ERROR") or b.name.endswith("OVERFLOW"))
        )
        + CONV_RULES
    )


def class_spelling_problem(cls: str) -> str | None:
    """Why *cls* is not a deviation class as reports spell it (None when it is): the
    message names the valid spellings of its part and the nearest one.

    Checked part by part: ``wrong-value:`` takes :data:`WRONG_VALUE_ELEMENTS`,
    ``warning:`` an IEEE flag (:data:`WARNING_FLAGS`) or a warning category's
    name, ``missing-exception:``/``wrong-exception:`` an error class
    (:func:`error_boundaries`), an exception type's name or ``error``,
    ``raises-`` an exception type's name, ``fp-environment:`` and ``numpy-state:``
    what the backend host names (:data:`~conformance.findings.host_classes.HOST_PARTS`);
    else one of :data:`PLAIN_CLASSES`, a host class or a capability feature.
    """
    head, colon, part = cls.partition(":")
    if colon:
        valid: tuple[str, ...]
        if head == "wrong-value":
            valid, types = WRONG_VALUE_ELEMENTS, False
        elif head == "warning":
            valid, types = WARNING_FLAGS, True
        elif head == "missing-exception":
            valid, types = (*error_boundaries(), "error"), True
        elif head == "wrong-exception":
            valid, types = (*error_boundaries(), "error", "convention"), True
        elif head in HOST_PARTS:
            valid, types = HOST_PARTS[head], False
        else:
            return _nearest(cls, _all_spellings(), "a deviation class")
        if part in valid or (types and _TYPE_NAME.fullmatch(part)):
            return None
        takes = ", ".join(valid)
        if head.endswith("exception"):
            takes += " or an exception type's name (ValueError)"
        elif types:
            takes += " or a warning category's name (RuntimeWarning)"
        close = difflib.get_close_matches(part, valid, n=1, cutoff=0.6)
        hint = f" (did you mean {head}:{close[0]}?)" if close else ""
        return f"{part!r} after {head}: is not a deviation class{hint}; {head}: takes {takes}"
    if cls.startswith("raises-"):
        if _TYPE_NAME.fullmatch(cls[len("raises-") :]):
            return None
        return f"{cls!r}: raises- takes an exception type's name (raises-ValueError)"
    if cls in PLAIN_CLASSES or cls in FEATURES or cls in HOST_CLASSES:
        return None
    return _nearest(cls, _all_spellings(), "a deviation class")


def _all_spellings() -> list[str]:
    return [
        *(f"wrong-value:{e}" for e in WRONG_VALUE_ELEMENTS),
        *(f"warning:{f}" for f in WARNING_FLAGS),
        *(f"{k}:{b}" for k in ("missing-exception", "wrong-exception") for b in error_boundaries()),
        "wrong-exception:convention",
        *PLAIN_CLASSES,
        *HOST_CLASSES,
        *(f for f in FEATURES if f not in PLAIN_CLASSES),  # conv-negative-padding: once
    ]


def _nearest(word: str, valid: Iterable[str], what: str) -> str:
    close = difflib.get_close_matches(word, list(valid), n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return (
        f"{word!r} is not {what}{hint}; spell it as the report prints it: "
        "wrong-value:ELEMENT, warning:FLAG, missing-exception:ERROR, wrong-exception:ERROR, "
        "raises-EXCEPTION, fp-environment:WHAT, numpy-state:WHAT, "
        + ", ".join((*PLAIN_CLASSES, *(c for c in HOST_CLASSES if ":" not in c)))
        + " or a capability feature"
    )


def _boundary(call: Any, expectation: Any) -> str:
    """The error class of an invalid call, else the exception type that was due."""
    try:
        classes = sorted(classes_hit(call), key=lambda c: c.name)
    except Exception:
        classes = []
    for boundary in classes:
        if boundary.value[0].name in ("ERROR", "INT32_RESULT") and (
            boundary.name.startswith("ERROR") or boundary.name.endswith("OVERFLOW")
        ):
            if boundary.name == "ERROR_SHAPE_MISMATCH":
                # conv_general's rules by what they check, not all "shape mismatch"
                return conv_rule(call) or "error-shape-mismatch"
            return boundary.name.lower().replace("_", "-")
    error = getattr(expectation, "error", None)
    if error is not None:
        return type(error).__name__
    if call.raises:
        return "|".join(e.__name__ for e in call.raises)
    return "error"


def _exception_findings(outcome: Any, plan: str, rule: str) -> list[Finding]:
    call, raised = outcome.call, outcome.raised
    operation = call.operation
    if isinstance(raised, FloatingPointError):
        flag = warning_flag("FloatingPointError", str(raised))
        return [Finding(operation, plan, "warning", f"warning:{flag}",
                        "IEEE exceptions never raise or warn")]  # fmt: skip
    if outcome.problem == "unexpected exception":  # named at the end of the check
        cls = f"raises-{type(raised).__name__}"  # (conformance.findings.refusals)
        return [Finding(operation, plan, "unexpected exception", cls, rule,
                        features=features_of(call), raised=type(raised).__name__)]  # fmt: skip
    if outcome.problem == "allocation before error":
        return [Finding(operation, plan, "wrong exception", "allocation-before-error", rule)]
    boundary = _boundary(call, outcome.expectation)
    return [Finding(operation, plan, "wrong exception", f"wrong-exception:{boundary}", rule)]


def findings_of(outcome: Any) -> list[Finding]:
    """The findings of one judged :class:`~conformance.judge.runner.Outcome` (empty when it
    conforms): one per element sort of a wrong value, one per hygiene fault."""

    call = outcome.call
    expectation = outcome.expectation
    plan_object = getattr(expectation, "plan", None) or call.plan
    plan = plan_object.describe() if plan_object is not None else "(unknown)"
    operation = call.operation
    problem = outcome.problem
    found: list[Finding] = []
    rule = PROBLEM_RULES.get(problem or "", "")
    if problem == "timeout":
        found.append(Finding(operation, plan, "hang", "hang", rule))
    elif problem == "wrong value":
        seen: dict[str, tuple[str, int | None, Any]] = {}
        points = getattr(expectation, "exact_points", None)
        shape = getattr(getattr(expectation, "result", None), "shape", None)
        for m in outcome.verdict.mismatches:
            element = element_class(m.expected, m.actual, m.ulp)
            if (
                points is not None
                and shape is not None
                and element in _ROUNDING_ELEMENTS
                and points[_flat(m.index, shape)]
            ):  # exp(0) = 1 missed: a special value, not an accuracy
                element = "exact-point"
            cls = reported_class(f"wrong-value:{element}", operation, plan_object)
            rule, ulp, worst = seen.get(cls, (m.rule, None, None))
            if m.ulp is not None:
                ulp = max(ulp or 0, m.ulp)
            if m.ulp and (worst is None or m.ulp > (worst.ulp or 0)):
                worst = m  # the element the class line's "max N ULP" speaks of
            seen[cls] = (rule, ulp, worst)
        for cls, (element_rule, ulp, worst) in seen.items():
            found.append(
                Finding(
                    operation,
                    plan,
                    "wrong value",
                    cls,
                    element_rule,
                    ulp,
                    worst=_worst(outcome, worst) if worst is not None else None,
                )
            )
    elif problem == "wrong shape or dtype":
        actual = getattr(outcome, "actual", None)
        output = getattr(plan_object, "output", None)
        form = "dtype" if actual is not None and actual.dtype is not output else "shape"
        found.append(Finding(operation, plan, "wrong value", f"wrong-value:{form}", rule))
    elif problem == "wrong type":
        found.append(Finding(operation, plan, "wrong value", "wrong-value:type", rule))
    elif problem == "missing exception":
        boundary = _boundary(call, expectation)
        found.append(Finding(operation, plan, "missing exception",
                             f"missing-exception:{boundary}", rule))  # fmt: skip
    elif problem in ("wrong exception", "unexpected exception", "allocation before error"):
        found.extend(_exception_findings(outcome, plan, rule))
    for warning in getattr(outcome, "warnings", ()):
        flag = warning_flag(*warning.split(": ", 1)) if ": " in warning else warning
        found.append(Finding(operation, plan, "warning", f"warning:{flag}",
                             "IEEE exceptions never raise or warn"))  # fmt: skip
    if getattr(outcome, "modified", ()):
        found.append(Finding(operation, plan, "input modified", "input-modified",
                             "a call never modifies its inputs"))  # fmt: skip
    cropped = negative_padding(call)
    unique: dict[str, Finding] = {}
    for finding in found:
        finding.cls = reported_class(finding.cls, operation, plan_object)
        if cropped and finding.kind not in ("warning", "input modified"):
            finding.cls = "conv-negative-padding"  # the crop is plancheck's convention
        unique.setdefault(finding.cls, finding)
    return list(unique.values())


#: the element sorts a missed exact point would otherwise be classed under
_ROUNDING_ELEMENTS = frozenset({"1-ulp", "many-ulps", "subnormal"})


def _worst(outcome: Any, m: Any) -> dict[str, Any]:
    """The worst element *m* of a class (the largest ULP distance): its index, inputs,
    expected and actual
    values with their bits, ULP distance and (a unary operation) real error in ulps of
    the exact value (:func:`conformance.exhaustive.ulp_error.real_error`)."""
    call = outcome.call
    worst: dict[str, Any] = {
        "index": list(m.index),
        "ulp": m.ulp,
        "inputs": _inputs_at(call, m.index),
        "expected": f"{m.expected!r} (0x{m.expected_bits:08X})" if m.expected_bits is not None
        else repr(m.expected),
        "actual": f"{m.actual!r} (0x{m.actual_bits:08X})" if m.actual_bits is not None
        else repr(m.actual),
        "real_error": None,
    }  # fmt: skip
    tensors = [a for a in call.operands if hasattr(a, "values")]
    if len(call.operands) == 1 and len(tensors) == 1:
        try:
            x = float(tensors[0].values[_flat(m.index, tensors[0].shape)])
            worst["real_error"] = round(real_error(call.operation, x, m.actual, m.expected), 4)
        except Exception:  # an operation the measure does not know: the ULP distance stands
            worst["real_error"] = None
    return worst


def _flat(index: Any, shape: Any) -> int:
    flat = 0
    for i, n in zip(index, shape):
        flat = flat * n + i
    return flat


# ---------------------------------------------------------------------------
# Grouping
# ---------------------------------------------------------------------------


@dataclass
class DeviationClass:
    """One cause: every finding of one class in one operation on one backend,
    across the plans it occurs in.

    *example* is the report (``FailureReport.as_dict()``) of the smallest
    failing call seen; *known* the reason of the known deviation covering it
    (None: a new class that fails the run).
    """

    backend: str
    operation: str
    cls: str
    kind: str
    rule: str
    count: int = 0
    plans: list[str] = field(default_factory=list)
    example: dict[str, Any] = field(default_factory=dict)
    size: int = 0
    known: str | None = None
    max_ulp: int | None = None  #: the largest ULP distance of this class's elements seen
    raised: str | None = None  #: the exception type the backend raised (exception kinds)
    #: the authority the class rests on (``specification``, ``reference``, ``convention``)
    #: and its clause (:meth:`conformance.findings.authority.Authority.as_dict`)
    authority: str = ""
    clause: dict[str, Any] = field(default_factory=dict)
    #: how the adapter composes the operation (its ``composed_operations``), or None: a
    #: class of the adapter's composition is left out of the library's counts
    composed: str | None = None
    #: whether the run judges the class's authority (``--judge``): a class not judged
    #: is a difference that never fails the run
    judged: bool = True
    #: the worst element of a class with ULP distances (:attr:`Finding.worst`): the one
    #: :attr:`max_ulp` speaks of, with its inputs and bits
    worst: dict[str, Any] | None = None

    @property
    def selector(self) -> str:
        """``operation/plan@class`` naming every plan the class was seen on (plans joined
        by `` | ``): pasted into a known-deviations file it covers those plans only, so
        the class on another plan is new."""
        if not self.plans:
            return f"{self.operation}@{self.cls}"
        return f"{self.operation}/{' | '.join(self.plans)}@{self.cls}"

    @property
    def plan(self) -> str:
        return self.example.get("plan") or (self.plans[0] if self.plans else "")

    @property
    def repro(self) -> str:
        return str(self.example.get("repro", ""))

    def line(self) -> str:
        """One line: selector, kind, count, plans, known or not."""
        plans = f"in {len(self.plans)} plans" if len(self.plans) > 1 else ""
        calls = "call" if self.count == 1 else "calls"
        known = f"  [known: {self.known}]" if self.known is not None else ""
        ulp_text = f", max {self.max_ulp} ULP" if self.max_ulp else ""
        return (
            f"{self.operation}@{self.cls}  {self.kind}, {self.count} {calls} {plans}".rstrip()
            + f"{ulp_text}  [{self.clause.get('label') or self.authority}]{known}"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "operation": self.operation,
            "plan": self.plan,
            "plans": list(self.plans),
            "rule": self.rule,
            "class": self.cls,
            "kind": self.kind,
            "count": self.count,
            "max_ulp": self.max_ulp,
            "raised": self.raised,
            "selector": self.selector,
            "known": self.known,
            "authority": self.authority,
            "clause": self.clause,
            "composed": self.composed,
            "judged": self.judged,
            "worst": self.worst,
            "example": self.example,
            "repro": self.repro,
        }


def _fold_features(
    classes: dict[tuple[str, str, str, bool], DeviationClass],
    featureless: set[tuple[str, str, str, bool]],
) -> None:
    """A feature class (``zero-size`` ...) whose exception the backend also raises on
    calls needing no feature (*featureless*: the keys of such ``raises-`` classes) is
    not about the feature: fold it into ``raises-<type>`` of the same operation."""

    for key, found in list(classes.items()):
        backend, operation, cls, new = key
        if cls not in FEATURES or cls in PLAIN_CLASSES or found.raised is None:
            continue
        target_key = (backend, operation, f"raises-{found.raised}", new)
        target = classes.get(target_key)
        if target is None or target_key not in featureless:
            continue
        target.count += found.count
        target.plans.extend(p for p in found.plans if p not in target.plans)
        del classes[key]


#: ``(backend, operation) -> (refused, supported)``: the features every check of the
#: operation found refused and found supported (:mod:`conformance.findings.refusals`)
Evidence = Mapping[tuple[str, str], tuple[Iterable[str], Iterable[str]]]


def _renamed(record: Mapping[str, Any], evidence: Evidence) -> str:
    """The class of an unexpected-exception *record* in the light of every check of its
    operation: a feature class whose feature some check got a result for becomes
    ``raises-<type>``; a ``raises-`` class each of whose calls needs the same feature,
    refused by some check and supported by none, becomes that feature."""
    cls = record["class"]
    refused, supported = evidence.get((record["backend"], record["operation"]), ((), ()))
    usable = set(refused) - set(supported)
    if cls in PLAIN_CLASSES:  # conv-negative-padding: one class, whatever was supported
        return cls
    if cls in FEATURES and cls in set(supported) and record.get("raised"):
        return f"raises-{record['raised']}"
    needed = record.get("features_needed") or []
    if cls.startswith("raises-") and needed:
        firsts = {first_feature(f for f in features if f in usable) for features in needed}
        if len(firsts) == 1 and None not in firsts:
            return str(firsts.pop())
    return cls


def _ulp(worst: Mapping[str, Any]) -> int:
    return int(worst.get("ulp") or 0)


def _authority(record: Mapping[str, Any]) -> dict[str, Any]:
    """A record's authority and clause: as the check recorded them, else (a report of an
    earlier plancheck) from the table; none for a class that is not a judge's (a
    disagreement of ``plancheck diff``)."""
    clause = record.get("clause")
    if record.get("authority") and isinstance(clause, Mapping):
        return {"authority": str(record["authority"]), "clause": dict(clause)}
    try:
        return authority_fields(record["class"], record["operation"], record.get("plan"))
    except LookupError:
        return {"authority": "", "clause": {}}


def group(
    records: Iterable[Mapping[str, Any]],
    evidence: Evidence | None = None,
    known: Any = None,
) -> list[DeviationClass]:
    """Fold per-plan class records into :class:`DeviationClass` values.

    Each record is what a check sends (``backend``, ``operation``, ``plan``,
    ``class``, ``kind``, ``rule``, ``count``, ``size``, ``example``, optional
    ``known``); records of one (backend, operation, class) fold into one class
    whose example is the smallest call seen (known and new records of one class
    fold apart: a known entry never hides a new plan).  Ordered by backend, operation,
    then :data:`KINDS`.

    With *evidence* (per operation, :data:`Evidence`) unexpected-exception classes are
    named in the light of every check (:func:`_renamed`); *known* (``(backend,
    operation, plan, class, raised, authority) -> reason | None``) then re-decides a
    renamed record's known deviation.  A record of an earlier plancheck spelt apart
    (``wrong-value:1-ulp`` of a correctly rounded operation) is folded first
    (:func:`~conformance.findings.authority.reported_class`); a record without its
    authority gets it from the table.
    """
    classes: dict[tuple[str, str, str, bool], DeviationClass] = {}
    featureless: set[tuple[str, str, str, bool]] = set()
    for record in records:
        folded = reported_class(record["class"], record["operation"], record.get("plan"))
        if folded != record["class"]:  # a record of an earlier plancheck, spelt apart
            record = {**record, "class": folded, "authority": None}
        if evidence is not None and (
            record["class"].startswith("raises-") or record["class"] in FEATURES
        ):
            cls = _renamed(record, evidence)
            if cls != record["class"]:
                where = (record["backend"], record["operation"], record["plan"], cls)
                authority = _authority({**record, "class": cls, "authority": None})["authority"]
                reason = known(*where, record.get("raised"), authority) if known else None
                record = {**record, "class": cls, "known": reason, "authority": None}
        known_reason = record.get("known")
        key = (record["backend"], record["operation"], record["class"], known_reason is None)
        if [] in (record.get("features_needed") or []):
            featureless.add(key)
        found = classes.get(key)
        if found is None:
            found = classes[key] = DeviationClass(
                record["backend"], record["operation"], record["class"], record["kind"],
                record.get("rule", ""), size=-1, composed=record.get("composed"),
                **_authority(record),
            )  # fmt: skip
        if record.get("judged") is False:
            found.judged = False
        worst = record.get("worst")
        if worst and (
            found.worst is None or (worst.get("ulp") or 0) > (found.worst.get("ulp") or 0)
        ):
            found.worst = dict(worst)
        found.count += int(record.get("count", 1))
        if record["plan"] not in found.plans:
            found.plans.append(record["plan"])
        size = int(record.get("size", 0))
        if record.get("example") and (found.size < 0 or size < found.size):
            found.example, found.size, found.rule = record["example"], size, record.get("rule", "")
        if known_reason is not None and found.known is None:
            found.known = str(known_reason)
        if record.get("raised"):
            found.raised = str(record["raised"])
        ulp = record.get("max_ulp")
        if ulp is not None:
            found.max_ulp = max(found.max_ulp or 0, int(ulp))
    _fold_features(classes, featureless)
    order = {kind: i for i, kind in enumerate(KINDS)}
    return sorted(
        classes.values(),
        key=lambda c: (c.backend, c.operation, order.get(c.kind, len(order)), c.cls),
    )
