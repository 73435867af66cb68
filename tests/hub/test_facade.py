"""The hub facade end to end (threads, a real SQLite file): the Trigono referee driven by
sensor events and console inputs into a correct match (T…, R1, R2), restart, feed.

Real hub, real SQLite file; device messages made with firmware.protocol (FakeTransport
validates them with the codec as a real link would)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from engines.records import replay
from hub.errors import (
    BadInputError,
    ConflictError,
    RefusedError,
    UnknownGameError,
    UnknownTableError,
)
from hub.facade import Hub
from hub.tables.wording import line
from tests.conftest import RECORDS
from tests.hub.boards import wait_for
from tests.hub.conftest import Rig


def two_player(rig: Rig, **kw: object) -> dict:
    return rig.hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=1,
                                options={"first": "Ana"}, **kw)  # type: ignore[arg-type]


def log_rows(rig: Rig) -> int:
    with sqlite3.connect(rig.db) as db:
        return int(db.execute("SELECT COUNT(*) FROM log").fetchone()[0])


def throws(view: dict) -> list[dict]:
    return [e["action"]["throw"] for e in view["state"]["log"] if "throw" in e["action"]]


@pytest.mark.slow  # real threads and settle windows; the rule itself: tests/hub/tables/test_referee.py
def test_drop_is_attributed_to_the_current_thrower_T5(rig: Rig) -> None:
    two_player(rig)
    rig.event("B1", "drop", hole="big")
    view = rig.settled()
    rig.hub.submit("t1", {"landed": "floor"})
    rig.event("B1", "drop", hole="small")
    view = rig.settled()
    assert throws(view) == [{"player": "Ana", "to": "B1.big"}, {"player": "Ben", "to": "floor"},
                            {"player": "Ana", "to": "B1.small"}]
    assert view["state"]["to_move"] == "Ben"


@pytest.mark.slow  # real threads and settle windows; the rule itself: tests/hub/tables/test_referee.py
def test_two_boards_worked_example_through_sensors_and_console(rig: Rig) -> None:
    record = json.loads((RECORDS / "trigono-two-boards.json").read_text())
    expect = record.pop("expect")
    rig.hub.create_table("trigono", seats=record["options"]["players"], boards=["B1", "B2"],
                         seed=record["seed"], options={k: v for k, v in record["options"].items()
                                                       if k != "players"})
    rig.board("B1", ("big", "small"))
    rig.board("B2", ("big", "small"))
    rig.event("B1", "weight", board_palets=1)          # Ana: board:B1 seen by the load cell (R2)
    rig.settled()
    rig.event("B1", "button", button="floor")          # Ben: floor, throw-line button (R2)
    rig.settled()
    rig.event("B2", "drop", hole="small")              # Chloé: into B2.small …
    rig.hub.submit("t1", {"invalid": True})            # … after a bounce on the floor (T10)
    rig.settled()
    rig.hub.submit("t1", {"answer": {"prompt": "landed-3", "choice": "board:B1"}})  # Ana
    rig.event("B1", "drop", hole="big")                # Ben: the sensors see one drop in B1.big
    view = rig.settled()
    # The referee saw Ben's palet stay on the board and knock one in (T12): amend (R1).
    rig.hub.submit("t1", {"amend": {"index": 4, "action": {"throw": {
        "player": "Ben", "to": "board:B1", "knocked": [{"from": "B1", "to": "B1.big"}]}}}})
    rig.event("B2", "drop", hole="small")              # Chloé, valid this time
    view = rig.settled()
    state = view["state"]
    for key in ("status", "round", "to_move", "hands", "boards", "floor", "holes", "phase",
                "eliminated", "throw_distance_m", "winner"):
        assert state[key] == expect[key], key
    assert [e["points"] for e in state["log"]] == expect["log_points"]
    assert rig.hub.export("t1")["actions"] == record["actions"]
    assert replay(rig.hub.export("t1")).to_json() == state


@pytest.mark.slow  # real threads and settle windows; the rule itself: tests/hub/tables/test_referee.py
def test_knock_in_during_the_settle_window_T12(rig: Rig) -> None:
    two_player(rig, referee={"settle_s": 0.4})
    rig.hub.submit("t1", {"landed": "board:B1"})
    rig.hub.submit("t1", {"landed": "board:B1"})
    rig.event("B1", "drop", hole="small")
    rig.event("B1", "drop", hole="big")
    view = rig.settled()
    assert throws(view)[-1] == {"player": "Ana", "to": "B1.small",
                                "knocked": [{"from": "B1", "to": "B1.big"}]}


@pytest.mark.slow  # real threads and settle windows; the rule itself: tests/hub/tables/test_referee.py
def test_drops_that_make_no_legal_throw_prompt_the_referee(rig: Rig) -> None:
    two_player(rig, referee={"settle_s": 0.3})
    rig.event("B1", "drop", hole="small")
    rig.event("B1", "drop", hole="big")  # nothing lay on B1: no knock-in is possible
    view = rig.settled()
    assert view["throw"]["stuck"] and view["prompts"][0]["kind"] == "fix"
    assert any(a["level"] == "error" for a in view["alerts"])
    view = rig.hub.submit("t1", {"void": view["throw"]["drops"][1]["entry"]})
    assert throws(view) == [{"player": "Ana", "to": "B1.small"}] and view["throw"] is None
    assert not view["alerts"]


def test_bounce_is_logged_not_scored_T11(rig: Rig) -> None:
    two_player(rig)
    rig.event("B1", "bounce", hole="big")
    view = rig.settled()
    assert view["state"]["log"] == [] and view["state"]["to_move"] == "Ana"
    assert "bounce-out" in line(view["events"][-1])


@pytest.mark.slow  # real threads and settle windows; the rule itself: tests/hub/tables/test_referee.py
def test_blocked_beam_is_a_drop_and_an_alert_T13(rig: Rig) -> None:
    two_player(rig)
    rig.event("B1", "blocked", hole="small")
    view = rig.settled()
    assert throws(view) == [{"player": "Ana", "to": "B1.small"}]
    assert [a["board"] for a in view["alerts"]] == ["B1"] and "T13" in line(view["alerts"][0])
    assert rig.hub.boards()[0]["blocked"] == ["small"]
    rig.event("B1", "cleared", hole="small")
    view = rig.settled()
    assert view["alerts"] == [] and rig.hub.boards()[0]["blocked"] == []


@pytest.mark.slow  # real threads and settle windows; the rule itself: tests/hub/tables/test_referee.py
def test_bounced_on_floor_answer_marks_the_drop_invalid_T10(rig: Rig) -> None:
    two_player(rig, referee={"settle_s": 1.0})
    rig.event("B1", "drop", hole="big")
    assert rig.hub.flush()
    prompt = rig.hub.table_view("t1")["prompts"][0]
    assert prompt["kind"] == "valid" and prompt["default"] == "valid"
    rig.hub.submit("t1", {"answer": {"prompt": prompt["id"], "choice": "invalid"}})
    view = rig.settled()
    assert throws(view) == [{"player": "Ana", "to": "B1.big", "invalid": True}]
    assert view["state"]["holes"]["B1.big"] == 1  # pending (T10)


def test_landed_prompt_and_stale_answers_R2(rig: Rig) -> None:
    view = two_player(rig)
    assert [p["kind"] for p in view["prompts"]] == ["landed"]
    assert view["prompts"][0]["choices"] == ["board:B1", "floor"]
    rig.hub.submit("t1", {"answer": {"prompt": "landed-0", "choice": "floor"}})
    with pytest.raises(RefusedError):
        rig.hub.submit("t1", {"answer": {"prompt": "landed-0", "choice": "floor"}})
    with pytest.raises(BadInputError):
        rig.hub.submit("t1", {"answer": {"prompt": "landed-1", "choice": "moon"}})


def test_corrections_are_new_entries_R1(rig: Rig) -> None:
    two_player(rig)
    rig.event("B1", "drop", hole="big")
    view = rig.settled()
    drop_entry = [e for e in view["events"] if "drop" in line(e)][0]["id"]
    before = log_rows(rig)
    view = rig.hub.submit("t1", {"void": drop_entry})
    assert view["state"]["log"] == [] and log_rows(rig) == before + 1
    rig.hub.submit("t1", {"landed": "floor"})
    view = rig.hub.submit("t1", {"undo": True})
    assert view["state"]["log"] == [] and log_rows(rig) == before + 3
    with sqlite3.connect(rig.db) as db, pytest.raises(sqlite3.DatabaseError):
        db.execute("DELETE FROM log")


def test_refused_inputs_are_typed_and_change_nothing(rig: Rig) -> None:
    two_player(rig)
    before, view = log_rows(rig), rig.hub.table_view("t1")
    for inp, err in [({"undo": True}, RefusedError), ({"landed": "B9.big"}, RefusedError),
                     ({"fly": 1}, BadInputError), ({"landed": 3}, BadInputError),
                     ({"landed": "floor", "player": "Ben"}, RefusedError),
                     ({"next_round": True}, RefusedError), ({"hint": True}, RefusedError),
                     ({"recount": {"board": "B7", "count": 1}}, BadInputError)]:
        with pytest.raises(err):
            rig.hub.submit("t1", inp)
    with pytest.raises(UnknownTableError):
        rig.hub.submit("t9", {"undo": True})
    with pytest.raises(UnknownGameError):
        rig.hub.create_table("chess")
    with pytest.raises(ConflictError):
        rig.hub.create_table("trigono", boards=["B1"])
    with pytest.raises(BadInputError):
        rig.hub.create_table("trigono", boards=[{"board": "B2", "holes": {"big": "B9.big"}}])
    assert log_rows(rig) == before
    assert rig.hub.table_view("t1")["state"] == view["state"]


def test_recount_mismatch_raises_an_alert_R1(rig: Rig) -> None:
    two_player(rig)
    rig.hub.submit("t1", {"landed": "board:B1"})
    view = rig.hub.submit("t1", {"recount": {"board": "B1", "count": 2}})
    assert "recount" in line(view["alerts"][0])
    view = rig.hub.submit("t1", {"recount": {"board": "B1", "count": 1}})
    assert view["alerts"] == []


def test_round_end_disarms_sensors_until_next_round_T14(rig: Rig) -> None:
    rig.hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=1,
                         options={"first": "Ana", "palets_per_player": 2})
    for _ in range(4):  # Ana throws both; Ben's last chance (T14) misses too: a draw
        rig.hub.submit("t1", {"landed": "floor"})
    view = rig.hub.table_view("t1")
    assert view["state"]["round"] == 2 and not view["armed"]
    assert view["prompts"][0]["kind"] == "next_round"
    rig.event("B1", "drop", hole="big")  # a palet picked out of the hole
    view = rig.settled()
    assert len(view["state"]["log"]) == 4 and "between rounds" in line(view["events"][-1])
    view = rig.hub.submit("t1", {"next_round": True})
    assert view["armed"] and view["prompts"][0]["kind"] == "landed"


def test_restart_rebuilds_the_same_tables_from_the_log_and_snapshots(
        rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hub.tables.tableset.SNAPSHOT_EVERY", 5)
    two_player(rig)
    for k in range(6):
        rig.event("B1", "bounce", hole="big")
        rig.hub.submit("t1", {"landed": "floor" if k % 2 else "board:B1"})
    rig.event("B1", "drop", hole="small")
    view = rig.settled()
    rig.hub.close()
    again = Hub(rig.db)
    try:
        restarted = again.table_view("t1")
        assert restarted["state"] == view["state"] and restarted["events"] == view["events"]
        assert again.boards()[0]["board"] == "B1"
    finally:
        again.close()
    with sqlite3.connect(rig.db) as db:
        assert db.execute("SELECT COUNT(*) FROM snapshot").fetchone()[0] == 1
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_every_prompt_and_answer_shows_in_the_view_and_the_feed(rig: Rig) -> None:
    start = rig.hub.last_change_id()
    two_player(rig)
    view = rig.hub.submit("t1", {"answer": {"prompt": "landed-0", "choice": "floor"}})
    assert any("answer" in line(e) for e in view["events"])
    changes = rig.hub.changes_since(start, 1.0)
    assert {"kind": "tables"} in [{k: v for k, v in c.items() if k != "id"} for c in changes]
    ids = [c["id"] for c in changes]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert rig.hub.changes_since(ids[-1], 0.05) == []
    assert rig.hub.changes_since(0, 0)[0]["kind"] == "reset"


def test_finished_match_restarts_dormant_and_loads_when_opened_T18(rig: Rig) -> None:
    rig.hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=1,
                         options={"first": "Ana", "palets_per_player": 2, "rounds_to_win": 1})
    for where in ("floor", "B1.small", "floor"):  # Ben holds 3 when Ana is out: he wins (T14)
        rig.hub.submit("t1", {"landed": where})
    assert rig.hub.game_over("t1")
    rig.hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=2)  # next match
    view = rig.hub.table_view("t1")
    assert view["status"] == "match_over" and view["winner"] == "Ben"
    rig.hub.close()
    again = Hub(rig.db)
    try:
        assert [t["id"] for t in again.list_tables()] == ["t1", "t2"]
        assert again.tables.is_dormant("t1") and again.list_tables()[1]["boards"] == ["B1"]
        assert again.table_view("t1")["state"] == view["state"]
        assert again.export("t1")["actions"] == [a["action"] for a in view["state"]["log"]]
    finally:
        again.close()


def test_the_hub_sends_a_selftest_to_the_boards_once_a_throw_is_scored(rig: Rig) -> None:
    two_player(rig)
    rig.event("B1", "drop", hole="big")
    rig.settled()
    assert wait_for(lambda: {"type": "cmd", "boot": 0, "cmd": "selftest"} in
                    [m for b, m in rig.link.sent if b == "B1"])


def test_submit_answers_the_audience_view_when_asked(rig: Rig) -> None:
    """The web console's answer (Hub.submit(..., public=True)) is what public_view gives:
    no seed, no hint — for a move and for a hint request alike."""
    rig.hub.create_table("triominos", seats=["Ana", "Ben"], seed=5, table_id="g1")
    player = rig.hub.table_view("g1")["state"]["to_move"]
    move = rig.hub.legal_actions("g1", player)[0]
    answered = rig.hub.submit("g1", {"move": move, "player": player}, public=True)
    assert answered == rig.hub.public_view("g1")
    assert "seed" not in answered and "hint" not in answered
    assert "seed" in rig.hub.submit("g1", {"undo": True})  # the referee's view by default
    hinted = rig.hub.submit("g1", {"hint": True, "player": player}, public=True)
    assert hinted == rig.hub.public_view("g1") and "seed" not in hinted and "hint" not in hinted
