"""Trigono rules engine: one or more tests per clause of docs/rules/trigono.md (T1–T21)."""

from __future__ import annotations

import random

import pytest

from engines.core import GameOverError, RecordError
from engines.trigono import (
    Target,
    Throw,
    TrigonoGame,
    hexagon_boards,
    parse_action,
)
from tests.engines.trigono_setups import TWO_BOARDS, TWO_HEXAGONS, new, play, printed, refused

# -- T1–T4: equipment and set-up -----------------------------------------------------------


def test_T1_every_board_has_a_big_and_a_small_hole_and_the_line_is_3m() -> None:
    state = new(["A", "B", "C"], boards=TWO_BOARDS)
    holes, distance, boards = printed(state, "holes", "throw_distance_m", "boards")
    assert holes == {"B1.big": 0, "B1.small": 0, "B2.big": 0, "B2.small": 0}
    assert boards == {"B1": 0, "B2": 0}
    assert distance == 3.0


def test_T1_throw_line_is_an_option() -> None:
    assert new(throw_line_m=2.5).to_json()["throw_distance_m"] == 2.5


def test_T3_a_palet_may_land_on_any_board_whoever_throws() -> None:
    state = new(["A", "B", "C"], boards=TWO_BOARDS)
    play(state, "A>board:B2", "B>board:B1", "C>B2.small")
    assert printed(state, "boards") == ({"B1": 1, "B2": 1},)


def test_T4_first_thrower_named_or_drawn_with_the_seed() -> None:
    game = TrigonoGame({"players": ["A", "B", "C"]})
    drawn = {game.new_initial_state(random.Random(seed)).current_player() for seed in range(30)}
    assert drawn == {"A", "B", "C"}
    again = [game.new_initial_state(random.Random(7)).current_player() for _ in range(3)]
    assert len(set(again)) == 1
    assert new(["A", "B", "C"], first="C").current_player() == "C"
    with pytest.raises(RecordError, match="first"):
        new(["A", "B"], first="Zoé")


def test_T4_players_throw_in_seat_order() -> None:
    state = new(["A", "B", "C"], first="B")
    order = []
    for _ in range(6):
        player = state.current_player()
        assert player is not None
        order.append(player)
        state.apply(Throw(player, "board:B1"))
    assert order == ["B", "C", "A", "B", "C", "A"]


def test_T4_round_winner_starts_next_round_with_all_palets_back() -> None:
    state = new(["Ana", "Ben"], palets_per_player=2)
    play(state, "Ana>floor", "Ben>floor", "Ana>board:B1")  # Ana out, Ben holds 1: last chance
    play(state, "Ben>B1.big")  # takes B1 (1) + own: 2 → Ben wins
    assert printed(state, "round", "to_move", "hands", "boards", "floor") == (
        2,
        "Ben",
        {"Ana": 2, "Ben": 2},
        {"B1": 0},
        0,
    )


def test_T4_after_a_drawn_round_its_starter_starts_again() -> None:
    state = new(["Ana", "Ben"], palets_per_player=1, first="Ben")
    play(state, "Ben>floor", "Ana>floor")  # Ben out, Ana's last chance scores nothing
    assert printed(state, "round_results", "to_move") == ([{"draw": True}], "Ben")


def test_T4_draw_starter_option_next_gives_the_next_seat() -> None:
    state = new(["Ana", "Ben"], palets_per_player=1, first="Ben", draw_starter="next")
    play(state, "Ben>floor", "Ana>floor")
    assert state.current_player() == "Ana"


# -- T5–T13: a throw ---------------------------------------------------------------------------


def test_T5_a_throw_moves_one_palet_from_the_hand() -> None:
    state = new()
    assert play(state, "Ana>board:B1", "Ben>floor", "Ana>B1.small~") == [0, 0, 0]
    assert printed(state, "hands", "boards", "floor", "holes") == (
        {"Ana": 8, "Ben": 9},
        {"B1": 1},
        1,
        {"B1.big": 0, "B1.small": 1},
    )


