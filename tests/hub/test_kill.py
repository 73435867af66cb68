"""Kill the hub with SIGKILL in the middle of a stream of events, restart it: the state
equals an uninterrupted run's; the devices' resends fill what was not acknowledged.

Two boards on MQTT (real Mosquitto), each refereeing its own table; the hub is the real
``trigono hub`` process. The uninterrupted run feeds the very same messages to an
in-process hub."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from hub.facade import Hub
from tests.broker import Broker
from tests.hub.boards import MqttBoard, uninterrupted_hub, wait_for

ROOT = Path(__file__).resolve().parents[2]
SETTLE_S = 0.02
STEP_S = 0.03  # boards alternate, so each board sends every 60 ms: beyond the settle window
TABLES: list[dict[str, Any]] = [{"id": f"t{n}", "game": "trigono", "seats": ["Ana", "Ben"], "boards": [f"B{n}"],
           "seed": 10 + n, "options": {"first": "Ana", "palets_per_player": 4}} for n in (1, 2)]


def start_hub(broker: Broker, db: Path) -> subprocess.Popen[str]:
    args = [sys.executable, "-m", "hub", "hub", "--mqtt", f"{broker.host}:{broker.port}",
            "--db", str(db), "--settle", str(SETTLE_S), "--client-id", "hub-kill-test"]
    for table in TABLES:
        args += ["--table", json.dumps(table)]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert json.loads(proc.stdout.readline())["hub"] == "ready"
    return proc


def script(rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    """One board's steps: a throw (drop, throw-line button, bounce), then the button that
    starts the next round (refused while a round is under way)."""
    steps: list[tuple[str, dict[str, Any]]] = []
    for _ in range(30):
        kind = rng.choices(["big", "small", "floor", "board", "bounce"], [25, 25, 25, 15, 10])[0]
        if kind in ("big", "small"):
            steps.append(("drop", {"hole": kind}))
        elif kind == "bounce":
            steps.append(("bounce", {"hole": "big"}))
        else:
            steps.append(("button", {"button": kind}))
        steps.append(("button", {"button": "next_round"}))
    return steps


@pytest.mark.mqtt
@pytest.mark.slow
def test_sigkill_mid_stream_restarts_to_the_uninterrupted_state_R1(own_mosquitto: Broker,
                                                                     tmp_path: Path) -> None:
    db = tmp_path / "hub.db"
    hub_proc = start_hub(own_mosquitto, db)
    boards = [MqttBoard(f"B{n}", own_mosquitto.host, own_mosquitto.port) for n in (1, 2)]
    stoppers = [b.resend_every(0.5) for b in boards]
    sent: list[dict[str, Any]] = []
    rng = random.Random(2024)
    scripts = [script(rng), script(rng)]
    try:
        for b in boards:
            sent.append(b.event("hello", fw="test", config="c", holes=["big", "small"]))
        killed_at = len(scripts[0]) // 3
        for step in range(len(scripts[0])):
            if step == killed_at:
                os.kill(hub_proc.pid, signal.SIGKILL)  # mid-stream: whatever is in flight
                hub_proc.wait()
                assert hub_proc.stdout is not None
                hub_proc.stdout.close()
            if step == killed_at + 6:
                hub_proc = start_hub(own_mosquitto, db)
            for b, steps in zip(boards, scripts, strict=True):
                kind, fields = steps[step]
                sent.append(b.event(kind, **fields))
                time.sleep(STEP_S)
        assert wait_for(lambda: all(b.out.acked == b.out.seq for b in boards), timeout=20)
        time.sleep(0.3)  # the last settle windows close
    finally:
        for stop in stoppers:
            stop.set()
        for b in boards:
            b.close()
        hub_proc.send_signal(signal.SIGTERM)
        hub_proc.wait(timeout=10)
        if hub_proc.stdout is not None:
            hub_proc.stdout.close()

    killed = Hub(db)
    reference = uninterrupted_hub(TABLES, sent, SETTLE_S, tmp_path / "reference.db")
    try:
        for table in TABLES:
            got, want = killed.table_view(table["id"]), reference.table_view(table["id"])
            assert got["state"]["log"], "the script must referee some throws"
            assert got["state"] == want["state"]
            assert killed.export(table["id"]) == reference.export(table["id"])
        assert sum(h["received"] for h in reference.boards()) == len(sent)
    finally:
        killed.close()
        reference.close()
