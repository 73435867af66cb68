"""Send one signed bundle to one board over its link, and see it run (issue 33, point 3).

The contract the staged rollout codes against is :func:`update_board`; everything else in
this module is how it is done. Protocol: docs/protocol.md, "Updates".
"""

from __future__ import annotations

import base64
import dataclasses
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from firmware import protocol
from hub.devices.mqtt_link import MqttSettings, stop_client
from hub.fleet.bundle import Bundle

CHUNK = 480  # bytes per `update data`: 640 base64 characters, one short serial line, well
# under the ~2 KB burst the board's MQTT client takes (firmware/update.py CHUNK_MAX)
ASKS = 4  # a silent board is asked this many times before it is "unreachable"
NOT_UNDER_WAY = "no transfer under way"  # firmware/update.py: data after the board's reset
STATUS_EVERY_S = 1.0  # during the trial: asking the status proves the link (the board commits)

Outcome = Literal["updated", "already", "refused", "rolled_back", "unreachable"]


class UpdateLink(Protocol):
    """One board's link, as :func:`update_board` uses it (serial or MQTT; see
    :class:`SerialUpdateLink`, :class:`MqttUpdateLink`, or wrap the running hub's
    transport: ``send`` = ``Transport.send(board, msg)`` (MQTT: it publishes on the topic
    named by the message type, ``…/update``), ``receive`` = the next message from that board
    out of a queue fed by the hub's ``device_message``; over MQTT the hub must then also
    subscribe to ``trigono/v1/+/update_state``, which ``hub/devices/mqtt_link.py`` does not
    today)."""

    def send(self, msg: dict[str, Any]) -> bool:
        """Send one hub message (``update``) to the board; False when it cannot now."""
        ...

    def receive(self, timeout_s: float) -> dict[str, Any] | None:
        """The next decoded message from the board (any type: ``update_state`` answers
        and ``hello`` matter here), or None after ``timeout_s`` of nothing."""
        ...


@dataclass(frozen=True)
class Progress:
    """Where a transfer is: ``phase`` is "offer" (asking the board), "send" (chunks),
    "switch" (the board verified everything and reboots into the new slot), "trial" (the
    new version runs and must pass its self-test), "done"."""

    board: str
    phase: str
    sent: int  # bundle bytes the board holds so far
    total: int  # bundle bytes in all


@dataclass(frozen=True)
class UpdateResult:
    """How one board's update ended.

    outcome   "updated"      the board runs ``bundle.version`` and committed it;
              "already"      it ran that version before (nothing sent);
              "refused"      the board refused the bundle (``reason``: bad hash, bad
                             signature, older version, other board type...), unchanged;
              "rolled_back"  the new version did not pass its trial (crash, hang, failed
                             self-test, no hello in time): the board went back to
                             ``version_after`` (the old one) by itself and said so;
              "unreachable"  the board stopped answering (``reason``); call again to
                             resume: what it holds already is not sent again.
    """

    board: str
    outcome: Outcome
    version_before: str | None
    version_after: str | None
    reason: str
    bytes_sent: int
    seconds: float


ProgressFn = Callable[[Progress], None]


def update_board(link: UpdateLink, board_id: str, bundle: Bundle, progress: ProgressFn | None = None,
                 *, answer_timeout_s: float = 5.0, trial_timeout_s: float = 120.0) -> UpdateResult:
    """Update one board with ``bundle`` over ``link`` and wait for the verdict.

    Blocking; call it from a thread of your own, one call per board at a time (several
    boards may be updated at once, one thread each). Never raises for what the board does
    (refusals, silence, rollback are outcomes).

    The board pulls: each of its ``update_state`` answers names the next (file, offset) it
    wants, so a call after an interruption (hub restart, board reset, link drop) resumes
    where the board's flash is. ``answer_timeout_s``: a silent board is asked again, 4
    times in all, then the outcome is "unreachable". ``trial_timeout_s``: how long the new
    version has to say hello and commit (the board's own deadline, ``trial_ms``, rolls it
    back before that). ``progress`` is called from this thread at each step (at most once
    per chunk).
    """
    return _Update(link, board_id, bundle, progress, answer_timeout_s, trial_timeout_s).run()


