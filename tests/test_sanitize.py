"""Backend-provided text cannot drive the terminal or forge report structure."""

import pytest

from conformance.model.sanitize import (
    MAX_QUOTED,
    html_text,
    markdown_text,
    terminal_line,
    terminal_text,
)

HOSTILE = "\x1b[2J\x1b]0;pwned\x07boom\r\n| forged | row |\n# Heading [x](http://e) <script>"


def test_terminal_text_shows_every_control_character():
    shown = terminal_text(HOSTILE)
    assert "\x1b" not in shown and "\x07" not in shown and "\r" not in shown
    assert "\\x1b[2J" in shown and "\\x07" in shown and "\\x0d" in shown
    assert "\n" in shown  # a newline is not a control sequence
    assert terminal_text("\x9b31m") == "\\x9b31m"  # C1 CSI too


def test_markdown_text_stays_in_one_cell():
    shown = markdown_text(HOSTILE)
    assert "\n" not in shown and "\x1b" not in shown
    assert "\\|" in shown and "| forged" not in shown.replace("\\|", "")
    assert "\\#" in shown and "\\[x\\]\\(http://e\\)" in shown and "\\<script\\>" in shown


def test_html_text_escapes_markup():
    shown = html_text(HOSTILE)
    assert "<script>" not in shown and "&lt;script&gt;" in shown and "\x1b" not in shown
    assert html_text("a\"b'c&") == "a&quot;b&#x27;c&amp;"


@pytest.mark.parametrize("render", [terminal_text, markdown_text, html_text])
def test_plain_text_passes_unchanged(render):
    assert render("expected 1.5 (0x3FC00000), got 1.0: 1 ULP") == (
        "expected 1.5 (0x3FC00000), got 1.0: 1 ULP"
        if render is not markdown_text
        else "expected 1.5 \\(0x3FC00000\\), got 1.0: 1 ULP"
    )


def test_long_text_is_cut_with_a_marker():
    shown = terminal_text("x" * (MAX_QUOTED + 10))
    assert shown.endswith("... [10 more characters]")


def test_hostile_repr_is_shown_not_raised():
    class Hostile:
        def __repr__(self):
            raise ZeroDivisionError

    assert "repr raised ZeroDivisionError" in terminal_text(Hostile())
    assert markdown_text(3) == "3"


def test_terminal_line_keeps_everything_on_one_line():
    shown = terminal_line("a\nb\tc\x1b[2J\u2028d")
    assert shown == "a\\x0ab\\x09c\\x1b[2J\\u2028d"
    assert terminal_line("x" * 12, 10) == "x" * 10 + "... [2 more characters]"
