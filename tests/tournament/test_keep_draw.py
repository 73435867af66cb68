"""Issue 32.16: a pool correction once the brackets are drawn re-seeded the whole bracket
and restarted every quarter-final in play. ``keep_draw`` keeps the draw — each slot the
pool place it was — so only the players whose place changed move; the preview tells
both choices' consequences. Both are entries of the log."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from hub.errors import HubError
from hub.facade import Hub
from hub.log.sqlite import SqliteStore
from hub.tournament.service import TournamentService
from hub.tournament.state import Tournament
from tests.web.conftest import api_post, csrf_token

LOSER_SCORE = {"A": 1, "B": 3, "C": 5, "D": 7}  # each pool's second a different goal-average


def _entries(service: TournamentService | None, client: FlaskClient | None, token: str = "") -> Any:
    """One way to submit entries, through the service or the web API."""
    def submit(body: dict[str, Any]) -> Any:
        if service is not None:
            return service.submit("T", body)
        assert client is not None
        response = api_post(client, "/api/tournaments/T/entries", body, token)
        assert response.status_code == 200, response.get_json()
        return response.get_json()
    return submit


def quarter_finals_in_play(submit: Any) -> tuple[Any, dict[str, Any]]:
    """16 players in 4 pools of 4, the best 2 into a bracket of 8; the better seed wins
    every pool match; the four quarter-finals are called to the four stations. Returns
    the view and pool A's match between its 2nd and 3rd."""
    submit({"type": "station", "station": {"id": "S0", "seats": 2}})
    for i in range(16):
        submit({"type": "register", "player": {"name": f"N{i + 1}"}})
    for k in range(1, 4):
        submit({"type": "station", "station": {"id": f"S{k}", "seats": 2}})
    view = submit({"type": "start"})
    seed = {p: int(p[1:]) for p in (x["id"] for x in view["players"])}
    while pool := [m for m in view["matches"] if m["stage"] == "pools" and m["status"] in ("ready", "called")]:
        m = pool[0]
        a, b = sorted(m["players"], key=seed.__getitem__)
        view = submit({"type": "result", "match": m["id"], "ranking": [a, b],
                       "scores": {a: 13, b: LOSER_SCORE[m["pool"]]}})
    assert [m["status"] for m in view["matches"] if m["stage"] == "main" and m["round"] == 1] == ["called"] * 4
    pool_a = next(p for p in view["pools"] if p["name"] == "A")["standings"]
    second, third = pool_a[1]["player"], pool_a[2]["player"]
    match = next(m for m in view["matches"] if m["stage"] == "pools" and set(m["players"]) == {second, third})
    return view, {"type": "correct", "match": match["id"], "ranking": [third, second],
                  "scores": {third: 13, second: 12}}  # the new 2nd with the lowest goal-average


def _quarters(view: Any) -> dict[str, tuple[tuple[str, ...], str, str | None]]:
    return {m["id"]: (tuple(m["players"]), m["status"], m["station"])
            for m in view["matches"] if m["stage"] == "main" and m["round"] == 1}


