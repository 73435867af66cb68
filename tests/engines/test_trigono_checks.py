"""Why a Trigono throw is refused (engines/trigono/checks.py): each reason named, nothing changed."""

from __future__ import annotations

from tests.engines.trigono_setups import TWO_BOARDS, new, play, refused


def test_illegal_throws_name_the_problem_and_change_nothing() -> None:
    state = new(["A", "B", "C"], boards=TWO_BOARDS)
    refused(state, "Zoé>floor", "unknown player 'Zoé'")
    refused(state, "B>floor", "it is A's turn to throw, not B's")
    refused(state, "A>board:B3", "unknown board 'board:B3'")
    refused(state, "A>B3.big", "unknown destination 'B3.big'")
    refused(state, "A>board", "unknown destination 'board'")


def test_T10_T12_throw_details_are_checked_against_the_layout() -> None:
    state = new(["A", "B", "C"], boards=TWO_BOARDS)
    refused(state, "A>floor~", "invalid.*only applies to a drop into a hole")
    refused(state, "A>floor+B9>B1.big", "knocked: unknown board 'B9'")
    refused(state, "A>floor+B1>B9.big", "knocked: unknown hole 'B9.big'")
    refused(state, "A>floor+B1>B2.big", "cannot fall into B2.big")
    refused(state, "A>floor+B1>B1.big", "no palet was lying on board B1")


def test_T15_an_eliminated_player_may_not_throw() -> None:
    state = new(["A", "B", "C"], palets_per_player=1)
    play(state, "A>floor")  # A's hand is empty: out of the round (T15)
    refused(state, "A>floor", "A is eliminated from round 1")