def test_T6_big_hole_takes_board_and_hole_not_the_neighbour() -> None:
    state = new(["A", "B", "C"], boards=TWO_BOARDS)
    play(state, "A>board:B1", "B>board:B2", "C>board:B1", "A>floor", "B>B1.big~")
    assert play(state, "C>B1.big") == [4]  # B1: 2 palets, hole: pending 1 + C's own
    assert printed(state, "hands", "boards", "floor") == (
        {"A": 3, "B": 3, "C": 7},
        {"B1": 0, "B2": 1},
        1,
    )


def test_T7_small_hole_of_any_board_takes_the_shared_floor_and_hole() -> None:
    state = new(["A", "B", "C"], boards=TWO_BOARDS)
    play(state, "A>floor", "B>floor", "C>board:B1", "A>B2.small~")
    assert play(state, "B>B1.small") == [3]  # the floor (2) and B's own; B2.small keeps 1
    assert printed(state, "floor", "boards", "holes")[0:2] == (0, {"B1": 1, "B2": 0})
    assert state.holes["B2.small"] == 1
    assert play(state, "C>B2.small") == [2]  # pending 1 + own; floor now empty


def test_T8_jackpot_takes_every_board_the_floor_and_the_hole() -> None:
    state = new(["A", "B", "C"], boards=hexagon_boards())
    play(state, "A>board:H1", "B>board:H4", "C>floor", "A>jackpot~", "B>board:H6")
    assert play(state, "C>jackpot") == [6]  # 3 on boards, 1 floor, 1 pending, own
    assert printed(state, "boards", "floor", "holes")[1] == 0
    assert set(state.boards.values()) == {0} and set(state.holes.values()) == {0}
    assert state.hands["C"] == 3 + 6


def test_T9_valid_drop_with_nothing_to_take_is_taken_back() -> None:
    state = new()
    assert play(state, "Ana>B1.big", "Ben>B1.small") == [1, 1]
    assert printed(state, "hands") == ({"Ana": 10, "Ben": 10},)


def test_T10_invalid_drop_stays_pending_for_the_next_valid_drop_into_that_hole() -> None:
    state = new(["A", "B", "C"])
    assert play(state, "A>B1.big~", "B>B1.small", "C>B1.big~") == [0, 1, 0]
    assert state.holes == {"B1.big": 2, "B1.small": 0}
    assert play(state, "A>B1.big") == [3]
    assert state.hands["A"] == 5 - 2 + 3


def test_T10_invalid_only_applies_to_holes() -> None:
    state = new()
    refused(state, "Ana>floor~", r"invalid \(T10\) only applies to a drop into a hole")
    refused(state, "Ana>board:B1~", "not to board:B1")


def test_T11_a_bounce_out_is_reported_where_the_palet_rests() -> None:
    # The sensor sees a bounce (not a drop); the referee reports where the palet lies.
    state = new()
    assert play(state, "Ana>board:B1", "Ben>floor") == [0, 0]
    assert printed(state, "holes", "boards", "floor") == (
        {"B1.big": 0, "B1.small": 0},
        {"B1": 1},
        1,
    )


def test_T12_knock_in_applies_the_hole_rule_for_the_thrower() -> None:
    state = new(["A", "B", "C"])
    play(state, "A>board:B1", "B>board:B1", "C>floor")
    # A's palet lands on the floor; it knocks one of B1's palets into B1.small: A takes
    # the floor (C's and A's own) and the knocked palet.
    assert play(state, "A>floor+B1>B1.small") == [3]
    assert printed(state, "boards", "floor") == ({"B1": 1}, 0)


def test_T12_several_holes_apply_as_a_union() -> None:
    state = new(["A", "B", "C"], boards=TWO_BOARDS)
    play(state, "A>board:B1", "B>board:B1", "C>floor", "A>board:B2", "B>floor")
    # C's palet falls validly into B2.big while one of B1's palets is knocked into
    # B1.small: C takes B2 (1), B2.big (own), the floor (2) and B1.small (1); B1 keeps 1.
    assert play(state, "C>B2.big+B1>B1.small") == [5]
    assert printed(state, "boards", "floor") == ({"B1": 1, "B2": 0}, 0)


