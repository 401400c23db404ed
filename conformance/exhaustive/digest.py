"""The oracle digest of one plan: what determines that plan's expected values.

A state record is evidence about one plan (``exp:Float32``); it stays valid
exactly as long as the expected values and the verdict rules of *that plan*
stay what they were.  :func:`plan_digest` therefore covers

* the **code** that computes them: the transitive closure, within the
  project's packages (``oracle``, ``conformance``), of the sweep's reference
  and comparison functions (:data:`ROOTS`), found from the functions' own
  syntax trees and globals -- every name a function reads is resolved in its
  module (``V.certified_range`` through the module ``V``), and every function
  or class found is followed in turn;
* the plan's **table row**: the operation's facts and overloads
  (:data:`oracle.operations.BUILTIN_FACTS`, :func:`oracle.planner.get_operation`)
  except the prose semantics sentence, which computes nothing;
* the **versions** of the libraries the closure calls (numpy, scipy, gmpy2,
  mpmath ...): their kernels are premises of the oracle.

Specialised to the plan, so that another plan's change does not reach it:

* a table keyed by operation name (``_FORMULAS``, ``rounded.UNARY``,
  ``MONOTONE`` ...) contributes only *this* operation's entry (or its absence),
  a collection of operation names (``ROUNDED_OPS``) only whether it holds this
  operation -- so adding a row for another operation changes nothing here;
* in a function whose parameter ``op`` (or ``dtype``) is the plan's, a branch
  on a test decided by the plan (``if op == "gelu"``, ``op in EXACT_OPS``,
  ``dtype == "Float32"``) contributes only the branch taken.  The binding is
  made only where every call reaching the function passes its own ``op``
  through (a call with another value walks the function unspecialised);
* a global dictionary a reached function writes into (a cache, a counter such
  as ``STATS``) contributes nothing: it is state, not a fact.

Normalised, so that moving code does not change it: each function or class
is digested as its syntax tree (``ast.dump``: no file name, no line numbers,
no comments, docstrings and annotations dropped, a module reference written
as ``<module>`` whatever its import alias), and the digest is over the *set*
of those parts, not their files or order.  Moving a function to another
module, reformatting it, editing its docstring or any function the plan does
not reach keeps the digest; editing what the plan reaches changes it.

The digest is conservative: a function several plans reach (with branches it
cannot decide statically) is digested whole, so editing it invalidates all of
them.  It cannot see a change inside a library without a version change.
"""

from __future__ import annotations

import ast
import copy
import functools
import hashlib
import importlib.metadata
import inspect
import sys
import types
from collections.abc import Callable, Iterable
from dataclasses import fields, is_dataclass
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np

from conformance.exhaustive.compare import ROOTS
from conformance.host.identity import digest_of
from oracle import vectorised as V
from oracle.operations import BUILTIN_FACTS
from oracle.planner import get_operation

__all__ = ["PROJECT", "ROOTS", "digest_parts", "plan_digest", "table_row"]

#: the top-level packages whose code is followed (everything else is a library)
PROJECT = ("oracle", "conformance")
#: parameters bound to the plan in the functions that take them
_BOUND = ("op", "dtype")
_MISSING = "<absent>"


_hash = digest_of  #: the identity's length-prefixed SHA-256, 16 hex digits


def _project(module_name: str | None) -> bool:
    return module_name is not None and module_name.partition(".")[0] in PROJECT


def _operation_names() -> frozenset[str]:
    return frozenset(BUILTIN_FACTS)


# ---------------------------------------------------------------------------
# Syntax trees
# ---------------------------------------------------------------------------


