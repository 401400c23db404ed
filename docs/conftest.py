"""pytest collection rules for docs/.

The survey's reproduction modules (``docs/backends/*_repro.py``) import the
library they reproduce, which may not be installed: they are run by
``tests/test_survey_reproductions.py`` (skipped there with a reason when the
library is absent), never imported by ``--doctest-modules``.
"""

collect_ignore_glob = ["backends/*_repro.py"]
