"""The hub's clock driven by the test (hub/log/clock.py: every timer and stamp of the hub
reads ``clock.now()``): a long silence is a step of the clock, not a wait."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hub.log import clock


class DrivenClock:
    """``hub.log.clock.now`` plus an offset the test moves on."""

    def __init__(self) -> None:
        self.offset = 0.0
        self._real = clock.now

    def now(self) -> float:
        return self._real() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


@pytest.fixture
def hub_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[DrivenClock]:
    driven = DrivenClock()
    monkeypatch.setattr(clock, "now", driven.now)
    yield driven
