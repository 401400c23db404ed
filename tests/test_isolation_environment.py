"""What a backend does to its own process reaches no verdict (issue 29, items 1-3).

* bits end to end: a backend with FTZ/DAZ on computes ``abs`` on the bit patterns; its
  results are judged correct at every rank, in ``plancheck run``, ``plancheck call`` and
  ``plancheck exhaustive``, and the environment is named;
* plancheck's code in the default environment: a backend that calls
  ``fesetround(FE_UPWARD)`` at import, before it imports plancheck's modules, loads and
  is judged; the backend computes in its own environment call after call;
* stateful backends: one that writes each result into the buffer of the previous one of
  the same shape ends in normal time, and the example of ``result-changed-after-return``
  is the earlier call whose result changed, with the call after which it changed.

The hostile backends are tests/isolation_backends.py's, or written to the test's own
folder; every run is a subprocess in that folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from isolation_backends import ROUNDS_UPWARD_AT_IMPORT
from test_isolation_backends import _classes, _run, build_fastmath
from test_isolation_exhaustive import _sweep

from conformance.host.client import BackendHost
from conformance.host.wire import decode_tensor, encode_tensor
from oracle import DType, Tensor

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
FTZ_DAZ = {"fp-environment:flush-to-zero", "fp-environment:denormals-are-zero"}
#: shards of 2**16 patterns: the positive and the negative subnormals just above zero
SHARDS = 1 << 16
SUBNORMAL = f"0/{SHARDS}"
NEGATIVE_SUBNORMAL = f"{0x80000000 >> 16}/{SHARDS}"
NORMAL = f"{0x3F800000 >> 16}/{SHARDS}"


@pytest.fixture(scope="module")
def fastmath(tmp_path_factory) -> Path:
    return build_fastmath(tmp_path_factory.mktemp("fastmath"))


@pytest.fixture
def hosted(fastmath, monkeypatch):
    """A host factory for tests/isolation_backends.py's backends (closed afterwards)."""
    monkeypatch.setenv("ISOLATION_FASTMATH", str(fastmath))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(TESTS), str(ROOT)]))
    started: list[BackendHost] = []

    def start(name: str) -> BackendHost:
        host = BackendHost(f"isolation_backends:{name}")
        started.append(host)
        return host

    yield start
    for host in started:
        host.close()


def _tensor(bits: list[int], shape: tuple[int, ...]) -> Tensor:
    return Tensor.from_bits(DType.Float32, shape, bits)


# -- item 1: bits only ---------------------------------------------------------------------


@pytest.mark.parametrize("rank", range(7))
def test_a_daz_backend_s_results_are_read_as_bits_at_every_rank(hosted, rank):
    host = hosted("ClearsSignBitsUnderDaz")
    patterns = [0x80000001, 0x807FFFFF, 0x00000003, 0x80400000]
    count = len(patterns) if rank else 1
    shape = (count,) + (1,) * (rank - 1) if rank else ()
    tensor = _tensor(patterns[:count], shape)
    for operation, expected in (("abs", [p & 0x7FFFFFFF for p in patterns[:count]]),
                                ("neg", [p ^ 0x80000000 for p in patterns[:count]])):  # fmt: skip
        reply = host.run(operation, [("tensor", encode_tensor(tensor))], {}, 60)
        assert reply["stage"] == "done", reply
        result = decode_tensor(reply["result"])
        assert result.shape == shape and list(result.bits()) == expected, (operation, rank)
        assert set(reply["environment"]) >= FTZ_DAZ


@pytest.mark.parametrize("workers", ["0", "2"])
def test_plancheck_run_judges_a_daz_backend_s_values_correct(tmp_path, fastmath, workers):
    done, data, took = _run(tmp_path, "ClearsSignBitsUnderDaz", ["abs", "neg"], "--workers",
                            workers, env_extra={"ISOLATION_FASTMATH": str(fastmath)})  # fmt: skip
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert _classes(data) == FTZ_DAZ  # the environment, and no wrong value at any rank
    assert took < 120


