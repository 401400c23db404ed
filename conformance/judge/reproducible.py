"""The same seed, the same calls: hypothesis searches independent of what is imported.

Hypothesis (6.131 and later) mixes *local constants* into its draws: every
number and string literal of every module imported from outside site-packages
and the standard library.  Which modules those are depends on how plancheck
was started -- ``plancheck run`` imports its CLI before pytest, an xdist worker
imports less, a source checkout makes plancheck's own modules "local" where a
wheel does not, and a user's backend module is local too -- so the ci profile's
derandomized search drew other calls in each (161 examples of one plan set
through ``plancheck run``, 160 through ``pytest -n``; issue 22, item 7).

:func:`without_local_constants` runs a search with an empty pool of local
constants: the calls then depend only on the seed (or the derandomized digest),
the plan and plancheck's own strategies, whatever was imported.  Hypothesis'
global constants (its built-in interesting values) are kept.  The hook is
hypothesis' internal ``_get_local_constants``; a hypothesis without it (before
local constants existed) needs nothing.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from hypothesis.internal.conjecture import providers

__all__ = ["without_local_constants"]

_LOCK = threading.Lock()


@contextlib.contextmanager
def without_local_constants() -> Iterator[None]:
    """Within the block, hypothesis draws no constant from imported local modules."""
    original = getattr(providers, "_get_local_constants", None)
    constants = getattr(providers, "Constants", None)
    if original is None or constants is None:
        yield
        return
    empty = constants()
    with _LOCK:
        providers._get_local_constants = lambda: empty
        providers.CONSTANTS_CACHE.cache.clear()  # filled from the pool it was given
    try:
        yield
    finally:
        with _LOCK:
            providers._get_local_constants = original
            providers.CONSTANTS_CACHE.cache.clear()