class _Update:
    def __init__(self, link: UpdateLink, board: str, bundle: Bundle, progress: ProgressFn | None,
                 answer_timeout_s: float, trial_timeout_s: float) -> None:
        self.link, self.board, self.bundle = link, board, bundle
        self.progress = progress
        self.answer_timeout_s, self.trial_timeout_s = answer_timeout_s, trial_timeout_s
        self.parts = bundle.parts()
        self.total = bundle.size
        self.sent = 0
        self.started = time.monotonic()
        self.before: str | None = None
        self.hellos: list[dict[str, Any]] = []
        self.old_boots: set[Any] = set()  # boots heard before the switch: their hellos are old news

    def result(self, outcome: Outcome, after: str | None, reason: str = "") -> UpdateResult:
        if outcome == "updated":
            self.tell("done", self.total)
        return UpdateResult(self.board, outcome, self.before, after, reason, self.sent,
                            round(time.monotonic() - self.started, 3))

    def tell(self, phase: str, held: int) -> None:
        if self.progress is not None:
            self.progress(Progress(self.board, phase, held, self.total))

    def msg(self, op: str, **fields: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "update", "boot": 0, "op": op}
        out.update(fields)
        reason = protocol.validate(out)
        assert reason is None, reason
        return out

    def ask(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        """Send ``msg`` until the board answers (its next update_state), or None."""
        for _ in range(ASKS):
            self.link.send(msg)
            until = time.monotonic() + self.answer_timeout_s
            while (left := until - time.monotonic()) > 0:
                got = self.link.receive(left)
                if got is None:
                    break
                if got.get("board") != self.board:
                    continue
                self.old_boots.add(got.get("boot"))
                if got.get("type") == "update_state":
                    return got
                if got.get("type") == "hello":
                    self.hellos.append(got)
        return None

    def held(self, file: int, off: int) -> int:
        return sum(len(p) for p in self.parts[:file]) + off

    def run(self) -> UpdateResult:
        self.tell("offer", 0)
        status = self.ask(self.msg("status"))
        if status is None:
            return self.result("unreachable", None, "no answer to `update status`")
        self.before = status.get("version")
        if status.get("version") == self.bundle.version and status.get("state") == "running":
            return self.result("already", self.before)
        begin = self.msg("begin", id=self.bundle.id, version=self.bundle.version, msize=len(self.bundle.manifest))
        answer = self.ask(begin)
        restarts = 0
        while answer is not None and answer.get("state") in ("want", "refused"):
            if answer.get("state") == "refused":
                if answer.get("reason") != NOT_UNDER_WAY or restarts >= ASKS:
                    break
                restarts += 1  # the board reset mid-transfer: offer again, it resumes from its flash
                answer = self.ask(begin)
                continue
            file, off = int(answer.get("file", 0)), int(answer.get("off", 0))
            if file >= len(self.parts) or off >= len(self.parts[file]):
                return self.result("refused", self.before, f"the board wants file {file} at {off}")
            chunk = self.parts[file][off:off + CHUNK]
            self.tell("send", self.held(file, off))
            self.sent += len(chunk)
            answer = self.ask(self.msg("data", id=self.bundle.id, file=file, off=off,
                                       data=base64.b64encode(chunk).decode()))
        if answer is None:
            return self.result("unreachable", self.before, "the board stopped answering during the transfer")
        if answer.get("state") == "refused":
            return self.result("refused", self.before, str(answer.get("reason", "")))
        if answer.get("state") != "switching":
            return self.result("refused", self.before, f"unexpected answer {answer.get('state')!r}")
        self.tell("switch", self.total)
        return self.trial()

    def trial(self) -> UpdateResult:
        """The board resets into the new slot: wait for its hello, then for its commit."""
        until = time.monotonic() + self.trial_timeout_s
        new_boot = False
        next_status = 0.0
        while time.monotonic() < until:
            for hello in self.hellos:
                if hello.get("boot") in self.old_boots:
                    continue  # a resent hello of the boot before the switch
                if hello.get("fw") == self.bundle.version:
                    new_boot = True
                elif hello.get("rollback"):
                    return self.result("rolled_back", hello.get("fw"), str(hello["rollback"]))
            self.hellos.clear()
            if time.monotonic() >= next_status:  # also when its hello was missed
                if new_boot:
                    self.tell("trial", self.total)
                next_status = time.monotonic() + STATUS_EVERY_S
                self.link.send(self.msg("status"))
            got = self.link.receive(min(STATUS_EVERY_S, max(until - time.monotonic(), 0.01)))
            if got is None or got.get("board") != self.board:
                continue
            if got.get("type") == "hello":
                self.hellos.append(got)
            elif got.get("boot") in self.old_boots:
                continue
            elif got.get("type") == "update_state" and got.get("state") == "running":
                if got.get("version") == self.bundle.version:
                    return self.result("updated", self.bundle.version)
                if got.get("reason"):  # back on the old version: it says why
                    return self.result("rolled_back", got.get("version"), str(got["reason"]))
            elif got.get("type") == "update_state" and got.get("state") == "trial":
                new_boot = True
        return self.result("unreachable", None, f"no commit within {self.trial_timeout_s:.0f} s")


class SerialUpdateLink:
    """A board's USB serial port opened by this process (the hub must not hold it): sends
    ``update`` lines, reads what the board says; reopens the port after the board's reset
    (a Pico's USB comes back under the same name)."""

    def __init__(self, path: str, baudrate: int = 115200) -> None:
        import serial

        self._serial = serial
        self.path, self.baudrate = path, baudrate
        self.handle: Any = None
        self.buffer = b""

    def _open(self) -> bool:
        if self.handle is not None:
            return True
        try:
            self.handle = self._serial.Serial(self.path, self.baudrate, timeout=0.05, write_timeout=2)
            return True
        except (self._serial.SerialException, OSError):
            return False

    def _lost(self) -> None:
        handle, self.handle = self.handle, None
        self.buffer = b""
        if handle is not None:
            try:
                handle.close()
            except (self._serial.SerialException, OSError):
                pass

    def send(self, msg: dict[str, Any]) -> bool:
        if not self._open():
            return False
        try:
            self.handle.write(protocol.encode_line(msg))
            return True
        except (self._serial.SerialException, OSError):
            self._lost()
            return False

    def receive(self, timeout_s: float) -> dict[str, Any] | None:
        until = time.monotonic() + timeout_s
        while True:
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                msg: dict[str, Any] | None = protocol.decode_line(line)[0]
                if msg is not None and msg.get("type") in protocol.DEVICE_TYPES:
                    return msg
            if time.monotonic() >= until:
                return None
            if not self._open():
                time.sleep(0.05)
                continue
            try:
                self.buffer += self.handle.read(4096) or b""
            except (self._serial.SerialException, OSError):
                self._lost()
            if len(self.buffer) > 4 * protocol.MAX_LINE:
                self.buffer = self.buffer[-protocol.MAX_LINE:]

    def close(self) -> None:
        self._lost()


class MqttUpdateLink:
    """One board over MQTT (Pico W): publishes to ``trigono/v1/<board>/update``, reads its
    ``event`` (the hello) and ``update_state`` topics. Its own paho client, beside the
    hub's: the broker's ACL must let this user write the board's ``update`` topic (the
    hub's user may)."""

    def __init__(self, settings: MqttSettings, board: str, connect_timeout_s: float = 10.0) -> None:
        from hub.devices.mqtt_link import new_client

        self.board = board
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.subscribed = threading.Event()
        host, port = settings.host, settings.port
        self.client = new_client(dataclasses.replace(settings, client_id=f"trigono-update-{board}"))
        self.client.on_connect = self._on_connect
        self.client.on_subscribe = lambda *_args: self.subscribed.set()
        self.client.on_message = self._on_message
        self.client.connect(host, port, keepalive=30)
        self.client.loop_start()
        if not self.subscribed.wait(connect_timeout_s):
            self.close()
            raise ConnectionError(f"MQTT broker {host}:{port}: no subscription within {connect_timeout_s} s")

    def _on_connect(self, client: Any, _userdata: Any, _flags: Any, reason: Any, _props: Any) -> None:
        if not reason.is_failure:
            client.subscribe([(protocol.topic(self.board, "event"), 0),
                              (protocol.topic(self.board, "update_state"), 0)])

    def _on_message(self, _client: Any, _userdata: Any, message: Any) -> None:
        msg, _ = protocol.decode_payload(message.payload, self.board)
        if msg is not None and msg.get("type") in protocol.DEVICE_TYPES:
            self.inbox.put(msg)

    def send(self, msg: dict[str, Any]) -> bool:
        info = self.client.publish(protocol.topic(self.board, "update"), protocol.encode_payload(msg), qos=0)
        return bool(info.rc == 0)

    def receive(self, timeout_s: float) -> dict[str, Any] | None:
        try:
            got: dict[str, Any] = self.inbox.get(timeout=max(timeout_s, 0.0))
            return got
        except queue.Empty:
            return None

    def close(self) -> None:
        stop_client(self.client)
