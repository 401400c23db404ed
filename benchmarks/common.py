"""What every benchmark script records beside its figures: the machine and where it wrote.

The machine here is shared, so absolute rates are noisy; every script reports
ratios measured side by side in one run, and this module's description of the
machine (interpreter, numpy, core count, load average before and after) says how
noisy the run was.
"""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path
from typing import Any

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results"


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages, rounded (empty where the OS has none)."""
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except OSError:
        return []


def machine() -> dict[str, Any]:
    """The machine, interpreter and numpy of this run (the JSON ``machine`` fields)."""
    return {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.platform()}",
        "python": platform.python_version(),
        "numpy": np.__version__,
    }


def machine_sentence(document: dict[str, Any], note: str) -> str:
    """One Markdown sentence: machine, versions and the load at start and end, then *note*."""
    return (
        f"Machine: {document['machine']}, Python {document['python']}, numpy "
        f"{document['numpy']}; load average {document['load_start']} at start, "
        f"{document['load_end']} at end ({note})."
    )


def write(out: str | os.PathLike[str], document: dict[str, Any], markdown: str) -> None:
    """Write *document* as ``out.json`` and *markdown* as ``out.md``."""
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.with_suffix(".json").write_text(json.dumps(document, indent=1) + "\n")
    path.with_suffix(".md").write_text(markdown)
