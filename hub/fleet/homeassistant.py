"""Home Assistant MQTT discovery for the boards (issue 33.5; off by default:
``trigono hub --mqtt … --home-assistant``), so a club that runs Home Assistant sees its
boards beside its other devices.

Per board, retained under the discovery prefix (``homeassistant`` by default):

- a *connectivity* binary sensor reading the board's own retained status topic
  (``trigono/v1/<board>/status``: ``online`` / ``lost``, its MQTT last will);
- a *signal strength* sensor reading its retained health (``…/health``, ``rssi``);
- an *update* entity: installed version against the fleet's target, from a retained state
  the hub publishes (``trigono/hub/fleet/<board>/state``) when either changes. It only
  shows: an update is started on the hub's fleet page, where the canary, the waves and
  the live matches are taken care of (no install command is offered).

>>> msgs = discovery("S01", prefix="homeassistant")
>>> [t for t, _ in msgs]
['homeassistant/binary_sensor/trigono_S01/online/config', 'homeassistant/sensor/trigono_S01/rssi/config', \
'homeassistant/update/trigono_S01/firmware/config']
>>> import json; json.loads(msgs[2][1])["state_topic"]
'trigono/hub/fleet/S01/state'
>>> state({"board": "S01", "fw": "1.0.0"}, "1.1.0")
('trigono/hub/fleet/S01/state', b'{"installed_version": "1.0.0", "latest_version": "1.1.0"}')
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

from firmware import protocol

JSONDict = dict[str, Any]
log = logging.getLogger("hub.fleet.homeassistant")

DEFAULT_PREFIX = "homeassistant"
STATE_ROOT = "trigono/hub/fleet/"
EVERY_S = 5.0  # the fleet is looked at this often for changes


def _device(board: str) -> JSONDict:
    return {"identifiers": [f"trigono_{board}"], "name": f"Trigono board {board}", "manufacturer": "Trigono",
            "model": "sensor board"}


def discovery(board: str, prefix: str = DEFAULT_PREFIX) -> list[tuple[str, bytes]]:
    """The retained discovery configs of one board: (topic, payload)."""
    node = f"trigono_{board}"
    device = _device(board)
    configs: list[tuple[str, JSONDict]] = [
        (f"{prefix}/binary_sensor/{node}/online/config", {
            "name": "Online", "unique_id": f"{node}_online", "device_class": "connectivity",
            "state_topic": protocol.topic(board, "status"), "payload_on": "online", "payload_off": "lost",
            "device": device}),
        (f"{prefix}/sensor/{node}/rssi/config", {
            "name": "Wi-Fi signal", "unique_id": f"{node}_rssi", "device_class": "signal_strength",
            "unit_of_measurement": "dBm", "state_topic": protocol.topic(board, "health"),
            "value_template": "{{ value_json.rssi }}", "entity_category": "diagnostic", "device": device}),
        (f"{prefix}/update/{node}/firmware/config", {
            "name": "Firmware", "unique_id": f"{node}_firmware", "device_class": "firmware",
            "state_topic": STATE_ROOT + board + "/state", "device": device}),
    ]
    return [(topic, json.dumps(payload, sort_keys=True).encode()) for topic, payload in configs]


def state(row: JSONDict, target: str | None) -> tuple[str, bytes]:
    """The update entity's state of one fleet row (the latest version: the target, or the
    installed one when the fleet has none)."""
    installed = row.get("fw")
    return (STATE_ROOT + str(row["board"]) + "/state",
            json.dumps({"installed_version": installed, "latest_version": target or installed}).encode())


class Discovery:
    """Publishes the fleet to Home Assistant: the configs of each board once, each
    board's update state when it changes. ``client``: a connected paho client (its own,
    beside the hub's link); ``read``: the hub's fleet view."""

    def __init__(self, client: Any, read: Any, prefix: str = DEFAULT_PREFIX) -> None:
        self.client, self.read, self.prefix = client, read, prefix
        self.announced: set[str] = set()
        self.states: dict[str, bytes] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def publish_once(self) -> int:
        """Look at the fleet and publish what changed; how many messages."""
        view = self.read()
        target = view["target"]["fw"]
        sent = 0
        for row in view["rows"]:
            board = row["board"]
            if board not in self.announced:
                for topic, payload in discovery(board, self.prefix):
                    self.client.publish(topic, payload, qos=1, retain=True)
                    sent += 1
                self.announced.add(board)
            if row.get("fw") is None:
                continue
            topic, payload = state(row, target)
            if self.states.get(board) != payload:
                self.client.publish(topic, payload, qos=1, retain=True)
                self.states[board] = payload
                sent += 1
        return sent

    def start(self) -> None:
        def run() -> None:
            while not self._stop.is_set():
                try:
                    self.publish_once()
                except Exception:  # the broker away, the hub closing: try again next round
                    log.exception("home assistant discovery")
                self._stop.wait(EVERY_S)

        self._thread = threading.Thread(target=run, name="hub-home-assistant", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)


def start_discovery(hub: Any, settings: Any, prefix: str = DEFAULT_PREFIX) -> Discovery:
    """A paho client of its own with the hub's broker settings, and the publisher on it."""
    import dataclasses

    from hub.devices.mqtt_link import new_client

    client = new_client(dataclasses.replace(settings, client_id=settings.client_id + "-ha"))
    client.connect_async(settings.host, settings.port, keepalive=30)
    client.loop_start()
    publisher = Discovery(client, hub.fleet_view, prefix)
    publisher.start()
    return publisher
