"""How many xdist workers ``-n auto`` starts for a plancheck run."""

from __future__ import annotations

import os
from typing import Any

from conformance.model.options import auto_workers
from conformance.pytest_plugin.options import apply_ini
from oracle import resolvable_plans

__all__ = ["auto_num_workers"]


def auto_num_workers(config: Any) -> int | None:
    """Workers by the amount of work (:func:`conformance.model.options.auto_workers`),
    not by the CPUs alone; None (xdist decides) when ``PYTEST_XDIST_AUTO_NUM_WORKERS``
    is set or no backend is named."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    apply_ini(config)
    if not config.option.plancheck_backend:
        return None
    ops = set(config.option.plancheck_op)
    plans = sum(1 for p in resolvable_plans() if not ops or p.operation in ops)
    return auto_workers(plans * len(set(config.option.plancheck_backend)))
