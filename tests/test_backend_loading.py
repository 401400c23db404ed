"""``backends.get``: outside backends from the working directory, devices, clear errors.

The end-to-end tests start the installed console scripts (``plancheck``,
``pytest``) in a folder that holds a kernel package, as a user does; those
scripts do not put the current directory on ``sys.path`` themselves (unlike
``python -m`` or ``python -c``), so they pass only when ``backends.get``
looks there first.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

import backends
from backends import BackendLoadError

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

SCRIPTS = Path(sys.executable).parent

KERNEL_MODULE = """\
from backends.cpu import CPUBackend


class MyBackend(CPUBackend):
    name = "mykern"
"""


@pytest.fixture
def kernel_folder(tmp_path: Path) -> Path:
    """A folder holding ``mykern.backend:MyBackend`` (the package is not installed)."""
    package = tmp_path / "mykern"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "backend.py").write_text(KERNEL_MODULE)
    return tmp_path


def _script(name: str) -> str:
    path = SCRIPTS / name
    if not path.exists():
        pytest.skip(f"the console script {name} is not installed next to {sys.executable}")
    return str(path)


def _run(folder: Path, *command: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        command, cwd=folder, capture_output=True, text=True, timeout=600, env=environment
    )


# -- module:attribute from the working directory ----------------------------------------------


def test_plancheck_call_loads_a_backend_from_the_working_directory(kernel_folder):
    done = _run(
        kernel_folder,
        _script("plancheck"),
        "call",
        "--backend",
        "mykern.backend:MyBackend",
        "neg",
        "Float32:[1.5]",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS" in done.stdout


def test_plancheck_run_loads_a_backend_from_the_working_directory(kernel_folder):
    done = _run(
        kernel_folder,
        _script("plancheck"),
        "run",
        "--backend",
        "mykern.backend:MyBackend",
        "--op",
        "neg",
        "--workers",
        "0",
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_plancheck_repro_loads_a_backend_from_the_working_directory(kernel_folder):
    call = '{"op":"neg","args":[{"tensor":"Float32","shape":[],"bits":["0x3fc00000"]}]}'
    done = _run(
        kernel_folder, _script("plancheck"), "repro", "--backend", "mykern.backend:MyBackend", call
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_pytest_plugin_loads_a_backend_from_the_working_directory(kernel_folder):
    done = _run(
        kernel_folder,
        _script("pytest"),
        "--pyargs",
        "conformance.suite",
        "--plancheck-backend",
        "mykern.backend:MyBackend",
        "-k",
        "test_boundary_examples and neg",
        "-p",
        "no:cacheprovider",
        "-q",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


@pytest.fixture
def clean_imports():
    """Restore ``sys.path`` and drop the probe package afterwards."""
    path = list(sys.path)
    yield
    sys.path[:] = path
    for name in [n for n in sys.modules if n == "shadowkern" or n.startswith("shadowkern.")]:
        del sys.modules[name]
    importlib.invalidate_caches()


def _shadow_package(folder: Path, label: str) -> None:
    package = folder / "shadowkern"
    package.mkdir(parents=True)
    source = "from backends.cpu import CPUBackend\n\n\nclass Kernel(CPUBackend):\n"
    (package / "__init__.py").write_text(f"{source}    name = {label!r}\n")


def test_the_working_directory_comes_first(tmp_path, monkeypatch, clean_imports):
    """A package in the current folder wins over one of the same name further down sys.path."""
    installed, here = tmp_path / "site", tmp_path / "work"
    _shadow_package(installed, "installed")
    _shadow_package(here, "working directory")
    monkeypatch.syspath_prepend(str(installed))
    sys.path[:] = [p for p in sys.path if p not in ("", os.curdir)]
    monkeypatch.chdir(here)
    assert backends.get("shadowkern:Kernel").name == "working directory"
    assert sys.path[0] == str(here)


# -- devices ----------------------------------------------------------------------------------


def test_an_unknown_device_names_the_known_ones():
    with pytest.raises(ValueError, match="use torch:cpu, torch:cuda"):
        backends.get("torch:tpu")
    with pytest.raises(ValueError, match="jax:cpu, jax:gpu"):
        backends.get("jax:tpu")


def test_torch_on_the_cpu_device():
    torch = pytest.importorskip("torch")
    backend = backends.get("torch:cpu")
    assert backend.name == "torch" and backend.device == torch.device("cpu")


def test_an_absent_cuda_device_is_a_load_error():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    with pytest.raises(BackendLoadError, match=r"torch:cuda.*no CUDA device.*use torch:cpu"):
        backends.get("torch:cuda")


def test_jax_without_jax_names_the_extra():
    try:
        import jax  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("jax is installed here")
    for name in ("jax", "jax:cpu", "jax:gpu"):
        with pytest.raises(BackendLoadError, match=r"pip install 'plancheck\[jax\]'"):
            backends.get(name)


# -- clear errors -----------------------------------------------------------------------------


def test_an_unknown_name_suggests_the_closest():
    with pytest.raises(ValueError, match="did you mean 'cpu'"):
        backends.get("cpux")
    with pytest.raises(ValueError, match="did you mean 'generic'"):
        backends.get("generik")


def test_a_missing_module_says_where_it_was_looked_for(tmp_path, monkeypatch, clean_imports):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BackendLoadError, match="no module named 'nosuchmod' in the current dir"):
        backends.get("nosuchmod:X")


def test_a_missing_attribute_or_dependency_is_a_load_error(tmp_path, monkeypatch, clean_imports):
    package = tmp_path / "shadowkern"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "broken.py").write_text("import nosuchdependency\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BackendLoadError, match="has no attribute 'Missing'"):
        backends.get("shadowkern:Missing")
    with pytest.raises(BackendLoadError, match="imports 'nosuchdependency'"):
        backends.get("shadowkern.broken:Kernel")


def test_a_factory_that_exits_is_a_load_error():
    with pytest.raises(BackendLoadError, match="SystemExit"):
        backends.get("builtins:exit")


@pytest.mark.parametrize("name", [None, 3, b"cpu", ("cpu",)])
def test_a_name_is_a_string(name):
    with pytest.raises(TypeError, match="a backend name is a string"):
        backends.get(name)


def test_something_that_is_not_a_backend_is_a_type_error():
    with pytest.raises(TypeError, match="not a backend"):
        backends.get("builtins:object")


# -- a package named like one of plancheck's (issue 22, item 3) -------------------------------

USER_MODULE = """\
from backends.cpu import CPUBackend

