"""The hub's facade: the one object the web layer (and the CLI) talks to.

:class:`Hub` is thread-safe: every public method may be called from any thread (Flask
request threads, the SSE stream, transports). Everything that changes a table goes
through the durable event store first (DESIGN.md §6, R1): an input is validated, stored,
committed, and only then applied; a bad input raises a :class:`hub.errors.HubError`
(a ``ValueError``) and changes nothing.

Shapes the web layer can rely on (all plain JSON values):

*Table summary* (:meth:`Hub.list_tables`)::

    {"id": "t1", "game": "trigono", "status": "playing", "to_move": "Ana",
     "players": ["Ana", "Ben"], "boards": ["B1"], "prompts": 1, "alerts": 0,
     "winner": None, "round": 1, "created_at": 1700000000.0}

*Table view* (:meth:`Hub.table_view`, also returned by :meth:`Hub.submit`)::

    {"id", "game", "options", "seed", "created_at",
     "seats": [{"name": "Ana", "bot": False}, ...],
     "players": [...],                 # seat order
     "state": {...},                   # the engine's printed state (RECORDS.md)
     "status", "to_move", "winner",    # copied from state for convenience
     "armed": bool,                    # Trigono: sensor drops are being refereed
     "layout": [{"board": "B1", "as": "B1", "holes": {"big": "B1.big", ...},
                 "online": True}],     # [] for games without boards
     "prompts": [{"id": "p7", "kind": "landed", "question": "...",
                  "player": "Ana", "choices": ["board:B1", "floor"],
                  "default": None}],   # what the referee console must answer
     "throw": None | {"player", "drops": [...], "invalid", "closes_at"},
     "alerts": [{"id": 12, "level": "warning", "text": "...", "board": "B1"}],
     "events": [{"id": 40, "at": 1700000000.0, "source": "device", "text": "..."}],
     "hint": None | {"action": ..., "why": "..."},
     "bot_thinking": bool,
     "change_id": 1234}                # the feed id this view is current as of

*Inputs* (:meth:`Hub.submit`): a dict with one of these keys (plus optional ``"by"``,
who sent it, and ``"player"``, the player it is sent for: a move sent for a player who
is not to move is refused):

- ``{"answer": {"prompt": "p7", "choice": X}}`` — answer an open prompt;
- ``{"landed": "board:B1" | "floor" | HOLE}`` — Trigono: where the palet of the player
  to throw came to rest (a hole when the sensors missed it);
- ``{"invalid": True}`` — Trigono: the open (or else the last) drop bounced on the
  floor first (T10);
- ``{"undo": True}`` — take back the last action (a new log entry, R1);
- ``{"void": ENTRY_ID}`` — Trigono: a sensor event did not happen (its drop, knock-in or
  block is removed from what was derived from it);
- ``{"recount": {"board": "B1", "count": 3}}`` — Trigono: palets counted on a board; a
  mismatch raises an alert naming the difference;
- ``{"amend": {"index": K, "action": ACTION}}`` — replace action K of the game record;
- ``{"target": HOLE}`` — Trigono: the finalist's target (T17);
- ``{"next_round": True}`` — Trigono: palets are collected, arm the sensors again;
- ``{"move": ACTION}`` — a move in the game's record notation (any game);
- ``{"hint": True}`` — ask the game's bot for a hint (shown in the view's ``hint``).

*Board health* (:meth:`Hub.boards`)::

    {"board": "B1", "status": "online" | "lost" | "unknown", "link": "serial:/dev/ttyACM0",
     "last_seen": 1700000000.0, "boot": 3, "last_seq": 120, "quality": 0.98,
     "rssi": -60, "received": 118, "resends": 2, "gaps": 0, "lost_events": 0,
     "corrupt": 1, "overflow": 0, "beam_faults": ["big"], "blocked": [], "fw": "1.0",
     "config": "db56b3db", "holes": ["big", "small"], "table": "t1", "uptime_s": 100,
     "mem_free": 20000, "alerts": [{"at": 1700000000.0, "text": "seq gap: seq 7 of boot 3 missing"}]}

    ``quality`` is the share of the board's messages that arrived intact and in order
    (None before any); ``resends`` counts duplicates received; ``gaps`` seqs found
    missing; ``lost_events`` gaps the device never filled; counters start at hub start.
    :meth:`Hub.links` describes the serial ports and MQTT brokers themselves.

*Change feed* (:meth:`Hub.changes_since`): ``[{"id": N, "kind": "table", "table": "t1"}
| {"id": N, "kind": "board", "board": "B1"} | {"id": N, "kind": "tables"}
| {"id": N, "kind": "reset"}]``. Ids increase strictly, also across hub restarts. A
``reset`` item means "you missed too much: fetch everything again".
"""

