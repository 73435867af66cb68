"""A reused boot id (issue 14, finding 5): flash erased (the boot counter starts again)
and the random bits the same by bad luck, or a spare board given the same id and boot.
The hub used to take the new board's events for resends of the old ones: it dropped them
and acknowledged them, so the board threw them away. Now it alerts, acknowledges nothing
of that boot any more, and tells the board to take a fresh boot id (`cmd newboot`); the
board moves its unacknowledged events there and they are stored.

Real hub, real firmware nodes (CPython), over the hub's in-memory transport."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from firmware import config
from firmware.node import Node
from firmware.outbox import MemoryStorage
from hub.tables.wording import line
from tests.hub.boards import wait_for
from tests.hub.conftest import Rig

CFG = config.load({"board": "B1", "port": "unix", "holes": [{"name": "big", "beams": [2]},
                                                            {"name": "small", "beams": [3]}]})


class HubLink:
    """A firmware link into the hub's FakeTransport (hub -> board: its `sent` list)."""

    name = "fake"

    def __init__(self, rig: Rig) -> None:
        self.rig = rig
        self.node: Any = None
        self.read = len(rig.link.sent)  # what was sent before this board existed is not for it

    def attach(self, node: Any) -> None:
        self.node = node
        node.link_up(self)

    def is_up(self) -> bool:
        return True

    def send(self, msg: dict[str, Any]) -> bool:
        self.rig.send(msg)
        return True

    def service(self, now: int) -> None:
        sent = self.rig.link.sent
        while self.read < len(sent):
            board, msg = sent[self.read]
            self.read += 1
            if board == "B1":
                self.node.receive(msg)


class Board:
    def __init__(self, rig: Rig, random16: int, start_us: int) -> None:
        self.now = start_us
        self.node = Node(CFG, lambda: self.now, lambda ch: False, storage=MemoryStorage(),
                         random16=lambda: random16)  # an erased flash: the counter starts at 1
        self.node.keep_events = True
        self.node.add_link(HubLink(rig))
        self.node.start()

    def run(self, ms: int) -> None:
        for _ in range(ms // 2):
            self.now += 2000
            self.node.poll()

    def drop(self, channel: int) -> None:
        self.node.edge(channel, True, self.now + 100)
        self.node.edge(channel, False, self.now + 5100)
        self.run(20)

    def settle(self) -> None:
        assert wait_for(lambda: (self.run(20), self.node.outbox.unacked() == 0)[1], 10), self.node.outbox.items


def stored(rig: Rig) -> list[tuple[str, str]]:
    view = rig.hub.table_view("t1")
    return [(e["action"]["throw"]["player"], e["action"]["throw"]["to"]) for e in view["state"]["log"]
            if "throw" in e["action"]]


def board_after_a_throw(rig: Rig) -> Board:
    """A Trigono table on B1 and its first board, once Ana's throw (B1.big) is stored."""
    rig.hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=1, options={"first": "Ana"})
    first = Board(rig, 0x0ABC, 5_000_000)
    first.drop(0)  # Ana: big
    first.settle()
    assert wait_for(lambda: (first.run(20), len(stored(rig)) == 1)[1], 30)  # the hub may ask its clock
    return first


def test_a_reused_boot_id_is_detected_and_the_new_events_are_kept(tmp_path: Path) -> None:
    rig = Rig(tmp_path / "hub.db")
    try:
        first = board_after_a_throw(rig)
        boot = first.node.boot
        # the board is swapped for a spare whose flash was erased: same id, same boot id
        spare = Board(rig, 0x0ABC, 90_000_000)
        assert spare.node.boot == boot
        spare.drop(1)  # Ben: small
        spare.settle()  # its events are acknowledged in the end...
        assert spare.node.boot != boot  # ...under a fresh boot id the hub asked for
        assert wait_for(lambda: (spare.run(20), len(stored(rig)) == 2)[1], 30), stored(rig)
        assert stored(rig) == [("Ana", "B1.big"), ("Ben", "B1.small")]
        alerts = [line(a) for b in rig.hub.boards() if b["board"] == "B1" for a in b["alerts"]]
        assert any("reused" in text for text in alerts), alerts
    finally:
        rig.close()


