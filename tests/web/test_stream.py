"""The live stream over a real waitress server: a snapshot first, then every change;
reconnecting with Last-Event-ID resumes exactly after it; too old means a snapshot."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from hub.service import Hub
from tests.web.conftest import serial_board
from web.server import ServerHandle, start_server


class SSEClient:
    """A minimal EventSource: reads frames from one HTTP connection."""

    def __init__(self, url: str, path: str = "/api/stream", last_event_id: int | None = None) -> None:
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
        headers = {"Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        self.conn.request("GET", path, headers=headers)
        self.response = self.conn.getresponse()

    def next_event(self, timeout: float = 5.0) -> dict[str, Any]:
        """The next event with data (comments and the retry line are skipped)."""
        deadline = time.monotonic() + timeout
        event: dict[str, Any] = {}
        while time.monotonic() < deadline:
            line = self.response.fp.readline().decode()
            if line == "":
                raise EOFError("stream closed")
            line = line.rstrip("\n")
            if not line:
                if "data" in event:
                    return event
                event = {}
            elif line.startswith("id: "):
                event["id"] = int(line[4:])
            elif line.startswith("event: "):
                event["event"] = line[7:]
            elif line.startswith("data: "):
                event["data"] = json.loads(line[6:])
        raise TimeoutError("no event")

    def close(self) -> None:
        # Close every reference to the socket (the response's file too), as a browser
        # does, so the server's next write fails and frees the stream.
        self.response.close()
        self.conn.close()


@pytest.fixture
def server(hub: Hub, trigono_table: Any) -> Iterator[ServerHandle]:
    handle = start_server(hub, password="pw", max_streams=4, config={"STREAM_HEARTBEAT_S": 0.5})
    yield handle
    handle.close()


def landed(hub: Hub, where: str = "floor") -> dict[str, Any]:
    return hub.submit("t1", {"landed": where, "by": "test"})


def test_stream_starts_with_a_snapshot_then_follows_changes(server: ServerHandle, hub: Hub) -> None:
    client = SSEClient(server.url)
    assert client.response.status == 200
    assert client.response.getheader("Content-Type").startswith("text/event-stream")
    first = client.next_event()
    assert first["event"] == "snapshot" and [t["id"] for t in first["data"]["tables"]] == ["t1"]
    landed(hub)
    update = client.next_event()
    assert update["event"] == "table" and update["id"] > first["id"]
    assert update["data"]["state"]["floor"] == 1 and "seed" not in update["data"]
    client.close()


def test_reconnect_with_last_event_id_resumes_exactly(server: ServerHandle, hub: Hub) -> None:
    client = SSEClient(server.url)
    seen = client.next_event()["id"]
    client.close()
    landed(hub, "floor")  # missed while away
    landed(hub, "board:B1")
    again = SSEClient(server.url, last_event_id=seen)
    event = again.next_event()
    assert event["event"] == "table" and event["id"] > seen  # no snapshot: what was missed
    state = event["data"]["state"]
    while len(state["log"]) < 2:
        state = again.next_event()["data"]["state"]
    assert state["floor"] == 1 and state["boards"] == {"B1": 1}
    again.close()


def test_unknown_or_too_old_event_id_gets_a_snapshot(server: ServerHandle) -> None:
    client = SSEClient(server.url, last_event_id=5)
    assert client.next_event()["event"] == "snapshot"
    client.close()


def test_stream_for_one_table_skips_the_others(server: ServerHandle, hub: Hub) -> None:
    hub.create_table("trigono", seats=["Cy", "Di"], seed=2, table_id="t2")
    client = SSEClient(server.url, path="/api/stream?table=t1")
    client.next_event()  # snapshot
    hub.submit("t2", {"landed": "floor"})
    landed(hub)
    event = client.next_event()
    assert event["event"] == "table" and event["data"]["id"] == "t1"
    client.close()


def test_board_health_goes_only_to_streams_that_ask(server: ServerHandle, hub: Hub, tmp_path: Any) -> None:
    admin = SSEClient(server.url, path="/api/stream?boards=1")
    dashboard = SSEClient(server.url)
    admin.next_event()
    dashboard.next_event()
    board = serial_board(hub, tmp_path)
    try:
        event = admin.next_event()
        while event["event"] != "boards":
            event = admin.next_event()
        assert event["data"][0]["board"] == "B1" and event["data"][0]["status"] == "online"
        landed(hub)
        assert dashboard.next_event()["event"] == "table"  # no board health in between
    finally:
        board.unplug()
        admin.close()
        dashboard.close()


def test_streams_beyond_the_limit_are_refused_not_queued(server: ServerHandle) -> None:
    clients = [SSEClient(server.url) for _ in range(4)]
    for c in clients:
        c.next_event()
    extra = SSEClient(server.url)
    assert extra.response.status == 503
    extra.close()
    clients[0].close()
    # A heartbeat write (every 0.5 s here) finds the socket closed and frees the slot.
    deadline = time.monotonic() + 8
    while True:
        again = SSEClient(server.url)
        status = again.response.status
        again.close()
        if status == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert status == 200
    for c in clients[1:]:
        c.close()


def test_pages_still_answer_while_streams_are_open(server: ServerHandle) -> None:
    clients = [SSEClient(server.url) for _ in range(4)]
    parts = urlsplit(server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
    conn.request("GET", "/api/tables")
    assert conn.getresponse().status == 200
    conn.close()
    for c in clients:
        c.close()


def test_snapshot_shows_tables_in_play_and_only_recent_finished_ones(hub: Hub) -> None:
    from web.feed import RECENT_FINISHED, Feed

    for n in range(RECENT_FINISHED + 2):
        hub.create_table("trike", seats=["Ana", "Ben"], options={"size": 3}, seed=n, table_id=f"f{n}")
        while not hub.game_over(f"f{n}"):  # play to the end: first legal move (K rules)
            hub.submit(f"f{n}", {"move": hub.table_view(f"f{n}")["state"]["legal_moves"][0]})
    hub.create_table("trigono", seats=["Cy", "Di"], seed=1, table_id="live")
    finished = [t["id"] for t in hub.list_tables() if t["status"] != "playing"]
    assert len(finished) >= RECENT_FINISHED + 1
    shown = [t["id"] for t in Feed(hub).snapshot_data()["tables"]]
    assert "live" in shown and shown[:-1] == finished[-RECENT_FINISHED:]
