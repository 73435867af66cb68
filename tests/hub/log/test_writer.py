"""The one door into the log (issue 23): :class:`hub.log.writer.LogWriter` stores first,
applies what was stored, and announces what the apply step reports."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hub.log.changes import ChangeFeed
from hub.log.sqlite import SqliteStore
from hub.log.store import Entry
from hub.log.writer import LogWriter


def poison(db: Path) -> None:
    """A real SQLite refusal: a trigger aborts every insert whose body says "poison"."""
    with sqlite3.connect(db) as raw:
        raw.execute("""CREATE TRIGGER poison BEFORE INSERT ON log WHEN NEW.body LIKE '%poison%'
                       BEGIN SELECT RAISE(ABORT, 'poisoned'); END""")


def test_entries_are_stored_then_applied_with_their_ids_then_announced(tmp_path: Path) -> None:
    feed = ChangeFeed(base=0)
    writer = LogWriter(SqliteStore(tmp_path / "log.db"), feed)
    seen: list[tuple[int | None, int]] = []

    def apply(stored: list[Entry | None]) -> list[dict[str, str]]:
        assert writer.store.last_id() == 2  # committed before anything is applied
        seen.extend((e.id, e.body["n"]) for e in stored if e is not None)
        return [{"kind": "table", "table": "t1"}, {"kind": "table", "table": "t1"}]

    writer.write([Entry.new("console", {"n": 1}, table_id="t1"),
                  Entry.new("console", {"n": 2}, table_id="t1")], apply)
    assert seen == [(1, 1), (2, 2)]
    assert [(c["kind"], c["table"]) for c in feed.since(0, 0)] == [("table", "t1")]


def test_a_device_event_the_store_already_holds_comes_back_as_none(tmp_path: Path) -> None:
    writer = LogWriter(SqliteStore(tmp_path / "log.db"), None)
    drop = Entry.new("device", {"type": "drop"}, board="B1", boot=1, seq=1)
    assert [e and e.id for e in writer.write([drop])] == [1]
    got: list[Entry | None] = []
    writer.write([drop], lambda stored: got.extend(stored) or [])
    assert got == [None] and writer.store.last_id() == 1


def test_nothing_is_applied_or_announced_when_the_store_refuses(tmp_path: Path) -> None:
    db = tmp_path / "log.db"
    store = SqliteStore(db)
    poison(db)
    feed = ChangeFeed(base=0)
    writer = LogWriter(store, feed)
    applied: list[object] = []
    with pytest.raises(sqlite3.DatabaseError, match="poisoned"):
        writer.write([Entry.new("console", {"n": 1}), Entry.new("console", {"n": "poison"})],
                     lambda stored: applied.extend(stored) or [{"kind": "tables"}])
    assert applied == [] and feed.since(0, 0) == [] and store.last_id() == 0  # all or none
