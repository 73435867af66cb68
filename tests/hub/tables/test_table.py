"""Tables of any registered engine, with human and bot seats — no hub code per game."""

from __future__ import annotations

import threading

import pytest

from engines.records import replay
from hub.errors import BadInputError, ConflictError, RefusedError, UnknownTableError
from hub.facade import PUBLIC_EVENTS, Hub
from hub.tables.table import game_bot
from tests.hub.boards import wait_for
from tests.hub.conftest import Rig


def test_trike_table_plays_moves_undo_and_exports_a_replayable_record(rig: Rig) -> None:
    view = rig.hub.create_table("trike", options={"size": 3}, seats=["Ana", "Ben"], seed=1)
    assert view["players"] == ["Ana", "Ben"] and view["to_move"] == "Ana"
    assert view["layout"] == [] and view["prompts"] == []
    rig.hub.submit("t1", {"move": "b1", "player": "Ana"})
    with pytest.raises(RefusedError):
        rig.hub.submit("t1", {"move": "c1", "player": "Ana"})  # not Ana's turn
    with pytest.raises(RefusedError):
        rig.hub.submit("t1", {"move": "z9"})
    for move in ("c1", "c2", "b2"):
        rig.hub.submit("t1", {"move": move})
    view = rig.hub.submit("t1", {"undo": True})
    assert [e["action"] for e in view["state"]["log"]] == ["b1", "c1", "c2"]
    view = rig.hub.submit("t1", {"move": "b2"})
    view = rig.hub.submit("t1", {"move": "a1"})
    assert view["status"] == "over"
    record = rig.hub.export("t1")
    assert record["actions"] == ["b1", "c1", "c2", "b2", "a1"]
    assert replay(record).to_json() == view["state"]


def test_sensor_events_for_a_board_game_table_are_refused_at_creation(rig: Rig) -> None:
    with pytest.raises(BadInputError):
        rig.hub.create_table("trike", boards=["B1"])


def test_default_seats_come_from_the_engine(rig: Rig) -> None:
    view = rig.hub.create_table("trike", options={"size": 3})
    assert [s["name"] for s in view["seats"]] == ["black", "white"]


@pytest.mark.skipif(game_bot("trike") is None, reason="the Trike bot is not there")
def test_bot_seat_moves_by_itself_and_hints_are_given(rig: Rig) -> None:
    rig.hub.create_table("trike", options={"size": 4},
                         seats=[{"name": "Ana"}, {"name": "Robot", "bot": True}], seed=2)
    view = rig.hub.submit("t1", {"hint": True})
    assert set(view["hint"]) >= {"action", "why"}
    rig.hub.submit("t1", {"move": view["hint"]["action"]})
    assert wait_for(lambda: len(rig.hub.table_view("t1")["state"]["log"]) == 2, timeout=10)
    log = rig.hub.table_view("t1")["state"]["log"]
    assert log[1]["player"] == "Robot"
    assert rig.hub.table_view("t1")["events"][-1]["source"] == "bot"


def test_change_feed_wakes_a_waiting_reader(rig: Rig) -> None:
    rig.hub.create_table("trike", options={"size": 3})
    last = rig.hub.last_change_id()
    got: list[list[dict]] = []
    reader = threading.Thread(target=lambda: got.append(rig.hub.changes_since(last, 5.0)))
    reader.start()
    rig.hub.submit("t1", {"move": "b1"})
    reader.join(5)
    assert got and got[0][0]["kind"] == "table" and got[0][0]["table"] == "t1"
    assert got[0][0]["id"] > last


def test_public_view_is_the_engines_observation_without_the_seed(rig: Rig) -> None:
    rig.hub.create_table("triominos", seats=["Ana", "Ben"], seed=3)
    full = rig.hub.table_view("t1")
    racks = full["state"]["racks"]
    for viewer in (None, "Ana", "Ben"):
        shown = rig.hub.public_view("t1", viewer)
        assert "seed" not in shown and shown["id"] == "t1"
        for player, rack in shown["state"]["racks"].items():
            assert len(rack) == len(racks[player])
            assert rack == (racks[player] if player == viewer else [None] * len(rack))
    with pytest.raises(UnknownTableError):
        rig.hub.public_view("t9")


