"""The adapter policy (docs/adapter-policy.md), checked over every adapter.

Two halves.  The static half reads the source of every module in
``backends/adapters/`` (no library needed, so it covers the adapters whose
library is not installed here too): no import of plancheck's validation
helpers, and no ``raise`` of an exception type of the adapter's own except
:class:`~backends.errors.NotMeasured` and the few protocol errors the module
docstrings justify.  The dynamic half runs each installed adapter: a bad
argument gives the library's own exception (never one a plancheck ``raise``
statement made), an unmappable call is NotMeasured, and
``composed_operations`` names exactly the operations the adapter composes.
"""

from __future__ import annotations

import ast
import linecache
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import backends
from backends.errors import NotMeasured
from oracle import DType, Tensor, registered_operations

ROOT = Path(__file__).resolve().parents[1]
ADAPTERS = ROOT / "backends" / "adapters"
SOURCES = sorted(ADAPTERS.glob("*.py"))

#: the plancheck modules an adapter may import, and what it may take from ``oracle``: the
#: plan it executes and the exchange types (SimpleDType: the type of an operand's
#: ``convert_to``, for annotations) -- nothing that validates or computes
ALLOWED_PLANCHECK_MODULES = {"backends.dispatch", "backends.errors"}
ORACLE_NAMES = {
    "Accumulation", "Arithmetic", "DType", "OperandRole", "OperationPlan", "SimpleDType", "Tensor"
}  # fmt: skip
PLANCHECK_PACKAGES = ("backends", "oracle", "conformance")

#: exception type -> the functions that may raise it, and why: the exchange refuses a
#: value that is not one of the library's tensors (protocol, not a call's argument); a
#: backend's construction options; the abstract members of the shared base class
ALLOWED_RAISES: dict[str, set[str]] = {
    "TypeError": {"dtype_of", "from_tensor", "to_tensor", "to_numpy", "from_numpy"},
    "ValueError": {"__init__", "_device"},
    "BackendLoadError": {"__init__", "_device", "_set_threads"},
    "NotImplementedError": {"is_native", "to_numpy", "from_numpy"},
}
#: functions that may hold a ``try`` (construction, and reading a caller's parameter
#: into a translation that becomes NotMeasured when it fails)
ALLOWED_TRY = {"__init__", "_set_threads", "padding_pairs", "per_dimension"}


def _module_name(path: Path) -> str:
    return f"backends.adapters.{path.stem}"


def _imported(node: ast.ImportFrom, module: str) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".")[: -node.level]
    return ".".join([*package, *([node.module] if node.module else [])])


def _functions(tree: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """(enclosing function name, node) for every node (the module level is '<module>')."""

    def walk(node: ast.AST, owner: str) -> Iterator[tuple[str, ast.AST]]:
        for child in ast.iter_child_nodes(node):
            name = (
                child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else owner
            )
            yield name, child
            yield from walk(child, name)

    yield from walk(tree, "<module>")


def _refusal_helpers(trees: list[ast.AST]) -> set[str]:
    """Functions annotated to return NotMeasured (``raise _unsupported(...)`` is fine)."""
    return {
        node.name
        for tree in trees
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
        and isinstance(node.returns, ast.Name | ast.Constant)
        and getattr(node.returns, "id", getattr(node.returns, "value", None)) == "NotMeasured"
    }


def _raised_name(node: ast.Raise) -> str | None:
    exc = node.exc
    if isinstance(exc, ast.Call):
        exc = exc.func
    if isinstance(exc, ast.Name):
        return exc.id
    if isinstance(exc, ast.Attribute):
        return exc.attr
    return None


def violations(sources: dict[str, str]) -> list[str]:
    """Every break of the static policy in *sources* (module name -> source text)."""
    trees = {module: ast.parse(text) for module, text in sources.items()}
    helpers = _refusal_helpers(list(trees.values()))
    found: list[str] = []
    for module, tree in trees.items():
        for owner, node in _functions(tree):
            where = f"{module}:{getattr(node, 'lineno', '?')} ({owner})"
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] in PLANCHECK_PACKAGES:
                        found.append(f"{where}: import {alias.name}")
            elif isinstance(node, ast.ImportFrom):
                target = _imported(node, module)
                top = target.split(".")[0]
                if target == "oracle":
                    extra = {a.name for a in node.names} - ORACLE_NAMES
                    if extra:
                        found.append(f"{where}: from oracle import {sorted(extra)}")
                elif target == "numpy.lib.array_utils":
                    found.append(f"{where}: numpy's axis normalisation for another library")
                elif top in PLANCHECK_PACKAGES and not (
                    target in ALLOWED_PLANCHECK_MODULES or target.startswith("backends.adapters")
                ):
                    found.append(f"{where}: from {target} import ...")
            elif isinstance(node, ast.Raise):
                name = _raised_name(node)
                if name == "NotMeasured" or name in helpers:
                    continue
                if node.exc is None or owner not in ALLOWED_RAISES.get(name or "", set()):
                    found.append(f"{where}: raise {name or 'bare re-raise'}")
            elif isinstance(node, ast.Try) and owner not in ALLOWED_TRY:
                found.append(f"{where}: try/except (a library exception translated or swallowed)")
    return found


