"""The chip tests (marker ``hil``): skipped, with one reason, when the MicroPython images
or the emulator are not here (tests/hil/chip.py says where it looks)."""

from __future__ import annotations

import pytest

from tests.hil.chip import missing_reason


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = missing_reason()
    if reason is None:
        return
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if "hil" in item.keywords:
            item.add_marker(skip)
