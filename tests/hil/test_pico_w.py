"""The firmware on an emulated Raspberry Pi Pico W (RP2040 + CYW43439, MicroPython's
official RPI_PICO_W image): it joins the emulated access point, talks MQTT through it to a
real Mosquitto on 127.0.0.1, and the real hub (``python -m hub hub --mqtt``) acknowledges
its events end to end. One board for the module, tests in order; simulated time costs
~25x real time with the radio."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from hub.sim.model import hole_edges
from tests.broker import Broker
from tests.chaos.rig import HubProcess
from tests.hil.chip import BROKER_IP, Chip, HubLog

pytestmark = [pytest.mark.hil, pytest.mark.slow, pytest.mark.mqtt,
              pytest.mark.timeout(1500)]

BOARD = "W1"
STALL_GOAL_MS = 50
# The loop's period: 10 ms, not the deployed 2 ms, as on the Pico (tests/hil/test_pico.py
# says why: a quarter of the host CPU per simulated second); still a fifth of STALL_GOAL_MS,
# so a stall of the goal's size cannot hide in it.
POLL_MS = 10
LOCAL = 'WIFI_SSID = "RP2040PY-GUEST"\nWIFI_PASSWORD = "emulated-ap"\nMQTT_PASSWORD = "unused"\n'


def board_cfg(port: int) -> dict[str, Any]:
    return {"board": BOARD, "port": "rp2", "holes": [{"name": "big", "beams": [2, 3], "emitter": 4}],
            # The broker counts keepalive in real seconds, the board in simulated ones (20-85x
            # slower here): with 15 s a loaded host let Mosquitto drop a board that was merely
            # slow, and the emulated radio's bridge then died on the closed socket. The
            # broker restart is seen by the closed connection, not by a missed ping.
            "links": ["mqtt"], "mqtt": {"broker": BROKER_IP, "port": port, "keepalive_s": 600},
            "thresholds": {"resend_ms": 300, "selftest_every_s": 0, "health_every_s": 1, "mqtt_retry_ms": 500,
                           "poll_ms": POLL_MS}}


class Health:
    """The board's retained health topic, as the broker has it (reconnects by itself)."""

    def __init__(self, broker: Broker) -> None:
        self.last: dict[str, Any] | None = None
        self.lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="hil-health")
        self.client.on_connect = lambda c, *_: c.subscribe(f"trigono/v1/{BOARD}/health")
        self.client.on_message = self._message
        self.client.reconnect_delay_set(0.2, 1)
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()

    def _message(self, _c: Any, _u: Any, message: mqtt.MQTTMessage) -> None:
        with self.lock:
            self.last = json.loads(message.payload)

    def counters(self) -> dict[str, Any]:
        with self.lock:
            return dict(self.last["counters"]) if self.last else {}

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


class Rig:
    def __init__(self, chip: Chip, broker: Broker, log: HubLog, health: Health) -> None:
        self.chip, self.broker, self.log, self.health = chip, broker, log, health

    def stored(self, kind: str) -> list[dict[str, Any]]:
        return self.log.device(BOARD, kind)

    def all_acked(self, at_least: int) -> bool:
        c = self.health.counters()
        return c.get("acked", 0) >= at_least and c.get("unacked", 1) == 0


# One chip per module, not per session (tests/conftest.py keeps the module on one worker):
# the emulator runs flat out on its own thread until it is closed, so a chip kept for the
# session took a core and the GIL from every later test on its worker, to the end of the run.
@pytest.fixture(scope="module")
def pico_w(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    work = tmp_path_factory.mktemp("pico_w")
    broker = Broker(work / "mosquitto")
    broker.start()
    chip = Chip("pico_w", board_cfg(broker.port), work / "chip", local=LOCAL)
    chip.boot()
    hub = HubProcess(work / "hub.db", [], None, [], log=work / "hub.log")
    hub.args += ["--mqtt", f"{broker.host}:{broker.port}", "--board", BOARD]  # it referees W1
    hub.start()
    health = Health(broker)
    try:
        yield Rig(chip, broker, HubLog(work / "hub.db"), health)
    finally:
        health.close()
        hub.stop()
        chip.close()
        broker.stop()
        print(chip.text()[-3000:])


def test_the_pico_w_joins_wifi_says_hello_over_mqtt_and_its_drop_is_acknowledged_end_to_end(pico_w: Rig) -> None:
    chip = pico_w.chip
    hello = chip.wait(lambda: pico_w.stored("hello"), 10, "a hello at the hub over MQTT")[0]
    assert hello["holes"] == ["big"], hello
    chip.play("big", hole_edges(random.Random(1), 0, passes=True))
    drop = chip.wait(lambda: pico_w.stored("drop"), 3, "the drop at the hub")[0]
    assert drop["hole"] == "big" and drop["boot"] == hello["boot"]
    # The hub's acks reached the board: its outbox holds nothing (its own health says so).
    chip.wait(lambda: pico_w.all_acked(2), 4, "hello and drop acknowledged on the board")
    print(f"longest main-loop stall from boot (Wi-Fi bring-up included): {chip.longest_stall_ms():.1f} ms")


def test_a_broker_restart_loses_nothing_and_the_loop_never_blocks_meanwhile(pico_w: Rig) -> None:
    chip = pico_w.chip
    drops = len(pico_w.stored("drop"))
    acked = pico_w.health.counters()["acked"]
    since = chip.now_us()
    pico_w.broker.stop()
    rng = random.Random(2)
    chip.play("big", hole_edges(rng, 0, passes=True) + hole_edges(rng, 450_000, passes=True))
    chip.run_for(900_000)  # the board finds the broker gone, retries, keeps counting
    pico_w.broker.start()
    chip.wait(lambda: len(pico_w.stored("drop")) >= drops + 2, 6, "both drops at the hub after the restart")
    chip.wait(lambda: pico_w.all_acked(acked + 2), 4, "both acknowledged on the board")
    stall = chip.longest_stall_ms(since)
    print(f"longest main-loop stall through the broker outage: {stall:.1f} ms (board clock)")
    assert stall <= STALL_GOAL_MS, stall
    assert len(pico_w.stored("drop")) == drops + 2
