"""The words behind each deviation class, for the survey page.

Where two libraries disagree on an operation, the survey
(:mod:`conformance.report.survey`) says which one the specification supports
and quotes the rule that decides it.  The rules are the judge's own
(:mod:`conformance.findings.authority`, one table): each class rests on a SHALL
of the policy (``operation-dtype-policy.txt``, cited by its requirement's
heading), a value rule of the reference semantics it delegates the values to
(``reference-semantics.md``, cited by its section, with what it rests on: IEEE
754-2019, C99 Annex F or the reference document), or a convention of plancheck's
(``docs/semantics/conventions.md``, with why it was chosen).  :func:`clause_for`
picks the rule of one class spelling (``wrong-value:signed-zero``,
``missing-exception:error-bad-axis``, ``zero-size`` ...) of an operation; a class
the table cannot place without its operation gets :data:`GENERAL`.
"""

from __future__ import annotations

from typing import Any

from conformance.findings import authority as _authority
from conformance.findings.authority import Authority, authority_of

__all__ = ["CLAUSES", "GENERAL", "Clause", "clause_for"]

#: one quoted rule (the judge's :class:`~conformance.findings.authority.Authority`:
#: ``document``, ``section``, ``text`` verbatim, ``name`` the authority, ``cite()``)
Clause = Authority

#: what the reference is, for a class with no rule of its own
GENERAL = _authority.R_GENERAL

#: every quoted rule of the specification and the reference, by its name in
#: :mod:`conformance.findings.authority` (``S_BINARY32``, ``R_MAXMIN`` ...), and every
#: convention by its key
CLAUSES: dict[str, Authority] = {
    **{
        name: value
        for name, value in vars(_authority).items()
        if isinstance(value, Authority) and name[:2] in ("S_", "R_")
    },
    **_authority.CONVENTION_RULES,
}


def clause_for(cls: str, operation: str = "", plan: Any = None) -> Authority:
    """The rule that decides class *cls* of *operation* (on *plan*, its description or
    None): the judge's authority table; :data:`GENERAL` when the table needs the
    operation to place the class and none is given."""
    try:
        return authority_of(cls, operation, plan)
    except LookupError:
        return GENERAL
