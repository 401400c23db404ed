"""``plancheck survey``: the grid, the disagreements, the pages, the exit statuses.

Synthetic reports in tmp_path stand for the libraries; the last tests check
the committed survey: every outside library's table has its reproductions
beside it, and docs/survey.md is what the command writes from the committed
reports.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.cli import survey as survey_command
from conformance.report import survey_upstream
from conformance.report.spec_clauses import CLAUSES, GENERAL, clause_for
from conformance.report.survey import (
    COMPOSED,
    CONFORMS,
    NOT_MEASURED,
    SURVEY_LIBRARIES,
    SurveyError,
    load_survey,
    render_markdown,
    with_readme_table,
)
from conformance.report.survey_html import cell_colour, render_survey_html

ROOT = Path(__file__).resolve().parents[1]
BACKENDS_DOCS = ROOT / "docs" / "backends"
WRAPS = "missing-exception:int32-result-overflow"


def _report(backend: str, rows: dict[str, str], classes: dict[str, list[str]]) -> dict:
    """A minimal complete report: *rows* operation -> status, *classes* operation -> classes."""
    return {
        "format": "plancheck-report/1",
        "complete": True,
        "result": "not conforming" if classes else "conforms",
        "started": "2026-12-03T10:00:00+0000",
        "profile": "ci",
        "plancheck_version": "0.1.0",
        "backends": [backend],
        "backend_versions": {backend: f"{backend}lib 9.9"},
        "table": {
            backend: {op: {"examples": 5, "corpus_cases": 0, "status": s} for op, s in rows.items()}
        },
        "deviation_classes": [
            {"backend": backend, "operation": op, "class": cls}
            for op, found in classes.items()
            for cls in found
        ],
    }


def _write(directory: Path, backend: str, document: dict) -> None:
    (directory / f"{backend}.json").write_text(json.dumps(document))


README = """# x

## Outside libraries, measured

| backend | library | operations conforming on every plan | headline deviations | table |
|---|---|---:|---|---|
| `torch` | PyTorch 9 (1 thread) <script>alert(1)</script> | 2 of 56 | Int32 wraps | [torch.md](x) |

