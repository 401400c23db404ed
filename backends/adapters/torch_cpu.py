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
  torch's int64 and narrows with ``.to(torch.int32)``.  The axes are passed
  through, so ``axis=()`` reaches torch as ``dim=()``.
* ``reduce_prod``: ``torch.prod`` (one dim at a time only, so several axes
  are moved last, flattened and reduced as one dim); ``reduce_max/min``:
  ``torch.amax/amin``; ``argmax/argmin``: ``torch.argmax/argmin`` then
  ``.to(torch.int32)``; ``cumsum``: ``torch.cumsum``.
* ``matmul``: ``torch.matmul`` (MKL sgemm for Float32, torch's integer
  kernel for Int32); a Float64 accumulator is
  ``torch.matmul(a.double(), b.double()).float()``.
* ``conv_general``: ``torch.nn.functional.conv1d/2d/3d`` with stride,
  rhs dilation and groups; lhs dilation by writing the input into a zero
  tensor at every ``lhs_dilation``-th position, (asymmetric, possibly
  negative) padding by ``torch.nn.functional.pad``.  No spatial dimension is
  run as conv1d over a length-1 dimension; more than three spatial dimensions
  have no torch conv (NotImplementedError).
* ``gather``: ``torch.index_select`` on the flattened indices, reshaped to
  the numpy ``take`` shape; ``scatter`` / ``scatter_add``:
  ``Tensor.index_copy_`` / ``Tensor.index_add_`` on a clone of the base.
* ``_sort_values/_sort_indices``: ``torch.sort(stable=True)``;
  ``_topk_values/_topk_indices``: ``torch.topk(sorted=True)``; indices
  ``.to(torch.int32)``.

Errors
------
Planning errors are the planner's, raised before anything else.  The
argument checks torch itself performs (shapes that do not broadcast, axes out
of range, duplicate axes, matmul and conv shapes, index ranges, ``k``, empty
extremum reductions) are made first by the adapter with the reference's
exception classes (torch would raise RuntimeError or IndexError from inside
the call); the allocation of the result is counted just before the
computing torch call.  Checks torch does not make are not added: Int32
arithmetic wraps instead of raising OverflowError, and repeated scatter
indices are accepted.

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

import math
import numbers
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from oracle import Accumulation, DType, OperandRole, OperationPlan, Tensor
from oracle.conv_geometry import ConvGeometry, conv_geometry

from ..cpu.convert import normalise_axes, normalise_axis
from ..dispatch import KernelBackend
from ..errors import BackendLoadError
from ..parameters import read_flag, read_int

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


def _shape(value: Any) -> tuple[int, ...]:
    return tuple(value.shape) if isinstance(value, torch.Tensor) else ()


def _broadcast(operation: str, *values: Any) -> tuple[int, ...]:
    shapes = [_shape(v) for v in values]
    try:
        return tuple(torch.broadcast_shapes(*shapes))
    except RuntimeError:
        listed = ", ".join(str(s) for s in shapes)
        raise ValueError(f"{operation}: operand shapes {listed} do not broadcast") from None


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


def _unary_kernel(function: Any) -> Any:
    def kernel(backend: TorchBackend, plan: OperationPlan, x: Any) -> torch.Tensor:
        v = _operand(plan, 0, x)
        backend.allocated()
        return function(v)

    return kernel


def _binary_kernel(function: Any) -> Any:
    def kernel(backend: TorchBackend, plan: OperationPlan, a: Any, b: Any) -> torch.Tensor:
        _broadcast(plan.operation, a, b)
        x, y = _operand(plan, 0, a), _operand(plan, 1, b)
        backend.allocated()
        return function(x, y)

    return kernel


def select(
    backend: TorchBackend, plan: OperationPlan, cond: Any, on_true: Any, on_false: Any
) -> torch.Tensor:
    _broadcast(plan.operation, cond, on_true, on_false)
    c, t, f = (_operand(plan, i, v) for i, v in enumerate((cond, on_true, on_false)))
    backend.allocated()
    return torch.where(c, t, f)


def clamp(backend: TorchBackend, plan: OperationPlan, x: Any, lo: Any, hi: Any) -> torch.Tensor:
    _broadcast(plan.operation, x, lo, hi)
    v, low, high = (_operand(plan, i, a) for i, a in enumerate((x, lo, hi)))
    if isinstance(low, torch.Tensor) != isinstance(high, torch.Tensor):
        # torch.clamp takes two tensor bounds or two number bounds
        if not isinstance(low, torch.Tensor):
            low = torch.tensor(low, dtype=torch.float32, device=v.device)
        else:
            high = torch.tensor(high, dtype=torch.float32, device=v.device)
    backend.allocated()
    return torch.clamp(v, low, high)


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------


def _keepdims(operation: str, keepdims: Any) -> bool:
    return read_flag(operation, "keepdims", keepdims)


def _dims(operation: str, x: torch.Tensor, axis: Any) -> tuple[int, ...] | None:
    """Validated axes as torch ``dim`` (None for all; an explicit tuple as given)."""
    axes = normalise_axes(operation, axis, x.ndim)
    return None if axis is None else axes


