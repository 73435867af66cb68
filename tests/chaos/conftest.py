"""Fixtures of the fault-injection suite (issue 13): the shipped broker configuration
with its users, hubs that run in this process or as the real ``trigono hub``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.broker import AuthBroker, mosquitto_binary

BOARDS = ["B1", "B2", "B3", "B4"]


@pytest.fixture
def auth_broker(tmp_path: Path) -> Iterator[AuthBroker]:
    """hardware/mosquitto/ as Debian runs it, users from scripts/mqtt-users (boards
    B1-B4, hubs ``hub`` and ``hub2``), with a TLS listener beside the plain one."""
    mosquitto_binary()
    broker = AuthBroker(tmp_path / "broker", BOARDS, hubs=["hub", "hub2"], tls=True)
    broker.start()
    yield broker
    broker.stop()
