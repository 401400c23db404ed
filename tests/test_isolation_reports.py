"""Report files (issue 20, item 8): a unique temp file created exclusively beside the
report, never written through a symlink; an unwritable report path is a usage
error at start; concurrent runs each write a complete report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conformance.report import ConformanceTable, ReportWriter, validate_report

ROOT = Path(__file__).resolve().parent.parent


def _command(report: Path) -> list[str]:
    return [sys.executable, "-m", "conformance.cli", "run", "--backend", "cpu", "--op", "neg",
            "--workers", "0", "--report", str(report)]  # fmt: skip


def _env() -> dict[str, str]:
    return dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )


def test_a_report_path_that_cannot_be_written_is_a_usage_error_at_start(tmp_path):
    if sys.platform != "linux":
        pytest.skip("uses /proc, a directory nobody can create files in")
    started = time.monotonic()
    done = subprocess.run(_command(Path("/proc/plancheck-report.json")), cwd=tmp_path,
                          env=_env(), capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-2000:]
    assert "cannot write in /proc" in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert time.monotonic() - started < 60


def test_the_report_replaces_a_symlink_and_never_writes_through_it(tmp_path):
    target = tmp_path / "elsewhere.json"
    target.write_text("keep me", encoding="utf-8")
    report = tmp_path / "out.json"
    report.symlink_to(target)
    done = subprocess.run(_command(report), cwd=tmp_path, env=_env(), capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert target.read_text(encoding="utf-8") == "keep me"
    assert not report.is_symlink()
    validate_report(json.loads(report.read_text(encoding="utf-8")))
    assert not list(tmp_path.glob(".out.json.*.tmp"))


def test_concurrent_runs_each_write_a_complete_report(tmp_path):
    report = tmp_path / "shared.json"
    runs = [subprocess.Popen(_command(report), cwd=tmp_path, env=_env(),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for _ in range(2)]  # fmt: skip
    outputs = [run.communicate(timeout=300)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    assert all("INTERNALERROR" not in text for text in outputs)
    data = json.loads(report.read_text(encoding="utf-8"))
    validate_report(data)
    assert data["complete"]
    assert not list(tmp_path.glob(".shared.json.*.tmp"))


def test_a_failed_write_leaves_no_temp_file_and_keeps_the_old_report(tmp_path, monkeypatch):
    report = tmp_path / "out.md"
    writer = ReportWriter(report)
    report.write_text("old", encoding="utf-8")

    def full_disk(source, destination):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError, match="No space left"):
        writer.write({}, ConformanceTable())
    assert report.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.md"]


def test_a_report_names_plancheck_s_own_files_relative_to_its_root(tmp_path):
    """A library's traceback through an adapter names the adapter's source by its path in
    the checkout; the report names it relative to the checkout (no path of one machine)."""
    from conformance.report.document import CHECKOUT

    adapter = Path(CHECKOUT) / "backends" / "adapters" / "jax_cpu.py"
    report = tmp_path / "out.json"
    ReportWriter(report).write({"note": f'at loc("{adapter}":167:15)'}, ConformanceTable())
    text = report.read_text(encoding="utf-8")
    assert CHECKOUT not in text and 'loc(\\"backends/adapters/jax_cpu.py\\":167:15)' in text
