"""Witnesses of the result classes: inputs that are *found* to produce each class.

For every unary plan (``exhaustive.plan_ids()``: ``exp:Float32``,
``exp:Int32``, ...) the witnesses are computed once by

    python -m conformance.witnesses --write

and shipped as package data (``conformance/generate/data/witnesses.json``).  Three
searches, all over the certified vectorised oracle (:mod:`oracle.vectorised`),
all deterministic (no random numbers), produce them:

1. *Thresholds* (a scan, then bisection).  The input domain is cut into
   halves on which the input's value is monotone in its position (Float32:
   the bit patterns ``0x00000000..0x7F800000`` and ``0x80000000..0xFF800000``;
   Int32: the negative and the non-negative integers).  Each half is sampled at
   :data:`SCAN_POINTS` evenly spaced positions (for Int32 also every integer
   of magnitude at most 4096 and every ``+-2**k +- 1``), and every sample's
   result gets a *kind*: zero (with its sign), subnormal, normal, MAX_FINITE,
   +-1, infinity (with its sign), NaN.  Wherever two consecutive samples
   differ in kind, bisection on the positions between them ends at two
   *adjacent* inputs whose results differ in kind: an edge.  Bisection needs
   no monotonicity to find *an* edge between two samples of different kind
   (the kinds at its two ends always differ); where the function is monotone
   (``vectorised.MONOTONE``) that edge is the only one.  A non-monotone
   function may have edges the sample does not separate (a kind that comes
   and goes between two samples); they are not claimed.  Per half and per
   pair of kinds, the first and the last edge found are kept.
2. *Inversion* (exact where the inverse is).  For the results +-2**-149,
   +-0x007FFFFF, +-2**-126 and +-MAX_FINITE, the float64 inverse of the
   operation (:data:`INVERSES`) gives a candidate input; it and its four
   neighbours on each side are evaluated, and those whose certified result is
   exactly the target are kept (``exp2(-149) = 2**-149``), each with the
   input next to it on both sides.
3. *Special inputs*: the signed zeros, extreme subnormals and normals, +-1,
   +-2, +-0.5, +-MAX_FINITE and +-inf (Int32: 0, +-1, +-2, +-(2**24 + 1) and
   the Int32 limits).

The *hardest-to-round* inputs of a plan whose result is a rounding (the
correctly rounded operations, and sqrt, recip and leaky_relu) come from a
stratified sample of :data:`HARD_SAMPLE` inputs (Float32: the bit patterns
``i * 0x9E3779B9 mod 2**32`` for ``i < HARD_SAMPLE``, a Weyl sequence that
covers every binade and both signs evenly, NaNs and infinities dropped;
Int32: every integer of magnitude at most 2**16 and ``HARD_SAMPLE / 16``
Weyl-spread integers).  For each, a float64 formula gives the distance of
``f(x)`` to the nearest rounding midpoint in ULPs of the result
(:func:`conformance.classes.unary.midpoint_distance`: the vectorised
oracle's formula, stated error below 2**-21 ULP); the :data:`HARDEST` inputs
with the smallest distance (ties broken by the input's position) are kept
with that distance, rounded to 6 significant digits.

:func:`witness_calls` turns the witnesses of any plan into calls for the
suite to judge: for unary plans the data above, for every other plan the
calls of :mod:`conformance.generate.result_examples` (a palette search for elementwise
plans, structural examples for the other families).  :func:`reached_classes`
is the union of the result classes those calls hit.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import importlib.resources
import json
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from conformance.classes import unary
from conformance.classes.result import ResultClass, candidate_classes, result_classes_hit
from conformance.classes.unary import is_unary
from conformance.exhaustive import plan_ids
from conformance.generate import accumulator_witnesses, result_examples
from conformance.generate.rule_operands import tensor_dtype
from conformance.model.calls import Call, Family, family_of
from oracle import (
    DType,
    OperationPlan,
    Tensor,
    binary32,
    resolve_operation_plan,
)
from oracle.dtypes import INT32_MAX, INT32_MIN

__all__ = [
    "DATA_FILE",
    "HARDEST",
    "HARD_SAMPLE",
    "INVERSES",
    "SCAN_POINTS",
    "applicable_result_classes",
    "generate",
    "generate_plan",
    "load",
    "merged",
    "plan_id",
    "reached_classes",
    "unary_plan",
    "witness_calls",
]

F32, I32, BOOL = DType.Float32, DType.Int32, DType.Bool
DATA_FILE = "witnesses.json"
#: evenly spaced samples per half of the input domain in the threshold scan
SCAN_POINTS = 1 << 16
#: inputs in the stratified hard-to-round sample of one plan
HARD_SAMPLE = 1 << 20
#: hardest-to-round inputs kept per plan
HARDEST = 8
_WEYL = 0x9E3779B9  # odd: i -> i * _WEYL mod 2**32 is a bijection
_MAX, _MIN_SUB = binary32.MAX_FINITE, binary32.MIN_SUBNORMAL
_MAX_SUB, _MIN_NORMAL = binary32.from_bits(0x007FFFFF), binary32.MIN_NORMAL
_INF = math.inf


# ---------------------------------------------------------------------------
# Unary plans and their input domains
# ---------------------------------------------------------------------------


def unary_plan(identifier: str) -> OperationPlan:
    """The plan of ``op:Float32`` or ``op:Int32`` (``exhaustive.plan_ids()``)."""
    operation, _, dtype = identifier.partition(":")
    dtypes = {"Float32": F32, "Int32": I32}
    if dtype and dtype not in dtypes:
        raise KeyError(f"{identifier!r}: the input dtype is Float32 or Int32")
    plan = resolve_operation_plan(operation, dtypes[dtype or "Float32"])
    if not is_unary(plan):
        raise KeyError(f"{identifier!r} is not a unary plan")
    return plan


def plan_id(plan: OperationPlan) -> str:
    """``op:Float32`` / ``op:Int32`` of a unary *plan*."""
    return f"{plan.operation}:{tensor_dtype(plan.operands[0]).name}"


def _is_int(plan: OperationPlan) -> bool:
    return plan.operands[0].dtype is I32


def _inputs(plan: OperationPlan, positions: Sequence[int] | np.ndarray) -> np.ndarray:
    """Positions -> inputs: bit patterns of Float32, or the Int32 values themselves."""
    p = np.asarray(positions, dtype=np.int64)
    if _is_int(plan):
        return p.astype(np.int32)
    return p.astype(np.uint32).view(np.float32)


def _halves(plan: OperationPlan) -> tuple[tuple[int, int], ...]:
    if _is_int(plan):
        return ((INT32_MIN, -1), (0, INT32_MAX))
    return ((0x00000000, 0x7F800000), (0x80000000, 0xFF800000))


def _kinds(plan: OperationPlan, positions: Sequence[int] | np.ndarray) -> np.ndarray:
    """The :class:`~conformance.classes.unary.Kind` of the result at each position."""
    return unary.kinds(unary.reference(plan, _inputs(plan, positions)))


def _scan_positions(plan: OperationPlan, lo: int, hi: int) -> np.ndarray:
    points = np.linspace(lo, hi, SCAN_POINTS, dtype=np.float64).round().astype(np.int64)
    extra: list[int] = []
    if _is_int(plan):
        extra = list(range(-4096, 4097))
        for k in range(1, 32):
            extra += [2**k - 1, 2**k, 2**k + 1, -(2**k) - 1, -(2**k), -(2**k) + 1]
    chosen = np.concatenate([points, np.array(extra, np.int64)])
    chosen = chosen[(chosen >= lo) & (chosen <= hi)]
    return np.unique(chosen)


def _bisect(plan: OperationPlan, a: int, b: int, kind_a: int) -> tuple[int, int]:
    """Adjacent positions (c, c + 1) in [a, b] whose kinds differ (kind(a) != kind(b))."""
    while b - a > 1:
        middle = (a + b) // 2
        if _kinds(plan, [middle])[0] == kind_a:
            a = middle
        else:
            b = middle
    return a, b


def threshold_edges(plan: OperationPlan) -> list[tuple[int, int]]:
    """The edges (adjacent positions of different result kind) the scan finds."""
    edges: list[tuple[int, int]] = []
    for lo, hi in _halves(plan):
        positions = _scan_positions(plan, lo, hi)
        kinds = _kinds(plan, positions)
        change = np.flatnonzero(kinds[1:] != kinds[:-1])
        found: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for i in change.tolist():
            a, b = int(positions[i]), int(positions[i + 1])
            c, d = _bisect(plan, a, b, int(kinds[i]))
            pair = tuple(sorted(_kinds(plan, [c, d]).tolist()))  # the edge's own kinds
            found.setdefault(pair, []).append((c, d))
        for pair_edges in found.values():
            edges.extend(dict.fromkeys([pair_edges[0], pair_edges[-1]]))
    return edges


# ---------------------------------------------------------------------------
# Inversion and special inputs
# ---------------------------------------------------------------------------


def _erfinv(y: np.ndarray) -> np.ndarray:
    import scipy.special  # noqa: PLC0415 (only the erf witnesses need scipy)

    return scipy.special.erfinv(y)


#: Operation -> a float64 inverse (candidates only: every candidate is checked).
INVERSES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "exp": np.log,
    "exp2": np.log2,
    "log": np.exp,
    "log2": np.exp2,
    "tanh": np.arctanh,
    "erf": _erfinv,
    "sigmoid": lambda y: np.log(y / (1.0 - y)),
    "softplus": lambda y: np.log(np.expm1(y)),
    "elu": np.log1p,
    "sin": np.arcsin,
    "cos": np.arccos,
    "rsqrt": lambda y: 1.0 / (y * y),
    "recip": lambda y: 1.0 / y,
    "sqrt": lambda y: y * y,
    "neg": np.negative,
    "abs": lambda y: y,
    "relu": lambda y: y,
    "leaky_relu": lambda y: np.where(y < 0, y / 0.01, y),
}
_TARGETS = (_MIN_SUB, _MAX_SUB, _MIN_NORMAL, _MAX)


def inversion_witnesses(plan: OperationPlan) -> list[int]:
    """Positions whose result is exactly +-2**-149, +-0x007FFFFF, +-2**-126 or +-MAX_FINITE."""
    inverse = INVERSES.get(plan.operation)
    if inverse is None or plan.output is not F32:
        return []
    targets = np.array([s * t for t in _TARGETS for s in (1.0, -1.0)])
    with np.errstate(all="ignore"):
        guesses = np.asarray(inverse(targets), dtype=np.float64)
    found: list[int] = []
    for target, guess in zip(targets.tolist(), guesses.tolist()):
        if not math.isfinite(guess):
            continue
        if _is_int(plan):
            if not INT32_MIN <= guess <= INT32_MAX:
                continue
            centre = round(guess)
        else:
            if abs(guess) > _MAX:
                continue
            centre = int(np.float32(guess).view(np.uint32))
        candidates = [p for p in range(centre - 4, centre + 5) if _valid_position(plan, p)]
        values = unary.reference(plan, _inputs(plan, candidates)).astype(np.float32)
        want = binary32.to_bits(target)
        found += [p for p, v in zip(candidates, values.view(np.uint32).tolist()) if v == want]
    return found


def _valid_position(plan: OperationPlan, position: int) -> bool:
    if _is_int(plan):
        return INT32_MIN <= position <= INT32_MAX
    return 0 <= position < 2**32 and (position & 0x7FFFFFFF) <= 0x7F800000


def special_positions(plan: OperationPlan) -> list[int]:
    """The special inputs of a unary plan, as positions."""
    if _is_int(plan):
        return [0, 1, -1, 2, -2, 2**24 + 1, -(2**24) - 1, INT32_MAX, INT32_MIN]
    values = (0.0, _MIN_SUB, _MAX_SUB, _MIN_NORMAL, 1.0, 2.0, 0.5, _MAX, _INF)
    return [binary32.to_bits(s * v) for v in values for s in (1.0, -1.0)]


# ---------------------------------------------------------------------------
# Hardest to round
# ---------------------------------------------------------------------------


def _hard_sample(plan: OperationPlan) -> np.ndarray:
    spread = (np.arange(HARD_SAMPLE, dtype=np.uint64) * np.uint64(_WEYL)) & np.uint64(0xFFFFFFFF)
    if _is_int(plan):
        weyl = spread[: HARD_SAMPLE // 16].astype(np.uint32).view(np.int32).astype(np.int64)
        return np.unique(np.concatenate([np.arange(-(2**16), 2**16 + 1), weyl]))
    positions = spread.astype(np.int64)
    return positions[(positions & 0x7FFFFFFF) < 0x7F800000]


def hardest_to_round(plan: OperationPlan, count: int = HARDEST) -> list[tuple[int, float]]:
    """(position, distance in ULPs) of the *count* sampled inputs closest to a midpoint."""
    if not unary.measures_midpoint(plan):
        return []
    positions = _hard_sample(plan)
    distance = unary.midpoint_distance(plan, _inputs(plan, positions))
    keep = np.isfinite(distance)
    positions, distance = positions[keep], distance[keep]
    order = np.lexsort((positions, distance))[:count]
    return [(int(positions[i]), float(distance[i])) for i in order]


# ---------------------------------------------------------------------------
# Generation and the package data
# ---------------------------------------------------------------------------


def _encode(plan: OperationPlan, position: int) -> int | str:
    return position if _is_int(plan) else f"0x{position:08x}"


def _decode(plan: OperationPlan, item: int | str) -> int:
    return int(item) if _is_int(plan) else int(str(item), 16)


def _value_order(plan: OperationPlan, positions: Sequence[int]) -> list[int]:
    unique = sorted(set(positions))
    values = _inputs(plan, unique).astype(np.float64)
    return [p for _, p in sorted(zip(values.tolist(), unique))]


def generate_plan(identifier: str) -> dict[str, Any]:
    """The witness record of one unary plan (deterministic)."""
    plan = unary_plan(identifier)
    found = list(special_positions(plan))
    if plan.output is F32:
        for a, b in threshold_edges(plan):
            found += [a, b]
        for p in inversion_witnesses(plan):  # each exact hit with its two neighbours
            found += [q for q in (p - 1, p, p + 1) if _valid_position(plan, q)]
    thresholds = _value_order(plan, found)
    hardest = hardest_to_round(plan)
    record: dict[str, Any] = {
        "thresholds": [_encode(plan, p) for p in thresholds],
        "hardest": [[_encode(plan, p), float(f"{d:.6g}")] for p, d in hardest],
    }
    reached: set[ResultClass] = set()
    for call in _unary_calls(plan, record):
        reached |= result_classes_hit(call)
    record["reached"] = sorted(c.name for c in reached)
    return record


def generate(identifiers: Sequence[str] | None = None) -> dict[str, Any]:
    """The whole package data (every unary plan unless *identifiers* are given)."""

    chosen = list(plan_ids() if identifiers is None else identifiers)
    return {
        "generator": "python -m conformance.witnesses --write",
        "scan_points": SCAN_POINTS,
        "hard_sample": HARD_SAMPLE,
        "hardest": HARDEST,
        "plans": {identifier: generate_plan(identifier) for identifier in chosen},
    }


def merged(shipped: dict[str, Any], fresh: dict[str, Any]) -> dict[str, Any]:
    """*shipped* with the plan records of *fresh* put in (added or replaced).

    The search settings (scan points, hard sample, hardest count) must be the
    same in both, or the records would not be comparable: ValueError names the
    setting that differs (regenerate every plan then, ``--write`` alone).
    """
    for key in ("scan_points", "hard_sample", "hardest"):
        if shipped.get(key) != fresh.get(key):
            raise ValueError(
                f"the shipped witnesses were searched with {key} = {shipped.get(key)!r}, "
                f"this search with {fresh.get(key)!r}: regenerate every plan (--write alone)"
            )
    return {**shipped, "plans": {**shipped["plans"], **fresh["plans"]}}


def dumps(data: dict[str, Any]) -> str:
    """The canonical text of the data: one line per plan, sorted keys."""
    plans = data["plans"]
    head = {k: v for k, v in data.items() if k != "plans"}
    lines = [json.dumps(head, sort_keys=True)[:-1] + ', "plans": {']
    items = [f"{json.dumps(k)}: {json.dumps(plans[k], sort_keys=True)}" for k in sorted(plans)]
    lines.append(",\n".join(items))
    lines.append("}}")
    return "\n".join(lines) + "\n"


def digest(data: dict[str, Any]) -> str:
    return hashlib.sha256(dumps(data).encode()).hexdigest()


@functools.cache
def load() -> dict[str, Any]:
    """The shipped witness data (``conformance/generate/data/witnesses.json``)."""
    text = (importlib.resources.files(__package__) / "data" / DATA_FILE).read_text()
    return json.loads(text)


# ---------------------------------------------------------------------------
# Calls
# ---------------------------------------------------------------------------


def _unary_call(plan: OperationPlan, positions: Sequence[int], note: str) -> Call:
    inputs = _inputs(plan, positions)
    if _is_int(plan):
        tensor = Tensor(I32, (len(positions),), tuple(int(n) for n in inputs.tolist()))
    else:
        tensor = Tensor.from_bits(F32, (len(positions),), [int(b) for b in positions])
    return Call(plan.operation, (tensor,), None, plan, note=note)


def _unary_calls(plan: OperationPlan, record: dict[str, Any]) -> list[Call]:
    identifier = plan_id(plan)
    calls = [
        _unary_call(
            plan,
            [_decode(plan, p) for p in record["thresholds"]],
            f"result-class thresholds of {identifier} (witnesses.json)",
        )
    ]
    if record["hardest"]:
        calls.append(
            _unary_call(
                plan,
                [_decode(plan, p) for p, _ in record["hardest"]],
                f"the {len(record['hardest'])} hardest-to-round inputs of {identifier} "
                f"found in the stratified sample (witnesses.json)",
            )
        )
    return calls


@functools.cache
def _calls(plan: OperationPlan) -> tuple[Call, ...]:
    if not candidate_classes(plan):
        return ()
    if is_unary(plan):
        record = load()["plans"].get(plan_id(plan))
        if record is None:
            raise LookupError(f"{plan_id(plan)}: no witnesses in {DATA_FILE}; regenerate it")
        return tuple(_unary_calls(plan, record))
    return tuple(result_examples.examples(plan))


def witness_calls(plan: OperationPlan) -> list[Call]:
    """The calls that reach *plan*'s result classes (see the module docstring)."""
    return list(_calls(plan))


