"""Home Assistant MQTT discovery (issue 33.5) on a real Mosquitto: each board's configs
retained under the discovery prefix, its update entity's state retained and published
again when the fleet's target changes; off unless asked (the hub's option)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from hub.assemble import HubOptions
from hub.devices.mqtt_link import MqttSettings, new_client
from hub.facade import Hub
from hub.fleet.homeassistant import Discovery
from hub.sim.fleet import SimFleet
from tests.broker import Broker
from tests.hub.boards import wait_for


def test_discovery_is_off_unless_asked() -> None:
    assert HubOptions(db=":memory:").home_assistant is None


@pytest.mark.mqtt
def test_boards_appear_in_home_assistant_with_their_update_entity(mosquitto: Broker, tmp_path: Path) -> None:
    hub = Hub(":memory:")
    hub.start()
    fleet = SimFleet(3)
    hub.add_transport(fleet)
    for board in fleet.boards:
        hub.register_board(board)
    fleet.start_all()
    assert hub.flush()
    publisher_client = new_client(MqttSettings(mosquitto.host, mosquitto.port, client_id="test-ha-pub"))
    publisher_client.connect(mosquitto.host, mosquitto.port)
    publisher_client.loop_start()
    seen: dict[str, Any] = {}
    lock = threading.Lock()

    def on_message(_client: Any, _userdata: Any, message: Any) -> None:
        with lock:
            seen[message.topic] = json.loads(message.payload)

    reader = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="test-ha-read")
    reader.on_message = on_message
    reader.connect(mosquitto.host, mosquitto.port)
    reader.subscribe([("homeassistant/#", 1), ("trigono/hub/fleet/#", 1)])
    reader.loop_start()
    try:
        publisher = Discovery(publisher_client, hub.fleet_view)
        assert publisher.publish_once() == 3 * 3 + 3
        assert wait_for(lambda: len(seen) == 12, 10), sorted(seen)
        update = seen["homeassistant/update/trigono_S02/firmware/config"]
        assert update["state_topic"] == "trigono/hub/fleet/S02/state" and update["device_class"] == "firmware"
        online = seen["homeassistant/binary_sensor/trigono_S02/online/config"]
        assert online["state_topic"] == "trigono/v1/S02/status" and online["payload_on"] == "online"
        assert seen["trigono/hub/fleet/S02/state"] == {"installed_version": "1.0.0", "latest_version": "1.0.0"}
        assert publisher.publish_once() == 0  # nothing changed: nothing sent
        hub.fleet_target("1.1.0")
        assert publisher.publish_once() == 3
        assert wait_for(lambda: seen["trigono/hub/fleet/S02/state"]["latest_version"] == "1.1.0", 10)
    finally:
        reader.loop_stop()
        reader.disconnect()
        publisher_client.loop_stop()
        publisher_client.disconnect()
        hub.close()
