"""Standings explain their ties (issue 25, finding 7): no Buchholz in pools, each
place's deciding tie-break named; calls list only what is pending (finding 8)."""

from __future__ import annotations

import re

from flask.testing import FlaskClient

from hub.tournament import placings
from hub.tournament.model import Spec
from hub.tournament.state import Tournament
from tests.web.conftest import api_post, csrf_token


def test_pools_are_not_separated_by_buchholz_and_each_place_says_what_decided_it() -> None:
    assert "buchholz" not in Spec.parse({"name": "x", "game": "trike", "format": "pools"}).tiebreaks
    assert "buchholz" in Spec.parse({"name": "x", "game": "trike", "format": "swiss"}).tiebreaks
    t = Tournament.create("T", {"type": "create", "spec": {"name": "P", "game": "trike", "format": "pools",
                                                            "pool_size": 3, "advance": 1, "check_in": False}})
    for name in ("Ana", "Ben", "Chloé"):
        t.apply({"type": "register", "player": {"name": name}})
    t.apply(t.start_entry())
    # A cycle: Ana beats Ben, Ben beats Chloé, Chloé beats Ana; scores tell them apart.
    beats = {frozenset({"p1", "p2"}): ("p1", "p2"), frozenset({"p2", "p3"}): ("p2", "p3"),
             frozenset({"p1", "p3"}): ("p3", "p1")}
    score = {"p1": 13.0, "p2": 11.0, "p3": 7.0}
    for m in [m for m in t.matches.values() if m.stage == "pools"]:
        w, lo = beats[frozenset(m.players)]
        t.apply({"type": "result", "match": m.id, "ranking": [w, lo], "scores": {w: score[w], lo: score[lo] - 5}})
    lines = placings.pool_standings(t)[0]
    assert [s.points for s in lines] == [1.0, 1.0, 1.0]
    assert [s.decided_by for s in lines][:2] == ["diff", "diff"]
    assert all(s.to_json()["decided_by"] != "buchholz" for s in lines)