def test_a_crash_told_in_the_hello_shows_on_the_boards_health(tmp_path: Path) -> None:
    rig = Rig(tmp_path / "hub.db")
    try:
        node = Node(CFG, lambda: 1000, lambda ch: False, storage=MemoryStorage(),
                    crash="RuntimeError: boom @node.py:212")
        node.add_link(HubLink(rig))
        node.start()
        node.poll(3000)
        assert rig.hub.flush()
        board = next(b for b in rig.hub.boards() if b["board"] == "B1")
        assert board["crash"] == "RuntimeError: boom @node.py:212"
        assert [line(a) for a in board["alerts"]] == ["restarted after a crash: RuntimeError: boom @node.py:212"]
    finally:
        rig.close()



@pytest.mark.slow  # two hub lives over a pty, ~5 s: the fast loop stays under a minute; the whole suite runs it
def test_a_boot_id_reused_after_a_hub_restart_is_told_by_the_stored_hello(tmp_path: Path) -> None:
    """The hub is restarted between the two board lives, so it has not seen the first
    hello since it started: it reads the hellos stored under each boot (the event store),
    so the spare's different hello under the same (board, boot) still raises the alert,
    nothing of that boot is stored or acknowledged, cmd newboot goes out, and the spare's
    throw is stored once it re-stamps. Real firmware nodes over a pseudo-terminal, a real
    hub on a SQLite file, restarted on it."""
    from firmware.links import SerialLink
    from hub.devices.serial_link import SerialTransport, wait_open
    from hub.facade import Hub
    from tests.hub.devices.test_firmware_boards import PtyWire, SimBoard

    db, wire = tmp_path / "hub.db", PtyWire(tmp_path / "ttyB1")
    boards: list[SimBoard] = []

    def hub_on_the_wire() -> tuple[Hub, SerialTransport]:
        hub = Hub(db, settle_s=0.3)
        hub.start()
        link = SerialTransport([str(wire.path)])
        hub.add_transport(link)
        assert wait_open(link)
        return hub, link

    def plug_board() -> SimBoard:  # a fresh flash each time: the boot counter starts at 1
        board = SimBoard("B1")
        board.node.add_link(SerialLink(wire.write, wire.read))
        boards.append(board)
        board.start()
        return board

    def throws(hub: Hub) -> list[tuple[str, str]]:
        return [(a["throw"]["player"], a["throw"]["to"]) for a in hub.export("t1")["actions"] if "throw" in a]

    hub, link = hub_on_the_wire()
    try:
        hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7,
                         options={"first": "Ana", "palets_per_player": 3})
        first = plug_board()
        first.drop_big()  # Ana: B1.big
        assert wait_for(lambda: len(throws(hub)) == 1 and not first.node.outbox.unacked(), 10), throws(hub)
        boot = first.node.boot
        first.stop()  # unplugged; the hub is restarted, then a spare with an erased flash comes
        link.stop()
        hub.close()
        hub, link = hub_on_the_wire()
        stored_before = hub.store.device_marks()[("B1", boot)]
        spare = plug_board()
        assert spare.node.events[0]["type"] == "hello" and spare.node.events[0]["boot"] == boot
        spare.drop_small()  # Ben: B1.small
        assert wait_for(lambda: len(throws(hub)) == 2 and not spare.node.outbox.unacked(), 10), throws(hub)
        assert throws(hub) == [("Ana", "B1.big"), ("Ben", "B1.small")]
        assert spare.node.boot != boot  # re-stamped under a fresh boot id the hub asked for
        assert hub.store.device_marks()[("B1", boot)] == stored_before  # nothing of the spare there
        assert hub.store.device_hellos()[("B1", spare.node.boot)]["t_us"] == spare.node.events[0]["t_us"]
        (health,) = [b for b in hub.boards() if b["board"] == "B1"]
        assert [a["params"] for a in health["alerts"] if a["kind"] == "boot_reused"] == [{"boot": boot}]
    finally:
        for board in boards:
            board.stop()
        link.stop()
        hub.close()
        wire.close()
