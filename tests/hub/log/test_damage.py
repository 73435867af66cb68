"""Issue 32.4: damaged records in the event store.

A flipped bit in a stored snapshot was served silently (a stone that was never played);
one bad byte in a stored entry stopped the hub with a 38-line traceback and no way
forward. Now each entry and snapshot carries a checksum: a damaged snapshot is ignored
and the table rebuilt from the log; a damaged entry stops the start with one line naming
it and the repair commands, ``trigono store check`` names it (exit 1, nothing changed) and
``trigono store repair`` sets it aside, after which the hub starts. On a SQLite file (a
bit flipped in the file itself) and on PostgreSQL (changed with SQL, the log's trigger
lifted, as someone with a database shell could).
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hub.cli.main import main
from hub.facade import Hub
from hub.log.open import is_postgres_url, open_store
from hub.log.store import SET_ASIDE_TABLE, Entry
from tests.hub.log.test_store import raw_sql

ROOT = Path(__file__).resolve().parents[3]
OLD_LOG = ROOT / "tests" / "hub" / "old_log" / "a91af19.sql"


def played(db: str) -> dict[str, Any]:
    """A Trike table with three moves (snapshotted when the hub closes); its state."""
    hub = Hub(open_store(db))
    try:
        hub.create_table("trike", options={"size": 3}, seats=["Ana", "Ben"], seed=1, table_id="t1")
        for move in ("b1", "c1", "c2"):
            hub.submit("t1", {"move": move})
        state: dict[str, Any] = hub.table_view("t1")["state"]
        return state
    finally:
        hub.close()


def flip_bit(db: str, table: str, column: str, where: str, old: str, new: str) -> None:
    """Turn ``old`` into ``new`` (one bit apart) in one stored value. SQLite: in the file's
    bytes, as a failing disk would; PostgreSQL: with SQL (the log's trigger lifted)."""
    assert sum(a != b for a, b in zip(old.encode(), new.encode(), strict=True)) == 1
    if is_postgres_url(db):
        raw_sql(db, "ALTER TABLE log DISABLE TRIGGER log_append_only_rows;"
                    f" UPDATE {table} SET {column} = replace({column}, '{old}', '{new}') WHERE {where};"
                    " ALTER TABLE log ENABLE TRIGGER log_append_only_rows")
        return
    with sqlite3.connect(db) as conn:  # everything in the main file, none in the WAL
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = Path(db).read_bytes()
    assert data.count(old.encode()) == 1, data.count(old.encode())
    Path(db).write_bytes(data.replace(old.encode(), new.encode()))


def test_a_flipped_bit_in_a_snapshot_is_not_served_the_table_is_rebuilt(store_url: str) -> None:
    state = played(store_url)
    flip_bit(store_url, "snapshot", "data", "table_id = 't1'",
             '"white":["c1"]', '"white":["c3"]')  # '1' 0x31 -> '3' 0x33
    store = open_store(store_url)
    hub = Hub(store)
    try:
        assert hub.table_view("t1")["state"] == state  # not a stone on c3 nobody played
        assert store.damaged_snapshots == 1
    finally:
        hub.close()
    store = open_store(store_url)  # rebuilt: the snapshot saved at close is sound
    try:
        assert store.snapshot("t1") is not None and store.damaged_snapshots == 0
    finally:
        store.close()


def hub_start(db: str) -> subprocess.CompletedProcess[str]:
    """``trigono hub --db`` until it says it is ready (then stopped) or it exits."""
    proc = subprocess.Popen([sys.executable, "-m", "hub", "hub", "--db", db], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if line:
        proc.terminate()
    out, err = proc.communicate(timeout=30)
    return subprocess.CompletedProcess(proc.args, proc.returncode, line + out, err)


def test_a_damaged_entry_stops_the_start_in_one_line_check_names_it_repair_sets_it_aside(
        store_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    before = played(store_url)
    store = open_store(store_url)  # a move stored, then the hub died before its snapshot
    [late] = store.append([Entry.new("console", {"input": {"move": "b2"}}, table_id="t1")])
    store.close()
    flip_bit(store_url, "log", "body", f"id = {late}", '{"input":{"move":"b2"}}',
             '{"input":{"move":"c2"}}')

    started = hub_start(store_url)
    assert started.returncode == 2, started
    assert len(started.stderr.splitlines()) == 1, started.stderr
    assert f"entry {late} (table t1)" in started.stderr and "checksum" in started.stderr
    assert "trigono store check" in started.stderr and "trigono store repair" in started.stderr

    capsys.readouterr()
    assert main(["export", "t1", "--db", store_url]) == 2  # the same line, no traceback
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and f"entry {late} (table t1)" in err, err
    assert main(["store", "check", "--db", store_url]) == 1
    out = capsys.readouterr().out
    assert f"entry {late} (table t1): its checksum does not match" in out
    assert "damaged entries: 1 of 5; damaged snapshots: 0 of 1" in out
    assert main(["store", "check", "--db", store_url]) == 1  # check changed nothing

    assert main(["store", "repair", "--db", store_url]) == 0
    out = capsys.readouterr().out
    assert f"set aside entry {late} (table t1)" in out
    assert f"kept 4 entries of 5; 1 set aside in the table {SET_ASIDE_TABLE}" in out
    assert main(["store", "check", "--db", store_url]) == 0

    hub = Hub(open_store(store_url))  # starts: the table as before the damaged move
    try:
        assert hub.table_view("t1")["state"] == before
        assert [e.id for e in hub.store.entries()] == [1, 2, 3, 4]
    finally:
        hub.close()
    if not is_postgres_url(store_url):
        with sqlite3.connect(store_url) as conn:
            rows = conn.execute(f"SELECT id, body FROM {SET_ASIDE_TABLE}").fetchall()
        conn.close()
        assert rows == [(late, b'{"input":{"move":"c2"}}')]  # its bytes, as found


def test_a_byte_that_is_no_longer_utf8_is_named_too(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "hub.db")
    played(db)
    data = Path(db).read_bytes()
    body = b'{"input":{"move":"c1"}}'
    Path(db).write_bytes(data.replace(body, body.replace(b"c1", b"\xe31")))
    assert main(["store", "check", "--db", db]) == 1
    assert "entry 3 (table t1): its checksum does not match" in capsys.readouterr().out


def test_a_store_written_before_checksums_checks_clean_and_repair_refuses_a_running_hub(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as conn:
        conn.executescript(OLD_LOG.read_text())
    conn.close()
    assert main(["store", "check", "--db", str(db)]) == 0
    assert "damaged entries: 0 of" in capsys.readouterr().out
    running = subprocess.Popen([sys.executable, "-m", "hub", "hub", "--db", str(db)], cwd=ROOT,
                               stdout=subprocess.PIPE, text=True)
    try:
        assert running.stdout is not None and '"ready"' in running.stdout.readline()
        assert main(["store", "check", "--db", str(db)]) == 0  # beside a running hub: reads only
        repair = subprocess.run([sys.executable, "-m", "hub", "store", "repair", "--db", str(db)],
                                cwd=ROOT, capture_output=True, text=True)
        assert repair.returncode == 2 and f"another hub (pid {running.pid})" in repair.stderr
    finally:
        running.terminate()
        running.communicate(timeout=30)
    assert main(["store", "check", "--db", str(tmp_path / "typo.db")]) == 2
    assert not (tmp_path / "typo.db").exists()
