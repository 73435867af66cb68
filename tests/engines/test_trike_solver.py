"""Trike exact solver (engines/trike/solver.py): agreement with brute force, the solved facts, analyze."""

from __future__ import annotations

import random

import pytest

from engines.trike import TrikeAction, TrikeGame
from engines.trike.board import geometry
from engines.trike.search import Position
from engines.trike.solver import Solver, analyze, solve_openings
from tests.engines.trike_positions import brute_force_mover_wins, random_position


@pytest.mark.parametrize("size", [3, 4])
def test_solver_openings_agree_with_brute_force(size: int) -> None:
    solved = solve_openings(size)
    game = TrikeGame({"size": size, "pie": False})
    for cell, name in enumerate(geometry(size).names):
        state = game.new_initial_state(random.Random(0))
        state.apply(TrikeAction(cell))
        assert solved[name] == (not brute_force_mover_wins(state)), name


def test_solved_facts_side_3_and_symmetry_sides_4_5() -> None:
    # docs/rules/trike.md: on n = 3 the corner openings lose, the others win
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
