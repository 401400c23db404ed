"""Declared capabilities: the call features a backend may say it does not support.

A backend that cannot, by design, handle some kind of call -- a library that
rejects dimensions of size 0, or never takes a negative axis -- declares it,
and the suite then does not judge the calls that need that feature: it counts
them (``not supported: zero-size (212 calls)``) and judges everything else,
so one limitation neither fails every operation nor hides the real bugs
behind it.  A declared feature is never counted as conformance.

The vocabulary (:data:`FEATURES`) is fixed and derived from what the suite's
generators vary (:mod:`conformance.generate.strategies`): shapes, weak scalars, the
accumulator keyword, axes, the sort/top-k and convolution parameters, and the
bit patterns of Float32 elements.  :func:`features_of` is the one place that
says which features a call needs, from the call alone.

A backend declares features by any of (they add up):

* ``plancheck run --unsupported FEATURE`` (repeatable), the plugin's
  ``--plancheck-unsupported FEATURE``;
* an ``unsupported: FEATURE[, FEATURE ...]`` line in the known-deviations file
  (``unsupported = [...]`` in TOML, ``"unsupported": [...]`` in JSON);
* an optional ``unsupported`` attribute of the backend: a set of names.

An unknown name is a usage error (:func:`parse_features`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

import numpy as np

from conformance.model.calls import Call, Family, split_arguments
from oracle import DType, Tensor

__all__ = [
    "FEATURES",
    "IMPLIES",
    "declared_by",
    "features_of",
    "first_feature",
    "format_vocabulary",
    "parse_features",
    "signalling_nan_bits",
]


def signalling_nan_bits(bits: int) -> bool:
    """Whether binary32 *bits* encode a signalling NaN (all-ones exponent, a nonzero
    fraction with the quiet bit 0x00400000 clear)."""
    return (bits & 0x7F800000) == 0x7F800000 and (bits & 0x007FFFFF) != 0 and not bits & 0x00400000


def _tensors(call: Call) -> list[Tensor]:
    return [a for a in call.args if isinstance(a, Tensor)]


def _explicit_parameters(call: Call) -> dict[str, Any]:
    """The non-dtype parameters the call passes explicitly (not filled-in defaults)."""
    operands, parameters = split_arguments(call.operation, call.args)
    passed = len(call.args) - len(operands)
    return dict(list(parameters.items())[:passed])


def _axes(call: Call) -> list[int]:
    axis = _explicit_parameters(call).get("axis")
    if axis is None or isinstance(axis, bool):
        return []
    if isinstance(axis, (tuple, list)):
        return [a for a in axis if isinstance(a, int)]
    return [axis] if isinstance(axis, int) else []


def _conv_output_empty(call: Call) -> bool:
    """Whether a convolution's result has a spatial extent of 0 (its window does not
    fit the dilated, padded input) although no argument is empty."""
    operands, parameters = split_arguments(call.operation, call.args)
    lhs, rhs = operands[0], operands[1]
    try:
        for i, (low, high) in enumerate(parameters["padding"]):
            extent = lhs.shape[2 + i]
            dilated = (extent - 1) * parameters["lhs_dilation"][i] + 1 if extent else 0
            window = (rhs.shape[2 + i] - 1) * parameters["rhs_dilation"][i] + 1
            if dilated + low + high < window:
                return True
    except (TypeError, ValueError, IndexError, KeyError, AttributeError):
        return False  # a malformed call (a padding pair of one number): rejected later
    return False


def _zero_size(call: Call) -> bool:
    if any(0 in t.shape for t in _tensors(call)):
        return True
    if call.family is Family.CONV:
        return _conv_output_empty(call)
    return call.family is Family.TOPK and _explicit_parameters(call).get("k") == 0


def _rank_0(call: Call) -> bool:
    return any(t.shape == () for t in _tensors(call))


def _broadcasting(call: Call) -> bool:
    if call.family not in (Family.ELEMENTWISE,):
        return False
    shapes = {o.shape for o in call.operands if isinstance(o, Tensor)}
    return len(shapes) > 1


def _signalling_nan(call: Call) -> bool:
    for value in call.args:
        if isinstance(value, Tensor) and value.dtype is DType.Float32:
            if any(signalling_nan_bits(b) for b in value.bits()):
                return True
        elif isinstance(value, np.float32) and signalling_nan_bits(
            int(np.asarray(value).view(np.uint32))
        ):
            return True
    return False


def _weak(call: Call) -> list[Any]:
    return [o for o in call.operands if not isinstance(o, Tensor)]


def _conv(name: str, test: Callable[[Any], bool]) -> Callable[[Call], bool]:
    def needs(call: Call) -> bool:
        if call.family is not Family.CONV:
            return False
        value = _explicit_parameters(call).get(name)
        try:
            return value is not None and bool(test(value))
        except (TypeError, ValueError):  # a malformed parameter of an invalid call
            return False

    return needs


#: feature name -> (what it means, whether a call needs it).  The order is the
#: order of priority when one failing call needs several.
FEATURES: dict[str, tuple[str, Callable[[Call], bool]]] = {
    "zero-size": (
        "a tensor argument or result with a dimension of size 0 (top-k with k=0, a "
        "convolution whose window does not fit)",
        _zero_size,
    ),
    "rank-0": ("a 0-d tensor argument", _rank_0),
    "broadcasting": ("tensor operands of different shapes that broadcast", _broadcasting),
    "negative-axis": ("a negative axis argument", lambda call: any(a < 0 for a in _axes(call))),
    "axis-tuple": (
        "a tuple of axes, () included (reductions)",
        lambda call: isinstance(_explicit_parameters(call).get("axis"), tuple),
    ),
    "keepdims": ("keepdims=True", lambda call: _explicit_parameters(call).get("keepdims") is True),
    "signalling-nan": ("a Float32 signalling NaN element or numpy.float32 scalar", _signalling_nan),
    "weak-scalar": ("a Python or numpy scalar as an operand", lambda call: bool(_weak(call))),
    "numpy-scalar": (
        "a numpy scalar as an operand",
        lambda call: any(isinstance(w, np.generic) for w in _weak(call)),
    ),
    "fraction-scalar": (
        "a fractions.Fraction as an operand",
        lambda call: any(isinstance(w, Fraction) for w in _weak(call)),
    ),
    "accumulator-dtype": (
        "the accumulator_dtype keyword",
        lambda call: call.accumulator_dtype is not None,
    ),
    "sort-descending": (
        "descending=True (sort)",
        lambda call: _explicit_parameters(call).get("descending") is True,
    ),
    "topk-smallest": (
        "largest=False (top-k)",
        lambda call: _explicit_parameters(call).get("largest") is False,
    ),
    "conv-stride": ("a convolution window stride above 1", _conv("window_strides",
                                                                 lambda v: max(v) > 1)),
    "conv-padding": ("nonzero convolution padding (negative bounds included)",
                     _conv("padding", lambda v: any(any(p) for p in v))),
    "conv-negative-padding": ("a negative convolution padding bound (a crop)",
                              _conv("padding", lambda v: any(b < 0 for p in v for b in p))),
    "conv-lhs-dilation": ("a convolution input dilation above 1", _conv("lhs_dilation",
                                                                        lambda v: max(v) > 1)),
    "conv-rhs-dilation": ("a convolution window dilation above 1", _conv("rhs_dilation",
                                                                         lambda v: max(v) > 1)),
    "conv-groups": ("feature_group_count above 1", _conv("feature_group_count",
                                                         lambda v: v > 1)),
    "conv-2d": ("a convolution with two spatial dimensions", _conv("window_strides",
                                                                   lambda v: len(v) == 2)),
}  # fmt: skip


#: feature -> the broader feature every call needing it needs too (a negative padding is
#: a nonzero padding): a refusal is pinned on the narrower one
#: (:func:`conformance.findings.refusals.refusal_evidence`)
IMPLIES: dict[str, str] = {"conv-negative-padding": "conv-padding"}


def features_of(call: Call) -> frozenset[str]:
    """The features of :data:`FEATURES` that *call* needs (measured from its arguments)."""
    return frozenset(name for name, (_, needs) in FEATURES.items() if needs(call))


def first_feature(features: Iterable[str]) -> str | None:
    """The feature of highest priority among *features* (None if empty)."""
    chosen = set(features)
    return next((name for name in FEATURES if name in chosen), None)


def format_vocabulary() -> str:
    """One line per feature: its name and meaning."""
    width = max(len(name) for name in FEATURES)
    return "\n".join(f"  {name.ljust(width)}  {text}" for name, (text, _) in FEATURES.items())


def parse_features(names: Iterable[str], where: str = "--unsupported") -> frozenset[str]:
    """The set of *names*, each checked against the vocabulary.

    Raises ValueError naming the unknown ones and listing the vocabulary.
    Names may also be comma-separated (``zero-size,rank-0``).
    """
    parsed: list[str] = []
    for name in names:
        parsed.extend(part.strip() for part in str(name).split(",") if part.strip())
    unknown = [name for name in parsed if name not in FEATURES]
    if unknown:
        raise ValueError(
            f"{where}: unknown feature(s) {', '.join(unknown)}; the vocabulary is:\n"
            + format_vocabulary()
        )
    return frozenset(parsed)


def declared_by(backend: Any) -> frozenset[str]:
    """The features *backend* declares unsupported through its optional ``unsupported``
    attribute (a set of names; ValueError for an unknown name or a wrong type)."""
    declared = getattr(backend, "unsupported", None)
    if declared is None:
        return frozenset()
    if isinstance(declared, str) or not isinstance(declared, Iterable):
        raise ValueError(
            f"backend {getattr(backend, 'name', backend)!r}: 'unsupported' must be a set of "
            f"feature names, got {declared!r}"
        )
    return parse_features(declared, f"backend {getattr(backend, 'name', '?')!r} unsupported")
