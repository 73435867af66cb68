"""Triolet actions and their notations (engines/triolet/actions.py, docs/records.md § Triolet)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engines.core import IllegalMoveError, InvalidMoveError, Pass, RecordError
from engines.triolet import TrioletGame
from engines.triolet.actions import (
    Exchange,
    Placement,
    PlayTokens,
    action_from_str,
    action_to_json,
    parse_action,
)
from engines.triolet.board import JOKER


@pytest.mark.parametrize(
    "notation",
    [{"play": ["H8:5"]}, {"play": ["H8:5", "H9:10", "H10:J0"]}, {"exchange": [3, "J"]},
     {"pass": True}],
)
def test_record_notation_round_trips(notation: Any) -> None:
    action = parse_action(notation)
    assert action_to_json(action) == notation
    assert action_from_str(action.to_str()) == action


def test_plays_and_exchanges_are_kept_in_a_canonical_order() -> None:
    assert parse_action({"play": ["H10:J0", "H8:5"]}) == parse_action({"play": ["H8:5", "H10:J0"]})
    assert Exchange((JOKER, 3)) == Exchange((3, JOKER))
    assert PlayTokens.from_str("H9:10 H8:5").placements[0] == Placement("H8", 5)


@pytest.mark.parametrize(
    ("notation", "reason"),
    [
        ({"play": []}, "expected a list of 1 to 3 tokens"),
        ({"play": ["H8:5"] * 4}, "expected a list of 1 to 3 tokens"),
        ({"play": ["H8-5"]}, "expected \"CELL:VALUE\""),
        ({"play": ["H8:16"]}, "not a token value"),
        ({"play": ["P8:1"]}, "not a cell of the board: 'P8'"),
        ({"exchange": [17]}, "not a token: 17"),
        ({"pass": False}, "pass: expected true"),
        ({"play": ["H8:5"], "pass": True}, "exactly one of"),
        ({"swap": True}, "unknown field 'swap'"),
        ("pass", "expected an object"),
    ],
)
def test_malformed_notation_is_a_record_error(notation: Any, reason: str) -> None:
    with pytest.raises(RecordError, match=reason):
        parse_action(notation)


@pytest.mark.parametrize("text", ["exchange", "exchange 1 2 3 4", "exchange x", "H8", "swap"])
def test_malformed_text_is_an_invalid_move(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        action_from_str(text)


def test_pass_is_the_shared_pass() -> None:
    assert action_from_str("pass") == Pass() == parse_action({"pass": True})


def test_an_empty_exchange_is_refused_and_changes_nothing() -> None:
    state = TrioletGame().new_initial_state(random.Random(0))
    before = state.dump()
    with pytest.raises(IllegalMoveError, match="1 to 3 tokens"):
        state.apply(Exchange(()))
    assert state.dump() == before
