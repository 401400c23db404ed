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

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

try:  # TOML known-deviations files
    import tomllib
except ImportError:  # pragma: no cover - Python 3.10
    try:
        import tomli as tomllib  # type: ignore[no-redef]
    except ImportError:
        tomllib = None  # type: ignore[assignment]

from conformance.findings.finding import class_spelling_problem
from conformance.model.capabilities import FEATURES, parse_features
from conformance.model.sanitize import terminal_text
from oracle import registered_operations, resolvable_plans

__all__ = ["Deviation", "load", "load_deviations", "load_unsupported"]

#: a known-deviations file larger than this is refused (a real one is a few kB)
MAX_FILE_BYTES = 4_000_000


@dataclass(frozen=True)
class Deviation:
    """A known deviation: *operation*, optionally one *plan* (its ``describe()``),
    one deviation *cls* (as reports spell it, e.g. ``wrong-value:signed-zero``)
    and one *backend* label, with a *reason*.  Without a class it covers every
    class of the operation (or plan)."""

    operation: str
    reason: str
    plan: str | None = None
    backend: str | None = None
    cls: str | None = None

    @property
    def selector(self) -> str:
        text = self.operation + (f"/{self.plan}" if self.plan else "")
        text += f"@{self.cls}" if self.cls else ""
        return text + (f" (backend {self.backend})" if self.backend else "")

    def matches(self, label: str, plan: Any) -> bool:
        return (
            plan.operation == self.operation
            and (self.plan is None or plan.describe() == self.plan)
            and (self.backend is None or self.backend == label)
        )

    def covers(
        self, label: str, operation: str, plan: str, cls: str, raised: str | None = None
    ) -> bool:
        """Whether this entry covers the class *cls* of *plan* on backend *label*.

        *raised*: the exception type an unexpected-exception class's calls raised.
        An entry ``OP@raises-<type>`` covers every unexpected exception of that type,
        whatever refused feature its class is named after (``OP@rank-0``): the report
        folds such feature classes into ``raises-<type>``
        (:func:`conformance.findings.finding.group`), so the class the report
        prints covers all of its calls.
        """
        named = self.cls is None or cls == self.cls
        if not named and raised is not None and cls in FEATURES:
            named = self.cls == f"raises-{raised}"
        return (
            operation == self.operation
            and (self.plan is None or plan == self.plan)
            and named
            and (self.backend is None or self.backend == label)
        )


def _split_selector(selector: str) -> tuple[str, str | None, str | None]:
    """``operation[/plan][@class]`` -> (operation, plan, class)."""
    rest, at, cls = selector.rpartition("@")
    if not at:
        rest, cls = selector, ""
    operation, _, plan = rest.partition("/")
    return operation.strip(), plan.strip() or None, cls.strip() or None


def _deviation(entry: Any, where: str) -> Deviation:
    if not isinstance(entry, dict) or "operation" not in entry:
        shown = terminal_text(repr(entry), 200)
        raise pytest.UsageError(f"{where}: each entry needs an 'operation' (got {shown})")
    unknown = set(entry) - {"operation", "plan", "backend", "reason", "class"}
    if unknown:
        raise pytest.UsageError(f"{where}: unknown keys {terminal_text(sorted(unknown), 200)}")
    for key in ("operation", "plan", "backend", "reason", "class"):
        value = entry.get(key)
        if value is not None and not isinstance(value, str):
            raise pytest.UsageError(
                f"{where}: {key!r} must be a string, got {type(value).__name__}"
            )
    return Deviation(
        entry["operation"], entry.get("reason") or "", entry.get("plan"),
        entry.get("backend"), entry.get("class"),
    )  # fmt: skip


def load_deviations(path: str | Path) -> list[Deviation]:
    """Read a known-deviations file (its ``unsupported`` entries: :func:`load_unsupported`).

    * text (any other suffix): one ``operation[/plan description][@class]:
      reason`` per line, the class spelled as reports print it; ``#`` starts a
      comment line; ``unsupported: FEATURE[, FEATURE ...]`` declares features;
    * ``.toml``: ``[[deviation]]`` tables with ``operation``, optional
      ``plan``, ``class``, ``backend``, and ``reason``; ``unsupported = [...]``;
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
            operation, plan, cls = _split_selector(line[:cut])
            entries.append(Deviation(operation, line[cut + 1 :].strip(), plan, None, cls))
    known = {spec.name for spec in registered_operations()}
    plans = {p.describe() for p in resolvable_plans()}
    for entry in entries:
        if entry.operation not in known:
            shown = terminal_text(repr(entry.operation), 200)
            raise pytest.UsageError(f"{path}: unknown operation {shown}")
        if entry.plan is not None and entry.plan not in plans:
            shown = terminal_text(repr(entry.plan), 200)
            raise pytest.UsageError(f"{path}: unknown plan {shown} (see `plancheck plans`)")
        problem = None if entry.cls is None else class_spelling_problem(entry.cls)
        if problem is not None:
            raise pytest.UsageError(
                f"{path}: {terminal_text(entry.selector, 200)}: {terminal_text(problem, 2000)}"
            )

    try:
        declared = parse_features(features, f"{path}: unsupported")
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None
    return entries, declared


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
