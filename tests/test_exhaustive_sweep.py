"""Exhaustive certification of every unary plan: all 2**32 inputs, one pytest item per shard.

Opt-in (``-m exhaustive``); the default run deselects it.  Every (plan,
shard) pair is an ordinary test item with an id like ``exp-Float32-s007of064``,
so pytest-xdist spreads the shards over the workers::

    python -m pytest tests/test_exhaustive_sweep.py -m exhaustive -n auto

Each finished shard is appended to the state file; a shard already recorded
there is not run again (resumption).  The summary and the accuracy tables
come from that file: ``plancheck exhaustive --backend cpu --table``.

Environment (all optional):

=================================  ==============================================
``PLANCHECK_EXHAUSTIVE_BACKEND``   backend to certify (default ``cpu``)
``PLANCHECK_EXHAUSTIVE_PLANS``     comma list of plans (``exp:Float32,exp:Int32``)
``PLANCHECK_EXHAUSTIVE_OPS``       comma list of operations (both dtypes)
``PLANCHECK_EXHAUSTIVE_SHARDS``    shard count N (default 64; 512 K with a sample)
``PLANCHECK_EXHAUSTIVE_STATE``     state file (default ``.plancheck/exhaustive.jsonl``)
``PLANCHECK_EXHAUSTIVE_ULP_BUDGET`` ULP budget for correctly rounded plans (default 0)
``PLANCHECK_EXHAUSTIVE_ALSO``      backends measured alongside (``numpy-float32``)
``PLANCHECK_EXHAUSTIVE_FRESH``     ``1``: ignore recorded shards
``PLANCHECK_EXHAUSTIVE_SAMPLE``    K: only every K-th shard (K/2, 3K/2, ...): a
                                   stratified sample of 1/K of the inputs
=================================  ==============================================
"""

from __future__ import annotations

import os

import pytest

from conformance import exhaustive

pytestmark = pytest.mark.exhaustive

_ENV = os.environ.get
BACKEND = _ENV("PLANCHECK_EXHAUSTIVE_BACKEND", "cpu")

STATE = _ENV("PLANCHECK_EXHAUSTIVE_STATE", str(exhaustive.DEFAULT_STATE))
BUDGET = int(_ENV("PLANCHECK_EXHAUSTIVE_ULP_BUDGET", "0"))
ALSO = [name for name in _ENV("PLANCHECK_EXHAUSTIVE_ALSO", "").split(",") if name]
FRESH = _ENV("PLANCHECK_EXHAUSTIVE_FRESH", "") == "1"
SAMPLE = int(_ENV("PLANCHECK_EXHAUSTIVE_SAMPLE", "1"))
SHARDS = exhaustive.default_shards(
    int(_ENV("PLANCHECK_EXHAUSTIVE_SHARDS")) if _ENV("PLANCHECK_EXHAUSTIVE_SHARDS") else None,
    SAMPLE,
)


def _plans() -> list[str]:
    if _ENV("PLANCHECK_EXHAUSTIVE_PLANS"):
        return [p for p in _ENV("PLANCHECK_EXHAUSTIVE_PLANS", "").split(",") if p]
    ops = _ENV("PLANCHECK_EXHAUSTIVE_OPS")
    return exhaustive.plan_ids(None if not ops else [o for o in ops.split(",") if o])


PLANS = _plans()
ITEMS = [(plan, shard) for plan in PLANS for shard in exhaustive.sampled_shards(SHARDS, SAMPLE)]


@pytest.mark.parametrize(
    ("plan", "shard"),
    ITEMS,
    ids=[f"{plan.replace(':', '-')}-s{shard:03d}of{SHARDS:03d}" for plan, shard in ITEMS],
)
def test_shard_conforms(plan, shard):
    result, _resumed = exhaustive.run_shard(
        BACKEND, plan, shard, SHARDS, ulp_budget=BUDGET, state=STATE, fresh=FRESH, also=ALSO
    )
    assert result.ok, result.describe()
