"""The event store on PostgreSQL (issue 18): several hubs and web processes share one event.

Same contract as :class:`hub.log.sqlite.SqliteStore` (see :class:`hub.log.store.EventStore`):

- the log is append-only *in the database*: triggers refuse UPDATE, DELETE and TRUNCATE
  of ``log`` rows, whoever connects;
- a device event ``(board, boot, seq)`` is stored at most once (a unique index), so a
  standby hub that takes over may be sent again what the dead one stored;
- one snapshot per table, replaced in place;
- :func:`migrate` brings an empty database (or schema) to the current version; every
  store runs it at open, under an advisory lock so two hubs starting together do not race.

An append is one statement (atomic by itself) that also sends
``NOTIFY "trigono_log:<schema>", '<last id>'``, delivered only if it commits, so read-only
web processes (:mod:`hub.replica`, with :class:`LogListener`) follow the log without
polling. A schema is chosen with the libpq URL option ``?options=-csearch_path%3Dhall_a``
(tests use one schema per test); each schema is an event of its own (its own log, its
own channel, its own active hub).

Everything here needs a server; tests/hub/log/test_store.py runs the whole store contract on
SQLite and on PostgreSQL.

Connections come from a :class:`psycopg_pool.ConnectionPool` (the hub writes from one
thread; exports and the web read from others).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from typing import Any

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool

from hub.log import clock
from hub.log.store import (
    ENTRY_COLUMNS,
    HELLO_LIKE,
    HELLOS_QUERY,
    SET_ASIDE_TABLE,
    SNAPSHOT_COLUMNS,
    Damage,
    Entry,
    EventStore,
    StoreCheck,
    StoreOpenError,
    checked_entry,
    encode_body,
    entry_crc,
    find_damage,
    hellos_of,
    log,
    snapshot_crcs,
)


# libpq options of every connection a hub opens (issue 32.6): a connection attempt into a
# silent cut gives up after connect_timeout instead of hanging; the client's kernel ends a
# connection whose peer stops answering its keepalives, or whose sent bytes stay
# unacknowledged for tcp_user_timeout (ms). A cut that the kernel cannot see (a proxy
# that stops forwarding) is the active hub's watcher's to notice (hub.log.standby).
def lock_key_sql() -> str:
    """The advisory lock key of the active hub (:mod:`hub.log.standby`): one per database schema, so one PostgreSQL can hold several
    events (schemas) each with its own active hub."""
    return "hashtext('trigono-hub:' || current_schema())"


LIVENESS: dict[str, Any] = {"connect_timeout": 3, "keepalives": 1, "keepalives_idle": 3,
                            "keepalives_interval": 1, "keepalives_count": 3,
                            "tcp_user_timeout": 5000}
NOTIFY_PREFIX = "trigono_log:"  # + the schema: each event (schema) has its own channel
MIGRATE_LOCK = 0x7472_6967  # "trig": pg_advisory_xact_lock key serialising migrations

# Each step runs once, in order, in one transaction with its version bump. Append new
# steps; never edit a released one (a database out there has already run it).
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE log (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at DOUBLE PRECISION NOT NULL,
        source TEXT NOT NULL,
        table_id TEXT,
        board TEXT,
        boot BIGINT,
        seq BIGINT,
        body TEXT NOT NULL
    );
    CREATE UNIQUE INDEX log_device ON log (board, boot, seq) WHERE seq IS NOT NULL;
    CREATE INDEX log_table ON log (table_id, id) WHERE table_id IS NOT NULL;
    CREATE INDEX log_board ON log (board, at) WHERE board IS NOT NULL;
    CREATE TABLE snapshot (
        table_id TEXT PRIMARY KEY,
        entry_id BIGINT NOT NULL,
        final BOOLEAN NOT NULL,
        summary TEXT NOT NULL,
        data TEXT NOT NULL
    );
    CREATE FUNCTION log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'the log is append-only (% refused)', TG_OP
            USING ERRCODE = 'insufficient_privilege';
    END $$;
    CREATE TRIGGER log_append_only_rows BEFORE UPDATE OR DELETE ON log
        FOR EACH ROW EXECUTE FUNCTION log_append_only();
    CREATE TRIGGER log_append_only_truncate BEFORE TRUNCATE ON log
        FOR EACH STATEMENT EXECUTE FUNCTION log_append_only();
    """,
    # Values every process of one event must share (the web's signing key, so a seat
    # link made on one web process opens on another).
    """
    CREATE TABLE setting (name TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    # Issue 32.4: checksums (NULL in older rows: they load unchecked but for JSON), and
    # where `trigono store repair` sets damaged entries aside.
    """
    ALTER TABLE log ADD COLUMN crc BIGINT;
    ALTER TABLE snapshot ADD COLUMN head_crc BIGINT, ADD COLUMN data_crc BIGINT;
    CREATE TABLE log_set_aside (  -- hub.log.store.SET_ASIDE_TABLE
        id BIGINT PRIMARY KEY, at DOUBLE PRECISION, source TEXT, table_id TEXT, board TEXT,
        boot BIGINT, seq BIGINT, body TEXT, crc BIGINT,
        set_aside_at DOUBLE PRECISION NOT NULL, reason TEXT NOT NULL
    );
    """,
)

# One statement per batch, atomic by itself (autocommit): the rows travel as seven binary
# arrays and are inserted in array order, so their identity ids increase in that order;
# the notification rides along and is delivered only if the statement commits. One round
# trip, and a quarter of the client CPU of a pipelined executemany at 200 rows.
_INSERT = """
WITH added AS (
    INSERT INTO log (at, source, table_id, board, boot, seq, body, crc)
    SELECT * FROM unnest(%b::float8[], %b::text[], %b::text[], %b::text[], %b::int8[],
                         %b::int8[], %b::text[], %b::int8[])
    ON CONFLICT DO NOTHING
    RETURNING id, board, boot, seq
), notified AS (
    SELECT pg_notify(%s || current_schema(), MAX(id)::text) FROM added HAVING COUNT(*) > 0
)
SELECT id, board, boot, seq FROM added, (SELECT COUNT(*) FROM notified) AS n ORDER BY id
"""


def _described(url: str) -> str:
    """Where a PostgreSQL URL points (host:port/database, its schema), for a message: never its password."""
    try:
        params = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "(an unreadable URL)"
    where = f"{params.get('host', '')}:{params.get('port', 5432)}/{params.get('dbname', '')}"
    schema = str(params.get("options", "")).partition("search_path=")[2].split()[0:1]
    return where + (f" (schema {schema[0]})" if schema else "")


def migrate(conn: psycopg.Connection[Any]) -> int:
    """Run the migrations this database has not run yet; return its version.

    ``conn`` must be in autocommit mode; each step is its own transaction.
    """
    row = conn.execute("SELECT current_schema(), current_setting('search_path')").fetchone()
    if row is None or row[0] is None:
        path = "" if row is None else row[1]
        raise ValueError(f"no schema of the URL's search_path ({path}) exists in this "
                         "database: create it first (CREATE SCHEMA name)")
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATE_LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = conn.execute("SELECT version FROM schema_version").fetchone()
        version = 0 if row is None else int(row[0])
        if row is None:
            conn.execute("INSERT INTO schema_version VALUES (0)")
        for number, step in enumerate(MIGRATIONS[version:], start=version + 1):
            conn.execute(step)  # fixed text from MIGRATIONS, never user input
            conn.execute("UPDATE schema_version SET version = %s", (number,))
            version = number
    return version


class PostgresStore(EventStore):
    """An :class:`EventStore` on PostgreSQL at ``url`` (``postgresql://host/db?...``).

    A commit is durable once ``append`` returns (PostgreSQL's default
    ``synchronous_commit=on``: the WAL is flushed), also against a power cut of the
    database machine.
    """

    def __init__(self, url: str, *, pool_size: int = 4) -> None:
        self.url = url
        self.name = f"the PostgreSQL store {_described(url)}"
        self.where = self.name
        # A connection of its own first: a wrong URL or a server that is down fails here
        # at once with libpq's own message, instead of as a pool timeout.
        with psycopg.connect(url, autocommit=True, **LIVENESS) as conn:
            self.version = migrate(conn)
            row = conn.execute("SHOW synchronous_commit").fetchone()
        if row is not None and row[0] == "off":  # set by the URL or the server's configuration
            log.warning("%s runs with synchronous_commit=off: a crash of the database server "
                        "may lose events the boards were told are stored (docs/deploy.md)", self.name)
        self.pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            url, min_size=1, max_size=pool_size, kwargs={"autocommit": True, **LIVENESS}, open=False,
            name="trigono-store")
        self.pool.open(wait=True, timeout=10.0)

    def append(self, entries: Sequence[Entry]) -> list[int | None]:
        if not entries:
            return []
        bodies = [encode_body(e) for e in entries]
        columns = ([e.at for e in entries], [e.source for e in entries],
                   [e.table_id for e in entries], [e.board for e in entries],
                   [e.boot for e in entries], [e.seq for e in entries], bodies,
                   [entry_crc(e.at, e.source, e.table_id, e.board, e.boot, e.seq, body)
                    for e, body in zip(entries, bodies, strict=True)])
        with self.pool.connection() as conn:
            added = conn.execute(_INSERT, (*columns, NOTIFY_PREFIX)).fetchall()
        if len(added) == len(entries):  # nothing was a duplicate: ids in input order
            return [int(r[0]) for r in added]
        # Duplicates were dropped: a device event's id by its (board, boot, seq); the
        # others (never deduplicated) in input order.
        by_key = {(r[1], r[2], r[3]): int(r[0]) for r in added if r[3] is not None}
        others = iter(int(r[0]) for r in added if r[3] is None)
        return [by_key.pop((e.board, e.boot, e.seq), None) if e.seq is not None else next(others)
                for e in entries]  # pop: a second copy within one batch gets None

    def entries(self, table_id: str | None = None, after: int = 0) -> Iterator[Entry]:
        with self.pool.connection() as conn:
            if table_id is None:
                rows = conn.execute(f"SELECT {ENTRY_COLUMNS} FROM log WHERE id > %s ORDER BY id",
                                    (after,)).fetchall()
            else:
                rows = conn.execute(
                    f"SELECT {ENTRY_COLUMNS} FROM log WHERE table_id = %s AND id > %s ORDER BY id",
                    (table_id, after)).fetchall()
        for row in rows:
            yield checked_entry(row, self.name, "<its URL>")

    def last_id(self) -> int:
        with self.pool.connection() as conn:
            row = conn.execute("SELECT COALESCE(MAX(id), 0) FROM log").fetchone()
        assert row is not None
        return int(row[0])

    def table_spans(self) -> list[tuple[str, int, int]]:
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT table_id, MIN(id) AS first, MAX(id) FROM log WHERE table_id IS NOT NULL"
                " GROUP BY table_id ORDER BY first").fetchall()
        return [(r[0], int(r[1]), int(r[2])) for r in rows]

    def device_marks(self) -> dict[tuple[str, int], tuple[int, int, int]]:
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT board, boot, MIN(seq), MAX(seq), COUNT(*) FROM log"
                " WHERE seq IS NOT NULL GROUP BY board, boot").fetchall()
        return {(r[0], int(r[1])): (int(r[2]), int(r[3]), int(r[4])) for r in rows}

    def device_hellos(self) -> dict[tuple[str, int], dict[str, Any]]:
        with self.pool.connection() as conn:
            rows = conn.execute(HELLOS_QUERY, (HELLO_LIKE,)).fetchall()
        return hellos_of(checked_entry(row, self.name, "<its URL>") for row in rows)

    def last_seen(self) -> dict[str, float]:
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT board, MAX(at) FROM log WHERE board IS NOT NULL GROUP BY board").fetchall()
        return {r[0]: float(r[1]) for r in rows}

    def save_snapshot(self, table_id: str, entry_id: int, data: dict[str, Any], *,
                      summary: dict[str, Any], final: bool) -> None:
        summary_text = json.dumps(summary, ensure_ascii=False)
        data_text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
        head_crc, data_crc = snapshot_crcs(table_id, entry_id, final, summary_text, data_text)
        with self.pool.connection() as conn:
            conn.execute(
                "INSERT INTO snapshot (table_id, entry_id, final, summary, data, head_crc, data_crc)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (table_id) DO UPDATE SET"
                " entry_id = EXCLUDED.entry_id, final = EXCLUDED.final,"
                " summary = EXCLUDED.summary, data = EXCLUDED.data,"
                " head_crc = EXCLUDED.head_crc, data_crc = EXCLUDED.data_crc",
                (table_id, entry_id, final, summary_text, data_text, head_crc, data_crc))

    def save_final(self, table_id: str, summary: dict[str, Any]) -> None:
        summary_text = json.dumps(summary, ensure_ascii=False)
        head_crc, data_crc = snapshot_crcs(table_id, 0, True, summary_text, "null")
        with self.pool.connection() as conn:
            conn.execute(
                "INSERT INTO snapshot (table_id, entry_id, final, summary, data, head_crc, data_crc)"
                " VALUES (%s, 0, TRUE, %s, 'null', %s, %s) ON CONFLICT (table_id) DO UPDATE SET"
                " final = TRUE, summary = EXCLUDED.summary, head_crc = EXCLUDED.head_crc",
                (table_id, summary_text, head_crc, data_crc))

    def snapshot(self, table_id: str) -> tuple[int, dict[str, Any]] | None:
        with self.pool.connection() as conn:
            row = conn.execute(f"SELECT {SNAPSHOT_COLUMNS} FROM snapshot WHERE table_id = %s"
                               " AND data <> 'null'", (table_id,)).fetchone()
        if row is None or self._damaged_snapshot(row) is not None:
            return None
        return int(row[1]), json.loads(row[4])

    def snapshot_heads(self) -> dict[str, tuple[int, bool, dict[str, Any]]]:
        with self.pool.connection() as conn:
            rows = conn.execute("SELECT table_id, entry_id, final, summary, NULL, head_crc, NULL"
                                " FROM snapshot").fetchall()
        return {r[0]: (int(r[1]), bool(r[2]), json.loads(r[3])) for r in rows
                if self._damaged_snapshot(r) is None}

    def damage(self) -> StoreCheck:
        """``trigono store check``: every damaged entry and snapshot (reads only)."""
        with self.pool.connection() as conn:
            entries = conn.execute(f"SELECT {ENTRY_COLUMNS} FROM log ORDER BY id").fetchall()
            snaps = conn.execute(f"SELECT {SNAPSHOT_COLUMNS} FROM snapshot ORDER BY table_id").fetchall()
        return find_damage(entries, snaps)

    def set_aside(self, damage: Sequence[Damage]) -> None:
        """``trigono store repair``: move each damaged entry to :data:`SET_ASIDE_TABLE`
        (out of the append-only log: its row trigger is disabled for this one transaction)
        and drop each damaged snapshot. All or nothing."""
        now = clock.now()
        with self.pool.connection() as conn, conn.transaction():
            # the active hub's lock (hub.log.standby), for this transaction: no hub may
            # write while the log's trigger is off
            row = conn.execute(f"SELECT pg_try_advisory_xact_lock({lock_key_sql()})").fetchone()
            if row is None or not row[0]:
                raise StoreOpenError(f"a hub is active on {self.name}: stop it before repairing")
            conn.execute("ALTER TABLE log DISABLE TRIGGER log_append_only_rows")
            for d in damage:
                if d.entry_id is None:
                    conn.execute("DELETE FROM snapshot WHERE table_id = %s", (d.table_id,))
                    continue
                conn.execute(f"INSERT INTO {SET_ASIDE_TABLE} SELECT id, at, source, table_id, board,"
                             " boot, seq, body, crc, %s, %s FROM log WHERE id = %s",
                             (now, d.why, d.entry_id))
                conn.execute("DELETE FROM log WHERE id = %s", (d.entry_id,))
            conn.execute("ALTER TABLE log ENABLE TRIGGER log_append_only_rows")

    def shared_setting(self, name: str, proposed: str) -> str:
        """The event-wide value of setting ``name``: ``proposed`` if this is the first
        process to ask, else what the first one stored."""
        with self.pool.connection() as conn:
            conn.execute("INSERT INTO setting (name, value) VALUES (%s, %s)"
                         " ON CONFLICT (name) DO NOTHING", (name, proposed))
            row = conn.execute("SELECT value FROM setting WHERE name = %s", (name,)).fetchone()
        assert row is not None
        return str(row[0])

    def close(self) -> None:
        self.pool.close()


class LogListener:
    """Wakes a reader when entries are appended to the log at ``url`` (LISTEN on the
    store's channel, a connection of its own). Reconnects after the server restarts."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._conn: psycopg.Connection[Any] | None = None

    def listen(self) -> None:
        """Start listening (also done by :meth:`wait`). Call it *before* reading the log
        the first time, so an append between that read and the first wait is not missed."""
        if self._conn is None or self._conn.closed:
            conn = psycopg.connect(self.url, autocommit=True, **LIVENESS)
            row = conn.execute("SELECT current_schema()").fetchone()
            assert row is not None
            conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(NOTIFY_PREFIX + str(row[0]))))
            self._conn = conn

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for an append; True if one was announced. False also
        when the server cannot be reached (the caller then reads the log anyway)."""
        try:
            self.listen()
            assert self._conn is not None
            for _ in self._conn.notifies(timeout=timeout, stop_after=1):
                return True
            return False
        except psycopg.OperationalError:
            if self._conn is not None:
                self._conn.close()
            self._conn = None
            time.sleep(min(timeout, 1.0))  # the server is away: do not spin
            return False

    def wake(self) -> None:
        """Wake a :meth:`wait` in another thread (to stop it): a notification on the same
        channel, from a connection of its own (other listeners wake once for nothing)."""
        with psycopg.connect(self.url, autocommit=True, **LIVENESS) as conn:
            conn.execute("SELECT pg_notify(%s || current_schema(), 'wake')", (NOTIFY_PREFIX,))

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
