"""A PostgreSQL for tests: the server at ``TRIGONO_TEST_PG`` (default
``postgresql://127.0.0.1:5432/test``), one fresh schema per test.

Unlike Mosquitto, tests do not start their own PostgreSQL (an initdb costs seconds and
needs the server binaries); they use the one that answers, and are skipped with the
reason when none does. docs/deploy.md says how to start one.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

SERVER = os.environ.get("TRIGONO_TEST_PG", "postgresql://127.0.0.1:5432/test")
_reachable: str | None | bool = False  # False: not tried yet; None: reachable; str: why not


def unreachable_reason() -> str | None:
    """None when the test server answers, else why not (tried once per session)."""
    global _reachable
    if _reachable is False:
        try:
            import psycopg

            with psycopg.connect(SERVER, connect_timeout=2) as conn:
                conn.execute("SELECT 1")
            _reachable = None
        except Exception as err:  # noqa: BLE001 - any failure means "skip", with its text
            _reachable = f"no PostgreSQL at {SERVER} ({type(err).__name__}: {err})".strip()
    return _reachable if isinstance(_reachable, str) else None


def with_schema(url: str, schema: str) -> str:
    """``url`` with libpq's search_path option set to ``schema``.

    >>> with_schema("postgresql://127.0.0.1/test", "s1")
    'postgresql://127.0.0.1/test?options=-csearch_path%3Ds1'
    """
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options={quote('-csearch_path=' + schema, safe='-')}"


@contextmanager
def fresh_schema(prefix: str = "t") -> Iterator[str]:
    """A new empty schema on the test server; yields a URL whose tables live in it.
    Dropped afterwards (DROP is not refused: only UPDATE/DELETE/TRUNCATE of log rows)."""
    import psycopg

    schema = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(SERVER, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield with_schema(SERVER, schema)
    finally:
        with psycopg.connect(SERVER, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@contextmanager
def log_only_copy(db: str, workdir: Path) -> Iterator[str]:
    """A copy of the event store ``db`` (a SQLite file or a PostgreSQL URL) with the
    whole log and no snapshots: a hub opened on it rebuilds every table by replaying the
    log from the start (R1: its tables must equal the live hub's)."""
    from hub.log.open import is_postgres_url, open_store
    from hub.log.store import encode_body

    if not is_postgres_url(db):
        copy = workdir / "log-only.db"
        for suffix in ("", "-wal", "-shm"):
            if Path(f"{db}{suffix}").exists():
                shutil.copy(f"{db}{suffix}", f"{copy}{suffix}")
        with sqlite3.connect(copy) as conn:
            conn.execute("DELETE FROM snapshot")
        yield str(copy)
        return
    import psycopg

    with fresh_schema("copy") as url:
        open_store(url).close()  # the schema, migrated
        source = open_store(db)
        try:
            rows = [(e.id, e.at, e.source, e.table_id, e.board, e.boot, e.seq, encode_body(e))
                    for e in source.entries()]
        finally:
            source.close()
        with psycopg.connect(url, autocommit=True) as pg_conn, pg_conn.cursor() as cur:
            cur.executemany("INSERT INTO log (id, at, source, table_id, board, boot, seq, body)"
                            " OVERRIDING SYSTEM VALUE VALUES (%s, %s, %s, %s, %s, %s, %s, %s)", rows)
        yield url