@functools.cache
def reached_classes(plan: OperationPlan) -> frozenset[ResultClass]:
    """The result classes the witness calls of *plan* hit (unary: as recorded)."""
    if is_unary(plan):
        record = load()["plans"][plan_id(plan)]
        return frozenset(ResultClass[name] for name in record["reached"])
    reached: set[ResultClass] = set()
    for call in _calls(plan):
        reached |= result_classes_hit(call)
    return frozenset(reached)


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------


def _data_path() -> Path:
    return Path(__file__).resolve().parent / "data" / DATA_FILE


@functools.cache
def applicable_result_classes(plan: OperationPlan) -> frozenset[ResultClass]:
    """The candidates of *plan* that some input is known to reach.

    Unary plans: the classes the witness search found (``witnesses.json``);
    other elementwise plans: the classes their palette search found; every
    other family: all its candidates (its structural examples reach them,
    which ``tests/test_witnesses.py`` checks).
    """
    candidates = candidate_classes(plan)
    if family_of(plan.operation) is Family.ELEMENTWISE:
        return candidates & reached_classes(plan)
    return candidates


def _accumulator_path() -> Path:
    return Path(__file__).resolve().parent / "data" / accumulator_witnesses.DATA_FILE


def _accumulator_command(write: bool, check: bool) -> int:
    """``--accumulators``: search, write or check the Float64-accumulator witnesses."""
    data = accumulator_witnesses.generate()
    text = accumulator_witnesses.dumps(data)
    if write:
        _accumulator_path().write_text(text)
        print(f"wrote {_accumulator_path()} ({len(text)} bytes, {len(data['rows'])} rows)")
        return 0
    if check:
        same = accumulator_witnesses.load() == json.loads(text)
        name = accumulator_witnesses.DATA_FILE
        print(f"{name} is up to date" if same else f"{name} differs: regenerate")
        return 0 if same else 1
    sys.stdout.write(text)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m conformance.generate.witnesses",
        description="Generate the result-class witnesses of every unary plan and the "
        "Float64-accumulator witnesses.",
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help=f"write conformance/generate/data/{DATA_FILE} and {accumulator_witnesses.DATA_FILE}",
    )
    parser.add_argument("--check", action="store_true", help="exit 1 if a shipped file differs")
    parser.add_argument(
        "--plan",
        action="append",
        help="only this plan (op:Float32), repeatable; with --write, merge its record into "
        "the shipped file and keep every other plan's",
    )
    parser.add_argument(
        "--accumulators",
        action="store_true",
        help=f"only the Float64-accumulator witnesses ({accumulator_witnesses.DATA_FILE})",
    )
    args = parser.parse_args(argv)
    if args.accumulators:
        if args.plan:
            parser.error("--accumulators and --plan select different data: give one")
        return _accumulator_command(args.write, args.check)
    try:
        data = generate(args.plan)
    except (KeyError, NotImplementedError, TypeError) as error:
        parser.error(f"not a unary plan (see exhaustive.plan_ids()): {error}")
    if args.write and args.plan:
        data = merged(load(), data)
    text = dumps(data)
    if args.write:
        _data_path().parent.mkdir(exist_ok=True)
        _data_path().write_text(text)
        print(f"wrote {_data_path()} ({len(text)} bytes, sha256 {digest(data)[:16]})")
        return 0 if args.plan else _accumulator_command(True, False)
    if args.check:
        shipped = load()
        plans = {k: shipped["plans"].get(k) for k in data["plans"]}
        same = plans == data["plans"]
        print("witnesses.json is up to date" if same else "witnesses.json differs: regenerate")
        if args.plan:
            return 0 if same else 1
        return 0 if same and _accumulator_command(False, True) == 0 else 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
