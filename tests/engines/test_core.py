"""engines.core: the shared pieces of the engine contract (docs/design.md §3)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engines.core import (
    GameError,
    IllegalMoveError,
    InvalidMoveError,
    Pass,
    RecordError,
    check_keys,
    hide_racks,
    load_dump,
    parse_players,
    rank_by_score,
)
from engines.records import replay
from engines.triolet import TrioletGame


def test_errors_are_value_errors_of_one_family() -> None:
    for error in (RecordError, InvalidMoveError, IllegalMoveError):
        assert issubclass(error, GameError) and issubclass(error, ValueError)


def test_check_keys_names_the_unknown_and_the_missing_field() -> None:
    assert check_keys({"a": 1}, ("a", "b"), "thing") == {"a": 1}
    with pytest.raises(RecordError, match="thing: unknown field 'c'"):
        check_keys({"c": 1}, ("a",), "thing")
    with pytest.raises(RecordError, match="thing: missing field 'b'"):
        check_keys({"a": 1}, ("a", "b"), "thing", required=("b",))
    with pytest.raises(RecordError, match="expected an object, got list"):
        check_keys([], ("a",), "thing")


@pytest.mark.parametrize(
    "value", [["Ana"], ["Ana", "Ana"], ["Ana", ""], "Ana,Ben", ["A", "B", "C", "D", "E"]]
)
def test_parse_players_refuses_bad_seats(value: Any) -> None:
    with pytest.raises(RecordError, match="players"):
        parse_players(value, 2, 4)


def test_rank_by_score_groups_ties_in_seat_order() -> None:
    assert rank_by_score(["A", "B", "C", "D"], {"A": 1, "B": 5, "C": 1, "D": -3}) == [
        ["B"], ["A", "C"], ["D"],
    ]
    assert rank_by_score(["A", "B"], {"A": 0, "B": 0}) == [["A", "B"]]


def test_hide_racks_keeps_lengths_and_the_viewers_own_rack() -> None:
    printed = {
        "racks": {"Ana": [1, "J"], "Ben": [3, 4, 5]},
        "log": [
            {"player": "Ben", "action": {"exchange": [3, "J"]}, "points": 0},
            {"player": "Ana", "action": {"exchange": [7]}, "points": 0},
            {"player": "Ana", "action": {"play": ["H8:7"]}, "points": 0},
        ],
    }
    seen = hide_racks(printed, "Ana")
    assert seen["racks"] == {"Ana": [1, "J"], "Ben": [None, None, None]}
    assert [e["action"] for e in seen["log"]] == [
        {"exchange": [None, None]}, {"exchange": [7]}, {"play": ["H8:7"]},
    ]
    spectator = hide_racks({"racks": {"Ana": [1]}, "log": []}, None)
    assert spectator["racks"] == {"Ana": [None]}


def test_observation_does_not_change_the_state() -> None:
    state = TrioletGame({"players": ["Ana", "Ben"]}).new_initial_state(random.Random(2))
    before = state.to_json()
    state.observation(None)
    state.observation("Ana")
    assert state.to_json() == before


def test_ranking_of_a_finished_trike_game_is_winner_then_loser() -> None:
    state = replay({"game": "trike", "options": {"size": 3, "players": ["Ana", "Ben"]},
                    "actions": ["b1", "c1", "c2", "b2", "a1"]})
    assert state.winner() == "Ana" and state.ranking() == [["Ana"], ["Ben"]]


def test_ranking_of_a_triominos_game_groups_tied_players() -> None:
    """M11: Ana goes out with her last tile (+25 and the others' 15 + 3); Ben and Cy tie."""
    record = {
        "game": "triominos",
        "options": {"players": ["Ana", "Ben", "Cy"]},
        "position": {"racks": {"Ana": ["0-0-0"], "Ben": ["5-5-5"], "Cy": ["1-1-1"]},
                     "pool": [], "scores": {"Ana": 40, "Ben": 40, "Cy": 40}},
        "actions": [{"place": {"cell": [0, 0, "up"], "corners": [0, 0, 0]}}],
    }
    state = replay(record)
    assert state.is_terminal() and state.scores() == {"Ana": 83, "Ben": 40, "Cy": 40}
    assert state.ranking() == [["Ana"], ["Ben", "Cy"]]


def test_ranking_before_the_end_is_refused() -> None:
    state = replay({"game": "trike", "options": {"size": 3}})
    with pytest.raises(IllegalMoveError, match="not over"):
        state.ranking()


def test_load_dump_checks_fields_and_options_and_wraps_malformed_values() -> None:
    game = TrioletGame({"players": ["Ana", "Ben"]})
    dump = game.new_initial_state(random.Random(0)).dump()
    assert load_dump(game, dump, tuple(dump), lambda d: len(d["bag"])) == len(dump["bag"])
    with pytest.raises(RecordError, match="made with other options"):
        load_dump(TrioletGame({"players": ["Ana", "Cy"]}), dump, tuple(dump), len)
    with pytest.raises(RecordError, match="missing field 'bag'"):
        load_dump(game, {k: v for k, v in dump.items() if k != "bag"}, tuple(dump), len)
    with pytest.raises(RecordError, match=r"dump: malformed \(invalid literal"):
        load_dump(game, {**dump, "to_move": "x"}, tuple(dump), lambda d: int(d["to_move"]))


def test_pass_text_notation() -> None:
    assert Pass.from_str("pass") == Pass() and Pass().to_str() == "pass"
    with pytest.raises(InvalidMoveError):
        Pass.from_str("skip")
