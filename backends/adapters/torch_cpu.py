"""PyTorch as a plancheck backend: ``"torch"`` (the CPU), ``"torch:cpu"``, ``"torch:cuda"``.

The adapter measures torch, not itself: the central planner decides every
dtype (:class:`backends.dispatch.KernelBackend`), and each kernel then calls
the torch operation a torch user would write for that plan.  Whatever torch
does differently from the reference is left in place, so the conformance
report shows it as a deviation (``docs/backends/torch.md`` lists the ones
measured).

Native values
-------------
* A *tensor* is a ``torch.Tensor`` on the backend's device (the CPU, or the
  current CUDA device for ``TorchBackend(device="cuda")``), strided, of dtype
  ``torch.float32``, ``torch.int32`` or ``torch.bool`` (``DType.Float32``,
  ``DType.Int32``, ``DType.Bool``).  Anything else -- another dtype, another
  device, a sparse layout -- is a TypeError before planning.
  :meth:`TorchBackend.from_tensor` / :meth:`TorchBackend.to_tensor` exchange
  with :class:`oracle.Tensor` through numpy, bit for bit (signalling NaNs
  included), copying to and from the device.
* A *weak scalar* is a real Python number or numpy scalar.  Python ``int``,
  ``float``, ``bool`` and numpy scalars are handed to torch as they are (torch
  treats them as weak, like the planner); other reals (``Fraction``) have no
  torch form and are passed as ``float(value)``, which is what a torch user
  writes (a second rounding through binary64).
* Results are new ``torch.Tensor`` objects of the plan's output dtype.

Threads
-------
``TorchBackend()`` calls ``torch.set_num_threads(1)`` (process-wide; pass
``num_threads=None`` to leave torch's setting alone, or another count).  With
one thread torch's reductions, scans and matmul have one association order
for a given shape on every machine, so the published table is reproducible;
the conformance runner parallelises across processes (pytest-xdist), so
intra-op threads would only oversubscribe the cores.

Mapping (plan -> torch)
-----------------------
Tensor operands are first converted as the plan's ``convert_to`` says, with
torch's own cast (``x.to(torch.float32)`` for Int32 -> Float32).

* elementwise: ``torch.add/sub/mul/div``, ``torch.fmod`` (rem),
  ``torch.pow``, ``torch.maximum/minimum``, ``torch.eq/ne/lt/le``,
  ``torch.neg/abs/sign/sqrt/reciprocal/rsqrt/floor/ceil/round``,
  ``torch.exp/exp2/log/log2/sin/cos/tanh/erf/sigmoid``,
  ``torch.logical_not``, ``torch.relu``, ``torch.nn.functional.leaky_relu``
  (slope 0.01), ``elu`` (alpha 1), ``silu``, ``softplus`` (torch's defaults:
  beta 1, threshold 20) and ``gelu`` (``approximate="none"``, the erf form);
  ``torch.where`` (select); ``torch.clamp`` (a weak bound next to a tensor
  bound becomes a 0-d float32 tensor, since ``torch.clamp`` takes two
  tensors or two numbers).
* ``reduce_sum``: ``torch.sum(x, dim, keepdim)``; with a Float64 accumulator
  ``torch.sum(..., dtype=torch.float64).to(torch.float32)``; Int32 sums in
  torch's int64 and narrows with ``.to(torch.int32)``.  The axis and
  ``keepdims`` are passed as given, so ``axis=()`` reaches torch as ``dim=()``.
* ``reduce_prod``: ``torch.prod``, which reduces every dimension or one
  ``dim``: a tuple of several axes is moved last by ``torch.movedim`` (which
  judges the axes), flattened and reduced as one dim, in ascending axis order
  (data movement; the products are torch.prod's).  ``axis=()`` has no
  ``torch.prod`` form (NotMeasured), and neither has a ``keepdims`` other
  than True/False where the adapter, not torch, keeps the dimensions.
* ``reduce_max/min``: ``torch.amax/amin`` (``axis=None`` is torch's
  ``dim=()``, every dimension); ``argmax/argmin``: ``torch.argmax/argmin``
  then ``.to(torch.int32)``; ``cumsum``: ``torch.cumsum``.
* ``matmul``: ``torch.matmul`` (MKL sgemm for Float32, torch's integer
  kernel for Int32); a Float64 accumulator is
  ``torch.matmul(a.double(), b.double()).float()``.
* ``conv_general``: ``torch.nn.functional.conv1d/2d/3d`` with the stride,
  rhs dilation and groups as given; the lhs dilation by writing the input
  into a zero tensor at every ``lhs_dilation``-th position, the (asymmetric,
  possibly negative) padding by ``torch.nn.functional.pad`` -- torch's conv
  has neither argument, so only their well-formed values have a translation
  (:mod:`backends.adapters.translate`; any other is NotMeasured).  No
  spatial dimension is run as conv1d over a length-1 dimension; more than
  three spatial dimensions have no torch conv (NotMeasured).
* ``gather``: ``torch.index_select`` on the flattened indices, reshaped to
  the numpy ``take`` shape; ``scatter`` / ``scatter_add``:
  ``Tensor.index_copy_`` / ``Tensor.index_add_`` on a clone of the base, the
  index dimensions of the updates flattened into one (``Tensor.flatten``).
* ``_sort_values/_sort_indices``: ``torch.sort(stable=True)``;
  ``_topk_values/_topk_indices``: ``torch.topk(sorted=True)``; indices
  ``.to(torch.int32)``.

Errors
------
Planning errors are the planner's, raised before anything else.  After
that the adapter checks nothing (docs/adapter-policy.md): shapes that do not
broadcast, axes out of range or repeated, ``keepdims`` and flags that are not
bools, matmul and conv shapes, index ranges, ``k``, empty extremum
reductions -- torch judges each one, and its own exception (RuntimeError,
IndexError, TypeError) is what the report shows.  The allocation of a result
is counted when torch returns it, so an error torch raises is never an
"allocation before error".  Int32 arithmetic wraps instead of raising
OverflowError, and repeated scatter indices are accepted: torch's behaviour.

Known gaps of torch 2.13.0 and 2.15.0 (measured; docs/backends/torch.md lists
them, docs/backends/torch_repro.py reproduces each): Int32 arithmetic wraps; a
weak exponent of pow is used at double precision, not rounded to Float32
first; scatter accepts repeated indices; Python ints outside int64 (and clamp
bounds beyond float32) raise instead of rounding; ``dim=()`` reduces every
dimension; signed zeros are not ordered by
maximum/minimum/clamp/relu/amax/amin, and amax/amin lose NaN bits;
``sign(NaN)`` is 0; the vectorised ``fmod`` is wrong (NaN for ``fmod(1,
2**-149)``); ``sqrt`` is not correctly rounded; cumsum and conv are not
sequential binary32 and matmul does not round its products; topk is not
stable; the transcendental kernels are 1-2 ULP off; silu(-inf) and
(vectorised) gelu(+-inf) are NaN, silu and gelu of tiny inputs underflow to 0,
sigmoid and silu are 0 from x = -89 on and gelu from x = -6 on.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from oracle import Accumulation, DType, OperandRole, OperationPlan, Tensor

from ..dispatch import KernelBackend
from ..errors import BackendLoadError, NotMeasured
from .translate import bool_flag, int_value, padding_pairs, per_dimension

__all__ = ["KERNELS", "TorchBackend"]

_DTYPES: dict[torch.dtype, DType] = {
    torch.float32: DType.Float32,
    torch.int32: DType.Int32,
    torch.bool: DType.Bool,
}
_TORCH_DTYPES: dict[DType, torch.dtype] = {v: k for k, v in _DTYPES.items()}


# ---------------------------------------------------------------------------
# Operands
# ---------------------------------------------------------------------------


def _weak(value: Any) -> Any:
    """A weak scalar in the form torch takes (Python and numpy numbers as they are)."""
    if isinstance(value, (bool, int, float, np.generic)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    return float(value)


def _operand(plan: OperationPlan, position: int, value: Any) -> Any:
    """Operand *position* in the plan's ``convert_to`` dtype (torch's cast)."""
    operand = plan.operands[position]
    if operand.role is OperandRole.WEAK_SCALAR:
        return _weak(value)
    target = _TORCH_DTYPES[operand.convert_to]
    return value if value.dtype == target else value.to(target)


# ---------------------------------------------------------------------------
# Elementwise
# ---------------------------------------------------------------------------

#: unary operation -> torch function
UNARY: dict[str, Any] = {
    "abs": torch.abs,
    "ceil": torch.ceil,
    "cos": torch.cos,
    "elu": F.elu,
    "erf": torch.erf,
    "exp": torch.exp,
    "exp2": torch.exp2,
    "floor": torch.floor,
    "gelu": F.gelu,
    "leaky_relu": lambda x: F.leaky_relu(x, 0.01),
    "log": torch.log,
    "log2": torch.log2,
    "logical_not": torch.logical_not,
    "neg": torch.neg,
    "recip": torch.reciprocal,
    "relu": torch.relu,
    "round": torch.round,
    "rsqrt": torch.rsqrt,
    "sigmoid": torch.sigmoid,
    "sign": torch.sign,
    "silu": F.silu,
    "sin": torch.sin,
    "softplus": F.softplus,
    "sqrt": torch.sqrt,
    "tanh": torch.tanh,
}

#: binary operation -> torch function
BINARY: dict[str, Any] = {
    "add": torch.add,
    "sub": torch.sub,
    "mul": torch.mul,
    "elementwise_mul": torch.mul,
    "div": torch.div,
    "rem": torch.fmod,
    "pow": torch.pow,
    "maximum": torch.maximum,
    "minimum": torch.minimum,
    "eq": torch.eq,
    "ne": torch.ne,
    "lt": torch.lt,
    "le": torch.le,
}


def _done(backend: TorchBackend, result: Any) -> Any:
    """Count the result torch handed back (after every check torch made) and return it."""
    backend.allocated()
    return result


def _unary_kernel(function: Any) -> Any:
    def kernel(backend: TorchBackend, plan: OperationPlan, x: Any) -> torch.Tensor:
        return _done(backend, function(_operand(plan, 0, x)))

    return kernel


def _binary_kernel(function: Any) -> Any:
    def kernel(backend: TorchBackend, plan: OperationPlan, a: Any, b: Any) -> torch.Tensor:
        x, y = _operand(plan, 0, a), _operand(plan, 1, b)
        return _done(backend, function(x, y))

    return kernel


def select(
    backend: TorchBackend, plan: OperationPlan, cond: Any, on_true: Any, on_false: Any
) -> torch.Tensor:
    c, t, f = (_operand(plan, i, v) for i, v in enumerate((cond, on_true, on_false)))
    return _done(backend, torch.where(c, t, f))


def clamp(backend: TorchBackend, plan: OperationPlan, x: Any, lo: Any, hi: Any) -> torch.Tensor:
    v, low, high = (_operand(plan, i, a) for i, a in enumerate((x, lo, hi)))
    if isinstance(low, torch.Tensor) != isinstance(high, torch.Tensor):
        # torch.clamp takes two tensor bounds or two number bounds
        if not isinstance(low, torch.Tensor):
            low = torch.tensor(low, dtype=torch.float32, device=v.device)
        else:
            high = torch.tensor(high, dtype=torch.float32, device=v.device)
    return _done(backend, torch.clamp(v, low, high))


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------


def reduce_sum(
    backend: TorchBackend, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> torch.Tensor:
    v = _operand(plan, 0, x)
    if plan.accumulation is Accumulation.EXACT_INTEGER:
        wide = torch.sum(v, dim=axis, keepdim=keepdims)  # torch sums int32 in int64
        return _done(backend, wide.to(torch.int32))  # narrowed: wraps
    if plan.accumulator_dtype is DType.Float64:
        wide = torch.sum(v, dim=axis, keepdim=keepdims, dtype=torch.float64)
        return _done(backend, wide.to(torch.float32))
    return _done(backend, torch.sum(v, dim=axis, keepdim=keepdims))


def reduce_prod(
    backend: TorchBackend, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> torch.Tensor:
    """``torch.prod`` (all dimensions, or one ``dim``); a tuple of several axes is moved
    last by ``torch.movedim`` (which judges the axes), flattened, and reduced as one dim."""
    v = _operand(plan, 0, x)
    if not isinstance(axis, tuple) and axis is not None:
        return _done(backend, torch.prod(v, dim=axis, keepdim=keepdims))
    if isinstance(axis, tuple) and len(axis) == 1:
        return _done(backend, torch.prod(v, dim=axis[0], keepdim=keepdims))
    if isinstance(axis, tuple) and not axis:
        raise NotMeasured(
            f"{plan.operation}: torch.prod has no form that reduces no dimension (axis=()): "
            f"not measured"
        )
    keep = bool_flag(keepdims)  # the reshape below is the adapter's: a real flag only
    if keep is None:
        raise NotMeasured(
            f"{plan.operation}: torch.prod of every dimension or of several has no keepdim "
            f"argument; the adapter keeps dimensions for keepdims True or False only, not "
            f"{type(keepdims).__name__}: not measured"
        )
    if axis is None:
        result = torch.prod(v)
        return _done(backend, result.reshape((1,) * v.ndim) if keep else result)
    last = tuple(range(v.ndim - len(axis), v.ndim))
    torch.movedim(v, axis, last)  # torch's own check of the axes (range, repeats, type)
    dims = sorted(int(a) % v.ndim for a in axis)  # ascending: the logical order of the terms
    kept = [d for d in range(v.ndim) if d not in dims]
    flat = torch.movedim(v, dims, last).reshape(*(v.shape[d] for d in kept), -1)
    result = torch.prod(flat, dim=-1)
    if keep:
        result = result.reshape([1 if d in dims else n for d, n in enumerate(v.shape)])
    return _done(backend, result)


def _extreme(
    backend: TorchBackend, plan: OperationPlan, x: Any, axis: Any, keepdims: Any, function: Any
) -> torch.Tensor:
    v = _operand(plan, 0, x)
    dim = () if axis is None else axis  # torch.amax/amin spell "every dimension" dim=()
    return _done(backend, function(v, dim=dim, keepdim=keepdims))


def reduce_max(
    backend: TorchBackend, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> torch.Tensor:
    return _extreme(backend, plan, x, axis, keepdims, torch.amax)


def reduce_min(
    backend: TorchBackend, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> torch.Tensor:
    return _extreme(backend, plan, x, axis, keepdims, torch.amin)


def _arg(
    backend: TorchBackend, plan: OperationPlan, x: Any, axis: Any, function: Any
) -> torch.Tensor:
    v = _operand(plan, 0, x)
    return _done(backend, function(v, dim=axis).to(torch.int32))


def argmax(backend: TorchBackend, plan: OperationPlan, x: Any, axis: Any = None) -> torch.Tensor:
    return _arg(backend, plan, x, axis, torch.argmax)


def argmin(backend: TorchBackend, plan: OperationPlan, x: Any, axis: Any = None) -> torch.Tensor:
    return _arg(backend, plan, x, axis, torch.argmin)


def cumsum(backend: TorchBackend, plan: OperationPlan, x: Any, axis: Any) -> torch.Tensor:
    return _done(backend, torch.cumsum(_operand(plan, 0, x), dim=axis))


# ---------------------------------------------------------------------------
# matmul / conv_general
# ---------------------------------------------------------------------------


def matmul(backend: TorchBackend, plan: OperationPlan, a: Any, b: Any) -> torch.Tensor:
    x, y = _operand(plan, 0, a), _operand(plan, 1, b)
    if plan.accumulator_dtype is DType.Float64:
        return _done(backend, torch.matmul(x.double(), y.double()).float())
    return _done(backend, torch.matmul(x, y))


_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def conv_general(
    backend: TorchBackend,
    plan: OperationPlan,
    lhs: Any,
    rhs: Any,
    window_strides: Any = None,
    padding: Any = None,
    lhs_dilation: Any = None,
    rhs_dilation: Any = None,
    feature_group_count: Any = 1,
) -> torch.Tensor:
    """``F.conv1d/2d/3d`` (stride, dilation and groups as given); the per-side padding and
    the input dilation, which torch's conv has no argument for, by moving data."""
    spatial = lhs.ndim - 2
    if spatial > 3:
        raise NotMeasured(
            f"{plan.operation}: torch has no convolution over {spatial} spatial dimensions: "
            f"not measured"
        )
    x, w = _operand(plan, 0, lhs), _operand(plan, 1, rhs)
    if spatial < 0:  # no batch and channel dimensions: torch's conv judges the ranks
        return _done(backend, F.conv1d(x, w))
    pads = padding_pairs("torch", padding, spatial)
    spread = per_dimension("torch", "lhs_dilation", lhs_dilation, spatial)
    if spatial == 0:  # a 1x1 convolution over a length-1 dimension (torch has no conv0d)
        per_dimension("torch", "window_strides", window_strides, 0)
        per_dimension("torch", "rhs_dilation", rhs_dilation, 0)
        one = F.conv1d(x[..., None], w[..., None], groups=feature_group_count)
        return _done(backend, one[..., 0])
    ones = (1,) * spatial
    strides = ones if window_strides is None else window_strides
    dilation = ones if rhs_dilation is None else rhs_dilation
    x = _torch_padded(_torch_spread(x, spread), pads)
    result = _CONV[spatial](x, w, stride=strides, dilation=dilation, groups=feature_group_count)
    return _done(backend, result)


