"""``plancheck survey``: the conformance survey page of the outside libraries.

``plancheck survey [--measure NAME ...] [--reports DIR] [--readme PATH]
[--markdown PATH] [--html PATH]`` reads the committed reports
``DIR/<backend>.json`` (default ``docs/backends``) of the libraries in
:data:`conformance.report.survey.SURVEY_LIBRARIES` and writes the survey
(:mod:`conformance.report.survey`): ``docs/survey.md`` and
``docs/survey.html`` by default, and rewrites the table of the README's section
"Outside libraries, measured" (one row a library, from its report) and the generated
section of each re-measured library's page ``DIR/<backend>.md``, each library's
known-deviations file ``DIR/<backend>.xfail`` and the ``PUBLISHED`` list of each
generated reproduction module ``DIR/<backend>_repro.py``.  With
``--measure NAME`` (repeatable) it first runs ``plancheck run --backend NAME
--report DIR/NAME.json`` for each named library, so one command re-measures and regenerates.

Exit status: 0 the page is written; 2 a usage or input error, checked before
anything runs (a name that is not a surveyed library, a library that is not
installed, a directory that does not exist, no report at all, a report that
does not read); 3 a ``--measure`` run ended without a verdict (interrupted,
or only oracle errors): nothing is written then.  A library that does not
conform is the survey's content, not an error: ``plancheck run``'s status 1
is expected.

A report an earlier suite measured (its coverage counts differ from this plancheck's:
:mod:`conformance.report.survey_stale`) is named on stderr with what differs -- it is
still surveyed, but it and its known-deviations file must be re-measured.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from conformance.cli import backends_command
from conformance.cli.messages import suggestion
from conformance.report import survey_page, survey_repro, survey_stale, survey_upstream
from conformance.report.survey import (
    SURVEY_LIBRARIES,
    SurveyError,
    load_survey,
    render_markdown,
    with_readme_table,
)
from conformance.report.survey_html import render_survey_html
from conformance.report.survey_xfail import write_xfail

__all__ = ["EXIT_STATUS", "add_arguments", "main"]

#: what ``plancheck survey --help`` says about the exit status
EXIT_STATUS = (
    "exit status: 0 the page is written; 2 a usage or input error (an unknown or uninstalled "
    "library, a missing directory, no report, an unreadable report); 3 a --measure run ended "
    "without a verdict (nothing written)"
)
_WRITTEN, _USAGE, _INCOMPLETE = 0, 2, 3
#: ``plancheck run``'s statuses that leave a complete report: conforms, not conforming
_RUN_VERDICTS = (0, 1)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Write the survey of the outside libraries' committed reports.  Example: "
        "plancheck survey --measure torch"
    )
    parser.add_argument(
        "--measure", action="append", default=[], metavar="NAME",
        help="first re-measure this installed library: plancheck run --backend NAME --report "
        f"DIR/NAME.json (repeatable; one of {', '.join(SURVEY_LIBRARIES)})",
    )  # fmt: skip
    parser.add_argument(
        "--reports",
        default="docs/backends",
        metavar="DIR",
        help="the reports <backend>.json and pages <backend>.md (docs/backends)",
    )
    parser.add_argument("--readme", default="README.md", metavar="PATH",
                        help="the README whose table 'Outside libraries, measured' gives each "
                        "library's version and headline (README.md)")  # fmt: skip
    parser.add_argument(
        "--markdown",
        default="docs/survey.md",
        metavar="PATH",
        help="the Markdown page to write (docs/survey.md)",
    )
    parser.add_argument(
        "--html",
        default="docs/survey.html",
        metavar="PATH",
        help="the HTML page to write (docs/survey.html)",
    )


def _usage(message: str) -> int:
    print(f"plancheck survey: {message}", file=sys.stderr)
    return _USAGE


def _measure_problem(names: list[str]) -> str | None:
    """Why ``--measure`` cannot run these names (unknown, not installed), or None."""
    for name in names:
        if name not in SURVEY_LIBRARIES:
            return (
                f"--measure {name}: not a surveyed library{suggestion(name, SURVEY_LIBRARIES)}; "
                f"choose from {', '.join(SURVEY_LIBRARIES)}"
            )
    if names:
        state = {row["name"]: row for row in backends_command.rows()}
        for name in names:
            row = state.get(name)
            if row is None:
                return f"--measure {name}: plancheck has no adapter for it in this version"
            if not row["installed"]:
                return f"--measure {name}: {row['library']} is not installed ({row['install']})"
    return None


def _path_problem(arguments: argparse.Namespace) -> str | None:
    if not Path(arguments.reports).is_dir():
        return f"--reports {arguments.reports}: no such directory"
    for option in ("markdown", "html"):
        parent = Path(getattr(arguments, option)).parent
        if not parent.is_dir():
            return f"--{option} {getattr(arguments, option)}: the directory {parent} does not exist"
    return None


def _run(name: str, reports: Path) -> int:
    """``plancheck run --backend NAME --report reports/NAME.json`` in a child process."""
    command = [sys.executable, "-m", "conformance.cli", "run", "--backend", name,
               "--report", str(reports / f"{name}.json")]  # fmt: skip
    print(f"plancheck survey: measuring {name}: {' '.join(command[2:])}", flush=True)
    return subprocess.run(command, check=False).returncode


def _write(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)


def _write_pages(reports: Path, backends: list[str]) -> int:
    """Rewrite the generated section of each re-measured library's page
    (:mod:`conformance.report.survey_page`); how many pages carry one."""
    count = 0
    for backend in backends:
        page = reports / f"{backend}.md"
        document = json.loads((reports / f"{backend}.json").read_text(encoding="utf-8"))
        section = survey_page.page_section(document, backend)
        if section is None or not page.is_file():
            continue
        text = page.read_text(encoding="utf-8")
        rewritten = survey_page.with_page_section(text, section)
        if rewritten != text:
            _write(page, rewritten)
        count += 1
    return count


def _warn_stale(reports: Path, backends: list[str]) -> None:
    """Name on stderr each report an earlier suite measured (what differs)."""
    current = survey_stale.current_counts()
    for backend in backends:
        document = json.loads((reports / f"{backend}.json").read_text(encoding="utf-8"))
        differs = survey_stale.stale(document, backend, current)
        if differs:
            print(
                f"plancheck survey: {backend}.json was measured by an earlier suite "
                f"({'; '.join(differs)}): re-measure it (plancheck run --backend {backend} "
                f"--profile ci --report {reports / backend}.json) and its .xfail",
                file=sys.stderr,
            )


def main(arguments: argparse.Namespace) -> int:
    names = list(dict.fromkeys(arguments.measure))
    problem = _measure_problem(names) or _path_problem(arguments)
    if problem:
        return _usage(problem)
    reports = Path(arguments.reports)
    for name in names:
        status = _run(name, reports)
        if status not in _RUN_VERDICTS:
            print(
                f"plancheck survey: the run of {name} ended with status {status} "
                "(no verdict): the survey is not written",
                file=sys.stderr,
            )
            return _USAGE if status == _USAGE else _INCOMPLETE
    readme = Path(arguments.readme)
    try:
        survey = load_survey(reports, readme)
        upstream = survey_upstream.load() if survey_upstream.DEFAULT_PATH.is_file() else ()
    except (SurveyError, survey_upstream.UpstreamDataError) as error:
        return _usage(str(error))
    _write(Path(arguments.markdown), render_markdown(survey, upstream))
    _write(Path(arguments.html), render_survey_html(survey))
    pages = _write_pages(reports, [t.backend for t in survey.libraries])
    for t in survey.libraries:  # the known deviations and reproductions follow the reports
        write_xfail(reports / f"{t.backend}.json")
    republished = survey_repro.republish_all(reports, [t.backend for t in survey.libraries])
    _warn_stale(reports, [t.backend for t in survey.libraries])
    if readme.is_file():
        text = readme.read_text(encoding="utf-8")
        rewritten = with_readme_table(text, survey)
        if rewritten != text:
            _write(readme, rewritten)
    print(
        f"plancheck survey: {len(survey.libraries)} libraries "
        f"({', '.join(t.backend for t in survey.libraries)}), "
        f"{len(survey.disagreements())} operations where they disagree: wrote "
        f"{arguments.markdown} and {arguments.html}, the table of {arguments.readme} and the "
        f"generated section of {pages} library pages; rewrote the .xfail files and the "
        f"PUBLISHED lists of {len(republished)} reproduction modules"
    )
    return _WRITTEN
