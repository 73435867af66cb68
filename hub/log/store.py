"""The durable event store (docs/design.md §6, §9; R1): an append-only log plus snapshots.

Everything the hub accepts — each device message, each console input, each decision of
its own timers — is one :class:`Entry`, appended and committed before it is applied. The
state of every table is the replay of its entries; snapshots only make that replay
short. The store sits behind :class:`EventStore` (:mod:`hub.log.sqlite`, :mod:`hub.log.postgres`); :func:`hub.log.open.open_store` picks the backend
from ``--db``: a SQLite file (one laptop) or a PostgreSQL URL (:mod:`hub.log.postgres`:
several hubs and web processes sharing one event).

Deduplication is the store's job too: an entry that carries a device's
``(board, boot, seq)`` is stored at most once, whatever the link delivered twice.

>>> from hub.log.sqlite import SqliteStore
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
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hub.jsonlimits import encodable
from hub.log import clock

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
        return cls(None, clock.now() if at is None else at, source, table_id, body, board, boot,
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


def decode_body(text: str) -> dict[str, Any]:
    r"""A stored body's JSON text back to the body. A log written before the edges refused
    lone surrogates (issue 24) may hold one in a ``\u`` escape: it comes back as U+FFFD,
    so restoring such a log works and every view of it stays encodable.

    >>> decode_body(r'{"type":"hello","fw":"1.0\ud800"}')["fw"] == "1.0\ufffd"
    True
    """
    body: dict[str, Any] = json.loads(text)
    return encodable(body) if "\\u" in text else body


class EventStore(ABC):
    """What the hub needs from a store. Implementations must be safe to call from several
    threads (the hub serialises writes, but readers such as ``export`` may overlap)."""

    fault: str | None = None
    """Set when the store stopped committing for good (:class:`StoreLostError`): the
    alert the admin page and the log show."""

    @abstractmethod
    def append(self, entries: Sequence[Entry]) -> list[int | None]:
        """Store entries in one transaction; the id of each, None for a duplicate
        device event. Returns only after the commit is durable against a power cut (the
        caller acknowledges what it returns: the boards then forget it, issue 32.1)."""

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
        body = decode_body(text)
        if isinstance(body, dict) and body.get("type") == "hello":
            out.setdefault((board, int(boot)), body)
    return out


def with_id(entry: Entry, entry_id: int) -> Entry:
    """The entry as stored (with its id)."""
    return Entry(entry_id, entry.at, entry.source, entry.table_id, entry.body, entry.board,
                 entry.boot, entry.seq, entry.raw)


POSTGRES_SCHEMES = ("postgresql://", "postgres://")


class StoreWriteError(RuntimeError):
    """The store cannot commit anything now — its file was deleted or replaced, the disk
    is full or failing: nothing of the batch was stored (so nothing is acknowledged),
    and storing each entry alone would fail the same way. The message is one line."""


class StoreLostError(StoreWriteError):
    """The store's file was deleted or replaced while the hub ran: it stops committing for
    good (:attr:`EventStore.fault` says why and where what it acknowledged was saved)."""


class HubBusyError(StoreWriteError):
    """A request waited :data:`hub.facade.LOCK_WAIT_S` for a commit in progress (a frozen
    or very slow disk) and gave up before touching anything: nothing of it was applied or
    stored. The web answers 503 with this one line."""


class StoreOpenError(RuntimeError):
    """The store cannot be opened for writing: another hub holds it, or its location is
    read-only or missing. The message is the one line ``trigono hub`` prints."""


def is_postgres_url(db: str | Path) -> bool:
    """Whether ``--db`` names a PostgreSQL database rather than a SQLite file.

    >>> is_postgres_url("postgresql://127.0.0.1/festival"), is_postgres_url("festival.db")
    (True, False)
    """
    return isinstance(db, str) and db.startswith(POSTGRES_SCHEMES)