def _torch_spread(x: torch.Tensor, spread: tuple[int, ...]) -> torch.Tensor:
    """*x* with ``d - 1`` zeros between neighbours along spatial dimension i (d = spread[i])."""
    if all(d == 1 for d in spread):
        return x
    shape = [*x.shape[:2]]
    index: list[slice] = [slice(None), slice(None)]
    for n, d in zip(x.shape[2:], spread):
        shape.append((n - 1) * d + 1 if n else 0)
        index.append(slice(None, None, d))
    out = torch.zeros(shape, dtype=x.dtype, device=x.device)
    out[tuple(index)] = x
    return out


def _torch_padded(x: torch.Tensor, pads: tuple[tuple[int, int], ...]) -> torch.Tensor:
    """*x* padded with zeros (a negative width crops: ``F.pad``'s own meaning)."""
    if all(p == (0, 0) for p in pads):
        return x
    widths: list[int] = []
    for low, high in reversed(pads):  # F.pad takes the last dimension first
        widths += [low, high]
    return F.pad(x, widths)


# ---------------------------------------------------------------------------
# gather / scatter / scatter_add
# ---------------------------------------------------------------------------


def _position(axis: Any, ndim: int) -> int | None:
    """*axis* as a dimension in ``[0, ndim)`` when it is an int in range, else None (the
    torch call that receives the raw axis judges it)."""
    at = int_value(axis)
    return at % ndim if at is not None and -ndim <= at < ndim else None


