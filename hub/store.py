"""The durable event store (DESIGN.md §6, §9; R1): an append-only log plus snapshots.

Everything the hub accepts — each device message, each console input, each decision of
its own timers — is one :class:`Entry`, appended and committed before it is applied. The
state of every table is the replay of its entries; snapshots only make that replay
short. The store sits behind :class:`EventStore`; :func:`open_store` picks the backend
from ``--db``: a SQLite file (one laptop) or a PostgreSQL URL (:mod:`hub.store_pg`:
several hubs and web processes sharing one event).

Deduplication is the store's job too: an entry that carries a device's
``(board, boot, seq)`` is stored at most once, whatever the link delivered twice.

>>> store = SqliteStore(":memory:")
>>> ids = store.append([Entry.new("device", {"type": "drop"}, board="B1", boot=1, seq=1),
...                     Entry.new("device", {"type": "drop"}, board="B1", boot=1, seq=1)])
>>> ids
[1, None]
>>> [e.body for e in store.entries()]
[{'type': 'drop'}]
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS log (
    id INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    source TEXT NOT NULL,
    table_id TEXT,
    board TEXT,
    boot INTEGER,
    seq INTEGER,
    body TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS log_device ON log (board, boot, seq) WHERE seq IS NOT NULL;
CREATE INDEX IF NOT EXISTS log_table ON log (table_id, id) WHERE table_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS snapshot (
    table_id TEXT PRIMARY KEY,
    entry_id INTEGER NOT NULL,
    final INTEGER NOT NULL,
    summary TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS log_append_only_update BEFORE UPDATE ON log
BEGIN SELECT RAISE(ABORT, 'the log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS log_append_only_delete BEFORE DELETE ON log
BEGIN SELECT RAISE(ABORT, 'the log is append-only'); END;
"""


@dataclass(slots=True)
class Entry:
    """One log entry (treat as immutable: not frozen only because frozen dataclasses are
    slow to build, and the hub builds one per device event). ``id`` is None until stored.

    ``source``: ``"device"`` (a board's message), ``"console"`` (a referee or player
    input), ``"hub"`` (the hub's own decisions: table created, settle window closed, link
    up/down) or ``"bot"``. ``board``/``boot``/``seq`` are set only for deduplicated
    device events.
    """

    id: int | None
    at: float
    source: str
    table_id: str | None
    body: dict[str, Any]
    board: str | None = None
    boot: int | None = None
    seq: int | None = None
    raw: str | None = None
    """The body exactly as the device sent it (JSON text), when known: stored as is
    instead of encoding ``body`` again (the ingest's hottest cost)."""

    @classmethod
    def new(
        cls,
        source: str,
        body: dict[str, Any],
        *,
        table_id: str | None = None,
        at: float | None = None,
        board: str | None = None,
        boot: int | None = None,
        seq: int | None = None,
        raw: str | None = None,
    ) -> Entry:
        return cls(None, time.time() if at is None else at, source, table_id, body, board, boot,
                   seq, raw)


def encode_body(entry: Entry) -> str:
    """The JSON text stored for an entry's body: the device's own text when the entry has
    it (it decodes to ``body``), else compact JSON.

    >>> encode_body(Entry.new("console", {"input": {"undo": True}}))
    '{"input":{"undo":true}}'
    >>> encode_body(Entry.new("device", {"type": "drop"}, raw='{"type": "drop"}'))
    '{"type": "drop"}'
    """
    if entry.raw is not None:
        return entry.raw
    return json.dumps(entry.body, separators=(",", ":"), ensure_ascii=False)


