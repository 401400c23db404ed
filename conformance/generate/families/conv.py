"""The convolution family: conv_general's geometry and the terms of every output element.

:func:`measure` reads the geometry from :func:`oracle.conv_geometry.conv_geometry`
(the facts the reference and the backends read: a call it refuses is an error
call) and records the parameter classes and the sum classes of every output
element; which input element each window tap reads is worked out here, on its
own.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from hypothesis import strategies as st

from conformance.classes.boundary import (
    F32,
    LENGTHS,
    B,
    Boundary,
    PlanFacts,
)
from conformance.generate.families.measures import Invalid as _Invalid
from conformance.generate.families.measures import (
    _sum_classes,
    accumulation_classes,
)
from conformance.generate.families.shapes import add_length
from conformance.generate.order_values import cancelling_terms, sum_witness
from conformance.generate.primitives import (
    _CONV_1D_PLAIN,
    _finish,
    _fits,
    _make,
    _operand_dtype,
    _tensor,
    _tensor_of,
)
from conformance.generate.rule_operands import Fault, plan_operands
from conformance.model.calls import Call, Family
from oracle import OperationPlan, Tensor
from oracle.conv_geometry import conv_geometry


def _conv(
    call: Call,
    facts: PlanFacts,
    operands: Sequence[Any],
    parameters: dict[str, Any],
    hits: set[Boundary],
) -> None:
    lhs, rhs = operands
    try:
        g = conv_geometry(
            lhs.shape,
            rhs.shape,
            parameters["window_strides"],
            parameters["padding"],
            parameters["lhs_dilation"],
            parameters["rhs_dilation"],
            parameters["feature_group_count"],
        )
    except (TypeError, ValueError):  # the reference refuses the call
        hits.add(B.ERROR_SHAPE_MISMATCH)
        raise _Invalid from None
    strides, padding = g.window_strides, g.padding
    lhs_dil, rhs_dil, groups = g.lhs_dilation, g.rhs_dilation, g.feature_group_count
    if any(s > 1 for s in strides):
        hits.add(B.CONV_STRIDE)
    if any(lo or hi for lo, hi in padding):
        hits.add(B.CONV_PADDING)
    if any(v > 1 for v in lhs_dil):
        hits.add(B.CONV_LHS_DILATION)
    if any(v > 1 for v in rhs_dil):
        hits.add(B.CONV_RHS_DILATION)
    if groups > 1:
        hits.add(B.CONV_GROUPS)
    if g.spatial_dims == 2:
        hits.add(B.CONV_TWO_SPATIAL)
    batch, out_channels, per_group = g.batch, g.out_channels, g.group_in_channels
    spatial, window, out_sizes = g.input_spatial, g.window, g.output_spatial
    lhs_array = np.arange(lhs.size).reshape(lhs.shape)
    rhs_array = np.arange(rhs.size).reshape(rhs.shape)
    out_per_group = g.group_out_channels
    if batch and out_channels and math.prod(out_sizes):
        add_length(per_group * math.prod(window), hits)
    with np.errstate(all="ignore"):
        for n in range(batch):
            for o in range(out_channels):
                group = o // out_per_group
                for position in np.ndindex(*out_sizes):
                    terms = []
                    for w_index in np.ndindex(*window):
                        for c in range(per_group):
                            rhs_index = (o, c, *w_index)
                            weight = rhs.values[rhs_array[rhs_index]]
                            x = 0.0
                            coordinate = []
                            inside = True
                            for p, w, rd, stride, (lo, _), ld, s in zip(
                                position, w_index, rhs_dil, strides, padding, lhs_dil, spatial
                            ):
                                q = p * stride + w * rd - lo
                                if q < 0 or q % ld or q // ld >= s:
                                    inside = False
                                    break
                                coordinate.append(q // ld)
                            if inside:
                                channel = group * per_group + c
                                lhs_index = (n, channel, *coordinate)
                                x = lhs.values[lhs_array[lhs_index]]
                            terms.append(float(np.float32(np.float32(x) * np.float32(weight))))
                    _sum_classes(terms, hits)
                    accumulation_classes(facts.plan, terms, hits)


FAMILIES = frozenset({Family.CONV})


def measure(
    call: Call, facts: PlanFacts, operands: Sequence[Any], parameters: dict, hits: set
) -> None:
    """Add the classes of *call* to *hits* (raises Invalid for a refused structure)."""
    _conv(call, facts, operands, parameters, hits)


# -- generation: valid calls, invalid calls, structural examples -----------------------


def _conv_parameters(draw: Any) -> dict[str, Any]:
    d = draw(st.integers(1, 2))
    groups = draw(st.integers(1, 3))
    per_group = draw(st.integers(1, 2))
    out_per_group = draw(st.integers(1, 2))
    window = tuple(draw(st.integers(1, 3)) for _ in range(d))
    strides = tuple(draw(st.integers(1, 3)) for _ in range(d))
    # negative padding crops the input (the reference allows it while the extent stays >= 0)
    padding = tuple((draw(st.integers(-1, 2)), draw(st.integers(-1, 2))) for _ in range(d))
    lhs_dilation = tuple(draw(st.integers(1, 2)) for _ in range(d))
    rhs_dilation = tuple(draw(st.integers(1, 2)) for _ in range(d))
    spatial = []
    for w, rd, (lo, hi), ld in zip(window, rhs_dilation, padding, lhs_dilation):
        span = (w - 1) * rd + 1
        need = max(span - lo - hi, 1)  # dilated input + padding must cover one window
        smallest = (need - 1) // ld + 1
        spatial.append(draw(st.integers(smallest, smallest + 2)))
    batch = draw(st.sampled_from((1, 1, 2, 0)))
    return {
        "lhs_shape": (batch, groups * per_group, *spatial),
        "rhs_shape": (groups * out_per_group, per_group, *window),
        "window_strides": strides,
        "padding": padding,
        "lhs_dilation": lhs_dilation,
        "rhs_dilation": rhs_dilation,
        "feature_group_count": groups,
    }


@st.composite
def _conv_calls(draw: Any, plan: OperationPlan) -> Call:
    parameters = _conv_parameters(draw)
    lhs = draw(_tensor(_operand_dtype(plan, 0), parameters.pop("lhs_shape")))
    rhs = draw(_tensor(_operand_dtype(plan, 1), parameters.pop("rhs_shape")))
    return _finish(draw, plan, [lhs, rhs], parameters)


@st.composite
def _invalid_conv(draw: Any, plan: OperationPlan) -> Call:
    parameters = _conv_parameters(draw)
    lhs_shape = list(parameters.pop("lhs_shape"))
    lhs_shape[1] += draw(st.integers(1, 2))  # channels no longer match the kernel
    lhs = draw(_tensor(F32, tuple(lhs_shape)))
    rhs = draw(_tensor(F32, parameters.pop("rhs_shape")))
    return _make(plan, [lhs, rhs], parameters, raises=(ValueError,), note="channel mismatch")


@functools.cache
def valid_calls(plan: OperationPlan) -> st.SearchStrategy[Call]:
    """Valid calls whose arguments select exactly *plan* (cached per plan)."""
    return _conv_calls(plan)


@functools.cache
def invalid_calls(plan: OperationPlan) -> st.SearchStrategy[Call] | None:
    """Calls of *plan* with one structural fault (None: the plan has none)."""
    return _invalid_conv(plan)


def structural_examples(
    plan: OperationPlan, facts: PlanFacts, tensor: Callable[..., Tensor]
) -> list[Call]:
    """Shapes, parameters and error paths of *plan* as deterministic calls; *tensor*
    makes ordinary tensors (``tensor(shape, dtype=operand 0's, start=1.0)``)."""
    out: list[Call] = []
    base = dict(_CONV_1D_PLAIN)
    variants: list[tuple[dict[str, Any], tuple[int, ...], tuple[int, ...], str]] = [
        ({"window_strides": (2,)}, (1, 1, 5), (1, 1, 2), "stride 2"),
        ({"padding": ((1, 2),)}, (1, 1, 3), (1, 1, 2), "padding"),
        ({"lhs_dilation": (2,)}, (1, 1, 3), (1, 1, 2), "lhs dilation"),
        ({"rhs_dilation": (2,)}, (1, 1, 4), (1, 1, 2), "rhs dilation"),
        ({"feature_group_count": 2}, (1, 4, 3), (2, 2, 2), "two groups"),
        ({}, (0, 1, 3), (1, 1, 2), "batch 0"),
        (
            {
                "window_strides": (1, 2),
                "padding": ((0, 1), (1, 0)),
                "lhs_dilation": (1, 1),
                "rhs_dilation": (1, 1),
            },
            (1, 2, 3, 3),
            (2, 2, 2, 2),
            "two spatial dimensions",
        ),
    ]
    for changes, lhs_shape, rhs_shape, note in variants:
        out.append(
            _make(
                plan,
                [tensor(lhs_shape), tensor(rhs_shape, start=0.5)],
                {**base, **changes},
                note=note,
            )
        )
    out.append(
        _make(
            plan,
            [tensor((1, 2, 3)), tensor((1, 1, 2))],
            base,
            raises=(ValueError,),
            note="channel mismatch",
        )
    )
    return out


def _channels(n: int) -> int:
    """The input channels of a conv with *n* terms per output: n's smallest prime
    factor for a composite n (the terms span channels and window), else 1."""
    return next((c for c in range(2, math.isqrt(n) + 1) if n % c == 0), 1)


def shape_examples(plan: OperationPlan, facts: PlanFacts) -> list[Call]:
    """One conv per LENGTH: two outputs of n terms each (channels x window).  The
    first output's weights are 1, so its terms, in the logical order (window
    position, then channel), are an order witness
    (:func:`~conformance.generate.order_values.sum_witness`); the second's weights
    are order-sensitive values."""
    out = []
    for n in LENGTHS:
        c = _channels(n)
        w = n // c
        witness = sum_witness(n)
        lhs_values = [
            witness[position * c + channel] for channel in range(c) for position in range(w)
        ]
        lhs = _tensor_of(F32, lhs_values, (1, c, w))
        rhs = _tensor_of(F32, (1.0,) * n + cancelling_terms(n, n + 1), (2, c, w))
        out.append(_make(plan, [lhs, rhs], dict(_CONV_1D_PLAIN), note=f"{n} terms per output"))
    return out


def embed_group(plan: OperationPlan, group: list[Any], note: str, options: dict) -> Call | None:
    """A one-output conv whose terms are *group* times weights of 1 (None: not floats)."""
    if not _fits(F32, group):
        return None
    n = len(group)
    lhs = _tensor_of(F32, group, (1, 1, n))
    rhs = _tensor_of(F32, [1.0] * n, (1, 1, n))
    return _make(plan, [lhs, rhs], dict(_CONV_1D_PLAIN), note=note)


def pass_through(plan: OperationPlan, values: Sequence[float], note: str) -> Call | None:
    """A 1-d convolution of the Float32 *values* with a window of one weight 1."""
    lhs = _tensor_of(F32, values, (1, 1, len(values)))
    rhs = _tensor_of(F32, [1.0], (1, 1, 1))
    return _make(plan, [lhs, rhs], dict(_CONV_1D_PLAIN), note=note)


# -- validation rules: one faulty call each (conformance.generate.validation) ---------


#: a valid one-dimensional convolution the conv rules break one argument at a time
_CONV = {
    "window_strides": (1,),
    "padding": ((0, 0),),
    "lhs_dilation": (1,),
    "rhs_dilation": (1,),
    "feature_group_count": 1,
}


def validation_rules(plan: OperationPlan) -> Iterator[Fault]:
    """The faulty calls of conv_general's validation rules, one argument broken at a time."""
    good = plan_operands(plan, {0: (1, 2, 3), 1: (2, 2, 2)})

    def changed(why: str, **change: Any) -> Fault:
        return why, good, {**_CONV, **change}

    yield "lhs channels 3, rhs expects 2", plan_operands(plan, {0: (1, 3, 3), 1: (2, 2, 2)}), _CONV
    yield "lhs and rhs ranks differ", plan_operands(plan, {0: (1, 2, 3), 1: (2, 2, 2, 2)}), _CONV
    yield "an operand of rank below 3", plan_operands(plan, {0: (2, 3), 1: (2, 2, 2)}), _CONV
    yield changed("padding (-2, -2) makes an extent negative", padding=((-2, -2),))
    yield changed("padding (-4, 0) makes an extent negative", padding=((-4, 0),))
    yield changed("window stride 0", window_strides=(0,))
    yield changed("lhs dilation 0", lhs_dilation=(0,))
    yield changed("rhs dilation 0", rhs_dilation=(0,))
    yield changed("feature_group_count 0", feature_group_count=0)
    yield changed("feature_group_count 3 divides no channel count", feature_group_count=3)
    yield changed("two padding pairs for one spatial dimension", padding=((0, 0), (0, 0)))
    yield changed("two strides for one spatial dimension", window_strides=(1, 1))
    yield changed("a padding pair that is not a pair", padding=((0,),))
    yield changed("a padding bound that is not an int", padding=((0.5, 0),))
