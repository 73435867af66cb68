"""Device links for real: pyserial on pseudo-terminals, paho-mqtt through Mosquitto.

Boards are simulated with the real codec (tests/hub/boards.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware import protocol
from hub.devices.mqtt_link import MqttProcessTransport, MqttTransport
from hub.devices.serial_link import SerialTransport, wait_open
from hub.facade import Hub
from hub.tables.wording import line
from tests.broker import Broker
from tests.hub.boards import MqttBoard, PtyBoard, wait_for
from tests.hub.conftest import Rig


def health(hub: Hub, board: str) -> dict:
    return next(b for b in hub.boards() if b["board"] == board)


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[Hub]:
    h = Hub(tmp_path / "hub.db", settle_s=0.1)
    h.start()
    yield h
    h.close()


def test_serial_two_ports_identify_by_hello_count_corrupt_lines_and_ack(hub: Hub, tmp_path: Path) -> None:
    b1, b2 = PtyBoard("B1", tmp_path / "ttyB1"), PtyBoard("B2", tmp_path / "ttyB2")
    link = SerialTransport([str(b1.path), str(b2.path)])
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1", "B2"], seed=3,
                     options={"first": "Ana"})
    hub.add_transport(link)
    try:
        assert wait_open(link)
        b1.event("hello", fw="t", config="c", holes=["big", "small"])
        b2.event("hello", fw="t", config="c", holes=["big", "small"])
        b1.write_raw(b"garbage from the REPL\r\n")
        b1.write_raw(b'$' + b'{"type":"drop"}' + b"*00\r\n")  # bad checksum
        b1.event("drop", hole="big")
        assert wait_for(lambda: b1.out.acked == 2 and b2.out.acked == 1)
        assert wait_for(lambda: hub.table_view("t1")["throw"] is None
                        and len(hub.table_view("t1")["state"]["log"]) == 1)
        b2.event("drop", hole="small")
        assert wait_for(lambda: len(hub.table_view("t1")["state"]["log"]) == 2)
        log = hub.table_view("t1")["state"]["log"]
        assert [e["action"]["throw"]["to"] for e in log] == ["B1.big", "B2.small"]
        assert [e["player"] for e in log] == ["Ana", "Ben"]
        h1 = health(hub, "B1")
        assert h1["corrupt"] == 2 and h1["status"] == "online" and h1["link"].startswith("serial:")
        assert health(hub, "B2")["corrupt"] == 0
    finally:
        link.stop()
        b1.unplug()
        b2.unplug()


def test_serial_port_that_vanishes_is_reopened_and_resends_fill_the_gap(hub: Hub, tmp_path: Path) -> None:
    hub.register_board("B1")
    b1 = PtyBoard("B1", tmp_path / "ttyB1")
    link = SerialTransport([str(b1.path)])
    hub.add_transport(link)
    try:
        assert wait_open(link)
        b1.event("hello", fw="t", config="c", holes=["big", "small"])
        assert wait_for(lambda: b1.out.acked == 1)
        b1.unplug()
        assert wait_for(lambda: health(hub, "B1")["status"] == "lost")
        b1.out.make("bounce", hole="big")  # happened while unplugged: stays in the ring
        b1.plug()
        assert wait_for(lambda: link.describe()["ports"][0]["opens"] == 2)
        b1.resend()
        b1.event("bounce", hole="small")
        assert wait_for(lambda: b1.out.acked == 3)
        h = health(hub, "B1")
        assert h["status"] == "online" and h["received"] == 3 and h["gaps"] == 0
    finally:
        link.stop()
        b1.unplug()


def test_seq_gap_is_a_health_alert_and_holds_the_cumulative_ack(rig: Rig) -> None:
    out = rig.board("B1")  # seq 1: hello
    skipped = out.make("bounce", hole="big")  # seq 2, lost on the way
    rig.event("B1", "bounce", hole="big")  # seq 3
    assert health(rig.hub, "B1")["gaps"] == 1
    assert "seq gap: seq 2 of boot 1" in line(health(rig.hub, "B1")["alerts"][-1])
    # acks are coalesced per board (cumulative): the timer sends it
    assert wait_for(lambda: rig.link.acks("B1") and rig.link.acks("B1")[-1] == protocol.ack(1, 1))
    rig.send(skipped)  # the device resends what was not acknowledged
    assert rig.hub.flush()
    assert wait_for(lambda: rig.link.acks("B1")[-1] == protocol.ack(1, 3))
    rig.send(skipped)  # a duplicate: acked again, stored once
    assert rig.hub.flush()
    assert health(rig.hub, "B1")["resends"] == 1 and health(rig.hub, "B1")["received"] == 3


def test_health_message_updates_board_health(rig: Rig) -> None:
    out = rig.board("B1")
    rig.send({"type": "health", "board": "B1", "boot": 1, "seq": out.seq, "t_us": 5,
              "uptime_s": 12, "mem_free": 30000, "overflow": 2, "rssi": -61,
              "beams": {"big": "open", "small": "blocked"}, "counters": {"drops": 3}})
    rig.event("B1", "fault", reason="emitter self-test failed", hole="big")
    h = health(rig.hub, "B1")
    assert (h["uptime_s"], h["mem_free"], h["overflow"], h["rssi"]) == (12, 30000, 2, -61)
    assert h["blocked"] == ["small"] and h["beam_faults"] == ["big"]


@pytest.mark.mqtt
@pytest.mark.parametrize("transport", [MqttTransport, MqttProcessTransport])
def test_mqtt_boards_are_refereed_acked_and_their_status_followed(
        hub: Hub, own_mosquitto: Broker, transport: type[MqttTransport] | type[MqttProcessTransport]) -> None:
    link = transport(own_mosquitto.host, own_mosquitto.port, client_id="hub-test-links")
    hub.add_transport(link)
    assert link.connected.wait(5)
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1", "B2"], seed=3,
                     options={"first": "Ana"})
    b1 = MqttBoard("B1", own_mosquitto.host, own_mosquitto.port)
    b2 = MqttBoard("B2", own_mosquitto.host, own_mosquitto.port)
    try:
        b1.event("hello", fw="t", config="c", holes=["big", "small"])
        b2.event("hello", fw="t", config="c", holes=["big", "small"])
        b1.event("drop", hole="small")
        assert wait_for(lambda: len(hub.table_view("t1")["state"]["log"]) == 1)
        b2.event("drop", hole="big")
        b2.resend()  # a QoS 1 duplicate after a reconnect
        assert wait_for(lambda: len(hub.table_view("t1")["state"]["log"]) == 2)
        assert wait_for(lambda: b1.out.acked == 2 and b2.out.acked == 2)
        assert wait_for(lambda: health(hub, "B2")["resends"] >= 1)
        assert [e["action"]["throw"]["to"] for e in hub.table_view("t1")["state"]["log"]] == [
            "B1.small", "B2.big"]
        b1.client.publish(protocol.topic("B1", "event"), b"{not json", qos=1)
        assert wait_for(lambda: health(hub, "B1")["corrupt"] == 1)
        assert health(hub, "B1")["status"] == "online"
        b1.die()  # no DISCONNECT: the broker publishes the last will
        assert wait_for(lambda: health(hub, "B1")["status"] == "lost", timeout=10)
        assert "link lost" in line(health(hub, "B1")["alerts"][-1])
        assert hub.table_view("t1")["layout"][0]["online"] is False
    finally:
        b2.close()
        link.stop()


@pytest.mark.mqtt
@pytest.mark.parametrize("transport", [MqttTransport, MqttProcessTransport])
def test_mqtt_broker_restart_loses_nothing(
        hub: Hub, own_mosquitto: Broker, transport: type[MqttTransport] | type[MqttProcessTransport]) -> None:
    hub.register_board("B7")
    link = transport(own_mosquitto.host, own_mosquitto.port, client_id="hub-test-restart")
    hub.add_transport(link)
    assert link.connected.wait(5)
    board = MqttBoard("B7", own_mosquitto.host, own_mosquitto.port)
    try:
        for _ in range(5):
            board.event("bounce", hole="big")
        assert wait_for(lambda: board.out.acked == 5)
        own_mosquitto.restart(0.2)
        for _ in range(5):
            board.out.make("bounce", hole="small")  # queued while the broker is down
        assert wait_for(lambda: board.connected.is_set() and link.connected.is_set(), timeout=15)
        board.resend()
        assert wait_for(lambda: board.out.acked == 10, timeout=10)
        assert health(hub, "B7")["received"] == 10
    finally:
        board.close()
        link.stop()