from __future__ import annotations

import copy
import logging
import queue
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from engines import GAMES
from engines.core import GameError
from firmware import protocol
from hub.errors import (
    BadInputError,
    ConflictError,
    HubError,
    RefusedError,
    UnknownGameError,
    UnknownTableError,
)
from hub.health import BoardHealth, SeqTracker
from hub.referee import TrigonoTable, default_cells, parse_bindings
from hub.store import Entry, EventStore, SqliteStore, with_id
from hub.tables import Table, bot_module, check_game, parse_seats
from hub.transport import Transport

__all__ = [
    "Hub",
    "HubError",
    "BadInputError",
    "ConflictError",
    "RefusedError",
    "UnknownGameError",
    "UnknownTableError",
]

JSONDict = dict[str, Any]
log = logging.getLogger("hub")

SNAPSHOT_EVERY = 200  # entries of one table between snapshots (bounds the replay at restart)
FEED_KEEP = 10_000  # changes kept for clients that reconnect
INGEST_BATCH = 1000
TICK_S = 0.02
ACK_EVERY_S = 0.25  # at most one ack per board and boot this often (devices resend after 2 s)
INPUT_EXTRAS = ("by", "player")
Item = tuple[Transport, JSONDict, str, float]  # (link object, message, link name, arrival)
CREATE_REFEREE_FIELDS = ("settle_s",)


def _seqs_text(seqs: list[int]) -> str:
    """``seq 4`` or ``seqs 4-9`` (gaps are ranges).

    >>> _seqs_text([4]), _seqs_text([4, 5, 6])
    ('seq 4', 'seqs 4-6')
    """
    return f"seq {seqs[0]}" if len(seqs) == 1 else f"seqs {seqs[0]}-{seqs[-1]}"


def _default_players(printed: Mapping[str, Any]) -> list[str]:
    """Player names from a printed state when no seats were given (the engine's default)."""
    for key in ("rounds_won", "scores", "colors", "racks", "hands"):
        value = printed.get(key)
        if isinstance(value, dict) and value:
            return list(value)
    return ["P1", "P2"]


