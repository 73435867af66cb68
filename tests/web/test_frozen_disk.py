"""Issue 24.8: a frozen disk held the hub's lock for the whole freeze, so ``/api/tables``
timed out. Now a read waits at most READ_WAIT_S for a commit in progress and answers 503
in one line; once the disk answers again everything does. The freeze is a real SQLite
commit that blocks inside the database (a trigger calling a function that waits)."""

from __future__ import annotations

import http.client
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

from hub.facade import READ_WAIT_S, Hub
from web.server import start_server


def get(url: str, path: str) -> tuple[int, bytes, float]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    started = time.monotonic()
    conn.request("GET", path)
    answer = conn.getresponse()
    body = answer.read()
    conn.close()
    return answer.status, body, time.monotonic() - started


def test_the_api_answers_503_at_once_while_a_commit_waits_on_a_frozen_disk_24_8(tmp_path: Path) -> None:
    hub = Hub(str(tmp_path / "run.db"), settle_s=0.05)
    hub.start()
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1")
    thawed, frozen = threading.Event(), threading.Event()

    def freeze() -> int:
        frozen.set()
        thawed.wait(30)
        return 0

    db = hub.store._db  # type: ignore[attr-defined]
    db.create_function("freeze", 0, freeze)
    db.execute("CREATE TEMP TRIGGER freeze_commit BEFORE INSERT ON log BEGIN SELECT freeze(); END")
    handle = start_server(hub, password="pw")
    writer = threading.Thread(target=hub.submit, args=("t1", {"landed": "floor", "by": "test"}))
    try:
        writer.start()
        assert frozen.wait(10)
        status, body, took = get(handle.url, "/api/tables")
        assert status == 503 and b"waiting on its event store" in body
        assert took < READ_WAIT_S + 3.0  # not the whole freeze
        thawed.set()
        writer.join(timeout=10)
        status, body, _ = get(handle.url, "/api/tables")
        assert status == 200 and b'"t1"' in body
    finally:
        thawed.set()
        handle.close()
        hub.close()