def test_T12_knock_ins_into_big_and_jackpot_take_each_palet_once() -> None:
    state = new(["A", "B", "C"], boards=hexagon_boards())
    play(state, "A>board:H1", "B>board:H1", "C>floor")
    assert play(state, "A>board:H2+H1>H1.big+H1>jackpot") == [4]  # everything in play
    assert sum(state.boards.values()) + state.floor + sum(state.holes.values()) == 0


def test_T12_knock_in_with_an_invalid_drop_into_the_same_hole_takes_it_too() -> None:
    state = new(["A", "B", "C"])
    play(state, "A>board:B1", "B>floor")
    assert play(state, "C>B1.small~+B1>B1.small") == [3]  # floor 1 + both palets in the hole


def test_T12_knocked_palet_must_come_from_a_board_holding_one() -> None:
    state = new(["A", "B", "C"], boards=TWO_BOARDS)
    refused(state, "A>board:B1+B1>B1.big", "no palet was lying on board B1 before this throw")
    play(state, "A>board:B1")
    refused(state, "B>floor+B1>B1.big+B1>B1.small", "no palet was lying on board B1")
    refused(state, "B>floor+B9>B1.big", "knocked: unknown board 'B9'")
    refused(state, "B>floor+B1>B3.big", "knocked: unknown hole 'B3.big'")
    refused(state, "B>floor+B1>B2.big", "cannot fall into B2.big")


def test_T12_knocked_palet_may_fall_into_a_jackpot_its_board_borders() -> None:
    boards = hexagon_boards() + [{"id": "X", "cell": [0, 0, "down"]}]
    state = new(["A", "B", "C"], boards=boards)
    play(state, "A>board:X", "B>board:H1")
    refused(state, "C>floor+X>jackpot", "cannot fall into jackpot")
    assert play(state, "C>floor+H1>jackpot") == [3]


def test_T13_a_straddling_palet_is_reported_as_in_the_hole_or_on_the_floor() -> None:
    # T13 is the referee's (or the blocked beam's) call: the engine takes the report.
    state = new()
    play(state, "Ana>floor")  # across the board edge and the floor
    assert play(state, "Ben>B1.small") == [2]  # across the board and the hole


# -- T14–T18: end of a round, final, match ---------------------------------------------------


def test_T14_opponent_holding_two_or_more_wins_the_round() -> None:
    state = new(palets_per_player=2)
    play(state, "Ana>floor", "Ben>B1.small", "Ana>floor")  # Ben took the floor: 3
    assert printed(state, "round_results", "rounds_won", "eliminated") == (
        [{"winner": "Ben"}],
        {"Ana": 0, "Ben": 1},
        [],
    )


def test_T14_last_chance_wins_with_two_or_more() -> None:
    state = new(palets_per_player=2)
    play(state, "Ana>floor", "Ben>floor", "Ana>floor")
    assert printed(state, "phase", "to_move") == ("last_chance", "Ben")
    refused(state, "Ana>floor", "it is Ben's turn")
    play(state, "Ben>B1.small")  # takes the 3 on the floor and his own
    assert printed(state, "round_results", "phase") == ([{"winner": "Ben"}], "normal")


def test_T14_last_chance_without_two_palets_is_a_draw() -> None:
    for last in ("Ben>floor", "Ben>B1.big"):  # nothing, or only his own palet back (T9)
        state = new(palets_per_player=2)
        play(state, "Ana>floor", "Ben>floor", "Ana>floor", last)
        assert printed(state, "round_results", "rounds_won") == (
            [{"draw": True}],
            {"Ana": 0, "Ben": 0},
        )


def test_T15_empty_hand_is_eliminated_and_skipped_palets_stay_in_play() -> None:
    state = new(["A", "B", "C"], palets_per_player=1)
    play(state, "A>board:B1")
    assert printed(state, "eliminated", "to_move", "boards") == (["A"], "B", {"B1": 1})
    refused(state, "A>floor", r"A is eliminated from round 1 and does not throw \(T15\)")
    play(state, "B>B1.big")  # B takes A's palet: holds 2
    play(state, "C>floor")  # C out; B is the last one and holds 2: wins
    assert printed(state, "round_results") == ([{"winner": "B"}],)


