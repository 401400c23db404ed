"""A mutant: the CPU backend with one fault, as a record and as a backend class.

A :class:`Mutant` is data: its *name*, the *operations* it breaks, the *fault*
(one sentence) and how the fault is injected -- replacement *kernels*
(operation -> kernel, :func:`kernel_fault`) or a replacement ``execute``
(:func:`execute_fault`, for the private promotion tables and the allocation
fault, which act before any kernel is chosen).  :func:`backend_class` turns a
record into a :class:`MutantBackend` subclass, once per record, so every module
that exposes the mutant (``conformance.mutants``, ``conformance.mutants.result``,
``conformance.result_mutants``) hands out the same class.

This module is the machinery the fault modules import; it knows no fault and
no catalogue.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from backends.cpu import KERNELS, CPUBackend

__all__ = [
    "PUBLIC_MODULE",
    "Execute",
    "Kernel",
    "Mutant",
    "MutantBackend",
    "backend_class",
    "execute_fault",
    "kernel_fault",
]

#: the module whose attribute every mutant backend class is (``conformance.mutants:NAME``)
PUBLIC_MODULE = "conformance.mutants"

#: ``kernel(backend, plan, *operands)`` (the CPU backend's kernel signature)
Kernel = Callable[..., Any]
#: ``execute(backend, operation, args, accumulator_dtype, options)``
Execute = Callable[["MutantBackend", str, tuple[Any, ...], Any, Any], Any]


@dataclass(frozen=True)
class Mutant:
    """One faulty backend: its *name*, the *operations* it breaks and the *fault*.

    Exactly one of *kernels* (operation -> replacement kernel, as pairs) and
    *execute* (a replacement of ``CPUBackend.execute``) injects the fault.
    """

    name: str
    operations: tuple[str, ...]
    fault: str
    kernels: tuple[tuple[str, Kernel], ...] = ()
    execute: Execute | None = None

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise ValueError(f"mutant name {self.name!r} is not a Python identifier")
        if not self.operations:
            raise ValueError(f"mutant {self.name}: no operation")
        if bool(self.kernels) == (self.execute is not None):
            raise ValueError(f"mutant {self.name}: give replacement kernels or an execute, one")


def kernel_fault(name: str, operation: str, fault: str, kernel: Kernel) -> Mutant:
    """The mutant whose kernel of *operation* is *kernel*."""
    return Mutant(name, (operation,), fault, ((operation, kernel),))


def execute_fault(name: str, operations: tuple[str, ...], fault: str, execute: Execute) -> Mutant:
    """The mutant whose ``execute`` is *execute* (it breaks *operations*)."""
    return Mutant(name, operations, fault, execute=execute)


class MutantBackend(CPUBackend):
    """The CPU backend with the kernels (or ``execute``) of one :class:`Mutant`."""

    mutant: Mutant

    def execute(
        self, operation: str, *args: Any, accumulator_dtype: Any = None, options: Any = None
    ) -> Any:
        override = self.mutant.execute
        if override is not None:
            return override(self, operation, args, accumulator_dtype, options)
        return super().execute(
            operation, *args, accumulator_dtype=accumulator_dtype, options=options
        )

    def correct_execute(
        self, operation: str, args: Any, accumulator_dtype: Any = None, options: Any = None
    ) -> Any:
        """The CPU backend's own ``execute`` (for an ``execute`` fault's other calls)."""
        return CPUBackend.execute(
            self, operation, *args, accumulator_dtype=accumulator_dtype, options=options
        )


@functools.cache
def backend_class(mutant: Mutant) -> type[MutantBackend]:
    """The backend class of *mutant* (the same class on every call).

    Its name is the mutant's, its backend name ``mutant:NAME``, and it claims
    to live in :data:`PUBLIC_MODULE` (which exposes it, so it pickles).
    """
    return type(
        mutant.name,
        (MutantBackend,),
        {
            "name": f"mutant:{mutant.name}",
            "mutant": mutant,
            "kernels": {**KERNELS, **dict(mutant.kernels)},
            "__doc__": f"Mutant {mutant.name} ({', '.join(mutant.operations)}): {mutant.fault}",
            "__module__": PUBLIC_MODULE,
            "__qualname__": mutant.name,
        },
    )
