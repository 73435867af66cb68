"""The JSON API: public reads, and writes that need a login (or a seat) plus a CSRF
token; malformed and refused inputs answer a typed error and change nothing."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from hub.facade import Hub
from tests.web.conftest import api_post, csrf_token

CREATE = {"game": "trigono", "id": "t9", "seats": ["Ana", "Ben", "Chloé"], "boards": ["B7"], "seed": 3}


def test_index_lists_the_endpoints(client: FlaskClient) -> None:
    data = client.get("/api/").get_json()
    assert data["endpoints"]["stream"] == "/api/stream"


def test_reads_are_public(client: FlaskClient, trigono_table: Any) -> None:
    assert "trigono" in client.get("/api/games").get_json()
    assert [t["id"] for t in client.get("/api/tables").get_json()] == ["t1"]
    view = client.get("/api/tables/t1").get_json()
    assert view["state"]["hands"] == {"Ana": 10, "Ben": 10}  # T2: 10 each with 2 players
    assert view["prompts"][0]["kind"] == "landed"
    assert client.get("/api/boards").get_json()[0]["board"] == "B1"
    state = client.get("/api/state").get_json()
    assert [t["id"] for t in state["tables"]] == ["t1"] and state["last_event_id"] > 0


def test_public_views_hide_the_seed(client: FlaskClient, trigono_table: Any) -> None:
    assert "seed" not in client.get("/api/tables/t1").get_json()
    assert "seed" not in client.get("/api/state").get_json()["tables"][0]


def test_unknown_table_is_404_json(client: FlaskClient) -> None:
    response = client.get("/api/tables/nope")
    assert response.status_code == 404
    assert response.get_json()["error"]["type"] == "UnknownTableError"


def test_record_needs_login(client: FlaskClient, trigono_table: Any) -> None:
    response = client.get("/api/tables/t1/record")
    assert response.status_code == 401 and response.get_json()["error"]["type"] == "Unauthorized"


def test_record_is_a_replayable_game_record(referee: FlaskClient, trigono_table: Any) -> None:
    from engines.records import replay

    record = referee.get("/api/tables/t1/record").get_json()
    assert record["game"] == "trigono" and record["seed"] == 7
    assert replay(record).to_json()["hands"] == {"Ana": 10, "Ben": 10}


# -- creating tables ------------------------------------------------------------------------
def test_create_needs_login(client: FlaskClient, hub: Hub) -> None:
    response = api_post(client, "/api/tables", CREATE)
    assert response.status_code == 401
    assert hub.list_tables() == []


def test_create_needs_a_csrf_token(referee: FlaskClient, hub: Hub) -> None:
    response = referee.post("/api/tables", json=CREATE)
    assert response.status_code == 400 and response.get_json()["error"]["type"] == "CSRFError"
    response = api_post(referee, "/api/tables", CREATE, token="forged")
    assert response.status_code == 400
    assert hub.list_tables() == []


def test_create_a_trigono_table(referee: FlaskClient, hub: Hub) -> None:
    response = api_post(referee, "/api/tables", CREATE)
    assert response.status_code == 201
    view = response.get_json()
    assert view["id"] == "t9" and view["players"] == ["Ana", "Ben", "Chloé"]
    assert view["state"]["hands"] == {"Ana": 5, "Ben": 5, "Chloé": 5}  # T2
    assert view["layout"][0]["board"] == "B7"
    assert [t["id"] for t in hub.list_tables()] == ["t9"]


def test_create_a_triominos_table_with_a_bot(referee: FlaskClient) -> None:
    body = {"game": "triominos", "seats": ["Ana", {"name": "Robo", "bot": True}], "seed": 1}
    view = api_post(referee, "/api/tables", body).get_json()
    assert view["seats"][1] == {"name": "Robo", "bot": True}


MALFORMED_CREATE = [
    {"game": "chess"},
    {"game": "trigono", "colour": "red"},
    {"game": 3},
    {"game": "trigono", "seed": "x"},
    {"game": "trigono", "seats": "Ana"},
    {"game": "trigono", "options": {"palets_per_player": "many"}},
    {"game": "trigono", "options": {"boards": [{"id": "B1", "cell": [0, 0, "up"]},
                                               {"id": "B2", "cell": [5, 5, "up"]}]}},  # T19
    ["not", "an", "object"],
]


def test_malformed_create_is_refused_and_changes_nothing(referee: FlaskClient, hub: Hub) -> None:
    token = csrf_token(referee)
    for body in MALFORMED_CREATE:
        response = api_post(referee, "/api/tables", body, token=token)
        assert response.status_code == 400, body
        assert response.get_json()["error"]["message"], body
    assert hub.list_tables() == []


def test_taken_table_id_is_a_conflict(referee: FlaskClient, trigono_table: Any) -> None:
    response = api_post(referee, "/api/tables", {"game": "trigono", "id": "t1"})
    assert response.status_code == 409 and response.get_json()["error"]["type"] == "ConflictError"


# -- console inputs --------------------------------------------------------------------------
def test_input_needs_login(client: FlaskClient, hub: Hub, trigono_table: Any) -> None:
    response = api_post(client, "/api/tables/t1/input", {"landed": "floor"})
    assert response.status_code == 401
    assert hub.table_view("t1")["state"]["log"] == []


def test_input_needs_csrf(referee: FlaskClient, hub: Hub, trigono_table: Any) -> None:
    assert referee.post("/api/tables/t1/input", json={"landed": "floor"}).status_code == 400
    assert hub.table_view("t1")["state"]["log"] == []


def test_answer_the_landed_prompt(referee: FlaskClient, trigono_table: Any) -> None:
    prompt = trigono_table["prompts"][0]
    view = api_post(referee, "/api/tables/t1/input", {"answer": {"prompt": prompt["id"], "choice": "board:B1"}}).get_json()
    assert view["state"]["boards"] == {"B1": 1}
    first = trigono_table["state"]["to_move"]  # T4: drawn with the seed
    assert view["state"]["log"][0]["action"] == {"throw": {"player": first, "to": "board:B1"}}
    assert view["state"]["to_move"] == next(p for p in ("Ana", "Ben") if p != first)


def test_undo_takes_back_the_last_throw(referee: FlaskClient, trigono_table: Any) -> None:
    api_post(referee, "/api/tables/t1/input", {"landed": "floor"})
    view = api_post(referee, "/api/tables/t1/input", {"undo": True}).get_json()
    assert view["state"]["log"] == [] and view["state"]["floor"] == 0


def test_malformed_input_is_400(referee: FlaskClient, hub: Hub, trigono_table: Any) -> None:
    token = csrf_token(referee)
    for body in [{"explode": True}, {"landed": "floor", "undo": True}, {}, {"landed": "floor", "player": 5}, "floor"]:
        assert api_post(referee, "/api/tables/t1/input", body, token=token).status_code == 400, body
    assert hub.table_view("t1")["state"]["log"] == []


def test_refused_input_says_why_and_changes_nothing(referee: FlaskClient, hub: Hub, trigono_table: Any) -> None:
    response = api_post(referee, "/api/tables/t1/input", {"answer": {"prompt": "p-none", "choice": "floor"}})
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["type"] == "RefusedError" and "not open" in error["message"]
    response = api_post(referee, "/api/tables/t1/input", {"landed": "B9.big"})
    assert response.status_code == 400
    assert hub.table_view("t1")["state"]["log"] == []


def test_input_on_unknown_table_is_404(referee: FlaskClient) -> None:
    assert api_post(referee, "/api/tables/nope/input", {"undo": True}).status_code == 404


# -- players: seat links, moves, hints --------------------------------------------------------
@pytest.fixture
def triominos_table(hub: Hub) -> dict[str, Any]:
    return hub.create_table("triominos", seats=["Ana", "Ben"], seed=5, table_id="g1")


def claim(client: FlaskClient, app: Any, table: str, player: str) -> None:
    from web.security import seat_token

    with app.test_request_context():
        token = seat_token(table, player)
    response = client.get(f"/play/{table}/join?seat={token}")
    assert response.status_code == 303


def test_spectator_sees_no_rack_and_cannot_play(client: FlaskClient, triominos_table: Any) -> None:
    view = client.get("/api/tables/g1/play").get_json()
    assert view["you"] is None and view["legal_actions"] == []
    assert all(tile is None for rack in view["state"]["racks"].values() for tile in rack)
    response = api_post(client, "/api/tables/g1/play", {"action": {"draw": True}}, token=csrf_token(client, "/play/g1"))
    assert response.status_code == 403


def test_a_forged_seat_link_claims_nothing(client: FlaskClient, triominos_table: Any) -> None:
    client.get("/play/g1/join?seat=0000")
    assert client.get("/api/tables/g1/play").get_json()["you"] is None


def test_seated_player_sees_own_rack_and_legal_moves(client: FlaskClient, app: Any, hub: Hub, triominos_table: Any) -> None:
    to_move = triominos_table["state"]["to_move"]
    claim(client, app, "g1", to_move)
    view = client.get("/api/tables/g1/play").get_json()
    assert view["you"] == to_move and view["your_turn"] is True
    assert view["state"]["racks"][to_move] == hub.table_view("g1")["state"]["racks"][to_move]
    other = next(p for p in view["state"]["racks"] if p != to_move)
    assert all(tile is None for tile in view["state"]["racks"][other])
    assert view["legal_actions"] and "place" in view["legal_actions"][0]


def test_seated_player_plays_a_legal_move(client: FlaskClient, app: Any, hub: Hub, triominos_table: Any) -> None:
    to_move = triominos_table["state"]["to_move"]
    claim(client, app, "g1", to_move)
    action = client.get("/api/tables/g1/play").get_json()["legal_actions"][0]
    response = api_post(client, "/api/tables/g1/play", {"action": action}, token=csrf_token(client, "/play/g1"))
    assert response.status_code == 200 and response.get_json()["ok"] is True
    log = hub.table_view("g1")["state"]["log"]
    assert log[0]["player"] == to_move and log[0]["action"] == action


def test_play_needs_csrf(client: FlaskClient, app: Any, hub: Hub, triominos_table: Any) -> None:
    claim(client, app, "g1", triominos_table["state"]["to_move"])
    response = client.post("/api/tables/g1/play", json={"action": {"draw": True}})
    assert response.status_code == 400
    assert hub.table_view("g1")["state"]["log"] == []


def test_playing_out_of_turn_is_refused(client: FlaskClient, app: Any, hub: Hub, triominos_table: Any) -> None:
    waiting = next(p for p in ("Ana", "Ben") if p != triominos_table["state"]["to_move"])
    claim(client, app, "g1", waiting)
    response = api_post(client, "/api/tables/g1/play", {"action": {"draw": True}}, token=csrf_token(client, "/play/g1"))
    assert response.status_code == 400
    assert hub.table_view("g1")["state"]["log"] == []


def test_malformed_move_is_400(client: FlaskClient, app: Any, hub: Hub, triominos_table: Any) -> None:
    claim(client, app, "g1", triominos_table["state"]["to_move"])
    token = csrf_token(client, "/play/g1")
    for body in [{}, {"action": {"fly": 1}}, {"action": "nonsense"}]:
        assert api_post(client, "/api/tables/g1/play", body, token=token).status_code == 400, body
    assert hub.table_view("g1")["state"]["log"] == []


def test_hint_for_a_seated_player_only(client: FlaskClient, app: Any, triominos_table: Any) -> None:
    claim(client, app, "g1", triominos_table["state"]["to_move"])
    hint = api_post(client, "/api/tables/g1/hint", {}, token=csrf_token(client, "/play/g1")).get_json()
    assert "action" in hint and hint["why"]
    assert client.get("/api/tables/g1/play").get_json()["hint"] == hint
    # The hint names a tile of the asker's rack: nobody else sees it.
    assert "hint" not in app.test_client().get("/api/tables/g1").get_json()
    assert app.test_client().get("/api/tables/g1/play").get_json()["hint"] is None


def test_hint_needs_a_seat(client: FlaskClient, triominos_table: Any) -> None:
    assert api_post(client, "/api/tables/g1/hint", {}, token=csrf_token(client, "/play/g1")).status_code == 403
