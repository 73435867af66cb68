"""USB serial links (docs/design.md §5): one reader thread per port, pyserial.

Each line is ``$<json>*<xor>\\r\\n`` (``firmware.protocol``). A board identifies itself by
the ``board`` field of what it sends (``hello`` first, after a boot), so ports need no
configuration. A bad line is counted against the board last seen on that port, logged
(rate-limited, :mod:`hub.devices.rejects`) and dropped. A port that goes away (cable pulled,
board reset) is closed, its boards are reported ``lost``, and it is reopened when the
device node comes back. Opening a port keeps what is waiting in its input: those are
events a board wrote while the hub was down (pyserial flushes it by default). A port is
opened exclusively (``flock``): a second hub on the same port waits until the first lets
it go, rather than reading half of the board's lines (a hub left running by a killed test
run once took the hello of every later test whose pty got its number).
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import serial

from firmware import protocol
from hub.devices import board_id
from hub.devices.rejects import RejectLog
from hub.devices.transport import DeviceSink, Transport

MAX_BOARDS = 64  # board ids remembered (for acks) across all ports; a port has a few
REOPEN_EVERY_S = 0.5
READ_TIMEOUT_S = 0.05
WRITE_TIMEOUT_S = 1.0


class KeepInputSerial(serial.Serial):
    """A pyserial port that does not discard pending input when it opens: a board's
    lines written while the hub was down (or restarting) are events, not noise."""

    _opening = False

    def open(self) -> None:
        self._opening = True
        try:
            super().open()
        finally:
            self._opening = False

    def _reset_input_buffer(self) -> None:
        if not self._opening:
            super()._reset_input_buffer()  # type: ignore[misc]


class _Port:
    def __init__(self, path: str) -> None:
        self.path = path
        self.link = f"serial:{path}"
        self.handle: serial.Serial | None = None
        self.write_lock = threading.Lock()
        self.boards: set[str] = set()
        self.last_board: str | None = None
        self.opens = 0
        self.corrupt = 0
        self.rejects = RejectLog(self.link)


class SerialTransport(Transport):
    """Reads any number of serial ports; writes acks back to the port a board is on."""

    name = "serial"

    def __init__(self, ports: list[str], baudrate: int = 115200) -> None:
        self.baudrate = baudrate
        self._ports = [_Port(p) for p in ports]
        self._where: dict[str, _Port] = {}  # board -> port it was last seen on
        self._sink: DeviceSink | None = None
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self, sink: DeviceSink) -> None:
        self._sink = sink
        for port in self._ports:
            thread = threading.Thread(target=self._run, args=(port,), name=f"serial-{port.path}",
                                      daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=2.0)
        self._threads.clear()
        for port in self._ports:
            self._close(port)

    def send(self, board: str, msg: dict[str, Any]) -> bool:
        port = self._where.get(board)
        if port is None:
            return False
        line: bytes = protocol.encode_line(msg)
        # Under the write lock, which _close takes too: the reader thread closes a port it
        # lost while the timer thread may be writing an ack to it, and pyserial's write on a
        # handle closed under it raised a TypeError (its fd gone) out of the timer's tick.
        with port.write_lock:
            if port.handle is None:
                return False
            try:
                port.handle.write(line)
                return True
            except (serial.SerialException, OSError):
                return False

    def describe(self) -> dict[str, Any]:
        return {"transport": self.name, "ports": [
            {"port": p.path, "open": p.handle is not None, "boards": sorted(p.boards),
             "opens": p.opens, "corrupt": p.corrupt} for p in self._ports]}

    # -- per port ------------------------------------------------------------------------
    def _run(self, port: _Port) -> None:
        while not self._stop.is_set():
            if port.handle is None and not self._open(port):
                self._stop.wait(REOPEN_EVERY_S)
                continue
            try:
                self._read(port)
            except (serial.SerialException, OSError):
                self._lost(port)

    def _open(self, port: _Port) -> bool:
        try:
            # exclusive: an advisory lock (flock) on the port, so a second hub process
            # cannot open it too — two readers of one tty each take a share of its lines.
            # write_timeout: a board that stops reading (its USB stack hung) fills the tty's
            # buffer; a write then fails after a second instead of holding the write lock,
            # and the timer thread with it, for good.
            port.handle = KeepInputSerial(port.path, self.baudrate, timeout=READ_TIMEOUT_S,
                                          write_timeout=WRITE_TIMEOUT_S, exclusive=True)
        except (serial.SerialException, OSError):
            return False
        port.opens += 1
        return True

    def _close(self, port: _Port) -> None:
        with port.write_lock:  # no write is under way on it (send)
            handle, port.handle = port.handle, None
        if handle is not None:
            try:
                handle.close()
            except (serial.SerialException, OSError):
                pass

    def _lost(self, port: _Port) -> None:
        self._close(port)
        assert self._sink is not None
        for board in sorted(port.boards):
            if self._where.get(board) is port:
                self._sink.device_status(self, board, "lost", port.link)

    def _read(self, port: _Port) -> None:
        assert self._sink is not None and port.handle is not None
        buffer = b""
        skipping = False  # inside an overlong line: drop everything up to its end
        while not self._stop.is_set():
            chunk = port.handle.read(max(1, port.handle.in_waiting))
            if not chunk:
                continue
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                if skipping:
                    skipping = False
                else:
                    self._line(port, line)
            if len(buffer) > protocol.MAX_LINE:
                buffer = b""
                if not skipping:
                    skipping = True
                    self._corrupt(port, "line too long")

    def _line(self, port: _Port, line: bytes) -> None:
        assert self._sink is not None
        if not line.strip():
            return
        msg, reason = protocol.decode_line(line)
        if msg is None or msg.get("type") not in protocol.DEVICE_TYPES:
            self._corrupt(port, str(reason or "not a device message"), named_board(line))
            return
        board: str = msg["board"]
        refused = board_id.refusal(board)
        if refused is not None:  # counted on the port, under no board's name (issue 32.11)
            self._corrupt(port, refused, blame=False)
            return
        if self._where.get(board) is not port:
            if board not in self._where and len(self._where) >= MAX_BOARDS:
                # made-up ids on a port (issue 13 finding 7): forget the oldest one
                oldest = next(iter(self._where))
                self._where.pop(oldest).boards.discard(oldest)
            old = self._where.pop(board, None)
            if old is not None:
                old.boards.discard(board)
            self._where[board] = port
            port.boards.add(board)
        port.last_board = board
        # decode_line checked the frame: b"$" + JSON + b"*" + two hex digits.
        self._sink.device_message(self, msg, port.link, line.strip()[1:-3].decode())

    def _corrupt(self, port: _Port, reason: str, board: str | None = None, blame: bool = True) -> None:
        """A rejected line counts against the board it names, else the port's last one
        (``blame`` False: against none, for a board id the hub does not take)."""
        assert self._sink is not None
        port.corrupt += 1
        board = board or (port.last_board if blame else None)
        port.rejects.note(board, reason)
        self._sink.device_corrupt(self, port.link, reason, board)


def named_board(line: bytes) -> str | None:
    """The well-formed board id a rejected line names, if any.

    >>> named_board(b'$' + b'{"board":"B2","seq":-1}' + b'*00'), named_board(b"junk")
    ('B2', None)
    """
    if len(line) > protocol.MAX_LINE:
        return None
    start, star = line.find(b"{"), line.rfind(b"}")
    try:
        body = json.loads(line[start:star + 1]) if 0 <= start < star else None
    except ValueError:
        return None
    board = body.get("board") if isinstance(body, dict) else None
    return board if protocol.is_name(board) else None


def wait_open(transport: SerialTransport, timeout: float = 5.0) -> bool:
    """Wait until every port is open (tests)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(p.handle is not None for p in transport._ports):
            return True
        time.sleep(0.02)
    return False
