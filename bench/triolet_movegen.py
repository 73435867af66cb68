"""Triolet move generator speed: plays generated and scored per second, mid-game.

Positions come from seeded greedy games (turns 8 to 30 of each); every timed call
generates and scores every legal play of the mover's rack (jokers expanded to each value).

    .venv/bin/python bench/triolet_movegen.py [--games 40] [--repeat 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.triolet.board import Board  # noqa: E402
from engines.triolet.game import TrioletGame  # noqa: E402
from engines.triolet.movegen import generate  # noqa: E402


def positions(games: int) -> list[tuple[Board, list[int]]]:
    found: list[tuple[Board, list[int]]] = []
    game = TrioletGame({"players": ["A", "B"]})
    for seed in range(games):
        state = game.new_initial_state(random.Random(seed))
        turn = 0
        while not state.is_terminal():
            plays = state.plays()
            if 8 <= turn <= 30 and plays:
                found.append((state.board.copy(), list(state.racks[state.to_move])))
            if plays:
                state.apply(state.play_action(max(plays, key=lambda p: p[0])[1]))
            else:
                state.apply(state.legal_actions()[0])
            turn += 1
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    cases = positions(args.games)
    counts = [len(generate(b, r)) for b, r in cases]
    rates = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        total = 0
        for board, rack in cases:
            total += len(generate(board, rack))
        elapsed = time.perf_counter() - start
        rates.append(total / elapsed)
        print(f"  {total} plays in {elapsed:.3f} s: {total / elapsed:,.0f} plays/s", flush=True)
    print(
        f"{len(cases)} mid-game positions, plays per position: median "
        f"{statistics.median(counts)}, max {max(counts)}; best of {args.repeat}: "
        f"{max(rates):,.0f} plays/s ({len(cases) * max(rates) / sum(counts):,.0f} positions/s), "
        f"median {statistics.median(rates):,.0f} plays/s"
    )


if __name__ == "__main__":
    main()
