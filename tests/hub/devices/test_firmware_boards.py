"""Done-when of issue 4: two boards' worth of traffic made by the firmware's own Node
code — one over a pseudo-terminal (pyserial on the hub side), one over Mosquitto — is
refereed into a correct match.

The Node runs under CPython on simulated beams with a real clock (as the simulator does);
its SerialLink writes the pty's master side; its MqttLink uses the firmware's own
non-blocking MQTT client (firmware/mqtt.py) on CPython sockets."""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engines.records import replay
from firmware import config
from firmware.clock import wrap
from firmware.links import MqttLink, SerialLink
from firmware.mqtt import MqttClient
from firmware.node import Node
from hub.devices.mqtt_link import MqttTransport
from hub.devices.serial_link import SerialTransport, wait_open
from hub.facade import Hub
from hub.tables.wording import line
from tests.broker import Broker
from tests.hub.boards import private_pty, wait_for

BIG_A, BIG_B, SMALL, FLOOR, BOARD = 0, 1, 2, 3, 4  # channels: beams first, then buttons


def board_config(board: str) -> dict[str, Any]:
    return config.load({
        "board": board, "port": "unix",
        "holes": [{"name": "big", "beams": [2, 3]}, {"name": "small", "beams": [5]}],
        "buttons": [{"name": "floor", "pin": 7}, {"name": "board", "pin": 8}],
        "thresholds": {"confirm_ms": 80, "resend_ms": 300},
    })


def clock() -> int:
    return int(wrap(time.monotonic_ns() // 1000))


class SimBoard:
    """A firmware Node on simulated pins, polled every 2 ms in its own thread."""

    def __init__(self, board: str) -> None:
        self.blocked: dict[int, bool] = {}
        self.node = Node(board_config(board), clock, lambda ch: self.blocked.get(ch, False))
        self.node.keep_events = True
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self.node.start()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(0.002):
            with self.lock:
                self.node.poll()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2)

    def edges(self, script: list[tuple[int, int, bool]]) -> None:
        """[(ms after the previous edge, channel, closed)] as the IRQ would stamp them."""
        for delay_ms, ch, closed in script:
            time.sleep(delay_ms / 1000)
            self.blocked[ch] = closed
            with self.lock:
                self.node.edge(ch, closed, clock())

    def drop_big(self) -> None:  # A then B: a drop (DESIGN §5)
        self.edges([(0, BIG_A, True), (12, BIG_B, True), (6, BIG_A, False), (10, BIG_B, False)])

    def drop_small(self) -> None:  # one beam, a 2 ms pulse
        self.edges([(0, SMALL, True), (2, SMALL, False)])

    def bounce_big(self) -> None:  # A without B (T11)
        self.edges([(0, BIG_A, True), (25, BIG_A, False)])

    def press(self, ch: int) -> None:
        self.edges([(0, ch, True), (80, ch, False)])


class PtyWire:
    """The board's end of a pseudo-terminal; the hub opens ``path`` (a symlink)."""

    def __init__(self, path: Path) -> None:
        self.master, self.slave = private_pty()
        fcntl.fcntl(self.master, fcntl.F_SETFL, fcntl.fcntl(self.master, fcntl.F_GETFL) | os.O_NONBLOCK)
        path.symlink_to(os.ttyname(self.slave))
        self.path = path

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def read(self) -> bytes | None:
        try:
            return os.read(self.master, 4096)
        except BlockingIOError:
            return None

    def close(self) -> None:
        os.close(self.master)
        os.close(self.slave)


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[Hub]:
    h = Hub(tmp_path / "hub.db", settle_s=0.3)
    h.start()
    yield h
    h.close()


@pytest.mark.mqtt
def test_firmware_boards_over_serial_and_mqtt_are_refereed_into_a_correct_match(
        hub: Hub, mosquitto: Broker, tmp_path: Path) -> None:
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1", "B2"], seed=7,
                     options={"first": "Ana", "palets_per_player": 2})
    wire = PtyWire(tmp_path / "ttyB1")
    serial_link = SerialTransport([str(wire.path)])
    mqtt_link = MqttTransport(mosquitto.host, mosquitto.port, client_id="hub-firmware-test")
    hub.add_transport(serial_link)
    hub.add_transport(mqtt_link)
    b1, b2 = SimBoard("B1"), SimBoard("B2")
    b1.node.add_link(SerialLink(wire.write, wire.read))
    b2.node.add_link(MqttLink("B2", lambda: MqttClient("node-B2", mosquitto.host, mosquitto.port, keepalive_s=5)))
    assert wait_open(serial_link) and mqtt_link.connected.wait(5)
    b1.start()
    b2.start()

    def step(action: Callable[[], None], throws: int) -> None:
        action()
        assert wait_for(lambda: sum("throw" in e["action"] for e in hub.table_view("t1")["state"]["log"]) == throws
                        and hub.table_view("t1")["throw"] is None, timeout=10), hub.table_view("t1")["events"][-5:]

    try:
        assert wait_for(lambda: {b["board"] for b in hub.boards() if b["fw"]} == {"B1", "B2"}, timeout=10)
        step(lambda: b1.press(FLOOR), 1)        # Ana: floor (throw-line button, R2)
        step(b2.drop_small, 2)                  # Ben: B2.small takes the floor (T7)
        step(lambda: b1.press(FLOOR), 3)        # Ana's last palet: Ben holds 3, wins (T14)
        view = hub.table_view("t1")
        assert view["state"]["round_results"] == [{"winner": "Ben"}] and not view["armed"]
        hub.submit("t1", {"next_round": True})  # the console: palets collected
        step(lambda: b2.press(BOARD), 4)        # Ben (round winner starts): on board B2
        b1.bounce_big()                         # Ana's palet jumps out again (T11)
        time.sleep(0.3)
        step(b1.drop_small, 5)                  # Ana: B1.small
        step(b2.drop_big, 6)                    # Ben: B2.big takes B2's palet (T6)
        view = hub.table_view("t1")
        record = hub.export("t1")
        assert [a["throw"]["to"] for a in record["actions"]] == [
            "floor", "B2.small", "floor", "board:B2", "B1.small", "B2.big"]
        assert [a["throw"]["player"] for a in record["actions"]] == ["Ana", "Ben", "Ana", "Ben", "Ana", "Ben"]
        assert replay(record).to_json() == view["state"]
        assert any("bounce-out" in line(e) for e in view["events"])
        assert wait_for(lambda: not b1.node.outbox.unacked() and not b2.node.outbox.unacked())
        links = {b["board"]: b["link"] for b in hub.boards()}
        assert links["B1"].startswith("serial:") and links["B2"].startswith("mqtt:")
        assert all(b["status"] == "online" and b["gaps"] == 0 for b in hub.boards())
    finally:
        b1.stop()
        b2.stop()
        for link in b2.node.links:
            link.close()
        serial_link.stop()
        mqtt_link.stop()
        wire.close()
