"""Trike search positions and playout policies (engines/trike/search.py): K5, K6 tactics."""

from __future__ import annotations

import random

from engines.trike import TrikeGame
from engines.trike.board import geometry
from engines.trike.search import (
    Position,
    tactical_playout,
    uniform_playout,
)


def test_K5_K6_playouts_end_with_a_winner() -> None:
    rng = random.Random(3)
    for size in (3, 9, 13):
        for playout in (uniform_playout, tactical_playout):
            pos = Position.empty(size)
            pos.play(rng.randrange(geometry(size).cells))
            assert playout(pos, rng.random) in (1, 2)


def test_K4_K5_position_mirrors_the_rules_engine_along_a_random_game() -> None:
    """The search's bitboard position gives the same moves, end and winner as the
    rules engine, move after move (the swap excluded: the pie rule is off)."""
    rng = random.Random(8)
    for size in (4, 7):
        state = TrikeGame({"size": size, "pie": False}).new_initial_state(rng)
        pos = Position.from_state(state)
        while not state.is_terminal():
            assert sorted(pos.moves()) == [a.cell for a in state.legal_actions()]
            assert not pos.is_over()
            action = rng.choice(state.legal_actions())
            state.apply(action)
            assert action.cell is not None
            pos.play(action.cell)
            assert pos.key() == Position.from_state(state).key()
        assert pos.is_over()
        winner = state.winner_colour()
        assert pos.winner() == (1 if winner == "black" else 2)
