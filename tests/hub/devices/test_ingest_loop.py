"""The ingest loop (hub/devices/ingest_loop.py): a batch of device messages is stored in
one commit, applied, then acknowledged; when the store refuses one message, only that
message fails — the rest of its batch is stored, applied and acknowledged, and the
refused one is neither acknowledged (its board keeps and resends it) nor applied.

The refusal is SQLite's own (a trigger), not a mock."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from firmware import protocol
from tests.hub.boards import wait_for
from tests.hub.conftest import Rig
from tests.hub.log.test_writer import poison


def test_a_message_the_store_refuses_fails_alone(tmp_path: Path) -> None:
    db = tmp_path / "hub.db"
    rig = Rig(db)
    try:
        rig.hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1")
        poison(db)
        b1 = rig.board("B1")  # seq 1: hello
        ok = b1.make("bounce", hole="big")  # seq 2
        bad = b1.make("fault", reason="poison")  # seq 3: SQLite aborts its insert
        after = b1.make("bounce", hole="small")  # seq 4: held behind the gap seq 3 leaves
        for msg in (ok, bad, after):
            rig.send(msg)
        assert rig.hub.flush()
        stored = [e.seq for e in rig.hub.store.entries() if e.board == "B1"]
        assert stored == [1, 2]
        health = next(h for h in rig.hub.boards() if h["board"] == "B1")
        assert any(a.get("kind") == "unstorable" for a in health["alerts"])
        # acknowledged through seq 2 only: the board keeps seq 3 (and 4, held by the gap)
        assert wait_for(lambda: protocol.ack(b1.boot, 2) in rig.link.acks("B1"))
        assert protocol.ack(b1.boot, 3) not in rig.link.acks("B1")
        assert protocol.ack(b1.boot, 4) not in rig.link.acks("B1")
        with sqlite3.connect(db) as raw:  # the disk takes it again; the board resends
            raw.execute("DROP TRIGGER poison")
        rig.send(bad)
        assert rig.hub.flush()
        assert [e.seq for e in rig.hub.store.entries() if e.board == "B1"] == [1, 2, 3, 4]
        assert wait_for(lambda: protocol.ack(b1.boot, 4) in rig.link.acks("B1"))
    finally:
        rig.close()


def test_a_throw_asks_its_board_for_a_selftest_after_the_ack_of_the_drop(rig: Rig) -> None:
    """After each scored throw the table asks its board for a selftest (a dead beam is
    found before the next throw); the command goes out after the ack of the drop that
    led to it, never before (hub/devices/ingest_loop.py, IngestLoop.command)."""
    rig.hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1")
    b1 = rig.board("B1")
    for _ in range(2):
        rig.send(b1.make("drop", hole="big"))
        rig.settled()
    sent = [m for board, m in rig.link.sent if board == "B1"]
    selftests = [i for i, m in enumerate(sent) if m.get("type") == "cmd" and m.get("cmd") == "selftest"]
    assert selftests, sent
    assert sent[: selftests[0]] and sent[0]["type"] == "ack"
