"""No tracked file names a path of one particular machine (issue 32, item 4).

A checkout may live anywhere: a test, a default or a document that reads a home
directory or a build machine's work folder works on that machine only (the survey's
word-for-word quoting test read the specification from such a path and skipped
everywhere else).  Paths are found as whole components: a home directory, root's
home, or the work folder of the machines plancheck was built on.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: an absolute path starting at a home directory or a machine's work folder (not part of
#: a longer path, a URL or ~: no word character, dot, slash or tilde just before it)
MACHINE_PATH = re.compile(rb"(?<![\w./~-])/(?:work|root|home/[a-z_][\w.-]*)/")

#: files still naming such a path when this test came (issue 32, phase 1): their owners
#: were editing them; phase 2 fixes each and removes it from this list, which only shrinks
PENDING: set[str] = set()  # every file once listed here was made relative


def _tracked_files() -> list[str]:
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        ).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.skip(f"not a git checkout with git available: {error}")
    return [name.decode() for name in listed.split(b"\0") if name]


def _naming_machine_paths() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for name in _tracked_files():
        path = ROOT / name
        if path == Path(__file__).resolve():  # its examples of what the pattern finds
            continue
        if not path.is_file():  # deleted in the working tree
            continue
        hits = [m.group().decode() for m in MACHINE_PATH.finditer(path.read_bytes())]
        if hits:
            found[name] = hits
    return found


def test_no_tracked_file_names_a_path_of_one_machine() -> None:
    found = _naming_machine_paths()
    new = {name: hits[:3] for name, hits in found.items() if name not in PENDING}
    assert new == {}, "paths of one machine in tracked files (make them relative)"


def test_the_pending_list_only_names_files_that_still_need_the_fix() -> None:
    found = _naming_machine_paths()
    assert sorted(PENDING - found.keys()) == [], "fixed: remove them from PENDING"


@pytest.mark.parametrize(
    ("text", "machine"),
    [
        (b'SPEC = Path("/work/shared/spec")', True),
        (b"default=Path('/root/.cache')", True),
        (b"see /home/alice/notes", True),
        (b"https://example.org/work/x and docs/work/x", False),
        (b"../shared/spec and ~/work/", False),
    ],
)
def test_the_pattern_finds_machine_paths_not_relative_ones(text: bytes, machine: bool) -> None:
    assert bool(MACHINE_PATH.search(text)) is machine