def test_no_adapter_validates_or_raises_an_exception_of_its_own():
    sources = {_module_name(path): path.read_text() for path in SOURCES}
    assert len(sources) >= 11  # the nine adapters, translate, __init__
    assert violations(sources) == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from ..cpu.convert import normalise_axis\n", "from backends.cpu.convert"),
        ("from ..parameters import read_flag\n", "from backends.parameters"),
        ("from oracle.conv_geometry import conv_geometry\n", "from oracle.conv_geometry"),
        ("from oracle import expected\n", "from oracle import ['expected']"),
        ("import conformance.model\n", "import conformance.model"),
        ("def kernel(b, p, x):\n    raise ValueError('axis')\n", "raise ValueError"),
        ("def kernel(b, p, x):\n    raise NotImplementedError\n", "raise NotImplementedError"),
        ("def kernel(b, p, x):\n    try:\n        f()\n    except RuntimeError:\n"
         "        raise IndexError('x')\n", "try/except"),
        ("def dtype_of(v):\n    raise IndexError('x')\n", "raise IndexError"),
    ],
)  # fmt: skip
def test_the_static_check_finds_each_kind_of_violation(source, expected):
    found = violations({"backends.adapters.example": source})
    assert any(expected in line for line in found), found


def test_the_static_check_accepts_refusals_and_protocol_errors():
    source = (
        "from ..errors import NotMeasured\n"
        "def _no(op: str) -> NotMeasured:\n    return NotMeasured(op)\n"
        "def kernel(b, p, x):\n    raise _no('x')\n"
        "def other(b, p, x):\n    raise NotMeasured('x')\n"
        "def dtype_of(v):\n    raise TypeError('not a tensor of this library')\n"
    )
    assert violations({"backends.adapters.example": source}) == []


# ---------------------------------------------------------------------------
# The installed adapters
# ---------------------------------------------------------------------------

#: backend name -> the library module that must import for it to run here
INSTALLED = {
    "numpy-native": "numpy",
    "torch": "torch",
    "onnxruntime": "onnxruntime",
    "array-api-strict": "array_api_strict",
    "mlx": "mlx.core",
    "jax": "jax",
    "tensorflow": "tensorflow",
    "paddle": "paddle",
}


def _backend(name: str):
    pytest.importorskip(INSTALLED[name], reason=f"{INSTALLED[name]} is not installed")
    return backends.get(name)


def _f32(*shape: int) -> Tensor:
    count = int(np.prod(shape)) if shape else 1
    return Tensor(DType.Float32, shape, tuple(float(i % 5) for i in range(count)))


#: calls every library can express and refuses itself: an axis out of range, shapes that
#: do not broadcast or multiply
BAD_ARGUMENTS = [
    ("reduce_sum", lambda: (_f32(2, 2), 5)),
    ("reduce_max", lambda: (_f32(2, 2), -3)),
    ("cumsum", lambda: (_f32(2), 3)),
    ("argmax", lambda: (_f32(2), 4)),
    ("_sort_values", lambda: (_f32(2), 3)),
    ("add", lambda: (_f32(2), _f32(3))),
    ("matmul", lambda: (_f32(2, 3), _f32(2, 3))),
]


