"""conformance.model.versions: a backend's version comes from what ships its module."""

from __future__ import annotations

import sys
import types
from importlib import metadata

import numpy as np

from conformance.model import versions


def test_a_distribution_claiming_the_name_but_not_the_file_is_not_the_version(
    monkeypatch, tmp_path
):
    # a wheel that ships its own top-level ``tests`` package claims the name (mlx does);
    # the imported ``tests`` is a project's own, so numpy's version must not label it
    own = types.ModuleType("tests")
    own.__file__ = str(tmp_path / "tests" / "__init__.py")
    monkeypatch.setitem(sys.modules, "tests", own)
    monkeypatch.setattr(metadata, "packages_distributions", lambda: {"tests": ["numpy"]})
    backend = type("Mine", (), {"__module__": "tests.backend"})()
    assert versions.backend_version(backend) == "unknown"


def test_the_distribution_that_ships_the_imported_module_names_the_version():
    backend = type("NumpyLike", (), {"__module__": "numpy"})()
    assert versions.backend_version(backend) == f"numpy {np.__version__}"


def test_an_own_version_attribute_wins():
    backend = type("Own", (), {"version": "mylib 1.2"})()
    assert versions.backend_version(backend) == "mylib 1.2"
