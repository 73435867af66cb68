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
import logging
import zlib
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hub.jsonlimits import encodable
from hub.log import clock

log = logging.getLogger("hub.log")

# Apart: ``trigono store repair`` lifts it for the one transaction that sets entries aside.
DELETE_TRIGGER = ("CREATE TRIGGER IF NOT EXISTS log_append_only_delete BEFORE DELETE ON log"
                  " BEGIN SELECT RAISE(ABORT, 'the log is append-only'); END;")
SCHEMA = """
CREATE TABLE IF NOT EXISTS log (
    id INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    source TEXT NOT NULL,
    table_id TEXT,
    board TEXT,
    boot INTEGER,
    seq INTEGER,
    body TEXT NOT NULL,
    crc INTEGER
);
CREATE UNIQUE INDEX IF NOT EXISTS log_device ON log (board, boot, seq) WHERE seq IS NOT NULL;
CREATE INDEX IF NOT EXISTS log_table ON log (table_id, id) WHERE table_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS snapshot (
    table_id TEXT PRIMARY KEY,
    entry_id INTEGER NOT NULL,
    final INTEGER NOT NULL,
    summary TEXT NOT NULL,
    data TEXT NOT NULL,
    head_crc INTEGER,
    data_crc INTEGER
);
CREATE TRIGGER IF NOT EXISTS log_append_only_update BEFORE UPDATE ON log
BEGIN SELECT RAISE(ABORT, 'the log is append-only'); END;
""" + DELETE_TRIGGER + "\n"


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


def _crc(*parts: object) -> int:
    text = "\x1f".join(str(p) for p in parts)
    # backslashreplace: any text has bytes, a lone surrogate or a byte SQLite could not
    # decode (read back with surrogateescape) included — a damaged one then differs
    return zlib.crc32(text.encode("utf-8", "backslashreplace"))


def entry_crc(at: float, source: str, table_id: str | None, board: str | None, boot: int | None,
              seq: int | None, body: str) -> int:
    """The checksum stored with an entry (issue 32.4): CRC-32 of its columns as stored
    (the body's JSON text as is), so a flipped bit anywhere in the row is noticed.

    >>> entry_crc(1.5, "device", "t1", "B1", 1, 2, '{"type":"drop"}') == entry_crc(1.5, "device", "t1", "B1", 1, 2, '{"type":"drip"}')
    False
    """
    # the same text as _crc's, in one f-string: this runs for every event the hub stores
    text = f"{float(at)!r}\x1f{source}\x1f{table_id}\x1f{board}\x1f{boot}\x1f{seq}\x1f{body}"
    return zlib.crc32(text.encode("utf-8", "backslashreplace"))


def snapshot_crcs(table_id: str, entry_id: int, final: bool, summary: str, data: str) -> tuple[int, int]:
    """The two checksums stored with a snapshot: its head (table, final, summary: what a
    table list reads without the data) and its data with the entry it is the state after
    (which :meth:`EventStore.save_final` leaves as they are)."""
    return _crc(table_id, int(final), summary), _crc(entry_id, data)


ENTRY_COLUMNS = "id, at, source, table_id, body, board, boot, seq, crc"
"""The columns :func:`checked_entry` reads, in its order."""

REPAIR_HINT = ("`trigono store check --db {db}` lists the damage, `trigono store repair --db {db}` "
               "sets damaged entries aside (docs/deploy.md)")


def _crc_matches(row: Sequence[Any]) -> bool:
    entry_id, at, source, table_id, body, board, boot, seq, crc = row
    try:
        return int(crc) == entry_crc(at, source, table_id, board, boot, seq, body)
    except (TypeError, ValueError):  # a column whose type the damage changed
        return False


def entry_damage(row: Sequence[Any]) -> str | None:
    """Why an entry row (:data:`ENTRY_COLUMNS`) is damaged, None when it is sound. A row
    written before checksums (``crc`` NULL) is checked for JSON only."""
    body, crc = row[4], row[8]
    if not isinstance(body, str):
        return "its body is not text"
    if crc is not None and not _crc_matches(row):
        return "its checksum does not match"
    try:
        if not isinstance(json.loads(body), dict):
            return "its body is not a JSON object"
    except ValueError:
        return "its body is not JSON"
    return None


def checked_entry(row: Sequence[Any], store: str, db: str) -> Entry:
    """An entry row (:data:`ENTRY_COLUMNS`) as an :class:`Entry`, after its checksum;
    :class:`DamagedEntryError` naming it in ``store`` (``db``: the ``--db`` that opens it)."""
    entry_id, at, source, table_id, body, board, boot, seq, crc = row
    if crc is None or not _crc_matches(row):
        why = entry_damage(row)
        if why is not None:
            raise DamagedEntryError(
                f"entry {entry_id} (table {table_id or '-'}) of {store} is damaged ({why}): the "
                "hub does not start on a damaged log; " + REPAIR_HINT.format(db=db))
    return Entry(entry_id, at, source, table_id, decode_body(body), board, boot, seq)


