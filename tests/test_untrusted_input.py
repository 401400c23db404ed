"""Untrusted input stays data (issue 15 item 4): a repro line accepts only the
encodings plancheck writes, bounded in size; backend text is escaped in
Markdown and made visible in terminal output; a bad known-deviations file is a
usage error; a call too large for the oracle is "declined", not a crash."""

from __future__ import annotations

import json
import os
from fractions import Fraction

import numpy as np
import pytest

from conformance.cli import main as plancheck
from conformance.model.codec import MAX_DEPTH, NUMPY_SCALARS, decode_value, encode_value
from conformance.report import ConformanceTable, call_from_json, markdown_report

NEG = '{"v":1,"op":"neg","args":[%s]}'


@pytest.mark.parametrize(
    "argument",
    [
        '{"numpy":"loadtxt","value":"/etc/passwd"}',
        '{"numpy":"seterr","value":"raise"}',
        '{"numpy":"DataSource","value":"http://example.invalid/"}',
        '{"numpy":"float32","value":"1.0"}',
        '{"numpy":"int8","value":1000}',
        '{"fraction":[1,0]}',
        '{"fraction":["1e999999999",1]}',
        '{"float":"0x1p99999"}',
        '{"tensor":"Float32","shape":[1099511627776,0],"bits":[]}',
        '{"tensor":"Float32","shape":[2],"bits":["0x1ffffffff","0x0"]}',
        '{"tensor":"Float32","shape":[1],"bits":["0x0"],"extra":1}',
        '{"tensor":"Object","shape":[1],"values":[1]}',
        "[" * (MAX_DEPTH + 2) + "]" * (MAX_DEPTH + 2),
    ],
)
def test_repro_refuses_everything_plancheck_does_not_write(argument, capsys):
    before = np.geterr()
    assert plancheck(["repro", "--backend", "cpu", NEG % argument]) == 2
    err = capsys.readouterr().err
    assert err.startswith("plancheck repro: not") and "Traceback" not in err
    assert "root:" not in err  # /etc/passwd was not read
    assert np.geterr() == before


def test_deep_json_is_a_usage_error_not_a_recursion_crash(capsys):
    text = NEG % ("[" * 100_000 + "]" * 100_000)
    assert plancheck(["repro", "--backend", "cpu", text]) == 2
    assert "not JSON" in capsys.readouterr().err


def test_every_numpy_scalar_plancheck_writes_round_trips():
    for name, kind in NUMPY_SCALARS.items():
        value = kind(1) if name != "bool" else np.bool_(True)
        decoded = decode_value(json.loads(json.dumps(encode_value(value))))
        assert type(decoded) is kind and decoded == value
    assert decode_value(encode_value(Fraction(-3, 7))) == Fraction(-3, 7)
    nan = decode_value(encode_value(np.float32("nan")))
    assert isinstance(nan, np.float32) and np.isnan(nan)


def test_a_value_without_an_exact_encoding_is_refused():
    with pytest.raises(TypeError):
        encode_value(np.complex64(1))


def test_a_call_too_large_for_the_oracle_is_declined_not_crashed(capsys):
    big = (
        '{"v":1,"op":"matmul","args":[{"tensor":"Float32","shape":[1024,0],"bits":[]},'
        '{"tensor":"Float32","shape":[0,2048],"bits":[]}]}'
    )
    assert call_from_json(big).operation == "matmul"
    assert plancheck(["repro", "--backend", "cpu", big]) == 3
    out = capsys.readouterr().out
    assert out.startswith("NO VERDICT: oracle declined (too large): matmul")


HOSTILE_TEXT = "\x1b[2J```\n# forged heading\n| a | b |\n<script>alert(1)</script>"


def _document_with_hostile_text() -> dict:
    example = {"text": f"NON-CONFORMANCE: raised RuntimeError: {HOSTILE_TEXT}", "expected": "1",
               "actual": HOSTILE_TEXT, "inputs": []}  # fmt: skip
    entry = {"backend": "evil`name", "operation": "neg", "class": "raises-Evil|Error",
             "kind": "raises", "count": 1, "plan": "p", "plans": ["p"], "selector": "neg@x",
             "known": None, "example": example}  # fmt: skip
    return {"backends": ["evil`name"], "profile": "ci", "complete": True, "result": "x",
            "deviation_classes": [entry],
            "crashes": [{"test": "t::x", "text": HOSTILE_TEXT}]}  # fmt: skip


def test_markdown_report_keeps_backend_text_inside_its_code_blocks():
    text = markdown_report(_document_with_hostile_text(), ConformanceTable())
    assert "\x1b" not in text and "\\x1b[2J" in text
    lines = text.splitlines()
    assert "# forged heading" in lines  # only as a line inside a code block:
    inside = False
    fence = ""
    for line in lines:
        if not inside and line.startswith("```"):
            inside, fence = True, line
        elif inside and line == fence:
            inside = False
        elif not inside:
            assert line != "# forged heading" and not line.startswith("| a |"), line
    assert not inside
    assert all(len(f) > 3 for f in lines if f.startswith("```") and f.strip("`") == "")


@pytest.mark.parametrize(
    ("suffix", "content", "message"),
    [
        (".json", "5", "expected a list"),
        (".json", '{"deviations": "abc"}', "expected a list"),
        (".json", '[{"operation": 3}]', "'operation' must be a string"),
        (".json", '{"unsupported": [1]}', "a list of str"),
        (".json", "[" * 100_000, "nested too deeply"),
        (".toml", "deviation = 3\n", "expected a list"),
        (".toml", "[[deviation]]\nplan = 1\n", "needs an 'operation'"),
        (".txt", "neg@nonsense-class: x\n", "is not a deviation class"),
        (".txt", "\x1b[2Jnosuch: x\n", "unknown operation"),
    ],
)
def test_bad_known_deviation_files_are_usage_errors(suffix, content, message, tmp_path, capsys):
    path = tmp_path / f"known{suffix}"
    path.write_text(content, encoding="utf-8")
    assert plancheck(["run", "--backend", "cpu", "--op", "neg", "--xfail", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and "\x1b" not in err


def test_a_binary_known_deviation_file_is_a_usage_error(tmp_path, capsys):
    path = tmp_path / "known.txt"
    path.write_bytes(b"\xff\xfe\x00")
    assert plancheck(["run", "--backend", "cpu", "--xfail", str(path)]) == 2
    assert "not UTF-8" in capsys.readouterr().err
    assert os.path.exists(path)


def test_diff_output_shows_backend_escapes_visibly(capsys):
    status = plancheck(
        ["diff", "--backend", "cpu", "--backend", "tests.test_cli_call:ANSI_RAISING", "--op",
         "neg", "--timeout", "0"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert status == 1
    assert "\x1b" not in out and "\\x1b[2J" in out


def test_a_validation_call_with_a_string_parameter_round_trips_and_has_a_repro():
    """The invalid-call rules pass e.g. axis='0'; a backend failing such a call
    must get a report with an exact repro, not an internal error (found on jax)."""
    from conformance.model.calls import Call
    from conformance.report import call_from_json, call_to_json
    from oracle import DType, Tensor, resolve_operation_plan

    plan = resolve_operation_plan("reduce_max", DType.Float32)
    call = Call("reduce_max", (Tensor.from_nested([1.0, 2.0], DType.Float32), "0"), None, plan)
    again = call_from_json(call_to_json(call))
    assert again.args[1] == "0" and type(again.args[1]) is str
    assert "'0'" in call.repro()
    with pytest.raises(ValueError):
        call_from_json(call_to_json(call).replace('"0"', '"' + "x" * 65 + '"'))