def _raised_by_a_plancheck_raise(error: BaseException) -> str | None:
    """The plancheck ``raise`` statement that raised *error*, or None.

    The innermost traceback frame of an exception a library's compiled code raises is
    the Python line that called it; only an exception raised by a ``raise`` statement
    in plancheck's own tree has its innermost frame on such a statement.
    """
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return None
    path = Path(tb.tb_frame.f_code.co_filename).resolve()
    if not path.is_relative_to(ROOT) or path.is_relative_to(ROOT / ".venv"):
        return None
    line = linecache.getline(str(path), tb.tb_lineno).strip()
    return f"{path.relative_to(ROOT)}:{tb.tb_lineno}: {line}" if line.startswith("raise") else None


@pytest.mark.parametrize("name", sorted(INSTALLED))
@pytest.mark.parametrize(("operation", "make"), BAD_ARGUMENTS, ids=[b[0] for b in BAD_ARGUMENTS])
def test_a_bad_argument_is_the_library_s_own_exception(name, operation, make):
    backend = _backend(name)
    natives = [backend.from_tensor(a) if isinstance(a, Tensor) else a for a in make()]
    before = backend.allocations
    with pytest.raises(Exception) as info:
        backend.execute(operation, *natives)
    assert not isinstance(info.value, NotMeasured), info.value
    assert _raised_by_a_plancheck_raise(info.value) is None, info.value
    assert backend.allocations == before


#: backend name -> (operation, arguments) the adapter cannot map onto its library
UNMAPPABLE = {
    "numpy-native": ("_sort_values", lambda: (_f32(3), 0, True)),  # numpy: no descending sort
    "torch": ("reduce_prod", lambda: (_f32(2, 2), ())),  # torch.prod: no dim=()
    "onnxruntime": ("exp2", lambda: (_f32(2),)),  # ONNX: no Exp2
    "array-api-strict": ("_topk_values", lambda: (_f32(3), 1)),  # the standard: no top-k
    "mlx": ("exp2", lambda: (_f32(2),)),  # mlx: no exp2
    "jax": ("_topk_values", lambda: (_f32(3), 1, 0, False)),  # lax.top_k: no smallest k
    "tensorflow": ("_topk_values", lambda: (_f32(3), 1, 0, False)),  # top_k: no smallest k
    "paddle": ("exp2", lambda: (_f32(2),)),  # paddle: no exp2
}


@pytest.mark.parametrize("name", sorted(UNMAPPABLE))
def test_an_unmappable_call_is_not_measured_before_the_library_runs(name):
    backend = _backend(name)
    operation, make = UNMAPPABLE[name]
    natives = [backend.from_tensor(a) if isinstance(a, Tensor) else a for a in make()]
    before = backend.allocations
    with pytest.raises(NotMeasured, match="not measured"):
        backend.execute(operation, *natives)
    assert backend.allocations == before


def _numpy_composed() -> set[str]:
    from backends.adapters.array_namespace import FORMULAS

    return {*FORMULAS, "erf", "conv_general", "_topk_values", "_topk_indices"}


#: backend name -> the operations its adapter composes from several library calls
COMPOSED = {
    "numpy-native": _numpy_composed,
    **{name: set for name in INSTALLED if name != "numpy-native"},
}


@pytest.mark.parametrize("name", sorted(INSTALLED))
def test_composed_operations_name_exactly_the_compositions(name):
    backend = _backend(name)
    declared = backend.composed_operations
    assert set(declared) == COMPOSED[name]()
    operations = {spec.name for spec in registered_operations()}
    assert set(declared) <= operations
    assert all(isinstance(how, str) and how.strip() for how in declared.values())
    # an adapter built on the shared namespace table that keeps a shared formula kernel
    # (several xp calls) must declare it
    from backends.adapters import array_namespace

    if isinstance(backend, array_namespace.ArrayNamespaceBackend):
        kept = {
            op
            for op in array_namespace.FORMULAS
            if backend.kernels[op] is array_namespace.KERNELS[op]
        }
        assert kept <= set(declared)
