"""The event store contract (R1, docs/design.md §6), run against every backend: a SQLite file
and a PostgreSQL schema (``store_url``; the PostgreSQL half is marked ``postgres`` and
skipped with the reason when no server answers)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hub.facade import Hub
from hub.log.open import is_postgres_url, open_store
from hub.log.sqlite import SqliteStore
from hub.log.store import Entry, EventStore


@pytest.fixture
def store(store_url: str) -> Iterator[EventStore]:
    s = open_store(store_url)
    yield s
    s.close()


def device(board: str, boot: int, seq: int, kind: str = "drop", **fields: Any) -> Entry:
    body = {"type": kind, "board": board, "boot": boot, "seq": seq, "t_us": seq * 1000, **fields}
    return Entry.new("device", body, table_id="t1", board=board, boot=boot, seq=seq)


def raw_sql(url: str, sql: str) -> None:
    """Run ``sql`` on a connection of our own: what a person with a database shell could do."""
    if is_postgres_url(url):
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(sql)
    else:
        with sqlite3.connect(url) as conn:
            conn.execute(sql)


def db_errors() -> tuple[type[Exception], ...]:
    import psycopg

    return (sqlite3.DatabaseError, psycopg.Error)


def test_append_returns_ids_and_none_for_a_duplicate_device_event_R1(store: EventStore) -> None:
    create = Entry.new("console", {"create": {"game": "trigono"}}, table_id="t1")
    ids = store.append([create, device("B1", 1, 1), device("B1", 1, 1), device("B1", 1, 2)])
    assert ids[0] is not None and ids[1] is not None and ids[3] is not None
    assert ids[2] is None
    assert ids[0] < ids[1] < ids[3]
    assert store.append([device("B1", 1, 2), device("B1", 2, 2)])[0] is None  # later batch too
    assert [e.seq for e in store.entries() if e.seq is not None] == [1, 2, 2]
    assert store.last_id() == max(e.id or 0 for e in store.entries())


def test_entries_come_back_equal_in_id_order_per_table_and_after_an_id(store: EventStore) -> None:
    body = {"text": "Zoé à la table", "nested": {"list": [1, 2.5, None, True]}}
    first = Entry.new("console", body, table_id="t1", at=1700000000.25)
    other = Entry.new("hub", {"settle": 1}, table_id="t2", at=1700000001.0)
    loose = Entry.new("device", {"type": "health"}, board="B9", at=1700000002.0)
    ids = store.append([first, other, loose, device("B1", 1, 1)])
    got = list(store.entries())
    assert [e.id for e in got] == ids
    assert (got[0].at, got[0].source, got[0].table_id, got[0].body) == (first.at, "console", "t1", body)
    assert (got[2].board, got[2].boot, got[2].seq) == ("B9", None, None)
    assert (got[3].board, got[3].boot, got[3].seq) == ("B1", 1, 1)
    assert [e.id for e in store.entries("t1")] == [ids[0], ids[3]]
    assert [e.id for e in store.entries("t1", after=ids[0] or 0)] == [ids[3]]
    assert list(store.entries("nope")) == []


def test_a_device_events_raw_text_is_stored_verbatim(store_url: str, store: EventStore) -> None:
    raw = '{"type": "drop", "board": "B1", "boot": 1, "seq": 1, "t_us": 5, "hole": "big"}'
    entry = Entry.new("device", {"type": "drop", "board": "B1", "boot": 1, "seq": 1, "t_us": 5,
                                 "hole": "big"}, board="B1", boot=1, seq=1, raw=raw)
    store.append([entry])
    (back,) = store.entries()
    assert back.body == entry.body
    if is_postgres_url(store_url):
        import psycopg

        with psycopg.connect(store_url) as conn:
            row = conn.execute("SELECT body FROM log").fetchone()
    else:
        with sqlite3.connect(store_url) as db:
            row = db.execute("SELECT body FROM log").fetchone()
    assert row is not None and row[0] == raw


@pytest.mark.parametrize("sql", ["UPDATE log SET body = '{}'", "DELETE FROM log",
                                 "UPDATE log SET seq = seq + 1 WHERE seq = 1"])
def test_the_database_refuses_to_change_or_delete_log_rows_R1(store_url: str, store: EventStore,
                                                              sql: str) -> None:
    store.append([device("B1", 1, 1), device("B1", 1, 2)])
    with pytest.raises(db_errors(), match="append-only"):
        raw_sql(store_url, sql)
    assert [e.seq for e in store.entries()] == [1, 2]


def test_truncate_of_the_log_is_refused_too(pg_url: str) -> None:
    store = open_store(pg_url)
    try:
        store.append([device("B1", 1, 1)])
        with pytest.raises(db_errors(), match="append-only"):
            raw_sql(pg_url, "TRUNCATE log")
        assert store.last_id() == 1
    finally:
        store.close()


def test_the_database_refuses_a_second_row_for_one_device_event(store_url: str,
                                                               store: EventStore) -> None:
    store.append([device("B1", 1, 7)])
    with pytest.raises(db_errors()):
        raw_sql(store_url, "INSERT INTO log (at, source, board, boot, seq, body)"
                           " VALUES (1, 'device', 'B1', 1, 7, '{}')")
    assert len(list(store.entries())) == 1


def test_a_failing_batch_stores_nothing(store: EventStore) -> None:
    store.append([device("B1", 1, 1)])
    bad = Entry.new("console", {"not json": {1, 2}}, table_id="t1")  # a set: not encodable
    with pytest.raises(TypeError):
        store.append([device("B1", 1, 2), bad])
    assert [e.seq for e in store.entries()] == [1]
    assert store.append([device("B1", 1, 2)])[0] is not None  # the seq was not taken


def test_marks_spans_and_last_seen(store: EventStore) -> None:
    store.append([Entry.new("console", {"create": {}}, table_id="t1", at=10.0)])
    store.append([device("B1", 1, s) for s in (3, 4, 5)] + [device("B1", 2, 1), device("B2", 1, 9)])
    store.append([Entry.new("console", {"create": {}}, table_id="t2", at=11.0)])
    store.append([Entry.new("device", {"type": "health"}, board="B3", at=99.0)])
    assert store.device_marks() == {("B1", 1): (3, 5, 3), ("B1", 2): (1, 1, 1), ("B2", 1): (9, 9, 1)}
    spans = store.table_spans()
    assert [s[0] for s in spans] == ["t1", "t2"]
    assert spans[0][1] == 1 and spans[0][2] == 6 and spans[1][1] == spans[1][2] == 7
    seen = store.last_seen()
    assert set(seen) == {"B1", "B2", "B3"} and seen["B3"] == 99.0


def test_snapshots_replace_older_and_heads_carry_the_summary(store: EventStore) -> None:
    assert store.snapshot("t1") is None and store.snapshot_heads() == {}
    store.save_snapshot("t1", 5, {"table": {"n": 1}}, summary={}, final=False)
    store.save_snapshot("t1", 9, {"table": {"n": 2}}, summary={"id": "t1", "winner": "Ana"},
                        final=True)
    store.save_snapshot("t2", 3, {"table": {"n": 3}}, summary={}, final=False)
    assert store.snapshot("t1") == (9, {"table": {"n": 2}})
    assert store.snapshot_heads() == {"t1": (9, True, {"id": "t1", "winner": "Ana"}),
                                      "t2": (3, False, {})}


def test_reopening_keeps_everything_and_migrating_again_changes_nothing(store_url: str) -> None:
    first = open_store(store_url)
    ids = first.append([device("B1", 1, 1), device("B1", 1, 2)])
    first.save_snapshot("t1", 2, {"x": 1}, summary={}, final=False)
    first.close()
    again = open_store(store_url)
    try:
        assert [e.id for e in again.entries()] == ids
        assert again.snapshot("t1") == (2, {"x": 1})
        assert again.append([device("B1", 1, 2)]) == [None]
        if is_postgres_url(store_url):
            from hub.log.postgres import MIGRATIONS

            assert again.version == len(MIGRATIONS)  # type: ignore[attr-defined]
    finally:
        again.close()


def test_two_stores_opening_one_empty_postgres_schema_at_once_migrate_it_once(pg_url: str) -> None:
    stores: list[EventStore] = []
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            stores.append(open_store(pg_url))
        except BaseException as err:  # noqa: BLE001 - reported by the assert below
            errors.append(err)

    threads = [threading.Thread(target=open_one) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == [] and len(stores) == 3
        assert stores[0].append([device("B1", 1, 1)])[0] is not None
        assert stores[1].append([device("B1", 1, 1)]) == [None]
    finally:
        for s in stores:
            s.close()


def test_concurrent_writers_and_readers_lose_and_double_nothing(store: EventStore) -> None:
    def write(board: str) -> None:
        for start in range(1, 201, 20):
            store.append([device(board, 1, s) for s in range(start, start + 20)] +
                         [device(board, 1, start)])  # a resend in every batch

    def read() -> None:
        for _ in range(20):
            ids = [e.id or 0 for e in store.entries()]
            assert ids == sorted(ids)

    threads = [threading.Thread(target=write, args=(b,)) for b in ("B1", "B2", "B3")]
    threads.append(threading.Thread(target=read))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.device_marks() == {(b, 1): (1, 200, 200) for b in ("B1", "B2", "B3")}


def test_bad_postgres_url_is_a_clear_error_quickly() -> None:
    import psycopg

    with pytest.raises(psycopg.OperationalError):
        open_store("postgresql://127.0.0.1:1/nothing?connect_timeout=2")


def test_a_hub_on_either_store_restarts_to_the_same_tables_R1(store_url: str) -> None:
    hub = Hub(open_store(store_url))
    hub.create_table("trike", options={"size": 3}, seats=["Ana", "Ben"], table_id="g1", seed=1)
    hub.create_table("trike", options={"size": 3}, seats=["Cy", "Di"], table_id="g2", seed=2)
    for move in ("b1", "c1", "c2", "b2", "a1"):  # g1 ends (a dormant table after restart)
        hub.submit("g1", {"move": move})
    hub.submit("g2", {"move": "b1"})
    hub.submit("g2", {"undo": True})
    hub.submit("g2", {"move": "c1"})
    before = {t: hub.export(t) for t in ("g1", "g2")}
    assert before["g1"]["actions"] == ["b1", "c1", "c2", "b2", "a1"]
    assert before["g2"]["actions"] == ["c1"]
    hub.close()
    again = Hub(open_store(store_url))
    try:
        assert [t["id"] for t in again.list_tables()] == ["g1", "g2"]
        assert {t: again.export(t) for t in ("g1", "g2")} == before
        assert again.submit("g2", {"move": "b1"})["state"]["log"][-1]["action"] == "b1"
    finally:
        again.close()


def test_a_listener_is_woken_by_a_committed_append_of_its_own_schema_only(pg_url: str) -> None:
    from hub.log.postgres import LogListener
    from tests import pg

    store = open_store(pg_url)
    listener = LogListener(pg_url)
    try:
        assert listener.wait(0.05) is False  # connects and listens; nothing yet
        store.append([device("B1", 1, 1)])
        assert listener.wait(5.0) is True
        with pg.fresh_schema() as other_url:  # another event on the same server
            other = open_store(other_url)
            other.append([device("B1", 1, 1)])
            other.close()
        assert listener.wait(0.3) is False
    finally:
        listener.close()
        store.close()


def test_a_shared_setting_is_the_first_proposal_for_every_process(pg_url: str) -> None:
    from hub.log.postgres import PostgresStore

    first, second = PostgresStore(pg_url), PostgresStore(pg_url)
    try:
        assert first.shared_setting("web_secret", "aaa") == "aaa"
        assert second.shared_setting("web_secret", "bbb") == "aaa"
    finally:
        first.close()
        second.close()


def test_a_final_mark_keeps_the_full_snapshot_and_adds_the_summary(store: EventStore) -> None:
    store.save_final("t1", {"id": "t1", "winner": "Ana"})  # a match over before any snapshot
    assert store.snapshot("t1") is None  # nothing to load from: replay all its entries
    assert store.snapshot_heads()["t1"][1:] == (True, {"id": "t1", "winner": "Ana"})
    store.save_snapshot("t2", 200, {"table": {"n": 1}}, summary={}, final=False)
    store.save_final("t2", {"id": "t2", "winner": "Ben"})
    assert store.snapshot("t2") == (200, {"table": {"n": 1}})
    assert store.snapshot_heads()["t2"] == (200, True, {"id": "t2", "winner": "Ben"})


def test_a_postgres_url_is_never_taken_for_a_sqlite_file_name(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="open_store"):
        SqliteStore("postgresql://127.0.0.1/test")
    assert list(tmp_path.iterdir()) == []


def test_a_log_only_copy_replays_to_the_live_tables_R1(store_url: str, tmp_path: Path) -> None:
    from tests.pg import log_only_copy

    live = Hub(open_store(store_url))
    live.create_table("trike", options={"size": 3}, seats=["Ana", "Ben"], table_id="g1", seed=1)
    for move in ("b1", "c1", "c2"):
        live.submit("g1", {"move": move})
    live.close()  # snapshots written at close
    with log_only_copy(store_url, tmp_path) as copy:
        replayed, again = Hub(open_store(copy)), Hub(open_store(store_url))
        try:
            assert replayed.store.snapshot_heads() == {}
            assert [e.id for e in replayed.store.entries()] == [e.id for e in again.store.entries()]
            assert replayed.export("g1") == again.export("g1")
            assert replayed.table_view("g1")["state"] == again.table_view("g1")["state"]
        finally:
            replayed.close()
            again.close()


def test_device_hellos_give_each_boots_stored_hello(store: EventStore) -> None:
    """What a restarted hub reads to tell a reused boot id (issue 14, finding 5): the first
    stored hello of each (board, boot), the device's own text included; nothing else,
    even a body that mentions "hello"."""
    raw = '{"type": "hello", "board": "B2", "boot": 5, "seq": 1, "t_us": 77, "config": "c2"}'
    store.append([device("B1", 1, 1, "hello", config="c1"), device("B1", 1, 2, note="hello"),
                  device("B1", 3, 1, "fault", reason="hello"),
                  Entry.new("device", {"type": "health", "note": "hello"}, board="B1"),
                  Entry.new("console", {"input": {"hello": True}}, table_id="t1")])
    store.append([Entry.new("device", {}, board="B2", boot=5, seq=1, raw=raw),
                  device("B1", 2, 1, "hello", config="c1")])
    assert store.device_hellos() == {
        ("B1", 1): {"type": "hello", "board": "B1", "boot": 1, "seq": 1, "t_us": 1000, "config": "c1"},
        ("B1", 2): {"type": "hello", "board": "B1", "boot": 2, "seq": 1, "t_us": 1000, "config": "c1"},
        ("B2", 5): {"type": "hello", "board": "B2", "boot": 5, "seq": 1, "t_us": 77, "config": "c2"}}


def test_a_url_naming_a_schema_that_does_not_exist_is_a_clear_error(pg_url: str) -> None:
    from tests.pg import SERVER, with_schema

    with pytest.raises(ValueError, match="CREATE SCHEMA"):
        open_store(with_schema(SERVER, "no_such_schema_here"))
