"""The whole configuration a library computes under, recorded in the process that runs it.

The survey's claims depend on more than a version (issue 28, item 4): a BLAS with
several threads sums in another order, ``jax_enable_x64`` decides whether a Float64
accumulator exists, oneDNN and TF32 change the kernels, flush-to-zero changes every
subnormal.  :func:`record` returns, for one library, a JSON-serialisable mapping:

* ``library``, ``version`` (and the versions of the packages it is made of: jaxlib,
  onnx, ...), ``build`` (the library's own build report: ``torch.__config__.show()``,
  ``numpy.show_config(mode="dicts")``, ``tf.sysconfig.get_build_info()`` ...);
* ``device`` -- where it computes by default;
* ``threads`` -- every pool it uses: the library's own (torch intra- and inter-op,
  TensorFlow's, an onnxruntime session's options), the BLAS/OpenMP pools loaded in the
  process (through ``threadpoolctl`` where it is installed), and the environment
  variables that size them (``OMP_NUM_THREADS`` ...);
* ``flags`` -- settings that change numerics (``jax_enable_x64``, TF32, oneDNN,
  ``XLA_FLAGS``, matmul precision, and whether this process flushes subnormals);
* ``machine`` -- the CPU model, its instruction-set extensions from ``/proc/cpuinfo``
  (avx2, avx512f, fma ...), the core count and this process's CPU affinity.

It must run *inside* the host process, after the adapter imported and configured the
library (thread counts set by an adapter are the ones that count).  Nothing here raises
for a missing attribute of a library version: the field records why it is absent
(``{"unavailable": "AttributeError: ..."}``); only an unknown library name is an error.
"""

from __future__ import annotations

import importlib
import os
import platform
import struct
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "ISA_FLAGS",
    "LIBRARIES",
    "UnknownLibraryError",
    "machine",
    "record",
    "record_backend",
]

#: the /proc/cpuinfo flags recorded: the extensions numeric kernels dispatch on
ISA_FLAGS = (
    "sse4_1", "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512dq", "avx512cd",
    "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16", "avx512ifma",
    "avx512vbmi", "amx_tile", "amx_bf16", "amx_int8", "asimd", "sve",
)  # fmt: skip
#: the environment variables that size thread pools or change kernels
ENVIRONMENT = (
    "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS", "TF_NUM_INTRAOP_THREADS",
    "TF_NUM_INTEROP_THREADS", "TF_ENABLE_ONEDNN_OPTS", "XLA_FLAGS", "JAX_ENABLE_X64",
    "JAX_PLATFORMS", "MKL_CBWR", "DNNL_MAX_CPU_ISA", "ONEDNN_MAX_CPU_ISA",
    "NPY_DISABLE_CPU_FEATURES",
)  # fmt: skip


class UnknownLibraryError(ValueError):
    """:func:`record` was asked for a library it has no collector for."""


def _safe(getter: Callable[[], Any]) -> Any:
    """*getter*'s value, or why there is none (a library version without the attribute)."""
    try:
        return _jsonable(getter())
    except Exception as error:  # a missing or failing attribute is recorded, not raised
        return {"unavailable": f"{type(error).__name__}: {str(error)[:200]}"}


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    return str(value)


def _cpuinfo() -> str:
    path = Path("/proc/cpuinfo")
    return path.read_text() if path.is_file() else ""


def machine() -> dict[str, Any]:
    """The CPU model, its recorded instruction-set extensions, cores and affinity."""
    text = _cpuinfo()
    model: str | None = None
    flags: set[str] = set()
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if model is None and name.strip() in ("model name", "Hardware", "cpu model"):
            model = value.strip()
        if name.strip() in ("flags", "Features") and not flags:
            flags = set(value.split())
    affinity = _safe(lambda: len(os.sched_getaffinity(0)))
    return {
        "cpu": model or platform.processor() or None,
        "architecture": platform.machine(),
        "isa": [flag for flag in ISA_FLAGS if flag in flags],
        "cores": os.cpu_count(),
        "affinity": affinity,
        "os": platform.platform(),
        "python": sys.version.split()[0],
    }


def _flushes_subnormals() -> bool:
    """Whether this process's floating-point mode flushes subnormals (FTZ/DAZ): a
    subnormal doubled in Python's float arithmetic comes back zero."""
    tiny = struct.unpack("<d", struct.pack("<Q", 1))[0]  # 4.9e-324, a binary64 subnormal
    return tiny * 2.0 == 0.0


def _blas_pools() -> Any:
    try:
        threadpoolctl = importlib.import_module("threadpoolctl")
    except ImportError:
        return {"unavailable": "threadpoolctl is not installed: BLAS/OpenMP pools not read"}
    return _safe(lambda: [_without_machine_path(pool) for pool in threadpoolctl.threadpool_info()])


