"""Players' phones and calls for a referee (issue 34.5), through the Flask app on a real
hub: the personal link opens only its own entry, check-in from it, the call-up shown
when the match is called, "call the referee" from a phone and from a table's page (one
open call per table, a cooldown), the console lists it and only a logged-in referee
takes it; the receipt and the match sheets carry the personal QR codes."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from hub.errors import HubError
from hub.facade import Hub
from hub.tables import assist
from tests.web.conftest import csrf_token, login

EN = {"Accept-Language": "en"}
FR = {"Accept-Language": "fr"}


@pytest.fixture
def tournament(hub: Hub) -> dict[str, Any]:
    """Four Trike players, check-in on, one station: Ana and Chloé play first, Ben and Dan wait."""
    svc = hub.tournaments
    svc.create({"name": "Club night", "game": "trike", "format": "swiss", "rounds": 1, "check_in": True},
               tournament_id="T1")
    svc.submit("T1", {"type": "station", "station": {"id": "row1", "seats": 2}})
    for name in ("Ana", "Ben", "Chloé", "Dan"):
        svc.submit("T1", {"type": "register", "player": {"name": name}})
    return svc.view("T1")


def link_of(app: Flask, pid: str) -> str:
    from web.phone import entry_token

    with app.test_request_context():
        return f"/me/T1/{entry_token('T1', pid)}"


def form_post(client: FlaskClient, page: str, action: str, headers: dict[str, str] | None = None) -> Any:
    return client.post(action, data={"csrf_token": csrf_token(client, page)}, headers=headers or EN,
                       follow_redirects=True)


def test_the_personal_link_opens_its_entry_only(app: Flask, client: FlaskClient, hub: Hub,
                                                tournament: dict[str, Any]) -> None:
    me = link_of(app, "p2")
    page = client.get(me, headers=EN)
    assert page.status_code == 200 and "no-store" in page.headers["Cache-Control"]
    assert "Ben" in page.get_data(as_text=True)
    assert client.get(me[:-1] + ("0" if me[-1] != "0" else "1")).status_code == 404
    assert client.get("/me/T9/" + me.rsplit("/", 1)[1]).status_code == 404
    # The same link under another tournament id is another token: the HMAC binds both.
    hub.tournaments.create({"name": "Other", "game": "trike", "format": "swiss"}, tournament_id="T2")
    assert client.get("/me/T2/" + me.rsplit("/", 1)[1]).status_code == 404


def test_check_in_from_the_phone_then_the_call_up(app: Flask, client: FlaskClient, hub: Hub,
                                                  tournament: dict[str, Any]) -> None:
    me = link_of(app, "p3")
    assert 'id="check-in"' in client.get(me, headers=EN).get_data(as_text=True)
    text = form_post(client, me, me + "/check-in").get_data(as_text=True)
    assert "Checked in" in text and 'id="check-in"' not in text
    assert hub.tournaments.view("T1")["players"][2]["status"] == "present"
    for pid in ("p1", "p2", "p4"):
        hub.tournaments.submit("T1", {"type": "check_in", "player": pid})
    hub.tournaments.submit("T1", {"type": "start"})
    called = next(m for m in hub.tournaments.view("T1")["matches"] if m["status"] == "called")
    pid = called["players"][0]
    other = called["names"][1]
    html = client.get(link_of(app, pid), headers=FR).get_data(as_text=True)
    assert 'data-call="' + called["id"] + '@row1"' in html
    assert "poste row1" in html and f"contre {other}" in html
    status = client.get("/api" + link_of(app, pid)).get_json()
    assert status["call"]["station"] == "row1" and status["call"]["opponents"] == [other]
    waiting = next(p for p in ("p1", "p2", "p3", "p4") if p not in called["players"])
    assert client.get("/api" + link_of(app, waiting)).get_json()["call"] is None


def test_a_referee_call_from_a_phone_reaches_the_console_and_a_referee_takes_it(
        app: Flask, client: FlaskClient, hub: Hub, tournament: dict[str, Any]) -> None:
    for pid in ("p1", "p2", "p3", "p4"):
        hub.tournaments.submit("T1", {"type": "check_in", "player": pid})
    hub.tournaments.submit("T1", {"type": "start"})
    called = next(m for m in hub.tournaments.view("T1")["matches"] if m["status"] == "called")
    me = link_of(app, called["players"][0])
    text = form_post(client, me, me + "/referee").get_data(as_text=True)
    assert "A referee is called" in text and 'id="referee-coming"' in text
    [request] = hub.assist.open_requests()
    assert request["table"] == called["table"] and request["who"] == called["names"][0]
    assert request["tournament"] == "T1"
    # One open call per table: the second press says so and stores nothing.
    other = link_of(app, called["players"][1])
    before = hub.store.last_id()
    form_post(client, other, other + "/referee")
    assert hub.store.last_id() == before and len(hub.assist.open_requests()) == 1
    # Only a logged-in referee takes it.
    anonymous = client.post(f"/assist/{called['table']}/take", data={"csrf_token": csrf_token(client, "/")})
    assert anonymous.status_code == 302 and "/auth/login" in anonymous.headers["Location"]
    assert len(hub.assist.open_requests()) == 1
    assert login(client).status_code == 302
    console = client.get("/console/", headers=EN).get_data(as_text=True)
    assert 'id="assist-list"' in console and called["table"] in console
    text = form_post(client, "/console/", f"/assist/{called['table']}/take").get_data(as_text=True)
    assert "Taken" in text and hub.assist.open_requests() == []
    # The calls are log entries: a new hub on the same log folds the same.
    entries = [e.body["assist"]["type"] for e in hub.store.entries() if e.source == "assist"]
    assert entries == ["request", "take"]


def test_a_tables_page_calls_a_referee_with_a_cooldown(client: FlaskClient, hub: Hub) -> None:
    hub.create_table("trike", seats=["Ana", "Ben"], table_id="t1")
    page = client.get("/tables/t1", headers=EN).get_data(as_text=True)
    assert 'id="call-referee"' in page
    assert "A referee is called" in form_post(client, "/tables/t1", "/tables/t1/referee").get_data(as_text=True)
    assert [r["who"] for r in hub.assist.open_requests()] == ["table"]
    hub.assist.take("t1", "referee")
    text = form_post(client, "/tables/t1", "/tables/t1/referee", FR).get_data(as_text=True)
    assert "vient d’appeler un arbitre" in text and hub.assist.open_requests() == []
    hub.assist.clock = lambda: assist.hub_clock.now() + assist.COOLDOWN_S  # the cooldown passed
    form_post(client, "/tables/t1", "/tables/t1/referee")
    assert len(hub.assist.open_requests()) == 1
    assert client.post("/tables/nope/referee", data={"csrf_token": csrf_token(client, "/")}).status_code == 404


def test_the_receipt_and_the_sheets_carry_the_personal_qr_codes(app: Flask, client: FlaskClient, hub: Hub,
                                                                tournament: dict[str, Any]) -> None:
    app.config["PUBLIC_URL"] = "http://192.168.1.5:8080"
    assert client.get("/tournaments/T1/players/p1/receipt").status_code == 302  # login first
    assert login(client).status_code == 302
    receipt = client.get("/tournaments/T1/players/p1/receipt", headers=EN).get_data(as_text=True)
    assert "http://192.168.1.5:8080" + link_of(app, "p1") in receipt
    assert re.search(r'<img class="qr" src="data:image/svg\+xml', receipt)
    for pid in ("p1", "p2", "p3", "p4"):
        hub.tournaments.submit("T1", {"type": "check_in", "player": pid})
    hub.tournaments.submit("T1", {"type": "start"})
    sheets = client.get("/tournaments/T1/sheets", headers=EN).get_data(as_text=True)
    assert sheets.count('class="qr qr-own"') == 4


def test_a_read_only_replica_follows_the_calls(tmp_path: Any) -> None:
    from hub.replica import ReadOnlyHub

    db = str(tmp_path / "event.db")
    active = Hub(db)
    replica = ReadOnlyHub(db)
    try:
        active.create_table("trike", seats=["Ana", "Ben"], table_id="t1")
        active.assist.request("t1", "Ana")
        replica.catch_up()
        assert [r["who"] for r in replica.assist.open_requests()] == ["Ana"]
        last = replica.last_change_id()
        active.assist.take("t1", "referee")
        replica.catch_up()
        assert replica.assist.open_requests() == []
        assert "assist" in [c["kind"] for c in replica.changes_since(last, 0)]
    finally:
        replica.close()
        active.close()


def test_the_calls_survive_a_restart(tmp_path: Any) -> None:
    db = str(tmp_path / "event.db")
    first = Hub(db)
    first.create_table("trike", seats=["Ana", "Ben"], table_id="t1")
    first.create_table("trike", seats=["Chloé", "Dan"], table_id="t2")
    first.assist.request("t1", "Ana")
    first.close()  # keeps a snapshot of the calls
    second = Hub(db)
    second.assist.request("t2", "Chloé")  # after the snapshot: read from the log
    second.close()
    third = Hub(db)
    try:
        assert [(r["table"], r["who"]) for r in third.assist.open_requests()] == [("t1", "Ana"), ("t2", "Chloé")]
        with pytest.raises(HubError) as refused:
            third.assist.request("t1", "Ben")  # still open: one call per table
        assert refused.value.kind == "assist_open"
    finally:
        third.close()
