"""The project's layering: no import cycle, few function-local imports.

Imports are read from the source (module level and inside functions, relative
and absolute; ``if TYPE_CHECKING:`` blocks excluded), so a cycle hidden in a
function-local import counts too.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ("conformance", "oracle", "backends")
#: the top-level modules beside the packages (the pytest entry point, its option table)
TOP_LEVEL = tuple(sorted(p.stem for p in ROOT.glob("*.py")))
#: function-local imports of project modules are for start-up laziness only
LAZY_ALLOWED = {"conformance/cli/__init__.py"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(path: Path, modules: set[str]) -> tuple[set[str], int]:
    """The project modules *path* imports, and how many of its imports are function-local."""
    tree = ast.parse(path.read_text())
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    skipped = {id(n) for t in ast.walk(tree) if _is_type_checking(t) for n in ast.walk(t)}
    functions = [
        f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    local = {id(n) for f in functions for n in ast.walk(f)}
    targets: set[str] = set()
    local_count = 0
    for node in ast.walk(tree):
        if id(node) in skipped or not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.Import):
            found = [a.name for a in node.names]
        else:
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            found = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                     for a in node.names]  # fmt: skip
        found = [f for f in found if f.split(".")[0] in (*PROJECT, *TOP_LEVEL)]
        if found and id(node) in local:
            local_count += 1
        targets |= {f for f in found if f in modules and f != name}
    return targets, local_count


def _graph() -> tuple[dict[str, set[str]], dict[str, int]]:
    paths = sorted((ROOT / "conformance").rglob("*.py"))
    modules = {_module_name(p) for p in paths}
    graph, local = {}, {}
    for path in paths:
        graph[_module_name(path)], local[str(path.relative_to(ROOT))] = _imports(path, modules)
    return graph, local


@functools.cache
def _project_graph() -> dict[str, set[str]]:
    """Every module of the packages and the top-level modules, with the project modules
    each imports (module level or inside functions)."""
    paths = sorted(p for package in PROJECT for p in (ROOT / package).rglob("*.py"))
    paths += [ROOT / f"{name}.py" for name in TOP_LEVEL]
    modules = {_module_name(p) for p in paths}
    return {_module_name(p): _imports(p, modules)[0] for p in paths}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_between_conformance_modules():
    graph, _ = _graph()
    assert _cycles(graph) == []


def test_no_import_cycle_in_the_project():
    """oracle, backends, conformance and the top-level modules together: the pytest entry
    point loads the plugin, so the plugin reads the option table from plancheck_options,
    never from the entry point (issue 32)."""
    graph = _project_graph()
    assert {"plancheck_pytest", "plancheck_options", "oracle.planner"} <= graph.keys()
    assert "conformance.pytest_plugin" in graph["plancheck_pytest"]
    assert _cycles(graph) == []


def test_the_option_table_imports_nothing_of_the_project():
    assert _project_graph()["plancheck_options"] == set()


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]


def test_function_local_imports_of_project_modules_are_few_and_only_for_laziness():
    _, local = _graph()
    assert sum(local.values()) <= 30, local
    assert {path for path, count in local.items() if count} <= LAZY_ALLOWED, local


def test_the_model_imports_nothing_above_it():
    graph, _ = _graph()
    for module, targets in graph.items():
        if module.startswith("conformance.model"):
            assert all(t.startswith("conformance.model") for t in targets), (module, targets)
