"""Shared helpers of the Triolet tests: a brute-force play finder and seeded playouts."""

from __future__ import annotations

import itertools
import random

from engines.core import IllegalMoveError
from engines.triolet.board import (
    ACROSS,
    DOWN,
    JOKER,
    SIZE,
    Board,
    Play,
    check_play,
    index,
)
from engines.triolet.game import TrioletGame, TrioletState


def brute_force_plays(board: Board, rack: list[int]) -> set[tuple[int, Play]]:
    """Every (points, play) found by trying every cell shape, rack order and joker value
    through the plain checker: the reference the fast generator must match."""
    shapes: list[tuple[int, ...]] = []
    for r in range(SIZE):
        for c in range(SIZE):
            i = index(r, c)
            shapes.append((i,))
            for d, room in ((ACROSS, SIZE - 1 - c), (DOWN, SIZE - 1 - r)):
                if room >= 1:
                    shapes.append((i, i + d))
                if room >= 2:
                    shapes.append((i, i + 2 * d))
                    shapes.append((i, i + d, i + 2 * d))
    found: set[tuple[int, Play]] = set()
    for cells in shapes:
        for order in set(itertools.permutations(rack, len(cells))):
            if order.count(JOKER) > 1:
                continue
            value_lists = [range(16) if t == JOKER else [t] for t in order]
            for values in itertools.product(*value_lists):
                placed = [(i, v, t == JOKER) for i, t, v in zip(cells, order, values, strict=True)]
                try:
                    points, _, _ = check_play(board, placed)
                except IllegalMoveError:
                    continue
                found.add((points, tuple(zip(cells, order, values, strict=True))))
    return found


def random_playout(
    seed: int, players: int = 2, stop_after: int | None = None
) -> tuple[TrioletState, list[object]]:
    """A seeded game of random legal actions (plays preferred to exchanges)."""
    names = [f"P{k + 1}" for k in range(players)]
    game = TrioletGame({"players": names})
    rng = random.Random(seed)
    state = game.new_initial_state(random.Random(seed))
    actions: list[object] = []
    while not state.is_terminal() and (stop_after is None or len(actions) < stop_after):
        legal = state.legal_actions()
        plays = [a for a in legal if "play" in str(game.action_to_json(a))]
        action = rng.choice(plays) if plays and rng.random() < 0.95 else rng.choice(legal)
        actions.append(game.action_to_json(action))
        state.apply(action)
    return state, actions
