"""``conformance.result_mutants:NAME`` (the documented spelling of a result mutant).

The result mutants live in :mod:`conformance.mutants.result`; every name is
looked up there, so ``--backend conformance.result_mutants:NAME`` keeps working.
"""

from typing import Any

from conformance.mutants import result as _result

__all__ = list(_result.__all__)


def __getattr__(name: str) -> Any:
    return getattr(_result, name)