def _without_machine_path(pool: Mapping[str, Any]) -> dict[str, Any]:
    """A threadpoolctl pool record whose library ``filepath`` is cut to the part below
    ``site-packages`` (``numpy.libs/libscipy_openblas64_.so``: which package's build
    ran); a system library keeps its path (``/usr/lib/...``).  Where one machine
    installed the package is not evidence, and a report must not name its folders."""
    record = dict(pool)
    path = str(pool.get("filepath") or "").replace(chr(92), "/")
    for marker in ("/site-packages/", "/dist-packages/"):
        if marker in path:
            record["filepath"] = path.split(marker, 1)[1]
    return record


def _environment() -> dict[str, str]:
    return {name: os.environ[name] for name in ENVIRONMENT if name in os.environ}


# -- one collector a library: (version, build, device, threads, flags) ---------------


def _numpy(np: Any, **_: Any) -> dict[str, Any]:
    umath = importlib.import_module("numpy._core._multiarray_umath")
    return {
        "version": np.__version__,
        "build": _safe(lambda: np.show_config(mode="dicts")),
        "device": "cpu",
        "threads": {},
        "flags": {
            "simd_baseline": _safe(lambda: umath.__cpu_baseline__),
            "simd_dispatch": _safe(lambda: umath.__cpu_dispatch__),
            "simd_found": _safe(lambda: sorted(k for k, v in umath.__cpu_features__.items() if v)),
        },
    }


def _torch(torch: Any, **_: Any) -> dict[str, Any]:
    def flushes() -> bool:  # torch.set_flush_denormal has no getter: observe it
        tiny = torch.tensor([1e-45], dtype=torch.float32)
        return bool((tiny * torch.tensor([1.0], dtype=torch.float32) == 0).item())

    return {
        "version": torch.__version__,
        "build": _safe(torch.__config__.show),
        "device": _safe(lambda: str(torch.get_default_device())),
        "threads": {
            "intra_op": _safe(torch.get_num_threads),
            "inter_op": _safe(torch.get_num_interop_threads),
            "parallel_info": _safe(torch.__config__.parallel_info),
        },
        "flags": {
            "cpu_capability": _safe(torch.backends.cpu.get_cpu_capability),
            "float32_matmul_precision": _safe(torch.get_float32_matmul_precision),
            "cuda_matmul_allow_tf32": _safe(lambda: torch.backends.cuda.matmul.allow_tf32),
            "cudnn_allow_tf32": _safe(lambda: torch.backends.cudnn.allow_tf32),
            "mkldnn_enabled": _safe(lambda: torch.backends.mkldnn.enabled),
            "deterministic_algorithms": _safe(torch.are_deterministic_algorithms_enabled),
            "flushes_subnormals": _safe(flushes),
        },
    }


def _jax(jax: Any, **_: Any) -> dict[str, Any]:
    return {
        "version": jax.__version__,
        "versions": {"jaxlib": _safe(lambda: importlib.import_module("jaxlib").__version__)},
        "build": _safe(lambda: jax.print_environment_info(return_string=True)),
        "device": _safe(lambda: [str(d) for d in jax.devices()]),
        "threads": {},
        "flags": {
            "jax_enable_x64": _safe(lambda: jax.config.read("jax_enable_x64")),
            "jax_default_matmul_precision": _safe(
                lambda: jax.config.read("jax_default_matmul_precision")
            ),
            "jax_numpy_dtype_promotion": _safe(
                lambda: jax.config.read("jax_numpy_dtype_promotion")
            ),
            "default_backend": _safe(jax.default_backend),
            "flushes_subnormals": _safe(
                lambda: bool(jax.numpy.float32(1e-45) * jax.numpy.float32(1.0) == 0)
            ),
        },
    }


def _tensorflow(tf: Any, **_: Any) -> dict[str, Any]:
    return {
        "version": tf.__version__,
        "build": _safe(lambda: dict(tf.sysconfig.get_build_info())),
        "device": _safe(lambda: [d.name for d in tf.config.list_logical_devices()]),
        "threads": {
            "intra_op": _safe(tf.config.threading.get_intra_op_parallelism_threads),
            "inter_op": _safe(tf.config.threading.get_inter_op_parallelism_threads),
        },
        "flags": {
            "tensor_float_32": _safe(tf.config.experimental.tensor_float_32_execution_enabled),
            "onednn_opts": os.environ.get("TF_ENABLE_ONEDNN_OPTS", "default (on for x86 builds)"),
            "flushes_subnormals": _safe(
                lambda: bool(tf.constant(1e-45, tf.float32) * tf.constant(1.0, tf.float32) == 0)
            ),
        },
    }


def _onnxruntime(ort: Any, session: Any = None, **_: Any) -> dict[str, Any]:
    options = session.get_session_options() if session is not None else ort.SessionOptions()
    return {
        "version": ort.__version__,
        "versions": {"onnx": _safe(lambda: importlib.import_module("onnx").__version__)},
        "build": _safe(ort.get_build_info),
        "device": _safe(ort.get_device),
        "threads": {
            "source": "the session's options" if session is not None else "SessionOptions defaults",
            "intra_op": _safe(lambda: options.intra_op_num_threads),
            "inter_op": _safe(lambda: options.inter_op_num_threads),
            "execution_mode": _safe(lambda: str(options.execution_mode)),
        },
        "flags": {
            "providers": _safe(
                session.get_providers if session is not None else ort.get_available_providers
            ),
            "graph_optimization_level": _safe(lambda: str(options.graph_optimization_level)),
        },
    }


