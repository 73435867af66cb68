"""Stateless dashboards end to end (issue 18): two ``python -m web --db postgresql://…
--read-only`` processes serve the pages and the live stream of a hub that runs
elsewhere (here: in the test's process) on the same PostgreSQL event store."""

from __future__ import annotations

import json
import select
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from hub.facade import Hub
from hub.log.open import open_store
from tests.broker import free_port
from tests.hub.boards import wait_for

ROOT = Path(__file__).resolve().parents[2]


class WebProcess:
    """``python -m web --read-only``, started at once; :meth:`ready` waits for its address
    (so several start side by side, as an event's dashboards do)."""

    def __init__(self, db: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "web", "--db", db, "--read-only", "--host", "127.0.0.1",
             "--port", str(free_port()), "--password", "pw"],
            cwd=ROOT, stdout=subprocess.PIPE, text=True)
        self.url = ""

    def ready(self) -> WebProcess:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], 60)
        assert ready, "python -m web --read-only did not start"
        self.url = json.loads(self.proc.stdout.readline())["web"].rstrip("/")
        return self

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=10) as response:
            body = response.read().decode()
            return json.loads(body) if response.headers.get_content_type() == "application/json" else body

    def log_of(self, table: str) -> list[str] | None:
        """The actions of ``table`` as this process serves them, or None while it does not
        know the table yet (404: its replica follows the store, a moment behind)."""
        try:
            return [e["action"] for e in self.get(f"/api/tables/{table}")["state"]["log"]]
        except urllib.error.HTTPError as err:
            if err.code == 404:
                return None
            raise

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=15)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


@pytest.fixture
def webs(pg_url: str) -> Iterator[list[WebProcess]]:
    Hub(open_store(pg_url)).close()  # the store exists before the readers open it
    procs = [WebProcess(pg_url) for _ in range(2)]  # both start together: one signing key
    try:
        yield [p.ready() for p in procs]
    finally:
        for p in procs:
            p.stop()


def stream_lines(web: WebProcess, lines: list[str], stop: threading.Event) -> None:
    with urllib.request.urlopen(web.url + "/api/stream", timeout=30) as response:
        while not stop.is_set():
            line = response.readline().decode()
            if not line:
                return
            lines.append(line)


@pytest.mark.postgres
@pytest.mark.slow
def test_two_read_only_web_processes_serve_pages_and_the_live_stream(pg_url: str,
                                                                     webs: list[WebProcess]) -> None:
    assert all(w.get("/api/tables") == [] for w in webs)
    lines: list[str] = []
    stop = threading.Event()
    reader = threading.Thread(target=stream_lines, args=(webs[0], lines, stop), daemon=True)
    reader.start()
    assert wait_for(lambda: any(line.startswith("event: snapshot") for line in lines), timeout=30)

    hub = Hub(open_store(pg_url))
    try:
        hub.create_table("trike", options={"size": 3}, seats=["Ana", "Ben"], table_id="g1", seed=4)
        hub.submit("g1", {"move": "b1"})
        # The stream of web process 1 announces the table the hub (elsewhere) created...
        assert wait_for(lambda: any('"g1"' in line for line in lines if line.startswith("data:")),
                        timeout=30)
        # ...and web process 2 serves its state, page and record from the store.
        assert wait_for(lambda: webs[1].log_of("g1") == ["b1"], timeout=30)
        assert "g1" in webs[1].get("/tables/g1")  # the page (drawn by its script from the API)
        assert [t["id"] for t in webs[1].get("/api/tables")] == ["g1"]
    finally:
        stop.set()
        hub.close()
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("SELECT COUNT(*) FROM setting WHERE name = 'web_secret'").fetchone()
    assert row == (1,)  # one signing key for every web process of the event
