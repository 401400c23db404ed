"""conformance/model/configuration.py: the configuration recorded for a library.

Each library is recorded in a fresh interpreter (as the host process does, after its
adapter configured the library), so a thread count or a flush-to-zero mode set there
is the one read back.  A library that is not installed skips with a reason.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conformance.model import configuration

ROOT = Path(__file__).resolve().parents[1]


def _recorded(library: str, setup: str = "", env: dict[str, str] | None = None, **context) -> dict:
    """record(library) in a fresh interpreter after *setup* (Python source)."""
    code = (
        f"{setup}\nimport json\nfrom conformance.model.configuration import record\n"
        f"print('RECORD ' + json.dumps(record({library!r}{context.get('extra', '')})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    line = next(x for x in done.stdout.splitlines() if x.startswith("RECORD "))
    return json.loads(line[len("RECORD ") :])


def _need(module: str) -> None:
    if importlib.util.find_spec(module.split(".")[0]) is None:
        pytest.skip(f"{module} is not installed")


def _cpuinfo_flags() -> set[str]:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith(("flags", "Features")):
            return set(line.partition(":")[2].split())
    return set()


def test_numpy_is_recorded_with_its_build_simd_and_the_machine() -> None:
    found = configuration.record("numpy")
    json.dumps(found)  # serialisable as it is
    assert found["library"] == "numpy" and found["version"] == np.__version__
    assert "Compilers" in found["build"]  # numpy.show_config(mode="dicts")
    assert found["machine"]["cores"] == os.cpu_count()
    assert found["flags"]["process_flushes_subnormals"] is False
    assert set(found["threads"]) >= {"blas_openmp", "environment"}


@pytest.mark.skipif(not Path("/proc/cpuinfo").is_file(), reason="no /proc/cpuinfo")
def test_the_instruction_set_is_the_cpuinfo_flags_of_interest() -> None:
    isa = configuration.machine()["isa"]
    assert isa == [f for f in configuration.ISA_FLAGS if f in _cpuinfo_flags()]


def test_the_environment_that_sizes_pools_is_recorded() -> None:
    found = _recorded("numpy", env={"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"})
    assert found["threads"]["environment"] == {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    if importlib.util.find_spec("threadpoolctl"):
        blas = [p for p in found["threads"]["blas_openmp"] if p["user_api"] == "blas"]
        assert blas and all(p["num_threads"] == 1 for p in blas)
    else:
        assert "threadpoolctl" in found["threads"]["blas_openmp"]["unavailable"]


def test_torch_records_the_pools_and_the_flush_mode_the_process_set() -> None:
    _need("torch")
    plain = _recorded("torch", "import torch; torch.set_num_threads(1)")
    assert plain["threads"]["intra_op"] == 1
    assert plain["flags"]["flushes_subnormals"] is False
    assert "PyTorch built with" in plain["build"]
    flushing = _recorded("torch", "import torch; torch.set_flush_denormal(True)")
    assert flushing["flags"]["flushes_subnormals"] is True
    assert flushing["flags"]["process_flushes_subnormals"] is True


def test_onnxruntime_records_a_sessions_own_options() -> None:
    _need("onnxruntime")
    setup = (
        "import onnx, onnxruntime as ort\nfrom onnx import helper, TensorProto\n"
        "g = helper.make_graph([helper.make_node('Neg', ['x'], ['y'])], 'g',"
        " [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1])],"
        " [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1])])\n"
        "o = ort.SessionOptions(); o.intra_op_num_threads = 1; o.inter_op_num_threads = 1\n"
        "s = ort.InferenceSession(helper.make_model(g).SerializeToString(), o,"
        " providers=['CPUExecutionProvider'])"
    )
    found = _recorded("onnxruntime", setup, extra=", session=s")
    assert found["threads"]["source"] == "the session's options"
    assert (found["threads"]["intra_op"], found["threads"]["inter_op"]) == (1, 1)
    assert found["flags"]["providers"] == ["CPUExecutionProvider"]


def test_jax_records_the_x64_flag_that_decides_float64_accumulation() -> None:
    _need("jax")
    assert _recorded("jax")["flags"]["jax_enable_x64"] is False
    assert _recorded("jax", env={"JAX_ENABLE_X64": "1"})["flags"]["jax_enable_x64"] is True


def test_tensorflow_records_the_threads_the_adapter_set() -> None:
    _need("tensorflow")
    setup = (
        "import tensorflow as tf\ntf.config.threading.set_intra_op_parallelism_threads(1)\n"
        "tf.config.threading.set_inter_op_parallelism_threads(1)"
    )
    found = _recorded("tensorflow", setup)
    assert (found["threads"]["intra_op"], found["threads"]["inter_op"]) == (1, 1)
    assert isinstance(found["flags"]["flushes_subnormals"], bool)


@pytest.mark.parametrize("library", ["paddle", "mlx.core", "array_api_strict"])
def test_the_other_libraries_are_recorded(library: str) -> None:
    _need(library)
    found = _recorded(library)
    assert found["library"] == library and isinstance(found["version"], str)


def test_an_unknown_library_is_an_error_naming_the_known_ones() -> None:
    with pytest.raises(configuration.UnknownLibraryError, match="numpy"):
        configuration.record("cupy")


def test_a_missing_attribute_is_recorded_not_raised() -> None:
    def broken() -> None:
        raise AttributeError("no such thing in this version")

    assert configuration._safe(broken) == {
        "unavailable": "AttributeError: no such thing in this version"
    }


def test_an_adapter_is_recorded_through_its_library_and_its_own_session() -> None:
    _need("onnxruntime")
    setup = (
        "import backends\nb = backends.get('onnxruntime')\n"
        "from conformance.model.configuration import record_backend\n"
        "import json; print('RECORD ' + json.dumps(record_backend(b)))\nraise SystemExit\n"
    )
    found = _recorded("numpy", setup)
    assert found["library"] == "onnxruntime"
    assert found["threads"]["source"] == "the session's options"
    assert found["threads"]["intra_op"] == 1  # the adapter's own setting


def test_plancheck_own_backends_have_no_library_configuration() -> None:
    class Own:
        name = "cpu"

    assert configuration.record_backend(Own()) is None


def test_the_host_records_the_configuration_of_the_library_it_loaded() -> None:
    """The load reply carries the record made in the host, after the adapter loaded: the
    report's ``configuration`` comes from there (None for plancheck's own backend)."""
    from conformance.host.client import BackendHost

    outside, own = BackendHost("numpy-native"), BackendHost("cpu")
    try:
        found = outside.configuration
        assert found is not None and found["library"] == "numpy"
        assert found["version"] == np.__version__ and found["machine"]["cores"] == os.cpu_count()
        assert own.configuration is None
    finally:
        outside.close()
        own.close()