class EventStore(ABC):
    """What the hub needs from a store. Implementations must be safe to call from several
    threads (the hub serialises writes, but readers such as ``export`` may overlap)."""

    @abstractmethod
    def append(self, entries: Sequence[Entry]) -> list[int | None]:
        """Store entries in one transaction; the id of each, None for a duplicate
        device event. Returns only after the commit is durable against a process kill."""

    @abstractmethod
    def entries(self, table_id: str | None = None, after: int = 0) -> Iterator[Entry]:
        """Entries with id > ``after`` in id order (only one table's when given)."""

    @abstractmethod
    def last_id(self) -> int:
        """The id of the newest entry (0 when empty)."""

    @abstractmethod
    def table_spans(self) -> list[tuple[str, int, int]]:
        """(table id, first entry id, last entry id) of every table, oldest first."""

    @abstractmethod
    def device_marks(self) -> dict[tuple[str, int], tuple[int, int, int]]:
        """For each (board, boot): (lowest seq, highest seq, number stored)."""

    @abstractmethod
    def device_hellos(self) -> dict[tuple[str, int], dict[str, Any]]:
        """For each (board, boot): the body of its stored ``hello`` (the first one, should
        there be several) — what that board life said of itself, so a restarted hub still
        tells another life reusing the boot id (issue 14, finding 5)."""

    @abstractmethod
    def last_seen(self) -> dict[str, float]:
        """Board -> time of its newest stored message."""

    @abstractmethod
    def save_snapshot(self, table_id: str, entry_id: int, data: dict[str, Any], *,
                      summary: dict[str, Any], final: bool) -> None:
        """Keep ``data`` as the state of a table after entry ``entry_id`` (replaces older);
        ``summary`` is what a table list shows, ``final`` says the game is over."""

    @abstractmethod
    def save_final(self, table_id: str, summary: dict[str, Any]) -> None:
        """The table's game is over: keep ``summary`` (what a table list shows) and mark
        its snapshot final, leaving the snapshot's data as it is (or none). The cheap
        snapshot at each match end: a restart then shows the table from its summary, and
        opening it replays the entries after its last full snapshot."""

    @abstractmethod
    def snapshot(self, table_id: str) -> tuple[int, dict[str, Any]] | None:
        """The newest snapshot of a table with data: (entry id, data), or None."""

    @abstractmethod
    def snapshot_heads(self) -> dict[str, tuple[int, bool, dict[str, Any]]]:
        """table id -> (entry id, final, summary) of its snapshot, without the data."""

    @abstractmethod
    def close(self) -> None:
        """Release the store."""


_INSERT = ("INSERT OR IGNORE INTO log (at, source, table_id, board, boot, seq, body)"
           " VALUES (?, ?, ?, ?, ?, ?, ?)")


class SqliteStore(EventStore):
    """SQLite in WAL mode.

    ``synchronous=NORMAL`` by default: a commit survives the hub process being killed
    (the WAL is in the OS before ``commit`` returns), which is what a laptop hub needs.
    A power cut may lose the newest commits although they were acknowledged; pass
    ``durable=True`` (``synchronous=FULL``, an fsync per commit) where that matters.
    """

    def __init__(self, path: str | Path, *, durable: bool = False) -> None:
        if is_postgres_url(str(path)):  # not a file name: say so rather than create one
            raise ValueError(f"{path!r} is a PostgreSQL URL: open it with hub.store.open_store")
        self.path = str(path)
        self._lock = threading.Lock()
        if self.path != ":memory:" and not self.path.startswith("file:"):
            # The events hold table seeds: a new file is its owner's only (SQLite gives
            # its -wal and -shm files the same mode).
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        self._db.executescript(SCHEMA)

    def append(self, entries: Sequence[Entry]) -> list[int | None]:
        rows = [(e.at, e.source, e.table_id, e.board, e.boot, e.seq, encode_body(e))
                for e in entries]  # a body that cannot be encoded fails here: nothing stored
        with self._lock:
            cur = self._db.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                # Fast path: the hub drops duplicates before storing, so nearly always
                # every row goes in; under the write lock their ids are then consecutive.
                before = self._db.total_changes
                cur.executemany(_INSERT, rows)
                if self._db.total_changes - before == len(rows):
                    last = int(cur.execute("SELECT last_insert_rowid()").fetchone()[0])
                    cur.execute("COMMIT")
                    return list(range(last - len(rows) + 1, last + 1))
                cur.execute("ROLLBACK")  # some were stored before: find which, one by one
                cur.execute("BEGIN IMMEDIATE")
                ids: list[int | None] = []
                for row in rows:
                    cur.execute(_INSERT, row)
                    ids.append(cur.lastrowid if cur.rowcount == 1 else None)
                cur.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    cur.execute("ROLLBACK")
                raise
        return ids

    def entries(self, table_id: str | None = None, after: int = 0) -> Iterator[Entry]:
        with self._lock:
            if table_id is None:
                rows = self._db.execute(
                    "SELECT id, at, source, table_id, body, board, boot, seq FROM log"
                    " WHERE id > ? ORDER BY id", (after,)).fetchall()
            else:
                rows = self._db.execute(
                    "SELECT id, at, source, table_id, body, board, boot, seq FROM log"
                    " WHERE table_id = ? AND id > ? ORDER BY id", (table_id, after)).fetchall()
        for row in rows:
            yield Entry(row[0], row[1], row[2], row[3], json.loads(row[4]), row[5], row[6], row[7])

    def last_id(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT COALESCE(MAX(id), 0) FROM log").fetchone()
        return int(row[0])

    def table_spans(self) -> list[tuple[str, int, int]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT table_id, MIN(id) AS first, MAX(id) FROM log WHERE table_id IS NOT NULL"
                " GROUP BY table_id ORDER BY first").fetchall()
        return [(r[0], r[1], r[2]) for r in rows]

    def device_marks(self) -> dict[tuple[str, int], tuple[int, int, int]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT board, boot, MIN(seq), MAX(seq), COUNT(*) FROM log"
                " WHERE seq IS NOT NULL GROUP BY board, boot").fetchall()
        return {(r[0], r[1]): (r[2], r[3], r[4]) for r in rows}

    def device_hellos(self) -> dict[tuple[str, int], dict[str, Any]]:
        with self._lock:  # LIKE: a cheap text filter; the type is checked on the decoded body
            rows = self._db.execute(HELLOS_QUERY.replace("%s", "?"), (HELLO_LIKE,)).fetchall()
        return hellos_of(rows)

    def last_seen(self) -> dict[str, float]:
        with self._lock:
            rows = self._db.execute(
                "SELECT board, MAX(at) FROM log WHERE board IS NOT NULL GROUP BY board").fetchall()
        return {r[0]: r[1] for r in rows}

    def save_snapshot(self, table_id: str, entry_id: int, data: dict[str, Any], *,
                      summary: dict[str, Any], final: bool) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO snapshot (table_id, entry_id, final, summary, data)"
                " VALUES (?, ?, ?, ?, ?)",
                (table_id, entry_id, int(final), json.dumps(summary, ensure_ascii=False),
                 json.dumps(data, separators=(",", ":"), ensure_ascii=False)),
            )

    def save_final(self, table_id: str, summary: dict[str, Any]) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO snapshot (table_id, entry_id, final, summary, data)"
                " VALUES (?, 0, 1, ?, 'null') ON CONFLICT (table_id) DO UPDATE SET"
                " final = 1, summary = excluded.summary",
                (table_id, json.dumps(summary, ensure_ascii=False)))

    def snapshot(self, table_id: str) -> tuple[int, dict[str, Any]] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT entry_id, data FROM snapshot WHERE table_id = ? AND data != 'null'",
                (table_id,)).fetchone()
        if row is None:
            return None
        return int(row[0]), json.loads(row[1])

    def snapshot_heads(self) -> dict[str, tuple[int, bool, dict[str, Any]]]:
        with self._lock:
            rows = self._db.execute("SELECT table_id, entry_id, final, summary FROM snapshot").fetchall()
        return {r[0]: (int(r[1]), bool(r[2]), json.loads(r[3])) for r in rows}

    def close(self) -> None:
        with self._lock:
            self._db.close()


