"""Hot standby (issue 18): two ``trigono hub`` processes on one PostgreSQL event store and
one real Mosquitto; exactly one is active. SIGKILL the active one while three boards send
in real time: the standby takes over within 5 s, and every event is stored and applied
exactly once (the boards resend what was not acknowledged; the unique (board, boot, seq)
index drops what both hubs received). The restored state is the replay of the stored
log, timer entries included (R1), and equals that of an uninterrupted in-process hub fed
the very same messages: each board ends on an event that closes its last settle window
on its own clock, as the reference can close it no other way (its fake link shows no
board clock, so it logs no ``settle`` entry)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from hub.facade import Hub
from hub.log.open import open_store
from hub.log.standby import EXIT_LOST_LOCK, ActiveLock
from hub.tables.tableset import make_table
from tests.broker import Broker
from tests.hub.boards import MqttBoard, uninterrupted_hub, wait_for
from tests.multihall.test_bridge import steps

ROOT = Path(__file__).resolve().parents[2]
SETTLE_S = 0.02
BOARDS = ("B1", "B2", "B3")
TABLES: list[dict[str, Any]] = [{"id": f"t{n}", "game": "trigono", "seats": ["Ana", "Ben"], "boards": [b], "seed": n,
           "options": {"first": "Ana", "palets_per_player": 4}} for n, b in enumerate(BOARDS, 1)]
EVERY_S = 0.05  # each board sends an event every 50 ms
RESEND_S = 2.0  # the firmware's resend_ms


class HubProcess:
    """``trigono hub`` on the PostgreSQL store; its stdout lines are read as they come."""

    def __init__(self, broker: Broker, db: str) -> None:
        args = [sys.executable, "-m", "hub", "hub", "--mqtt", f"{broker.host}:{broker.port}",
                "--db", db, "--settle", str(SETTLE_S), "--client-id", "hub-festival"]
        for table in TABLES:
            args += ["--table", json.dumps(table)]
        self.proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, text=True)

    def line(self, timeout: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        assert ready, f"no line from the hub within {timeout} s"
        line = self.proc.stdout.readline()
        assert line, f"the hub exited ({self.proc.poll()})"
        result: dict[str, Any] = json.loads(line)
        return result

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=15)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def replay_log(url: str) -> dict[str, dict[str, Any]]:
    """Table id -> view of the table folded from every stored entry (no snapshot)."""
    store = open_store(url)
    try:
        views = {}
        for spec in TABLES:
            entries = iter(store.entries(spec["id"]))
            create = next(entries)
            table = make_table(spec["id"], create.body["create"], create.at)
            for entry in entries:
                table.apply_entry(entry)
            views[spec["id"]] = table.view()
        return views
    finally:
        store.close()


def per_board_counts(url: str) -> dict[str, tuple[int, int, int]]:
    """board -> (rows, distinct seqs, rows routed to a table: what replay applies)."""
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT board, COUNT(*), COUNT(DISTINCT seq), COUNT(table_id) FROM log"
                            " WHERE seq IS NOT NULL GROUP BY board").fetchall()
    return {r[0]: (int(r[1]), int(r[2]), int(r[3])) for r in rows}


@pytest.mark.postgres
@pytest.mark.mqtt
@pytest.mark.slow
def test_sigkill_of_the_active_hub_the_standby_takes_over_within_5s_losing_nothing_R1(
        own_mosquitto: Broker, pg_url: str) -> None:
    first = HubProcess(own_mosquitto, pg_url)
    assert first.line(30)["hub"] == "ready"
    second = HubProcess(own_mosquitto, pg_url)
    standby_line = second.line(30)
    assert standby_line["hub"] == "standby"
    assert ActiveLock(pg_url).holder_pid() == standby_line["active_pid"]  # one active: the first

    boards = [MqttBoard(b, own_mosquitto.host, own_mosquitto.port) for b in BOARDS]
    resenders = [b.resend_every(RESEND_S) for b in boards]
    sent: list[dict[str, Any]] = []
    sent_lock = threading.Lock()
    stop = threading.Event()

    def play(board: MqttBoard) -> None:
        msgs = [board.event("hello", fw="test", config="c", holes=["big", "small"])]
        for kind, fields in steps(10_000):
            if stop.wait(EVERY_S):
                # Not right after a drop: its window would close only on the hub's timer
                # (a settle entry, once the board answers a clock request), which the
                # reference never logs; the board's next event, a whole step later on
                # its clock (past SETTLE_S), closes it in both.
                if msgs[-1]["type"] != "drop":
                    break
                time.sleep(EVERY_S)
            msgs.append(board.event(kind, **fields))
        with sent_lock:
            sent.extend(msgs)

    players = [threading.Thread(target=play, args=(b,)) for b in boards]
    try:
        for t in players:
            t.start()
        time.sleep(2.0)
        acked_before = [b.out.acked for b in boards]
        assert all(acked_before), "the first hub acknowledges"
        os.kill(first.proc.pid, signal.SIGKILL)
        killed_at = time.monotonic()
        first.proc.wait()
        assert second.line(10)["hub"] == "ready"
        ready_s = time.monotonic() - killed_at
        marks = [b.out.seq for b in boards]
        assert wait_for(lambda: all(b.out.acked >= m for b, m in zip(boards, marks, strict=True)),
                        timeout=10)
        acking_s = time.monotonic() - killed_at
        time.sleep(2.0)  # the standby referees live for a while
        stop.set()
        for t in players:
            t.join()
        assert wait_for(lambda: all(b.out.acked == b.out.seq for b in boards), timeout=20)
    finally:
        stop.set()
        for r in resenders:
            r.set()
        for b in boards:
            b.close()
        first.stop()
        second.stop()

    counts = per_board_counts(pg_url)
    for b in boards:
        assert counts[b.out.board] == (b.out.seq,) * 3, "each event stored and routed exactly once"

    replayed = replay_log(pg_url)
    restored = Hub(open_store(pg_url))
    reference = uninterrupted_hub(TABLES, sorted(sent, key=lambda m: (m["board"], m["seq"])), SETTLE_S)
    try:
        assert {h["board"]: h["received"] for h in reference.boards()} == {
            b.out.board: b.out.seq for b in boards}
        for table in TABLES:
            got, want = restored.table_view(table["id"]), reference.table_view(table["id"])
            assert got["state"]["log"], "the boards' events must referee some throws"
            again = replayed[table["id"]]
            assert (got["state"], got["throw"]) == (again["state"], again["throw"])  # R1
            assert got["throw"] is None and want["throw"] is None, "every settle window closed"
            assert got["state"] == want["state"]  # applied once each: a double would show
            assert restored.export(table["id"]) == reference.export(table["id"])
    finally:
        restored.close()
        reference.close()
    print(f"\ntake-over after SIGKILL: standby ready in {ready_s:.2f} s, every board acknowledged"
          f" again in {acking_s:.2f} s")
    for b in boards:
        stored, _, applied = counts[b.out.board]
        print(f"{b.out.board}: sent {b.out.seq} / stored {stored} / applied {applied}"
              " (state equals the uninterrupted reference)")
    assert ready_s < 5.0 and acking_s < 5.0


class BareHub(HubProcess):
    """``trigono hub`` on the store with no device link."""

    def __init__(self, db: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "hub", "hub", "--db", db], cwd=ROOT,
                                     stdout=subprocess.PIPE, text=True)


@pytest.mark.postgres
@pytest.mark.slow
def test_a_waiting_standby_stops_on_sigterm(pg_url: str) -> None:
    active, standby = BareHub(pg_url), None
    try:
        assert active.line(30)["hub"] == "ready"
        standby = BareHub(pg_url)
        assert standby.line(30)["hub"] == "standby"
        standby.proc.send_signal(signal.SIGTERM)
        assert standby.proc.wait(timeout=5) == 0
        assert active.proc.poll() is None
    finally:
        for hub in (active, standby):
            if hub is not None:
                hub.stop()


@pytest.mark.postgres
@pytest.mark.slow
def test_an_active_hub_that_loses_its_lock_session_stops_and_the_standby_takes_over(
        pg_url: str) -> None:
    """Fencing: the server ends the active hub's lock session (as it would after its
    keepalives failed); that hub must stop rather than referee next to the new one."""
    first, second = BareHub(pg_url), None
    try:
        assert first.line(30)["hub"] == "ready"
        second = BareHub(pg_url)
        waiting = second.line(30)
        assert waiting["hub"] == "standby"
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("SELECT pg_terminate_backend(%s)", (waiting["active_pid"],))
        assert second.line(10)["hub"] == "ready"
        assert first.proc.wait(timeout=5) == EXIT_LOST_LOCK
        assert ActiveLock(pg_url).holder_pid() not in (None, waiting["active_pid"])
    finally:
        for hub in (first, second):
            if hub is not None:
                hub.stop()
