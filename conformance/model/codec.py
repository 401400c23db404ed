"""One call as exact JSON, and back -- accepting only what plancheck writes.

:func:`encode_call` / :func:`decode_call` turn a :class:`~conformance.model.calls.Call`
into JSON and back *exactly*: Float32 elements (and numpy.float32 scalars) by
their bit patterns, signalling NaNs included (decoded as
:class:`oracle.binary32.SignallingNaN` elements, which reach a backend as
those bits), Python
floats by ``float.hex`` (NaNs by their binary64 bits), Fractions as
numerator/denominator, numpy scalars by type.  :func:`repro_command` is the
one-line shell reproduction ``plancheck repro --backend X '<json>'``.

The JSON a user pastes into ``plancheck repro`` is untrusted input, so the
decoder is a closed grammar, not a lookup: a numpy scalar names one of
:data:`NUMPY_SCALARS` (never an arbitrary ``numpy`` attribute such as
``loadtxt`` or ``seterr``), every string is parsed by a fixed rule, and sizes
are bounded -- :data:`MAX_DEPTH` levels of nesting, :data:`MAX_ELEMENTS`
values and list items in one call, :data:`MAX_RANK` dimensions, digits of a
Fraction.  Anything else is a :class:`ValueError` naming what was refused,
raised before anything is built.
"""

from __future__ import annotations

import json
import math
import shlex
import struct
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from conformance.model.calls import Call, resolve_call_plan
from oracle import DType, SimpleDType, Tensor, binary32, resolvable_plans

__all__ = [
    "MAX_DEPTH",
    "MAX_ELEMENTS",
    "MAX_RANK",
    "NUMPY_SCALARS",
    "call_from_json",
    "call_to_json",
    "decode_call",
    "decode_value",
    "encode_call",
    "encode_value",
    "repro_command",
]

_CALL_FORMAT = 1
#: the exceptions a call may be required to raise, by name
_EXCEPTIONS: dict[str, type[BaseException]] = {
    e.__name__: e
    for e in (TypeError, ValueError, OverflowError, IndexError, NotImplementedError, KeyError)
}
#: the numpy scalar types a call may hold, by the name :func:`encode_value` writes
NUMPY_SCALARS: dict[str, type[np.generic]] = {
    t.__name__: t
    for t in (
        np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
        np.uint64, np.float16, np.float32, np.float64,
    )
}  # fmt: skip
#: the deepest nesting of lists and tuples a call's JSON may have
MAX_DEPTH = 16
#: the most tensor values and list items one call's JSON may hold (four times the
#: oracle's largest result, :data:`oracle.limits.MAX_RESULT_ELEMENTS`)
MAX_ELEMENTS = 2**22
#: the most dimensions of one tensor
MAX_RANK = 32
#: the most decimal digits of a Fraction's numerator or denominator, or a plain int
MAX_DIGITS = 400


# ---------------------------------------------------------------------------
# Encoding
# ---------------------------------------------------------------------------


def _float_code(x: float) -> dict[str, str]:
    if math.isnan(x):
        (bits,) = struct.unpack("<Q", struct.pack("<d", x))
        return {"float": "nan", "bits64": f"0x{bits:016x}"}
    return {"float": float(x).hex()}