HELLOS_QUERY = ("SELECT board, boot, body FROM log WHERE seq IS NOT NULL AND body LIKE %s"
                " ORDER BY id")
HELLO_LIKE = '%"hello"%'


def hellos_of(rows: Iterable[Sequence[Any]]) -> dict[tuple[str, int], dict[str, Any]]:
    """(board, boot, body text) rows, oldest first → the first hello body of each boot.

    >>> hellos_of([("B1", 7, '{"type":"hello","config":"a"}'), ("B1", 7, '{"type":"drop","note":"hello"}'),
    ...            ("B1", 7, '{"type":"hello","config":"b"}')])
    {('B1', 7): {'type': 'hello', 'config': 'a'}}
    """
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for board, boot, text in rows:
        body = json.loads(text)
        if isinstance(body, dict) and body.get("type") == "hello":
            out.setdefault((board, int(boot)), body)
    return out


def with_id(entry: Entry, entry_id: int) -> Entry:
    """The entry as stored (with its id)."""
    return Entry(entry_id, entry.at, entry.source, entry.table_id, entry.body, entry.board,
                 entry.boot, entry.seq, entry.raw)


POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(db: str | Path) -> bool:
    """Whether ``--db`` names a PostgreSQL database rather than a SQLite file.

    >>> is_postgres_url("postgresql://127.0.0.1/festival"), is_postgres_url("festival.db")
    (True, False)
    """
    return isinstance(db, str) and db.startswith(POSTGRES_SCHEMES)


def open_store(db: str | Path, *, durable: bool = False) -> EventStore:
    """The store ``--db`` names: a ``postgresql://…`` URL (:class:`hub.store_pg.PostgresStore`,
    migrated to the current schema) or a SQLite file path (``":memory:"`` for a throwaway).

    >>> store = open_store(":memory:")
    >>> type(store).__name__, store.last_id()
    ('SqliteStore', 0)
    >>> store.close()
    """
    if is_postgres_url(db):
        from hub.store_pg import PostgresStore  # psycopg is only needed for PostgreSQL

        return PostgresStore(str(db))
    return SqliteStore(db, durable=durable)
