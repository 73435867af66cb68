"""The referee console and admin forms: each needs the login and its CSRF token; each
becomes one hub input (a log entry, R1); malformed forms are 400 and change nothing."""

from __future__ import annotations

import json
import re
from typing import Any

from flask.testing import FlaskClient

from hub.service import Hub
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
    assert "Où est tombé le palet de" in html and "Annuler le dernier" in html


def test_T5_referee_answers_where_the_palet_landed(referee: FlaskClient, hub: Hub, trigono_table: Any) -> None:
    prompt = trigono_table["prompts"][0]
    response = form_post(referee, "/console/t1/input",
                         {"input": "answer", "prompt": prompt["id"], "choice": json.dumps("floor")})
    assert response.status_code == 303 and response.headers["Location"] == "/console/t1"
    state = hub.table_view("t1")["state"]
    assert state["floor"] == 1 and len(state["log"]) == 1
    assert "C&#39;est fait." in referee.get("/console/t1").get_data(as_text=True)


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
    assert "Refusé :" in html
    assert hub.table_view("t1")["state"]["log"] == []


def test_T10_bounced_then_undo_then_recount(referee: FlaskClient, hub: Hub, trigono_table: Any) -> None:
    form_post(referee, "/console/t1/input", {"input": "landed", "where": "board:B1"})
    form_post(referee, "/console/t1/input", {"input": "landed", "where": "board:B1"})
    assert hub.table_view("t1")["state"]["boards"] == {"B1": 2}
    form_post(referee, "/console/t1/input", {"input": "undo"})
    assert hub.table_view("t1")["state"]["boards"] == {"B1": 1}
    form_post(referee, "/console/t1/input", {"input": "recount", "board": "B1", "count": "3"})
    view = hub.table_view("t1")
    assert any("B1" in a["text"] for a in view["alerts"])  # a mismatch raises an alert


def test_void_button_only_for_sensor_events(referee: FlaskClient, trigono_table: Any) -> None:
    form_post(referee, "/console/t1/input", {"input": "landed", "where": "floor"})
    html = referee.get("/console/t1/panel").get_data(as_text=True)
    assert 'data-input="void"' not in html  # console entries are corrected by undo


# -- admin ------------------------------------------------------------------------------------
def test_admin_creates_a_hexagon_table_from_the_grid(referee: FlaskClient, hub: Hub) -> None:
    from engines.trigono.layout import hexagon_boards

    layout = [{"id": f"B{n}", "cell": b["cell"], "device": f"pico-{n}"} for n, b in enumerate(hexagon_boards(), 1)]
    response = form_post(referee, "/admin/tables", {
        "game": "trigono", "table_id": "hex", "players": "Ana\nBen\nChloé\nDan\nEve\nFay\nGus",
        "layout": json.dumps(layout), "seed": "4",
    }, page="/admin/")
    assert response.status_code == 303, response.get_data(as_text=True)
    assert response.headers["Location"] == "/console/hex"
    view = hub.table_view("hex")
    assert "jackpot" in view["state"]["holes"]  # T20
    assert view["layout"][0]["board"] == "pico-1" and view["layout"][0]["holes"]["jackpot"] == "jackpot"
    assert [b["as"] for b in view["layout"]] == [f"B{n}" for n in range(1, 7)]


def test_admin_marks_bots(referee: FlaskClient, hub: Hub) -> None:
    response = form_post(referee, "/admin/tables", {"game": "triominos", "players": "Ana\nbot: Robo"}, page="/admin/")
    assert response.status_code == 303
    table = hub.list_tables()[0]["id"]
    assert hub.table_view(table)["seats"] == [{"name": "Ana", "bot": False}, {"name": "Robo", "bot": True}]


def test_admin_shows_the_hubs_refusal(referee: FlaskClient, hub: Hub) -> None:
    layout = [{"id": "B1", "cell": [0, 0, "up"]}, {"id": "B2", "cell": [4, 4, "up"]}]
    response = form_post(referee, "/admin/tables", {"game": "trigono", "layout": json.dumps(layout)}, page="/admin/")
    assert response.status_code == 400
    assert "T19" in response.get_data(as_text=True)
    assert hub.list_tables() == []


MALFORMED_ADMIN_FORMS = [
    {"game": ""}, {"game": "trigono", "options": "{oops"}, {"game": "trigono", "options": "[1]"},
    {"game": "trigono", "seed": "-3"}, {"game": "trigono", "layout": "nope"},
    {"game": "trigono", "layout": '[{"id": "B1"}]'}, {"game": "trigono", "players": "bot:"},
]


