"""A simulated sensor board: the firmware's own :class:`firmware.node.Node` on simulated
pins and a simulated clock, talking to the hub over a pseudo-terminal (the hub opens
``path`` with pyserial, like a USB board under /dev/serial/by-id) or over MQTT (the
firmware's own :class:`firmware.links.MqttLink` and non-blocking :mod:`firmware.mqtt` client).

Time is virtual (µs, wrapped like ``ticks_us``). A background thread polls the node
every 2 ms of virtual time: while palet edges are scheduled it runs at ``speed`` × real
time (0: as fast as it can), otherwise at real time, so acks, resends and health flow.
"""

from __future__ import annotations

import heapq
import itertools
import os
import pty
import select
import threading
import time
import tty
from pathlib import Path
from typing import Any

from firmware import config as fw_config
from firmware.links import MqttLink, SerialLink
from firmware.loadcell import LoadCell
from firmware.mqtt import MqttClient
from firmware.node import Node
from hub.sim.model import LOAD_PER_PALET_RAW, LOAD_SETTLE_US, LOAD_TARE_RAW, LoadCellModel

TICKS_MASK = (1 << 30) - 1
POLL_US = 2_000
IDLE_TAIL_US = 400_000  # past the last edge: the node's 300 ms confirm has decided
HOLE_PINS = {"big": [2, 3], "small": [6, 7], "jackpot": [10, 11]}  # pico_w_example wiring
LANE = "line"  # the lane name of a simulated board's throw gate
LINE_PINS = {"name": LANE, "near": 16, "far": 17}


def board_config(board: str, holes: list[str], throw_line: bool = False) -> dict[str, Any]:
    """A validated firmware config for a simulated board (two beams per hole, and a
    throw gate when asked).

    >>> [c[:2] for c in board_config("S1", ["big", "small"])["channels"]]
    [('big', 0), ('big', 1), ('small', 0), ('small', 1)]
    """
    cfg: dict[str, Any] = {"board": board, "port": "rp2", "links": ["serial"],
                           "holes": [{"name": h, "beams": HOLE_PINS[h]} for h in holes]}
    if throw_line:
        cfg["line"] = dict(LINE_PINS)
    return dict(fw_config.load(cfg))


_client_ids = itertools.count(1)


def mqtt_client(board: str, host: str, port: int, keepalive_s: int, user: str | None = None,
                password: str | None = None) -> MqttClient:
    """The firmware's own non-blocking MQTT client (CPython sockets here), with a client
    id unique per simulated board instance."""
    return MqttClient(f"sim-{board}-{os.getpid()}-{next(_client_ids)}", host, port, user, password,
                      keepalive_s)


