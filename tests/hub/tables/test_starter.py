"""Issue 26 item 8: the view says who starts the round and why (T4), and the seats in the
order they throw."""

from __future__ import annotations

from typing import Any

from hub.tables.referee import TrigonoTable
from hub.tables.spec import TableSpec
from hub.tables.tableset import make_table

SEATS = ["Ana", "Ben", "Chloé", "Dan", "Elodie"]


def table(**options: Any) -> TrigonoTable:
    spec = TableSpec.build("trigono", seats=SEATS, boards=["B1", "B2"], seed=1, options=options)
    made = make_table("t1", spec.entry_body(1, 1.0), 0.0)
    assert isinstance(made, TrigonoTable)
    return made


def test_a_first_thrower_drawn_by_lot_is_said_drawn_and_the_order_starts_with_them_T4() -> None:
    drawn = table().view()["starter"]
    player = drawn["player"]
    assert drawn["why"] == "drawn" and drawn["round"] == 1 and drawn["before_first_throw"] is True
    at = SEATS.index(player)
    assert drawn["play_order"] == SEATS[at:] + SEATS[:at]
    assert table().view()["state"]["to_move"] == player


def test_a_named_first_thrower_is_said_chosen_T4() -> None:
    chosen = table(first="Dan").view()["starter"]
    assert chosen["player"] == "Dan" and chosen["why"] == "chosen"
    assert chosen["play_order"] == ["Dan", "Elodie", "Ana", "Ben", "Chloé"]


def two_rounds(first: str, second: str) -> TrigonoTable:
    """Ana and Ben, one palet each: round 1 played with these two throws."""
    spec = TableSpec.build("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=1,
                           options={"first": "Ana", "palets_per_player": 1, "rounds_to_win": 2})
    t = make_table("t1", spec.entry_body(1, 1.0), 0.0)
    assert isinstance(t, TrigonoTable)
    t.play({"throw": {"player": "Ana", "to": first}}, [], "referee")
    assert t.view()["starter"]["before_first_throw"] is False
    t.play({"throw": {"player": "Ben", "to": second}}, [], "referee")
    return t


def test_the_next_round_is_started_by_the_last_rounds_winner_or_after_a_draw_by_its_starter_T4() -> None:
    assert two_rounds("board:B1", "B1.big").view()["starter"] == {
        "player": "Ben", "why": "round_won", "round": 2, "play_order": ["Ben", "Ana"], "before_first_throw": True}
    drawn = two_rounds("board:B1", "floor").view()["starter"]
    assert (drawn["player"], drawn["why"], drawn["round"]) == ("Ana", "drawn_round_same", 2)


def test_a_throw_into_a_hole_that_fills_the_hand_again_still_counts_as_thrown_T4() -> None:
    spec = TableSpec.build("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=1, options={"first": "Ana"})
    t = make_table("t1", spec.entry_body(1, 1.0), 0.0)
    assert isinstance(t, TrigonoTable)
    t.play({"throw": {"player": "Ana", "to": "B1.small"}}, [], "referee")  # her palet comes back to her hand
    state = t.view()["state"]
    assert state["hands"]["Ana"] == state["palets_per_player"]
    assert t.view()["starter"]["before_first_throw"] is False
