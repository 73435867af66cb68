"""Issue 32.10: any message a board sends now brings it back online — its health messages
too (a board back without rebooting sends nothing else until something happens). Only
what the MQTT broker kept and hands a new subscriber (a retained health) is no sign of
life."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from firmware import protocol
from hub.devices.mqtt_link import MqttTransport
from hub.devices.serial_link import SerialTransport
from hub.facade import Hub
from tests.broker import Broker
from tests.hub.boards import Outbox, PtyBoard, wait_for
from tests.hub.devices.conftest import DrivenClock


def status(hub: Hub, board: str = "B1") -> str | None:
    return next((b["status"] for b in hub.boards() if b["board"] == board), None)


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[Hub]:
    h = Hub(str(tmp_path / "run.db"), lost_after_s=30.0)
    h.start()
    h.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1")
    yield h
    h.close()


def test_a_board_back_without_rebooting_is_online_again_from_its_health_32_10(
        hub: Hub, tmp_path: Path, hub_clock: DrivenClock) -> None:
    device = PtyBoard("B1", tmp_path / "ttyB1")
    link = SerialTransport([str(device.path)])
    hub.add_transport(link)
    try:
        assert wait_for(lambda: link.describe()["ports"][0]["open"], timeout=10)
        device.event("hello", fw="test", config="c", holes=["big", "small"])
        assert wait_for(lambda: device.out.acked == 1, timeout=10)
        assert status(hub) == "online"
        hub_clock.advance(60.0)  # a minute without a word (its Wi-Fi, a loose cable)
        assert wait_for(lambda: status(hub) == "lost", timeout=10)
        device.send(device.out.health())  # back, not rebooted: its periodic health
        assert wait_for(lambda: status(hub) == "online", timeout=10)
    finally:
        device.unplug()


def publish(broker: Broker, msg: dict[str, Any], retain: bool) -> None:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="board-B1-health")
    client.connect(broker.host, broker.port)
    client.loop_start()
    try:
        info = client.publish(protocol.topic(msg["board"], "health"), protocol.encode_payload(msg),
                              qos=1, retain=retain)
        info.wait_for_publish(5)
    finally:
        client.disconnect()
        client.loop_stop()


def test_a_retained_health_is_no_sign_of_life_but_a_health_sent_now_is_32_10(
        hub: Hub, own_mosquitto: Broker) -> None:
    board = Outbox("B1")
    publish(own_mosquitto, board.health(), retain=True)  # the board's last word, kept by the broker
    link = MqttTransport(own_mosquitto.host, own_mosquitto.port, client_id="hub-test-back-online")
    hub.add_transport(link)
    assert wait_for(lambda: any(b["board"] == "B1" and b["last_seen"] for b in hub.boards()), timeout=10)
    assert status(hub) != "online"
    publish(own_mosquitto, board.health(), retain=True)  # the board is there: the hub hears it live
    assert wait_for(lambda: status(hub) == "online", timeout=10)
