"""Issue 24.8: a flood under a board id this hub does not referee costs bounded work and
memory. Before the ingest thread (and the hub's lock) each such message spends a token
of its board's budget and of one budget shared by all such boards; over budget it is
dropped, counted for its board (the admin's *unregistered* list) and in a total, and
logged once per period. The buckets' clock is driven by the test (frozen: no refill), so
the counts are exact whatever the machine's load. Real ptys and a real Mosquitto."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from firmware import protocol
from hub.devices import flood, ingest
from hub.devices.mqtt_link import MqttTransport
from hub.devices.serial_link import SerialTransport, wait_open
from hub.facade import Hub
from tests.broker import Broker
from tests.hub.boards import PtyBoard, wait_for

FLOOD_LINE = "which this hub does not referee"


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Hub]:
    # "once per period": the whole test inside one period, however loaded the machine is
    monkeypatch.setattr(flood, "LOG_EVERY_S", 3600.0)
    h = Hub(tmp_path / "hub.db", settle_s=0.1)
    h.ingest_loop.limit.clock = lambda: 0.0  # frozen: the budgets never refill
    h.start()
    yield h
    h.close()


def accepted(hub: Hub) -> int:
    """Messages of unrefereed boards that reached the ingest thread (counted there)."""
    with hub._lock:
        return hub.devices.stranger_messages + sum(
            h.unrefereed for b, h in hub.devices.health.items() if not hub.devices.referees(b))


def stored_boards(hub: Hub) -> set[str]:
    return {e.board for e in hub.store.entries() if e.board is not None}


def test_a_serial_flood_from_an_unbound_id_is_dropped_over_budget_counted_and_logged_once_24_8(
        hub: Hub, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="hub.devices")
    b1, u1 = PtyBoard("B1", tmp_path / "ttyB1"), PtyBoard("U1", tmp_path / "ttyU1")
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=3, options={"first": "Ana"})
    link = SerialTransport([str(b1.path), str(u1.path)])
    hub.add_transport(link)
    sent = 600
    try:
        assert wait_open(link)
        b1.event("hello", fw="t", config="c", holes=["big", "small"])
        for n in range(sent):
            if n % 2:
                u1.send(u1.out.health())
            else:
                u1.event("bounce", hole="big")
            if n == sent // 2:
                b1.event("drop", hole="big")  # the refereed board in the middle of the flood
        assert wait_for(lambda: accepted(hub) + hub.unrefereed_dropped() == sent, timeout=30)
        assert accepted(hub) == flood.PER_BOARD_BURST
        assert hub.unrefereed_dropped() == sent - flood.PER_BOARD_BURST
        (row,) = [u for u in hub.unregistered() if u["board"] == "U1"]
        assert row["messages"] == sent and row["throttled"] == sent - flood.PER_BOARD_BURST
        # The refereed board is never limited: stored, applied and acknowledged.
        assert wait_for(lambda: b1.out.acked == 2 and len(hub.table_view("t1")["state"]["log"]) == 1,
                        timeout=30)
        assert u1.out.acked == 0 and "U1" not in stored_boards(hub)
    finally:
        link.stop()
        b1.unplug()
        u1.unplug()
    lines = [r for r in caplog.records if FLOOD_LINE in r.getMessage()]
    assert len(lines) == 1 and "U1" in lines[0].getMessage()  # once per period, not per message


@pytest.mark.mqtt
def test_thousands_of_made_up_ids_on_the_broker_cost_bounded_memory_and_work_24_8(
        hub: Hub, own_mosquitto: Broker, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="hub.devices")
    link = MqttTransport(own_mosquitto.host, own_mosquitto.port, client_id="hub-test-flood")
    hub.add_transport(link)
    assert link.connected.wait(10)
    rogue = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="rogue")
    rogue.connect(own_mosquitto.host, own_mosquitto.port)
    rogue.loop_start()
    ids, chunk = 3000, 250
    try:
        for start in range(0, ids, chunk):
            for n in range(start, start + chunk):
                board = f"X{n}"
                msg = {"type": "bounce", "board": board, "boot": 1, "seq": 1, "t_us": n, "hole": "big"}
                rogue.publish(protocol.topic(board, "event"), protocol.encode_payload(msg), qos=1)
            # Paced by what the hub took in, so the broker never queues past its limit.
            sent = start + chunk
            assert wait_for(lambda: accepted(hub) + hub.unrefereed_dropped() == sent, timeout=30)  # noqa: B023
        assert accepted(hub) == flood.ALL_BURST  # the budget shared by every unrefereed board
        assert hub.unrefereed_dropped() == ids - flood.ALL_BURST
        assert hub.ingest_loop.limit.tracked() <= flood.MAX_TRACKED
        assert len(hub.devices.strangers) <= ingest.MAX_STRANGERS
        assert len(hub.devices.health) <= ingest.MAX_UNREGISTERED
        assert len(hub.unregistered()) <= ingest.MAX_UNREGISTERED + ingest.MAX_STRANGERS
        assert stored_boards(hub) == set()
    finally:
        rogue.loop_stop()
        rogue.disconnect()
        link.stop()
    assert len([r for r in caplog.records if FLOOD_LINE in r.getMessage()]) == 1
