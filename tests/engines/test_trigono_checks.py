"""Why a Trigono throw is refused (engines/trigono/checks.py): each reason named, nothing changed."""

from __future__ import annotations

import pytest

from tests.engines.trigono_setups import TWO_BOARDS, new, play, refused


@pytest.mark.parametrize(
    ("move", "reason"),
    [
        ("Zoé>floor", "unknown player 'Zoé'"),
        ("B>floor", "it is A's turn to throw, not B's"),
        ("A>board:B3", "unknown board 'board:B3'"),
        ("A>B3.big", "unknown destination 'B3.big'"),
        ("A>board", "unknown destination 'board'"),
        # T10, T12: the details of a throw are checked against the layout
        ("A>floor~", "invalid.*only applies to a drop into a hole"),
        ("A>floor+B9>B1.big", "knocked: unknown board 'B9'"),
        ("A>floor+B1>B9.big", "knocked: unknown hole 'B9.big'"),
        ("A>floor+B1>B2.big", "cannot fall into B2.big"),
        ("A>floor+B1>B1.big", "no palet was lying on board B1"),
    ],
)
def test_illegal_throws_name_the_problem_and_change_nothing(move: str, reason: str) -> None:
    refused(new(["A", "B", "C"], boards=TWO_BOARDS), move, reason)


def test_T15_an_eliminated_player_may_not_throw() -> None:
    state = new(["A", "B", "C"], palets_per_player=1)
    play(state, "A>floor")  # A's hand is empty: out of the round (T15)
    refused(state, "A>floor", "A is eliminated from round 1")
