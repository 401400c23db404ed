"""``plancheck plot``: the sampled ULP errors (always) and the PNG (with matplotlib)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conformance.cli import main as plancheck
from conformance.cli import plot


def test_patterns_are_in_value_order_and_cover_the_range():
    low, high = -(2.0**-140), 2.0**-139  # subnormals: 512 and 1024 patterns
    patterns = plot._patterns(low, high, 1)
    x = patterns.view(np.float32)
    assert x[0] == low and x[-1] == high
    assert (np.diff(x.astype(np.float64)) >= 0).all()  # -0 and +0 both present, in order
    assert patterns.size == (512 + 1) + (1024 + 1)
    assert plot._patterns(0.5, 0.5, 7).view(np.float32).tolist() == [0.5]


def test_the_cpu_backend_is_correctly_rounded_and_numpy_is_not():
    cpu = plot.sample_errors("cpu", "exp", -20.0, 20.0, stride=997)
    assert cpu.inputs.size > 10_000 and (cpu.ulps == 0).all()
    numpy = plot.sample_errors("numpy-float32", "exp", -20.0, 20.0, stride=997)
    assert (numpy.inputs == cpu.inputs).all() and 1 <= numpy.ulps.max() <= 3
    with pytest.raises(KeyError):
        plot.sample_errors("cpu", "add")
    with pytest.raises(ValueError):
        plot.sample_errors("cpu", "exp", 1.0, -1.0)


def test_plancheck_plot_writes_a_png(tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="plancheck plot needs the 'plot' extra")
    out = tmp_path / "exp.png"
    arguments = ["plot", "--op", "exp", "--low", "-5", "--high", "5", "--stride", "4099"]
    assert plancheck([*arguments, "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "max" in capsys.readouterr().out
    assert plancheck(["plot", "--op", "nosuch", "--out", str(out)]) == 2


@pytest.mark.parametrize(
    "args",
    [
        ["--out", "/nonexistent/dir/x.png"],
        ["--out", "OUT/x.txt"],
        ["--out", "OUT"],
        ["--stride", "0", "--out", "OUT/x.png"],
        ["--stride", "-3", "--out", "OUT/x.png"],
        ["--low", "nan", "--out", "OUT/x.png"],
        ["--high", "1e39", "--out", "OUT/x.png"],
        ["--low", "2", "--high", "1", "--out", "OUT/x.png"],
        ["--backend", "builtins:exit", "--out", "OUT/x.png"],
        ["--backend", "nosuch", "--out", "OUT/x.png"],
    ],
)
def test_usage_errors_exit_2_before_anything_is_computed_or_created(tmp_path, capsys, args):
    args = [a.replace("OUT", str(tmp_path)) for a in args]
    try:
        status = plancheck(["plot", "--op", "exp", *args])
    except SystemExit as stop:  # argparse's own usage errors
        status = stop.code
    assert status == 2
    err = capsys.readouterr().err
    assert err and "needs matplotlib" not in err  # refused for itself, before anything else
    assert list(tmp_path.iterdir()) == [] and not Path("/nonexistent").exists()