def test_calls_show_only_matches_still_at_their_station(referee: FlaskClient) -> None:
    token = csrf_token(referee, "/tournaments/")
    api_post(referee, "/api/tournaments", {"id": "C1", "name": "Appels", "game": "trike", "format": "swiss",
                                           "rounds": 1, "check_in": False, "options": {"size": 3}}, token)
    for name in ("Ana", "Ben", "Chloé", "Dan"):
        api_post(referee, "/api/tournaments/C1/entries", {"type": "register", "player": {"name": name}}, token)
    api_post(referee, "/api/tournaments/C1/entries", {"type": "station", "station": {"id": "Poste 1", "seats": 2}},
             token)
    view = api_post(referee, "/api/tournaments/C1/entries", {"type": "start"}, token).get_json()
    called = next(m for m in view["matches"] if m["status"] == "called")
    page = referee.get("/tournaments/C1", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert f"Partie {called['number']}\u00a0: {', '.join(called['names'])} → Poste 1" in page  # not "poste Poste 1"
    view = api_post(referee, "/api/tournaments/C1/entries",
                    {"type": "result", "match": called["id"], "ranking": called["players"]}, token).get_json()
    assert [c["match"] for c in view["pending_calls"]] != [called["id"]]
    page = referee.get("/tournaments/C1", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert f"Partie {called['number']}\u00a0:" not in page.split('class="card calls"')[-1].split("</section>")[0] \
        or 'class="card calls"' not in page


def test_the_player_page_says_where_they_play_in_plain_words(referee: FlaskClient) -> None:
    """Finding 10: "you play now at station …", the pool place, a level without μ and σ."""
    token = csrf_token(referee, "/tournaments/")
    api_post(referee, "/api/tournaments", {"id": "W1", "name": "Mots", "game": "trike", "format": "pools",
                                           "pool_size": 4, "check_in": False, "options": {"size": 3}}, token)
    for name in ("Ana", "Ben", "Chloé", "Dan"):
        api_post(referee, "/api/tournaments/W1/entries", {"type": "register", "player": {"name": name}}, token)
    api_post(referee, "/api/tournaments/W1/entries", {"type": "station", "station": {"id": "7", "seats": 2}}, token)
    view = api_post(referee, "/api/tournaments/W1/entries", {"type": "start"}, token).get_json()
    called = next(m for m in view["matches"] if m["status"] == "called")
    page = referee.get(f"/tournaments/W1/players/{called['players'][0]}",
                       headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert f"Vous jouez maintenant\u00a0: partie {called['number']} au poste 7, contre {called['names'][1]}." in page
    assert "μ" not in page and "poule A" in page
    waiting = next(m for m in view["matches"] if m["status"] == "ready")
    page = referee.get(f"/tournaments/W1/players/{waiting['players'][0]}",
                       headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert f"Your next match: match {waiting['number']} against" in page


def test_the_bracket_names_who_will_fill_its_slots_before_the_pools_end(referee: FlaskClient) -> None:
    token = csrf_token(referee, "/tournaments/")
    api_post(referee, "/api/tournaments", {"id": "B1", "name": "Tableau", "game": "trike", "format": "pools",
                                           "pool_size": 4, "advance": 2, "check_in": False,
                                           "options": {"size": 3}}, token)
    for i in range(8):
        api_post(referee, "/api/tournaments/B1/entries", {"type": "register", "player": {"name": f"J{i}"}}, token)
    api_post(referee, "/api/tournaments/B1/entries", {"type": "start"}, token)
    page = referee.get("/tournaments/B1/bracket", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert "1er de poule" in page and "1e de poule" not in page
    assert "2e de poule" in page and "Vainqueur de la partie" in page


def test_issue32_14_a_withdrawn_no_show_is_ranked_after_everyone_who_played_not_on_the_podium() -> None:
    """Four in a knock-out; the 4th seed withdraws once their semi-final is called (a
    no-show: it is forfeited): they used to share 3rd (and the podium) with the
    semi-finalist who played and lost."""
    t = Tournament.create("T", {"type": "create", "spec": {"name": "K", "game": "trike", "format": "elimination",
                                                            "check_in": False, "options": {"size": 3}}})
    for name in ("Ana", "Ben", "Chloé", "Dan"):
        t.apply({"type": "register", "player": {"name": name}})
    t.apply({"type": "start", "order": ["p1", "p2", "p3", "p4"]})
    t.apply({"type": "station", "station": {"id": "s1", "seats": 2}})
    t.apply({"type": "call", "match": next(m.id for m in t.matches.values() if "p4" in m.players), "station": "s1"})
    t.apply({"type": "withdraw", "player": "p4"})
    semi = next(m for m in t.matches.values() if m.status == "ready")
    t.apply({"type": "result", "match": semi.id, "ranking": ["p2", "p3"]})
    final = next(m for m in t.matches.values() if m.status == "ready")
    t.apply({"type": "result", "match": final.id, "ranking": ["p1", "p2"]})
    assert t.status == "finished"
    assert placings.final_ranking(t) == [(1, "p1"), (2, "p2"), (3, "p3"), (4, "p4")]
    view = t.to_json()
    assert [p["player"] for p in view["podium"]] == ["p1", "p2", "p3"]
    assert [r["withdrawn"] for r in view["ranking"]] == [False, False, False, True]


def test_issue32_14_after_the_tournament_the_classement_under_the_podium_is_the_final_ranking(
        referee: FlaskClient) -> None:
    """Pools then brackets: once over, the ranking shown under the podium (the overview,
    the podium page, the projector's standings) is the final ranking, not a pool table."""
    token = csrf_token(referee, "/tournaments/")
    api_post(referee, "/api/tournaments", {"id": "F1", "name": "Fin", "game": "trike", "format": "pools",
                                           "pool_size": 3, "advance": 1, "check_in": False,
                                           "options": {"size": 3}}, token)
    for name in ("Ana", "Ben", "Chloé", "Dan", "Eve", "Fred"):
        api_post(referee, "/api/tournaments/F1/entries", {"type": "register", "player": {"name": name}}, token)
    view = api_post(referee, "/api/tournaments/F1/entries", {"type": "start"}, token).get_json()
    while view["status"] != "finished":  # the later registered win: the pools disagree with the brackets
        m = next(m for m in view["matches"] if m["status"] in ("ready", "called"))
        view = api_post(referee, "/api/tournaments/F1/entries",
                        {"type": "result", "match": m["id"], "ranking": sorted(m["players"], reverse=True)},
                        token).get_json()
    final = [r["name"] for r in view["ranking"]]
    assert final != [s["name"] for s in view["standings"]]  # else the test would tell nothing
    for url in ("/tournaments/F1", "/tournaments/F1/podium", "/tournaments/F1/big"):
        for lang in ("fr", "en"):
            page = referee.get(url, headers={"Accept-Language": lang}).get_data(as_text=True)
            assert 'class="standings"' not in page, (url, lang)
            shown = re.findall(r'<li><span class="rank">(\d+)</span> ([^<]+?)\s*</li>',
                               page.split('class="final-ranking')[1].split("</ol>")[0])
            assert [n for _, n in shown] == final, (url, lang)
