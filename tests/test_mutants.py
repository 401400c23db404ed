"""The suite's detection power: the ``ci`` profile kills every catalogued mutant.

Each mutant (``conformance.mutants``) is the CPU backend with one realistic
fault; the shipped suite's check functions run for the mutant's operations
only (boundary examples, corpus, invalid calls, generated calls, stopping at
the first that fails).  ``docs/mutants.md`` lists what killed each mutant
(regenerate it with ``python -m conformance.mutants > docs/mutants.md``).
Every mutant is killed: ``KNOWN_GAPS`` (survivors with their witness call)
must stay empty; a new survivor needs a boundary example, not an entry.

The package's shape is tested too: the fault modules are data that the
catalogue imports (never the other way round), the engine is imported in one
place, and the result mutants' operations are what the witness data says.
"""

from __future__ import annotations

import ast
import importlib
import importlib.resources
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import backends
import conformance.mutants
from conformance.classes.result import ResultClass
from conformance.generate.witnesses import applicable_result_classes
from conformance.mutants import KNOWN_GAPS, MUTANTS, Mutant, backend_class, kill, mutant_backend
from conformance.mutants import result as result_mutants
from oracle import Arithmetic, DType, Tensor, expected, registered_operations, resolvable_plans
from oracle import vectorised as V

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "mutants.md"
PACKAGE = ROOT / "conformance" / "mutants"
R = ResultClass


def test_the_catalogue_is_large_and_names_real_operations():
    assert len(MUTANTS) >= 40
    known = {spec.name for spec in registered_operations()}
    for mutant in MUTANTS.values():
        assert mutant.operations and set(mutant.operations) <= known, mutant.name
        assert mutant.fault and (mutant.kernels or mutant.execute), mutant.name
    assert not KNOWN_GAPS  # a survivor needs a witness in the strategies, not an entry


def test_a_mutant_is_a_backend_by_import_path():
    backend = backends.get("conformance.mutants:neg_as_zero_minus_x")
    assert backend.name == "mutant:neg_as_zero_minus_x"
    zero = backend.to_tensor(
        backend.execute("neg", backend.from_tensor(Tensor(DType.Float32, (), (0.0,))))
    )
    assert zero.bits() == (0x00000000,)  # the fault: neg(+0) must be -0
    # every other operation is the CPU backend's
    x = Tensor(DType.Float32, (2,), (1.5, -0.0))
    assert backend.to_tensor(backend.execute("abs", backend.from_tensor(x))).values == (1.5, 0.0)


def test_every_mutant_name_is_exported_and_every_spelling_gives_one_class():
    exported = set(conformance.mutants.__all__)
    assert set(MUTANTS) <= exported
    for name, mutant in MUTANTS.items():
        cls = getattr(conformance.mutants, name)
        assert cls is backend_class(mutant) and cls.mutant is mutant
        assert cls.__module__ == "conformance.mutants" and cls.__qualname__ == name
    for name in result_mutants.RESULT_MUTANTS:  # the documented result-mutant spellings
        for module in ("conformance.result_mutants", "conformance.mutants.result"):
            assert type(backends.get(f"{module}:{name}")) is getattr(conformance.mutants, name)
    with pytest.raises(AttributeError):
        conformance.mutants.result.no_such_mutant  # noqa: B018


def test_a_mutant_record_injects_its_fault_one_way_and_unknown_names_are_refused():
    kernel = MUTANTS["neg_as_zero_minus_x"].kernels[0][1]
    with pytest.raises(ValueError, match="one"):
        Mutant("neither", ("neg",), "no fault injected")
    with pytest.raises(ValueError, match="one"):
        Mutant("both", ("neg",), "two faults", (("neg", kernel),), lambda *a: None)
    with pytest.raises(ValueError, match="identifier"):
        Mutant("not a name", ("neg",), "bad name", (("neg", kernel),))
    with pytest.raises(KeyError, match=r"python -m conformance\.mutants"):
        mutant_backend("no_such_mutant")
    with pytest.raises(KeyError, match="profile"):
        kill("neg_as_zero_minus_x", "no_such_profile")


