"""Clubs that sync (issue 35): lag while online, catch-up after an offline stretch, and the
federation's memory per million entries.

One club and a federation on this machine, real nats-servers (tests/natsd.py, the
shipped configurations). The club's hub runs in this process (its entries written
through its :class:`hub.log.writer.LogWriter`, as every entry of a hub is); the
federation's consumer (:class:`hub.sync.federation.FederationSync` into its copies file)
runs in a child process, so its memory is its own.

- lag: ``--online`` entries committed at ``--rate`` per second; for each, the time from
  its commit (the entry's ``at``) to its copy at the federation (the copy's ``received``):
  commit → club's publisher → club's stream → sourced across the leaf link → the
  federation's stream → its consumer → the copies file. p50, p99.
- catch-up: the federation's nats-server SIGKILLed, ``--offline`` entries committed (the
  club publishes them to its own stream meanwhile), the server restarted: entries per
  second from the restart until every one is copied.
- memory: the resident size of the federation's nats-server and of its consumer process,
  and the files (JetStream store, copies), after everything; per million entries by
  linear extrapolation from what was measured (said so in the output).

Run: ``python bench/sync_federation.py`` (defaults: 2,000 online at 200/s, 100,000
offline). Numbers on a shared 2-core machine are noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hub.facade import Hub  # noqa: E402
from hub.log.store import Entry  # noqa: E402
from hub.sync import SyncConfig  # noqa: E402
from hub.sync.service import start_sync  # noqa: E402
from tests.natsd import Club, Federation  # noqa: E402

CONSUMER = """
import sys, time
sys.path.insert(0, sys.argv[1])
from hub.sync.copies import ClubCopies
from hub.sync.federation import FederationSync
sync = FederationSync(ClubCopies(sys.argv[3]), sys.argv[2], ["a"])
sync.start()
print("ready", flush=True)
sys.stdin.read()
sync.stop()
"""


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def copied(copies: Path) -> int:
    if not copies.exists():
        return 0
    db = sqlite3.connect(f"file:{copies}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT COUNT(*) FROM club_entry").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        db.close()


def wait_copied(copies: Path, n: int, deadline_s: float) -> float:
    start = time.monotonic()
    while copied(copies) < n:
        if time.monotonic() - start > deadline_s:
            raise SystemExit(f"only {copied(copies)} of {n} copied after {deadline_s} s")
        time.sleep(0.05)
    return time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--online", type=int, default=2000)
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--offline", type=int, default=100_000)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="trigono-sync-bench-"))
    fed = Federation(root / "fed", ["a"])
    fed.start()
    club = Club(root / "club", "a", fed)
    club.start()
    copies = root / "copies.db"
    consumer = subprocess.Popen([sys.executable, "-c", CONSUMER, str(ROOT), fed.user_url(), str(copies)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert consumer.stdout is not None and consumer.stdin is not None
    consumer.stdout.readline()
    hub = Hub(root / "club.db")
    start_sync(hub, SyncConfig("club", club.url, club="a", probe_s=2.0))

    # warm-up: the federation's source of the club's stream is set up (it retries every
    # few seconds until the club's stream exists) before anything is timed
    hub.writer.write([Entry.new("console", {"warm-up": True})])
    wait_copied(copies, 1, 60)

    # lag while online
    for i in range(args.online):
        hub.writer.write([Entry.new("console", {"n": i, "pad": "x" * 80})])
        time.sleep(1.0 / args.rate)
    wait_copied(copies, 1 + args.online, 120)
    db = sqlite3.connect(str(copies))
    lags = sorted(r - a for a, r in db.execute("SELECT at, received FROM club_entry WHERE seq > 1"))
    db.close()
    result: dict[str, object] = {
        "online_entries": args.online, "rate_per_s": args.rate,
        "lag_p50_ms": round(1000 * statistics.median(lags), 1),
        "lag_p99_ms": round(1000 * lags[int(0.99 * (len(lags) - 1))], 1),
        "lag_max_ms": round(1000 * lags[-1], 1)}

    small = {"nats": rss_kib(fed.proc.pid if fed.proc else 0), "consumer": rss_kib(consumer.pid)}

    # catch-up after an offline stretch
    fed.kill()
    t0 = time.monotonic()
    batch = 500
    for start in range(0, args.offline, batch):
        hub.writer.write([Entry.new("console", {"n": start + k, "pad": "x" * 80})
                          for k in range(min(batch, args.offline - start))])
    result["offline_commit_s"] = round(time.monotonic() - t0, 2)
    total = 1 + args.online + args.offline
    publisher = hub.sync
    while getattr(publisher, "acked", 0) < total:
        time.sleep(0.05)
    result["offline_local_publish_s"] = round(time.monotonic() - t0, 2)
    fed.start()
    took = wait_copied(copies, total, 1800)
    result["catch_up_entries"] = args.offline
    result["catch_up_s"] = round(took, 2)
    result["catch_up_entries_per_s"] = round(args.offline / took)

    # memory and files of the federation, for `total` entries
    measured = {"nats_server_rss_kib": rss_kib(fed.proc.pid if fed.proc else 0),
                "consumer_rss_kib": rss_kib(consumer.pid),
                "jetstream_bytes": dir_bytes(root / "fed" / "jetstream"),
                "copies_bytes": copies.stat().st_size + sum(
                    p.stat().st_size for p in root.glob("copies.db-*"))}
    result["federation_entries"] = total
    result.update(measured)
    time.sleep(30)  # JetStream's block cache expires when idle: the resident size after it
    result["after_30s_idle_rss_kib"] = {"nats": rss_kib(fed.proc.pid if fed.proc else 0),
                                        "consumer": rss_kib(consumer.pid)}
    result["rss_kib_at_online_entries"] = small
    scale = 1_000_000 / total

    def linear(big: int, few: int) -> int:
        """RSS at a million: the measured one plus the slope between the two sizes."""
        slope = max(0.0, (big - few) / (total - args.online))
        return round((big + slope * (1_000_000 - total)) / 1024)

    result["per_million_extrapolated"] = {
        "nats_server_rss_mib": linear(measured["nats_server_rss_kib"], small["nats"]),
        "consumer_rss_mib": linear(measured["consumer_rss_kib"], small["consumer"]),
        "jetstream_mib": round(measured["jetstream_bytes"] * scale / 2**20),
        "copies_mib": round(measured["copies_bytes"] * scale / 2**20)}
    hub.close()
    consumer.stdin.close()
    consumer.wait(timeout=30)
    consumer.stdout.close()
    club.stop()
    fed.stop()
    print(json.dumps(result, indent=2))
    if os.environ.get("KEEP") is None:
        import shutil

        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
