"""The finding classes only the backend host observes, and the rule each breaks.

The host (:mod:`conformance.host.server`, :mod:`conformance.host.fpenv`) reports, beside
a call's reply, what the call did to its process and its result's memory; the judge
turns each into a finding (:func:`conformance.judge.checker.host_findings`).  This
module is the vocabulary of those classes, so a known-deviations file can name every
class a report prints (:func:`conformance.findings.finding.class_spelling_problem`):

``fp-environment:<what>``
    the call left the floating-point environment changed: ``flush-to-zero``,
    ``denormals-are-zero``, ``rounding-upward``, ``rounding-downward``,
    ``rounding-toward-zero`` (the three IEEE 754 rounding directions besides
    roundTiesToEven);
``numpy-state:<what>``
    the call left numpy's error state changed (``error-state``) or replaced one of
    numpy's public functions (``patched``);
``result-changed-after-return``, ``result-aliases-input``, ``result-aliases-earlier-result``
    a result changed after the call returned it, or shares memory with an input or an
    earlier result.
"""

from __future__ import annotations

__all__ = ["HOST_CLASSES", "HOST_PARTS", "HOST_RULES"]

#: the rule each family of host finding class breaks (the family: the part before ``:``)
HOST_RULES = {
    "fp-environment": "a backend leaves the floating-point environment as it found it "
    "(round to nearest, gradual underflow)",
    "numpy-state": "a backend leaves numpy's error state and functions as it found them",
    "result-changed-after-return": "a result never changes after the call returned it",
    "result-aliases-input": "a result shares no memory with the call's inputs",
    "result-aliases-earlier-result": "a result shares no memory with an earlier result",
}

#: what follows ``family:`` in the families that name a part
HOST_PARTS = {
    "fp-environment": (
        "flush-to-zero", "denormals-are-zero",
        *(f"rounding-{direction}" for direction in ("upward", "downward", "toward-zero")),
    ),
    "numpy-state": ("error-state", "patched"),
}  # fmt: skip

#: every host finding class, as reports print it
HOST_CLASSES = tuple(
    f"{family}:{part}" if family in HOST_PARTS else family
    for family in HOST_RULES
    for part in HOST_PARTS.get(family, ("",))
)