def _paddle(paddle: Any, **_: Any) -> dict[str, Any]:
    return {
        "version": paddle.__version__,
        "build": _safe(
            lambda: {
                "commit": paddle.version.commit,
                "with_mkl": paddle.version.with_mkl,
                "cuda": paddle.version.cuda(),
                "compiled_with_cuda": paddle.is_compiled_with_cuda(),
            }
        ),
        "device": _safe(paddle.device.get_device),
        "threads": {
            "cpu_math_library": _safe(lambda: paddle.get_flags(["FLAGS_paddle_num_threads"]))
        },
        "flags": {
            "flushes_subnormals": _safe(
                lambda: bool((paddle.to_tensor([1e-45], "float32") * 1.0).numpy()[0] == 0)
            ),
        },
    }


def _mlx(mx: Any, **_: Any) -> dict[str, Any]:
    return {
        "version": mx.__version__,
        "build": _safe(lambda: {"metal_available": mx.metal.is_available()}),
        "device": _safe(lambda: str(mx.default_device())),
        "threads": {},
        "flags": {},
    }


def _array_api_strict(xp: Any, **_: Any) -> dict[str, Any]:
    np = importlib.import_module("numpy")
    return {
        "version": _safe(lambda: xp.__version__),
        "versions": {"numpy": np.__version__},
        "build": {},
        "device": _safe(lambda: str(xp.asarray(0).device)),
        "threads": {},
        "flags": {"array_api_strict": _safe(xp.get_array_api_strict_flags)},
    }


#: library (its import name) -> its collector
LIBRARIES: dict[str, Callable[..., dict[str, Any]]] = {
    "numpy": _numpy,
    "torch": _torch,
    "jax": _jax,
    "tensorflow": _tensorflow,
    "onnxruntime": _onnxruntime,
    "paddle": _paddle,
    "mlx.core": _mlx,
    "array_api_strict": _array_api_strict,
}


def record(library: str, **context: Any) -> dict[str, Any]:
    """The configuration of *library* (an import name of :data:`LIBRARIES`) in this
    process, JSON-serialisable.  *context* passes what only the adapter holds
    (``session=`` an onnxruntime InferenceSession, whose options are then recorded).

    Imports the library when the process has not yet (the adapter normally has)."""
    if library not in LIBRARIES:
        raise UnknownLibraryError(
            f"no configuration collector for {library!r}; one of {sorted(LIBRARIES)}"
        )
    module = importlib.import_module(library)
    found = LIBRARIES[library](module, **context)
    threads = {
        **found.get("threads", {}),
        "blas_openmp": _blas_pools(),
        "environment": _environment(),
    }
    flags = {"process_flushes_subnormals": _flushes_subnormals(), **found.get("flags", {})}
    return _jsonable(
        {
            "library": library,
            "version": found["version"],
            "versions": found.get("versions", {}),
            "build": found.get("build"),
            "device": found.get("device"),
            "threads": threads,
            "flags": flags,
            "machine": machine(),
        }
    )


#: an adapter's ``library`` (or ``name``) -> the import name :func:`record` takes
ADAPTER_LIBRARIES = {
    "numpy": "numpy",
    "torch": "torch",
    "jax": "jax",
    "tensorflow": "tensorflow",
    "onnxruntime": "onnxruntime",
    "paddle": "paddle",
    "mlx": "mlx.core",
    "array-api-strict": "array_api_strict",
}


def _adapter_session(backend: Any) -> Any:
    """A session built by an onnxruntime adapter's own ``session`` method (so its real
    options are recorded), of a one-node Identity graph."""
    helper = importlib.import_module("onnx.helper")
    proto = importlib.import_module("onnx").TensorProto
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])],
        "configuration",
        [helper.make_tensor_value_info("x", proto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", proto.FLOAT, [1])],
    )
    return backend.session(helper.make_model(graph))


def record_backend(backend: Any) -> dict[str, Any] | None:
    """:func:`record` for the library an adapter measures (its ``library`` attribute, else
    its ``name``), with the adapter's own onnxruntime session; None for a backend that
    is no outside library's adapter (plancheck's own)."""
    library = ADAPTER_LIBRARIES.get(
        str(getattr(backend, "library", None) or getattr(backend, "name", ""))
    )
    if library is None:
        return None
    context: dict[str, Any] = {}
    if library == "onnxruntime" and callable(getattr(backend, "session", None)):
        try:
            context["session"] = _adapter_session(backend)
        except Exception as error:  # recorded with SessionOptions defaults, and why
            context["session_error"] = f"{type(error).__name__}: {str(error)[:200]}"
    found = record(library, **{k: v for k, v in context.items() if k == "session"})
    if "session_error" in context:
        found["threads"]["session_error"] = context["session_error"]
    return found
