"""The hub's tables across restarts (hub/tables/tableset.py): snapshots bound the replay, a
finished table sleeps until it is opened, and a restart rebuilds the same tables (R1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hub.errors import BadInputError, UnknownTableError
from hub.log.sqlite import SqliteStore
from hub.log.store import Entry
from hub.log.writer import LogWriter
from hub.tables import tableset
from hub.tables.spec import TableSpec
from hub.tables.tableset import TableSet


def create(tables: TableSet, table_id: str, **options: object) -> None:
    spec = TableSpec.build("trigono", seats=["Ana", "Ben"], seed=1,
                           boards=[{"board": f"{table_id}B1", "as": "B1"}],
                           options={"first": "Ana", **options})
    tables.create(table_id, spec.entry_body(1, 1.0), 100.0 + len(tables))


def land(tables: TableSet, table_id: str, where: str) -> None:
    table = tables[table_id]
    entry = Entry.new("console", {"input": {"landed": where}}, table_id=table_id, at=101.0)
    (entry_id,) = tables.store.append([entry])
    assert entry_id is not None
    table.apply_entry(Entry(entry_id, entry.at, entry.source, table_id, entry.body))
    tables.applied(table)


def test_a_restart_rebuilds_tables_from_snapshot_and_later_entries(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tableset, "SNAPSHOT_EVERY", 3)
    tables = TableSet(LogWriter(SqliteStore(tmp_path / "hub.db"), None))
    create(tables, "t1")
    for where in ("floor", "board:B1", "floor", "floor"):
        land(tables, "t1", where)
    view = tables["t1"].view()
    assert tables.store.snapshot("t1") is None  # due, but the hub was never idle
    assert tables.snapshot_due() == 1 and tables.store.snapshot("t1") is not None
    assert tables.snapshot_due() == 0
    tables.store.close()
    again = TableSet(LogWriter(SqliteStore(tmp_path / "hub.db"), None))
    assert again.restore() == {"t1B1": "t1"}
    assert again["t1"].view() == view
    with pytest.raises(UnknownTableError):
        again["t9"]


def test_a_finished_table_restarts_dormant_and_loads_when_opened_T18(tmp_path: Path) -> None:
    tables = TableSet(LogWriter(SqliteStore(tmp_path / "hub.db"), None))
    create(tables, "t1", palets_per_player=2, rounds_to_win=1)
    for where in ("floor", "B1.small", "floor"):  # Ben wins (T14): a final snapshot
        land(tables, "t1", where)
    create(tables, "t2")
    assert tables.is_over("t1") and not tables.is_over("t2")
    view = tables["t1"].view()
    tables.snapshot_changed()
    tables.store.close()
    again = TableSet(LogWriter(SqliteStore(tmp_path / "hub.db"), None))
    again.restore()
    assert again.is_dormant("t1") and again.is_over("t1") and len(again) == 2
    assert [s["id"] for s in again.summaries()] == ["t1", "t2"]
    assert [s["winner"] for s in again.summaries()] == ["Ben", None]
    assert again["t1"].view() == view and not again.is_dormant("t1")
    assert again.next_id() == "t3"


def test_a_create_the_engine_refuses_stores_nothing(tmp_path: Path) -> None:
    tables = TableSet(LogWriter(SqliteStore(tmp_path / "hub.db"), None))
    spec = TableSpec.build("trigono", seats=[f"P{k}" for k in range(9)], boards=["B1"])
    with pytest.raises(BadInputError):  # T3: at most 4 players per board
        tables.create("t1", spec.entry_body(1, 1.0), 100.0)
    assert tables.store.last_id() == 0 and "t1" not in tables


def test_a_busy_table_is_snapshotted_at_once_past_the_cap(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tableset, "SNAPSHOT_EVERY", 2)
    monkeypatch.setattr(tableset, "SNAPSHOT_CAP", 4)
    tables = TableSet(LogWriter(SqliteStore(tmp_path / "hub.db"), None))
    create(tables, "t1")
    for where in ("floor", "floor", "floor"):
        land(tables, "t1", where)
    assert tables.store.snapshot("t1") is None
    land(tables, "t1", "floor")
    snap = tables.store.snapshot("t1")
    assert snap is not None and snap[0] == tables["t1"].applied_through
    assert tables.snapshot_due() == 0  # the one due was taken with it
