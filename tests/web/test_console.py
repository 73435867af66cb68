"""The referee console and admin forms: each needs the login and its CSRF token; each
becomes one hub input (a log entry, R1); malformed forms are 400 and change nothing."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from hub.facade import Hub
from tests.web.conftest import csrf_token


def form_post(client: FlaskClient, url: str, data: dict[str, Any], page: str = "/console/t1") -> Any:
    return client.post(url, data={"csrf_token": csrf_token(client, page), **data})


def test_console_shows_the_prompt_with_its_choices(referee: FlaskClient, trigono_table: Any) -> None:
    html = referee.get("/console/t1", headers={"Accept-Language": "en"}).get_data(as_text=True)
    player = trigono_table["state"]["to_move"]
    assert f"Where did {player}&#39;s palet land?" in html
    assert 'data-choice="board:B1"' in html and 'data-choice="floor"' in html


def test_console_speaks_french_too(referee: FlaskClient, trigono_table: Any) -> None:
    html = referee.get("/console/t1", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert "Où est tombé le palet de" in html and "Reprendre la dernière action" in html


def test_T5_referee_answers_where_the_palet_landed(referee: FlaskClient, hub: Hub, trigono_table: Any) -> None:
    prompt = trigono_table["prompts"][0]
    response = form_post(referee, "/console/t1/input",
                         {"input": "answer", "prompt": prompt["id"], "choice": json.dumps("floor")})
    assert response.status_code == 303 and response.headers["Location"] == "/console/t1"
    state = hub.table_view("t1")["state"]
    assert state["floor"] == 1 and len(state["log"]) == 1
    assert "C’est fait." in referee.get("/console/t1").get_data(as_text=True)


def test_console_form_without_csrf_is_refused(referee: FlaskClient, hub: Hub, trigono_table: Any) -> None:
    response = referee.post("/console/t1/input", data={"input": "landed", "where": "floor"})
    assert response.status_code == 400
    response = referee.post("/console/t1/input", data={"input": "landed", "where": "floor", "csrf_token": "x"})
    assert response.status_code == 400
    assert hub.table_view("t1")["state"]["log"] == []


def test_console_form_without_login_is_refused(client: FlaskClient, hub: Hub, trigono_table: Any) -> None:
    response = client.post("/console/t1/input", data={"input": "landed", "where": "floor",
                                                      "csrf_token": csrf_token(client, "/")})
    assert response.status_code == 302 and response.headers["Location"].startswith("/auth/login")
    assert hub.table_view("t1")["state"]["log"] == []


MALFORMED_CONSOLE_FORMS = [
    {"input": "teleport"},
    {"input": "recount", "board": "B1", "count": "lots"},
    {"input": "recount", "count": "2"},
    {"input": "void", "entry": "first"},
    {"input": "answer", "prompt": "landed-0", "choice": "{not json"},
    {"input": "landed"},
]


def test_malformed_console_form_is_400(referee: FlaskClient, hub: Hub, trigono_table: Any) -> None:
    token = csrf_token(referee, "/console/t1")
    for data in MALFORMED_CONSOLE_FORMS:
        assert referee.post("/console/t1/input", data={"csrf_token": token, **data}).status_code == 400, data
    assert hub.table_view("t1")["state"]["log"] == []


def test_refused_input_is_shown_and_changes_nothing(referee: FlaskClient, hub: Hub, trigono_table: Any) -> None:
    response = form_post(referee, "/console/t1/input", {"input": "undo"})
    assert response.status_code == 303
    html = referee.get("/console/t1").get_data(as_text=True)
    assert "Refusé\u00a0:" in html
    assert hub.table_view("t1")["state"]["log"] == []


def test_T10_bounced_then_undo_then_recount(referee: FlaskClient, hub: Hub, trigono_table: Any) -> None:
    form_post(referee, "/console/t1/input", {"input": "landed", "where": "board:B1"})
    form_post(referee, "/console/t1/input", {"input": "landed", "where": "board:B1"})
    assert hub.table_view("t1")["state"]["boards"] == {"B1": 2}
    form_post(referee, "/console/t1/input", {"input": "undo"})
    assert hub.table_view("t1")["state"]["boards"] == {"B1": 1}
    form_post(referee, "/console/t1/input", {"input": "recount", "board": "B1", "count": "3"})
    view = hub.table_view("t1")
    assert any(a["kind"] == "recount_mismatch" and a["board"] == "B1" for a in view["alerts"])  # a mismatch raises an alert


def test_void_button_only_for_sensor_events(referee: FlaskClient, trigono_table: Any) -> None:
    form_post(referee, "/console/t1/input", {"input": "landed", "where": "floor"})
    html = referee.get("/console/t1/panel").get_data(as_text=True)
    assert 'data-input="void"' not in html  # console entries are corrected by undo


def test_seat_links_appear_for_game_tables(referee: FlaskClient, hub: Hub) -> None:
    hub.create_table("triominos", seats=["Ana", {"name": "Robo", "bot": True}], seed=1, table_id="g1")
    html = referee.get("/console/g1").get_data(as_text=True)
    links = re.findall(r'class="seat-link" href="([^"]+)"', html)
    assert len(links) == 1 and "/play/g1/join?seat=" in links[0]  # the bot has none
    response = referee.get(links[0].replace("http://localhost", ""))
    assert response.status_code == 303
    assert referee.get("/api/tables/g1/play").get_json()["you"] == "Ana"


@pytest.mark.slow  # a real serial board (pty) and the settle window
def test_T10_sensor_drop_asks_valid_and_the_referee_says_bounced(
    referee: FlaskClient, hub: Hub, tmp_path: Any
) -> None:
    from tests.hub.boards import wait_for
    from tests.web.conftest import serial_board

    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1",
                     options={"first": "Ana"}, referee={"settle_s": 4})  # the prompt lasts this long
    board = serial_board(hub, tmp_path)
    try:
        board.event("drop", hole="big")
        assert wait_for(lambda: hub.table_view("t1")["prompts"][0]["kind"] == "valid")
        html = referee.get("/console/t1", headers={"Accept-Language": "en"}).get_data(as_text=True)
        assert "Did Ana&#39;s palet bounce on the floor before falling into B1 big hole?" in html
        assert "Yes: bounced (invalid)" in html and 'data-input="void"' in html
        prompt = hub.table_view("t1")["prompts"][0]["id"]
        form_post(referee, "/console/t1/input", {"input": "answer", "prompt": prompt, "choice": '"invalid"'})
        assert wait_for(lambda: hub.table_view("t1")["state"]["log"] != [], timeout=10)
        throw = hub.table_view("t1")["state"]["log"][0]["action"]["throw"]
        assert throw == {"player": "Ana", "to": "B1.big", "invalid": True}
        assert hub.table_view("t1")["state"]["holes"]["B1.big"] == 1  # T10: it stays pending
    finally:
        board.unplug()


@pytest.mark.slow  # a real serial board (pty) and the settle window
def test_R1_void_a_sensor_drop(referee: FlaskClient, hub: Hub, tmp_path: Any) -> None:
    from tests.hub.boards import wait_for
    from tests.web.conftest import serial_board

    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1",
                     options={"first": "Ana"}, referee={"settle_s": 0.05})
    board = serial_board(hub, tmp_path)
    try:
        board.event("drop", hole="small")
        assert wait_for(lambda: len(hub.table_view("t1")["state"]["log"]) == 1)
        drop = next(e for e in hub.table_view("t1")["events"] if e["kind"] == "drop")
        html = referee.get("/console/t1/panel").get_data(as_text=True)
        assert f'<tr data-entry="{drop["id"]}">' in html
        form_post(referee, "/console/t1/input", {"input": "void", "entry": str(drop["id"])})
        assert wait_for(lambda: hub.table_view("t1")["state"]["log"] == [])
    finally:
        board.unplug()




def test_a_sensor_fault_opens_score_by_hand_and_it_scores(referee: FlaskClient, hub: Hub, trigono_table: Any) -> None:
    html = referee.get("/console/t1/panel", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert 'id="manual"' in html and "<details open>" not in html  # there, folded, while sensors work
    response = form_post(referee, "/console/t1/input", {"input": "landed", "where": "B1.big"})
    assert response.status_code == 303
    throw = hub.table_view("t1")["state"]["log"][0]["action"]["throw"]
    assert throw["to"] == "B1.big"


def test_the_referee_abandons_a_table_and_the_console_says_so(referee: FlaskClient, hub: Hub, trigono_table: Any) -> None:
    html = referee.get("/console/t1/panel").get_data(as_text=True)
    assert 'data-input="abandon"' in html
    assert form_post(referee, "/console/t1/input", {"input": "abandon"}).status_code == 303
    assert hub.game_over("t1")
    html = referee.get("/console/t1/panel", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Abandoned (no result)" in html
    assert 'data-input="abandon"' not in html and 'data-input="undo"' not in html


def test_two_referees_answer_one_palet_and_it_is_applied_once(
        referee: FlaskClient, app: Any, hub: Hub, trigono_table: Any) -> None:
    """Issue 23: a console input names the version of the view it answers. Two referees
    see the same question (T5: where did the palet land?); the first answer applies, the
    second — answering a view that is no longer the table's — gets 409 and the table as it
    is now, and is not stored."""
    from tests.web.conftest import login

    second = app.test_client()
    login(second)
    prompt, version = trigono_table["prompts"][0], trigono_table["version"]
    answer = {"input": "answer", "prompt": prompt["id"], "choice": json.dumps("floor"),
              "version": str(version)}
    entries_before = hub.store.last_id()
    first = form_post(referee, "/console/t1/input", answer)
    assert first.status_code == 303
    late = form_post(second, "/console/t1/input", answer)
    assert late.status_code == 409
    page = late.get_data(as_text=True)
    assert "another referee has already answered" in page.lower() or "autre arbitre" in page.lower()
    state = hub.table_view("t1")["state"]
    assert state["floor"] == 1 and len(state["log"]) == 1
    assert hub.store.last_id() == entries_before + 1  # the late answer was not stored


def test_a_stale_api_input_is_409_with_the_current_view(referee: FlaskClient, hub: Hub, trigono_table: Any) -> None:
    from tests.web.conftest import api_post

    version = trigono_table["version"]
    ok = api_post(referee, "/api/tables/t1/input", {"landed": "floor", "version": version})
    assert ok.status_code == 200 and ok.get_json()["version"] == version + 1
    late = api_post(referee, "/api/tables/t1/input", {"landed": "floor", "version": version})
    assert late.status_code == 409
    body = late.get_json()
    assert body["error"]["kind"] == "stale_view" and body["view"]["version"] == version + 1
    assert hub.table_view("t1")["state"]["floor"] == 1
    bad = api_post(referee, "/api/tables/t1/input", {"landed": "floor", "version": "7"})
    assert bad.status_code == 400 and hub.table_view("t1")["state"]["floor"] == 1
