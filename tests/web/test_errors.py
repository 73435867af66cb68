"""Errors become answers (web/errors.py): the hub's typed refusals say why (400, 404,
409); a bug is a 500 that tells nothing of the inside and leaves a log line."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from hub.facade import Hub
from tests.web.conftest import api_post, csrf_token
from web import create_app


def test_unknown_table_page_says_not_found_not_bad_request(client: FlaskClient) -> None:
    for lang, words, wrong in [("en", "Not found.", "Bad request."), ("fr", "Introuvable.", "Requête incorrecte.")]:
        response = client.get("/tables/nope", headers={"Accept-Language": lang})
        html = response.get_data(as_text=True)
        assert response.status_code == 404
        assert f"<p>{words}</p>" in html and f"<p>{wrong}</p>" not in html, lang


def test_hub_refusal_is_400_with_its_reason(referee: FlaskClient, trigono_table: Any) -> None:
    response = api_post(referee, "/api/tables/t1/input", {"answer": {"prompt": "nope", "choice": "floor"}})
    assert response.status_code == 400
    assert response.get_json()["error"]["type"] == "RefusedError"
    assert "nope" in response.get_json()["error"]["message"]


def test_clash_is_409(referee: FlaskClient, trigono_table: Any) -> None:
    response = api_post(referee, "/api/tables", {"game": "trike", "id": "t1"})
    assert response.status_code == 409


class BuggyHub(Hub):
    """A hub with a bug: a plain ValueError from the inside (not a HubError)."""

    def list_tables(self) -> list[dict[str, Any]]:
        raise ValueError("secret internals: index 7 of _tables")


@pytest.fixture
def buggy_app() -> Any:
    hub = BuggyHub(":memory:")
    hub.start()
    # Not TESTING: the app answers exceptions the way it does in production.
    app = create_app({"SECRET_KEY": "k", "PROPAGATE_EXCEPTIONS": False}, hub=hub)
    yield app
    hub.close()


def test_a_bug_is_a_500_with_a_log_line_and_no_message(buggy_app: Flask, caplog: pytest.LogCaptureFixture) -> None:
    client = buggy_app.test_client()
    with caplog.at_level(logging.ERROR):
        page = client.get("/console/", headers={"Accept-Language": "en"})  # login first? no: the API
        api = client.get("/api/tables")
    assert api.status_code == 500
    assert "secret internals" not in api.get_data(as_text=True)
    assert api.get_json()["error"]["type"] == "InternalServerError"
    assert any("secret internals" in r.getMessage() or (r.exc_info and "secret internals" in str(r.exc_info[1]))
               for r in caplog.records)
    assert page.status_code in (302, 500)
    html = client.get("/play/", headers={"Accept-Language": "en"})
    assert html.status_code == 500
    assert "secret internals" not in html.get_data(as_text=True)
    assert "<p>Something went wrong inside the hub" in html.get_data(as_text=True)


def test_a_refusal_is_said_in_the_page_language(referee: FlaskClient, trigono_table: Any) -> None:
    french = api_post(referee, "/api/tables/t1/input", {"undo": True})  # nothing to take back yet
    body = french.get_json()["error"]
    assert french.status_code == 400 and body["kind"] == "nothing_to_undo"
    assert body["message"] == "undo: nothing to undo"  # the hub's line, for API clients
    assert body["text"] == "Il n’y a rien à reprendre."
    token = csrf_token(referee, "/console/t1")
    referee.post("/console/t1/input", data={"csrf_token": token, "input": "undo"},
                 headers={"Accept-Language": "en"})
    page = referee.get("/console/t1", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Refused: There is nothing to take back." in page


def test_every_refusal_kind_of_the_hub_has_words() -> None:
    import re
    from pathlib import Path

    from web.i18n import MESSAGES

    hub = Path(__file__).resolve().parents[2] / "hub"
    kinds = set()
    for path in hub.rglob("*.py"):
        kinds |= set(re.findall(r'Error\(\s*f?"[^"]*",\s*"([a-z_]+)"', path.read_text(encoding="utf-8")))
    assert len(kinds) > 10
    for lang in ("en", "fr"):
        missing = sorted(k for k in kinds if f"refusal.{k}" not in MESSAGES[lang])
        assert not missing, (lang, missing)
