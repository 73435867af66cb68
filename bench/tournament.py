"""Tournament benchmark (issues 16, 25): a Swiss round paired for 2,048 players (limit
1 s), and the standings after 9 rounds recomputed from the results (limit 50 ms at 512
players).

A 2,048-player Swiss tournament (duels, default tie-breaks including head-to-head) is
played with seeded random results; every round's draw is timed (rounds 1 to 9: later
rounds have more opponents to avoid), then the standings after round 9 are recomputed
``--repeat`` times. Also timed: the replay of the whole log (what a restart costs).

    python bench/tournament.py                      # 2,048 players, 9 rounds
    python bench/tournament.py --players 512        # the standings limit
    python bench/tournament.py --players 1024 --rounds 11 --seats 4
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hub.tournament import placings, swiss  # noqa: E402
from hub.tournament.formats import pair_key  # noqa: E402
from hub.tournament.state import Tournament  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, default=2048)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--seats", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    t = Tournament.create("bench", {"type": "create", "spec": {
        "name": "bench", "game": "trigono", "format": "swiss", "seats": args.seats,
        "rounds": args.rounds, "check_in": False, "seed": args.seed}})
    for i in range(args.players):
        t.apply({"type": "register", "player": {"name": f"Player {i}"}})
    t.apply(t.start_entry())
    draws: list[float] = []
    for _ in range(args.rounds):
        start = time.perf_counter()
        entry = swiss.draw_round(t)
        draws.append(time.perf_counter() - start)
        t.apply(entry)
        for m in [m for m in t.matches.values() if m.status == "ready"]:
            order = list(m.players)
            rng.shuffle(order)
            t.apply({"type": "result", "match": m.id, "ranking": order,
                     "scores": {p: float(rng.randint(0, 13)) for p in order}})
    times: list[float] = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        lines = placings.standings(t)
        times.append(time.perf_counter() - start)
    assert len(lines) == args.players
    start = time.perf_counter()
    again = Tournament.replay("bench", t.log)
    replay_s = time.perf_counter() - start
    assert [s.player for s in placings.standings(again)] == [s.player for s in lines]
    pairs = Counter(pair_key(a, b) for m in t.matches.values() if not m.bye
                    for a, b in itertools.combinations(m.players, 2))
    repeats = sum(n - 1 for n in pairs.values())
    print(f"players {args.players}, seats {args.seats}, rounds {args.rounds}, "
          f"matches {len(t.matches)}, log entries {len(t.log)}")
    print("swiss draw per round (s): " + " ".join(f"{d:.3f}" for d in draws)
          + f"  (max {max(draws):.3f}, limit 1 s)")
    standings_limit = 0.05 if args.players <= 512 else None
    print(f"standings after {args.rounds} rounds: median {statistics.median(times) * 1000:.1f} ms, "
          f"max {max(times) * 1000:.1f} ms over {args.repeat}"
          + (" (limit 50 ms)" if standings_limit else " (limit 50 ms at 512 players)"))
    print(f"replay of the whole log: {replay_s:.2f} s; opponents met again: {repeats}")
    standings_ok = standings_limit is None or statistics.median(times) <= standings_limit
    return 0 if max(draws) <= 1.0 and standings_ok and repeats == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
