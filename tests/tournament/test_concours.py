"""Issue 32.18 (AB/ABC): each concours (A, B, C) has its own podium — winner, finalist,
semi-finalists — on the overview and podium pages, and the final ranking says a place
within its concours ("Concours B : 1er …"), never B's winner as 9th overall."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from hub.facade import Hub
from tests.web.conftest import api_post, csrf_token


def _played_abc(referee: FlaskClient, split: str = "ABC") -> dict[str, Any]:
    token = csrf_token(referee, "/tournaments/")
    api_post(referee, "/api/tournaments", {"id": "ABC", "name": "Concours du club", "game": "trigono",
                                            "format": "abc", "split": split, "check_in": False,
                                            "seeding": "registration"}, token)
    for i in range(1, 17):
        api_post(referee, "/api/tournaments/ABC/entries", {"type": "register", "player": {"name": f"Joueur {i:02}"}},
                 token)
    view = api_post(referee, "/api/tournaments/ABC/entries", {"type": "start"}, token).get_json()
    while view["status"] != "finished":  # the better seed wins every match
        m = next(m for m in view["matches"] if m["status"] in ("ready", "called"))
        ranked = sorted(m["players"], key=lambda p: int(p[1:]))
        view = api_post(referee, "/api/tournaments/ABC/entries",
                        {"type": "result", "match": m["id"], "ranking": ranked}, token).get_json()
    return dict(view)


@pytest.mark.parametrize("split", ["ABC", "AB"])
def test_each_concours_has_its_own_podium_and_places(referee: FlaskClient, hub: Hub, split: str) -> None:
    view = _played_abc(referee, split)
    letters = ["A", "B", "C"] if split == "ABC" else ["A", "B"]
    assert [c["name"] for c in view["concours"]] == letters and all(c["finished"] for c in view["concours"])
    for c in view["concours"]:
        assert [p["place"] for p in c["podium"]] == [1, 2, 3, 3], c  # winner, finalist, two semi-finalists
    b_winner = view["concours"][1]["podium"][0]
    line = next(r for r in view["ranking"] if r["player"] == b_winner["player"])
    assert line["concours"] == "B" and line["concours_place"] == 1 and line["place"] > 4
    assert {r["concours"] for r in view["ranking"]} == set(letters)

    for lang, heading, said in (("fr", "Concours B", "Concours B\u00a0: 1er"), ("en", "Concours B", "Concours B: 1st")):
        for url in ("/tournaments/ABC", "/tournaments/ABC/podium"):
            page = html.unescape(referee.get(url, headers={"Accept-Language": lang}).get_data(as_text=True))
            section = page.split('id="concours-B"')[1].split("</section>")[0]
            assert heading in section and b_winner["name"] in section, (lang, url)
            assert re.search(rf'<span class="concours-place">{said}</span> {b_winner["name"]}', page), (lang, url)
            # Never the B winner as a bare place overall ("9 Joueur 05").
            assert not re.search(rf'<span class="rank">\d+</span> {b_winner["name"]}', page), (lang, url)
        player = html.unescape(referee.get(f"/tournaments/ABC/players/{b_winner['player']}",
                                           headers={"Accept-Language": lang}).get_data(as_text=True))
        assert said in player and "9" not in player.split("<strong>")[1].split("</strong>")[0], lang


def test_a_tournament_without_concours_keeps_one_podium(referee: FlaskClient, hub: Hub) -> None:
    token = csrf_token(referee, "/tournaments/")
    api_post(referee, "/api/tournaments", {"id": "E", "name": "KO", "game": "trigono", "format": "elimination",
                                            "check_in": False}, token)
    for name in ("Ana", "Ben", "Chloé", "Dan"):
        api_post(referee, "/api/tournaments/E/entries", {"type": "register", "player": {"name": name}}, token)
    view = api_post(referee, "/api/tournaments/E/entries", {"type": "start"}, token).get_json()
    while view["status"] != "finished":
        m = next(m for m in view["matches"] if m["status"] in ("ready", "called"))
        view = api_post(referee, "/api/tournaments/E/entries",
                        {"type": "result", "match": m["id"], "ranking": m["players"]}, token).get_json()
    assert view["concours"] == [] and all(r["concours"] is None for r in view["ranking"])
    page = referee.get("/tournaments/E/podium").get_data(as_text=True)
    assert "concours-podium" not in page and '<ol class="podium">' in page
