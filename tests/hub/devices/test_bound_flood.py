"""Issue 32.5: a board the hub referees had its every message stored — its password (or
a laptop on its port) wrote 2.8 MB a second into the store. Now each refereed board
spends its own budget of messages and bytes (hub/devices/flood.py, RefereedLimit) before
the ingest thread: over it, a message is neither stored nor acknowledged, counted for the
board (its health: the admin's boards, the JSON API) and logged once per period. An
honest board replaying a full journal after a reconnect is never touched.

The flood's budget clock is frozen (no refill), so what is stored is exactly the burst,
whatever the machine's load. Real ptys, the hub's serial link (pyserial)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from hub.devices import flood
from hub.devices.serial_link import SerialTransport, wait_open
from hub.facade import Hub
from tests.hub.boards import PtyBoard, wait_for
from tests.web.conftest import PASSWORD_HASH, login
from web import create_app

FLOOD_LINE = "which this hub referees: over its budget"
EN = {"Accept-Language": "en"}


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Hub]:
    monkeypatch.setattr(flood, "LOG_EVERY_S", 3600.0)  # the whole test inside one period
    h = Hub(tmp_path / "hub.db", settle_s=0.1)
    h.start()
    yield h
    h.close()


def stored_of(hub: Hub, board: str) -> list[str]:
    """The device messages of ``board`` in the store, as stored (their JSON text)."""
    return [e.raw if e.raw is not None else json.dumps(e.body) for e in hub.store.entries()
            if e.board == board and e.source == "device"]


def test_a_bound_board_flooding_valid_events_stores_at_most_its_budget_and_the_rest_is_counted_32_5(
        hub: Hub, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="hub.devices")
    hub.ingest_loop.bound_limit.clock = lambda: 0.0  # frozen: the budget never refills
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1", "B2"], seed=3, options={"first": "Ana"})
    b1, b2 = PtyBoard("B1", tmp_path / "ttyB1"), PtyBoard("B2", tmp_path / "ttyB2")
    link = SerialTransport([str(b1.path), str(b2.path)])
    hub.add_transport(link)
    sent = 2500
    try:
        assert wait_open(link)
        b1.event("hello", fw="t", config="c", holes=["big", "small"])
        b2.event("hello", fw="t", config="c", holes=["big", "small"])
        for n in range(sent - 1):
            b1.event("bounce", hole="big")
            if n == sent // 2:
                b2.event("drop", hole="small")  # the honest board in the middle of the flood
        assert wait_for(lambda: len(stored_of(hub, "B1")) + hub.ingest_loop.bound_limit.dropped("B1") == sent,
                        timeout=60)
        stored = stored_of(hub, "B1")
        assert len(stored) == flood.BOUND_BURST  # the store grew by the bound, no more
        assert sum(len(s) for s in stored) <= flood.BOUND_BYTES_BURST
        throttled = sent - flood.BOUND_BURST
        assert wait_for(lambda: [b["throttled"] for b in hub.boards() if b["board"] == "B1"] == [throttled])
        # Nothing over budget is acknowledged: the board keeps it (and would resend it).
        assert wait_for(lambda: b1.out.acked == flood.BOUND_BURST)
        assert len(b1.out.pending()) == throttled
        # The other board is untouched: its drop is stored, applied and acknowledged.
        assert wait_for(lambda: b2.out.acked == 2 and len(hub.table_view("t1")["state"]["log"]) == 1)
        assert [b["throttled"] for b in hub.boards() if b["board"] == "B2"] == [0]
    finally:
        link.stop()
        b1.unplug()
        b2.unplug()
    lines = [r.getMessage() for r in caplog.records if FLOOD_LINE in r.getMessage()]
    assert len(lines) == 1 and "B1" in lines[0]  # once per period, not per message
    # Shown: the admin's boards panel and the JSON API.
    client = create_app({"TESTING": True, "PASSWORD_HASH": PASSWORD_HASH, "SECRET_KEY": "k"}, hub=hub).test_client()
    assert login(client).status_code == 302
    panel = client.get("/admin/boards", headers=EN).get_data(as_text=True)
    assert f'data-throttled="{throttled}"' in panel and f"{throttled} messages over its budget" in panel
    api = client.get("/api/boards").get_json()
    assert [b["throttled"] for b in api if b["board"] == "B1"] == [throttled]


def test_an_honest_board_replaying_its_journal_after_a_reconnect_is_not_limited_32_5(
        hub: Hub, tmp_path: Path) -> None:
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=3, options={"first": "Ana"})
    b1 = PtyBoard("B1", tmp_path / "ttyB1")
    link = SerialTransport([str(b1.path)])
    hub.add_transport(link)
    try:
        assert wait_open(link)
        b1.event("hello", fw="t", config="c", holes=["big", "small"])
        assert wait_for(lambda: b1.out.acked == 1)
        b1.unplug()  # the cable out (a Wi-Fi outage): the board keeps what it makes
        journal = 600  # more than any real board holds (an outbox of 64, a journal of hundreds)
        for _ in range(journal):
            b1.out.make("bounce", hole="big")
        made = b1.out.seq
        b1.plug()
        assert wait_open(link)
        b1.resend()  # back: everything it holds at once, then health as usual
        for _ in range(5):
            b1.send(b1.out.health())
        assert wait_for(lambda: b1.out.acked == made, timeout=60)
        assert len([e for e in hub.store.entries() if e.board == "B1" and e.seq is not None]) == made
        hub.tick(hub.now())
        assert [b["throttled"] for b in hub.boards() if b["board"] == "B1"] == [0]
        assert hub.ingest_loop.bound_limit.dropped("B1") == 0
    finally:
        link.stop()
        b1.unplug()
