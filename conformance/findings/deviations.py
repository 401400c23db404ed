"""The known-deviations file (``--xfail FILE``, ``--plancheck-xfail FILE``).

A file lists the deviations a team already knows about, each with a reason,
so a run fails only on *new* classes.  Three spellings (see
:func:`load_deviations`): plain text, TOML and JSON.  A file that cannot be
read, is not valid in its format, has entries of the wrong shape, or names an
unknown operation, plan, class or feature is a usage error
(:class:`pytest.UsageError`, exit 2 from ``plancheck run``) whose message names
the file and the entry -- never a traceback.
"""

from __future__ import annotations

import fnmatch
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

# TOML known-deviations files
if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    try:
        import tomli as tomllib
    except ImportError:
        tomllib = None

from conformance.findings.authority import AUTHORITIES, FOLDED, authority_of, reported_class
from conformance.findings.finding import _all_spellings, class_spelling_problem
from conformance.model.capabilities import FEATURES, parse_features
from conformance.model.sanitize import terminal_text
from oracle import registered_operations, resolvable_plans

__all__ = ["Deviation", "load", "load_deviations", "load_unsupported"]

#: a known-deviations file larger than this is refused (a real one is a few kB)
MAX_FILE_BYTES = 4_000_000


#: the characters that make a selector part a pattern (fnmatch; ``[`` stays literal)
_GLOB = "*?"


def _is_pattern(text: str | None) -> bool:
    return text is not None and any(c in text for c in _GLOB)


@dataclass(frozen=True)
class Deviation:
    """A known deviation: *operation* (a name, or a pattern such as ``*``), optionally
    one *plan* or several *plans* (their ``describe()``), one deviation *cls* (as
    reports spell it, e.g. ``wrong-value:signed-zero``, or a pattern such as
    ``wrong-exception:*``), one *authority* (every class resting on it:
    ``convention``) and one *backend* label, with a *reason*.  Without a class or an
    authority it covers every class of the operation (or plans).

    A class spelt as an earlier plancheck spelt it covers the class it is now folded
    into (``exp@wrong-value:1-ulp`` covers ``exp@wrong-value:accuracy``,
    ``reduce_sum@wrong-exception:error-bad-axis`` covers
    ``reduce_sum@wrong-exception:convention``:
    :func:`conformance.findings.authority.reported_class`)."""

    operation: str
    reason: str
    plan: str | None = None
    backend: str | None = None
    cls: str | None = None
    plans: tuple[str, ...] = ()
    authority: str | None = None

    @property
    def selector(self) -> str:
        named = (self.plan,) if self.plan else self.plans
        text = self.operation + (f"/{' | '.join(named)}" if named else "")
        if self.cls:
            text += f"@{self.cls}"
        elif self.authority:
            text += f"@authority:{self.authority}"
        return text + (f" (backend {self.backend})" if self.backend else "")

    def _operation_ok(self, operation: str) -> bool:
        if _is_pattern(self.operation):
            return fnmatch.fnmatchcase(operation, self.operation)
        return operation == self.operation

    def _plan_ok(self, plan: str) -> bool:
        if self.plan is not None:
            return plan == self.plan
        return not self.plans or plan in self.plans

    def _class_ok(
        self, operation: str, plan: str, cls: str, raised: str | None, authority: str | None
    ) -> bool:
        if self.authority is not None:
            if authority is None:
                authority = authority_of(cls, operation, plan).name
            if authority != self.authority:
                return False
        if self.cls is None or self.cls == cls:
            return True
        if _is_pattern(self.cls):
            return fnmatch.fnmatchcase(cls, self.cls)
        if raised is not None and cls in FEATURES and self.cls == f"raises-{raised}":
            return True
        if self.cls in FOLDED and cls in FOLDED[self.cls]:  # shape-or-dtype: shape, dtype
            return True
        return reported_class(self.cls, operation, plan) == cls  # an earlier spelling

    def matches(self, label: str, plan: Any) -> bool:
        return (
            self._operation_ok(plan.operation)
            and self._plan_ok(plan.describe())
            and (self.backend is None or self.backend == label)
        )

    def covers(
        self, label: str, operation: str, plan: str, cls: str, raised: str | None = None,
        authority: str | None = None,
    ) -> bool:  # fmt: skip
        """Whether this entry covers the class *cls* of *plan* on backend *label*.

        *raised*: the exception type an unexpected-exception class's calls raised.
        An entry ``OP@raises-<type>`` covers every unexpected exception of that type,
        whatever refused feature its class is named after (``OP@rank-0``): the report
        folds such feature classes into ``raises-<type>``
        (:func:`conformance.findings.finding.group`), so the class the report
        prints covers all of its calls.  *authority*: the class's authority (from the
        table when not given).  An entry naming plans covers only those: the class on
        another plan is new.
        """
        return (
            self._operation_ok(operation)
            and self._plan_ok(plan)
            and (self.backend is None or self.backend == label)
            and self._class_ok(operation, plan, cls, raised, authority)
        )


