"""Stateless dashboards (issue 18): a read-only hub for web processes that serve phones
while one hub referees.

``python -m web --db postgresql://… --read-only`` builds a :class:`ReadOnlyHub` instead
of a :class:`hub.facade.Hub`: the same methods the pages use (:class:`web.hub_protocol.HubAPI`),
answered from the event store. It rebuilds every table from the store like a hub at
restart, then *follows* the log: when the active hub appends, PostgreSQL notifies
(LISTEN/NOTIFY, :class:`hub.log.postgres.LogListener`), and the new entries are applied to
the tables here exactly as the hub applied them (replay is reduce(log), R1) and
announced on this process's own change feed, which drives its live stream. A SQLite
file can be followed too (polled; one machine only).

It never writes: creating a table or submitting an input raises
:class:`hub.errors.RefusedError` (the store refuses before anything is applied), and no
device links, timers or bots run here. Board health is what the log tells: when each
board was last seen, its hello, status and health messages, its last seq; the link
quality counters of the active hub (resends, gaps, corrupt) live only in that hub.
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from firmware import protocol
from hub.errors import HubError, RefusedError
from hub.facade import Hub
from hub.log import clock
from hub.log.open import is_postgres_url, open_store
from hub.log.store import Entry, EventStore
from hub.tables.tableset import make_table

if TYPE_CHECKING:
    from hub.log.postgres import LogListener

JSONDict = dict[str, Any]
log = logging.getLogger("hub.replica")

POLL_S = 0.5  # also read the log this often without a notification (a reconnect)
SQLITE_POLL_S = 0.2
LOST_AFTER_S = 30.0  # as the hub: a board silent this long is shown lost


class ReadOnlyStore(EventStore):
    """A store that reads and refuses every write (a :class:`RefusedError`, which the
    web answers with 409 and which leaves the hub's state untouched)."""

    def __init__(self, store: EventStore) -> None:
        self.inner = store

    def append(self, entries: Sequence[Entry]) -> list[int | None]:
        raise RefusedError("this is a read-only web process: referee and admin from the "
                           "hub's own pages", "read_only")

    def save_snapshot(self, table_id: str, entry_id: int, data: dict[str, Any], *,
                      summary: dict[str, Any], final: bool) -> None:
        return  # the active hub keeps the snapshots

    def save_final(self, table_id: str, summary: dict[str, Any]) -> None:
        return

    def entries(self, table_id: str | None = None, after: int = 0) -> Iterator[Entry]:
        return self.inner.entries(table_id, after)

    def last_id(self) -> int:
        return self.inner.last_id()

    def table_spans(self) -> list[tuple[str, int, int]]:
        return self.inner.table_spans()

    def device_marks(self) -> dict[tuple[str, int], tuple[int, int, int]]:
        return self.inner.device_marks()

    def device_hellos(self) -> dict[tuple[str, int], dict[str, Any]]:
        return self.inner.device_hellos()

    def last_seen(self) -> dict[str, float]:
        return self.inner.last_seen()

    def snapshot(self, table_id: str) -> tuple[int, dict[str, Any]] | None:
        return self.inner.snapshot(table_id)

    def snapshot_heads(self) -> dict[str, tuple[int, bool, dict[str, Any]]]:
        return self.inner.snapshot_heads()

    def close(self) -> None:
        self.inner.close()


class ReadOnlyHub(Hub):
    """A hub that follows the log another hub writes (see the module doc).

    ``start()`` starts the follower, ``close()`` stops it; :meth:`catch_up` applies
    what was appended since the last call (the follower calls it on each notification).
    """

    follows_log = True  # its tournaments read on the log too (Hub.tournaments)

    def __init__(self, db: str) -> None:
        store = open_store(db)
        # Read before the tables are rebuilt: an entry appended meanwhile is then read
        # again by the follower, and skipped for a table that already has it.
        self._through = store.last_id()
        self.db = db
        super().__init__(ReadOnlyStore(store))
        self._follower: threading.Thread | None = None
        self._halt = threading.Event()
        self._listener: LogListener | None = None
        if is_postgres_url(db):
            from hub.log.postgres import LogListener

            self._listener = LogListener(db)

    # -- life cycle ------------------------------------------------------------------
    def start(self) -> None:
        """Follow the log in a background thread (idempotent)."""
        if self._follower is not None:
            return
        self._follower = threading.Thread(target=self._follow, name="web-readonly-follow",
                                          daemon=True)
        self._follower.start()

    def add_transport(self, transport: Any) -> None:
        raise RefusedError("a read-only web process has no device links", "read_only")

    def ignore_board(self, board: str) -> None:
        raise RefusedError("a read-only web process takes no device messages: ignore the "
                           "board on the hub's own pages", "read_only")

    def board_action(self, board: str, action: str, *, force: bool = False) -> JSONDict:
        raise RefusedError("a read-only web process has no device links: act on the hub's own pages", "read_only")

    def fleet_target(self, fw: str | None, config: str | None = None) -> None:
        raise RefusedError("a read-only web process changes no target: use the hub's own pages", "read_only")

    def assign_board(self, board: str, table_id: str, position: str, *, force: bool = False) -> JSONDict:
        raise RefusedError("a read-only web process changes no table: assign on the hub's own pages", "read_only")

    def start_rollout(self, version: str, bundle: Any, boards: list[str] | None = None,
                      canary: str | None = None, wave: int = 5) -> JSONDict:
        raise RefusedError("a read-only web process updates no board: use the hub's own pages", "read_only")

    def cancel_rollout(self) -> None:
        raise RefusedError("a read-only web process updates no board: use the hub's own pages", "read_only")

    def close(self) -> None:
        """Stop following and close the store. Idempotent."""
        if self._halt.is_set():
            return
        self._halt.set()
        self.feed.close()
        if self._follower is not None:
            if self._listener is not None:
                try:
                    self._listener.wake()
                except Exception:  # noqa: BLE001 - the server is away: the wait ends by itself
                    log.warning("could not wake the follower; it stops after its wait")
            self._follower.join(timeout=5.0)
        self._close_tournaments()
        with self._lock:
            self.store.close()

    def flush(self, timeout: float = 5.0) -> bool:
        return True

    # -- following ---------------------------------------------------------------------
    def _follow(self) -> None:
        listener = self._listener
        if listener is not None:
            try:
                listener.listen()
            except Exception:  # noqa: BLE001 - wait() retries; the log is polled meanwhile
                log.exception("cannot listen for appends yet")
        try:
            while not self._halt.is_set():
                try:
                    self.catch_up()
                except Exception:  # noqa: BLE001 - the follower must survive anything
                    log.exception("following the log failed")
                if listener is not None:
                    listener.wait(POLL_S)
                else:
                    self._halt.wait(SQLITE_POLL_S)
        finally:
            if listener is not None:
                listener.close()

    def catch_up(self) -> int:
        """Apply every entry appended since the last call; returns how many were read."""
        entries = list(self.store.entries(after=self._through))
        changes: list[JSONDict] = []
        with self._lock:
            for entry in entries:
                assert entry.id is not None
                self._through = entry.id
                if entry.source == "device" and entry.board is not None:
                    self._board_seen(entry)
                    changes.append({"kind": "board", "board": entry.board})
                if entry.table_id is not None and self._apply(entry):
                    changes.append({"kind": "table", "table": entry.table_id})
                if entry.table_id is None and self.assist.follow(entry):  # a call for a referee
                    changes.append({"kind": "assist", "table": entry.body["assist"].get("table")})
            self._mark_silent(clock.now(), changes)
            self.tables.retire_finished()  # as the hub: finished tables sleep (issue 32.7)
        self.feed.changed(changes)
        return len(entries)

    def _apply(self, entry: Entry) -> bool:
        """Apply one entry to its table; whether the table changed."""
        table_id = entry.table_id
        assert table_id is not None and entry.id is not None
        spec = entry.body.get("create") if entry.source == "console" else None
        if isinstance(spec, Mapping):
            if table_id in self.tables:
                return False  # rebuilt from the store already
            table = make_table(table_id, spec, entry.at)
            table.applied_through = entry.id
            self.tables.put(table)
            for board in table.physical_boards():
                self.devices.bind(board, table_id)
            self.feed.changed([{"kind": "tables"}])
            return True
        if table_id not in self.tables or self.tables.is_dormant(table_id):
            return False  # a dormant table reads its late entries when it is opened
        table = self.tables[table_id]
        if entry.id <= table.applied_through:
            return False
        try:
            table.apply_entry(entry)
        except HubError as err:  # the hub applied it; a replica must not stop on it
            log.error("follow: entry %s on %s: %s", entry.id, table_id, err)
            table.applied_through = entry.id
        self.tables.used(table)
        return True

    def _board_seen(self, entry: Entry) -> None:
        assert entry.board is not None
        h = self.devices.board(entry.board)
        msg = entry.body
        if msg.get("type") == "status":
            h.status = str(msg.get("status", h.status))
            return
        h.seen(msg, None, entry.at)
        if msg.get("type") in protocol.EVENT_TYPES and entry.seq is not None:
            h.received += 1
            if h.boot != entry.boot or h.last_seq is None or entry.seq > h.last_seq:
                h.boot, h.last_seq = entry.boot, entry.seq

    def _mark_silent(self, now: float, changes: list[JSONDict]) -> None:
        for h in self.devices.health.values():
            if h.status == "online" and h.last_seen is not None and now - h.last_seen > LOST_AFTER_S:
                h.status = "lost"
                changes.append({"kind": "board", "board": h.board})


def shared_secret(db: str) -> str:
    """The web signing key of the event at ``db`` (a PostgreSQL URL), the same for every
    web process (kept in the store's settings), so a seat link or a login made on one is
    valid on the others."""
    from hub.log.postgres import PostgresStore

    store = PostgresStore(db, pool_size=1)
    try:
        return store.shared_setting("web_secret", secrets.token_hex(32))
    finally:
        store.close()
