"""The pytest plugin, the report and ``plancheck run``/``repro`` (driven through pytester).

Outside backends live in a module written into pytester's directory and are
given to the plugin by import path only, as another project would give its
own: a faithful wrapper of the generic backend, one that flushes subnormal
sums to zero, one that hangs on ``neg``, one that kills its process on
``sign``, and one that returns the wrong type.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.cli import main as plancheck
from conformance.report import call_from_json, call_to_json, decode_value, encode_value

pytest_plugins = ["pytester"]

BACKENDS = """
import os, time
import numpy as np
from backends.cpu import CPUBackend, KERNELS
from backends.generic import GenericBackend


class Faithful(GenericBackend):
    name = "faithful"


def _ftz_add(backend, plan, a, b):
    out = KERNELS["add"](backend, plan, a, b)
    if out.dtype == np.float32:
        out[(out != 0) & (np.abs(out) < np.float32(2.0**-126))] = 0.0
    return out


class FlushToZero(CPUBackend):
    name = "ftz"
    kernels = {**KERNELS, "add": _ftz_add}


def _hang(backend, plan, *args):
    time.sleep(60)


class Hangs(CPUBackend):
    name = "hangs"
    kernels = {**KERNELS, "neg": _hang}


def _die(backend, plan, *args):
    os._exit(17)


class Crashes(CPUBackend):
    name = "crashes"
    kernels = {**KERNELS, "sign": _die}


def _mul_drops_huge_weak_ints(backend, plan, a, b):
    out = KERNELS["mul"](backend, plan, a, b)
    if isinstance(b, int) and b < -(2**40):  # execnet cannot send ints below -2**31
        out[...] = 0
    return out


class HugeWeakInts(CPUBackend):
    name = "hugeweak"
    kernels = {**KERNELS, "mul": _mul_drops_huge_weak_ints}


class WrongType(CPUBackend):
    name = "wrongtype"
    kernels = {**KERNELS, "abs": lambda backend, plan, x: [1.0]}