def _split_selector(selector: str) -> tuple[str, tuple[str, ...], str | None]:
    """``operation[/plan[ | plan ...]][@class]`` -> (operation, plans, class)."""
    rest, at, cls = selector.rpartition("@")
    if not at:
        rest, cls = selector, ""
    operation, _, plan = rest.partition("/")
    plans = tuple(p.strip() for p in plan.split(" | ") if p.strip())
    return operation.strip(), plans, cls.strip() or None


def _entry(operation: str, reason: str, plans: tuple[str, ...], backend: str | None,
           cls: str | None, authority: str | None = None) -> Deviation:  # fmt: skip
    """A :class:`Deviation`; ``authority:NAME`` as the class or the selector names an
    authority."""
    if operation.startswith("authority:") and cls is None and not plans:
        operation, authority = "*", operation.partition(":")[2].strip()
    if cls is not None and cls.startswith("authority:"):
        authority = cls.partition(":")[2].strip()
        cls = None
    plan = plans[0] if len(plans) == 1 else None
    return Deviation(operation, reason, plan, backend, cls, () if plan else plans, authority)


def _deviation(entry: Any, where: str) -> Deviation:
    if not isinstance(entry, dict) or not ("operation" in entry or "authority" in entry):
        shown = terminal_text(repr(entry), 200)
        raise pytest.UsageError(
            f"{where}: each entry needs an 'operation' (or an 'authority') (got {shown})"
        )
    unknown = set(entry) - {"operation", "plan", "plans", "backend", "reason", "class",
                            "authority"}  # fmt: skip
    if unknown:
        raise pytest.UsageError(f"{where}: unknown keys {terminal_text(sorted(unknown), 200)}")
    for key in ("operation", "plan", "backend", "reason", "class", "authority"):
        value = entry.get(key)
        if value is not None and not isinstance(value, str):
            raise pytest.UsageError(
                f"{where}: {key!r} must be a string, got {type(value).__name__}"
            )
    plans = entry.get("plans") or []
    if not isinstance(plans, list) or not all(isinstance(p, str) for p in plans):
        raise pytest.UsageError(f"{where}: 'plans' must be a list of strings")
    if entry.get("plan"):
        plans = [entry["plan"], *plans]
    return _entry(
        entry.get("operation") or "*", entry.get("reason") or "", tuple(plans),
        entry.get("backend"), entry.get("class"), entry.get("authority"),
    )  # fmt: skip


def load_deviations(path: str | Path) -> list[Deviation]:
    """Read a known-deviations file (its ``unsupported`` entries: :func:`load_unsupported`).

    * text (any other suffix): one ``operation[/plan[ | plan ...]][@class]:
      reason`` per line, the class spelled as reports print it (the report's
      "paste as" line, which names the plans a class was seen on); ``#`` starts a
      comment line; ``unsupported: FEATURE[, FEATURE ...]`` declares features.
      Patterns: the operation and the class may hold ``*``, ``?`` and ``[...]``
      (``*@wrong-exception:*``: every wrong exception type of every operation), and
      ``@authority:NAME`` (or a line ``authority:NAME: reason``) covers every class
      resting on that authority (``specification``, ``reference``, ``convention``);
    * ``.toml``: ``[[deviation]]`` tables with ``operation``, optional
      ``plan`` or ``plans`` (a list), ``class``, ``authority``, ``backend``, and
      ``reason``; ``unsupported = [...]``;
    * ``.json``: a list of such objects, or ``{"deviations": [...],
      "unsupported": [...]}``.

    Unknown operations, plans, class spellings and features are a usage error.
    """
    return load(path)[0]


def load_unsupported(path: str | Path) -> frozenset[str]:
    """The features the known-deviations file at *path* declares unsupported."""
    return load(path)[1]


