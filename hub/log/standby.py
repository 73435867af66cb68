"""Hot standby (issue 18): several hubs on one PostgreSQL event store, exactly one active.

The active hub holds a PostgreSQL session advisory lock on a connection of its own; the
others wait for it in ``pg_advisory_lock`` (PostgreSQL queues them) and the first in line
becomes active the moment the holder's session ends: when its process dies, the kernel
closes its socket and the server ends the session at once; when its machine dies or
drops off the network, the server's TCP keepalives (set short on this connection) end
it within about ``KEEPALIVE_IDLE_S + KEEPALIVE_COUNT * KEEPALIVE_INTERVAL_S`` seconds.

Only then does the new hub open the store, rebuild its tables from the log and connect
to the devices. Nothing accepted is lost on the way: the dead hub acknowledged only what
was committed, the boards resend the rest, and the unique (board, boot, seq) index
drops what both hubs receive. With one MQTT client id for all the hubs (a persistent
session), the broker even keeps the events sent while no hub was connected.

A hub that loses its lock connection stops at once (:meth:`ActiveLock.watch`): another
hub may already be active, and two active hubs would referee the same tables twice.

A *silent* cut (a route that drops packets, a dead NAT entry, a switch that hangs) ends
nothing by itself: the sockets stay open and a blocking query waits for the whole cut,
while the boards wait for acks. So both sides work on deadlines of their own (issue 32.6):

- the active hub's watcher asks the server for a sign of life every
  :data:`WATCH_EVERY_S` and gives it :data:`ANSWER_WITHIN_S` to answer (a client-side
  deadline): without an answer the hub steps down, at most :data:`STEP_DOWN_S` after the
  last answer — it leaves the process, which ends its MQTT session and every
  acknowledgement with it, and the supervisor starts it again as a standby (which cannot
  take over while it cannot reach the server);
- a waiting standby looks at the active hub's lock session every
  :data:`WAIT_SLICE_S`: one that has not answered a query for :data:`LEASE_S` (twice the
  step-down time, so the old hub is gone first and the two never take the broker
  session from each other) has lost its lease, and the standby ends it
  (``pg_terminate_backend``) and takes the lock.

Every connection also carries libpq's connect timeout and client keepalives
(:data:`hub.log.postgres.LIVENESS`), so a connection attempt into a cut gives up.

>>> lock_key_sql()
"hashtext('trigono-hub:' || current_schema())"
"""

from __future__ import annotations

import json
import logging
import os
import select
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg import pq

from hub.log.postgres import LIVENESS, lock_key_sql

log = logging.getLogger("hub.log.standby")

KEEPALIVE_IDLE_S = 3
KEEPALIVE_INTERVAL_S = 1
KEEPALIVE_COUNT = 3
WATCH_EVERY_S = 1.0
ANSWER_WITHIN_S = 2.0  # the server answers a trivial query in milliseconds
STEP_DOWN_S = WATCH_EVERY_S + ANSWER_WITHIN_S  # a silent cut -> the active hub has left
LEASE_S = 2 * STEP_DOWN_S  # a lock session silent this long has lost its lease
WAIT_SLICE_S = 1.0  # a standby looks at the active hub's lease this often
EXIT_LOST_LOCK = 3


# The backend pid holding the advisory lock of :func:`lock_key_sql` in this database.
_HOLDER_WHERE = (
    "l.locktype = 'advisory' AND l.granted"
    " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    " AND l.objsubid = 1"  # a single bigint key: classid high, objid low 32 bits
    f" AND ((l.classid::bigint << 32) | l.objid::bigint) = ({lock_key_sql()})::bigint")


def answers_within(conn: psycopg.Connection[Any], seconds: float) -> bool:
    """Whether the server answers ``SELECT 1`` on ``conn`` within ``seconds`` (and without
    an error). A client-side deadline: libpq's own calls would wait for the whole of a
    silent cut. ``conn`` is left unusable when the answer does not come in time."""
    pgconn = conn.pgconn
    deadline = time.monotonic() + seconds
    try:
        pgconn.send_query(b"SELECT 1")
        while True:
            pgconn.consume_input()
            if not pgconn.is_busy():
                break
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            select.select([pgconn.socket], [], [], left)
        answered = True
        while (result := pgconn.get_result()) is not None:
            answered = answered and result.status == pq.ExecStatus.TUPLES_OK
        return answered and pgconn.status == pq.ConnStatus.OK
    except (psycopg.Error, OSError):  # the session ended, the socket closed
        return False


