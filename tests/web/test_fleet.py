"""The fleet page and its JSON API (issue 33): login required, sixty boards sorted by
trouble with their filters, in English and French, an action refused on a live match
and then forced, a rollout started, shown and halted where it failed."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from hub.facade import Hub
from hub.sim.fleet import SimFleet
from tests.hub.boards import wait_for
from tests.web.conftest import api_post, csrf_token

EN = {"Accept-Language": "en"}
FR = {"Accept-Language": "fr"}


def sixty_boards(hub: Hub) -> SimFleet:
    """Sixty simulated boards registered to ``hub`` and heard, S07 with a faulty beam."""
    fleet = SimFleet(60)
    hub.fleet.updater = fleet.update_board
    hub.add_transport(fleet)
    for board in fleet.boards:
        hub.register_board(board)
    fleet.start_all()
    fleet.boards["S07"].faulty.add("small")
    fleet.health("S07")
    return fleet


def sixty(hub: Hub) -> SimFleet:
    fleet = sixty_boards(hub)
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["S12"], seed=1, table_id="t1")
    assert hub.flush()
    return fleet


def test_the_fleet_needs_a_login(client: FlaskClient) -> None:
    assert client.get("/admin/fleet").status_code == 302
    assert client.get("/api/fleet").status_code == 401


def test_sixty_boards_by_trouble_in_both_languages_with_filters(hub: Hub, referee: FlaskClient) -> None:
    sixty(hub)
    page = referee.get("/admin/fleet", headers=EN).get_data(as_text=True)
    assert page.count('data-board="S') == 60 and page.index('data-board="S07"') < page.index('data-board="S01"')
    assert "beam fault" in page and "live match" in page
    french = referee.get("/admin/fleet", headers=FR).get_data(as_text=True)
    assert "faisceau en panne" in french and "Parc de plateaux" in french
    live = referee.get("/api/fleet?filter=live").get_json()
    assert [r["board"] for r in live["rows"]] == ["S12"] and live["summary"]["boards"] == 60
    assert referee.get("/api/fleet?filter=nope").status_code == 400


def test_an_action_on_a_live_board_is_refused_then_forced(hub: Hub, referee: FlaskClient) -> None:
    fleet = sixty(hub)
    token = csrf_token(referee, "/admin/fleet")
    reply = referee.post("/admin/fleet/S12/identify", data={"csrf_token": token}, headers=EN)
    assert reply.status_code == 303 and "force=S12" in reply.headers["Location"]
    page = referee.get(reply.headers["Location"], headers=EN).get_data(as_text=True)
    assert "where a match is live: identify refused" in page and "(during the match)" in page
    assert fleet.boards["S12"].identified == 0
    reply = referee.post("/admin/fleet/S12/identify", data={"csrf_token": token, "force": "1"})
    assert reply.status_code == 303 and fleet.boards["S12"].identified == 1
    answer = api_post(referee, "/api/fleet/boards/S12/action", {"action": "reboot"})
    assert answer.status_code == 409 and answer.get_json()["error"]["kind"] == "board_live"
    assert api_post(referee, "/api/fleet/boards/S03/action", {"action": "selftest"}).status_code == 200
    assert api_post(referee, "/api/fleet/boards/ZZ/action", {"action": "identify"}).status_code == 404
    assert api_post(referee, "/api/fleet/target", {"fw": "1.0.0", "config": "c0ffee"}).get_json() == \
        {"fw": "1.0.0", "config": "c0ffee"}
    assert referee.get("/api/fleet?filter=outdated").get_json()["rows"] == []


def test_a_rollout_from_the_api_halts_where_it_failed(hub: Hub, referee: FlaskClient) -> None:
    fleet = sixty(hub)
    fleet.fail["S02"] = "bad signature"
    body: dict[str, Any] = {"version": "1.1.0", "bundle": "/tmp/fw-1.1.0.bundle", "boards": ["S01", "S02", "S03"],
                            "wave": 2}
    answer = api_post(referee, "/api/fleet/rollout", body)
    assert answer.status_code == 201, answer.get_json()
    assert wait_for(lambda: referee.get("/api/fleet/rollout").get_json()["state"] == "halted", 20)
    page = referee.get("/admin/fleet", headers=EN).get_data(as_text=True)
    assert 'data-halted="S02"' in page and "Halted at board S02: the board refused the update" in page and "bad signature" in page


def test_a_spare_takes_a_live_boards_place_only_when_forced(hub: Hub, referee: FlaskClient) -> None:
    sixty(hub)
    answer = api_post(referee, "/api/fleet/boards/S40/assign", {"table": "t1", "position": "S12"})
    assert answer.status_code == 409 and answer.get_json()["error"]["kind"] == "table_live"
    token = csrf_token(referee, "/admin/fleet")
    reply = referee.post("/admin/fleet/S40/assign", data={"csrf_token": token, "table": "t1", "position": "S12",
                                                          "force": "1"}, headers=FR)
    assert reply.status_code == 303
    page = referee.get("/admin/fleet?filter=live", headers=FR).get_data(as_text=True)
    assert 'data-board="S40"' in page and 'data-board="S12"' not in page
    console = referee.get("/console/t1", headers=FR).get_data(as_text=True)
    assert "le plateau S40 sert désormais S12" in console
