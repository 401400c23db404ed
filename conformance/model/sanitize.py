"""Backend-provided text made safe for each report format.

A report quotes what the backend under test said: exception messages, reprs
of returned objects, its name.  That text is untrusted.  Printed raw, an ANSI
escape sequence in an exception message can rewrite the user's terminal (clear
the screen, hide lines, set the window title), and Markdown or HTML in it can
forge table rows, headings, links or scripts in a report.  Every renderer
passes such text through exactly one of these functions:

* :func:`terminal_text` -- control characters (C0 except tab and newline,
  DEL, C1, and so every ESC/CSI/OSC sequence) are shown as visible escapes
  such as ``\\x1b``; nothing is dropped silently;
* :func:`terminal_line` -- the same on exactly one line: every character that
  is not printable (newlines and tabs too, and Unicode line separators) is
  shown as an escape, for records and messages that must stay one line;
* :func:`markdown_text` -- the terminal-safe text with Markdown's active
  characters backslash-escaped and line breaks turned into spaces, so it stays
  inside one table cell or one list item;
* :func:`html_text` -- the terminal-safe text with ``& < > " '`` replaced by
  entities.

Each leaves plain text (letters, digits, spaces, ``. , : ; = - ' "`` for the
first two) unchanged, cuts text longer than :data:`MAX_QUOTED` with a visible
marker, and never raises: a non-``str`` is shown by ``repr`` first, and a
``repr`` that raises is itself shown.
"""

from __future__ import annotations

import html
import re

__all__ = ["MAX_QUOTED", "html_text", "markdown_text", "terminal_line", "terminal_text"]

#: C0 controls other than tab and newline, DEL, and the C1 controls.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: Characters with a meaning in CommonMark or GitHub tables.
_MARKDOWN_ACTIVE = re.compile(r"([\\`*_{}\[\]()<>#+!|~])")
#: The longest quoted text, in characters, before it is cut with a marker.
MAX_QUOTED = 2_000


def _as_text(value: object) -> str:
    if isinstance(value, str):
        return value
    try:
        return repr(value)
    except Exception as error:  # a hostile __repr__ is itself something to report
        return f"<unrepresentable {type(value).__name__}: repr raised {type(error).__name__}>"


def terminal_text(value: object, limit: int = MAX_QUOTED) -> str:
    """*value* with every control character shown as a visible ``\\xNN`` escape."""
    text = _as_text(value)
    if len(text) > limit:
        text = text[:limit] + f"... [{len(text) - limit:,} more characters]"
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _escape(character: str) -> str:
    code = ord(character)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def terminal_line(value: object, limit: int = MAX_QUOTED) -> str:
    """*value* on one line, every non-printable character shown as an escape."""
    text = _as_text(value)
    cut = len(text) > limit
    shown = "".join(c if c.isprintable() else _escape(c) for c in text[:limit])
    return shown + (f"... [{len(text) - limit:,} more characters]" if cut else "")


def markdown_text(value: object, limit: int = MAX_QUOTED) -> str:
    """*value* as literal Markdown text on one line."""
    text = terminal_text(value, limit).replace("\n", " ")
    return _MARKDOWN_ACTIVE.sub(r"\\\1", text)


def html_text(value: object, limit: int = MAX_QUOTED) -> str:
    """*value* as HTML text content or a quoted attribute value."""
    return html.escape(terminal_text(value, limit), quote=True)
