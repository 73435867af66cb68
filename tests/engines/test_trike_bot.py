"""Trike solver and bot: agreement with brute force, tactics (K5, K6) and the pie swap (K3)."""

from __future__ import annotations

import random
from functools import cache

import pytest

from engines.trike import TrikeAction, TrikeGame, TrikeState, bot
from engines.trike.board import geometry
from engines.trike.search import (
    Position,
    one_ply_move,
    tactical_move,
    tactical_playout,
    uniform_playout,
)
from engines.trike.solver import Solver, analyze, solve_openings


def brute_force_mover_wins(state: TrikeState) -> bool:
    """Plain minimax over the rules engine (no pruning, no tactics): does the colour to
    move win? Memoised on (black, white, pawn). The pie rule must be off."""

    @cache
    def wins(black: int, white: int, pawn: int) -> bool:
        s = state.clone()
        s.black, s.white, s.pawn = black, white, pawn
        mover = s.colour_to_move()
        for action in s.legal_actions():
            after = s.clone()
            after.apply(action)
            if after.is_terminal():
                if after.winner_colour() == mover:
                    return True
            elif not wins(after.black, after.white, after.pawn):
                return True
        return False

    return wins(state.black, state.white, state.pawn)


def random_position(size: int, stones: int, rng: random.Random) -> TrikeState:
    while True:
        state = TrikeGame({"size": size, "pie": False}).new_initial_state(rng)
        for _ in range(stones):
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            return state


@pytest.mark.parametrize("size", [3, 4])
def test_solver_openings_agree_with_brute_force(size: int) -> None:
    solved = solve_openings(size)
    game = TrikeGame({"size": size, "pie": False})
    for cell, name in enumerate(geometry(size).names):
        state = game.new_initial_state(random.Random(0))
        state.apply(TrikeAction(cell))
        assert solved[name] == (not brute_force_mover_wins(state)), name


def test_solved_facts_side_3_and_symmetry_sides_4_5() -> None:
    # rules/trike.md: on n = 3 the corner openings lose, the others win
    assert solve_openings(3) == {"a1": False, "b1": True, "b2": True, "c1": False,
                                 "c2": True, "c3": False}
    for size in (4, 5):
        geo = geometry(size)
        solved = solve_openings(size)
        for perm in geo.symmetries():
            assert all(solved[geo.names[i]] == solved[geo.names[perm[i]]] for i in range(geo.cells))


@pytest.mark.parametrize("size,stones", [(5, 3), (5, 6), (6, 10), (7, 16)])
def test_solver_agrees_with_brute_force_on_random_positions(size: int, stones: int) -> None:
    rng = random.Random(size * 100 + stones)
    solver = Solver()
    for _ in range(6):
        state = random_position(size, stones, rng)
        assert solver.wins(Position.from_state(state)) == brute_force_mover_wins(state)


def test_analyze_labels_agree_with_brute_force() -> None:
    rng = random.Random(7)
    for _ in range(4):
        state = random_position(5, 4, rng)
        labels = analyze(state, budget=10)["moves"]
        for action in state.legal_actions():
            after = state.clone()
            after.apply(action)
            if after.is_terminal():
                won = after.winner_colour() == state.colour_to_move()
            else:
                won = not brute_force_mover_wins(after)
            assert labels[action.to_str()] == ("win" if won else "loss")


def test_analyze_budget_runs_out_to_unknown() -> None:
    state = TrikeGame({"size": 13}).new_initial_state(random.Random(0))
    state.apply(TrikeAction(45))
    state.apply(TrikeAction(geometry(13).index("g1")))
    out = analyze(state, budget=0.2)
    assert set(out["moves"].values()) == {"unknown"} and out["to_move"] == "black"


def test_K5_K6_playouts_end_with_a_winner() -> None:
    rng = random.Random(3)
    for size in (3, 9, 13):
        for playout in (uniform_playout, tactical_playout):
            pos = Position.empty(size)
            pos.play(rng.randrange(geometry(size).cells))
            assert playout(pos, rng.random) in (1, 2)


def test_K6_bot_takes_the_winning_trap_and_policies_do_too() -> None:
    game = TrikeGame({"size": 3})
    state = game.new_initial_state(random.Random(0))
    for cell in ("b1", "c1", "c2", "b2"):
        state.apply(game.parse_action(cell))
    assert bot.choose(state, random.Random(0), 0.2).to_str() == "a1"
    pos = Position.from_state(state)
    assert tactical_move(pos, random.Random(0).random) == 0
    assert one_ply_move(pos, random.Random(0).random) == 0
    assert bot.hint(state, 0.2) == {"action": "a1", "why": "wins by force (proved)"}


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
