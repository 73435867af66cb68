"""Trike actions and their notation (engines/trike/actions.py, docs/records.md § Trike)."""

from __future__ import annotations

from typing import Any

import pytest

from engines.core import InvalidMoveError
from engines.trike import TrikeGame
from engines.trike.actions import (
    SWAP_ACTION,
    TrikeAction,
    action_from_str,
    action_to_json,
    parse_action,
)
from engines.trike.board import geometry


@pytest.mark.parametrize("name", ["a1", "b2", "m13", "s19", "swap"])
def test_notation_round_trips(name: str) -> None:
    action = parse_action(name)
    assert action_to_json(action) == name == action.to_str()
    assert action_from_str(name) == action == TrikeAction.from_str(name)


def test_cells_are_board_order_indices_and_swap_is_none() -> None:
    assert parse_action("c2") == TrikeAction(geometry(3).index("c2")) == TrikeAction(4)
    assert parse_action("swap") == SWAP_ACTION and SWAP_ACTION.is_swap


@pytest.mark.parametrize("obj", ["a2", "t1", "", 4, None, ["a1"], "Swap"])
def test_malformed_notation_is_an_invalid_move(obj: Any) -> None:
    with pytest.raises(InvalidMoveError):
        parse_action(obj)


def test_the_game_also_checks_the_board_size() -> None:
    game = TrikeGame({"size": 3})
    assert game.parse_action("c3") == parse_action("c3")
    with pytest.raises(InvalidMoveError):
        game.parse_action("d1")  # a cell of side 4 and more
    assert parse_action("d1") == TrikeAction(6)
