"""conv_general's geometry is one set of facts (``oracle.conv_geometry``), read everywhere.

* the oracle's reference, the CPU and the Generic backend refuse a bad call
  with the same exception *and the same message*, because the message is
  written once;
* the record's output shape is the shape each of them computes;
* the conformance suite's convolution family classes a call as an error
  call exactly when the oracle refuses it (its own copy of the checks once
  disagreed: it refused rank-2 calls and accepted a window extent of 0);
* no reader keeps a copy of the checks' messages.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import backends
import oracle
from conformance.classes.boundary import Boundary
from conformance.generate.families import classes_hit
from conformance.model.calls import Call
from oracle import DType, Tensor, resolve_operation_plan
from oracle.conv_geometry import ConvGeometry, conv_geometry

F32 = DType.Float32
ROOT = Path(__file__).resolve().parent.parent
CONV_PLAN = resolve_operation_plan("conv_general", F32, F32)


def _zeros(shape: tuple[int, ...]) -> Tensor:
    return Tensor(F32, shape, (0.0,) * math.prod(shape))


#: (lhs shape, rhs shape, parameters after the operands, exception, words of the message)
BAD_CALLS = [
    ((1, 2, 3), (1, 2), (), ValueError, "same rank >= 2"),
    ((3,), (3,), (), ValueError, "same rank >= 2"),
    ((1, 1, 4), (1, 1, 2), ((0,),), ValueError, "window_strides[0] = 0 must be at least 1"),
    ((1, 1, 4), (1, 1, 2), ((1, 1),), ValueError, "has 2 entries; the lhs has 1 spatial"),
    ((1, 1, 4), (1, 1, 2), (1,), TypeError, "window_strides must be a tuple or list of 1"),
    ((1, 1, 4), (1, 1, 2), ((1.5,),), TypeError, "window_strides[0] must be an int"),
    ((1, 1, 4), (1, 1, 2), ((True,),), TypeError, "window_strides[0] must be an int"),
    ((1, 1, 4), (1, 1, 2), (None, "SAME"), TypeError, "padding must be a tuple or list"),
    ((1, 1, 4), (1, 1, 2), (None, (0,)), TypeError, "padding[0] must be a (low, high) pair"),
    ((1, 1, 4), (1, 1, 2), (None, ((0, 0, 0),)), ValueError, "is not a (low, high) pair"),
    ((1, 1, 4), (1, 1, 2), (None, ((0.5, 0),)), TypeError, "padding[0][0] must be an int"),
    ((1, 1, 4), (1, 1, 2), (None, ((0, 0), (0, 0))), ValueError, "has 2 pairs"),
    ((1, 1, 4), (1, 1, 2), (None, ((-3, -3),)), ValueError, "leaves a negative extent -2"),
    ((1, 1, 4), (1, 1, 2), (None, None, (0,)), ValueError, "lhs_dilation[0] = 0"),
    ((1, 1, 4), (1, 1, 2), (None, None, None, (-1,)), ValueError, "rhs_dilation[0] = -1"),
    ((1, 1, 4), (1, 1, 2), (None, None, None, None, 0), ValueError, "at least 1"),
    ((1, 1, 4), (1, 1, 2), (None, None, None, None, 1.0), TypeError, "must be an int"),
    ((1, 1, 4), (1, 1, 2), (None, None, None, None, 2), ValueError, "must divide both"),
    ((1, 2, 3), (1, 1, 1), (), ValueError, "rhs dimension 1 must be"),
    ((1, 1, 1), (1, 1, 0), (), ValueError, "every window extent must be at least 1"),
]


def _outcomes(lhs_shape, rhs_shape, parameters) -> dict[str, BaseException | tuple[int, ...]]:
    """What the oracle, CPU and Generic make of one call: the exception, or the shape."""
    lhs, rhs = _zeros(lhs_shape), _zeros(rhs_shape)
    outcomes: dict[str, BaseException | tuple[int, ...]] = {}
    expectation = oracle.expected("conv_general", lhs, rhs, *parameters)
    if expectation.error is not None:
        outcomes["oracle"] = expectation.error
    else:
        assert expectation.result is not None
        outcomes["oracle"] = expectation.result.shape
    for name in ("cpu", "generic"):
        backend = backends.get(name)
        try:
            result = backend.execute(
                "conv_general", backend.from_tensor(lhs), backend.from_tensor(rhs), *parameters
            )
        except (TypeError, ValueError) as error:
            outcomes[name] = error
        else:
            outcomes[name] = backend.to_tensor(result).shape
    return outcomes


@pytest.mark.parametrize(("lhs_shape", "rhs_shape", "parameters", "error", "words"), BAD_CALLS)
def test_every_reader_refuses_with_the_one_message(lhs_shape, rhs_shape, parameters, error, words):
    outcomes = _outcomes(lhs_shape, rhs_shape, parameters)
    messages = set()
    for name, outcome in outcomes.items():
        assert isinstance(outcome, error), f"{name}: {outcome!r}"
        messages.add(str(outcome))
    assert len(messages) == 1, messages  # the same text from the oracle and both backends
    (message,) = messages
    assert message.startswith("conv_general: ") and words in message
    with pytest.raises(error) as direct:
        conv_geometry(lhs_shape, rhs_shape, *parameters)
    assert str(direct.value) == message


@st.composite
def _valid_geometries(draw):
    spatial = draw(st.integers(0, 2))
    groups = draw(st.integers(1, 2))
    group_in, group_out = draw(st.integers(0, 2)), draw(st.integers(1, 2))
    window = tuple(draw(st.integers(1, 3)) for _ in range(spatial))
    extents = tuple(draw(st.integers(0, 4)) for _ in range(spatial))
    strides = tuple(draw(st.integers(1, 3)) for _ in range(spatial))
    lhs_dil = tuple(draw(st.integers(1, 2)) for _ in range(spatial))
    rhs_dil = tuple(draw(st.integers(1, 2)) for _ in range(spatial))
    padding = []
    for n, a in zip(extents, lhs_dil):
        dilated = (n - 1) * a + 1 if n else 0
        low = draw(st.integers(-dilated, 2))
        padding.append((low, draw(st.integers(-(dilated + low), 2))))
    lhs_shape = (draw(st.integers(0, 2)), groups * group_in, *extents)
    rhs_shape = (groups * group_out, group_in, *window)
    return lhs_shape, rhs_shape, (strides, tuple(padding), lhs_dil, rhs_dil, groups)


@settings(max_examples=60, deadline=None)
@given(_valid_geometries())
def test_the_record_gives_the_shape_every_reader_computes(case):
    lhs_shape, rhs_shape, parameters = case
    geometry = conv_geometry(lhs_shape, rhs_shape, *parameters)
    outcomes = _outcomes(lhs_shape, rhs_shape, parameters)
    assert outcomes == dict.fromkeys(outcomes, geometry.output_shape)
    assert geometry.terms == (
        geometry.output_elements * math.prod(rhs_shape[2:]) * geometry.group_in_channels
    )


def test_defaults_and_derived_extents():
    g = conv_geometry((2, 4, 5), (6, 2, 2), None, ((1, -2),), (2,), (3,), 2)
    assert g.window_strides == (1,) and g.padding == ((1, -2),)
    assert g.dilated_input == (9,) and g.padded_input == (8,) and g.dilated_window == (4,)
    assert g.output_spatial == (5,) and g.output_shape == (2, 6, 5)
    assert (g.group_in_channels, g.group_out_channels) == (2, 3)
    plain = conv_geometry((1, 1, 0, 3), (1, 1, 1, 4))
    assert plain.dilated_input == (0, 3) and plain.output_spatial == (0, 0)
    assert conv_geometry((2, 3), (4, 3)).output_shape == (2, 4)  # no spatial dimension
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.output_spatial = (1,)  # type: ignore[misc]
    assert isinstance(g, ConvGeometry)


def test_a_huge_value_is_named_by_its_size_not_printed():
    with pytest.raises(ValueError, match="bits") as refused:
        conv_geometry((1, 1, 4), (1, 1, 2), None, ((-(10**5000), 0),))
    assert len(str(refused.value)) < 400


@pytest.mark.parametrize(
    ("lhs_shape", "rhs_shape", "refused"),
    [
        ((1, 3), (2, 3), False),  # rank 2: no spatial dimension, a valid call
        ((1, 1, 3), (1, 1, 0), True),  # a window extent of 0
        ((1, 2, 3), (1, 1, 2), True),  # channel mismatch
        ((1, 1, 3), (1, 1, 2), False),
    ],
)
def test_the_family_classes_an_error_call_exactly_when_the_oracle_refuses(
    lhs_shape, rhs_shape, refused
):
    spatial = len(lhs_shape) - 2
    parameters = ((1,) * spatial, ((0, 0),) * spatial, (1,) * spatial, (1,) * spatial, 1)
    call = Call(
        "conv_general", (_zeros(lhs_shape), _zeros(rhs_shape), *parameters), None, CONV_PLAN
    )
    assert (oracle.expected("conv_general", *call.args).error is not None) is refused
    assert (Boundary.ERROR_SHAPE_MISMATCH in classes_hit(call)) is refused


READERS = [
    "oracle/reference/structured.py",
    "backends/cpu/structured.py",
    "backends/generic/structured.py",
    "conformance/generate/families/conv.py",
]
#: phrases of the geometry's messages: they stand only in oracle/conv_geometry.py
MESSAGE_PHRASES = [
    "must have the same rank >= 2",
    "leaves a negative extent",
    "every window extent must be at least 1",
    "must divide both",
    "is not a (low, high) pair",
    "spatial dimensions (give one",
]


@pytest.mark.parametrize("reader", READERS)
def test_no_reader_keeps_a_copy_of_the_checks(reader):
    source = (ROOT / reader).read_text(encoding="utf-8")
    assert "conv_geometry(" in source
    copies = [phrase for phrase in MESSAGE_PHRASES if phrase in source]
    assert not copies, f"{reader} still writes conv geometry messages: {copies}"
    home = (ROOT / "oracle/conv_geometry.py").read_text(encoding="utf-8")
    assert all(phrase in home for phrase in MESSAGE_PHRASES)
