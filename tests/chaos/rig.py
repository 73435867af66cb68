"""The fault-injection rig: simulated boards running the real firmware node
(:class:`hub.sim.board.SimBoard`: serial over a pty, MQTT through the shipped auth
broker) in real time, a hub (in this process, or the real ``trigono hub`` process to
SIGKILL), and the audit every chaos test ends with.

The audit, per board: every event its node produced (``node.events``: seq by seq, every
boot) is in the log exactly once, and applying the log live gave the same tables as a
replay of the log from nothing (R1) — so nothing was applied twice or skipped.
"""

from __future__ import annotations

import ctypes
import json
import os
import random
import signal
import subprocess
import sys
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hub.log.open import open_store
from hub.sim.board import SimBoard
from hub.sim.model import hole_edges
from tests.broker import AuthBroker
from tests.hub.boards import wait_for
from tests.pg import log_only_copy

__all__ = ["wait_for"]

ROOT = Path(__file__).resolve().parents[2]
HOLES = ["big", "small"]


def table_spec(n: int, board: str) -> dict[str, Any]:
    """One Trigono table per board, rounds long enough that drops keep being refereed."""
    return {"id": f"t{n}", "game": "trigono", "seats": ["Ana", "Ben"], "boards": [board],
            "seed": n, "options": {"first": "Ana", "palets_per_player": 60}}


def _die_with_parent() -> None:
    """In the hub's child before exec: SIGTERM when the test process dies. A pytest
    worker killed mid-run (a timeout, SIGKILL) never ran :meth:`HubProcess.stop`; its hub
    lived on for hours reopening its ``--serial /dev/pts/N`` every 0.5 s, and read the
    lines of whichever later test got that recycled pty number."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class HubProcess:
    """``python -m hub hub`` on an event store (a SQLite file or a PostgreSQL URL), with
    serial ports and/or the auth broker; its stderr goes to ``log``."""

    def __init__(self, db: Path | str, serial: list[Path], broker: AuthBroker | None,
                 tables: list[dict[str, Any]], settle_s: float = 0.5, *, log: Path) -> None:
        self.args = [sys.executable, "-m", "hub", "hub", "--db", str(db), "--settle", str(settle_s)]
        if serial:
            self.args += ["--serial", *map(str, serial)]
        if broker is not None:
            self.args += ["--mqtt", f"{broker.host}:{broker.port}", "--mqtt-user", "hub",
                          "--mqtt-password-file", str(broker.password_file("hub"))]
        for table in tables:
            self.args += ["--table", json.dumps(table)]
        self.proc: subprocess.Popen[str] | None = None
        self.log = log

    def start(self) -> None:
        with self.log.open("a") as err:
            self.proc = subprocess.Popen(self.args, cwd=ROOT, stdout=subprocess.PIPE, stderr=err, text=True,
                                         preexec_fn=_die_with_parent)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line and json.loads(line)["hub"] == "ready", self.log.read_text()

    def kill(self) -> None:
        self._end(signal.SIGKILL)

    def stop(self) -> None:
        self._end(signal.SIGTERM)

    def _end(self, signum: int) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        os.kill(proc.pid, signum)
        proc.wait(timeout=30)
        if proc.stdout is not None:
            proc.stdout.close()


class Boards:
    """Simulated boards on real ptys and/or the auth broker, each dropping a palet through
    a random hole every ``period_s`` (real time) while :meth:`play` runs."""

    def __init__(self, workdir: Path, serial: list[str], mqtt: list[str],
                 broker: AuthBroker | None, seed: int = 1, resend_ms: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.boards: dict[str, SimBoard] = {}
        self.paths: dict[str, Path] = {}
        for name in serial:
            self.paths[name] = workdir / f"tty-{name}"
            self.boards[name] = SimBoard(name, HOLES, self.paths[name], speed=1.0)
        for name in mqtt:
            assert broker is not None
            self.boards[name] = SimBoard(name, HOLES, workdir / f"unused-{name}", speed=1.0,
                                         mqtt_broker=(broker.host, broker.port),
                                         mqtt_login=(name, broker.password(name)))
        if resend_ms is not None:  # the firmware's resend_ms threshold, as a board's config sets it
            for sim in self.boards.values():
                with sim._lock:
                    sim.node.th["resend_ms"] = resend_ms
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def play(self, period_s: float = 0.7) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._play, args=(period_s,), daemon=True)
        self._thread.start()

    def _play(self, period_s: float) -> None:
        while not self._stop.wait(period_s):
            for sim in self.boards.values():
                sim.schedule(self.rng.choice(HOLES), hole_edges(self.rng, 0, passes=True))

    def pause(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        for sim in self.boards.values():
            sim.wait_idle()

    def sent(self) -> dict[str, int]:
        """How many events each board's node has produced so far."""
        return {name: len(sim.events()) for name, sim in self.boards.items()}

    def wait_each_sent(self, since: dict[str, int], more: int, timeout: float = 60.0) -> bool:
        """Until every board has produced ``more`` events since the ``since`` counts: a
        phase of a test is measured in events, not in seconds of a loaded machine."""
        return wait_for(lambda: all(n >= since[b] + more for b, n in self.sent().items()),
                        timeout=timeout, every=0.1)

    def all_acked(self) -> bool:
        return all(sim.node.outbox.unacked() == 0 for sim in self.boards.values())

    def close(self) -> None:
        self._stop.set()
        for sim in self.boards.values():
            sim.close()


