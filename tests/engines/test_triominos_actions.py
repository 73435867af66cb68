"""Triominos actions and their notations (engines/triominos/actions.py, docs/records.md § Triominos)."""

from __future__ import annotations

from typing import Any

import pytest

from engines.core import InvalidMoveError, Pass, RecordError
from engines.lattice import Cell
from engines.triominos.actions import (
    Draw,
    Place,
    action_from_str,
    action_to_json,
    parse_action,
)


@pytest.mark.parametrize(
    "notation",
    [
        {"place": {"cell": [0, 0, "up"], "corners": [0, 1, 2]}},
        {"place": {"cell": [-3, 7, "down"], "corners": [5, 5, 4]}},
        {"draw": True},
        {"pass": True},
    ],
)
def test_record_notation_round_trips(notation: Any) -> None:
    action = parse_action(notation)
    assert action_to_json(action) == notation
    assert action_from_str(action.to_str()) == action


def test_text_notation() -> None:
    assert action_from_str("-1,2,up:3-4-5") == Place(Cell(-1, 2, "up"), (3, 4, 5))
    assert action_from_str("draw") == Draw() and action_from_str("pass") == Pass()


@pytest.mark.parametrize(
    ("notation", "reason"),
    [
        ({"place": {"cell": [0, 0, "up"], "corners": [0, 1, 6]}}, "three numbers 0-5"),
        ({"place": {"cell": [0, 0, "up"], "corners": [0, 1]}}, "three numbers 0-5"),
        ({"place": {"cell": [0, 0, "up"], "corners": [0, 1, True]}}, "three numbers 0-5"),
        ({"place": {"cell": [0, 0, "left"], "corners": [0, 1, 2]}}, ""),
        ({"place": {"cell": [9999, 0, "up"], "corners": [0, 1, 2]}}, "coordinates beyond"),
        ({"place": {"corners": [0, 1, 2]}}, "missing field 'cell'"),
        ({"draw": False}, "draw: expected true"),
        ({"draw": True, "pass": True}, "exactly one of"),
        ({"swap": True}, "unknown field 'swap'"),
    ],
)
def test_malformed_notation_is_a_record_error(notation: Any, reason: str) -> None:
    with pytest.raises(RecordError, match=reason or None):
        parse_action(notation)


@pytest.mark.parametrize("text", ["0,0,up", "0,0,sideways:1-2-3", "x,0,up:1-2-3", "skip"])
def test_malformed_text_is_an_invalid_move(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        action_from_str(text)