@pytest.mark.parametrize("literal", ["Float32:bits(0x80000001)", "Float32:[bits(0x80000001)]"])
def test_plancheck_call_reads_a_daz_backend_s_result_as_bits(tmp_path, fastmath, literal):
    env = dict(os.environ, ISOLATION_FASTMATH=str(fastmath))
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), str(ROOT)])
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "call", "--backend",
         "isolation_backends:ClearsSignBitsUnderDaz", "abs", literal],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr  # the environment: not conforming
    assert "(0x00000001)" in done.stdout.split("result:")[1].splitlines()[0]
    assert "verdict:   PASS" in done.stdout
    assert (
        "environment: fp-environment:denormals-are-zero, fp-environment:flush-to-zero"
        in done.stdout
    )


def test_plancheck_exhaustive_judges_a_daz_backend_s_values_correct(tmp_path, fastmath):
    env = {"ISOLATION_FASTMATH": str(fastmath)}
    for shard in (SUBNORMAL, NEGATIVE_SUBNORMAL):
        done, records, took = _sweep(tmp_path, "ClearsSignBitsUnderDaz", "abs", shard,
                                     env_extra=env)  # fmt: skip
        assert done.returncode == 1, (done.stdout + done.stderr)[-3000:]
        assert "environment: fp-environment:denormals-are-zero" in done.stdout
        assert records[-1]["non_conforming"] == 0  # every subnormal's bits read exactly
        assert set(records[-1]["environment"]) == FTZ_DAZ
        assert took < 120


# -- item 2: plancheck's code in the default environment ------------------------------------


def _upward_module(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "upward_backend.py").write_text(ROUNDS_UPWARD_AT_IMPORT, encoding="utf-8")
    return {"PYTHONPATH": os.pathsep.join([str(tmp_path), str(TESTS), str(ROOT)])}


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_backend_that_rounds_upward_at_import_loads_and_is_judged(tmp_path, workers):
    env = _upward_module(tmp_path)
    done, data, took = _run(tmp_path, "upward_backend:Backend", ["neg", "abs"], "--workers",
                            workers, env_extra=env)  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 1, output[-3000:]  # judged, not a usage error (2)
    assert "cannot load backend" not in output
    assert _classes(data) == {"fp-environment:rounding-upward"}  # the values are right
    assert (tmp_path / "marks" / "upward.pid").exists()
    assert took < 120


def test_a_backend_that_rounds_upward_at_import_is_swept(tmp_path):
    env = _upward_module(tmp_path)
    done, records, took = _sweep(tmp_path, "upward_backend:Backend", "neg", NORMAL,
                                 env_extra=env)  # fmt: skip
    assert done.returncode == 1, (done.stdout + done.stderr)[-3000:]
    assert "environment: fp-environment:rounding-upward" in done.stdout
    (record,) = records
    assert record["non_conforming"] == 0 and record["environment"] == [
        "fp-environment:rounding-upward"
    ]
    assert took < 120


def test_the_backend_computes_in_its_own_environment_call_after_call(hosted):
    host = hosted("FlushesSubnormals")
    subnormal = _tensor([0x00000005, 0x3F800000], (2,))
    for _ in range(3):  # the host's own work between the calls runs in the default one
        reply = host.run("mul", [("tensor", encode_tensor(subnormal)), 1.0], {}, 60)
        assert decode_tensor(reply["result"]).bits() == (0x00000000, 0x3F800000)  # DAZ
        assert set(reply["environment"]) >= FTZ_DAZ
        neg = host.run("neg", [("tensor", encode_tensor(subnormal))], {}, 60)
        assert decode_tensor(neg["result"]).bits() == (0x80000005, 0xBF800000)  # bits kept


# -- item 3: stateful backends ----------------------------------------------------------------


