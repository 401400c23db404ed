"""The command line's message helpers: an error's text for a person, a suggestion.

Messages name what went wrong and what to do, never a Python exception class
(``ValueError: ...``) or a repr of an internal value; an unknown name is met with
the nearest known ones.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["error_text", "suggestion"]


def error_text(error: BaseException) -> str:
    """An error's message for a person: its text without the exception class's name
    (the type's name only when there is no text, e.g. a bare ``SystemExit``)."""
    text = str(error.args[0]) if len(error.args) == 1 else str(error)
    return text.strip() or f"{type(error).__name__} (no message)"


def suggestion(name: str, choices: Iterable[str]) -> str:
    """`` (did you mean A or B?)`` for the names of *choices* nearest *name*, or ``""``."""
    close = difflib.get_close_matches(name, list(choices), n=2, cutoff=0.6)
    return f" (did you mean {' or '.join(close)}?)" if close else ""
