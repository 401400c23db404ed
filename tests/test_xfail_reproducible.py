"""A ``--xfail`` run written from a report passes while the library is unchanged (issue 28).

The known-deviations file of a library (``docs/backends/NAME.xfail``) lists the classes
as the run's report names them.  These tests hold the places where an item's own view
could differ from the run's:

* an unexpected exception is named after a refused feature with the evidence of every
  check of the operation; one check alone may only see ``raises-<type>``
  (:meth:`Checker.known_as_refusal`);
* a crash or a hang stops one call, not the deterministic calls after it
  (:func:`conformance.judge.checks.check_boundary`), so a known crash leaves the
  coverage the measured run had.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import backends
from conformance.findings.failure import FailureReport
from conformance.findings.finding import Finding
from conformance.judge.checker import Checker, HungCall, NonConformance
from conformance.judge.checks import MAX_STOPPED_CALLS, _judge_all
from conformance.model.calls import Call
from oracle import DType, Tensor, resolvable_plans

pytest_plugins = ["pytester"]

SCATTER = next(p for p in resolvable_plans() if p.operation == "scatter")


def _scatter(base_shape, index_shape, index_values, update_shape):
    size = int(np.prod(update_shape, dtype=np.int64))
    return Call(
        "scatter",
        (
            Tensor(DType.Float32, base_shape, (0.0,) * int(np.prod(base_shape, dtype=np.int64))),
            Tensor(DType.Int32, index_shape, index_values),
            Tensor(DType.Float32, update_shape, (1.0,) * size),
            0,
        ),
        None,
        SCATTER,
    )


#: needs rank-0 (the index) and zero-size (the base and the update): no feature alone
EMPTY_RANK_0 = _scatter((4, 3, 0), (), (3,), (3, 0))
#: needs rank-0 alone
RANK_0 = _scatter((4, 3), (), (3,), (3,))


class _RefusesEmpty:
    """The cpu backend, but a zero-size scatter raises (as TensorFlow's does)."""

    def __init__(self):
        self.cpu = backends.get("cpu")
        self.from_tensor, self.to_tensor = self.cpu.from_tensor, self.cpu.to_tensor

    def execute(self, operation, *args, **options):
        if any(isinstance(a, np.ndarray) and a.size == 0 for a in args):
            raise RuntimeError("Indices and updates specified for empty output shape")
        return self.cpu.execute(operation, *args, **options)


def _checker(listed: set[str]) -> Checker:
    checker = Checker(_RefusesEmpty(), "r", SCATTER, "generated")

    def known(finding: Finding) -> str | None:
        return "listed" if f"{finding.operation}@{finding.cls}" in listed else None

    checker.known = known
    return checker


def _judged(checker: Checker, *calls: Call) -> Checker:
    for call in calls:
        checker.judge(call)
    with pytest.raises(NonConformance):
        checker.raise_findings()
    return checker


def test_a_refusal_listed_under_its_feature_is_not_new_in_a_check_that_cannot_name_it():
    """The run named the class ``scatter@rank-0`` (another check refused rank-0); this
    check sees only ``raises-RuntimeError`` on a call needing rank-0 and zero-size:
    the item is not failed for a name the run does not print."""
    checker = _judged(_checker({"scatter@rank-0"}), EMPTY_RANK_0)
    (entry,) = checker.classes.values()
    assert entry["class"] == "raises-RuntimeError"
    assert checker.new_classes() == []
    assert "as scatter@rank-0" in entry["known"]


def test_a_refusal_stays_new_when_no_listed_feature_covers_it():
    checker = _judged(_checker({"scatter@broadcasting"}), EMPTY_RANK_0)
    assert [e["class"] for e in checker.new_classes()] == ["raises-RuntimeError"]


def test_a_feature_this_check_saw_supported_does_not_cover_it():
    """A call needing rank-0 alone got a result: no run names the class rank-0 (a
    feature some check got a result for is refused nowhere), so the entry is new."""
    checker = _judged(_checker({"scatter@rank-0"}), RANK_0, EMPTY_RANK_0)
    assert [e["class"] for e in checker.new_classes()] == ["raises-RuntimeError"]
    # listed under the feature the run can name it after, zero-size, it is known
    checker = _judged(_checker({"scatter@zero-size"}), RANK_0, EMPTY_RANK_0)
    assert checker.new_classes() == []


CRASHES_ON_EMPTY = """
import os
import json

import numpy as np
from backends.cpu import CPUBackend, KERNELS


def _neg(backend, plan, x):
    if np.asarray(x).size == 0:
        os._exit(17)
    return KERNELS["neg"](backend, plan, x)


class CrashesOnEmpty(CPUBackend):
    name = "crashes-on-empty"
    kernels = {**KERNELS, "neg": _neg}
"""


def test_a_known_crash_hides_no_call_behind_it(pytester):
    """neg kills its process on a zero-size operand: the boundary calls after that one
    are judged by a fresh host, the coverage is whole, and a run listing the crash
    exits 0 -- as the library's measured run would have it."""
    pytester.makepyfile(outside=CRASHES_ON_EMPTY)
    pytester.makeini("[pytest]\n")
    pytester.syspathinsert()
    known = pytester.path / "known.txt"
    known.write_text("neg@crash: the library dies on an empty tensor\n", encoding="utf-8")
    report = pytester.path / "out.json"
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--plancheck-backend", "outside:CrashesOnEmpty",
        "--plancheck-op", "neg", "--plancheck-xfail", str(known),
        "--plancheck-report", str(report), timeout=240,
    )  # fmt: skip
    data = json.loads(report.read_text(encoding="utf-8"))
    assert result.ret == 0, result.stdout.str()[-3000:]
    assert data["coverage"]["outside:CrashesOnEmpty"]["complete"]
    (crash,) = data["deviation_classes"]
    assert (crash["class"], crash["known"] is not None) == ("crash", True)
    assert crash["count"] >= 1


class _Stub:
    """What ``_judge_all`` asks of a checker: ``judge`` hangs on the calls named."""

    def __init__(self, hanging):
        self.hanging, self.judged, self.stopped, self.oracle_errors = set(hanging), [], [], []

    def judge(self, call):
        self.judged.append(call)
        if call in self.hanging:
            raise HungCall(FailureReport("stub", "neg", "plan", "timeout", f"<call {call}>"))
        return []

    def raise_findings(self):
        if self.stopped:
            raise self.stopped[0]


def test_a_deterministic_list_goes_on_after_a_hang_and_raises_it_at_the_end():
    # five hangs spread over thirty calls (paddle's Int32 pow): every call is judged
    stub = _Stub({3, 6, 17, 18, 28})
    with pytest.raises(HungCall, match="<call 3>"):
        _judge_all(stub, range(30))
    assert stub.judged == list(range(30)) and len(stub.stopped) == 5


def test_a_list_stops_at_the_third_hang_in_a_row_or_the_eighth_in_all():
    stub = _Stub(range(10, 30))  # every call from the tenth on hangs
    with pytest.raises(HungCall, match="<call 10>"):
        _judge_all(stub, range(30))
    assert stub.judged == list(range(13))  # stopped at the third in a row, the first raised
    stub = _Stub(range(0, 30, 2))  # every other call hangs
    with pytest.raises(HungCall, match="<call 0>"):
        _judge_all(stub, range(30))
    assert len(stub.stopped) == MAX_STOPPED_CALLS == 8 and stub.judged == list(range(15))
