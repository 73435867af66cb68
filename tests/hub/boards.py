"""Test boards that speak protocol v1 with the real codec (firmware.protocol).

They behave like the firmware's outbox: every event gets the next seq of the boot, stays
in a ring until the hub's cumulative ack covers it, and is resent when the link comes
back or when ``resend()`` is called. Two links: the master side of a pseudo-terminal
(the hub opens the slave with pyserial) and an MQTT client with the status last will.
"""

from __future__ import annotations

import os
import pty
import threading
import time
import tty
from pathlib import Path
from typing import TYPE_CHECKING, Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from firmware import protocol
from hub.devices.mqtt_link import stop_client
from hub.log.store import HubBusyError

if TYPE_CHECKING:
    from hub.facade import Hub

TICKS_MASK = (1 << 30) - 1  # ticks_us() wraps at 2**30 on MicroPython

_SPOILED_PTYS: list[int] = []  # ptys another process reads: kept open so none is handed out again


def private_pty() -> tuple[int, int]:
    """A pseudo-terminal (master, slave fds; the slave raw) that no other process reads.

    Pty numbers are recycled: a hub left running by a killed test run (``--serial
    /dev/pts/0`` on its command line, reopened every 0.5 s while it is gone) opened the
    next test's pty under that number and took a share of the board's lines — a hello
    here, three bounces there — so the test waited for events that went to the other
    process. A pty another process has open, or names on its command line (it may open it
    any moment), is set aside (kept open, so it is not handed out again) for a fresh one."""
    for _ in range(16):
        master, slave = pty.openpty()
        if not _claimed_elsewhere(os.ttyname(slave)):
            tty.setraw(slave)
            return master, slave
        _SPOILED_PTYS.extend((master, slave))
    raise RuntimeError("every pseudo-terminal handed out is claimed by another process")


def _claimed_elsewhere(name: str) -> bool:
    mine, wanted = str(os.getpid()), name.encode()
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or pid == mine:
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if wanted in cmdline.read().split(b"\0"):
                    return True
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:  # gone, or not ours to look at
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == name:
                    return True
            except OSError:
                continue
    return False