def test_T15_skips_eliminated_players_in_seat_order() -> None:
    state = new(["A", "B", "C", "D"], palets_per_player=2)
    play(state, "A>floor", "B>floor", "C>floor", "D>floor", "A>B1.small")  # A: 1 + 5
    play(state, "B>floor")
    assert printed(state, "eliminated", "to_move") == (["B"], "C")
    play(state, "C>floor")
    assert state.current_player() == "D"
    play(state, "D>floor")
    assert state.current_player() is not None and state.round == 2  # A won with 6


def test_T15_last_player_with_one_palet_gets_a_last_chance() -> None:
    state = new(["A", "B", "C"], palets_per_player=1)
    play(state, "A>floor", "B>floor")
    assert printed(state, "phase", "to_move", "eliminated") == ("last_chance", "C", ["A", "B"])
    play(state, "C>B1.small")  # 2 from the floor + own = 3: wins
    assert state.round_results == [{"winner": "C"}]


def test_T16_step_back_per_elimination_with_more_than_four_players() -> None:
    state = new(["A", "B", "C", "D", "E"], boards=TWO_BOARDS, palets_per_player=2)
    play(state, "A>floor", "B>floor", "C>floor", "D>floor", "E>floor", "A>floor")
    assert state.to_json()["throw_distance_m"] == 3.3
    play(state, "B>floor")
    assert state.to_json()["throw_distance_m"] == 3.6
    assert state.to_json()["last_events"][-1] == {"type": "step_back", "throw_distance_m": 3.6}


def test_T16_no_step_back_with_four_players_or_fewer() -> None:
    state = new(["A", "B", "C", "D"], palets_per_player=1)
    play(state, "A>floor")
    assert state.to_json()["throw_distance_m"] == 3.0


def test_T16_step_length_is_an_option_and_the_line_resets_each_round() -> None:
    state = new(["A", "B", "C", "D", "E"], boards=TWO_BOARDS, palets_per_player=1, step_back_m=0.25)
    play(state, "A>floor", "B>floor")
    assert state.to_json()["throw_distance_m"] == 3.5
    play(state, "C>B1.small")  # C takes 3: D and E still in; C keeps playing
    play(state, "D>floor")  # D out: C (3) and E (1) remain → final (more than 4 players)
    assert state.to_json()["throw_distance_m"] == 3.75
    play(state, "target:B2.big", "C>B2.big")
    assert printed(state, "round", "throw_distance_m") == (2, 3.0)


def test_T17_final_with_more_than_four_players_target_chosen_by_the_richer() -> None:
    state = new(["A", "B", "C", "D", "E"], boards=TWO_BOARDS, palets_per_player=1)
    play(state, "A>floor", "B>floor", "C>B1.small")  # C takes 3 from the floor
    play(state, "D>floor")
    assert printed(state, "phase", "to_move", "target", "finalists") == (
        "final",
        "C",
        None,
        ["C", "E"],
    )
    assert state.legal_actions() == [
        Target(h) for h in ("B1.big", "B1.small", "B2.big", "B2.small")
    ]
    refused(state, "C>floor", "must first choose the target hole")
    refused(state, "target:jackpot", "unknown hole 'jackpot'")
    play(state, "target:B2.small")
    assert state.log[-1] == {
        "player": "C",
        "action": {"target": "B2.small"},
        "points": 0,
        "round": 1,
    }
    refused(state, "target:B1.big", "already B2.small")


def test_T17_tie_chooser_is_the_one_due_to_throw_next() -> None:
    state = new(["A", "B", "C", "D", "E"], boards=TWO_BOARDS, palets_per_player=1, first="B")
    play(state, "B>floor", "C>floor", "D>floor")  # A and E hold 1 each; E throws next
    assert printed(state, "phase", "to_move") == ("final", "E")


