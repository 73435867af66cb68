"""Read-only web processes (issue 18): how long after the hub commits does a read-only
follower show the change?

A hub and a :class:`hub.replica.ReadOnlyHub` on the same PostgreSQL schema (or SQLite
file, polled). The hub plays Trike moves at a steady rate; for each move, the time until the
follower's change feed announces the
table with the new state applied — measured from the call to ``submit`` (the hub's own
commit and apply included). The follower runs in this process, so the figure is the
hub's submit + LISTEN/NOTIFY + reading and applying the new entries; a phone adds the
HTTP stream.

Run: ``python bench/readonly_follow.py --db postgresql://127.0.0.1:5432/test`` (a
schema of its own, dropped at the end) or ``--db sqlite`` (a temporary file).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from hub.facade import Hub  # noqa: E402
from hub.log.open import is_postgres_url, open_store  # noqa: E402
from hub.replica import ReadOnlyHub  # noqa: E402

SIZE = 7  # a 7x7 Trike board: games of up to ~40 moves


def follow_latency(db: str, moves: int, rate: float) -> list[float]:
    writer = Hub(open_store(db))
    reader = ReadOnlyHub(db)
    reader.start()
    lags: list[float] = []
    rng = random.Random(1)
    try:
        game = 0
        done = 0
        while done < moves:
            game += 1
            table = f"g{game}"
            writer.create_table("trike", options={"size": SIZE}, seats=["Ana", "Ben"], table_id=table,
                                seed=game)
            while done < moves:
                view = writer.table_view(table)
                if view["status"] == "over":
                    break
                player = view["to_move"]
                legal = writer.legal_actions(table, player)
                mark = reader.last_change_id()
                arrived: list[float] = []
                target = len(view["state"]["log"]) + 1

                def wait(table: str = table, mark: int = mark, target: int = target,
                         arrived: list[float] = arrived) -> None:
                    last = mark
                    deadline = time.monotonic() + 10
                    while time.monotonic() < deadline:
                        for item in reader.changes_since(last, timeout=1.0):
                            last = item["id"]
                        if len(reader.table_view(table)["state"]["log"]) >= target:
                            arrived.append(time.perf_counter())
                            return

                waiter = threading.Thread(target=wait, daemon=True)
                waiter.start()
                started = time.perf_counter()
                writer.submit(table, {"move": rng.choice(legal)})
                waiter.join()
                if not arrived:
                    raise RuntimeError("the follower did not show the move within 10 s")
                lags.append(arrived[0] - started)
                done += 1
                time.sleep(1 / rate)
    finally:
        reader.close()
        writer.close()
    return lags


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="sqlite", help="a postgresql:// URL, or sqlite")
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--rate", type=float, default=20.0, help="moves per second")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if is_postgres_url(args.db):
            from hub_ingest import drop_schema, postgres_schema  # the same bench folder

            schema, db = postgres_schema(args.db)
        else:
            schema, db = None, str(Path(tmp) / "hub.db")
        try:
            lags = sorted(follow_latency(db, args.moves, args.rate))
        finally:
            if schema is not None:
                drop_schema(args.db, schema)
    print(json.dumps({"summary": {
        "store": "postgresql" if schema else "sqlite", "moves": len(lags), "rate_per_s": args.rate,
        "load_avg_1min": round(os.getloadavg()[0], 1),
        "p50_ms": round(1000 * statistics.median(lags), 2),
        "p99_ms": round(1000 * lags[min(len(lags) - 1, int(0.99 * len(lags)))], 2),
        "max_ms": round(1000 * lags[-1], 2)}}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