"""

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def outside(pytester):
    """A pytester directory holding the outside backends (importable as ``outside``)."""
    pytester.makepyfile(outside=BACKENDS)
    pytester.makeini("[pytest]\n")
    pytester.syspathinsert()
    return pytester


def _report(path: Path) -> dict:
    """A JSON report, validated against the schema shipped in the package."""
    from conformance.report import validate_report

    data = json.loads(path.read_text(encoding="utf-8"))
    validate_report(data)
    return data


def _env(pytester) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(pytester.path), str(ROOT), env.get("PYTHONPATH", "")])
    return env


# ---------------------------------------------------------------------------
# Harmless without options
# ---------------------------------------------------------------------------


def test_plugin_is_harmless_without_options(pytester):
    pytester.makepyfile(test_plain="def test_ok():\n    assert True\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)  # the suite is not added
    assert "plancheck conformance" not in result.stdout.str()
    assert "plancheck-0.1.0" in result.stdout.str()  # loaded through the pytest11 entry point


def test_suite_without_a_backend_is_skipped_not_broken(pytester):
    result = pytester.runpytest("--pyargs", "conformance.suite", "-p", "no:cacheprovider")
    result.assert_outcomes(skipped=4)


# ---------------------------------------------------------------------------
# A conforming outside backend
# ---------------------------------------------------------------------------


def test_outside_backend_conforms_and_the_report_is_complete(outside):
    report = outside.path / "out.json"
    result = outside.runpytest(
        "-p", "no:cacheprovider", "--plancheck-backend", "outside:Faithful",
        "--plancheck-op", "neg", "--plancheck-op", "maximum", "--plancheck-report", str(report),
    )  # fmt: skip
    result.assert_outcomes(passed=7)  # neg: boundary, generated, corpus; maximum: + invalid
    out = result.stdout.str()
    assert "plancheck conformance: outside:Faithful" in out
    assert "every operation conforms" in out
    data = _report(report)
    assert data["complete"] and data["result"] == "conforms"
    assert data["collected_items"] == data["finished_items"] == 7
    rows = data["table"]["outside:Faithful"]
    assert set(rows) == {"neg", "maximum"}
    assert rows["maximum"]["plans"] == 1 and rows["maximum"]["corpus_cases"] == 44_944
    assert rows["neg"]["examples"] == rows["neg"]["passed"] > 0 and rows["neg"]["failed"] == 0
    assert data["coverage"]["outside:Faithful"]["missing"] == []


def test_options_are_validated(outside):
    for options, message in (
        (["--plancheck-op", "nosuch"], "unknown operation"),
        (["--plancheck-backend", "nosuch.module:Thing"], "cannot load it"),
        (["--plancheck-ulp-budget", "add=1"], "not a correctly rounded operation"),
        (["--plancheck-ulp-budget", "exp"], "expected OP=N"),
        (["--plancheck-timeout", "-1"], "expected seconds"),
        (["--plancheck-unsupported", "size-zero"], "unknown feature(s) size-zero"),
    ):
        result = outside.runpytest("-p", "no:cacheprovider", "--plancheck-backend", "cpu", *options)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, options
        assert message in result.stderr.str(), options


# ---------------------------------------------------------------------------
# A broken backend: the report a newcomer acts on
# ---------------------------------------------------------------------------


def test_broken_backend_report_has_everything_needed(outside, capsys):
    report = outside.path / "out.json"
    markdown = outside.path / "out.md"
    args = ("-p", "no:cacheprovider", "--plancheck-backend", "outside:FlushToZero",
            "--plancheck-op", "add")  # fmt: skip
    result = outside.runpytest(*args, "--plancheck-report", str(report))
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    out = result.stdout.str()
    assert "NON-CONFORMANCE: backend outside:FlushToZero, operation add" in out
    assert "NOT CONFORMING: add" in out
    data = _report(report)
    assert (
        data["result"] == "not conforming"
        and data["table"]["outside:FlushToZero"]["add"]["status"] == "FAIL"
    )
    generated = next(f for f in data["failures"] if "test_generated_calls" in f["test"])
    assert generated["operation"] == "add"
    assert generated["plan"] == "add(Float32, Float32) binary32 -> Float32"
    assert generated["problem"] == "wrong value"
    assert generated["ulp"] is not None and generated["ulp"] >= 1
    assert generated["rule"] == "exact" and "flush-to-zero" in generated["semantics"]
    assert all("(0x" in text for text in generated["inputs"])  # every input with its bits
    assert "(0x" in generated["expected"] and "(0x" in generated["actual"]
    (mismatch,) = generated["mismatches"]
    assert mismatch["actual_bits"] == 0 and 0 < mismatch["expected_bits"] < 0x00800000
    # shrinking kept it minimal: one element per operand
    call = call_from_json(json.dumps(generated["call"]))
    assert all(getattr(a, "size", 1) == 1 for a in call.args)
    assert generated["repro"].startswith("plancheck repro --backend outside:FlushToZero '")
    assert "reproduce('outside:FlushToZero', 'add'" in generated["python"]
    # the repro line re-runs exactly that call
    payload = generated["repro"].split("'", 1)[1].rsplit("'", 1)[0]
    capsys.readouterr()
    assert plancheck(["repro", "--backend", "outside:FlushToZero", payload]) == 1
    printed = capsys.readouterr().out
    assert printed.startswith("NON-CONFORMANCE") and "rule broken: exact" in printed
    assert plancheck(["repro", "--backend", "cpu", payload]) == 0
    assert capsys.readouterr().out.startswith("CONFORMS")
    # the Python snippet runs too
    namespace: dict = {}
    exec(generated["python"], namespace)
    capsys.readouterr()
    # Markdown
    outside.runpytest(*args, "--plancheck-report", str(markdown))
    text = markdown.read_text(encoding="utf-8")
    assert "# plancheck conformance report" in text and "| `add` |" in text
    assert "NON-CONFORMANCE" in text and "plancheck repro" in text


def test_wrong_type_is_reported_as_such(outside):
    report = outside.path / "out.json"
    result = outside.runpytest(
        "-p", "no:cacheprovider", "--plancheck-backend", "outside:WrongType",
        "--plancheck-op", "abs", "--plancheck-report", str(report),
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    problems = {f["problem"] for f in _report(report)["failures"]}
    assert problems == {"wrong type"}


# ---------------------------------------------------------------------------
# Known deviations
# ---------------------------------------------------------------------------


def test_xfail_file_turns_failures_into_expected_failures(outside):
    deviations = outside.path / "known.txt"
    deviations.write_text(
        "# known deviations\nadd: our add flushes subnormals (ticket 7)\n"
        "neg/neg(Float32) binary32 -> Float32: listed but conforming\n",
        encoding="utf-8",
    )
    report = outside.path / "out.json"
    result = outside.runpytest(
        "-p", "no:cacheprovider", "--plancheck-backend", "outside:FlushToZero",
        "--plancheck-op", "add", "--plancheck-op", "neg", "--plancheck-xfail", str(deviations),
        "--plancheck-report", str(report),
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.OK
    outcomes = result.parseoutcomes()
    # 3 boundary items, the corpus and 2 generated searches (Float32 + Float32 and
    # Int32->Float32 + Float32) meet a flushed subnormal sum under the ci profile
    assert outcomes["xfailed"] == 6 and "failed" not in outcomes
    data = _report(report)
    assert data["failures"] == [] and len(data["xfailed"]) == 6
    assert data["table"]["outside:FlushToZero"]["add"]["status"] == "xfail"
    assert data["stale_xfail"] == [
        {"selector": "neg/neg(Float32) binary32 -> Float32", "reason": "listed but conforming"}
    ]
    assert "listed deviation no longer fails: neg/neg(Float32)" in result.stdout.str()


def test_xfail_file_formats(outside):
    as_json = outside.path / "known.json"
    as_json.write_text(json.dumps({"deviations": [
        {"operation": "add", "plan": "add(Float32, Float32) binary32 -> Float32",
         "backend": "outside:FlushToZero", "reason": "json"}]}), encoding="utf-8")  # fmt: skip
    as_toml = outside.path / "known.toml"
    as_toml.write_text('[[deviation]]\noperation = "add"\nreason = "toml"\n', encoding="utf-8")
    from conformance.pytest_plugin import load_deviations

    (entry,) = load_deviations(as_json)
    assert entry.backend == "outside:FlushToZero" and entry.reason == "json"
    if sys.version_info >= (3, 11):
        (entry,) = load_deviations(as_toml)
        assert entry.operation == "add" and entry.plan is None
    bad = outside.path / "bad.txt"
    bad.write_text("nosuch: reason\n", encoding="utf-8")
    with pytest.raises(pytest.UsageError, match="unknown operation"):
        load_deviations(bad)


# ---------------------------------------------------------------------------
# Robustness: timeouts, crashes, oracle errors
# ---------------------------------------------------------------------------


def test_a_hanging_call_times_out_and_the_run_goes_on(outside):
    """A 3 s timeout: generous enough that no conforming call of abs is cut under load
    (the test must not depend on the machine's speed), short enough to stay quick."""
    report = outside.path / "out.json"
    result = outside.runpytest(
        "-p", "no:cacheprovider", "--plancheck-backend", "outside:Hangs",
        "--plancheck-op", "neg", "--plancheck-op", "abs", "--plancheck-timeout", "3",
        "--plancheck-report", str(report),
    )  # fmt: skip
    outcomes = result.parseoutcomes()
    assert outcomes["failed"] == 3 and outcomes["passed"] == 3  # neg's 3 items, abs's 3
    assert "TIMEOUT (the run goes on)" in result.stdout.str()
    data = _report(report)
    table = data["table"]["outside:Hangs"]
    assert table["neg"]["status"] == "TIMEOUT" and table["abs"]["status"] == "conforms"
    assert {f["problem"] for f in data["failures"]} == {"timeout"}
    assert all("within 3 s" in f["rule"] for f in data["failures"])
    (hang,) = data["deviation_classes"]
    assert (hang["operation"], hang["class"], hang["kind"]) == ("neg", "hang", "hang")


def test_oracle_errors_are_not_blamed_on_the_backend(outside):
    outside.makeconftest(
        """
import oracle.evaluate as evaluate

_saved = evaluate.REFERENCES["abs"]


def _broken(x):
    raise RuntimeError("an oracle bug")


def pytest_configure(config):
    evaluate.REFERENCES["abs"] = evaluate.Reference(float_rule=_broken, nan_bits=True)


def pytest_unconfigure(config):
    evaluate.REFERENCES["abs"] = _saved
"""
    )
    report = outside.path / "out.json"
    result = outside.runpytest(
        "-p", "no:cacheprovider", "--plancheck-backend", "cpu", "--plancheck-op", "abs",
        "--plancheck-report", str(report),
    )  # fmt: skip
    assert "ORACLE ERROR" in result.stdout.str() and "NOT a backend failure" in result.stdout.str()
    data = _report(report)
    assert data["failures"] == [] and data["oracle_errors"]
    assert data["table"]["cpu"]["abs"]["status"] == "ORACLE ERROR"
    assert data["result"] == "oracle errors"
    assert data["oracle_errors"][0]["problem"] == "oracle error"


def test_an_internal_error_is_shown_even_without_tracebacks(outside):
    """``plancheck run`` passes --tb=no: plancheck's own failures still show, with their
    traceback, in the summary and the report."""
    outside.makeconftest(
        """
import conformance.suite as suite

_saved = suite.check_boundary


def _broken(checker):
    raise RuntimeError("an internal plancheck bug")


def pytest_configure(config):
    suite.check_boundary = _broken


def pytest_unconfigure(config):
    suite.check_boundary = _saved
"""
    )
    report = outside.path / "out.json"
    result = outside.runpytest(
        "-p", "no:cacheprovider", "--tb=no", "--plancheck-backend", "cpu",
        "--plancheck-op", "neg", "--plancheck-report", str(report),
    )  # fmt: skip
    out = result.stdout.str()
    assert "plancheck INTERNAL ERROR (please report it)" in out
    assert "RuntimeError: an internal plancheck bug" in out
    (error,) = _report(report)["errors"]
    assert "test_boundary_examples" in error and "an internal plancheck bug" in error


@pytest.mark.parametrize("workers", [["-n", "1"], []], ids=["xdist", "one-process"])
def test_a_crashing_backend_is_reported_and_the_run_goes_on(outside, workers):
    """The backend dies in its host process (issue 20): a crash finding, a fresh host,
    and the run goes on, with or without xdist workers."""
    report = outside.path / "out.json"
    result = outside.runpytest_subprocess(
        "-p", "no:cacheprovider", *workers, "--plancheck-backend", "outside:Crashes",
        "--plancheck-op", "sign", "--plancheck-op", "neg", "--plancheck-report", str(report),
        timeout=240,
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    data = _report(report)
    assert data["complete"]
    table = data["table"]["outside:Crashes"]
    assert table["sign"]["status"] == "CRASH" and table["neg"]["status"] == "conforms"
    crash = data["crashes"][0]
    assert crash["operation"] == "sign" and crash["problem"] == "crash"
    assert crash["repro"].startswith("plancheck repro --backend outside:Crashes")
    assert "host process exited with status 17" in crash["summary"]


def test_failures_with_huge_ints_cross_the_xdist_channel(outside):
    """A failing call holding a weak int below -2**31 reaches the controller intact."""
    report = outside.path / "out.json"
    result = outside.runpytest_subprocess(
        "-p", "no:cacheprovider", "-n", "1", "--plancheck-backend", "outside:HugeWeakInts",
        "--plancheck-op", "mul", "--plancheck-report", str(report), timeout=240,
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-2000:]
    data = _report(report)
    assert data["complete"] and data["table"]["outside:HugeWeakInts"]["mul"]["status"] == "FAIL"
    inputs = [text for f in data["failures"] for text in f["inputs"]]
    huge = [int(t.split()[1]) for t in inputs if t.startswith("int ")]
    assert huge and all(v < -(2**40) for v in huge), inputs


def test_an_interrupted_run_keeps_what_it_measured(outside):
    report = outside.path / "out.json"
    # no xdist: the judge's own process dies (a plugin's hook), after abs's items finished
    outside.makepyfile(
        interrupt="import os\n\n"
        "def pytest_runtest_logfinish(nodeid, location):\n"
        "    if 'sign' in nodeid:\n"
        "        os._exit(17)\n"
    )
    result = outside.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "interrupt", "--plancheck-backend", "cpu",
        "--plancheck-op", "abs", "--plancheck-op", "sign", "--plancheck-report", str(report),
        timeout=240,
    )  # fmt: skip
    assert result.ret == 17
    data = _report(report)
    assert not data["complete"] and data["result"] == "running"
    assert data["finished_items"] >= 1
    assert data["table"]["cpu"]["abs"]["passed"] > 0


# ---------------------------------------------------------------------------
# plancheck run / repro
# ---------------------------------------------------------------------------


def _run(pytester, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", *arguments],
        cwd=pytester.path, env=_env(pytester), capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_plancheck_run_exit_codes(outside, capsys):
    done = _run(outside, "--backend", "generic", "--op", "neg", "--workers", "0")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "plancheck conformance: generic" in done.stdout
    report = outside.path / "run.json"
    done = _run(
        outside, "--backend", "conformance.mutants:neg_as_zero_minus_x", "--op", "neg",
        "--workers", "1", "--report", str(report),
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "NOT CONFORMING: neg" in done.stdout
    assert _report(report)["failures"]
    for arguments in (
        ["run", "--backend", "cpu", "--op", "nosuch"],
        ["run", "--backend", "nosuch:Backend"],
        ["run", "--backend", "cpu", "--ulp-budget", "add=1"],
        ["run", "--backend", "cpu", "--report", "out.txt"],
        ["repro", "not json"],
        ["repro", '{"v": 1, "op": "add"}'],
    ):
        assert plancheck(arguments) == 2, arguments
    for arguments in (["run", "--backend", "cpu", "--profile", "fast"], ["run"]):
        with pytest.raises(SystemExit) as exit_info:
            plancheck(arguments)
        assert exit_info.value.code == 2
    capsys.readouterr()


# ---------------------------------------------------------------------------
# Exact encoding of calls
# ---------------------------------------------------------------------------


def test_call_json_is_exact():
    from fractions import Fraction

    import numpy as np

    from conformance.generate.strategies import boundary_examples
    from oracle import binary32, resolvable_plans

    for plan in resolvable_plans():
        for call in boundary_examples(plan):
            again = call_from_json(call_to_json(call))
            assert again == call and again.plan == call.plan, call
    values = [
        binary32.from_bits(0xFFC00123), -0.0, float("inf"), 2**200, -(2**31) - 1, True,
        Fraction(-(10**40), 3), np.float32(1.5), np.int64(-3), np.bool_(True), None, (0, -1),
        float.fromhex("0x1.fffffep+127"), float("nan"), [1, 2],
    ]  # fmt: skip
    for value in values:
        back = decode_value(json.loads(json.dumps(encode_value(value))))
        assert type(back) is type(value) or isinstance(value, np.generic)
        if isinstance(value, float):
            assert np.float64(back).view(np.uint64) == np.float64(value).view(np.uint64)
        elif not isinstance(value, (np.generic,)):
            assert back == value
        else:
            assert type(back) is type(value) and back == value