## Next
"""


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """numpy-native conforms on add and deviates on exp; torch wraps add and deviates
    on exp the same way; jax is absent."""
    reports = tmp_path / "backends"
    reports.mkdir()
    _write(reports, "numpy-native", _report(
        "numpy-native", {"add": "conforms", "exp": "FAIL", "neg": "conforms"},
        {"exp": ["wrong-value:1-ulp"]}))  # fmt: skip
    _write(reports, "torch", _report(
        "torch", {"add": "FAIL", "exp": "FAIL", "neg": "conforms"},
        {"add": [WRAPS], "exp": ["wrong-value:1-ulp"]}))  # fmt: skip
    (reports / "torch.md").write_text("| | |\n|---|---|\n| machine | a test box, 2 cores |\n")
    (reports / "torch_repro.py").write_text("LIBRARY = 'torch'\n")
    (tmp_path / "README.md").write_text(README)
    return tmp_path


def test_the_grid_reads_each_report(docs: Path) -> None:
    survey = load_survey(docs / "backends", docs / "README.md")
    assert [t.backend for t in survey.libraries] == ["numpy-native", "torch"]
    numpy_table, torch_table = survey.libraries
    assert numpy_table.cells["add"] == CONFORMS
    # a report of an earlier plancheck is folded as the judge folds: 1-ulp is accuracy
    assert numpy_table.cells["exp"] == ("wrong-value:accuracy",)
    assert numpy_table.cells["sqrt"] == NOT_MEASURED  # no row in the report
    assert torch_table.cells["add"] == ("missing-exception:int32-result-overflow",)
    assert numpy_table.conforming == 2 and torch_table.conforming == 1
    assert len(survey.operations) == 56
    # a report without a configuration was measured on the old code: the README row and
    # the page give the library and machine, and every sentence says it is not re-measured
    old = " -- measured on the old code (before issue 27), not re-measured"
    assert (
        torch_table.library == "PyTorch 9 (1 thread) <script>alert(1)</script> (report: "
        "torchlib 9.9)" + old
    )
    assert not torch_table.remeasured
    assert torch_table.headline.startswith(
        "NOT RE-MEASURED (the old code, before issue 27): 2 deviation classes in 2 operations"
    )
    assert torch_table.machine == "a test box, 2 cores"
    assert numpy_table.library == "numpy-nativelib 9.9" + old  # no README row: the report's
    assert "numpy-native.md is missing" in numpy_table.machine
    assert torch_table.has_reproductions and not numpy_table.has_reproductions


CONFIGURATION = {
    "library": "numpy", "version": "9.9", "device": "cpu",
    "threads": {"blas_openmp": [{"internal_api": "openblas", "version": "0.3", "num_threads": 2,
                                 "filepath": "/x/numpy.libs/libopenblas.so"}]},
    "flags": {"process_flushes_subnormals": False},
    "machine": {"cpu": "AMD EPYC", "isa": ["avx2", "avx512f"], "cores": 2, "affinity": 2,
                "python": "3.11.7", "os": "Linux"},
}  # fmt: skip


def test_a_remeasured_report_gives_its_own_library_machine_and_counts(docs: Path) -> None:
    document = _report(
        "numpy-native",
        {"add": "conforms", "exp": "FAIL", "gelu": "FAIL", "neg": "FAIL"},
        {
            "exp": ["wrong-value:accuracy"],
            "gelu": ["wrong-value:accuracy"],
            "neg": ["wrong-exception:convention"],
        },
    )
    for c in document["deviation_classes"]:
        c["authority"] = "convention" if c["operation"] == "neg" else "reference"
        c["composed"] = "x * Phi(x)" if c["operation"] == "gelu" else None
    document["configuration"] = {"numpy-native": CONFIGURATION}
    document["not_measured"] = {
        "numpy-native": [{"operation": "sort", "message": "no descending sort", "count": 4}]
    }
    _write(docs / "backends", "numpy-native", document)
    table = load_survey(docs / "backends", docs / "README.md").libraries[0]
    assert table.remeasured
    assert (
        table.library == "numpy 9.9, device cpu, threads: its own pool at its default "
        "(not readable), openblas 0.3 (numpy's) 2"
    )
    assert table.machine == "AMD EPYC (avx2, avx512f); 2 cores; Python 3.11.7, Linux"
    assert table.class_count == 2 and table.composed_classes == 1  # gelu is the adapter's
    # add conforms; neg differs from a convention only: not a violation
    assert table.conforming == 1 and table.without_violation == 2
    assert table.cells["gelu"] == COMPOSED and table.cells["exp"] == ("wrong-value:accuracy",)
    assert table.not_measured == {"sort": 4}
    assert table.headline.startswith(
        "2 deviation classes in 2 operations; by authority: "
        "0 specification, 1 reference, 1 convention; 1 more in "
        "the adapter's compositions"
    )
    text = render_markdown(load_survey(docs / "backends", docs / "README.md"))
    assert "**Not re-measured:** `torch`" in text  # the other library is still the old code
    assert "| 1 | 4 in 1 |" in text  # composed classes, calls not measured


def test_disagreements_name_the_library_the_specification_supports(docs: Path) -> None:
    survey = load_survey(docs / "backends", docs / "README.md")
    found = {d.operation: d for d in survey.disagreements()}
    # exp: both deviate the same way, neg: both conform -- no disagreement
    assert set(found) == {"add"}
    add = found["add"]
    assert add.supported == ("numpy-native",)
    assert add.deviating == {"torch": ("missing-exception:int32-result-overflow",)}
    assert "OverflowError when the exact result leaves Int32 range" in add.clauses[
        "missing-exception:int32-result-overflow"]  # fmt: skip
    assert add.clauses["missing-exception:int32-result-overflow"].startswith("specification: ")
    assert add.verdict().startswith("The specification supports `numpy-native`, which conforms")


def test_libraries_that_deviate_differently_are_grouped(docs: Path) -> None:
    _write(docs / "backends", "jax", _report(
        "jax", {"add": "FAIL", "exp": "FAIL"},
        {"add": [WRAPS], "exp": ["wrong-value:spurious-nan"]}))  # fmt: skip
    survey = load_survey(docs / "backends", docs / "README.md")
    exp = {d.operation: d for d in survey.disagreements()}["exp"]
    assert exp.supported == ()
    assert exp.verdict() == (
        "No library conforms, so the specification supports none of them; they deviate in 2 "
        "different ways (`numpy-native` and `torch`; `jax`)"
    )
    assert "must still match exactly" in exp.clauses["wrong-value:spurious-nan"]
    assert exp.clauses["wrong-value:spurious-nan"].startswith("reference (IEEE 754-2019")
    # neg: jax has no row, the others conform: not a disagreement
    assert "neg" not in {d.operation for d in survey.disagreements()}


def test_clauses_pick_the_rule_of_the_class_and_operation() -> None:
    assert "correctly rounded" in clause_for("wrong-value:1-ulp", "exp").text
    assert "IEEE-754 binary32" in clause_for("wrong-value:1-ulp", "sqrt").text
    assert "stable" in clause_for("wrong-value:integer", "_topk_indices").text
    assert "first winning logical ordinal" in clause_for("wrong-value:integer", "argmax").text
    assert "IndexError" in clause_for("missing-exception:error-index-too-large").text
    assert "broadcast" in clause_for("missing-exception:error-shape-mismatch").text
    # the exception's type is plancheck's convention, not the reference's requirement
    assert clause_for("wrong-exception:error-shape-mismatch").name == "convention"
    assert "never raise or warn" in clause_for("warning:overflow").text
    assert clause_for("crash").name == "convention"
    assert clause_for("wrong-value:1-ulp") is GENERAL  # no operation: the table cannot place it


def test_markdown_page(docs: Path) -> None:
    text = render_markdown(load_survey(docs / "backends", docs / "README.md"))
    assert "| add | conforms | no error: int32-result-overflow |" in text
    assert "| exp | accuracy | accuracy |" in text
    assert "| sqrt | not measured | not measured |" in text
    assert "plancheck survey --measure numpy-native --measure torch" in text
    assert (
        "| `torch` | PyTorch 9 (1 thread) <script>alert(1)</script> (report: torchlib 9.9) "
        "-- measured on the old code (before issue 27), not re-measured | a test box, 2 cores "
        "| 2026-12-03 (`ci`), **old code** |" in text
    )
    assert "## Method: what is measured, and what a deviation is" in text
    assert "[docs/adapter-policy.md](adapter-policy.md)" in text
    assert "### add" in text and "### exp" not in text


def test_html_page_is_self_contained_and_inert(docs: Path) -> None:
    html = render_survey_html(load_survey(docs / "backends", docs / "README.md"))
    assert "<script" not in html and "&lt;script&gt;" in html  # the README's text, inert
    assert "http://" not in html and "https://" not in html
    assert "default-src 'none'" in html
    assert f'fill="{cell_colour(CONFORMS)}"' in html
    assert f'fill="{cell_colour(("a",))}"' in html
    assert "torch x add: 1 deviation class: missing-exception:int32-result-overflow" in html


def test_cell_colours_darken_with_the_class_count() -> None:
    shades = [cell_colour(tuple("abcdefgh"[:n])) for n in range(1, 8)]
    assert len(set(shades[:6])) == 6 and shades[5] == shades[6]  # darkest from 6 on
    assert cell_colour(CONFORMS) != cell_colour(NOT_MEASURED)


def _survey(docs: Path, *extra: str) -> list[str]:
    return ["survey", "--reports", str(docs / "backends"), "--readme", str(docs / "README.md"),
            "--markdown", str(docs / "survey.md"), "--html", str(docs / "survey.html"),
            *extra]  # fmt: skip


def test_command_writes_both_pages(docs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_survey(docs)) == 0
    assert "| add | conforms |" in (docs / "survey.md").read_text()
    assert (docs / "survey.html").read_text().startswith("<!DOCTYPE html>")
    assert "2 libraries (numpy-native, torch), 1 operations where they disagree" in (
        capsys.readouterr().out)  # fmt: skip


@pytest.mark.parametrize(
    ("extra", "setup", "message"),
    [
        (["--measure", "pytorch"], None, "not a surveyed library (did you mean torch?)"),
        ([], lambda d: (d / "backends" / "torch.json").write_text("{"), "not a readable JSON"),
        ([], lambda d: (d / "backends" / "torch.json").write_text('{"format": "x"}'),
         "not a plancheck-report/1 document"),
        ([], lambda d: _write(d / "backends", "torch", {**_report("torch", {}, {}),
                                                         "complete": False}), "incomplete run"),
        ([], lambda d: _write(d / "backends", "torch", _report("jax", {}, {})), "not of 'torch'"),
        (["--markdown", "/nonexistent/dir/s.md"], None, "does not exist"),
    ],
)  # fmt: skip
def test_usage_and_input_errors_exit_2_and_write_nothing(
    docs: Path, capsys: pytest.CaptureFixture[str], extra: list[str], setup, message: str
) -> None:
    if setup is not None:
        setup(docs)
    assert main(_survey(docs, *extra)) == 2
    assert message in capsys.readouterr().err
    assert not (docs / "survey.md").exists()


def test_no_report_at_all_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "backends").mkdir()
    assert main(_survey(tmp_path)) == 2
    assert "no report of an outside library" in capsys.readouterr().err
    assert main(["survey", "--reports", str(tmp_path / "nowhere")]) == 2


def test_measuring_a_library_that_is_not_installed_is_a_usage_error(
    docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [{"name": "mlx", "library": "mlx", "installed": False,
             "install": "pip install 'plancheck[mlx]'"}]  # fmt: skip
    monkeypatch.setattr(survey_command.backends_command, "rows", lambda: rows)
    assert main(_survey(docs, "--measure", "mlx")) == 2
    assert "mlx is not installed (pip install 'plancheck[mlx]')" in capsys.readouterr().err
    assert main(_survey(docs, "--measure", "paddle")) == 2  # no adapter in this version
    assert "no adapter" in capsys.readouterr().err


def test_measure_runs_each_library_then_writes(docs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(survey_command, "_measure_problem", lambda names: None)
    runs: list[tuple[str, Path]] = []

    def run(name: str, reports: Path) -> int:
        runs.append((name, reports))
        return 1  # not conforming: a verdict, the survey goes on

    monkeypatch.setattr(survey_command, "_run", run)
    assert main(_survey(docs, "--measure", "torch", "--measure", "torch")) == 0
    assert runs == [("torch", docs / "backends")]  # once each
    assert (docs / "survey.md").exists()


def test_a_measurement_without_verdict_writes_nothing(
    docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(survey_command, "_measure_problem", lambda names: None)
    monkeypatch.setattr(survey_command, "_run", lambda name, reports: 3)
    assert main(_survey(docs, "--measure", "torch")) == 3
    assert not (docs / "survey.md").exists()


def test_run_command_line_is_plancheck_run_with_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[list[str]] = []

    class Done:
        returncode = 1

    monkeypatch.setattr(
        survey_command.subprocess, "run", lambda cmd, check: seen.append(cmd) or Done
    )
    assert survey_command._run("torch", tmp_path) == 1
    assert seen[0][1:] == ["-m", "conformance.cli", "run", "--backend", "torch",
                           "--report", str(tmp_path / "torch.json")]  # fmt: skip


# ---------------------------------------------------------------------------
# The committed survey
# ---------------------------------------------------------------------------

COMMITTED = [b for b in SURVEY_LIBRARIES if (BACKENDS_DOCS / f"{b}.json").is_file()]


@pytest.mark.parametrize("backend", COMMITTED)
def test_every_published_table_has_its_reproductions_beside_it(backend: str) -> None:
    assert (BACKENDS_DOCS / f"{backend}_repro.py").is_file(), (
        f"docs/backends/{backend}.json is published without docs/backends/{backend}_repro.py "
        "(tests/test_survey_reproductions.py states the contract)"
    )


def test_committed_survey_page_is_current() -> None:
    survey = load_survey(BACKENDS_DOCS, ROOT / "README.md")
    upstream = survey_upstream.load()
    assert (ROOT / "docs" / "survey.md").read_text() == render_markdown(survey, upstream), (
        "docs/survey.md is stale: run `plancheck survey` in the checkout"
    )
    assert (ROOT / "docs" / "survey.html").read_text() == render_survey_html(survey)
    readme = (ROOT / "README.md").read_text()
    assert with_readme_table(readme, survey) == readme, "the README's table is stale"


def test_the_readme_table_is_rewritten_from_the_reports(docs: Path) -> None:
    assert main(_survey(docs)) == 0
    readme = (docs / "README.md").read_text()
    assert "Int32 wraps" not in readme  # the hand-written headline is gone
    assert "| `numpy-native` | numpy-nativelib 9.9 -- measured on the old code" in readme
    assert "NOT RE-MEASURED (the old code, before issue 27): 2 deviation classes" in readme
    assert readme.endswith("\n## Next\n")


def test_the_upstream_table_marks_the_classes_this_report_has(docs: Path) -> None:
    entry = survey_upstream.Entry(
        backend="torch", headline="Int32 wraps", classes=(f"add@{WRAPS}", "mul@" + WRAPS),
        status="known issue", references=({"kind": "issue", "ref": "pytorch/pytorch#1",
                                           "url": "https://github.com/pytorch/pytorch/issues/1"},),
        related=(), queries=(), reproduction=None, note=None,
    )  # fmt: skip
    text = render_markdown(load_survey(docs / "backends", docs / "README.md"), [entry])
    assert "| Int32 wraps | `add@missing-exception:int32-result-overflow`, " in text
    assert (
        "| 1 of 2 | known issue: [pytorch/pytorch#1](https://github.com/pytorch/pytorch/"
        "issues/1) |" in text
    )


def test_survey_error_is_a_value_error() -> None:
    assert issubclass(SurveyError, ValueError)


#: the user's specification beside the checkout (``../shared/spec`` from the repository
#: root), never a path of one machine
SPEC = ROOT.parent / "shared" / "spec"


@pytest.mark.skipif(not SPEC.is_dir(), reason="the user's specification is not on this machine")
def test_every_clause_is_quoted_word_for_word() -> None:
    """Each quoted clause (its parts around "[...]") appears in the document it cites."""
    files = {"operation-dtype-policy": SPEC / "operation-dtype-policy.txt",
             "reference-semantics": SPEC / "reference-semantics.md",
             "docs/semantics/conventions.md": ROOT / "docs/semantics/conventions.md"}  # fmt: skip

    def plain(text: str) -> str:  # Markdown emphasis and code marks are not words
        return " ".join(text.replace("*", "").replace("`", "").split())

    texts = {k: plain(f.read_text()) for k, f in files.items()}
    for clause in {*CLAUSES.values(), GENERAL}:
        for part in clause.text.split("[...]"):
            assert plain(part) in texts[clause.document], (clause.document, part)


def test_a_library_without_a_readme_row_is_named_by_its_page(docs: Path) -> None:
    """The bold name on the page's library line, and the machine as the bullet's last part
    (semicolons inside parentheses do not split it)."""
    (docs / "backends" / "numpy-native.md").write_text(
        "# x\n\n* library: **numpy 9.1** (a build; its BLAS),\n  Python 3.11; 2 cores (shared;"
        " load 9-16);\n* measured today\n"
    )
    numpy_table = load_survey(docs / "backends", docs / "README.md").libraries[0]
    assert numpy_table.library.startswith("numpy 9.1 (report: numpy-nativelib 9.9) -- measured")
    assert numpy_table.machine == "2 cores (shared; load 9-16)"


def test_a_class_no_call_alone_shows_is_printed_with_why(docs: Path) -> None:
    (docs / "backends" / "torch_repro.py").write_text(
        "LIBRARY = 'torch'\nNOT_ALONE: dict[str, str] = {'add@hang': 'only inside the run'}\n"
    )
    table = load_survey(docs / "backends", docs / "README.md").libraries[1]
    assert table.not_alone == {"add@hang": "only inside the run"}
    text = render_markdown(load_survey(docs / "backends", docs / "README.md"))
    assert "(1 class not alone: see below)" in text
    assert "* `torch` `add@hang`: only inside the run" in text


GENERATED_MODULE = '''"""a generated reproduction module"""
REPORT = "numpy-native.json"
PUBLISHED: list[str] = [
    # wrong value
    "exp@wrong-value:many-ulps",
]
CALLS = {}
'''


def test_the_command_republishes_the_modules_and_known_deviations(docs: Path) -> None:
    """`plancheck survey` rewrites each generated module's PUBLISHED list and each
    library's .xfail from the reports; a module without PUBLISHED is left alone."""
    reports = docs / "backends"
    (reports / "numpy-native_repro.py").write_text(GENERATED_MODULE)
    assert main(_survey(docs)) == 0
    module = (reports / "numpy-native_repro.py").read_text()
    assert '"exp@wrong-value:1-ulp",' in module
    assert "many-ulps" not in module
    assert module.endswith("CALLS = {}\n")  # the rest of the module as it was
    assert (reports / "torch_repro.py").read_text() == "LIBRARY = 'torch'\n"
    xfail = (reports / "torch.xfail").read_text()
    assert f"add@{WRAPS}: " in xfail
    assert "exp@wrong-value:1-ulp: " in (reports / "numpy-native.xfail").read_text()


def test_the_classes_of_some_runs_are_printed_with_their_evidence(docs: Path) -> None:
    """A library's ``.intermittent`` classes (met in other runs) are listed apart, with
    the file's comments as the evidence, marked when the measured report has them too."""
    (docs / "backends" / "torch.intermittent").write_text(
        "# torch 9: add hung in 2 of 5 runs.\n"
        "add@hang: intermittent hang (evidence above)\n"
        f"add@{WRAPS}: seen in some runs\n"
    )
    assert main(_survey(docs)) == 0
    page = (docs / "survey.md").read_text()
    section = page.split("## Classes a library shows only in some runs", 1)[1].split("\n## ")[0]
    assert f"* `torch`: `add@hang`, `add@{WRAPS}` (in this report). torch 9: add hung" in section
    assert "`numpy-native`" not in section
    assert "add@hang: intermittent hang" in (docs / "backends" / "torch.xfail").read_text()
