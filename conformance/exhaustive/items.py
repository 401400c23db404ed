"""Exhaustive certification of every unary plan: all 2**32 inputs, one pytest item per shard.

This test module ships inside the package, so an installed plancheck runs it
from any directory (``plancheck exhaustive --jobs N`` does, by its path)::

    python -m pytest --pyargs conformance.exhaustive.items -m exhaustive \\
        -p conformance.exhaustive_pytest --exhaustive-op exp --exhaustive-shard 3/64

``tests/test_exhaustive_sweep.py`` is the same module under the checkout's
documented name.  Opt-in (``-m exhaustive``; the plugin registers the marker).  Every (plan,
shard) pair is an ordinary test item with an id like ``exp-Float32-s007of064``,
so pytest-xdist spreads the shards over its workers -- local processes or,
through its gateways, other machines::

    python -m pytest --pyargs conformance.exhaustive.items -m exhaustive \\
        -p conformance.exhaustive.pytest_plugin --exhaustive-op exp --exhaustive-dtype Int32 -n 2
    python -m pytest --pyargs conformance.exhaustive.items -m exhaustive \\
        -p conformance.exhaustive.pytest_plugin --exhaustive-op exp --dist load --tx 2*popen

With the plugin (``-p conformance.exhaustive.pytest_plugin``) the sweep is configured
by the same options as ``plancheck exhaustive`` (``--exhaustive-backend``,
``--exhaustive-op``, ``--exhaustive-dtype``, ``--exhaustive-shards``,
``--exhaustive-sample``, ``--exhaustive-shard``, ``--exhaustive-ulp-budget``,
``--exhaustive-state``, ``--exhaustive-fresh``, ``--exhaustive-also``,
``--exhaustive-timeout``) and the
controller alone writes the state file.  An option not given falls back to
its environment variable, which also configures a run without the plugin
(every worker then appends to the state file itself):

=================================  ==============================================
``PLANCHECK_EXHAUSTIVE_BACKEND``   backend to certify (default ``cpu``)
``PLANCHECK_EXHAUSTIVE_PLANS``     comma list of plans (``exp:Float32,exp:Int32``)
``PLANCHECK_EXHAUSTIVE_OPS``       comma list of operations (both dtypes)
``PLANCHECK_EXHAUSTIVE_SHARDS``    shard count N (default 64; 512 K with a sample)
``PLANCHECK_EXHAUSTIVE_STATE``     state file (default ``.plancheck/exhaustive.jsonl``)
``PLANCHECK_EXHAUSTIVE_ULP_BUDGET`` ULP budget for correctly rounded plans (default 0)
``PLANCHECK_EXHAUSTIVE_ALSO``      backends measured alongside (``numpy-float32``)
``PLANCHECK_EXHAUSTIVE_FRESH``     ``1``: check recorded shards again
``PLANCHECK_EXHAUSTIVE_SAMPLE``    K: only every K-th shard (K/2, 3K/2, ...): a
                                   stratified sample of 1/K of the inputs
``PLANCHECK_EXHAUSTIVE_TIMEOUT``   seconds a backend may take on one chunk
                                   (default 120; past it: ``hang``)
=================================  ==============================================

The verdict, the summary and the accuracy tables come from the state file:
``plancheck exhaustive --backend cpu --table``.
"""

from __future__ import annotations

import pytest

from conformance.exhaustive import pytest_plugin as exhaustive_pytest

pytestmark = pytest.mark.exhaustive


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "shard" not in metafunc.fixturenames:
        return
    chosen = exhaustive_pytest.settings(metafunc.config)
    items = [(plan, shard) for plan in chosen.plans for shard in chosen.indices]
    width = max(3, len(str(chosen.shards - 1)))
    metafunc.parametrize(
        ("plan", "shard"),
        items,
        ids=[
            f"{plan.replace(':', '-')}-s{shard:0{width}d}of{chosen.shards:0{width}d}"
            for plan, shard in items
        ],
    )


def test_shard_conforms(request: pytest.FixtureRequest, plan: str, shard: int) -> None:
    result = exhaustive_pytest.run_item(request, plan, shard)
    assert result.ok, result.describe()
