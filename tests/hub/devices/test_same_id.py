"""Issue 32.3: two boards given the same id (a copied ``local.py``) were merged onto one
table — 42 + 42 drops scored as 83 throws, with nothing but "link lost" flaps to tell.
Two live boards claiming one id are found (their boot ids take turns, or their serial
ports do), both are set aside from scoring (their events stored and acknowledged, never
applied), an alert names their ports and boots on the board's health (the admin's boards
panel, the JSON API), and once one of them is gone — silent for SAME_ID_QUIET_S, driven
on the hub's clock — the remaining one is scored again.

The boards run the firmware's own Node code (tests/hub/devices/test_firmware_boards.py's
SimBoard), each with its own random boot id as a real board draws; one pair on real
pseudo-terminals, one pair on a real Mosquitto with the same MQTT client id (the broker
hands the session from one to the other)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware.links import MqttLink, SerialLink
from firmware.mqtt import MqttClient
from hub.devices import ingest
from hub.devices.health import SAME_ID_QUIET_S
from hub.devices.mqtt_link import MqttTransport
from hub.devices.serial_link import SerialTransport, wait_open
from hub.facade import Hub
from tests.broker import Broker
from tests.hub.boards import wait_for
from tests.hub.devices.conftest import DrivenClock
from tests.hub.devices.test_firmware_boards import PtyWire, SimBoard
from tests.web.conftest import PASSWORD_HASH, login
from web import create_app
from web.readiness import board_state


def copied_board(boot_bits: int) -> SimBoard:
    """A board flashed with the same local.py as the other (board id B1), its boot id
    drawn at random as a real board's is."""
    board = SimBoard("B1")
    board.node.random16 = lambda: boot_bits
    board.node.th["health_every_s"] = 2  # the hub tells them apart by their health too
    return board


@pytest.fixture
def hub(tmp_path: Path, hub_clock: DrivenClock) -> Iterator[Hub]:
    h = Hub(tmp_path / "hub.db", settle_s=0.3)
    h.start()
    h.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7,
                   options={"first": "Ana", "palets_per_player": 4})
    yield h
    h.close()


def b1(hub: Hub) -> dict[str, Any]:
    return next(b for b in hub.boards() if b["board"] == "B1")


def throws(hub: Hub) -> int:
    return sum("throw" in e["action"] for e in hub.table_view("t1")["state"]["log"])


def drained(*boards: SimBoard) -> bool:
    return all(not b.node.outbox.unacked() for b in boards)


def test_two_boards_with_one_id_on_two_serial_ports_are_set_aside_then_the_remaining_one_is_scored_32_3(
        hub: Hub, hub_clock: DrivenClock, tmp_path: Path) -> None:
    wire_a, wire_b = PtyWire(tmp_path / "ttyA"), PtyWire(tmp_path / "ttyB")
    link = SerialTransport([str(wire_a.path), str(wire_b.path)])
    hub.add_transport(link)
    one, other = copied_board(0x1111), copied_board(0x2222)
    one.node.add_link(SerialLink(wire_a.write, wire_a.read))
    other.node.add_link(SerialLink(wire_b.write, wire_b.read))
    assert wait_open(link)
    one.start()
    other.start()
    try:
        assert wait_for(lambda: b1(hub)["same_id"] is not None, timeout=20)
        found = b1(hub)
        ports = sorted(f"serial:{w.path}" for w in (wire_a, wire_b))
        assert found["same_id"]["links"] == ports
        assert found["same_id"]["boots"] == sorted([one.node.boot, other.node.boot])
        (alert,) = [a for a in found["alerts"] if a["kind"] == "same_id"]
        assert alert["params"]["links"] == ports
        # Drops on both: stored and acknowledged (the boards forget them), never scored.
        one.drop_small()
        other.drop_small()
        one.drop_big()
        assert wait_for(lambda: drained(one, other) and b1(hub)["set_aside"] >= 3, timeout=20)
        assert throws(hub) == 0
        assert not [a for a in b1(hub)["alerts"] if a["kind"] == "link_lost"]
        shown(hub, ports)
        # One is unplugged; once it has been silent for the stated time, the other counts.
        other.stop()
        wire_b.close()
        hub_clock.advance(SAME_ID_QUIET_S + 1)
        assert wait_for(lambda: b1(hub)["same_id"] is None, timeout=20)
        assert [a["kind"] for a in b1(hub)["alerts"]][-2:] in (["same_id", "same_id_gone"],
                                                               ["same_id_gone", "silent"])
        one.drop_small()
        assert wait_for(lambda: throws(hub) == 1 and drained(one), timeout=20)
    finally:
        one.stop()
        other.stop()
        link.stop()
        wire_a.close()


