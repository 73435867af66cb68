"""The device side of the running hub: what the ingest thread and the timer do with
board messages, around the pure bookkeeping of :mod:`hub.devices.ingest`.

Transports put arrivals in the :class:`hub.devices.inbox.Inbox` (never waiting for storage);
the ingest thread takes them in batches and, under the hub's lock: :func:`hub.devices.ingest.take`
decides, the store commits, the tables apply (through the hub's one writer, straight into
the table set: the loop never calls back into the facade), and only then the acks go out.

The timer thread (:meth:`IngestLoop.run_timer`) lives here too: it sends the acks held
back, asks boards for their clock while a settle window waits on it, closes the due
settle windows, gives up old seq gaps, marks silent boards lost, and takes a due table
snapshot when no device message waits. One
message can fail only itself: when the store refuses a batch, the ingest state is rolled
back (nothing counted as stored, nothing acknowledged) and the batch is retried board by
board, then a failing board's messages one by one; a message the store still refuses is
dropped unacknowledged with an alert (the board keeps it and resends it).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from firmware import protocol
from hub.devices import ingest
from hub.devices.flood import RefereedLimit, UnrefereedLimit
from hub.devices.inbox import Inbox
from hub.devices.ingest import Ack, Arrival, IngestState, Intake
from hub.devices.transport import Transport
from hub.log import clock
from hub.log.changes import ChangeFeed
from hub.log.ratelog import RateLog
from hub.log.store import Entry, StoreWriteError
from hub.log.writer import LogWriter
from hub.tables.bots import BotWorker
from hub.tables.table import Table
from hub.tables.tableset import TableSet

JSONDict = dict[str, Any]
log = logging.getLogger("hub")
STORE_LOG = RateLog(log)  # a full disk fails every batch: one line per 30 s
TIMER_LOG = RateLog(log)

TICK_S = 0.02  # the timer's pace while something is due soon (a settle window, held acks, input)
IDLE_TICK_S = 0.25  # and otherwise: gaps, silent boards and snapshots can wait that long

INGEST_BATCH = 1000
CLOCK_ASK_S = 0.5  # health requests to a board whose clock a settle window waits for
COMMAND_EVERY_S = 1.0  # the same table command (selftest, tare) to one board at most this often


class IngestLoop:
    """Inbox → ingest → store → apply → acks, and the timer, for one hub (its writer and
    lock, its tables, its bots)."""

    def __init__(self, writer: LogWriter, tables: TableSet, devices: IngestState[Transport],
                 feed: ChangeFeed, bots: BotWorker, lost_after_s: float) -> None:
        self.writer, self.tables, self.devices, self.feed = writer, tables, devices, feed
        self._lock = writer.lock  # the hub's
        self.bots = bots
        self.timer_wake = threading.Event()
        """Set to have the timer tick at once (a settle window opened, the hub closes)."""
        self._commands: list[Ack[Transport]] = []  # asked by tables, sent after the next acks
        self.lost_after_s = lost_after_s
        self.inbox: Inbox[Arrival[Transport]] = Inbox(INGEST_BATCH)
        self.limit = UnrefereedLimit()
        """The budget of boards this hub does not referee (:mod:`hub.devices.flood`)."""
        self.bound_limit = RefereedLimit()
        """What each board this hub referees may have stored (:mod:`hub.devices.flood`)."""
        self._clock_asked: dict[str, float] = {}
        self._commanded: dict[tuple[str, str], float] = {}
        self.applied_hook: Callable[[list[JSONDict]], None] | None = None
        """Called (ingest thread, outside the lock) with each batch of applied device
        messages; the benchmark measures latency with it."""

    # -- the transports' side (any thread) -----------------------------------------------
    def put(self, transport: Transport, msg: JSONDict, link: str, raw: str | None = None) -> None:
        self.put_many(transport, [(msg, raw)], link)

    def put_many(self, transport: Transport, messages: list[tuple[JSONDict, str | None]],
                 link: str, retained: bool = False) -> None:
        at = clock.now()
        self.inbox.put_many(Arrival(transport, msg, link, at, raw, retained) for msg, raw in messages
                            if self._within_budget(msg["board"], msg, raw))

    def _within_budget(self, board: str, msg: JSONDict | None = None, raw: str | None = None) -> bool:
        # Read without the hub's lock (a set and a dict, each test atomic): a board bound
        # a moment ago may spend one more token; a flood never waits on the lock.
        if not self.devices.referees(board):
            return self.limit.allow(board)
        if msg is None:  # a rejected line: counted, never stored
            return True
        return self.bound_limit.allow(board, len(raw) if raw is not None else len(json.dumps(msg)))

    def corrupt(self, link: str, reason: str, board: str | None) -> None:
        if board is not None and not self._within_budget(board):
            return  # junk under an unrefereed id: counted by the limit, not worth the lock
        with self._lock:
            if board is not None and self.devices.admits(board, clock.now(), link):
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
        except StoreWriteError as err:  # the whole store, not one entry: nothing acked
            STORE_LOG.error("store", "device messages not stored, not acknowledged: %s", err)
            return []
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
        except BaseException:
            self.devices.rollback()
            raise
        return self._write(intake)

    def _write(self, intake: Intake[Transport]) -> list[JSONDict]:
        """Store the intake's entries through the writer and apply them; the ingest state
        (begun by the caller) is rolled back when the store refuses them."""
        applied: list[JSONDict] = []

        def apply(stored: list[Entry | None]) -> list[JSONDict]:
            self.devices.commit()
            changes, events = self._apply_stored(intake, stored)
            applied.extend(events)
            return changes

        try:
            self.writer.write(intake.entries, apply)
        except BaseException:
            if self.devices.in_transaction():
                self.devices.rollback()
            raise
        return applied

    def _unstorable(self, item: Arrival[Transport], err: Exception) -> None:
        msg = item.msg
        what = f"{msg.get('type')} seq {msg.get('seq')} of boot {msg.get('boot')}"
        log.error("board %s: %s could not be stored (%s); not acknowledged", msg["board"], what, err)
        self.devices.board(msg["board"]).alert(item.at, "unstorable", what=what, reason=str(err))
        self.feed.boards([msg["board"]])

    def _apply_stored(self, intake: Intake[Transport],
                      stored: list[Entry | None]) -> tuple[list[JSONDict], list[JSONDict]]:
        """Apply the stored entries to their tables, send the acks; returns the changes
        to announce and the device events applied (for :attr:`applied_hook`)."""
        ids = [None if entry is None else entry.id for entry in stored]
        changes: list[JSONDict] = []
        for table_id, entry in ingest.stored(self.devices, intake, ids):
            table = self.tables[table_id]
            try:
                table.apply_entry(entry)
            except Exception:  # noqa: BLE001 - stored is stored: the other entries still apply
                log.exception("applying entry %s to table %s failed", entry.id, table_id)
            changes.extend(self.took(table))
        self.send(intake.acks + intake.asks)
        changes.extend({"kind": "board", "board": b} for b in intake.boards)
        events = [item.msg for item, entry_id in zip(intake.ready, ids, strict=True)
                  if entry_id is not None and item.msg["type"] in protocol.EVENT_TYPES]
        return changes, events

    def took(self, table: Table) -> list[JSONDict]:
        """After ``table`` took an entry (a device message, a closed settle window, a
        console input): count it for snapshots, wake the timer and the bots, queue the
        device commands it asked for (sent with the next acks); returns the change to
        announce."""
        self.tables.applied(table)
        if table.timer_wanted() and not self.timer_wake.is_set():
            self.timer_wake.set()  # a settle window opened: the timer takes its quick pace
        if table.has_bots:
            self.bots.request(table.id)
        self.command(table.take_commands())
        return [{"kind": "table", "table": table.id}]

    def command(self, commands: list[tuple[str, str]]) -> None:
        """Queue the (board, command) pairs a table asked for, to go out after the next
        acks — each at most once every COMMAND_EVERY_S per board. A table asks a selftest
        after every throw; a backlog drained at once (a hub back from a crash,
        bench/hub_ingest.py) asked hundreds a second of one board, which needs one: a
        command asks for a state, not an action per throw."""
        now = time.monotonic()
        for board, cmd in commands:
            link = self.devices.links.get(board)
            if link is None:
                continue
            if now - self._commanded.get((board, cmd), float("-inf")) >= COMMAND_EVERY_S:
                self._commanded[(board, cmd)] = now
                self._commands.append(Ack(link, board, protocol.command(0, cmd)))

    def send(self, acks: list[Ack[Transport]]) -> None:
        """Send acks, then the queued commands, in order, one :meth:`Transport.send_many`
        per link."""
        if self._commands:
            acks, self._commands = acks + self._commands, []
        by_link: dict[Transport, list[tuple[str, JSONDict]]] = {}
        for ack in acks:
            by_link.setdefault(ack.link, []).append((ack.board, ack.msg))
        for link, items in by_link.items():
            link.send_many(items)

    # -- the timer -----------------------------------------------------------------------
    def run_timer(self, stop: threading.Event) -> None:
        """The timer thread, until ``stop`` (and a :attr:`timer_wake`)."""
        # An idle hub ticks 4 times a second, not 50: at 50 the timer alone used 11 ms of
        # CPU a second, which the web's benchmark counts against every change it serves.
        # A table that opens a settle window wakes it at once (took).
        busy = True
        while not stop.is_set():
            self.timer_wake.wait(TICK_S if busy else IDLE_TICK_S)
            self.timer_wake.clear()
            try:
                busy = self.tick(clock.now())
            except StoreWriteError as err:  # a full disk: one line per 30 s, not 45 tracebacks a second
                TIMER_LOG.error("store", "timer tick: %s", err)
            except Exception as err:  # noqa: BLE001 - the timer thread must survive anything
                TIMER_LOG.error(type(err).__name__, "timer tick failed: %s", err, exc_info=True)

    def tick(self, now: float) -> bool:
        """Send the acks held back, ask clocks, close due settle windows (logged
        entries), give up old seq gaps, mark silent boards lost, take a due snapshot when
        idle. True when something will be due soon (the timer then keeps its quick pace)."""
        with self._lock:
            mono = time.monotonic()
            self.send(ingest.due_acks(self.devices, mono))
            for table in self.tables.loaded():
                self.ask_clock(table, now)
                for body in table.due(now, self.devices.board_clock):
                    self.writer.write([Entry.new("hub", body, table_id=table.id, at=now)],
                                      partial(self._timer_took, table))
                    self.send([])
            self.expire(now, mono)
            self._count_over_budget()
            idle = self.inbox.idle()
            if idle:
                self.tables.snapshot_due()
            return (not idle or bool(self.devices.acks_due)
                    or any(table.timer_wanted() for table in self.tables.loaded()))

    def _count_over_budget(self) -> None:
        """Copy the drops over a refereed board's budget (counted on the links' threads,
        without the lock) into its health: the admin's boards and the JSON API show them."""
        changed = [board for board in self.bound_limit.changed() if board in self.devices.health]
        for board in changed:
            self.devices.board(board).throttled = self.bound_limit.dropped(board)
        if changed:
            self.feed.boards(changed)

    def _timer_took(self, table: Table, stored: list[Entry | None]) -> list[JSONDict]:
        for entry in stored:
            assert entry is not None
            table.apply_entry(entry)
        return self.took(table)

    def send_due_acks(self) -> None:
        """Send every ack held back by pacing (the hub closes)."""
        with self._lock:
            self.send(ingest.due_acks(self.devices, time.monotonic()))

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
        self._write(intake)  # refused by the store: rolled back, given up next tick
        for alert in intake.alerts:
            log.warning("board %s: %s", alert.board, alert.text)