def encode_value(value: Any) -> Any:
    """A JSON-able, exact form of one forward-argument value (TypeError if it has none)."""
    if isinstance(value, Tensor):
        encoded: dict[str, Any] = {"tensor": value.dtype.name, "shape": list(value.shape)}
        if value.dtype is DType.Float32:
            encoded["bits"] = [f"0x{b:08x}" for b in value.bits()]
        else:
            encoded["values"] = list(value.values)
        return encoded
    if isinstance(value, SimpleDType):
        return {"dtype": value.name}
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, np.generic):
        kind = type(value).__name__
        if kind not in NUMPY_SCALARS:
            raise TypeError(f"cannot encode numpy.{kind} {value!r} exactly")
        if isinstance(value, np.float32):  # its own bits: float() would quiet a signalling NaN
            return {"numpy": kind, "bits": f"0x{int(np.asarray(value).view(np.uint32)):08x}"}
        if isinstance(value, np.floating):
            return {"numpy": kind, **_float_code(float(value))}
        return {"numpy": kind, "value": value.item()}
    if isinstance(value, float):
        return _float_code(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, Fraction):
        return {"fraction": [value.numerator, value.denominator]}
    if isinstance(value, tuple):
        return {"tuple": [encode_value(v) for v in value]}
    if isinstance(value, list):
        return [encode_value(v) for v in value]
    if type(value) is str and len(value) <= 64:  # a parameter of the wrong type, e.g. axis='0'
        return {"str": value}
    raise TypeError(f"cannot encode {type(value).__name__} {value!r} exactly")


def encode_call(call: Call) -> dict[str, Any]:
    """The JSON-able form of *call* (see :func:`decode_call`)."""
    encoded: dict[str, Any] = {
        "v": _CALL_FORMAT,
        "op": call.operation,
        "args": [encode_value(a) for a in call.args],
        "plan": call.plan.describe(),
    }
    if call.accumulator_dtype is not None:
        encoded["accumulator_dtype"] = call.accumulator_dtype.name
    if call.raises:
        encoded["raises"] = [e.__name__ for e in call.raises]
    return encoded


def call_to_json(call: Call) -> str:
    """Compact, exact JSON of *call*."""
    return json.dumps(encode_call(call), separators=(",", ":"))


def repro_command(call: Call, backend: str | None = None) -> str:
    """``plancheck repro [--backend X] '<json>'``: re-runs exactly *call*."""
    option = f"--backend {shlex.quote(backend)} " if backend else ""
    return f"plancheck repro {option}{shlex.quote(call_to_json(call))}"


# ---------------------------------------------------------------------------
# Decoding: a closed grammar with bounded sizes
# ---------------------------------------------------------------------------


class _Budget:
    """How many more values and list items the document may hold."""

    def __init__(self, limit: int = MAX_ELEMENTS) -> None:
        self.left = limit

    def take(self, count: int) -> None:
        self.left -= count
        if self.left < 0:
            raise ValueError(f"more than {MAX_ELEMENTS} values in one call")


def _shown(data: Any) -> str:
    text = repr(data)
    return text if len(text) <= 80 else text[:77] + "..."


def _keys(data: Mapping[str, Any], allowed: set[str]) -> None:
    extra = set(data) - allowed
    if extra:
        raise ValueError(f"unexpected keys {sorted(map(str, extra))} in {_shown(data)}")


