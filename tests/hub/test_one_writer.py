"""One way into the log (issue 31.1): a hub has one :class:`LogWriter`, and a tournament
entry goes through it like a table's — stored, then applied, then announced by the
writer, under the hub's lock. A SIGKILL between the commit of a tournament entry and its
application leaves, after a restart, the tournament a hub that was not killed built."""

from __future__ import annotations

import gc
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from hub.errors import HubError
from hub.facade import Hub
from hub.log.writer import LogWriter

ROOT = Path(__file__).resolve().parents[2]

# Played by the killed process and by the reference hub alike: a four-player bracket,
# then the first ready match's result (the entry the child dies committing).
PLAY = textwrap.dedent("""
    def play(hub):
        service = hub.tournaments
        service.create({"name": "Kill", "game": "trike", "format": "elimination", "check_in": False,
                        "options": {"size": 3}, "seed": 3}, tournament_id="K")
        for name in ("Ana", "Ben", "Chloe", "Dan"):
            service.submit("K", {"type": "register", "player": {"name": name}})
        view = service.submit("K", {"type": "start"})
        m = next(m for m in view["matches"] if m["status"] == "ready")
        print("result", flush=True)
        return service.submit("K", {"type": "result", "match": m["id"], "ranking": m["players"][::-1]})
""")

# The store commits the result, then the process kills itself: the hub never applies it.
CHILD = PLAY + textwrap.dedent("""
    import os, signal, sys
    from hub.facade import Hub
    from hub.log.sqlite import SqliteStore

    class DiesAfterCommittingAResult(SqliteStore):
        def append(self, entries):
            ids = super().append(entries)
            if any(e.source == "tournament" and e.body["entry"]["type"] == "result" for e in entries):
                os.kill(os.getpid(), signal.SIGKILL)
            return ids

    play(Hub(DiesAfterCommittingAResult(sys.argv[1])))
    print("survived", flush=True)
""")


def without_time(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k != "created_at"}


def test_a_sigkill_between_store_and_apply_leaves_the_same_tournament(tmp_path: Path) -> None:
    killed = tmp_path / "killed.db"
    proc = subprocess.run([sys.executable, "-c", CHILD, str(killed)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert proc.stdout.split() == ["result"]  # died in the result's commit, not before
    reference = Hub(tmp_path / "reference.db")
    namespace: dict[str, Any] = {}
    exec(PLAY, namespace)  # noqa: S102 - the very script the child ran
    expected = namespace["play"](reference)
    expected_entries = reference.tournaments.export("K")["entries"]
    reference.close()
    restarted = Hub(killed)
    try:
        view = restarted.tournaments.view("K")
        assert any(m["status"] == "done" and not m["bye"] for m in view["matches"])  # the result is there
        assert without_time(view) == without_time(expected)
        assert restarted.tournaments.export("K")["entries"] == expected_entries
    finally:
        restarted.close()


def test_a_hub_has_one_log_writer_for_tables_devices_and_tournaments() -> None:
    hub = Hub(":memory:")
    try:
        hub.create_table("trike", options={"size": 3}, seats=["Ana", "Ben"], table_id="t1")
        hub.tournaments.create({"name": "One", "game": "trike", "format": "elimination"}, tournament_id="T")
        gc.collect()
        writers = [o for o in gc.get_objects() if isinstance(o, LogWriter) and o.store is hub.store]
        assert writers == [hub.writer]
        assert hub.tables.writer is hub.ingest_loop.writer is hub.tournaments.writer is hub.writer
        assert hub.writer.lock is hub._lock  # the lock every door takes
    finally:
        hub.close()


def test_a_tournament_entry_is_stored_then_applied_then_announced_by_the_writer(tmp_path: Path) -> None:
    db = tmp_path / "hub.db"
    hub = Hub(db)
    try:
        service = hub.tournaments
        service.create({"name": "Club", "game": "trike", "format": "elimination"}, tournament_id="T")
        last = hub.last_change_id()
        service.submit("T", {"type": "register", "player": {"name": "Ana"}})
        changes = hub.changes_since(last, 0)
        assert [(c["kind"], c["tournament"], c["entries"]) for c in changes] == [("tournament", "T", 2)]
        stored = list(hub.store.entries(after=hub.store.last_id() - 1))
        assert [(e.source, e.body["entry"]["type"]) for e in stored] == [("tournament", "register")]

        # Refused: nothing stored, nothing changed, nothing announced.
        before, last = hub.store.last_id(), hub.last_change_id()
        with pytest.raises(HubError):
            service.submit("T", {"type": "register", "player": {"name": "Ana"}})  # the name is taken
        # The store refuses (a real SQLite abort): nothing applied, nothing announced.
        with sqlite3.connect(db) as raw:
            raw.execute("""CREATE TRIGGER poison BEFORE INSERT ON log WHEN NEW.body LIKE '%poison%'
                           BEGIN SELECT RAISE(ABORT, 'poisoned'); END""")
        with pytest.raises(sqlite3.DatabaseError, match="poisoned"):
            service.submit("T", {"type": "register", "player": {"name": "poison"}})
        assert hub.store.last_id() == before and hub.changes_since(last, 0) == []
        assert [p["name"] for p in service.view("T")["players"]] == ["Ana"]
        service.submit("T", {"type": "register", "player": {"name": "Ben"}})  # the next one goes in
        assert [p["name"] for p in service.view("T")["players"]] == ["Ana", "Ben"]
    finally:
        hub.close()


def test_a_console_input_is_folded_with_the_id_the_store_gave(tmp_path: Path) -> None:
    """The copy that checks an input guesses no id: the table records the stored one,
    even when other tables' entries came in between."""
    hub = Hub(tmp_path / "hub.db")
    try:
        for table_id in ("t1", "t2"):
            hub.create_table("trike", options={"size": 3}, seats=["Ana", "Ben"], table_id=table_id)
        hub.tournaments.create({"name": "Gap", "game": "trike", "format": "elimination"}, tournament_id="T")
        player = hub.table_view("t1")["to_move"]
        hub.submit("t1", {"move": hub.legal_actions("t1", player)[0], "player": player})
        last = hub.store.last_id()
        assert last > 3  # t1's entries are 1 and 4: its next id is not applied_through + 1
        assert hub.tables["t1"].actions[-1]["src"] == [last]
        assert hub.tables["t1"].applied_through == last
    finally:
        hub.close()
