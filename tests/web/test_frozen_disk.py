"""Issue 24.8: a frozen disk held the hub's lock for the whole freeze, so ``/api/tables``
timed out. Now a read waits at most LOCK_WAIT_S (hub.facade) for a commit in progress and answers 503
in one line; once the disk answers again everything does. Writes too (the console, the
API, the admin's actions): they wait at most LOCK_WAIT_S, answer 503 in one line and
change nothing. The freeze is a real SQLite commit that blocks inside the database (a
trigger calling a function that waits)."""

from __future__ import annotations

import http.client
import http.cookiejar
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from hub.facade import Hub
from web.server import ServerHandle, start_server

CSRF_META = re.compile(r'<meta name="csrf-token" content="([^"]+)"')


def get(url: str, path: str) -> tuple[int, bytes]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    conn.request("GET", path)
    answer = conn.getresponse()
    body = answer.read()
    conn.close()
    return answer.status, body


def freeze_next_insert(hub: Hub) -> None:
    hub.store._db.execute(  # type: ignore[attr-defined]
        "CREATE TEMP TRIGGER freeze_commit BEFORE INSERT ON log BEGIN SELECT freeze(); END")


@pytest.mark.slow  # 2-3 s: the fast loop stays under a minute
def test_the_api_answers_503_at_once_while_a_commit_waits_on_a_frozen_disk_24_8(
        frozen_rig: tuple[Hub, ServerHandle, threading.Event, threading.Event]) -> None:
    hub, handle, frozen, thawed = frozen_rig
    freeze_next_insert(hub)
    writer = threading.Thread(target=hub.submit, args=("t1", {"landed": "floor", "by": "test"}))
    writer.start()
    try:
        assert frozen.wait(10)
        status, body = get(handle.url, "/api/tables")
        assert status == 503 and b"waiting on its event store" in body
        assert writer.is_alive()  # answered while the commit still waits: not after the freeze
    finally:
        thawed.set()
        writer.join(timeout=30)
    status, body = get(handle.url, "/api/tables")
    assert status == 200 and b'"t1"' in body


class Referee:
    """A logged-in browser over real HTTP: cookies, and the CSRF token a page hands out."""

    def __init__(self, url: str, password: str) -> None:
        self.url = url
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        token = self.token("/auth/login")
        self.opener.open(url + "/auth/login", urllib.parse.urlencode(
            {"password": password, "csrf_token": token}).encode(), timeout=30).read()
        self.csrf = self.token("/console/")

    def token(self, page: str) -> str:
        html = self.opener.open(self.url + page, timeout=30).read().decode()
        match = CSRF_META.search(html)
        assert match, f"no csrf meta on {page}"
        return match.group(1)

    def post(self, path: str, *, form: dict[str, str] | None = None,
             json_body: bytes | None = None) -> tuple[int, bytes, str | None]:
        if form is not None:
            data, kind = urllib.parse.urlencode({**form, "csrf_token": self.csrf}).encode(), \
                "application/x-www-form-urlencoded"
        else:
            data, kind = json_body or b"{}", "application/json"
        request = urllib.request.Request(self.url + path, data=data, headers={
            "Content-Type": kind, "X-CSRFToken": self.csrf, "Accept": "application/json"
            if json_body is not None else "text/html"})
        try:
            with self.opener.open(request, timeout=30) as answer:
                return answer.status, answer.read(), answer.headers.get("Retry-After")
        except urllib.error.HTTPError as err:
            return err.code, err.read(), err.headers.get("Retry-After")


@pytest.fixture
def frozen_rig(tmp_path: Path) -> Iterator[tuple[Hub, ServerHandle, threading.Event, threading.Event]]:
    """A hub on a SQLite file whose next log insert blocks inside SQLite until ``thawed``."""
    hub = Hub(str(tmp_path / "run.db"), settle_s=0.05)
    hub.start()
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1")
    thawed, frozen = threading.Event(), threading.Event()

    def freeze() -> int:
        frozen.set()
        thawed.wait(60)
        return 0

    db = hub.store._db  # type: ignore[attr-defined]
    db.create_function("freeze", 0, freeze)
    handle = start_server(hub, password="pw")
    try:
        yield hub, handle, frozen, thawed
    finally:
        thawed.set()
        handle.close()
        hub.close()


@pytest.mark.slow  # ~10 s: real waits (the fast loop stays under a minute)
def test_writes_answer_503_and_change_nothing_while_a_commit_waits_on_a_frozen_disk_24_8(
        frozen_rig: tuple[Hub, ServerHandle, threading.Event, threading.Event]) -> None:
    hub, handle, frozen, thawed = frozen_rig
    referee = Referee(handle.url, "pw")  # logged in before the freeze (the login reads no table)
    actions_before = len(hub.export("t1")["actions"])
    freeze_next_insert(hub)
    writer = threading.Thread(target=hub.submit, args=("t1", {"landed": "floor", "by": "test"}))
    writer.start()
    answers: dict[str, Any] = {}
    try:
        assert frozen.wait(10)
        answers["console"] = referee.post("/console/t1/input", form={"input": "invalid"})
        answers["api"] = referee.post("/api/tables/t1/input", json_body=b'{"undo": true}')
        answers["ignore"] = referee.post("/admin/boards/B9/ignore", form={})
        answers["archive"] = referee.post("/admin/tables/t1/archive", form={"archived": "1"})
        answers["create"] = referee.post("/api/tables", json_body=b'{"game": "trigono", "seats": ["Cy", "Di"]}')
        assert writer.is_alive()  # every answer came while the commit still waited
    finally:
        thawed.set()
        writer.join(timeout=30)
    for door, (status, body, retry_after) in answers.items():
        assert status == 503 and retry_after == "2", (door, status, body[:300])
        assert b"waiting on its event store" in body and b"nothing was changed" in body, door
    assert b'"type":"StoreWriteError"' in answers["api"][1].replace(b" ", b"")  # the API's JSON error
    # Nothing refused was applied or stored: only the frozen commit's own input landed.
    assert len(hub.export("t1")["actions"]) == actions_before + 1
    assert [t["id"] for t in hub.list_tables()] == ["t1"]
    assert "B9" not in hub.devices.ignored
    assert not any(t.get("archived") for t in hub.list_tables())
    # And the same doors work again once the disk answers.
    status, _, _ = referee.post("/admin/tables/t1/archive", form={"archived": "1"})
    assert status in (200, 303)
    assert any(t.get("archived") for t in hub.list_tables())
