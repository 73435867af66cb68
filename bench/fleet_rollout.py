"""Sixty boards updated through the running hub while matches go on (issue 33).

The real hub (SQLite log on disk, its ingest and timer threads), the staged rollout
(hub/fleet/service.py) and the real transfer (hub/fleet/transfer.py, ``update_board``)
over the hub's own link, sending a real signed bundle (PyNaCl Ed25519, ~60 KiB of
application files, 480-byte chunks). The boards are the simulated fleet
(hub/sim/fleet.py): they answer each chunk after ``--round-trip-ms`` (a link's round
trip: 60 ms is one 640-character line each way on USB serial at 115200 baud; the
board's flash write is not modelled). Beside the 60 boards updated, ``--live`` more
boards are bound to live tables and drop palets every ``--drop-ms`` the whole time: their
events must keep being stored and acknowledged; the figure is each event's time from
made to acknowledged.

Run: ``python bench/fleet_rollout.py`` (defaults: 60 boards, waves of 10, 60 ms round
trip, 6 live boards dropping every 250 ms). Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hub.facade import Hub  # noqa: E402
from hub.fleet import bundle as bundles  # noqa: E402
from hub.sim.fleet import SimFleet  # noqa: E402

HEALTH_EVERY_S = 10.0  # firmware/config.py health_every_s


def signed_bundle(workdir: Path, version: str, size: int) -> Path:
    key = workdir / "organizer.key"
    bundles.keygen(key)
    files = {f"app{i}.mpy": bytes((i * 7 + j) % 251 for j in range(size // 6)) for i in range(6)}
    path = workdir / f"fw-{version}.bundle"
    path.write_bytes(bundles.dump(bundles.build(version, "rp2", key, files=files)))
    return path


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--boards", type=int, default=60)
    p.add_argument("--wave", type=int, default=10)
    p.add_argument("--round-trip-ms", type=float, default=60.0)
    p.add_argument("--live", type=int, default=6)
    p.add_argument("--drop-ms", type=float, default=250.0)
    p.add_argument("--bundle-kib", type=int, default=60)
    args = p.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        updated = [f"S{i:02d}" for i in range(1, args.boards + 1)]
        live = [f"L{i:02d}" for i in range(1, args.live + 1)]
        fleet = SimFleet(boards=updated + live, round_trip_s=args.round_trip_ms / 1000)
        hub = Hub(work / "event.db", settle_s=0.2)
        hub.start()
        hub.add_transport(fleet)
        for board in updated:
            hub.register_board(board)
        for i, board in enumerate(live):
            hub.create_table("trigono", seats=["Ana", "Ben"], boards=[board], seed=i, table_id=f"t{i + 1}")
        fleet.start_all()
        assert hub.flush(30)
        path = signed_bundle(work, "1.1.0", args.bundle_kib * 1024)
        fleet.ack_latency_s.clear()

        stop = threading.Event()
        drops = [0]

        def play() -> None:
            last_health = time.monotonic()
            while not stop.wait(args.drop_ms / 1000):
                for board in live:
                    fleet.drop(board, "big")
                    drops[0] += 1
                if time.monotonic() - last_health >= HEALTH_EVERY_S:  # as the firmware does: not "lost"
                    last_health = time.monotonic()
                    for board in fleet.boards:
                        fleet.health(board)

        player = threading.Thread(target=play, daemon=True)
        started = time.monotonic()
        cpu0 = time.process_time()
        hub.start_rollout("1.1.0", {"path": str(path), "version": "1.1.0"}, boards=updated, wave=args.wave)
        player.start()
        while True:
            rollout = hub.fleet_view()["rollout"]
            if rollout["state"] != "running" or rollout["done"] == len(updated):
                break
            time.sleep(0.2)
        elapsed = time.monotonic() - started
        cpu = time.process_time() - cpu0
        stop.set()
        player.join()
        hub.flush(30)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not all(fleet.acked(b) for b in live):
            time.sleep(0.05)
        lat = [seconds for board, seconds in fleet.ack_latency_s if board in live]
        out = {
            "boards_updated": rollout["done"], "state": rollout["state"], "wave": args.wave,
            "bundle_bytes": path.stat().st_size, "round_trip_ms": args.round_trip_ms,
            "rollout_s": round(elapsed, 1), "hub_cpu_s": round(cpu, 1),
            "live_boards": len(live), "events_made": drops[0], "events_acked": len(lat),
            "all_acked": all(fleet.acked(b) for b in live),
            "ack_ms_p50": round(statistics.median(lat) * 1000, 1) if lat else None,
            "ack_ms_p99": round(percentile(lat, 0.99) * 1000, 1) if lat else None,
            "ack_ms_max": round(max(lat) * 1000, 1) if lat else None,
        }
        hub.close()
    print(json.dumps(out))
    return 0 if out["boards_updated"] == args.boards and out["all_acked"] else 1


if __name__ == "__main__":
    sys.exit(main())
