"""The exhaustive sweep's pytest plugin under its documented name.

``-p conformance.exhaustive_pytest`` loads the hooks of
:mod:`conformance.exhaustive.pytest_plugin`, where the plugin lives.
"""

from conformance.exhaustive.pytest_plugin import (
    Settings,
    pytest_addoption,
    pytest_configure,
    run_item,
    settings,
)

__all__ = ["Settings", "pytest_addoption", "pytest_configure", "run_item", "settings"]
