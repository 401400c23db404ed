"""conv_general's validation rules, named by what they check.

The boundary catalogue has one error class for every conv_general call the reference
refuses (``ERROR_SHAPE_MISMATCH``: the coverage matrix counts it so), and a finding
named after it called "a padding bound that is not an int" -- whose expected exception
is TypeError -- a shape mismatch.  The judge names a refused conv_general call by the
check of the reference's geometry (:func:`oracle.conv_geometry.conv_geometry`, checked
in its documented order) that refuses it, :data:`CONV_RULES`:

``error-conv-rank``
    lhs and rhs do not have the same rank >= 2 (ValueError);
``error-conv-parameter-type``
    a stride, padding, dilation or ``feature_group_count`` of the wrong type: not a
    tuple or list, an entry that is not an int (a padding bound ``0.5``), a padding
    entry that is not a (low, high) tuple or list (TypeError);
``error-conv-parameter-length``
    a wrong number of entries (one per spatial dimension), a padding entry that is not
    a pair (ValueError);
``error-conv-parameter-range``
    a stride, a dilation or ``feature_group_count`` below 1 (ValueError);
``error-conv-channels``
    ``feature_group_count`` dividing no channel count, or rhs dimension 1 not
    ``in_channels // feature_group_count`` (ValueError);
``error-conv-window``
    a window extent of 0 (ValueError);
``error-conv-negative-extent``
    a padding that leaves a negative padded extent (ValueError).

The check is found by running the reference's geometry on the call and reading which
step refused it: the exception type and the parameter its message names (the
geometry's messages name the parameter first, ``conv_general: padding[0][0] ...``).
``tests/test_report31_conv_rules.py`` holds every validation rule of the generator
(:func:`conformance.generate.validation.invalid_examples`) to its name.
"""

from __future__ import annotations

from typing import Any

from oracle.conv_geometry import conv_geometry

__all__ = ["CONV_RULES", "conv_rule"]

#: the names of conv_general's validation rules (error classes of its invalid calls)
CONV_RULES = (
    "error-conv-rank",
    "error-conv-parameter-type",
    "error-conv-parameter-length",
    "error-conv-parameter-range",
    "error-conv-channels",
    "error-conv-window",
    "error-conv-negative-extent",
)

#: (a phrase of the geometry's ValueError message, the rule it names), first match first
_VALUE_ERRORS = (
    ("same rank", "error-conv-rank"),
    ("negative extent", "error-conv-negative-extent"),
    ("window extent", "error-conv-window"),
    ("must be at least 1", "error-conv-parameter-range"),
    ("must divide", "error-conv-channels"),
    ("rhs dimension 1", "error-conv-channels"),
    ("spatial dimensions", "error-conv-parameter-length"),
    ("is not a (low, high) pair", "error-conv-parameter-length"),
)


def conv_rule(call: Any) -> str | None:
    """The validation rule a conv_general *call* breaks (one of :data:`CONV_RULES`), or
    None: not a conv_general call, a call the geometry accepts, or operands without
    shapes (the error is then not the geometry's)."""
    if getattr(call, "operation", None) != "conv_general":
        return None
    try:
        lhs, rhs = call.operands
        parameters = call.parameters
        shapes = (tuple(lhs.shape), tuple(rhs.shape))
    except Exception:  # an argument list the signature cannot split
        return None
    try:
        conv_geometry(*shapes, parameters.get("window_strides"), parameters.get("padding"),
                      parameters.get("lhs_dilation"), parameters.get("rhs_dilation"),
                      parameters.get("feature_group_count", 1))  # fmt: skip
    except TypeError:
        return "error-conv-parameter-type"
    except ValueError as error:
        text = str(error)
        for phrase, rule in _VALUE_ERRORS:
            if phrase in text:
                return rule
        return None
    except Exception:  # the geometry's own failure: not a rule of the call
        return None
    return None
