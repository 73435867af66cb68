"""End to end: the firmware main loop under the MicroPython unix port (fake `machine`,
scripted beam edges, the firmware's own non-blocking MQTT client) against a real Mosquitto, with this test as the
hub (it acknowledges cumulatively, as hub/facade.py does)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from firmware import protocol
from tests.broker import Broker
from tests.firmware.mp import ROOT, tool

BOARD = "B1"
BIG_A, BIG_B, SMALL, BUTTON = 2, 3, 5, 7
DROP_BIG = [[0, BIG_A, 1], [12, BIG_B, 1], [6, BIG_A, 0], [10, BIG_B, 0]]
BOUNCE_BIG = [[0, BIG_A, 1], [25, BIG_A, 0]]
DROP_SMALL_2MS = [[0, SMALL, 1], [2, SMALL, 0]]
PRESS = [[0, BUTTON, 1], [80, BUTTON, 0]]
GAP = [[600, SMALL, 0]]  # let the passage be decided before the next one


class Hub:
    """Subscribes like the hub (persistent session) and acks every contiguous event."""

    def __init__(self, broker: Broker) -> None:
        self.events: list[dict[str, Any]] = []
        self.status: list[str] = []
        self.health: list[dict[str, Any]] = []
        self.high = 0
        self.lock = threading.Lock()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="test-hub", clean_session=False,
                                  protocol=mqtt.MQTTv311)
        self.client.reconnect_delay_set(min_delay=1, max_delay=1)
        self.client.on_connect = lambda c, *a: c.subscribe(protocol.TOPIC_ROOT + BOARD + "/#", qos=1)
        self.client.on_message = self._message
        self.client.connect(broker.host, broker.port, keepalive=5)
        self.client.loop_start()

    def _message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        parsed = protocol.parse_topic(message.topic)
        assert parsed is not None
        kind = parsed[1]
        if kind == "status":
            with self.lock:
                self.status.append(message.payload.decode())
            return
        if kind not in ("event", "health"):
            return
        msg, reason = protocol.decode_payload(message.payload, BOARD)
        assert msg is not None, reason
        with self.lock:
            if kind == "health":
                self.health.append(msg)
                return
            self.events.append(msg)
            if msg["seq"] == self.high + 1:
                self.high = msg["seq"]
            ack = protocol.ack(msg["boot"], self.high)
        client.publish(protocol.topic(BOARD, "ack"), protocol.encode_payload(ack), qos=1)

    def wait(self, predicate: Callable[[], bool], timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if predicate():
                    return
            time.sleep(0.02)
        raise AssertionError(f"timed out; events so far: {self.kinds()}")

    def kinds(self) -> list[tuple[str, int, str | None]]:
        return [(e["type"], e["seq"], e.get("hole") or e.get("button")) for e in self.events]

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


class Board:
    """The firmware process and its scripted beams."""

    def __init__(self, workdir: Path, broker: Broker) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        cfg = {
            "board": BOARD, "port": "unix",
            "holes": [{"name": "big", "beams": [BIG_A, BIG_B], "emitter": 4},
                      {"name": "small", "beams": [SMALL], "emitter": 6}],
            "buttons": [{"name": "line", "pin": BUTTON}],
            "links": ["serial", "mqtt"],
            "mqtt": {"broker": broker.host, "port": broker.port, "keepalive_s": 5},
            "thresholds": {"mqtt_retry_ms": 200, "health_every_s": 1},
        }
        (workdir / "board_config.py").write_text("CONFIG = " + repr(cfg) + "\n")
        shutil.copyfile(ROOT / "hardware" / "pinmap.json", workdir / "pinmap.json")
        self.control = workdir / "edges.jsonl"
        self.control.write_text("")
        path = [str(workdir), str(ROOT), str(ROOT / "tests" / "firmware" / "fake_machine"),
                ".frozen"]
        env = dict(os.environ, MICROPYPATH=":".join(path))
        self.proc = subprocess.Popen([tool("micropython"), str(ROOT / "tests" / "firmware" / "mp_e2e.py"),
                                      str(self.control)], cwd=workdir, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.lines: list[bytes] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    def serial_events(self) -> list[dict[str, Any]]:
        """Events the board wrote on its serial console (proof they were produced)."""
        out = []
        for line in list(self.lines):
            msg, _ = protocol.decode_line(line)
            if msg is not None and msg["type"] != "health":
                out.append(msg)
        return out

    def acked(self) -> int:
        """The board's own view of the hub's acks, from its latest health line."""
        acked = 0
        for line in list(self.lines):
            msg, _ = protocol.decode_line(line)
            if msg is not None and msg["type"] == "health":
                acked = msg["counters"].get("acked", 0)
        return acked

    def script(self, *steps: list[list[int]]) -> None:
        with self.control.open("a") as f:
            f.write(json.dumps([s for part in steps for s in part]) + "\n")

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.terminate()
        self.proc.wait(timeout=10)
        self.reader.join(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()
        return b"".join(self.lines).decode(errors="replace")


@pytest.fixture
def hub_and_board(own_mosquitto: Broker, tmp_path: Path) -> Iterator[tuple[Hub, Board, Broker]]:
    hub = Hub(own_mosquitto)
    board = Board(tmp_path / "board", own_mosquitto)
    try:
        yield hub, board, own_mosquitto
    finally:
        output = board.stop()
        hub.close()
        print(output[-3000:])


@pytest.mark.micropython
@pytest.mark.mqtt
def test_T11_events_arrive_once_in_order_and_survive_a_broker_outage(
        hub_and_board: tuple[Hub, Board, Broker]) -> None:
    hub, board, broker = hub_and_board
    hub.wait(lambda: len(hub.events) >= 1)
    assert hub.events[0]["type"] == "hello" and hub.events[0]["seq"] == 1
    hub.wait(lambda: "online" in hub.status)

    board.script(DROP_BIG, GAP, BOUNCE_BIG, GAP, DROP_SMALL_2MS, GAP, PRESS)
    hub.wait(lambda: len(hub.events) >= 5)
    hub.wait(lambda: board.acked() == 5)  # the board has the acks before the broker goes
    assert hub.kinds() == [("hello", 1, None), ("drop", 2, "big"), ("bounce", 3, "big"),
                           ("drop", 4, "small"), ("button", 5, "line")]

    broker.stop()
    board.script(DROP_SMALL_2MS, GAP, DROP_BIG, GAP, DROP_SMALL_2MS)
    deadline = time.monotonic() + 15
    while len(board.serial_events()) < 8 and time.monotonic() < deadline:
        time.sleep(0.05)
    produced = [(e["type"], e["seq"]) for e in board.serial_events()]
    assert ("drop", 8) in produced, produced  # made while the broker was down
    assert len(hub.events) == 5

    broker.start()
    hub.wait(lambda: len(hub.events) >= 8, timeout=60)
    time.sleep(1.0)  # any duplicate would arrive now
    assert hub.kinds() == [("hello", 1, None), ("drop", 2, "big"), ("bounce", 3, "big"),
                           ("drop", 4, "small"), ("button", 5, "line"),
                           ("drop", 6, "small"), ("drop", 7, "big"), ("drop", 8, "small")]
    assert len({e["boot"] for e in hub.events}) == 1 and hub.events[0]["boot"] >> 16 == 1  # boot counter 1
    assert hub.status[-1] == "online"
    assert hub.health and protocol.validate(hub.health[-1]) is None
    assert hub.health[-1]["beams"] == {"big": "open", "small": "open"}

    board.stop()  # the board dies: the broker publishes its last will
    hub.wait(lambda: hub.status[-1] == "lost", timeout=60)
