"""The conformance survey of outside libraries: one grid from their committed reports.

:func:`load_survey` reads the ``plancheck-report/1`` documents
``docs/backends/<backend>.json`` of the outside libraries
(:data:`SURVEY_LIBRARIES`, those whose report exists) and builds a
:class:`Survey`: per library its facts and, per operation, whether it
conforms on every plan or which deviation classes it showed.
:func:`render_markdown` writes the page (``docs/survey.md``);
:mod:`conformance.report.survey_html` the HTML version with the heat map.
``plancheck survey`` (:mod:`conformance.cli.survey`) is the one command that
regenerates both.

Where the facts come from:

* the report: the operations, their status and classes, the profile, the
  date (``started``), ``plancheck_version`` and ``backend_versions`` when
  the report carries them (reports written before they existed do not);
* the README's table "Outside libraries, measured" (one row per library,
  ``| `backend` | library | N of 56 | headline | [table](...) |``): the
  library as measured (version, threads, device) and the headline deviations
  in a sentence; a library with no row there says so;
* ``docs/backends/<backend>.md``: the machine, from its ``| machine | ... |``
  row or its ``* library: ...`` bullet (the two forms the tables use), and the
  library in bold on that line when the README has no row for it yet;
* ``docs/backends/<backend>_repro.py``: whether every class has a
  reproduction beside the table (``tests/test_survey_reproductions.py``).

Where libraries disagree on an operation (one conforms and another does not,
or they deviate with different classes) the page lists each class with the
clause of the specification that decides it (:mod:`conformance.report.spec_clauses`):
the library that conforms is the one the specification supports; when none
does, the clause says what all of them should do.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.findings.authority import AUTHORITIES, reported_class
from conformance.findings.deviations import load_deviations
from conformance.report import survey_headline, survey_upstream
from conformance.report.spec_clauses import clause_for
from oracle.planner import resolvable_plans

__all__ = [
    "COMPOSED",
    "CONFORMS",
    "NOT_MEASURED",
    "SURVEY_LIBRARIES",
    "Disagreement",
    "LibraryTable",
    "Survey",
    "SurveyError",
    "load_survey",
    "readme_table",
    "render_markdown",
    "with_readme_table",
]

#: the outside libraries of the survey, in the page's column order (backend names)
SURVEY_LIBRARIES = (
    "numpy-native",
    "torch",
    "jax",
    "tensorflow",
    "onnxruntime",
    "paddle",
    "array-api-strict",
    "mlx",
)

#: a cell of an operation the library conforms on, on every plan
CONFORMS = "conforms"
#: a cell of an operation the report has no row for (not run, or never judged)
NOT_MEASURED = "not measured"
#: a cell of an operation whose only classes are the adapter's composition's
COMPOSED = "adapter's composition"

_REPORT_FORMAT = "plancheck-report/1"
_README_ROW = re.compile(r"^\|\s*`(?P<backend>[^`]+)`\s*\|(?P<cells>.*)\|\s*$")
_MACHINE_ROW = re.compile(r"^\|\s*machine\s*\|\s*(?P<machine>.+?)\s*\|\s*$", re.MULTILINE)
_LIBRARY_BULLET = re.compile(r"^\* library: (?P<text>.+?)(?=^\*|^$)", re.MULTILINE | re.DOTALL)
_LIBRARY_BOLD = re.compile(
    r"^(?:\* library:|\|\s*library\s*\|)\s*\*\*(?P<name>[^*]+)\*\*", re.MULTILINE
)


class SurveyError(ValueError):
    """A report the survey cannot read (not JSON, not a plancheck report, not of its backend)."""


@dataclass(frozen=True)
class LibraryTable:
    """One library's published table, as the survey shows it.

    *cells* maps every operation to :data:`CONFORMS`, :data:`NOT_MEASURED`,
    :data:`COMPOSED` (only the adapter's composition deviates) or
    the sorted tuple of its deviation classes (spelt as the report spells them).
    """

    backend: str
    library: str
    headline: str
    machine: str
    date: str
    profile: str
    plancheck_version: str
    cells: Mapping[str, str | tuple[str, ...]]
    class_count: int
    has_reproductions: bool
    #: the library's classes per authority (the adapter's compositions left out)
    authority_counts: Mapping[str, int] = field(default_factory=dict)
    #: whether the report records the library's configuration: measured on the code of
    #: issue 27 and 28 (a report without it was measured on the old code)
    remeasured: bool = False
    #: the classes of the adapter's compositions (operations it builds from several calls)
    composed_classes: int = 0
    #: operation -> calls the adapter could not map (``NotMeasured``)
    not_measured: Mapping[str, int] = field(default_factory=dict)
    #: ``operation@class`` of every library class of the report
    class_keys: frozenset[str] = frozenset()
    #: the classes the headline names (its least accurate result's, its largest distance's)
    headline_classes: tuple[str, ...] = ()
    #: ``operation@class`` -> its authority (``specification``, ``reference``, ``convention``)
    authorities: Mapping[str, str] = field(default_factory=dict)
    #: ``operation@class`` -> why no call of the library alone shows it (``NOT_ALONE``)
    not_alone: Mapping[str, str] = field(default_factory=dict)
    #: the classes the library shows only in some runs (``<backend>.intermittent``):
    #: ``(operation@class, reason)`` in the file's order, and the file's evidence (its
    #: comment lines, joined)
    intermittent: tuple[tuple[str, str], ...] = ()
    intermittent_evidence: str = ""

    @property
    def conforming(self) -> int:
        """Operations conforming on every plan."""
        return sum(1 for cell in self.cells.values() if cell == CONFORMS)

    @property
    def without_violation(self) -> int:
        """Operations with no class resting on the specification or the reference: they
        conform, or differ only from plancheck's conventions (a difference, not a violation)."""
        return sum(
            1
            for operation, cell in self.cells.items()
            if cell == CONFORMS
            or (
                isinstance(cell, tuple)
                and all(self.authorities.get(f"{operation}@{c}") == "convention" for c in cell)
            )
        )

    @property
    def measured(self) -> int:
        return sum(1 for cell in self.cells.values() if cell != NOT_MEASURED)


@dataclass(frozen=True)
class Disagreement:
    """An operation on which the libraries' outcomes differ.

    *supported*: the libraries that conform (the ones the specification
    supports; empty when none does); *deviating*: library -> its classes;
    *clauses*: class -> the clause that decides it, cited.
    """

    operation: str
    supported: tuple[str, ...]
    deviating: Mapping[str, tuple[str, ...]]
    clauses: Mapping[str, str] = field(default_factory=dict)

    def verdict(self, name: Callable[[str], str] = lambda b: f"`{b}`") -> str:
        """Which libraries the specification supports, in a sentence (no final stop);
        *name* writes a backend's name (Markdown code by default)."""
        if self.supported:
            names = ", ".join(name(b) for b in self.supported)
            verb = "conforms" if len(self.supported) == 1 else "conform"
            return f"The specification supports {names}, which {verb}; the others deviate"
        alike: dict[tuple[str, ...], list[str]] = {}
        for backend, classes in self.deviating.items():
            alike.setdefault(classes, []).append(name(backend))
        groups = [" and ".join(names) for names in alike.values()]
        return (
            "No library conforms, so the specification supports none of them; they deviate "
            f"in {len(groups)} different ways ({'; '.join(groups)})"
        )


@dataclass(frozen=True)
class Survey:
    """The libraries (in :data:`SURVEY_LIBRARIES` order) and the operations (policy order)."""

    libraries: tuple[LibraryTable, ...]
    operations: tuple[str, ...]

    def disagreements(self) -> list[Disagreement]:
        """Each operation where two measured libraries' cells differ."""
        found = []
        for operation in self.operations:
            cells = {t.backend: t.cells[operation] for t in self.libraries}
            measured = {b: c for b, c in cells.items() if c != NOT_MEASURED}
            if len(set(measured.values())) < 2:
                continue
            deviating = {b: c for b, c in measured.items() if isinstance(c, tuple)}
            classes = sorted({cls for c in deviating.values() for cls in c})
            found.append(
                Disagreement(
                    operation,
                    tuple(b for b, c in measured.items() if c == CONFORMS),
                    deviating,
                    {cls: _cited(clause_for(cls, operation)) for cls in classes},
                )
            )
        return found


def _cited(clause: Any) -> str:
    """``specification: "<text>" (<document>, <section>)``: the rule with its authority."""
    return f"{clause.label}: {clause.cite()}"


def policy_operations() -> tuple[str, ...]:
    """Every registered operation, in the order the policy enumerates its plans."""
    return tuple(dict.fromkeys(plan.operation for plan in resolvable_plans()))


def _read_report(path: Path, backend: str) -> Mapping[str, Any]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise SurveyError(f"{path}: not a readable JSON report ({error})") from None
    if not isinstance(document, dict) or document.get("format") != _REPORT_FORMAT:
        raise SurveyError(f"{path}: not a {_REPORT_FORMAT} document")
    if backend not in (document.get("backends") or ()):
        raise SurveyError(f"{path}: a report of {document.get('backends')}, not of {backend!r}")
    if not document.get("complete"):
        raise SurveyError(f"{path}: an incomplete run (interrupted); measure it again")
    return document


def _library_classes(document: Mapping[str, Any], backend: str) -> list[dict[str, str]]:
    """The deviation classes of *backend* that are the library's, as (``operation``,
    ``class``, ``authority``): one class per cause (a report of an earlier plancheck is
    folded as the judge folds, :func:`~conformance.findings.authority.reported_class`),
    without those of the adapter's composition (``composed``)."""
    found: dict[tuple[str, str], str] = {}
    for entry in document.get("deviation_classes") or ():
        if entry.get("backend", backend) != backend or entry.get("composed"):
            continue
        operation = str(entry["operation"])
        plan = entry.get("plan") or (entry.get("plans") or [None])[0]
        cls = reported_class(str(entry["class"]), operation, plan)
        authority = entry.get("authority") if cls == entry["class"] else None
        found.setdefault((operation, cls), authority or clause_for(cls, operation, plan).name)
    return [{"operation": o, "class": c, "authority": a} for (o, c), a in found.items()]


def authority_counts_of(document: Mapping[str, Any], backend: str) -> dict[str, int]:
    """The library's classes per authority (``specification``, ``reference``,
    ``convention``)."""
    counts = dict.fromkeys(AUTHORITIES, 0)
    for entry in _library_classes(document, backend):
        counts[entry["authority"]] = counts.get(entry["authority"], 0) + 1
    return counts


def _cells(document: Mapping[str, Any], backend: str, operations: Sequence[str]) -> dict[str, Any]:
    classes: dict[str, set[str]] = {}
    for entry in _library_classes(document, backend):
        classes.setdefault(str(entry["operation"]), set()).add(str(entry["class"]))
    composed = {
        str(c["operation"])
        for c in document.get("deviation_classes") or ()
        if c.get("backend", backend) == backend and c.get("composed")
    }
    rows = (document.get("table") or {}).get(backend) or {}
    cells: dict[str, Any] = {}
    for operation in operations:
        row = rows.get(operation)
        if operation in classes:
            cells[operation] = tuple(sorted(classes[operation]))
        elif row is None or not (row.get("examples") or row.get("corpus_cases")):
            cells[operation] = NOT_MEASURED
        elif row.get("status") == CONFORMS:
            cells[operation] = CONFORMS
        elif operation in composed:  # its classes are the adapter's, not the library's
            cells[operation] = COMPOSED
        else:  # a failure without a class: a crash, a timeout, a pytest error
            cells[operation] = (str(row.get("status", "FAIL")),)
    return cells


def readme_rows(readme: Path) -> dict[str, tuple[str, str]]:
    """backend -> (library, headline) from the README's "Outside libraries, measured" table."""
    try:
        text = readme.read_text(encoding="utf-8")
    except OSError:
        return {}
    _, _, section = text.partition("## Outside libraries, measured")
    section = section.split("\n## ", 1)[0]
    found = {}
    for line in section.splitlines():
        match = _README_ROW.match(line.strip())
        if match:
            cells = [c.strip() for c in match["cells"].split("|")]
            if len(cells) >= 3:
                found[match["backend"]] = (cells[0], cells[2])
    return found


def _top_level_parts(text: str) -> list[str]:
    """*text* split at the ``"; "`` outside parentheses."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and text.startswith("; ", i):
            parts.append(text[start:i])
            start = i + 2
    return [*parts, text[start:]]


def _page_text(page: Path) -> str | None:
    try:
        return page.read_text(encoding="utf-8")
    except OSError:
        return None


def machine_of(page: Path) -> str:
    """The machine a library's page states (``| machine | ... |`` or the last part of
    its ``* library: ...`` bullet, split at the semicolons outside parentheses)."""
    text = _page_text(page)
    if text is None:
        return f"not stated ({page.name} is missing)"
    match = _MACHINE_ROW.search(text)
    if match:
        return match["machine"]
    match = _LIBRARY_BULLET.search(text)
    if match:  # "library and version ...; Python, OS, cores": the machine is the last part
        return _top_level_parts(" ".join(match["text"].split()).rstrip(";"))[-1]
    return f"not stated in {page.name}"


def library_of(page: Path) -> str | None:
    """The library and version a page names in bold on its library line, or None."""
    match = _LIBRARY_BOLD.search(_page_text(page) or "")
    return match["name"].strip() if match else None


#: what the library column says of a report measured before issue 28
_OLD_CODE = " -- measured on the old code (before issue 27), not re-measured"


def not_alone_of(module: Path) -> dict[str, str]:
    """The ``NOT_ALONE`` literal of a reproduction module (read, never imported: it
    imports its library): the classes no call of the library alone shows, with why."""
    try:
        tree = ast.parse(module.read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return {}
    for node in tree.body:
        target: ast.expr
        if isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        elif isinstance(node, ast.Assign) and node.targets:
            target, value = node.targets[0], node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == "NOT_ALONE" and value is not None:
            return {str(k): str(v) for k, v in ast.literal_eval(value).items()}
    return {}


def intermittent_of(path: Path) -> tuple[tuple[tuple[str, str], ...], str]:
    """The classes of a ``<backend>.intermittent`` file (``survey_xfail``'s format:
    ``selector: reason`` lines, ``#`` comments) as ``(operation@class, reason)``, and its
    comment lines joined as the evidence; nothing when there is no such file."""
    if not path.is_file():
        return (), ""
    entries = tuple((f"{d.operation}@{d.cls}", d.reason) for d in load_deviations(path))
    comments = [
        line.lstrip("#").strip()
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith("#")
    ]
    return entries, " ".join(c for c in comments if c)


def _machine_of_record(configuration: Mapping[str, Any]) -> str:
    """The machine as the host recorded it: CPU, instruction-set extensions, cores."""
    found = configuration.get("machine") or {}
    isa = ", ".join(found.get("isa") or ()) or "no extension recorded"
    affinity = found.get("affinity")
    cores = f"{found.get('cores')} cores" + (
        f" ({affinity} usable)"
        if isinstance(affinity, int) and affinity != found.get("cores")
        else ""
    )
    return (
        f"{found.get('cpu') or found.get('architecture') or '?'} ({isa}); {cores}; "
        f"Python {found.get('python', '?')}, {found.get('os', '?')}"
    )


def _not_measured(document: Mapping[str, Any], backend: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for entry in (document.get("not_measured") or {}).get(backend) or ():
        operation = str(entry.get("operation"))
        counts[operation] = counts.get(operation, 0) + int(entry.get("count") or 0)
    return counts


def _library_table(
    directory: Path, backend: str, operations: Sequence[str], readme: Mapping[str, tuple[str, str]]
) -> LibraryTable:
    document = _read_report(directory / f"{backend}.json", backend)
    configuration = (document.get("configuration") or {}).get(backend)
    remeasured = isinstance(configuration, Mapping)
    headline = survey_headline.headline(document, backend).removeprefix(f"**`{backend}`**: ")
    if isinstance(configuration, Mapping):
        library = survey_headline.configuration_phrase(document, backend)
        machine = _machine_of_record(configuration)
    else:
        versions = document.get("backend_versions") or {}
        library, _ = readme.get(backend, ("", ""))
        library = library.split(_OLD_CODE)[0]  # the README row this page wrote last time
        recorded = str(versions.get(backend, ""))
        if recorded.startswith("plancheck "):  # the backend host's proxy, not the library
            recorded = ""
        library = library or library_of(directory / f"{backend}.md") or recorded or backend
        if recorded and recorded not in library:
            library += f" (report: {recorded})"
        library += _OLD_CODE
        headline = f"NOT RE-MEASURED (the old code, before issue 27): {headline}"
        machine = machine_of(directory / f"{backend}.md")
    classes = _library_classes(document, backend)
    composed = sum(
        1
        for c in document.get("deviation_classes") or ()
        if c.get("backend", backend) == backend and c.get("composed")
    )
    intermittent = intermittent_of(directory / f"{backend}.intermittent")
    return LibraryTable(
        backend=backend,
        library=library,
        headline=headline,
        machine=machine,
        date=str(document.get("started", "?"))[:10],
        profile=str(document.get("profile", "?")),
        plancheck_version=str(document.get("plancheck_version") or "not recorded"),
        cells=_cells(document, backend, operations),
        class_count=len(classes),
        authority_counts=authority_counts_of(document, backend),
        has_reproductions=(directory / f"{backend}_repro.py").is_file(),
        remeasured=remeasured,
        composed_classes=composed,
        not_measured=_not_measured(document, backend),
        class_keys=frozenset(f"{c['operation']}@{c['class']}" for c in classes),
        headline_classes=tuple(survey_headline.headline_classes(document, backend)),
        authorities={f"{c['operation']}@{c['class']}": str(c["authority"]) for c in classes},
        not_alone=not_alone_of(directory / f"{backend}_repro.py"),
        intermittent=intermittent[0],
        intermittent_evidence=intermittent[1],
    )


def load_survey(
    directory: Path, readme: Path, libraries: Sequence[str] = SURVEY_LIBRARIES
) -> Survey:
    """The survey of every library in *libraries* whose report ``<directory>/<backend>.json``
    exists; :class:`SurveyError` for a report that does not read, or when none exists."""
    operations = policy_operations()
    rows = readme_rows(readme)
    tables = tuple(
        _library_table(directory, backend, operations, rows)
        for backend in libraries
        if (directory / f"{backend}.json").is_file()
    )
    if not tables:
        names = ", ".join(f"{b}.json" for b in libraries)
        raise SurveyError(f"{directory}: no report of an outside library ({names})")
    return Survey(tables, operations)


# ---------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------


def short_class(cls: str) -> str:
    """A class as a grid cell shows it: ``wrong-value:1-ulp`` -> ``1-ulp``,
    ``missing-exception:error-bad-axis`` -> ``no error: bad-axis``."""
    head, colon, tail = cls.partition(":")
    if not colon:
        return cls
    tail = tail.removeprefix("error-")
    return {"wrong-value": tail, "missing-exception": f"no error: {tail}",
            "wrong-exception": f"other error: {tail}", "warning": f"warns: {tail}"}.get(
        head, cls)  # fmt: skip


def cell_text(cell: str | tuple[str, ...]) -> str:
    """A grid cell: ``conforms``, ``not measured`` or the classes, shortened."""
    if isinstance(cell, str):
        return cell
    return ", ".join(short_class(c) for c in cell)


def regenerate_command(survey: Survey) -> str:
    """The one command that re-measures every library of *survey* and rewrites the page."""
    measured = " ".join(f"--measure {t.backend}" for t in survey.libraries)
    return f"plancheck survey {measured}"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


#: the methodology the page opens with (issue 28, item 6); {libraries} is filled in
METHOD = """\
## Method: what is measured, and what a deviation is

* **A deviation is a difference from an authority, and the survey counts by authority.**
  Every class names the rule it breaks and where the rule stands
  ([docs/conformance.md](conformance.md)): *specification* -- a SHALL of the operation
  dtype policy; *reference* -- a value rule of the reference semantics the policy leaves
  the values to (correct rounding, IEEE special values, NaN and signed-zero rules);
  *convention* -- plancheck's own choice where both are silent
  ([docs/semantics/conventions.md](semantics/conventions.md): which exception type an
  invalid argument raises, what a negative padding means, ...).  A convention class is a
  *difference* from plancheck's choice, not a violation of the specification: a library
  that raises its own exception type for a rejected argument has rejected it, as the
  specification asks.
* **An adapter measures only its library** ([docs/adapter-policy.md](adapter-policy.md)).
  It maps a plan onto the library's own function with the library's defaults, passes the
  library's results and exceptions through unchanged, and may not repair, emulate or
  re-raise.  Where the library has no function for an operation the adapter either
  declares it unsupported, raises `NotMeasured` for the calls it cannot map, or composes
  it from several library calls and declares that in `composed_operations`: the classes
  of a composition are the adapter's, so the survey counts them apart and leaves them
  out of the library's counts and cells.
* **What is not measured, and why.**  Operations a library does not have (declared
  unsupported: *not measured* in the grid), calls its adapter cannot map (`NotMeasured`,
  counted per library in the table below), and the adapter's compositions (counted, not
  charged).  The `ci` profile runs 20 generated calls a plan plus the corpus of edge
  cases; a class not seen there is not claimed absent.