def snapshot_damage(table_id: str, entry_id: int, final: bool, summary: str, data: str | None,
                    head_crc: int | None, data_crc: int | None) -> str | None:
    """Why a snapshot row is damaged (``data`` None: its head only), None when sound or
    written before checksums."""
    head, body = snapshot_crcs(table_id, entry_id, final, summary, data or "")
    if head_crc is not None and int(head_crc) != head:
        return "its summary's checksum does not match"
    if data is not None and data_crc is not None and int(data_crc) != body:
        return "its data's checksum does not match"
    try:
        json.loads(summary)
        if data is not None:
            json.loads(data)
    except ValueError:
        return "it is not JSON"
    return None


@dataclass(slots=True)
class Damage:
    """One damaged record found by ``trigono store check``: an entry (``entry_id``) or a
    snapshot (``entry_id`` None)."""

    table_id: str | None
    entry_id: int | None
    why: str

    def line(self) -> str:
        if self.entry_id is None:
            return (f"snapshot of table {self.table_id}: {self.why} (a cache: dropped, and "
                    "rebuilt from the log)")
        return f"entry {self.entry_id} (table {self.table_id or '-'}): {self.why}"


class EventStore(ABC):
    """What the hub needs from a store. Implementations must be safe to call from several
    threads (the hub serialises writes, but readers such as ``export`` may overlap)."""

    damaged_snapshots: int = 0
    """Snapshots found damaged and ignored (the table replayed from the log instead)."""

    where: str = "the event store"
    """How the log names this store (its file, its server)."""

    def _damaged_snapshot(self, row: Sequence[Any]) -> str | None:
        """Why a snapshot row read is damaged (then counted and logged: the caller
        ignores it, so its table is replayed from the log and snapshotted again)."""
        why = snapshot_damage(row[0], int(row[1]), bool(row[2]), *row[3:])
        if why is not None:
            self.damaged_snapshots += 1
            log.warning("the snapshot of table %s in %s is damaged (%s): ignored, the table is "
                        "rebuilt from the log", row[0], self.where, why)
        return why

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
        """Entries with id > ``after`` in id order (only one table's when given). An entry
        whose checksum does not match raises :class:`DamagedEntryError` (issue 32.4)."""

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


HELLOS_QUERY = (f"SELECT {ENTRY_COLUMNS} FROM log WHERE seq IS NOT NULL AND body LIKE %s"
                " ORDER BY id")
HELLO_LIKE = '%"hello"%'


def hellos_of(entries: Iterable[Entry]) -> dict[tuple[str, int], dict[str, Any]]:
    """Device entries, oldest first → the first hello body of each (board, boot).

    >>> def e(board, boot, body): return Entry.new("device", body, board=board, boot=boot, seq=1)
    >>> hellos_of([e("B1", 7, {"type": "hello", "config": "a"}), e("B1", 7, {"type": "drop", "note": "hello"}),
    ...            e("B1", 7, {"type": "hello", "config": "b"})])
    {('B1', 7): {'type': 'hello', 'config': 'a'}}
    """
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for entry in entries:
        body = entry.body
        if isinstance(body, dict) and body.get("type") == "hello" and entry.board is not None:
            out.setdefault((entry.board, int(entry.boot or 0)), body)
    return out


@dataclass(slots=True)
class StoreCheck:
    """What ``trigono store check`` found: the damaged records, of how many read."""

    damage: list[Damage]
    entries: int
    snapshots: int


def find_damage(entry_rows: Sequence[Sequence[Any]],
                snapshot_rows: Sequence[Sequence[Any]]) -> StoreCheck:
    """Every damaged entry (rows of :data:`ENTRY_COLUMNS`) and snapshot (rows of
    :data:`SNAPSHOT_COLUMNS`) of a store."""
    found = [Damage(row[3], int(row[0]), why) for row in entry_rows
             if (why := entry_damage(row)) is not None]
    found += [Damage(row[0], None, why) for row in snapshot_rows
              if (why := snapshot_damage(row[0], int(row[1]), bool(row[2]), *row[3:])) is not None]
    return StoreCheck(found, len(entry_rows), len(snapshot_rows))


SET_ASIDE_TABLE = "log_set_aside"
"""Where ``trigono store repair`` moves damaged entries, in the same store."""

SNAPSHOT_COLUMNS = "table_id, entry_id, final, summary, data, head_crc, data_crc"


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


class DamagedEntryError(StoreOpenError):
    """An entry of the log no longer reads as it was stored (its checksum differs, its
    body is no longer JSON): the hub does not start on a log it cannot replay as it was
    (issue 32.4). The message is one line naming the entry, its table and the store, and
    the repair commands."""


def is_postgres_url(db: str | Path) -> bool:
    """Whether ``--db`` names a PostgreSQL database rather than a SQLite file.

    >>> is_postgres_url("postgresql://127.0.0.1/festival"), is_postgres_url("festival.db")
    (True, False)
    """
    return isinstance(db, str) and db.startswith(POSTGRES_SCHEMES)