def _string(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or len(value) > 64:
        raise ValueError(f"{key!r} must be a short string in {_shown(data)}")
    return value


def _integer(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected an integer, got {_shown(value)}")
    if value.bit_length() > MAX_DIGITS * 4:  # about MAX_DIGITS decimal digits
        raise ValueError(f"an integer of {value.bit_length()} bits is too large")
    return value


def _bits(text: Any, width: int) -> int:
    if not isinstance(text, str) or not text.startswith("0x") or len(text) > 2 + width // 4:
        raise ValueError(f"expected a 0x... bit pattern of {width} bits, got {_shown(text)}")
    try:
        return int(text, 16)
    except ValueError:
        raise ValueError(f"not a hexadecimal bit pattern: {_shown(text)}") from None


def _float_decode(data: Mapping[str, Any]) -> float:
    if "bits64" in data:
        (value,) = struct.unpack("<d", struct.pack("<Q", _bits(data["bits64"], 64)))
        return value
    text = _string(data, "float")
    try:
        return float.fromhex(text)
    except (ValueError, OverflowError):
        raise ValueError(f"not a float.hex() value: {_shown(text)}") from None


def _tensor(data: Mapping[str, Any], budget: _Budget) -> Tensor:
    _keys(data, {"tensor", "shape", "bits", "values"})
    try:
        dtype = DType.from_name(_string(data, "tensor"))
    except (KeyError, ValueError):
        raise ValueError(f"unknown tensor dtype in {_shown(data)}") from None
    if not isinstance(dtype, SimpleDType):
        raise ValueError(f"a tensor's dtype is a simple dtype, not {dtype.name}: {_shown(data)}")
    shape = data.get("shape")
    if not isinstance(shape, list) or len(shape) > MAX_RANK:
        raise ValueError(f"a tensor's shape is a list of at most {MAX_RANK} extents")
    extents = tuple(_integer(n) for n in shape)
    if any(n < 0 for n in extents):
        raise ValueError(f"negative extent in shape {list(extents)}")
    if "bits" in data:
        if dtype is not DType.Float32:
            raise ValueError("only a Float32 tensor is encoded by its bits")
        raw = data["bits"]
        if not isinstance(raw, list):
            raise ValueError("'bits' must be a list")
        budget.take(len(raw))
        # exactly these bits: a signalling NaN stays one (binary32.from_bits would quiet it)
        values: tuple[Any, ...] = tuple(binary32.from_bits_exact(_bits(b, 32)) for b in raw)
    else:
        raw = data.get("values")
        if not isinstance(raw, list):
            raise ValueError("a tensor needs 'bits' or a list of 'values'")
        budget.take(len(raw))
        if not all(isinstance(v, (int, float)) for v in raw):
            raise ValueError(f"tensor values must be numbers: {_shown(raw)}")
        values = tuple(raw)
    if math.prod(n for n in extents if n) > MAX_ELEMENTS:
        raise ValueError(f"shape {list(extents)} spans more than {MAX_ELEMENTS} elements")
    try:
        return Tensor(dtype, extents, values)
    except (TypeError, ValueError, OverflowError, MemoryError) as error:
        raise ValueError(f"not a valid tensor: {error}") from None


def _numpy_scalar(data: Mapping[str, Any]) -> np.generic:
    _keys(data, {"numpy", "bits", "float", "bits64", "value"})
    name = _string(data, "numpy")
    kind = NUMPY_SCALARS.get(name)
    if kind is None:
        raise ValueError(
            f"numpy.{name[:40]} is not a numpy scalar type a call may hold "
            f"(one of {', '.join(NUMPY_SCALARS)})"
        )
    if "bits" in data:
        if kind is not np.float32:
            raise ValueError("only numpy.float32 is encoded by its bits")
        return np.uint32(_bits(data["bits"], 32)).view(np.float32)
    if "float" in data:
        if not issubclass(kind, np.floating):
            raise ValueError(f"numpy.{name} holds no float")
        with np.errstate(all="ignore"):
            return kind(_float_decode(data))
    value = data.get("value")
    if issubclass(kind, np.bool_):
        if not isinstance(value, bool):
            raise ValueError(f"numpy.bool holds true or false, got {_shown(value)}")
        return kind(value)
    info = np.iinfo(kind) if issubclass(kind, np.integer) else None
    if info is None or not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"numpy.{name}: expected an integer 'value', got {_shown(value)}")
    if not info.min <= value <= info.max:
        raise ValueError(f"numpy.{name}: {value} is out of range [{info.min}, {info.max}]")
    return kind(value)


def _decode(data: Any, budget: _Budget, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise ValueError(f"nested more than {MAX_DEPTH} levels deep")
    if data is None or isinstance(data, bool):
        return data
    if isinstance(data, int):
        return _integer(data)
    if isinstance(data, list):
        budget.take(len(data))
        return [_decode(v, budget, depth + 1) for v in data]
    if not isinstance(data, dict):
        raise ValueError(f"cannot decode {_shown(data)}")
    if "tensor" in data:
        return _tensor(data, budget)
    if "dtype" in data:
        _keys(data, {"dtype"})
        try:
            return DType.from_name(_string(data, "dtype"))
        except (KeyError, ValueError):
            raise ValueError(f"unknown dtype in {_shown(data)}") from None
    if "numpy" in data:
        return _numpy_scalar(data)
    if "float" in data:
        _keys(data, {"float", "bits64"})
        return _float_decode(data)
    if "fraction" in data:
        _keys(data, {"fraction"})
        pair = data["fraction"]
        if not isinstance(pair, list) or len(pair) != 2:
            raise ValueError(f"a fraction is [numerator, denominator], got {_shown(pair)}")
        numerator, denominator = (_integer(n) for n in pair)
        if denominator == 0:
            raise ValueError("a fraction's denominator must not be 0")
        return Fraction(numerator, denominator)
    if "str" in data:
        _keys(data, {"str"})
        return _string(data, "str")
    if "tuple" in data:
        _keys(data, {"tuple"})
        items = data["tuple"]
        if not isinstance(items, list):
            raise ValueError(f"a tuple is a list of values, got {_shown(items)}")
        budget.take(len(items))
        return tuple(_decode(v, budget, depth + 1) for v in items)
    raise ValueError(f"cannot decode {_shown(data)}")


def decode_value(data: Any) -> Any:
    """The inverse of :func:`encode_value`: ValueError for anything it does not write."""
    return _decode(data, _Budget(), 0)


_PLANS_BY_NAME: dict[str, Any] = {}


def _plan_named(description: str) -> Any:
    if not _PLANS_BY_NAME:
        _PLANS_BY_NAME.update({p.describe(): p for p in resolvable_plans()})
    return _PLANS_BY_NAME.get(description)


def decode_call(data: Mapping[str, Any]) -> Call:
    """The :class:`Call` of an :func:`encode_call` document (ValueError if malformed)."""
    if not isinstance(data, Mapping):
        raise ValueError("not a plancheck call: expected a JSON object")
    try:
        _keys(data, {"v", "op", "args", "plan", "accumulator_dtype", "raises"})
        operation = data["op"]
        if not isinstance(operation, str) or len(operation) > 64:
            raise ValueError(f"operation {_shown(operation)}")
        if not isinstance(data["args"], list):
            raise ValueError("'args' must be a list")
        budget = _Budget()
        budget.take(len(data["args"]))
        args = tuple(_decode(a, budget, 1) for a in data["args"])
        accumulator: SimpleDType | None = None
        if data.get("accumulator_dtype") is not None:
            named = DType.from_name(_string(data, "accumulator_dtype"))
            if not isinstance(named, SimpleDType):
                raise ValueError(f"accumulator_dtype {named.name} is not a simple dtype")
            accumulator = named
        raised = data.get("raises", [])
        if not isinstance(raised, list) or not all(isinstance(n, str) for n in raised):
            raise ValueError("'raises' must be a list of exception names")
        raises = tuple(_EXCEPTIONS[name] for name in raised)
        plan_name = data.get("plan")
        if plan_name is not None and not isinstance(plan_name, str):
            raise ValueError("'plan' must be a string")
    except (KeyError, TypeError, AttributeError, ValueError, RecursionError) as error:
        raise ValueError(f"not a plancheck call: {str(error)[:300]}") from None
    plan = _plan_named(plan_name) if plan_name else None
    if plan is None:
        try:
            plan = resolve_call_plan(operation, args, accumulator)
        except Exception as error:
            raise ValueError(
                f"not a plancheck call: {operation} does not plan ({type(error).__name__}: "
                f"{str(error)[:300]}) and names no known plan"
            ) from None
    return Call(operation, args, accumulator, plan, raises)


def call_from_json(text: str) -> Call:
    """The call of :func:`call_to_json` text (ValueError if it is not one)."""
    if len(text) > 64 * MAX_ELEMENTS:
        raise ValueError(f"not a plancheck call: {len(text)} characters is too long")
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError, ValueError) as error:
        raise ValueError(f"not JSON: {str(error)[:300]}") from None
    if not isinstance(data, dict):
        raise ValueError("not a plancheck call: expected a JSON object")
    return decode_call(data)
