"""Win rate of the Triominos bot against the greedy highest-score-now player.

Two-player games (one round each, Goliath rules, classic set unless --set), seeded
1..N; the bot sits first in odd games and second in even ones (who starts is drawn by
M3 anyway). A draw counts half. Prints progress on stderr and the result with its 95 %
Wilson confidence interval.

    .venv/bin/python bench/triominos_bot.py --games 400 --budget 0.02
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time

from engines.triominos import TriominosGame, TriominosState
from engines.triominos.bot import choose, greedy_choose


def play(seed: int, bot_first: bool, budget: float, options: dict[str, object]) -> float:
    """1 if the bot wins, 0.5 for a tie, 0 if greedy wins."""
    names = ["bot", "greedy"] if bot_first else ["greedy", "bot"]
    game = TriominosGame({**options, "players": names})
    state: TriominosState = game.new_initial_state(random.Random(seed))
    rng = random.Random(seed * 7919)
    while not state.is_terminal():
        if state.current_player() == "bot":
            action = choose(state, rng, budget)
        else:
            action = greedy_choose(state, rng)
        state.apply(action)
    scores = state.scores()
    if scores["bot"] == scores["greedy"]:
        return 0.5
    return 1.0 if scores["bot"] > scores["greedy"] else 0.0


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--budget", type=float, default=0.02, help="bot seconds per move")
    parser.add_argument("--set", default="classic", choices=["classic", "excel"])
    parser.add_argument("--rules", default="goliath", choices=["goliath", "pressman"])
    args = parser.parse_args()
    options: dict[str, object] = {"set": args.set, "rules": args.rules}
    total = 0.0
    wins = ties = 0
    start = time.perf_counter()
    for seed in range(1, args.games + 1):
        result = play(seed, seed % 2 == 1, args.budget, options)
        total += result
        wins += result == 1.0
        ties += result == 0.5
        if seed % 20 == 0 or seed == args.games:
            print(
                f"  {seed}/{args.games} games, bot {total / seed:.1%} "
                f"({time.perf_counter() - start:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    n = args.games
    rate = total / n
    low, high = wilson(rate, n)
    print(
        f"bot vs greedy, {n} two-player games ({args.set}, {args.rules}, budget {args.budget}s): "
        f"won {wins}, tied {ties}, lost {n - wins - ties}; "
        f"win rate {rate:.1%} (95% CI {low:.1%}-{high:.1%}); "
        f"{time.perf_counter() - start:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
