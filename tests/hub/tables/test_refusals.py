"""Refusals carry a kind and its params (hub/errors.py), so the pages can say them in the
reader's language; the English message stays as the fallback, and a refused input still
changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from hub.errors import (
    BadInputError,
    ConflictError,
    HubError,
    RefusedError,
    UnknownGameError,
    UnknownTableError,
)
from hub.facade import Hub
from tests.hub.conftest import Rig
from tests.hub.tables.test_referee import Fold


def refusal(call: Any, *args: Any, error: type[HubError] = RefusedError,
            **kwargs: Any) -> tuple[str | None, dict[str, Any], str]:
    """(kind, params, message) of what ``call(*args, **kwargs)`` raised."""
    with pytest.raises(error) as caught:
        call(*args, **kwargs)
    return caught.value.kind, caught.value.params, str(caught.value)


def test_moves_out_of_turn_illegal_or_after_the_end_say_which(rig: Rig) -> None:
    hub: Hub = rig.hub
    hub.create_table("trike", options={"size": 3}, seats=["Ana", "Ben"], seed=1)
    assert refusal(hub.submit, "t1", {"undo": True}) == ("nothing_to_undo", {}, "undo: nothing to undo")
    hub.submit("t1", {"move": "b1", "player": "Ana"})
    assert refusal(hub.submit, "t1", {"move": "c1", "player": "Ana"}) == (
        "not_your_turn", {"player": "Ana", "to_move": "Ben"}, "it is not Ana's turn (to move: Ben)")
    kind, params, message = refusal(hub.submit, "t1", {"move": "b1"})
    # the engine's reason as a kind too (engines.core.GameError), for pages to word it
    assert kind == "illegal_move" and "occupied" in message
    assert params == {"reason": message, "why": "trike.occupied", "why_params": {"cell": "b1"}}
    hub.submit("t1", {"move": "c1"})
    kind, params, message = refusal(hub.submit, "t1", {"amend": {"index": 0, "action": "c1"}})
    assert (kind, params["index"]) == ("would_be_illegal", 1) and params["reason"] in message
    assert (params["why"], params["why_params"]) == ("trike.occupied", {"cell": "c1"})
    assert refusal(hub.submit, "t1", {"amend": {"index": 7, "action": "a1"}})[:2] == ("no_such_action", {"index": 7})
    for move in ("c2", "b2", "a1"):
        hub.submit("t1", {"move": move})
    assert hub.game_over("t1")
    assert refusal(hub.submit, "t1", {"move": "c3"})[:2] == (
        "game_over", {"reason": "the game is over", "why": "game_over", "why_params": {}})
    assert refusal(hub.submit, "t1", {"hint": True})[:2] == ("game_over", {})
    assert refusal(hub.submit, "t1", {"abandon": True})[:2] == ("game_over", {})
    assert len(hub.export("t1")["actions"]) == 5  # nothing refused was kept


def test_an_abandoned_table_and_an_unknown_one(rig: Rig) -> None:
    hub = rig.hub
    hub.create_table("triolet", seats=["Ana", "Ben"], seed=1)
    hub.submit("t1", {"abandon": True})
    assert refusal(hub.submit, "t1", {"undo": True})[:2] == ("table_abandoned", {"input": "undo"})
    assert refusal(hub.submit, "t9", {"undo": True}, error=UnknownTableError)[:2] == (
        "unknown_table", {"table": "t9"})


def test_tables_that_cannot_be_made_say_why(rig: Rig) -> None:
    hub = rig.hub
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=1, table_id="a")
    assert refusal(lambda: hub.create_table("trike", table_id="a"), error=ConflictError)[:2] == (
        "table_id_taken", {"table": "a"})
    assert refusal(lambda: hub.create_table("trigono", seats=["Cy", "Di"], boards=["B1"], table_id="b"),
                   error=ConflictError)[:2] == ("board_bound", {"board": "B1", "table": "a"})
    cases: list[tuple[dict[str, Any], type[HubError], str, dict[str, Any]]] = [
        ({"game": "chess"}, UnknownGameError, "unknown_game", {"game": "chess"}),
        ({"game": "trike", "seats": ["Ana", "Ana"]}, BadInputError, "duplicate_seat", {}),
        ({"game": "trigono", "boards": ["B2", "B2"]}, BadInputError, "duplicate_board", {}),
        ({"game": "trike", "boards": ["B2"]}, BadInputError, "no_sensor_boards", {"game": "trike"}),
        ({"game": "trike", "table_id": "a/b"}, BadInputError, "bad_table_id", {}),
    ]
    for kw, error, kind, params in cases:
        assert refusal(hub.create_table, error=error, **kw)[:2] == (kind, params), kw
    assert [t["id"] for t in hub.list_tables()] == ["a"]


def test_the_trigono_referees_refusals() -> None:
    f = Fold()
    assert refusal(lambda: f.console(invalid=True)) == ("nothing_to_mark", {}, "invalid: no drop into a hole to mark")
    assert refusal(lambda: f.console(next_round=True))[:2] == ("round_under_way", {})
    assert refusal(lambda: f.console(void=999))[:2] == ("not_voidable", {"entry": 999})
    (landed,) = f.table.prompts()
    assert refusal(lambda: f.console(answer={"prompt": landed["id"], "choice": "moon"}), error=BadInputError)[:2] == (
        "bad_choice", {"choice": "moon", "choices": ["board:B1", "floor"]})
    f.console(answer={"prompt": landed["id"], "choice": "floor"})
    assert refusal(lambda: f.console(answer={"prompt": landed["id"], "choice": "floor"}))[:2] == (
        "prompt_closed", {"prompt": landed["id"]})
    f.device("drop", t_ms=0, hole="big")
    kind, _params, message = refusal(lambda: f.console(landed="floor"))
    assert kind == "drop_settling" and "settling" in message
    assert f.throws() == [{"player": "Ana", "to": "floor"}]  # only the answer that was taken


def test_a_sensor_refused_for_the_console_alerts_with_the_refusals_kind() -> None:
    f = Fold()
    f.device("drop", t_ms=0, hole="big")
    f.device("button", t_ms=100, button="floor")  # the throw line's button while a drop settles
    (alert,) = [a for a in f.table.view()["alerts"] if a["kind"] == "input_refused"]
    assert alert["params"]["refusal"] == "drop_settling" and alert["params"]["refusal_params"] == {}
    assert "settling" in alert["params"]["reason"]  # the English fallback
