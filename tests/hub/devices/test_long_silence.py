"""Issue 32.2: a silence of any length does not change a score. The hub knows a board's
time (``t_us``, ticks_us: it wraps every 2**30 µs, 17.9 min) only modulo the wrap; after
9 to 18 minutes without a word, the board's newer time read as older, the hub's copy of
its clock stuck, every settle window looked over at once, and a knock-in was scored as a
throw of its own. Here a board on a pty falls silent (the hub's clock and the board's
move on together, driven, not waited for), then a drop and a knock-in come."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hub.devices.serial_link import SerialTransport
from hub.facade import Hub
from tests.hub.boards import PtyBoard, wait_for
from tests.hub.devices.conftest import DrivenClock

SETTLE_S = 0.3


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[tuple[Hub, PtyBoard]]:
    hub = Hub(str(tmp_path / "run.db"))
    hub.start()
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=1, table_id="t1",
                     options={"first": "Ana"}, referee={"settle_s": SETTLE_S})
    hub.submit("t1", {"landed": "board:B1"})  # two palets lie on B1: one can be knocked in
    hub.submit("t1", {"landed": "board:B1"})
    device = PtyBoard("B1", tmp_path / "ttyB1")
    link = SerialTransport([str(device.path)])
    hub.add_transport(link)
    assert wait_for(lambda: link.describe()["ports"][0]["open"], timeout=10)
    device.event("hello", fw="test", config="c", holes=["big", "small"])
    assert wait_for(lambda: device.out.acked == 1, timeout=10)
    yield hub, device
    device.unplug()
    hub.close()


def last_throw(hub: Hub) -> dict[str, Any]:
    log = hub.table_view("t1")["state"]["log"]
    return [e["action"]["throw"] for e in log if "throw" in e["action"]][-1]


@pytest.mark.parametrize("minutes", [0, 9, 12, 18, 40])
def test_T12_a_knock_in_after_a_long_silence_joins_its_throw_32_2(
        rig: tuple[Hub, PtyBoard], hub_clock: DrivenClock, minutes: int) -> None:
    hub, device = rig
    hub_clock.advance(minutes * 60.0)  # nothing heard (Wi-Fi down, broker restarting)
    device.out.skew_us += minutes * 60_000_000  # while the board's own time goes on
    device.event("drop", hole="small")
    assert wait_for(lambda: hub.table_view("t1")["throw"] is not None, timeout=10)
    hub.tick(hub_clock.now())  # the timer looks at the window before the knock-in comes
    assert hub.table_view("t1")["throw"] is not None, "the window closed on a stuck clock"
    device.event("drop", hole="big")  # knocked in by the same palet, within the window
    assert wait_for(lambda: device.out.acked == 3 and hub.table_view("t1")["throw"] is None, timeout=10)
    assert last_throw(hub) == {"player": "Ana", "to": "B1.small", "knocked": [{"from": "B1", "to": "B1.big"}]}


def test_the_clock_follows_the_order_the_board_made_its_messages_in_32_2() -> None:
    """Pure: a later event shows a later time even when it reads as 9-18 minutes earlier;
    a health made before an event stored with it, or an event stamped a little before the
    one ahead of it, never moves the clock back."""
    from hub.devices.ingest import IngestState

    state: IngestState[str] = IngestState()
    key, wrap = ("B1", 1), 1 << 30
    state._show_clock(key, 1_000, (1, 0), at=0.0)
    state._show_clock(key, 1_000 + 600_000_000, (2, 0), at=600.0)  # 10 minutes later
    assert state.board_clock(*key) == 1_000 + 600_000_000
    state._show_clock(key, 1_000 + 600_000_000 - 500_000, (3, 0), at=600.1)  # its edge came first
    assert state.board_clock(*key) == 1_000 + 600_000_000
    state._show_clock(key, 5_000, (2, 1), at=601.0)  # a health made before seq 3, shown late
    assert state.board_clock(*key) == 1_000 + 600_000_000
    later = (1_000 + 600_000_000 + 1_000_000_000) % wrap  # 16.7 more minutes: reads as earlier
    state._show_clock(key, later, (4, 0), at=1601.0)
    assert state.board_clock(*key) == later


def test_a_quiet_boards_healths_move_its_clock_on_with_no_event_between_them() -> None:
    """Two health messages after the same last seq: the later-made one shows a later time
    (the throw line's floor throw waited 10 s of hub fallback when it did not)."""
    from hub.devices.ingest import IngestState

    state: IngestState[str] = IngestState()
    key = ("B1", 7)
    state._show_clock(key, 1_000, (3, 0), at=0.0)
    state._show_clock(key, 2_000_000, (3, 1), at=2.0)
    state._show_clock(key, 3_000_000, (3, 1), at=3.0)  # one second later, nothing sensed between
    assert state.board_clock(*key) == 3_000_000
    state._show_clock(key, 2_500_000, (3, 1), at=3.1)  # an older health delivered late
    assert state.board_clock(*key) == 3_000_000
    state._show_clock(key, 2_900_000, (3, 0), at=3.2)  # the same event shown again
    assert state.board_clock(*key) == 3_000_000