def test_the_host_names_the_pair_of_calls_and_not_the_later_call(hosted):
    host = hosted("ReusesOutput")
    first, second = _tensor([0x3F800000], (1,)), _tensor([0x40000000], (1,))
    host.run("neg", [("tensor", encode_tensor(first))], {}, 60, tag="first")
    reply = host.run("neg", [("tensor", encode_tensor(second))], {}, 60, tag="second")
    assert not {"result-changed-after-return", "result-aliases-earlier-result"} & set(
        reply["environment"]
    )  # the later call is judged on its own
    ((earlier, later, classes, now),) = host.take_earlier()
    assert (earlier, later) == ("first", "second")
    assert set(classes) == {"result-changed-after-return", "result-aliases-earlier-result"}
    assert decode_tensor(now).bits() == (0xC0000000,)  # the first result, overwritten
    other = _tensor([0x40400000, 0x40400000], (2,))  # another shape: another buffer
    host.run("neg", [("tensor", encode_tensor(other))], {}, 60, tag="third")
    assert host.take_earlier() == []


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_backend_that_overwrites_its_previous_result_ends_in_normal_time(tmp_path, workers):
    # it took more than 600 s before (the search shrank a failure no call shows alone)
    done, data, took = _run(tmp_path, "ReusesOutput", ["add"], "--workers", workers)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    classes = {c["class"]: c for c in data["deviation_classes"]}
    assert set(classes) == {"result-changed-after-return", "result-aliases-earlier-result"}
    changed = classes["result-changed-after-return"]
    text = json.dumps(changed)
    assert "its result changed after it was returned" in text and "the next call:" in text
    # the example is the earlier call (its own value, as returned, conforms): it is not
    # the empty call the search shrank to, and not the call after which it changed
    assert "empty operands" not in text
    # each earlier call is counted as a failing call (it passed when it returned)
    assert "0 failing calls" not in done.stdout, done.stdout[-2000:]
    assert took < 120


def test_a_backend_that_overwrites_its_previous_result_is_swept_in_normal_time(tmp_path):
    # each chunk's result is read into the sweep's memory before the next call reuses it
    done, records, took = _sweep(tmp_path, "ReusesOutput", "neg", None, "--shards",
                                 str(SHARDS), "--sample", "16384")  # fmt: skip
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert len(records) == 4 and all(r["non_conforming"] == 0 for r in records)
    assert took < 120


@pytest.mark.parametrize(
    ("mode", "found"),
    [(0x400, "rounding-downward"), (0xC00, "rounding-toward-zero"), (0x800, "rounding-upward")],
)
def test_every_rounding_mode_set_at_import_loads_and_is_named(tmp_path, monkeypatch, mode,
                                                              found):  # fmt: skip
    text = ROUNDS_UPWARD_AT_IMPORT.replace("fesetround(0x800)", f"fesetround({mode:#x})")
    (tmp_path / "rounding_backend.py").write_text(text, encoding="utf-8")
    (tmp_path / "marks").mkdir()
    monkeypatch.setenv("ISOLATION_MARKS", str(tmp_path / "marks"))
    monkeypatch.syspath_prepend(str(tmp_path))  # the host gets this process's sys.path
    host = BackendHost("rounding_backend:Backend")
    try:
        assert host.ensure()["after_import"] == [f"fp-environment:{found}"]
        tensor = _tensor([0x00000001, 0xBF800000], (2,))
        reply = host.run("neg", [("tensor", encode_tensor(tensor))], {}, 60)
        assert decode_tensor(reply["result"]).bits() == (0x80000001, 0x3F800000)
        assert reply["environment"] == [f"fp-environment:{found}"]
    finally:
        host.close()


# -- item 4: the host's own costs -------------------------------------------------------------


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc/PID/environ")
def test_a_host_keeps_freed_memory_unless_told_otherwise(monkeypatch):
    from conformance.host.malloc import SETTINGS

    def environ(host: BackendHost) -> dict[str, str]:
        host.ensure()
        raw = Path(f"/proc/{host.pid}/environ").read_bytes().split(b"\0")
        return dict(item.decode().partition("=")[::2] for item in raw if item)

    host = BackendHost("cpu")
    try:
        seen = environ(host)
        assert {k: seen.get(k) for k in SETTINGS} == SETTINGS
        host.close()
        monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "12345")  # the caller's own setting wins
        assert environ(host)["MALLOC_TRIM_THRESHOLD_"] == "12345"
    finally:
        host.close()