class Outbox:
    """Seq numbering and the unacked ring of one board boot."""

    def __init__(self, board: str, boot: int = 1, holes: tuple[str, ...] = ("big", "small")) -> None:
        self.board, self.boot, self.holes = board, boot, holes
        self.seq = 0
        self.unacked: dict[int, dict[str, Any]] = {}
        self.acked = 0
        self.beams = {hole: "open" for hole in holes}
        self.lock = threading.Lock()
        self.skew_us = 0
        """Added to the board's clock: a test moves the board's time on (a long silence)
        without waiting for it."""

    def now_us(self) -> int:
        """The board's ``ticks_us()``: wrapped at 2**30, like MicroPython's."""
        return (time.monotonic_ns() // 1000 + self.skew_us) & TICKS_MASK

    def make(self, kind: str, **fields: Any) -> dict[str, Any]:
        with self.lock:
            self.seq += 1
            msg = {"type": kind, "board": self.board, "boot": self.boot, "seq": self.seq,
                   "t_us": self.now_us(), **fields}
            self.unacked[self.seq] = msg
            if kind in ("blocked", "cleared"):
                self.beams[fields["hole"]] = "blocked" if kind == "blocked" else "open"
            return msg

    def hello(self) -> dict[str, Any]:
        return self.make("hello", fw="test-1", config="cfg", holes=list(self.holes))

    def on_ack(self, msg: dict[str, Any]) -> None:
        if msg.get("type") != "ack" or msg.get("boot") != self.boot:
            return
        with self.lock:
            self.acked = max(self.acked, msg["seq"])
            for seq in [s for s in self.unacked if s <= msg["seq"]]:
                del self.unacked[seq]

    def health(self) -> dict[str, Any]:
        """A health message (not queued): the board's clock now, what it still holds."""
        with self.lock:
            return {"type": "health", "board": self.board, "boot": self.boot, "seq": self.seq,
                    "t_us": self.now_us(), "uptime_s": 0, "mem_free": 0,
                    "overflow": 0, "beams": dict(self.beams), "counters": {"unacked": len(self.unacked)}}

    def pending(self) -> list[dict[str, Any]]:
        with self.lock:
            return [self.unacked[s] for s in sorted(self.unacked)]


class PtyBoard:
    """A board on a pseudo-terminal; ``path`` is what the hub opens (a symlink we control,
    like /dev/serial/by-id, so the port can vanish and come back)."""

    def __init__(self, board: str, link_path: Path, boot: int = 1) -> None:
        self.out = Outbox(board, boot)
        self.path = link_path
        self.master = -1
        self.slave = -1
        self._reader: threading.Thread | None = None
        self._stop = threading.Event()
        self.plug()

    def plug(self) -> None:
        master, slave = private_pty()
        name = os.ttyname(slave)
        # Keep our slave fd open: with no slave open, reading the master fails with EIO.
        self.slave = slave
        self.master = master
        tmp = self.path.with_suffix(".tmp")
        if tmp.exists() or tmp.is_symlink():
            tmp.unlink()
        tmp.symlink_to(name)
        tmp.replace(self.path)
        self._stop.clear()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def unplug(self) -> None:
        self._stop.set()
        if self.path.is_symlink():
            self.path.unlink()
        os.close(self.master)
        os.close(self.slave)
        if self._reader is not None:
            self._reader.join(timeout=2)

    def _read(self) -> None:
        buffer = b""
        fd = self.master
        while not self._stop.is_set():
            try:
                import select

                ready, _, _ = select.select([fd], [], [], 0.05)
                if not ready:
                    continue
                chunk = os.read(fd, 4096)
            except OSError:
                return
            if not chunk:
                continue
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                msg, _ = protocol.decode_line(line)
                if msg is not None:
                    self.out.on_ack(msg)
                if msg is not None and msg.get("cmd") == "health":  # the hub asks for our clock
                    self.send(self.out.health())

    def write_raw(self, data: bytes) -> None:
        os.write(self.master, data)

    def send(self, msg: dict[str, Any]) -> None:
        self.write_raw(protocol.encode_line(msg))

    def event(self, kind: str, **fields: Any) -> dict[str, Any]:
        msg = self.out.make(kind, **fields)
        self.send(msg)
        return msg

    def resend(self) -> None:
        for msg in self.out.pending():
            self.send(msg)


class MqttBoard:
    """A board on MQTT: retained ``online`` status, last will ``lost``, QoS 1 events,
    acks from ``…/ack``."""

    def __init__(self, board: str, host: str, port: int, boot: int = 1,
                 login: tuple[str, str] | None = None) -> None:
        self.out = Outbox(board, boot)
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"board-{board}",
                                  clean_session=True)
        if login is not None:  # (user, password) on a broker with the shipped ACL
            self.client.username_pw_set(*login)
        self.client.will_set(protocol.topic(board, "status"), b"lost", qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.connected = threading.Event()
        self.client.connect(host, port, keepalive=2)
        self.client.loop_start()
        if not self.connected.wait(5):
            raise RuntimeError("board could not connect")

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        client.subscribe(protocol.topic(self.out.board, "ack"), qos=1)
        client.subscribe(protocol.topic(self.out.board, "cmd"), qos=1)
        client.publish(protocol.topic(self.out.board, "status"), b"online", qos=1, retain=True)
        self.connected.set()
        for msg in self.out.pending():  # resend after reconnect
            self._publish(msg)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        msg, _ = protocol.decode_payload(message.payload)
        if msg is not None:
            self.out.on_ack(msg)
        if msg is not None and msg.get("cmd") == "health":  # the hub asks for our clock
            self.client.publish(protocol.topic(self.out.board, "health"),
                                protocol.encode_payload(self.out.health()), qos=0)

    def _publish(self, msg: dict[str, Any]) -> None:
        self.client.publish(protocol.topic(self.out.board, "event"), protocol.encode_payload(msg), qos=1)

    def event(self, kind: str, **fields: Any) -> dict[str, Any]:
        msg = self.out.make(kind, **fields)
        self._publish(msg)
        return msg

    def resend(self) -> None:
        for msg in self.out.pending():
            self._publish(msg)

    def resend_every(self, seconds: float) -> threading.Event:
        """Resend what is unacknowledged every ``seconds`` (an ack timeout), until the
        returned event is set."""
        stop = threading.Event()

        def run() -> None:
            while not stop.wait(seconds):
                self.resend()

        threading.Thread(target=run, daemon=True).start()
        return stop

    def die(self) -> None:
        """Drop the connection without a DISCONNECT, so the broker fires the last will."""
        self.client.loop_stop()
        sock = self.client.socket()
        if sock is not None:
            sock.close()

    def close(self) -> None:
        stop_client(self.client)


def wait_for(predicate: Any, timeout: float = 30.0, every: float = 0.02) -> bool:
    """Poll ``predicate`` until it is true. ``timeout`` only guards against a hang: a passing
    test returns as soon as the condition holds, so it is generous (a loaded CI machine
    beside the chip emulator took more than the former 5 s)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _holds(predicate):
            return True
        time.sleep(every)
    return bool(predicate())


def _holds(predicate: Any) -> bool:
    # A hub whose commit has not returned within LOCK_WAIT_S answers "busy, try again"
    # (issue 24.8) instead of waiting: a poll takes that as "not yet". CI once saw a 2 s
    # commit on a loaded disk fail a test that was only waiting for a throw to show.
    try:
        return bool(predicate())
    except HubBusyError:
        return False


def uninterrupted_hub(tables: list[dict[str, Any]], messages: list[dict[str, Any]],
                      settle_s: float, db: str | Path = ":memory:") -> Hub:
    """A started hub that got the very same ``messages`` with nothing in the way (a fake
    link, no kill, no cut): what an interrupted run must equal (R1). Close it after use.

    Its timer closes no settle window: that waits for the board's clock (hub/tables/throws.py),
    which a fake link never shows, or for FALLBACK_S. So let each board's last drop be
    followed by an event that closes the window on the board's own clock."""
    from hub.devices.transport import FakeTransport
    from hub.facade import Hub

    reference = Hub(db, settle_s=settle_s)
    link = FakeTransport()
    reference.start()
    reference.add_transport(link)
    for table in tables:
        spec = dict(table)
        reference.create_table(spec.pop("game"), table_id=spec.pop("id"), **spec)
    for msg in messages:
        link.inject(msg)
    assert reference.flush()
    for _ in range(3):  # the timer's work, driven here rather than waited for: acks, snapshots
        reference.tick(time.time())
    return reference
