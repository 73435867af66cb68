"""The hub's memory over a long festival day (issue 32.7: 85 → 270 MB over 739 matches,
given back only at restart).

One hub in this process, on a fresh store (SQLite by default), plays ``--matches``
Trigono matches one after the other on ``--boards`` boards in turn, each as a day plays
them: the table is created on its board, the board sends ``--events`` sensor events
(bounces, stored and shown on the table), the referee enters where each palet landed
until the match is over (two palets each, one round), and a dashboard reads the table
list and the match's public view. Every ``--every`` matches it prints the process's resident memory (RSS, after a
full garbage collection) and how many tables the hub holds loaded; at the end the RSS
growth per 100 matches after the first ``--every`` (the warm-up: imports, caches).

Run: ``.venv/bin/python bench/hub_long_day.py`` (``--matches 700``); ``--db
postgresql://127.0.0.1:5432/test`` on PostgreSQL (a schema of its own, dropped at the
end); ``--json`` for one JSON line. To compare with an older hub, run this file in a
``git archive`` of that commit (it uses only the hub's public API).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hub.devices.transport import FakeTransport  # noqa: E402
from hub.facade import Hub  # noqa: E402
from hub.log.open import is_postgres_url, open_store  # noqa: E402
from tests.hub.boards import Outbox  # noqa: E402


def rss_mb() -> float:
    """This process's resident memory (Linux ``/proc``), after a full collection."""
    gc.collect()
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def play_match(hub: Hub, link: FakeTransport, board: Outbox, events: int, rng: random.Random) -> int:
    """One short match on ``board`` (two palets each, one round: Ben holds 3 when Ana is
    out, he wins); returns the inputs it took."""
    table_id = str(hub.create_table(
        "trigono", seats=["Ana", "Ben"], boards=[board.board], seed=rng.randrange(2**31),
        options={"first": "Ana", "palets_per_player": 2, "rounds_to_win": 1})["id"])
    if board.seq == 0:  # plugged in for its first match, as on the day
        link.inject(board.hello())
    for _ in range(events):
        link.inject(board.make("bounce", hole=rng.choice(board.holes)))
    if not hub.flush(30.0):
        raise RuntimeError("the hub did not take the board's events")
    landings = ("floor", f"{board.board}.small", "floor")
    for where in landings:
        hub.submit(table_id, {"landed": where})
    if not hub.game_over(table_id):
        raise RuntimeError(f"match {table_id} did not end")
    inputs = len(landings)
    hub.list_tables()  # the dashboard
    hub.public_view(table_id)
    for to, msg in link.sent:  # the board forgets what the hub acknowledged
        if to == board.board:
            board.on_ack(msg)
    link.sent.clear()  # the fake link keeps what the hub sent: not the hub's memory
    return inputs


def run(db: str, matches: int, boards: int, events: int, every: int) -> dict[str, Any]:
    hub = Hub(open_store(db) if is_postgres_url(db) else db, settle_s=0.05)
    hub.start()
    link = FakeTransport()
    hub.add_transport(link)
    outboxes = [Outbox(f"B{n:02d}") for n in range(1, boards + 1)]
    for box in outboxes:
        hub.register_board(box.board)
    rng = random.Random(32)
    samples: list[dict[str, Any]] = [{"matches": 0, "rss_mb": round(rss_mb(), 1),
                                      "loaded": sum(1 for _ in hub.tables.loaded())}]
    started = time.perf_counter()
    inputs = 0
    try:
        for n in range(1, matches + 1):
            inputs += play_match(hub, link, outboxes[(n - 1) % boards], events, rng)
            if n % every == 0 or n == matches:
                sample = {"matches": n, "rss_mb": round(rss_mb(), 1),
                          "loaded": sum(1 for _ in hub.tables.loaded())}
                samples.append(sample)
                print(json.dumps(sample), flush=True)
    finally:
        hub.close()
    seconds = time.perf_counter() - started
    warm = next((s for s in samples if s["matches"] >= every), samples[0])
    last = samples[-1]
    span = last["matches"] - warm["matches"]
    return {"matches": matches, "boards": boards, "events_per_match": events,
            "inputs": inputs, "seconds": round(seconds, 1),
            "rss_start_mb": samples[0]["rss_mb"], "rss_end_mb": last["rss_mb"],
            "rss_max_mb": max(s["rss_mb"] for s in samples),
            "mb_per_100_matches_after_warmup": round((last["rss_mb"] - warm["rss_mb"]) * 100 / span, 2)
            if span else None,
            "loaded_max": max(s["loaded"] for s in samples), "samples": samples}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=700)
    parser.add_argument("--boards", type=int, default=60)
    parser.add_argument("--events", type=int, default=60, help="sensor events per match")
    parser.add_argument("--every", type=int, default=100, help="matches between samples")
    parser.add_argument("--db", help="a postgresql:// URL (default: a fresh SQLite file)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.db:
        from tests import pg

        pg.SERVER = args.db  # the schema is made on the server asked for
        with pg.fresh_schema("bench") as url:
            result = run(url, args.matches, args.boards, args.events, args.every)
    else:
        with tempfile.TemporaryDirectory(prefix="trigono-long-day-") as tmp:
            result = run(str(Path(tmp) / "day.db"), args.matches, args.boards, args.events, args.every)
    if args.json:
        print(json.dumps(result))
        return
    print(f"{result['matches']} matches on {result['boards']} boards ({result['inputs']} inputs,"
          f" {result['events_per_match']} sensor events each) in {result['seconds']} s")
    print(f"RSS {result['rss_start_mb']} MB at start -> {result['rss_end_mb']} MB at the end"
          f" (max {result['rss_max_mb']}); {result['mb_per_100_matches_after_warmup']} MB per 100"
          f" matches after the first {args.every}; at most {result['loaded_max']} tables loaded")


if __name__ == "__main__":
    main()
