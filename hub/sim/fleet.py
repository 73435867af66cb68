"""A simulated fleet (issue 33): many boards on one in-memory link, cheap enough for 60
boards in a test — each says ``hello`` and ``health`` as the firmware does (the codec
checks every message), answers the hub's commands (``identify``, ``selftest``,
``rearm``, ``reboot``, ``health``), keeps its events until they are acknowledged, and
takes a firmware update two ways: the hub's ``update`` messages, answered with
``update_state`` as firmware/update.py does (the board pulls file by file, checks each
file's SHA-256 against the manifest, switches and says ``hello`` on the new version:
what :func:`hub.fleet.transfer.update_board` drives over the hub's own link), or the
shortcut :meth:`SimFleet.update_board` (the :data:`hub.fleet.service.Updater` contract
itself, with a progress callback and chosen failures).

No thread of its own: the caller drives it (``hub.flush()`` then look), so a test waits
for conditions, never for time. The real firmware on real links is tested elsewhere
(tests/firmware/, tests/hil/); this is for the fleet's orchestration and its pages.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from firmware import protocol
from hub.devices.transport import DeviceSink, Transport

JSONDict = dict[str, Any]
CHUNKS = 8  # progress steps of one simulated transfer


@dataclass
class SimBoardState:
    """What one simulated board is and holds."""

    board: str
    fw: str = "1.0.0"
    config: str = "c0ffee"
    holes: list[str] = field(default_factory=lambda: ["big", "small"])
    boot: int = 1
    seq: int = 0
    t_us: int = 0
    rssi: int | None = -60
    faulty: set[str] = field(default_factory=set)
    unacked: list[JSONDict] = field(default_factory=list)
    crash: str | None = None
    online: bool = True
    identified: int = 0
    selftests: int = 0
    incoming: dict[int, bytes] = field(default_factory=dict)  # an update being received, by file index
    incoming_id: str | None = None
    incoming_version: str | None = None
    commands: list[str] = field(default_factory=list)


class SimFleet(Transport):
    """``n`` boards ``S01``… on one link (``boards`` to name them yourself).

    ``fail``: board → why its update fails (it stays on its version); ``gate``: called
    with the board before each chunk of an update (a test may hold a transfer there)."""

    name = "simfleet"

    def __init__(self, n: int = 0, *, boards: list[str] | None = None, seed: int = 1, fw: str = "1.0.0",
                 round_trip_s: float = 0.0) -> None:
        rng = random.Random(seed)
        names = boards if boards is not None else [f"S{i:02d}" for i in range(1, n + 1)]
        self.boards = {b: SimBoardState(b, fw=fw, boot=rng.randrange(1, 1 << 20), rssi=rng.randrange(-76, -45))
                       for b in names}
        self.sink: DeviceSink | None = None
        self.fail: dict[str, str] = {}
        self.gate: Callable[[str], None] | None = None
        self.updated: list[str] = []
        self.round_trip_s = round_trip_s
        """Each ``update`` message waits this long for its answer: a link's round trip (the
        transfer's thread waits, as on a real link; nothing else does)."""
        self.ack_latency_s: list[tuple[str, float]] = []
        """(board, event made → acknowledged) for every event acknowledged (the bench reads it)."""
        self._made: dict[tuple[str, int, int], float] = {}
        self._lock = threading.RLock()

    # -- Transport -------------------------------------------------------------------
    def start(self, sink: DeviceSink) -> None:
        self.sink = sink

    def stop(self) -> None:
        self.sink = None

    def describe(self) -> JSONDict:
        return {"transport": self.name, "boards": len(self.boards)}

    def send(self, board: str, msg: JSONDict) -> bool:
        with self._lock:
            b = self.boards.get(board)
            if b is None or not b.online:
                return False
            if msg["type"] == "ack":
                if msg["boot"] == b.boot:
                    now = time.monotonic()
                    for e in b.unacked:  # only those the ack covers: a later one keeps its time
                        if e["seq"] <= msg["seq"]:
                            made = self._made.pop((board, e["boot"], e["seq"]), None)
                            if made is not None:
                                self.ack_latency_s.append((board, now - made))
                    b.unacked = [e for e in b.unacked if e["seq"] > msg["seq"]]
                return True
            if msg["type"] == "update":
                answer, switch = self._update_message(b, msg)
            else:
                b.commands.append(msg["cmd"])
                cmd = msg["cmd"]
        if msg["type"] == "update":
            if self.round_trip_s:
                time.sleep(self.round_trip_s)  # the link's round trip, in the transfer's own thread
            self._deliver(answer)
            if switch is not None:
                if board in self.fail:  # the new version fails its trial: back on the old one, said in its hello
                    self.boot(board, rollback=f"{switch}: {self.fail[board]}")
                else:
                    with self._lock:
                        b.fw = switch
                        self.updated.append(board)
                    self.boot(board)
            return True
        if cmd == "identify":
            b.identified += 1
        elif cmd == "reboot":
            self.boot(board)
        elif cmd in ("health", "selftest", "rearm"):
            if cmd == "rearm":
                b.faulty.clear()
            if cmd in ("selftest", "rearm"):
                b.selftests += len(b.holes)
            self.health(board)
        elif cmd == "resend":
            for event in list(b.unacked):
                self._deliver(event)
        return True

    # -- the update protocol (firmware/update.py, as the hub sees it) -------------------
    def _update_message(self, b: SimBoardState, msg: JSONDict) -> tuple[JSONDict, str | None]:
        """The board's ``update_state`` answer to one ``update`` message, and the version
        it switches to (it then restarts) or None."""
        op = msg["op"]
        if op == "status" or op == "abort":
            if op == "abort":
                b.incoming, b.incoming_id = {}, None
            return self._stamp(b, "update_state", {"state": "running", "version": b.fw}, False), None
        if op == "begin":
            if b.incoming_id != msg["id"]:
                b.incoming, b.incoming_id, b.incoming_version = {}, msg["id"], msg["version"]
                b.incoming[-1] = int(msg["msize"]).to_bytes(4, "big")  # the manifest's size, kept aside
            return self._want(b), None
        if b.incoming_id != msg["id"]:
            return self._stamp(b, "update_state", {"state": "refused", "reason": "no update begun"}, False), None
        file, off = int(msg["file"]), int(msg["off"])
        held = b.incoming.get(file, b"")
        if off == len(held):
            b.incoming[file] = held + base64.b64decode(msg["data"])
        answer = self._want(b)
        if answer["state"] == "switching":
            return answer, b.incoming_version
        return answer, None

    def _sizes(self, b: SimBoardState) -> list[int] | None:
        """Each file's size by index once the manifest is in (None before)."""
        msize = int.from_bytes(b.incoming[-1], "big")
        manifest = b.incoming.get(1, b"")
        if len(manifest) < msize:
            return None
        listed = json.loads(manifest)["files"]
        return [64, msize, *[size for _path, size, _digest in listed]]

    def _want(self, b: SimBoardState) -> JSONDict:
        for file in (0, 1):
            size = 64 if file == 0 else int.from_bytes(b.incoming[-1], "big")
            if len(b.incoming.get(file, b"")) < size:
                return self._stamp(b, "update_state", {"state": "want", "id": b.incoming_id, "file": file,
                                                        "off": len(b.incoming.get(file, b""))}, False)
        sizes = self._sizes(b) or []
        listed = json.loads(b.incoming[1])["files"]
        for file, size in enumerate(sizes):
            if len(b.incoming.get(file, b"")) < size:
                return self._stamp(b, "update_state", {"state": "want", "id": b.incoming_id, "file": file,
                                                        "off": len(b.incoming.get(file, b""))}, False)
        for index, (_path, _size, digest) in enumerate(listed, start=2):
            if hashlib.sha256(b.incoming[index]).hexdigest() != digest:
                b.incoming, b.incoming_id = {}, None
                return self._stamp(b, "update_state", {"state": "refused", "reason": "bad hash"}, False)
        b.incoming, b.incoming_id = {}, None
        return self._stamp(b, "update_state", {"state": "switching", "version": b.incoming_version}, False)

    # -- what the boards say ---------------------------------------------------------
    def _deliver(self, msg: JSONDict) -> None:
        reason = protocol.validate(msg)
        assert reason is None, (reason, msg)
        if self.sink is not None:
            self.sink.device_message(self, msg, f"sim:{msg['board']}")

    def _stamp(self, b: SimBoardState, kind: str, fields: JSONDict, queued: bool) -> JSONDict:
        b.t_us = (b.t_us + 10_000) & protocol.T_US_MASK
        if queued:
            b.seq += 1
        msg = {"type": kind, "board": b.board, "boot": b.boot, "seq": b.seq, "t_us": b.t_us, **fields}
        if queued:
            b.unacked.append(msg)
            self._made[(b.board, b.boot, b.seq)] = time.monotonic()
        return msg

    def hello(self, board: str, rollback: str | None = None) -> None:
        with self._lock:
            b = self.boards[board]
            fields: JSONDict = {"fw": b.fw, "config": b.config, "holes": list(b.holes)}
            if b.crash:
                fields["crash"] = b.crash
            if rollback:
                fields["rollback"] = rollback
            msg = self._stamp(b, "hello", fields, True)
        self._deliver(msg)

    def health(self, board: str) -> None:
        with self._lock:
            b = self.boards[board]
            beams = {h: "fault" if h in b.faulty else "open" for h in b.holes}
            fields = {"uptime_s": b.t_us // 1_000_000, "mem_free": 90_000, "beams": beams,
                      "counters": {"unacked": len(b.unacked), "a_missed": 0, "edge_overflow": 0,
                                   "selftests": b.selftests},
                      "overflow": 0}
            if b.rssi is not None:
                fields["rssi"] = b.rssi
            msg = self._stamp(b, "health", fields, False)
        self._deliver(msg)

    def drop(self, board: str, hole: str = "big") -> JSONDict:
        """A palet through ``hole``: the event, kept until acknowledged."""
        with self._lock:
            msg = self._stamp(self.boards[board], "drop", {"hole": hole}, True)
        self._deliver(msg)
        return msg

    def boot(self, board: str, crash: str | None = None, rollback: str | None = None) -> None:
        """The board (re)starts: a new boot id, its hello (``rollback``: the version that
        failed its trial, and why) and a health."""
        with self._lock:
            b = self.boards[board]
            b.boot += 1
            b.seq = 0
            b.crash = crash
            b.unacked = [e for e in b.unacked if e["type"] != "hello"]
        self.hello(board, rollback)
        self.health(board)

    def start_all(self) -> None:
        """Every board says hello and its health."""
        for board in list(self.boards):
            self.hello(board)
            self.health(board)

    def acked(self, board: str) -> bool:
        """Everything the board produced was acknowledged."""
        with self._lock:
            return not self.boards[board].unacked

    # -- updates (the Updater contract) ----------------------------------------------
    def update_board(self, link: Any, board: str, bundle: Any, progress: Callable[..., None]) -> JSONDict:
        """Send ``bundle`` (``{"version": ...}``) to ``board`` in chunks, then the board
        restarts on it and says so in its hello. A board in :attr:`fail` refuses it (it stays
        on its version) and one that is not online is unreachable, as the real transfer
        answers (:class:`hub.fleet.transfer.UpdateResult`'s outcomes)."""
        version = bundle["version"] if isinstance(bundle, dict) else str(bundle)
        with self._lock:
            b = self.boards[board]
            if not b.online:
                return {"ok": False, "outcome": "unreachable", "reason": f"{board} is not reachable"}
        for chunk in range(CHUNKS):
            if self.gate is not None:
                self.gate(board)
            progress(chunk + 1, CHUNKS)
        if board in self.fail:
            self.boot(board, crash=None)
            return {"ok": False, "outcome": "refused", "reason": self.fail[board]}
        with self._lock:
            b.fw = version
            self.updated.append(board)
        self.boot(board)
        return {"ok": True, "fw": version}
