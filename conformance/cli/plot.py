"""A plot of one unary operation's ULP error against its input (the ``plot`` extra).

``plancheck plot --backend numpy-float32 --op exp --out exp.png`` evaluates
the backend on every ``stride``-th binary32 bit pattern between two finite
inputs (by default the whole finite range of both signs), compares each
result with the certified oracle (:mod:`oracle.vectorised`) and draws the ULP
distance against the input value, with the correctly rounded results on the
axis.  NaN mismatches are drawn at the top of the plot in another colour.
matplotlib is imported only here (``pip install 'plancheck[plot]'``).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from conformance.exhaustive import sweep as exhaustive
from oracle import vectorised as V

__all__ = ["UlpSample", "plot", "sample_errors"]


@dataclass(frozen=True)
class UlpSample:
    """Inputs (float32), their ULP errors (-1: NaN-ness differs) and the backend's name."""

    backend: str
    op: str
    inputs: np.ndarray
    ulps: np.ndarray


def _magnitude_bits(value: float) -> int:
    """The bit pattern of |value| rounded to binary32."""
    return int(np.array(abs(value), np.float32).view(np.uint32))


def _patterns(low: float, high: float, stride: int) -> np.ndarray:
    """Every *stride*-th bit pattern of the binary32 values in [low, high], in value order."""
    parts = []
    if low < 0:  # negative values: 0x80000000 | m, m falling as the value rises
        bottom = _magnitude_bits(high) if high < 0 else 0
        magnitudes = np.arange(_magnitude_bits(low), bottom - 1, -stride, dtype=np.int64)
        parts.append(magnitudes | (1 << 31))
    if high >= 0:
        start = _magnitude_bits(low) if low > 0 else 0
        parts.append(np.arange(start, _magnitude_bits(high) + 1, stride, dtype=np.int64))
    return np.concatenate(parts).astype(np.uint32)


def sample_errors(
    backend: str, op: str, low: float = -3.4028234663852886e38, high: float = 3.4028234663852886e38,
    stride: int = 4099,
) -> UlpSample:  # fmt: skip
    """ULP errors of *backend* on ``op:Float32`` over every *stride*-th input in [low, high]."""
    if op not in V.OPS:
        raise KeyError(f"{op!r} is not a Float32 unary operation; choose from {V.OPS}")
    if not low <= high:
        raise ValueError(f"empty input range [{low}, {high}]")
    patterns = _patterns(low, high, stride)
    x = patterns.view(np.float32)
    expected = V.certified(op, x)
    actual = np.asarray(exhaustive.runner(backend)(op, x))
    ulps = np.abs(
        exhaustive._ordinal(expected.view(np.uint32)) - exhaustive._ordinal(actual.view(np.uint32))
    )
    e_nan, a_nan = np.isnan(expected), np.isnan(actual)
    ulps[e_nan & a_nan] = 0
    ulps[e_nan ^ a_nan] = -1
    return UlpSample(backend, op, x, ulps)


def plot(sample: UlpSample, out: str | Path) -> Path:
    """Draw *sample* to the PNG file *out* (ULP error on a symmetric log scale)."""
    import matplotlib  # noqa: PLC0415 (the optional plot extra)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415 (after choosing the Agg backend)

    x = sample.inputs.astype(np.float64)
    ulps = sample.ulps
    finite = np.isfinite(x)
    exact = finite & (ulps == 0)
    wrong = finite & (ulps > 0)
    nan = finite & (ulps < 0)
    figure, axes = plt.subplots(figsize=(9, 4.5), dpi=110)
    axes.scatter(x[exact], ulps[exact], s=1, c="tab:green", label="correctly rounded")
    axes.scatter(x[wrong], ulps[wrong], s=2, c="tab:red", label="not correctly rounded")
    if nan.any():
        top = max(int(ulps.max()), 1) * 2
        axes.scatter(x[nan], np.full(int(nan.sum()), top), s=4, c="black", label="NaN-ness wrong")
    wide = finite.any() and float(np.abs(x[finite]).max()) > 1e4
    if wide:  # the whole binary32 range: a symmetric log scale
        axes.set_xscale("symlog", linthresh=1e-30)
    axes.set_yscale("symlog", linthresh=1)
    axes.set_xlabel("input x (binary32" + (", symmetric log scale)" if wide else ")"))
    axes.set_ylabel("ULP distance from the correctly rounded result")
    share = 100 * wrong.sum() / max(finite.sum(), 1)
    axes.set_title(
        f"{sample.backend}: {sample.op}(x), {int(finite.sum()):,} inputs, "
        f"{share:.2f}% not correctly rounded, max {int(ulps.max())} ULP"
    )
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3, markerscale=6, fontsize=8)
    figure.tight_layout()
    path = Path(out)
    figure.savefig(path)
    plt.close(figure)
    return path