class Hub:
    """The running hub: event store, tables, referees, board health, transports.

    ``Hub(db)`` opens (or creates) the SQLite event store at ``db`` (``":memory:"`` for
    a throwaway hub) and rebuilds every table from it. Call :meth:`start` to run the
    background threads (ingest, settle-window timers, bots) and :meth:`close` to stop.
    """

    def __init__(
        self,
        db: str | Path | EventStore,
        *,
        settle_s: float = 1.0,
        bot_budget_s: float = 1.0,
        lost_after_s: float = 30.0,
        gap_timeout_s: float = 5.0,
    ) -> None:
        self.settle_s = settle_s
        self.bot_budget_s = bot_budget_s
        self.lost_after_s = lost_after_s
        self.store: EventStore = db if isinstance(db, EventStore) else SqliteStore(db)
        self._lock = threading.RLock()
        self._tables: dict[str, Table] = {}
        self._dormant: dict[str, JSONDict] = {}  # finished, not loaded: id -> summary
        self._snapshot_at: dict[str, int] = {}
        self._since_snapshot: dict[str, int] = {}  # entries applied since the last snapshot
        self._final_snapshot: set[str] = set()  # tables snapshotted since their game ended
        self._bound: dict[str, str] = {}  # physical board -> table id
        self._health: dict[str, BoardHealth] = {}
        self._seqs: SeqTracker[Item] = SeqTracker(gap_timeout_s)
        self._transports: list[Transport] = []
        self._inbox: queue.Queue[Item] = queue.Queue()
        self._pending = 0
        self._pending_cond = threading.Condition()
        self._feed: deque[JSONDict] = deque(maxlen=FEED_KEEP)
        self._feed_cond = threading.Condition()
        # Feed ids start from the wall clock in microseconds so they keep increasing
        # across restarts without being stored.
        self._feed_base = time.time_ns() // 1000
        self._feed_last = self._feed_base
        self._threads: list[threading.Thread] = []
        self._ack_sent: dict[tuple[int, str, int], float] = {}
        self._acks_due: dict[tuple[int, str, int], Transport] = {}
        self._stop = threading.Event()
        self._bot_queue: queue.Queue[str] = queue.Queue()
        self._thinking: set[str] = set()
        self.applied_hook: Callable[[list[JSONDict]], None] | None = None
        """Called (ingest thread, outside the lock) with each batch of applied device
        messages; the benchmark measures latency with it."""
        self._restore()

    # -- restart -----------------------------------------------------------------------
    def _restore(self) -> None:
        """Rebuild tables (snapshot + the entries after it), bindings and seq marks.

        A finished game is not loaded at all: its summary is enough until someone opens
        it (a festival day leaves many of those); then its snapshot and the few entries
        after it (sensor events it ignored) are read.
        """
        heads = self.store.snapshot_heads()
        for table_id, _first, _last in self.store.table_spans():
            head = heads.get(table_id)
            if head is not None and head[1]:  # over: later entries (ignored drops) can wait
                self._dormant[table_id] = head[2]
                self._snapshot_at[table_id] = head[0]
                for board in head[2].get("boards", []):
                    self._bound[board] = table_id
                continue
            table = self._load_table(table_id)
            for board in table.physical_boards():
                self._bound[board] = table_id

        for board, seen in self.store.last_seen().items():
            h = self._board(board)
            h.last_seen, h.status = seen, "unknown"
        latest: dict[str, tuple[int, int]] = {}
        for (board, boot), (_low, high, _count) in self.store.device_marks().items():
            if board not in latest or boot > latest[board][0]:
                latest[board] = (boot, high)
        for board, (boot, high) in latest.items():
            # Events are stored in seq order, so everything up to the highest stored seq
            # is stored (or was given up as lost): that is the ack mark.
            self._seqs.restore(board, boot, high)
            self._board(board).boot = boot
            self._board(board).last_seq = high

    def _load_table(self, table_id: str) -> Table:
        """Build one table from its snapshot and the entries after it (or all of them)."""
        snap = self.store.snapshot(table_id)
        table: Table | None = None
        if snap is not None:
            entry_id, data = snap
            table = self._make_table(table_id, data["spec"], data["created_at"])
            table.load(data["table"])
            self._snapshot_at[table_id] = entry_id
            entries = self.store.entries(table_id, after=entry_id)
        else:
            entries = self.store.entries(table_id)
        for entry in entries:
            if table is None:
                table = self._make_table(table_id, entry.body["create"], entry.at)
                table.applied_through = entry.id or 0
                continue
            try:
                table.apply_entry(entry)
            except HubError as err:  # stored inputs were valid; keep going regardless
                log.error("replay of entry %s on %s: %s", entry.id, table_id, err)
        assert table is not None, f"table {table_id} has no create entry"
        self._tables[table_id] = table
        self._dormant.pop(table_id, None)
        return table

    def _get(self, table_id: str) -> Table | None:
        """A table, loading a dormant one on first use."""
        table = self._tables.get(table_id)
        if table is None and table_id in self._dormant:
            table = self._load_table(table_id)
        return table

    def _make_table(self, table_id: str, spec: Mapping[str, Any], created_at: float) -> Table:
        cls = TrigonoTable if spec["game"] == "trigono" else Table
        return cls(table_id, spec, created_at)

    # -- life cycle ------------------------------------------------------------------
    def start(self) -> None:
        """Start the background threads (idempotent)."""
        if self._threads:
            return
        for target, name in ((self._ingest_loop, "hub-ingest"), (self._timer_loop, "hub-timer"),
                             (self._bot_loop, "hub-bots")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        with self._lock:
            for table_id in self._tables:
                self._bot_queue.put(table_id)

    def add_transport(self, transport: Transport) -> None:
        """Attach a device link and start it."""
        self._transports.append(transport)
        transport.start(self)

    def close(self) -> None:
        """Stop transports and threads, snapshot the tables, close the store. Idempotent."""
        if self._stop.is_set():
            return
        self.flush(timeout=5.0)
        with self._lock:
            self._flush_acks()
        for transport in self._transports:
            transport.stop()
        self._stop.set()
        self._bot_queue.put("")
        for thread in self._threads:
            thread.join(timeout=5.0)
        with self._lock:
            for table_id, table in self._tables.items():
                if table.applied_through > self._snapshot_at.get(table_id, 0):
                    self._save_snapshot(table)
            self.store.close()

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every message delivered so far is stored and applied (tests, bench)."""
        deadline = time.monotonic() + timeout
        with self._pending_cond:
            while self._pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._pending_cond.wait(left)
        return True

    # -- tables ------------------------------------------------------------------------
    def games(self) -> list[str]:
        """Names of the registered games (``engines.GAMES``)."""
        return sorted(GAMES)

    def list_tables(self) -> list[JSONDict]:
        """A summary of every table, oldest first (see the module doc)."""
        with self._lock:
            tables = [(t.created_at, t.summary()) for t in self._tables.values()]
            tables += [(s["created_at"], s) for s in self._dormant.values()]
            return [dict(summary) for _, summary in sorted(tables, key=lambda t: t[0])]

    def game_over(self, table_id: str) -> bool:
        """Whether the table's game (match) is over — cheap, unlike a view."""
        with self._lock:
            return table_id in self._dormant or self._table(table_id).state.is_terminal()

    def table_view(self, table_id: str) -> JSONDict:
        """The full view of one table; :class:`UnknownTableError` if there is none."""
        with self._lock:
            return self._view(self._table(table_id))

    def _view(self, table: Table) -> JSONDict:
        view = table.view()
        for b in view["layout"]:
            h = self._health.get(b["board"])
            b["online"] = h is not None and h.status == "online"
        view["bot_thinking"] = table.id in self._thinking
        view["change_id"] = self._feed_last
        return view

    def _table(self, table_id: str) -> Table:
        table = self._get(table_id)
        if table is None:
            raise UnknownTableError(f"no table {table_id!r}")
        return table

    def create_table(
        self,
        game: str,
        *,
        options: Mapping[str, Any] | None = None,
        seats: list[Any] | None = None,
        boards: list[Any] | None = None,
        seed: int | None = None,
        table_id: str | None = None,
        referee: Mapping[str, Any] | None = None,
    ) -> JSONDict:
        """Create a table and return its view.

        ``seats``: seat order, each a name or ``{"name": "Ana", "bot": False}``; they
        become ``options["players"]`` (default: the game's default players, all human).
        ``boards`` (Trigono): the physical boards and how their holes map onto the
        engine's layout — each ``"B1"`` (same id, holes big/small) or
        ``{"board": "B7", "as": "B1", "holes": {"big": "B1.big", "small": "B1.small",
        "jackpot": "jackpot"}}``; the engine's ``options["boards"]`` cells come from
        ``options`` (default: the bound boards in a side-connected row). ``referee``
        (Trigono): ``{"settle_s": 1.0}``, the knock-in window after a drop. ``seed``
        defaults to a random one (stored). Raises :class:`UnknownGameError`,
        :class:`BadInputError` (the engine's own option errors included) or
        :class:`ConflictError` (a board is bound to a live table, or the id is taken).
        """
        game = check_game(game)
        if options is not None and not isinstance(options, Mapping):
            raise BadInputError("options: expected an object")
        opts = dict(options or {})
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        elif isinstance(seed, bool) or not isinstance(seed, int):
            raise BadInputError("seed: expected an integer")
        bindings = parse_bindings(boards)
        if bindings and game != "trigono":
            raise BadInputError(f"boards: a {game} table has no sensor boards")
        if game == "trigono" and bindings and "boards" not in opts:
            ids = list(dict.fromkeys(b["as"] for b in bindings))
            opts["boards"] = [{"id": i, "cell": c} for i, c in zip(ids, default_cells(len(ids)), strict=True)]
        ref = dict(referee or {})
        for key in ref:
            if key not in CREATE_REFEREE_FIELDS:
                raise BadInputError(f"referee: unknown field {key!r}")
        settle = ref.get("settle_s", self.settle_s)
        if isinstance(settle, bool) or not isinstance(settle, (int, float)) or not 0 <= settle <= 30:
            raise BadInputError("referee: settle_s must be 0 to 30 seconds")
        seat_list = parse_seats(seats, opts.get("players"))
        if seat_list:
            opts["players"] = [s["name"] for s in seat_list]
        with self._lock:
            if table_id is None:
                n = len(self._tables) + len(self._dormant) + 1
                while f"t{n}" in self._tables or f"t{n}" in self._dormant:
                    n += 1
                table_id = f"t{n}"
            elif (not isinstance(table_id, str) or not table_id or table_id in self._tables
                  or table_id in self._dormant):
                raise ConflictError(f"table id {table_id!r} is taken or empty")
            for b in bindings:
                other = self._bound.get(b["board"])
                if other is not None and other not in self._dormant and not self._tables[other].state.is_terminal():
                    raise ConflictError(f"board {b['board']} is bound to table {other}")
            spec: JSONDict = {"game": game, "options": opts, "seed": seed,
                              "seats": seat_list, "boards": bindings,
                              "referee": {"settle_s": float(settle)}}
            now = time.time()
            try:
                table = self._make_table(table_id, spec, now)
            except GameError as err:
                raise BadInputError(str(err)) from None
            if not seat_list:
                spec["seats"] = table.seats = [
                    {"name": p, "bot": False} for p in _default_players(table.printed())]
            if any(s["bot"] for s in table.seats) and bot_module(game) is None:
                raise BadInputError(f"seats: the {game} engine has no bot yet")
            (entry_id,) = self.store.append([Entry.new("console", {"create": spec},
                                                       table_id=table_id, at=now)])
            assert entry_id is not None
            table.applied_through = entry_id
            self._tables[table_id] = table
            for b in bindings:
                self._bound[b["board"]] = table_id
                self._board(b["board"]).table = table_id
            self._changed([{"kind": "tables"}, {"kind": "table", "table": table_id}])
            self._bot_queue.put(table_id)
            return self._view(table)

    def submit(self, table_id: str, inp: Mapping[str, Any]) -> JSONDict:
        """Apply one console/player input (see the module doc) and return the new view.

        Stored before it is applied; on any :class:`HubError` nothing is stored or
        changed. A hint request is answered in the view's ``hint`` and is not stored.
        """
        if not isinstance(inp, Mapping):
            raise BadInputError("an input is an object")
        keys = [k for k in inp if k not in INPUT_EXTRAS]
        if len(keys) != 1:
            raise BadInputError("an input has exactly one action key (plus optional by, player)")
        for extra in INPUT_EXTRAS:
            if extra in inp and not isinstance(inp[extra], str):
                raise BadInputError(f"{extra}: expected a string")
        if keys[0] == "hint":
            return self._hint(table_id)
        body: JSONDict = {"input": {keys[0]: inp[keys[0]]}}
        for extra in INPUT_EXTRAS:
            if extra in inp:
                body[extra] = inp[extra]
        with self._lock:
            table = self._apply_checked(self._table(table_id),
                                        Entry.new("console", body, table_id=table_id))
            return self._view(table)

    def _apply_checked(self, table: Table, entry: Entry) -> Table:
        """Try the entry on a copy; store it only if the copy accepted it; then apply.
        Returns the table as it now is (the copy that took the entry)."""
        trial = copy.deepcopy(table)
        provisional = self.store.last_id() + 1
        trial.apply_entry(with_id(entry, provisional))  # raises HubError: nothing stored
        (entry_id,) = self.store.append([entry])
        assert entry_id is not None
        if entry_id == provisional:
            self._tables[table.id] = trial
            table = trial
        else:  # another writer took the id: apply again with the real one
            table.apply_entry(with_id(entry, entry_id))
        self._after_apply(table)
        return table

    def _after_apply(self, table: Table, announce: bool = True) -> None:
        since = self._since_snapshot[table.id] = self._since_snapshot.get(table.id, 0) + 1
        if since >= SNAPSHOT_EVERY or (table.id not in self._final_snapshot and table.state.is_terminal()):
            self._save_snapshot(table)
        if announce:
            self._changed([{"kind": "table", "table": table.id}])
        if table.has_bots:
            self._bot_queue.put(table.id)

    def _save_snapshot(self, table: Table) -> None:
        final = table.state.is_terminal()
        # Only a finished table's summary is read back (dormant restart): printing the
        # state for every periodic snapshot would cost a full copy of its log.
        summary = table.summary() if final else {}
        self.store.save_snapshot(table.id, table.applied_through, {
            "spec": table.spec, "created_at": table.created_at, "table": table.dump()},
            summary=summary, final=final)
        if final:
            self._final_snapshot.add(table.id)
        self._snapshot_at[table.id] = table.applied_through
        self._since_snapshot[table.id] = 0

    def _hint(self, table_id: str) -> JSONDict:
        with self._lock:
            table = self._table(table_id)
            bot = bot_module(table.game_name)
            if bot is None:
                raise RefusedError(f"hint: the {table.game_name} engine has no bot")
            if table.state.is_terminal():
                raise RefusedError("hint: the game is over")
            state, version = table.state.clone(), len(table.actions)
        hint = bot.hint(state, self.bot_budget_s)
        with self._lock:
            table = self._table(table_id)
            if len(table.actions) == version:
                table.hint = dict(hint)
                self._changed([{"kind": "table", "table": table_id}])
            return self._view(table)

    def export(self, table_id: str) -> JSONDict:
        """The table as a RECORDS.md game record (``game``, ``options``, ``seed``,
        ``actions``), replayable with ``trigono replay``."""
        with self._lock:
            return copy.deepcopy(self._table(table_id).record())

    # -- boards ------------------------------------------------------------------------
    def boards(self) -> list[JSONDict]:
        """Health of every board seen or bound, sorted by board id (see the module doc)."""
        with self._lock:
            return [self._health[b].to_json() for b in sorted(self._health)]

    def links(self) -> list[JSONDict]:
        """The device links the hub listens on (serial ports, MQTT broker) and their state."""
        return [t.describe() for t in self._transports]

    def _board(self, board: str) -> BoardHealth:
        h = self._health.get(board)
        if h is None:
            h = self._health[board] = BoardHealth(board, table=self._bound.get(board))
        return h

    # -- the DeviceSink side (called by transports, any thread) --------------------------
    def device_message(self, transport: Transport, msg: JSONDict, link: str) -> None:
        with self._pending_cond:
            self._pending += 1
        self._inbox.put((transport, msg, link, time.time()))

    def device_status(self, transport: Transport, board: str, status: str, link: str) -> None:
        msg = {"type": "status", "board": board, "status": status}
        self.device_message(transport, msg, link)

    def device_corrupt(self, transport: Transport, link: str, reason: str, board: str | None) -> None:
        with self._lock:
            if board is not None:
                self._board(board).corrupt += 1
                self._changed([{"kind": "board", "board": board}])
            log.debug("corrupt message on %s: %s", link, reason)

    # -- ingest ------------------------------------------------------------------------
    def _ingest_loop(self) -> None:
        while not self._stop.is_set():
            try:
                first = self._inbox.get(timeout=0.1)
            except queue.Empty:
                continue
            batch = [first]
            while len(batch) < INGEST_BATCH:
                try:
                    batch.append(self._inbox.get_nowait())
                except queue.Empty:
                    break
            try:
                self.ingest(batch)
            except Exception:  # noqa: BLE001 - the ingest thread must survive anything
                log.exception("ingest failed")
            finally:
                with self._pending_cond:
                    self._pending -= len(batch)
                    self._pending_cond.notify_all()

    def ingest(self, batch: list[Item]) -> None:
        """Take a batch of device messages: put each board's events back in seq order
        (later ones wait, unstored and unacknowledged, for a missing one), store what is
        ready in one commit, apply it, then send the cumulative acks.

        Duplicates (board, boot, seq) are acknowledged again — the device resent because
        it missed the ack — but neither stored nor applied.
        """
        with self._lock:
            ready: list[Item] = []
            to_ack: dict[tuple[int, str, int], Transport] = {}
            for item in batch:
                transport, msg, link, at = item
                board = msg["board"]
                h = self._board(board)
                if msg["type"] != "status":
                    h.seen(msg, link, at)
                if msg["type"] not in protocol.EVENT_TYPES:
                    ready.append(item)
                    continue
                to_ack[(id(transport), board, msg["boot"])] = transport
                items, missing, duplicate = self._seqs.offer(board, msg["boot"], msg["seq"], item, at)
                if duplicate:
                    h.resends += 1
                if missing:
                    h.gaps += len(missing)
                    h.alert(at, f"seq gap: {_seqs_text(missing)} of boot {msg['boot']} missing")
                ready.extend(items)
            applied = self._store_and_apply(ready)
            self._send_acks(to_ack)
            self._changed([{"kind": "board", "board": b} for b in
                           dict.fromkeys(item[1]["board"] for item in batch)])
        if self.applied_hook is not None and applied:
            self.applied_hook(applied)

    def _store_and_apply(self, items: list[Item]) -> list[JSONDict]:
        """Store messages (one commit), then apply them to their tables."""
        entries: list[Entry] = []
        for _transport, msg, _link, at in items:
            board = msg["board"]
            if msg["type"] in protocol.EVENT_TYPES:
                entries.append(Entry.new("device", msg, table_id=self._bound.get(board), at=at,
                                         board=board, boot=msg["boot"], seq=msg["seq"]))
            else:  # health and status: stored, neither deduplicated nor routed
                entries.append(Entry.new("device", msg, at=at, board=board))
        if not entries:
            return []
        ids = self.store.append(entries)
        applied: list[JSONDict] = []
        touched: dict[str, None] = {}
        for (_transport, msg, link, _at), entry, entry_id in zip(items, entries, ids, strict=True):
            h = self._board(msg["board"])
            if msg["type"] == "status":
                if msg["status"] == "lost" and h.status != "lost":
                    h.alert(entry.at, f"link lost ({link})")
                h.status, h.link = msg["status"], link
                continue
            if entry.seq is None:
                continue
            if entry_id is None:  # already stored before a restart
                h.resends += 1
                continue
            h.received += 1
            if h.boot != msg["boot"] or h.last_seq is None or msg["seq"] > h.last_seq:
                h.boot, h.last_seq = msg["boot"], msg["seq"]
            if entry.table_id is not None:
                table = self._get(entry.table_id)
                assert table is not None
                table.apply_entry(with_id(entry, entry_id))
                self._after_apply(table, announce=False)
                touched[table.id] = None
            applied.append(msg)
        self._changed([{"kind": "table", "table": t} for t in touched])
        return applied

    def _send_acks(self, to_ack: dict[tuple[int, str, int], Transport], now: float | None = None) -> None:
        """Acks are cumulative, so under load one per board every ACK_EVERY_S says it all;
        the rest wait in ``_acks_due`` for the timer (devices resend only after seconds)."""
        now = time.monotonic() if now is None else now
        for key, transport in to_ack.items():
            _, board, boot = key
            if now - self._ack_sent.get(key, -1.0) >= ACK_EVERY_S:
                mark = self._seqs.ack_mark(board, boot)
                if mark is not None:
                    transport.send(board, protocol.ack(boot, mark))
                self._ack_sent[key] = now
                self._acks_due.pop(key, None)
            else:
                self._acks_due[key] = transport

    def _flush_acks(self) -> None:
        if self._acks_due:
            due, self._acks_due = self._acks_due, {}
            self._send_acks(due, time.monotonic() + ACK_EVERY_S)

    # -- timers --------------------------------------------------------------------------
    def _timer_loop(self) -> None:
        while not self._stop.wait(TICK_S):
            try:
                self.tick(time.time())
            except Exception:  # noqa: BLE001 - the timer thread must survive anything
                log.exception("timer tick failed")

    def tick(self, now: float) -> None:
        """Close due settle windows (logged entries), give up old seq gaps, mark silent
        boards lost."""
        with self._lock:
            self._flush_acks()
            for table in list(self._tables.values()):
                for body in table.due(now):
                    entry = Entry.new("hub", body, table_id=table.id, at=now)
                    (entry_id,) = self.store.append([entry])
                    assert entry_id is not None
                    table.apply_entry(with_id(entry, entry_id))
                    self._after_apply(table)
            for board, boot, lost, released in self._seqs.expire(now):
                h = self._board(board)
                h.lost_events += len(lost)
                h.alert(now, f"gave up waiting for {_seqs_text(lost)} of boot {boot}")
                log.warning("board %s: gave up waiting for seqs %s of boot %s", board, lost, boot)
                self._store_and_apply(released)
                self._send_acks({(id(item[0]), board, boot): item[0] for item in released})
                self._changed([{"kind": "board", "board": board}])
            for h in self._health.values():
                if h.status == "online" and h.last_seen is not None and now - h.last_seen > self.lost_after_s:
                    h.status = "lost"
                    h.alert(now, f"silent for {self.lost_after_s:.0f} s")
                    self._changed([{"kind": "board", "board": h.board}])

    # -- bots ----------------------------------------------------------------------------
    def _bot_loop(self) -> None:
        while not self._stop.is_set():
            table_id = self._bot_queue.get()
            if not table_id:
                continue
            try:
                self._bot_move(table_id)
            except Exception:  # noqa: BLE001 - a faulty bot must not stop the others
                log.exception("bot move on %s failed", table_id)

    def _bot_move(self, table_id: str) -> None:
        with self._lock:
            table = self._tables.get(table_id)
            if table is None or table.bot_to_move() is None:
                return
            bot = bot_module(table.game_name)
            if bot is None:
                return
            state, version, seed = table.state.clone(), len(table.actions), table.seed
            self._thinking.add(table_id)
            self._changed([{"kind": "table", "table": table_id}])
        try:
            action = bot.choose(state, random.Random(f"{seed}:{version}"), self.bot_budget_s)
        finally:
            with self._lock:
                self._thinking.discard(table_id)
        with self._lock:
            table = self._tables[table_id]
            if len(table.actions) != version or table.bot_to_move() is None:
                return
            move = table.game.action_to_json(action)
            entry = Entry.new("bot", {"input": {"move": move}, "by": "bot"}, table_id=table_id)
            try:
                self._apply_checked(table, entry)
            except HubError as err:
                log.error("bot on %s played an illegal move %s: %s", table_id, move, err)

    # -- live feed ---------------------------------------------------------------------
    def _changed(self, items: list[JSONDict]) -> None:
        if not items:
            return
        seen: set[tuple[str, str]] = set()
        with self._feed_cond:
            for item in items:
                key = (item["kind"], str(item.get("table", item.get("board", ""))))
                if key in seen:
                    continue
                seen.add(key)
                self._feed_last += 1
                self._feed.append({"id": self._feed_last, **item})
            self._feed_cond.notify_all()

    def last_change_id(self) -> int:
        """The id of the newest change (start an SSE stream from here)."""
        with self._feed_cond:
            return self._feed_last

    def changes_since(self, last_id: int, timeout: float) -> list[JSONDict]:
        """Changes with id > ``last_id``, oldest first; waits up to ``timeout`` seconds
        for one when there are none (then returns ``[]``). A single ``reset`` item when
        ``last_id`` is from before this hub started or too old to answer exactly."""
        deadline = time.monotonic() + max(0.0, timeout)
        with self._feed_cond:
            while True:
                oldest = self._feed[0]["id"] if self._feed else self._feed_last + 1
                if last_id < self._feed_base or last_id > self._feed_last or last_id < oldest - 1:
                    return [{"id": self._feed_last, "kind": "reset"}]
                if self._feed_last > last_id:
                    return [dict(i) for i in self._feed if i["id"] > last_id]
                left = deadline - time.monotonic()
                if left <= 0 or self._stop.is_set():
                    return []
                self._feed_cond.wait(left)
