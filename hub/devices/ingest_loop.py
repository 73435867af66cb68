"""The device side of the running hub: what the ingest thread and the timer do with
board messages, around the pure bookkeeping of :mod:`hub.devices.ingest`.

Transports put arrivals in the :class:`hub.devices.inbox.Inbox` (never waiting for storage);
the ingest thread takes them in batches and, under the hub's lock: :func:`hub.devices.ingest.take`
decides, the store commits, the tables apply, and only then the acks go out. One
message can fail only itself: when the store refuses a batch, the ingest state is rolled
back (nothing counted as stored, nothing acknowledged) and the batch is retried board by
board, then a failing board's messages one by one; a message the store still refuses is
dropped unacknowledged with an alert (the board keeps it and resends it).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from firmware import protocol
from hub.devices import ingest
from hub.devices.inbox import Inbox
from hub.devices.ingest import Ack, Arrival, IngestState, Intake
from hub.devices.transport import Transport
from hub.log.changes import ChangeFeed
from hub.log.store import EventStore
from hub.tables.table import Table
from hub.tables.tableset import TableSet

JSONDict = dict[str, Any]
log = logging.getLogger("hub")

INGEST_BATCH = 1000
CLOCK_ASK_S = 0.5  # health requests to a board whose clock a settle window waits for
COMMAND_EVERY_S = 1.0  # the same table command (selftest, tare) to one board at most this often


class IngestLoop:
    """Inbox → ingest → store → apply → acks, for one hub (its lock, store, tables)."""

    def __init__(self, store: EventStore, tables: TableSet, devices: IngestState[Transport],
                 feed: ChangeFeed, lock: threading.RLock,
                 applied: Callable[[Table], list[Ack[Transport]]], lost_after_s: float) -> None:
        self.store, self.tables, self.devices, self.feed = store, tables, devices, feed
        self._lock = lock
        self._applied = applied
        self.lost_after_s = lost_after_s
        self.inbox: Inbox[Arrival[Transport]] = Inbox(INGEST_BATCH)
        self._clock_asked: dict[str, float] = {}
        self._commanded: dict[tuple[str, str], float] = {}
        self.applied_hook: Callable[[list[JSONDict]], None] | None = None
        """Called (ingest thread, outside the lock) with each batch of applied device
        messages; the benchmark measures latency with it."""

    # -- the transports' side (any thread) -----------------------------------------------
    def put(self, transport: Transport, msg: JSONDict, link: str, raw: str | None = None) -> None:
        self.put_many(transport, [(msg, raw)], link)

    def put_many(self, transport: Transport, messages: list[tuple[JSONDict, str | None]],
                 link: str) -> None:
        at = time.time()
        self.inbox.put_many(Arrival(transport, msg, link, at, raw) for msg, raw in messages)

    def corrupt(self, link: str, reason: str, board: str | None) -> None:
        with self._lock:
            if board is not None and self.devices.admits(board, time.time(), link):
                self.devices.board(board).corrupt += 1
                self.feed.boards([board])
            log.debug("corrupt message on %s: %s", link, reason)  # the link logs it (rate-limited)

    # -- the ingest thread ---------------------------------------------------------------
    def run(self, stop: threading.Event) -> None:
        """The ingest thread: batches from the inbox until ``stop``."""
        self.inbox.run(self.ingest, stop)

    def ingest(self, batch: list[Arrival[Transport]]) -> None:
        """Take a batch of device messages, store what is ready in one commit, apply it,
        then send the cumulative acks (see the module doc for failures)."""
        with self._lock:
            applied = self._isolated(batch)
        if self.applied_hook is not None and applied:
            self.applied_hook(applied)

    def _isolated(self, batch: list[Arrival[Transport]]) -> list[JSONDict]:
        try:
            return self._once(batch)
        except Exception as err:  # noqa: BLE001 - whatever the store refused, isolate it
            if len(batch) == 1:
                self._unstorable(batch[0], err)
                return []
        boards = list(dict.fromkeys(item.msg["board"] for item in batch))
        parts = ([[i for i in batch if i.msg["board"] == b] for b in boards] if len(boards) > 1
                 else [[item] for item in batch])
        return [msg for part in parts for msg in self._isolated(part)]

    def _once(self, batch: list[Arrival[Transport]]) -> list[JSONDict]:
        self.devices.begin()
        try:
            intake = ingest.take(self.devices, batch, time.monotonic())
            ids = self.store.append(intake.entries) if intake.entries else []
        except BaseException:
            self.devices.rollback()
            raise
        self.devices.commit()
        return self._apply_stored(intake, ids)

    def _unstorable(self, item: Arrival[Transport], err: Exception) -> None:
        msg = item.msg
        what = f"{msg.get('type')} seq {msg.get('seq')} of boot {msg.get('boot')}"
        log.error("board %s: %s could not be stored (%s); not acknowledged", msg["board"], what, err)
        self.devices.board(msg["board"]).alert(item.at, "unstorable", what=what, reason=str(err))
        self.feed.boards([msg["board"]])

    def _apply_stored(self, intake: Intake[Transport], ids: list[int | None]) -> list[JSONDict]:
        touched: dict[str, None] = {}
        commands: list[Ack[Transport]] = []
        for table_id, entry in ingest.stored(self.devices, intake, ids):
            table = self.tables[table_id]
            try:
                table.apply_entry(entry)
            except Exception:  # noqa: BLE001 - stored is stored: the other entries still apply
                log.exception("applying entry %s to table %s failed", entry.id, table_id)
            commands.extend(self._applied(table))
            touched[table_id] = None
        self.send(intake.acks + intake.asks + commands)
        self.feed.changed([{"kind": "table", "table": t} for t in touched])
        self.feed.boards(intake.boards)
        return [item.msg for item, entry_id in zip(intake.ready, ids, strict=True)
                if entry_id is not None and item.msg["type"] in protocol.EVENT_TYPES]

    def fresh(self, commands: list[Ack[Transport]], now: float) -> list[Ack[Transport]]:
        """The tables' commands not sent to their board in the last COMMAND_EVERY_S
        (monotonic ``now``). A table asks a selftest after every throw; a backlog drained
        at once (a hub back from a crash, bench/hub_ingest.py) asked hundreds a second of
        one board, which needs one: a command asks for a state, not an action per throw."""
        out = []
        for command in commands:
            key = (command.board, command.msg["cmd"])
            if now - self._commanded.get(key, float("-inf")) >= COMMAND_EVERY_S:
                self._commanded[key] = now
                out.append(command)
        return out

    @staticmethod
    def send(acks: list[Ack[Transport]]) -> None:
        """Send acks and commands, in order, one :meth:`Transport.send_many` per link."""
        by_link: dict[Transport, list[tuple[str, JSONDict]]] = {}
        for ack in acks:
            by_link.setdefault(ack.link, []).append((ack.board, ack.msg))
        for link, items in by_link.items():
            link.send_many(items)

    # -- the timer (under the hub's lock) ------------------------------------------------
    def ask_clock(self, table: Table, now: float) -> None:
        """A settle window waits to see the board's time pass it: ask the board for a
        health message (it carries its clock), at most every CLOCK_ASK_S."""
        wanted = table.clock_wanted(now)
        if wanted is None:
            return
        board = wanted[0]
        link = self.devices.links.get(board)
        if link is not None and now - self._clock_asked.get(board, 0.0) >= CLOCK_ASK_S:
            self._clock_asked[board] = now
            link.send(board, protocol.command(0, "health"))

    def expire(self, now: float, mono: float) -> None:
        """Give up old seq gaps, mark silent boards lost (:func:`hub.devices.ingest.expire`)."""
        self.devices.begin()
        intake = ingest.expire(self.devices, now, mono, self.lost_after_s)
        try:
            ids = self.store.append(intake.entries) if intake.entries else []
        except BaseException:
            self.devices.rollback()  # given up next tick, once the store takes them
            raise
        self.devices.commit()
        for alert in intake.alerts:
            log.warning("board %s: %s", alert.board, alert.text)
        self._apply_stored(intake, ids)