def gather(
    backend: TorchBackend, plan: OperationPlan, data: Any, indices: Any, axis: Any
) -> torch.Tensor:
    """``torch.index_select`` on the flattened indices, reshaped to the numpy ``take`` shape."""
    d, i = _operand(plan, 0, data), _operand(plan, 1, indices)
    selected = torch.index_select(d, axis, i.reshape(-1))  # torch judges axis and indices
    at = _position(axis, d.ndim)
    if at is None:  # torch accepted an axis of another form: its result as it is
        return _done(backend, selected)
    return _done(backend, selected.reshape((*d.shape[:at], *i.shape, *d.shape[at + 1 :])))


def _scatter_operands(
    plan: OperationPlan, base: Any, indices: Any, updates: Any, axis: Any
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Base, flat indices, and the updates with the index dimensions flattened into one at
    *axis* (``Tensor.flatten``); torch's ``index_copy_``/``index_add_`` judge the rest."""
    b, i, u = (_operand(plan, p, v) for p, v in enumerate((base, indices, updates)))
    at = _position(axis, b.ndim)
    if at is not None and i.ndim == 0:
        u = u.unsqueeze(at)
    elif at is not None and i.ndim > 1 and u.ndim >= at + i.ndim:
        u = u.flatten(at, at + i.ndim - 1)
    return b, i.reshape(-1), u


def scatter(
    backend: TorchBackend, plan: OperationPlan, base: Any, indices: Any, updates: Any, axis: Any
) -> torch.Tensor:
    b, flat, source = _scatter_operands(plan, base, indices, updates, axis)
    # index_copy_ takes int64 indices only
    return _done(backend, b.clone().index_copy_(axis, flat.long(), source))


def scatter_add(
    backend: TorchBackend, plan: OperationPlan, base: Any, indices: Any, updates: Any, axis: Any
) -> torch.Tensor:
    b, flat, source = _scatter_operands(plan, base, indices, updates, axis)
    return _done(backend, b.clone().index_add_(axis, flat, source))


# ---------------------------------------------------------------------------
# sort / topk (the private plans behind the framework's sort and topk)
# ---------------------------------------------------------------------------


def _sort(
    backend: TorchBackend, plan: OperationPlan, x: Any, axis: Any, descending: Any, values: bool
) -> torch.Tensor:
    v = _operand(plan, 0, x)
    result = torch.sort(v, dim=axis, descending=descending, stable=True)
    return _done(backend, result.values if values else result.indices.to(torch.int32))


def sort_values(
    backend: TorchBackend, plan: OperationPlan, x: Any, axis: Any = -1, descending: Any = False
) -> torch.Tensor:
    return _sort(backend, plan, x, axis, descending, values=True)


def sort_indices(
    backend: TorchBackend, plan: OperationPlan, x: Any, axis: Any = -1, descending: Any = False
) -> torch.Tensor:
    return _sort(backend, plan, x, axis, descending, values=False)


def _topk(
    backend: TorchBackend,
    plan: OperationPlan,
    x: Any,
    k: Any,
    axis: Any,
    largest: Any,
    values: bool,
) -> torch.Tensor:
    v = _operand(plan, 0, x)
    result = torch.topk(v, k, dim=axis, largest=largest, sorted=True)
    return _done(backend, result.values if values else result.indices.to(torch.int32))


def topk_values(
    backend: TorchBackend, plan: OperationPlan, x: Any, k: Any, axis: Any = -1, largest: Any = True
) -> torch.Tensor:
    return _topk(backend, plan, x, k, axis, largest, values=True)


def topk_indices(
    backend: TorchBackend, plan: OperationPlan, x: Any, k: Any, axis: Any = -1, largest: Any = True
) -> torch.Tensor:
    return _topk(backend, plan, x, k, axis, largest, values=False)


#: operation name -> kernel, every registered operation
KERNELS: dict[str, Any] = {
    **{name: _unary_kernel(function) for name, function in UNARY.items()},
    **{name: _binary_kernel(function) for name, function in BINARY.items()},
    "select": select,
    "clamp": clamp,
    "reduce_sum": reduce_sum,
    "reduce_prod": reduce_prod,
    "reduce_max": reduce_max,
    "reduce_min": reduce_min,
    "argmax": argmax,
    "argmin": argmin,
    "cumsum": cumsum,
    "matmul": matmul,
    "conv_general": conv_general,
    "gather": gather,
    "scatter": scatter,
    "scatter_add": scatter_add,
    "_sort_values": sort_values,
    "_sort_indices": sort_indices,
    "_topk_values": topk_values,
    "_topk_indices": topk_indices,
}


class TorchBackend(KernelBackend):
    """PyTorch execution of the central plans on one device.

    *device* is ``"cpu"`` (backend name ``"torch"``) or ``"cuda"`` (backend
    name ``"torch:cuda"``, torch's current CUDA device); an absent device is
    a :class:`~backends.errors.BackendLoadError`.  *num_threads* is handed to
    ``torch.set_num_threads`` (process-wide, CPU kernels); None leaves
    torch's thread count as it is.
    """

    name = "torch"
    kernels = KERNELS
    library = "torch"
    #: torch has a function for every operation: nothing is composed
    composed_operations: Mapping[str, str] = {}

    def __init__(self, num_threads: int | None = 1, device: str = "cpu") -> None:
        super().__init__()
        self.device = _device(device)
        if self.device.type != "cpu":
            self.name = f"torch:{self.device.type}"
        if num_threads is not None:
            torch.set_num_threads(num_threads)
        self.num_threads = torch.get_num_threads()
        #: what reports record as this backend's version (``backend_versions``)
        self.version = (
            f"torch {torch.__version__} ({self.device.type}, {self.num_threads} "
            f"thread{'s' if self.num_threads != 1 else ''})"
        )

    def dtype_of(self, value: Any) -> DType | None:
        """The dtype of a native tensor; None for anything that is not a torch tensor.

        A tensor of another dtype, on another device type or with a
        non-strided layout is a TypeError.
        """
        if not isinstance(value, torch.Tensor):
            return None
        dtype = _DTYPES.get(value.dtype)
        if dtype is None:
            raise TypeError(
                f"the torch backend holds float32, int32 and bool tensors; got {value.dtype}"
            )
        if value.device.type != self.device.type or value.layout is not torch.strided:
            raise TypeError(
                f"the {self.name} backend holds strided {self.device.type} tensors; got one "
                f"on {value.device} with layout {value.layout}"
            )
        return dtype

    def from_tensor(self, tensor: Tensor) -> torch.Tensor:
        """*tensor* as a new torch tensor on the device, bit for bit."""
        if not isinstance(tensor, Tensor):
            raise TypeError(f"expected an oracle.Tensor, got {type(tensor).__name__}")
        return torch.from_numpy(tensor.to_numpy()).to(self.device)

    def from_numpy(self, array: np.ndarray) -> torch.Tensor:
        """The optional fast exchange (``backends/protocol.py``): a copy, bits kept."""
        return torch.from_numpy(np.array(array, copy=True)).to(self.device)

    def to_numpy(self, native: Any) -> np.ndarray:
        """*native* as a new numpy array, bits kept (TypeError for anything else)."""
        if not isinstance(native, torch.Tensor):
            raise TypeError(f"expected a torch.Tensor, got {type(native).__name__}")
        self.dtype_of(native)
        return native.detach().cpu().numpy().copy()

    def to_tensor(self, native: Any) -> Tensor:
        if not isinstance(native, torch.Tensor):
            raise TypeError(f"expected a torch.Tensor, got {type(native).__name__}")
        self.dtype_of(native)
        return Tensor.from_numpy(native.detach().cpu().numpy())


def _device(name: str) -> torch.device:
    """The torch device *name* ("cpu" or "cuda"), or BackendLoadError when it is absent."""
    if name == "cpu":
        return torch.device("cpu")
    if name != "cuda":
        raise ValueError(f"the torch backend runs on 'cpu' or 'cuda', not {name!r}")
    if not torch.cuda.is_available():
        build = torch.version.cuda or "none (a CPU-only build)"
        raise BackendLoadError(
            f"torch:cuda: torch {torch.__version__} sees no CUDA device "
            f"(torch.cuda.is_available() is False; CUDA of this build: {build}); "
            f"use torch:cpu, or install a CUDA build of torch on a machine with a GPU"
        )
    return torch.device("cuda", torch.cuda.current_device())
