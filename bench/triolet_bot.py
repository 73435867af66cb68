"""Triolet bot against the greedy player (highest score now): win rate over seeded games.

Two players; seats alternate (the bot is P1 on even seeds, P2 on odd ones) and the first
player is drawn by the seed. A draw counts half. The 95% interval is Wilson's.

    .venv/bin/python bench/triolet_bot.py [--games 400] [--budget 0.1] [--jobs 1]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.triolet.bot import choose, greedy_choose  # noqa: E402
from engines.triolet.game import TrioletGame  # noqa: E402


def play_game(seed: int, budget: float) -> tuple[int, float, int, int]:
    """(seed, the bot's result 1/0.5/0, bot score, greedy score)."""
    bot_seat = seed % 2
    game = TrioletGame({"players": ["P1", "P2"]})
    state = game.new_initial_state(random.Random(seed))
    rng = random.Random(seed * 7919 + 1)
    while not state.is_terminal():
        if state.to_move == bot_seat:
            action = choose(state, rng, budget)
        else:
            action = greedy_choose(state, rng, 0.0)
        state.apply(action)
    mine, theirs = state.score_list[bot_seat], state.score_list[1 - bot_seat]
    result = 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    return seed, result, mine, theirs


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--budget", type=float, default=0.1, help="bot seconds per move")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    start = time.perf_counter()
    score = 0.0
    margins: list[int] = []
    done = 0
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(play_game, s, args.budget) for s in range(args.games)]
        for future in futures:
            _, result, mine, theirs = future.result()
            done += 1
            score += result
            margins.append(mine - theirs)
            if done % 20 == 0 or done == args.games:
                low, high = wilson(score, done)
                print(
                    f"  {done}/{args.games} games: bot {score / done:.1%} "
                    f"[{low:.1%}, {high:.1%}], {time.perf_counter() - start:.0f} s",
                    flush=True,
                )
    low, high = wilson(score, args.games)
    print(
        f"bot vs greedy, {args.games} games, budget {args.budget} s/move: win rate "
        f"{score / args.games:.1%} (95% CI {low:.1%}-{high:.1%}), mean margin "
        f"{sum(margins) / len(margins):+.1f} points, {time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
