"""Exact Trike solver: time to solve positions by the size of the pawn's region, and the
whole-board solve of the small boards.

    python bench/trike_solver.py --size 13 --samples 30 --buckets 12 16 20 24
    python bench/trike_solver.py --openings 3 4 5

Positions come from uniform random play on the given board (seeded), stopped at the
first position whose region (the empty cells the pawn can still reach) is within two
cells of the bucket size (bucket 20 = regions of 18–20 cells... see BUCKET_WIDTH). Each
solve starts with an empty table. Prints median, 90th percentile and max seconds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from engines.trike.board import geometry
from engines.trike.search import Position
from engines.trike.solver import OutOfBudget, Solver, solve_openings

BUCKET_WIDTH = 4  # bucket b holds regions of b-3 .. b cells


def sample(size: int, low: int, high: int, rng: random.Random) -> Position:
    while True:
        pos = Position.empty(size)
        pos.play(rng.randrange(geometry(size).cells))
        while not pos.is_over():
            region = pos.region_size(high)
            if low <= region <= high:
                return pos
            if region < low:
                break
            moves = pos.moves()
            pos.play(moves[int(rng.random() * len(moves))])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", type=int, default=13)
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--buckets", type=int, nargs="*", default=[12, 16, 20, 24])
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per solve")
    ap.add_argument("--openings", type=int, nargs="*", default=[])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-entries", type=int, default=4_000_000, help="solver table cap")
    args = ap.parse_args()
    for size in args.openings:
        start = time.perf_counter()
        solver = Solver(max_entries=args.max_entries)
        result = solve_openings(size, solver)
        names = geometry(size).names
        wins = [n for n in names if result[n]]
        print(f"side {size}: solved in {time.perf_counter() - start:.2f}s; openings that win "
              f"for the placer ({len(wins)}/{len(names)}): {' '.join(wins) or '-'}; "
              f"losing: {' '.join(n for n in names if not result[n]) or '-'}", flush=True)
    rng = random.Random(args.seed)
    for bucket in args.buckets:
        times, nodes, timeouts = [], [], 0
        for _ in range(args.samples):
            pos = sample(args.size, bucket - BUCKET_WIDTH + 1, bucket, rng)
            solver = Solver()
            start = time.perf_counter()
            try:
                solver.wins(pos, deadline=start + args.timeout)
            except OutOfBudget:
                timeouts += 1
            times.append(time.perf_counter() - start)
            nodes.append(solver.nodes)
        times.sort()
        p90 = times[int(0.9 * (len(times) - 1))]
        print(f"side {args.size} region {bucket - BUCKET_WIDTH + 1}-{bucket} cells: "
              f"median {statistics.median(times) * 1000:.1f} ms, p90 {p90 * 1000:.1f} ms, "
              f"max {times[-1] * 1000:.1f} ms, median nodes {statistics.median(nodes):.0f}, "
              f"n={len(times)}, timeouts {timeouts}", flush=True)


if __name__ == "__main__":
    main()
