"""Exhaustive certification of unary plans: every one of the 2**32 inputs.

The public front of the sweep (hypothesis style: the names users, the docs,
the benchmarks and the tests import are re-exported here, and only these).
Where each lives:

* :mod:`conformance.exhaustive.sweep` -- plans, shards, backends, the
  comparison, the check of one range (:func:`check_range`) and of one shard
  (:func:`run_shard`);
* :mod:`conformance.exhaustive.int32` -- Int32 plans decided by range;
* :mod:`conformance.exhaustive.ulp_error` -- the real error in ulps (the
  surveys' measure);
* :mod:`conformance.exhaustive.digest` -- what a record's oracle digest covers
  (the code and the table row that determine one plan's expected values);
* :mod:`conformance.exhaustive.state` -- the state file: identities, records,
  locked appends, claims;
* :mod:`conformance.exhaustive.summary` -- summaries and accuracy tables;
* :mod:`conformance.exhaustive.hosted` -- the backend in its host process
  (:mod:`conformance.host`): chunks through shared memory, two in flight;
* :mod:`conformance.exhaustive.cli` -- ``plancheck exhaustive``;
* :mod:`conformance.exhaustive.pytest_plugin` and
  :mod:`conformance.exhaustive.items` -- every (plan, shard) as a pytest item.

The package depends on :mod:`conformance.model`, the oracle and
:mod:`conformance.host` (the backend is loaded and run only in a host
process, never here); its modules import one another in one direction
(``int32``, ``ulp_error``, ``digest`` -> ``state`` -> ``summary`` ->
``hosted`` -> ``sweep`` -> ``cli`` -> ``pytest_plugin`` -> ``items``) and this
front imports them all.
"""

from conformance.exhaustive.cli import add_arguments, main
from conformance.exhaustive.state import StateError, StatePathError, Store
from conformance.exhaustive.summary import PlanSummary, accuracy_table, summarise
from conformance.exhaustive.sweep import (
    DEFAULT_SHARDS,
    DEFAULT_STATE,
    DEFAULT_TIMEOUT,
    NUMPY_MISSING,
    TOTAL,
    Interrupted,
    JudgeEnvironmentError,
    ShardResult,
    check_range,
    count_mismatches,
    current_records,
    default_shards,
    judge_environment,
    load_state,
    numpy_float32,
    plan_ids,
    run_shard,
    runner,
    sampled_shards,
    shard_of,
    shard_range,
    stopped_by_host,
    to_record,
)

__all__ = [
    "DEFAULT_SHARDS",
    "DEFAULT_STATE",
    "DEFAULT_TIMEOUT",
    "NUMPY_MISSING",
    "TOTAL",
    "Interrupted",
    "JudgeEnvironmentError",
    "PlanSummary",
    "ShardResult",
    "StateError",
    "StatePathError",
    "Store",
    "accuracy_table",
    "add_arguments",
    "check_range",
    "count_mismatches",
    "current_records",
    "default_shards",
    "judge_environment",
    "load_state",
    "main",
    "numpy_float32",
    "plan_ids",
    "run_shard",
    "runner",
    "sampled_shards",
    "shard_of",
    "shard_range",
    "stopped_by_host",
    "summarise",
    "to_record",
]