def _parse(path: Path, text: str) -> tuple[list[Deviation], frozenset[str]]:

    entries: list[Deviation] = []
    features: list[str] = []
    if path.suffix.lower() == ".toml":
        if tomllib is None:  # pragma: no cover - Python 3.10 without tomli
            raise pytest.UsageError(
                "--plancheck-xfail: TOML needs Python 3.11 or the tomli package"
            )
        try:
            data = tomllib.loads(text)
        except Exception as error:
            raise pytest.UsageError(f"{path}: not valid TOML: {error}") from None
        for number, entry in enumerate(_listed(data.get("deviation", []), path), 1):
            entries.append(_deviation(entry, f"{path} [[deviation]] {number}"))
        features.extend(_listed(data.get("unsupported", []), path, str))
    elif path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise pytest.UsageError(f"{path}: not valid JSON: {error}") from None
        items = data.get("deviations", []) if isinstance(data, dict) else data
        for number, entry in enumerate(_listed(items, path), 1):
            entries.append(_deviation(entry, f"{path} entry {number}"))
        if isinstance(data, dict):
            features.extend(_listed(data.get("unsupported", []), path, str))
    else:
        for number, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            head, colon, tail = line.partition(":")
            if head.strip() == "unsupported" and colon:
                features.append(tail)
                continue
            # the reason follows the first ': ' after the selector (a class may hold ':')
            at = line.find("@")
            search_from = at if at >= 0 else 0
            cut = line.find(": ", search_from)
            if cut < 0 and line.endswith(":"):
                cut = len(line) - 1
            if cut < 0 and at < 0:
                cut = line.find(":")
            if cut < 0:
                raise pytest.UsageError(
                    f"{path}:{number}: expected 'operation[/plan][@class]: reason', got "
                    f"{terminal_text(repr(line), 200)}"
                )
            operation, plans, cls = _split_selector(line[:cut])
            entries.append(_entry(operation, line[cut + 1 :].strip(), plans, None, cls))
    for entry in entries:
        problem = _entry_problem(entry)
        if problem is not None:
            raise pytest.UsageError(f"{path}: {problem}")

    try:
        declared = parse_features(features, f"{path}: unsupported")
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None
    return entries, declared


def _entry_problem(entry: Deviation) -> str | None:
    """Why *entry* names nothing plancheck knows (None when it is well formed): an
    unknown operation (or a pattern matching none), plan, class (or a class pattern
    matching no spelling) or authority."""
    known = sorted(spec.name for spec in registered_operations())
    plans = {p.describe() for p in resolvable_plans()}
    if _is_pattern(entry.operation):
        if not fnmatch.filter(known, entry.operation):
            shown = terminal_text(repr(entry.operation), 200)
            return f"the operation pattern {shown} matches no operation"
    elif entry.operation not in known:
        return f"unknown operation {terminal_text(repr(entry.operation), 200)}"
    for plan in (entry.plan,) if entry.plan else entry.plans:
        if plan not in plans:
            shown = terminal_text(repr(plan), 200)
            return f"unknown plan {shown} (see `plancheck plans`)"
    if entry.authority is not None and entry.authority not in AUTHORITIES:
        return (
            f"{terminal_text(entry.selector, 200)}: unknown authority "
            f"{terminal_text(repr(entry.authority), 200)}; expected one of {', '.join(AUTHORITIES)}"
        )
    if entry.cls is None:
        return None
    if _is_pattern(entry.cls):
        spellings = [*_all_spellings(), "raises-Exception", "warning:RuntimeWarning"]
        if not fnmatch.filter(spellings, entry.cls):
            return (
                f"{terminal_text(entry.selector, 200)}: the class pattern "
                f"{terminal_text(repr(entry.cls), 200)} matches no deviation class"
            )
        return None
    problem = class_spelling_problem(entry.cls)
    if problem is not None:
        return f"{terminal_text(entry.selector, 200)}: {terminal_text(problem, 2000)}"
    return None


def _listed(value: Any, path: Path, kind: type | None = None) -> list[Any]:
    """*value* when it is a list (of *kind* items, when given); a usage error otherwise."""
    if not isinstance(value, list) or (kind and not all(isinstance(v, kind) for v in value)):
        what = "a list" if kind is None else f"a list of {kind.__name__}"
        raise pytest.UsageError(f"{path}: expected {what}, got {type(value).__name__}")
    return value


def load(path: str | Path) -> tuple[list[Deviation], frozenset[str]]:
    """The deviations and the unsupported features of the file at *path*."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise pytest.UsageError(
                f"{path}: {size} bytes; a known-deviations file is at most {MAX_FILE_BYTES}"
            )
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise pytest.UsageError(f"cannot read the known-deviations file {path}: {error}") from None
    except UnicodeDecodeError as error:
        raise pytest.UsageError(f"{path}: not UTF-8 text ({error})") from None
    try:
        return _parse(path, text)
    except RecursionError:
        raise pytest.UsageError(f"{path}: nested too deeply") from None
