"""A ``cmd newboot`` lost on the way (hub → board messages go at QoS 0: one sent while
the broker is down is gone) is asked again, like ``cmd resend``, until the board's hello
under a fresh boot id arrives — the board does not have to resend first.

Real hub, real firmware node (CPython) with an erased flash reusing a boot id, over the
hub's in-memory transport; the lost message is the one fault made up here (the broker's
outage at that very instant cannot be timed for real). The board's clock stays well
under its resend period (2 s), so only the hub's asking again can get its throw stored."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from firmware.node import Node
from firmware.outbox import MemoryStorage
from tests.hub.boards import wait_for
from tests.hub.conftest import Rig
from tests.hub.devices.test_boot_ids import CFG, Board, HubLink, board_after_a_throw, stored

pytestmark = pytest.mark.slow  # the hub asks again after ASK_EVERY_S (2 s): ~4 s in all


class BrokerDownLink(HubLink):
    """H11's link into the hub, through a broker that can be down for hub → board
    messages: what the hub sends meanwhile is lost (QoS 0, nobody subscribed)."""

    def __init__(self, rig: Rig) -> None:
        super().__init__(rig)
        self.down = False
        self.lost: list[dict[str, Any]] = []

    def service(self, now: int) -> None:
        if self.down:
            sent = self.rig.link.sent
            self.lost += [msg for board, msg in sent[self.read:] if board == "B1"]
            self.read = len(sent)
        super().service(now)


class SpareBoard(Board):
    """H11's board with an erased flash (the boot counter starts at 1), on ``link``."""

    def __init__(self, link: HubLink, random16: int, start_us: int) -> None:
        self.now = start_us
        self.node = Node(CFG, lambda: self.now, lambda ch: False, storage=MemoryStorage(),
                         random16=lambda: random16)
        self.node.keep_events = True
        self.node.add_link(link)
        self.node.start()


def running(board: Board, done: Callable[[], bool], timeout: float = 30.0, ms: int = 2) -> bool:
    """Poll the board (``ms`` of its clock a step) until ``done``."""
    def step() -> bool:
        board.run(ms)
        return done()
    return wait_for(step, timeout)


def newboots(rig: Rig) -> int:
    return sum(1 for board, msg in rig.link.sent if board == "B1" and msg.get("cmd") == "newboot")


def test_a_lost_newboot_is_asked_again_until_the_board_takes_a_fresh_boot_id(tmp_path: Path) -> None:
    rig = Rig(tmp_path / "hub.db")
    try:
        first = board_after_a_throw(rig)
        boot = first.node.boot
        link = BrokerDownLink(rig)
        link.down = True
        spare = SpareBoard(link, 0x0ABC, 90_000_000)  # same board id, same boot id
        spare.drop(1)  # Ben: small — reaches the hub, which answers cmd newboot into the outage
        spare.run(200)  # everything it has is sent (0.2 s on its clock, far from a resend)
        assert rig.hub.flush()
        spare.run(2)  # the hub's answers meanwhile are lost
        assert [m["cmd"] for m in link.lost if m.get("type") == "cmd"].count("newboot") >= 1
        assert spare.node.boot == boot and stored(rig) == [("Ana", "B1.big")]
        link.down = False  # the broker is back; the board has nothing new to say
        started = spare.now
        assert running(spare, lambda: spare.node.boot != boot), "newboot was not asked again"
        assert running(spare, lambda: stored(rig) == [("Ana", "B1.big"), ("Ben", "B1.small")])
        assert spare.now - started < 2_000_000  # under resend_ms on the board's clock: no resend of its own
        asked = newboots(rig)
        assert running(spare, lambda: spare.node.outbox.unacked() == 0)
        rig.hub.flush()
        assert newboots(rig) == asked  # the fresh boot's hello stopped the asking
    finally:
        rig.close()