@dataclass
class Figures:
    """One board's figures for the closing note."""

    board: str
    sent: int
    stored: int
    doubled: int
    missing: list[tuple[int, int]]
    applied: int | None = None  # events applied to a table (in-process hubs count them)
    applied_twice: int = 0

    def line(self) -> str:
        applied = "" if self.applied is None else f" / applied {self.applied}"
        return f"{self.board}: sent {self.sent} / stored {self.stored}{applied} / doubled {self.doubled}"


def stored_counts(db: Path | str) -> Counter[tuple[str | None, int | None, int]]:
    """(board, boot, seq) -> rows in the log (the unique index allows 1; counted anyway)."""
    store = open_store(db)
    try:
        return Counter((e.board, e.boot, e.seq) for e in store.entries() if e.seq is not None)
    finally:
        store.close()


def audit(db: Path | str, sent: dict[str, list[dict[str, Any]]]) -> list[Figures]:
    """Per board: what its node produced against what the log holds."""
    counts = stored_counts(db)
    out = []
    for board, events in sorted(sent.items()):
        keys = [(board, e["boot"], e["seq"]) for e in events]
        missing = [(b, s) for _, b, s in keys if counts.get((board, b, s), 0) == 0]
        doubled = sum(1 for k in keys if counts.get(k, 0) > 1)
        out.append(Figures(board, len(keys), sum(1 for k in keys if counts.get(k, 0) >= 1), doubled,
                           missing))
    return out


def live_equals_replay(db: Path | str, workdir: Path) -> dict[str, Any]:
    """Open the store as the hub left it (snapshots of the live state) and a copy without
    snapshots (a replay of the whole log): every table's record and state must match.
    Returns {table: number of device entries in its log}."""
    with log_only_copy(str(db), workdir) as bare:
        return _tables_match(str(db), bare)


def _tables_match(db: str, bare: str) -> dict[str, Any]:
    from hub.facade import Hub

    live, replay = Hub(open_store(db)), Hub(open_store(bare))
    try:
        tables = [t["id"] for t in live.list_tables()]
        assert tables == [t["id"] for t in replay.list_tables()]
        applied = {}
        for table in tables:
            assert live.export(table) == replay.export(table), table
            assert live.table_view(table)["state"] == replay.table_view(table)["state"], table
            applied[table] = sum(1 for e in live.store.entries(table) if e.source == "device")
        return applied
    finally:
        live.close()
        replay.close()


class LiveHub:
    """A hub in this process on an event store (a SQLite file or a PostgreSQL URL), with
    real links, counting what it applies (``applied``: (board, boot, seq) → times applied)."""

    def __init__(self, db: Path | str, tables: list[dict[str, Any]], settle_s: float = 0.3) -> None:
        from hub.facade import Hub

        self.db = db
        self.hub = Hub(open_store(db), settle_s=settle_s)
        self.applied: Counter[tuple[str, int, int]] = Counter()
        self.hub.applied_hook = self._count
        self.hub.start()
        for table in tables:
            spec = dict(table)
            self.hub.create_table(spec.pop("game"), table_id=spec.pop("id"), **spec)

    def _count(self, msgs: list[dict[str, Any]]) -> None:
        for msg in msgs:
            self.applied[(msg["board"], msg["boot"], msg["seq"])] += 1

    def serial(self, paths: list[Path]) -> Any:
        from hub.devices.serial_link import SerialTransport, wait_open

        link = SerialTransport([str(p) for p in paths])
        self.hub.add_transport(link)
        assert wait_open(link)
        return link

    def mqtt(self, broker: AuthBroker) -> Any:
        from hub.devices.mqtt_link import MqttTransport

        link = MqttTransport(broker.host, broker.port, username="hub", password=broker.password("hub"))
        self.hub.add_transport(link)
        assert link.connected.wait(10), link.describe()
        return link

    def audit(self, sent: dict[str, list[dict[str, Any]]]) -> list[Figures]:
        """Every event each board produced: stored once and applied once (bound boards)."""
        assert self.hub.flush(10)
        figures = audit(self.db, sent)
        for f in figures:
            f.applied = sum(self.applied.get((f.board, e["boot"], e["seq"]), 0)
                            for e in sent[f.board])
            f.applied_twice = sum(1 for e in sent[f.board]
                                  if self.applied.get((f.board, e["boot"], e["seq"]), 0) > 1)
        return figures

    def close(self) -> None:
        self.hub.close()


def reboot(sim: SimBoard) -> list[dict[str, Any]]:
    """The board resets: a new firmware node on the same pins, clock, link and boot
    counter (flash); what its RAM held is gone. Returns the old boot's events."""
    from firmware.node import Node

    with sim._lock:
        old = sim.node
        node = Node(old.cfg, clock=old.clock, read_beam=old.read_beam, storage=old.storage)
        node.keep_events = True
        sim.node = node
        node.add_link(sim.link)
        node.start()
    return [dict(e) for e in old.events]


def assert_exactly_once(figures: list[Figures], label: str) -> None:
    print(f"\n{label}:", "; ".join(f.line() for f in figures))
    for f in figures:
        assert f.sent > 0 and f.missing == [] and f.doubled == 0, f
        if f.applied is not None:
            assert f.applied_twice == 0, f
