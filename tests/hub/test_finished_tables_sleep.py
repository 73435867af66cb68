"""Finished tables leave memory and come back on demand (issue 32.7: 85 → 270 MB over a
festival day of 739 matches, given back only at restart).

A real hub in process on a real SQLite file plays many short Trigono matches one after
the other on one board (each as a referee plays it: the palets' landings entered on the
console). The tables held in memory stay bounded (:data:`hub.tables.tableset.KEEP_FINISHED`
finished ones plus the one in play), and an old finished table opened again through the
hub's API reads exactly as it did when it ended — also after a board bound to it
sent one more event while it slept (applied once: as a hub replaying the log reads it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hub.facade import Hub
from hub.tables.tableset import KEEP_FINISHED
from tests.hub.conftest import Rig
from tests.pg import log_only_copy

MATCHES = 3 * KEEP_FINISHED


def play_match(rig: Rig, board: str) -> str:
    """One short match on ``board``: Ben holds 3 when Ana is out, he wins (T14)."""
    table_id = str(rig.hub.create_table(
        "trigono", seats=["Ana", "Ben"], boards=[board], seed=len(rig.hub.list_tables()) + 1,
        options={"first": "Ana", "palets_per_player": 2, "rounds_to_win": 1})["id"])
    for where in ("floor", f"{board}.small", "floor"):
        rig.hub.submit(table_id, {"landed": where})
    assert rig.hub.game_over(table_id)
    return table_id


def readings(hub: Hub, table_id: str) -> dict[str, Any]:
    """What the pages and the API read of a table; ``change_id`` is the feed's, not the
    table's (it moves on with every other table)."""
    view = {k: v for k, v in hub.table_view(table_id).items() if k != "change_id"}
    public = {k: v for k, v in hub.public_view(table_id).items() if k != "change_id"}
    return {"view": view, "public": public, "export": hub.export(table_id),
            "summary": next(s for s in hub.list_tables() if s["id"] == table_id)}


def test_finished_tables_leave_memory_and_come_back_identical(rig: Rig, tmp_path: Path) -> None:
    rig.board("B1")
    rig.board("B2")
    assert rig.hub.flush()  # the boards' hellos are in before the match: not applied after it ended
    first = play_match(rig, "B2")  # the only match on B2: it stays bound to it
    assert rig.hub.flush()
    ended = readings(rig.hub, first)
    held = []
    for _ in range(MATCHES):
        play_match(rig, "B1")
        held.append(sum(1 for _ in rig.hub.tables.loaded()))
    assert max(held) <= KEEP_FINISHED + 1, f"tables held in memory: {held}"
    assert rig.hub.tables.is_dormant(first)
    assert len(rig.hub.list_tables()) == MATCHES + 1

    assert readings(rig.hub, first) == ended  # woken from the store: identical

    # Back to sleep, then a board's late event wakes it: the event is applied once.
    for _ in range(KEEP_FINISHED + 1):
        play_match(rig, "B1")
    assert rig.hub.tables.is_dormant(first)
    rig.event("B2", "bounce", hole="big")
    woken = readings(rig.hub, first)
    assert woken["view"]["events"] != ended["view"]["events"], "the late event is on the table"
    rig.close()
    with log_only_copy(str(rig.db), tmp_path) as replayed:  # no snapshot: each entry folded once
        again = Hub(replayed)
        try:
            assert readings(again, first)["view"]["events"] == woken["view"]["events"]
        finally:
            again.close()


def test_a_read_only_hub_lets_finished_tables_sleep_too(rig: Rig) -> None:
    """A read-only web process follows the same day (hub/replica.py): its finished tables
    sleep as the hub's do, and one opened again reads as on the hub."""
    from hub.replica import ReadOnlyHub

    reader = ReadOnlyHub(str(rig.db))
    try:
        rig.board("B1")
        first = play_match(rig, "B1")
        held = []
        for _ in range(MATCHES):
            play_match(rig, "B1")
            reader.catch_up()
            held.append(sum(1 for _ in reader.tables.loaded()))
        assert max(held) <= KEEP_FINISHED + 1, f"tables held by the reader: {held}"
        assert reader.tables.is_dormant(first)
        assert reader.table_view(first)["state"] == rig.hub.table_view(first)["state"]
        assert reader.export(first) == rig.hub.export(first)
    finally:
        reader.close()
