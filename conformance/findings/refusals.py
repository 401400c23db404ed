"""Naming an unexpected exception: the feature the backend refused, or what it raised.

A call that raises where a result was due is first classed ``raises-<Exception>``
(what happened), with the capability features it needs
(:func:`conformance.model.capabilities.features_of`).  When the check is over, a
feature counts as *refused* when every call of the check that needed it and was
due a result raised, one of them needing that feature alone
(:func:`refusal_evidence`): then the backend does not support it, and the calls
are classed under the feature (``add@zero-size``), the spelling the triage
workflow declares with ``--unsupported``.  A feature some call needing it got a
result for was not refused, so an exception on another call needing it is not
named after it: a convolution that refuses negative padding but computes strided
and positively padded windows is ``conv_general@raises-ValueError``, never
``@conv-stride``.  The run's grouping
(:func:`conformance.findings.finding.group`) weighs the evidence of every check
of the operation: a feature some check got a result for is refused nowhere, and
a ``raises-`` class whose calls all need a feature refused elsewhere joins it.

A call needing several refused features is classed under the first of them in
:data:`~conformance.model.capabilities.FEATURES` order.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from conformance.model.capabilities import IMPLIES, features_of, first_feature

__all__ = ["former_class", "refusal_class", "refusal_evidence"]


def refusal_evidence(
    due: Iterable[object], raised: Collection[object]
) -> tuple[frozenset[str], frozenset[str]]:
    """``(refused, supported)`` from *due* (the calls a result was due for) and
    *raised* (those of them that raised instead).

    *supported*: the features some call needing them got a result for.  *refused*:
    the features every call needing them raised on, one of those calls needing no
    other feature (a feature another implies does not count: a negative padding is
    always a nonzero one) -- so an exception whose cause lies elsewhere is not pinned
    on a feature that merely came along.
    """
    every: dict[str, bool] = {}
    alone: set[str] = set()
    for call in due:
        refused = call in raised
        features = features_of(call)  # type: ignore[arg-type]
        for feature in features:
            every[feature] = every.get(feature, True) and refused
        # a feature another one implies (conv-padding beside conv-negative-padding) came
        # along: the call needs the narrower one alone
        essential = features - {IMPLIES[f] for f in features if f in IMPLIES}
        if refused and len(essential) == 1:
            alone |= essential
    supported = frozenset(feature for feature, all_raised in every.items() if not all_raised)
    return frozenset(alone) - supported, supported


def refusal_class(features: Iterable[str], refused: Collection[str], exception: str) -> str:
    """The class of an unexpected exception of type *exception* on a call needing
    *features*: the first refused one, else ``raises-<exception>``."""
    named = first_feature(f for f in features if f in refused)
    return named if named is not None else f"raises-{exception}"


def former_class(features: Iterable[str]) -> str | None:
    """The class an unexpected exception on a call needing *features* had before
    refusals were measured (the call's first feature, whether refused or not): a
    known-deviation entry spelt so that now finds a ``raises-<Exception>`` class
    in its place names the class by its old spelling."""
    return first_feature(features)
