"""The exception of a backend name that cannot be loaded where plancheck runs."""

from __future__ import annotations

__all__ = ["BackendLoadError"]


class BackendLoadError(LookupError):
    """A well-formed backend name whose backend is not available here.

    The adapter's library is not installed, the requested device is absent,
    an outside backend's module or attribute does not exist, or creating the
    backend raised SystemExit.  The message says what to do; the original
    exception, where there is one, is chained as ``__cause__``.
    """