class ActiveLock:
    """The right to be the active hub on the store at ``url`` (a ``postgresql://`` URL)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._conn: psycopg.Connection[Any] | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()

    def acquire(self, on_wait: Callable[[], None] | None = None, retry_s: float = 1.0) -> float:
        """Block until this process is the active hub; returns the seconds waited.
        ``on_wait`` is called once if another hub is active (this one is the standby).
        A failed connection (server restarting) is retried every ``retry_s``."""
        started = time.monotonic()
        waiting = False
        while True:
            conn: psycopg.Connection[Any] | None = None
            try:
                conn = psycopg.connect(self.url, autocommit=True,
                                       application_name=f"trigono-hub-lock-{os.getpid()}",
                                       **LIVENESS)
                # The server, not this client, must notice a dead hub machine: short
                # keepalives on the server side of this session.
                conn.execute(f"SET tcp_keepalives_idle = {KEEPALIVE_IDLE_S}")
                conn.execute(f"SET tcp_keepalives_interval = {KEEPALIVE_INTERVAL_S}")
                conn.execute(f"SET tcp_keepalives_count = {KEEPALIVE_COUNT}")
                # Queued behind the holder, a slice at a time: between slices, a holder
                # whose lease ran out is ended (see the module doc).
                conn.execute(f"SET lock_timeout = {int(WAIT_SLICE_S * 1000)}")
                row = conn.execute(f"SELECT pg_try_advisory_lock({lock_key_sql()})").fetchone()
                if not (row and row[0]):
                    if not waiting and on_wait is not None:
                        on_wait()
                    waiting = True
                    while not self._lock_within_slice(conn):
                        self._end_expired_holder(conn)
                conn.execute("SET lock_timeout = 0")  # also a first sign of life as the holder
            except psycopg.OperationalError as err:
                if conn is not None:
                    conn.close()
                log.warning("standby: cannot reach the store (%s); retrying", err)
                time.sleep(retry_s)
                continue
            except BaseException:  # SIGTERM while waiting (become_active): leave cleanly
                if conn is not None:
                    conn.close()
                raise
            with self._lock:
                self._conn = conn
            return time.monotonic() - started

    @staticmethod
    def _lock_within_slice(conn: psycopg.Connection[Any]) -> bool:
        """Wait up to the session's ``lock_timeout`` in the lock's queue; whether it was granted."""
        try:
            conn.execute(f"SELECT pg_advisory_lock({lock_key_sql()})")
        except psycopg.errors.LockNotAvailable:
            return False
        return True

    @staticmethod
    def _end_expired_holder(conn: psycopg.Connection[Any]) -> None:
        """End the active hub's lock session if it answered no query for :data:`LEASE_S`
        (its watcher runs one every second): that hub has stepped down already, or
        cannot reach the server and must not referee any more."""
        rows = conn.execute(
            "SELECT a.pid, pg_terminate_backend(a.pid) FROM pg_locks l"
            " JOIN pg_stat_activity a ON a.pid = l.pid"
            f" WHERE {_HOLDER_WHERE} AND a.state <> 'active'"
            " AND a.state_change < clock_timestamp() - make_interval(secs => %s)",
            (LEASE_S,)).fetchall()
        for pid, _ended in rows:
            log.warning("standby: the active hub's lock session (server pid %s) has been "
                        "silent for %.0f s: ended, taking over", pid, LEASE_S)

    def holder_pid(self) -> int | None:
        """The server process id of the active hub's lock session (None when no hub is
        active) — asked on a connection of its own, so any process may call it."""
        with psycopg.connect(self.url, autocommit=True, **LIVENESS) as conn:
            row = conn.execute(f"SELECT l.pid FROM pg_locks l WHERE {_HOLDER_WHERE}").fetchone()
        return None if row is None else int(row[0])

    def watch(self, on_lost: Callable[[], None] | None = None) -> threading.Thread:
        """Check the lock session every :data:`WATCH_EVERY_S`; call ``on_lost`` (default:
        leave the process at once with exit code 3) when it is gone or has not answered
        within :data:`ANSWER_WITHIN_S` (a silent cut)."""

        def lost() -> None:
            # os._exit, not a clean close: the ingest may be stuck in a commit that never
            # returns, and leaving now is what ends the MQTT session before a standby
            # takes it (the kernel closes every socket of the process).
            log.critical("standby: lost the active-hub lock session (no answer within %.0f s);"
                         " stepping down now", ANSWER_WITHIN_S)
            os._exit(EXIT_LOST_LOCK)

        action = on_lost or lost

        def run() -> None:
            while not self._stop.wait(WATCH_EVERY_S):
                with self._lock:
                    conn = self._conn
                if conn is None:
                    return
                if not answers_within(conn, ANSWER_WITHIN_S):
                    if not self._stop.is_set():
                        action()
                    return

        thread = threading.Thread(target=run, name="hub-active-lock", daemon=True)
        thread.start()
        return thread

    def release(self) -> None:
        """Give the lock up (closing the session releases it): a standby takes over."""
        self._stop.set()
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()


def _leave(signum: int, frame: Any) -> None:
    raise SystemExit(0)


def become_active(db: str) -> ActiveLock | None:
    """What ``trigono hub`` does before opening the store ``db``: on PostgreSQL, print
    ``{"hub": "standby"}`` if another hub is active and wait for its lock, then watch it
    (see the module doc); on SQLite (one hub per file) refuse with
    :class:`hub.log.store.StoreOpenError` when another process holds the file's writer lock
    (:func:`hub.log.sqlite.lock_writer`). The lock lives as long as the process."""
    from hub.log.store import is_postgres_url

    if not is_postgres_url(db):
        from hub.log.sqlite import lock_writer

        lock_writer(db)  # StoreOpenError when another hub writes this file
        return None
    lock = ActiveLock(db)

    def announce() -> None:
        print(json.dumps({"hub": "standby", "active_pid": lock.holder_pid()}), flush=True)

    # A standby waits inside PostgreSQL; the hub's own signal handlers would only set a
    # flag nobody reads meanwhile, so SIGTERM/SIGINT end a waiting standby here and now.
    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for stop_signal in (signal.SIGTERM, signal.SIGINT):
            previous[stop_signal] = signal.signal(stop_signal, _leave)
    try:
        waited = lock.acquire(on_wait=announce)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    log.info("active hub after %.2f s", waited)
    lock.watch()
    return lock
