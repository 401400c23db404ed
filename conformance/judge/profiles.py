"""Profiles: how hard the suite searches (examples per plan, corpus level, randomness).

``ci`` is derandomized, with no database and few examples; ``dev`` is random with a
local database (``.hypothesis/plancheck``); ``thorough`` has many examples and the
level-2 corpus.  Each is also a hypothesis settings profile, ``plancheck-NAME``.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, Phase, settings
from hypothesis.database import DirectoryBasedExampleDatabase

__all__ = ["PROFILES", "Profile"]


# ---------------------------------------------------------------------------
# Profiles
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Profile:
    """How hard the suite searches: examples per plan and corpus level."""

    name: str
    max_examples: int  #: generated valid calls per (backend, plan)
    invalid_examples: int  #: generated invalid calls per (backend, plan)
    corpus_level: int
    derandomize: bool
    database: bool

    def settings(self, examples: int, shrink: bool = True, key: str = "") -> settings:
        phases = [Phase.explicit, Phase.reuse, Phase.generate, Phase.target]
        if shrink:
            phases.append(Phase.shrink)
        database = None
        if self.database:
            database = DirectoryBasedExampleDatabase(".hypothesis/plancheck")
        return settings(
            max_examples=examples,
            derandomize=self.derandomize,
            database=database,
            deadline=None,
            phases=phases,
            suppress_health_check=list(HealthCheck),
            report_multiple_bugs=False,
            print_blob=False,
        )


PROFILES: dict[str, Profile] = {
    "ci": Profile("ci", max_examples=20, invalid_examples=8, corpus_level=1,
                  derandomize=True, database=False),
    "dev": Profile("dev", max_examples=100, invalid_examples=40, corpus_level=1,
                   derandomize=False, database=True),
    "thorough": Profile("thorough", max_examples=1000, invalid_examples=300, corpus_level=2,
                        derandomize=False, database=True),
}  # fmt: skip

for _profile in PROFILES.values():  # usable as --hypothesis-profile plancheck-NAME too
    settings.register_profile(
        f"plancheck-{_profile.name}", _profile.settings(_profile.max_examples)
    )
