"""Trike positions for the solver and bot tests: a brute-force oracle and random positions."""

from __future__ import annotations

import random
from functools import cache

from engines.trike import TrikeGame, TrikeState


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
