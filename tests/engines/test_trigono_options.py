"""Trigono options (engines/trigono/options.py): defaults, T3 seats, unknown fields."""

from __future__ import annotations

import pytest

from engines.core import RecordError
from engines.trigono import (
    TrigonoGame,
)
from tests.engines.trigono_setups import TWO_BOARDS, new


def test_T2_palets_per_player_defaults_10_for_two_and_5_for_more() -> None:
    assert set(new().hands.values()) == {10}
    assert set(new(["A", "B", "C"]).hands.values()) == {5}
    assert set(new(["A", "B", "C", "D", "E"], boards=TWO_BOARDS).hands.values()) == {5}
    assert set(new(palets_per_player=4).hands.values()) == {4}
    with pytest.raises(RecordError, match="palets_per_player"):
        new(palets_per_player=0)


def test_T3_at_most_four_players_per_board_and_at_least_two() -> None:
    with pytest.raises(RecordError, match=r"5 players need at least 2 boards.*T3"):
        new(["A", "B", "C", "D", "E"])
    with pytest.raises(RecordError, match="at least 2"):
        new(["A"])
    eight = new([f"P{n}" for n in range(8)], boards=TWO_BOARDS)
    homes = eight.to_json()["homes"]
    assert sorted(homes.values()).count("B1") == 4 and sorted(homes.values()).count("B2") == 4
    with pytest.raises(RecordError, match="unique"):
        new(["A", "A"])


def test_unknown_options_are_record_errors() -> None:
    with pytest.raises(RecordError, match="options: unknown field 'colour'"):
        TrigonoGame({"colour": "red"})
    with pytest.raises(RecordError, match="draw_starter"):
        TrigonoGame({"draw_starter": "loser"})