@pytest.mark.parametrize("name", list(MUTANTS))
def test_the_ci_profile_kills_the_mutant(name):
    result = kill(name, "ci")
    assert result["killed"], f"{name} ({MUTANTS[name].fault}) survived the ci profile"
    assert result["problem"] != "oracle error"
    assert result["report"].startswith("NON-CONFORMANCE")
    assert "plancheck repro" in result["report"]


def test_docs_list_every_mutant():
    text = DOC.read_text(encoding="utf-8")
    for name in MUTANTS:
        assert f"| `{name}` |" in text, (
            f"{name} is missing from docs/mutants.md: run python -m conformance.mutants "
            f"> docs/mutants.md"
        )


def test_python_m_conformance_mutants_prints_docs_mutants_md():
    run = subprocess.run(
        [sys.executable, "-m", "conformance.mutants"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == DOC.read_text(encoding="utf-8"), (
        "docs/mutants.md is stale: run python -m conformance.mutants > docs/mutants.md"
    )


def test_a_mutant_instance_is_fresh():
    first, second = mutant_backend("add_int32_wraps"), mutant_backend("add_int32_wraps")
    assert first is not second and first.allocations == second.allocations == 0


# ---------------------------------------------------------------------------
# The result mutants' operations come from the witness data
# ---------------------------------------------------------------------------


def _shipped_witness_data() -> dict:
    """The witness file as shipped, read without conformance.generate.witnesses."""
    resource = importlib.resources.files("conformance.generate").joinpath("data", "witnesses.json")
    return json.loads(resource.read_text())


def _reaching(cls: ResultClass) -> set[str]:
    plans = _shipped_witness_data()["plans"]
    return {op for op in V.ROUNDED_OPS if cls.name in plans[f"{op}:Float32"]["reached"]}


def _limits_are_one(operation: str) -> bool:
    limits = expected(operation, Tensor(DType.Float32, (2,), (-np.inf, np.inf))).result.values
    return any(abs(v) == 1.0 for v in limits)


def test_the_result_mutant_operation_lists_are_what_the_witness_data_says():
    assert set(result_mutants.FLUSH_TO_ZERO_OPERATIONS) == _reaching(R.SUBNORMAL)
    assert set(result_mutants.OVERFLOW_OPERATIONS) == _reaching(R.OVERFLOW_EDGE_FINITE)
    saturating = {op for op in _reaching(R.SATURATION_EDGE_BELOW) if _limits_are_one(op)}
    assert set(result_mutants.SATURATION_OPERATIONS) == saturating
    # the asymptote rule matters: more operations reach +-1 at isolated inputs (sin, cos, ...)
    assert saturating < _reaching(R.SATURATION_EDGE_BELOW)
    checked = {
        plan.operation
        for plan in resolvable_plans()
        if plan.compute is Arithmetic.INT32_EXACT_CHECKED and plan.output is DType.Int32
    }
    assert set(result_mutants.INT32_CHECKED_OPERATIONS) == checked
    for lists in (
        result_mutants.FLUSH_TO_ZERO_OPERATIONS,
        result_mutants.OVERFLOW_OPERATIONS,
        result_mutants.SATURATION_OPERATIONS,
        result_mutants.INT32_CHECKED_OPERATIONS,
    ):
        assert lists and len(set(lists)) == len(lists)


def test_every_result_mutant_targets_a_class_its_operation_reaches():
    for name, mutant in result_mutants.RESULT_MUTANTS.items():
        target = result_mutants.TARGETS[name]
        plans = [p for p in resolvable_plans() if p.operation in mutant.operations]
        assert any(target in applicable_result_classes(p) for p in plans), name
        assert MUTANTS[name] is mutant


def test_a_saturation_mutant_breaks_only_the_last_unsaturated_input_on_the_way_out():
    plans = _shipped_witness_data()["plans"]
    edge = [
        np.uint32(int(b, 16)).view(np.float32)
        for b in plans["elu:Float32"]["thresholds"]
        if -18.0 < np.uint32(int(b, 16)).view(np.float32) < -17.0
    ]
    one_up = np.nextafter(np.float32(1.0), np.float32(2.0))  # elu(x) = x: next to elu(1) = 1
    x = Tensor(DType.Float32, (len(edge) + 1,), (*map(float, edge), float(one_up)))
    cpu, mutant = backends.get("cpu"), mutant_backend("elu_saturates_one_step_early")
    right = cpu.to_tensor(cpu.execute("elu", cpu.from_tensor(x))).values
    wrong = mutant.to_tensor(mutant.execute("elu", mutant.from_tensor(x))).values
    assert -1.0 in right[:-1] and right.count(-1.0) < wrong.count(-1.0)
    assert all(w == -1.0 for r, w in zip(right, wrong) if r != w)  # only saturated early
    assert wrong[-1] == right[-1] == float(one_up)  # the identity side next to 1 is untouched


# ---------------------------------------------------------------------------
# The package's shape
# ---------------------------------------------------------------------------

PROJECT = ("conformance", "oracle", "backends")
FAULT_MODULES = ("mutant", "kernels", "elementwise", "structured", "result")
ENGINE = ("conformance.suite", "conformance.judge")
MODULES = {p.stem: p for p in PACKAGE.glob("*.py")}


def _imports(path: Path) -> tuple[list[str], list[str]]:
    """(module-level imports, imports inside functions) of project modules in *path*.

    ``from a.b import c`` counts as ``a.b.c`` where ``a.b.c`` is a module of
    conformance.mutants, else as ``a.b``.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nested = {
        id(node)
        for function in ast.walk(tree)
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for node in ast.walk(function)
    }
    top: list[str] = []
    local: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [
                f"{node.module}.{a.name}"
                if node.module == "conformance.mutants" and a.name in MODULES
                else node.module
                for a in node.names
            ]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        names = [n for n in names if n.split(".")[0] in PROJECT]
        (local if id(node) in nested else top).extend(names)
    return top, local


def _within(name: str) -> str | None:
    """The conformance.mutants module *name* is (``__init__`` for the package), or None."""
    if name == "conformance.mutants":
        return "__init__"
    prefix = "conformance.mutants."
    return name[len(prefix) :].split(".")[0] if name.startswith(prefix) else None


def test_the_mutant_package_has_no_function_local_imports_and_no_cycle():
    graph: dict[str, set[str]] = {}
    for stem, path in MODULES.items():
        top, local = _imports(path)
        assert not local, f"conformance/mutants/{path.name} imports inside a function: {local}"
        graph[stem] = {m for m in map(_within, top) if m is not None}
    assert graph["catalogue"] >= {"elementwise", "structured", "result"}
    for stem in FAULT_MODULES:  # the machinery and the fault tables never see the catalogue
        assert not graph[stem] & {"catalogue", "kill", "table", "__init__"}, (stem, graph[stem])
    for start in graph:  # depth-first: no module reaches itself
        seen, stack = set(), list(graph[start])
        while stack:
            module = stack.pop()
            assert module != start, f"import cycle through conformance.mutants.{start}"
            if module not in seen:
                seen.add(module)
                stack.extend(graph.get(module, ()))


def test_the_engine_is_imported_in_one_place():
    importers = {
        stem
        for stem, path in MODULES.items()
        if any(n.startswith(ENGINE) for n in _imports(path)[0])
    }
    assert importers == {"kill"}


def test_the_front_modules_import():
    for module in ("conformance.mutants", "conformance.result_mutants"):
        front = importlib.import_module(module)
        assert all(hasattr(front, name) for name in front.__all__), module
