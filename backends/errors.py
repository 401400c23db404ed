"""The exceptions a backend raises about itself rather than about a call's arguments.

:class:`BackendLoadError`: a backend name that cannot be loaded where plancheck runs.
:class:`NotMeasured`: an adapter that cannot map an operation or a feature onto its library.
"""

from __future__ import annotations

__all__ = ["BackendLoadError", "NotMeasured"]


class BackendLoadError(LookupError):
    """A well-formed backend name whose backend is not available here.

    The adapter's library is not installed, the requested device is absent,
    an outside backend's module or attribute does not exist, or creating the
    backend raised SystemExit.  The message says what to do; the original
    exception, where there is one, is chained as ``__cause__``.
    """


class NotMeasured(NotImplementedError):
    """An adapter cannot map this operation or feature onto its library.

    Raised by an adapter (never by the library it adapts) *before* the library is
    called, when the library has no operation or argument form to express the call
    (a library without an ``exp2``; a convolution API without per-side padding).
    The judge counts such calls as *not measured*: they are reported, with the
    message, beside the run and never become a deviation class of the library --
    the adapter, not the library, lacks the mapping.  The message says what is
    missing (``"tensorflow has no exp2 kernel: not measured"``).

    It subclasses :class:`NotImplementedError` so that code that treats a refusal
    as "not implemented" keeps working.
    """
