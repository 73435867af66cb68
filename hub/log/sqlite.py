"""The event store in one SQLite file (WAL): one laptop's event (:class:`SqliteStore`)."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import sqlite3
import tempfile
import threading
import urllib.parse
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from hub.log import clock
from hub.log.store import (
    DELETE_TRIGGER,
    ENTRY_COLUMNS,
    HELLO_LIKE,
    HELLOS_QUERY,
    SCHEMA,
    SET_ASIDE_TABLE,
    SNAPSHOT_COLUMNS,
    Damage,
    Entry,
    EventStore,
    StoreCheck,
    StoreLostError,
    StoreOpenError,
    StoreWriteError,
    checked_entry,
    encode_body,
    entry_crc,
    find_damage,
    hellos_of,
    is_postgres_url,
    snapshot_crcs,
)

log = logging.getLogger("hub.log")

_INSERT = ("INSERT OR IGNORE INTO log (at, source, table_id, board, boot, seq, body, crc)"
           " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
# Columns added since the first release: (table, column, type). A file written before
# gets them at open (NULL in the old rows: an old entry has no checksum, and loads).
_ADDED_COLUMNS = (("log", "crc", "INTEGER"), ("snapshot", "head_crc", "INTEGER"),
                  ("snapshot", "data_crc", "INTEGER"))
_SET_ASIDE = f"""
CREATE TABLE IF NOT EXISTS {SET_ASIDE_TABLE} (
    id INTEGER PRIMARY KEY, at REAL, source TEXT, table_id TEXT, board TEXT, boot INTEGER,
    seq INTEGER, body BLOB, crc INTEGER, set_aside_at REAL NOT NULL, reason TEXT NOT NULL
)"""


def _tolerant_text(raw: bytes) -> str:
    """A TEXT value that is not UTF-8 (a damaged byte): its bytes kept as surrogate
    escapes, so the checksum tells it damaged instead of the read failing."""
    return raw.decode("utf-8", "surrogateescape")


def _fetch(db: sqlite3.Connection, query: str, params: Sequence[Any] = ()) -> list[Any]:
    """``query``'s rows; a text column that is not UTF-8 any more is read with
    :func:`_tolerant_text` (sqlite3 would fail the whole read) — the caller's checksum
    check then names the damaged row."""
    try:
        return db.execute(query, params).fetchall()
    except sqlite3.OperationalError as err:
        if "decode" not in str(err):
            raise
    db.text_factory = _tolerant_text
    try:
        return db.execute(query, params).fetchall()
    finally:
        db.text_factory = str


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def damage_of(path: str) -> StoreCheck:
    """``trigono store check`` on a SQLite file: every damaged entry and snapshot, read
    through a read-only connection (nothing is written, not even a schema change)."""
    if not os.path.isfile(path):
        raise StoreOpenError(f"no SQLite event store at {path}")
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
    db = sqlite3.connect(uri, uri=True)
    try:
        log_cols, snap_cols = _columns(db, "log"), _columns(db, "snapshot")
        entries = ENTRY_COLUMNS if "crc" in log_cols else ENTRY_COLUMNS.replace("crc", "NULL")
        snaps = (SNAPSHOT_COLUMNS if "head_crc" in snap_cols
                 else SNAPSHOT_COLUMNS.replace("head_crc", "NULL").replace("data_crc", "NULL"))
        return find_damage(_fetch(db, f"SELECT {entries} FROM log ORDER BY id"),
                           _fetch(db, f"SELECT {snaps} FROM snapshot ORDER BY table_id"))
    except sqlite3.Error as err:
        raise StoreOpenError(f"cannot read the SQLite event store {path}: {err}") from None
    finally:
        db.close()


def is_file(path: str) -> bool:
    """A store path that names a file (not ``:memory:`` nor a ``file:`` URI)."""
    return path != ":memory:" and not path.startswith("file:")


def file_identity(path: str) -> tuple[int, int] | None:
    """(device, inode) of the file at ``path``, None when there is none: another pair
    means the file was replaced (a copy moved over it), None that it was deleted."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino


def is_disk_failure(err: sqlite3.OperationalError) -> bool:
    """A commit that fails for the whole store, not for one entry: a full disk, an I/O
    error, a read-only file."""
    text = str(err).lower()
    return any(word in text for word in ("disk is full", "disk i/o", "readonly", "read-only", "unable to open"))


WRITER_LOCK_SUFFIX = ".lock"
_writer_locks: dict[str, int] = {}  # real path of the store -> the locked file's descriptor


