"""Issue 24.1: text with no UTF-8 form (a lone surrogate, U+D800-DFFF, which a JSON
escape can carry) never reaches a screen. Boards' lines holding one are refused at the
serial edge with a reason and counted; a web body holding one is a 400; a log written
before the edges refused them restores, and the live feed keeps every other table going."""

from __future__ import annotations

import http.client
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson
import pytest
from flask.testing import FlaskClient

from hub.devices.serial_link import SerialTransport
from hub.facade import Hub
from hub.log.sqlite import SqliteStore
from hub.log.store import Entry
from tests.hub.boards import PtyBoard, wait_for
from tests.web.conftest import api_post, csrf_token
from tests.web.test_stream import SSEClient
from web.server import ServerHandle, start_server

LONE = "\ud800"


@pytest.fixture
def server(hub: Hub, trigono_table: Any) -> Iterator[ServerHandle]:
    handle = start_server(hub, password="pw", max_streams=8, config={"STREAM_HEARTBEAT_S": 0.5})
    yield handle
    handle.close()


def board_health(hub: Hub, board: str) -> dict[str, Any]:
    return next((b for b in hub.boards() if b["board"] == board), {})


def test_serial_lines_with_a_lone_surrogate_are_refused_and_every_screen_keeps_its_feed(
        server: ServerHandle, hub: Hub, tmp_path: Path) -> None:
    viewer = SSEClient(server.url, path="/api/stream?boards=1")
    assert viewer.next_event()["event"] == "snapshot"
    device = PtyBoard("B1", tmp_path / "ttyB1")
    link = SerialTransport([str(device.path)])
    hub.add_transport(link)
    try:
        assert wait_for(lambda: link.describe()["ports"][0]["open"], timeout=30)
        # json.dumps writes the lone surrogate as the escape "\ud800": valid JSON, bad text.
        device.event("hello", fw="1.0" + LONE, config="c", holes=["big", "small"])
        device.event("fault", reason="beam" + LONE)
        assert wait_for(lambda: board_health(hub, "B1").get("corrupt", 0) >= 2, timeout=30)
        assert device.out.acked == 0  # refused: neither stored nor acknowledged
        assert all(e.body.get("type") not in ("hello", "fault") for e in hub.store.entries())
        device.out.seq = 0
        device.event("hello", fw="1.0", config="c", holes=["big", "small"])
        assert wait_for(lambda: device.out.acked >= 1, timeout=30)
        # Another table's updates and a new viewer's snapshot still arrive.
        hub.submit("t1", {"landed": "floor", "by": "test"})
        event = viewer.next_event()
        while event["event"] != "table":
            event = viewer.next_event()
        assert event["data"]["id"] == "t1"
        fresh = SSEClient(server.url)
        first = fresh.next_event()
        assert first["event"] == "snapshot" and [t["id"] for t in first["data"]["tables"]] == ["t1"]
        fresh.close()
    finally:
        viewer.close()
        device.unplug()


def test_a_log_holding_a_lone_surrogate_from_before_restores_and_streams(tmp_path: Path) -> None:
    db = tmp_path / "run.db"
    first = Hub(str(db), settle_s=0.05)
    first.start()
    first.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1")
    first.close()
    # What an older hub stored: the board's own lines, escapes and all.
    hello = ('{"type":"hello","board":"B1","boot":1,"seq":1,"t_us":5,"fw":"1.0\\ud800",'
             '"config":"c","holes":["big","small"]}')
    fault = '{"type":"fault","board":"B1","boot":1,"seq":2,"t_us":9,"reason":"beam\\udfff"}'
    store = SqliteStore(db)
    store.append([Entry.new("device", {}, table_id="t1", board="B1", boot=1, seq=seq, raw=raw)
                  for seq, raw in ((1, hello), (2, fault))])
    store.close()
    hub = Hub(str(db), settle_s=0.05)
    hub.start()
    handle = start_server(hub, password="pw", config={"STREAM_HEARTBEAT_S": 0.5})
    try:
        view = hub.public_view("t1")
        assert "beam\ufffd" in orjson.dumps(view).decode()
        client = SSEClient(handle.url, path="/api/stream?boards=1")
        first_event = client.next_event()
        assert first_event["event"] == "snapshot"
        assert [t["id"] for t in first_event["data"]["tables"]] == ["t1"]
        client.close()
    finally:
        handle.close()
        hub.close()


def test_a_seat_name_with_a_lone_surrogate_is_a_400_with_the_reason(referee: FlaskClient) -> None:
    answer = api_post(referee, "/api/tables", {"game": "trigono", "seats": ["Ana" + LONE, "Ben"]})
    assert answer.status_code == 400
    assert "lone surrogate" in answer.get_data(as_text=True)


@pytest.mark.parametrize("last_event_id", ["\u00b2", "9" * 5000, "-1", "1e3"])
def test_a_last_event_id_that_is_no_event_id_is_a_400_not_a_500(
        server: ServerHandle, last_event_id: str) -> None:
    parts = urlsplit(server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.putrequest("GET", "/api/stream")
    conn.putheader("Last-Event-ID", last_event_id.encode())
    conn.endheaders()
    answer = conn.getresponse()
    assert answer.status == 400
    assert b"Last-Event-ID" in answer.read()
    conn.close()


def test_unencodable_text_refused_at_every_door_is_counted_shown_and_logged_once_24_1(
        referee: FlaskClient, trigono_table: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="web.security")
    escaped = '{"game": "trigono", "seats": ["Ana\\ud800", "Ben"]}'  # the JSON escape, as a script sends it
    token = csrf_token(referee)
    for _ in range(3):
        answer = referee.post("/api/tables", data=escaped, headers={
            "X-CSRFToken": token, "Content-Type": "application/json"})
        assert answer.status_code == 400 and "lone surrogate" in answer.get_data(as_text=True)
    # A form field read as JSON (the console's move, the admin's options) is refused too.
    answer = referee.post("/console/t1/input", data={"input": "move", "action": '"c\\udfff"',
                                                     "csrf_token": token})
    assert answer.status_code == 400
    answer = referee.post("/admin/tables", data={"game": "trigono", "players": "Ana\nBen",
                                                 "options": '{"x": "\\ud800"}', "csrf_token": token})
    assert answer.status_code == 400
    # Other bad JSON is a 400 as before, but not counted as unencodable text.
    answer = referee.post("/api/tables", data="[" * 100 + "]" * 100, headers={
        "X-CSRFToken": token, "Content-Type": "application/json"})
    assert answer.status_code == 400
    assert referee.application.extensions["text_refusals"].by_door() == {"admin": 1, "api": 3, "console": 1}
    assert referee.application.extensions["text_refusals"].total == 5
    lines = [r.getMessage() for r in caplog.records if "such requests refused" in r.getMessage()]
    assert len(lines) == 1 and "/api/tables" in lines[0] and "lone surrogate" in lines[0]
    panel = referee.get("/admin/boards").get_data(as_text=True)
    shown = re.search(r'<p [^>]*id="text-refused"[^>]*>([^<]*)</p>', panel)
    assert shown and shown.group(1).strip().startswith("5 ")
