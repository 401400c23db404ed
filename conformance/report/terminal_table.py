"""Fixed-width terminal tables, drawn by ``rich``: the conformance table of the
terminal summary, ``plancheck plans --table``, ``plancheck backends`` and
``plancheck diff`` (Markdown tables stay Markdown).

One look everywhere: a header row, a rule of ``-`` under it, columns two spaces
apart, numbers right-aligned.  The rules that keep a table readable in CI logs
and safe to print:

* **no markup**: every cell is a :class:`rich.text.Text` built from the cell's
  string, so a ``[...]`` in a plan, a test id or backend text (``[0x7fc00000]``,
  ``cpu-exp(Float32) binary32 -> Float32``) is printed as written, never read as
  rich markup;
* **escaped first**: every cell passes through
  :func:`conformance.model.sanitize.terminal_line`, so backend text cannot reach the
  terminal as control sequences (rich itself does not escape them);
* **no truncation**: the table is laid out for a very wide page (not the
  terminal's width), so no cell is cut or wrapped in a narrow terminal or a
  CI log; lines carry no trailing spaces;
* **colour only when asked**: styles (a red ``FAIL``) become ANSI codes only
  with ``colour=True``, which the plugin passes where pytest colours (a
  terminal, ``NO_COLOR`` unset, or ``--color=yes``).
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from conformance.model.sanitize import terminal_line

__all__ = ["ALARMING_STYLES", "render_table"]

#: the page width tables are laid out for: wider than any row (at most a few columns
#: of at most _CELL_LIMIT characters), so nothing wraps
_PAGE = 100_000

#: the longest cell, in characters, before it is cut with a visible marker
_CELL_LIMIT = 2_000

#: results drawn in colour on a terminal (as pytest colours failures)
ALARMING_STYLES: Mapping[str, str] = {
    "FAIL": "bold red",
    "TIMEOUT": "bold red",
    "CRASH": "bold red",
    "ORACLE ERROR": "bold yellow",
}


def render_table(
    header: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    right: Sequence[int] = (),
    styles: Mapping[str, str] | None = None,
    colour: bool = False,
) -> str:
    """*rows* under *header* as fixed-width text (no trailing newline).

    *right* lists the indices of right-aligned columns; *styles* maps a cell's
    exact text to a rich style, applied only with *colour* (ANSI codes), else the
    output is plain text.
    """
    names = [terminal_line(name) for name in header]
    texts = [
        [terminal_line("" if value is None else str(value), _CELL_LIMIT) for value in row]
        for row in rows
    ]
    widths = [max([cell_len(n)] + [cell_len(r[i]) for r in texts]) for i, n in enumerate(names)]
    table = Table(box=None, show_header=False, pad_edge=False, padding=(0, 2, 0, 0),
                  highlight=False, collapse_padding=False)  # fmt: skip
    for index in range(len(names)):
        table.add_column(justify="right" if index in right else "left", no_wrap=True,
                         overflow="fold")  # fmt: skip
    table.add_row(*(Text(name) for name in names))
    table.add_row(*(Text("-" * width) for width in widths))  # the rule under the header
    for row in texts:
        cells = []
        for text in row:
            cell = Text()  # the style on the text alone: the padding stays plain
            cell.append(text, style=((styles or {}).get(text) if colour else None) or None)
            cells.append(cell)
        table.add_row(*cells)
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=_PAGE,
        force_terminal=colour,
        no_color=not colour,
        color_system="standard" if colour else None,
        markup=False,
        emoji=False,
        highlight=False,
        legacy_windows=False,
        soft_wrap=False,
    )
    console.print(table)
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines())
