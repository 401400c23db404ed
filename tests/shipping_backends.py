"""Outside backends for tests/test_shipping_reports.py: one that warns on exp overflow
and refuses empty neg operands, one that is 1 ulp high on exp above 1, one whose exp
refuses every tensor of more than 100 elements (the corpus chunks), one whose
convolution refuses negative padding (and computes every other window)."""

import warnings
from typing import Any, ClassVar

import numpy as np

from backends.cpu import KERNELS, CPUBackend


def _exp(backend, plan, x):
    out = KERNELS["exp"](backend, plan, x)
    if np.any(np.isinf(np.asarray(out))):
        warnings.warn("overflow encountered in exp", RuntimeWarning, stacklevel=2)
    return out


def _neg(backend, plan, x):
    if getattr(x, "size", 1) == 0:
        raise ValueError("empty tensors are refused")
    return KERNELS["neg"](backend, plan, x)


class Warny(CPUBackend):
    name = "warny"
    kernels: ClassVar[dict[str, Any]] = {**KERNELS, "exp": _exp, "neg": _neg}


def _bad_exp(backend, plan, x):
    out = KERNELS["exp"](backend, plan, x)
    arr = np.asarray(out)
    if arr.dtype == np.float32:
        arr = arr.copy()
        finite = np.isfinite(arr) & (arr > 1)
        arr[finite] = np.nextafter(arr[finite], np.float32(np.inf))
        return arr
    return out


class BadExp(CPUBackend):
    name = "badexp"
    kernels: ClassVar[dict[str, Any]] = {**KERNELS, "exp": _bad_exp}


def _chunky_exp(backend, plan, x):
    if getattr(x, "size", 1) > 100:
        raise MemoryError("too big")
    return KERNELS["exp"](backend, plan, x)


class Chunky(CPUBackend):
    name = "chunky"
    kernels: ClassVar[dict[str, Any]] = {**KERNELS, "exp": _chunky_exp}


def _no_negative_padding(backend, plan, lhs, rhs, *args, **kwargs):
    padding = kwargs.get("padding", args[1] if len(args) > 1 else None)
    if padding is not None and any(low < 0 or high < 0 for low, high in padding):
        raise ValueError("negative padding is not supported")
    return KERNELS["conv_general"](backend, plan, lhs, rhs, *args, **kwargs)


class NoNegativePadding(CPUBackend):
    name = "no-negative-padding"
    kernels: ClassVar[dict[str, Any]] = {**KERNELS, "conv_general": _no_negative_padding}
