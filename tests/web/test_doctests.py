"""The web package's doctests (scripts/test collects doctests only in engines and hub)."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["web.i18n", "web.view_readers", "web.feed", "web.console", "web.admin", "web.security", "web.describe", "web.errors", "web.stream"])
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
