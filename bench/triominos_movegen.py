"""Legal placements generated per second on mid-game Triominos positions.

Positions: for seeds 1..N, a two-player game played greedily until 20 tiles are on the
table (or it ends), classic set unless --set. Each position's generator runs --repeat
times; both the raw generator (`placements()`: cell key + placement id, what search uses)
and `legal_actions()` (Place/Draw/Pass objects, what the hub uses) are timed.

    .venv/bin/python bench/triominos_movegen.py --positions 200 --repeat 300
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from engines.triominos import TriominosGame, TriominosState
from engines.triominos.bot import greedy_choose


def mid_game(seed: int, set_name: str, tiles: int) -> TriominosState | None:
    state = TriominosGame({"set": set_name}).new_initial_state(random.Random(seed))
    rng = random.Random(seed)
    while not state.is_terminal() and len(state.board) < tiles:
        state.apply(greedy_choose(state, rng))
    return None if state.is_terminal() else state


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=300)
    parser.add_argument("--tiles", type=int, default=20, help="tiles on the table")
    parser.add_argument("--set", default="classic", choices=["classic", "excel"])
    args = parser.parse_args()
    positions = []
    seed = 0
    while len(positions) < args.positions:
        seed += 1
        found = mid_game(seed, args.set, args.tiles)
        if found is not None:
            positions.append(found)
    frontier = sum(len(s.board.frontier) for s in positions) / len(positions)
    # every (frontier cell, placement of a rack tile) pair is a candidate the generator
    # judges with one mask AND: the constant-time legality check
    candidates = sum(
        len(s.board.frontier) * bin(s.hand_mask(s.to_move)).count("1") for s in positions
    )
    per_position = sum(len(s.placements()) for s in positions) / len(positions)
    print(
        f"{len(positions)} positions with {args.tiles} tiles ({args.set}): "
        f"{frontier:.1f} frontier cells, {per_position:.1f} legal placements on average",
        file=sys.stderr,
    )
    for label, generate in (
        ("placements()", lambda s: s.placements()),
        ("legal_actions()", lambda s: s.legal_actions()),
    ):
        count = 0
        start = time.perf_counter()
        for state in positions:
            for _ in range(args.repeat):
                count += len(generate(state))
        elapsed = time.perf_counter() - start
        calls = len(positions) * args.repeat
        print(
            f"{label}: {count / elapsed:,.0f} legal placements/s, "
            f"{calls / elapsed:,.0f} positions/s, "
            f"{candidates * args.repeat / elapsed:,.0f} candidates judged/s "
            f"({calls} calls, {elapsed:.2f} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
