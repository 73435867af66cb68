"""Win rate of the Trike bot against a simple policy, alternating colours.

    python bench/trike_match.py --opponent random --games 200 --budget 1.0 --size 9

Prints one progress line per game and, at the end, the win rate with a 95% Wilson
interval. The pie rule is on (the default); the random opponent picks uniformly among
all legal actions (swap included), the one-ply opponent never swaps.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time

from engines.trike import bot
from engines.trike.actions import TrikeAction
from engines.trike.game import TrikeGame, TrikeState
from engines.trike.search import Position, one_ply_move, tactical_move


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return centre - half, centre + half


def opponent_move(kind: str, state: TrikeState, rng: random.Random) -> TrikeAction:
    if kind == "random":
        return rng.choice(state.legal_actions())
    pos = Position.from_state(state)
    policy = one_ply_move if kind == "oneply" else tactical_move
    return TrikeAction(policy(pos, rng.random))


def play(size: int, bot_first: bool, kind: str, budget: float, seed: int) -> tuple[bool, int]:
    game = TrikeGame({"size": size, "players": ["bot", "opp"] if bot_first else ["opp", "bot"]})
    state = game.new_initial_state(random.Random(seed))
    rng_bot, rng_opp = random.Random(seed * 2 + 1), random.Random(seed * 2 + 2)
    plies = 0
    while not state.is_terminal():
        if state.current_player() == "bot":
            action = bot.choose(state, rng_bot, budget)
        else:
            action = opponent_move(kind, state, rng_opp)
        state.apply(action)
        plies += 1
    return state.winner() == "bot", plies


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--opponent", choices=["random", "oneply", "tactical"], default="random")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--budget", type=float, default=1.0, help="bot seconds per move")
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    wins = 0
    start = time.time()
    for g in range(args.games):
        bot_first = g % 2 == 0
        won, plies = play(args.size, bot_first, args.opponent, args.budget, args.seed * 100003 + g)
        wins += won
        lo, hi = wilson(wins, g + 1)
        print(f"game {g + 1}: bot {'first' if bot_first else 'second'} "
              f"{'won' if won else 'LOST'} in {plies} plies; {wins}/{g + 1} = "
              f"{wins / (g + 1):.1%} [95% CI {lo:.1%}, {hi:.1%}] {time.time() - start:.0f}s",
              flush=True)
    lo, hi = wilson(wins, args.games)
    print(f"RESULT opponent={args.opponent} size={args.size} budget={args.budget}s "
          f"games={args.games} wins={wins} rate={wins / max(1, args.games):.1%} "
          f"95% CI [{lo:.1%}, {hi:.1%}]", file=sys.stdout, flush=True)


if __name__ == "__main__":
    main()
