"""Triolet options (engines/triolet/rules.py): defaults and the variant switches."""

from __future__ import annotations

from typing import Any

import pytest

from engines.core import RecordError
from engines.triolet.rules import Rules


def test_defaults() -> None:
    rules = Rules.from_options({})
    assert rules == Rules(("P1", "P2"), "zero", 5, None, 2)


def test_switches_are_read() -> None:
    rules = Rules.from_options({"players": ["A", "B", "C"], "lone_token": "face",
                                "exchange_min_bag": 3, "first": "B", "stall_rounds": 4})
    assert (rules.players, rules.lone_token, rules.exchange_min_bag, rules.first,
            rules.stall_rounds) == (("A", "B", "C"), "face", 3, "B", 4)


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"players": ["A"]}, "2 to 4 players"),
        ({"players": ["A", "B", "C", "D", "E"]}, "2 to 4 players"),
        ({"lone_token": "half"}, "lone_token"),
        ({"exchange_min_bag": 0}, "exchange_min_bag"),
        ({"exchange_min_bag": True}, "exchange_min_bag"),
        ({"first": "Zoé"}, "first: not a player"),
        ({"stall_rounds": 0}, "stall_rounds"),
        ({"colour": "red"}, "unknown field 'colour'"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], reason: str) -> None:
    with pytest.raises(RecordError, match=reason):
        Rules.from_options(options)
