"""Trike solver and bot: agreement with brute force, tactics (K5, K6) and the pie swap (K3)."""

from __future__ import annotations

import random

import pytest

from engines.trike import TrikeAction, TrikeGame, bot
from engines.trike.board import geometry
from engines.trike.search import (
    Position,
    one_ply_move,
    tactical_move,
)
from engines.trike.solver import Solver
from tests.engines.trike_positions import brute_force_mover_wins, random_position


def test_K6_bot_takes_the_winning_trap_and_policies_do_too() -> None:
    game = TrikeGame({"size": 3})
    state = game.new_initial_state(random.Random(0))
    for cell in ("b1", "c1", "c2", "b2"):
        state.apply(game.parse_action(cell))
    assert bot.choose(state, random.Random(0), 0.2).to_str() == "a1"
    pos = Position.from_state(state)
    assert tactical_move(pos, random.Random(0).random) == 0
    assert one_ply_move(pos, random.Random(0).random) == 0
    assert bot.hint(state, 0.2) == {"action": "a1", "why": "wins by force (proved)", "reason": {"kind": "proved_win"}}


def test_K5_K6_one_ply_policy_and_bot_never_walk_into_a_losing_trap() -> None:
    game = TrikeGame({"size": 4, "pie": False})
    # pawn on b2 (black): White to move; a1 is enclosed by b1 and b2
    win = game.new_initial_state(random.Random(0), {"stones": {"b1": "white", "b2": "black"},
                                                    "pawn": "b2"})
    assert Position.from_state(win).winning_trap() == 0  # a1: White 2 (a1, b1), Black 1
    lose = game.new_initial_state(random.Random(0), {"stones": {"b1": "black", "b2": "black"},
                                                     "pawn": "b2"})
    pos = Position.from_state(lose)  # a1 would end 2-1 for Black: a losing trap for White
    assert pos.winning_trap() == -1 and "a1" in lose.to_json()["legal_moves"]
    for seed in range(20):
        assert one_ply_move(pos, random.Random(seed).random) != 0
        assert tactical_move(pos, random.Random(seed).random) != 0
    assert bot.choose(lose, random.Random(0), 0.2).to_str() != "a1"


@pytest.mark.parametrize("opening,swaps", [("a1", False), ("c3", False), ("b1", True), ("c2", True)])
def test_K3_bot_swaps_exactly_when_the_opening_wins_for_the_placer(opening: str, swaps: bool) -> None:
    game = TrikeGame({"size": 3})
    state = game.new_initial_state(random.Random(0))
    state.apply(game.parse_action(opening))
    action = bot.choose(state, random.Random(1), 0.5)
    assert action.is_swap == swaps
    after = state.clone()
    after.apply(action)  # and whatever it does, it then wins against perfect play
    if not after.is_terminal():  # no swap is possible any more: brute force applies
        assert not brute_force_mover_wins(after)


def test_bot_plays_legal_moves_to_the_end_on_side_9() -> None:
    rng = random.Random(5)
    state = TrikeGame({"size": 9}).new_initial_state(rng)
    while not state.is_terminal():
        if len(state.log) % 2 == 0:
            action = bot.decide(state, rng, 1.0, max_playouts=60)[0]
        else:
            action = rng.choice(state.legal_actions())
        assert action in state.legal_actions()
        state.apply(action)
    assert state.winner() is not None


def test_search_with_a_playout_budget_is_deterministic() -> None:
    state = TrikeGame({"size": 7}).new_initial_state(random.Random(0))
    state.apply(TrikeAction(10))
    state.apply(TrikeAction(None))
    a = bot.decide(state, random.Random(4), 10.0, max_playouts=300)
    b = bot.decide(state, random.Random(4), 10.0, max_playouts=300)
    assert a == b and a[0] in state.legal_actions()


def test_K2_bot_considers_one_opening_per_symmetry_class() -> None:
    pos = Position.empty(9, pie=True)
    search = bot.Search(pos, random.Random(0))
    search.run(max_playouts=50)
    assert search.root.moves is not None
    geo = geometry(9)
    orbits = {min(perm[c] for perm in geo.symmetries()) for c in range(geo.cells)}
    assert sorted(search.root.moves) == sorted(orbits) and len(orbits) == 10  # (45 + 3 * 5) / 6


def test_search_proved_at_the_root_still_names_the_winning_move() -> None:
    rng = random.Random(11)
    solver = Solver()
    checked = 0
    while checked < 5:
        state = random_position(6, 12, rng)
        pos = Position.from_state(state)
        if pos.winning_trap() >= 0 or not solver.wins(pos):
            continue
        search = bot.Search(pos, random.Random(0))
        search.run(max_playouts=1)
        move, why = search.best()
        after = pos.copy()
        after.play(move)
        won = after.winner() == pos.to_move if after.is_over() else not solver.wins(after)
        assert won, why
        checked += 1
