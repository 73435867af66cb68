"""A silent cut between the active hub and PostgreSQL (issue 32.6).

Two ``trigono hub`` processes on one PostgreSQL event store and one real Mosquitto, with
one client id (the shipped standby setup). The active hub reaches the server through a
TCP proxy; the standby reaches it directly (another laptop, still on the network). On
command the proxy stops forwarding bytes both ways and closes nothing: the active hub's
sockets stay open and its queries never come back, as behind a route that drops
packets. The active hub must step down within its stated time
(:data:`hub.log.standby.STEP_DOWN_S`), the standby must take over once the old hub's
lease is out, the two must not take the broker session from each other (counted in the
broker's own log), and no acknowledged event may be lost.

Before issue 32.6 the active hub's lock watcher waited on the cut forever, its ingest
with it, and the boards waited for acks for the whole cut.
"""

from __future__ import annotations

import socket
import threading
import time
from urllib.parse import urlsplit, urlunsplit

import pytest

from hub.log.standby import EXIT_LOST_LOCK, LEASE_S, STEP_DOWN_S, WAIT_SLICE_S
from tests.broker import Broker
from tests.hub.boards import MqttBoard, wait_for
from tests.multihall.test_bridge import steps
from tests.multihall.test_standby import TABLES, HubProcess, per_board_counts

EVERY_S = 0.05  # the board sends an event every 50 ms
RESEND_S = 2.0  # the firmware's resend_ms
SLACK_S = 1.5  # a loaded 2-core machine: process start, scheduling


class SilentCutProxy:
    """A TCP proxy to ``upstream`` that :meth:`cut` turns into a black hole: from then on
    bytes are taken from either side and dropped, and no close is passed on (a
    connection that ends on one side stays open on the other), as when a network drops
    every packet. New connections are accepted and get nothing."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.cut_now = threading.Event()
        self.sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, name="proxy-accept", daemon=True).start()

    def _keep(self, sock: socket.socket) -> None:
        with self._lock:
            self.sockets.append(sock)

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:  # closed
                return
            self._keep(client)
            if self.cut_now.is_set():
                threading.Thread(target=self._pump, args=(client, None), daemon=True).start()
                continue
            server = socket.create_connection(self.upstream)
            self._keep(server)
            for src, dst in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket | None) -> None:
        while True:
            try:
                data = src.recv(65536)
            except OSError:
                return
            if not data:
                if dst is not None and not self.cut_now.is_set():
                    dst.shutdown(socket.SHUT_WR)
                return
            if dst is None or self.cut_now.is_set():
                continue  # dropped on the way
            try:
                dst.sendall(data)
            except OSError:
                return

    def cut(self) -> None:
        self.cut_now.set()

    def close(self) -> None:
        self.listener.close()
        with self._lock:
            for sock in self.sockets:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()


def server_address(url: str) -> tuple[str, int]:
    """The host and port of the PostgreSQL server at ``url``."""
    parts = urlsplit(url)
    return parts.hostname or "127.0.0.1", parts.port or 5432


def through(url: str, port: int) -> str:
    """``url`` with the proxy (on this machine, at ``port``) instead of the server."""
    parts = urlsplit(url)
    login, at, _ = parts.netloc.rpartition("@")
    return urlunsplit(parts._replace(netloc=f"{login}{at}127.0.0.1:{port}"))


def takeovers(broker: Broker, client_id: str) -> int:
    """How often the broker closed a connection of ``client_id`` for a new one (its log)."""
    text = (broker.workdir / "mosquitto.log").read_text(errors="replace")
    return text.count(f"Client {client_id} already connected, closing old connection")


@pytest.mark.postgres
@pytest.mark.mqtt
@pytest.mark.slow
def test_a_silent_cut_to_postgres_the_active_hub_steps_down_in_time_and_the_standby_takes_over(
        own_mosquitto: Broker, pg_url: str) -> None:
    proxy = SilentCutProxy(server_address(pg_url))
    first = HubProcess(own_mosquitto, through(pg_url, proxy.port))
    second: HubProcess | None = None
    board: MqttBoard | None = None
    stop = threading.Event()
    resender: threading.Event | None = None
    try:
        assert first.line(30)["hub"] == "ready"
        second = HubProcess(own_mosquitto, pg_url)
        assert second.line(30)["hub"] == "standby"

        board = MqttBoard(TABLES[0]["boards"][0], own_mosquitto.host, own_mosquitto.port)
        resender = board.resend_every(RESEND_S)
        live = board

        def play() -> None:
            live.event("hello", fw="test", config="c", holes=["big", "small"])
            for kind, fields in steps(100_000):
                if stop.wait(EVERY_S):  # the board's pace, not a wait for the hub
                    return
                live.event(kind, **fields)

        player = threading.Thread(target=play)
        player.start()
        assert wait_for(lambda: live.out.acked >= 10, timeout=30), "the active hub acknowledges"
        takeovers_before = takeovers(own_mosquitto, "hub-festival")

        proxy.cut()
        cut_at = time.monotonic()
        acked_at_cut = board.out.acked
        assert first.proc.wait(timeout=STEP_DOWN_S + 30) == EXIT_LOST_LOCK
        stepped_down_s = time.monotonic() - cut_at
        assert second.line(LEASE_S + 30)["hub"] == "ready"
        ready_s = time.monotonic() - cut_at
        sent_at_ready = board.out.seq
        assert wait_for(lambda: live.out.acked >= sent_at_ready, timeout=30), \
            "the new active hub acknowledges what the boards resend"
        acking_s = time.monotonic() - cut_at
        stop.set()
        player.join()
        assert wait_for(lambda: live.out.acked == live.out.seq, timeout=30)
        fights = takeovers(own_mosquitto, "hub-festival") - takeovers_before
    finally:
        stop.set()
        if resender is not None:
            resender.set()
        if board is not None:
            board.close()
        proxy.close()
        first.stop()
        if second is not None:
            second.stop()

    print(f"\nsilent cut: the active hub stepped down after {stepped_down_s:.2f} s (stated"
          f" {STEP_DOWN_S:.0f} s), the standby was ready after {ready_s:.2f} s (lease"
          f" {LEASE_S:.0f} s), every event acknowledged again after {acking_s:.2f} s;"
          f" {fights} broker session takeover(s); {acked_at_cut} acknowledged at the cut")
    assert stepped_down_s < STEP_DOWN_S + SLACK_S
    assert ready_s < LEASE_S + WAIT_SLICE_S + SLACK_S + 5.0  # + rebuilding the tables
    assert fights <= 1, "the two hubs took the broker session from each other"
    stored, distinct, _routed = per_board_counts(pg_url)[board.out.board]
    assert stored == distinct == board.out.seq, "every event stored exactly once"



def test_the_proxy_black_holes_without_closing() -> None:
    """The fault itself: after :meth:`SilentCutProxy.cut`, nothing passes either way and
    the client's socket stays open (a recv times out instead of reading an end)."""
    echo = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []

    def serve() -> None:
        conn, _ = echo.accept()
        accepted.append(conn)
        while data := conn.recv(1024):
            conn.sendall(data)

    threading.Thread(target=serve, daemon=True).start()
    proxy = SilentCutProxy(echo.getsockname())
    try:
        with socket.create_connection(("127.0.0.1", proxy.port), timeout=5) as client:
            client.sendall(b"ping")
            assert client.recv(16) == b"ping"
            proxy.cut()
            client.sendall(b"lost")
            accepted[0].close()  # the far end closes: not passed on either
            client.settimeout(0.5)
            with pytest.raises(TimeoutError):
                client.recv(16)
    finally:
        proxy.close()
        echo.close()
