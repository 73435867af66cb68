"""Admin (web/admin.py): creating tables from the form and the layout grid, board health.
Each form needs the login and its CSRF token; malformed forms are 400 and change nothing."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from hub.facade import Hub
from tests.web.conftest import csrf_token
from tests.web.test_console import form_post


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


@pytest.mark.slow  # a real serial board (pty) and the settle window
def test_board_health_shows_a_lost_board_and_its_alerts(referee: FlaskClient, hub: Hub, tmp_path: Any) -> None:
    from tests.hub.boards import wait_for
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


def test_admin_archives_a_table_and_brings_it_back(referee: FlaskClient, hub: Hub) -> None:
    hub.create_table("trike", seats=["Ana", "Ben"], seed=1, table_id="g1")
    token = csrf_token(referee, "/admin/")
    response = referee.post("/admin/tables/g1/archive", data={"csrf_token": token})
    assert response.status_code == 303 and hub.list_tables()[0]["archived"] is True
    html = referee.get("/admin/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Bring back" in html
    referee.post("/admin/tables/g1/archive", data={"csrf_token": token, "archived": "0"})
    assert hub.list_tables()[0]["archived"] is False
    assert referee.post("/admin/tables/nope/archive", data={"csrf_token": token}).status_code == 404