def test_a_hint_is_shown_only_to_the_player_it_is_for(rig: Rig) -> None:
    rig.hub.create_table("trike", options={"size": 4}, seats=["Ana", "Ben"], seed=2)
    rig.hub.submit("t1", {"hint": True})
    assert rig.hub.public_view("t1", "Ana")["hint"] is not None  # Ana is to move
    assert "hint" not in rig.hub.public_view("t1", "Ben") and "hint" not in rig.hub.public_view("t1")


def test_legal_actions_are_the_live_states_for_the_player_to_move_only(rig: Rig) -> None:
    rig.hub.create_table("trike", options={"size": 3}, seats=["Ana", "Ben"], seed=1)
    rig.hub.submit("t1", {"move": "b1"})
    state = replay(rig.hub.export("t1"))
    expected = [state.game.action_to_json(a) for a in state.legal_actions()]
    assert rig.hub.legal_actions("t1", "Ben") == expected and expected
    assert rig.hub.legal_actions("t1", "Ana") == []  # not her turn
    for move in ("c1", "c2", "b2", "a1"):
        rig.hub.submit("t1", {"move": move})
    assert rig.hub.game_over("t1") and rig.hub.legal_actions("t1", "Ana") == []


def test_an_archived_table_says_so_and_stays_archived_across_a_restart(rig: Rig) -> None:
    rig.hub.create_table("trike", options={"size": 3}, seats=["Ana", "Ben"], seed=1)
    for move in ("b1", "c1", "c2", "b2", "a1"):
        rig.hub.submit("t1", {"move": move})
    assert rig.hub.list_tables()[0]["archived"] is False
    view = rig.hub.submit("t1", {"archive": True, "by": "referee"})
    assert view["archived"] is True and rig.hub.list_tables()[0]["archived"] is True
    with pytest.raises(BadInputError):
        rig.hub.submit("t1", {"archive": "yes"})
    rig.hub.close()
    again = Hub(rig.db)
    try:
        assert again.tables.is_dormant("t1") and again.list_tables()[0]["archived"] is True
        assert again.submit("t1", {"archive": False})["archived"] is False
        assert again.list_tables()[0]["archived"] is False
    finally:
        again.close()


def test_an_abandoned_table_plays_nothing_more_and_frees_its_boards(rig: Rig) -> None:
    rig.hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=1)
    with pytest.raises(ConflictError):
        rig.hub.create_table("trigono", seats=["Cy", "Di"], boards=["B1"])
    view = rig.hub.submit("t1", {"abandon": True, "by": "referee"})
    assert view["abandoned"] is True and view["prompts"] == [] and rig.hub.game_over("t1")
    for inp in ({"landed": "floor"}, {"undo": True}, {"abandon": True}):
        with pytest.raises(RefusedError):
            rig.hub.submit("t1", inp)
    rig.hub.submit("t1", {"archive": True})  # putting it away still works
    assert rig.hub.create_table("trigono", seats=["Cy", "Di"], boards=["B1"])["id"] == "t2"
    rig.hub.close()
    again = Hub(rig.db)
    try:
        assert again.tables.is_dormant("t1") and again.list_tables()[0]["abandoned"] is True
    finally:
        again.close()


def test_the_public_view_carries_the_newest_events_only_and_the_referee_view_all(rig: Rig) -> None:
    rig.hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=1)
    for n in range(30):  # a palet on the floor, taken back: two console events a round
        rig.hub.submit("t1", ({"landed": "floor"}, {"undo": True})[n % 2])
    referee, public = rig.hub.table_view("t1"), rig.hub.public_view("t1")
    assert len(referee["events"]) > PUBLIC_EVENTS == len(public["events"])
    assert [e["id"] for e in public["events"]] == [e["id"] for e in referee["events"][-PUBLIC_EVENTS:]]
    assert all(e["kind"] == "input" and "text" not in e for e in public["events"])  # words: the web's
