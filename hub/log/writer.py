"""The one door into the log: :class:`LogWriter` stores, applies and announces.

Every way an entry reaches the hub — a device message through ingest, a settle window
the timer closes, a console or player input, a bot's move, a new table, a tournament
entry — goes through the hub's one :meth:`LogWriter.write`, under the writer's lock (the
hub's): the entries are committed first, then the caller's ``apply`` folds them into the
hub's state — the tables' reducer or the tournaments' — (with the ids the store gave
them: an entry the store already held comes back as ``None`` and is not applied again),
then the changes ``apply`` reports are announced on the change feed. Nothing is applied
that was not stored, and nothing stored goes unannounced.

>>> from hub.log.changes import ChangeFeed
>>> from hub.log.sqlite import SqliteStore
>>> from hub.log.store import Entry
>>> feed = ChangeFeed(base=0)
>>> writer = LogWriter(SqliteStore(":memory:"), feed)
>>> seen = []
>>> def apply(stored):
...     seen.extend(e.body["n"] for e in stored if e is not None)
...     return [{"kind": "table", "table": "t1"}]
>>> [e.id for e in writer.write([Entry.new("console", {"n": 1}, table_id="t1")], apply)]
[1]
>>> seen, [c["kind"] for c in feed.since(0, 0)]
([1], ['table'])
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from hub.log.changes import ChangeFeed
from hub.log.store import Entry, EventStore, with_id

JSONDict = dict[str, Any]
Apply = Callable[[list[Entry | None]], Iterable[JSONDict]]


class LogWriter:
    """Store → apply → announce, for one store and one change feed (``None``: a process
    that writes without readers, e.g. a tournament loaded from the command line).

    ``lock``: held around each write (store, apply, announce); a hub passes its own, so
    every reducer's state changes under the one lock its readers take."""

    def __init__(self, store: EventStore, feed: ChangeFeed | None,
                 lock: threading.RLock | None = None) -> None:
        self.store, self.feed = store, feed
        self.lock = lock if lock is not None else threading.RLock()
        self.committed: list[Callable[[], None]] = []
        """Told after each commit that stored something (a club's sync publisher, issue
        35: it only wakes up — it reads the store on its own thread, off this path)."""

    def write(self, entries: Sequence[Entry], apply: Apply | None = None) -> list[Entry | None]:
        """Commit ``entries`` (all or none), then ``apply(stored)`` — each entry with its
        id, ``None`` for one the store already held — then announce what ``apply``
        returns. A store error propagates before anything is applied."""
        with self.lock:
            ids = self.store.append(entries) if entries else []
            stored = [None if i is None else with_id(e, i) for e, i in zip(entries, ids, strict=True)]
            if self.committed and any(i is not None for i in ids):
                for tell in self.committed:
                    tell()
            changes = list(apply(stored)) if apply is not None else []
            if changes and self.feed is not None:
                self.feed.changed(changes)
            return stored

    def next_id(self) -> int:
        """The id the next entry will get: this writer is its store's only one (one per
        hub), and the caller holds :attr:`lock`, so no other entry can take it first."""
        return self.store.last_id() + 1