def test_malformed_admin_form_is_400(referee: FlaskClient, hub: Hub) -> None:
    token = csrf_token(referee, "/admin/")
    for data in MALFORMED_ADMIN_FORMS:
        assert referee.post("/admin/tables", data={"csrf_token": token, **data}).status_code == 400, data
    assert hub.list_tables() == []


def test_admin_form_needs_login_and_csrf(client: FlaskClient, hub: Hub) -> None:
    assert form_post(client, "/admin/tables", {"game": "trigono"}, page="/").status_code == 302
    from tests.web.conftest import login

    login(client)
    assert client.post("/admin/tables", data={"game": "trigono"}).status_code == 400
    assert hub.list_tables() == []


def test_admin_board_health_lists_bound_boards(referee: FlaskClient, trigono_table: Any) -> None:
    html = referee.get("/admin/boards", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert re.search(r'data-board="B1" data-status="unknown"', html)


def test_seat_links_appear_for_game_tables(referee: FlaskClient, hub: Hub) -> None:
    hub.create_table("triominos", seats=["Ana", {"name": "Robo", "bot": True}], seed=1, table_id="g1")
    html = referee.get("/console/g1").get_data(as_text=True)
    links = re.findall(r'class="seat-link" href="([^"]+)"', html)
    assert len(links) == 1 and "/play/g1/join?seat=" in links[0]  # the bot has none
    response = referee.get(links[0].replace("http://localhost", ""))
    assert response.status_code == 303
    assert referee.get("/api/tables/g1/play").get_json()["you"] == "Ana"


def test_T10_sensor_drop_asks_valid_and_the_referee_says_bounced(
    referee: FlaskClient, hub: Hub, tmp_path: Any
) -> None:
    from tests.hub.devices import wait_for
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


def test_R1_void_a_sensor_drop(referee: FlaskClient, hub: Hub, tmp_path: Any) -> None:
    from tests.hub.devices import wait_for
    from tests.web.conftest import serial_board

    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1",
                     options={"first": "Ana"}, referee={"settle_s": 0.05})
    board = serial_board(hub, tmp_path)
    try:
        board.event("drop", hole="small")
        assert wait_for(lambda: len(hub.table_view("t1")["state"]["log"]) == 1)
        drop = next(e for e in hub.table_view("t1")["events"] if "drop" in e["text"])
        html = referee.get("/console/t1/panel").get_data(as_text=True)
        assert f'<tr data-entry="{drop["id"]}">' in html
        form_post(referee, "/console/t1/input", {"input": "void", "entry": str(drop["id"])})
        assert wait_for(lambda: hub.table_view("t1")["state"]["log"] == [])
    finally:
        board.unplug()


def test_T17_target_and_other_prompts_read_in_the_page_language(app: Any) -> None:
    from web.console import prompt_text, where_label

    view = {"state": {"round": 3}, "throw": None}
    with app.test_request_context(headers={"Accept-Language": "en"}):
        assert prompt_text({"kind": "target", "player": "Ana"}, view) == "Final: choose the target"
        assert prompt_text({"kind": "next_round"}, view) == "Round over. Palets collected? Start round 3"
        assert prompt_text({"kind": "fix", "player": "Ben"}, view).startswith("The drops do not make")
        assert prompt_text({"kind": "new", "question": "Hub's own words"}, view) == "Hub's own words"
        assert [where_label(c) for c in ("jackpot", "jackpot.2", "H3.small", "start")] == [
            "jackpot", "jackpot 2", "H3 small hole", "Start"]
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        assert prompt_text({"kind": "target", "player": "Ana"}, view) == "Finale : choisir le trou cible"
        assert where_label("H3.big") == "grand trou H3"


def test_board_health_shows_a_lost_board_and_its_alerts(referee: FlaskClient, hub: Hub, tmp_path: Any) -> None:
    from tests.hub.devices import wait_for
    from tests.web.conftest import serial_board

    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1")
    board = serial_board(hub, tmp_path)
    html = referee.get("/admin/boards", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert 'data-board="B1" data-status="online"' in html and "serial:" in html
    board.unplug()  # the cable is pulled: the serial link reports the board lost
    assert wait_for(lambda: hub.boards()[0]["status"] == "lost", timeout=10)
    html = referee.get("/admin/boards", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert 'data-board="B1" data-status="lost"' in html and ">LOST<" in html
    assert 'class="alert"' in html