def _require_nonempty(operation: str, x: torch.Tensor, axes: tuple[int, ...] | None) -> None:
    reduced = range(x.ndim) if axes is None else axes
    if math.prod(x.shape[a] for a in reduced) == 0:
        raise ValueError(f"{operation}: cannot reduce an empty set of elements (no identity)")


def reduce_sum(
    backend: TorchBackend, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> torch.Tensor:
    dims = _dims(plan.operation, x, axis)
    keep = _keepdims(plan.operation, keepdims)
    v = _operand(plan, 0, x)
    backend.allocated()
    if plan.accumulation is Accumulation.EXACT_INTEGER:
        return torch.sum(v, dim=dims, keepdim=keep).to(torch.int32)  # int64 sum, wraps
    if plan.accumulator_dtype is DType.Float64:
        return torch.sum(v, dim=dims, keepdim=keep, dtype=torch.float64).to(torch.float32)
    return torch.sum(v, dim=dims, keepdim=keep)


def reduce_prod(
    backend: TorchBackend, plan: OperationPlan, x: Any, axis: Any = None, keepdims: Any = False
) -> torch.Tensor:
    dims = _dims(plan.operation, x, axis)
    keep = _keepdims(plan.operation, keepdims)
    v = _operand(plan, 0, x)
    backend.allocated()
    if dims is None:
        result = torch.prod(v)
        return result.reshape((1,) * v.ndim) if keep else result
    if len(dims) == 1:
        return torch.prod(v, dim=dims[0], keepdim=keep)
    # torch.prod reduces one dim: move the reduced axes last and flatten them
    kept = [d for d in range(v.ndim) if d not in dims]
    reduced = math.prod(v.shape[d] for d in dims)
    flat = torch.permute(v, (*kept, *dims)).reshape(*(v.shape[d] for d in kept), reduced)
    result = torch.prod(flat, dim=-1)
    if keep:
        result = result.reshape([1 if d in dims else n for d, n in enumerate(v.shape)])
    return result


def _extreme(
    backend: TorchBackend, plan: OperationPlan, x: Any, axis: Any, keepdims: Any, function: Any
) -> torch.Tensor:
    dims = _dims(plan.operation, x, axis)
    keep = _keepdims(plan.operation, keepdims)
    _require_nonempty(plan.operation, x, dims)
    v = _operand(plan, 0, x)
    backend.allocated()
    return function(v, dim=() if dims is None else dims, keepdim=keep)


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
    dim = None if axis is None else normalise_axis(plan.operation, axis, x.ndim)
    _require_nonempty(plan.operation, x, None if dim is None else (dim,))
    v = _operand(plan, 0, x)
    backend.allocated()
    return function(v, dim=dim).to(torch.int32)


def argmax(backend: TorchBackend, plan: OperationPlan, x: Any, axis: Any = None) -> torch.Tensor:
    return _arg(backend, plan, x, axis, torch.argmax)


def argmin(backend: TorchBackend, plan: OperationPlan, x: Any, axis: Any = None) -> torch.Tensor:
    return _arg(backend, plan, x, axis, torch.argmin)


def cumsum(backend: TorchBackend, plan: OperationPlan, x: Any, axis: Any) -> torch.Tensor:
    dim = normalise_axis(plan.operation, axis, x.ndim)
    v = _operand(plan, 0, x)
    backend.allocated()
    return torch.cumsum(v, dim=dim)


# ---------------------------------------------------------------------------
# matmul / conv_general
# ---------------------------------------------------------------------------


def matmul(backend: TorchBackend, plan: OperationPlan, a: Any, b: Any) -> torch.Tensor:
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(
            f"{plan.operation}: needs (M, K) and (K, N) matrices, got shapes "
            f"{tuple(a.shape)} and {tuple(b.shape)}"
        )
    x, y = _operand(plan, 0, a), _operand(plan, 1, b)
    backend.allocated()
    if plan.accumulator_dtype is DType.Float64:
        return torch.matmul(x.double(), y.double()).float()
    return torch.matmul(x, y)


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
    g = conv_geometry(
        tuple(lhs.shape), tuple(rhs.shape), window_strides, padding, lhs_dilation, rhs_dilation,
        feature_group_count,
    )  # fmt: skip
    spatial = lhs.ndim - 2
    if spatial > 3:
        raise NotImplementedError(
            f"{plan.operation}: torch has no convolution over {spatial} spatial dimensions"
        )
    x, w = _operand(plan, 0, lhs), _operand(plan, 1, rhs)
    out_shape = g.output_shape
    backend.allocated()
    if math.prod(out_shape) == 0 or g.group_in_channels == 0:
        return torch.zeros(out_shape, dtype=torch.float32, device=x.device)  # nothing to do
    if spatial == 0:  # a 1x1 convolution over a length-1 dimension
        return conv_general_torch(x[..., None], w[..., None], g, 1)[..., 0]
    return conv_general_torch(x, w, g, spatial)


def conv_general_torch(
    x: torch.Tensor, w: torch.Tensor, g: ConvGeometry, spatial: int
) -> torch.Tensor:
    """The convolution of the validated geometry *g* with torch's conv kernels."""
    strides = g.window_strides or (1,) * spatial
    rhs_dilation = g.rhs_dilation or (1,) * spatial
    lhs_dilation = g.lhs_dilation or (1,) * spatial
    pads = g.padding or ((0, 0),) * spatial
    if any(d > 1 for d in lhs_dilation):
        spread_shape = [*x.shape[:2]]
        index: list[slice] = [slice(None), slice(None)]
        for n, d in zip(x.shape[2:], lhs_dilation):
            spread_shape.append((n - 1) * d + 1 if n else 0)
            index.append(slice(None, None, d))
        spread = torch.zeros(spread_shape, dtype=torch.float32, device=x.device)
        spread[tuple(index)] = x
        x = spread
    if any(p != (0, 0) for p in pads):
        widths: list[int] = []
        for low, high in reversed(pads):  # F.pad takes the last dimension first
            widths += [low, high]
        x = F.pad(x, widths)
    return _CONV[spatial](x, w, stride=strides, dilation=rhs_dilation, groups=g.feature_group_count)


# ---------------------------------------------------------------------------
# gather / scatter / scatter_add
# ---------------------------------------------------------------------------


def _check_indices(operation: str, indices: torch.Tensor, extent: int) -> None:
    if indices.numel() == 0:
        return
    low, high = int(indices.min()), int(indices.max())
    if low < 0 or high >= extent:
        bad = low if low < 0 else high
        raise IndexError(f"{operation}: index {bad} is out of range [0, {extent})")


def gather(
    backend: TorchBackend, plan: OperationPlan, data: Any, indices: Any, axis: Any
) -> torch.Tensor:
    axis = normalise_axis(plan.operation, axis, data.ndim)
    _check_indices(plan.operation, indices, data.shape[axis])
    d, i = _operand(plan, 0, data), _operand(plan, 1, indices)
    shape = (*d.shape[:axis], *i.shape, *d.shape[axis + 1 :])
    backend.allocated()
    return torch.index_select(d, axis, i.reshape(-1)).reshape(shape)


def _scatter_operands(
    plan: OperationPlan, base: Any, indices: Any, updates: Any, axis: Any
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, int]:
    axis = normalise_axis(plan.operation, axis, base.ndim)
    expected = (*base.shape[:axis], *indices.shape, *base.shape[axis + 1 :])
    if tuple(updates.shape) != expected:
        raise ValueError(
            f"{plan.operation}: updates of shape {tuple(updates.shape)} do not match base "
            f"{tuple(base.shape)} with indices {tuple(indices.shape)} on axis {axis} "
            f"(expected {expected})"
        )
    _check_indices(plan.operation, indices, base.shape[axis])
    b, i, u = (_operand(plan, p, v) for p, v in enumerate((base, indices, updates)))
    flat = i.reshape(-1)
    source = u.reshape(*b.shape[:axis], flat.numel(), *b.shape[axis + 1 :])
    return b, flat, source, axis


def scatter(
    backend: TorchBackend, plan: OperationPlan, base: Any, indices: Any, updates: Any, axis: Any
) -> torch.Tensor:
    b, flat, source, axis = _scatter_operands(plan, base, indices, updates, axis)
    backend.allocated()
    return b.clone().index_copy_(axis, flat.long(), source)  # index_copy_ takes int64 only


def scatter_add(
    backend: TorchBackend, plan: OperationPlan, base: Any, indices: Any, updates: Any, axis: Any
) -> torch.Tensor:
    b, flat, source, axis = _scatter_operands(plan, base, indices, updates, axis)
    backend.allocated()
    return b.clone().index_add_(axis, flat, source)


# ---------------------------------------------------------------------------
# sort / topk (the private plans behind the framework's sort and topk)
# ---------------------------------------------------------------------------


def _sort(
    backend: TorchBackend, plan: OperationPlan, x: Any, axis: Any, descending: Any, values: bool
) -> torch.Tensor:
    dim = normalise_axis(plan.operation, axis, x.ndim)
    down = read_flag(plan.operation, "descending", descending)
    v = _operand(plan, 0, x)
    backend.allocated()
    result = torch.sort(v, dim=dim, descending=down, stable=True)
    return result.values if values else result.indices.to(torch.int32)


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
    dim = normalise_axis(plan.operation, axis, x.ndim)
    k = read_int(plan.operation, "k", k)
    if not 0 <= k <= x.shape[dim]:
        raise ValueError(f"{plan.operation}: k={k} is outside [0, {x.shape[dim]}]")
    top = read_flag(plan.operation, "largest", largest)
    v = _operand(plan, 0, x)
    backend.allocated()
    result = torch.topk(v, int(k), dim=dim, largest=top, sorted=True)
    return result.values if values else result.indices.to(torch.int32)


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
