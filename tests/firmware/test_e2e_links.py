"""Links that never block the board's loop (issue 14, finding 2): the real main loop under
the MicroPython unix port, MQTT through the firmware's non-blocking client to a real
Mosquitto, and the broker frozen (SIGSTOP), killed, or cut half-open (a proxy that
passes nothing and closes nothing). Meanwhile the serial link must keep talking, the
board must keep counting, and afterwards the hub must get every event."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.broker import Broker
from tests.firmware.board_proc import BoardProcess
from tests.firmware.tcp_proxy import TcpProxy
from tests.firmware.test_e2e_mqtt import BOARD, DROP_BIG, DROP_SMALL_2MS, GAP, Hub

pytestmark = [pytest.mark.micropython, pytest.mark.mqtt, pytest.mark.slow]

FAULT_S = 7.0  # > 1.5 x keepalive (2 s) + the 5 s connect timeout of a retry


def board_cfg(broker_port: int) -> dict[str, Any]:
    """Serial + MQTT (keepalive 2 s, retry 300 ms), health every second."""
    return {"board": BOARD, "port": "unix",
            "holes": [{"name": "big", "beams": [2, 3], "emitter": 4}, {"name": "small", "beams": [5]}],
            "links": ["serial", "mqtt"],
            "mqtt": {"broker": "127.0.0.1", "port": broker_port, "keepalive_s": 2},
            "thresholds": {"mqtt_retry_ms": 300, "health_every_s": 1, "resend_ms": 500}}


@pytest.fixture
def rig(own_mosquitto: Broker, tmp_path: Path) -> Iterator[tuple[Hub, BoardProcess, Broker, TcpProxy]]:
    proxy = TcpProxy((own_mosquitto.host, own_mosquitto.port))
    hub = Hub(own_mosquitto)
    board = BoardProcess(tmp_path / "board", board_cfg(proxy.port))
    board.start()
    try:
        yield hub, board, own_mosquitto, proxy
    finally:
        board.stop()
        hub.close()
        proxy.close()
        print(board.text()[-2000:])


def healths(board: BoardProcess) -> list[dict[str, Any]]:
    return [m for m in board.messages() if m["type"] == "health"]


def fault(kind: str, broker: Broker, proxy: TcpProxy, on: bool) -> None:
    assert broker.proc is not None or kind == "killed"
    if kind == "frozen":
        assert broker.proc is not None
        os.kill(broker.proc.pid, signal.SIGSTOP if on else signal.SIGCONT)
    elif kind == "killed":
        if on:
            assert broker.proc is not None
            broker.proc.kill()
            broker.proc.wait()
            broker.proc = None
        else:
            broker.start()
    else:
        proxy.blackhole = on  # the flows die silently: what is in flight never arrives


@pytest.mark.parametrize("kind", ["frozen", "killed", "half-open"])
def test_a_broken_broker_link_never_stalls_the_loop_and_loses_nothing(
        kind: str, rig: tuple[Hub, BoardProcess, Broker, TcpProxy]) -> None:
    hub, board, broker, proxy = rig
    hub.wait(lambda: len(hub.events) >= 1 and "online" in hub.status)
    board.wait(lambda: any(h["counters"]["acked"] >= 1 for h in healths(board)))
    fault(kind, broker, proxy, True)
    try:
        before = len(healths(board))
        board.script(DROP_BIG, GAP, DROP_SMALL_2MS, GAP, DROP_SMALL_2MS)
        time.sleep(FAULT_S)
        during = len(healths(board)) - before
        made = [e["seq"] for e in board.events("drop")]
    finally:
        fault(kind, broker, proxy, False)
    assert during >= FAULT_S - 2, f"serial health stopped during the fault ({during} lines)"
    assert sorted(set(made)) == [2, 3, 4], made  # the board kept classifying
    hub.wait(lambda: {e["seq"] for e in hub.events} >= {1, 2, 3, 4}, timeout=60)
    stall = max(h["counters"]["loop_max_ms"] for h in healths(board))
    print(f"{kind}: longest loop stall {stall} ms")
    # umqtt.simple blocked the loop for the whole fault (>= 1.5 x keepalive = 3 s); a loop
    # that never blocks still stalls now and then on a loaded machine (559 ms seen beside
    # the full suite on 2 cores), so the guard sits between the two
    assert stall < 2000, stall
    board.wait(lambda: healths(board)[-1]["counters"]["acked"] >= 4, timeout=60)
