"""One suite item's check, turned into pytest's outcome.

:func:`run_check` runs a check function of :mod:`conformance.suite` for a test
item: the item passes when the check found nothing or only classes of authorities
the run does not judge (``--judge``; its status is then ``differs``), is an expected
failure (``xfail``) when every judged deviation class it found is a known one, fails with the
classes' report otherwise, and reports an oracle failure as the oracle's fault,
never the backend's.  The failure is raised outside the ``except`` blocks, so
pytest shows the report alone (no chained traceback).
"""

from __future__ import annotations

import traceback
from typing import Any

import pytest

from conformance.judge.checker import HungCall, NonConformance, OracleFailed
from conformance.judge.runner import OracleError

__all__ = ["run_check"]


def _fail(checker: Any, text: str) -> None:
    """Fail the item, or mark it an expected failure when every class it found is known."""
    classes = getattr(checker, "classes", {})
    if classes and not checker.new_classes():
        known = sorted(
            {f"{e['operation']}@{e['class']}: {e['known']}" for e in classes.values()
             if e["known"] is not None}
        )  # fmt: skip
        if not known:  # only differences from authorities the run does not judge
            checker.status = "differs"
            return
        checker.xfail = "; ".join(known)
        first = text.splitlines()[0] if text else ""
        pytest.xfail(f"known deviation(s) {checker.xfail} -- {first}")
    pytest.fail(text, pytrace=False)


def _group_members(error: BaseException) -> list[BaseException]:
    found: list[BaseException] = []
    for member in getattr(error, "exceptions", ()):
        found.extend(_group_members(member) if hasattr(member, "exceptions") else [member])
    return found


def run_check(checker: Any, check: Any) -> None:
    """Run one check function for a test item and turn its outcome into pytest's.

    The failure is raised outside the ``except`` blocks, so pytest shows the
    report alone (no chained traceback).
    """

    text = None
    try:
        check(checker)
    except NonConformance as failure:
        checker.status, text = "failed", str(failure)
    except HungCall as hung:
        if hung.report.problem == "crash":  # the backend's host died; a fresh one goes on
            checker.status, text = "crash", f"CRASH (the run goes on)\n{hung}"
        else:
            checker.status, text = "timeout", f"TIMEOUT (the run goes on)\n{hung}"
    except (OracleError, OracleFailed) as error:
        checker.status = "oracle-error"
        if isinstance(error, OracleError):
            checker.oracle_failure(error)
        oracle_text = (
            f"ORACLE ERROR -- plancheck's oracle failed; this is NOT a backend failure, "
            f"please report it to plancheck:\n{error}"
        )
    except Exception as error:
        failures = [m for m in _group_members(error) if isinstance(m, NonConformance)]
        if not failures:
            checker.status = "error"
            checker.error_text = "".join(traceback.format_exception(error))[-4000:]
            raise
        checker.status = "failed"
        checker.failed += 1
        checker._keep(failures[0].report)
        text = (
            f"{failures[0]}\n\n(hypothesis: {type(error).__name__}, the failure is not "
            f"reproducible on every run)"
        )
    else:
        checker.status = "passed"
    if checker.status == "oracle-error":
        pytest.fail(oracle_text, pytrace=False)
    if text is not None:
        _fail(checker, text)
