"""Opening the store ``--db`` names: a SQLite file or a PostgreSQL URL."""

from __future__ import annotations

from pathlib import Path

from hub.log.postgres import PostgresStore
from hub.log.sqlite import SqliteStore
from hub.log.store import POSTGRES_SCHEMES, EventStore, is_postgres_url

__all__ = ["POSTGRES_SCHEMES", "is_postgres_url", "open_store"]

def open_store(db: str | Path) -> EventStore:
    """The store ``--db`` names: a ``postgresql://…`` URL (:class:`hub.log.postgres.PostgresStore`,
    migrated to the current schema) or a SQLite file path (``":memory:"`` for a throwaway).

    >>> store = open_store(":memory:")
    >>> type(store).__name__, store.last_id()
    ('SqliteStore', 0)
    >>> store.close()
    """
    if is_postgres_url(db):
        return PostgresStore(str(db))
    return SqliteStore(db)