from .helper import LABEL


class X(CPUBackend):
    name = LABEL
"""


@pytest.fixture
def users_backends(tmp_path: Path, monkeypatch, clean_imports):
    """A folder with the user's own ``backends/mine.py`` (and a helper it imports
    relatively), made the working directory; plancheck's ``backends`` restored after."""
    folder = tmp_path / "backends"
    folder.mkdir()
    (folder / "__init__.py").write_text("raise RuntimeError('the user package init is not run')\n")
    (folder / "mine.py").write_text(USER_MODULE)
    (folder / "helper.py").write_text("LABEL = 'mine'\n")
    (folder / "cpu.py").write_text("raise RuntimeError('plancheck owns backends.cpu')\n")
    monkeypatch.chdir(tmp_path)
    package_path = list(backends.__path__)
    yield tmp_path
    backends.__path__[:] = package_path
    for name in ("backends.mine", "backends.helper"):
        sys.modules.pop(name, None)


def test_a_users_backends_module_loads_beside_plancheck_s_package(users_backends):
    backend = backends.get("backends.mine:X")
    assert backend.name == "mine"  # the user's class, through its relative import
    assert Path(sys.modules["backends.mine"].__file__).parent == users_backends / "backends"
    # a module plancheck's package has stays plancheck's
    assert backends.get("backends.cpu:CPUBackend").name == "cpu"
    assert Path(sys.modules["backends.cpu"].__file__).parent != users_backends / "backends"


def test_plancheck_call_loads_a_users_backends_module(users_backends):
    environment = {**os.environ, "PYTHONPATH": str(Path(backends.__file__).parent.parent)}
    done = subprocess.run(
        [_script("plancheck"), "call", "--backend", "backends.mine:X", "neg", "Float32:[1.5]"],
        cwd=users_backends, capture_output=True, text=True, timeout=600, env=environment,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS" in done.stdout


def test_a_module_no_backends_folder_holds_says_what_was_tried(users_backends):
    with pytest.raises(BackendLoadError) as refused:
        backends.get("backends.mien:X")
    message = str(refused.value)
    assert "no module named 'backends.mien' (did you mean 'backends.mine'?)" in message
    assert f"imports the package 'backends' from {Path(backends.__file__).parent}" in message
    here = os.getcwd()
    assert f"put the file at {os.path.join(here, 'backends', 'mien.py')}" in message
    assert "give your package a name of its own" in message


def test_a_module_name_without_attribute_names_the_fix(tmp_path, monkeypatch, clean_imports):
    (tmp_path / "tinybackend.py").write_text(
        "raise RuntimeError('not run')\n\n\nclass TinyBackend:\n    pass\n"
    )
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"e\.g\. --backend tinybackend:TinyBackend") as refused:
        backends.get("tinybackend")
    assert "module:attribute" in str(refused.value)
    assert "tinybackend" not in sys.modules  # found by path, never imported
    with pytest.raises(ValueError, match=r"'nosuchbackend:YourBackend'"):
        backends.get("nosuchbackend")