def lock_writer(path: str | Path) -> None:
    """Make this process the one writer of the SQLite store at ``path`` for the rest of its
    life (``trigono hub`` calls this before opening it): an exclusive ``flock`` on
    ``<path>.lock``, which the kernel drops when the process ends, however it ends. A
    second hub on the same file gets :class:`StoreOpenError` (two writers interleave
    entries and snapshots: wrong scores after a restart, issue 24.3). Calling it again in
    the same process is a no-op.
    """
    path = str(path)
    if not is_file(path):
        return
    real = os.path.realpath(path)
    if real in _writer_locks:
        return
    lock_path = real + WRITER_LOCK_SUFFIX
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as err:
        raise StoreOpenError(f"cannot open the event store {path} for writing: "
                             f"{err.strerror or err}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
        os.close(fd)
        raise StoreOpenError(f"another hub (pid {holder}) is already using {path}: one hub per "
                             "SQLite file; stop it or give this one another --db") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    _writer_locks[real] = fd


class SqliteStore(EventStore):
    """SQLite in WAL mode with ``synchronous=FULL``: each commit fsyncs the WAL before
    ``append`` returns, and the acks go out only after it (issue 32.1), so what a board
    was told is stored survives a power cut, not only a killed process (``NORMAL`` lost
    the last seconds of acknowledged events, which the boards had already forgotten).
    A batch is one commit, so the fsync is paid once per batch, not per event.
    """

    def __init__(self, path: str | Path) -> None:
        if is_postgres_url(str(path)):  # not a file name: say so rather than create one
            raise ValueError(f"{path!r} is a PostgreSQL URL: open it with hub.log.open.open_store")
        self.path = str(path)
        self.where = self.path
        self._lock = threading.Lock()
        try:
            if is_file(self.path):
                # The events hold table seeds: a new file is its owner's only (SQLite gives
                # its -wal and -shm files the same mode).
                os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
            for table, column, kind in _ADDED_COLUMNS:
                if column not in _columns(self._db, table):
                    self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
        except (OSError, sqlite3.Error) as err:  # a read-only or missing folder, a full disk
            raise StoreOpenError(f"cannot open the event store {self.path} for writing: "
                                 f"{getattr(err, 'strerror', None) or err}") from None
        self._identity = file_identity(self.path) if is_file(self.path) else None

    def append(self, entries: Sequence[Entry]) -> list[int | None]:
        rows = []
        for e in entries:  # a body that cannot be encoded fails here: nothing stored
            body = encode_body(e)
            rows.append((e.at, e.source, e.table_id, e.board, e.boot, e.seq, body,
                         entry_crc(e.at, e.source, e.table_id, e.board, e.boot, e.seq, body)))
        with self._lock:
            if self.fault is not None:
                raise StoreLostError(self.fault)
            cur = self._db.cursor()
            try:
                cur.execute("BEGIN IMMEDIATE")
                # Fast path: the hub drops duplicates before storing, so nearly always
                # every row goes in; under the write lock their ids are then consecutive.
                before = self._db.total_changes
                cur.executemany(_INSERT, rows)
                if self._db.total_changes - before == len(rows):
                    last = int(cur.execute("SELECT last_insert_rowid()").fetchone()[0])
                    cur.execute("COMMIT")
                    ids: list[int | None] = list(range(last - len(rows) + 1, last + 1))
                else:
                    cur.execute("ROLLBACK")  # some were stored before: find which, one by one
                    cur.execute("BEGIN IMMEDIATE")
                    ids = []
                    for row in rows:
                        cur.execute(_INSERT, row)
                        ids.append(cur.lastrowid if cur.rowcount == 1 else None)
                    cur.execute("COMMIT")
            except BaseException as err:
                if self._db.in_transaction:
                    cur.execute("ROLLBACK")
                if isinstance(err, sqlite3.OperationalError) and is_disk_failure(err):
                    raise StoreWriteError(f"the event store {self.path} cannot commit: {err}") from err
                raise
            # Committed: but into the file at our path? One stat before the ids go back
            # (and the acks with them), so a deleted or replaced file is never acked into.
            self._check_file()
        return ids

    def _check_file(self) -> None:
        if self._identity is None:
            return
        now = file_identity(self.path)
        if now == self._identity:
            return
        what = "deleted" if now is None else "replaced by another file"
        where = self._rescue()
        self.fault = (f"the event store {self.path} was {what} while the hub ran: the hub "
                      f"acknowledges nothing more; {where}; stop the hub, put that file back "
                      "as the store and start it again (the boards resend what was not acknowledged)")
        log.critical("%s", self.fault)
        raise StoreLostError(self.fault)

    def _rescue(self) -> str:
        """Copy what this connection still reads (the unlinked file, WAL included) to a
        new file beside the old one (else in the temporary folder): everything
        acknowledged so far. Never over an existing file."""
        folders = [os.path.dirname(os.path.abspath(self.path)), tempfile.gettempdir()]
        errors = []
        for folder in folders:
            for n in range(1, 1000):
                dest = os.path.join(folder, f"{os.path.basename(self.path)}.rescued-{n}")
                try:
                    os.close(os.open(dest, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
                except FileExistsError:
                    continue
                except OSError as err:
                    errors.append(f"{folder}: {err.strerror or err}")
                    break
                try:
                    target = sqlite3.connect(dest)
                    try:
                        self._db.backup(target)
                    finally:
                        target.close()
                except sqlite3.Error as err:
                    errors.append(f"{dest}: {err}")
                    break
                return f"everything it acknowledged was saved to {dest}"
        return "saving what it acknowledged failed (" + "; ".join(errors) + "): keep this process running"

    def entries(self, table_id: str | None = None, after: int = 0) -> Iterator[Entry]:
        with self._lock:
            if table_id is None:
                rows = _fetch(self._db, f"SELECT {ENTRY_COLUMNS} FROM log WHERE id > ? ORDER BY id",
                              (after,))
            else:
                rows = _fetch(self._db, f"SELECT {ENTRY_COLUMNS} FROM log WHERE table_id = ?"
                                        " AND id > ? ORDER BY id", (table_id, after))
        where = f"the SQLite store {self.path}"
        for row in rows:
            yield checked_entry(row, where, self.path)

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
            rows = _fetch(self._db, HELLOS_QUERY.replace("%s", "?"), (HELLO_LIKE,))
        where = f"the SQLite store {self.path}"
        return hellos_of(checked_entry(row, where, self.path) for row in rows)

    def last_seen(self) -> dict[str, float]:
        with self._lock:
            rows = self._db.execute(
                "SELECT board, MAX(at) FROM log WHERE board IS NOT NULL GROUP BY board").fetchall()
        return {r[0]: r[1] for r in rows}

    def save_snapshot(self, table_id: str, entry_id: int, data: dict[str, Any], *,
                      summary: dict[str, Any], final: bool) -> None:
        summary_text = json.dumps(summary, ensure_ascii=False)
        data_text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
        head_crc, data_crc = snapshot_crcs(table_id, entry_id, final, summary_text, data_text)
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO snapshot (table_id, entry_id, final, summary, data,"
                " head_crc, data_crc) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (table_id, entry_id, int(final), summary_text, data_text, head_crc, data_crc))

    def save_final(self, table_id: str, summary: dict[str, Any]) -> None:
        summary_text = json.dumps(summary, ensure_ascii=False)
        head_crc, data_crc = snapshot_crcs(table_id, 0, True, summary_text, "null")
        with self._lock:
            self._db.execute(
                "INSERT INTO snapshot (table_id, entry_id, final, summary, data, head_crc, data_crc)"
                " VALUES (?, 0, 1, ?, 'null', ?, ?) ON CONFLICT (table_id) DO UPDATE SET"
                " final = 1, summary = excluded.summary, head_crc = excluded.head_crc",
                (table_id, summary_text, head_crc, data_crc))

    def snapshot(self, table_id: str) -> tuple[int, dict[str, Any]] | None:
        with self._lock:
            rows = _fetch(self._db, f"SELECT {SNAPSHOT_COLUMNS} FROM snapshot WHERE table_id = ?"
                                    " AND data != 'null'", (table_id,))
        if not rows:
            return None
        row = rows[0]
        if self._damaged_snapshot(row) is not None:
            return None
        return int(row[1]), json.loads(row[4])

    def snapshot_heads(self) -> dict[str, tuple[int, bool, dict[str, Any]]]:
        with self._lock:
            rows = _fetch(self._db, "SELECT table_id, entry_id, final, summary, NULL, head_crc,"
                                    " NULL FROM snapshot")
        return {r[0]: (int(r[1]), bool(r[2]), json.loads(r[3])) for r in rows
                if self._damaged_snapshot(r) is None}

    def damage(self) -> StoreCheck:
        """``trigono store check``: every damaged entry and snapshot (reads only)."""
        return damage_of(self.path)

    def set_aside(self, damage: Sequence[Damage]) -> None:
        """``trigono store repair``: move each damaged entry, as its bytes are, to the
        table :data:`SET_ASIDE_TABLE` (out of the append-only log: its delete trigger is
        lifted for this one transaction) and drop each damaged snapshot (a cache, rebuilt
        from the log at the next start). All or nothing."""
        now = clock.now()
        with self._lock:
            cur = self._db.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                cur.execute(_SET_ASIDE)
                cur.execute("DROP TRIGGER log_append_only_delete")
                for d in damage:
                    if d.entry_id is None:
                        cur.execute("DELETE FROM snapshot WHERE table_id = ?", (d.table_id,))
                        continue
                    cur.execute(f"INSERT INTO {SET_ASIDE_TABLE} SELECT id, at, source, table_id,"
                                " board, boot, seq, CAST(body AS BLOB), crc, ?, ? FROM log"
                                " WHERE id = ?", (now, d.why, d.entry_id))
                    cur.execute("DELETE FROM log WHERE id = ?", (d.entry_id,))
                cur.execute(DELETE_TRIGGER)
                cur.execute("COMMIT")
            except BaseException:
                cur.execute("ROLLBACK")
                raise

    def close(self) -> None:
        with self._lock:
            self._db.close()