class SimBoard:
    """One simulated board on a pty; ``schedule()`` palet edges, ``unplug()``/``plug()``
    to drop and restore its link."""

    def __init__(self, board: str, holes: list[str], path: Path, speed: float = 0.0,
                 mqtt_broker: tuple[str, int] | None = None,
                 mqtt_login: tuple[str, str] | None = None, load_cell: bool = False,
                 throw_line: bool = False) -> None:
        self.board = board
        self.holes = list(holes)
        self.path = path
        self.speed = speed
        self.now_us = 1_000_000
        cfg = board_config(board, self.holes, throw_line)
        self.channels = {(name, beam): k for k, (name, beam, _pin) in enumerate(cfg["channels"])}
        if throw_line:  # the gate's planes: the channels after the beams (no buttons here)
            self.channels.update({(LANE, 0): len(self.channels), (LANE, 1): len(self.channels) + 1})
        self.pins = [False] * len(self.channels)
        self.node = Node(cfg, clock=lambda: self.now_us & TICKS_MASK,
                         read_beam=lambda ch: self.pins[ch])
        self.node.keep_events = True
        self.load: LoadCellModel | None = None
        self.master = -1
        self.slave = -1
        self._pending: list[tuple[int, int, int, bool]] = []  # (t_us, order, channel, closed)
        self._order = 0
        self._busy_until = 0
        self._lock = threading.Lock()
        self._idle = threading.Event()
        self._idle.set()
        self._stop = threading.Event()
        self.link: SerialLink | MqttLink
        if mqtt_broker is None:
            self.plug()
            self.link = SerialLink(write=self._write, read=self._read)
        else:
            host, port = mqtt_broker
            user, password = mqtt_login or (None, None)
            self.link = MqttLink(board, lambda: mqtt_client(board, host, port, 5, user, password),
                                 keepalive_s=5, retry_ms=300)
        if load_cell:  # before start(): the hello says the board is weighed
            self.add_load_cell()
        self.node.add_link(self.link)
        self.node.start()
        self._thread = threading.Thread(target=self._run, name=f"sim-{board}", daemon=True)
        self._thread.start()

    # -- the load cell (optional) --------------------------------------------------------
    def add_load_cell(self, seed: int | str = 0) -> None:
        """Put a calibrated HX711 load cell under the board: the firmware's own LoadCell
        reads a :class:`LoadCellModel` and sends ``weight`` events."""
        import random

        with self._lock:
            self.load = LoadCellModel(random.Random(f"load:{self.board}:{seed}"))
            self.node.weigh = lambda: self.load.raw(self.now_us) if self.load is not None else None
            self.node.cell = LoadCell(per_palet=LOAD_PER_PALET_RAW, tare=LOAD_TARE_RAW)

    def set_palets(self, palets: int) -> None:
        """Palets now lying on the board (a landing, a knock-off, the round's clear-up);
        the board rocks for a moment. ``wait_idle()`` until the firmware has decided."""
        with self._lock:
            if self.load is None:
                raise RuntimeError(f"{self.board} has no load cell (add_load_cell)")
            self.load.set_palets(self.now_us, palets)
            self._busy_until = max(self._busy_until, self.now_us + LOAD_SETTLE_US)
            self._idle.clear()

    @property
    def is_mqtt(self) -> bool:
        return isinstance(self.link, MqttLink)

    # -- the pty ------------------------------------------------------------------------
    def plug(self) -> None:
        master, slave = pty.openpty()
        tty.setraw(slave)
        name = os.ttyname(slave)
        with self._lock:
            self.master, self.slave = master, slave  # our slave fd stays open (no EIO)
        tmp = self.path.with_suffix(".tmp")
        if tmp.exists() or tmp.is_symlink():
            tmp.unlink()
        tmp.symlink_to(name)
        tmp.replace(self.path)

    def unplug(self) -> None:
        """The board vanishes (a USB cable pulled, a Wi-Fi drop): writes fail meanwhile and
        the node keeps its events in the outbox."""
        if self.path.is_symlink():
            self.path.unlink()
        with self._lock:
            master, slave, self.master, self.slave = self.master, self.slave, -1, -1
        for fd in (master, slave):
            if fd >= 0:
                os.close(fd)

    def _write(self, data: bytes) -> None:
        if self.master < 0:
            raise OSError("unplugged")
        os.write(self.master, data)

    def _read(self) -> bytes | None:
        if self.master < 0:
            return None
        ready, _, _ = select.select([self.master], [], [], 0)
        return os.read(self.master, 4096) if ready else None

    # -- palets ---------------------------------------------------------------------------
    def schedule(self, hole: str, edges: list[tuple[int, bool, int]]) -> None:
        """Beam edges ``(beam, closed, t_us)`` with ``t_us`` relative to now + 5 ms."""
        with self._lock:
            base = self.now_us + 5_000
            for beam, closed, t_us in edges:
                self._order += 1
                heapq.heappush(self._pending, (base + t_us, self._order,
                                               self.channels[(hole, beam)], closed))
                self._busy_until = max(self._busy_until, base + t_us + IDLE_TAIL_US)
            self._idle.clear()

    def hold(self, us: int) -> None:
        """Keep the board's clock running at ``speed`` for ``us`` more (a settle window
        that must pass on the board's clock, as fast as the palets' edges run)."""
        with self._lock:
            self._busy_until = max(self._busy_until, self.now_us + us)
            self._idle.clear()

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Until every scheduled edge is fed and the node has decided."""
        return self._idle.wait(timeout)

    def events(self) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(e) for e in self.node.events]

    def _step(self) -> None:
        self.now_us += POLL_US
        while self._pending and self._pending[0][0] <= self.now_us:
            t_us, _order, channel, closed = heapq.heappop(self._pending)
            self.pins[channel] = closed
            self.node.edge(channel, closed, t_us & TICKS_MASK)
        self.node.poll()

    def _run(self) -> None:
        last = time.monotonic()
        while not self._stop.is_set():
            with self._lock:
                busy = self.now_us < self._busy_until
                if busy:
                    self._step()
                elif not self._idle.is_set():
                    self._idle.set()
            if busy:
                if self.speed > 0:
                    time.sleep(POLL_US / 1e6 / self.speed)
                last = time.monotonic()
                continue
            time.sleep(0.01)
            now = time.monotonic()
            with self._lock:  # idle: real time, so acks, resends and health flow
                for _ in range(max(1, int((now - last) * 1e6 / POLL_US))):
                    self._step()
            last = now

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        if isinstance(self.link, MqttLink):
            with self._lock:
                self.link.close()
        else:
            self.unplug()