def test_T17_no_hole_takes_anything_in_a_final_and_first_valid_target_drop_wins() -> None:
    state = new(["A", "B", "C", "D", "E"], boards=TWO_BOARDS, palets_per_player=2)
    play(state, "A>floor", "B>floor", "C>floor", "D>B1.big", "E>B1.big")  # D, E keep 2
    play(state, "A>floor", "B>floor", "C>floor")  # A, B, C out → final D v E, tie: D next
    assert printed(state, "phase", "to_move", "floor") == ("final", "D", 6)
    play(state, "target:B1.big")
    assert play(state, "D>B1.small") == [0]  # not the target; the hole takes nothing
    assert state.holes["B1.small"] == 1 and state.floor == 6
    assert play(state, "E>B1.big~") == [0]  # invalid drop into the target: no win
    assert printed(state, "phase", "to_move") == ("final", "D")
    assert play(state, "D>B1.big") == [0]  # D's last palet, valid into the target: wins
    assert state.round_results == [{"winner": "D"}]


def test_T17_knock_in_into_the_target_wins_nothing() -> None:
    state = new(["A", "B", "C", "D", "E"], boards=TWO_BOARDS, palets_per_player=2)
    play(state, "A>board:B1", "B>floor", "C>floor", "D>B1.small", "E>floor")  # D: 4
    play(state, "A>floor", "B>floor", "C>floor")  # final D (4) v E (1): D chooses
    play(state, "target:B1.big")
    assert play(state, "D>floor+B1>B1.big") == [0]
    assert state.holes["B1.big"] == 1 and state.boards["B1"] == 0
    assert printed(state, "phase", "to_move") == ("final", "E")
    play(state, "E>B1.big")
    assert state.round_results == [{"winner": "E"}]


def test_T17_finalist_throwing_the_last_palet_without_scoring_loses() -> None:
    state = new(["A", "B", "C", "D", "E"], boards=TWO_BOARDS, palets_per_player=1)
    play(state, "A>floor", "B>floor", "C>B1.small", "D>floor")  # final: C (3) v E (1)
    play(state, "target:B2.big", "C>floor", "E>floor")  # E's last palet: C wins
    assert state.round_results == [{"winner": "C"}]


def test_T17_hexagon_target_is_the_jackpot_and_a_target_naming_it_is_accepted() -> None:
    state = new(["A", "B", "C"], boards=hexagon_boards(), palets_per_player=1)
    play(state, "A>floor")
    assert printed(state, "phase", "target", "to_move") == ("final", "jackpot", "B")
    refused(state, "target:H1.big", "the target of the final is the jackpot")
    play(state, "target:jackpot")
    assert state.log[-1]["action"] == {"target": "jackpot"}
    assert state.legal_actions()[0] == Throw("B", "board:H1")
    play(state, "B>H2.big")  # stays in the hole; B is out of palets without scoring
    assert state.round_results == [{"winner": "C"}]


def test_T17_hexagon_final_first_valid_jackpot_drop_wins() -> None:
    state = new(["A", "B", "C"], boards=hexagon_boards(), palets_per_player=2)
    play(state, "A>floor", "B>floor", "C>floor", "A>floor")  # A out: B v C, 1 each, B next
    play(state, "B>jackpot")
    assert state.round_results == [{"winner": "B"}]


def test_T17_several_hexagons_the_finalist_names_a_jackpot() -> None:
    state = new(["A", "B", "C"], boards=TWO_HEXAGONS, palets_per_player=1)
    play(state, "A>floor")
    assert printed(state, "phase", "target") == ("final", None)
    assert state.legal_actions() == [Target("jackpot.1"), Target("jackpot.2")]
    refused(state, "target:C1.big", "must be one of the jackpots")
    play(state, "target:jackpot.2", "B>jackpot.1")  # not the target: B loses
    assert state.round_results == [{"winner": "C"}]


def test_T17_a_round_starting_with_two_players_is_never_a_final() -> None:
    state = new(["A", "B"], boards=hexagon_boards(), palets_per_player=1)
    play(state, "A>floor")
    assert printed(state, "phase") == ("last_chance",)


