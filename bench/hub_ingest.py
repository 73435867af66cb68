"""Hub ingest benchmark (issue 4), against a private Mosquitto started here.

1. Bare paho-mqtt subscriber throughput: N QoS 1 events from 100 simulated boards are
   queued in the broker for a persistent session, then the subscriber connects and
   drains them; events/s = N / drain time.
2. Hub ingest throughput, measured the same way: the hub's MQTT link drains the same N
   events and the hub decodes, reorders/dedupes, stores (SQLite WAL), applies them to 50
   Trigono tables (2 boards each; a finished match gets a new table on its boards) and
   acks. Ratio = hub / bare. The hub's link is the one ``trigono hub`` uses: paho in a
   receiver process (hub.devices.mqtt_receiver), ingest in the hub's process. Both also report
   the CPU time of their own process per event (process_time: the receiver process not
   counted): a figure that other load on the machine disturbs far less than events/s.
3. Latency from publish to applied state at a steady 200 events/s (p50, p99).
4. Restart time of a hub over the resulting store (>= N stored events): with the
   snapshots as a crash would leave them, and with no snapshot at all (full replay).

Steps 1 and 2 run ``--rounds`` times (3), interleaved, each hub on a fresh store: the
machine's speed drifts by a third between minutes, and the summary gives the median
round's figures with every round's ratio.

Run: ``python bench/hub_ingest.py`` (``--events 20000`` for a quick run). ``--db
postgresql://127.0.0.1/test`` measures the PostgreSQL store instead of SQLite (in a
schema of its own, dropped at the end). The machine is shared: figures are noisy, run
twice.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from firmware import protocol  # noqa: E402
from hub.assemble import tune_gc  # noqa: E402
from hub.devices.mqtt_link import MqttProcessTransport  # noqa: E402
from hub.facade import Hub  # noqa: E402
from hub.log.open import is_postgres_url, open_store  # noqa: E402
from hub.log.store import EventStore  # noqa: E402
from tests.broker import Broker  # noqa: E402

TICKS_MASK = (1 << 30) - 1


class Boards:
    """100 simulated boards: seq per board, a device clock 2 s apart per event (so every
    drop is a throw of its own), a realistic mix of events."""

    def __init__(self, count: int, seed: int = 1) -> None:
        self.ids = [f"S{k:03d}" for k in range(count)]
        self.seq = dict.fromkeys(self.ids, 0)
        self.rng = random.Random(seed)

    def next(self, board: str) -> dict[str, Any]:
        self.seq[board] += 1
        seq = self.seq[board]
        msg: dict[str, Any] = {"board": board, "boot": 1, "seq": seq, "t_us": (seq * 2_000_000) & TICKS_MASK}
        if seq == 1:
            msg.update(type="hello", fw="bench", config="c", holes=["big", "small"])
            return msg
        kind = self.rng.choices(["drop", "bounce", "floor", "next"], [50, 15, 25, 10])[0]
        if kind == "drop":
            msg.update(type="drop", hole=self.rng.choice(["big", "small"]))
        elif kind == "bounce":
            msg.update(type="bounce", hole="big")
        elif kind == "floor":
            msg.update(type="button", button="floor")
        else:
            msg.update(type="button", button="next_round")
        return msg

    def stream(self, total: int) -> list[dict[str, Any]]:
        return [self.next(self.ids[k % len(self.ids)]) for k in range(total)]


def publisher(broker: Broker) -> mqtt.Client:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-pub")
    client.max_inflight_messages_set(1000)
    client.max_queued_messages_set(0)
    client.connect(broker.host, broker.port)
    client.loop_start()
    return client


def publish_all(client: mqtt.Client, messages: list[dict[str, Any]]) -> None:
    last = None
    for n, msg in enumerate(messages, start=1):
        last = client.publish(protocol.topic(msg["board"], "event"), protocol.encode_payload(msg), qos=1)
        if n % 10_000 == 0:  # message ids are 16 bits: keep fewer than 65535 in flight
            last.wait_for_publish(120)
    if last is not None:
        last.wait_for_publish(120)


def forget_session(broker: Broker, client_id: str) -> None:
    """Drop a persistent session, so that the broker stops queueing events for it while
    the next phase publishes (it would also hand them to the next round's client)."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=True)
    client.connect(broker.host, broker.port)
    client.disconnect()


def bare_throughput(broker: Broker, messages: list[dict[str, Any]]) -> tuple[float, float]:
    """(events/s, CPU seconds per event of this process: paho's own work)."""
    received = 0
    done = threading.Event()
    subscribed = threading.Event()
    total = len(messages)

    def on_connect(c: mqtt.Client, u: Any, f: Any, rc: Any, p: Any) -> None:
        c.subscribe(protocol.TOPIC_ROOT + "+/event", qos=1)

    def on_subscribe(c: mqtt.Client, u: Any, mid: Any, rc: Any, p: Any) -> None:
        subscribed.set()

    def on_message(c: mqtt.Client, u: Any, m: mqtt.MQTTMessage) -> None:
        nonlocal received
        received += 1
        if received == total:
            done.set()

    sub = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-bare", clean_session=False)
    sub.on_connect, sub.on_subscribe, sub.on_message = on_connect, on_subscribe, on_message
    sub.connect(broker.host, broker.port)
    sub.loop_start()
    subscribed.wait(10)
    sub.disconnect()
    sub.loop_stop()
    pub = publisher(broker)
    publish_all(pub, messages)
    pub.disconnect()
    pub.loop_stop()
    start, cpu = time.perf_counter(), time.process_time()
    sub.reconnect()
    sub.loop_start()
    if not done.wait(600):
        raise RuntimeError(f"bare subscriber got {received}/{total}")
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    sub.disconnect()
    sub.loop_stop()
    forget_session(broker, "bench-bare")
    return total / elapsed, cpu / total


class Festival:
    """50 Trigono tables of 2 boards each; when a match ends its boards get a new table
    (the referee starts the next match), as on a festival day."""

    def __init__(self, hub: Hub, boards: Boards) -> None:
        self.hub = hub
        self.pairs = [boards.ids[k:k + 2] for k in range(0, len(boards.ids), 2)]
        self.table_of: dict[str, str] = {}
        self.matches = 0
        for pair in self.pairs:
            self.new_match(pair)

    def new_match(self, pair: list[str]) -> None:
        view = self.hub.create_table("trigono", seats=["Ana", "Ben"], boards=pair, seed=self.matches)
        self.matches += 1
        for board in pair:
            self.table_of[board] = view["id"]

    def on_applied(self, batch: list[dict[str, Any]]) -> None:
        for table_id in {self.table_of[m["board"]] for m in batch}:
            if self.hub.game_over(table_id):
                self.new_match([b for b, t in self.table_of.items() if t == table_id])


def make_hub(db: str, boards: Boards) -> tuple[Hub, Festival]:
    hub = Hub(open_store(db))
    # Each simulated board delivers a backlog of --events / --boards events as fast as the
    # broker goes, far past what a real board holds (an outbox of 64): the budget of a
    # refereed board (hub/devices/flood.py, issue 32.5) is still checked for every message,
    # but its burst covers the whole backlog.
    limit = hub.ingest_loop.bound_limit
    limit.per_board = (limit.per_board[0], 10**9)
    limit.volume = (limit.volume[0] if limit.volume else 0.0, 10**12)
    return hub, Festival(hub, boards)


def hub_throughput(broker: Broker, hub: Hub, festival: Festival,
                   messages: list[dict[str, Any]]) -> tuple[float, float]:
    """(events/s, CPU seconds per event of the hub's process; its MQTT receiver process,
    which carries paho's work, is not counted)."""
    total = len(messages)
    applied = 0
    done = threading.Event()

    def on_applied(batch: list[dict[str, Any]]) -> None:
        nonlocal applied
        festival.on_applied(batch)
        applied += len(batch)
        if applied >= total:
            done.set()

    link = MqttProcessTransport(broker.host, broker.port, client_id="bench-hub")
    hub.start()
    hub.add_transport(link)  # subscribes with a persistent session...
    link.connected.wait(10)
    time.sleep(0.5)
    link.stop()  # ...then goes away while the events are queued for it
    pub = publisher(broker)
    publish_all(pub, messages)
    pub.disconnect()
    pub.loop_stop()
    hub.applied_hook = on_applied
    link2 = MqttProcessTransport(broker.host, broker.port, client_id="bench-hub")
    start, cpu = time.perf_counter(), time.process_time()
    hub.add_transport(link2)
    if not done.wait(900):
        raise RuntimeError(f"hub applied {applied}/{total}")
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    hub.applied_hook = None
    return total / elapsed, cpu / total


def latency(broker: Broker, hub: Hub, festival: Festival, boards: Boards, rate: float,
            seconds: float) -> dict[str, float]:
    sent: dict[tuple[str, int], float] = {}
    lat: list[float] = []

    def on_applied(batch: list[dict[str, Any]]) -> None:
        now = time.perf_counter()
        festival.on_applied(batch)
        for msg in batch:
            t0 = sent.get((msg["board"], msg["seq"]))
            if t0 is not None:
                lat.append(now - t0)

    hub.applied_hook = on_applied
    pub = publisher(broker)
    count = int(rate * seconds)
    start = time.perf_counter()
    for k in range(count):
        due = start + k / rate
        pause = due - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
        msg = boards.next(boards.ids[k % len(boards.ids)])
        sent[(msg["board"], msg["seq"])] = time.perf_counter()
        pub.publish(protocol.topic(msg["board"], "event"), protocol.encode_payload(msg), qos=1)
    hub.flush(10)
    deadline = time.monotonic() + 10
    while len(lat) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    pub.disconnect()
    pub.loop_stop()
    hub.applied_hook = None
    lat.sort()
    return {"events": len(lat), "p50_ms": 1000 * statistics.median(lat),
            "p99_ms": 1000 * lat[min(len(lat) - 1, int(0.99 * len(lat)))],
            "max_ms": 1000 * lat[-1]}


def restart_time(db: str) -> float:
    start = time.perf_counter()
    hub = Hub(open_store(db))
    elapsed = time.perf_counter() - start
    hub.close()
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--boards", type=int, default=100)
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=3,
                        help="bare/hub pairs, interleaved (the machine's speed drifts): the median ratio")
    parser.add_argument("--db", default="", help="a postgresql:// URL (default: SQLite in a temporary folder)")
    args = parser.parse_args()
    # The drain takes longer than the hub's 30 s silence rule: its "board silent" and
    # link warnings would be 100 lines per run of noise.
    logging.getLogger("hub").setLevel(logging.ERROR)
    tune_gc()  # as `trigono hub` does (hub.assemble.open_hub); the bare subscriber shares it
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        broker = Broker(workdir / "mosquitto")
        broker.start()
        schemas: list[str] = []
        try:
            rounds = []
            for number in range(1, args.rounds + 1):
                bare, bare_cpu = bare_throughput(broker, Boards(args.boards, seed=1).stream(args.events))
                boards = Boards(args.boards, seed=1)
                if is_postgres_url(args.db):
                    schema, db = postgres_schema(args.db)
                    schemas.append(schema)
                else:
                    db = str(workdir / f"hub{number}.db")
                hub, festival = make_hub(db, boards)
                ingest, hub_cpu = hub_throughput(broker, hub, festival, boards.stream(args.events))
                rounds.append({"round": number, "bare_paho_events_per_s": round(bare),
                               "bare_cpu_us_per_event": round(bare_cpu * 1e6, 1),
                               "hub_ingest_events_per_s": round(ingest),
                               "hub_cpu_us_per_event": round(hub_cpu * 1e6, 1),
                               "ratio": round(ingest / bare, 2)})
                print(json.dumps({"store": "postgresql" if schemas else "sqlite", **rounds[-1]}), flush=True)
                if number < args.rounds:
                    hub.close()  # the last round's hub goes on to the latency and restarts
                    forget_session(broker, "bench-hub")
            middle = sorted(rounds, key=lambda r: r["ratio"])[len(rounds) // 2]  # the median round
            lat = latency(broker, hub, festival, boards, args.rate, args.seconds)
            print(json.dumps({"rate_per_s": args.rate, **{k: round(v, 2) for k, v in lat.items()}}),
                  flush=True)
            stored, after_crash, full_replay = restarts(hub, db, workdir)
            print(json.dumps({"stored_events": stored, "matches": festival.matches, "restart_s": round(after_crash, 3),
                              "restart_without_snapshots_s": round(full_replay, 3)}), flush=True)
            print(json.dumps({"summary": {
                "store": "postgresql" if schemas else "sqlite",
                "load_avg_1min": round(os.getloadavg()[0], 1), "rounds": len(rounds),
                "ratios": [r["ratio"] for r in rounds],
                **{k: v for k, v in middle.items() if k != "round"},
                "p50_ms": round(lat["p50_ms"], 2), "matches": festival.matches,
                "p99_ms": round(lat["p99_ms"], 2), "stored_events": stored,
                "restart_s": round(after_crash, 3),
                "restart_without_snapshots_s": round(full_replay, 3)}}), flush=True)
        finally:
            broker.stop()
            for schema in schemas:
                drop_schema(args.db, schema)
    return 0


def postgres_schema(server: str) -> tuple[str, str]:
    """A fresh schema on ``server`` and the URL whose tables live in it."""
    import psycopg

    schema = f"bench_{random.randrange(16**8):08x}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    sep = "&" if "?" in server else "?"
    return schema, f"{server}{sep}options=-csearch_path%3D{schema}"


def drop_schema(server: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def stored_events(store: EventStore) -> int:
    return sum(count for _low, _high, count in store.device_marks().values())


def restarts(hub: Hub, db: str, workdir: Path) -> tuple[int, float, float]:
    """(stored events, restart time, restart time without snapshots). On SQLite the
    store is copied while the hub runs (snapshots as a crash leaves them); a PostgreSQL
    hub is closed first (its final snapshots make that restart a little faster)."""
    if is_postgres_url(db):
        hub.close()
        crash_db = db
    else:
        crash_db = str(workdir / "crash.db")
        with sqlite3.connect(db) as src, sqlite3.connect(crash_db) as dst:
            src.backup(dst)
        hub.close()
    store = open_store(crash_db)
    stored = stored_events(store)
    store.close()
    after_crash = restart_time(crash_db)
    if is_postgres_url(db):
        import psycopg

        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute("DELETE FROM snapshot")
    else:
        with sqlite3.connect(crash_db) as conn:
            conn.execute("DELETE FROM snapshot")
    return stored, after_crash, restart_time(crash_db)

if __name__ == "__main__":
    raise SystemExit(main())
