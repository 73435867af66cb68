"""Issue 24.6: every timer and timeout of the hub runs on a clock that does not step
(hub/log/clock.py). Before, gap timers read ``time.time()``: a +120 s step (NTP on a laptop
waking up) while a gap was open gave it up within a second, and the board's resend was
dropped as a duplicate; a step back stopped the resend requests. Here the wall clock the
code reads (``time.time``) is stepped for real, in both directions, while a real pty
board holds a gap open."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hub.devices.serial_link import SerialTransport
from hub.facade import Hub
from tests.hub.boards import PtyBoard, wait_for

STEP_S = 120.0


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[tuple[Hub, PtyBoard]]:
    hub = Hub(str(tmp_path / "run.db"), settle_s=0.05)
    hub.start()
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1")
    device = PtyBoard("B1", tmp_path / "ttyB1")
    link = SerialTransport([str(device.path)])
    hub.add_transport(link)
    assert wait_for(lambda: link.describe()["ports"][0]["open"], timeout=10)
    device.event("hello", fw="test", config="c", holes=["big", "small"])
    assert wait_for(lambda: device.out.acked == 1, timeout=10)
    yield hub, device
    device.unplug()
    hub.close()


def count_ticks(hub: Hub, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many timer ticks ran (a spy on IngestLoop.tick: the timer thread calls it)."""
    ticks = [0]
    tick = hub.ingest_loop.tick

    def counted(now: float) -> bool:
        ticks[0] += 1
        return tick(now)

    monkeypatch.setattr(hub.ingest_loop, "tick", counted)
    return ticks


def heard_resend_requests(device: PtyBoard) -> list[dict[str, Any]]:
    heard: list[dict[str, Any]] = []
    lock = threading.Lock()
    on_ack = device.out.on_ack

    def hear(msg: dict[str, Any]) -> None:
        if msg.get("cmd") == "resend":
            with lock:
                heard.append(msg)
        on_ack(msg)

    device.out.on_ack = hear  # type: ignore[method-assign]
    return heard


@pytest.mark.slow  # 2-3 s: the fast loop stays under a minute
@pytest.mark.parametrize("step_s", [STEP_S, -STEP_S], ids=["forward", "back"])
def test_a_wall_clock_step_while_a_gap_is_open_loses_nothing_24_6(
        rig: tuple[Hub, PtyBoard], monkeypatch: pytest.MonkeyPatch, step_s: float) -> None:
    hub, device = rig
    asks = heard_resend_requests(device)
    missing = device.out.make("bounce", hole="big")  # seq 2: lost on the way
    device.event("bounce", hole="small")  # seq 3: the hub sees the gap
    assert wait_for(lambda: len(asks) >= 1, timeout=10)  # asked for at once
    ticks = count_ticks(hub, monkeypatch)
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + step_s)
    asked = len(asks)
    device.send(device.out.health())  # the board keeps talking (a gap whose board is
    # heard long after it opened is given up: its resend is not coming)
    assert wait_for(lambda: hub.ingest_loop.inbox.idle(), timeout=30)
    seen = ticks[0]
    # The hub keeps asking (every ASK_EVERY_S on its own clock) and gives nothing up.
    assert wait_for(lambda: len(asks) > asked and ticks[0] >= seen + 8, timeout=30)
    assert device.out.acked == 1
    device.send(missing)  # the board's resend
    assert wait_for(lambda: device.out.acked == 3, timeout=30)
    stored = [e.seq for e in hub.store.entries() if e.board == "B1" and e.seq is not None]
    assert stored == [1, 2, 3]  # the resend stored (in order), not dropped as a duplicate
