"""Trigono actions and their notations (engines/trigono/actions.py, docs/records.md § Trigono)."""

from __future__ import annotations

from typing import Any

import pytest

from engines.core import RecordError
from engines.trigono import (
    Knock,
    Target,
    Throw,
    action_from_str,
    parse_action,
)


def test_action_text_and_json_notation_round_trip() -> None:
    actions: list[Throw | Target] = [
        Throw("Ana", "board:B1"),
        Throw("Chloé", "B2.small", invalid=True),
        Throw("Ben", "floor", knocked=(Knock("B1", "B1.big"), Knock("B2", "jackpot.2"))),
        Target("jackpot"),
    ]
    for action in actions:
        assert action_from_str(action.to_str()) == action
        assert parse_action(action.to_json()) == action


@pytest.mark.parametrize(
    "obj, match",
    [
        ({"throw": {"player": "Ana", "to": "floor", "speed": 3}}, "throw: unknown field 'speed'"),
        ({"throw": {"player": "Ana"}}, "throw: missing field 'to'"),
        ({"throw": {"player": "Ana", "to": "floor", "invalid": "yes"}}, "invalid must be"),
        (
            {"throw": {"player": "Ana", "to": "floor", "knocked": [{"from": "B1"}]}},
            "missing field 'to'",
        ),
        ({"throw": {"player": 3, "to": "floor"}}, "throw.player"),
        ({"target": "jackpot", "player": "Ana"}, "action: unknown field 'player'"),
        ({"pass": True}, "action: unknown field 'pass'"),
        ("Ana>floor", "expected an object"),
    ],
)
def test_malformed_actions_are_record_errors(obj: Any, match: str) -> None:
    with pytest.raises(RecordError, match=match):
        parse_action(obj)