* **Every printed example reproduces alone.**  The example of a class is a call that
  fails by itself; where a case failed only inside a longer batch, the example is that
  batch (the judge repeats the case to the shortest length that shows the class).
  `docs/backends/NAME_repro.py` holds one reproduction a class, generated from the
  report (each runs the printed example exactly, its bits and shapes, through the
  library's call as the adapter makes it), and
  `tests/test_survey_reproductions.py` runs them against every installed library.  A
  class no call of the library alone shows is listed, with why, instead of claimed.
* **The whole configuration is recorded** in each report (`configuration`, read inside
  the process that ran the library: version and build, device, every thread pool,
  flags that change numerics such as `jax_enable_x64`, subnormal flushing, the CPU's
  instruction-set extensions); the configuration that changes results is part of each
  headline.
* **Upstream status.**  For each class a headline names, whether the library's
  maintainers know it (a tracker issue, a documented behaviour, or not found, with a
  reproduction to file): `docs/survey-upstream.json`, searched as
  [docs/survey-method.md](survey-method.md) describes.
* **Re-measure** one library with
  `plancheck run --backend NAME --profile ci --workers 2 --report docs/backends/NAME.json`
  (with the library installed; [docs/survey-method.md](survey-method.md) lists the two
  environments used), then `plancheck survey` rewrites this page, `survey.html` and the
  README's table.
"""


def _library_row(t: LibraryTable, total: int) -> str:
    repro = f"[{t.backend}_repro.py](./backends/{t.backend}_repro.py)" if (
        t.has_reproductions) else "no"  # fmt: skip
    if t.not_alone:
        repro += f" ({len(t.not_alone)} class not alone: see below)"
    measured = f"{t.date} (`{t.profile}`)" + ("" if t.remeasured else ", **old code**")
    not_measured = sum(t.not_measured.values())
    return (
        f"| `{t.backend}` | {_md(t.library)} | {_md(t.machine)} | {measured} "
        f"| {_md(t.plancheck_version)} | {t.conforming} of {total} | "
        f"{t.without_violation} of {total} | {t.class_count} | "
        f"{' / '.join(str(t.authority_counts.get(a, 0)) for a in AUTHORITIES)} | "
        f"{t.composed_classes} | {not_measured:,} in {len(t.not_measured)} | "
        f"{repro} | [{t.backend}.md](./backends/{t.backend}.md) |"
    )


def _headline_upstream(t: LibraryTable, entries: Sequence[Any]) -> str:
    """`` Upstream: `key`: status; ...`` for the classes *t*'s headline names."""
    if not t.headline_classes:
        return ""
    found = survey_upstream.by_class(entries, t.backend)
    cells = [
        f"`{key}`: {survey_upstream.cell(found.get(key)) or 'not searched'}"
        for key in t.headline_classes
    ]
    return "  Upstream: " + "; ".join(_md(c) for c in cells) + "."


def upstream_lines(survey: Survey, entries: Sequence[Any]) -> list[str]:
    """The upstream status of every class the headlines name, one table a library."""
    lines = [
        "",
        "## Upstream status of the headline classes",
        "",
        "Whether each library's maintainers know the behaviour: *known issue* (the "
        "tracker's report of the same behaviour), *documented*, *not found* (the queries "
        "run and a stand-alone reproduction are in `docs/survey-upstream.json`), or *out of "
        "scope* (a plancheck convention, an operation the library lacks, an adapter's "
        "composition).  How the search was done: [docs/survey-method.md](survey-method.md).  "
        "*in this report* says whether the re-measured report still has the class.",
    ]
    for t in survey.libraries:
        mine = [e for e in entries if e.backend == t.backend]
        if not mine:
            continue
        lines += ["", f"### `{t.backend}`", "", "| headline item | classes | in this report "
                  "| upstream |", "|---|---|---|---|"]  # fmt: skip
        for e in mine:
            keys = ", ".join(f"`{k}`" for k in e.classes) or "--"
            present = [k for k in e.classes if k in t.class_keys]
            seen = (
                "--" if not e.classes
                else "yes" if len(present) == len(e.classes)
                else "no" if not present
                else f"{len(present)} of {len(e.classes)}"
            )  # fmt: skip
            lines.append(
                f"| {_md(e.headline)} | {keys} | {seen} | {_md(survey_upstream.cell(e))} |"
            )
    return lines


def render_markdown(survey: Survey, upstream: Sequence[Any] | None = None) -> str:
    """The survey page (``docs/survey.md``); *upstream*: the entries of
    ``docs/survey-upstream.json`` (:func:`conformance.report.survey_upstream.load`)."""
    total = len(survey.operations)
    old = [t.backend for t in survey.libraries if not t.remeasured]
    lines = [
        "# Conformance survey of tensor libraries",
        "",
        "Generated by `plancheck survey` from the committed reports "
        "`docs/backends/<backend>.json`; do not edit by hand.  The HTML version, with the "
        "heat map: [survey.html](survey.html).",
        "",
    ]
    if old:
        lines += [
            "**Not re-measured:** "
            + ", ".join(f"`{b}`" for b in old)
            + " -- these tables were measured on the old code (before issue 27's adapter "
            "policy and authorities; their reports record no configuration).  Their rows are "
            "marked **old code**; their counts are not comparable with the others'.",
            "",
        ]
    lines += [
        METHOD,
        "## Libraries",
        "",
        "| backend | library, as configured | machine | measured | plancheck | operations "
        "conforming on every plan | operations without a specification or reference class "
        "(convention differences aside) | the library's deviation classes | by authority "
        "(specification / reference / convention) | classes of the adapter's compositions "
        "| calls not measured (operations) | reproduced | table |",
        "|---|---|---|---|---|---:|---:|---:|---|---:|---|---|---|",
    ]
    lines += [_library_row(t, total) for t in survey.libraries]
    lines += [
        "",
        "## Headline deviations (from each report's data)",
        "",
        "Each sentence is written from the library's report alone; *upstream* gives, for "
        "each class the sentence names, whether the maintainers know it (the table below "
        "has the other headline classes).",
        "",
    ]
    lines += [
        f"* **`{t.backend}`**: {_md(t.headline)}." + _headline_upstream(t, upstream or ())
        for t in survey.libraries
    ]
    alone = [(t.backend, k, why) for t in survey.libraries for k, why in t.not_alone.items()]
    if alone:
        lines += ["", "## Classes no call of the library alone reproduces", "",
                  "Measured in the run, but not shown by any call of the library by itself "
                  "(so not claimed as the library's behaviour alone):", ""]  # fmt: skip
        lines += [f"* `{b}` `{k}`: {_md(why)}" for b, k, why in alone]
    sometimes = [t for t in survey.libraries if t.intermittent]
    if sometimes:
        lines += ["", "## Classes a library shows only in some runs", "",
                  "A measured run is one draw: these classes were met in other runs of the "
                  "same code (`docs/backends/NAME.intermittent`, appended to `NAME.xfail`); "
                  "the table and counts above are the measured run's.", ""]  # fmt: skip
        for t in sometimes:
            classes = ", ".join(
                f"`{k}`" + (" (in this report)" if k in t.class_keys else "")
                for k, _ in t.intermittent
            )
            lines.append(f"* `{t.backend}`: {classes}. {_md(t.intermittent_evidence)}")
    if upstream:
        lines += upstream_lines(survey, upstream)
    lines += [
        "",
        "## Operations x libraries",
        "",
        "*conforms*: every plan of the operation conforms; otherwise the library's deviation "
        "classes (`accuracy` is `wrong-value:accuracy`, `no error: bad-axis` is "
        "`missing-exception:error-bad-axis`, `other error: ...` a `wrong-exception` class, "
        "`warns: ...` a `warning` class; the full spellings and a minimal example of each "
        "are in the library's table).  *adapter's composition*: the operation deviates only in "
        "the adapter's composition of several library calls (its classes are not the "
        "library's).",
        "",
        "| operation | " + " | ".join(f"`{t.backend}`" for t in survey.libraries) + " |",
        "|---|" + "---|" * len(survey.libraries),
    ]
    for operation in survey.operations:
        cells = " | ".join(_md(cell_text(t.cells[operation])) for t in survey.libraries)
        lines.append(f"| {operation} | {cells} |")
    lines += _disagreement_lines(survey)
    lines += [
        "",
        "## Regenerate",
        "",
        "```sh",
        regenerate_command(survey),
        "```",
        "",
        "re-runs `plancheck run --backend NAME --report docs/backends/NAME.json` for each "
        "named library (it must be installed: `plancheck backends` says how) and then "
        "rewrites this page, `survey.html` and the README's table; `plancheck survey` alone "
        "rewrites them from the committed reports.  `pytest tests/test_survey_reproductions.py` "
        "runs every published class's reproduction against the installed libraries.",
    ]
    return "\n".join(lines) + "\n"


#: the README section whose table ``plancheck survey`` rewrites
README_SECTION = "## Outside libraries, measured"
README_HEADER = (
    "| backend | library | operations conforming on every plan (without a specification or "
    "reference class) | headline deviations | table |"
)


def readme_table(survey: Survey, prefix: str = "docs/backends/") -> list[str]:
    """The README's table of the outside libraries: one row a library, from its report
    (the headline without its configuration, which the library column states)."""
    total = len(survey.operations)
    lines = [README_HEADER, "|---|---|---:|---|---|"]
    for t in survey.libraries:
        lines.append(
            f"| `{t.backend}` | {_md(t.library)} | {t.conforming} of {total} "
            f"({t.without_violation}) | "
            f"{_md(t.headline.rsplit('; measured with ', 1)[0])} | "
            f"[{t.backend}.md]({prefix}{t.backend}.md) |"
        )
    return lines


def with_readme_table(text: str, survey: Survey) -> str:
    """*text* (a README) with its "Outside libraries, measured" table replaced by
    :func:`readme_table`; *text* unchanged when it has no such section or table."""
    head, found, section = text.partition(README_SECTION)
    if not found:
        return text
    lines = section.split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith("| backend |")), None)
    if start is None:
        return text
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    lines[start:end] = readme_table(survey)
    return head + found + "\n".join(lines)


def _disagreement_lines(survey: Survey) -> list[str]:
    found = survey.disagreements()
    lines = [
        "",
        "## Where the libraries disagree, and what the specification says",
        "",
        f"{len(found)} of {len(survey.operations)} operations have outcomes that differ "
        "between libraries.  A library that conforms is the one the specification "
        "supports; each class of the others is decided by the quoted rule, named with its "
        "authority: a SHALL of the policy (`operation-dtype-policy.txt`), a value rule of "
        "the reference semantics it leaves the values to (`reference-semantics.md`), or a "
        "convention of plancheck's where both are silent (`docs/semantics/conventions.md`: "
        "a difference from plancheck's choice, not from the specification).",
    ]
    for d in found:
        lines += ["", f"### {d.operation}", "", d.verdict() + "."]
        for backend, classes in d.deviating.items():
            lines.append(f"* `{backend}`: " + ", ".join(f"`{c}`" for c in classes))
        lines.append("")
        lines += [f"> `{cls}`: {_md(cite)}  " for cls, cite in d.clauses.items()]
    return lines