@functools.cache
def _module_index(filename: str) -> dict[tuple[str, Any], list[ast.AST]]:
    """The definitions of a source file: (kind, key) -> syntax trees, where the key is
    ``(name, line)`` for a def (its ``def`` line and its first decorator's), the line for
    a lambda and the name for a class."""
    with open(filename, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename)
    index: dict[tuple[str, Any], list[ast.AST]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            lines = {node.lineno, *(d.lineno for d in node.decorator_list)}
            for line in lines:
                index.setdefault(("def", (node.name, line)), []).append(node)
        elif isinstance(node, ast.Lambda):
            index.setdefault(("lambda", node.lineno), []).append(node)
        elif isinstance(node, ast.ClassDef):
            index.setdefault(("class", node.name), []).append(node)
    return index


def _definition(obj: Any) -> list[ast.AST]:
    """The syntax tree(s) of a function, lambda or class, found in its module's file
    (copies: the caller may change them)."""
    target = inspect.unwrap(obj)
    try:
        filename = inspect.getsourcefile(target)
    except TypeError:
        filename = None
    if not filename:
        raise LookupError(f"no source for {obj!r}")
    index = _module_index(filename)
    if inspect.isclass(target):
        key: tuple[str, Any] = ("class", target.__name__)
    else:
        code = target.__code__
        if code.co_name == "<lambda>":
            key = ("lambda", code.co_firstlineno)
        else:
            key = ("def", (code.co_name, code.co_firstlineno))
    found = index.get(key)
    if not found:
        raise LookupError(f"no definition of {target.__qualname__} in {filename}")
    return [copy.deepcopy(node) for node in found]


class _Normalise(ast.NodeTransformer):
    """Docstrings and annotations dropped; branches decided by the plan pruned, and the
    statements after a ``return`` or ``raise`` of a block (unreachable) with them."""

    def __init__(self, decide: Callable[[ast.expr], bool | None]) -> None:
        self.decide = decide

    def generic_visit(self, node: ast.AST) -> ast.AST:
        node = super().generic_visit(node)
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                for i, statement in enumerate(block):
                    if isinstance(statement, ast.Return | ast.Raise):
                        del block[i + 1 :]
                        break
        return node

    def _body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        if (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            body = body[1:]
        return body

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
        node.body = self._body(node.body)
        node.returns = None
        node.decorator_list = [d for d in node.decorator_list]
        for arg in [*node.args.args, *node.args.posonlyargs, *node.args.kwonlyargs]:
            arg.annotation = None
        for star in (node.args.vararg, node.args.kwarg):
            if star is not None:
                star.annotation = None
        return self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.body = self._body(node.body) or [ast.Pass()]
        return self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        if node.value is None:  # a bare annotation (a dataclass field): keep the name
            return self.generic_visit(node)
        return self.generic_visit(ast.Assign(targets=[node.target], value=node.value))

    def visit_If(self, node: ast.If) -> ast.AST | list[ast.AST]:
        taken = self.decide(node.test)
        if taken is None:
            return self.generic_visit(node)
        kept = node.body if taken else node.orelse
        return [self.visit(s) for s in kept] or [ast.Pass()]

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST | None:
        taken = self.decide(node.test)
        if taken is None:
            return self.generic_visit(node)
        return self.visit(node.body if taken else node.orelse)


# ---------------------------------------------------------------------------
# The closure
# ---------------------------------------------------------------------------


def _namespace(target: Any) -> dict[str, Any]:
    """The globals a function or class resolves its names in."""
    if inspect.isclass(target):
        return vars(sys.modules[target.__module__])
    return target.__globals__


def _resolve_chain(chain: tuple[str, ...], namespace: dict[str, Any]) -> Any:
    """The object ``a.b.c`` names in *namespace*, through modules only (None if none)."""
    if not chain or chain[0] not in namespace:
        return None
    found = namespace[chain[0]]
    for name in chain[1:]:
        if not isinstance(found, types.ModuleType) or not hasattr(found, name):
            return None
        found = getattr(found, name)
    return found


def _chain(expr: ast.expr) -> tuple[str, ...] | None:
    """``("a", "b", "c")`` for the expression ``a.b.c`` (None for anything else)."""
    names: list[str] = []
    while isinstance(expr, ast.Attribute):
        names.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    return (expr.id, *reversed(names))


@functools.cache
def _library(name: str) -> str:
    """``top-level-name version`` of the library module *name* (or of its top level)."""
    top = name.partition(".")[0] or "?"
    try:
        version = importlib.metadata.version(top)
    except (importlib.metadata.PackageNotFoundError, ValueError):
        version = getattr(sys.modules.get(top), "__version__", "builtin")
    return f"{top} {version}"


def _rebound(node: ast.AST) -> set[str]:
    """The plan parameters that *node*'s body assigns to (those are not the plan's)."""
    stored = {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    return stored & set(_BOUND)


def _decider(
    namespace: dict[str, Any], node: ast.AST, binding: tuple[str, str] | None
) -> Callable[[ast.expr], bool | None]:
    """A test -> True/False when the plan decides it, None otherwise."""
    values = dict(zip(_BOUND, binding)) if binding else {}
    free = set(values) - _rebound(node)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
        free &= {a.arg for a in arguments}

    def value(expr: ast.expr) -> Any:
        if isinstance(expr, ast.Constant):
            return expr.value
        if isinstance(expr, ast.Name) and expr.id in free:
            return values[expr.id]
        if isinstance(expr, ast.Tuple | ast.List | ast.Set):
            return tuple(value(e) for e in expr.elts)
        chain = _chain(expr)
        found = _resolve_chain(chain, namespace) if chain else None
        if isinstance(found, tuple | list | frozenset | set | dict):
            return found
        raise LookupError(ast.dump(expr))

    def decide(test: ast.expr) -> bool | None:
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = decide(test.operand)
            return None if inner is None else not inner
        if isinstance(test, ast.BoolOp):
            results = [decide(v) for v in test.values]
            if isinstance(test.op, ast.And):
                if False in results:
                    return False
                return True if all(r is True for r in results) else None
            if True in results:
                return True
            return False if all(r is False for r in results) else None
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
            return None
        names = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
        if not names & free:  # only tests on the plan's own parameters are decided
            return None
        try:
            left, right = value(test.left), value(test.comparators[0])
        except LookupError:
            return None
        operator = test.ops[0]
        if isinstance(operator, ast.Eq):
            return left == right
        if isinstance(operator, ast.NotEq):
            return left != right
        if isinstance(operator, ast.In):
            return left in right
        if isinstance(operator, ast.NotIn):
            return left not in right
        return None

    return decide


def _passes_op(call: ast.Call, namespace: dict[str, Any]) -> bool:
    """Whether *call* calls a project function with a parameter ``op`` and passes ``op``."""
    chain = _chain(call.func)
    callee = _resolve_chain(chain, namespace) if chain else None
    if callee is None or not callable(callee):
        return False
    callee = inspect.unwrap(callee)
    if not (inspect.isfunction(callee) and _project(callee.__module__)):
        return False
    parameters = callee.__code__.co_varnames[: callee.__code__.co_argcount]
    if "op" not in parameters:
        return False
    index = parameters.index("op")
    argument = call.args[index] if index < len(call.args) else None
    for keyword in call.keywords:
        if keyword.arg == "op":
            argument = keyword.value
    return isinstance(argument, ast.Name) and argument.id == "op"


Reference = tuple[str, Any, bool]


@functools.cache
def _normalised(target: Any, binding: tuple[str, str] | None) -> tuple[list[str], list[Reference]]:
    """(dumps, references) of *target*'s syntax tree(s), specialised to *binding*.

    A reference is ``("name", NAME, passes op)``, ``("attr", (NAME, ..., ATTR), passes
    op)``, ``("write", NAME, False)`` (the code writes into NAME: state) or ``("import",
    MODULE, False)`` (a lazy import).
    """
    namespace = _namespace(target)
    dumps: list[str] = []
    references: list[Reference] = []
    for node in _definition(target):
        tree = _Normalise(_decider(namespace, node, binding)).visit(node)
        passed: set[int] = set()
        for n in ast.walk(tree):
            if isinstance(n, ast.Call) and binding and _passes_op(n, namespace):
                passed.add(id(n.func))
        for n in ast.walk(tree):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                references.append(("name", n.id, id(n) in passed))
            elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load):
                chain = _chain(n)
                if chain is not None:
                    references.append(("attr", chain, id(n) in passed))
            elif (
                isinstance(n, ast.Subscript | ast.Attribute)
                and isinstance(n.ctx, ast.Store | ast.Del)
                and isinstance(n.value, ast.Name)
            ):
                references.append(("write", n.value.id, False))
            elif isinstance(n, ast.Import | ast.ImportFrom):
                for alias in n.names:
                    module = n.module if isinstance(n, ast.ImportFrom) else alias.name
                    references.append(("import", module or "", False))
            if (
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and isinstance(n.func.value, ast.Name)
                and n.func.attr in ("update", "setdefault", "pop", "clear", "append")
            ):
                references.append(("write", n.func.value.id, False))

        class Modules(ast.NodeTransformer):
            def visit_Name(self, node: ast.Name) -> ast.Name:
                if isinstance(namespace.get(node.id), types.ModuleType):
                    return ast.Name(id="<module>", ctx=node.ctx)
                return node

        dumps.append(ast.dump(Modules().visit(tree)))  # last: it rewrites the tree
    return dumps, references


class _Closure:
    """The parts of one plan's digest (see the module docstring)."""

    def __init__(self, op: str, dtype: str) -> None:
        self.values = {"op": op, "dtype": dtype}
        self.operations = _operation_names()
        self.parts: set[str] = set()
        self.libraries: set[str] = set()
        self.walked: set[tuple[int, bool]] = set()
        self.data: list[tuple[dict[str, Any], str]] = []  #: (module globals, name) read
        self.written: set[tuple[int, str]] = set()  #: (id of module globals, name) written

    # -- functions and classes ---------------------------------------------

    def follow(self, obj: Any, bound: bool) -> None:
        target = inspect.unwrap(obj) if callable(obj) else obj
        if inspect.isclass(target):
            bound = False
        else:
            parameters = target.__code__.co_varnames[: target.__code__.co_argcount]
            bound = bound and any(name in parameters for name in _BOUND)
        key = (id(target), bound)
        if key in self.walked:
            return
        self.walked.add(key)
        binding = (self.values["op"], self.values["dtype"]) if bound else None
        namespace = _namespace(target)
        dumps, references = _normalised(target, binding)
        self.parts.update(dumps)
        for kind, name, _ in references:
            if kind == "write":
                self.written.add((id(namespace), name))
        for kind, name, passed in references:
            if kind == "name" and name in namespace:
                self._use(namespace[name], namespace, name, passed)
            elif kind == "attr":
                base = _resolve_chain(name[:-1], namespace)
                if not isinstance(base, types.ModuleType):
                    continue
                if hasattr(base, name[-1]):
                    self._use(getattr(base, name[-1]), vars(base), name[-1], passed)
                else:
                    self.libraries.add(_library(base.__name__))
                op = self.values["op"]
                if bound and _project(base.__name__) and hasattr(base, op):
                    # getattr(module, op): the operation's own function there
                    self._use(getattr(base, op), vars(base), op, False)
            elif kind == "import" and not _project(name):
                self.libraries.add(_library(name))

    # -- values ----------------------------------------------------------------

    def _library(self, obj: Any) -> str:
        """``name version`` of the library of *obj* (a module or one of its members)."""
        if isinstance(obj, types.ModuleType):
            return _library(obj.__name__)
        return _library(getattr(obj, "__module__", None) or type(obj).__module__ or "?")

    def _use(self, obj: Any, namespace: dict[str, Any], name: str, bound: bool) -> None:
        if isinstance(obj, types.ModuleType):
            if not _project(obj.__name__):
                self.libraries.add(self._library(obj))
            return
        if inspect.isfunction(inspect.unwrap(obj)) or inspect.isclass(obj):
            module = getattr(inspect.unwrap(obj), "__module__", None)
            if _project(module):
                self.follow(obj, bound)
                return
            if module not in ("builtins", "typing", "__future__", None):
                self.libraries.add(self._library(obj))
            return
        if callable(obj) and not isinstance(obj, dict | list | tuple):
            self.parts.add(self.value(obj))
            return
        self.data.append((namespace, name))

    def value(self, obj: Any) -> str:
        """A stable text of a data value, specialised to the plan's operation."""
        op = self.values["op"]
        if isinstance(obj, dict):
            if obj and all(isinstance(k, str) for k in obj) and set(obj) & self.operations:
                entry = obj.get(op, _MISSING)
                return f"entry {op}: " + (entry if entry is _MISSING else self.value(entry))
            items = sorted((repr(k), self.value(v)) for k, v in obj.items())
            return "{" + ", ".join(f"{k}: {v}" for k, v in items) + "}"
        if isinstance(obj, tuple | list | set | frozenset):
            if any(isinstance(e, str) and e in self.operations for e in obj):
                return f"member {op}: {op in obj}"
            inner = [self.value(e) for e in obj]
            if isinstance(obj, set | frozenset):
                inner.sort()
            return f"{type(obj).__name__}(" + ", ".join(inner) + ")"
        if isinstance(obj, np.ndarray):
            return f"ndarray {obj.dtype} {obj.shape} " + hashlib.sha256(obj.tobytes()).hexdigest()
        if isinstance(obj, Enum):
            return f"{type(obj).__name__}.{obj.name}"
        if is_dataclass(obj) and not isinstance(obj, type):
            if _project(type(obj).__module__):
                self.follow(type(obj), False)
            body = ", ".join(f"{f.name}={self.value(getattr(obj, f.name))}" for f in fields(obj))
            return f"{type(obj).__name__}({body})"
        if isinstance(obj, str | bytes | int | float | bool | complex | type(None) | np.generic):
            return repr(obj)
        if isinstance(obj, np.dtype):
            return f"dtype {obj.str}"
        if inspect.isfunction(inspect.unwrap(obj)) and _project(inspect.unwrap(obj).__module__):
            self.follow(obj, False)
            return "function " + inspect.unwrap(obj).__code__.co_name
        library = self._library(obj)
        self.libraries.add(library)
        settings = [
            f"{name}={getattr(obj, name)!r}"
            for name in ("precision", "round", "emax", "emin", "subnormalize")
            if hasattr(obj, name)
        ]  # a gmpy2 context: its settings, not its (changing) flags
        label = getattr(obj, "__name__", None) or type(obj).__qualname__
        return f"{library} {label} " + " ".join(settings)

    def finish(self) -> list[str]:
        """The sorted parts, the data read by the closure included (state excluded)."""
        while True:  # valuing data may follow more functions (and find more data, writers)
            walked, read = len(self.walked), len(self.data)
            values = {}
            for namespace, name in list(self.data):
                if (id(namespace), name) not in self.written and name not in _module_state(
                    namespace.get("__file__")
                ):
                    values[id(namespace), name] = f"data {name} = {self.value(namespace[name])}"
            if len(self.walked) == walked and len(self.data) == read:
                break
        parts = self.parts | set(values.values())
        return sorted(parts) + sorted("library " + x for x in self.libraries)


@functools.cache
def _module_state(path: str | None) -> frozenset[str]:
    """The module-level names some function of the module at *path* writes into
    (``STATS[k] += 1``, ``CACHE.setdefault(...)``): state, whether or not the
    function is reached from this plan -- a reached reader alone must not make a
    counter's current value part of the digest (it would depend on what the
    process ran before)."""
    if not path or not path.endswith(".py"):
        return frozenset()
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return frozenset()
    names = set()
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for n in ast.walk(function):
            if (
                isinstance(n, ast.Subscript | ast.Attribute)
                and isinstance(n.ctx, ast.Store | ast.Del)
                and isinstance(n.value, ast.Name)
            ):
                names.add(n.value.id)
            elif (
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and isinstance(n.func.value, ast.Name)
                and n.func.attr in ("update", "setdefault", "pop", "clear", "append")
            ):
                names.add(n.func.value.id)
    return frozenset(names)


def table_row(op: str) -> str:
    """The plan's row of the operation table, without the prose semantics sentence."""
    facts = BUILTIN_FACTS[op]
    shown = {f.name: getattr(facts, f.name) for f in fields(facts) if f.name != "semantics"}
    return f"facts {shown!r}; spec {get_operation(op)!r}"


def digest_parts(plan: str, roots: Iterable[Callable[..., Any]] | None = None) -> list[str]:
    """Every part of :func:`plan_digest` (for a test or a curious reader)."""
    op, _, dtype = plan.partition(":")
    if op not in V.OPS or dtype not in ("Float32", "Int32"):
        raise KeyError(f"no unary plan {plan!r}")
    closure = _Closure(op, dtype)
    for root in ROOTS if roots is None else roots:
        closure.follow(root, True)
    return [*closure.finish(), table_row(op)]


@functools.cache
def plan_digest(plan: str) -> str:
    """16 hex digits over :func:`digest_parts` of *plan* (computed once per process: the
    code this process imported is the code that runs)."""
    return _hash(part.encode() for part in digest_parts(plan))
