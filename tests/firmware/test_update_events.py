"""No acknowledged event is lost across an update (issue 33): a unix-port board booted
through its slot selector keeps producing drops while the hub's own ``update_board``
transfers a bundle, switches, trial-boots and commits it, once straight and once through
a power cut mid-transfer (its process killed, then started again on the same flash
directory). On the line sits the hub's real ingest (:mod:`hub.devices.ingest`: reorder,
dedupe, cumulative acks, resend asks) in front of a real :class:`SqliteStore`.

From 70 % of the first transfer until the new version's hello, the board's events and the
hub's acks are lost on the line (the update's own messages pass): the board must keep
those events through its reset into the new slot, and the new version send them again.

What it shows, per (boot, seq) the board printed on its line across all its boots:
stored exactly once (handed to the store once, one row); every event the hub had
acknowledged when the board switched is still stored after; and the board ends with
nothing unacknowledged (it resent what its journal kept, under its first name)."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware import protocol
from hub.devices.ingest import Ack, Arrival, IngestState, due_acks, expire, stored, take
from hub.fleet import bundle as fleet_bundle
from hub.fleet.transfer import Progress, update_board
from hub.log.sqlite import SqliteStore
from tests.firmware.test_e2e_mqtt import DROP_BIG, SMALL
from tests.firmware.update_rig import ProcessLink, SlotBoard, board_config, build, wait_hello

pytestmark = [pytest.mark.micropython, pytest.mark.timeout(240)]

DROP_EVERY_S = 0.4  # one scripted palet this often while the link is busy (real time: a real process)
GAP = [[350, SMALL, 0]]  # each palet decided before the next; the holes never quiet for the
# journal's 600 ms (journal_after_ms): only the flush before a reset keeps unacknowledged events
LOST_AFTER_S = 30.0


class Hub:
    """The hub's ingest and store for one board on its serial line: what the board
    printed (``sent``), what was handed to the store (``handed``), what the acks sent
    covered (``acked``)."""

    def __init__(self, board: SlotBoard, db: Path) -> None:
        self.board = board
        self.state: IngestState[str] = IngestState(bound={"U1": "t1"})
        self.store = SqliteStore(db)
        self.sent: set[tuple[int, int]] = set()
        self.handed: Counter[tuple[int, int]] = Counter()
        self.acked: set[tuple[int, int]] = set()
        self.marks: dict[int, int] = {}  # boot -> highest seq acknowledged
        self.muted = False  # the board's events and the hub's acks lost on the line (update traffic passes)
        self.resent: set[tuple[int, int]] = set()  # events heard again (the board missed their ack)
        self.late: set[tuple[int, int]] = set()  # events heard again from a later process (power-on)
        self.life: dict[tuple[int, int], int] = {}  # event -> the board's process (SlotBoard.boots) first heard from

    def take(self, msg: dict[str, Any]) -> None:
        if msg["type"] in protocol.EVENT_TYPES:
            key = (msg["boot"], msg["seq"])
            if key in self.sent:
                self.resent.add(key)
                if self.board.boots > self.life[key]:
                    self.late.add(key)  # out of the journal, by the board's next process
            else:
                self.sent.add(key)
                self.life[key] = self.board.boots
                if msg["type"] == "hello":
                    self.muted = False  # a new boot: the link is back
        if self.muted and msg["type"] in protocol.EVENT_TYPES:
            return  # lost on the way: the board must send it again
        intake = take(self.state, [Arrival("line", msg, "serial:U1", at=time.time())], now=time.monotonic())
        self._store(intake.entries, intake)
        self._send(intake.acks + intake.asks)

    def tick(self) -> None:
        intake = expire(self.state, time.time(), time.monotonic(), LOST_AFTER_S)
        self._store(intake.entries, intake)
        self._send(intake.acks + intake.asks + due_acks(self.state, time.monotonic()))

    def _store(self, entries: list[Any], intake: Any) -> None:
        if not entries:
            return
        for e in entries:
            if e.seq is not None:
                self.handed[(e.boot, e.seq)] += 1
        stored(self.state, intake, self.store.append(entries))  # acks go out after this, never before

    def _send(self, acks: list[Ack[str]]) -> None:
        for ack in acks:
            msg = ack.msg
            if not self.board.alive() or (self.muted and msg["type"] == "ack"):
                continue
            try:
                self.board.send(msg)
            except (BrokenPipeError, OSError):
                continue
            if msg["type"] == "ack" and msg["seq"] > self.marks.get(msg["boot"], 0):
                self.marks[msg["boot"]] = msg["seq"]
                self.acked |= {(msg["boot"], s) for s in range(1, msg["seq"] + 1)}

    def rows(self) -> Counter[tuple[int, int]]:
        return Counter((e.boot, e.seq) for e in self.store.entries()
                       if e.board == "U1" and e.boot is not None and e.seq is not None)


class HubLink(ProcessLink):
    """The update link, with the hub's ingest on every message the board says, and a palet
    dropped every :data:`DROP_EVERY_S` while the board is powered."""

    def __init__(self, board: SlotBoard, hub: Hub) -> None:
        super().__init__(board)
        self.hub = hub
        self.next_drop = 0.0
        self.drops = 0
        self.dropping = True
        self.phase = "before"  # the update's phase (Progress), for the drops' count per phase
        self.drops_in: Counter[str] = Counter()

    def receive(self, timeout_s: float) -> dict[str, Any] | None:
        now = time.monotonic()
        if self.dropping and now >= self.next_drop and self.board.alive():
            self.next_drop = now + DROP_EVERY_S
            self.board.script(DROP_BIG, GAP)
            self.drops += 1
        got = super().receive(min(timeout_s, 0.1))
        if got is not None:
            self.hub.take(got)
            if got["type"] == "drop":
                self.drops_in[self.phase] += 1
        self.hub.tick()
        return got

    def drain(self) -> None:
        """What the board printed before its process ended (a power cut), into the hub."""
        while self.board.cursor < len(self.board.messages()):
            self.hub.take(self.board.messages()[self.board.cursor])
            self.board.cursor += 1


@pytest.fixture()
def key(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "organizer.key"
    return path, fleet_bundle.keygen(path)


@pytest.fixture()
def rig(tmp_path: Path, key: tuple[Path, str]) -> Iterator[tuple[SlotBoard, Hub, HubLink]]:
    board = SlotBoard(tmp_path / "board", board_config(key[1]))
    hub = Hub(board, tmp_path / "hub.db")
    board.start()
    wait_hello(board)
    yield board, hub, HubLink(board, hub)
    board.stop()
    hub.store.close()


def test_no_acknowledged_event_is_lost_across_updates_and_a_power_cut(
        rig: tuple[SlotBoard, Hub, HubLink], key: tuple[Path, str]) -> None:
    board, hub, link = rig
    at_switch: list[set[tuple[int, int]]] = []

    def progress(p: Progress) -> None:
        link.phase = p.phase
        if not at_switch and p.phase == "send" and p.sent > 0.7 * p.total:
            hub.muted = True  # the last 30 % of the first transfer, its switch and reset: events and acks lost
        if p.phase == "switch":
            at_switch.append(set(hub.acked))

    first = update_board(link, "U1", build("1.1.0", key[0]), progress, answer_timeout_s=5.0, trial_timeout_s=40.0)
    assert first.outcome == "updated", (first, board.text()[-2000:])

    link.cut_after = link.data_sent + 25  # the power goes 25 chunks into the next transfer
    cut = update_board(link, "U1", build("1.2.0", key[0]), progress, answer_timeout_s=1.0, trial_timeout_s=40.0)
    assert cut.outcome == "unreachable", cut
    link.drain()
    board.start()  # power back, the same flash
    link.cut, link.cut_after = False, None
    resumed = update_board(link, "U1", build("1.2.0", key[0]), progress, answer_timeout_s=5.0,
                           trial_timeout_s=40.0)
    assert resumed.outcome == "updated", (resumed, board.text()[-2000:])
    assert len(at_switch) == 2
    assert not hub.muted

    link.dropping = False

    def settled() -> bool:  # every event printed is stored and the board holds nothing unacknowledged
        link.receive(0.1)
        link.send(protocol.command(0, "health"))
        health = [m for m in board.messages() if m["type"] == "health"]
        return (hub.sent <= set(hub.handed) and bool(health) and health[-1]["counters"]["unacked"] == 0
                and hub.sent <= hub.acked)

    deadline = time.monotonic() + 60  # then the asserts below say which events are missing
    while not settled() and time.monotonic() < deadline:
        pass  # settled() waits on the line (0.1 s)
    rows = hub.rows()
    boots = sorted({boot for boot, _ in hub.sent})
    drops = sum(1 for m in hub.store.entries() if m.body.get("type") == "drop")
    print(f"\n{len(boots)} boots, {len(hub.sent)} events sent ({drops} drops, {link.drops} palets scripted), "
          f"{len(rows)} stored; acked at the switches: {[len(s) for s in at_switch]}; "
          f"drops per phase {dict(link.drops_in)}; events per boot "
          f"{[sum(1 for b, _ in rows if b == boot) for boot in boots]}; heard again {len(hub.resent)}, "
          f"of them after a reset {len(hub.late)}")
    assert len(boots) >= 4  # 1.0.0, 1.1.0's trial, 1.1.0 after the cut, 1.2.0's trial
    assert drops >= 10  # events kept flowing through the updates
    assert set(rows) == hub.sent, ("never stored", sorted(hub.sent - set(rows)), "never sent", sorted(set(rows) - hub.sent))
    assert all(n == 1 for n in rows.values()), [k for k, n in rows.items() if n > 1]
    assert all(n == 1 for n in hub.handed.values()), [k for k, n in hub.handed.items() if n > 1]
    for boot in boots:  # each boot's seqs, 1 to its last, none missing in between
        seqs = sorted(seq for b, seq in rows if b == boot)
        assert seqs == list(range(1, len(seqs) + 1)), (boot, seqs)
    assert link.drops_in["send"] and link.drops_in["switch"] + link.drops_in["trial"]  # during the transfer and the trial
    for acked in at_switch:
        assert acked and acked <= set(rows)
    # the events lost on the line before the first switch came back from the journal,
    # sent by the new version's process, and were stored once all the same
    assert boots[0] in {b for b, _ in hub.late}, sorted(hub.late)
