"""The live stream over the real server (uvicorn; web/stream.py): a snapshot first, then every change;
reconnecting with Last-Event-ID resumes exactly after it; too old means a snapshot."""

from __future__ import annotations

import http.client
import json
import socket
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from hub.facade import Hub
from tests.web.conftest import serial_board
from web import stream
from web.server import ServerHandle, start_server
from web.stream import StreamFanout


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

    def next_event(self, timeout: float = 30.0) -> dict[str, Any]:
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


# -- the event-loop server (web/stream.py) ------------------------------------------------------
def fanout(server: ServerHandle) -> StreamFanout:
    found: StreamFanout = server.app.extensions["stream_fanout"]
    return found


def wait_until(condition: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def raw_stream(url: str, receive_buffer: int = 4096) -> socket.socket:
    """A viewer that connects and then does not read (a phone whose screen went off)."""
    parts = urlsplit(url)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.connect((parts.hostname, parts.port))
    sock.sendall(b"GET /api/stream HTTP/1.1\r\nHost: test\r\nAccept: text/event-stream\r\n\r\n")
    return sock


def test_a_viewer_that_stops_reading_is_held_to_the_newest_view_not_queued(server: ServerHandle, hub: Hub) -> None:
    stalled = raw_stream(server.url)
    wait_until(lambda: fanout(server).open == 1)
    reading = SSEClient(server.url)
    reading.next_event()  # snapshot
    inputs: list[dict[str, Any]] = [{"landed": "floor"}, {"undo": True}]

    def busy() -> list[Any]:
        return [v for group in list(fanout(server).groups.values()) for v in list(group) if v.busy]

    # Changes until the stalled viewer's socket and transport are full (how many depends
    # on the frame size and on how many changes the feed folds into one frame), then 50
    # more for it to hold.
    changes, more, deadline = 0, 50, time.monotonic() + 30
    while more:
        assert time.monotonic() < deadline, "the stalled viewer never filled its socket"
        last = int(hub.submit("t1", inputs[changes % 2])["change_id"])
        changes += 1
        if busy():
            more -= 1
        elif changes % 10 == 0:
            time.sleep(0.005)  # the feed sends frames meanwhile
    seen = 0
    while seen < last:
        seen = reading.next_event()["id"]
    # The reading viewer filled its socket too while the test was busy submitting; it is
    # drained now and leaves the busy ones at the fan-out's next unblock tick.
    wait_until(lambda: len(busy()) == 1)
    (viewer,) = busy()
    frame_size = len(json.dumps(hub.public_view("t1"))) + 64
    # Bounded: one held view of the table, the transport no fuller than its mark + one frame.
    assert list(viewer.held) == ["t1"] and viewer.held["t1"].id == last
    assert viewer.transport.get_write_buffer_size() <= stream.HIGH_WATER + frame_size
    # When it reads again it gets the newest view, having skipped what it could not take.
    stalled.settimeout(5)
    data = b""
    while f"id: {last}\n".encode() not in data:
        chunk = stalled.recv(1 << 16)
        assert chunk, "stream closed"
        data += chunk
    assert 0 < data.count(b"event: table\n") < changes
    stalled.close()
    reading.close()


@pytest.fixture
def one_slot(hub: Hub, trigono_table: Any) -> Iterator[ServerHandle]:
    # No heartbeat for a minute: a slot must come back because the client left, not
    # because a keep-alive write found the socket dead.
    handle = start_server(hub, max_streams=1, config={"STREAM_HEARTBEAT_S": 60})
    yield handle
    handle.close()


def test_a_viewer_that_leaves_frees_its_slot_at_once(one_slot: ServerHandle) -> None:
    first = SSEClient(one_slot.url)
    first.next_event()
    refused = SSEClient(one_slot.url)
    assert refused.response.status == 503 and refused.response.getheader("Retry-After")
    refused.close()
    first.close()
    wait_until(lambda: fanout(one_slot).open == 0, timeout=10)  # well before the 60 s heartbeat
    again = SSEClient(one_slot.url)
    assert again.response.status == 200 and again.next_event()["event"] == "snapshot"
    again.close()


def test_portable_write_path_without_the_transport(
    monkeypatch: pytest.MonkeyPatch, hub: Hub, trigono_table: Any
) -> None:
    """Under a server other than uvicorn+httptools every write goes through ASGI send."""
    monkeypatch.setattr(stream, "raw_transport", lambda send: None)
    handle = start_server(hub, max_streams=4, config={"STREAM_HEARTBEAT_S": 0.5})
    try:
        client = SSEClient(handle.url)
        first = client.next_event()
        landed(hub)
        update = client.next_event()
        assert update["event"] == "table" and update["data"]["state"]["floor"] == 1
        viewer = next(v for group in fanout(handle).groups.values() for v in group)
        assert viewer.transport is None
        client.close()
        again = SSEClient(handle.url, last_event_id=first["id"])
        assert again.next_event()["id"] == update["id"]  # resumed, no snapshot
        again.close()
    finally:
        handle.close()


@pytest.mark.browser
def test_dashboard_recovers_by_itself_after_the_stream_drops_and_a_503(browser: Any, hub: Hub) -> None:
    from tests.web.conftest import new_page

    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1")
    handle = start_server(hub, max_streams=1)
    port = int(handle.url.rsplit(":", 1)[1])
    page = new_page(browser)
    page.goto(handle.url + "/")
    page.locator("article[data-table=t1]").wait_for()
    page.wait_for_selector("#live-status[data-state=online]")
    page.evaluate("window.__notReloaded = true")
    # The stream drops: the server goes away and comes back full. It comes back with no
    # stream slot at all, so the page's first try is a 503 whatever the timing (a squatter
    # racing the page for the only slot made this test fail once on a busy machine).
    handle.close()
    with page.expect_response(lambda r: "/api/stream" in r.url and r.status == 503, timeout=20_000):
        handle = start_server(hub, port=port, max_streams=0)
    page.wait_for_selector("#live-status[data-state=offline]", timeout=10_000)
    hub.submit("t1", {"landed": "floor"})  # missed while refused
    handle.app.extensions["stream_slots"].limit = 1  # a slot frees up
    page.wait_for_selector("#live-status[data-state=online]", timeout=20_000)
    page.wait_for_selector("article[data-table=t1] [data-count=floor] b:text-is('1')", timeout=10_000)
    assert page.evaluate("window.__notReloaded") is True
    assert page.js_errors == []
    handle.close()


def test_board_health_after_a_table_change_still_reaches_the_admin(
    server: ServerHandle, hub: Hub, tmp_path: Any
) -> None:
    """Health is held back up to a second and then carries the newest change id, which the
    admin's stream already has from the table change in between: it must still go out."""
    admin = SSEClient(server.url, path="/api/stream?boards=1")
    admin.next_event()
    board = serial_board(hub, tmp_path)
    try:
        event = admin.next_event()
        while event["event"] != "boards":
            event = admin.next_event()
        board.event("blocked", hole="big")  # health changes within the second ...
        # ... and a table change comes before it is sent (not a palet's landing: the
        # blocked beam counts as a drop, T13, and while it settles a landing is refused)
        hub.submit("t1", {"archive": False, "by": "test"})
        deadline = time.monotonic() + 30
        blocked: list[str] = []
        while blocked != ["big"]:
            assert time.monotonic() < deadline, "board health never came"
            event = admin.next_event()
            if event["event"] == "boards":
                blocked = event["data"][0]["blocked"]
    finally:
        board.unplug()
        admin.close()
