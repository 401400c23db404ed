"""Save, install and restore a thread's whole floating-point environment.

The backend host keeps two environments apart: the backend's (what its import and
its calls left: rounding mode, flush-to-zero, denormals-are-zero, exception flags,
numpy's error state) and plancheck's default (round to nearest, gradual underflow,
numpy's default error state).  :class:`Switch` holds the backend's: ``with
switch.backend():`` installs it for the backend's code and, on the way out, saves
what the code left and installs the default again, so plancheck's own work in the
host (decoding, encoding, probing, lazily imported modules) never runs in the
backend's environment, and the backend always runs in its own, as it would in a
process of its own.

The C environment is the C library's ``fenv_t`` (on x86-64 glibc the x87 control
and status words and the whole MXCSR, FTZ and DAZ included; on aarch64 FPCR and
FPSR), read with ``fegetenv`` and written with ``fesetenv``; the default is the
one the host process started with (saved when this module is imported, before
any backend is).  Where the C library has no ``fegetenv`` (:data:`AVAILABLE` is
False) only numpy's error state is switched and the probes
(:mod:`conformance.host.fpenv`) still report what the backend did.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
from collections.abc import Iterator

import numpy as np

from conformance.host.fpenv import DEFAULT_NUMPY_ERRORS, NumpyErrors

__all__ = ["AVAILABLE", "Switch", "default_environment", "install_default"]

#: bytes enough for any C library's fenv_t (glibc x86-64: 32, aarch64: 8)
_FENV_BYTES = 256


def _libm() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("m")
    try:
        library = ctypes.CDLL(name)
        library.fegetenv.argtypes = library.fesetenv.argtypes = [ctypes.c_void_p]
    except (OSError, AttributeError, TypeError):
        return None
    return library


_LIBM = _libm()
#: whether the C floating-point environment is switched (else numpy's error state only)
AVAILABLE = _LIBM is not None


def _save_c() -> ctypes.Array[ctypes.c_char] | None:
    if _LIBM is None:
        return None
    saved = ctypes.create_string_buffer(_FENV_BYTES)
    if _LIBM.fegetenv(saved) != 0:
        return None
    return saved


#: the environment of this process when the module was imported -- the host's, before it
#: loads any backend: the default (a fresh interpreter's; the judge refuses to start in
#: any other).  Saved rather than ``FE_DFL_ENV``, whose spelling differs between C
#: libraries (glibc's and musl's ``(const fenv_t *) -1``, macOS's a symbol).
_DEFAULT = _save_c()


def _install_c(saved: ctypes.Array[ctypes.c_char] | None) -> None:
    """Install *saved* (None: the default)."""
    chosen = saved if saved is not None else _DEFAULT
    if _LIBM is not None and chosen is not None:
        _LIBM.fesetenv(chosen)


def install_default() -> None:
    """Install plancheck's environment: the host's own at start, numpy's default error
    state."""
    _install_c(None)
    np.seterr(**DEFAULT_NUMPY_ERRORS)


@contextlib.contextmanager
def default_environment() -> Iterator[None]:
    """Within the block the default environment is installed; the one installed before
    is installed again on leaving."""
    saved_c, saved_numpy = _save_c(), np.geterr()
    install_default()
    try:
        yield
    finally:
        _install_c(saved_c)
        np.seterr(**saved_numpy)


class Switch:
    """The backend's environment, kept while plancheck's default is installed."""

    def __init__(self) -> None:
        self._c: ctypes.Array[ctypes.c_char] | None = None
        self._numpy: NumpyErrors = DEFAULT_NUMPY_ERRORS.copy()

    def keep_current(self) -> None:
        """Save the environment installed now as the backend's (after its import) and
        install the default (numpy's error state is set only when it differs: ~10 us
        a call saved)."""
        self._c = _save_c()
        self._numpy = np.geterr()
        _install_c(None)
        if self._numpy != DEFAULT_NUMPY_ERRORS:
            np.seterr(**DEFAULT_NUMPY_ERRORS)

    @contextlib.contextmanager
    def backend(self) -> Iterator[None]:
        """Within the block the backend's environment is installed; on leaving (also by
        an exception), what the block left is saved as the backend's and the default is
        installed."""
        _install_c(self._c)
        if self._numpy != DEFAULT_NUMPY_ERRORS:
            np.seterr(**self._numpy)
        try:
            yield
        finally:
            self.keep_current()
