"""Shared test configuration: hypothesis profiles.

``ci`` (the default) is derandomized so CI never flakes; ``dev`` searches
randomly with more examples and keeps a local example database; select one
with ``--hypothesis-profile NAME``.
"""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=500, deadline=None)
settings.register_profile("thorough", max_examples=5000, deadline=None)
settings.load_profile("ci")