def _finite(text: str) -> float:
    """An argparse type: a finite number inside the binary32 range."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or abs(value) > _MAX_FLOAT32:
        raise argparse.ArgumentTypeError(f"{text} is not a finite binary32 value")
    return value


def _stride(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 1 <= value <= 1 << 32:
        raise argparse.ArgumentTypeError(f"stride {value} is outside [1, 2**32]")
    return value


_MAX_FLOAT32 = 3.4028234663852886e38


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``plancheck plot``."""
    parser.add_argument("--backend", default="numpy-float32", help="numpy-float32, cpu, ...")
    parser.add_argument("--op", required=True, help="a Float32 unary operation")
    parser.add_argument("--low", type=_finite, default=-_MAX_FLOAT32)
    parser.add_argument("--high", type=_finite, default=_MAX_FLOAT32)
    parser.add_argument("--stride", type=_stride, default=4099, help="take every N-th bit pattern")
    parser.add_argument("--out", required=True, help="the PNG file to write")


def _usage(arguments: argparse.Namespace) -> str | None:
    """Why the arguments cannot give a plot (None when they can), checked before any work."""
    if arguments.op not in V.OPS:
        return f"{arguments.op!r} is not a Float32 unary operation; choose from {', '.join(V.OPS)}"
    if not arguments.low <= arguments.high:
        return f"empty input range [{arguments.low}, {arguments.high}]"
    out = Path(arguments.out)
    if out.suffix.lower() != ".png":
        return f"--out {out}: the plot is a PNG file; name it *.png"
    parent = out.resolve().parent
    if out.is_dir() or not parent.is_dir() or not os.access(parent, os.W_OK):
        return f"--out {out}: {parent} is not an existing writable directory"
    try:
        exhaustive.runner(arguments.backend)
    except (KeyboardInterrupt, exhaustive.Interrupted):
        raise
    except BaseException as error:  # ImportError, TypeError, SystemExit from builtins:exit
        return f"cannot load backend {arguments.backend!r}: {error}"
    return None


def main(arguments: argparse.Namespace) -> int:
    """``plancheck plot``: 0 when the PNG was written, 1 when the backend failed
    while sampled, 2 on a usage error (reported before anything is computed or created)."""
    problem = _usage(arguments)
    if problem is not None:
        print(f"plancheck plot: {problem}", file=sys.stderr)
        return 2
    try:
        import matplotlib  # noqa: F401, PLC0415 (the optional plot extra)
    except ImportError:
        print("plancheck plot needs matplotlib: pip install 'plancheck[plot]'", file=sys.stderr)
        return 2
    try:
        sample = sample_errors(
            arguments.backend, arguments.op, arguments.low, arguments.high, arguments.stride
        )
    except Exception as error:  # the backend failed on the sampled inputs
        print(f"plancheck plot: {arguments.backend} failed: {type(error).__name__}: {error}",
              file=sys.stderr)  # fmt: skip
        return 1
    path = plot(sample, arguments.out)
    print(f"{path}: {sample.inputs.size:,} inputs, max {int(sample.ulps.max())} ULP")
    return 0
