"""Issue 24.2: two hubs on one broker (docs/security.md). Hub B used to admit hub A's board
as "unregistered", store and acknowledge its events, so the board discarded them: with
hub A down 10 s, A lost 21 of 73 events of its own board. Now a hub acknowledges only
the boards it referees, and the shipped ACL (scripts/mqtt-users --hub NAME:BOARDS) lets
each hub write only its own boards' ack and cmd topics. Real Mosquitto with the shipped
configuration, two real ``trigono hub`` processes, one SIGKILLed: nothing lost."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from hub.log.sqlite import SqliteStore
from tests.broker import AuthBroker, mosquitto_binary
from tests.chaos.test_mqtt_auth import client
from tests.hub.boards import MqttBoard, wait_for

pytestmark = [pytest.mark.chaos, pytest.mark.mqtt]

ROOT = Path(__file__).resolve().parents[2]


def spawn_hub(broker: AuthBroker, user: str, board: str, table: str, db: Path) -> subprocess.Popen[str]:
    spec = {"id": table, "game": "trigono", "seats": ["Ana", "Ben"], "boards": [board], "seed": 3}
    args = [sys.executable, "-m", "hub", "hub", "--mqtt", f"{broker.host}:{broker.port}",
            "--mqtt-user", user, "--mqtt-password-file", str(broker.password_file(user)),
            "--db", str(db), "--settle", "0.02", "--table", json.dumps(spec)]
    return subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, text=True)


def ready(proc: subprocess.Popen[str]) -> subprocess.Popen[str]:
    assert proc.stdout is not None
    assert json.loads(proc.stdout.readline())["hub"] == "ready"
    return proc


def start_hub(broker: AuthBroker, user: str, board: str, table: str, db: Path) -> subprocess.Popen[str]:
    return ready(spawn_hub(broker, user, board, table, db))


def stop(proc: subprocess.Popen[str], sig: int = signal.SIGTERM) -> None:
    proc.send_signal(sig)
    proc.wait(timeout=20)
    assert proc.stdout is not None
    proc.stdout.close()


def stored_seqs(db: Path, board: str) -> list[int]:
    store = SqliteStore(db)
    try:
        return sorted(e.seq for e in store.entries() if e.board == board and e.seq is not None)
    finally:
        store.close()


def test_two_hubs_on_one_broker_one_sigkilled_lose_nothing_24_2(tmp_path: Path) -> None:
    mosquitto_binary()
    broker = AuthBroker(tmp_path / "broker", ["B1", "B2"], hubs=["hubA:B1", "hubB:B2"])
    broker.start()
    db_a, db_b = tmp_path / "a.db", tmp_path / "b.db"
    # the two hubs start side by side (each waits for its own ready line)
    hub_a, hub_b = (ready(p) for p in [spawn_hub(broker, "hubA", "B1", "t1", db_a),
                                        spawn_hub(broker, "hubB", "B2", "t2", db_b)])
    b1 = MqttBoard("B1", broker.host, broker.port, login=("B1", broker.password("B1")))
    b2 = MqttBoard("B2", broker.host, broker.port, login=("B2", broker.password("B2")))
    # Like the firmware, each board resends what is not acknowledged (a hub's first
    # subscription may come after a board's first messages).
    resending = [b1.resend_every(0.5), b2.resend_every(0.5)]
    try:
        for board in (b1, b2):
            board.event("hello", fw="t", config="c", holes=["big", "small"])
            for _ in range(5):
                board.event("bounce", hole="big")
        assert wait_for(lambda: b1.out.acked == 6 and b2.out.acked == 6, timeout=15)
        stop(hub_a, signal.SIGKILL)
        for _ in range(20):  # while hub A is down: hub B hears them and must not ack them
            b1.event("bounce", hole="small")
        b2.event("bounce", hole="small")  # hub B is alive and refereeing its own board
        assert wait_for(lambda: b2.out.acked == 7, timeout=15)
        assert b1.out.acked == 6
        # The broker drops hub B's write to hub A's board's ack topic (the shipped ACL):
        # delivered, it would make B1 discard the 20 events nobody stored yet.
        forger, rc = client(broker, "hubB", broker.password("hubB"))
        assert rc == 0
        forger.publish("trigono/v1/B1/ack", b'{"type":"ack","boot":1,"seq":26}', qos=1).wait_for_publish(5)
        forger.loop_stop()
        forger.disconnect()
        hub_a = start_hub(broker, "hubA", "B1", "t1", db_a)
        assert wait_for(lambda: b1.out.acked == 26, timeout=20)
    finally:
        for stop_resending in resending:
            stop_resending.set()
        b1.close()
        b2.close()
        stop(hub_a)
        stop(hub_b)
        broker.stop()
    assert stored_seqs(db_a, "B1") == list(range(1, 27))  # sent = stored, nothing lost
    assert stored_seqs(db_b, "B1") == []  # hub B stored none of hub A's board
    assert stored_seqs(db_b, "B2") == list(range(1, 8))
