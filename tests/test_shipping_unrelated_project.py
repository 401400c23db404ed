"""Installing plancheck leaves an unrelated project alone (issue 22, item 3).

The project below has a ``conformance`` package of its own (``LEVEL = 1``) and a
test importing it.  plancheck's pytest11 entry point (``plancheck_pytest``) is
loaded into that project's pytest session, as into every session on the machine,
yet it must not import plancheck's ``conformance``: the project's test passes.
plancheck itself keeps working from the same directory when asked.

Both run in subprocesses: this test session has plancheck's packages imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYTHON_P = ["-P"] if sys.version_info >= (3, 11) else []


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An unrelated project: its own ``conformance`` package and a test of it."""
    (tmp_path / "conformance").mkdir()
    (tmp_path / "conformance" / "__init__.py").write_text("LEVEL = 1\n", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_level.py").write_text(
        "from conformance import LEVEL\n\n\ndef test_level():\n    assert LEVEL == 1\n",
        encoding="utf-8",
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\npythonpath = .\n", encoding="utf-8")
    return tmp_path


def _env() -> dict[str, str]:
    """plancheck importable as if installed (this checkout after the project's own path)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


def test_an_unrelated_conformance_package_is_left_alone(project: Path) -> None:
    # -P: the current directory is not put first on sys.path, as with the `pytest`
    # console script: the ini's `pythonpath = .` adds the project after the plugins load
    result = subprocess.run(
        [sys.executable, *PYTHON_P, "-m", "pytest", "-p", "no:cacheprovider", "tests"],
        cwd=project, env=_env(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout
    assert "ImportError" not in result.stdout + result.stderr
    # the entry point was loaded into that session (so the test above means something)
    listing = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--help"],
        cwd=project, env=_env(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert "--plancheck-backend" in listing.stdout


@pytest.mark.skipif(sys.version_info < (3, 11), reason="python -P (no cwd on sys.path) is 3.11+")
def test_plancheck_still_works_from_that_project(project: Path) -> None:
    # `plancheck` is a console script: the current directory is not on its sys.path
    # (python -P does the same), so plancheck's own packages are the ones imported
    result = subprocess.run(
        [sys.executable, "-P", "-m", "conformance.cli", "run", "--backend", "cpu",
         "--op", "neg", "--workers", "0"],
        cwd=project, env=_env(), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "every operation conforms" in result.stdout
    # and the project's tests are untouched by that run
    assert (project / "conformance" / "__init__.py").read_text(encoding="utf-8") == "LEVEL = 1\n"


@pytest.mark.skipif(sys.version_info < (3, 11), reason="python -P (no cwd on sys.path) is 3.11+")
def test_a_backend_of_that_project_loads_in_its_host(project: Path) -> None:
    # the project also has a `backends` package of its own, with the backend under
    # test in it: the host process (started in the project's folder) must import
    # plancheck's `conformance` and `backends`, and still find `backends.mine`
    (project / "backends").mkdir()
    (project / "backends" / "__init__.py").write_text("", encoding="utf-8")
    (project / "backends" / "mine.py").write_text(
        "import importlib\n\n"
        "CPUBackend = importlib.import_module('backends.cpu').CPUBackend\n\n\n"
        "class Mine(CPUBackend):\n"
        "    name = 'mine'\n"
        "    version = 'minelib 9.9.1'\n",
        encoding="utf-8",
    )
    report = project / "out.json"
    result = subprocess.run(
        [sys.executable, "-P", "-m", "conformance.cli", "run", "--backend",
         "backends.mine:Mine", "--op", "neg", "--workers", "0", "--report", str(report)],
        cwd=project, env=_env(), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "every operation conforms" in result.stdout
    # the version is the backend's own, read in its host (not plancheck's)
    assert "minelib 9.9.1" in result.stdout
    versions = json.loads(report.read_text(encoding="utf-8"))["backend_versions"]
    assert versions == {"backends.mine:Mine": "minelib 9.9.1"}
