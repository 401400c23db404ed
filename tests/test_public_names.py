"""Every name users are told to import or spell still resolves (the public front).

Outside users and tools depend on these spellings exactly: the pytest entry
point, the ``plancheck`` script, ``pytest --pyargs conformance.suite``, the
names the printed reproduction snippets import, the backends the docs name as
``module:attribute``, the modules run with ``python -m``, and every dotted
name and file path that README.md and docs/ cite.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.resources
import importlib.util
import re
from pathlib import Path

import pytest

import backends

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
PACKAGES = ("classes", "cli", "exhaustive", "findings", "generate", "judge", "model",
            "mutants", "pytest_plugin", "report")  # fmt: skip


def resolve(dotted: str) -> object:
    """The object a dotted name names: the longest importable module prefix, then
    attributes (raises ImportError or AttributeError when it does not resolve)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        name = ".".join(parts[:cut])
        try:
            spec = importlib.util.find_spec(name)
        except ModuleNotFoundError:
            spec = None
        if spec is None:
            continue
        value: object = importlib.import_module(name)
        for attribute in parts[cut:]:
            value = getattr(value, attribute)
        return value
    raise ImportError(f"no module in {dotted!r}")


def _entry_point(group: str, name: str) -> importlib.metadata.EntryPoint:
    (entry,) = [e for e in importlib.metadata.entry_points(group=group) if e.name == name]
    return entry


def test_the_pytest11_entry_point_loads_and_imports_nothing_of_plancheck():
    entry = _entry_point("pytest11", "plancheck")
    assert entry.value == "plancheck_pytest"
    module = entry.load()
    assert callable(module.pytest_addoption) and callable(module.pytest_configure)
    source = Path(module.__file__).read_text()
    top_level = [line for line in source.splitlines() if line.startswith(("import ", "from "))]
    assert not [line for line in top_level if re.search(r"\b(conformance|oracle|backends)\b", line)]


def test_the_plancheck_script_is_the_cli_main():
    from conformance.cli import main

    assert _entry_point("console_scripts", "plancheck").load() is main


@pytest.mark.parametrize(
    "module",
    ["conformance.suite", "conformance.cli", "conformance.mutants", "conformance.witnesses"],
)
def test_documented_modules_are_found_by_name(module):
    """``pytest --pyargs conformance.suite`` and ``python -m conformance.cli|mutants|witnesses``."""
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None


@pytest.mark.parametrize("package", ["conformance.cli", "conformance.mutants"])
def test_python_dash_m_packages_have_a_main(package):
    assert importlib.util.find_spec(f"{package}.__main__") is not None


@pytest.mark.parametrize(
    "dotted",
    [
        "conformance.report.reproduce",
        "conformance.report.validate_report",
        "conformance.report.FailureReport",
        "conformance.html_report.write_html",
        "conformance.exhaustive.check_range",
        "conformance.exhaustive_pytest.pytest_addoption",
        "conformance.witnesses.main",
        "conformance.mutants.MUTANTS",
        "conformance.mutants.kill",
    ],
)
def test_documented_functions_resolve(dotted):
    assert resolve(dotted) is not None


def test_the_report_schema_ships_beside_the_package():
    text = importlib.resources.files("conformance").joinpath("report.schema.json").read_text()
    assert '"$schema"' in text


def test_every_mutant_loads_as_a_backend_by_both_documented_spellings():
    from conformance.mutants import MUTANTS
    from conformance.mutants import result as result_mutants

    for name in list(MUTANTS)[:3]:
        assert backends.get(f"conformance.mutants:{name}") is not None
    name = next(iter(result_mutants.RESULT_MUTANTS))
    assert type(backends.get(f"conformance.result_mutants:{name}")) is type(
        backends.get(f"conformance.mutants:{name}")
    )


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_front_exports_what_it_names(package):
    module = importlib.import_module(f"conformance.{package}")
    assert module.__doc__ and len(module.__doc__.splitlines()) > 3, "a package says what it holds"
    for name in getattr(module, "__all__", []):
        assert hasattr(module, name), f"conformance.{package}.{name}"


def _cited_names() -> list[tuple[str, str]]:
    cited = set()
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for match in re.finditer(r"`~?(conformance(?:\.[A-Za-z_][A-Za-z_0-9]*)+)`", text):
            cited.add((doc.name, match.group(1)))
        for match in re.finditer(r"(conformance(?:\.[a-z_0-9]+)+):([A-Za-z_][A-Za-z_0-9]*)", text):
            cited.add((doc.name, f"{match.group(1)}:{match.group(2)}"))
    return sorted(cited)


@pytest.mark.parametrize(("doc", "name"), _cited_names())
def test_every_name_the_docs_cite_resolves(doc, name):
    colon = name.partition(":")[1]
    if colon:
        assert backends.get(name) is not None, f"{doc}: {name}"
    else:
        assert resolve(name) is not None, f"{doc}: {name}"


def _cited_paths() -> list[tuple[str, str]]:
    cited = set()
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for match in re.finditer(r"(?<![\w/.-])((?:conformance|oracle|backends)/[\w/.-]*\w)", text):
            cited.add((doc.name, match.group(1)))
    return sorted(cited)


#: paths the docs cite that are not plancheck's files, on purpose
NOT_OURS = {
    "backends/mine.py": "a user's own backend module, the example of loading one",
    "conformance/exhaustive.py": "where the sweep lived before this round (history)",
}


@pytest.mark.parametrize(("doc", "path"), _cited_paths())
def test_every_source_path_the_docs_cite_exists(doc, path):
    assert path in NOT_OURS or (ROOT / path).exists(), f"{doc} cites {path}"


def test_the_package_list_reads_as_the_architecture():
    """At most 15 modules directly in conformance/, no import cycle between modules."""
    top = sorted(p.name for p in (ROOT / "conformance").glob("*.py"))
    assert len(top) <= 15, top
