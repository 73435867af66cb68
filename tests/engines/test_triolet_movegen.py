"""The fast Triolet move generator (engines/triolet/movegen.py) against brute force over the plain checker (L3–L12)."""

from __future__ import annotations

import itertools
import random

import pytest

from engines.core import IllegalMoveError
from engines.triolet import PlayTokens, TrioletGame
from engines.triolet.board import (
    ACROSS,
    DOWN,
    JOKER,
    SIZE,
    Board,
    Play,
    cell_index,
    check_play,
    index,
)
from engines.triolet.movegen import generate


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


@pytest.mark.slow  # about 9 s: brute force over every cell shape, order and joker value
def test_generator_complete_against_brute_force() -> None:
    checked = 0
    for seed in (11, 12):
        state = TrioletGame({"players": ["P1", "P2"]}).new_initial_state(random.Random(seed))
        rng = random.Random(seed)
        turn = 0
        while not state.is_terminal() and checked < 12 + 6 * (seed - 11):
            rack = state.racks[state.to_move]
            if turn % 5 == 0 or JOKER in rack:
                fast = generate(state.board, rack)
                assert len(fast) == len(set(fast)), "no play twice"
                assert set(fast) == brute_force_plays(state.board, rack)
                checked += 1
            legal = state.legal_actions()
            plays = [a for a in legal if isinstance(a, PlayTokens)]
            state.apply(rng.choice(plays or legal))
            turn += 1
    assert checked >= 12


def test_generator_matches_brute_force_on_an_opening_and_a_joker_rack() -> None:
    """The quick check of the fast loop (the slow test above walks whole games)."""
    state = TrioletGame({"players": ["P1", "P2"]}).new_initial_state(random.Random(11))
    rack = state.racks[state.to_move]
    assert set(generate(state.board, rack)) == brute_force_plays(state.board, rack)
    board = Board()
    for cell, value in (("H8", 7), ("H9", 8), ("G8", 3)):
        board.place(cell_index(cell), value, False)
    assert set(generate(board, [JOKER, 5])) == brute_force_plays(board, [JOKER, 5])
