"""Trike playouts per second (one core, pure Python).

    python bench/trike_playouts.py --size 13 --seconds 3 --repeats 5

Each playout starts on the empty board (a uniformly random opening) and plays to the end.
Prints the mean rate over the repeats with a 95% confidence interval (t distribution), for
uniform random playouts and for the bot's tactical (two-ply) playouts.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from engines.trike.search import Position, tactical_playout, uniform_playout

T95 = {2: 12.71, 3: 4.30, 4: 3.18, 5: 2.78, 6: 2.57, 7: 2.45, 8: 2.36, 9: 2.31, 10: 2.26}


def rate(size: int, seconds: float, playout: str, seed: int) -> float:
    rnd = random.Random(seed).random
    start_pos = Position.empty(size)
    run = uniform_playout if playout == "uniform" else tactical_playout
    count = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(50):
            run(start_pos.copy(), rnd)
        count += 50
    return count / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", type=int, nargs="+", default=[13])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--kind", choices=["uniform", "tactical", "both"], default="both")
    args = ap.parse_args()
    kinds = ["uniform", "tactical"] if args.kind == "both" else [args.kind]
    for size in args.size:
        for kind in kinds:
            rates = [rate(size, args.seconds, kind, seed) for seed in range(args.repeats)]
            mean = statistics.mean(rates)
            half = T95.get(len(rates), 2.0) * statistics.stdev(rates) / len(rates) ** 0.5 if len(rates) > 1 else 0.0
            print(f"size {size} {kind}: {mean:,.0f} playouts/s "
                  f"[95% CI {mean - half:,.0f}, {mean + half:,.0f}] "
                  f"runs {', '.join(f'{r:,.0f}' for r in rates)}", flush=True)


if __name__ == "__main__":
    main()
