"""The exhaustive package's layout: a public front, one-way imports, no hidden imports."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import conformance.exhaustive as front

PACKAGE = Path(front.__file__).parent
MODULES = sorted(p for p in PACKAGE.glob("*.py"))
#: the project packages the sweep may depend on (the backend itself runs in its host:
#: conformance.host)
ALLOWED = ("conformance.exhaustive", "conformance.model", "conformance.host", "oracle", "backends")


def _imports(path: Path, *, top_level: bool) -> list[tuple[str, list[str]]]:
    """(module, names) of every import of *path*: module-level ones, or nested ones."""
    tree = ast.parse(path.read_text())
    found = []
    nodes = tree.body if top_level else [
        n for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
        for n in ast.walk(f)
    ]  # fmt: skip
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found += [(a.name, []) for a in node.names]
    return found


def _project(module: str) -> bool:
    return module.partition(".")[0] in ("conformance", "oracle", "backends")


def test_every_public_name_of_the_front_resolves():
    assert len(front.__all__) == len(set(front.__all__))
    for name in front.__all__:
        assert getattr(front, name) is not None, name
    # the spellings the README, docs, benchmarks and tests use
    for name in ("check_range", "count_mismatches", "numpy_float32", "NUMPY_MISSING",
                 "shard_range", "shard_of", "sampled_shards", "accuracy_table", "summarise",
                 "run_shard", "load_state", "plan_ids", "main", "add_arguments"):  # fmt: skip
        assert name in front.__all__, name
    assert importlib.import_module("conformance.exhaustive_pytest").pytest_configure
    assert importlib.import_module("conformance.exhaustive.items").test_shard_conforms


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_the_package_depends_only_on_the_model_the_oracle_and_backends(path):
    for module, _ in _imports(path, top_level=True):
        if _project(module):
            assert module.startswith(ALLOWED), f"{path.name} imports {module}"
    nested = [m for m, _ in _imports(path, top_level=False) if _project(m)]
    assert nested == [], f"{path.name}: function-local imports of project modules {nested}"


def test_the_package_has_no_import_cycle():
    graph: dict[str, set[str]] = {}
    for path in MODULES:
        name = path.stem
        edges = graph.setdefault(name, set())
        for module, names in _imports(path, top_level=True):
            if module == "conformance.exhaustive":  # from the package: its submodules
                edges |= {n for n in names if (PACKAGE / f"{n}.py").exists()}
            elif module.startswith("conformance.exhaustive."):
                edges.add(module.rsplit(".", 1)[1])
    done: set[str] = set()

    def visit(node: str, path: tuple[str, ...]) -> None:
        assert node not in path, " -> ".join((*path, node))
        if node in done:
            return
        for target in graph.get(node, ()):
            if target != "__init__":
                visit(target, (*path, node))
        done.add(node)

    for node in graph:
        if node != "__init__":
            visit(node, ())
    assert "sweep" in graph["cli"] and "__init__" not in graph["cli"]
