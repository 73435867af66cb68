"""Trigono states from data (engines/trigono/position.py): a record's position, dump and load."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engines.core import RecordError
from engines.trigono import (
    TrigonoGame,
    hexagon_boards,
)
from tests.engines.trigono_setups import TWO_BOARDS, new, play, printed


def test_position_sets_up_a_moment_of_a_round() -> None:
    game = TrigonoGame({"players": ["A", "B", "C", "D", "E"], "boards": TWO_BOARDS, "first": "A"})
    position = {
        "hands": {"A": 0, "B": 2, "C": 1},
        "eliminated": ["A"],
        "boards": {"B1": 3},
        "floor": 2,
        "holes": {"B2.small": 1},
        "to_move": "C",
        "round": 2,
        "rounds_won": {"B": 1},
    }
    state = game.new_initial_state(random.Random(0), position)
    assert printed(state, "hands", "throw_distance_m", "round", "to_move") == (
        {"A": 0, "B": 2, "C": 1, "D": 5, "E": 5},
        3.3,
        2,
        "C",
    )
    play(state, "C>B2.small")  # floor 2 + pending 1 + own
    assert state.log[-1]["points"] == 4 and state.to_move == "D"


@pytest.mark.parametrize(
    "position, match",
    [
        ({"hands": {"Zoé": 1}}, "position.hands: unknown field 'Zoé'"),
        ({"boards": {"B9": 1}}, "position.boards: unknown field 'B9'"),
        ({"holes": {"B1.big": -1}}, "expected a count"),
        ({"phase": "final"}, "position: unknown field 'phase'"),
        ({"hands": {"A": 0}}, "A holds no palet"),
        ({"eliminated": ["A"]}, "A is eliminated but holds palets"),
        ({"hands": {"A": 0, "B": 0}, "eliminated": ["A", "B"]}, "already be over"),
        ({"rounds_won": {"A": 2}}, "match would already be over"),
        ({"to_move": "Zoé"}, "position.to_move"),
    ],
)
def test_position_errors_are_record_errors(position: dict[str, Any], match: str) -> None:
    with pytest.raises(RecordError, match=match):
        TrigonoGame({"players": ["A", "B", "C"], "first": "A"}).new_initial_state(
            random.Random(0), position
        )


def test_dump_load_round_trip_and_clone_independence() -> None:
    state = new(["A", "B", "C"], boards=hexagon_boards())
    play(state, "A>board:H1", "B>H1.big~", "C>floor+H1>jackpot")
    copy = state.game.load(state.dump())
    assert copy == state and copy.to_json() == state.to_json()
    before = state.dump()
    twin = state.clone()
    assert twin == state
    play(twin, "A>board:H1", "B>H1.big", "C>floor")
    assert twin != state and state.dump() == before
    with pytest.raises(RecordError, match="other options"):
        TrigonoGame({"players": ["X", "Y"]}).load(state.dump())
