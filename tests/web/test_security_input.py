"""Input bounds at the edge (issue 15, finding 5 and 6): deeply nested JSON, 5,000-digit
integers, oversized and endless input get a clear refusal (400/413, ``trigono replay``
exit 2 with one line), never a traceback; table ids that no page can open are refused;
the event store is its owner's only."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from hub.facade import Hub
from tests.web.conftest import api_post, csrf_token

ROOT = Path(__file__).resolve().parents[2]


def post_raw(client: FlaskClient, url: str, body: bytes) -> tuple[int, dict[str, object]]:
    token = csrf_token(client)
    response = client.post(url, data=body, headers={"X-CSRFToken": token, "Content-Type": "application/json"})
    return response.status_code, response.get_json(silent=True) or {}


def test_deeply_nested_json_is_a_clear_400(referee: FlaskClient, trigono_table: object) -> None:
    status, body = post_raw(referee, "/api/tables/t1/input", b"[" * 100_000 + b"]" * 100_000)
    assert status == 400
    assert "nested deeper than" in str(body["error"])


def test_nesting_under_the_recursion_limit_is_still_bounded(referee: FlaskClient, trigono_table: object) -> None:
    status, body = post_raw(referee, "/api/tables", b'{"game": "trigono", "options": ' + b"[" * 500 + b"]" * 500 + b"}")
    assert status == 400 and "nested deeper than" in str(body["error"])


def test_a_5000_digit_integer_is_a_clear_400(referee: FlaskClient, hub: Hub) -> None:
    status, body = post_raw(referee, "/api/tables", b'{"game": "trigono", "seed": ' + b"7" * 5000 + b"}")
    assert status == 400 and "digits" in str(body["error"])
    assert hub.list_tables() == []


def test_an_oversized_body_is_refused_before_reading_it(referee: FlaskClient) -> None:
    status, _ = post_raw(referee, "/api/tables", b'{"game": "trigono", "x": "' + b"a" * (300 * 1024) + b'"}')
    assert status == 413


def test_a_table_id_with_a_slash_is_refused(referee: FlaskClient, hub: Hub) -> None:
    response = api_post(referee, "/api/tables", {"game": "trigono", "id": "hall/1", "seats": ["Ana", "Ben"]})
    assert response.status_code == 400 and "/" in response.get_json()["error"]["message"]
    assert hub.list_tables() == []


def test_the_event_store_is_created_readable_by_its_owner_only(tmp_path: Path) -> None:
    hub = Hub(tmp_path / "event.db")
    hub.start()
    hub.create_table("trigono", seats=["Ana", "Ben"], seed=1, table_id="t1")  # writes the WAL
    try:
        for name in ("event.db", "event.db-wal", "event.db-shm"):
            path = tmp_path / name
            if path.exists():
                assert stat.S_IMODE(os.stat(path).st_mode) == 0o600, name
    finally:
        hub.close()


def replay(path: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hub", "replay", path], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


@pytest.mark.parametrize("name, text, says", [
    ("deep", "[" * 100_000 + "]" * 100_000, "nested deeper than"),
    ("bigint", '{"game": "trigono", "seed": ' + "7" * 5000 + "}", "digits"),
])
def test_replay_refuses_hostile_records_in_one_line(tmp_path: Path, name: str, text: str, says: str) -> None:
    path = tmp_path / f"{name}.json"
    path.write_text(text)
    done = replay(str(path))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and says in done.stderr and "Traceback" not in done.stderr


def test_replay_refuses_endless_input(tmp_path: Path) -> None:
    done = replay("/dev/zero")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "larger than" in done.stderr


def form_post(client: FlaskClient, url: str, fields: dict[str, str]) -> int:
    fields = {**fields, "csrf_token": csrf_token(client)}
    return client.post(url, data=fields).status_code


def test_json_in_form_fields_is_bounded_too(referee: FlaskClient, trigono_table: object, hub: Hub) -> None:
    deep = "[" * 5000 + "]" * 5000  # past the parser's recursion limit, under the size limit
    assert form_post(referee, "/console/t1/input", {"input": "answer", "prompt": "p", "choice": deep}) == 400
    assert form_post(referee, "/console/t1/input", {"input": "move", "action": deep}) == 400
    assert form_post(referee, "/admin/tables", {"game": "trigono", "seats": "Ana\nBen", "options": deep}) == 400
    assert form_post(referee, "/admin/tables", {"game": "trigono", "seats": "Ana\nBen", "options": "1" * 5000}) == 400
    assert [t["id"] for t in hub.list_tables()] == ["t1"]
