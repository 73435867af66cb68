"""Triominos states from a record's position (engines/triominos/position.py): taken as
given, but every tile must exist in the set, once."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engines.core import RecordError
from engines.triominos import TriominosGame

GAME = {"players": ["Ana", "Ben"], "set": "classic"}


def set_up(**position: Any) -> Any:
    return TriominosGame(GAME).new_initial_state(random.Random(4), position)


def test_position_is_taken_as_given() -> None:
    state = set_up(
        board=[{"cell": [0, 0, "up"], "corners": [0, 1, 2]}, {"cell": [5, 5, "down"], "corners": [3, 3, 3]}],
        racks={"Ana": ["4-4-5"], "Ben": []},
        pool=["5-5-5", "0-0-0"],
        scores={"Ana": 12, "Ben": -5},
        to_move="Ben",
    )
    printed = state.to_json()
    assert [b["tile"] for b in printed["board"]] == ["0-1-2", "3-3-3"]  # need not be connected
    assert printed["racks"] == {"Ana": ["4-4-5"], "Ben": []}
    assert printed["pool_count"] == 2 and state.pool == [state.tileset.index_of((5, 5, 5)),
                                                          state.tileset.index_of((0, 0, 0))]
    assert printed["scores"] == {"Ana": 12, "Ben": -5} and printed["to_move"] == "Ben"


def test_without_a_pool_the_rest_of_the_set_is_mixed_with_the_seed() -> None:
    state = set_up(racks={"Ana": ["0-1-2"], "Ben": ["3-3-3"]})
    assert len(state.pool) == 54 and len(set(state.pool)) == 54
    assert state.pool == set_up(racks={"Ana": ["0-1-2"], "Ben": ["3-3-3"]}).pool


@pytest.mark.parametrize(
    ("position", "reason"),
    [
        ({}, "missing field 'racks'"),
        ({"racks": {"Ana": []}}, "missing field 'Ben'"),
        ({"racks": {"Ana": "0-1-2", "Ben": []}}, "expected a list of tiles"),
        ({"racks": {"Ana": ["0-1-2"], "Ben": ["1-2-0"]}}, "appears twice"),
        ({"racks": {"Ana": ["0-2-1"], "Ben": []}}, "position.racks.Ana"),
        ({"racks": {"Ana": [], "Ben": []}, "pool": "0-1-2"}, "expected a list of tiles"),
        ({"racks": {"Ana": [], "Ben": []}, "board": {}}, "expected a list"),
        ({"racks": {"Ana": [], "Ben": []},
          "board": [{"cell": [0, 0, "up"], "corners": [0, 1, 2]},
                    {"cell": [0, 0, "up"], "corners": [3, 3, 3]}]}, "used twice"),
        ({"racks": {"Ana": [], "Ben": []},
          "board": [{"cell": [0, 0, "up"], "corners": [0, 1, 2]},
                    {"cell": [0, 0, "down"], "corners": [5, 5, 5]}]}, "disagrees"),
        ({"racks": {"Ana": [], "Ben": []}, "to_move": "Cy"}, "unknown player 'Cy'"),
        ({"racks": {"Ana": [], "Ben": []}, "scores": {"Ana": 1.5}}, "expected an integer"),
        ({"racks": {"Ana": [], "Ben": []}, "hint": 1}, "unknown field 'hint'"),
    ],
)
def test_bad_positions_are_record_errors(position: dict[str, Any], reason: str) -> None:
    with pytest.raises(RecordError, match=reason):
        set_up(**position)
