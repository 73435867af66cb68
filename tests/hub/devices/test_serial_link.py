"""The node under CPython (as the hub's simulator runs it) talks to the hub's real serial
link over a pseudo-terminal: lines out, the hub's acks back in, resends stop."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import pytest

from firmware import config, protocol
from firmware.links import SerialLink
from firmware.node import Node
from hub.devices.serial_link import SerialTransport, wait_open
from hub.devices.transport import Transport
from tests.hub.boards import private_pty


class AckingSink:
    """What the hub does for serial boards: take messages, ack events cumulatively."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.corrupt: list[str] = []
        self.lock = threading.Lock()

    def device_message(self, transport: Transport, msg: dict[str, Any], link: str,
                       raw: str | None = None) -> None:
        with self.lock:
            self.messages.append(msg)
            seqs = sorted({m["seq"] for m in self.messages if m["type"] in protocol.EVENT_TYPES})
        high = 0
        while high + 1 in seqs:
            high += 1
        if msg["type"] in protocol.EVENT_TYPES:
            transport.send(msg["board"], protocol.ack(msg["boot"], high))

    def device_corrupt(self, transport: Transport, link: str, reason: str, board: str | None) -> None:
        self.corrupt.append(reason)

    def device_status(self, transport: Transport, board: str, status: str, link: str) -> None:
        pass

    def events(self) -> list[tuple[str, int]]:
        with self.lock:
            return [(m["type"], m["seq"]) for m in self.messages if m["type"] != "health"]


@pytest.mark.slow  # 2-3 s: the fast loop stays under a minute
def test_simulated_node_over_a_pty_is_acked_by_the_hub_serial_link() -> None:
    master, slave = private_pty()
    os.set_blocking(master, False)

    def read_master() -> bytes | None:
        try:
            return os.read(master, 4096)
        except BlockingIOError:
            return None

    cfg = config.load({"board": "P1", "port": "unix", "holes": [{"name": "big", "beams": [2, 3]}],
                       "thresholds": {"resend_ms": 200}})
    clock = [0]
    node = Node(cfg, lambda: clock[0], lambda ch: False)
    link = SerialLink(lambda data: os.write(master, data), read_master)
    node.add_link(link)
    sink = AckingSink()
    transport = SerialTransport([os.ttyname(slave)])
    transport.start(sink)
    try:
        assert wait_open(transport)
        node.start()

        def run(ms: int) -> None:
            for _ in range(ms // 2):
                clock[0] += 2000
                node.poll()
                time.sleep(0.002)

        run(100)
        node.edge(0, True, clock[0])
        node.edge(1, True, clock[0] + 15000)
        node.edge(0, False, clock[0] + 20000)
        node.edge(1, False, clock[0] + 30000)
        run(800)
        assert sorted(set(sink.events())) == [("drop", 2), ("hello", 1)], sink.events()
        deadline = time.monotonic() + 5
        while node.outbox.unacked() and time.monotonic() < deadline:
            run(20)
        assert node.outbox.unacked() == 0 and node.outbox.acked == 2
        sent = len(sink.events())
        run(1000)
        assert len(sink.events()) == sent  # acknowledged: nothing is resent
        assert sink.corrupt == [] and link.bad == 0
    finally:
        transport.stop()
        os.close(master)
        os.close(slave)


def test_a_second_transport_cannot_open_a_port_the_first_one_reads() -> None:
    """Two readers of one tty each take a share of its lines: the second waits instead."""
    master, slave = private_pty()
    name = os.ttyname(slave)
    first, second = SerialTransport([name]), SerialTransport([name])
    try:
        first.start(AckingSink())
        assert wait_open(first)
        second.start(AckingSink())
        assert not wait_open(second, timeout=0.7)  # it tried at least twice (REOPEN_EVERY_S)
        first.stop()
        assert wait_open(second)
    finally:
        first.stop()
        second.stop()
        os.close(master)
        os.close(slave)
