"""The committed certification evidence counts for the code on main.

``docs/accuracy/state.jsonl`` is the evidence behind the README's claim that
every unary plan is certified on the CPU backend.  Its records carry a digest
of the reference code and the library versions of their plan, so a change to
the oracle, or other library versions, makes them stale: this test fails when
the code changed under them, and skips (naming the difference) where the
libraries are not the versions of ``docs/accuracy/constraints.txt``.
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest

from conformance.cli import main as cli_main
from conformance.exhaustive import plan_ids

ACCURACY = Path(__file__).resolve().parents[1] / "docs" / "accuracy"


def _pinned_versions() -> dict[str, str]:
    pins = {}
    for line in (ACCURACY / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, version = line.split("==")
            pins[name] = version
    return pins


def test_committed_certification_evidence_certifies_every_unary_plan(capsys):
    differ = {
        name: (version, metadata.version(name))
        for name, version in _pinned_versions().items()
        if metadata.version(name) != version
    }
    if differ:
        pytest.skip(
            "the evidence was made with other library versions: "
            + ", ".join(f"{n} {want} (installed {have})" for n, (want, have) in differ.items())
        )
    status = cli_main(["exhaustive", "--certification", "--state", str(ACCURACY / "state.jsonl")])
    out = capsys.readouterr()
    assert status == 0, out.out + out.err
    certified = [
        line.split("|")[1].strip() for line in out.out.splitlines() if "| **all 2**32** |" in line
    ]
    assert sorted(certified) == sorted(plan_ids())