def test_keeping_the_draw_moves_only_the_changed_player_and_leaves_the_other_quarter_finals_in_play() -> None:
    service = TournamentService(SqliteStore(":memory:"))
    service.create({"name": "Q", "game": "trigono", "format": "pools", "check_in": False, "seeding": "registration",
                    "pool_size": 4, "advance": 2, "consolation": False}, tournament_id="T")
    submit = _entries(service, None)
    view, body = quarter_finals_in_play(submit)
    second, third = body["ranking"][1], body["ranking"][0]
    before = _quarters(view)
    with_second = next(mid for mid, (players, _, _) in before.items() if second in players)

    reseed = service.preview("T", body)
    kept = service.preview("T", {**body, "keep_draw": True})
    assert reseed["can_keep_draw"] and kept["keep_draw"] and not reseed["keep_draw"]
    assert len(reseed["reset"]) == 4  # the issue: every quarter-final in play restarts
    assert [r["match"] for r in kept["reset"]] == [with_second]
    assert kept["qualifiers"] == reseed["qualifiers"] and [q["player"] for q in kept["qualifiers"]["in"]] == [third]

    with pytest.raises(HubError) as refused:  # the reset still needs the organizer's word
        service.submit("T", {**body, "keep_draw": True})
    assert refused.value.kind == "tour_correction_resets"
    view = service.submit("T", {**body, "keep_draw": True, "reset": [with_second]})
    after = _quarters(view)
    for mid, was in before.items():
        if mid != with_second:
            assert after[mid] == was  # untouched: same players, still in play at the same station
    replayed = after[with_second][0]
    assert third in replayed and second not in replayed
    assert set(replayed) - {third} == set(before[with_second][0]) - {second}  # the same opponent
    stored = service.export("T")["entries"]
    assert [e for e in stored if e["type"] == "correct"][-1]["keep_draw"] is True
    assert _quarters(Tournament.replay("T", stored).to_json()) == after  # the log says it all

    # A later bracket correction keeps the kept draw; a pool correction without it seeds again.
    done = next(m for m in view["matches"] if m["stage"] == "main" and m["status"] == "called")
    view = service.submit("T", {"type": "result", "match": done["id"], "ranking": done["players"]})
    view = service.submit("T", {"type": "correct", "match": done["id"], "ranking": done["players"][::-1],
                                "scores": {}})
    assert {mid: q[0] for mid, q in _quarters(view).items()} == {mid: q[0] for mid, q in after.items()}
    undo = {**body, "ranking": body["ranking"][::-1], "scores": {second: 13, third: 12}}
    reseeded = service.preview("T", undo)
    assert not reseeded["keep_draw"] and service.preview("T", {**undo, "keep_draw": True})["reset"] != reseeded["reset"]


def test_keep_draw_must_be_true_or_false_and_a_refusal_changes_nothing() -> None:
    service = TournamentService(SqliteStore(":memory:"))
    service.create({"name": "Q", "game": "trigono", "format": "pools", "check_in": False, "seeding": "registration",
                    "pool_size": 4, "advance": 2, "consolation": False}, tournament_id="T")
    view, body = quarter_finals_in_play(_entries(service, None))
    entries = len(service.export("T")["entries"])
    for bad in ("yes", 1, None):
        with pytest.raises(HubError):
            service.submit("T", {**body, "keep_draw": bad, "reset": [m["id"] for m in view["matches"]]})
    assert len(service.export("T")["entries"]) == entries and service.view("T") == view


def test_the_correction_page_shows_both_choices_and_keeps_the_draw(referee: FlaskClient, hub: Hub) -> None:
    token = csrf_token(referee, "/tournaments/")
    api_post(referee, "/api/tournaments", {"id": "T", "name": "Q", "game": "trigono", "format": "pools",
                                            "check_in": False, "seeding": "registration", "pool_size": 4,
                                            "advance": 2, "consolation": False}, token)
    view, body = quarter_finals_in_play(_entries(None, referee, token))
    before = _quarters(view)
    second, third = body["ranking"][1], body["ranking"][0]
    fields = {"action": "correct", "match": body["match"], f"place_{third}": "1", f"place_{second}": "2",
              f"score_{third}": "13", f"score_{second}": "12", "csrf_token": token}
    page = referee.post("/tournaments/T/admin", data=fields, headers={"Accept-Language": "fr"})
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and 'id="choice-keep"' in text and 'id="choice-reseed"' in text
    keep_form = text.split('id="choice-keep"')[1].split("</form>")[0]
    reseed_form = text.split('id="choice-reseed"')[1].split("</form>")[0]
    assert keep_form.count('name="reset"') == 1 and reseed_form.count('name="reset"') == 4
    assert 'name="keep_draw" value="1"' in keep_form and "keep_draw" not in reseed_form
    assert "Garder le tirage" in text and "Refaire le tableau" in text
    resets = [v for v in keep_form.split('name="reset" value="')[1:]]
    confirmed = {**fields, "confirm": "1", "keep_draw": "1", "reset": [r.split('"')[0] for r in resets]}
    assert referee.post("/tournaments/T/admin", data=confirmed).status_code == 302
    after = _quarters(referee.get("/api/tournaments/T").get_json())
    assert sum(after[mid] == was for mid, was in before.items()) == 3