def test_T17_no_final_with_four_players_or_fewer_without_hexagon() -> None:
    state = new(["A", "B", "C", "D"], palets_per_player=1)
    play(state, "A>floor", "B>floor")
    assert printed(state, "phase", "to_move") == ("normal", "C")
    refused(state, "target:B1.big", "no final is being played")


def test_T17_finals_option_never_and_always() -> None:
    never = new(["A", "B", "C"], boards=hexagon_boards(), palets_per_player=1, finals="never")
    play(never, "A>floor")
    assert never.phase == "normal"
    always = new(["A", "B", "C"], palets_per_player=1, finals="always")
    play(always, "A>floor")
    assert always.phase == "final"


def test_T17_final_holes_take_option_keeps_other_holes_working() -> None:
    state = new(
        ["A", "B", "C", "D", "E"], boards=TWO_BOARDS, palets_per_player=2, final_holes_take=True
    )
    play(state, *[f"{p}>floor" for p in "ABCDE"], "A>floor", "B>floor", "C>floor")
    play(state, "target:B1.big")
    assert play(state, "D>B1.small") == [9]  # 8 on the floor + own, since holes still take
    assert state.phase == "final"


def test_T18_match_to_rounds_to_win_and_draws_count_for_nobody() -> None:
    state = new(palets_per_player=1, rounds_to_win=2)
    play(state, "Ana>floor", "Ben>floor")  # draw
    play(state, "Ana>floor", "Ben>B1.small")  # Ben: floor + own = 2 → wins round 2
    assert state.rounds_won == {"Ana": 0, "Ben": 1}
    play(state, "Ben>floor", "Ana>B1.small")
    play(state, "Ana>floor", "Ben>floor")  # draw: Ana started, Ana starts again
    play(state, "Ana>floor", "Ben>B1.small")
    out = state.to_json()
    assert out["status"] == "match_over" and out["winner"] == "Ben" and out["to_move"] is None
    assert out["round_results"] == [
        {"draw": True},
        {"winner": "Ben"},
        {"winner": "Ana"},
        {"draw": True},
        {"winner": "Ben"},
    ]
    assert out["scores"] == {"Ana": 1, "Ben": 2} and state.is_terminal()
    assert state.legal_actions() == []
    with pytest.raises(GameOverError, match="the match is over: Ben won it"):
        state.apply(Throw("Ben", "floor"))


def test_T18_rounds_to_win_option() -> None:
    state = new(palets_per_player=1, rounds_to_win=1)
    play(state, "Ana>floor", "Ben>B1.small")
    assert state.winner() == "Ben"


# -- T19–T21: several boards ---------------------------------------------------------------------


def test_T21_big_hole_takes_only_its_board_small_and_jackpot_the_shared_floor() -> None:
    state = new(["A", "B", "C"], boards=hexagon_boards())
    play(state, "A>board:H1", "B>board:H2", "C>floor", "A>H2.big")
    assert state.boards == {"H1": 1, "H2": 0, "H3": 0, "H4": 0, "H5": 0, "H6": 0}
    play(state, "B>H5.small")
    assert state.floor == 0 and state.boards["H1"] == 1


# -- actions, notation and errors --------------------------------------------------------------


def test_log_shows_the_action_as_given() -> None:
    state = new()
    given = {"throw": {"player": "Ana", "to": "floor", "invalid": False, "knocked": []}}
    state.apply(parse_action(given))
    assert state.to_json()["log"][0]["action"] == given


def test_legal_actions_list_every_destination_for_the_player_to_move() -> None:
    state = new(["A", "B", "C"], boards=TWO_BOARDS)
    assert [a.to_str() for a in state.legal_actions()] == [
        "A>board:B1",
        "A>board:B2",
        "A>floor",
        "A>B1.big",
        "A>B1.small",
        "A>B2.big",
        "A>B2.small",
    ]
    for action in state.legal_actions():
        state.clone().apply(action)