def shown(hub: Hub, links: list[str]) -> None:
    """The admin's boards panel and the JSON API say it, naming the links."""
    client = create_app({"TESTING": True, "PASSWORD_HASH": PASSWORD_HASH, "SECRET_KEY": "k"}, hub=hub).test_client()
    assert login(client).status_code == 302
    panel = client.get("/admin/boards", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert f'data-same-id="{" ".join(links)}"' in panel and "Two boards claim this id" in panel
    assert [b["same_id"]["links"] for b in client.get("/api/boards").get_json() if b["board"] == "B1"] == [links]
    # The table's pages never say "armed" on it: nothing it sends is scored.
    assert board_state(b1(hub)) == "faulty"


@pytest.mark.mqtt
def test_two_boards_with_one_id_and_one_mqtt_client_id_taking_the_session_from_each_other_are_set_aside_32_3(
        hub: Hub, own_mosquitto: Broker) -> None:
    link = MqttTransport(own_mosquitto.host, own_mosquitto.port, client_id="hub-same-id")
    hub.add_transport(link)
    assert link.connected.wait(10)
    boards = [copied_board(0x3333), copied_board(0x4444)]
    for board in boards:  # the same local.py: the same client id
        board.node.add_link(MqttLink("B1", lambda: MqttClient("node-B1", own_mosquitto.host, own_mosquitto.port,
                                                              keepalive_s=5), retry_ms=300))
        board.start()
    try:
        assert wait_for(lambda: b1(hub)["same_id"] is not None, timeout=30)
        assert b1(hub)["same_id"]["boots"] == sorted(b.node.boot for b in boards)
        assert b1(hub)["same_id"]["links"] == [f"mqtt:{own_mosquitto.host}:{own_mosquitto.port}"]
        for board in boards:
            board.drop_small()
        assert wait_for(lambda: b1(hub)["set_aside"] >= 2, timeout=30)
        assert throws(hub) == 0
    finally:
        for board in boards:
            board.stop()
            for node_link in board.node.links:
                node_link.close()
        link.stop()


def hello(boot: int, seq: int = 1) -> dict[str, Any]:
    return {"type": "hello", "board": "B1", "boot": boot, "seq": seq, "t_us": 5, "fw": "t", "config": "c",
            "holes": ["big"]}


def health(boot: int, seq: int) -> dict[str, Any]:
    return {"type": "health", "board": "B1", "boot": boot, "seq": seq, "t_us": 9, "uptime_s": 1, "mem_free": 0,
            "overflow": 0, "beams": {"big": "open"}, "counters": {}}


def drop(boot: int, seq: int) -> dict[str, Any]:
    return {"type": "drop", "board": "B1", "boot": boot, "seq": seq, "t_us": 7, "hole": "big"}


def test_one_board_rebooting_moving_port_or_on_two_links_is_never_taken_for_two_32_3() -> None:
    """What one board does — reboot (twice), its cable moved to another port, its old
    boot's events resent after the reboot, every message on USB and MQTT at once — never
    looks like two boards: the events are scored."""
    state: ingest.IngestState[str] = ingest.IngestState(bound={"B1": "t1"})
    arrivals = [
        ("serial:/dev/ttyACM0", hello(7)), ("serial:/dev/ttyACM0", drop(7, 2)),
        ("serial:/dev/ttyACM0", health(7, 2)),
        ("serial:/dev/ttyACM1", drop(7, 3)),  # moved: the old boot's unacknowledged event first
        ("serial:/dev/ttyACM1", hello(9)), ("serial:/dev/ttyACM1", drop(9, 2)),
        ("serial:/dev/ttyACM1", health(9, 2)), ("mqtt:broker:1883", health(9, 2)),  # both links
        ("mqtt:broker:1883", drop(9, 3)), ("serial:/dev/ttyACM1", drop(9, 3)),
        ("serial:/dev/ttyACM1", hello(12)), ("mqtt:broker:1883", hello(12)), ("serial:/dev/ttyACM1", drop(12, 2)),
    ]
    scored = []
    for n, (link, msg) in enumerate(arrivals):
        intake = ingest.take(state, [ingest.Arrival(link, msg, link, at=100.0 + n)], now=float(n))
        scored += [e.seq for _, e in ingest.stored(state, intake, list(range(len(intake.entries))))
                   if e.body["type"] == "drop"]
    assert state.same_id.found == {} and state.health["B1"].same_id is None
    assert len(scored) == 5 and state.health["B1"].set_aside == 0
    # A second board speaking up under boot 7 again is another story.
    intake = ingest.take(state, [ingest.Arrival("x", health(7, 4), "serial:/dev/ttyACM0", at=120.0)], now=20.0)
    assert [a.text.split(":")[0] for a in intake.alerts] == ["two boards claim this id (a copied local.py?)"]
    assert state.health["B1"].same_id == {  # not boot 9, which the first board left
        "since": 120.0, "links": ["mqtt:broker:1883", "serial:/dev/ttyACM0", "serial:/dev/ttyACM1"], "boots": [7, 12]}
