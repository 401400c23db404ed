"""The type check (issue 32): mypy over the tree, the backend protocol, the shipped marker.

``python -m mypy`` with the configuration in ``pyproject.toml`` must report no error
(``.ci/run`` runs the same command before the suite); the CPU and Generic backends
must satisfy :class:`backends.protocol.Backend` as a user's checker sees them
(``tests/typing_backend_protocol.py``), and a class that does not must be reported.
mypy's incremental cache (``.mypy_cache`` in the checkout) keeps a rerun to seconds.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROTOCOL_CHECK = ROOT / "tests" / "typing_backend_protocol.py"

pytest.importorskip("mypy", reason="mypy is in the dev extra: pip install -e '.[dev]'")


def _mypy(*paths: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", *map(str, paths)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _errors(output: str) -> list[str]:
    return [line for line in output.splitlines() if ": error:" in line]


def test_the_configured_tree_type_checks_with_no_error() -> None:
    result = _mypy()
    assert _errors(result.stdout) == [], result.stdout
    assert result.returncode == 0, result.stdout + result.stderr
    checked = re.search(r"no issues found in (\d+) source files", result.stdout)
    assert checked and int(checked.group(1)) > 150, result.stdout


def test_the_public_front_is_checked_as_strictly_as_disallow_untyped_defs() -> None:
    """An unannotated function in oracle is an error under the configuration."""
    text = (ROOT / "pyproject.toml").read_text()
    overrides = text.split("[[tool.mypy.overrides]]")
    front = next(o for o in overrides if '"oracle.*"' in o)
    patterns = re.findall(r'"([\w.*]+)"', front.split("]")[0])
    for module in ("oracle", "oracle.evaluate", "backends.protocol", "backends.dispatch"):
        assert _covers(patterns, module), (module, patterns)
    assert not _covers(["backends.*"], "backends") and _covers(["backends.*"], "backends.a.b")
    assert "disallow_untyped_defs = true" in front


def _covers(patterns: list[str], module: str) -> bool:
    """Whether one of mypy's override *patterns* names *module* (``a.*``: a's submodules)."""
    return any(p == module or (p.endswith(".*") and module.startswith(p[:-1])) for p in patterns)


NOT_A_BACKEND = """
    from __future__ import annotations
    import numpy as np
    from backends.protocol import Backend
    from oracle import Tensor

    class NoExecute:
        name = "no-execute"
        def from_tensor(self, tensor: Tensor) -> np.ndarray:
            raise NotImplementedError
        def to_tensor(self, native: np.ndarray) -> Tensor:
            raise NotImplementedError

    class OtherNative:
        name = "other-native"
        def from_tensor(self, tensor: Tensor) -> np.ndarray:
            raise NotImplementedError
        def to_tensor(self, native: list[float]) -> Tensor:
            raise NotImplementedError
        def execute(self, operation: str, *args: object) -> np.ndarray:
            raise NotImplementedError

    missing: Backend[np.ndarray] = NoExecute()
    mistyped: Backend[np.ndarray] = OtherNative()
"""


def test_the_shipped_backends_satisfy_the_protocol_and_others_do_not(tmp_path: Path) -> None:
    wrong = tmp_path / "typing_not_a_backend.py"
    wrong.write_text(textwrap.dedent(NOT_A_BACKEND))
    result = _mypy(PROTOCOL_CHECK, wrong)
    errors = _errors(result.stdout)
    assert not [e for e in errors if "typing_backend_protocol.py" in e], result.stdout
    reported = {line.split(":")[1] for line in errors if wrong.name in line}
    lines = textwrap.dedent(NOT_A_BACKEND).splitlines()
    expected = {str(i + 1) for i, text in enumerate(lines) if ": Backend[np.ndarray] =" in text}
    assert reported == expected, result.stdout
    assert "execute" in result.stdout and "to_tensor" in result.stdout, result.stdout
