"""The shared dispatcher: resolve the plan once, then call the backend's kernel.

:class:`KernelBackend` implements ``execute`` for backends made of one kernel
per operation.  It picks the dtype-policy operands out of the forward
arguments by the operation's ``dtype_operand_positions``, describes each
native tensor to the planner by its dtype and each other value as itself (so
a weak scalar stays a weak scalar and anything else is refused by the
planner), resolves the plan through :func:`oracle.resolve_operation_plan` and
hands ``(plan, *args)`` to the kernel.  Kernels never decide a dtype.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from oracle import (
    DType,
    OperationExecutionOptions,
    OperationPlan,
    SimpleDType,
    get_operation,
    resolve_operation_plan,
)

__all__ = ["Kernel", "KernelBackend", "plan_call"]

#: A kernel: ``kernel(backend, plan, *forward_args) -> native result``.
Kernel = Callable[..., Any]


def plan_call(
    operation: str,
    args: Sequence[Any],
    dtype_of: Callable[[Any], DType | None],
    accumulator_dtype: SimpleDType | None = None,
    options: OperationExecutionOptions | None = None,
) -> OperationPlan:
    """Resolve the plan of ``operation(*args)``.

    *dtype_of* returns a native tensor's dtype descriptor, or None for a value
    that is not a native tensor of this backend.
    """
    operands = []
    for value in get_operation(operation).policy_operands(args):
        dtype = dtype_of(value)
        if dtype is None and isinstance(value, DType):
            # A bare descriptor is not a tensor of this backend.
            raise TypeError(
                f"{operation}: got the dtype descriptor {value!r} where a tensor or weak "
                f"scalar was expected"
            )
        operands.append(value if dtype is None else dtype)
    return resolve_operation_plan(
        operation, *operands, accumulator_dtype=accumulator_dtype, options=options
    )


class KernelBackend:
    """Base class: ``execute`` = central plan + this backend's kernel.

    Subclasses set ``name`` and ``kernels`` (operation name -> kernel) and
    implement ``dtype_of``, ``from_tensor`` and ``to_tensor``.  Kernels call
    :meth:`allocated` once per result allocation, which counts
    ``allocations``.
    """

    name: str = "abstract"
    kernels: ClassVar[Mapping[str, Kernel]] = {}

    def __init__(self) -> None:
        self.allocations = 0

    def dtype_of(self, value: Any) -> DType | None:
        raise NotImplementedError

    def check_operands(self, plan: OperationPlan, args: tuple[Any, ...]) -> None:
        """Refuse, after planning and before the kernel, operands this backend will not
        take (Generic's size limit); the default refuses nothing."""

    def allocated(self, count: int = 1) -> None:
        """Record *count* result allocations (observed by tests)."""
        self.allocations += count

    def plan(
        self,
        operation: str,
        *args: Any,
        accumulator_dtype: SimpleDType | None = None,
        options: OperationExecutionOptions | None = None,
    ) -> OperationPlan:
        """The central plan this backend executes for ``operation(*args)``."""
        return plan_call(operation, args, self.dtype_of, accumulator_dtype, options)

    def execute(
        self,
        operation: str,
        *args: Any,
        accumulator_dtype: SimpleDType | None = None,
        options: OperationExecutionOptions | None = None,
    ) -> Any:
        plan = self.plan(operation, *args, accumulator_dtype=accumulator_dtype, options=options)
        self.check_operands(plan, args)
        kernel = self.kernels.get(operation)
        if kernel is None:
            raise NotImplementedError(f"backend {self.name!r} has no kernel for {operation!r}")
        return kernel(self, plan, *args)
