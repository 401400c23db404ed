"""The sweep's pytest items under the checkout's documented name.

The items live in the package, :mod:`conformance.exhaustive.items` (so an
installed plancheck can run them); this module collects the same items::

    python -m pytest tests/test_exhaustive_sweep.py -m exhaustive -n auto \\
        -p conformance.exhaustive_pytest --exhaustive-op exp
"""

from conformance.exhaustive.items import pytest_generate_tests, pytestmark, test_shard_conforms

__all__ = ["pytest_generate_tests", "pytestmark", "test_shard_conforms"]
