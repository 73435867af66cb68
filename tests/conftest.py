"""Shared fixtures. A real Mosquitto per test session (see tests/broker.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.broker import Broker

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "tests" / "records"  # worked examples copied from shared/examples


@pytest.fixture(scope="session")
def mosquitto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    """A broker for the whole session; do not stop it (use `own_mosquitto` for that)."""
    broker = Broker(tmp_path_factory.mktemp("mosquitto"))
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture
def own_mosquitto(tmp_path: Path) -> Iterator[Broker]:
    """A broker this test may stop and restart."""
    broker = Broker(tmp_path / "mosquitto")
    broker.start()
    yield broker
    broker.stop()
